# proofs/proofs.mk - the Frama-C WP proofs (issue 6), included by the top
# Makefile.
#
# Owns the targets:
#   proofs          prove every contract of src/kernels.c and of the models
#                   in proofs/model.c, with run-time error checks (-wp-rte);
#                   prints one line per function and "Proved goals: N / N";
#                   fails if any goal is unproved or frama-c is missing
#   proofs-mutants  run WP on each mutant of proofs/mutants/*.sed (kernels
#                   with one code change and the same contracts); succeeds
#                   when every mutant has at least one unproved goal, and
#                   prints which goals fail for each
# Both are thin wrappers around proofs/run.sh, which `make check` also runs
# (and which skips cleanly when frama-c is not installed).  Output and logs
# go to $(BUILD)/proofs.  See proofs/README.md.

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
