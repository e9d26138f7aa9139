#!/bin/sh
# tests/sh/time-place.sh - a job linked while the two job lists are one
# sequence is put where S-PRE-13's walks from the tail put it
# (src/job_place.c; issue 16).
#
# Owns the differential check of job_link's walk from both ends.  While no
# job on a transport's lists is misplaced (moved by a preemption, or
# linked while another was), job_link finds a job's place on both lists
# by one walk from both ends of the by-time list, where S-PRE-13 walks
# both lists from the tail.  The argument that the places, and what the
# walks pass (where selection starts, the first unread job), are the same
# is at the top of job_place.c; this test holds the code to it, on builds
# that differ only there:
#   ref       QSI_TIME_PLACE_TAIL=1: S-PRE-13's walks from the tail always;
#   default   the walk from both ends, as shipped.
# On postfix-profile streams of the mixes that relink old jobs (bulk
# refills, S-MEM-7; the queue shape's backlog) or preempt (the marking),
# both must print the same trace and --stats, exit status included, with
# --check-invariants on (S-INV-2 checks the misplaced count, and that the
# lists are one sequence when it is 0).
#
# That the check can fail: copies of the sources with a known bug must be
# caught on the same streams, by a different trace or a broken invariant -
# a preemption's move not marked (the lists then differ with no job
# marked), a job linked while another is misplaced not marked (job_place.c
# has the example of what that breaks), equal enqueue times placed before
# the jobs linked earlier (S-PRE-13 keeps their arrival order), and the
# head cursor's answer about where selection starts turned round.
#
# Run by tests/run.sh (suite sh); about 40 s, mostly the builds.
. tests/lib/streams.sh

build "$t/ref" "-DQSI_TIME_PLACE_TAIL=1"
build "$t/dflt" ""

gen_streams 300 "bulk 4 20000" "bulk 5 20000" "bulk 6 20000" \
    "bulk 7 20000" "queue 1 20000" "queue 2 20000" "heavy 1 20000" \
    "preempt 1 20000" "blockers 1 20000" "mixed 1 20000" \
    "transports 1 20000" "memory 1 20000"
n=$gen_count
[ "$n" -ge 12 ] || no streams "only $n streams generated"

RUN_FLAGS=--check-invariants

differ=""
for f in "$t"/*-*.events; do
    run "$t/ref/qsched" "$f" >"$t/r.out"
    run "$t/dflt/qsched" "$f" >"$t/d.out"
    cmp -s "$t/r.out" "$t/d.out" || differ="$differ $(basename "$f")"
    tail -1 "$t/d.out" | grep -qx "exit 0" ||
        differ="$differ $(basename "$f")($(tail -1 "$t/d.out"))"
done
if [ -n "$differ" ]; then no generated-streams "differ:$differ"
else ok "generated-streams ($n)"; fi

mutant move-unmarked preempt.c \
    's|^    qsi_job_misplace(t, job); /\* no longer where its time put it \*/$|    (void)0;|'
mutant link-unmarked jobs.c \
    's|^    job->misplaced = t->jobs_misplaced > 0; /\* counted once it is linked \*/$|    job->misplaced = 0;|'
mutant ties-first job_place.c \
    's|^        if (queued_time - head->message->queued_time < 0) {$|        if (queued_time - head->message->queued_time <= 0) {|'
mutant walk-turned job_place.c \
    's|^            if (!head_saw_walk)$|            if (head_saw_walk)|'
