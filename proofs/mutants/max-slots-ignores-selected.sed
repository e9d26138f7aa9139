# proofs/mutants/max-slots-ignores-selected.sed - mutant: what the current
# job may still pay for counts its entries as if none were selected yet
# (S-PRE-5: MIN - selected + counter, over k).
# expect: value
# file: src/preempt_scan.c
# function: job_max_slots
/^static int64_t (job_max_slots)/,/^}/s/current->selected_entries,$/0,/
