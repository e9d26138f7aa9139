#!/bin/sh
# tests/postfix/inflation.sh - the inflation question of issue 14: do the
# worst-case streams of the bounded model checker (proofs/bmc, witnesses
# in build/bmc/*/witness) stretch a job as much under Postfix's own queue
# manager as under qsched?  For each stream it prints the worst ratio
# span / entries over its messages (span: deliveries of the transport from
# the message's first to its last, inclusive; entries: its deliveries),
# for qsched in the stream's own profile, for qsched's postfix profile and
# for Postfix, and whether the postfix profile's trace equals Postfix's.
# usage: sh tests/postfix/inflation.sh WITNESS.events...
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
QSCHED=${QSCHED:-$top/build/qsched}
PFQMGR=${PFQMGR:-$top/build/postfix/pfqmgr}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
worst() { # trace -> "span/n=ratio (MSG)"
    awk '$1 == "deliver" { h = substr($2, 2) + 0; m = $3;
             if (!(m in first)) first[m] = h; last[m] = h; n[m]++ }
         END { best = ""; br = 0
               for (m in n) { s = last[m] - first[m] + 1; r = s / n[m]
                   if (r > br || (r == br && m < bm)) { br = r; best = s "/" n[m]; bm = m } }
               if (best == "") print "-"; else printf "%s=%.3f (%s)\n", best, br, bm }' "$1"
}
printf '%-58s %-18s %-18s %-18s %s\n' stream qsched postfix-profile Postfix same
for f in "$@"; do
    "$QSCHED" "$f" >"$tmp/own" 2>/dev/null
    { echo "profile postfix"; grep -v '^[[:space:]]*profile[[:space:]]' "$f"; } >"$tmp/p.events"
    "$QSCHED" "$tmp/p.events" >"$tmp/pp" 2>/dev/null
    "$PFQMGR" "$tmp/p.events" >"$tmp/pf" 2>/dev/null
    if cmp -s "$tmp/pp" "$tmp/pf"; then same=yes; else same=NO; fi
    printf '%-58s %-18s %-18s %-18s %s\n' "$(basename "$f" .events)" \
        "$(worst "$tmp/own")" "$(worst "$tmp/pp")" "$(worst "$tmp/pf")" "$same"
done
