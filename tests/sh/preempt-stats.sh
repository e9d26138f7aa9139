#!/bin/sh
# tests/sh/preempt-stats.sh - `--stats` agrees with the `--explain` trace in
# both formats (issue 4 item 5: "--stats counts preemptions"; S-PRE-*).
#
# Owns: a consistency check over every preemption and memory golden stream
# (tests/golden/pre-*.events, mem-*.events): the counters printed by
# --stats must equal the number of trace lines of the matching kind -
# preemptions = preempt lines, preempt_refused = nopreempt lines,
# blockers = blocker lines, reads = read lines, deliveries = deliver lines,
# idles = idle lines - in the text format and in --format jsonl, and the
# per-transport preemptions must add up to the total.  The golden traces
# themselves pin the lines; this pins the counters to them.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
Q=${QSCHED:-$top/build/qsched}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for f in "$top"/tests/golden/pre-*.events "$top"/tests/golden/mem-*.events; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .events)
    n=$((n + 1))
    if ! "$Q" --explain --stats "$f" >"$tmp/t" 2>/dev/null; then
        echo "FAIL preempt-stats $name: qsched failed"; fail=1; continue
    fi
    "$Q" --explain --stats --format jsonl "$f" >"$tmp/j" 2>/dev/null
    # the first occurrence is the global counter (transport lines follow)
    stat() { grep '^stats ' "$tmp/t" | grep -o " $1=[0-9]*" | head -1 | cut -d= -f2; }
    bad=""
    for pair in preemptions:preempt preempt_refused:nopreempt blockers:blocker \
                reads:read deliveries:deliver idles:idle; do
        key=${pair%%:*}; kind=${pair#*:}
        lines=$(grep -c "^$kind\( \|$\)" "$tmp/t")
        jl=$(grep -c "\"event\":\"$kind\"" "$tmp/j")
        want=$(stat "$key")
        [ "$lines" = "$want" ] || bad="$bad $key=$want but $lines $kind lines;"
        [ "$jl" = "$want" ] || bad="$bad $key=$want but $jl jsonl $kind events;"
    done
    per=$(sed -n 's/^stats transport=.* preemptions=\([0-9]*\) .*/\1/p' "$tmp/t" | awk '{s += $1} END {print s + 0}')
    [ "$per" = "$(stat preemptions)" ] || bad="$bad per-transport preemptions add up to $per;"
    if [ -z "$bad" ]; then echo "ok preempt-stats $name"; else
        echo "FAIL preempt-stats $name:$bad"; fail=1; fi
done
[ $n -gt 0 ] || { echo "FAIL preempt-stats: no golden streams found"; fail=1; }
exit $fail
