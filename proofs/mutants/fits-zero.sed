# proofs/mutants/fits-zero.sed - mutant: a job needing no slot counts as a
# candidate (S-PRE-5: at least one slot).
# expect: fits_iff
# function: qs_candidate_fits
s/return needed > 0 && needed <= max_slots;/return needed >= 0 \&\& needed <= max_slots;/
