#!/bin/sh
# tests/sh/settled-batches.sh - a settled batch assigned from its written
# order gives the resolve order's entries (src/assign.c
# batch_resolve_postfix, S-PFX-11; issue 16), so does a batch whose few
# side effects are made in the resolve order's order first, and a fresh
# job's peers found without a look-up are the ones a look-up finds
# (assign_run).
#
# Owns the differential check of the postfix profile's shortcuts in
# reading a batch.  A batch whose every transport and destination already
# exists and lives skips the resolve order and is sorted into the batch
# order from the order written; so does one whose failed look-ups (at
# most QSI_BATCH_FX_MAX: destinations to create, or dead ones to defer)
# can be ordered alone (batch_effects.c qsi_batch_fx_order), once they are
# made in that order; a job that has no peer when the sorted
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
# earlier batch are not found), and four in the batches settled once their
# effects are made: the effects made in written order (not the resolve
# order's), effects in one domain ordered without the rest of the batch
# (a whole run's recipients would interleave by address), the deferrals
# of two dead destinations in one `defer` line, and a dead run's
# recipients counted as one; and two in the short batches' order by their
# queues: left unsorted, and a dead queue's recipients assigned.
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
mutant dead-settled assign.c 's/^\( *\)if (q \&\& !q->dead)$/\1if (q)/'
mutant fresh-new-peer assign.c 's/^                p = job->peer_tail && job->peer_tail->queue == q$/                p = 0/'
mutant fresh-with-peers assign.c 's/^                    job->peer_count == 0)$/                    1)/'
mutant short-unsorted batch_effects.c 's/^        for (j = i; j > 0 \&\& item_after(\&item\[ord\[j - 1\]\], \&item\[x\]); j--)$/        for (j = i; j > 0 \&\& 0 \&\& item_after(\&item[ord[j - 1]], \&item[x]); j--)/'
mutant short-dead-kept batch_effects.c 's/^                continue; \/\* deferred while resolving (assign.c) \*\/$/                (void)0;/'
mutant effects-unsorted batch_effects.c 's/^        for (j = i; j > 0 \&\& fx_cmp(m, \&fx\[j - 1\], \&x) > 0; j--)$/        for (j = i; j > 0 \&\& (fx_cmp(m, \&fx[j - 1], \&x) \& 0) + (fx[j - 1].ordinal > x.ordinal); j--)/'
mutant effects-domain-shared batch_effects.c 's/^            return 0; \/\* a whole run beside another destination \*\/$/            continue;/'
mutant dead-runs-merged assign.c 's/^                    trace_dead_run(s, m, a); \/\* another dead one \*\/$/                    (void)0;/'
mutant dead-counted-once assign.c 's/^                a->dead_run += f->count;$/                a->dead_run += 1;/'
