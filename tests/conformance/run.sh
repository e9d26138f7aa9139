#!/bin/sh
# tests/conformance/run.sh - runs the conformance vectors against any
# scheduler implementation: a thin wrapper around `qsched conformance`
# (src/conformance.c), kept for its old command line.  The runner's logic
# (protocol, comparison, reports, TAP/JUnit, per-rule summary) lives in one
# place, the C runner; see docs/implementers.md.
#
# usage: run.sh [-q] [--readings "NAME=VALUE ..."] IMPL [VECTOR...]
#   IMPL     a shell command, e.g. "./my-scheduler --trace" (run with sh -c,
#            the stream on stdin, the trace on stdout)
#   VECTOR   .events files (default: every vector of this directory)
#   -q       print only failures and the summary
#   --readings  the named readings IMPL follows (spec/readings.md, qsched
#            -d), e.g. "idle_window=keep score_wait_plus_one=no": a trace
#            equal to qsched's under them passes ("PASS NAME (with your
#            readings)").  Every failure's report names the readings that
#            explain it, if a single reading, a pair or a triple does.
# environment: QSCHED  the qsched that runs the suite and writes the
#                      divergence reports (default build/qsched above here)
#              CONFORMANCE_TIMEOUT  seconds per vector (default 20)
# Output: PASS/FAIL per vector, the rules whose vectors failed, and the last
# line "N passed, N failed"; exit 0 if everything passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
quiet=""
readings=""
while :; do
    case ${1:-} in
    -q) quiet=-q; shift;;
    --readings)
        [ $# -ge 2 ] || { echo "$0: --readings needs a value" >&2; exit 2; }
        readings=$2; shift 2;;
    *) break;;
    esac
done
if [ $# -lt 1 ]; then
    echo "usage: $0 [-q] [--readings \"NAME=VALUE ...\"] IMPL [VECTOR.events...]" >&2
    exit 2
fi
impl=$1
shift
QSCHED=${QSCHED:-$top/build/qsched}
if [ ! -x "$QSCHED" ]; then
    echo "$0: no $QSCHED (run make first)" >&2
    exit 2
fi
if [ -n "$readings" ]; then
    exec "$QSCHED" conformance --suite "$here" --impl "$impl" $quiet \
        --timeout "${CONFORMANCE_TIMEOUT:-20}" --readings "$readings" "$@"
fi
exec "$QSCHED" conformance --suite "$here" --impl "$impl" $quiet \
    --timeout "${CONFORMANCE_TIMEOUT:-20}" "$@"
