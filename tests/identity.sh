#!/bin/sh
# tests/identity.sh - records everything the scheduler prints over a large
# fixed set of inputs, so that two source trees can be shown to behave
# byte-for-byte alike (a refactoring, a split, comment-only changes).
#
# Owns: the "no behaviour change" check of issue 13.  Not a suite of
# tests/run.sh (it compares two trees, not a tree with expectations).
#
# usage:
#   sh tests/identity.sh record TREE OUT [--bmc]
#       builds TREE (a checkout: `make all` and the structured fuzz harness
#       from TREE's CORE_SRC) and runs it over the inputs of THIS checkout
#       (the directory this script is in), writing one file per run into
#       OUT: stdout, stderr and exit status together.  With --bmc also
#       `make bmc` of TREE (about 2 minutes, under nice).
#   sh tests/identity.sh compare OUT1 OUT2
#       diff -r of two records; prints the number of runs compared and
#       every difference; exit 1 if any.
# Typical use, before/after a change on the current branch:
#   git worktree add /tmp/before HEAD~1   (or: git archive | tar -x)
#   sh tests/identity.sh record /tmp/before build/id-before
#   sh tests/identity.sh record .           build/id-after
#   sh tests/identity.sh compare build/id-before build/id-after
#
# The runs (inputs are taken from this checkout):
#   golden   tests/golden/*.events with their "# args:" line; again with
#            --explain --stats --check-invariants; again as JSON Lines
#   errors   tests/errors/*.events (exit 2 and the message)
#   conf     every conformance vector (tests/conformance/hand, gen) on
#            stdin, as tests/conformance/run.sh feeds it, whole stdout
#            (explain level too: --explain --stats)
#   gen      `qsched gen` for every mix x seeds x sizes x both profiles
#            (--check), and each stream (its profile line removed) run
#            with --explain --stats in both profiles
#   fuzz     the text corpus, seeds and crash inputs through
#            `qsched --explain --stats`; the struct corpus, seeds and crash
#            inputs through the structured harness with QSCHED_FUZZ_ECHO=1
#            (it prints the event stream it drove, which depends on the
#            scheduler's answers) and that stream through qsched --explain
#   bmc      (--bmc) the stdout of `make bmc`, its counterexample
#            directory listing
set -u
here=$(cd "$(dirname "$0")/.." && pwd)

usage() { echo "usage: $0 record TREE OUT [--bmc] | compare OUT1 OUT2" >&2; exit 2; }

# one run: NAME then a command; stdout, stderr and status into OUT/NAME
run() { # name cmd...
    f="$out/$1"; shift
    mkdir -p "$(dirname "$f")"
    "$@" >"$f.out" 2>"$f.err"
    echo "$?" >"$f.rc"
    # keep records small and readable: one file per run
    { cat "$f.out"; echo "--- stderr"; cat "$f.err"; echo "--- exit $(cat "$f.rc")"; } >"$f"
    rm -f "$f.out" "$f.err" "$f.rc"
    n=$((n + 1))
}

# stdin variant: run_in NAME INPUT cmd...
run_in() {
    f="$out/$1"; inp=$2; shift 2
    mkdir -p "$(dirname "$f")"
    "$@" <"$inp" >"$f.out" 2>"$f.err"
    echo "$?" >"$f.rc"
    { cat "$f.out"; echo "--- stderr"; cat "$f.err"; echo "--- exit $(cat "$f.rc")"; } >"$f"
    rm -f "$f.out" "$f.err" "$f.rc"
    n=$((n + 1))
}

record() {
    tree=$(cd "$1" && pwd); out=$2; bmc=${3:-}
    rm -rf "$out"; mkdir -p "$out"
    out=$(cd "$out" && pwd)
    n=0
    make -s -C "$tree" all >/dev/null || { echo "build of $tree failed" >&2; exit 2; }
    q="$tree/build/qsched"
    # the structured fuzz harness, built from TREE's sources
    core=$(make -s -C "$tree" -p -n 2>/dev/null | sed -n 's/^CORE_SRC *:\{0,1\}= *//p' | head -1)
    srcs=""
    for s in $core src/events.c src/trace.c; do srcs="$srcs $tree/$s"; done
    fz="$out/.fuzz_struct"
    # shellcheck disable=SC2086
    cc -std=c11 -O1 -g -D_POSIX_C_SOURCE=200809L -DQSCHED_CROSSCHECK -I"$tree/src" \
        -I"$tree/fuzz" -o "$fz" "$tree/fuzz/fuzz_struct.c" "$tree/fuzz/common.c" \
        "$tree/fuzz/driver.c" $srcs -lm || { echo "fuzz harness build failed" >&2; exit 2; }
    # streams derived from other runs are read as ./s.events from a fixed
    # working directory, so that their diagnostics name the same file
    tmp=$(mktemp -d)
    cd "$tmp" || exit 2

    for ev in "$here"/tests/golden/*.events; do
        b=$(basename "$ev" .events)
        args=$(sed -n '1s/^# args: *//p' "$ev")
        # shellcheck disable=SC2086
        run "golden/$b" "$q" $args "$ev"
        # shellcheck disable=SC2086
        run "golden/$b.explain" "$q" $args --explain --stats --check-invariants "$ev"
        # shellcheck disable=SC2086
        run "golden/$b.jsonl" "$q" $args --explain --format jsonl "$ev"
    done
    for ev in "$here"/tests/errors/*.events "$here"/tests/scenarios/*.events; do
        b=$(basename "$ev" .events)
        run "errors/$b" "$q" --explain --stats "$ev"
    done
    for ev in "$here"/tests/conformance/hand/*.events "$here"/tests/conformance/gen/*.events; do
        d=$(basename "$(dirname "$ev")"); b=$(basename "$ev" .events)
        run_in "conf/$d/$b" "$ev" "$q"
        run_in "conf/$d/$b.explain" "$ev" "$q" --explain --stats
    done
    mixes=$("$q" gen --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
    for mix in $mixes; do
        for prof in document postfix; do
            for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
                case $seed in 1|2|3) sizes="small medium";; 4) sizes="small large";; *) sizes=small;; esac
                for size in $sizes; do
                    name="gen/$mix-$prof-$seed-$size"
                    run "$name" "$q" gen --seed "$seed" --mix "$mix" --profile "$prof" --size "$size" --check
                    sed -n '/^--- stderr$/q;p' "$out/$name" | sed '/^profile /d' >s.events
                    for p2 in document postfix; do
                        run "$name.run-$p2" "$q" --profile "$p2" --explain --stats s.events
                    done
                done
            done
        done
    done
    for h in text struct; do
        for d in "$here/fuzz/seeds/$h" "$here/fuzz/corpus/$h" "$here/fuzz/crashes/$h"; do
            [ -d "$d" ] || continue
            set="$h-$(basename "$(dirname "$d")")"
            for f in $(find "$d" -maxdepth 1 -type f ! -name 'README*' ! -name '.*' | sort); do
                b=$(basename "$f")
                if [ "$h" = text ]; then
                    run "fuzz/$set/$b" "$q" --explain --stats "$f"
                else
                    QSCHED_FUZZ_ECHO=1; export QSCHED_FUZZ_ECHO
                    run "fuzz/$set/$b" "$fz" "$f"
                    unset QSCHED_FUZZ_ECHO
                    sed -n '/^--- stderr$/q;p' "$out/fuzz/$set/$b" >s.events
                    run "fuzz/$set/$b.run" "$q" --explain --stats --check-invariants s.events
                fi
            done
        done
    done
    rm -f "$fz"
    cd "$here" || exit 2
    rm -rf "$tmp"
    if [ "$bmc" = --bmc ]; then
        (cd "$tree" && nice -n 10 make -s bmc) >"$out/bmc.out" 2>&1
        echo "--- exit $?" >>"$out/bmc.out"
        (cd "$tree/build/bmc/out" 2>/dev/null && find . -type f | sort | xargs -r md5sum) >"$out/bmc.files"
        n=$((n + 1))
    fi
    echo "$n runs recorded in $out"
}

compare() {
    a=$1; b=$2
    na=$(find "$a" -type f | wc -l); nb=$(find "$b" -type f | wc -l)
    if diff -r "$a" "$b" >/dev/null; then
        echo "identical: $na runs in $a, $nb in $b"
        return 0
    fi
    diff -rq "$a" "$b" | head -50
    echo "DIFFERENT: $(diff -rq "$a" "$b" | wc -l) of $na runs differ"
    return 1
}

case ${1:-} in
record) [ $# -ge 3 ] || usage; record "$2" "$3" "${4:-}";;
compare) [ $# -eq 3 ] || usage; compare "$2" "$3";;
*) usage;;
esac
