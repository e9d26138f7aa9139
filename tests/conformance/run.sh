#!/bin/sh
# tests/conformance/run.sh - runs the conformance vectors against any
# scheduler implementation (the engine of `make conformance`).
#
# Owns: the language-neutral contract of the suite.  For every vector
# NAME.events (tests/conformance/hand, tests/conformance/gen) the command
# IMPL gets the stream on stdin and must print its trace on stdout; only
# the default-level lines count (deliver, idle, window, dead, revive,
# defer: spec/trace.md), so an implementation may print more.  They must
# equal NAME.expected, and the exit status must be 0 (or the one a
# "# exit: N" header line names: 2 for streams with an input error,
# S-EV-10).  For each failure the first-divergence report of
# `qsched verify` follows; the last line is "N passed, N failed".
#
# usage: run.sh [-q] IMPL [VECTOR...]
#   IMPL     a shell command, e.g. "./my-scheduler --trace" (run with sh -c)
#   VECTOR   .events files (default: every vector of the suite)
#   -q       print only failures and the summary
# environment: QSCHED  the qsched binary used for divergence reports
#                      (default build/qsched next to this directory)
#              CONFORMANCE_TIMEOUT  seconds per vector (default 20)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
quiet=0
if [ "${1:-}" = "-q" ]; then quiet=1; shift; fi
if [ $# -lt 1 ]; then
    echo "usage: $0 [-q] IMPL [VECTOR.events...]" >&2
    exit 2
fi
impl=$1
shift
QSCHED=${QSCHED:-$top/build/qsched}
limit=${CONFORMANCE_TIMEOUT:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ $# -eq 0 ]; then
    set -- "$here"/hand/*.events "$here"/gen/*.events
fi
tmo=""
if command -v timeout >/dev/null 2>&1; then tmo="timeout $limit"; fi

pass=0
fail=0
for ev in "$@"; do
    [ -f "$ev" ] || continue
    name=$(basename "$ev" .events)
    exp="${ev%.events}.expected"
    want_rc=$(sed -n '1,20s/^# exit: *\([0-9][0-9]*\).*/\1/p' "$ev" | head -1)
    want_rc=${want_rc:-0}
    # shellcheck disable=SC2086
    $tmo sh -c "$impl" <"$ev" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    # the default level, without CR or trailing blanks
    tr -d '\r' <"$tmp/out" | sed 's/[ 	]*$//' |
        grep -E '^(deliver|window|dead|revive|defer) |^idle$' >"$tmp/got"
    why=""
    if [ ! -f "$exp" ]; then
        why="missing $(basename "$exp")"
    elif ! cmp -s "$tmp/got" "$exp"; then
        why="trace differs"
    elif [ "$rc" -ne "$want_rc" ]; then
        why="exit status $rc, want $want_rc"
        [ "$rc" -eq 124 ] && why="timed out after ${limit}s"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        [ $quiet -eq 1 ] || echo "PASS $name"
        continue
    fi
    fail=$((fail + 1))
    echo "FAIL $name: $why"
    if [ "$why" = "trace differs" ]; then
        if [ -x "$QSCHED" ]; then
            "$QSCHED" verify "$ev" "$tmp/got" | sed 's/^/    /' |
                sed -e "s# ($tmp/got line [0-9]*)##" -e "s#$tmp/got#trace#g" \
                    -e "s#$top/##g"
        else
            diff "$exp" "$tmp/got" | head -5 | sed 's/^/    /'
        fi
    elif [ -s "$tmp/err" ]; then
        head -3 "$tmp/err" | sed 's/^/    stderr: /'
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
