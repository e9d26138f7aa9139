# proofs/mutants/cohort-add-nothing.sed - mutant: a failure adds nothing,
# `return fail_cohorts;` (S-CON-6): the count never grows, so a destination
# is never declared dead.  Every range clause (finite, grows) still holds;
# only the exact result catches it.
# expect: exact
# function: qs_cohort_add
s/return fail_cohorts + 1.0 \/ (double)window;/return fail_cohorts;/
