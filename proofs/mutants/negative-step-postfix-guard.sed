# proofs/mutants/negative-step-postfix-guard.sed - mutant: the failure step
# always runs with Postfix's rounding guard (S-PFX-2), so in the document
# profile one failure may take the window down by two ("concurrency -= 1",
# S-CON-7).
# expect: window
# file: src/concurrency.c
# function: queue_negative_step
s/q->window = qs_failure_step(q->window, f, postfix,/q->window = qs_failure_step(q->window, f, 1,/
