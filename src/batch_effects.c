/*
 * batch_effects.c - the orders a postfix-profile batch needs when it
 * skips the resolve order of the whole batch: the order in which its side
 * effects are made, found from the effects alone, and the batch order of
 * a short settled batch, found from its queues.
 *
 * Implements spec/profiles.md S-PFX-11 (Postfix resolves the recipients
 * it reads in its resolve order: by domain, then address; it assigns them
 * in its batch order: by transport, then destination), restricted to
 * what the resolve order decides - which destination is created first and
 * how a batch's deferrals at dead destinations fall into `defer` lines
 * (S-CON-9) - and to the batch order of a batch whose destinations are
 * all known.  A look-up that fails is an effect; the destinations that
 * exist and live are resolved without a trace, so their places in the
 * resolve order change nothing (assign.c batch_resolve_postfix has the
 * whole argument).
 *
 * Owns: qsi_batch_fx_order, the sort of a batch's effects (struct
 * qs_batch_fx, batch_order.h) and the test of whether their order can be
 * told without the rest of the batch; qsi_batch_order_settled; the
 * ranking of a batch's transports by name (qsi_batch_rank, which
 * batch_order.c's keys use too).  May not: create, defer or assign
 * anything (assign.c does, in the orders made here).
 *
 * Why a file of its own: the resolve and batch orders (batch_order.c)
 * had reached the core's 650 lines; this one reads their keys
 * (qsi_key_prefix, qsi_domain_cmp, qsi_address_head) and nothing else of
 * theirs.  Issue 16, session 22: with it, a batch that is not settled
 * skips the resolve order of its whole batch (transports +2.4%), and a
 * short settled one is ordered without splitting its runs.
 */
#include <string.h>
#include "batch_order.h"

/* The resolve order between two effects (qsi_batch_fx_order): by domain
 * (case-folded; the prefixes first), then, for two recipients that are
 * destinations of their own, by address (the prefixes first), then in
 * written order.  Two effects of one domain that are not both such
 * recipients are put in written order here and refused below. */
static int fx_cmp(const qs_message *m, const struct qs_batch_fx *a,
                  const struct qs_batch_fx *b)
{
    const qs_mgroup *ga = &m->groups[a->group], *gb = &m->groups[b->group];
    int c;
    if (a->dprefix != b->dprefix)
        return a->dprefix < b->dprefix ? -1 : 1;
    if (!(a->dshort && b->dshort) &&
        (c = qsi_domain_cmp(ga->nexthop, gb->nexthop)) != 0)
        return c;
    if (a->limit1 && b->limit1) {
        if (a->aprefix != b->aprefix)
            return a->aprefix < b->aprefix ? -1 : 1;
        if (!(a->ashort && b->ashort) &&
            (c = qsi_address_cmp(ga, a->index, a->ordinal, gb, b->index,
                                 b->ordinal)) != 0)
            return c;
    }
    return a->ordinal < b->ordinal ? -1 : a->ordinal > b->ordinal;
}

int qsi_batch_fx_order(const qs_message *m, struct qs_batch_fx *fx, size_t k)
{
    size_t i, j;
    /* the keys, as domain_key and resolve_keys make them */
    for (i = 0; i < k; i++) {
        const qs_mgroup *g = &m->groups[fx[i].group];
        fx[i].dprefix = qsi_key_prefix(g->nexthop, 1, &fx[i].dshort);
        fx[i].aprefix = 0;
        fx[i].ashort = 1;
        if (fx[i].limit1) {
            char buf[QSI_ADDRESS_HEAD_MAX];
            qsi_address_head(g, fx[i].index, fx[i].ordinal, buf);
            fx[i].aprefix = qsi_key_prefix(buf, 0, &fx[i].ashort);
        }
    }
    /* insertion sort: few effects (QSI_BATCH_FX_MAX), a total order */
    for (i = 1; i < k; i++) {
        struct qs_batch_fx x = fx[i];
        for (j = i; j > 0 && fx_cmp(m, &fx[j - 1], &x) > 0; j--)
            fx[j] = fx[j - 1];
        fx[j] = x;
    }
    /* Where the order is the resolve order's.  Effects of two domains:
     * by domain, as the resolve order's first key (drank) puts their
     * runs.  Effects of one domain: the resolve order splits that
     * domain's runs into recipients, sorted by address, as soon as two of
     * its runs may go to different queues (qsi_batch_resolve_order), and
     * keeps them whole, in written order, when all go to one.  Here the
     * recipients that are destinations of their own are each one effect,
     * sorted by address as there (the split of the others can only put
     * recipients of no effect between them); whole runs of one transport
     * and one next-hop are in written order, as there, and their
     * recipients all meet the one destination.  A whole run beside an
     * effect of another destination in its domain would be split there
     * and its recipients interleaved by address with the other's: not
     * told here (0). */
    for (i = 0; i + 1 < k; i++) {
        const struct qs_batch_fx *a = &fx[i], *b = &fx[i + 1];
        const qs_mgroup *ga = &m->groups[a->group], *gb = &m->groups[b->group];
        if (a->limit1 && b->limit1)
            continue;
        if (a->dprefix != b->dprefix ||
            (!(a->dshort && b->dshort) &&
             qsi_domain_cmp(ga->nexthop, gb->nexthop) != 0))
            continue; /* another domain */
        if (a->limit1 || b->limit1 ||
            strcmp(ga->transport, gb->transport) != 0 ||
            strcmp(ga->nexthop, gb->nexthop) != 0)
            return 0; /* a whole run beside another destination */
    }
    return 1;
}

/* The batch's distinct transports names[0..n) ranked by name (their
 * batch_rank: 0 for the first in byte order; an insertion sort, few). */
void qsi_batch_rank(qs_transport **names, size_t n)
{
    size_t i, j;
    for (i = 1; i < n; i++) {
        qs_transport *t = names[i];
        for (j = i; j > 0 && strcmp(names[j - 1]->name, t->name) > 0; j--)
            names[j] = names[j - 1];
        names[j] = t;
    }
    for (i = 0; i < n; i++)
        names[i]->batch_rank = i;
}

/* A short settled batch in the batch order, without splitting its runs
 * (qsi_batch_split_own) or moving them while sorting (qsi_batch_order_
 * written; issue 16, session 22: the two were about a fifth of an
 * arrival of the many-transports shape).  The batch order is by
 * transport name, then destination key, stably from the written order;
 * in a settled batch every run's destination is known, and its key is its
 * queue's name (the next-hop, or the recipient's address: what
 * qsi_batch_order_written reads), so the order is that of the queues:
 *
 *     item = (queue, recipients) for each run, or for each recipient
 *            of a run whose destination is the recipient; in written
 *            order; none for a dead queue's (deferred: assign.c)
 *     sort the items by (the transport's rank by name, the queue's name),
 *            stably: by insertion, few items
 *     the runs s->batch[0..out) := the items, in that order
 *
 * The same keys of the same sequence, sorted stably, as splitting and
 * then sorting the runs: the same order.  Returns out, or 0 when the
 * batch has more than QSI_BATCH_SHORT items or none left (the caller then
 * splits and sorts as before, which comes to the same).  own: the queues
 * of the recipients that are their own destination, by ordinal - base. */
#define QSI_BATCH_SHORT 32

struct batch_item {
    uint64_t prefix;        /* its queue's name's first 8 bytes */
    qs_queue *queue;
    int64_t count;
    size_t rank;            /* its transport's, by name, in the batch */
    unsigned char key_short; /* the name is shorter than 8 bytes */
};

/* Is item a after item b in the batch order (never when equal)? */
static int item_after(const struct batch_item *a, const struct batch_item *b)
{
    if (a->rank != b->rank)
        return a->rank > b->rank;
    if (a->prefix != b->prefix)
        return a->prefix > b->prefix;
    return !(a->key_short && b->key_short) &&
           strcmp(a->queue->name, b->queue->name) > 0;
}

size_t qsi_batch_order_settled(qs_sched *s, size_t n, qs_queue *const *own,
                               int64_t base)
{
    struct batch_item item[QSI_BATCH_SHORT];
    unsigned char ord[QSI_BATCH_SHORT]; /* the items in the batch order */
    qs_transport *names[QSI_BATCH_SHORT];
    struct qs_batch_rcpt *v = s->batch;
    size_t i, j, k = 0, nnames = 0;
    uint64_t stamp = (uint64_t)s->stats.reads; /* this batch's number */
    int64_t r;
    for (i = 0; i < n; i++)
        if ((k += v[i].limit1 ? (size_t)v[i].count : 1) > QSI_BATCH_SHORT)
            return 0;
    for (i = 0, k = 0; i < n; i++) {
        for (r = 0; r < (v[i].limit1 ? v[i].count : 1); r++) {
            qs_queue *q = v[i].limit1 ? own[v[i].ordinal + r - base]
                                      : v[i].queue;
            if (q->dead)
                continue; /* deferred while resolving (assign.c) */
            qsi_batch_note_transport(q->transport, stamp, names, &nnames);
            item[k].queue = q;
            item[k].count = v[i].limit1 ? 1 : v[i].count;
            item[k].prefix = qsi_key_prefix(q->name, 0, &item[k].key_short);
            k++;
        }
    }
    qsi_batch_rank(names, nnames);
    for (i = 0; i < k; i++)
        item[i].rank = item[i].queue->transport->batch_rank;
    /* Stable: an item moves past greater items only.  Their indices
     * move, not the items (issue 16: gcc copied a 40-byte item with `rep
     * movs`, whose start-up made the moves 1.5% of the many-transports
     * shape's time under perf). */
    for (i = 0; i < k; i++)
        ord[i] = (unsigned char)i;
    for (i = 1; i < k; i++) {
        unsigned char x = ord[i];
        for (j = i; j > 0 && item_after(&item[ord[j - 1]], &item[x]); j--)
            ord[j] = ord[j - 1];
        ord[j] = x;
    }
    /* what reading the batch needs of its runs (assign.c, pass 4) */
    for (i = 0; i < k; i++) {
        const struct batch_item *it = &item[ord[i]];
        v[i].queue = it->queue;
        v[i].transport = it->queue->transport;
        v[i].count = it->count;
        v[i].deferred = 0;
    }
    return k;
}
