#!/bin/sh
# tests/sh/settled-batches.sh - a settled batch assigned from its written
# order gives the resolve order's entries (src/assign.c
# batch_resolve_postfix, S-PFX-11; issue 16), so does a batch with one
# side effect, and a fresh job's peers found without a look-up are the
# ones a look-up finds (assign_run).
#
# Owns the differential check of the postfix profile's shortcuts in
# reading a batch.  A batch whose every transport and destination already
# exists and lives skips the resolve order and is sorted into the batch
# order from the order written; so does one whose failed look-ups all
# name one destination (to create, or dead: created once, or deferred in
# one `defer` line); a job that has no peer when the sorted
# batch reaches it finds its peer at a destination as its last peer or
# not at all.  The arguments that neither changes anything are at
# batch_resolve_postfix and assign_run; this test holds the code to them,
# on builds that differ only in the shortcuts:
#   ref       QSI_RESOLVE_ALWAYS=1 QSI_PEER_FIND_ALWAYS=1: every batch
#             resolved in the resolve order and every peer looked up, as
#             before the shortcuts;
#   default   the shortcuts, as shipped.
# On postfix-profile streams of every mix (a third to three quarters of
# the batches of the many-transports, blockers and queue shapes are
# settled; the sort shape's almost never) and on every golden and hand
# vector, both must print the same trace and --stats, exit status
# included.
#
# That the check can fail: copies of the sources with a known bug must be
# caught on the same streams - the settled batch assigned in written
# order, unsorted (the shortcut's order is the batch order), a dead
# destination taken as settled (its recipients must be deferred while
# resolving, S-CON-9), a fresh job given a new peer where its last peer
# is the destination's (two peers, and two round-robin turns, for one
# destination), a job taken as fresh when it has peers (those of an
# earlier batch are not found), and three in the one-effect batches: two
# destinations to create taken for one (the second is never made), two
# destinations of different transports taken for one, and a dead
# destination's deferrals not reported (no `defer` line).
# Prints ok/FAIL lines.
# run.sh: slow
. tests/lib/streams.sh

build "$t/ref" "-DQSI_RESOLVE_ALWAYS=1 -DQSI_PEER_FIND_ALWAYS=1"
build "$t/dflt" ""

# the streams: postfix profile, every mix that resolves batches
gen_streams 300 "transports 1 8000" "transports 2 8000" "blockers 1 8000" \
    "queue 1 8000" "mixed 1 8000" "mixed 2 8000" "sort 1 3000" \
    "local 1 8000" "bulk 1 8000" "large 1 8000" "heavy 1 8000" \
    "overrides 1 8000" "preempt 1 8000" "dead 1 8000"
n=$gen_count
[ "$n" -ge 14 ] || no streams "only $n streams generated"

differ=""
for f in "$t"/*-*.events; do
    run "$t/ref/qsched" "$f" >"$t/r.out"
    run "$t/dflt/qsched" "$f" >"$t/d.out"
    cmp -s "$t/r.out" "$t/d.out" || differ="$differ $(basename "$f")"
done
if [ -n "$differ" ]; then no generated-streams "differ:$differ"
else ok "generated-streams ($n)"; fi

scenes=0 differ=""
for f in tests/golden/*.events tests/conformance/hand/*.events; do
    args=$(sed -n '1s/^# args: *//p' "$f")
    # shellcheck disable=SC2086
    run "$t/ref/qsched" "$f" $args >"$t/r.out"
    # shellcheck disable=SC2086
    run "$t/dflt/qsched" "$f" $args >"$t/d.out"
    cmp -s "$t/r.out" "$t/d.out" || differ="$differ $(basename "$f")"
    scenes=$((scenes + 1))
done
if [ $scenes -lt 100 ]; then no scenes "only $scenes scenes found"
elif [ -n "$differ" ]; then no scenes "differ:$differ"
else ok "scenes ($scenes)"; fi

mutant unsorted assign.c 's/^        qsi_batch_order_written(s, m, out);$/        (void)m;/'
mutant dead-settled assign.c 's/^\( *\)if ((!q || q->dead) \&\&$/\1if (!q \&\&/'
mutant fresh-new-peer assign.c 's/^                p = job->peer_tail && job->peer_tail->queue == q$/                p = 0/'
mutant fresh-with-peers assign.c 's/^                    job->peer_count == 0)$/                    1)/'
mutant two-made-as-one assign.c 's/^    return fx->len == len \&\& memcmp(fx->name, name, len) == 0;$/    return 1;/'
mutant two-transports-as-one assign.c 's/^        return 0; \/\* another transport, or dead and not found \*\/$/        return fx->dead == q;/'
mutant dead-unreported assign.c 's/^            trace_dead_run(s, m, a); \/\* its one line \*\/$/            (void)0;/'
