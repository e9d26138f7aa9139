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
# Every failure's report ends with the named readings of the document
# (spec/readings.md) under which qsched prints the implementation's trace,
# if a single reading, a pair or a triple does (`qsched verify --readings`).
# An implementation that follows other readings than qsched's declares
# them with --readings: a vector then passes if the trace is qsched's
# under those readings ("PASS NAME (with your readings)").
#
# usage: run.sh [-q] [--readings "NAME=VALUE ..."] IMPL [VECTOR...]
#   IMPL     a shell command, e.g. "./my-scheduler --trace" (run with sh -c)
#   VECTOR   .events files (default: every vector of the suite)
#   -q       print only failures and the summary
#   --readings  the implementation's readings, e.g. "idle_window=keep
#            score_wait_plus_one=no" (names and values: qsched -d)
# environment: QSCHED  the qsched binary used for divergence reports
#                      (default build/qsched next to this directory)
#              CONFORMANCE_TIMEOUT  seconds per vector (default 20)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
quiet=0
declared=""
while :; do
    case ${1:-} in
    -q) quiet=1; shift;;
    --readings) [ $# -ge 2 ] || { echo "$0: --readings needs a value" >&2; exit 2; }
        declared=$(echo "$2" | tr ',' ' '); shift 2;;
    *) break;;
    esac
done
if [ $# -lt 1 ]; then
    echo "usage: $0 [-q] [--readings \"NAME=VALUE ...\"] IMPL [VECTOR.events...]" >&2
    exit 2
fi
# qsched verify's options for the declared readings
declared_opts=""
for r in $declared; do declared_opts="$declared_opts --reading $r"; done
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
    note=""
    if [ ! -f "$exp" ]; then
        why="missing $(basename "$exp")"
    elif ! cmp -s "$tmp/got" "$exp"; then
        why="trace differs"
        # with the declared readings, qsched's trace under them counts, and
        # so does its exit status (a generated stream's `done` lines follow
        # qsched's choices: under other readings they may name a delivery
        # that is not in flight, an input error for qsched too)
        # shellcheck disable=SC2086
        if [ -n "$declared" ] && [ -x "$QSCHED" ] &&
            "$QSCHED" verify $declared_opts "$ev" "$tmp/got" >/dev/null 2>&1; then
            why=""
            note=" (with your readings)"
            for r in $declared; do
                n=${r%%=*}
                echo "qsched_reading_${n#qsched_reading_} = ${r#*=}"
            done | cat - "$ev" | "$QSCHED" - >/dev/null 2>&1
            want_rc=$?
        fi
    fi
    if [ -n "$why" ]; then
        :
    elif [ "$rc" -ne "$want_rc" ]; then
        why="exit status $rc, want $want_rc"
        [ "$rc" -eq 124 ] && why="timed out after ${limit}s"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        [ $quiet -eq 1 ] || echo "PASS $name$note"
        continue
    fi
    fail=$((fail + 1))
    echo "FAIL $name: $why"
    if [ "$why" = "trace differs" ]; then
        if [ -x "$QSCHED" ]; then
            # shellcheck disable=SC2086
            "$QSCHED" verify --readings $declared_opts "$ev" "$tmp/got" |
                sed 's/^/    /' |
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
