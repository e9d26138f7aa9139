#!/bin/sh
# tests/sh/teach-browser.sh - the timeline viewer and the playground in
# headless Chromium (tests/browser/run.mjs, over the DevTools protocol; no
# npm package, no browser download: Debian's /usr/bin/chromium).
# Screenshots and the pages tested are kept in build/browser/.
# Needs chromium and node >= 20 (tests/deps.sh installs them) and
# `make playground` (built here).  Missing tools are a skip on a developer
# machine (a SKIP line), a failure under CI=true (tests/run.sh).
# run.sh: slow
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
missing() {
    if [ "${CI:-}" = true ]; then echo "FAIL teach-browser/tools: $1 (CI=true: a missing browser is a failure)"; exit 1; fi
    echo "SKIP teach-browser/tools: $1"; exit 0
}
command -v node >/dev/null 2>&1 || missing "node not installed"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || command -v chromium >/dev/null 2>&1 || missing "chromium not installed"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
make -s playground >"$log" 2>&1 || { echo "FAIL teach-browser/make-playground: $(tail -3 "$log")"; exit 1; }
timeout 600 node tests/browser/run.mjs "$top"
