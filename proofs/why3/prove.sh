#!/bin/sh
# proofs/why3/prove.sh - proves the Why3 theory of the inflation theorem
# (proofs/why3/inflation.mlw, with the shared slot arithmetic of
# proofs/why3/qsched/slots.mlw) with z3 and cvc5.
#
# Owns: the prover runs of the Why3 proofs and their key in the committed
# cache (proofs/wp-cache/why3.txt).  Every verification condition (after
# Why3's split_vc) must be proved by at least one of the two provers; none
# is admitted and the theory contains no axiom (checked here).
#
# Usage: sh proofs/why3/prove.sh OUTDIR [prove|replay|refresh]
#   prove    run the provers (make proofs)
#   replay   when the sources and the tool versions hash to the key of
#            proofs/wp-cache/why3.txt, print its recorded result without
#            running a prover (make check); otherwise prove
#   check    replay, but fail (never prove) when the key differs (make
#            check: no prover runs there)
#   refresh  as replay while the key matches; otherwise prove and, when
#            everything is proved, write the key
# Environment: WHY3CONFIG (proofs/why3/setup.sh), PROOFS_TIMEOUT.
# Output: one ok/FAIL line per Why3 goal, then "Why3 goals: N / N".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
out=${1:?usage: prove.sh OUTDIR [prove|replay|check|refresh]}
mode=${2:-prove}
T=${PROOFS_TIMEOUT:-20}
files="proofs/why3/inflation.mlw proofs/why3/qsched/slots.mlw"
keyfile=proofs/wp-cache/why3.txt
mkdir -p "$out"
if [ -z "${WHY3CONFIG:-}" ]; then
    sh proofs/why3/setup.sh "$out/why3" >"$out/why3-setup.log" 2>&1 || {
        echo "FAIL proofs/why3: why3 configuration failed"; exit 1; }
    WHY3CONFIG=$(cd "$out/why3" && pwd)/why3.conf
    export WHY3CONFIG
fi

if grep -n -w 'axiom' $files | grep -v '^\([^:]*:[0-9]*:\)[[:space:]]*(\*' >"$out/axioms"; then
    echo "FAIL proofs/why3: an axiom in the theory"; cat "$out/axioms"; exit 1
fi
key=$( { cat $files; why3 --version; z3 --version; cvc5 --version | head -1; } |
       sha256sum | cut -c1-64)
if { [ "$mode" = replay ] || [ "$mode" = check ] || [ "$mode" = refresh ]; } &&
   [ -f "$keyfile" ] &&
   [ "$(sed -n 's/^key //p' "$keyfile")" = "$key" ]; then
    sed -n 's/^result //p' "$keyfile"
    echo "why3: replayed (sources and tools unchanged since make proofs-cache)"
    exit 0
fi
if [ "$mode" = check ]; then
    echo "FAIL proofs/why3: the theory or a tool version changed since $keyfile was written: run \`make proofs-cache\` and commit it"
    exit 1
fi

for p in z3 CVC5; do
    nice why3 prove -L proofs/why3 -P "$p" -t "$T" -a split_vc \
        proofs/why3/inflation.mlw >"$out/why3-$p.log" 2>&1
    if grep -q -i 'error\|unbound\|syntax' "$out/why3-$p.log" &&
       ! grep -q 'Prover result' "$out/why3-$p.log"; then
        echo "FAIL proofs/why3: why3 error"; head -5 "$out/why3-$p.log"; exit 1
    fi
    awk '/^File /{loc=$0} /^(Sub-goal|Goal) /{g=$0} /Prover result is:/{
            v = ($0 ~ /Valid/) ? "V" : "X"; print loc " | " g "#" v }' \
        "$out/why3-$p.log" >"$out/why3-$p.res"
done
# The two logs list the same VCs in the same order (the same split): a VC
# is proved when one prover proves it, a goal when all its VCs are.
paste -d'#' "$out/why3-z3.res" "$out/why3-CVC5.res" |
awk -F'#' '
    $1 != $3 { print "FAIL proofs/why3: the provers saw different VCs"; exit 2 }
    { g = $1; sub(/.*(Goal|of goal) /, "", g); sub(/\.$/, "", g); sub(/'"'"'vc$/, "", g)
      if (!(g in n)) order[++k] = g
      n[g]++; if ($2 == "V" || $4 == "V") ok[g]++; else bad[g] = bad[g] " " $1 }
    END { for (i = 1; i <= k; i++) { g = order[i]
            if (ok[g] == n[g]) printf "ok proofs/why3/%s: %d/%d\n", g, ok[g], n[g]
            else printf "FAIL proofs/why3/%s: %d/%d, unproved:%s\n", g, ok[g] + 0, n[g], bad[g]
            all += n[g]; good += ok[g] }
          printf "Why3 goals: %d / %d\n", good, all
          exit (good == all && all > 0) ? 0 : 1 }' >"$out/why3-summary.txt"
rc=$?
cat "$out/why3-summary.txt"
if [ "$rc" -eq 0 ] && [ "$mode" = refresh ]; then
    mkdir -p "$(dirname "$keyfile")"
    { echo "# Why3 proof of proofs/why3/inflation.mlw: the key hashes the theory,"
      echo "# the shared slot arithmetic and the why3, z3 and cvc5 versions;"
      echo "# make check replays the result while it matches (proofs/why3/prove.sh)."
      echo "key $key"
      sed 's/^/result /' "$out/why3-summary.txt"; } >"$keyfile"
fi
exit $rc
