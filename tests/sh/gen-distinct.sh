#!/bin/sh
# tests/sh/gen-distinct.sh - `qsched gen --distinct-addresses` (issue 16:
# the Postfix ratio of `make bench` on every mix; tests/postfix/diff.sh's
# retry of an inexpressible stream).
#
# Owns the checks of the option's promise, derived from the stream text
# alone (an awk reading of S-EV-4's groups, independent of gen.c):
#   - without the option some seeds of the sort, local and transports mixes
#     put one address (local part and next-hop) under two transports in one
#     message (so the check below can fail: it is not vacuous);
#   - with it no message does, for the same seeds;
#   - the option changes nothing else up to the first such message, and
#     in it only transports (its draws are unchanged; after it the
#     generator follows the scheduler's state, which the change moved);
#     a stream with no such message is unchanged;
# That Postfix accepts such streams and agrees is checked where Postfix
# is built: tests/postfix/diff.sh (make check's postfix-diff) generates an
# inexpressible stream again with the option and compares it.
# Prints ok/FAIL/SKIP lines.
set -u
Q=${QSCHED:-build/qsched}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok $1"; }
no() { echo "FAIL $1: $2"; }

# conflicts FILE: "N FIRST": the number of messages with a local@next-hop
# under two transports, and the line number of the first one (0: none).
# A group is TRANSPORT:[LOCAL@]NEXTHOP[*COUNT].
conflicts() {
    awk '$1 == "arrive" {
        delete seen; bad = 0
        for (i = 3; i <= NF; i++) {
            g = $i; sub(/\*.*/, "", g)
            c = index(g, ":"); tr = substr(g, 1, c - 1); a = substr(g, c + 1)
            if (index(a, "@") == 0) continue
            if ((a in seen) && seen[a] != tr) bad = 1
            seen[a] = tr
        }
        if (bad && !n++) first = NR
    } END { print n + 0, first + 0 }' "$1"
}
# shape FILE: the stream without the transports of arrive lines
shape() {
    awk '$1 == "arrive" { for (i = 3; i <= NF; i++) sub(/^[^:]*:/, "", $i) } { print }' "$1"
}

before=0
for mix in sort local transports; do
    for seed in 1 2 3; do
        n="$mix-$seed"
        "$Q" gen --seed $seed --mix $mix --profile postfix --size 3000 >"$t/a" || { no "gen-$n" "gen failed"; continue; }
        "$Q" gen --seed $seed --mix $mix --profile postfix --size 3000 --distinct-addresses >"$t/b" ||
            { no "gen-distinct-$n" "gen failed"; continue; }
        # shellcheck disable=SC2046 # "N FIRST" split into $1 $2 on purpose
        set -- $(conflicts "$t/a")
        before=$((before + $1)) L=$2
        # shellcheck disable=SC2046
        set -- $(conflicts "$t/b")
        c=$1
        [ "$c" -eq 0 ] && ok "gen-distinct/$n/no-conflict" || no "gen-distinct/$n/no-conflict" "$c messages"
        # up to the first message with a conflict the streams are the same
        # (line 1, the header, names the option); that message differs in
        # transports only.  Later lines may differ: what the generator does
        # next depends on the scheduler's state, which the change moved.
        if [ "$L" -gt 0 ]; then
            sed -n "2,$((L - 1))p" "$t/a" >"$t/pa"; sed -n "2,$((L - 1))p" "$t/b" >"$t/pb"
            shape "$t/a" | sed -n "${L}p" >"$t/sa"; shape "$t/b" | sed -n "${L}p" >"$t/sb"
            sed -n "${L}p" "$t/a" >"$t/la"; sed -n "${L}p" "$t/b" >"$t/lb"
            if cmp -s "$t/pa" "$t/pb" && cmp -s "$t/sa" "$t/sb" && ! cmp -s "$t/la" "$t/lb"; then
                ok "gen-distinct/$n/same-draws (to line $L)"
            else
                no "gen-distinct/$n/same-draws" "line $L or before differs beyond transports"
            fi
        else
            sed 1d "$t/a" >"$t/pa"; sed 1d "$t/b" >"$t/pb"
            cmp -s "$t/pa" "$t/pb" && ok "gen-distinct/$n/same-stream" ||
                no "gen-distinct/$n/same-stream" "no conflict, yet the streams differ"
        fi
    done
done
[ "$before" -gt 0 ] && ok "gen-distinct/conflicts-without-option ($before messages)" ||
    no gen-distinct/conflicts-without-option "no seed has a conflict: the check above is vacuous"
