#!/bin/sh
# tests/sh/sim-errors.sh - bad scenarios are refused as a whole (S-SIM-1..6;
# the simulator's counterpart of S-EV-10).
#
# Owns: every fixture tests/sim/errors/NAME.scn must make `qsched sim`
# exit 2 with exactly the first stderr line in NAME.err (FILE:LINE: reason)
# and print nothing on stdout: a scenario is never half-run.  Also the
# cases that need generated input (NUL byte, over-long line, missing file,
# bad command line, --set errors).  Prints ok/FAIL lines.
set -u
Q=${QSCHED:-build/qsched}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok $1"; }
no() { echo "FAIL $1: $2"; }

for f in tests/sim/errors/*.scn; do
    n=$(basename "$f" .scn)
    want=$(cat "tests/sim/errors/$n.err")
    "$Q" sim "$f" >"$t/out" 2>"$t/err"; rc=$?
    got=$(head -1 "$t/err")
    if [ $rc -ne 2 ]; then no "sim-error/$n" "exit $rc, want 2"
    elif [ "$got" != "$want" ]; then no "sim-error/$n" "stderr '$got', want '$want'"
    elif [ -s "$t/out" ]; then no "sim-error/$n" "printed output for a refused scenario"
    else ok "sim-error/$n"; fi
done

expect_err() { # name want-regex command...
    n=$1; re=$2; shift 2
    "$@" >"$t/out" 2>"$t/err"; rc=$?
    if [ $rc -eq 2 ] && grep -Eq "$re" "$t/err" && [ ! -s "$t/out" ]; then ok "$n"
    else no "$n" "exit $rc, stderr '$(head -1 "$t/err")'"; fi
}
printf 'message smtp:a\nseed 1\0x\n' >"$t/nul.scn"
expect_err sim-error/nul-byte ':2: NUL byte in line$' "$Q" sim "$t/nul.scn"
python3 -c "open('$t/long.scn','w').write('message smtp:a\n# ' + 'x' * 1048576 + '\n')"
expect_err sim-error/line-too-long ':2: line too long \(limit 1048576 bytes\)$' "$Q" sim "$t/long.scn"
expect_err sim-error/missing-file 'cannot open' "$Q" sim /nonexistent/x.scn
expect_err sim-error/no-scenario 'usage: qsched sim' "$Q" sim
expect_err sim-error/bad-option 'unknown option' "$Q" sim --frobnicate tests/sim/scenarios/table3.scn
expect_err sim-error/bad-format 'unknown format' "$Q" sim --format xml tests/sim/scenarios/table3.scn
expect_err sim-error/bad-seed 'bad seed' "$Q" sim --seed x tests/sim/scenarios/table3.scn
expect_err sim-error/set-line '^--set:2: unknown verb: frob$' "$Q" sim --set 'seed 3' --set 'frob' tests/sim/scenarios/table3.scn
expect_err sim-error/set-param '^--set:1: default_destination_concurrency_limit = 0 \(no limit\) exists only in the postfix profile$' \
    "$Q" sim --set 'default_destination_concurrency_limit = 0' tests/sim/scenarios/table3.scn
expect_err sim-error/trace-needs-core 'need policy nqmgr' "$Q" sim --set 'policy fifo' --trace "$t/x" tests/sim/scenarios/table3.scn
# an unwritable output is an error, never exit 0
"$Q" sim --trace /nonexistent/dir/x tests/sim/scenarios/table3.scn >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ]; then ok sim-error/unwritable-trace; else no sim-error/unwritable-trace "exit $rc"; fi
if [ -w /dev/full ]; then
    if "$Q" sim tests/sim/scenarios/table3.scn >/dev/full 2>/dev/null; then
        no sim-error/stdout-full "exit 0 on a full device"; else ok sim-error/stdout-full; fi
elif [ "${CI:-}" = true ]; then
    no sim-error/stdout-full "no writable /dev/full to test with"
else
    echo "skip sim-error/stdout-full: no writable /dev/full"
fi
# every time unit of the scenario language
printf 'server a rtt=1500us per_rcpt=0.25 per_msg=2ms greet=0.001m\nstop 1h\nsample 1d\nmessage at=1w smtp:a\n' >"$t/units.scn"
if "$Q" sim "$t/units.scn" >/dev/null 2>"$t/err"; then ok sim-error/time-units
else no sim-error/time-units "$(cat "$t/err")"; fi
