#!/bin/sh
# tests/deps.sh - installs the Debian packages that the test suites need
# (make check, make check-all, .ci/run).
#
# Owns: THE list of packages (the one place; .ci/run calls this script),
# with which suite needs each.  Other areas add their packages here.
#
# Behaviour:
#   - only missing packages are installed (one dpkg-query for all), so a
#     machine that has everything is left untouched and this takes ~0.1 s;
#   - apt-get runs as root only, waits for the dpkg lock (another apt or
#     dpkg may be running: -o DPkg::Lock::Timeout) instead of failing, and
#     its own output is shown on failure (not a made-up summary);
#   - without root or apt-get, the missing packages are named and the
#     suites that need them report a SKIP (tests/run.sh);
#   - under CI=true anything that cannot be installed is an error (exit 1),
#     since tests/run.sh would otherwise have to fail those suites anyway.
# Environment: DEPS_LOCK_TIMEOUT seconds to wait for the lock (default 900).
set -u

# package            needed by
packages() {
    cat <<'EOF'
build-essential      everything (cc, make)
time                 tests/sh/io-contract.sh (/usr/bin/time -f %M, peak RSS)
python3              tests/sh, conformance tools, fuzz seeds, Python adapter
pkg-config           tests/sh/install.sh (qsched.pc), Go adapter
golang-go            tests/sh/install.sh (the Go adapter of docs/implementers.md)
clang                the ASan+UBSan suites, fuzz replay
lld                  wasm builds (issue 18)
valgrind             the valgrind suite
frama-c-base         proofs (WP)
why3                 proofs
z3                   proofs
cvc4                 proofs
cvc5                 proofs
coq                  proofs (issue 15)
afl++                fuzz smoke (check-all)
gcovr                make coverage
shellcheck           shell lint of the scripts
dpkg-dev             tests/postfix (apt-get source postfix, issue 14)
gnuplot              simulator plots (issue 17)
chromium             viewer tests (issue 18): tests/sh/teach-browser.sh
nodejs               tests/sh/teach-browser.sh, teach-wasm.sh (node:wasi)
wasi-libc            wasm build (issue 18)
libclang-rt-14-dev-wasm32 wasm build (issue 18)
emscripten           wasm build (issue 18)
man-db               docs/qsched.3 example test (man -l)
EOF
}

all=$(packages | awk '{ print $1 }')
missing=""
# shellcheck disable=SC2086
status=$(dpkg-query -W -f='${Package} ${Status}\n' $all 2>/dev/null)
for p in $all; do
    echo "$status" | grep -q "^$p install ok installed$" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing:$missing"
    echo "deps: not root or no apt-get: install them, or the suites that need them are skipped (a failure under CI=true)"
    [ "${CI:-false}" = true ] && exit 1
    exit 0
fi

lock="-o DPkg::Lock::Timeout=${DEPS_LOCK_TIMEOUT:-900}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "deps: installing$missing"
# shellcheck disable=SC2086
if ! apt-get install -y -q $lock $missing >"$log" 2>&1; then
    # perhaps only the package lists are missing or stale
    echo "deps: apt-get install failed; updating the package lists and retrying"
    # shellcheck disable=SC2086
    if ! apt-get update -q $lock >"$log" 2>&1 ||
        ! apt-get install -y -q $lock $missing >"$log" 2>&1; then
        echo "deps: apt-get failed; its output:"
        tail -30 "$log"
        [ "${CI:-false}" = true ] && exit 1
        exit 0
    fi
fi
echo "deps: installed$missing"
if command -v why3 >/dev/null 2>&1 && [ ! -f "$HOME/.why3.conf" ]; then
    why3 config detect >/dev/null 2>&1 || true
fi
exit 0
