#!/bin/sh
# tests/postfix/statediff.sh - where do qsched's and Postfix's states first
# differ?  A debugging aid of the differential harness (issue 14): runs the
# stream through build/postfix/qstate (qsched, postfix profile) and
# pfqmgr --state, and prints the first differing lines with the event
# before them.  usage: sh tests/postfix/statediff.sh STREAM
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
make -s -C "$top" build/postfix/qstate build/postfix/pfqmgr >/dev/null || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ echo "profile postfix"; grep -v '^[[:space:]]*profile[[:space:]]' "$1"; } >"$tmp/s.events"
"$top/build/postfix/qstate" "$tmp/s.events" >"$tmp/q" 2>&1
"$top/build/postfix/pfqmgr" --state "$tmp/s.events" >"$tmp/p" 2>&1
if cmp -s "$tmp/q" "$tmp/p"; then
    echo "states agree after every event"
    exit 0
fi
first=$(cmp "$tmp/q" "$tmp/p" | sed -n 's/.* line \([0-9]*\)$/\1/p')
at=$(head -n "$first" "$tmp/q" | grep '^# @' | tail -1 | sed 's/# @//')
echo "first difference after stream line $at: $(sed -n "${at}p" "$tmp/s.events")"
diff "$tmp/q" "$tmp/p" | head -n "${LINES_SHOWN:-20}"
exit 1
