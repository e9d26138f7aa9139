# proofs/mutants/positive-no-safety.sed - mutant: the postfix profile's
# positive feedback without the safety rule (S-CON-3).
# expect: safety
# file: src/concurrency.c
# function: queue_feedback_positive
s/^            qs_safety_allows(q->window, (int)q->busy, t->init_conc)) {$/            1) {/
