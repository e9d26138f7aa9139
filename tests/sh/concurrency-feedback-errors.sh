#!/bin/sh
# concurrency-feedback-errors.sh - feedback values in event streams
# (issue 3, item 2; rules S-CON-2, S-EV-2, S-EV-10).
#
# Owns: the end-to-end check that every feedback form Postfix accepts is
# accepted for the global parameters and their TRANSPORT_ overrides, in
# both profiles, and that an out-of-range or malformed value is an input
# error - exit 2, `FILE:LINE: NAME: reason` on stderr, nothing on stdout -
# never a silent default.  The unit-level syntax table is in
# tests/unit/test_params.c; this script checks the wiring through the CLI.
# Prints `ok NAME` / `FAIL NAME: detail`.

top=$(cd "$(dirname "$0")/../.." && pwd)
Q=${QSCHED:-$top/build/qsched}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }

if [ ! -x "$Q" ]; then
    fail concurrency-feedback-errors "no qsched binary at $Q"
    exit 1
fi

params="default_destination_concurrency_positive_feedback
default_destination_concurrency_negative_feedback
smtp_destination_concurrency_positive_feedback
smtp_destination_concurrency_negative_feedback"

# stream PARAM VALUE: the parameter on line 2, an event after it
stream() {
    printf '# feedback %s\n%s = %s\narrive M1 smtp:a.example*4\nselect\n' \
        "$2" "$1" "$2" >"$tmp/s.events"
}

good="1 0 0.5 .25 1/4 3/3 0/5 1/concurrency 0.5/concurrency 1/sqrt_concurrency"
bad="1.5 2 2/1 5/4 2/concurrency 1.01/sqrt_concurrency 2/sqrt_concurrency
-1 abc 1/ /2 1/2/3 1/Concurrency 1e-1 .. 1/0 0/0 1/x concurrency"

for prof in document postfix; do
    for p in $params; do
        short=$(echo "$p" | sed 's/destination_concurrency_//')
        for v in $good; do
            stream "$p" "$v"
            "$Q" --profile $prof "$tmp/s.events" >"$tmp/out" 2>"$tmp/err"
            rc=$?
            if [ $rc -eq 0 ] && [ "$(head -1 "$tmp/out")" = "deliver D1 M1 smtp:a.example 4" ]; then
                ok "S-CON-2-$prof-$short-accepts-$v"
            else
                fail "S-CON-2-$prof-$short-accepts-$v" "exit $rc: $(head -1 "$tmp/err")"
            fi
        done
        for v in $bad; do
            stream "$p" "$v"
            "$Q" --profile $prof "$tmp/s.events" >"$tmp/out" 2>"$tmp/err"
            rc=$?
            first=$(head -1 "$tmp/err")
            case $first in
            "$tmp/s.events:2: $p: "*) where=ok ;;
            *) where=bad ;;
            esac
            if [ $rc -eq 2 ] && [ $where = ok ] && [ ! -s "$tmp/out" ]; then
                ok "S-CON-2-$prof-$short-refuses-$v"
            else
                fail "S-CON-2-$prof-$short-refuses-$v" "exit $rc, stderr: $first"
            fi
        done
    done
done

# the reason names the problem: range or syntax
stream default_destination_concurrency_positive_feedback 3/2
"$Q" "$tmp/s.events" >/dev/null 2>"$tmp/err"
if grep -q 'out of range' "$tmp/err"; then ok S-CON-2-range-reason; else
    fail S-CON-2-range-reason "$(head -1 "$tmp/err")"; fi
stream default_destination_concurrency_negative_feedback 1/sqrt
"$Q" "$tmp/s.events" >/dev/null 2>"$tmp/err"
if grep -q 'malformed' "$tmp/err"; then ok S-CON-2-syntax-reason; else
    fail S-CON-2-syntax-reason "$(head -1 "$tmp/err")"; fi
exit 0
