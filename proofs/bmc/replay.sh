#!/bin/sh
# proofs/bmc/replay.sh - every stream the bounded model checker wrote
# (counterexamples, findings, worst-ratio witnesses) must replay through
# the real CLI: `qsched --explain --check-invariants FILE` exits 0, or 3
# for a counterexample of the invariant checker itself.  The checker
# already verified each text reaches the state it explored (through the
# event parser); this is the end-to-end check with the binary users run.
#
# Usage: sh proofs/bmc/replay.sh QSCHED OUTDIR; prints one ok/FAIL line.
set -u
qsched=$1
out=$2
n=0
bad=""
for f in "$out"/cex/*.events "$out"/findings/*.events "$out"/witness/*.events; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    "$qsched" --explain --check-invariants "$f" >/dev/null 2>&1
    rc=$?
    case "$rc:$f" in
        0:*|3:*.invariants.events) ;;
        *) bad="$bad $(basename "$f")(exit $rc)" ;;
    esac
done
if [ -n "$bad" ]; then
    echo "FAIL bmc/replay: streams that do not replay with qsched --explain:$bad"
    exit 1
fi
echo "ok bmc/replay: $n streams replay with $qsched --explain"
