# proofs/mutants/unused-max.sed - mutant: a job gives back the larger of
# its and its message's unused slots (S-MEM-5: what neither uses).
# expect: job_bound msg_bound
# function: qs_pool_unused
s/return msg_unused < job_unused ? msg_unused : job_unused;/return msg_unused > job_unused ? msg_unused : job_unused;/
