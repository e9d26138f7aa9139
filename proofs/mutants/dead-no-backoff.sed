# proofs/mutants/dead-no-backoff.sed - mutant: a dead destination is due
# for revival at once (S-CON-10: after minimal_backoff_time).
# expect: retry
# file: src/concurrency.c
# function: queue_mark_dead
s/q->revive_at = now + backoff;/q->revive_at = now;/
