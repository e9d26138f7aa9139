#!/bin/sh
# proofs/replay-test.sh - shows that the fast replay of make check (the
# replay keys of proofs/run.sh, issue 15 item 6) cannot hide a change.
#
# Owns: nothing but this demonstration.  In a temporary copy of the tree
# (the working tree as it is, tracked and untracked files, ignored ones
# such as build/ left out) it checks that
#   1. unchanged sources: `sh proofs/run.sh check` passes with every run
#      replayed by key (no Frama-C);
#   2. a comment added to src/jobs.c: the key of the run that reads it
#      (core-jobs) changes, its goals are regenerated and found in the
#      cache: the replay passes and says the key is stale;
#   3. the body of a proved function changed (job_take_pool of src/jobs.c
#      keeps half of the pool): the replay fails, naming job_take_pool;
#   4. a contract changed (job_take_pool's takes_all clause): the replay
#      fails, naming job_take_pool;
#   5. a comment slipped between job_take_pool's contract and its
#      definition: refused (proofs/contracted.awk), FILE:LINE, instead of
#      leaving the function out of the proofs without a word;
#   6. (only with FULL=1: every run reads src/kernels.h, so this
#      regenerates every goal, about a minute and a half) an ACSL logic
#      definition changed (qs_clamp of src/kernels.h): the replay fails,
#      naming qs_success_step.
# Heavy (Frama-C): run it as `flock /work/team/heavy.lock nice -n 10 sh
# proofs/replay-test.sh` on a shared machine.  Prints ok/FAIL lines and
# "N passed, N failed"; exit 1 when a case fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qsched-replay-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok proofs/replay-test: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL proofs/replay-test: $1"; fail=$((fail + 1)); }

fresh() { # a copy of the working tree in $tmp/t
    rm -rf "$tmp/t"
    mkdir -p "$tmp/t"
    (cd "$top" && git ls-files -z -c -o --exclude-standard | xargs -0 tar cf - 2>/dev/null) | (cd "$tmp/t" && tar xf -)
}
check() { # run make check's replay in the copy; output in $tmp/out
    (cd "$tmp/t" && PROOFS_REQUIRE=1 sh proofs/run.sh check) >"$tmp/out" 2>&1
}
# refused WHAT PATTERN: after an edit, the replay must fail with a line
# matching PATTERN (the name of what changed)
refused() {
    if ! check && grep -q "$2" "$tmp/out"; then
        ok "$1: replay fails naming it"
    else
        bad "$1: the replay did not fail naming it"; tail -5 "$tmp/out"
    fi
}
# edit FILE SED-SCRIPT: the edit must change FILE
edit() {
    cp "$tmp/t/$1" "$tmp/orig"
    sed -e "$2" "$tmp/orig" >"$tmp/t/$1"
    if cmp -s "$tmp/orig" "$tmp/t/$1"; then echo "FAIL proofs/replay-test: the edit of $1 no longer applies"; exit 1; fi
}

fresh
if check && grep -q 'runs replayed by key' "$tmp/out" &&
   [ "$(sed -n 's/^proofs: \([0-9]*\) of \([0-9]*\) runs replayed by key.*/\1 \2/p' "$tmp/out" |
        awk '{ print ($1 == $2) }')" = 1 ]; then
    ok "unchanged tree: $(grep 'runs replayed by key' "$tmp/out")"
else
    bad "unchanged tree is not replayed by key"; tail -5 "$tmp/out"
fi

edit src/jobs.c '/^\/\* S-MEM-5: a job put on the list takes/i\
/* a comment added by proofs/replay-test.sh */'
if check && grep -q 'note: goals regenerated.*core-jobs' "$tmp/out"; then
    ok "comment in src/jobs.c: core-jobs regenerated and found in the cache"
else
    bad "comment in src/jobs.c"; tail -5 "$tmp/out"
fi

fresh
edit src/jobs.c '/^static void (job_take_pool)(/,/^}/s/t->rcpt_unused = 0;/t->rcpt_unused \/= 2;/'
refused "body of job_take_pool changed" '^  core-jobs: job_take_pool'

fresh
edit src/jobs.c 's/ensures takes_all: t->rcpt_unused == (\\old(t->rcpt_unused) > 0 ? 0 :/ensures takes_all: t->rcpt_unused == (\\old(t->rcpt_unused) > 1 ? 0 :/'
refused "contract of job_take_pool changed" '^  core-jobs: job_take_pool'

fresh
edit src/jobs.c '/^static void (job_take_pool)(/i\
/* a comment between the contract and its function */'
refused "comment between job_take_pool's contract and definition (not silently unproved)" \
    'src/jobs.c:[0-9]*: an ACSL function contract not followed by its function'

if [ "${FULL:-0}" = 1 ]; then
    fresh
    edit src/kernels.h 's/limit > 0 \&\& w > limit ? limit : w;/limit > 0 \&\& w >= limit ? limit : w;/'
    refused "ACSL definition qs_clamp changed (qs_success_step)" '^  float-kernels: .*qs_success_step'
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
