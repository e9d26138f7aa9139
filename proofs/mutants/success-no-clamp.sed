# proofs/mutants/success-no-clamp.sed - mutant: the success step forgets
# the overshoot clamp "if (concurrency > concurrency limit) concurrency =
# concurrency limit" (S-CON-5).
# Expected to fail: window_max (the window may exceed the limit).
# expect: window_max
# function: qs_success_step
/if (limit > 0 && window > limit)/{
n
s/window = limit;/(void)limit;/
}
