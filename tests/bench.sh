#!/bin/sh
# tests/bench.sh - `make bench`: replay throughput and bounded memory.
#
# Owns: the performance figures the design promises: event streams replayed
# at >= 1,000,000 events per second on one core, and a 1,000,000-recipient
# message in bounded memory (tests/bench-memory.sh).  Wall-clock time is
# measured here, in the benchmark, never in a unit test.  Each workload is
# generated (deterministically) into build/bench/, run 3 times, and the best
# run is reported.  Exit status 1 if a target is missed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
Q="$top/build/qsched"
out="$top/build/bench"
mkdir -p "$out"

# Workload A: steady state with preemption.  Every 16 rounds a bulk message
# of 52 recipients on 13 destinations and 3 small ones arrive (16 entries);
# every round selects and completes one delivery.  Exercises candidate scans,
# preemption, pops, retires, pools.
gen_mixed() { # rounds
    awk -v rounds="$1" 'BEGIN {
        print "default_delivery_slot_cost = 3"
        print "default_destination_concurrency_limit = 4"
        msg = 0; h = 0; inflight = 0
        for (r = 0; r < rounds; r++) {
            if (r % 16 == 0) {
                msg++; line = "arrive B" msg
                for (d = 0; d < 13; d++) line = line " smtp:d" ((msg + d) % 50) ".example*4"
                print line
                for (k = 0; k < 3; k++) { msg++; print "arrive S" msg " smtp:s" (msg % 97) ".example" }
            }
            print "select"; h++
            print "done D" h " ok"
            if (r % 1000 == 999) print "at " int(r / 1000)
        }
    }'
}

# Workload B: concurrency feedback on every completion.  One message per
# round (3 recipients for one of 100 destinations), one delivery selected
# and completed per round, every 13th a failure (1/N feedback both ways;
# postfix profile with cohort limit 0, so no destination ever dies and
# every select finds work).
gen_feedback() { # rounds
    awk -v rounds="$1" 'BEGIN {
        print "profile postfix"
        print "default_destination_concurrency_positive_feedback = 1/concurrency"
        print "default_destination_concurrency_negative_feedback = 1/concurrency"
        print "default_destination_concurrency_failed_cohort_limit = 0"
        for (r = 1; r <= rounds; r++) {
            print "arrive M" r " smtp:f" (r % 100) ".example*3"
            print "select"
            print "done D" r ((r % 13 == 0) ? " fail" : " ok")
        }
    }'
}

# Best of 3 runs.  The rate is computed on CPU time (user + system) of the
# qsched process, i.e. what one core does; wall time is shown beside it
# (it is larger when the machine is shared).
measure() { # name file
    python3 - "$Q" "$1" "$2" <<'PY'
import os, resource, subprocess, sys, time
q, name, path = sys.argv[1:4]
events = sum(1 for l in open(path) if l.strip() and not l.lstrip().startswith('#'))
best_cpu = best_wall = None
for _ in range(3):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    rc = subprocess.run([q, path], stdout=subprocess.DEVNULL).returncode
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        print("bench %s: qsched exit %d" % (name, rc)); sys.exit(1)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
    best_wall = wall if best_wall is None else min(best_wall, wall)
rate = int(events / best_cpu)
print("%-10s %9d events  cpu %6.3f s  wall %6.3f s  %9d events/s (cpu)"
      % (name, events, best_cpu, best_wall, rate))
sys.exit(0 if rate >= 1000000 else 1)
PY
}

status=0
echo "== replay throughput (best of 3, one core)"
gen_mixed 1500000 >"$out/mixed.events"
measure mixed "$out/mixed.events" || status=1
gen_feedback 1000000 >"$out/feedback.events"
measure feedback "$out/feedback.events" || status=1
if [ -f "$top/tests/bench-memory.sh" ]; then
    echo "== bounded memory"
    sh "$top/tests/bench-memory.sh" || status=1
fi
[ $status -eq 0 ] && echo "bench: all targets met" || echo "bench: a target was missed"
exit $status
