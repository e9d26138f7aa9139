# proofs/mutants/cix-bound-fallback-prunes.sed - mutant: when a subtree's
# aggregates are out of the kernels' ranges, the candidate index's bound
# answers "skip" instead of "visit" (S-PRE-6, cix_bound_may_beat): a
# subtree the exact per-job test never saw would be pruned.  The
# contract's "prune" clause catches it.
# expect: prune
# file: src/candidates.c
# function: cix_bound_may_beat
s/return 1; \/\* S-PRE-6 by the walk: visit/return 0; \/* S-PRE-6 by the walk: visit/
