# proofs/mutants/max-slots-precedence.sed - mutant: an integer-division
# slip in the candidate bound: only the counter is divided by k, not
# (MIN - selected + counter) as S-PRE-5 says.
# Expected to fail: value and affordable.
# expect: value affordable
# function: qs_candidate_max_slots
s/return (min_entries - selected + slots_available) \/ slot_cost;/return min_entries - selected + slots_available \/ slot_cost;/
