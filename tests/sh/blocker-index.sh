#!/bin/sh
# tests/sh/blocker-index.sh - the blocker index (src/blocker_index.c and
# src/blocker_region.c; issue 16: the selection walk's stop found, the
# blockers in front of it held as a region) gives the plain walk's
# decisions, marks and counts.
#
# Owns the differential check of the index against the plain walk, on
# builds that differ only in when the index is used:
#   plain   the index never switched on (QSI_BIX_MARKS out of reach): the
#           walk of select.c exactly as the document's pseudocode;
#   stress  every list longer than 4 jobs indexed (CIX_BUILD) from its
#           first question (below), the blocker index
#           switched on after 8 marks and off again below 2 a selection
#           (QSI_BIX_WINDOW 4), list labels 4 apart (BIX_STEP: a window
#           is relabelled after two links into one gap): the region, its
#           writing down (a blocker
#           that gets entries, a job linked or a preemption in front of the
#           walk, the index dropped), the set-aside stop flags and the
#           rebuilds all happen many times per stream; and
#           QSCHED_CROSSCHECK, which checks before every fast walk that each
#           job it passes is one the plain walk would mark, their number,
#           that no blocker waits where there is room, the heaps' order, and
#           at every release test the inferred destination marks against a
#           scan (src/select.c walk_to_stop_check, qsi_blocker_update).
#           The list index is built at the first question a long list
#           walks (CIX_BUY 0) and dropped once it kept up with as many
#           changes as the list has jobs without answering (CIX_IDLE_PART
#           1), answers counting only while the walk tried beside every
#           second question (CIX_SAMPLE 2) looked at 4 jobs without ending
#           (CIX_SAMPLE_STEPS 4, CIX_WORTH 1);
#   rental  the stress build, but the list index dropped at the first
#           change it did not answer for (CIX_IDLE_PART 10^9): built and
#           dropped hundreds of times per stream (job_index.c
#           qsi_cix_resize, the ski rental of issue 16), every answer in
#           between checked.
# On postfix-profile streams of every shape that makes blockers (queued
# backlogs, preemption-heavy, bulk, local, many transports) the two must
# print the same trace and the same --stats (the `blockers` count is the
# number of marks), and the stress build must not abort.  The document
# profile never uses the index (R-13, R-14 are not Postfix's there); one
# stream checks that it is unchanged too.
#
# That the check can fail: copies of the sources with a known bug must be
# caught - the job just linked in front of the walk written down as a
# blocker with the region (the bug this test was written after), and a
# blocker that gets entries without its destinations' marks written down
# (qsi_bix_job_untag), on tests/scenarios/blocker-untag.events, whose
# `--stats blockers` (5) is also checked against its hand derivation;
# and a rebuild of the list index that leaves its by-time tree stale, on
# the rental build.
# Prints ok/FAIL lines.
. tests/lib/streams.sh

stress_flags="-DQSCHED_CROSSCHECK -DCIX_BUILD=4 -DCIX_DROP=2 -DCIX_BUY=0 -DCIX_IDLE_PART=1 -DCIX_SAMPLE=2 -DCIX_SAMPLE_STEPS=4 -DCIX_WORTH=1 -DQSI_BIX_WINDOW=4 -DQSI_BIX_MARKS=8 -DBIX_COLD=2 -DBIX_STEP=4"
plain_flags="-DQSI_BIX_MARKS=4000000000000"
rental_flags=$(echo "$stress_flags" | sed 's/-DCIX_IDLE_PART=1/-DCIX_IDLE_PART=1000000000/')
build "$t/plain" "$plain_flags"
build "$t/stress" "$stress_flags"
build "$t/rental" "$rental_flags"

# same NAME STREAM: the three builds agree (trace, stats, exit status 0)
same() {
    "$t/plain/qsched" --stats "$2" >"$t/p.out" 2>&1; prc=$?
    "$t/stress/qsched" --stats "$2" >"$t/s.out" 2>&1; src=$?
    "$t/rental/qsched" --stats "$2" >"$t/r.out" 2>&1; rrc=$?
    if [ $prc -ne 0 ] || [ $src -ne 0 ] || [ $rrc -ne 0 ]; then
        no "$1" "exit $prc (plain), $src (stress), $rrc (rental): $(tail -1 "$t/s.out") $(tail -1 "$t/r.out")"
    elif ! cmp -s "$t/p.out" "$t/s.out"; then
        no "$1" "traces differ: $(cmp "$t/p.out" "$t/s.out" | head -1)"
    elif ! cmp -s "$t/p.out" "$t/r.out"; then
        no "$1" "rental traces differ: $(cmp "$t/p.out" "$t/r.out" | head -1)"
    else
        ok "$1"
    fi
}

# postfix-profile streams (the large ones first: the mutant below is
# caught on them)
gen_streams 400 "large 1 10000" "large 3 10000" "queue 1 6000" \
    "queue 2 6000" "heavy 1 6000" "heavy 2 6000" "blockers 1 6000" \
    "local 1 6000" "transports 1 6000" "bulk 1 6000" "mixed 1 6000"
n=$gen_count
for f in "$t"/*-*.events; do
    base=$(basename "$f" .events)
    same "postfix-${base#*-}" "$f"
done
"$Q" gen --seed 1 --mix heavy --profile document --size 6000 >"$t/doc.events"
same document-heavy-1 "$t/doc.events"

# The hand-made scenes: every golden and every hand vector again, with the
# postfix readings forced (R-13 all, R-14 walk_start: the index's
# readings), through an "always" build - the index on whenever the list
# index is, which these builds keep from 3 jobs on - against the plain
# build.  Their small scenes reach what long generated streams do not: a
# blocker that gets entries while the index is on (pre-blocker-skipped,
# pre-blocker-not-candidate), its writing down, links and preemptions in
# front of the walk.  QSI_BIX_MARKS=1: the first mark asks for the index,
# so the walks after it are the index's (without it these short scenes
# never walked by their stops: the walks asked for the index only after
# 4096 marks; found in session 9, with the untag scene below).
always_flags="-DQSCHED_CROSSCHECK -DQSI_BIX_ALWAYS=1 -DQSI_BIX_MARKS=1 -DCIX_BUILD=2 -DCIX_DROP=1 -DBIX_STEP=4"
build "$t/always" "$always_flags"
scenes=0 differ=""
for f in tests/golden/*.events tests/conformance/hand/*.events; do
    args=$(sed -n '1s/^# args: *//p' "$f")
    { grep -v '^#' "$f" | grep '='
      echo "qsched_reading_blocker_release = all"
      echo "qsched_reading_current_job = walk_start"
      grep -v '^#' "$f" | grep -v '='; } >"$t/scene.events"
    # shellcheck disable=SC2086
    "$t/plain/qsched" $args --stats "$t/scene.events" >"$t/p.out" 2>&1
    echo "exit $?" >>"$t/p.out"
    # shellcheck disable=SC2086
    "$t/always/qsched" $args --stats "$t/scene.events" >"$t/a.out" 2>&1
    echo "exit $?" >>"$t/a.out"
    cmp -s "$t/p.out" "$t/a.out" || differ="$differ $(basename "$f")"
    scenes=$((scenes + 1))
done
if [ $scenes -lt 100 ]; then no scenes-always "only $scenes scenes found"
elif [ -n "$differ" ]; then no scenes-always "differ:$differ"
else ok "scenes-always ($scenes)"; fi

# The untag scene (its header has the derivation): the plain walk marks
# 5 times, and the always build agrees, trace and stats.
untag=tests/scenarios/blocker-untag.events
"$t/plain/qsched" --stats "$untag" >"$t/untag-p.out" 2>&1
echo "exit $?" >>"$t/untag-p.out"
"$t/always/qsched" --stats "$untag" >"$t/a.out" 2>&1
echo "exit $?" >>"$t/a.out"
if ! grep -q ' blockers=5$' "$t/untag-p.out"; then
    no untag-scene "plain: $(grep ' blockers=' "$t/untag-p.out"), want blockers=5"
elif ! cmp -s "$t/untag-p.out" "$t/a.out"; then
    no untag-scene "always build differs: $(cmp "$t/untag-p.out" "$t/a.out" | head -1)"
else
    ok untag-scene
fi

# the mutants: built from copies of the sources.
# stream_mutant NAME FILE SED FLAGS: src/FILE changed by the sed script,
# built with FLAGS, must differ from the plain walk (trace, stats, exit
# status, or a time-out: a mutant's stale links can loop, and 30 s is 100
# times a run) on one of the generated streams
stream_mutant() {
    d="$t/mut-$1"
    mutant_tree "$1" "$d" "$2" "$3" || return
    build "$d/build" "$4" "$d"
    for f in "$t"/*-*.events; do
        "$t/plain/qsched" --stats "$f" >"$t/p.out" 2>&1
        if ! timeout 30 "$d/build/qsched" --stats "$f" >"$t/m.out" 2>&1 ||
            ! cmp -s "$t/p.out" "$t/m.out"; then
            ok "mutant-$1-caught"
            return
        fi
    done
    no "mutant-$1-caught" "the mutant agreed with the plain walk on $n streams"
}

# the bug: a job linked in front of the walk is written down as a blocker
# together with the region (qsi_bix_materialize_but forgets `fresh`)
stream_mutant fresh-job blocker_region.c \
    's/        if (j != fresh)$/        if (j != fresh || fresh)/' "$stress_flags"

# the second mutant: a blocker that gets entries loses its tag, and the
# marks its destinations had through it are not written down
# (qsi_bix_job_untag does nothing); built as the always build
if mutant_tree untag "$t/mut2" blocker_index.c \
    's/^            p->queue->blocker_tag = job->transport->blocker_tag;$/            (void)p;/'; then
    build "$t/mut2/build" "$(echo "$always_flags" | sed 's/-DQSCHED_CROSSCHECK //')" "$t/mut2"
    "$t/mut2/build/qsched" --stats "$untag" >"$t/m.out" 2>&1
    echo "exit $?" >>"$t/m.out"
    if cmp -s "$t/untag-p.out" "$t/m.out"; then
        no mutant-untag-caught "the mutant agreed with the plain walk on $untag"
    else
        ok mutant-untag-caught
    fi
fi

# the third mutant: the list index rebuilt without its by-time tree (the
# rebuild's qsi_tix_insert loop gone: the tree of the last build is left,
# stale); built as the rental build, which drops and rebuilds the index
# hundreds of times per stream: the crosscheck of job_link's by-time walk
# (or the trace, or the time-out) must catch it
stream_mutant rebuild job_index.c \
    's/^        qsi_tix_insert(t, j);$/        (void)j;/' "$rental_flags"
