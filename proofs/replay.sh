#!/bin/sh
# proofs/replay.sh - make check's replay of the proofs (issue 15, item 6):
# the hook `proofs-replay` of tests/run.sh.
#
# Owns nothing but the choice of mode: it runs `sh proofs/run.sh check`,
# which generates every WP goal of the core from the sources as they are
# (Frama-C, RTE included, smoke tests included) and looks each one up in
# the committed cache proofs/wp-cache/ (`-wp-cache offline`: no prover is
# ever started, so no timeout can be raced on a loaded machine), and
# replays the Why3 inflation theorem by the key of proofs/wp-cache/why3.txt.
# Deterministic and offline.  About a second when the inputs of every run
# are unchanged since make proofs-cache (the replay keys of proofs/run.sh:
# the recorded outcome is printed without starting Frama-C); a run whose
# inputs changed has its goals generated and looked up (a minute and a
# half of Frama-C on 2 cores when all changed).
#
# It fails, naming the functions, when a proof obligation changed and is
# not in the cache (a contract or a proved function was edited): run
# `make proofs-cache` (proves the new goals, a few minutes) and commit
# proofs/wp-cache/.  `make proofs` proves everything from scratch.
#
# Under CI=true a missing frama-c is a failure, not a skip (tests/deps.sh
# installs it).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
if [ "${CI:-false}" = true ]; then PROOFS_REQUIRE=1; export PROOFS_REQUIRE; fi
exec sh proofs/run.sh check
