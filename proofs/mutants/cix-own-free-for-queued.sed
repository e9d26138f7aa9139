# proofs/mutants/cix-own-free-for-queued.sed - mutant: the candidate index
# takes the job's delay from the wrong one of its own index fields (its
# part of cix_min_free, the enqueue time of a job without a stack parent,
# "none" for a job with one) instead of its own part of cix_min_queued
# (S-PRE-6's delay).  The precondition `own` says what the own part is;
# the assertion `own` at the reads (which the precondition proves for the
# right fields) catches the misreading.
# expect: own
# file: src/candidates.c
# function: cix_consider
s/delay = b->s->now - job->cix_own_queued + 1;/delay = b->s->now - job->cix_own_free + 1;/
