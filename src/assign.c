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
 * of one group that share their sort keys, so that they can be sorted and
 * assigned as one item.  A run is the whole slice of a group that the
 * batch reads, except in the postfix profile where its recipients must be
 * told apart: when the destination is the recipient (destination
 * recipient limit 1, S-EV-4), or when another run of the batch has the
 * same domain (the resolve order interleaves them by address): there
 * every recipient is a run of its own. */
struct qs_batch_rcpt {
    size_t group;
    int64_t index;    /* 1-based within the group, of the run's first */
    int64_t ordinal;  /* 1-based within the message, of the run's first */
    int64_t count;
    qs_transport *transport; /* NULL until the postfix profile resolves */
    int limit1;       /* its transport's destination recipient limit is 1 */
    qs_queue *queue;  /* postfix profile: its queue, found while resolving
                         (a run of one recipient when limit1) */
    int deferred;     /* postfix profile: its destination was dead */
    /* S-PFX-11 sort keys, computed once per run (postfix profile only):
     * for the resolve order, the domain's first 8 bytes in lower case;
     * for the batch order, the transport name's rank among the batch's
     * transports; and the first 8 bytes of the address (resolve order) or
     * of the destination key (batch order), big-endian, NUL-padded. */
    uint64_t dprefix;
    int dkey_short;   /* the domain is shorter than 8 bytes */
    size_t rank;
    uint64_t prefix;
    int key_short;    /* the key is shorter than 8 bytes */
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
static uint64_t key_prefix(const char *key, int lower, int *ended);

static void run_key(const qs_message *m, struct qs_batch_rcpt *b)
{
    const qs_mgroup *g = &m->groups[b->group];
    char buf[ADDRESS_MAX];
    const char *key = g->nexthop;
    if (b->transport->dest_rcpt_limit == 1) {
        rcpt_address(g, b->index, b->ordinal, buf);
        key = buf;
    }
    b->prefix = key_prefix(key, 0, &b->key_short);
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

/* ASCII case-insensitive comparison, as Postfix compares domains when
 * SMTPUTF8 is off (strcasecmp_utf8). */
static int domain_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        if (*a == *b && *a)
            continue; /* equal bytes fold equally: the usual case */
        int ca = *a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a;
        int cb = *b >= 'A' && *b <= 'Z' ? *b - 'A' + 'a' : *b;
        if (ca != cb || !ca)
            return (unsigned char)ca - (unsigned char)cb;
    }
}

/* The first 8 bytes of key, big-endian and NUL-padded, lower-cased or
 * not; *ended: key is shorter than 8 bytes (the prefix holds all of it). */
static uint64_t key_prefix(const char *key, int lower, int *ended)
{
    uint64_t prefix = 0;
    int i;
    for (i = 0; i < 8 && key[i]; i++) {
        unsigned char c = (unsigned char)key[i];
        if (lower && c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        prefix = prefix << 8 | c;
    }
    *ended = i < 8;
    return i ? prefix << 8 * (8 - i) : 0; /* NUL-padded to 8 bytes */
}

/* S-PFX-11, the resolve order: before it resolves a batch, Postfix sorts
 * it by recipient domain (case-insensitively), then by address; the
 * resolver then meets the transports and destinations in that order (and
 * defers recipients of dead destinations in that order).  Keys computed
 * once per run (resolve_keys), whole strings only when the prefixes
 * agree.  A run that is not one recipient is alone with its domain in the
 * batch (see struct qs_batch_rcpt), so its address is never compared. */
static int resolve_cmp(const qs_message *m, const struct qs_batch_rcpt *a,
                       const struct qs_batch_rcpt *b)
{
    const qs_mgroup *ga = &m->groups[a->group];
    const qs_mgroup *gb = &m->groups[b->group];
    char da[ADDRESS_MAX], db[ADDRESS_MAX];
    int c;
    if (a->dprefix != b->dprefix)
        return a->dprefix < b->dprefix ? -1 : 1;
    if (!a->dkey_short && (c = domain_cmp(ga->nexthop, gb->nexthop)) != 0)
        return c;
    if (a->prefix != b->prefix)
        return a->prefix < b->prefix ? -1 : 1;
    if (a->key_short)
        return 0;
    rcpt_address(ga, a->index, a->ordinal, da);
    rcpt_address(gb, b->index, b->ordinal, db);
    return strcmp(da, db);
}

/* The resolve keys of a run: its domain's; and its address's if it is one
 * recipient that shares its domain (whole runs never compare addresses:
 * see resolve_cmp). */
static void resolve_keys(const qs_message *m, struct qs_batch_rcpt *b,
                         int address)
{
    const qs_mgroup *g = &m->groups[b->group];
    char buf[ADDRESS_MAX];
    b->dprefix = key_prefix(g->nexthop, 1, &b->dkey_short);
    b->prefix = 0;
    b->key_short = 1;
    if (address) {
        rcpt_address(g, b->index, b->ordinal, buf);
        b->prefix = key_prefix(buf, 0, &b->key_short);
    }
}

typedef int (*run_cmp_fn)(const qs_message *, const struct qs_batch_rcpt *,
                          const struct qs_batch_rcpt *);

/* Stable merge sort with context (qsort has neither): stability keeps
 * equal runs in the order they had (written order, or the resolve order
 * for the batch order), which makes the result independent of the C
 * library's qsort. */
static void batch_sort(const qs_message *m, run_cmp_fn cmp,
                       struct qs_batch_rcpt *v, struct qs_batch_rcpt *tmp,
                       size_t n)
{
    size_t mid = n / 2, i = 0, j = mid, k = 0;
    if (n < 2)
        return;
    batch_sort(m, cmp, v, tmp, mid);
    batch_sort(m, cmp, v + mid, tmp, n - mid);
    if (cmp(m, &v[mid - 1], &v[mid]) <= 0)
        return; /* already in order (a written order often is) */
    while (i < mid && j < n)
        tmp[k++] = cmp(m, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
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

/* Pass 3, postfix profile (S-PFX-11): resolve the batch in Postfix's
 * resolving order - create transports (S-PFX-13: each new one enters the
 * round robin where it resumes) and destinations, and defer the
 * recipients of dead destinations (S-CON-9), in runs in that order -
 * then sort it into the batch order.  The n runs of pass 2 (one per group
 * slice) are first split where the recipients must be told apart: a run
 * whose destination is the recipient, or whose domain another run shares
 * (the resolve order interleaves those by address), becomes one run per
 * recipient; a run alone with its domain stays whole (its recipients go
 * to one transport and one destination whatever their order).  Returns
 * the number of runs. */
static size_t batch_resolve_postfix(qs_sched *s, qs_message *m, size_t n,
                                    assign_state *a)
{
    struct qs_batch_rcpt *v = s->batch, *tmp = s->batch + s->batch_cap;
    size_t i, j, out;
    int64_t k;
    char dest[ADDRESS_MAX];
    /* one run of one destination (a refill of a bulk message, a small
     * message): nothing to order */
    if (n == 1 && !v[0].limit1) {
        v[0].deferred = 0;
        out = 1;
        goto resolve;
    }
    /* which runs share a domain: sort a copy by domain (few runs) */
    for (i = 0; i < n; i++) {
        tmp[i] = v[i];
        tmp[i].rank = i; /* its place in v */
    }
    for (i = 1; i < n; i++) { /* insertion sort by domain: n is small */
        struct qs_batch_rcpt x = tmp[i];
        for (j = i; j > 0 && domain_cmp(m->groups[tmp[j - 1].group].nexthop,
                                        m->groups[x.group].nexthop) > 0; j--)
            tmp[j] = tmp[j - 1];
        tmp[j] = x;
    }
    for (i = 0; i < n; i++) {
        int shared = (i > 0 && domain_cmp(m->groups[tmp[i - 1].group].nexthop,
                                          m->groups[tmp[i].group].nexthop)
                                   == 0) ||
                     (i + 1 < n &&
                      domain_cmp(m->groups[tmp[i + 1].group].nexthop,
                                 m->groups[tmp[i].group].nexthop) == 0);
        v[tmp[i].rank].deferred = shared; /* "split", for the moment */
    }
    /* split, from the end so that v can grow in place: run i goes to
     * [start(i), start(i) + pieces(i)) */
    for (i = 0, out = 0; i < n; i++)
        out += v[i].limit1 || v[i].deferred ? (size_t)v[i].count : 1;
    for (i = n, j = out; i-- > 0;) {
        struct qs_batch_rcpt x = v[i];
        if (x.limit1 || x.deferred) {
            for (k = x.count; k-- > 0;) {
                struct qs_batch_rcpt *b = &v[--j];
                *b = x;
                b->index = x.index + k;
                b->ordinal = x.ordinal + k;
                b->count = 1;
                b->deferred = 0;
                resolve_keys(m, b, 1);
            }
        } else {
            v[--j] = x;
            resolve_keys(m, &v[j], 0);
        }
    }
    /* the resolve order, and the resolution in that order */
    batch_sort(m, resolve_cmp, v, tmp, out);
resolve:
    for (i = 0; i < out; i++) {
        struct qs_batch_rcpt *b = &v[i];
        qs_mgroup *g = &m->groups[b->group];
        qs_queue *q;
        if (!g->t)
            g->t = qsi_transport_obtain(s, g->transport);
        b->transport = g->t;
        if (b->limit1) {
            rcpt_address(g, b->index, b->ordinal, dest);
            q = qsi_queue_obtain(s, g->t, dest);
        } else {
            q = qsi_queue_obtain(s, g->t, g->nexthop);
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
    if (out > 1) {
        batch_keys(s, m, v, out);
        batch_sort(m, run_cmp, v, tmp, out);
    }
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
    assign_state a = {NULL, NULL, 0};
    char dest[ADDRESS_MAX];
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
        if (!g->t && !postfix)
            g->t = qsi_transport_obtain(s, g->transport);
        nruns += postfix ? (size_t)c : 1; /* at most: see pass 3 */
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
        struct qs_batch_rcpt *b = &s->batch[nruns++];
        b->group = m->cur_group;
        b->index = m->cur_offset + 1;
        b->ordinal = ordinal;
        b->count = c;
        b->transport = g->t;
        b->limit1 = (g->t ? g->t->dest_rcpt_limit
                          : qs_param_int(s->params, g->transport,
                                         QP_DEST_RCPT_LIMIT)) == 1;
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
    r = qsi_trace_init(QS_T_READ);
    r.msg = m->id;
    r.n = n;
    r.a = m->rcpt_unread;
    r.b = limit;
    qsi_emit(s, &r);
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
     * recipients): the candidate index learns it; and S-PFX-20: the
     * transports where one of them could be a candidate forget their
     * cached answer */
    {
        qs_job *j;
        for (j = m->jobs; j; j = j->mnext) {
            qsi_cix_update(j);
            if (QS_HAS_ENTRIES(j) && !QS_IS_BLOCKER(j))
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
