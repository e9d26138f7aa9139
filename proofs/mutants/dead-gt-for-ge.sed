# proofs/mutants/dead-gt-for-ge.sed - mutant: the postfix dead-destination
# test uses > where Postfix uses >= (S-PFX-1: "dead when fail_cohorts >=
# limit").  With limit 1 and window 1 a single failure must kill.
# Expected to fail: the `postfix` behavior's dead_iff.
# expect: dead_iff
# function: qs_cohort_dead
s/return limit > 0 \&\& fail_cohorts >= (double)limit;/return limit > 0 \&\& fail_cohorts > (double)limit;/
