#!/bin/sh
# tests/sh/guide.sh - the teaching guide shows only traces qsched prints.
#
# Owns: rebuilding docs/guide.md from docs/guide-src (which runs every
# snippet with the real build/qsched) and comparing with the committed
# guide, so a change of behaviour cannot leave the guide stale.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
if python3 "$top/docs/guide-src/build.py" "$top/build" "$t/guide.md" 2>"$t/err"; then
    if cmp -s "$t/guide.md" "$top/docs/guide.md"; then
        echo "ok guide-traces-current"
    else
        echo "FAIL guide-traces-current: docs/guide.md differs from a rebuild (python3 docs/guide-src/build.py build docs/guide.md)"
        diff "$top/docs/guide.md" "$t/guide.md" | head -10
    fi
else
    echo "FAIL guide-build: $(tail -3 "$t/err")"
fi
