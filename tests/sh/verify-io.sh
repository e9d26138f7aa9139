#!/bin/sh
# tests/sh/verify-io.sh - `qsched verify` treats an unreadable input as an
# error (exit 2 with a message), never as an empty file (the standard: "I/O
# errors are errors, never exit 0").
#
# Owns: the read-error paths of src/verify.c.  A directory makes a portable
# read error: fopen succeeds on Linux and the first read fails (EISDIR).
# Before the fix, `qsched verify DIR -` printed "traces agree: 0 lines"
# and exited 0, and `qsched verify EVENTS DIR` reported a divergence
# against an "empty" trace.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
Q=${QSCHED:-$top/build/qsched}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ev="$top/tests/golden/con-S-CON-3-safety.events"

# expect NAME RC STDERR-LINE -- command...
expect() {
    name=$1; want_rc=$2; want_err=$3; shift 4
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    got_err=$(head -1 "$tmp/err")
    if [ "$rc" -ne "$want_rc" ]; then
        echo "FAIL verify-io $name: exit $rc, want $want_rc"
    elif [ "$got_err" != "$want_err" ]; then
        echo "FAIL verify-io $name: stderr '$got_err', want '$want_err'"
    elif [ -s "$tmp/out" ]; then
        echo "FAIL verify-io $name: printed a report: $(head -1 "$tmp/out")"
    else
        echo "ok verify-io $name"
    fi
}

mkdir "$tmp/dir"
expect events-unreadable 2 "qsched verify: cannot read $tmp/dir" -- \
    "$Q" verify "$tmp/dir" -
expect trace-unreadable 2 "qsched verify: cannot read $tmp/dir" -- \
    "$Q" verify "$ev" "$tmp/dir"
# the good paths still work: a correct trace agrees (exit 0)
"$Q" "$ev" >"$tmp/trace" 2>/dev/null
if "$Q" verify "$ev" "$tmp/trace" >"$tmp/out" 2>&1 &&
        grep -q '^traces agree: ' "$tmp/out"; then
    echo "ok verify-io readable-files-agree"
else
    echo "FAIL verify-io readable-files-agree: $(head -1 "$tmp/out")"
fi
