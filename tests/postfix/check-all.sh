#!/bin/sh
# tests/postfix/check-all.sh - the short differential fuzz run against
# Postfix, as run by `make check-all` (hook "postfix-fuzz" of tests/run.sh;
# issue 14).
#
# Owns: building the AFL++ builds of fuzz/fuzz_postfix.c (qsched's postfix
# profile and Postfix's own queue manager in lockstep, a differing decision
# aborts) and running it FUZZ_SMOKE_SECONDS (default 30) on the ASan build
# through fuzz/run.sh; any crash (a divergence, a Postfix panic, a
# sanitizer report) fails.  Without afl-clang-fast, or when Postfix cannot
# be obtained or built, it prints a SKIP line (a failure under CI=true,
# tests/run.sh).  Prints "ok NAME" / "FAIL NAME: why" / "SKIP NAME: why".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! command -v afl-clang-fast >/dev/null 2>&1; then
    echo "SKIP postfix/fuzz: afl-clang-fast not found (Debian package afl++)"
    exit 0
fi
if ! make -s fuzz-postfix-build >"$tmp/build.out" 2>&1; then
    echo "SKIP postfix/fuzz: cannot obtain or build Postfix and the harness: $(tail -1 "$tmp/build.out")"
    [ "${CI:-false}" = true ] && exit 1
    exit 0
fi
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz} FUZZ_VARIANT=san \
    sh fuzz/run.sh fuzz "${FUZZ_SMOKE_SECONDS:-30}" postfix >"$tmp/run.out" 2>&1
rc=$?
cat "$tmp/run.out"
line=$(grep '^fuzz postfix:' "$tmp/run.out" | tail -1)
if [ $rc -eq 0 ] && [ -n "$line" ]; then
    echo "ok postfix/fuzz (${line#fuzz postfix: })"
else
    echo "FAIL postfix/fuzz: ${line:-afl-fuzz did not run}"
    exit 1
fi
