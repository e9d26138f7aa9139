#!/bin/sh
# fuzz/run.sh - runs AFL++ on the fuzz harnesses (behind `make fuzz`,
# `make fuzz-smoke`, `make fuzz-cmin`, `make fuzz-seeds`).
#
# Owns: assembling seed directories, one timed afl-fuzz run per harness
# (one instance at a time, nice'd: the machine is shared), reading the
# figures back from fuzzer_stats, the sanitizer sweep of the queue after a
# run, and corpus minimisation with afl-cmin.
#   sh fuzz/run.sh seeds BUILDDIR
#   sh fuzz/run.sh fuzz SECONDS HARNESS...   (FUZZ_BUILD, FUZZ_VARIANT)
#   sh fuzz/run.sh cmin HARNESS...
# A fuzz run prints per harness one line
#   fuzz NAME: E execs in S s (R execs/s), edges F of T (D% map), corpus C,
#   crashes N, hangs H
# appends it with the date to $FUZZ_BUILD/runs.log, keeps crash inputs in
# $FUZZ_BUILD/findings/NAME/, and exits 1 if a crash or a sanitizer report
# was found.  Hangs are printed but are not failures: on a shared machine
# an input can miss the time limit only because the other core was busy;
# rerun them with the driver to tell.
# FUZZ_TOLERATE="text|text": invariant messages containing one of these
# are open findings already reported: the harnesses end such an input
# quietly (QSCHED_FUZZ_TOLERATE, fuzz/common.h) so the fuzzer keeps
# exploring; the figures line says so.  cmin drops inputs that still fail
# a strict replay, so the saved corpus never holds an open finding.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}
FUZZ_VARIANT=${FUZZ_VARIANT:-plain}
TEXT_MAX=65536     # fuzz_text.c QSF_TEXT_MAX_INPUT
STRUCT_MAX=4096    # fuzz_struct.c QSF_STRUCT_MAX_INPUT

afl_env() {
    AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
    AFL_NO_AFFINITY=1 AFL_SKIP_CRASHES=1 AFL_FAST_CAL=1 AFL_QUIET=1 \
    AFL_NO_CRASH_README=1 AFL_IGNORE_UNKNOWN_ENVS=1 \
    QSCHED_FUZZ_TOLERATE="${FUZZ_TOLERATE:-}" "$@"
}

# copy_small SRC_GLOB_DIR PREFIX DEST MAXBYTES: regular files <= MAXBYTES
copy_small() {
    [ -d "$1" ] || return 0
    for f in "$1"/*; do
        [ -f "$f" ] || continue
        case $(basename "$f") in README*|.*) continue ;; esac
        size=$(wc -c <"$f")
        [ "$size" -le "$4" ] || continue
        cp "$f" "$3/$2$(basename "$f" | tr -c 'A-Za-z0-9._+\n-' '_')"
    done
}

make_seeds() { # builddir
    for h in text struct postfix; do
        d=$1/seeds/$h
        rm -rf "$d"
        mkdir -p "$d"
        max=$STRUCT_MAX
        [ $h = text ] && max=$TEXT_MAX
        copy_small "fuzz/seeds/$h" s- "$d" $max
        copy_small "fuzz/corpus/$h" c- "$d" $max
        copy_small "fuzz/crashes/$h" x- "$d" $max
        if [ $h = text ]; then
            for t in tests/golden tests/errors tests/scenarios; do
                copy_small "$t" "t-$(basename $t)-" "$d" $max
            done
            # keep only event streams from the test directories
            for f in "$d"/t-*; do
                [ -f "$f" ] || continue
                case $f in *.events) ;; *) rm -f "$f" ;; esac
            done
        fi
        echo "seeds $h: $(ls "$d" | wc -l) inputs in $d"
    done
}

stat_of() { # file key
    sed -n "s/^$2 *: *//p" "$1" | head -1
}

fuzz_one() { # harness seconds
    h=$1
    secs=$2
    case $FUZZ_VARIANT in
    san) bin=$FUZZ_BUILD/afl-san/fuzz_$h; tmo=3000 ;;
    *) bin=$FUZZ_BUILD/afl/fuzz_$h; tmo=1000 ;;
    esac
    out=$FUZZ_BUILD/out/$h
    rm -rf "$out"
    mkdir -p "$out"
    set -- -V "$secs" -i "$FUZZ_BUILD/seeds/$h" -o "$out" -t "$tmo" -m none
    [ $h = text ] && set -- "$@" -x fuzz/dict/events.dict
    # CmpLog (input-to-state) helps the text harness through string
    # compares; it costs executions, so the plain variant of the text
    # harness only (the structured harness has no string compares).
    if [ "$FUZZ_VARIANT" = plain ] && [ $h = text ] && [ -x "$FUZZ_BUILD/afl-cmplog/fuzz_$h" ]; then
        set -- "$@" -c "$FUZZ_BUILD/afl-cmplog/fuzz_$h"
    fi
    echo "== afl-fuzz $h ($FUZZ_VARIANT build, $secs s)"
    afl_env nice -n 10 afl-fuzz "$@" -- "$bin" >"$out.log" 2>&1
    rc=$?
    st=$out/default/fuzzer_stats
    if [ ! -f "$st" ]; then
        echo "FAIL fuzz $h: afl-fuzz exited $rc without statistics"
        tail -15 "$out.log"
        return 1
    fi
    execs=$(stat_of "$st" execs_done)
    rt=$(stat_of "$st" run_time)
    [ "${rt:-0}" -gt 0 ] || rt=1
    eps=$((execs / rt))
    edges=$(stat_of "$st" edges_found)
    total=$(stat_of "$st" total_edges)
    cvg=$(stat_of "$st" bitmap_cvg)
    corpus=$(stat_of "$st" corpus_count)
    crashes=$(stat_of "$st" saved_crashes)
    hangs=$(stat_of "$st" saved_hangs)
    line="fuzz $h: $execs execs in $rt s ($eps execs/s), edges $edges of $total ($cvg map), corpus $corpus, crashes $crashes, hangs $hangs"
    [ -n "${FUZZ_TOLERATE:-}" ] && line="$line (tolerating: $FUZZ_TOLERATE)"
    echo "$line"
    echo "$(date -u '+%Y-%m-%d %H:%M:%S UTC') [$FUZZ_VARIANT] $line" >>"$FUZZ_BUILD/runs.log"
    bad=0
    if [ "${crashes:-0}" -gt 0 ]; then
        bad=1
        mkdir -p "$FUZZ_BUILD/findings/$h"
        for c in "$out"/default/crashes/id*; do
            [ -f "$c" ] || continue
            n=$(basename "$c" | sed 's/,.*//; s/[^A-Za-z0-9]/_/g')
            cp "$c" "$FUZZ_BUILD/findings/$h/$(date -u +%Y%m%d%H%M%S)-$n"
            echo "  crash $c:"
            sh -c '"$0" "$1" 2>&1' "$FUZZ_BUILD/afl-san/fuzz_$h" "$c" 2>/dev/null |
                grep -E 'FINDING|ERROR: AddressSanitizer|runtime error|SUMMARY' | head -3 | sed 's/^/    /'
        done
        echo "  crash inputs copied to $FUZZ_BUILD/findings/$h/"
    fi
    if [ "${hangs:-0}" -gt 0 ]; then
        echo "  hangs kept in $out/default/hangs/ (rerun with the driver to tell a slow machine from a real hang)"
    fi
    # Sanitizer sweep: every input the plain run kept, under ASan+UBSan.
    if [ "$FUZZ_VARIANT" != san ] && [ -x "$FUZZ_BUILD/afl-san/fuzz_$h" ]; then
        n=$(ls "$out/default/queue" | wc -l)
        if (cd "$out/default/queue" && ls | QSCHED_FUZZ_TOLERATE="${FUZZ_TOLERATE:-}" \
                xargs "$top/$FUZZ_BUILD/afl-san/fuzz_$h") >"$out.sweep" 2>&1; then
            echo "sanitizer sweep $h: $n queue inputs, no report"
        else
            bad=1
            echo "FAIL sanitizer sweep $h: $(grep -E 'FINDING|ERROR:|runtime error' "$out.sweep" | head -1)"
        fi
    fi
    return $bad
}

cmin_one() { # harness
    h=$1
    pool=$FUZZ_BUILD/cmin-pool/$h
    res=$FUZZ_BUILD/cmin/$h
    rm -rf "$pool" "$res"
    mkdir -p "$pool"
    cp "$FUZZ_BUILD/seeds/$h"/* "$pool"/ 2>/dev/null
    if [ -d "$FUZZ_BUILD/out/$h/default/queue" ]; then
        for f in "$FUZZ_BUILD/out/$h/default/queue"/id*; do
            [ -f "$f" ] && cp "$f" "$pool/q-$(basename "$f" | sed 's/,.*//; s/[^A-Za-z0-9]/_/g')"
        done
    fi
    before=$(ls "$pool" | wc -l)
    afl_env nice -n 10 afl-cmin -i "$pool" -o "$res" -m none -t 5000 -- \
        "$FUZZ_BUILD/afl/fuzz_$h" - >"$FUZZ_BUILD/cmin-$h.log" 2>&1 || {
        echo "FAIL cmin $h"; tail -10 "$FUZZ_BUILD/cmin-$h.log"; return 1; }
    # content-addressed names: stable across runs, no AFL punctuation;
    # an input that fails a strict run (an open finding) is left out
    rm -rf "fuzz/corpus/$h"
    mkdir -p "fuzz/corpus/$h"
    dropped=0
    for f in "$res"/*; do
        [ -f "$f" ] || continue
        if ! sh -c '"$0" "$1" >/dev/null 2>&1' "$FUZZ_BUILD/afl/fuzz_$h" "$f" 2>/dev/null; then
            dropped=$((dropped + 1))
            continue
        fi
        sum=$(sha1sum "$f" | cut -c1-16)
        cp "$f" "fuzz/corpus/$h/$sum"
    done
    echo "cmin $h: $before inputs -> $(ls "fuzz/corpus/$h" | wc -l) in fuzz/corpus/$h ($dropped failing a strict run left out)"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
seeds)
    make_seeds "${1:-$FUZZ_BUILD}"
    ;;
fuzz)
    secs=$1
    shift
    make_seeds "$FUZZ_BUILD" >/dev/null
    fail=0
    for h in "$@"; do
        fuzz_one "$h" "$secs" || fail=1
    done
    exit $fail
    ;;
cmin)
    make_seeds "$FUZZ_BUILD" >/dev/null
    fail=0
    for h in "$@"; do
        cmin_one "$h" || fail=1
    done
    exit $fail
    ;;
*)
    echo "usage: sh fuzz/run.sh seeds DIR | fuzz SECONDS HARNESS... | cmin HARNESS..." >&2
    exit 2
    ;;
esac
