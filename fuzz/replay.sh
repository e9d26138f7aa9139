#!/bin/sh
# fuzz/replay.sh - replays the fuzz corpora and every past crash input as
# regression tests (a hook of tests/run.sh, i.e. `make check`).
#
# Owns: building each harness without a fuzzing engine (fuzz/driver.c's
# main() instead of AFL++/libFuzzer) with the plain compiler ($CC, else
# cc) and, when clang exists, with clang under ASan+UBSan, both with the
# core's -DQSCHED_CROSSCHECK; then running every input set through both:
#   fuzz/seeds/H      hand-made seeds            (H = text, struct)
#   fuzz/corpus/H     the afl-cmin'd corpus
#   fuzz/crashes/H    inputs of fixed findings (regressions)
#   tests/golden, tests/errors, tests/scenarios  event streams (text)
# fuzz/crashes-open/ holds findings not fixed yet and is NOT replayed.
# Prints one "ok NAME (N inputs)" or "FAIL NAME: FILE: reason" line per set
# and build, and exits 1 on any failure.  Builds go to build/fuzz/replay*.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
out=build/fuzz
# the core as the Makefile lists it (CORE_SRC), with the parser and printers
core="$(make -s -p -n 2>/dev/null | sed -n 's/^CORE_SRC *:\{0,1\}= *//p' | head -1) src/events.c src/trace.c"
case $core in src/*) ;; *) echo "FAIL replay: no CORE_SRC in the Makefile"; exit 1;; esac
flags="-std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -g -D_POSIX_C_SOURCE=200809L -DQSCHED_CROSSCHECK -DQS_CONTRACT_CHECKS -Isrc -Ifuzz"
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS UBSAN_OPTIONS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# a set that hangs must not hang `make check`
to=""
command -v timeout >/dev/null 2>&1 && to="timeout 300"

builds=""
build() { # label cc extra-flags
    mkdir -p "$out/$1"
    for h in text struct; do
        # shellcheck disable=SC2086
        if ! $2 $flags $3 -o "$out/$1/fuzz_$h" "fuzz/fuzz_$h.c" fuzz/common.c \
                fuzz/driver.c $core -lm >"$tmp/cc.err" 2>&1; then
            echo "FAIL $1/build-$h: $(head -3 "$tmp/cc.err" | tr '\n' ' ')"
            fail=1
            return 1
        fi
    done
    builds="$builds $1"
}

build replay "${CC:-cc}" "-O1"
if command -v clang >/dev/null 2>&1; then
    build replay-san clang "-O1 $san"
fi

# replay LABEL HARNESS DIR [GLOB]: one ok/FAIL line
replay() {
    files=$(find "$3" -maxdepth 1 -type f -name "${4:-*}" ! -name 'README*' ! -name '.*' | sort)
    [ -n "$files" ] || return 0
    n=$(echo "$files" | wc -l)
    # shellcheck disable=SC2086
    if echo "$files" | xargs $to "$out/$1/fuzz_$2" >"$tmp/r.out" 2>&1; then
        echo "ok $1:$2/$3 ($n inputs)"
        return 0
    fi
    # find the first failing input and its reason
    for f in $files; do
        $to "$out/$1/fuzz_$2" "$f" >"$tmp/one.out" 2>&1
        rc=$?
        if [ $rc -ne 0 ]; then
            why=$(grep -E 'FINDING|ERROR:|runtime error|SUMMARY' "$tmp/one.out" | head -1)
            [ $rc -gt 128 ] && why="${why:-killed by signal $((rc - 128))}"
            echo "FAIL $1:$2/$3: $f: ${why:-exit status $rc}"
            fail=1
            return 1
        fi
    done
    echo "FAIL $1:$2/$3: the set fails but no single input does: $(tail -2 "$tmp/r.out" | tr '\n' ' ')"
    fail=1
}

for b in $builds; do
    for h in text struct; do
        for d in fuzz/seeds/$h fuzz/corpus/$h fuzz/crashes/$h; do
            [ -d "$d" ] && replay "$b" $h "$d"
        done
    done
    for d in tests/golden tests/errors tests/scenarios; do
        [ -d "$d" ] && replay "$b" text "$d" '*.events'
    done
done
exit $fail
