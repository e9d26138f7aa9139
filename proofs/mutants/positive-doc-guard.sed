# proofs/mutants/positive-doc-guard.sed - mutant: the document profile's
# positive feedback with Postfix's rounding guard (S-CON-4 vs S-PFX-2):
# success may leave the document's range [0, 1).
# expect: success_range
# file: src/concurrency.c
# function: queue_positive_step
s/q->window = qs_success_step(q->window, g, t->dest_conc_limit, postfix,/q->window = qs_success_step(q->window, g, t->dest_conc_limit, 1,/
