# proofs/mutants/push-same-level.sed - mutant: the preempting child stays
# on its parent's level (S-PRE-8: one level deeper).
# expect: level
# file: src/preempt.c
# function: job_stack_push
s/job->stack_level = current->stack_level + 1;/job->stack_level = current->stack_level;/
