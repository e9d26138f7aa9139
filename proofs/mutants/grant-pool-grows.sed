# proofs/mutants/grant-pool-grows.sed - mutant: the extra-pool share is
# added to the pool instead of taken from it (S-MEM-6, S-INV-5).
# expect: conserved
# file: src/preempt.c
# function: job_extra_grant
s/t->rcpt_unused -= share;/t->rcpt_unused += share;/
