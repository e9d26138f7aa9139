#!/bin/sh
# tests/sh/memory-stats.sh - the `--stats` figures of the memory and
# preemption golden streams: peak in-core recipients beside the document's
# bound, per transport and in total, reads, preemptions (issue 5 item 7,
# issue 4 item 5; S-MEM-9, S-PRE-3).
#
# Owns: checking chosen counters by name, so that the golden traces need
# not pin the whole --stats block (which may grow new lines).  Every value
# below is derived by hand in the comment of the golden stream it belongs
# to (tests/golden/NAME.events).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
Q=${QSCHED:-$top/build/qsched}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# want NAME SCOPE KEY=VALUE...   SCOPE: "total" or a transport name
want() {
    name=$1; scope=$2; shift 2
    "$Q" --stats "$top/tests/golden/$name.events" >"$tmp/out" 2>"$tmp/err" || {
        echo "FAIL memory-stats $name: qsched failed: $(head -1 "$tmp/err")"; fail=1; return; }
    if [ "$scope" = total ]; then
        grep '^stats ' "$tmp/out" | grep -v '^stats transport=' >"$tmp/lines"
    else
        grep "^stats transport=$scope " "$tmp/out" >"$tmp/lines"
    fi
    for kv in "$@"; do
        if grep -q "[ ]$kv\( \|$\)" "$tmp/lines"; then
            echo "ok memory-stats $name $scope $kv"
        else
            echo "FAIL memory-stats $name $scope: want $kv, have: $(tr '\n' ' ' <"$tmp/lines")"
            fail=1
        fi
    done
}

# mem-bound: bound max(2*1 + 4 + 0, 5) = 6; B read in batches 5, 6, 6, 6,
# 6, 1 plus S1, S2: 8 reads; peak 6.
want mem-bound total deliveries=33 idles=1 preemptions=0 reads=8 \
    recipients_delivered=33 messages_done=3 peak_in_core=6 bound=6
want mem-bound smtp peak_in_core=6 bound=6
# mem-worked-example: M0 2 + M 8 + 4 = 14 in core; bounds with the active
# limit 20000 and minimum 3: total 3*20000 + 1004 + 1005 + 1002 = 63011,
# t3 61002 (M0 2 + M 2 = 4), t1 61004 (1), t2 61005 (5 + 4 = 9).
want mem-worked-example total deliveries=2 reads=3 peak_in_core=14 bound=63011
want mem-worked-example t3 peak_in_core=4 bound=61002
want mem-worked-example t1 deliveries=1 peak_in_core=1 bound=61004
want mem-worked-example t2 deliveries=1 peak_in_core=9 bound=61005
# mem-extra-pool: B 20 + S 8 in core; one preemption after 15 refusals;
# reads B 1, S 2; bound max(2*20000 + 20 + 12, 20) = 40032.
want mem-extra-pool total deliveries=25 preemptions=1 preempt_refused=15 \
    reads=3 peak_in_core=28 bound=40032
# pre-fifo-k0/k1: no preemption at all, not even a refused one; bound
# max(10*20000 + 20000 + 1000, 20000) = 221000.
for k in 0 1; do
    want pre-fifo-k$k total deliveries=14 idles=1 preemptions=0 \
        preempt_refused=0 reads=3 peak_in_core=14 bound=221000
done
# pre-doc-seq-k2: two preemptions, six refused (S2-S4, S8-S10).
want pre-doc-seq-k2 total preemptions=2 preempt_refused=6 blockers=0
want pre-doc-seq-k2 smtp preemptions=2
exit $fail
