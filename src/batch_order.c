/*
 * batch_order.c - the order in which the postfix profile resolves and
 * assigns a batch of recipients, and the names of recipients that are
 * destinations of their own.
 *
 * Implements spec/profiles.md S-PFX-11 (the document is silent about the
 * order in which a batch is assigned; Postfix sorts what it reads, first
 * by domain and address before it resolves, then by transport and
 * destination before it assigns) and S-EV-4 (with a destination recipient
 * limit of 1 the destination is the recipient's own address).  The
 * document profile keeps the order written (S-MEM-1) and uses only the
 * names.
 *
 * Owns: the sort keys of a batch's runs (struct qs_batch_rcpt, in
 * batch_order.h), the splitting of runs whose recipients must be told
 * apart, the two stable sorts.  May not: create transports or queues,
 * defer or assign recipients (assign.c does, in the order made here).
 *
 * Why a file of its own: the orders are a pure function of the batch and
 * the transports' names; reading and assigning (assign.c) only consume
 * them.  Keeping them apart keeps each file short enough to read whole,
 * and the comparisons, the hot spot of a postfix-profile run (issue 16),
 * in one place.
 */
#include <stdlib.h>
#include <string.h>
#include "batch_order.h"

/* Decimal digits of v > 0 at p; returns the end. */
static char *put_num(char *p, int64_t v)
{
    char digits[24];
    int n = 0;
    /* the common ordinals and indexes (below 100) without the digit loop
     * (issue 16: an address is built once or twice per recipient) */
    if (v < 10) {
        *p++ = (char)('0' + v);
        return p;
    }
    if (v < 100) {
        *p++ = (char)('0' + v / 10);
        *p++ = (char)('0' + v % 10);
        return p;
    }
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
 * has no name).  buf holds QSI_ADDRESS_MAX bytes, at least 64 + 1 + 20 +
 * 1 + 200 + 1 (the parser's limits) + 7 (copy_words); returns the length.
 * Built by hand, not by snprintf: with a destination recipient limit of 1
 * it runs once per recipient. */
/* The n bytes of a name of g's message at src, to dst, 8 bytes at a time:
 * up to 7 bytes more are read and written.  They are the message's own
 * (a local part is followed by its NUL and the next-hop, a next-hop by 8
 * NUL bytes: messages.c) and land in buf's room.  (issue 16: with the
 * lengths known to be below 256, gcc copied with `rep movsq`, whose
 * start-up costs more than these one or two words.) */
static char *copy_words(char *dst, const char *src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i += 8)
        memcpy(dst + i, src + i, 8);
    return dst + n;
}

size_t qsi_rcpt_address(const qs_mgroup *g, int64_t index, int64_t ordinal,
                        char *buf)
{
    char *p = buf;
    size_t n;
    if (!g->local) {
        *p++ = 'r';
        p = put_num(p, ordinal);
    } else {
        p = copy_words(p, g->local, g->local_len);
        if (g->count != 1) {
            *p++ = '.';
            p = put_num(p, index);
        }
    }
    *p++ = '@';
    n = g->nexthop_len;
    copy_words(p, g->nexthop, n + 1); /* with its NUL */
    return (size_t)(p - buf) + n;
}

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
    /* limit 1 (b->limit1 is dest_rcpt_limit == 1, assign.c): the run is
     * one recipient, and its key, the address's first 8 bytes, is the one
     * the resolve order already computed (resolve_keys(m, b, 1) in
     * qsi_batch_resolve_order, which runs first): kept, not built again
     * (issue 16).  Otherwise the key is the next-hop. */
    if (b->limit1)
        return;
    b->prefix = qsi_key_prefix(m->groups[b->group].nexthop, 0, &b->key_short);
}

/* The batch order's comparison of two runs:
 *     by rank (the transport's name), then by the first 8 bytes of the
 *     destination key, then, if those agree and the keys go on, by the
 *     whole key
 * (run_tie is the last step, through order_tie; key_cmp and
 * run_order_cmp make the others). */
static int run_tie(const qs_message *m, const struct qs_batch_rcpt *a,
                   const struct qs_batch_rcpt *b)
{
    const qs_mgroup *ga = &m->groups[a->group], *gb = &m->groups[b->group];
    if (a->transport->dest_rcpt_limit != 1)
        return strcmp(ga->nexthop, gb->nexthop);
    return qsi_address_cmp(ga, a->index, a->ordinal, gb, b->index,
                           b->ordinal);
}

/* Two recipients' own addresses (qsi_rcpt_address) in byte order: the
 * last step of the batch order's, the resolve order's and the effects'
 * comparisons (batch_effects.c). */
int qsi_address_cmp(const qs_mgroup *ga, int64_t ia, int64_t oa,
                    const qs_mgroup *gb, int64_t ib, int64_t ob)
{
    char da[QSI_ADDRESS_MAX], db[QSI_ADDRESS_MAX];
    qsi_rcpt_address(ga, ia, oa, da);
    qsi_rcpt_address(gb, ib, ob, db);
    return strcmp(da, db);
}

/* ASCII case-insensitive comparison, as Postfix compares domains when
 * SMTPUTF8 is off (strcasecmp_utf8). */
int qsi_domain_cmp(const char *a, const char *b)
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
 * not; *ended: key is shorter than 8 bytes (the prefix holds all of it).
 * key must have 8 readable bytes, NUL after its end: a group's next-hop
 * (qs_mgroup) or an address's head built by qsi_address_head.  Read as one
 * word (issue 16: a byte loop with a case test per byte cost about 100
 * instructions a key):
 *   - ASCII case folding of 8 bytes at once: a byte is an upper-case
 *     letter when it is below 0x80 (high bit clear) and its low 7 bits
 *     are >= 'A' and < 'Z' + 1; adding 0x80 - 'A' (0x3f) and 0x80 - 'Z'
 *     - 1 (0x25) to the low 7 bits sets the high bit of a byte exactly
 *     when it is at least 'A', resp. above 'Z', and never carries into
 *     the next byte (at most 0x7f + 0x3f = 0xbe); the letter gets 0x20;
 *   - a NUL among the 8 bytes: (x - 0x01..01) & ~x & 0x80..80 is non-zero
 *     exactly when some byte of x is 0. */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
uint64_t qsi_key_prefix(const char *key, int lower, unsigned char *ended)
{
    const unsigned char *u = (const unsigned char *)key;
    uint64_t x = (uint64_t)u[0] << 56 | (uint64_t)u[1] << 48 |
                 (uint64_t)u[2] << 40 | (uint64_t)u[3] << 32 |
                 (uint64_t)u[4] << 24 | (uint64_t)u[5] << 16 |
                 (uint64_t)u[6] << 8 | (uint64_t)u[7];
    if (lower) {
        uint64_t low7 = x & ~HIGHS;
        uint64_t upper = (low7 + 0x3f * ONES) & ~(low7 + 0x25 * ONES) & ~x &
                         HIGHS;
        x |= upper >> 2; /* 0x80 >> 2 = 0x20: 'A' + 0x20 = 'a' */
    }
    *ended = ((x - ONES) & ~x & HIGHS) != 0;
    return x;
}

/* The first 8 bytes of qsi_rcpt_address's address, NUL-padded when the
 * address is shorter (what qsi_key_prefix reads), into buf
 * (QSI_ADDRESS_HEAD_MAX bytes), without the rest of the address: the
 * local part (rN, or LOCAL[.J]) decides them, or it and '@' and the
 * next-hop's first bytes, which the message follows with 8 NUL bytes
 * (messages.c), so a short next-hop pads the head with NULs as the whole
 * address would be padded.  (issue 16: the whole address and its padding
 * cost about 40 instructions per split recipient, the head about 20.) */
void qsi_address_head(const qs_mgroup *g, int64_t index, int64_t ordinal,
                      char *buf)
{
    char *p = buf;
    if (!g->local) {
        *p++ = 'r';
        p = put_num(p, ordinal); /* at most 19 digits */
    } else {
        if (g->local_len >= 8) {
            memcpy(buf, g->local, 8);
            return;
        }
        p = copy_words(p, g->local, g->local_len); /* one word */
        if (g->count != 1) {
            *p++ = '.';
            p = put_num(p, index);
        }
    }
    if (p - buf >= 8)
        return;
    *p++ = '@';
    memcpy(p, g->nexthop, 8);
}

/* S-PFX-11, the resolve order: before it resolves a batch, Postfix sorts
 * it by recipient domain (case-insensitively), then by address; the
 * resolver then meets the transports and destinations in that order (and
 * defers recipients of dead destinations in that order).  The domain's
 * place among the batch's domains is found once per batch (drank,
 * qsi_batch_resolve_order), the address key once per run (resolve_keys);
 * whole addresses are compared only when the prefixes agree.  A run that
 * is not one recipient is alone with its domain in the batch (see struct
 * qs_batch_rcpt), so its address is never compared.  The comparison:
 *     by drank (= the domains' order, qsi_domain_cmp), then by the
 *     address's first 8 bytes, then, if those agree and the addresses go
 *     on, by the whole address
 * (resolve_tie is the last step, through order_tie; key_cmp and
 * run_order_cmp make the others). */
static int resolve_tie(const qs_message *m, const struct qs_batch_rcpt *a,
                       const struct qs_batch_rcpt *b)
{
    return qsi_address_cmp(&m->groups[a->group], a->index, a->ordinal,
                           &m->groups[b->group], b->index, b->ordinal);
}

/* The domain key of a run (for the resolve order and for finding the
 * runs that share a domain). */
static void domain_key(const qs_message *m, struct qs_batch_rcpt *b)
{
    b->dprefix = qsi_key_prefix(m->groups[b->group].nexthop, 1,
                                &b->dkey_short);
}

/* The address key of a run (its domain key is set): its address's if it
 * is one recipient that shares its domain (whole runs never compare
 * addresses: see resolve_tie). */
static void resolve_keys(const qs_message *m, struct qs_batch_rcpt *b,
                         int address)
{
    const qs_mgroup *g = &m->groups[b->group];
    char buf[QSI_ADDRESS_HEAD_MAX];
    b->prefix = 0;
    b->key_short = 1;
    if (address) {
        qsi_address_head(g, b->index, b->ordinal, buf);
        b->prefix = qsi_key_prefix(buf, 0, &b->key_short);
    }
}

/* Which order a sort makes: the comparison's first key and its last step
 * differ (first_key; order_tie).  ORDER_DOMAIN: by domain only, for
 * finding the runs that share a domain: the domains compared as
 * qsi_domain_cmp compares them, the 8-byte case-folded prefixes first (its
 * first key; its second is none), and equal prefixes of domains shorter
 * than 8 bytes are equal domains. */
enum sort_order { ORDER_RESOLVE, ORDER_BATCH, ORDER_DOMAIN };

/* A run's first key in the order: its domain's rank (resolve order) or
 * its transport's (batch order); in the domain order, the domain's
 * prefix. */
static inline uint64_t first_key(enum sort_order order,
                                 const struct qs_batch_rcpt *r)
{
    return order == ORDER_RESOLVE ? r->drank
           : order == ORDER_BATCH ? r->rank : r->dprefix;
}

/* The order's comparison of two runs is: the first keys, then the
 * 8-byte prefixes, and only when both agree and the keys go on, the whole
 * keys (order_tie, its last step).  Both short: equal keys (the prefixes
 * hold them whole, NUL included).  key_cmp and run_order_cmp below make
 * it from a struct qs_batch_key or from the runs themselves (written out
 * in each: a shared three-way helper cost the sort shape 1% of its
 * instructions). */
static inline int order_tie(const qs_message *m, enum sort_order order,
                            const struct qs_batch_rcpt *ra,
                            const struct qs_batch_rcpt *rb)
{
    if (order == ORDER_DOMAIN)
        return qsi_domain_cmp(m->groups[ra->group].nexthop,
                              m->groups[rb->group].nexthop);
    return order == ORDER_RESOLVE ? resolve_tie(m, ra, rb)
                                  : run_tie(m, ra, rb);
}

/* Two keys of runs of v. */
static inline int key_cmp(const qs_message *m,
                          const struct qs_batch_rcpt *v,
                          enum sort_order order,
                          const struct qs_batch_key *a,
                          const struct qs_batch_key *b)
{
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    if (a->prefix != b->prefix)
        return a->prefix < b->prefix ? -1 : 1;
    if (a->key_short)
        return 0;
    return order_tie(m, order, &v[a->run], &v[b->run]);
}

/* Two runs (batch_sort's short batches, which move the runs). */
static inline int run_order_cmp(const qs_message *m, enum sort_order order,
                                const struct qs_batch_rcpt *a,
                                const struct qs_batch_rcpt *b)
{
    uint64_t fa = first_key(order, a), fb = first_key(order, b);
    if (fa != fb)
        return fa < fb ? -1 : 1;
    if (a->prefix != b->prefix)
        return a->prefix < b->prefix ? -1 : 1;
    if (a->key_short)
        return 0;
    return order_tie(m, order, a, b);
}

/* Stable merge sort of the keys k[0..n) (tmp: n more): stability keeps
 * equal runs in the order they had (written order, or the resolve order
 * for the batch order), which makes the result independent of the C
 * library's qsort (which also has no context argument).  The keys, not
 * the runs, are moved (struct qs_batch_key); the order is a function of
 * the comparison alone, since a stable sort of a total preorder has one
 * result. */
static void key_sort(const qs_message *m, const struct qs_batch_rcpt *v,
                     enum sort_order order, struct qs_batch_key *k,
                     struct qs_batch_key *tmp, size_t n)
{
    size_t mid = n / 2, i = 0, j = mid, o = 0;
    if (n < 2)
        return;
    if (n <= 8) {
        /* a short stretch: insertion sort (stable: a key moves back only
         * past keys that compare greater), cheaper than recursing */
        for (i = 1; i < n; i++) {
            struct qs_batch_key x;
            if (key_cmp(m, v, order, &k[i - 1], &k[i]) <= 0)
                continue;
            x = k[i];
            for (j = i; j > 0 && key_cmp(m, v, order, &k[j - 1], &x) > 0; j--)
                k[j] = k[j - 1];
            k[j] = x;
        }
        return;
    }
    key_sort(m, v, order, k, tmp, mid);
    key_sort(m, v, order, k + mid, tmp, n - mid);
    if (key_cmp(m, v, order, &k[mid - 1], &k[mid]) <= 0)
        return; /* already in order (a written order often is) */
    while (i < mid && j < n)
        tmp[o++] = key_cmp(m, v, order, &k[j], &k[i]) < 0 ? k[j++] : k[i++];
    while (i < mid)
        tmp[o++] = k[i++];
    while (j < n)
        tmp[o++] = k[j++];
    memcpy(k, tmp, n * sizeof *k);
}

/* Sorts the runs v[0..n) by the order (their keys are set: drank or
 * rank, prefix, key_short), stably.  A short batch (most are: a message's
 * few groups) by insertion, in place: its runs are often in order
 * already, and then nothing moves.  A longer one by its keys: counted
 * by their first key (a rank) into buckets, each bucket sorted by
 * key_sort; then the runs follow, each moved once along the cycles of
 * the permutation (k[i].run is the run that goes to place i; a place done
 * is marked with run = n). */
static void batch_sort(qs_sched *s, const qs_message *m, enum sort_order order,
                       struct qs_batch_rcpt *v, size_t n)
{
    struct qs_batch_key *k = s->batch_keys, *tmp = s->batch_keys + s->batch_cap;
    size_t i, j, from;
    if (n <= 8) {
        for (i = 1; i < n; i++) {
            struct qs_batch_rcpt x;
            if (run_order_cmp(m, order, &v[i - 1], &v[i]) <= 0)
                continue;
            x = v[i];
            for (j = i; j > 0 && run_order_cmp(m, order, &v[j - 1], &x) > 0;
                 j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    /* The first keys of both orders are dense ranks (a domain's among
     * the batch's domains, a transport's among its transports: below n),
     * so the keys are first laid out by rank, in run order (a counting
     * sort: stable, no comparison), and each rank's keys are then sorted
     * by the rest of the comparison.  A stable sort by (rank, rest) is
     * exactly that, so the order is the same; the comparisons left are
     * those within a rank (issue 16: the resolve order's ranks are mostly
     * single runs, and the comparisons were a fifth of the sort shape's
     * mispredicted branches). */
    {
        /* a rank numbers distinct domains or transports of the runs, so
         * nranks <= n <= batch_cap; only the ranks in use are walked */
        size_t *count = s->batch_counts, nranks = 0, start, c;
        for (i = 0; i < n; i++) {
            size_t r = (size_t)first_key(order, &v[i]);
            if (r >= nranks)
                nranks = r + 1;
        }
        memset(count, 0, nranks * sizeof *count);
        for (i = 0; i < n; i++)
            count[first_key(order, &v[i])]++;
        for (i = 0, start = 0; i < nranks; i++) {
            c = count[i];
            count[i] = start; /* where the rank's first key goes */
            start += c;
        }
        for (i = 0; i < n; i++) {
            struct qs_batch_key *x = &k[count[first_key(order, &v[i])]++];
            x->first = first_key(order, &v[i]);
            x->prefix = v[i].prefix;
            x->run = (uint32_t)i;
            x->key_short = v[i].key_short;
        }
        /* count[r] is now where rank r ends */
        for (i = 0, start = 0; i < nranks; start = count[i++])
            key_sort(m, v, order, k + start, tmp, count[i] - start);
    }
    for (i = 0; i < n; i++) {
        struct qs_batch_rcpt x;
        if (k[i].run == i || k[i].run == n)
            continue; /* in place, or moved along an earlier cycle */
        x = v[i];
        for (j = i; (from = k[j].run) != i; j = from) {
            v[j] = v[from];
            k[j].run = (uint32_t)n;
        }
        v[j] = x;
        k[j].run = (uint32_t)n;
    }
}

/* The sort keys of a batch's runs: transports ranked by name (few), then
 * each run's destination key. */
static void batch_keys(qs_sched *s, const qs_message *m,
                       struct qs_batch_rcpt *v, size_t n)
{
    qs_transport *few[16], **names = few;
    size_t i, nnames = 0;
    uint64_t stamp = (uint64_t)s->stats.reads; /* this batch's number */
    if (s->ntransports > sizeof few / sizeof few[0])
        names = qsi_calloc(s->ntransports, sizeof *names);
    for (i = 0; i < n; i++)
        qsi_batch_note_transport(v[i].transport, stamp, names, &nnames);
    qsi_batch_rank(names, nnames);
    if (names != few)
        free(names);
    for (i = 0; i < n; i++) {
        v[i].rank = v[i].transport->batch_rank;
        run_key(m, &v[i]);
    }
}

/* Splits the runs of v[0..n) whose destination is the recipient (limit1)
 * and, for the resolve order (resolve = 1, m its message), those marked
 * `deferred` (sharing a domain: mark cleared, keys set) into a run per
 * recipient, from the end (v grows in place); returns the run count. */
static inline size_t split_runs(const qs_message *m, struct qs_batch_rcpt *v,
                                size_t n, int resolve)
{
    size_t i, j, out;
    int64_t k;
    for (i = 0, out = 0; i < n; i++)
        out += v[i].limit1 || (resolve && v[i].deferred) ? (size_t)v[i].count
                                                         : 1;
    for (i = n, j = out; i-- > 0;) {
        struct qs_batch_rcpt x = v[i];
        if (x.limit1 || (resolve && x.deferred)) {
            for (k = x.count; k-- > 0;) {
                struct qs_batch_rcpt *b = &v[--j];
                *b = x;
                b->index = x.index + k;
                b->ordinal = x.ordinal + k;
                b->count = 1;
                if (resolve) {
                    b->deferred = 0;
                    resolve_keys(m, b, 1);
                }
            }
        } else {
            v[--j] = x;
            if (resolve) {
                v[j].deferred = 0;
                resolve_keys(m, &v[j], 0);
            }
        }
    }
    return out;
}

/* S-PFX-11, the resolve order (see batch_order.h).  The n runs of pass 2
 * of qsi_message_read (one per group slice) are first split where the
 * recipients must be told apart: a run whose destination is the
 * recipient, or whose domain another run shares (the resolve order
 * interleaves those by address), becomes one run per recipient; a run
 * alone with its domain stays whole (its recipients go to one transport
 * and one destination whatever their order).
 *
 *     one run of one destination: nothing to order
 *     shared(run) = another run of the batch has its domain
 *     split every run with limit 1 or shared into single recipients
 *     sort by (domain case-folded, address), stable
 */
size_t qsi_batch_resolve_order(qs_sched *s, const qs_message *m, size_t n)
{
    struct qs_batch_rcpt *v = s->batch;
    struct qs_batch_key *kd = s->batch_keys;
    size_t i, j, t, d, out;
    /* one run of one destination (a refill of a bulk message, a small
     * message): nothing to order */
    if (n == 1 && !v[0].limit1) {
        v[0].deferred = 0;
        return 1;
    }
    /* which runs share a domain: their keys sorted by domain; the domain
     * keys, computed here, travel with the runs (split runs copy them) */
    for (i = 0; i < n; i++) {
        domain_key(m, &v[i]);
        kd[i].first = first_key(ORDER_DOMAIN, &v[i]);
        kd[i].prefix = 0;
        kd[i].run = (uint32_t)i;
        kd[i].key_short = v[i].dkey_short;
    }
    key_sort(m, v, ORDER_DOMAIN, kd, kd + s->batch_cap, n);
    /* In domain order, a block [i, j) of equal domains is one domain:
     * its rank among the batch's domains is d (drank, the resolve order's
     * first key).  A domain's runs are split when they can go to
     * different queues.  When they are all of one transport and one
     * next-hop (byte for byte; not the recipient as destination), all the
     * domain's recipients meet one transport and one queue, in one block
     * of the resolve order (the domain is its first key): their order
     * inside the block changes nothing - the same transport and queue are
     * created at its start, a dead queue defers the whole block in one
     * run, and the batch order keeps them together (equal keys) in the
     * same entries.  They stay whole runs, in written order (issue 16: a
     * split costs a run, an address and a queue look-up per recipient). */
    for (i = 0, d = 0; i < n; i = j, d++) {
        const struct qs_batch_rcpt *first = &v[kd[i].run];
        const qs_mgroup *g = &m->groups[first->group];
        int split = 0;
        for (j = i + 1;
             j < n && key_cmp(m, v, ORDER_DOMAIN, &kd[j - 1], &kd[j]) == 0;
             j++) {
            const struct qs_batch_rcpt *r = &v[kd[j].run];
            const qs_mgroup *h = &m->groups[r->group];
            if (r->limit1 || strcmp(g->transport, h->transport) != 0 ||
                strcmp(g->nexthop, h->nexthop) != 0)
                split = 1;
        }
        if (j - i > 1 && first->limit1)
            split = 1;
        for (t = i; t < j; t++) {
            v[kd[t].run].drank = d;
            v[kd[t].run].deferred = split; /* "split", for the moment */
        }
    }
    out = split_runs(m, v, n, 1);
    /* the resolve order */
    batch_sort(s, m, ORDER_RESOLVE, v, out);
    return out;
}

/* The runs whose destination is the recipient split into a run per
 * recipient, in written order, for assign.c's settled batches (their
 * keys are left to the order that follows). */
size_t qsi_batch_split_own(qs_sched *s, size_t n)
{
    return split_runs(NULL, s->batch, n, 0);
}

/* The batch order from the written order, for a settled batch (assign.c:
 * every transport and destination exists and lives): its split runs'
 * address keys read from their queues' names (the addresses, zero-padded:
 * concurrency.c), then qsi_batch_order. */
void qsi_batch_order_written(qs_sched *s, const qs_message *m, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (s->batch[i].limit1)
            s->batch[i].prefix = qsi_key_prefix(s->batch[i].queue->name, 0,
                                            &s->batch[i].key_short);
    qsi_batch_order(s, m, n);
}

/* S-PFX-11, the batch order (see batch_order.h): stable from the resolve
 * order, so recipients equal in every key stay in the order resolved. */
void qsi_batch_order(qs_sched *s, const qs_message *m, size_t n)
{
    if (n < 2)
        return;
    batch_keys(s, m, s->batch, n);
    batch_sort(s, m, ORDER_BATCH, s->batch, n);
}
