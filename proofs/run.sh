#!/bin/sh
# proofs/run.sh - runs the Frama-C WP proofs of the core (issues 6 and 15).
#
# Owns: the exact Frama-C command lines of `make proofs`, `make
# proofs-cache`, `make proofs-mutants` and of the replay that `make check`
# runs, and the committed cache of prover results (proofs/wp-cache/).  See
# proofs/README.md for what is proved and why the command lines look the
# way they do.
#
# Usage:
#   sh proofs/run.sh check      make check (proofs/replay.sh): replay the
#                               committed prover results (proofs/wp-cache/)
#                               and never start a prover; exit 1, naming
#                               the functions, when a goal is not in the
#                               cache (then: make proofs-cache, commit)
#   sh proofs/run.sh [replay]   the same, but functions whose goals changed
#                               are re-proved with the provers
#   sh proofs/run.sh proofs     make proofs: prove everything from scratch
#                               (no cache); exit 1 if any goal fails
#   sh proofs/run.sh refresh    make proofs-cache: bring proofs/wp-cache/ up
#                               to date with the sources (provers run only
#                               for goals not in it); commit the result
#   sh proofs/run.sh mutants    check that every mutant of proofs/mutants/
#                               has the unproved goals its "# expect:" names
# Environment:
#   BUILD           build directory (default build); output in BUILD/proofs
#   CC              C compiler for the syntax checks (default cc)
#   PROOFS_REQUIRE  1 = fail (instead of skip) when frama-c is missing;
#                   the make targets set it, `make check` does not
#   PROOFS_TIMEOUT  per-goal prover timeout in seconds (default 20, and 10
#                   for the mutants)
#   PROOFS_JOBS     parallel Frama-C processes (default 2)
# Output: one "ok NAME" / "FAIL NAME: why" line per function (or mutant),
# then "Proved goals: N / N" and the run time.  Logs in BUILD/proofs/.
#
# Why the replay cannot be flaky: it runs Frama-C with `-wp-cache offline`,
# which generates every goal from the sources as they are and looks its
# prover result up by a hash of the goal's text, the prover and its version
# (WP's cache), never starting a prover: no timeout can be raced.  A goal
# whose text changed has no entry and comes back unproved; only then are
# the functions concerned proved with the provers.  The number of cache
# lookups that hit and miss is a deterministic function of the sources and
# the committed cache, and is recorded in each proofs/wp-cache/RUN.txt:
# any difference means that some goal (possibly a smoke test, whose offline
# "pass" would otherwise mean nothing) changed, and that run is re-proved.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
mode=${1:-replay}
BUILD=${BUILD:-build}
CC=${CC:-cc}
# Per-goal prover timeout.  A proved goal takes at most about 4 s here, so
# the timeout only costs time on goals that fail: 20 s leaves room for a
# loaded machine.  The mutants' false goals fail at any timeout, and a
# mutant is killed only by the goals its "# expect:" line names (a true
# goal that times out elsewhere kills nothing), so their run, which is
# mostly the provers waiting out those false goals, takes 5 s (10 s up to
# session 23: 16 minutes of CI for the 47 mutants).
if [ "$mode" = mutants ]; then TIMEOUT=${PROOFS_TIMEOUT:-5}; else TIMEOUT=${PROOFS_TIMEOUT:-20}; fi
JOBS=${PROOFS_JOBS:-2}
CACHE=proofs/wp-cache

if ! command -v frama-c >/dev/null 2>&1; then
    if [ "${PROOFS_REQUIRE:-0}" = 1 ]; then
        echo "FAIL proofs: frama-c not installed (apt-get install frama-c-base why3 z3 cvc4 cvc5)"
        exit 1
    fi
    echo "proofs: skipped (frama-c not installed)"
    exit 0
fi
for tool in why3 z3 cvc4 cvc5; do
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
grep -q '^name = "CVC4"' "$WHY3CONFIG" || {
    echo "FAIL proofs: cvc4 not registered with why3 (see $out/why3-setup.log)"; exit 1; }

# contracted FILE: the functions of FILE that carry an ACSL contract (a
# /*@ ... */ block at the start of a line, right before the definition,
# or, in src/X_contracts.h, right before the prototype of a helper of
# src/X.c).  Every one of them is proved: a contract cannot be added
# without a proof.
contracted() {
    awk -f proofs/contracted.awk "$1"
}
# A function contract that no function follows (a comment slipped in
# between) would leave its function out of every run without a word.
awk -f proofs/contracted.awk src/*.c src/*_contracts.h proofs/wp/*.c >/dev/null ||
    { echo "FAIL proofs: a contract is not followed by its function (above)"; exit 1; }
list() { tr '\n' ',' | sed 's/,$//'; }

# Which prover for which goals.  cvc5 is the one that decides the IEEE
# double goals (bit-precise floating point); z3 is quicker on the integer
# and real-number goals, where both are tried and WP keeps the first answer.
# Running z3 beside cvc5 on double goals only burns CPU (it cannot decide
# them), so the kernels that compute with doubles get cvc5 alone.  (Debian's
# cvc4 has no floating point; it is added to one run only, core-preempt_scan
# below, for a nonlinear goal where z3's search is fragile; proofs/README.md.)
FLOAT_KERNELS=qs_success_step,qs_failure_step,qs_cohort_dead
# The two kernels that divide doubles are proved with WP's real-number
# model for floating point (proofs/README.md, "Floating point").
REAL_KERNELS=qs_fb_value,qs_cohort_add
# The nonlinear integer and real goals (products of two unknowns) take a
# few seconds alone and may need more under load: these get 3x the time.
SLOW_FCTS="qs_score_better qs_score_cannot_improve candidate_consider cix_consider
           job_candidate_scan job_stack_push proof_charge_select_refund"
# proofs/why3/qsched.driver binds the shared slot arithmetic of kernels.h
# (axiomatic QsSlots) to its Why3 definitions (proofs/why3/qsched/).
WP_OPTS="-wp -wp-rte -wp-par 2 -wp-msg-key=-pedantic-assigns
         -wp-driver $top/proofs/why3/qsched.driver"

# The runs.  One line each: NAME FILE PROVERS MODEL FUNCTIONS [extra options]
# FUNCTIONS is a comma-separated list, or @lemma for the lemmas.  The
# harnesses proofs/wp/X.c include src/kernels.c and src/X.c, so that the
# contracted functions of the core are proved as they are compiled (with
# the kernels' contracts at every call) plus the compositions the harness
# itself states.
runs() {
    kernels=$(contracted src/kernels.c | grep -v -x -e qs_success_step \
        -e qs_failure_step -e qs_cohort_dead -e qs_fb_value -e qs_cohort_add | list)
    echo "float-kernels src/kernels.c CVC5 Typed $FLOAT_KERNELS"
    echo "real-kernels src/kernels.c z3,CVC5 Typed+real $REAL_KERNELS"
    echo "int-kernels src/kernels.c z3,CVC5 Typed $kernels"
    echo "lemmas proofs/wp/preempt.c z3,CVC5 Typed @lemma"
    for h in proofs/wp/*.c; do
        n=$(basename "$h" .c)
        f=$( { [ ! -f "src/$n.c" ] || contracted "src/$n.c"
               [ ! -f "src/${n}_contracts.h" ] || contracted "src/${n}_contracts.h"
               contracted "$h"; } | list)
        # preempt_scan.c: candidate_consider's ensures taken (a product of
        # two unknowns on each side) is proved by z3 in 2 s in one context
        # and not within 60 s in another that differs only in struct types
        # the goal never reads (qs_sched's in-flight table, issue 16);
        # cvc4 proves it in about 1 s in both, so this run has all three.
        p=z3,CVC5
        [ "$n" = preempt_scan ] && p=z3,CVC4,CVC5
        [ -n "$f" ] && echo "core-$n $h $p Typed $f"
    done
}

# wp_run LOG FILE PROVERS MODEL FUNCTIONS CACHE-OPTIONS... [-- EXTRA...]:
# one Frama-C WP run.
wp_run() {
    log=$1 file=$2 provers=$3 model=$4 fcts=$5
    shift 5
    if [ "$fcts" = @lemma ]; then
        sel="-wp-prop @lemma"
    else
        sel="-wp-fct $fcts"
        # -wp-fct-timeout only accepts functions that the run proves.
        slow=$(echo "$fcts" | tr ',' '\n' | while read -r f; do
            case " $(echo $SLOW_FCTS) " in *" $f "*) printf '%s:%s,' "$f" $((TIMEOUT * 3)) ;; esac
        done | sed 's/,$//')
        [ -n "$slow" ] && sel="$sel -wp-fct-timeout $slow"
    fi
    t0=$(date +%s)
    # shellcheck disable=SC2086
    case $file in
        proofs/wp/* | */proofs/wp/*) inc=$(dirname "$file")/../../src ;;
        *) inc=$(dirname "$file") ;;
    esac
    frama-c "$file" -cpp-extra-args="-I$inc" $WP_OPTS \
        -wp-timeout "$TIMEOUT" -wp-model "$model" $sel \
        -wp-prover "$provers" "$@" >"$log" 2>&1 ||
        echo "frama-c exit $?" >>"$log"
    echo "wp_run: $(basename "$log" .log) $(( $(date +%s) - t0 ))s" >>"$log"
}

# syntax_check FILE...: the files compile as C11 with the project's warnings.
syntax_check() {
    "$CC" -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -D_POSIX_C_SOURCE=200809L -Isrc \
        -fsyntax-only "$@"
}

# frama_errors LOG: 0 when LOG shows a Frama-C error (printed as FAIL).
frama_errors() {
    if grep -q 'User Error\|frama-c exit\|annot-error\|aborted' "$1"; then
        echo "FAIL proofs/$(basename "$1" .log): Frama-C error"
        grep 'Error\|error\|exit' "$1" | head -5
        return 0
    fi
    return 1
}

# lookups LOG: WP's cache line of LOG as "found:N failed:M".
lookups() {
    sed -n 's/^\[wp\] \[Cache\] //p' "$1" | tr -d ',' | tr ' ' '\n' |
        awk -F: '{ v[$1] = $2 } END { printf "found:%d failed:%d", v["found"], v["failed"] }'
}

# unpack NAME DIR: the committed cache of run NAME as WP cache files in DIR.
unpack() {
    rm -rf "$2"
    mkdir -p "$2"
    [ -f "$CACHE/$1.txt" ] || return 0
    grep -v '^#' "$CACHE/$1.txt" | while read -r hash json; do
        printf '%s\n' "$json" >"$2/$hash.json"
    done
}

# The replay key (issue 15, item 6: "make check replays unchanged proofs in
# seconds").  Generating the goals is what makes a replay slow (a minute
# of Frama-C on 2 cores), so make proofs-cache also records, per run, the
# outcome of its offline replay (proofs/wp-cache/NAME.result: every goal's
# and smoke test's status) under a key: a hash of every input that
# outcome depends on.  When the key is unchanged, make check prints the
# recorded outcome without starting Frama-C; when anything differs, the
# run is replayed as before (goals generated, looked up in the cache,
# failing when one is missing).  The inputs hashed:
#   - the run itself: its line of $out/runs (harness, provers, model, the
#     functions) and the per-goal timeout;
#   - the bytes of every file that Frama-C's preprocessor reads for the
#     harness, found the way Frama-C preprocesses it (its own libc; the
#     core's sources and headers, contracts, ACSL definitions included):
#     a change to a proved function, a contract or a logic definition, or
#     to anything else in those files, changes the key;
#   - Frama-C's libc and WP's theories through Frama-C's version, and the
#     versions of why3, z3 and cvc5;
#   - this script (the command lines), proofs/summary.awk (the reading of
#     the results), the Why3 driver and theories of the shared slot
#     arithmetic, and the run's committed prover results $CACHE/NAME.txt.
# So a replay by key can only repeat what the full replay printed when
# make proofs-cache recorded it, for byte-identical inputs.
tool_versions() {
    { frama-c -version; why3 --version; z3 --version; cvc5 --version | head -1; } 2>&1
}
fingerprint() { # NAME FILE: the key of run NAME (needs $out/runs, $out/versions)
    fc_share=$(frama-c -print-share-path)
    case $2 in
        proofs/wp/*) fp_inc=$(dirname "$2")/../../src ;;
        *) fp_inc=$(dirname "$2") ;;
    esac
    {
        grep "^$1 " "$out/runs"
        echo "timeout $TIMEOUT"
        cat "$out/versions"
        # Frama-C's own command (frama-c -kernel-msg-key pp), less -dD;
        # the line markers name every file read.
        gcc -E -C -I. -I"$fc_share/libc" -D__FRAMAC__ -D__FC_MACHDEP_X86_64 \
            -nostdinc -m64 -I"$fp_inc" "$2" |
            sed -n 's/^# [0-9]* "\([^"<]*\)".*/\1/p' | grep -v "^$fc_share/" |
            LC_ALL=C sort -u | xargs realpath -m --relative-to=. | LC_ALL=C sort -u |
            while read -r p; do echo "== $p"; cat "$p"; done
        for p in proofs/run.sh proofs/summary.awk proofs/why3/qsched.driver \
                 proofs/why3/qsched/*.mlw "$CACHE/$1.txt"; do
            echo "== $p"; cat "$p" 2>/dev/null
        done
    } | sha256sum | cut -c1-64
}
# outcome LOG: the goal and smoke-test statuses of an offline replay log,
# as recorded in $CACHE/NAME.result (prover names and times dropped;
# sorted, so that the file only changes when a status does).
outcome() {
    sed -n 's/^\[wp\] \[[^]]*\] Goal \([^ ]*\) : \([A-Za-z]*\).*/[wp] [Recorded] Goal \1 : \2/p
            s/^\[wp\] \[\([A-Za-z]*\)\] Smoke-test \([^ ]*\).*/[wp] [\1] Smoke-test \2/p' "$1" |
        LC_ALL=C sort -u
}

# unproved LOG: the functions (of the run's list FUNCTIONS) with a goal that
# is not Valid in LOG.
unproved() { # LOG FUNCTIONS
    # the lemmas' run (@lemma) reports its goals under the name "lemmas"
    if [ "$2" = @lemma ]; then echo lemmas; else echo "$2" | tr ',' '\n'; fi >"$1.fns"
    awk -f proofs/summary.awk "$1.fns" "$1" | sed -n 's|^FAIL proofs/wp/\([^:]*\):.*|\1|p' |
        grep -v -x -e other -e "$([ "$2" = @lemma ] && echo other || echo lemmas)" | list
}

summarise() { # LOGS...: the per-function summary and the total
    # shellcheck disable=SC2086
    awk -f proofs/summary.awk "$out/functions" "$@" | tee "$out/summary.txt"
    rc=0
    [ "$(tail -1 "$out/summary.txt" | sed 's/Proved goals: *\([0-9]*\) *\/ *\([0-9]*\)/\1 \2/' |
        awk '{ print ($1 == $2 && $2 > 0) }')" = 1 ] || rc=1
    grep -q '^FAIL' "$out/summary.txt" && rc=1
    return $rc
}

elapsed() { echo "proofs: $(( $(date +%s) - start ))s"; }

# Runs RUNS-FILE in JOBS parallel lanes: `lane CMD` calls CMD NAME FILE
# PROVERS MODEL FUNCTIONS EXTRA... for each run of its lane, longest first
# (the order of runs()).
in_lanes() { # CMD
    lane=0
    while [ "$lane" -lt "$JOBS" ]; do
        (
            run_no=0
            while read -r name file provers model fcts extra; do
                if [ $((run_no % JOBS)) -eq "$lane" ]; then
                    # shellcheck disable=SC2086
                    "$1" "$name" "$file" "$provers" "$model" "$fcts" $extra
                fi
                run_no=$((run_no + 1))
            done <"$out/runs"
        ) &
        lane=$((lane + 1))
    done
    wait
}

prepare() {
    for h in proofs/wp/*.c; do
        if ! syntax_check -Werror "$h" >"$out/cc.log" 2>&1; then
            echo "FAIL $h: does not compile"; cat "$out/cc.log"; exit 1
        fi
    done
    runs >"$out/runs"
    tool_versions >"$out/versions"
    { while read -r name file provers model fcts extra; do
          [ "$fcts" = @lemma ] || echo "$fcts" | tr ',' '\n'
      done <"$out/runs"; echo lemmas; } | awk '!seen[$0]++' >"$out/functions"
}

# ---- make proofs: everything from scratch, no cache ----
full_one() { # NAME FILE PROVERS MODEL FUNCTIONS EXTRA...
    n=$1 f=$2 p=$3 m=$4 fc=$5
    shift 5
    wp_run "$out/full/$n.log" "$f" "$p" "$m" "$fc" -wp-smoke-tests -wp-cache none "$@"
}
if [ "$mode" = proofs ]; then
    prepare
    rm -rf "$out/full"; mkdir -p "$out/full"
    in_lanes full_one
    rc=0
    for log in "$out"/full/*.log; do frama_errors "$log" && rc=1; done
    summarise "$out"/full/*.log || rc=1
    # The inflation theorem in Why3 (proofs/why3/inflation.mlw).
    sh proofs/why3/prove.sh "$out/why3run" prove || rc=1
    elapsed
    exit $rc
fi

# ---- make proofs-cache: the committed cache, brought up to date ----
refresh_one() { # NAME FILE PROVERS MODEL FUNCTIONS EXTRA...
    n=$1 f=$2 p=$3 m=$4 fc=$5
    shift 5
    d=$out/refresh/$n
    unpack "$n" "$d/cache"
    # cleanup: entries found are kept, missing ones proved and added,
    # entries no goal looks up any more removed.
    wp_run "$out/refresh/$n.prove.log" "$f" "$p" "$m" "$fc" -wp-smoke-tests \
        -wp-cache cleanup -wp-session "$d" "$@"
    # What make check's replay will see: the offline lookups.
    wp_run "$out/refresh/$n.log" "$f" "$p" "$m" "$fc" -wp-smoke-tests \
        -wp-cache offline -wp-cache-dir "$d/cache" "$@"
}
if [ "$mode" = refresh ]; then
    prepare
    rm -rf "$out/refresh"; mkdir -p "$out/refresh"
    in_lanes refresh_one
    rc=0
    for log in "$out"/refresh/*.log; do frama_errors "$log" && rc=1; done
    summarise "$out"/refresh/*[!e].log || rc=1
    sh proofs/why3/prove.sh "$out/why3run" refresh || rc=1
    if [ $rc -ne 0 ]; then
        echo "proofs-cache: not written (some goal is unproved)"
        elapsed; exit 1
    fi
    mkdir -p "$CACHE"
    find "$CACHE" -name '*.txt' ! -name why3.txt -exec rm -f {} +
    while read -r name file provers model fcts extra; do
        {
            echo "# WP prover results of the run $name (proofs/run.sh), written by"
            echo "# make proofs-cache; make check replays them.  Lookups: $(lookups "$out/refresh/$name.log")"
            # one line per result: WP wraps a long record over two
            # lines (a slow prover's time and steps), so the record is
            # joined before time and steps are dropped
            for j in "$out/refresh/$name/cache"/*.json; do
                [ -f "$j" ] || continue
                printf '%s %s\n' "$(basename "$j" .json)" \
                    "$(tr '\n' ' ' <"$j" | sed 's/, *"time": *[0-9.e+-]*//; s/, *"steps": *[0-9]*//; s/  */ /g; s/ *$//')"
            done | LC_ALL=C sort
        } >"$CACHE/$name.txt"
    done <"$out/runs"
    # The replay keys (fingerprint above), computed on the cache as written.
    find "$CACHE" -name '*.result' -exec rm -f {} +
    while read -r name file provers model fcts extra; do
        {
            echo "# The outcome of the offline replay of run $name (proofs/run.sh),"
            echo "# recorded by make proofs-cache: make check prints it without starting"
            echo "# Frama-C while the key (a hash of every input of the run) is unchanged."
            echo "key $(fingerprint "$name" "$file")"
            echo "lookups $(lookups "$out/refresh/$name.log")"
            outcome "$out/refresh/$name.log"
        } >"$CACHE/$name.result"
    done <"$out/runs"
    echo "proofs-cache: $(cat "$CACHE"/*.txt | grep -vc '^#') results in $CACHE/"
    elapsed
    exit 0
fi

# ---- make check: replay ----
replay_one() { # NAME FILE PROVERS MODEL FUNCTIONS EXTRA...
    n=$1 f=$2 p=$3 m=$4 fc=$5
    shift 5
    d=$out/replay/$n
    # Inputs unchanged since make proofs-cache: its recorded outcome.
    if [ -f "$CACHE/$n.result" ] &&
       [ "$(sed -n 's/^key //p' "$CACHE/$n.result")" = "$(fingerprint "$n" "$f")" ]; then
        grep '^\[wp\]' "$CACHE/$n.result" >"$d.log"
        echo "$n replayed-by-key $(sed -n 's/^lookups //p' "$CACHE/$n.result")" >"$d.status"
        return
    fi
    unpack "$n" "$d/cache"
    wp_run "$d.log" "$f" "$p" "$m" "$fc" -wp-smoke-tests -wp-cache offline \
        -wp-cache-dir "$d/cache" "$@"
    echo "$n" >"$d.stale"
    want=$(sed -n 's/^# .*Lookups: //p' "$CACHE/$n.txt" 2>/dev/null)
    got=$(lookups "$d.log")
    bad=$(unproved "$d.log" "$fc")
    if [ "$want" = "$got" ] && [ -z "$bad" ]; then
        echo "$n replayed $got" >"$d.status"
        return
    fi
    # Some goal changed: prove the functions with an unproved goal (all of
    # the run's when only the lookup counts differ, e.g. a smoke test),
    # with the provers, then replay once more from the completed cache.
    [ -n "$bad" ] && [ "$fc" != @lemma ] || bad=$fc
    if [ "$mode" = check ]; then
        # make check: no prover, ever (a prover can race its timeout on a
        # loaded machine); the changed goals are reported, not proved.
        echo "$n not-cached $bad (lookups $got, cache recorded ${want:-none})" >"$d.status"
        return
    fi
    wp_run "$d.prove.log" "$f" "$p" "$m" "$bad" -wp-smoke-tests -wp-cache update \
        -wp-cache-dir "$d/cache" "$@"
    wp_run "$d.log" "$f" "$p" "$m" "$fc" -wp-smoke-tests -wp-cache offline \
        -wp-cache-dir "$d/cache" "$@"
    echo "$n re-proved $bad" >"$d.status"
}
if [ "$mode" = replay ] || [ "$mode" = check ]; then
    prepare
    rm -rf "$out/replay"; mkdir -p "$out/replay"
    in_lanes replay_one
    rc=0
    for log in "$out"/replay/*.log; do
        case $log in *.prove.log) ;; *) frama_errors "$log" && rc=1 ;; esac
    done
    # shellcheck disable=SC2046
    summarise $(ls "$out"/replay/*.log | grep -v '\.prove\.log$') || rc=1
    sh proofs/why3/prove.sh "$out/why3run" "$mode" || rc=1
    if grep -q ' not-cached ' "$out"/replay/*.status; then
        echo "FAIL proofs/replay: proof obligations changed and are not in $CACHE/:"
        sed -n 's/^\([^ ]*\) not-cached \(.*\)/  \1: \2/p' "$out"/replay/*.status
        echo "FAIL proofs/replay: run \`make proofs-cache\` (proves them, a few minutes) and commit $CACHE/"
        rc=1
    elif grep -q ' re-proved ' "$out"/replay/*.status; then
        echo "note: goals not in $CACHE/ (sources changed) were proved now:"
        sed -n 's/^\([^ ]*\) re-proved \(.*\)/  \1: \2/p' "$out"/replay/*.status
        echo "note: run \`make proofs-cache\` and commit $CACHE/ to replay them"
    else
        echo "proofs: every result replayed from $CACHE/ (no prover run)"
    fi
    keyed=$(grep -l ' replayed-by-key ' "$out"/replay/*.status 2>/dev/null | wc -l | tr -d ' ')
    echo "proofs: $keyed of $(wc -l <"$out/runs" | tr -d ' ') runs replayed by key (inputs unchanged since make proofs-cache)"
    if ls "$out"/replay/*.stale >/dev/null 2>&1; then
        echo "note: goals regenerated (inputs changed since make proofs-cache) for: $(cat "$out"/replay/*.stale | tr '\n' ' ')"
        echo "note: \`make proofs-cache\` records their keys again (fast replay)"
    fi
    elapsed
    exit $rc
fi

# ---- make proofs-mutants ----
if [ "$mode" = mutants ]; then
    # Each proofs/mutants/NAME.sed turns one core file (its "# file:" line,
    # src/kernels.c by default) into a mutant: one code change, the same
    # contracts.  The mutant is killed when WP fails to prove the goals its
    # "# expect:" line names, in the mutated function.
    mkdir -p "$out/mutants"
    rm -rf "$out"/mutants/*
    # acsl FILE: the ACSL annotations of FILE (to check they are unchanged).
    acsl() { awk '/\/\*@/ { on = 1 } on { print } /\*\// { on = 0 }' "$1"; }
    run_mutant() { # NAME: prints one ok/FAIL line
        name=$1
        spec=proofs/mutants/$name.sed
        d=$out/mutants/$name
        fn=$(sed -n 's/^# function: *//p' "$spec")
        file=$(sed -n 's/^# file: *//p' "$spec")
        [ -n "$file" ] || file=src/kernels.c
        mkdir -p "$d/proofs"
        cp -r src "$d/src"
        cp -r proofs/wp "$d/proofs/wp"
        sed -f "$spec" "$file" >"$d/$file"
        if cmp -s "$d/$file" "$file"; then
            echo "FAIL proofs/mutant/$name: the edit no longer applies to $file"; return
        fi
        if ! acsl "$d/$file" | cmp -s - "$(acsl "$file" >"$d/contracts.orig"; echo "$d/contracts.orig")"; then
            echo "FAIL proofs/mutant/$name: the edit touches a contract"; return
        fi
        if ! syntax_check -I"$d/src" "$d/$file" >"$d/cc.log" 2>&1; then
            echo "FAIL proofs/mutant/$name: does not compile"; return
        fi
        # The same run (file, model, provers) as the real proof of fn.
        line=$(awk -v f="$fn" '{ n = split($5, a, ","); for (i = 1; i <= n; i++) if (a[i] == f) { print; exit } }' "$out/runs")
        if [ -z "$line" ]; then
            echo "FAIL proofs/mutant/$name: $fn is not proved by any run"; return
        fi
        # shellcheck disable=SC2086
        set -- $line
        rfile=$2 provers=$3 model=$4
        shift 5
        # shellcheck disable=SC2086
        wp_run "$d/wp.log" "$d/$rfile" "$provers" "$model" "$fn" -wp-cache none "$@"
        echo "$fn" >"$d/fn"
        awk -f proofs/summary.awk "$d/fn" "$d/wp.log" >"$d/sum"
        res=$(tail -1 "$d/sum")
        failed=$(sed -n 's/^FAIL proofs\/wp\/[^:]*: [0-9\/]* goals, unproved: *//p' "$d/sum")
        # Every goal named on the "# expect:" line must be among the
        # unproved ones, so that a mutant is not "killed" by a mere timeout
        # elsewhere: the contract meant to catch it must catch it.
        missed=""
        # shellcheck disable=SC2013
        for e in $(sed -n 's/^# expect: *//p' "$spec"); do
            case " $failed " in *"_$e "*) ;; *) missed="$missed $e" ;; esac
        done
        if grep -q 'User Error\|annot-error\|aborted' "$d/wp.log"; then
            echo "FAIL proofs/mutant/$name: Frama-C error (see $d/wp.log)"
        elif [ -z "$failed" ]; then
            echo "FAIL proofs/mutant/$name: survived ($res)"
        elif [ -n "$missed" ]; then
            echo "FAIL proofs/mutant/$name: expected unproved:$missed; unproved: $failed"
        else
            echo "ok proofs/mutant/$name: killed ($res) by $failed"
        fi
    }
    runs >"$out/runs"
    names=$(for f in proofs/mutants/*.sed; do basename "$f" .sed; done)
    if [ $# -gt 1 ]; then shift; names=$*; fi
    # JOBS lanes take the mutants one at a time, each the next one that no
    # lane has claimed (a claim is a mkdir, which succeeds for one lane
    # only), so that a lane that finishes early takes the next mutant
    # instead of waiting for the slowest of a batch (the mutants run from
    # 10 s to over a minute); each writes its line to its own file.
    lane=0
    while [ "$lane" -lt "$JOBS" ]; do
        (
            for n in $names; do
                mkdir "$out/mutants/$n.claim" 2>/dev/null || continue
                run_mutant "$n" >"$out/mutants/$n.line"
            done
        ) &
        lane=$((lane + 1))
    done
    wait
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

echo "usage: sh proofs/run.sh [check|replay|proofs|refresh|mutants [NAME...]]" >&2
exit 2
