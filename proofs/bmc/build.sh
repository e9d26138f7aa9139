#!/bin/sh
# proofs/bmc/build.sh - builds the bounded model checker against a copy of
# the core sources.
#
# Owns: compiling SRC/*.c (the core and the event parser) plus
# proofs/bmc/*.c into OUT/qsched-bmc, and SRC/*.c into OUT/qsched (the CLI,
# to replay counterexamples with --explain).  Used by `make bmc-mutants`
# for each mutated copy of src/ (build/bmc-mutants/NAME/src); `make bmc`
# builds the real core through proofs/bmc.mk instead, with make's
# incremental rules.  Same flags as the top Makefile: C11, -Wall -Wextra
# -Werror.
#
# Usage: sh proofs/bmc/build.sh SRC OUT
# $flags is a word list on purpose
# shellcheck disable=SC2086
set -eu
src=$1
out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-cc}
flags="-std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -O2 -g -D_POSIX_C_SOURCE=200809L"
mkdir -p "$out/obj" "$out/tool"
objs=""
for f in "$src"/*.c; do
    name=$(basename "$f" .c)
    [ "$name" = main ] && continue
    $cc $flags -I"$src" -c -o "$out/obj/$name.o" "$f"
    objs="$objs $out/obj/$name.o"
done
$cc $flags -I"$src" -c -o "$out/obj/main.o" "$src/main.c"
# the timeline viewer's page, style and script, embedded in the CLI's
# html.c (the top Makefile generates the same file as build/gen/viewer.c)
if [ -f "$src/viewer/embed.sh" ]; then
    sh "$src/viewer/embed.sh" "$src/viewer/page.html" "$src/viewer/viewer.css" \
        "$src/viewer/viewer.js" >"$out/obj/viewer.c"
    $cc $flags -I"$src" -c -o "$out/obj/viewer.o" "$out/obj/viewer.c"
    objs="$objs $out/obj/viewer.o"
fi
tools=""
for f in "$top"/proofs/bmc/*.c; do
    name=$(basename "$f" .c)
    $cc $flags -I"$src" -I"$top/proofs/bmc" -c -o "$out/tool/$name.o" "$f"
    tools="$tools $out/tool/$name.o"
done
$cc -o "$out/qsched-bmc" $tools $objs -lm
$cc -o "$out/qsched" "$out/obj/main.o" $objs -lm
