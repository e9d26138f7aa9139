# proofs/mutants/refund-child-level.sed - mutant: the pop refunds every
# parent, adoptive ones too (S-PRE-9: the original parent only).
# expect: none
# file: src/preempt.c
# function: job_refund_parent
s/^                        job->stack_level, parent->stack_level);$/                        parent->stack_level + 1, parent->stack_level);/
