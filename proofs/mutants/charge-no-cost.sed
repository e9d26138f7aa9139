# proofs/mutants/charge-no-cost.sed - mutant: the preempted job pays one
# slot per entry instead of k (S-PRE-8: needed * k).
# expect: charged
# function: qs_slots_charge
s/return slots_available - needed \* slot_cost;/return slots_available - needed;/
