# proofs/mutants/cix-score-swapped.sed - mutant: the candidate index
# compares the best so far against the job instead of the job against the
# best (S-PRE-6): it keeps a worse job and drops a better one.  The call
# still meets qs_score_better's preconditions; the contract of
# cix_consider catches it.
# expect: taken
# file: src/candidates.c
# function: cix_consider
s/qs_score_better(delay, total, b->delay, b->total)/qs_score_better(b->delay, b->total, delay, total)/
