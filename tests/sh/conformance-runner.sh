#!/bin/sh
# tests/sh/conformance-runner.sh - `qsched conformance` (src/conformance.c,
# docs/implementers.md; issue 19).
#
# Owns the checks of the runner itself, against adapters whose faults are
# known in advance: the verdicts (trace, exit status, time-out, crash), the
# three outputs (text, TAP 13, JUnit XML, each parsed independently of the
# runner: TAP by counting test points, JUnit with Python's XML parser), the
# per-rule summary (compared with rule counts taken from the vector
# headers by grep), the --profile filter, both input modes, the exit codes,
# that tests/conformance/run.sh and `make conformance` are the same runner,
# and the Python adapter of docs/implementers.md (section 2) on the
# hand-written vectors, with the doc's copy equal to the tested file.
# (The Go adapter needs an installed qsched.pc: tests/sh/install.sh.)
# Prints ok/FAIL/SKIP lines.
# run.sh: slow (not in the --quick loop)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
Q=${QSCHED:-$top/build/qsched}
case $Q in /*) ;; *) Q=$top/$Q ;; esac
S=tests/conformance
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok $1"; }
no() { echo "FAIL $1: $2"; }
# The Python of the system (a pyenv shim costs 0.3 s per start).
PY=$(command -v /usr/bin/python3 || command -v python3)
count() { echo $#; }

# (qsched itself passing the whole suite is tests/conformance/check.sh's
# first check; here the full suite runs once, in section 3.)
nhand=$(count $S/hand/*.events)

# 2. a broken adapter (the second delivery reports 2 recipients) fails,
#    in text, TAP and JUnit (one run writes both), consistently; on the
#    hand-written vectors
cat >"$t/broken" <<EOF
#!/bin/sh
"$Q" "\$@" | sed '1,/^deliver D2 /s/^deliver D2 \\(.*\\) 1\$/deliver D2 \\1 2/'
EOF
chmod +x "$t/broken"
"$Q" conformance --impl "$t/broken" $S/hand/*.events >"$t/b.txt" 2>&1; rc=$?
"$Q" conformance --impl "$t/broken" --tap --junit "$t/b.xml" $S/hand/*.events >"$t/b.tap" 2>&1; rc_tap=$?
nvec=$nhand
nfail=$(grep -c '^FAIL ' "$t/b.txt")
if [ $rc -eq 1 ] && [ $rc_tap -eq 1 ] && [ "$nfail" -gt 0 ] &&
    [ "$(tail -1 "$t/b.txt")" = "$((nvec - nfail)) passed, $nfail failed" ]; then
    ok "runner/broken-fails ($nfail failed)"
else
    no runner/broken-fails "exit $rc/$rc_tap, $nfail FAIL lines, $(tail -1 "$t/b.txt")"
fi
if grep -q '^    DIVERGENCE at trace line' "$t/b.txt" &&
    grep -q '^      got:      deliver D2 .* 2$' "$t/b.txt"; then
    ok runner/broken-report
else
    no runner/broken-report "no divergence report under the FAIL lines"
fi
# TAP 13: version, plan, one test point per vector, YAML under failures
if [ "$(sed -n 1p "$t/b.tap")" = "TAP version 13" ] &&
    [ "$(sed -n 2p "$t/b.tap")" = "1..$nvec" ] &&
    [ "$(grep -cE '^(not )?ok [0-9]+ - ' "$t/b.tap")" -eq "$nvec" ] &&
    [ "$(grep -c '^not ok ' "$t/b.tap")" -eq "$nfail" ] &&
    [ "$(grep -c '^  ---$' "$t/b.tap")" -eq "$nfail" ] &&
    [ "$(grep -c '^  \.\.\.$' "$t/b.tap")" -eq "$nfail" ] &&
    [ "$(tail -1 "$t/b.tap")" = "# $((nvec - nfail)) passed, $nfail failed" ]; then
    ok runner/tap
else
    no runner/tap "$(head -3 "$t/b.tap" | tr '\n' ' ')"
fi
# the points are numbered 1..N in order
if awk '/^(not )?ok [0-9]+ - / { n++; k = ($1 == "not") ? $3 : $2; if (k != n) bad = 1 }
        END { exit bad || n == 0 }' "$t/b.tap"; then ok runner/tap-numbering; else
    no runner/tap-numbering "test points out of order"; fi
# JUnit: parsed by Python's XML parser, counts agree with the text report
"$PY" - "$t/b.xml" "$nvec" "$nfail" >"$t/junit.out" 2>&1 <<'EOF'
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
nvec, nfail = int(sys.argv[2]), int(sys.argv[3])
cases = list(root.iter("testcase"))
fails = [c for c in cases if c.find("failure") is not None]
assert root.tag == "testsuites", root.tag
assert len(cases) == nvec, (len(cases), nvec)
assert len(fails) == nfail, (len(fails), nfail)
assert int(root.get("tests")) == nvec and int(root.get("failures")) == nfail
assert {s.get("name") for s in root.iter("testsuite")} == {"hand"}
f = fails[0].find("failure")
assert f.get("message") == "trace differs", f.get("message")
assert "DIVERGENCE at trace line" in f.text
assert all((c.find("system-out").text or "").startswith("rules: S-") for c in cases)
print("junit ok")
EOF
if grep -q '^junit ok$' "$t/junit.out"; then ok runner/junit; else
    no runner/junit "$(tail -3 "$t/junit.out" | tr '\n' ' ')"; fi

# 3. the per-rule summary, on the whole suite in path mode: break exactly
#    one vector (by its path); its rules, and only they, are listed, each
#    with its vector count counted here from the headers
nvec=$(count $S/hand/*.events $S/gen/*.events)
vec=$S/hand/con-clamp.events
cat >"$t/one" <<EOF
#!/bin/sh
case "\$1" in *con-clamp.events) echo "deliver D1 M9 smtp:z 1"; exit 0 ;; esac
exec "$Q" "\$1"
EOF
chmod +x "$t/one"
"$Q" conformance --input path --impl "$t/one" -q >"$t/one.out" 2>&1; rc=$?
rules=$(sed -n 's/^# rules: *//p' "$vec")
want=""
for r in $rules; do
    n=$(grep -l "^# rules:.* $r\( \|\$\)" $S/hand/*.events $S/gen/*.events | wc -l)
    want="$want  $r: 1 of $n failed (con-clamp)
"
done
nr=$(echo "$rules" | wc -w)
total=$(sed -n 's/^# rules: *//p' $S/hand/*.events $S/gen/*.events | tr ' ' '\n' | grep -c . )
got=$(sed -n '/^rules with failing vectors/,/passed,/p' "$t/one.out" | grep '^  S-' | sort)
if [ $rc -eq 1 ] && grep -q "^rules with failing vectors: $nr of " "$t/one.out" &&
    [ "$got" = "$(printf '%s' "$want" | sort)" ] &&
    [ "$(tail -1 "$t/one.out")" = "$((nvec - 1)) passed, 1 failed" ] &&
    [ "$total" -gt 0 ]; then
    ok "runner/per-rule-summary ($rules)"
else
    no runner/per-rule-summary "exit $rc; got '$got', want '$want'"
fi

# 4. verdicts: exit status, time-out (the whole process group killed),
#    crash, an adapter that cannot start (its stderr shown)
printf '#!/bin/sh\n"%s" "$@"\nexit 0\n' "$Q" >"$t/exit0"
chmod +x "$t/exit0"
"$Q" conformance --impl "$t/exit0" $S/hand/err-done-twice.events $S/hand/ev-select.events >"$t/x.out" 2>&1
if grep -q '^FAIL err-done-twice: exit status 0, want 2$' "$t/x.out" &&
    grep -q '^PASS ev-select$' "$t/x.out"; then ok runner/exit-status; else
    no runner/exit-status "$(tr '\n' ' ' <"$t/x.out")"; fi
printf '#!/bin/sh\n(sleep 30; echo late >%s/late) &\nsleep 30\n' "$t" >"$t/slow"
chmod +x "$t/slow"
s0=$(date +%s)
"$Q" conformance --timeout 1 --impl "$t/slow" $S/hand/ev-select.events >"$t/to.out" 2>&1; rc=$?
el=$(( $(date +%s) - s0 ))
sleep 1
if [ $rc -eq 1 ] && grep -q '^FAIL ev-select: timed out after 1s$' "$t/to.out" &&
    [ "$el" -lt 10 ] && [ ! -e "$t/late" ] && ! pgrep -f "$t/slow" >/dev/null; then
    ok runner/timeout-kills-group
else
    no runner/timeout-kills-group "exit $rc after ${el}s: $(head -1 "$t/to.out")"
fi
printf '#!/bin/sh\n"%s" "$@"\nkill -SEGV $$\n' "$Q" >"$t/crash"
chmod +x "$t/crash"
"$Q" conformance --impl "$t/crash" $S/hand/ev-select.events >"$t/c.out" 2>&1
if grep -q '^FAIL ev-select: killed by signal 11' "$t/c.out"; then ok runner/crash; else
    no runner/crash "$(head -1 "$t/c.out")"; fi
"$Q" conformance --impl "$t/no-such-adapter" $S/hand/ev-select.events >"$t/n.out" 2>&1
if grep -q '^FAIL ev-select: trace differs$' "$t/n.out" &&
    grep -q 'stderr: .*no-such-adapter.*not found' "$t/n.out"; then
    ok runner/cannot-start-shows-stderr
else
    no runner/cannot-start-shows-stderr "$(tr '\n' ' ' <"$t/n.out" | cut -c1-200)"
fi

# 5. --profile, and --input path without stdin (section 3 passes the path)
np=$(grep -l '^# profile: postfix' $S/hand/*.events $S/gen/*.events | wc -l)
"$Q" conformance --profile postfix --impl "$Q" -q >"$t/p.out" 2>&1
if [ "$(tail -1 "$t/p.out")" = "$np passed, 0 failed" ]; then ok "runner/profile-filter ($np)"; else
    no runner/profile-filter "$(tail -1 "$t/p.out"), want $np"; fi
# in path mode stdin is empty: qsched reading stdin would print nothing
"$Q" conformance --input path --impl "$Q -" $S/hand/ev-select.events >"$t/p2.out" 2>&1
if grep -q '^FAIL ev-select: trace differs' "$t/p2.out"; then ok runner/input-path-no-stdin; else
    no runner/input-path-no-stdin "$(head -1 "$t/p2.out")"; fi

# 6. exit codes of usage errors and of an unwritable report
"$Q" conformance >/dev/null 2>&1; r1=$?
"$Q" conformance --impl "$Q" --suite "$t" >/dev/null 2>"$t/e"; r2=$?
"$Q" conformance --impl "$Q" --profile nosuch >/dev/null 2>&1; r3=$?
"$Q" conformance --impl "$Q" --junit "$t/no/such/dir/j.xml" $S/hand/ev-select.events >/dev/null 2>"$t/e4"; r4=$?
"$Q" conformance --impl "$Q" $S/hand/ev-select.events >/dev/full 2>/dev/null; r5=$?
if [ "$r1$r2$r3$r4$r5" = 22244 ] && grep -q 'not a conformance suite' "$t/e" &&
    grep -q "cannot write $t/no/such/dir/j.xml" "$t/e4"; then
    ok runner/exit-codes
else
    no runner/exit-codes "got $r1 $r2 $r3 $r4 $r5, want 2 2 2 4 4"
fi

# 7. one runner: run.sh and make conformance print what the runner prints;
#    and its output is deterministic
"$Q" conformance --suite $S --impl "$t/broken" -q $S/hand/pre-*.events >"$t/direct" 2>&1
QSCHED=$Q sh $S/run.sh -q "$t/broken" $S/hand/pre-*.events >"$t/wrapped" 2>&1
"$Q" conformance --suite $S --impl "$t/broken" -q $S/hand/pre-*.events >"$t/again" 2>&1
if cmp -s "$t/direct" "$t/wrapped" && cmp -s "$t/direct" "$t/again"; then
    ok runner/one-runner-deterministic
else
    no runner/one-runner-deterministic "run.sh or a second run differs"
fi
if grep -q 'qsched conformance' tests/conformance.mk &&
    ! grep -q 'cmp -s\|grep -E .\^(deliver' $S/run.sh tests/conformance.mk; then
    ok runner/no-second-copy
else
    no runner/no-second-copy "tests/conformance.mk or run.sh compares traces itself"
fi

# 8. the Python adapter of docs/implementers.md: the doc shows the tested
#    file, and it passes the hand-written vectors through libqsched.so
ext() { # FILE: the fenced block after the doc's marker for FILE
    awk -v f="$1" '$0 == "<!-- adapter: " f " -->" { on = 1; next }
        on == 1 && /^```/ { on = 2; next } on == 2 && /^```$/ { exit }
        on == 2 { print }' docs/implementers.md
}
for f in adapter.py adapter.go; do
    ext "tests/conformance/adapters/$f" >"$t/doc-$f"
    if [ -s "$t/doc-$f" ] && cmp -s "$t/doc-$f" "$S/adapters/$f"; then ok "runner/doc-shows-$f"; else
        no "runner/doc-shows-$f" "docs/implementers.md's copy differs from $S/adapters/$f"; fi
done
if [ -z "$PY" ]; then
    echo "SKIP runner/python-adapter: python3 not installed"
elif [ ! -f build/libqsched.so.1 ]; then
    no runner/python-adapter "build/libqsched.so.1 missing (make all)"
else
    QSCHED_LIB=$top/build/libqsched.so.1 "$Q" conformance \
        --impl "$PY $S/adapters/adapter.py" -q $S/hand/*.events >"$t/py.out" 2>&1; rc=$?
    nh=$nhand
    if [ $rc -eq 0 ] && [ "$(tail -1 "$t/py.out")" = "$nh passed, 0 failed" ]; then
        ok "runner/python-adapter ($nh hand-written vectors)"
    else
        no runner/python-adapter "exit $rc: $(grep '^FAIL' "$t/py.out" | head -3 | tr '\n' ' ') $(tail -1 "$t/py.out")"
    fi
fi
