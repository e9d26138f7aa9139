# proofs/mutants/test-no-loan.sed - mutant: the scheduler calls the
# preemption test without the transport's loan (S-PRE-7).
# expect: fires_iff
# file: src/preempt.c
# function: preempt_test_fires
s/^                            t->slot_loan, t->slot_discount, needed);$/                            0, t->slot_discount, needed);/
