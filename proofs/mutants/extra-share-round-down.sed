# proofs/mutants/extra-share-round-down.sed - mutant: the extra pool share
# rounded down instead of up ("half (rounded up)", S-MEM-6).
# Expected to fail: value and half_up.
# expect: half_up
# function: qs_pool_extra_share
s/return (per_stack + unused + 1) \/ 2;/return (per_stack + unused) \/ 2;/
