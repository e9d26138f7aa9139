# proofs/mutants/gate-min-entries.sed - mutant: the gate uses the minimum
# entry estimate (S-PRE-3 uses MAX: "could never accumulate").
# expect: open_iff
# file: src/preempt.c
# function: preempt_gate_open
s/return qs_preempt_gate(current->slots_available, QS_MAX_ENTRIES(current),/return qs_preempt_gate(current->slots_available, QS_MIN_ENTRIES(current),/
