# proofs/mutants/count-selection-no-used.sed - mutant: a selection grows
# the counter but not slots_used, so a pop would refund entries the child
# did use (S-PRE-4, S-PRE-9).
# expect: used
# file: src/select.c
# function: job_count_selection
/^    job->slots_used++;$/d
