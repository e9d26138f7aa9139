# proofs/mutants/gate-counter-zero.sed - mutant: the gate lets a counter of
# exactly 0 through (S-PRE-3: "no attempt while the counter is <= 0").
# Expected to fail: the empty_counter behavior (never).
# expect: never
# function: qs_preempt_gate
s/if (slots_available <= 0)$/if (slots_available < 0)/
