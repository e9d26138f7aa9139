#!/bin/sh
# proofs/bmc/mutants.sh - `make bmc-mutants`: shows that every property
# of the bounded model checker can fail.
#
# Owns: for each seeded mutant proofs/bmc/mutants/NAME.patch, a mutated
# copy of src/ in build/bmc-mutants/NAME/src (src/ itself is never
# touched), the checker built against it, a run that stops at the first
# violation, and the verdict: "caught" with the violated properties and
# the counterexample stream (replayed with the mutant's own
# `qsched --explain`), or "SURVIVED".  Exit status 1 if any mutant
# survives or cannot be built.
#
# A patch may name a part of the grid to search first in a line
# "# bmc-args: ..." (e.g. --only tight); it only saves time: the mutant
# is caught by the same checks `make bmc` runs.
#
# Usage: sh proofs/bmc/mutants.sh [NAME...]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
base=build/bmc-mutants
mkdir -p "$base"
caught=0
survived=0
if [ $# -gt 0 ]; then
    names=$*
else
    names=""
    for p in proofs/bmc/mutants/*.patch; do
        n=${p##*/}
        names="$names ${n%.patch}"
    done
fi
for name in $names; do
    patch=proofs/bmc/mutants/$name.patch
    dir=$base/$name
    echo "== mutant $name"
    sed -n 's/^# \{0,1\}//p' "$patch" | sed '/^bmc-args:/d; /^--- /,$d' | sed 's/^/   /'
    rm -rf "$dir"
    mkdir -p "$dir"
    cp -r src "$dir/src"
    if ! patch -s -p1 -d "$dir" <"$patch"; then
        echo "FAIL mutant/$name: the patch does not apply to src/"
        survived=$((survived + 1))
        continue
    fi
    if ! sh proofs/bmc/build.sh "$dir/src" "$dir" >"$dir/build.log" 2>&1; then
        echo "FAIL mutant/$name: does not build"
        tail -5 "$dir/build.log"
        survived=$((survived + 1))
        continue
    fi
    args=$(sed -n 's/^# bmc-args: *//p' "$patch")
    # shellcheck disable=SC2086
    nice -n 5 "$dir/qsched-bmc" --stop-first --jobs 2 --out "$dir/out" $args \
        >"$dir/bmc.log" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q '^FAIL bmc/property/' "$dir/bmc.log"; then
        props=$(sed -n 's|^FAIL bmc/property/\([^:]*\):.*|\1|p' "$dir/bmc.log" | tr '\n' ' ')
        echo "ok mutant/$name: caught by: $props"
        # the first counterexample, as printed by the checker
        sed -n '/^== COUNTEREXAMPLE/,/^== /p' "$dir/bmc.log" | sed '$d' | sed 's/^/   /'
        cex=""
        for f in "$dir"/out/cex/*.events; do
            [ -f "$f" ] && { cex=$f; break; }
        done
        if [ -n "$cex" ]; then
            echo "   -- replayed by the mutant's qsched --explain $cex (last lines):"
            "$dir/qsched" --explain "$cex" 2>&1 | tail -8 | sed 's/^/   | /'
        fi
        caught=$((caught + 1))
    else
        echo "FAIL mutant/$name: SURVIVED (exit $rc)"
        tail -15 "$dir/bmc.log" | sed 's/^/   /'
        survived=$((survived + 1))
    fi
done
echo "== mutants: $caught caught, $survived survived"
[ "$survived" -eq 0 ]
