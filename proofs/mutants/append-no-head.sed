# proofs/mutants/append-no-head.sed - mutant: the first child is not made
# the head of its parent's children list (S-PRE-10 walks that list).
# expect: first
# file: src/preempt.c
# function: child_append
/^        parent->child_head = child;$/d
