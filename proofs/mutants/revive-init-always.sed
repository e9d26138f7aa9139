# proofs/mutants/revive-init-always.sed - mutant: a postfix revival with a
# single delivery in flight restarts at init (S-PFX-4: the deliveries in
# flight).
# expect: window
# file: src/concurrency.c
# function: queue_revive_state
s/if (postfix && busy > 0)/if (postfix \&\& busy > 1)/
