# proofs/mutants/loan-ignored.sed - mutant: the preemption test forgets the
# slot loan ("counter/k + loan >= needed*(100-discount)/100", S-PRE-7).
# Expected to fail: fires_iff and document.
# expect: fires_iff document
# function: qs_preempt_fires
s/long long have = slots_available \/ slot_cost + loan;/long long have = slots_available \/ slot_cost + 0 * loan;/
