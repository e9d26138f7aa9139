#!/bin/sh
# tests/postfix/check.sh - the differential test against Postfix's queue
# manager, as run by `make check` (a hook of tests/run.sh; issue 14).
#
# Owns: (1) the regression vectors of tests/postfix/found, checked against
# the Postfix trace recorded with each (no Postfix needed); (2) building the
# harness (fetching Postfix's source once, see fetch.sh); (3) a bounded
# differential run (tests/postfix/diff.sh: POSTFIX_CHECK_STREAMS generated
# streams, default 300, plus every conformance vector), which must end
# with 0 diverged; (4) where Postfix is built, that it still prints each
# recorded trace.
# Under CI=true a failure to obtain or build Postfix is a failure; otherwise
# it is reported (and counted as a skip, never silently).
# Prints "ok NAME" / "FAIL NAME: detail" / "SKIP NAME: why" lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
QSCHED=${QSCHED:-$top/build/qsched}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; failures=$((failures + 1)); }

# 1. regression vectors: qsched against Postfix's recorded answer
n=0
for v in tests/postfix/found/*.events; do
    [ -f "$v" ] || continue
    name=$(basename "$v" .events)
    exp=tests/postfix/found/$name.postfix
    n=$((n + 1))
    if [ ! -f "$exp" ]; then
        fail "postfix/found/$name" "no $exp (Postfix's answer)"
    elif "$QSCHED" verify "$v" "$exp" >"$tmp/v.out" 2>&1; then
        ok "postfix/found/$name"
    else
        fail "postfix/found/$name" "qsched differs from Postfix's recorded trace"
        head -12 "$tmp/v.out"
    fi
done
[ "$n" -gt 0 ] || fail postfix/found "no regression vectors"

# 2. the harness
if make -s postfix-harness >"$tmp/build.out" 2>&1; then
    ok postfix/harness-build
else
    if [ "${CI:-}" = true ]; then
        fail postfix/harness-build "cannot obtain or build Postfix: $(tail -3 "$tmp/build.out" | tr '\n' ' ')"
    else
        echo "SKIP postfix/harness-build: cannot obtain or build Postfix (offline?): $(tail -1 "$tmp/build.out")"
    fi
    [ $failures -eq 0 ]
    exit $?
fi

# 3. Postfix still gives the recorded answers
for v in tests/postfix/found/*.events; do
    [ -f "$v" ] || continue
    name=$(basename "$v" .events)
    build/postfix/pfqmgr "$v" >"$tmp/p.trace" 2>/dev/null
    if "$QSCHED" verify "$v" "$tmp/p.trace" >/dev/null 2>&1 &&
       cmp -s "$tmp/p.trace" "tests/postfix/found/$name.postfix"; then
        ok "postfix/found-still/$name"
    else
        fail "postfix/found-still/$name" "Postfix's trace is no longer the recorded one"
    fi
done

# 4. the bounded differential run
sh tests/postfix/diff.sh -n "${POSTFIX_CHECK_STREAMS:-300}" -s 7001 \
    --no-minimise --quiet >"$tmp/diff.out" 2>&1
rc=$?
last=$(tail -1 "$tmp/diff.out")
grep -v '^  ' "$tmp/diff.out" | tail -4
case $last in
"postfix-diff: "*" 0 diverged")
    if [ $rc -eq 0 ]; then ok "postfix/diff ($last)"; else fail postfix/diff "exit $rc: $last"; fi ;;
*)
    fail postfix/diff "$last"
    grep -A12 '^== ' "$tmp/diff.out" | head -40 ;;
esac
[ $failures -eq 0 ]
