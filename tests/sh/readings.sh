#!/bin/sh
# tests/sh/readings.sh - the named readings (spec/readings.md, issue 20).
#
# Owns: showing that every reading is a switch that works and that
# `qsched verify --readings` and the conformance runner tell an implementer
# which readings explain a divergence.  The implementations under test are
# adapters that run qsched with readings switched - what an independent
# implementation that read the document differently would print:
#   - each alternative of tests/golden/rd-*: its stream without the reading
#     line, the adapter's trace the golden's hand-derived .expected under
#     that reading: verify --readings must name exactly that reading;
#   - pairs and a triple on generated streams (qsched gen --reading): verify
#     must name exactly that combination;
#   - a trace qsched prints with its own readings: no readings line; a
#     broken trace (two deliveries swapped): "no reading explains it";
#   - the conformance runner: an adapter with a reading fails and every
#     report names the reading; declared (--readings) it passes;
#   - the parameters: qsched -d lists every reading and its values; bad
#     names, bad values, a reading after the first event are input errors;
#     the readings in force are the profile's defaults.
# Prints "ok NAME" / "FAIL NAME: detail".
# shellcheck disable=SC2086 # word lists ($spec, $opts, $vecs) split on purpose
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
Q=${QSCHED:-$top/build/qsched}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok readings/$1"; }
fail() { echo "FAIL readings/$1: $2"; }
deflines() { grep -E '^(deliver|window|dead|revive|defer) |^idle$'; }

# 1. every alternative of the rd goldens is named exactly by verify
n=0
for f in tests/golden/rd-*.events; do
    line=$(grep '^qsched_reading_' "$f") || continue
    want=$(echo "$line" | sed 's/^qsched_reading_\([a-z_]*\) = \(.*\)$/\1=\2/')
    name=$(basename "$f" .events)
    grep -v '^qsched_reading_' "$f" >"$t/s.events"
    # the adapter: an implementation that prints the trace derived by hand
    # in the golden's header under that reading (its .expected); with an
    # explain-level golden, qsched run with the reading
    if head -1 "$f" | grep -q '^# args: .*--explain'; then
        "$Q" "$f" | deflines >"$t/adapter.trace"
    else
        deflines <"tests/golden/$name.expected" >"$t/adapter.trace"
    fi
    "$Q" verify --readings "$t/s.events" "$t/adapter.trace" >"$t/v.out"
    rc=$?
    got=$(grep -c 'readings:\|or with' "$t/v.out")
    if head -1 "$f" | grep -q '^# args: .*--explain'; then
        # a reading that changes only explain-level lines in this stream
        # (R-13 peer, R-18 no): the default traces agree
        if [ $rc -eq 0 ] && grep -q '^traces agree' "$t/v.out"; then
            ok "verify-names/$name (explain-level only: traces agree)"
        else
            fail "verify-names/$name" "$(head -2 "$t/v.out" | tr '\n' ' ')"
        fi
        continue
    fi
    # a stream is told apart from qsched's reading, not always from every
    # other: two give the same trace as another reading (their headers say
    # which), and verify names both
    allowed=1
    case $want in
    deferred_entries=forgotten | score_entries=remaining) allowed=2;;
    esac
    if [ $rc -eq 1 ] && [ "$got" -le $allowed ] &&
        grep -q "with $want\$" "$t/v.out"; then
        ok "verify-names/$name ($want)"
    else
        fail "verify-names/$name" "want exactly $want: $(grep 'readings:\|or with' "$t/v.out" | tr '\n' ' ')"
    fi
    n=$((n + 1))
done
if [ $n -ge 19 ]; then
    ok "verify-names/count ($n alternatives)"
else
    fail "verify-names/count" "only $n alternatives with a golden"
fi

# 2. pairs and a triple: adapters with two and three readings switched
for spec in "mixed 1 idle_window=keep transport_rr=next" \
    "mixed 7 candidate_fit=less_than score_wait_plus_one=no" \
    "mixed 2 idle_window=keep candidate_fit=less_than" \
    "mixed 10 idle_window=keep transport_rr=next candidate_fit=less_than"; do
    set -- $spec
    mix=$1 seed=$2
    shift 2
    opts="" want=""
    for r in "$@"; do opts="$opts --reading $r"; done
    case $# in
    2) want="$1 and $2";;
    3) want="$1, $2 and $3";;
    esac
    # shellcheck disable=SC2086
    "$Q" gen --seed "$seed" --mix "$mix" --profile document --size 400 $opts \
        >"$t/g.events"
    grep -v '^qsched_reading_' "$t/g.events" >"$t/g0.events"
    "$Q" "$t/g.events" | deflines >"$t/g.trace"
    "$Q" verify --readings "$t/g0.events" "$t/g.trace" >"$t/v.out"
    if grep -q "readings: your trace matches qsched with $want\$" "$t/v.out" &&
        ! grep -q 'or with' "$t/v.out"; then
        ok "verify-combination/$#: $want"
    else
        fail "verify-combination/$want" "$(grep 'readings:\|or with\|agree' "$t/v.out" | tr '\n' ' ')"
    fi
done

# 3. qsched's own trace: agree, no search; a broken trace: no reading
ev=tests/conformance/hand/pre-candidates.events
"$Q" "$ev" >"$t/own.trace"
if "$Q" verify --readings "$ev" "$t/own.trace" >"$t/v.out" &&
    grep -q '^traces agree' "$t/v.out" &&
    ! grep -q 'readings:' "$t/v.out"; then
    ok "verify-own-readings"
else
    fail "verify-own-readings" "$(head -2 "$t/v.out" | tr '\n' ' ')"
fi
awk '$1=="deliver"{n++} n==2&&$1=="deliver"{held=$0; next} {print}
     n==3&&held!=""&&$1=="deliver"{print held; held=""}' "$t/own.trace" \
    >"$t/swap.trace"
"$Q" verify --readings "$ev" "$t/swap.trace" >"$t/v.out"
if [ $? -eq 1 ] && grep -q 'readings: no reading explains it' "$t/v.out"; then
    ok "verify-no-reading ($(grep -o '[0-9]* replays' "$t/v.out"))"
else
    fail "verify-no-reading" "$(grep 'readings' "$t/v.out" | tr '\n' ' ')"
fi
# declared readings: qsched runs with them, and searches beyond them
f=tests/golden/rd-idle-window-keep.events
grep -v '^qsched_reading_' "$f" >"$t/s.events"
"$Q" "$f" | deflines >"$t/a.trace"
if "$Q" verify --reading idle_window=keep "$t/s.events" "$t/a.trace" \
    >"$t/v.out" && grep -q '^traces agree' "$t/v.out"; then
    ok "verify-declared"
else
    fail "verify-declared" "$(head -3 "$t/v.out" | tr '\n' ' ')"
fi
"$Q" verify --reading idle_window=nope "$t/s.events" "$t/a.trace" \
    >/dev/null 2>"$t/err"
if [ $? -eq 2 ] && grep -q 'unknown reading' "$t/err"; then
    ok "verify-declared-bad"
else
    fail "verify-declared-bad" "want exit 2: $(cat "$t/err")"
fi

# 4. the conformance runner: per vector, and with declared readings
cat >"$t/adapter-keep" <<EOF
#!/bin/sh
{ echo "qsched_reading_idle_window = keep"; cat; } | "$Q" -
EOF
chmod +x "$t/adapter-keep"
vecs="tests/conformance/hand/con-discard.events tests/conformance/hand/pre-candidates.events"
# shellcheck disable=SC2086
QSCHED="$Q" sh tests/conformance/run.sh -q "$t/adapter-keep" $vecs >"$t/r.out" 2>&1
if grep -q '^FAIL con-discard: trace differs' "$t/r.out" &&
    grep -q 'readings: your trace matches qsched with idle_window=keep$' "$t/r.out" &&
    grep -q '^1 passed, 1 failed$' "$t/r.out"; then
    ok "runner-reports-reading"
else
    fail "runner-reports-reading" "$(tr '\n' ' ' <"$t/r.out" | cut -c1-300)"
fi
# shellcheck disable=SC2086
QSCHED="$Q" sh tests/conformance/run.sh --readings "idle_window=keep" \
    "$t/adapter-keep" $vecs >"$t/r.out" 2>&1
if grep -q '^PASS con-discard (with your readings)$' "$t/r.out" &&
    grep -q '^2 passed, 0 failed$' "$t/r.out"; then
    ok "runner-declared-readings"
else
    fail "runner-declared-readings" "$(tr '\n' ' ' <"$t/r.out" | cut -c1-300)"
fi

# 5. the parameters
"$Q" -d >"$t/d.out"
missing=""
for r in idle_window transport_rr candidate_fit min_slots_gate preempt_credit \
    safety_cohort_reset current_when_gone score_wait_plus_one slot_division \
    pop_refund preempted_candidates deferred_entries blocker_release \
    current_job dead_success revival_window feedback_busy death_release \
    score_entries; do
    grep -q "^qsched_reading_$r = " "$t/d.out" || missing="$missing $r"
done
if [ -z "$missing" ] && grep -q 'values: discard | keep$' "$t/d.out" &&
    grep -q 'postfix profile: walk_start$' "$t/d.out"; then
    ok "dash-d-lists-readings"
else
    fail "dash-d-lists-readings" "missing:$missing"
fi
printf 'qsched_reading_idle_window = maybe\nselect\n' >"$t/bad1.events"
"$Q" "$t/bad1.events" >/dev/null 2>"$t/err"
if [ $? -eq 2 ] && grep -q 'bad1.events:1: qsched_reading_idle_window: bad value "maybe" (want discard|keep)' "$t/err"; then
    ok "bad-value"
else
    fail "bad-value" "$(cat "$t/err")"
fi
printf 'qsched_reading_no_such = yes\n' >"$t/bad2.events"
"$Q" "$t/bad2.events" >/dev/null 2>"$t/err"
if [ $? -eq 2 ] && grep -q 'unknown reading' "$t/err"; then
    ok "bad-name"
else
    fail "bad-name" "$(cat "$t/err")"
fi
printf 'select\nqsched_reading_idle_window = keep\n' >"$t/bad3.events"
"$Q" "$t/bad3.events" >/dev/null 2>"$t/err"
if [ $? -eq 2 ] && grep -q ':2: parameters must come before the first event' "$t/err"; then
    ok "after-first-event"
else
    fail "after-first-event" "$(cat "$t/err")"
fi
# profile defaults: the postfix profile's own readings are its rules
# (S-PFX-5, S-PFX-13, S-PFX-21): in the postfix profile a stream without a
# reading line runs as with the postfix default set, and differently from
# the document's reading where the stream tells them apart
for spec in "transport-rr-last transport_rr rotate last differ" \
    "current-job-last-selected current_job walk_start last_selected same" \
    "blocker-release-pending blocker_release all pending differ" \
    "safety-cohort-reset-skipped safety_cohort_reset done skipped same"; do
    set -- $spec
    { echo "profile postfix"; cat "tests/golden/rd-$1.events"; } |
        "$Q" --explain - >"$t/p0.out" 2>&1
    { echo "profile postfix"; echo "qsched_reading_$2 = $3";
      cat "tests/golden/rd-$1.events"; } | "$Q" --explain - >"$t/p1.out" 2>&1
    { echo "profile postfix"; echo "qsched_reading_$2 = $4";
      cat "tests/golden/rd-$1.events"; } | "$Q" --explain - >"$t/p2.out" 2>&1
    # (the last two streams do not tell the readings apart in the postfix
    # profile, whose other rules - S-PFX-6, S-PFX-11 - change them)
    if cmp -s "$t/p0.out" "$t/p1.out" &&
        { [ "$5" = same ] || ! cmp -s "$t/p0.out" "$t/p2.out"; }; then
        ok "postfix-default/$2=$3"
    else
        fail "postfix-default/$2=$3" "the postfix profile does not default to it"
    fi
done
# gen --reading: the line is written, the stream is valid under it
if "$Q" gen --seed 3 --mix blockers --reading transport_rr=next --check \
    >"$t/g.events" 2>"$t/err" &&
    grep -q '^qsched_reading_transport_rr = next$' "$t/g.events" &&
    "$Q" --check-invariants "$t/g.events" >/dev/null 2>>"$t/err"; then
    ok "gen-reading"
else
    fail "gen-reading" "$(head -2 "$t/err")"
fi
"$Q" gen --seed 3 --reading transport_rr=sideways >/dev/null 2>"$t/err"
if [ $? -eq 2 ] && grep -q 'reading "transport_rr=sideways"' "$t/err"; then
    ok "gen-reading-bad"
else
    fail "gen-reading-bad" "$(head -2 "$t/err")"
fi
