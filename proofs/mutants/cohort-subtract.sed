# proofs/mutants/cohort-subtract.sed - mutant: a failure subtracts its
# 1/window of a pseudo-cohort instead of adding it (S-CON-6).
# Expected to fail: grows.
# expect: grows
# function: qs_cohort_add
s/return fail_cohorts + 1.0 \/ (double)window;/return fail_cohorts - 1.0 \/ (double)window;/
