#!/bin/sh
# proofs/coverage.sh - prints the table of proofs/README.md ("Coverage"):
# every function of the core (CORE_SRC of the Makefile), whether it has a
# contract, its proved goals in the last proof run, its mutants, and
# whether its contract is checked at run time (not built: issue 15,
# item 3; the column says so).
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
            s = sig; sub(/\(.*/, "", s); n = split(s, w, /[ *]+/); print w[n]; sig = "" }
        /;[ \t]*$/ { sig = "" }' "$1"
}
# contracted FILE...: the functions with an ACSL contract right before
# their definition or prototype (the same reading as proofs/run.sh)
contracted() {
    awk '
        /^\/\*@/ { spec = 1 }
        spec { if ($0 ~ /\*\/[ \t]*$/) { spec = 0; after = 1 } next }
        after && /^[ \t]*$/ { next }
        after {
            after = 0
            if ($0 ~ /^(\/\*|#|\/\/)/) next
            line = $0
            if (match(line, /[A-Za-z_][A-Za-z0-9_]*\(/))
                print substr(line, RSTART, RLENGTH - 1)
        }' "$@"
}
echo "| file | function | contract | proved goals | mutants (proofs/mutants/) | run-time checked |"
echo "|---|---|---|---|---|---|"
nfun=0 ncon=0
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
        echo "| $b.c | \`$fn\` | $con | ${goals:--} | ${muts:--} | no |"
    done
done
echo
echo "$nfun functions, $ncon with a contract."
