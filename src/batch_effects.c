/*
 * batch_effects.c - the order in which the postfix profile makes a
 * batch's side effects, found from the effects alone.
 *
 * Implements spec/profiles.md S-PFX-11 (Postfix resolves the recipients
 * it reads in its resolve order: by domain, then address) restricted to
 * what that order decides: which destination is created first and how a
 * batch's deferrals at dead destinations fall into `defer` lines (S-CON-9).
 * A look-up that fails is an effect; the destinations that exist and
 * live are resolved without a trace, so their places in the order change
 * nothing (assign.c batch_resolve_postfix has the whole argument).
 *
 * Owns: qsi_batch_fx_order, the sort of a batch's effects (struct
 * qs_batch_fx, batch_order.h) and the test of whether their order can be
 * told without the rest of the batch.  May not: create, defer or assign
 * anything (assign.c does, in the order made here).
 *
 * Why a file of its own: the resolve and batch orders (batch_order.c)
 * had reached the core's 650 lines; this one reads their keys
 * (qsi_key_prefix, qsi_domain_cmp, qsi_address_head) and nothing else of
 * theirs.  Issue 16, session 22: with it, a batch that is not settled
 * skips the resolve order of its whole batch (transports +2.4%).
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
        if (!(a->ashort && b->ashort)) {
            char da[QSI_ADDRESS_MAX], db[QSI_ADDRESS_MAX];
            qsi_rcpt_address(ga, a->index, a->ordinal, da);
            qsi_rcpt_address(gb, b->index, b->ordinal, db);
            if ((c = strcmp(da, db)) != 0)
                return c;
        }
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
