# proofs/mutants/positive-no-safety.sed - mutant: the postfix profile's
# positive feedback without the safety rule (S-CON-3).
# expect: allowed_iff
# file: src/concurrency.c
# function: queue_positive_allowed
s/^               qs_safety_allows(q->window, (int)q->busy, t->init_conc);$/               1;/
