# proofs/mutants/scan-takes-blockers.sed - mutant: the candidate scan
# considers blockers (S-PRE-5, S-PRE-11).
# expect: kind
# file: src/preempt_scan.c
# function: job_candidate_scan
s/^        if (job->child_head || QS_IS_BLOCKER(job))$/        if (job->child_head)/
