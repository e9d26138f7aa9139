# proofs/proofs.mk - the Frama-C WP proofs and the Why3 theorem (issues 6
# and 15), included by the top Makefile.
#
# Owns the targets:
#   proofs          prove, from scratch, every contract of the core (the
#                   kernels of src/kernels.c and the scheduler's helpers,
#                   as compiled, through the harnesses proofs/wp/*.c), with
#                   run-time error checks (-wp-rte) and smoke tests, and the
#                   inflation theorem (proofs/why3/inflation.mlw); prints one
#                   line per function and "Proved goals: N / N"; fails if
#                   any goal is unproved or frama-c is missing
#   proofs-mutants  run WP on each mutant of proofs/mutants/*.sed (a core
#                   function with one code change and the same contracts);
#                   succeeds when every mutant leaves the goals its
#                   "# expect:" line names unproved
#   proofs-cache    bring the committed prover results proofs/wp-cache/ up
#                   to date (below)
#   proofs-replay   what make check runs (proofs/replay.sh): replay the
#                   cache, never a prover
# All are thin wrappers around proofs/run.sh.  Output and logs go to
# $(BUILD)/proofs.  See proofs/README.md.

.PHONY: proofs proofs-mutants

proofs:
	@BUILD="$(BUILD)" CC="$(CC)" PROOFS_REQUIRE=1 sh proofs/run.sh proofs

proofs-mutants:
	@BUILD="$(BUILD)" CC="$(CC)" PROOFS_REQUIRE=1 sh proofs/run.sh mutants

# proofs-cache  bring the committed prover results proofs/wp-cache/ (and the
#               Why3 key proofs/wp-cache/why3.txt) up to date with the
#               sources: provers run only for goals not in the cache; commit
#               the result.  make check replays it (proofs/replay.sh) and
#               fails when a goal is missing from it.
.PHONY: proofs-cache proofs-replay

proofs-cache:
	@BUILD="$(BUILD)" CC="$(CC)" PROOFS_REQUIRE=1 sh proofs/run.sh refresh

proofs-replay:
	@BUILD="$(BUILD)" CC="$(CC)" PROOFS_REQUIRE=1 sh proofs/run.sh check
