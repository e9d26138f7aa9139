# proofs/mutants/cix-bound-delay-off-by-one.sed - mutant: the range guard
# of the candidate index's subtree bound (S-PRE-6, cix_bound_may_beat)
# lets a delay one past QS_DELAY_SAFE through to qs_score_better, whose
# exact products could then overflow.  The kernel's precondition at the
# call (and the contract's "prune" clause) catch it.
# expect: delays
# file: src/candidates.c
# function: cix_bound_may_beat
s/#define CIX_DELAY_SAFE 9223372036LL/#define CIX_DELAY_SAFE 9223372037LL/
