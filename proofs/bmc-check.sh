#!/bin/sh
# proofs/bmc-check.sh - the `make check` hook of the bounded model checker
# (issue 7).  Runs `make bmc` (build/bmc, 2 workers, under 10 minutes on
# 2 cores; tests/run.sh bounds it further for make check with BMC_FLAGS)
# and passes its ok/FAIL lines through: one per mix group, one
# per property, one for the replay of the written streams, then the
# summary.  Exit status non-zero on any violation of a property (the
# document's inflation claim is reported, not failed: see
# docs/inflation.md).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
mkdir -p build/bmc
# Progress (issue 19): with --verbose in BMC_FLAGS each worker logs
# "bmc: GROUP done"; every 20 s one line says how many groups are done.
make -s --no-print-directory bmc >build/bmc/check.log 2>&1 &
pid=$!
start=$(date +%s) last=$start
while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    now=$(date +%s)
    if [ $((now - last)) -ge 20 ]; then
        last=$now
        total=$(sed -n 's/^bmc: \([0-9]*\) mix groups.*/\1/p' build/bmc/check.log)
        echo "progress: $(grep -c '^bmc: .* done' build/bmc/check.log) of ${total:-?} groups done ($((now - start))s)"
    fi
done
wait "$pid"
rc=$?
grep -E '^(ok|FAIL) ' build/bmc/check.log
sed -n '/^== summary/,$p' build/bmc/check.log | grep -vE '^(ok|FAIL) '
if [ $rc -ne 0 ] && ! grep -q '^FAIL ' build/bmc/check.log; then
    echo "FAIL bmc: make bmc exited $rc"
    tail -20 build/bmc/check.log
fi
exit $rc
