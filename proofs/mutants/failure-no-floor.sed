# proofs/mutants/failure-no-floor.sed - mutant: the failure step clamps
# at 0 instead of 1 ("if (concurrency < 1) concurrency = 1", S-CON-7).
# Expected to fail: window_min.
# expect: window_min
# function: qs_failure_step
s/if (window < 1)$/if (window < 0)/
