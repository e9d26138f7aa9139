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
