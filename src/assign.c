/*
 * assign.c - reading a batch of recipients from a message and assigning
 * each one to the structures that will deliver it.
 *
 * Implements SCHEDULER_README, "What happens when nqmgr picks up the
 * message": resolve each recipient to a (transport, next-hop) pair, find
 * or create the transport and its destination queue ("unless it's dead"),
 * the job of the message on that transport and the job's peer for that
 * queue, and add the recipient to an entry, batching recipients for one
 * destination "up to the transport_destination_recipient_limit".  Also
 * the batch reading of "Dealing with memory resource limits": each batch
 * continues where the last one stopped.  Rules S-MEM-1 (read order),
 * S-PRE-1 (structures and batching), S-EV-4 (recipient naming), S-CON-9
 * (recipients of a dead destination), S-PFX-11 (the postfix profile's
 * resolution and assignment in its own orders, which batch_order.c
 * computes: the keys and sorts live there, the creation of transports and
 * queues and the deferrals here), and the slot hand-back of a fully read
 * message (S-MEM-5).
 *
 * Owns: the read cursor of a message (cur_group, cur_offset, rcpt_unread,
 * refill_time), the batch scratch buffer, the in-core recipient counts as
 * recipients enter core, and the peak statistics.  May not: decide how
 * many recipients to read (memory.c for the first batch and message
 * checks, select.c for refills) or which job goes first (jobs.c links the
 * jobs it creates by enqueue time).
 *
 * Batching, for example with a destination recipient limit of 2:
 * `arrive M1 smtp:a*3 smtp:b*2 smtp:a` is read as a, a, a, b, b, a and
 * gives entries a(2), a(1) and b(2); the last a joins a(1), which still
 * has room and is the peer's last pending entry.  In the postfix profile
 * the batch is first sorted to a, a, a, a, b, b: the same entries here,
 * but in general the sort can change which entries fill up first.
 *
 * The model of a queue file: an arrive line lists recipient groups
 * TRANSPORT:[LOCAL@]NEXTHOP*COUNT.  Resolution, which in Postfix asks the
 * address resolver, is already done: the group says where each recipient
 * goes.  What remains is the order and the batching, which decide the
 * entries, and through them every later decision.
 */
#include <stdlib.h>
#include <string.h>
#include "batch_order.h"

/* Where the recipients of the batch go: the state of the assignment loop
 * between runs. */
typedef struct assign_state {
    qs_entry *entry;     /* the entry the previous recipient went into */
    qs_queue *dead_q;    /* the dead queue of the pending defer line */
    int64_t dead_run;    /* its recipients so far */
    qs_job *fresh;       /* postfix profile (a sorted batch): the job of
                            the current transport, if it had no peer when
                            this read reached it */
} assign_state;

static void trace_dead_run(qs_sched *s, qs_message *m, assign_state *a)
{
    qs_trace r;
    qsi_trace_start(&r, QS_T_DEFER);
    qsi_trace_msg(&r, m);
    qsi_trace_dest(&r, a->dead_q);
    r.n = a->dead_run;
    qsi_emit(s, &r);
    a->dead_run = 0;
}

/* The transport of group g, created if this is the first read naming it.
 * A message's groups often name one transport: the previous group's,
 * when it is known and has the same name, is the same object (no map
 * look-up; transports live as long as the scheduler). */
static qs_transport *group_transport(qs_sched *s, qs_message *m,
                                     qs_mgroup *g)
{
    if (!g->t) {
        if (g > m->groups && g[-1].t && g[-1].transport == g->transport)
            g->t = g[-1].t;
        else
            g->t = qsi_transport_obtain(s, g->transport);
    }
    return g->t;
}

/* The destination queue of t for group g's next-hop (created if new). */
static qs_queue *nexthop_queue(qs_sched *s, qs_transport *t,
                               const qs_mgroup *g)
{
    return qsi_queue_obtain(s, t, g->nexthop, g->nexthop_len);
}

/* The destination queue of t for a recipient of group g that is its own
 * destination (S-EV-4: its address, qsi_rcpt_address; created if new). */
static qs_queue *rcpt_queue(qs_sched *s, qs_transport *t, const qs_mgroup *g,
                            int64_t index, int64_t ordinal)
{
    char dest[QSI_ADDRESS_MAX];
    size_t len = qsi_rcpt_address(g, index, ordinal, dest);
    return qsi_queue_obtain(s, t, dest, len);
}

/* 1: every peer looked up (qsi_peer_obtain), as before fresh jobs were
 * told apart (tests/sh/settled-batches.sh builds the reference so) */
#ifndef QSI_PEER_FIND_ALWAYS
#define QSI_PEER_FIND_ALWAYS 0
#endif

/* `count` recipients of one run, in order, to queue q of transport t.
 * Inlined in its loop (pass 4 of qsi_message_read): it runs once per
 * run, and its call, with six arguments and the registers it saves, was
 * about 20 of its 300 instructions (issue 16: transports -0.8%). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void assign_run(qs_sched *s, qs_message *m, qs_transport *t,
                       qs_queue *q, int64_t count, assign_state *a)
{
    qs_entry *entry = a->entry;
    int64_t limit = t->dest_rcpt_limit;
    /* S-CON-9: recipients for a dead destination are deferred at once
     * (the document: a queue is instantiated "unless it's dead").
     * Consecutive deferrals at one destination make one `defer` line (a
     * run); a new dead destination, or the end of the batch, closes the
     * run.  The recipients never enter core. */
    if (q->dead) {
        if (a->dead_q != q && a->dead_run > 0)
            trace_dead_run(s, m, a);
        a->dead_q = q;
        a->dead_run += count;
        m->deferred += count;
        s->stats.recipients_deferred += count;
        return;
    }
    while (count > 0) {
        int64_t take = count;
        /* Batch per destination up to TRANSPORT_destination_recipient_limit:
         * continue the previous entry, else the peer's last unselected
         * entry if it has room, else a new entry.
         * Reusing the peer's last pending entry is Postfix's loader: an
         * entry of an earlier batch that is still waiting is topped up
         * rather than a small new one made, so fewer, fuller deliveries
         * go out.  A limit of 0 means no limit (one entry per
         * destination).  Entries already in flight are never touched. */
        if (!entry || entry->queue != q ||
            (limit > 0 && entry->nrcpt >= limit)) {
            /* the job: the previous entry's, when it is this message's
             * job on t (the read has obtained it already, and nothing
             * between two recipients of one read can retire it, make it
             * a blocker or select from it: obtaining it again would only
             * repeat what was done; issue 16, a destination recipient
             * limit of 1 asks for it at every recipient) */
            qs_job *job;
            qs_peer *p;
            if (entry && entry->peer->job->transport == t) {
                job = entry->peer->job;
            } else {
                job = qsi_job_obtain(s, m, t);
                a->fresh = NULL;
                if (qsi_postfix(s) && !QSI_PEER_FIND_ALWAYS &&
                    job->peer_count == 0)
                    a->fresh = job;
            }
            /* the peer.  S-PFX-11's order is by transport, then by a key
             * that names one queue of the transport: the runs of one job
             * are consecutive, and so are, among them, those of one
             * queue.  A job that had no peer when the batch reached it
             * (fresh) therefore has a peer at q only if the previous run
             * made it: its last peer.  No look-up, and no map (jobs.c:
             * the postfix profile's jobs of many destinations built a
             * map at every arrival, which no one read when the message
             * was read in one batch; issue 16). */
            if (job == a->fresh)
                p = job->peer_tail && job->peer_tail->queue == q
                        ? job->peer_tail
                        : qsi_peer_create(s, job, q);
            else
                p = qsi_peer_obtain(s, job, q);
            entry = p->etail;
            if (!entry || (limit > 0 && entry->nrcpt >= limit))
                entry = qsi_entry_create(s, p);
        }
        /* as many of the run as the entry takes (one at a time, the
         * same), counted in core at every level: entry, job, message,
         * transport (with its peak), scheduler */
        if (limit > 0 && take > limit - entry->nrcpt)
            take = limit - entry->nrcpt;
        entry->nrcpt += take;
        QSI_CK_ENTRY(s, entry);
        qsi_job_count_add(m, entry->peer->job, take);
        m->rcpt_count += take;
        t->in_core += take;
        if (t->in_core > t->peak_in_core)
            t->peak_in_core = t->in_core;
        s->in_core += take;
        count -= take;
    }
    a->entry = entry;
}

/* 1: every batch resolved in the resolve order, as before settled batches
 * were told apart (tests/sh/settled-batches.sh builds the reference so) */
#ifndef QSI_RESOLVE_ALWAYS
#define QSI_RESOLVE_ALWAYS 0
#endif

/* Pass 3, postfix profile (S-PFX-11): put the batch in Postfix's
 * resolving order (batch_order.c), resolve it in that order - create
 * transports (S-PFX-13: each new one enters the round robin where it
 * resumes) and destinations, and defer the recipients of dead
 * destinations (S-CON-9), in runs in that order - then sort it into the
 * batch order (batch_order.c).  Returns the number of runs.
 *
 * Settled batches skip the resolve order (issue 16: the two sorts were a
 * third of the many-transports shape's arrival).  What the resolve order
 * decides is only the order of the resolution's side effects: which transport
 * and destination are created first, which dead destination's `defer` line
 * comes first.  When every run's transport and destination already exists and
 * lives (looked up first, in written order, with no side effect:
 * qsi_queue_live), there are none, and the batch order alone decides the
 * assignment.  That order is by transport, then destination key, and a key
 * names one queue of its transport: the batch is blocks of consecutive runs
 * bound for one queue, in the same block order whatever the order inside each
 * block, and a block's runs fill the same entries in any order (assign_run
 * continues the previous entry; recipients are counted, not named).  So
 * sorting the written order gives the same entries as sorting the resolve
 * order, and the runs that share a domain need not be split.
 *
 * A batch whose side effects are few is settled the same way, once they
 * are made (issue 16: 38% of the many-transports shape's batches were
 * not settled, and resolving them in the resolve order cost about 2.3
 * times a settled one).  An effect is a look-up that fails, of an
 * existing transport: a destination to create (none, or parked) or a
 * dead one.  The resolve order orders the effects among themselves and
 * nothing else matters of it: the recipients of destinations that exist
 * and live are resolved without a trace.  So the effects alone are put
 * in that order (batch_effects.c qsi_batch_fx_order: by domain, then
 * address, then written order, as the resolve order meets them) and made
 * in it:
 *  - a destination to create is created by the first of its recipients
 *    (qsi_queue_obtain), and the others find it;
 *  - the recipients of dead destinations are deferred in runs, one
 *    `defer` line per run of one destination, a run ending only at
 *    another dead destination, exactly as while resolving (below).
 * The batch is then settled: sorted into the batch order from the written
 * order as above (a short one by its queues, without splitting its runs:
 * batch_effects.c qsi_batch_order_settled).  A batch with a transport to
 * create, more than QSI_BATCH_FX_MAX effects, or effects whose order
 * needs the rest of the batch (qsi_batch_fx_order) is resolved as before,
 * and so is a batch of more than QSI_BATCH_FX_MAX runs at its first
 * effect (collecting and ordering a long batch's effects cost the sort
 * shape more than the resolve order it saved: 1.2% of its instructions);
 * the queues found stay with its runs (split runs copy them), nothing
 * being freed while resolving. */
static size_t batch_resolve_postfix(qs_sched *s, qs_message *m, size_t n,
                                    assign_state *a)
{
    struct qs_batch_rcpt *v = s->batch;
    qs_queue **own = s->batch_own; /* by ordinal - base: limit1 queues */
    int64_t base = v[0].ordinal, own_end = 0;
    size_t i = 0, out, k = 0, e;
    struct qs_batch_fx fx[QSI_BATCH_FX_MAX];
    /* The look-ups, in written order, until a transport to create, more
     * effects than fx holds, or a long batch's first effect: every run's
     * transport (pass 2 found it, if it exists) and queue (b->queue), the
     * queue of each recipient of a run whose destination is the recipient
     * (own, valid below own_end), and each failure (fx).  One run of one
     * destination (a refill, a small message) has no order to skip:
     * resolved at once, with one look-up. */
    if ((n > 1 || v[0].limit1) && !QSI_RESOLVE_ALWAYS) {
        for (; i < n; i++) {
            struct qs_batch_rcpt *b = &v[i];
            const qs_mgroup *g = &m->groups[b->group];
            qs_queue *q;
            char dest[QSI_ADDRESS_MAX];
            int64_t j;
            if (!g->t)
                break; /* a transport to create */
            if (!b->limit1) {
                b->queue = q = qsi_queue_live(g->t, g->nexthop,
                                              g->nexthop_len);
                if (q && !q->dead)
                    continue;
                if (k == QSI_BATCH_FX_MAX || n > QSI_BATCH_FX_MAX)
                    break;
                fx[k].run = i;
                fx[k].group = b->group;
                fx[k].index = b->index;
                fx[k].ordinal = b->ordinal;
                fx[k].count = b->count;
                fx[k].limit1 = 0;
                fx[k++].dead = q;
                continue;
            }
            for (j = 0; j < b->count; j++) {
                own_end = b->ordinal + j - base + 1;
                own[own_end - 1] = q = qsi_queue_live(
                    g->t, dest,
                    qsi_rcpt_address(g, b->index + j, b->ordinal + j, dest));
                if (q && !q->dead)
                    continue;
                if (k == QSI_BATCH_FX_MAX || n > QSI_BATCH_FX_MAX)
                    break;
                fx[k].run = i;
                fx[k].group = b->group;
                fx[k].index = b->index + j;
                fx[k].ordinal = b->ordinal + j;
                fx[k].count = 1;
                fx[k].limit1 = 1;
                fx[k++].dead = q;
            }
            if (j < b->count)
                break;
        }
    }
    if (i == n && qsi_batch_fx_order(m, fx, k)) { /* settled, once made */
        for (e = 0; e < k; e++) {
            struct qs_batch_fx *f = &fx[e];
            struct qs_batch_rcpt *b = &v[f->run];
            const qs_mgroup *g = &m->groups[f->group];
            qs_queue *q = f->dead;
            if (!q) { /* created by the first of its recipients (alive) */
                if (f->limit1) {
                    char dest[QSI_ADDRESS_MAX];
                    size_t len = qsi_rcpt_address(g, f->index, f->ordinal,
                                                  dest);
                    q = qsi_queue_obtain(s, g->t, dest, len);
                } else {
                    q = qsi_queue_obtain(s, g->t, g->nexthop,
                                         g->nexthop_len);
                }
            } else { /* S-CON-9: deferred, in runs (as below) */
                if (a->dead_q != q && a->dead_run > 0)
                    trace_dead_run(s, m, a); /* another dead one */
                a->dead_q = q;
                a->dead_run += f->count;
                m->deferred += f->count;
                s->stats.recipients_deferred += f->count;
            }
            if (f->limit1)
                own[f->ordinal - base] = q;
            else
                b->queue = q;
        }
        if (a->dead_run > 0)
            trace_dead_run(s, m, a);
        a->dead_q = NULL;
        if ((out = qsi_batch_order_settled(s, n, own, base)) > 0)
            return out; /* a short batch (most) */
        out = qsi_batch_split_own(s, n);
        for (i = 0; i < out; i++) {
            struct qs_batch_rcpt *b = &v[i];
            if (b->limit1)
                b->queue = own[b->ordinal - base];
            b->deferred = b->queue->dead;
        }
        qsi_batch_order_written(s, m, out);
        return out;
    }
    /* not settled: the resolve order and the resolution as ever, with the
     * queues found (runs copy theirs into their pieces; the look-up that
     * failed is made again by qsi_queue_obtain, which creates) */
    out = qsi_batch_resolve_order(s, m, n);
    for (i = 0; i < out; i++) {
        struct qs_batch_rcpt *b = &v[i];
        qs_mgroup *g = &m->groups[b->group];
        qs_queue *q;
        b->transport = group_transport(s, m, g);
        if (b->limit1 && b->ordinal - base < own_end &&
            own[b->ordinal - base])
            q = own[b->ordinal - base]; /* found above (nothing freed) */
        else if (b->queue)
            q = b->queue; /* found above */
        else if (b->limit1) {
            q = rcpt_queue(s, g->t, g, b->index, b->ordinal);
        } else if (i > 0 && v[i - 1].group == b->group) {
            /* the previous run's group: same transport, same next-hop,
             * so the same queue (nothing is freed while resolving); a
             * split domain's runs of one group come one after another
             * (issue 16: no look-up by name) */
            q = v[i - 1].queue;
        } else {
            q = nexthop_queue(s, g->t, g);
        }
        b->queue = q;
        b->deferred = q->dead;
        if (!q->dead)
            continue;
        if (a->dead_q != q && a->dead_run > 0)
            trace_dead_run(s, m, a);
        a->dead_q = q;
        a->dead_run += b->count;
        m->deferred += b->count;
        s->stats.recipients_deferred += b->count;
    }
    if (a->dead_run > 0)
        trace_dead_run(s, m, a);
    a->dead_q = NULL;
    /* the batch order, stable from the resolve order */
    qsi_batch_order(s, m, out);
    return out;
}

/* Read up to `limit` recipients in the order written (S-MEM-1), resolve
 * them, and assign them to jobs, peers and entries (S-PRE-1).
 *
 *     n = min(limit, unread)
 *     take the next n recipients from the cursor; create their transports
 *     (postfix profile: sort them)
 *     for each recipient:
 *         queue = the transport's queue for its destination (create)
 *         queue dead: defer the recipient (one `defer` line per run)
 *         else: entry = the previous recipient's entry if same queue and
 *               room, else the peer's last pending entry if room, else a
 *               new entry (job and peer found or created on the way)
 *               the recipient joins the entry; counts in core grow
 *     message fully read: each of its jobs gives back unused slots
 *     check the message at the end of the event
 *
 * The recipients travel in runs (struct qs_batch_rcpt): consecutive
 * recipients of one group bound for one destination are sorted and
 * assigned together, entry by entry, with the same result as one by one
 * (issue 16: a batch costs O(entries), not O(recipients)). */
void qsi_message_read(qs_sched *s, qs_message *m, int64_t limit)
{
    int64_t n = limit < m->rcpt_unread ? limit : m->rcpt_unread, left;
    int64_t ordinal = m->rcpt_total - m->rcpt_unread + 1, k;
    size_t nruns = 0, i, group;
    int64_t offset;
    int postfix = qsi_postfix(s);
    assign_state a = {NULL, NULL, 0, NULL};
    qs_trace r;

    if (n <= 0 && !m->end_unseen)
        return;
    /* S-PFX-16: a read that fills its limit does not see whether any
     * recipient is left; one that stops short has seen the end. */
    m->end_unseen = postfix && n == limit;
    /* Pass 1: the number of runs, and (document profile) the transports
     * of the batch, in the order their recipients are written.  A
     * transport exists from the first read naming it (its postfix profile
     * warning, S-PFX-7, appears then), and transport creation order is the
     * round-robin order of qs_select; the postfix profile creates them in
     * its resolve order instead (S-PFX-11, below), and only looks up here
     * whether the destination is the recipient. */
    for (left = n, group = m->cur_group, offset = m->cur_offset; left > 0;
         group++, offset = 0) {
        qs_mgroup *g = &m->groups[group];
        int64_t c = g->count - offset < left ? g->count - offset : left;
        if (!postfix)
            group_transport(s, m, g);
        nruns += postfix ? (size_t)c : 1; /* at most: see pass 3 */
        left -= c;
    }
    /* The buffer is the scheduler's and only grows: a run reads many
     * batches, and reallocating for each would cost more than keeping
     * the largest. */
    if (nruns > s->batch_cap) {
        /* the runs, twice as many sort keys (the second half is the
         * merge sort's scratch: batch_order.c sorts keys, not runs) and
         * a counter per rank a run can have (the buckets) */
        free(s->batch);
        free(s->batch_keys);
        free(s->batch_counts);
        free(s->batch_own);
        s->batch_cap = nruns;
        s->batch = qsi_calloc(s->batch_cap, sizeof *s->batch);
        s->batch_keys = qsi_calloc(2 * s->batch_cap, sizeof *s->batch_keys);
        s->batch_counts = qsi_calloc(s->batch_cap, sizeof *s->batch_counts);
        s->batch_own = qsi_calloc(s->batch_cap, sizeof *s->batch_own);
    }
    /* Pass 2: move the cursor over the next n recipients, group by group
     * ("continuing where the last recipient batch ended"), noting for each
     * run its group, its first recipient's index in the group and ordinal
     * in the message (the names of S-EV-4 use them). */
    for (left = n, nruns = 0; left > 0;) {
        qs_mgroup *g = &m->groups[m->cur_group];
        int64_t c = g->count - m->cur_offset < left ? g->count - m->cur_offset
                                                    : left;
        struct qs_batch_rcpt *b = &s->batch[nruns++];
        b->group = m->cur_group;
        b->index = m->cur_offset + 1;
        b->ordinal = ordinal;
        b->count = c;
        b->queue = NULL;
        if (g->t)
            b->limit1 = g->t->dest_rcpt_limit == 1;
        else if (nruns > 1 &&
                 m->groups[b[-1].group].transport == g->transport) {
            /* the previous group's transport (the same name: the groups
             * are in a row, and the message shares the copy, messages.c),
             * the same parameter, and the same transport if it exists
             * (NULL if not) */
            g->t = m->groups[b[-1].group].t;
            b->limit1 = b[-1].limit1;
        }
        else if ((g->t = qsi_transport_find_len(s, g->transport,
                                                g->transport_len)) != NULL)
            /* an existing transport is the object the resolve would find
             * (transports live as long as the scheduler; finding one
             * creates nothing): its limit is the parameter, resolved
             * once (issue 16: no parameter look-up by name) */
            b->limit1 = g->t->dest_rcpt_limit == 1;
        else
            b->limit1 = qs_param_int(s->params, g->transport,
                                     QP_DEST_RCPT_LIMIT) == 1;
        b->transport = g->t; /* (NULL: postfix profile, a new one) */
        b->deferred = 0;
        ordinal += c;
        left -= c;
        m->cur_offset += c;
        if (m->cur_offset == g->count) {
            m->cur_group++;
            m->cur_offset = 0;
        }
    }
    /* The recipients are read: no longer in the queue file, and the time
     * of this read restarts the refill delay (S-MEM-7). */
    m->rcpt_unread -= n;
    m->refill_time = s->now;
    QSI_CK_MSG(s, m);
    s->stats.reads++;
    if (QSI_EXPLAIN(s)) { /* `read` is of the explain level */
        qsi_trace_start(&r, QS_T_READ);
        r.msg = m->id;
        r.n = n;
        r.a = m->rcpt_unread;
        r.b = limit;
        qsi_emit(s, &r);
    }
    if (postfix)
        nruns = batch_resolve_postfix(s, m, nruns, &a);

    /* Pass 4: assign, in batch order (written order, or sorted). */
    for (i = 0; i < nruns; i++) {
        struct qs_batch_rcpt *b = &s->batch[i];
        qs_mgroup *g = &m->groups[b->group];
        qs_transport *t = b->transport;
        if (b->deferred)
            continue; /* postfix profile: deferred while resolving */
        if (postfix) {
            /* the queue found while resolving (nothing is freed since) */
            assign_run(s, m, t, b->queue, b->count, &a);
            continue;
        }
        if (t->dest_rcpt_limit != 1) {
            /* the destination is the next-hop: one queue for the run */
            assign_run(s, m, t, nexthop_queue(s, t, g), b->count, &a);
            continue;
        }
        /* the destination is the recipient: a queue each */
        for (k = 0; k < b->count; k++)
            assign_run(s, m, t, rcpt_queue(s, t, g, b->index + k,
                                           b->ordinal + k), 1, &a);
    }
    if (a.dead_run > 0)
        trace_dead_run(s, m, &a);
    /* every job of the message has a new total (read entries + unread
     * recipients): the candidate index learns it (for a job linked by
     * this read, the first repair of its path: job_link leaves it to
     * this loop, job_index.c qsi_cix_insert); and S-PFX-20: the
     * transports where one of them could be a candidate forget their
     * cached answer */
    {
        qs_job *j;
        for (j = m->jobs; j; j = j->mnext) {
            qsi_cix_update(j);
            if (QS_HAS_ENTRIES(j) && !qsi_is_blocker(j))
                QSI_CAND_RESET(j->transport);
        }
    }
    if (s->in_core > s->stats.peak_in_core)
        s->stats.peak_in_core = s->in_core;
    /* Fully read: every job gives back what it does not need (S-MEM-5).
     * The document: a job keeps its slots "until all recipients of its
     * message are read.  When this happens, all unused recipient slots are
     * transferred to the next job" with unread recipients.  "Fully read"
     * is QS_UNREAD (S-PFX-16 in the postfix profile). */
    if (!QS_UNREAD(m)) {
        qs_job *j;
        for (j = m->jobs; j; j = j->mnext)
            qsi_job_move_limits(s, j);
    }
    qsi_message_schedule_check(s, m);
}
