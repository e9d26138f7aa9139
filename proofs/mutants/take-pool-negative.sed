# proofs/mutants/take-pool-negative.sed - mutant: a job put on the list
# also takes a negative pool (the extra pool's debt, S-MEM-5, S-MEM-6).
# expect: takes_all
# file: src/jobs.c
# function: job_take_pool
s/^    if (t->rcpt_unused > 0) {$/    if (t->rcpt_unused != 0) {/
