#!/bin/sh
# concurrency-profiles.sh - the document and postfix profiles of the
# concurrency scheduler, side by side (issue 3, item 5; spec rules S-PFX-*).
#
# Owns: the claim "each postfix-profile difference is shown by a stream whose
# trace differs between the two profiles exactly where the difference says
# it should".  For every twin pair tests/golden/con-NAME.events (document) /
# con-NAME-postfix.events (postfix) it checks that
#   - the two files hold the same stream (only the `# args:` line differs),
#   - replaying that stream under each profile gives that profile's golden
#     trace, and
#   - the two traces agree up to a given line and first differ there, with
#     the given document and postfix lines (worked out by hand in the
#     .events headers).
# It also checks the streams whose trace must NOT depend on the profile,
# the sqrt warnings on stderr (S-PFX-7), the concurrency limit 0 (S-PFX-3,
# S-EV-5) and the revival time to the second (S-CON-10).
# Prints `ok NAME` / `FAIL NAME: detail`; tests/run.sh counts them.
# QSCHED names the binary (default: build/qsched of this checkout).

top=$(cd "$(dirname "$0")/../.." && pwd)
Q=${QSCHED:-$top/build/qsched}
G=$top/tests/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }

if [ ! -x "$Q" ]; then
    fail concurrency-profiles "no qsched binary at $Q"
    exit 1
fi

# first_diff A B: "N<TAB>lineA<TAB>lineB" for the first line where the files
# differ (an absent line reads as <eof>), or nothing if they are equal.
first_diff() {
    awk -v B="$2" '
        { a[NR] = $0; na = NR }
        END {
            nb = 0
            while ((getline line < B) > 0) b[++nb] = line
            n = na > nb ? na : nb
            for (i = 1; i <= n; i++) {
                x = (i <= na) ? a[i] : "<eof>"
                y = (i <= nb) ? b[i] : "<eof>"
                if (x != y) { printf "%d\t%s\t%s\n", i, x, y; exit }
            }
        }' "$1"
}

# twin NAME LINE DOCLINE PFXLINE
twin() {
    name=$1 line=$2 want_doc=$3 want_pfx=$4
    d=$G/con-$name.events p=$G/con-$name-postfix.events
    if [ ! -f "$d" ] || [ ! -f "$p" ]; then
        fail "twin-$name" "missing con-$name.events or its -postfix twin"
        return
    fi
    sed 1d "$p" >"$tmp/p.body"
    if sed 1d "$d" | cmp -s - "$tmp/p.body"; then
        ok "twin-$name-same-stream"
    else
        fail "twin-$name-same-stream" "the twins differ beyond line 1"
    fi
    "$Q" --profile document "$d" >"$tmp/doc.out" 2>"$tmp/doc.err"
    rc_d=$?
    "$Q" --profile postfix "$d" >"$tmp/pfx.out" 2>"$tmp/pfx.err"
    rc_p=$?
    if [ $rc_d -eq 0 ] && cmp -s "$tmp/doc.out" "$G/con-$name.expected"; then
        ok "twin-$name-document-trace"
    else
        fail "twin-$name-document-trace" "exit $rc_d or trace differs from con-$name.expected"
    fi
    if [ $rc_p -eq 0 ] && cmp -s "$tmp/pfx.out" "$G/con-$name-postfix.expected"; then
        ok "twin-$name-postfix-trace"
    else
        fail "twin-$name-postfix-trace" "exit $rc_p or trace differs from con-$name-postfix.expected"
    fi
    got=$(first_diff "$tmp/doc.out" "$tmp/pfx.out")
    want=$(printf '%s\t%s\t%s' "$line" "$want_doc" "$want_pfx")
    if [ "$got" = "$want" ]; then
        ok "twin-$name-first-difference-at-line-$line"
    else
        fail "twin-$name-first-difference-at-line-$line" "got [$got]"
    fi
}

D='smtp:example.com'

# S-PFX-2 (negative guard): postfix steps 3 -> 2 at D3, one failure
# before the document (at D4, after the refill D6).
twin S-CON-7-S-PFX-2-negative-start 9 "deliver D6 M1 $D 2" "window $D 3 2"
# S-PFX-1: fail_cohorts 2.0 kills the destination in postfix (>= 2) at D8;
# the document (> 2) still refills there.
twin S-CON-8-S-PFX-1-dead-after-cohorts 13 "deliver D12 M1 $D 2" "dead $D"
# S-PFX-1: cohort limit 0: the document dies at the first failure, postfix
# never dies and applies the negative feedback instead.
twin S-PFX-1-cohort-limit-zero 4 "dead $D" "window $D 2 1"
# S-PFX-2 (positive guard, rounding): 7 * (1/7) < 1 in binary: postfix
# steps at D7, the document one success later.
twin S-PFX-2-rounding-guard 15 "deliver D14 M1 $D 2" "window $D 7 8"
# S-PFX-2: negative feedback 1: the first failure lowers 5 -> 3 in postfix.
twin S-PFX-2-negative-one 7 "window $D 5 4" "window $D 5 3"
# S-PFX-4: on revival the window is the in-flight count (1) in postfix.
twin S-PFX-4-revival-window 19 "revive $D 4" "revive $D 1"
# S-PFX-5: the ok at the limit resets fail_cohorts in postfix only, so the
# document dies at D5, postfix refills (and dies a failure later).
twin S-PFX-5-cohort-reset 10 "dead $D" "deliver D8 M1 $D 2"
# S-PFX-6: feedback while the delivery still counts as in flight.
twin S-PFX-6-busy-includes 3 "deliver D2 M1 $D 2" "window $D 1 2"
# S-PFX-7: sqrt refused in postfix: feedback 1 steps at the first success.
twin S-PFX-7-sqrt 6 "deliver D5 M1 $D 2" "window $D 4 5"
# S-PFX-8: a success on the dead destination revives it at once in postfix;
# in the document M2's recipients are deferred at once (still dead).
twin S-PFX-8-success-revives 18 "defer M2 $D 4" "revive $D 1"
# S-PFX-9: the initial window 5 is lowered to the limit 3 in postfix.
twin S-PFX-9-initial-lowered 4 "deliver D4 M1 $D 2" "idle"

# Streams whose trace is the same in both profiles (the header of each says
# why).  con-S-CON-10-S-CON-9-revival-backoff includes recipients arriving
# for a dead destination: deferred at once in BOTH profiles, because the
# document says so too (a queue is instantiated "unless it's dead").
for name in S-CON-4-linear-growth S-CON-5-limit-stop \
    S-CON-10-S-CON-9-revival-backoff S-CON-9-defer-pending \
    S-CON-4-old-scheduler-growth; do
    "$Q" --profile postfix "$G/con-$name.events" >"$tmp/pfx.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && cmp -s "$tmp/pfx.out" "$G/con-$name.expected"; then
        ok "profile-independent-$name"
    else
        fail "profile-independent-$name" "exit $rc or postfix trace differs"
    fi
done

# S-PFX-7: one warning per refused feedback parameter, on stderr, postfix
# only; the trace on stdout carries none.
"$Q" --profile postfix "$G/con-S-PFX-7-sqrt.events" >"$tmp/out" 2>"$tmp/err"
cat >"$tmp/want.err" <<'EOF'
qsched: warning: transport smtp: positive feedback x/sqrt_concurrency is not supported by Postfix 3.x; using 1
qsched: warning: transport smtp: negative feedback x/sqrt_concurrency is not supported by Postfix 3.x; using 1
EOF
if cmp -s "$tmp/err" "$tmp/want.err"; then ok S-PFX-7-warnings-on-stderr; else
    fail S-PFX-7-warnings-on-stderr "stderr: $(head -2 "$tmp/err" | tr '\n' '|')"; fi
if grep -q warning "$tmp/out"; then fail S-PFX-7-no-warning-in-trace "warning on stdout"; else
    ok S-PFX-7-no-warning-in-trace; fi
"$Q" --profile document "$G/con-S-PFX-7-sqrt.events" >"$tmp/out" 2>"$tmp/err"
if [ -s "$tmp/err" ]; then fail S-PFX-7-document-supports-sqrt "stderr: $(head -1 "$tmp/err")"; else
    ok S-PFX-7-document-supports-sqrt; fi
# a per-transport override: only that transport is warned about, and only
# its positive feedback
cat >"$tmp/sq.events" <<'EOF'
smtp_destination_concurrency_positive_feedback = 0.5/sqrt_concurrency
arrive M1 smtp:a.example relay:b.example
select
select
EOF
"$Q" --profile postfix "$tmp/sq.events" >"$tmp/out" 2>"$tmp/err"
if [ "$(cat "$tmp/err")" = "qsched: warning: transport smtp: positive feedback x/sqrt_concurrency is not supported by Postfix 3.x; using 1" ]; then
    ok S-PFX-7-override-warns-for-its-transport
else
    fail S-PFX-7-override-warns-for-its-transport "stderr: $(tr '\n' '|' <"$tmp/err")"
fi

# S-PFX-3 / S-EV-5: limit 0 means "no limit" in postfix only.
L0=$G/con-S-PFX-3-limit-zero-postfix.events
"$Q" --profile document "$L0" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
    grep -q "^$L0:[0-9]*: .*exists only in the postfix profile" "$tmp/err"; then
    ok S-PFX-3-document-refuses-limit-zero
else
    fail S-PFX-3-document-refuses-limit-zero "exit $rc, stderr $(head -1 "$tmp/err")"
fi
sed 's/^default_destination_concurrency_limit = 0$/default_destination_concurrency_limit = 20/' \
    "$L0" >"$tmp/l20.events"
"$Q" --profile postfix "$tmp/l20.events" >"$tmp/l20.out" 2>&1
"$Q" --profile postfix "$L0" >"$tmp/l0.out" 2>&1
got=$(first_diff "$tmp/l20.out" "$tmp/l0.out")
want=$(printf '21\tdeliver D21 M1 %s 2\twindow %s 20 21' "$D" "$D")
if [ "$got" = "$want" ] && ! grep -q '^window' "$tmp/l20.out"; then
    ok S-PFX-3-limit-zero-grows-past-20
else
    fail S-PFX-3-limit-zero-grows-past-20 "got [$got]"
fi

# S-CON-10: revival exactly minimal_backoff_time after death, to the second:
# the stream cut after `at 1119` shows no revive, cut after `at 1120` does,
# and the JSON Lines trace stamps it 1120.
R=$G/con-S-CON-10-S-CON-9-revival-backoff.events
for prof in document postfix; do
    n=$(grep -n '^at 1119' "$R" | cut -d: -f1)
    head -n "$n" "$R" >"$tmp/r1.events"
    head -n $((n + 2)) "$R" >"$tmp/r2.events"   # + marker select, at 1120
    "$Q" --profile $prof "$tmp/r1.events" >"$tmp/r1.out" 2>&1
    "$Q" --profile $prof "$tmp/r2.events" >"$tmp/r2.out" 2>&1
    if ! grep -q '^revive' "$tmp/r1.out" && [ "$(tail -1 "$tmp/r2.out")" = "revive $D 2" ]; then
        ok "S-CON-10-revive-not-one-second-early-$prof"
    else
        fail "S-CON-10-revive-not-one-second-early-$prof" "$(tail -1 "$tmp/r1.out") / $(tail -1 "$tmp/r2.out")"
    fi
    "$Q" --profile $prof --format jsonl "$R" >"$tmp/r.jsonl" 2>&1
    if grep -q '^{"time":1120,"event":"revive"' "$tmp/r.jsonl" &&
        grep -q '^{"time":1000,"event":"dead"' "$tmp/r.jsonl"; then
        ok "S-CON-10-revive-at-death-plus-backoff-$prof"
    else
        fail "S-CON-10-revive-at-death-plus-backoff-$prof" "$(grep -E 'dead|revive' "$tmp/r.jsonl" | tr '\n' '|')"
    fi
done
exit 0
