# shellcheck shell=sh
# tests/lib/streams.sh - shell helpers of the differential tests that
# compare builds of qsched on generated streams (tests/sh/blocker-index.sh,
# tests/sh/settled-batches.sh, tests/sh/time-place.sh).  Sourced, not
# run: tests/run.sh runs only tests/sh/*.sh.  Sourcing it starts the
# test: set -u, a scratch directory $t removed on exit, ok NAME and no
# NAME REASON (its ok and FAIL lines), and $Q, the qsched that generates
# the streams.
set -u
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok $1"; }
no() { echo "FAIL $1: $2"; }
Q=${QSCHED:-build/qsched}

# build DIR FLAGS [SRCDIR]: qsched built into DIR with CFLAGS=FLAGS (and
# no profile-guided pass, PGO=0: the Makefile) from the tree SRCDIR
# (default: here); a failed build fails the test.  These builds were most
# of the differential tests' time (make check's sh suite), so:
#   - they are built at OPT=$TEST_OPT (default -O1: no link-time
#     optimisation, no debug information; a build about 4x faster than
#     the default -O2 -flto, and what is compared is the code's
#     behaviour, the same at any level: the sanitizer suites hold the code
#     free of the undefined behaviour that could make levels differ);
#   - a build of this tree is kept, by its FLAGS, as the seed of a
#     mutant's build with the same FLAGS: the mutant's tree (mutant_tree)
#     keeps the sources' times, so make recompiles only what its mutated
#     file reaches (the one object, or every object for a header: the
#     Makefile's objects depend on every header) and links.  make does not
#     track flags, which is why a seed is only ever used for the same
#     FLAGS and OPT.
TEST_OPT=${TEST_OPT:--O1}
build() {
    build_key=$(printf '%s|%s' "$TEST_OPT" "$2" | cksum | cut -d' ' -f1)
    build_seed="$t/.seed-$build_key"
    if [ -n "${3:-}" ] && [ -d "$build_seed" ]; then
        mkdir -p "$1"
        cp -pR "$build_seed/." "$1/"
    fi
    make -s -j2 -C "${3:-.}" BUILD="$1" OPT="$TEST_OPT" CFLAGS="$2" PGO=0 "$1/qsched" >"$t/build.log" 2>&1 ||
        { no "build-$(basename "$1")" "$(head -3 "$t/build.log" | tr '\n' ' ')"; exit 1; }
    if [ -z "${3:-}" ] && [ ! -d "$build_seed" ]; then
        cp -pR "$1" "$build_seed"
    fi
}

# gen_streams BACKLOG "MIX SEED SIZE"...: postfix-profile streams of
# `qsched gen`, $t/N-MIX-SEED.events with N counting from 0 (the queue,
# heavy and large mixes with --backlog BACKLOG); a stream that gen fails
# to write is a FAIL line and left out.  gen_count: how many were written.
gen_streams() {
    gen_backlog=$1
    shift
    gen_count=0
    for gen_run in "$@"; do
        # shellcheck disable=SC2086
        set -- $gen_run
        case $1 in queue|heavy|large) b="--backlog $gen_backlog" ;; *) b= ;; esac
        f="$t/$gen_count-$1-$2.events"
        # shellcheck disable=SC2086
        if ! "$Q" gen --seed "$2" --mix "$1" --profile postfix $b \
            --size "$3" >"$f" 2>"$t/gen.err" || [ ! -s "$f" ]; then
            no "postfix-$1-$2" "gen failed: $(head -1 "$t/gen.err")"
            rm -f "$f"
            continue
        fi
        gen_count=$((gen_count + 1))
    done
}

# mutant_tree NAME DIR FILE SED: a copy of the sources in DIR with
# src/FILE changed by the sed script; fails (the FAIL line
# mutant-NAME-applies, status 1) if the script changed nothing, so that a
# mutant that no longer applies is never taken for one that was caught.
mutant_tree() {
    mkdir -p "$2"
    cp -pR Makefile src "$2/" # -p: the times, for build's seed
    sed -i "$4" "$2/src/$3"
    if cmp -s "src/$3" "$2/src/$3"; then
        no "mutant-$1-applies" "the mutation did not change src/$3"
        return 1
    fi
}

# run BIN FILE ARGS...: the trace, --stats and the exit status in one text
# (what the differential tests compare), with $RUN_FLAGS (default none)
# before the file; a run that hangs is cut at 30 s (a mutant's loop).
RUN_FLAGS=
run() {
    run_b=$1 run_f=$2
    shift 2
    # shellcheck disable=SC2086
    timeout 30 "$run_b" "$@" $RUN_FLAGS --stats "$run_f" 2>&1
    echo "exit $?"
}

# mutant NAME FILE SED: a copy of the sources with src/FILE changed by the
# sed script (mutant_tree), built, must differ from the reference build
# $t/ref on one of the generated streams $t/*-*.events (ok
# mutant-NAME-caught, with the stream and the mutant's exit status; FAIL
# if it agrees on all $gen_count).
mutant() {
    mut_d="$t/mut-$1"
    mutant_tree "$1" "$mut_d" "$2" "$3" || return
    build "$mut_d/build" "" "$mut_d"
    for mut_f in "$t"/*-*.events; do
        run "$t/ref/qsched" "$mut_f" >"$t/r.out"
        run "$mut_d/build/qsched" "$mut_f" >"$t/m.out"
        if ! cmp -s "$t/r.out" "$t/m.out"; then
            ok "mutant-$1-caught ($(basename "$mut_f"): $(tail -1 "$t/m.out"))"
            return
        fi
    done
    no "mutant-$1-caught" "the mutant agreed with the reference on $gen_count streams"
}
