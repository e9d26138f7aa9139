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
 * batch order), and the slot hand-back of a fully read message (S-MEM-5).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"

/* One recipient of the batch being read: which group it comes from and
 * its position, enough to name it (rcpt_dest) and to sort the batch. */
struct qs_batch_rcpt {
    size_t group;
    int64_t index;    /* 1-based within the group */
    int64_t ordinal;  /* 1-based within the message */
    int deferred;     /* postfix profile: its destination was dead */
};

/* S-EV-4: with a destination recipient limit of 1 the destination is the
 * recipient, LOCAL@NEXTHOP; unnamed recipients are rN@NEXTHOP (N = their
 * ordinal in the message), named ones with COUNT > 1 are LOCAL.J@NEXTHOP.
 * Otherwise the destination is the next-hop.  A destination recipient
 * limit of 1 (the local transport's default, S-EV-3) makes Postfix
 * schedule per recipient: each recipient is its own destination, with its
 * own window.  The names make those destinations distinct and readable in
 * the trace: in `arrive M2 local:bob@h*2 local:h`, the recipients are
 * bob.1@h and bob.2@h (index in the group) and r3@h (ordinal in the
 * message, since it has no name). */
static void rcpt_dest(const qs_transport *t, const qs_mgroup *g,
                      const struct qs_batch_rcpt *b, char *buf, size_t len)
{
    if (t->dest_rcpt_limit != 1) {
        size_t n = strlen(g->nexthop);   /* <= 200 (parser), len is 512 */
        if (n >= len)
            n = len - 1;
        memcpy(buf, g->nexthop, n);
        buf[n] = 0;
    } else if (!g->local)
        snprintf(buf, len, "r%lld@%s", (long long)b->ordinal, g->nexthop);
    else if (g->count == 1)
        snprintf(buf, len, "%s@%s", g->local, g->nexthop);
    else
        snprintf(buf, len, "%s.%lld@%s", g->local, (long long)b->index,
                 g->nexthop);
}

/* S-PFX-11: the postfix profile sorts each batch by transport, then
 * destination name, then domain, then address (byte order); recipients
 * equal in all four keep their written order (the sort is stable).
 * The document is silent about the order in which a batch is assigned;
 * Postfix sorts the recipients it reads so that recipients for one
 * destination are adjacent and share entries.  The order decides which
 * entries, and which peers in which round-robin order, a batch creates,
 * so it is visible in the trace; the document profile keeps the order
 * written (S-MEM-1). */
static int batch_cmp(const qs_sched *s, const qs_message *m,
                     const struct qs_batch_rcpt *a,
                     const struct qs_batch_rcpt *b)
{
    const qs_mgroup *ga = &m->groups[a->group];
    const qs_mgroup *gb = &m->groups[b->group];
    char da[512], db[512];
    qs_transport one;
    int c = strcmp(ga->transport, gb->transport);
    if (c)
        return c;
    rcpt_dest(qsi_transport_find(s, ga->transport), ga, a, da, sizeof da);
    rcpt_dest(qsi_transport_find(s, gb->transport), gb, b, db, sizeof db);
    if ((c = strcmp(da, db)) != 0)
        return c;
    if ((c = strcmp(ga->nexthop, gb->nexthop)) != 0)
        return c;
    memset(&one, 0, sizeof one);
    one.dest_rcpt_limit = 1; /* full address LOCAL@NEXTHOP */
    rcpt_dest(&one, ga, a, da, sizeof da);
    rcpt_dest(&one, gb, b, db, sizeof db);
    return strcmp(da, db);
}

/* ASCII case-insensitive comparison, as Postfix compares domains when
 * SMTPUTF8 is off (strcasecmp_utf8). */
static int domain_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = *a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a;
        int cb = *b >= 'A' && *b <= 'Z' ? *b - 'A' + 'a' : *b;
        if (ca != cb || !ca)
            return (unsigned char)ca - (unsigned char)cb;
    }
}

/* S-PFX-11: before it resolves a batch, Postfix sorts it by recipient
 * domain, then by address; the resolver then meets the transports and
 * destinations in that order (and defers recipients of dead destinations
 * in that order). */
static int resolve_cmp(const qs_sched *s, const qs_message *m,
                       const struct qs_batch_rcpt *a,
                       const struct qs_batch_rcpt *b)
{
    const qs_mgroup *ga = &m->groups[a->group];
    const qs_mgroup *gb = &m->groups[b->group];
    char da[512], db[512];
    qs_transport one;
    int c = domain_cmp(ga->nexthop, gb->nexthop);
    (void)s;
    if (c)
        return c;
    memset(&one, 0, sizeof one);
    one.dest_rcpt_limit = 1; /* full address LOCAL@NEXTHOP */
    rcpt_dest(&one, ga, a, da, sizeof da);
    rcpt_dest(&one, gb, b, db, sizeof db);
    return strcmp(da, db);
}

typedef int (*batch_cmp_fn)(const qs_sched *, const qs_message *,
                            const struct qs_batch_rcpt *,
                            const struct qs_batch_rcpt *);

/* Stable merge sort with context (qsort has neither): stability keeps
 * equal recipients in written order, which makes the result independent
 * of the C library's qsort. */
static void batch_sort(const qs_sched *s, const qs_message *m,
                       batch_cmp_fn cmp, struct qs_batch_rcpt *v,
                       struct qs_batch_rcpt *tmp, size_t n)
{
    size_t mid = n / 2, i = 0, j = mid, k = 0;
    if (n < 2)
        return;
    batch_sort(s, m, cmp, v, tmp, mid);
    batch_sort(s, m, cmp, v + mid, tmp, n - mid);
    while (i < mid && j < n)
        tmp[k++] = cmp(s, m, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
    while (i < mid)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* S-CON-9: a run of recipients deferred because their destination is
 * dead (spec/trace.md, `defer`). */
static void defer_run_emit(qs_sched *s, const qs_message *m, qs_queue *q,
                           int64_t n)
{
    qs_trace r;
    if (n <= 0)
        return;
    r = qsi_trace_init(QS_T_DEFER);
    r.msg = m->id;
    r.transport = q->transport->name;
    r.dest = q->name;
    r.n = n;
    qsi_emit(s, &r);
}

/* Postfix profile: resolve the batch in Postfix's resolving order
 * (S-PFX-11): create transports (S-PFX-13: each new one enters the round
 * robin where it resumes) and destinations, and defer the recipients of
 * dead destinations (S-CON-9), in runs in that order. */
static void batch_resolve_postfix(qs_sched *s, qs_message *m, int64_t n)
{
    qs_queue *dead_q = NULL;
    int64_t dead_run = 0, i;
    char dest[512];
    batch_sort(s, m, resolve_cmp, s->batch, s->batch + n, (size_t)n);
    for (i = 0; i < n; i++) {
        struct qs_batch_rcpt *b = &s->batch[i];
        qs_mgroup *g = &m->groups[b->group];
        qs_transport *t = qsi_transport_obtain(s, g->transport);
        qs_queue *q;
        rcpt_dest(t, g, b, dest, sizeof dest);
        q = qsi_queue_obtain(s, t, dest);
        b->deferred = q->dead;
        if (!q->dead)
            continue;
        if (dead_q != q) {
            defer_run_emit(s, m, dead_q, dead_run);
            dead_run = 0;
        }
        dead_q = q;
        dead_run++;
        m->deferred++;
        s->stats.recipients_deferred++;
    }
    defer_run_emit(s, m, dead_q, dead_run);
    batch_sort(s, m, batch_cmp, s->batch, s->batch + n, (size_t)n);
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
 * Transports are created in the first pass, in the order the recipients
 * are read, before any sorting: the sort needs each transport's
 * destination recipient limit to name destinations, and transport
 * creation order is the round-robin order of qs_select. */
void qsi_message_read(qs_sched *s, qs_message *m, int64_t limit)
{
    int64_t n = limit < m->rcpt_unread ? limit : m->rcpt_unread, i;
    /* recipients read before this batch: ordinals continue from there */
    int64_t ordinal_base = m->rcpt_total - m->rcpt_unread;
    qs_entry *entry = NULL;
    qs_queue *dead_q = NULL, *last_q = NULL;
    qs_transport *t = NULL;
    size_t last_group = (size_t)-1;
    int64_t dead_run = 0;
    char dest[512];
    qs_trace r;

    if (n <= 0 && !m->end_unseen)
        return;
    /* S-PFX-16: a read that fills its limit does not see whether any
     * recipient is left; one that stops short has seen the end. */
    m->end_unseen = qsi_postfix(s) && n == limit;
    /* The buffer is the scheduler's and only grows: a run reads many
     * batches, and reallocating for each would cost more than keeping
     * the largest. */
    if ((size_t)n > s->batch_cap) {
        /* twice the batch: the second half is the merge sort's scratch */
        free(s->batch);
        s->batch_cap = (size_t)n;
        s->batch = qsi_calloc(2 * s->batch_cap, sizeof *s->batch);
    }
    /* First pass: move the cursor over the next n recipients, group by
     * group ("continuing where the last recipient batch ended"), noting
     * for each its group, its index in the group and its ordinal in the
     * message (the names of S-EV-4 use them). */
    for (i = 0; i < n; i++) {
        qs_mgroup *g = &m->groups[m->cur_group];
        s->batch[i].group = m->cur_group;
        s->batch[i].index = m->cur_offset + 1;
        s->batch[i].ordinal = ordinal_base + i + 1;
        s->batch[i].deferred = 0;
        /* a transport exists from the first read naming it (its postfix
         * profile warning, S-PFX-7, appears then); the postfix profile
         * creates transports in its resolve order instead (S-PFX-11) */
        if (!qsi_postfix(s))
            qsi_transport_obtain(s, g->transport);
        if (++m->cur_offset == g->count) {
            m->cur_group++;
            m->cur_offset = 0;
        }
    }
    /* The recipients are read: no longer in the queue file, and the time
     * of this read restarts the refill delay (S-MEM-7). */
    m->rcpt_unread -= n;
    m->refill_time = s->now;
    s->stats.reads++;
    r = qsi_trace_init(QS_T_READ);
    r.msg = m->id;
    r.n = n;
    r.a = m->rcpt_unread;
    r.b = limit;
    qsi_emit(s, &r);
    if (qsi_postfix(s))
        batch_resolve_postfix(s, m, n);

    /* Second pass: assign, in batch order (written order, or sorted). */
    for (i = 0; i < n; i++) {
        struct qs_batch_rcpt *b = &s->batch[i];
        qs_mgroup *g = &m->groups[b->group];
        qs_queue *q;
        /* Consecutive recipients of one group share transport and, unless
         * the destination is the recipient, destination: look up once. */
        if (b->group != last_group || t->dest_rcpt_limit == 1) {
            if (b->group != last_group)
                t = qsi_transport_find(s, g->transport);
            rcpt_dest(t, g, b, dest, sizeof dest);
            last_q = qsi_queue_obtain(s, t, dest);
            last_group = b->group;
        }
        q = last_q;
        if (b->deferred)
            continue;   /* postfix profile: deferred while resolving */
        /* S-CON-9: recipients for a dead destination are deferred at once
         * (the document: a queue is instantiated "unless it's dead"). */
        /* Consecutive deferrals at one destination make one `defer` line
         * (a run); a new destination, or the end of the batch, closes the
         * run.  The recipients never enter core. */
        if (q->dead) {
            if (dead_q != q) {
                defer_run_emit(s, m, dead_q, dead_run);
                dead_run = 0;
            }
            dead_q = q;
            dead_run++;
            m->deferred++;
            s->stats.recipients_deferred++;
            continue;
        }
        /* Batch per destination up to TRANSPORT_destination_recipient_limit:
         * continue the previous entry, else the peer's last unselected
         * entry if it has room, else a new entry.
         * Reusing the peer's last pending entry is Postfix's loader: an
         * entry of an earlier batch that is still waiting is topped up
         * rather than a small new one made, so fewer, fuller deliveries
         * go out.  A limit of 0 means no limit (one entry per
         * destination).  Entries already in flight are never touched. */
        if (!entry || entry->queue != q ||
            (t->dest_rcpt_limit > 0 && entry->nrcpt >= t->dest_rcpt_limit)) {
            qs_job *job = qsi_job_obtain(s, m, t);
            qs_peer *p = qsi_peer_obtain(s, job, q);
            entry = p->etail;
            if (!entry || (t->dest_rcpt_limit > 0 &&
                           entry->nrcpt >= t->dest_rcpt_limit))
                entry = qsi_entry_create(p);
        }
        /* One recipient more in core, counted at every level: entry, job,
         * message, transport (with its peak), scheduler. */
        entry->nrcpt++;
        entry->peer->job->rcpt_count++;
        m->rcpt_count++;
        t->in_core++;
        if (t->in_core > t->peak_in_core)
            t->peak_in_core = t->in_core;
        s->in_core++;
    }
    defer_run_emit(s, m, dead_q, dead_run);
    /* S-PFX-20: the unread count of every job of the message changed:
     * transports where one of them could be a candidate forget their
     * cached answer. */
    {
        qs_job *j;
        for (j = m->jobs; j; j = j->mnext)
            if (QS_HAS_ENTRIES(j) && !QS_IS_BLOCKER(j))
                QSI_CAND_RESET(j->transport);
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
