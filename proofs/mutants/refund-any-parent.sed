# proofs/mutants/refund-any-parent.sed - mutant: the refund on pop is paid
# to any parent, not only to the original parent one level up (S-PRE-9:
# "an adoptive parent never paid for the child").
# Expected to fail: the adoptive_parent behavior (no_refund).
# expect: no_refund
# function: qs_slots_refund
s/if (child_level != parent_level + 1)$/if (child_level != parent_level + 1 \&\& child_level < 0)/
