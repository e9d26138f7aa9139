#!/bin/sh
# tests/postfix/diff.sh - differential testing of qsched's postfix profile
# against Postfix's own queue manager (issue 14).  Behind `make
# postfix-diff`, `make postfix-diff-long` and the bounded run of `make
# check` (tests/postfix/check.sh).
#
# Owns: the choice of streams (generated streams over every mix of `qsched
# gen`, every conformance vector, every regression vector of
# tests/postfix/found), running each through tests/postfix/compare.sh,
# minimising each divergence with fuzz/minstream.py into
# tests/postfix/found/NEW-*.events (with Postfix's trace as .postfix), and
# the summary.  The last two lines are
#   Postfix VERSION (...)
#   postfix-diff: S streams, D decisions, K diverged
# where S counts the streams compared, D the default-level trace lines
# (decisions) both sides printed and agreed on, and K the streams whose
# traces differ.  Streams that no Postfix situation expresses are counted
# apart (an "inexpressible" line before the summary, with the reasons).
#
# usage: sh tests/postfix/diff.sh [-n STREAMS] [-s SEED] [-z SIZE]
#            [--no-vectors] [--no-minimise] [--quiet]
#   -n  generated streams (default 200); they cycle through every mix (an
#       inexpressible one is generated again with --distinct-addresses)
#   -s  first seed (default 1)
#   -z  events per generated stream, or a list ("400 2000") used in turn,
#       one size per round of the mixes (default "80 400")
# Exit 0 when nothing diverged, 1 otherwise, 2 if the tools are missing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
QSCHED=${QSCHED:-$top/build/qsched}
PFQMGR=${PFQMGR:-$top/build/postfix/pfqmgr}
export QSCHED PFQMGR
streams=200
seed=1
size="80 400"
vectors=1
minimise=1
quiet=0
while [ $# -gt 0 ]; do
    case $1 in
    -n) streams=$2; shift 2 ;;
    -s) seed=$2; shift 2 ;;
    -z) size=$2; shift 2 ;;
    --no-vectors) vectors=0; shift ;;
    --no-minimise) minimise=0; shift ;;
    --quiet) quiet=1; shift ;;
    *) echo "usage: diff.sh [-n STREAMS] [-s SEED] [-z SIZE] [--no-vectors] [--no-minimise] [--quiet]" >&2; exit 2 ;;
    esac
done
for tool in "$QSCHED" "$PFQMGR"; do
    [ -x "$tool" ] || { echo "postfix-diff: $tool is missing (make postfix-harness)" >&2; exit 2; }
done
mixes=$("$QSCHED" gen --help | sed -n 's/^  \([a-z0-9-][a-z0-9-]*\)  .*/\1/p')
nmix=$(echo "$mixes" | wc -l)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
S=0 D=0 K=0 X=0 F=0
: >"$tmp/diverged"
: >"$tmp/inexpressible"

# one stream: NAME FILE
one() {
    out=$(sh tests/postfix/compare.sh "$2" "$tmp/pf.trace" 2>&1)
    first=$(echo "$out" | head -1)
    case $first in
    SAME*)
        S=$((S + 1))
        D=$((D + ${first#SAME })) ;;
    INEXPRESSIBLE*)
        X=$((X + 1))
        echo "$1: ${first#INEXPRESSIBLE }" >>"$tmp/inexpressible" ;;
    DIVERGENCE*)
        S=$((S + 1))
        K=$((K + 1))
        echo "$1" >>"$tmp/diverged"
        if [ $quiet = 0 ]; then
            echo "== $1 diverged"
            echo "$out" | head -25
        fi
        [ $minimise = 1 ] && keep "$1" "$2" ;;
    *)
        F=$((F + 1))
        echo "== $1: $first"
        echo "$1 ($first)" >>"$tmp/diverged" ;;
    esac
    return 0
}

# Minimise a divergence into a new regression vector (to be named and
# explained by whoever closes it, see tests/postfix/found/README.md).
keep() {
    name=NEW-$(echo "$1" | tr -c 'a-zA-Z0-9_.\n-' '-')
    out=tests/postfix/found/$name.events
    if python3 fuzz/minstream.py "sh tests/postfix/compare.sh" DIVERGENCE \
        "$2" "$tmp/min.events" >/dev/null 2>&1; then
        { echo "# $name: found by make postfix-diff ($1), minimised"
          echo "# profile: postfix"
          cat "$tmp/min.events"; } >"$out"
        sh tests/postfix/compare.sh "$out" "tests/postfix/found/$name.postfix" >/dev/null 2>&1
        echo "   minimised into $out (Postfix's trace: $name.postfix)"
    fi
}

i=0
while [ "$i" -lt "$streams" ]; do
    s=$((seed + i))
    mix=$(echo "$mixes" | sed -n "$((i % nmix + 1))p")
    nz=$(echo "$size" | wc -w)
    z=$(echo "$size" | cut -d' ' -f$((i / nmix % nz + 1)))
    if "$QSCHED" gen --seed "$s" --profile postfix --mix "$mix" --size "$z" \
        >"$tmp/g.events" 2>"$tmp/g.err"; then
        x0=$X
        one "gen-$mix-$s-$z" "$tmp/g.events"
        # Inexpressible (one address for two transports in one message,
        # README.md): the same seed again with --distinct-addresses, which
        # keeps every draw but gives such a group its earlier transport,
        # so the mix is still compared (as gen-MIX-SEED-SIZE-d).
        if [ "$X" -gt "$x0" ] &&
           "$QSCHED" gen --seed "$s" --profile postfix --mix "$mix" --size "$z" \
               --distinct-addresses >"$tmp/g.events" 2>"$tmp/g.err"; then
            one "gen-$mix-$s-$z-d" "$tmp/g.events"
        fi
    else
        F=$((F + 1))
        echo "gen-$mix-$s-$z (qsched gen failed: $(head -1 "$tmp/g.err"))" >>"$tmp/diverged"
    fi
    i=$((i + 1))
done
if [ $vectors = 1 ]; then
    for v in tests/conformance/hand/*.events tests/conformance/gen/*.events \
             tests/postfix/found/*.events; do
        [ -f "$v" ] || continue
        case $v in tests/postfix/found/NEW-*) continue ;; esac
        one "$(basename "$v" .events)" "$v"
    done
fi
if [ -s "$tmp/diverged" ]; then
    echo "diverged: $(tr '\n' ' ' <"$tmp/diverged")"
fi
if [ "$X" -gt 0 ]; then
    echo "inexpressible (not counted): $X streams"
    sed 's/^/  /' "$tmp/inexpressible" | head -10
fi
"$PFQMGR" --version
echo "postfix-diff: $S streams, $D decisions, $((K + F)) diverged"
[ $((K + F)) -eq 0 ]
