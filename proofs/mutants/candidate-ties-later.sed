# proofs/mutants/candidate-ties-later.sed - mutant: an equal score replaces
# the best candidate, so ties go to the later job (S-PRE-6).
# expect: kept
# file: src/preempt_scan.c
# function: candidate_consider
s/(!best.job || qs_score_better(delay, total, best.delay, best.total))) {/(!best.job || !qs_score_better(best.delay, best.total, delay, total))) {/
