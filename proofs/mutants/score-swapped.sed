# proofs/mutants/score-swapped.sed - mutant: the cross multiplication pairs
# each delay with its own total (delay_a*total_a > delay_b*total_b), which
# is not delay_a/total_a > delay_b/total_b (S-PRE-6).
# Expected to fail: cross and score.
# expect: cross score
# function: qs_score_better
s/    return delay_a \* total_b > delay_b \* total_a;/    return delay_a * total_a > delay_b * total_b;/
