#!/bin/sh
# tests/conformance/check.sh - the self-test of the conformance suite (a
# hook of `make check`, tests/run.sh).
#
# Owns: showing that the suite, `qsched verify`, `qsched gen` and the
# example differential harness do their job: qsched passes every vector;
# a deliberately broken qsched (tests/conformance/broken/, a refund bug)
# and an implementation that swaps deliveries 2 and 3 both fail with a
# useful first-divergence report; every rule of spec/rules.md has a
# hand-written vector and the index and traceability table are current;
# verify's exit codes and report; gen's determinism and validity; the
# harness finds the broken copy and not qsched itself.
# Prints "ok NAME" / "FAIL NAME: detail" lines; exit 1 if any FAIL.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 2
QSCHED=${QSCHED:-$top/build/qsched}
export QSCHED
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; failures=$((failures + 1)); }
has() { grep -q -- "$2" "$1"; }

if [ ! -x "$QSCHED" ]; then
    fail conformance/qsched "no $QSCHED (run make first)"
    exit 1
fi

# 1. qsched passes everything, and there are enough vectors
sh "$here/run.sh" -q "$QSCHED" >"$tmp/good.out" 2>&1
rc=$?
last=$(tail -1 "$tmp/good.out")
passed=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, 0 failed$/\1/p')
if [ $rc -eq 0 ] && [ -n "$passed" ] && [ "$passed" -ge 150 ]; then
    ok "conformance/qsched ($last)"
else
    fail conformance/qsched "$last"
    grep '^FAIL' "$tmp/good.out" | head -5
fi

# 2. rules, index and traceability table
if python3 "$here/tools/index.py" --check >"$tmp/index.out" 2>&1; then
    ok conformance/traceability
else
    fail conformance/traceability "$(head -3 "$tmp/index.out" | tr '\n' ' ')"
fi

# 3. the broken qsched fails, with a useful report
if make -s build/broken/qsched >"$tmp/broken-build.out" 2>&1; then
    ok conformance/broken-build
    sh "$here/run.sh" -q "$top/build/broken/qsched" >"$tmp/broken.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        fail conformance/broken-detected "the broken qsched passed"
    elif ! has "$tmp/broken.out" '^FAIL pre-refund: trace differs'; then
        fail conformance/broken-detected "pre-refund did not fail"
    else
        ok "conformance/broken-detected ($(tail -1 "$tmp/broken.out"))"
        missing=""
        for want in 'DIVERGENCE at trace line' '  event: ' '  expected: ' \
            '  got: ' 'agreed just before' 'qsched at that event' \
            'preempt smtp' 'pop smtp' 'qsched state before that event' \
            'job list:' 'counter' 'window' 'rules to re-read'; do
            sed -n '/^FAIL pre-refund/,/^FAIL/p' "$tmp/broken.out" \
                >"$tmp/pre-refund.report"
            has "$tmp/pre-refund.report" "$want" || missing="$missing '$want'"
        done
        if [ -z "$missing" ]; then
            ok conformance/broken-report
        else
            fail conformance/broken-report "report lacks$missing"
        fi
    fi
else
    fail conformance/broken-build "$(tail -3 "$tmp/broken-build.out")"
fi

# 4. an implementation that swaps deliveries 2 and 3 fails
cat >"$tmp/swap23" <<EOF
#!/bin/sh
"$QSCHED" "\$@" | awk '\$1=="deliver"{n++} n==2&&\$1=="deliver"{held=\$0; next} {print} n==3&&held!=""&&\$1=="deliver"{print held; held=""}'
EOF
chmod +x "$tmp/swap23"
sh "$here/run.sh" -q "$tmp/swap23" "$here"/hand/pre-*.events >"$tmp/swap.out" 2>&1
if [ $? -ne 0 ] && has "$tmp/swap.out" 'DIVERGENCE at trace line 2'; then
    ok "conformance/swap-detected ($(tail -1 "$tmp/swap.out"))"
else
    fail conformance/swap-detected "$(tail -1 "$tmp/swap.out")"
fi

# 5. the exit status counts: right trace, wrong status on a bad stream
printf '#!/bin/sh\n"%s" "$@"\nexit 0\n' "$QSCHED" >"$tmp/exit0"
chmod +x "$tmp/exit0"
sh "$here/run.sh" -q "$tmp/exit0" "$here"/hand/err-done-twice.events \
    "$here"/hand/ev-select.events >"$tmp/exit.out" 2>&1
if has "$tmp/exit.out" 'FAIL err-done-twice: exit status 0, want 2' &&
    has "$tmp/exit.out" '^1 passed, 1 failed$'; then
    ok conformance/exit-status
else
    fail conformance/exit-status "$(tr '\n' ' ' <"$tmp/exit.out")"
fi

# 6. qsched verify: exit codes and report
ev="$here/hand/pre-candidates.events"
"$QSCHED" "$ev" >"$tmp/t.good"
"$QSCHED" verify "$ev" "$tmp/t.good" >"$tmp/v.out"
if [ $? -eq 0 ] && has "$tmp/v.out" '^traces agree: 12 lines$'; then
    ok verify/equal
else
    fail verify/equal "$(cat "$tmp/v.out")"
fi
"$QSCHED" --explain "$ev" | "$QSCHED" verify "$ev" - >"$tmp/v.out"
if [ $? -eq 0 ]; then ok verify/explain-lines-ignored; else
    fail verify/explain-lines-ignored "$(head -3 "$tmp/v.out")"; fi
sed '5s/M2 smtp:b1/M3 smtp:c/' "$tmp/t.good" >"$tmp/t.bad"
"$QSCHED" verify "$ev" "$tmp/t.bad" >"$tmp/v.out"
if [ $? -eq 1 ] && has "$tmp/v.out" '^DIVERGENCE at trace line 5 ' &&
    has "$tmp/v.out" 'expected: deliver D5 M2 smtp:b1.example 1' &&
    has "$tmp/v.out" 'preempt smtp M1 by M2' &&
    has "$tmp/v.out" '\*M1(level 0, counter 4'; then
    ok verify/divergence
else
    fail verify/divergence "$(head -4 "$tmp/v.out" | tr '\n' ' ')"
fi
head -3 "$tmp/t.good" >"$tmp/t.short"
"$QSCHED" verify "$ev" "$tmp/t.short" >"$tmp/v.out"
if [ $? -eq 1 ] && has "$tmp/v.out" 'got:      (end of trace)'; then
    ok verify/short-trace
else
    fail verify/short-trace "$(head -4 "$tmp/v.out" | tr '\n' ' ')"
fi
"$QSCHED" verify "$here/hand/err-done-twice.events" \
    "$here/hand/err-done-twice.expected" >"$tmp/v.out"
if [ $? -eq 0 ] && has "$tmp/v.out" 'input error'; then
    ok verify/invalid-stream
else
    fail verify/invalid-stream "$(cat "$tmp/v.out")"
fi
"$QSCHED" verify "$ev" "$tmp/no-such-trace" >/dev/null 2>&1
if [ $? -eq 2 ]; then ok verify/bad-input; else
    fail verify/bad-input "want exit 2"; fi

# 7. qsched gen: deterministic, valid, seed-dependent
"$QSCHED" gen --seed 42 --size medium >"$tmp/g1"
"$QSCHED" gen --seed 42 --size medium >"$tmp/g2"
"$QSCHED" gen --seed 43 --size medium >"$tmp/g3"
if cmp -s "$tmp/g1" "$tmp/g2" && ! cmp -s "$tmp/g1" "$tmp/g3"; then
    ok gen/deterministic
else
    fail gen/deterministic "same seed differs or different seeds agree"
fi
bad=""
for mix in fifo preempt concurrency dead memory blockers local mixed; do
    for prof in document postfix; do
        for seed in 1 2; do
            if ! "$QSCHED" gen --seed $seed --mix $mix --profile $prof \
                --size 300 --check >"$tmp/g.ev" 2>"$tmp/g.err" ||
                ! head -2 "$tmp/g.ev" | grep -q "^profile $prof$" ||
                ! "$QSCHED" --check-invariants "$tmp/g.ev" >/dev/null \
                    2>>"$tmp/g.err"; then
                bad="$bad $mix/$prof/$seed"
            fi
        done
    done
done
if [ -z "$bad" ]; then ok gen/valid; else
    fail gen/valid "$bad: $(head -1 "$tmp/g.err")"; fi
"$QSCHED" gen --seed 1 --mix nosuchmix >/dev/null 2>&1
if [ $? -eq 2 ]; then ok gen/bad-options; else
    fail gen/bad-options "want exit 2"; fi

# 8. the example differential harness
if make -s build/diff/diff-harness >"$tmp/dh-build.out" 2>&1; then
    build/diff/diff-harness --self --count 20 >"$tmp/dh.out" 2>&1
    if [ $? -eq 0 ]; then ok diff-harness/self; else
        fail diff-harness/self "$(tail -2 "$tmp/dh.out")"; fi
    build/diff/diff-harness --seed 1 --count 100 --out "$tmp/first.events" \
        >"$tmp/dh.out" 2>&1
    hrc=$?
    "$QSCHED" verify "$tmp/first.events" "$tmp/first.events.trace" \
        >"$tmp/dhv.out" 2>&1
    vrc=$?
    if [ $hrc -eq 1 ] && has "$tmp/dh.out" '^DIFFERENCE in the stream of seed' &&
        [ $vrc -eq 1 ] &&
        has "$tmp/dhv.out" '^DIVERGENCE'; then
        ok "diff-harness/finds-broken ($(head -1 "$tmp/dh.out"))"
    else
        fail diff-harness/finds-broken "$(head -2 "$tmp/dh.out" | tr '\n' ' ')"
    fi
else
    fail diff-harness/build "$(tail -3 "$tmp/dh-build.out")"
fi

# 9. the example of qsched(3) compiles against the API and prints what the
# page says
if command -v man >/dev/null 2>&1 && [ -f build/libqsched.a ]; then
    MANWIDTH=200 man -l docs/qsched.3 2>/dev/null | col -b >"$tmp/man.txt"
    sed -n '/^EXAMPLE/,/^ *It prints/p' "$tmp/man.txt" |
        sed -n '/#include <stdio.h>/,/It prints/p' | sed '$d' >"$tmp/ex.c"
    sed -n '/^ *It prints/,/^ *and no window line/p' "$tmp/man.txt" |
        sed -n 's/^[[:space:]]*\(deliver .*\)$/\1/p' >"$tmp/ex.want"
    if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
        -Isrc -o "$tmp/ex" "$tmp/ex.c" build/libqsched.a -lm 2>"$tmp/ex.err" &&
        "$tmp/ex" >"$tmp/ex.got" && [ -s "$tmp/ex.want" ] &&
        cmp -s "$tmp/ex.got" "$tmp/ex.want"; then
        ok docs/qsched.3-example
    else
        fail docs/qsched.3-example "$(head -3 "$tmp/ex.err") $(cat "$tmp/ex.got" 2>/dev/null)"
    fi
else
    fail docs/qsched.3-example "man or build/libqsched.a missing"
fi

[ $failures -eq 0 ]
