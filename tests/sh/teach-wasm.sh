#!/bin/sh
# tests/sh/teach-wasm.sh - the playground's WebAssembly core behaves exactly
# like the native build (issue 18): `make playground`, then
# tests/browser/wasm-compare.mjs runs build/playground/qsched.wasm under
# node's WASI and build/qsched on every golden stream (five option sets),
# every malformed stream, every conformance vector and 24 generated
# streams, and compares exit status, stdout and stderr byte for byte.
# Needs node with node:wasi (preview1; v20 has it) and clang's wasm32-wasi target (wasi-libc, lld,
# libclang-rt-N-dev-wasm32; tests/deps.sh installs them).  Missing tools
# are a SKIP line (tests/run.sh: a failure under CI=true).
# run.sh: slow
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
missing() {
    if [ "${CI:-}" = true ]; then echo "FAIL teach-wasm/tools: $1 (CI=true: a missing tool is a failure)"; exit 1; fi
    echo "SKIP teach-wasm/tools: $1"; exit 0
}
command -v node >/dev/null 2>&1 || missing "node not installed"
node --experimental-wasi-unstable-preview1 -e "new (require('node:wasi').WASI)({ version: 'preview1' })" >/dev/null 2>&1 ||
    missing "node $(node --version) has no node:wasi preview1"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! make -s playground >"$log" 2>&1; then
    if ! printf 'int main(void){return 0;}\n' | ${WASM_CC:-clang} --target=wasm32-wasi -x c -o /dev/null - >/dev/null 2>&1; then
        missing "clang cannot build for wasm32-wasi (packages wasi-libc lld libclang-rt-N-dev-wasm32)"
    fi
    echo "FAIL teach-wasm/make-playground: $(tail -3 "$log")"; exit 1
fi
echo "ok teach-wasm/make-playground"
# --single-threaded: node 20's V8 can deadlock when a background WebAssembly
# compile job waits for a garbage collection while the main thread drains
# background tasks (seen about one run in four here: main thread in
# NodePlatform::DrainTasks, a worker in CollectionBarrier::
# AwaitCollectionBackground); without background threads it cannot.
timeout 900 node --single-threaded --experimental-wasi-unstable-preview1 \
    tests/browser/wasm-compare.mjs "$top" >"$log" 2>&1
rc=$?
[ $rc -eq 124 ] && echo "FAIL teach-wasm/timeout: wasm-compare.mjs ran for 900 s"
grep -v -e ExperimentalWarning -e 'trace-warnings' "$log"
exit $rc
