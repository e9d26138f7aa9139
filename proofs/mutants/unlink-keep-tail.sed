# proofs/mutants/unlink-keep-tail.sed - mutant: unlinking the last child
# leaves the list's tail on it.
# expect: tail
# file: src/preempt.c
# function: child_unlink
/^        parent->child_tail = child->sprev;$/d
