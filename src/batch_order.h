/*
 * batch_order.h - a batch of recipients as runs, shared by the files that
 * read batches: assign.c (reading, resolving, assigning), batch_order.c
 * (the postfix profile's resolve and batch orders, S-PFX-11, and the
 * recipient names of S-EV-4 that all need) and batch_effects.c (the order
 * of a batch's side effects alone).
 *
 * Internal to the core (not part of the API); see sched_int.h for the
 * structures a batch is assigned to.
 */
#ifndef QSCHED_BATCH_ORDER_H
#define QSCHED_BATCH_ORDER_H

#include "sched_int.h"

/* One run of a batch: `count` consecutive recipients (in written order)
 * of one group that share their sort keys, so that they can be sorted and
 * assigned as one item.  A run is the whole slice of a group that the
 * batch reads, except in the postfix profile where its recipients must be
 * told apart: when the destination is the recipient (destination
 * recipient limit 1, S-EV-4), or when another run of the batch has the
 * same domain (the resolve order interleaves them by address): there
 * every recipient is a run of its own.  Packed (72 bytes, from 112;
 * issue 16: splits and the short sorts copy whole runs, 1% of the
 * postfix-profile shapes' instructions): a group is below QS_GROUPS_MAX,
 * a rank below a batch's recipients (at most QS_COUNT_MAX). */
struct qs_batch_rcpt {
    int64_t index;    /* 1-based within the group, of the run's first */
    int64_t ordinal;  /* 1-based within the message, of the run's first */
    int64_t count;
    qs_transport *transport; /* NULL until the postfix profile resolves */
    qs_queue *queue;  /* postfix profile: its queue, found while resolving
                         (a run of one recipient when limit1) */
    /* S-PFX-11 sort keys, computed once per run (postfix profile only):
     * for the resolve order, the domain's first 8 bytes in lower case;
     * for the batch order, the transport name's rank among the batch's
     * transports; and the first 8 bytes of the address (resolve order) or
     * of the destination key (batch order), big-endian, NUL-padded. */
    uint64_t dprefix;
    uint64_t prefix;
    uint32_t group;   /* its group in the message (at most QS_GROUPS_MAX) */
    uint32_t drank;   /* the rank of its domain among the batch's domains
                         (equal domains, equal ranks): the resolve order's
                         first key, found once per batch */
    uint32_t rank;
    unsigned char limit1;     /* its transport's destination recipient
                                 limit is 1 */
    unsigned char deferred;   /* postfix profile: its destination was dead */
    unsigned char dkey_short; /* the domain is shorter than 8 bytes */
    unsigned char key_short;  /* the key is shorter than 8 bytes */
};

/* A run's sort key, as the sorts move it (batch_order.c): the first key
 * (the domain's rank for the resolve order, the transport's for the batch
 * order), the destination key's first 8 bytes, and the run's place in
 * s->batch, where the rest of it stays until the sorted order is known
 * (issue 16: the runs are 72 bytes; their keys, a third of that, are
 * what a merge sort copies log n times). */
struct qs_batch_key {
    uint64_t first;
    uint64_t prefix;
    uint32_t run;     /* its index in s->batch (only the postfix profile
                         sorts, and reads at most 5000 recipients at a
                         time, S-PFX-12) */
    int key_short;    /* the run's key_short */
};

/* The longest destination name a recipient can have: LOCAL.J@NEXTHOP
 * within the parser's limits (64 + 1 + 20 + 1 + 200 + 1 bytes), plus the
 * 7 bytes qsi_rcpt_address may copy past its end, rounded up. */
#define QSI_ADDRESS_MAX 512

/* S-EV-4: the destination name of the recipient `index` (in its group) /
 * `ordinal` (in its message) of group g when the destination is the
 * recipient, into buf (QSI_ADDRESS_MAX bytes); returns its length. */
size_t qsi_rcpt_address(const qs_mgroup *g, int64_t index, int64_t ordinal,
                        char *buf);

/* S-PFX-11, the resolve order: the n runs of s->batch (one per group
 * slice) split where their recipients must be told apart, then sorted by
 * domain and address (stable).  Returns the number of runs; each has
 * deferred = 0 (the resolution, assign.c, sets it). */
size_t qsi_batch_resolve_order(qs_sched *s, const qs_message *m, size_t n);

/* The sort keys' pieces (batch_order.c), shared with the order of a
 * batch's effects (batch_effects.c):
 *  - the first 8 bytes of key as a big-endian word, NUL-padded, ASCII
 *    letters lower-cased if `lower`; *ended: key is shorter than 8 bytes
 *    (key has 8 readable bytes, NUL after its end);
 *  - two domains compared as Postfix compares them (ASCII case-folded);
 *  - the first 8 bytes of a recipient's own address (qsi_rcpt_address)
 *    into buf, of QSI_ADDRESS_HEAD_MAX bytes: 'r' and 19 digits, or a
 *    local part of at most 7 bytes (copied as one word of 8), '.' and 19
 *    digits; then, below 8 bytes only, '@' and 8 bytes of the next-hop
 *    (at most 27 bytes). */
uint64_t qsi_key_prefix(const char *key, int lower, unsigned char *ended);
int qsi_domain_cmp(const char *a, const char *b);
#define QSI_ADDRESS_HEAD_MAX 48
void qsi_address_head(const qs_mgroup *g, int64_t index, int64_t ordinal,
                      char *buf);

/* A side effect of resolving a batch (assign.c): a look-up that failed,
 * of a recipient whose destination is itself (limit1: one recipient) or
 * of a whole run (its next-hop).  The destination is to be created
 * (dead NULL: it does not exist, or is parked) or is dead. */
struct qs_batch_fx {
    size_t run;       /* the run, in s->batch before any split */
    size_t group;     /* its group in the message */
    int64_t index, ordinal; /* the recipient (limit1), or the run's first */
    int64_t count;    /* 1 (limit1), or the run's recipients */
    int limit1;
    qs_queue *dead;   /* the dead queue, or NULL: to create */
    /* the resolve order's keys (batch_effects.c): the domain's and (limit1)
     * the address's first 8 bytes, and whether they are whole */
    uint64_t dprefix, aprefix;
    unsigned char dshort, ashort;
};

/* The most effects a batch resolves without the resolve order. */
#define QSI_BATCH_FX_MAX 16

/* S-PFX-11 restricted to the k effects fx[0..k) of a batch of message m
 * (batch_effects.c):
 * puts them in the order in which the resolve order meets them, and
 * returns 1; or returns 0 (fx in no particular order) where that order
 * needs more than the effects (a domain that another effect shares,
 * whose next-hop's recipients the resolve order would interleave with the
 * other's by address). */
int qsi_batch_fx_order(const qs_message *m, struct qs_batch_fx *fx, size_t k);

/* Two recipients' own addresses (qsi_rcpt_address: group, index,
 * ordinal) compared in byte order, as strcmp. */
int qsi_address_cmp(const qs_mgroup *ga, int64_t ia, int64_t oa,
                    const qs_mgroup *gb, int64_t ib, int64_t ob);

/* A batch's transports, each once: t joins names[0..*n) the first time
 * the batch numbered stamp (stats.reads) meets it. */
static inline void qsi_batch_note_transport(qs_transport *t, uint64_t stamp,
                                            qs_transport **names, size_t *n)
{
    if (t->batch_stamp != stamp) {
        t->batch_stamp = stamp;
        names[(*n)++] = t;
    }
}

/* The batch's distinct transports names[0..n) ranked by name
 * (qs_transport.batch_rank; batch_effects.c). */
void qsi_batch_rank(qs_transport **names, size_t n);

/* S-PFX-11, the batch order of a short settled batch (batch_effects.c):
 * the n runs of s->batch, queues known (own: those of the recipients that
 * are their own destination, by ordinal - base), become the batch's runs
 * in the batch order, the dead queues' left out; returns how many, or 0
 * for a batch too long for it (then qsi_batch_split_own and
 * qsi_batch_order_written). */
size_t qsi_batch_order_settled(qs_sched *s, size_t n, qs_queue *const *own,
                               int64_t base);

/* The runs with a destination recipient limit of 1 split into a run per
 * recipient, in written order; returns the number of runs. */
size_t qsi_batch_split_own(qs_sched *s, size_t n);
/* S-PFX-11, the batch order from the written order, when resolving in
 * the resolve order would change nothing (assign.c): the n runs of
 * s->batch, split by qsi_batch_split_own, transports and queues set. */
void qsi_batch_order_written(qs_sched *s, const qs_message *m, size_t n);
/* S-PFX-11, the batch order: the n resolved runs of s->batch (transport
 * set) sorted by transport name, then destination (stable from the
 * resolve order). */
void qsi_batch_order(qs_sched *s, const qs_message *m, size_t n);

#endif
