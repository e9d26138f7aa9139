# proofs/mutants/cannot-improve-strict.sed - mutant: the early stop of the
# candidate scan misses the equal score (S-PRE-6).
# expect: stop_iff
# function: qs_score_cannot_improve
s/return delay \* total_best <= delay_best;/return delay * total_best < delay_best;/
