#!/bin/sh
# proofs/why3/setup.sh - writes the private Why3 configuration that
# `make proofs` uses, so that the proofs never depend on ~/.why3.conf.
#
# Owns: prover detection for the proofs.  Exists because Debian's why3 1.5.1
# predates cvc5: it detects z3 and cvc4 by itself, but cvc5 (the one prover
# here that decides IEEE double goals quickly; Debian's cvc4 is built without
# floating-point support) has to be declared by hand, with a driver that is
# the CVC4 >= 1.6 driver plus the SMT-LIB logic ALL that cvc5 requires.
#
# Usage: sh proofs/why3/setup.sh OUTDIR   -> OUTDIR/why3.conf, OUTDIR/cvc5.drv
# Exit status 0 on success; prints what it found.
set -u
out=${1:?usage: setup.sh OUTDIR}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)   # the config names the driver by absolute path
conf="$out/why3.conf"
rm -f "$conf"
WHY3CONFIG="$conf" why3 config detect >"$out/detect.log" 2>&1 || {
    cat "$out/detect.log"; exit 2; }
# The provers are given their own memory budget: the bit-precise double
# goals need more than why3's default of 1000 MB.
sed 's/^memlimit = .*/memlimit = 4000/; s/^running_provers_max = .*/running_provers_max = 2/' \
    "$conf" >"$conf.tmp" && mv "$conf.tmp" "$conf"
datadir=$(sed -n 's/^datadir = "\(.*\)"$/\1/p' "$conf" | head -1)
[ -n "$datadir" ] || datadir=/usr/share/why3
if command -v cvc5 >/dev/null 2>&1; then
    ver=$(cvc5 --version 2>/dev/null | sed -n 's/^This is cvc5 version \([^ ]*\).*/\1/p' | head -1)
    cat >"$out/cvc5.drv" <<DRV
(* cvc5 for why3 1.5: the CVC4 >= 1.6 driver with (set-logic ALL). *)
prelude ";; produced by qsched proofs/why3/setup.sh ;;"
prelude "(set-logic ALL)"
import "$datadir/drivers/cvc4_16.gen"
DRV
    cat >>"$conf" <<CONF

[prover]
name = "CVC5"
version = "${ver:-unknown}"
alternative = ""
command = "$(command -v cvc5) --tlimit-per=%t000 --lang=smt2 %f"
command_steps = "$(command -v cvc5) --rlimit=%S --lang=smt2 %f"
driver = "$out/cvc5.drv"
in_place = false
interactive = false
CONF
fi
WHY3CONFIG="$conf" why3 config list-provers 2>/dev/null | sed 's/^/why3: prover /'
exit 0
