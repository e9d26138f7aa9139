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
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"

/* One run of a batch: `count` consecutive recipients (in written order)
 * of one group that share their sort key, so that they can be sorted and
 * assigned as one item.  A run is the whole slice of a group that the
 * batch reads, except for a transport whose destination is the recipient
 * (destination recipient limit 1, S-EV-4) in the postfix profile: there
 * every recipient has its own key and is a run of its own. */
struct qs_batch_rcpt {
    size_t group;
    int64_t index;    /* 1-based within the group, of the run's first */
    int64_t ordinal;  /* 1-based within the message, of the run's first */
    int64_t count;
    qs_transport *transport;
    /* S-PFX-11 sort key, computed once per run (postfix profile only):
     * the transport name's rank among the batch's transports, then the
     * destination key's first 8 bytes, big-endian, NUL-padded. */
    size_t rank;
    uint64_t prefix;
    int key_short;    /* the destination key is shorter than 8 bytes */
};

/* Decimal digits of v > 0 at p; returns the end. */
static char *put_num(char *p, int64_t v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

/* S-EV-4: with a destination recipient limit of 1 the destination is the
 * recipient's full address, LOCAL@NEXTHOP: unnamed recipients are
 * rN@NEXTHOP (N = their ordinal in the message), named ones with COUNT > 1
 * are LOCAL.J@NEXTHOP (J = their index in the group); otherwise the
 * destination is the next-hop.  A destination recipient limit of 1 (the
 * local transport's default, S-EV-3) makes Postfix schedule per
 * recipient: each recipient is its own destination, with its own window.
 * The names make those destinations distinct and readable in the trace:
 * in `arrive M2 local:bob@h*2 local:h`, the recipients are bob.1@h and
 * bob.2@h (index in the group) and r3@h (ordinal in the message, since it
 * has no name).  buf holds
 * at least 64 + 1 + 20 + 1 + 200 + 1 bytes (the parser's limits); returns
 * the length.  Built by hand, not by snprintf: with a destination
 * recipient limit of 1 it runs once per recipient. */
static size_t rcpt_address(const qs_mgroup *g, int64_t index,
                           int64_t ordinal, char *buf)
{
    char *p = buf;
    size_t n;
    if (!g->local) {
        *p++ = 'r';
        p = put_num(p, ordinal);
    } else {
        n = strlen(g->local);
        memcpy(p, g->local, n);
        p += n;
        if (g->count != 1) {
            *p++ = '.';
            p = put_num(p, index);
        }
    }
    *p++ = '@';
    n = strlen(g->nexthop);
    memcpy(p, g->nexthop, n + 1);
    return (size_t)(p - buf) + n;
}

#define ADDRESS_MAX 512

/* S-PFX-11: the postfix profile sorts each batch by transport, then
 * destination name, then domain, then address (byte order); recipients
 * equal in all four keep their written order (the sort is stable).
 * The document is silent about the order in which a batch is assigned;
 * Postfix sorts the recipients it reads so that recipients for one
 * destination are adjacent and share entries.  The order decides which
 * entries, and which peers in which round-robin order, a batch creates,
 * so it is visible in the trace; the document profile keeps the order
 * written (S-MEM-1).
 * What the order can change is only which destination queue each
 * recipient meets in turn; so the comparison is reduced, exactly, to:
 *  - destination recipient limit != 1: destination = domain = NEXTHOP;
 *    recipients of one transport and one next-hop go to one queue, and
 *    their order among themselves (by address) changes nothing that the
 *    scheduler does with them: key (transport, NEXTHOP);
 *  - limit 1: destination = address = LOCAL@NEXTHOP, and equal addresses
 *    have equal domains: key (transport, address).
 * The key is computed once per run (not twice per comparison, as a
 * comparator building both addresses would): a rank for the transport
 * name and the first 8 bytes of the destination key in one integer; the
 * whole strings are compared only when those agree. */
static void run_key(const qs_message *m, struct qs_batch_rcpt *b)
{
    const qs_mgroup *g = &m->groups[b->group];
    char buf[ADDRESS_MAX];
    const char *key = g->nexthop;
    uint64_t prefix = 0;
    int i, ended = 0;
    if (b->transport->dest_rcpt_limit == 1) {
        rcpt_address(g, b->index, b->ordinal, buf);
        key = buf;
    }
    for (i = 0; i < 8; i++) {
        unsigned char c = ended ? 0 : (unsigned char)key[i];
        if (c == 0)
            ended = 1;
        prefix = prefix << 8 | c;
    }
    b->prefix = prefix;
    b->key_short = ended;
}

static int run_cmp(const qs_message *m, const struct qs_batch_rcpt *a,
                   const struct qs_batch_rcpt *b)
{
    const qs_mgroup *ga, *gb;
    char da[ADDRESS_MAX], db[ADDRESS_MAX];
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->prefix != b->prefix)
        return a->prefix < b->prefix ? -1 : 1;
    if (a->key_short)
        return 0; /* both keys ended within the equal 8 bytes */
    ga = &m->groups[a->group];
    gb = &m->groups[b->group];
    if (a->transport->dest_rcpt_limit != 1)
        return strcmp(ga->nexthop, gb->nexthop);
    rcpt_address(ga, a->index, a->ordinal, da);
    rcpt_address(gb, b->index, b->ordinal, db);
    return strcmp(da, db);
}

/* Stable merge sort with context (qsort has neither): stability keeps
 * equal runs in written order, which makes the result independent of the
 * C library's qsort. */
static void batch_sort(const qs_message *m, struct qs_batch_rcpt *v,
                       struct qs_batch_rcpt *tmp, size_t n)
{
    size_t mid = n / 2, i = 0, j = mid, k = 0;
    if (n < 2)
        return;
    batch_sort(m, v, tmp, mid);
    batch_sort(m, v + mid, tmp, n - mid);
    if (run_cmp(m, &v[mid - 1], &v[mid]) <= 0)
        return; /* already in order (a written order often is) */
    while (i < mid && j < n)
        tmp[k++] = run_cmp(m, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
    while (i < mid)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static int transport_name_cmp(const void *a, const void *b)
{
    const qs_transport *x = *(qs_transport *const *)a;
    const qs_transport *y = *(qs_transport *const *)b;
    return strcmp(x->name, y->name);
}

/* The sort keys of a batch's runs: transports ranked by name (few), then
 * each run's destination key. */
static void batch_keys(qs_sched *s, const qs_message *m,
                       struct qs_batch_rcpt *v, size_t n)
{
    qs_transport *few[16], **names = few, *t;
    size_t i, nnames = 0;
    uint64_t stamp = (uint64_t)s->stats.reads; /* this batch's number */
    if (s->ntransports > sizeof few / sizeof few[0])
        names = qsi_calloc(s->ntransports, sizeof *names);
    for (i = 0; i < n; i++) {
        t = v[i].transport;
        if (t->batch_stamp != stamp) {
            t->batch_stamp = stamp;
            names[nnames++] = t;
        }
    }
    qsort(names, nnames, sizeof *names, transport_name_cmp);
    for (i = 0; i < nnames; i++)
        names[i]->batch_rank = i;
    if (names != few)
        free(names);
    for (i = 0; i < n; i++) {
        v[i].rank = v[i].transport->batch_rank;
        run_key(m, &v[i]);
    }
}

/* Where the recipients of the batch go: the state of the assignment loop
 * between runs. */
typedef struct assign_state {
    qs_entry *entry;     /* the entry the previous recipient went into */
    qs_queue *dead_q;    /* the dead queue of the pending defer line */
    int64_t dead_run;    /* its recipients so far */
} assign_state;

static void trace_dead_run(qs_sched *s, qs_message *m, assign_state *a)
{
    qs_trace r = qsi_trace_init(QS_T_DEFER);
    r.msg = m->id;
    r.transport = a->dead_q->transport->name;
    r.dest = a->dead_q->name;
    r.n = a->dead_run;
    qsi_emit(s, &r);
    a->dead_run = 0;
}

/* `count` recipients of one run, in order, to queue q of transport t. */
static void assign_run(qs_sched *s, qs_message *m, qs_transport *t,
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
            qs_job *job = qsi_job_obtain(s, m, t);
            qs_peer *p = qsi_peer_obtain(s, job, q);
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
        entry->peer->job->rcpt_count += take;
        m->rcpt_count += take;
        t->in_core += take;
        if (t->in_core > t->peak_in_core)
            t->peak_in_core = t->in_core;
        s->in_core += take;
        count -= take;
    }
    a->entry = entry;
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
    int sorted = qsi_postfix(s);
    assign_state a = {NULL, NULL, 0};
    char dest[ADDRESS_MAX];
    qs_trace r;

    if (n <= 0)
        return;
    /* Pass 1: the transports of the batch, in the order their recipients
     * are written, and the number of runs.  A transport exists from the
     * first read naming it (its postfix profile warning, S-PFX-7, appears
     * then), before any sorting: the sort needs each transport's
     * destination recipient limit to name destinations, and transport
     * creation order is the round-robin order of qs_select. */
    for (left = n, group = m->cur_group, offset = m->cur_offset; left > 0;
         group++, offset = 0) {
        qs_mgroup *g = &m->groups[group];
        int64_t c = g->count - offset < left ? g->count - offset : left;
        qs_transport *t = g->t;
        if (!t)
            t = g->t = qsi_transport_obtain(s, g->transport);
        nruns += sorted && t->dest_rcpt_limit == 1 ? (size_t)c : 1;
        left -= c;
    }
    /* The buffer is the scheduler's and only grows: a run reads many
     * batches, and reallocating for each would cost more than keeping
     * the largest. */
    if (nruns > s->batch_cap) {
        /* twice the runs: the second half is the merge sort's scratch */
        free(s->batch);
        s->batch_cap = nruns;
        s->batch = qsi_calloc(2 * s->batch_cap, sizeof *s->batch);
    }
    /* Pass 2: move the cursor over the next n recipients, group by group
     * ("continuing where the last recipient batch ended"), noting for each
     * run its group, its first recipient's index in the group and ordinal
     * in the message (the names of S-EV-4 use them). */
    for (left = n, nruns = 0; left > 0;) {
        qs_mgroup *g = &m->groups[m->cur_group];
        int64_t c = g->count - m->cur_offset < left ? g->count - m->cur_offset
                                                    : left;
        qs_transport *t = g->t;
        int split = sorted && t->dest_rcpt_limit == 1;
        for (k = 0; k < (split ? c : 1); k++) {
            struct qs_batch_rcpt *b = &s->batch[nruns++];
            b->group = m->cur_group;
            b->index = m->cur_offset + 1 + k;
            b->ordinal = ordinal + k;
            b->count = split ? 1 : c;
            b->transport = t;
        }
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
    if (sorted && nruns > 1) {
        batch_keys(s, m, s->batch, nruns);
        batch_sort(m, s->batch, s->batch + nruns, nruns);
    }
    r = qsi_trace_init(QS_T_READ);
    r.msg = m->id;
    r.n = n;
    r.a = m->rcpt_unread;
    r.b = limit;
    qsi_emit(s, &r);

    for (i = 0; i < nruns; i++) {
        struct qs_batch_rcpt *b = &s->batch[i];
        qs_mgroup *g = &m->groups[b->group];
        qs_transport *t = b->transport;
        if (t->dest_rcpt_limit != 1) {
            /* the destination is the next-hop: one queue for the run */
            assign_run(s, m, t, qsi_queue_obtain(s, t, g->nexthop), b->count,
                       &a);
            continue;
        }
        /* the destination is the recipient: a queue each */
        for (k = 0; k < b->count; k++) {
            rcpt_address(g, b->index + k, b->ordinal + k, dest);
            assign_run(s, m, t, qsi_queue_obtain(s, t, dest), 1, &a);
        }
    }
    if (a.dead_run > 0)
        trace_dead_run(s, m, &a);
    /* every job of the message has a new total (read entries + unread
     * recipients): the candidate index learns it */
    {
        qs_job *j;
        for (j = m->jobs; j; j = j->mnext)
            qsi_cix_update(j);
    }
    if (s->in_core > s->stats.peak_in_core)
        s->stats.peak_in_core = s->in_core;
    /* Fully read: every job gives back what it does not need (S-MEM-5).
     * The document: a job keeps its slots "until all recipients of its
     * message are read.  When this happens, all unused recipient slots are
     * transferred to the next job" with unread recipients. */
    if (m->rcpt_unread == 0) {
        qs_job *j;
        for (j = m->jobs; j; j = j->mnext)
            qsi_job_move_limits(s, j);
    }
    qsi_message_schedule_check(s, m);
}
