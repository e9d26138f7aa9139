#!/bin/sh
# proofs/coverage.sh - prints the table of proofs/README.md ("Coverage"):
# every function of the core (CORE_SRC of the Makefile), whether it has a
# contract, its proved goals in the last proof run, its mutants, and
# whether its contract is checked at run time (the clauses of
# src/kernels_rtc.h and of the helpers' src/X_rtc.h, proofs/README.md
# "Run-time checks").
#
# Usage: sh proofs/coverage.sh [SUMMARY]   (default build/proofs/summary.txt,
# written by make proofs, make proofs-cache or make check's replay)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
summary=${1:-build/proofs/summary.txt}
core=$(sed -n '/^CORE_SRC/,/^[^ ]/p' Makefile | grep -o 'src/[a-z_]*\.c')
# functions FILE: the names of the functions FILE defines (a signature at
# column 0 whose body opens with "{" at column 0)
functions() {
    awk '
        /^[A-Za-z_]/ && !/^(typedef|struct|enum|#)/ && /\(/ { sig = $0; next }
        /^\{/ && sig != "" {
            s = sig   # `static T (F)(...)`: F (proofs/rtc/gen.py)
            if (match(s, /\([A-Za-z_][A-Za-z0-9_]*\)\(/)) s = substr(s, RSTART + 1, RLENGTH - 3)
            else sub(/\(.*/, "", s)
            n = split(s, w, /[ *]+/); print w[n]; sig = "" }
        /;[ \t]*$/ { sig = "" }' "$1"
}
# contracted FILE...: the functions with an ACSL contract right before
# their definition or prototype (the same reading as proofs/run.sh)
contracted() {
    awk -f proofs/contracted.awk "$@"
}
echo "| file | function | contract | proved goals | mutants (proofs/mutants/) | run-time checked |"
echo "|---|---|---|---|---|---|"
nfun=0 ncon=0
helpers=$(python3 proofs/rtc/gen.py --figures)
for f in $core; do
    b=$(basename "$f" .c)
    h=src/${b}_contracts.h
    for fn in $(functions "$f"); do
        nfun=$((nfun + 1))
        con=no
        if contracted "$f" $( [ -f "$h" ] && echo "$h") | grep -q -x "$fn"; then
            con=yes; ncon=$((ncon + 1))
        fi
        goals=$(sed -n "s|^ok proofs/wp/$fn: \([0-9]*/[0-9]*\) goals.*|\1|p; s|^FAIL proofs/wp/$fn: \([0-9]*/[0-9]*\) goals.*|\1 (FAIL)|p" "$summary" 2>/dev/null | head -1)
        muts=$(grep -l "^# function: *$fn\$" proofs/mutants/*.sed 2>/dev/null |
               sed 's|.*/||; s|\.sed$||' | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
        # run-time checked: "FILE FUNCTION CLAUSES CHECKED IN-PART NOT"
        # from proofs/rtc/gen.py --figures, for the kernels (src/kernels_rtc.h)
        # and the scheduler's helpers (src/X_rtc.h) alike (clauses: requires
        # and ensures; "in part": \valid as non-null, \separated as distinct)
        rtc=no
        # shellcheck disable=SC2046
        set -- $(echo "$helpers" | awk -v f="src/$b.c" -v fn="$fn" '$1 == f && $2 == fn')
        if [ $# -eq 6 ]; then
            rtc="yes, $3 clauses"
            [ "$5" -gt 0 ] && [ "$6" -gt 0 ] && rtc="$rtc ($5 in part, $6 not expressible)"
            [ "$5" -gt 0 ] && [ "$6" -eq 0 ] && rtc="$rtc ($5 in part)"
            [ "$5" -eq 0 ] && [ "$6" -gt 0 ] && rtc="$rtc ($6 not expressible)"
        fi
        echo "| $b.c | \`$fn\` | $con | ${goals:--} | ${muts:--} | $rtc |"
    done
done
echo
echo "$nfun functions, $ncon with a contract."
