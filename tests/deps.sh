#!/bin/sh
# tests/deps.sh - installs what `make check` needs when it is missing.
#
# Owns: the list of Debian packages the test suites use (clang for the
# sanitizer build, valgrind, Frama-C with why3 and SMT provers for the
# proofs, AFL++ for the fuzz smoke).  Runs apt-get only as root and only
# for missing tools, so a developer machine with everything is untouched.
set -u
need=""
command -v clang >/dev/null 2>&1 || need="$need clang"
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
command -v frama-c >/dev/null 2>&1 || need="$need frama-c-base why3 z3 cvc4 cvc5"
command -v afl-clang-fast >/dev/null 2>&1 || need="$need afl++"
command -v gcovr >/dev/null 2>&1 || need="$need gcovr"
command -v python3 >/dev/null 2>&1 || need="$need python3"
# the timeline viewer and playground tests (tests/sh/teach-*.sh): headless
# Chromium, node, and clang's wasm32-wasi target (wasi-libc, lld and the
# wasm32 compiler runtime of the installed clang; Debian 12's clang is 14)
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v node >/dev/null 2>&1 || need="$need nodejs"
[ -f /usr/include/wasm32-wasi/stdio.h ] || need="$need wasi-libc"
command -v wasm-ld >/dev/null 2>&1 || need="$need lld"
clang_v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -1)
ls /usr/lib/llvm-"${clang_v:-14}"/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a >/dev/null 2>&1 ||
    need="$need libclang-rt-${clang_v:-14}-dev-wasm32"
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing$need (not root or no apt-get: those suites will be skipped)"
    exit 0
fi
echo "deps: installing$need"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1
# shellcheck disable=SC2086
apt-get install -y -qq $need >/dev/null 2>&1 || echo "deps: apt-get install failed for$need"
if command -v why3 >/dev/null 2>&1 && [ ! -f "$HOME/.why3.conf" ]; then
    why3 config detect >/dev/null 2>&1 || true
fi
exit 0
