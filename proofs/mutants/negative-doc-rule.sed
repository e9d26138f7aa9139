# proofs/mutants/negative-doc-rule.sed - mutant: the cohort rule of the
# document applied in both profiles (S-CON-8 vs S-PFX-1).
# expect: dead_iff
# file: src/concurrency.c
# function: queue_negative_count
s/return qs_cohort_dead(q->fail_cohorts, t->cohort_limit, postfix);/return qs_cohort_dead(q->fail_cohorts, t->cohort_limit, 0);/
