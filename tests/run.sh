#!/bin/sh
# tests/run.sh - the test runner behind `make check`.
#
# Owns: discovering and running every suite, counting results, and the
# closing line "N passed, N failed".  Suites:
#   tests/unit/*.c        C unit tests (print "ok NAME" / "FAIL NAME: ...")
#   tests/golden/*.events golden traces: NAME.expected is the exact stdout;
#                         a first line "# args: ..." gives extra options
#   tests/errors/*.events malformed streams: exit 2 and NAME.err is the exact
#                         first stderr line
#   tests/sh/*.sh         shell tests (their ok/FAIL lines, or exit status)
#   the same unit and golden suites again under ASan+UBSan (clang) and a
#   few streams under valgrind, when those tools exist
#   hooks of other areas when present: proofs/run.sh, proofs/bmc-check.sh,
#   fuzz/replay.sh, tests/conformance/check.sh
# Environment: QSCHED_SKIP_SLOW=1 skips proofs, model checking and
# sanitizer builds (for quick local runs; CI never sets it).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
QSCHED="$top/build/qsched"
export QSCHED
pass=0
fail=0
failed_names=""
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); failed_names="$failed_names $1"; echo "FAIL $1${2:+: $2}"; }

# count "ok"/"FAIL" lines of a test program's output
count_lines() { # label file rc
    n_ok=$(grep -c '^ok ' "$2")
    n_fail=$(grep -c '^FAIL ' "$2")
    pass=$((pass + n_ok))
    fail=$((fail + n_fail))
    grep '^FAIL ' "$2" | sed "s|^|[$1] |"
    if [ "$n_fail" -gt 0 ]; then failed_names="$failed_names $1"; fi
    if [ "$3" -ne 0 ] && [ "$n_fail" -eq 0 ]; then bad "$1" "exit $3 without a FAIL line"; tail -5 "$2"; fi
    if [ "$n_ok" -eq 0 ] && [ "$n_fail" -eq 0 ] && [ "$3" -eq 0 ]; then ok; fi
}

run_units() { # builddir cc extra-cflags label
    mkdir -p "$1/tests"
    for src in tests/unit/*.c; do
        [ -f "$src" ] || continue
        name=$(basename "$src" .c)
        if ! $2 -std=c11 -Wall -Wextra -Werror -g $3 -D_POSIX_C_SOURCE=200809L \
             -Isrc -Itests/unit -o "$1/tests/$name" "$src" "$1/libqsched.a" -lm \
             2>"$tmp/cc.err"; then
            bad "$4unit/$name" "does not compile"; cat "$tmp/cc.err"; continue
        fi
        (cd tests/unit && "$1/tests/$name") >"$tmp/u.out" 2>&1
        count_lines "$4unit/$name" "$tmp/u.out" $?
    done
}

run_golden() { # qsched-binary label
    for ev in tests/golden/*.events; do
        [ -f "$ev" ] || continue
        name=$(basename "$ev" .events)
        args=$(sed -n '1s/^# args: *//p' "$ev")
        # shellcheck disable=SC2086
        "$1" $args "$ev" >"$tmp/g.out" 2>"$tmp/g.err"; rc=$?
        if [ $rc -ne 0 ]; then bad "$2golden/$name" "exit $rc: $(head -1 "$tmp/g.err")"; continue; fi
        if cmp -s "$tmp/g.out" "tests/golden/$name.expected"; then ok; else
            bad "$2golden/$name" "trace differs"; diff "tests/golden/$name.expected" "$tmp/g.out" | head -10; fi
    done
}

run_errors() { # qsched-binary label
    for ev in tests/errors/*.events; do
        [ -f "$ev" ] || continue
        name=$(basename "$ev" .events)
        "$1" "$ev" >"$tmp/e.out" 2>"$tmp/e.err"; rc=$?
        want=$(cat "tests/errors/$name.err")
        got=$(head -1 "$tmp/e.err")
        if [ $rc -ne 2 ]; then bad "$2errors/$name" "exit $rc, want 2"; continue; fi
        if [ "$got" != "$want" ]; then bad "$2errors/$name" "stderr '$got', want '$want'"; continue; fi
        # nothing after the bad line may have been processed: the trace
        # printed must equal the trace of the stream cut before that line
        line=$(echo "$got" | sed -n 's/^[^:]*:\([0-9][0-9]*\):.*/\1/p')
        head -n $((line - 1)) "$ev" >"$tmp/prefix.events"
        "$1" "$tmp/prefix.events" >"$tmp/p.out" 2>/dev/null
        if cmp -s "$tmp/e.out" "$tmp/p.out"; then ok; else bad "$2errors/$name" "output beyond the bad line"; fi
    done
}

echo "== unit tests"
run_units "$top/build" "${CC:-cc}" "" ""
echo "== golden traces"
run_golden "$QSCHED" ""
echo "== malformed streams"
run_errors "$QSCHED" ""
echo "== shell tests"
for t in tests/sh/*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    sh "$t" >"$tmp/s.out" 2>&1
    count_lines "sh/$name" "$tmp/s.out" $?
done

if [ "${QSCHED_SKIP_SLOW:-0}" != 1 ]; then
    if command -v clang >/dev/null 2>&1; then
        echo "== ASan+UBSan build (clang)"
        san="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
        if make -s BUILD=build/asan CC=clang OPT="$san" all >"$tmp/asan.log" 2>&1; then
            ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
            export ASAN_OPTIONS UBSAN_OPTIONS
            run_units "$top/build/asan" clang "$san" "asan:"
            run_golden "$top/build/asan/qsched" "asan:"
            run_errors "$top/build/asan/qsched" "asan:"
        else
            bad "asan-build" "$(tail -3 "$tmp/asan.log")"
        fi
    fi
    if command -v valgrind >/dev/null 2>&1; then
        echo "== valgrind"
        for ev in tests/golden/*.events; do
            [ -f "$ev" ] || continue
            name=$(basename "$ev" .events)
            args=$(sed -n '1s/^# args: *//p' "$ev")
            # shellcheck disable=SC2086
            if valgrind -q --leak-check=full --errors-for-leak-kinds=all --error-exitcode=9 \
                 "$QSCHED" $args "$ev" >/dev/null 2>"$tmp/vg.err"; then ok; else
                bad "valgrind/$name" "$(head -3 "$tmp/vg.err")"; fi
        done
    fi
    # tests/postfix/check.sh: differential test against Postfix (issue 14)
    for hook in proofs/run.sh proofs/bmc-check.sh fuzz/replay.sh tests/conformance/check.sh tests/postfix/check.sh; do
        [ -f "$hook" ] || continue
        echo "== $hook"
        sh "$hook" >"$tmp/h.out" 2>&1
        rc=$?
        tail -20 "$tmp/h.out"
        count_lines "$hook" "$tmp/h.out" $rc
    done
fi

[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
