# proofs/mutants/stop-any-level.sed - mutant: the early stop also on a
# preempting child, which sits out of time order (S-PRE-6).
# expect: stop_iff
# file: src/preempt_scan.c
# function: candidate_scan_stops
s/return job->stack_level == 0 \&\&/return job->stack_level >= 0 \&\&/
