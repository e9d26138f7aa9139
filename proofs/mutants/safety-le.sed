# proofs/mutants/safety-le.sed - mutant: the safety rule lets the window
# reach busy + init ("concurrency < busy_refcount + init", S-CON-3).
# expect: allows_iff
# function: qs_safety_allows
s/return window < busy + init;/return window <= busy + init;/
