#!/bin/sh
# tests/sh/defer-runs.sh - a dying destination's entries of one job,
# deferred one after another, move that job's slots once, after the last
# of them (src/messages.c qsi_entry_defer_todo, more_of_job; issue 16), and
# that changes nothing: not the trace, not --stats, not a state the
# invariant checker can see.
#
# Owns the differential check of that shortcut.  The argument that the
# slot moves of the run, added up, are those of one return after its last
# entry, that the peer stays and that a check in between would do
# nothing, is at qsi_entry_defer_todo; this test holds the code to it, on
# builds that differ only in the shortcut:
#   ref       QSI_DEFER_EACH=1: every deferral moves the slots, frees the
#             peer if unused and checks the message itself, as before;
#   default   the shortcut, as shipped.
# And within the default build: --explain (which never takes the
# shortcut: it shows each move as a `rcptpool` record) gives the same
# default-level records as the default level; --check-invariants passes.
# The streams are of the mixes whose destinations take several recipients
# an entry and die (mixed, sort, overrides, local), in both profiles and
# in the readings that change a deferral (R-12 deferred_entries, R-18
# death_release), and the conformance vector mem-defer-returns, whose
# trace shows a deferral's moves (most streams would not show them: a
# later `done` or retirement of the job moves the same slots).  That they take the shortcut is
# read from their traces, independently of the code: a `dead` line
# followed by two `defer` lines of one message at that destination is two
# entries of one job deferred in a row.
#
# That the check can fail: copies of the sources with a known bug must be
# caught - every deferral but a run's last skipping the slot moves even
# when the next entry is another job's; the last of a run skipping them
# too; the shortcut taken at the explain level.
# Prints ok/FAIL lines.
# run.sh: slow
. tests/lib/streams.sh

build "$t/ref" "-DQSI_DEFER_EACH=1"
build "$t/dflt" ""

# the streams: NAME PROFILE MIX SEED SIZE [READING]
n=0
for spec in "postfix mixed 1 20000" "postfix mixed 2 20000" \
    "document mixed 7 20000" "postfix mixed 23 20000" \
    "postfix sort 1 4000" "document sort 1 4000" \
    "postfix overrides 1 20000" "document overrides 1 20000" \
    "document local 1 20000" "postfix local 2 20000" \
    "document mixed 6 20000 deferred_entries=forgotten" \
    "postfix mixed 5 20000 deferred_entries=forgotten" \
    "document mixed 8 20000 death_release=no" \
    "postfix mixed 6 20000 death_release=yes"; do
    # shellcheck disable=SC2086
    set -- $spec
    r=
    [ $# -ge 5 ] && r="--reading $5"
    f="$t/$n-$2-$1-$3.events"
    # shellcheck disable=SC2086
    if ! "$Q" gen --seed "$3" --mix "$2" --profile "$1" --size "$4" $r \
        >"$f" 2>"$t/gen.err" || [ ! -s "$f" ]; then
        no "gen-$2-$1-$3" "gen failed: $(head -1 "$t/gen.err")"
        rm -f "$f"
        continue
    fi
    n=$((n + 1))
done
[ "$n" -ge 14 ] || no streams "only $n streams generated"
# and the conformance vector whose trace shows a deferral's moves
cp tests/conformance/hand/mem-defer-returns.events "$t/$n-hand-mem.events"
gen_count=$((n + 1))

# runs of one job deferred in a row, counted from the default trace
runs=0 taking=0
for f in "$t"/*-*.events; do
    "$t/dflt/qsched" "$f" >"$t/d.trace" 2>/dev/null
    k=$(awk '$1 == "dead" { d = $2; m = ""; next }
             $1 == "defer" && $3 == d { if ($2 == m) k++; m = $2; next }
             { d = ""; m = "" }
             END { print k + 0 }' "$t/d.trace")
    runs=$((runs + k))
    [ "$k" -gt 0 ] && taking=$((taking + 1))
done
if [ "$taking" -lt 14 ] || [ "$runs" -lt 10000 ]; then
    no shortcut-taken "only $taking streams, $runs deferrals, take it"
else ok "shortcut-taken ($runs deferrals in $taking of $gen_count streams)"; fi

differ="" explain="" check=""
for f in "$t"/*-*.events; do
    run "$t/ref/qsched" "$f" >"$t/r.out"
    run "$t/dflt/qsched" "$f" >"$t/d.out"
    cmp -s "$t/r.out" "$t/d.out" || differ="$differ $(basename "$f")"
    run "$t/ref/qsched" "$f" --explain >"$t/r.out"
    run "$t/dflt/qsched" "$f" --explain >"$t/d.out"
    cmp -s "$t/r.out" "$t/d.out" || differ="$differ $(basename "$f")(explain)"
    # the default-level records of --explain are the default level's
    "$t/dflt/qsched" "$f" >"$t/plain" 2>&1
    "$t/dflt/qsched" --explain "$f" 2>&1 |
        grep -E '^(deliver|defer|idle|window|dead|revive|fbwarn) ' >"$t/x"
    grep -E '^(deliver|defer|idle|window|dead|revive|fbwarn) ' "$t/plain" \
        >"$t/p"
    cmp -s "$t/x" "$t/p" || explain="$explain $(basename "$f")"
    "$t/dflt/qsched" --check-invariants "$f" >/dev/null 2>"$t/ck.err" ||
        check="$check $(basename "$f")"
done
if [ -n "$differ" ]; then no reference "differ:$differ"
else ok "reference ($gen_count streams, default and explain levels)"; fi
if [ -n "$explain" ]; then no explain-level "differ:$explain"
else ok "explain-level ($gen_count streams)"; fi
if [ -n "$check" ]; then no check-invariants "broken:$check"
else ok "check-invariants ($gen_count streams)"; fi

mutant other-job messages.c 's/^    int more_of_job = next \&\& next->job == job \&\& !QSI_EXPLAIN(s) \&\&$/    int more_of_job = next \&\& !QSI_EXPLAIN(s) \&\&/'
mutant last-skips messages.c '/^    qsi_message_return_slots(s, m, job);$/{N;s/^    qsi_message_return_slots(s, m, job);\n    qsi_peer_free_if_unused(s, p);$/    qsi_peer_free_if_unused(s, p);/}'
RUN_FLAGS=--explain
mutant at-explain messages.c 's/^    int more_of_job = next \&\& next->job == job \&\& !QSI_EXPLAIN(s) \&\&$/    int more_of_job = next \&\& next->job == job \&\&/'
