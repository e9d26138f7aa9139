#!/bin/sh
# tests/postfix/compare.sh - runs one stream through qsched's postfix
# profile and through Postfix's queue manager (the harness), and compares
# the two default-level traces with `qsched verify` (issue 14).
#
# usage: sh tests/postfix/compare.sh STREAM [POSTFIX_TRACE_OUT]
# The stream is run as it is, except that every `profile` line is removed
# and `profile postfix` is put first, so that any stream (a document-
# profile conformance vector too) runs in the postfix profile.  If qsched
# stops at an input error, only the valid prefix is given to Postfix, which
# is what verify compares (S-EV-10).
# Output: one line
#   SAME N               the traces agree on N decisions
#   DIVERGENCE ...       followed by verify's first-divergence report
#   INEXPRESSIBLE why    no Postfix situation corresponds to the stream
#   POSTFIX-FATAL why    Postfix refused (a harness bug until shown otherwise)
# Exit: 0 same or inexpressible, 1 divergence, 3 Postfix fatal, 2 usage.
# Environment: QSCHED (default build/qsched), PFQMGR (default
# build/postfix/pfqmgr).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
QSCHED=${QSCHED:-$top/build/qsched}
PFQMGR=${PFQMGR:-$top/build/postfix/pfqmgr}
[ $# -ge 1 ] || { echo "usage: compare.sh STREAM [POSTFIX_TRACE_OUT]" >&2; exit 2; }
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# profile postfix first, every other profile line dropped (comments kept
# out of the way: a profile line is the word alone on its line)
{ echo "profile postfix"; grep -v '^[[:space:]]*profile[[:space:]]' "$src"; } >"$tmp/s.events"
"$QSCHED" "$tmp/s.events" >"$tmp/q.trace" 2>"$tmp/q.err"
qrc=$?
cp "$tmp/s.events" "$tmp/p.events"
if [ $qrc -eq 2 ]; then
    bad=$(sed -n 's/^[^:]*:\([0-9][0-9]*\):.*/\1/p' "$tmp/q.err" | head -1)
    if [ -n "$bad" ]; then
        head -n $((bad - 1)) "$tmp/s.events" >"$tmp/p.events"
    fi
elif [ $qrc -ne 0 ]; then
    echo "QSCHED-FAILED exit $qrc: $(head -1 "$tmp/q.err")"
    exit 3
fi
"$PFQMGR" "$tmp/p.events" >"$tmp/p.trace" 2>"$tmp/p.err"
prc=$?
[ $# -ge 2 ] && cp "$tmp/p.trace" "$2"
case $prc in
0|4) ;;
3) echo "INEXPRESSIBLE $(sed 's/^pfqmgr: [^ ]* //' "$tmp/p.err" | head -1)"; exit 0 ;;
*) echo "POSTFIX-FATAL exit $prc: $(head -1 "$tmp/p.err")"; exit 3 ;;
esac
if "$QSCHED" verify "$tmp/s.events" "$tmp/p.trace" >"$tmp/v.out" 2>&1; then
    echo "SAME $(sed -n 's/^traces agree: \([0-9]*\) lines.*/\1/p' "$tmp/v.out")"
    exit 0
fi
cat "$tmp/v.out"
exit 1
