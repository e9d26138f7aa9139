#!/bin/sh
# proofs/run.sh - runs the Frama-C WP proofs of the core (issue 6).
#
# Owns: the exact Frama-C command lines of `make proofs` and
# `make proofs-mutants`, and the hook that `make check` calls (tests/run.sh
# runs every proofs/run.sh it finds).  See proofs/README.md for what is
# proved and why these command lines look the way they do.
#
# Usage:
#   sh proofs/run.sh            prove everything; exit 1 if any goal fails
#   sh proofs/run.sh mutants    check that every mutant of proofs/mutants/
#                               has at least one unproved goal
# Environment:
#   BUILD           build directory (default build); output in BUILD/proofs
#   CC              C compiler for the syntax checks (default cc)
#   PROOFS_REQUIRE  1 = fail (instead of skip) when frama-c is missing;
#                   `make proofs` sets it, `make check` does not
#   PROOFS_TIMEOUT  per-goal prover timeout in seconds (default 20, and 10
#                   for the mutants)
#   PROOFS_JOBS     parallel Frama-C processes (default 2)
# Output: one "ok NAME" / "FAIL NAME: why" line per function (or mutant),
# then "Proved goals: N / N" and the run time.  Logs in BUILD/proofs/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
mode=${1:-proofs}
BUILD=${BUILD:-build}
CC=${CC:-cc}
# Per-goal prover timeout.  A proved goal takes at most about 3 s here, so
# the timeout only costs time on goals that fail: 20 s leaves room for a
# loaded machine.  The mutants' false goals fail at any timeout; 10 s keeps
# that run short.
if [ "$mode" = mutants ]; then TIMEOUT=${PROOFS_TIMEOUT:-10}; else TIMEOUT=${PROOFS_TIMEOUT:-20}; fi
JOBS=${PROOFS_JOBS:-2}

if ! command -v frama-c >/dev/null 2>&1; then
    if [ "${PROOFS_REQUIRE:-0}" = 1 ]; then
        echo "FAIL proofs: frama-c not installed (apt-get install frama-c-base why3 z3 cvc4 cvc5)"
        exit 1
    fi
    echo "proofs: skipped (frama-c not installed)"
    exit 0
fi
for tool in why3 z3 cvc5; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "FAIL proofs: $tool not installed (apt-get install why3 z3 cvc4 cvc5)"
        exit 1
    fi
done

case $BUILD in /*) out=$BUILD/proofs ;; *) out=$top/$BUILD/proofs ;; esac
mkdir -p "$out" || exit 2
start=$(date +%s)

# A private Why3 configuration (provers, cvc5 driver, memory limit).
if ! sh proofs/why3/setup.sh "$out/why3" >"$out/why3-setup.log" 2>&1; then
    echo "FAIL proofs: why3 configuration failed (see $out/why3-setup.log)"
    cat "$out/why3-setup.log"
    exit 1
fi
WHY3CONFIG=$out/why3/why3.conf
export WHY3CONFIG
grep -q '^name = "CVC5"' "$WHY3CONFIG" || {
    echo "FAIL proofs: cvc5 not registered with why3 (see $out/why3-setup.log)"; exit 1; }

# Which prover for which goals.  cvc5 is the one that decides the IEEE
# double goals (bit-precise floating point); z3 is quicker on the integer
# and real-number goals, where both are tried and WP keeps the first answer.
# Running z3 beside cvc5 on double goals only burns CPU (it cannot decide
# them), so the functions that compute with doubles get cvc5 alone.
# (Debian's cvc4 has no floating point and adds nothing z3 and cvc5 do not
# prove; proofs/README.md.)
FLOAT_KERNELS=qs_success_step,qs_failure_step,qs_cohort_dead
FLOAT_MODELS=qs_model_after_success,qs_model_after_failure
# The two kernels that divide doubles are proved with WP's real-number
# model for floating point (proofs/README.md, "Floating point").
REAL_KERNELS=qs_fb_value,qs_cohort_add
# The nonlinear integer and real goals (products of two unknowns) take a
# few seconds alone and may need more under load: these get 3x the time.
SLOW_FCTS="qs_score_better qs_score_cannot_improve qs_model_fitting_charge"
WP_OPTS="-wp -wp-rte -wp-timeout $TIMEOUT -wp-par 2"

# wp_run LOG FILE PROVERS FRAMA-C-OPTIONS...: one Frama-C WP run.
wp_run() {
    log=$1 file=$2 provers=$3
    shift 3
    # -wp-fct-timeout only accepts functions that FILE defines.
    slow=$(fnames "$file" | while read -r f; do
        case " $SLOW_FCTS " in *" $f "*) printf '%s:%s,' "$f" $((TIMEOUT * 3)) ;; esac
    done | sed 's/,$//')
    t0=$(date +%s)
    # shellcheck disable=SC2086
    frama-c "$file" $WP_OPTS ${slow:+-wp-fct-timeout "$slow"} \
        -wp-prover "$provers" "$@" >"$log" 2>&1 ||
        echo "frama-c exit $?" >>"$log"
    echo "wp_run: $(basename "$log" .log) $(( $(date +%s) - t0 ))s" >>"$log"
}

# fnames FILE: the functions defined (or declared) at top level in FILE.
fnames() {
    sed -n 's/^[a-z][a-z ]*[ *]\(qs_[a-z0-9_]*\)(.*/\1/p' "$1" | sort -u
}

# syntax_check FILE...: the files compile as C11 with the project's warnings
# (the models include src/kernels.c, so this also checks the kernels).
syntax_check() {
    "$CC" -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -D_POSIX_C_SOURCE=200809L -Isrc \
        -fsyntax-only "$@"
}

elapsed() { echo "proofs: $(( $(date +%s) - start ))s"; }

if [ "$mode" = proofs ]; then
    if ! syntax_check -Werror proofs/model.c >"$out/cc.log" 2>&1; then
        echo "FAIL proofs/model.c: does not compile"; cat "$out/cc.log"; exit 1
    fi
    { fnames src/kernels.c; fnames proofs/model.c; echo lemmas; } >"$out/functions"
    # Smoke tests: WP also checks that no precondition or behavior
    # assumption is contradictory and that no code is dead (summary.awk).
    WP_OPTS="$WP_OPTS -wp-smoke-tests"
    kernels=$(fnames src/kernels.c | tr '\n' ',' | sed 's/,$//')
    models=$(fnames proofs/model.c | tr '\n' ',' | sed 's/,$//')
    rm -f "$out"/wp-*.log
    # Two jobs of about equal length (about 80 s each on 2 cores).
    (
        wp_run "$out/wp-float-kernels.log" src/kernels.c CVC5 -wp-fct "$FLOAT_KERNELS"
        wp_run "$out/wp-real-kernels.log" src/kernels.c z3,CVC5 \
            -wp-model Typed+real -wp-fct "$REAL_KERNELS"
        wp_run "$out/wp-lemmas.log" src/kernels.c z3,CVC5 -wp-prop @lemma
        wp_run "$out/wp-int-models.log" proofs/model.c z3,CVC5 \
            -wp-fct "$models" -wp-skip-fct "$FLOAT_MODELS"
    ) &
    pa=$!
    if [ "$JOBS" -lt 2 ]; then wait "$pa"; fi
    wp_run "$out/wp-int-kernels.log" src/kernels.c z3,CVC5 \
        -wp-fct "$kernels" -wp-skip-fct "$FLOAT_KERNELS,$REAL_KERNELS"
    wp_run "$out/wp-float-models.log" proofs/model.c CVC5 -wp-fct "$FLOAT_MODELS"
    wait "$pa"
    logs="$out/wp-float-kernels.log $out/wp-real-kernels.log $out/wp-lemmas.log
          $out/wp-int-models.log $out/wp-int-kernels.log $out/wp-float-models.log"
    rc=0
    for log in $logs; do
        if grep -q 'User Error\|frama-c exit\|annot-error\|aborted' "$log"; then
            echo "FAIL proofs/$(basename "$log" .log): Frama-C error"
            grep 'Error\|error\|exit' "$log" | head -5
            rc=1
        fi
    done
    # shellcheck disable=SC2086
    awk -f proofs/summary.awk "$out/functions" $logs | tee "$out/summary.txt"
    [ "$(tail -1 "$out/summary.txt" | sed 's/Proved goals: *\([0-9]*\) *\/ *\([0-9]*\)/\1 \2/' |
        awk '{ print ($1 == $2 && $2 > 0) }')" = 1 ] || rc=1
    grep -q '^FAIL' "$out/summary.txt" && rc=1
    elapsed
    exit $rc
fi

if [ "$mode" = mutants ]; then
    # Each proofs/mutants/NAME.sed turns src/kernels.c into a mutant: one
    # code change, the same contracts.  The mutant is killed when WP fails to
    # prove at least one goal of the mutated function.
    mkdir -p "$out/mutants"
    rm -f "$out"/mutants/*
    # acsl FILE: the ACSL annotations of FILE (to check they are unchanged).
    acsl() { awk '/\/\*@/ { on = 1 } on { print } /\*\// { on = 0 }' "$1"; }
    acsl src/kernels.c >"$out/mutants/contracts.orig"
    run_mutant() { # NAME: prints one ok/FAIL line
        name=$1
        spec=proofs/mutants/$name.sed
        m=$out/mutants/$name.c
        fn=$(sed -n 's/^# function: *//p' "$spec")
        sed -f "$spec" src/kernels.c >"$m"
        if cmp -s "$m" src/kernels.c; then
            echo "FAIL proofs/mutant/$name: the edit no longer applies to src/kernels.c"; return
        fi
        if ! acsl "$m" | cmp -s - "$out/mutants/contracts.orig"; then
            echo "FAIL proofs/mutant/$name: the edit touches a contract"; return
        fi
        if ! syntax_check -Isrc "$m" >"$m.cc" 2>&1; then
            echo "FAIL proofs/mutant/$name: does not compile"; return
        fi
        # The same model and provers as the real proof of that function.
        case ",$FLOAT_KERNELS," in *",$fn,"*) provers=CVC5 ;; *) provers=z3,CVC5 ;; esac
        case ",$REAL_KERNELS," in
            *",$fn,"*) wp_run "$m.log" "$m" "$provers" -cpp-extra-args="-I$top/src" \
                           -wp-model Typed+real -wp-fct "$fn" ;;
            *) wp_run "$m.log" "$m" "$provers" -cpp-extra-args="-I$top/src" -wp-fct "$fn" ;;
        esac
        echo "$fn" >"$m.fn"
        awk -f proofs/summary.awk "$m.fn" "$m.log" >"$m.sum"
        res=$(tail -1 "$m.sum")
        failed=$(sed -n 's/^FAIL proofs\/wp\/[^:]*: [0-9\/]* goals, unproved: *//p' "$m.sum")
        # Every goal named on the "# expect:" line must be among the
        # unproved ones, so that a mutant is not "killed" by a mere timeout
        # elsewhere: the contract meant to catch it must catch it.
        missed=""
        # shellcheck disable=SC2013
        for e in $(sed -n 's/^# expect: *//p' "$spec"); do
            case " $failed " in *"_$e "*) ;; *) missed="$missed $e" ;; esac
        done
        if grep -q 'User Error\|annot-error\|aborted' "$m.log"; then
            echo "FAIL proofs/mutant/$name: Frama-C error (see $m.log)"
        elif [ -z "$failed" ]; then
            echo "FAIL proofs/mutant/$name: survived ($res)"
        elif [ -n "$missed" ]; then
            echo "FAIL proofs/mutant/$name: expected unproved:$missed; unproved: $failed"
        else
            echo "ok proofs/mutant/$name: killed ($res) by $failed"
        fi
    }
    names=$(for f in proofs/mutants/*.sed; do basename "$f" .sed; done)
    # Run JOBS mutants at a time; each writes its line to its own file.
    # shellcheck disable=SC2086
    set -- $names
    while [ $# -gt 0 ]; do
        i=0
        while [ $# -gt 0 ] && [ "$i" -lt "$JOBS" ]; do
            (run_mutant "$1" >"$out/mutants/$1.line") &
            shift; i=$((i + 1))
        done
        wait
    done
    rc=0
    for n in $names; do
        cat "$out/mutants/$n.line"
        grep -q '^ok ' "$out/mutants/$n.line" || rc=1
    done
    # shellcheck disable=SC2086
    echo "mutants: $(grep -l '^ok ' "$out"/mutants/*.line | wc -l | tr -d ' ') of $(echo $names | wc -w | tr -d ' ') killed"
    elapsed
    exit $rc
fi

echo "usage: sh proofs/run.sh [proofs|mutants]" >&2
exit 2
