# proofs/mutants/give-back-keep-pool.sed - mutant: the pool handed to the
# first unread job is also kept by the transport (S-MEM-5, S-INV-5).
# expect: conserved
# file: src/memory.c
# function: job_give_back
/^            t->rcpt_unused = 0;$/d
