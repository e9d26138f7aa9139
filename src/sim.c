/*
 * sim.c - `qsched sim SCENARIO`: the discrete-event engine around the core.
 *
 * Owns (spec/sim.md: S-SIM-7 time and determinism, S-SIM-10 trace and
 * replay): the command line of the simulator, the event heap and virtual
 * clock (microseconds; the core sees whole seconds, S-EV-6), the model
 * objects (transports, next-hop sites, destinations, messages,
 * deliveries), the workload (messages, repeats, Poisson arrivals), and the
 * driver of the core for the nqmgr policy: every call it makes on the core
 * (qs_advance, qs_arrive, qs_select, qs_done) is also written, as the
 * equivalent event line, to --trace, so a run can be replayed and verified
 * with plain `qsched` (spec/sim.md, "Trace").
 *
 * Why: issue 17.  The core decides; this file lets the delivery agents
 * (sim_client.c) and the remote servers (sim_server.c) produce the `done`
 * outcomes and their times, and the metrics (sim_metrics.c) measure what
 * SCHEDULER_README measured in "Results for delivery to
 * concurrency-limited servers".
 *
 * The core is used only through qsched.h, plus two read-only internal
 * headers: params.h (resolved parameter values: process limits, feedback
 * forms for the policies that do not run the core) and kernels.h (the
 * pure window arithmetic S-CON-2..8, reused by those policies).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "kernels.h"
#include "params.h"
#include "sim.h"

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("qsched sim: out of memory\n", stderr);
        exit(3);
    }
    return q;
}

static char *xstrdup(const char *str)
{
    size_t n = strlen(str) + 1;
    char *p = xrealloc(NULL, n);
    memcpy(p, str, n);
    return p;
}

/* ---- PRNG ---- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void sim_rng_seed(sim_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
    int i;
    for (i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(sim_rng *r)
{
    uint64_t *q = r->s, res = rotl(q[1] * 5, 7) * 9, t = q[1] << 17;
    q[2] ^= q[0];
    q[3] ^= q[1];
    q[1] ^= q[2];
    q[0] ^= q[3];
    q[2] ^= t;
    q[3] = rotl(q[3], 45);
    return res;
}

double sim_rng_unit(sim_rng *r)
{
    return (double)(sim_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t sim_rng_below(sim_rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = sim_rng_next(r);
    while (x >= limit);
    return x % n;
}

/* ---- string map: open addressing, FNV-1a ---- */

/* A deleted slot keeps a tombstone so that probe chains stay intact. */
static char map_tombstone[1];

struct sim_map {
    char **keys;
    int64_t *vals;
    size_t cap, n;
};

static uint64_t fnv(const char *k)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 1099511628211ULL;
    return h;
}

sim_map *sim_map_new(void)
{
    sim_map *m = xrealloc(NULL, sizeof *m);
    m->cap = 64;
    m->n = 0;
    m->keys = xrealloc(NULL, m->cap * sizeof *m->keys);
    m->vals = xrealloc(NULL, m->cap * sizeof *m->vals);
    memset(m->keys, 0, m->cap * sizeof *m->keys);
    return m;
}

void sim_map_free(sim_map *m)
{
    size_t i;
    if (!m)
        return;
    for (i = 0; i < m->cap; i++)
        if (m->keys[i] != map_tombstone)
            free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    free(m);
}

int64_t sim_map_get(const sim_map *m, const char *key)
{
    size_t i = (size_t)(fnv(key) & (m->cap - 1));
    while (m->keys[i]) {
        if (m->keys[i] != map_tombstone && strcmp(m->keys[i], key) == 0)
            return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

void sim_map_del(sim_map *m, const char *key)
{
    size_t i = (size_t)(fnv(key) & (m->cap - 1));
    while (m->keys[i]) {
        if (m->keys[i] != map_tombstone && strcmp(m->keys[i], key) == 0) {
            free(m->keys[i]);
            m->keys[i] = map_tombstone;
            return;
        }
        i = (i + 1) & (m->cap - 1);
    }
}

int sim_map_put(sim_map *m, const char *key, int64_t value)
{
    size_t i;
    if ((m->n + 1) * 2 > m->cap) {
        sim_map old = *m;
        size_t k, live = 0;
        for (k = 0; k < old.cap; k++)
            live += old.keys[k] && old.keys[k] != map_tombstone;
        /* at most a quarter full after the rehash, which drops tombstones */
        m->cap = 64;
        while (m->cap < 4 * (live + 1))
            m->cap *= 2;
        m->n = 0;
        m->keys = xrealloc(NULL, m->cap * sizeof *m->keys);
        m->vals = xrealloc(NULL, m->cap * sizeof *m->vals);
        memset(m->keys, 0, m->cap * sizeof *m->keys);
        for (k = 0; k < old.cap; k++)
            if (old.keys[k] && old.keys[k] != map_tombstone) {
                i = (size_t)(fnv(old.keys[k]) & (m->cap - 1));
                while (m->keys[i])
                    i = (i + 1) & (m->cap - 1);
                m->keys[i] = old.keys[k];
                m->vals[i] = old.vals[k];
                m->n++;
            }
        free(old.keys);
        free(old.vals);
    }
    i = (size_t)(fnv(key) & (m->cap - 1));
    while (m->keys[i]) {
        if (m->keys[i] != map_tombstone && strcmp(m->keys[i], key) == 0) {
            m->vals[i] = value;
            return 0;
        }
        i = (i + 1) & (m->cap - 1);
    }
    /* (a tombstone is not reused: the grow above keeps the table at most
     * half full, tombstones included, and drops them) */
    m->keys[i] = xstrdup(key);
    m->vals[i] = value;
    m->n++;
    return 0;
}

/* ---- the event heap: ordered by (time, insertion number) ---- */

static int ev_less(const sim_event *a, const sim_event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void sim_schedule(sim *s, sim_us t, int kind, int64_t a, int64_t b,
                  uint32_t gen, void *p)
{
    size_t i;
    sim_event ev;
    if (t < s->now)
        t = s->now;
    ev.t = t;
    ev.seq = s->seq++;
    ev.kind = kind;
    ev.a = a;
    ev.b = b;
    ev.gen = gen;
    ev.p = p;
    if (s->nheap == s->capheap) {
        s->capheap = s->capheap ? s->capheap * 2 : 256;
        s->heap = xrealloc(s->heap, s->capheap * sizeof *s->heap);
    }
    i = s->nheap++;
    while (i > 0 && ev_less(&ev, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = ev;
}

static sim_event heap_pop(sim *s)
{
    sim_event top = s->heap[0], last = s->heap[--s->nheap];
    size_t i = 0, n = s->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ev_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!ev_less(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n)
        s->heap[i] = last;
    return top;
}

void sim_fail(sim *s, const char *fmt, ...)
{
    va_list ap;
    if (s->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    s->failed = 1;
}

void sim_request_dispatch(sim *s)
{
    s->dispatch_pending = 1;
}

/* ---- model objects ---- */

static int transport_index(sim *s, const char *name)
{
    size_t i;
    sim_transport *t;
    qs_feedback fb;
    for (i = 0; i < s->ntransports; i++)
        if (strcmp(s->transports[i].name, name) == 0)
            return (int)i;
    s->transports = xrealloc(s->transports,
                             (s->ntransports + 1) * sizeof *s->transports);
    t = &s->transports[s->ntransports];
    memset(t, 0, sizeof *t);
    t->name = xstrdup(name);
    t->process_limit = qs_param_int(s->params, name, QP_PROCESS_LIMIT);
    t->rcpt_limit = qs_param_int(s->params, name, QP_DEST_RCPT_LIMIT);
    t->init_conc = qs_param_int(s->params, name, QP_INIT_CONC);
    t->conc_limit = qs_param_int(s->params, name, QP_DEST_CONC_LIMIT);
    t->cohort_limit = qs_param_int(s->params, name, QP_COHORT_LIMIT);
    if (s->sc->profile == QS_PROFILE_POSTFIX && t->conc_limit > 0 &&
        t->init_conc > t->conc_limit)
        t->init_conc = t->conc_limit;               /* S-PFX-9 */
    fb = qs_param_feedback(s->params, name, QP_POS_FEEDBACK);
    t->pos_form = fb.form;
    t->pos_base = fb.base;
    if (s->sc->profile == QS_PROFILE_POSTFIX && fb.form == QS_FB_SQRT) {
        t->pos_form = QS_FB_CONST;                  /* S-PFX-7 */
        t->pos_base = 1;
    }
    fb = qs_param_feedback(s->params, name, QP_NEG_FEEDBACK);
    t->neg_form = fb.form;
    t->neg_base = fb.base;
    if (s->sc->profile == QS_PROFILE_POSTFIX && fb.form == QS_FB_SQRT) {
        t->neg_form = QS_FB_CONST;
        t->neg_base = 1;
    }
    return (int)s->ntransports++;
}

sim_site *sim_site_get(sim *s, const char *nexthop);

static sim_dest *dest_get(sim *s, int transport, const char *nexthop)
{
    char key[400];
    int64_t i;
    sim_dest *d;
    if (snprintf(key, sizeof key, "%s:%s", s->transports[transport].name,
                 nexthop) >= (int)sizeof key)
        key[sizeof key - 1] = 0;    /* names are at most 64 + 200 bytes */
    i = sim_map_get(s->dest_map, key);
    if (i >= 0)
        return s->dests[i];
    if (s->ndests == s->capdests) {
        s->capdests = s->capdests ? s->capdests * 2 : 64;
        s->dests = xrealloc(s->dests, s->capdests * sizeof *s->dests);
    }
    d = xrealloc(NULL, sizeof *d);
    s->dests[s->ndests] = d;
    memset(d, 0, sizeof *d);
    d->key = xstrdup(key);
    d->index = (int64_t)s->ndests;
    d->transport = transport;
    d->site = sim_site_get(s, nexthop);
    d->window = (int)s->transports[transport].init_conc;
    sim_map_put(s->dest_map, key, (int64_t)s->ndests);
    if (s->sc->watch && strcmp(s->sc->watch, key) == 0)
        s->watch_dest = (int64_t)s->ndests;
    s->ndests++;
    return d;
}

sim_delivery *sim_delivery_new(sim *s)
{
    sim_delivery *d;
    int64_t id;
    if (s->free_delivery >= 0) {
        id = s->free_delivery;
        s->free_delivery = s->deliveries[id].next_free;
    } else {
        if (s->ndeliveries == s->capdeliveries) {
            s->capdeliveries = s->capdeliveries ? s->capdeliveries * 2 : 64;
            s->deliveries = xrealloc(s->deliveries,
                                     (size_t)s->capdeliveries *
                                         sizeof *s->deliveries);
        }
        id = s->ndeliveries++;
    }
    d = &s->deliveries[id];
    memset(d, 0, sizeof *d);
    d->id = id;
    d->session = -1;
    d->conn = -1;
    d->qnext = -1;
    d->live = 1;
    d->start = s->now;
    return d;
}

void sim_delivery_free(sim *s, sim_delivery *d)
{
    d->live = 0;
    d->next_free = s->free_delivery;
    s->free_delivery = d->id;
}

static int counts_for_watch(const sim *s, const sim_dest *d)
{
    return s->watch_dest < 0 || s->dests[s->watch_dest] == d;
}

static void message_account(sim *s, sim_msg *m, int64_t n, int kind)
{
    if (n <= 0 || m->delivered + m->deferred + n > m->nrcpt) {
        sim_fail(s, "internal error: message %s: %lld recipients accounted "
                 "twice", m->id, (long long)n);
        return;
    }
    if (kind == SIM_K_OK)
        m->delivered += n;
    else
        m->deferred += n;
    m->last_done = s->now;
    if (m->delivered + m->deferred == m->nrcpt)
        sim_metrics_message_done(s, m);
}

void sim_defer_recipients(sim *s, sim_msg *m, int64_t n, int kind)
{
    s->m.deferred += n;
    s->m.kind_rcpts[kind] += n;
    message_account(s, m, n, kind);
}

void sim_delivery_count(sim *s, sim_delivery *d, int64_t delta)
{
    sim_class *c = &s->classes[d->msg->cls];
    s->transports[d->dest->transport].inflight += delta;
    if (counts_for_watch(s, d->dest))
        sim_metrics_inflight(s, delta);
    if (s->now > c->f_since) {
        c->f_area += (double)c->f_now * (double)(s->now - c->f_since);
    }
    c->f_since = s->now;
    c->f_now += delta;
}

void sim_delivery_finish(sim *s, sim_delivery *d, int kind)
{
    sim_metrics *mt = &s->m;
    mt->deliveries++;
    if (kind == SIM_K_OK) {
        mt->delivered += d->nrcpt;
    } else {
        mt->deferred += d->nrcpt;
        mt->failed++;
    }
    mt->kind_rcpts[kind] += d->nrcpt;
    mt->kind_deliveries[kind]++;
    mt->last_done = s->now;
    sim_delivery_count(s, d, -1);
    message_account(s, d->msg, d->nrcpt, kind);
    sim_policy_done(s, d, kind);
    sim_delivery_free(s, d);
    sim_request_dispatch(s);
}

void sim_delivery_begin(sim *s, sim_delivery *d)
{
    sim_delivery_count(s, d, +1);
    sim_agent_start(s, d);
}

/* ---- the core (nqmgr) ---- */

static void core_error(sim *s, const char *what, const char *err)
{
    sim_fail(s, "internal error: the core refused %s: %s", what, err);
}

static void core_at(sim *s)
{
    int64_t sec = s->now / SIM_SEC;
    char err[256];
    if (sec <= s->core_now)
        return;
    if (s->trace)
        fprintf(s->trace, "at %lld\n", (long long)sec);
    if (qs_advance(s->core, sec, err, sizeof err) < 0)
        core_error(s, "at", err);
    s->core_now = sec;
}

static sim_msg *msg_by_id(sim *s, const char *id)
{
    int64_t i = sim_map_get(s->msg_map, id);
    return i < 0 ? NULL : s->msgs[i];
}

static int64_t window_init(const sim *s, const sim_dest *d)
{
    return s->transports[d->transport].init_conc;
}

/* Does the core keep one queue per next-hop for this transport?  With a
 * destination recipient limit of 1 it keeps one per recipient (S-EV-4),
 * whose names the simulator does not track. */
static int per_nexthop(const sim *s, int transport)
{
    return s->transports[transport].rcpt_limit != 1;
}

static sim_dest *dest_of(sim *s, const char *transport, const char *dest)
{
    char key[400];
    const char *at = strchr(dest, '@');
    int64_t i;
    if (snprintf(key, sizeof key, "%s:%s", transport, at ? at + 1 : dest) >=
        (int)sizeof key)
        key[sizeof key - 1] = 0;
    i = sim_map_get(s->dest_map, key);
    return i < 0 ? NULL : s->dests[i];
}

/* The core's trace records: mirror the state the metrics need.  The
 * records arrive during the core call that causes them. */
static void core_sink(void *ctx, const qs_trace *r)
{
    sim *s = ctx;
    sim_dest *d;
    sim_msg *m;
    if (s->decisions) {
        char buf[1024];
        size_t n = qs_trace_text(r, 0, buf, sizeof buf);
        if (n)
            fprintf(s->decisions, "%s\n", buf);
    }
    switch (r->kind) {
    case QS_T_READ: {
        /* recipients read in written order (S-MEM-1; the postfix profile
         * sorts within the batch, S-PFX-11, but reads the same ones) */
        int64_t left = r->n;
        m = msg_by_id(s, r->msg);
        if (!m) {
            sim_fail(s, "internal error: read of unknown message %s", r->msg);
            return;
        }
        while (left > 0 && m->read_group < m->ngroups) {
            int64_t room = m->g_count[m->read_group] - m->read_off;
            int64_t take = room < left ? room : left;
            d = s->dests[m->g_dest[m->read_group]];
            if (per_nexthop(s, d->transport)) {
                if (!d->tracked && !d->dead && d->pending == 0 &&
                    d->busy == 0) {
                    d->tracked = 1;                 /* a new queue */
                    d->window = (int)window_init(s, d);
                }
                d->pending += take;
            }
            left -= take;
            m->read_off += take;
            if (m->read_off == m->g_count[m->read_group]) {
                m->read_group++;
                m->read_off = 0;
            }
        }
        break;
    }
    case QS_T_WINDOW:
        d = dest_of(s, r->transport, r->dest);
        if (d && per_nexthop(s, d->transport)) {
            d->window = (int)r->b;
            d->tracked = 1;
        }
        break;
    case QS_T_DEAD:
        d = dest_of(s, r->transport, r->dest);
        if (d && per_nexthop(s, d->transport))
            d->dead = 1;
        /* S-CON-10: revival at the first `at` >= death + backoff */
        sim_schedule(s, (s->core_now + qs_param_int(s->params, NULL,
                                                    QP_MIN_BACKOFF)) *
                            SIM_SEC,
                     EV_WAKEUP, 0, 0, 0, NULL);
        break;
    case QS_T_REVIVE:
        d = dest_of(s, r->transport, r->dest);
        if (d && per_nexthop(s, d->transport)) {
            d->dead = 0;
            d->window = (int)r->a;
            d->tracked = 1;
            if (d->pending == 0 && d->busy == 0)
                d->tracked = 0;                     /* S-CON-13 */
        }
        break;
    case QS_T_DEFER:
        /* recipients deferred by the scheduler: destination dead */
        m = msg_by_id(s, r->msg);
        d = dest_of(s, r->transport, r->dest);
        if (!m || !d) {
            sim_fail(s, "internal error: defer of unknown %s", r->msg);
            return;
        }
        if (per_nexthop(s, d->transport))
            d->pending -= r->n;
        sim_defer_recipients(s, m, r->n, SIM_K_DEAD);
        break;
    default:
        break;
    }
}

static void core_arrive(sim *s, sim_msg *m)
{
    qs_group *g = xrealloc(NULL, m->ngroups * sizeof *g);
    size_t i;
    char err[256];
    core_at(s);
    if (s->trace)
        fprintf(s->trace, "arrive %s", m->id);
    for (i = 0; i < m->ngroups; i++) {
        sim_dest *d = s->dests[m->g_dest[i]];
        g[i].transport = s->transports[d->transport].name;
        g[i].local = NULL;
        g[i].nexthop = d->site->name;
        g[i].count = m->g_count[i];
        if (s->trace) {
            fprintf(s->trace, " %s:%s", g[i].transport, g[i].nexthop);
            if (g[i].count != 1)
                fprintf(s->trace, "*%lld", (long long)g[i].count);
        }
    }
    if (s->trace)
        fputc('\n', s->trace);
    if (qs_arrive(s->core, m->id, g, m->ngroups, err, sizeof err) < 0)
        core_error(s, "arrive", err);
    free(g);
}

void sim_core_dispatch(sim *s)
{
    char err[256];
    core_at(s);
    while (!s->failed) {
        qs_delivery qd;
        sim_delivery *d;
        int rc;
        if (s->trace)
            fputs("select\n", s->trace);
        rc = qs_select(s->core, NULL, &qd, err, sizeof err);
        if (rc < 0) {
            core_error(s, "select", err);
            return;
        }
        if (rc == 0)
            return;
        d = sim_delivery_new(s);
        d->handle = qd.handle;
        d->msg = msg_by_id(s, qd.msg);
        d->dest = dest_of(s, qd.transport, qd.dest);
        d->nrcpt = qd.nrcpt;
        if (!d->msg || !d->dest) {
            sim_fail(s, "internal error: delivery of unknown %s %s:%s",
                     qd.msg, qd.transport, qd.dest);
            return;
        }
        if (per_nexthop(s, d->dest->transport))
            d->dest->pending -= d->nrcpt;
        d->dest->busy++;
        sim_delivery_begin(s, d);
    }
}

void sim_core_done(sim *s, sim_delivery *d, int kind)
{
    static const char *const word[] = {"ok", "fail", "defer"};
    enum qs_outcome o = kind == SIM_K_OK       ? QS_DONE_OK
                        : kind == SIM_K_REJECT ? QS_DONE_DEFER
                                               : QS_DONE_FAIL;
    char err[256];
    sim_dest *dest = d->dest;
    core_at(s);
    if (s->trace)
        fprintf(s->trace, "done D%lld %s\n", (long long)d->handle, word[o]);
    if (qs_done(s->core, d->handle, o, err, sizeof err) < 0) {
        core_error(s, "done", err);
        return;
    }
    dest->busy--;
    if (per_nexthop(s, dest->transport) && dest->tracked && !dest->dead) {
        /* the document's measurement: the window after each feedback
         * event (QMGR_LOG_WINDOW in Postfix's feedback debug log) */
        if (counts_for_watch(s, dest))
            sim_metrics_window(s, dest->window);
        if (dest->pending == 0 && dest->busy == 0)
            dest->tracked = 0;                      /* S-CON-13 discard */
    }
}

/* ---- policies: nqmgr here, the others in sim_policy.c ---- */

static void policy_arrive(sim *s, sim_msg *m)
{
    if (s->sc->policy == SIM_NQMGR)
        core_arrive(s, m);
    else
        sim_policy_arrive(s, m);
    sim_request_dispatch(s);
}

static void dispatch(sim *s)
{
    s->dispatch_pending = 0;
    if (s->sc->policy == SIM_NQMGR)
        sim_core_dispatch(s);
    else
        sim_policy_dispatch(s);
}

/* ---- the workload ---- */

static int work_included(const sim *s, const sim_work *w)
{
    return !s->baseline || strcmp(w->cls, s->sc->bulk_class) == 0;
}

static void message_create(sim *s, const sim_work *w, int64_t copy)
{
    sim_msg *m = xrealloc(NULL, sizeof *m);
    char id[80];
    size_t i, ng = 0, k = 0;
    memset(m, 0, sizeof *m);
    if (w->kind == SIM_W_MESSAGE && w->count == 1)
        snprintf(id, sizeof id, "%s", w->id);
    else
        snprintf(id, sizeof id, "%s.%lld", w->id, (long long)copy + 1);
    m->id = xstrdup(id);
    m->cls = sim_class_index(s, w->cls);
    m->bulk = s->sc->bulk_class && strcmp(w->cls, s->sc->bulk_class) == 0;
    m->arrive = s->now;
    for (i = 0; i < w->ngroups; i++)
        ng += (w->kind == SIM_W_MESSAGE && w->groups[i].ranged)
                  ? (size_t)(w->groups[i].hi - w->groups[i].lo + 1)
                  : 1;
    m->g_dest = xrealloc(NULL, ng * sizeof *m->g_dest);
    m->g_count = xrealloc(NULL, ng * sizeof *m->g_count);
    m->ngroups = ng;
    for (i = 0; i < w->ngroups; i++) {
        const sim_group *g = &w->groups[i];
        int t = transport_index(s, g->transport);
        int64_t lo = g->lo, hi = g->hi, v;
        char nh[300];
        if (g->ranged && w->kind == SIM_W_POISSON) {
            lo = hi = g->lo + (int64_t)sim_rng_below(
                                  &s->rng_work, (uint64_t)(g->hi - g->lo + 1));
        }
        for (v = lo; v <= hi; v++) {
            sim_dest *d;
            if (g->ranged)
                snprintf(nh, sizeof nh, "%s%lld%s", g->pre, (long long)v,
                         g->post);
            else
                snprintf(nh, sizeof nh, "%s", g->pre);
            d = dest_get(s, t, nh);
            m->g_dest[k] = d->index;
            m->g_count[k] = g->count;
            m->nrcpt += g->count;
            k++;
            if (!g->ranged)
                break;
        }
    }
    if (s->nmsgs == s->capmsgs) {
        s->capmsgs = s->capmsgs ? s->capmsgs * 2 : 64;
        s->msgs = xrealloc(s->msgs, s->capmsgs * sizeof *s->msgs);
    }
    m->index = s->nmsgs;
    s->msgs[s->nmsgs] = m;
    sim_map_put(s->msg_map, m->id, (int64_t)s->nmsgs);
    s->nmsgs++;
    s->msgs_open++;
    s->m.recipients += m->nrcpt;
    if (s->m.first_arrive < 0)
        s->m.first_arrive = s->now;
    s->classes[m->cls].messages++;
    s->classes[m->cls].rcpts += m->nrcpt;
    if (s->classes[m->cls].messages == 1)
        s->classes[m->cls].first_arrive = s->now;
    policy_arrive(s, m);
}

static sim_us exp_draw(sim *s, double rate)
{
    /* inverse transform; u in (0, 1] so the logarithm is finite */
    double u = 1.0 - sim_rng_unit(&s->rng_work);
    double dt = -log(u) / rate * (double)SIM_SEC;
    if (dt > (double)SIM_TIME_MAX)
        return SIM_TIME_MAX;
    return (sim_us)dt;
}

static void work_event(sim *s, const sim_event *ev)
{
    const sim_work *w = &s->sc->work[ev->a];
    s->work_left--;
    message_create(s, w, ev->b);
    if (w->kind == SIM_W_MESSAGE) {
        if (ev->b + 1 < w->count) {
            s->work_left++;
            sim_schedule(s, w->at + w->every * (ev->b + 1), EV_ARRIVAL, ev->a,
                         ev->b + 1, 0, NULL);
        }
    } else {
        sim_us next = s->now + exp_draw(s, w->rate);
        if (next < w->stop && (w->count == 0 || ev->b + 1 < w->count)) {
            s->work_left++;
            sim_schedule(s, next, EV_POISSON, ev->a, ev->b + 1, 0, NULL);
        }
    }
}

static void schedule_workload(sim *s)
{
    size_t i;
    for (i = 0; i < s->sc->nwork; i++) {
        const sim_work *w = &s->sc->work[i];
        if (!work_included(s, w))
            continue;
        /* classes exist in scenario order, whether or not mail arrives */
        sim_class_index(s, w->cls);
        if (w->kind == SIM_W_MESSAGE) {
            s->work_left++;
            sim_schedule(s, w->at, EV_ARRIVAL, (int64_t)i, 0, 0, NULL);
        } else {
            sim_us t = w->start + exp_draw(s, w->rate);
            if (t < w->stop) {
                s->work_left++;
                sim_schedule(s, t, EV_POISSON, (int64_t)i, 0, 0, NULL);
            }
        }
    }
}

/* ---- the run ---- */

static void free_finished(sim *s);

static int sim_init(sim *s, const sim_scenario *sc, int baseline)
{
    size_t i;
    char err[256];
    memset(s, 0, sizeof *s);
    s->sc = sc;
    s->baseline = baseline;
    s->free_session = -1;
    s->free_delivery = -1;
    s->free_conn = -1;
    s->watch_dest = -1;
    s->core_now = -1;
    s->m.first_arrive = -1;
    s->m.w_min = 0;
    sim_rng_seed(&s->rng_work, sc->seed, SIM_RNG_WORKLOAD);
    sim_rng_seed(&s->rng_service, sc->seed, SIM_RNG_SERVICE);
    sim_rng_seed(&s->rng_faults, sc->seed, SIM_RNG_FAULTS);
    sim_rng_seed(&s->rng_policy, sc->seed, SIM_RNG_POLICY);
    s->msg_map = sim_map_new();
    s->dest_map = sim_map_new();
    s->site_map = sim_map_new();
    s->params = qs_params_new();
    for (i = 0; i < sc->nparams; i++)
        if (qs_params_set(s->params, sc->params[i].name, sc->params[i].value,
                          err, sizeof err) < 0) {
            sim_fail(s, "internal error: parameter %s: %s",
                     sc->params[i].name, err);
            return -1;
        }
    s->backoff = qs_param_int(s->params, NULL, QP_MIN_BACKOFF) * SIM_SEC;
    sim_sites_build(s);
    if (sc->policy == SIM_NQMGR) {
        s->core = qs_sched_new(s->params, (enum qs_profile)sc->profile,
                               core_sink, s, err, sizeof err);
        if (!s->core) {
            sim_fail(s, "internal error: %s", err);
            return -1;
        }
    }
    return 0;
}

static void write_trace_header(sim *s)
{
    size_t i;
    const sim_scenario *sc = s->sc;
    if (!s->trace)
        return;
    fprintf(s->trace, "# qsched sim %s seed %llu: the event stream of this "
            "run (replay with qsched)\n", sc->fname,
            (unsigned long long)sc->seed);
    fprintf(s->trace, "profile %s\n",
            sc->profile == QS_PROFILE_POSTFIX ? "postfix" : "document");
    for (i = 0; i < sc->nparams; i++)
        fprintf(s->trace, "%s = %s\n", sc->params[i].name,
                sc->params[i].value);
}

static void sim_run(sim *s)
{
    const sim_scenario *sc = s->sc;
    write_trace_header(s);
    schedule_workload(s);
    if (s->series) {
        fputs("time\tinflight\twindow\n", s->series);
        sim_schedule(s, 0, EV_SAMPLE, 0, 0, 0, NULL);
    }
    while (s->nheap && !s->failed) {
        sim_event ev;
        if (s->msgs_open == 0 && s->work_left == 0)
            break;                  /* all mail dealt with */
        if (s->heap[0].t > sc->stop)
            break;
        ev = heap_pop(s);
        s->now = ev.t;
        s->m.events++;
        switch (ev.kind) {
        case EV_ARRIVAL:
        case EV_POISSON:
            work_event(s, &ev);
            break;
        case EV_WAKEUP:
            sim_request_dispatch(s);
            break;
        case EV_SAMPLE:
            sim_series_sample(s);
            if (s->nheap)
                sim_schedule(s, s->now + sc->sample, EV_SAMPLE, 0, 0, 0, NULL);
            break;
        case EV_FINCH_AGE:
        case EV_FINCH_IDLE:
            sim_policy_event(s, &ev);
            break;
        case EV_CACHE_EXPIRE:
            sim_cache_expire(s, &ev);
            break;
        default:
            sim_server_event(s, &ev);
            break;
        }
        if (s->dispatch_pending && !s->failed)
            dispatch(s);
        if (s->nfinished)
            free_finished(s);
    }
    if (s->now > s->m.f_last)
        sim_metrics_inflight(s, 0);
}

static void msg_free(sim_msg *m)
{
    free(m->id);
    free(m->g_dest);
    free(m->g_count);
    free(m->peers);
    sim_map_free(m->peer_map);
    free(m);
}

/* Finished messages are freed after the event that finished them (the
 * policy may still look at them during it), so that memory follows the
 * messages in the system, not all messages ever seen. */
static void free_finished(sim *s)
{
    size_t i;
    for (i = 0; i < s->nfinished; i++) {
        sim_msg *m = s->finished[i];
        sim_map_del(s->msg_map, m->id);
        s->msgs[m->index] = NULL;
        msg_free(m);
    }
    s->nfinished = 0;
}

static void sim_free(sim *s)
{
    size_t i;
    sim_policy_free(s);
    if (s->core)
        qs_sched_free(s->core);
    qs_params_free(s->params);
    free_finished(s);
    for (i = 0; i < s->nmsgs; i++)
        if (s->msgs[i])
            msg_free(s->msgs[i]);
    free(s->msgs);
    free(s->finished);
    for (i = 0; i < s->ndests; i++) {
        free(s->dests[i]->key);
        free(s->dests[i]);
    }
    free(s->dests);
    for (i = 0; i < s->ntransports; i++)
        free(s->transports[i].name);
    free(s->transports);
    sim_sites_free(s);
    free(s->sessions);
    free(s->deliveries);
    free(s->conns);
    free(s->heap);
    sim_classes_free(s);
    sim_map_free(s->msg_map);
    sim_map_free(s->dest_map);
    sim_map_free(s->site_map);
}

/* ---- the command line ---- */

static void usage(FILE *f)
{
    fputs("usage: qsched sim [OPTIONS] SCENARIO\n"
          "  run a discrete-event simulation of SCENARIO (spec/sim.md): the "
          "core (or\n"
          "  another policy) schedules, simulated delivery agents and "
          "servers answer.\n"
          "options:\n"
          "  --format tsv|json   metrics format on stdout (default tsv)\n"
          "  --seed N            override the scenario's seed\n"
          "  --set 'LINE'        append a scenario line (replaces a single "
          "setting)\n"
          "  --trace FILE        write the event stream given to the core "
          "(nqmgr only);\n"
          "                      `qsched FILE` replays it\n"
          "  --decisions FILE    write the core's default-level trace as it "
          "happened\n"
          "  --series FILE       TSV time series: in-flight deliveries and "
          "window\n"
          "  --delays FILE       TSV per finished message: class, arrival, delay\n"
          "exit: 0 ok, 2 bad scenario (FILE:LINE: reason) or command line, "
          "3 internal error\n",
          f);
}

static FILE *open_out(const char *name)
{
    FILE *f = strcmp(name, "-") == 0 ? stdout : fopen(name, "w");
    if (!f)
        fprintf(stderr, "qsched sim: cannot write %s\n", name);
    return f;
}

static int close_out(FILE *f, const char *name)
{
    int bad;
    if (!f)
        return 0;
    bad = ferror(f) != 0;
    if (f == stdout)
        bad |= fflush(f) != 0;
    else
        bad |= fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "qsched sim: write error on %s\n", name);
        return -1;
    }
    return 0;
}

int qs_sim_main(int argc, char **argv)
{
    const char *file = NULL, *trace = NULL, *decisions = NULL, *series = NULL,
               *delays = NULL;
    char **sets = NULL, err[600];
    size_t nsets = 0;
    int json = 0, i, rc = 0, have_seed = 0;
    uint64_t seed = 0;
    sim_scenario sc;
    sim s, base;
    int have_base = 0;
    static char outbuf[1 << 16];

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--format") == 0 && i + 1 < argc) {
            const char *f = argv[++i];
            if (strcmp(f, "json") == 0)
                json = 1;
            else if (strcmp(f, "tsv") != 0) {
                fprintf(stderr, "qsched sim: unknown format \"%s\" (want tsv "
                        "or json)\n", f);
                free(sets);
                return 2;
            }
        } else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            char *end;
            const char *v = argv[++i];
            if (*v < '0' || *v > '9') {
                fprintf(stderr, "qsched sim: bad seed \"%s\"\n", v);
                free(sets);
                return 2;
            }
            seed = strtoull(v, &end, 10);
            if (*end) {
                fprintf(stderr, "qsched sim: bad seed \"%s\"\n", v);
                free(sets);
                return 2;
            }
            have_seed = 1;
        } else if (strcmp(a, "--set") == 0 && i + 1 < argc) {
            sets = xrealloc(sets, (nsets + 1) * sizeof *sets);
            sets[nsets++] = argv[++i];
        } else if (strcmp(a, "--trace") == 0 && i + 1 < argc) {
            trace = argv[++i];
        } else if (strcmp(a, "--decisions") == 0 && i + 1 < argc) {
            decisions = argv[++i];
        } else if (strcmp(a, "--series") == 0 && i + 1 < argc) {
            series = argv[++i];
        } else if (strcmp(a, "--delays") == 0 && i + 1 < argc) {
            delays = argv[++i];
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "qsched sim: unknown option \"%s\"\n", a);
            usage(stderr);
            free(sets);
            return 2;
        } else if (file) {
            fprintf(stderr, "qsched sim: more than one scenario\n");
            free(sets);
            return 2;
        } else {
            file = a;
        }
    }
    if (!file) {
        usage(stderr);
        free(sets);
        return 2;
    }
    rc = sim_scenario_load(file, sets, nsets, &sc, err, sizeof err);
    free(sets);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        sim_scenario_free(&sc);
        return 2;
    }
    if (have_seed)
        sc.seed = seed;
    if ((trace || decisions) && sc.policy != SIM_NQMGR) {
        fprintf(stderr, "qsched sim: --trace and --decisions need policy "
                "nqmgr (only it runs the core)\n");
        sim_scenario_free(&sc);
        return 2;
    }
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (sim_init(&s, &sc, 0) < 0) {
        fprintf(stderr, "qsched sim: %s\n", s.err);
        sim_free(&s);
        sim_scenario_free(&sc);
        return 3;
    }
    if (trace && !(s.trace = open_out(trace)))
        rc = 2;
    if (decisions && !(s.decisions = open_out(decisions)))
        rc = 2;
    if (series && !(s.series = open_out(series)))
        rc = 2;
    if (delays && !(s.delays = open_out(delays)))
        rc = 2;
    if (s.delays)
        fputs("id\tclass\tarrive\trcpts\tdelivered\tdeferred\tdelay\n",
              s.delays);
    if (!rc) {
        sim_run(&s);
        if (!s.failed && sc.inflation) {
            /* the same scenario with only the bulk class: the denominator
             * of the inflation factor */
            if (sim_init(&base, &sc, 1) == 0)
                sim_run(&base);
            have_base = 1;
            if (base.failed)
                sim_fail(&s, "%s", base.err);
        }
        if (s.failed) {
            fprintf(stderr, "qsched sim: %s\n", s.err);
            rc = 3;
        } else {
            sim_metrics_print(&s, stdout, json, have_base ? &base : NULL);
        }
    }
    if (close_out(s.trace, trace) || close_out(s.decisions, decisions) ||
        close_out(s.series, series) || close_out(s.delays, delays))
        rc = rc ? rc : 2;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "qsched sim: write error on standard output\n");
        rc = rc ? rc : 2;
    }
    if (have_base)
        sim_free(&base);
    sim_free(&s);
    sim_scenario_free(&sc);
    return rc;
}
