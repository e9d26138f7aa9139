# proofs/mutants/discount-divided-first.sed - mutant: another integer-
# division slip: the right-hand side needed*(100-discount)/100 computed in
# integers, which rounds the requirement down (S-PRE-7: "Multiplying both
# sides by 100 keeps it in integers").
# Expected to fail: fires_iff and document (e.g. needed 3, discount 50).
# expect: fires_iff document
# function: qs_preempt_fires
s/return 100 \* have >= needed \* (100 - discount);/return have >= needed * (100 - discount) \/ 100;/
