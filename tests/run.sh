#!/bin/sh
# tests/run.sh - the test runner behind `make check` and `make check-all`.
#
# Owns: running every suite in a fixed order, counting results, a progress
# line per suite with its time, and the closing line "N passed, N failed".
#
# usage: sh tests/run.sh [--quick | --heavy] [SUITE...]
#   (none)    make check: the quick suites, the sanitizer build of the unit,
#             golden and error suites, a valgrind subset, then the hooks of
#             level "check" (conformance, fuzz replay, proofs replay, the
#             bounded Postfix differential run, the bounded model checker).
#             About 8 to 10 minutes on 2 shared cores (not the 5 it once
#             aimed at), no timing-dependent test.
#   --quick   the quick suites only (also QSCHED_SKIP_SLOW=1): ~10 s
#   --heavy   make check-all: the hooks of level "heavy" (full proofs, all
#             mutants, the model checker's full standard run, a short
#             differential fuzz, the fuzz smoke)
#   SUITE...  only the suites so named (as the "==" lines print them)
#
# Suites:
#   unit     tests/unit/*.c: C unit tests ("ok NAME" / "FAIL NAME: ...")
#   golden   tests/golden/*.events: NAME.expected is the exact stdout; a
#            first line "# args: ..." gives extra options
#   errors   tests/errors/*.events: exit 2, NAME.err is the exact first
#            stderr line, and the trace is that of the lines before
#   sh       tests/sh/*.sh: shell tests (ok/FAIL/SKIP lines, exit status);
#            those with a line "# run.sh: slow" are left out of --quick
#   asan     unit, golden and errors again, built by clang with
#            ASan+UBSan
#   valgrind the largest golden stream of each family, with every output
#            option, under valgrind (memcheck, leaks)
#   hooks    the table in `hooks` below: other areas' suites.
# A hook is a script of its area printing "ok NAME" / "FAIL NAME: why" /
# "SKIP NAME: why" lines (other lines are shown as progress), exiting
# non-zero on failure.  It gets QSCHED (the qsched binary), CI, BUILD.
# To add one: one line in the table.  A "slot" line names a hook that its
# area has not delivered yet: it is announced, not run.
#
# Skips: under CI=true a suite that cannot run (a tool missing: clang,
# valgrind, frama-c, AFL++ ...; a "SKIP" line; a hook saying "skipped" or
# "skipping") is a FAILURE.  Elsewhere it is counted and shown as skipped,
# never silently.  tests/deps.sh installs the tools (make check runs it).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
QSCHED="$top/build/qsched"
BUILD=build
CI=${CI:-false}
export QSCHED BUILD CI
mode=check
case ${1:-} in
--quick) mode=quick; shift ;;
--heavy) mode=heavy; shift ;;
esac
if [ "$mode" = check ] && [ "${QSCHED_SKIP_SLOW:-0}" = 1 ]; then mode=quick; fi
only=" $* "
pass=0
fail=0
skip=0
failed_names=""
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The suites' table of hooks: NAME LEVEL KIND FILE COMMAND...
#   LEVEL  check (make check) or heavy (make check-all)
#   KIND   run: FILE must exist; slot: run when FILE exists, else announced
hooks() {
    cat <<'EOF'
conformance     check run  tests/conformance/check.sh sh tests/conformance/check.sh
fuzz-replay     check run  fuzz/replay.sh             sh fuzz/replay.sh
proofs-replay   check slot proofs/replay.sh           sh proofs/replay.sh
postfix-diff    check slot tests/postfix/check.sh     sh tests/postfix/check.sh
bmc             check run  proofs/bmc-check.sh        BMC_FLAGS="--max-states 10000 --verbose" sh proofs/bmc-check.sh
proofs          heavy run  proofs/run.sh              PROOFS_REQUIRE=1 sh proofs/run.sh proofs
proofs-mutants  heavy run  proofs/run.sh              PROOFS_REQUIRE=1 sh proofs/run.sh mutants
replay-keys     heavy run  proofs/replay-test.sh      sh proofs/replay-test.sh
bmc-full        heavy run  proofs/bmc-check.sh        BMC_FLAGS=--verbose sh proofs/bmc-check.sh
bmc-mutants     heavy run  proofs/bmc/mutants.sh      sh proofs/bmc/mutants.sh
postfix-fuzz    heavy slot tests/postfix/check-all.sh sh tests/postfix/check-all.sh
fuzz-smoke      heavy run  fuzz/fuzz.mk               make -s --no-print-directory fuzz-smoke
EOF
}
# the slots: which issue delivers them, what they run
#   proofs-replay  issue 15: replay of the cached WP/why3 results, no prover (proofs/replay.sh)
#   postfix-diff   issue 14: a bounded differential run against Postfix
#   postfix-fuzz   issue 14: a short differential fuzz run against Postfix

# ---- counting and progress ----

now() { date +%s.%N 2>/dev/null | sed 's/N$/0/'; }
# CPU seconds (user + system) used so far by the finished child processes
# (`times` must run in this shell, not in a $(...) subshell: cpu_now sets
# $cpu)
cpu_now() {
    times >"$tmp/times"
    cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } printf "%.1f", n }' "$tmp/times")
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t_all=$(now)

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); failed_names="$failed_names $1"; echo "FAIL $1${2:+: $2}"; }
# skipped NAME WHY: a suite that cannot run; a failure under CI=true
skipped() {
    if [ "$CI" = true ]; then
        bad "$1" "cannot run under CI=true: $2"
    else
        skip=$((skip + 1)); echo "SKIP $1: $2"
    fi
}
wanted() { [ "$only" = "  " ] || case $only in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# begin NAME / end NAME: the "==" line and the progress line of a suite
begin() {
    cpu_now
    s_name=$1 s_pass=$pass s_fail=$fail s_skip=$skip s_t=$(now) s_cpu=$cpu
    echo "== $1"
}
end() {
    t=$(now)
    cpu_now
    extra=""
    [ $((skip - s_skip)) -gt 0 ] && extra=", $((skip - s_skip)) skipped"
    echo "-- $s_name: $((pass - s_pass)) passed, $((fail - s_fail)) failed$extra in $(secs "$s_t" "$t")s, cpu $(secs "$s_cpu" "$cpu")s (total $(secs "$t_all" "$t")s)"
}

# count_lines LABEL FILE RC [quiet]: the ok/FAIL/SKIP lines of a program's
# output; FAIL lines are printed unless quiet (a hook showed them already)
count_lines() {
    n_ok=$(grep -c '^ok ' "$2")
    n_fail=$(grep -c '^FAIL ' "$2")
    pass=$((pass + n_ok))
    fail=$((fail + n_fail))
    [ -n "${4:-}" ] || grep '^FAIL ' "$2" | sed "s|^|[$1] |"
    if [ "$n_fail" -gt 0 ]; then failed_names="$failed_names $1"; fi
    # explicit SKIP lines, and the older "...: skipped" / "skipping" ones
    grep -E '^SKIP |: skipped|[Ss]kipping' "$2" >"$tmp/skips"
    while IFS= read -r l; do skipped "$1" "$l"; done <"$tmp/skips"
    if [ "$3" -ne 0 ] && [ "$n_fail" -eq 0 ]; then bad "$1" "exit $3 without a FAIL line"; tail -5 "$2"; fi
    if [ "$n_ok" -eq 0 ] && [ "$n_fail" -eq 0 ] && [ "$3" -eq 0 ] && [ ! -s "$tmp/skips" ]; then ok; fi
}

# ---- the suites ----

run_units() { # builddir cc extra-cflags label
    mkdir -p "$1/tests"
    for src in tests/unit/*.c; do
        [ -f "$src" ] || continue
        name=$(basename "$src" .c)
        # shellcheck disable=SC2086
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

# asan_runner QSCHED: `qsched conformance` itself under the sanitizers, on
# the hand-written vectors, against itself (all pass) and against an
# adapter that breaks every second delivery (reports, TAP, JUnit written)
asan_runner() {
    printf '#!/bin/sh\n"%s" "$@" | sed "1,/^deliver D2 /s/^deliver D2 \\(.*\\) 1$/deliver D2 \\1 2/"\n' \
        "$1" >"$tmp/broken"
    chmod +x "$tmp/broken"
    "$1" conformance --impl "$1" -q tests/conformance/hand/*.events >"$tmp/ar.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && ! grep -q 'Sanitizer\|runtime error' "$tmp/ar.out"; then ok; else
        bad asan:conformance-runner "exit $rc: $(grep -m1 'Sanitizer\|runtime error\|FAIL' "$tmp/ar.out")"; fi
    "$1" conformance --impl "$tmp/broken" --tap --junit "$tmp/ar.xml" \
        tests/conformance/hand/*.events >"$tmp/ar.out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && [ -s "$tmp/ar.xml" ] && ! grep -q 'Sanitizer\|runtime error' "$tmp/ar.out"; then ok; else
        bad asan:conformance-runner-failures "exit $rc: $(grep -m1 'Sanitizer\|runtime error' "$tmp/ar.out")"; fi
}

# valgrind_subset: the largest golden stream of each family (the name up
# to its first "-": con, mem, pre, demo, readme), with --explain --stats
# --check-invariants, in text and in JSON Lines: most of the code per
# process, each family's biggest state.
valgrind_subset() {
    for ev in tests/golden/*.events; do
        name=$(basename "$ev" .events)
        echo "${name%%-*} $(wc -c <"$ev") $ev"
    done | sort -k1,1 -k2,2nr | awk '!seen[$1]++ { print $3 }' >"$tmp/vg.list"
    while read -r ev; do
        name=$(basename "$ev" .events)
        args=$(sed -n '1s/^# args: *//p' "$ev")
        for fmt in text jsonl; do
            # shellcheck disable=SC2086
            if valgrind -q --leak-check=full --errors-for-leak-kinds=all \
                 --error-exitcode=9 "$QSCHED" $args --explain --stats \
                 --check-invariants --format $fmt "$ev" >/dev/null 2>"$tmp/vg.err"; then
                ok
            else
                bad "valgrind/$name/$fmt" "$(head -3 "$tmp/vg.err")"
            fi
        done
    done <"$tmp/vg.list"
}

# run_hook NAME KIND FILE COMMAND: one suite of another area, its output
# streamed (all but the "ok" lines, indented) so that long runs show
# progress
run_hook() {
    name=$1 kind=$2 file=$3
    shift 3
    if [ ! -f "$file" ]; then
        if [ "$kind" = slot ]; then
            echo "-- $name: slot empty ($file is not in the tree yet)"
        else
            begin "$name"; bad "$name" "$file missing"; end
        fi
        return
    fi
    begin "$name"
    { sh -c "$*"; echo $? >"$tmp/h.rc"; } 2>&1 | tee "$tmp/h.out" |
        grep --line-buffered -v '^ok ' | sed -u 's/^/   /'
    count_lines "$name" "$tmp/h.out" "$(cat "$tmp/h.rc")" quiet
    end
}

if [ "$mode" != heavy ]; then
    if wanted unit; then begin unit; run_units "$top/build" "${CC:-cc}" "" ""; end; fi
    if wanted golden; then begin golden; run_golden "$QSCHED" ""; end; fi
    if wanted errors; then begin errors; run_errors "$QSCHED" ""; end; fi
    if wanted sh; then
        begin sh
        for t in tests/sh/*.sh; do
            [ -f "$t" ] || continue
            name=$(basename "$t" .sh)
            if [ "$mode" = quick ] && grep -q '^# run.sh: slow' "$t"; then
                echo "   sh/$name: not in --quick (a slow test)"; continue
            fi
            t0=$(now)
            sh "$t" >"$tmp/s.out" 2>&1
            count_lines "sh/$name" "$tmp/s.out" $?
            echo "   sh/$name $(secs "$t0" "$(now)")s"
        done
        end
    fi
fi

if [ "$mode" = check ]; then
    if wanted asan; then
        begin asan
        if command -v clang >/dev/null 2>&1; then
            # -DQS_CONTRACT_CHECKS: every kernel and proved helper checks its
            # ACSL contract at run time (src/kernels_rtc.h, src/X_rtc.h;
            # proofs/README.md "Run-time checks")
            san="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -DQS_CONTRACT_CHECKS"
            if make -s BUILD=build/asan CC=clang OPT="$san" build/asan/qsched \
                 build/asan/libqsched.a >"$tmp/asan.log" 2>&1; then
                ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
                export ASAN_OPTIONS UBSAN_OPTIONS
                run_units "$top/build/asan" clang "$san" "asan:"
                run_golden "$top/build/asan/qsched" "asan:"
                run_errors "$top/build/asan/qsched" "asan:"
                asan_runner "$top/build/asan/qsched"
                unset ASAN_OPTIONS UBSAN_OPTIONS
            else
                bad "asan-build" "$(tail -3 "$tmp/asan.log")"
            fi
        else
            skipped asan "clang not installed"
        fi
        end
    fi
    if wanted valgrind; then
        begin valgrind
        if command -v valgrind >/dev/null 2>&1; then valgrind_subset; else
            skipped valgrind "valgrind not installed"; fi
        end
    fi
fi

if [ "$mode" != quick ]; then
    hooks >"$tmp/hooks"
    while read -r name level kind file cmd; do
        [ "$level" = "$mode" ] || continue
        wanted "$name" || continue
        run_hook "$name" "$kind" "$file" "$cmd" </dev/null
    done <"$tmp/hooks"
fi

extra=""
[ "$skip" -gt 0 ] && extra=" ($skip skipped)"
cpu_now
echo "-- $mode: $(secs "$t_all" "$(now)")s in all, cpu ${cpu}s$extra"
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
