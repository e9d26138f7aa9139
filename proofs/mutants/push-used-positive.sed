# proofs/mutants/push-used-positive.sed - mutant: the child's slots_used
# starts at +needed, so the pop would take instead of refund (S-PRE-8).
# expect: used
# file: src/preempt.c
# function: job_stack_push
s/job->slots_used = -needed;/job->slots_used = needed;/
