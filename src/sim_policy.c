/*
 * sim_policy.c - the schedulers `qsched sim` runs beside nqmgr, outside
 * the core: oqmgr-style round-robin by destination, plain FIFO, and Tony
 * Finch's scheduler (allowed_new_worker, next_router_job, destdb).
 *
 * Owns (spec/sim.md, S-SIM-12): for these policies, the queue manager's
 * part: messages in arrival
 * order, their recipients per destination ("peers"), the destination
 * windows, the choice of the next delivery, and for Finch the connections
 * with their job queues.  nqmgr is not here: the core (src/sched.c) is
 * the nqmgr, driven by sim.c.
 *
 * Which documents:
 *   - oqmgr: nqmgr-intro ("oqmgr(8) uses round-robin by destination") and
 *     SCHEDULER_README ("The nqmgr uses the same algorithm for destination
 *     concurrency control as oqmgr"): each transport keeps its
 *     destinations on a list; the next delivery comes from the first ready
 *     destination after the one served last (it moves to the tail), and
 *     within a destination the oldest message goes first.  No preemption,
 *     no job list;
 *   - FIFO: Finch's "first-come-first-served" strawman: the oldest message
 *     with a ready destination gets the next delivery;
 *   - both use the concurrency scheduler of the document, with the core's
 *     own kernels (kernels.h: S-CON-2..8) and the same parameters, so
 *     that only the selection differs from nqmgr.  Simplifications: no
 *     recipient memory limits (every recipient is in core), the process
 *     limit counts deliveries in flight;
 *   - Finch (finch-mta-scheduler.txt): allowed_new_worker with
 *     max_message_concurrency and scale_max_concurrency * free_workers;
 *     mode=router is next_router_job over messages in arrival order with
 *     one job per worker; mode=delivery is his delivery scheduler: the
 *     destdb classification of a job's destinations into active, idle,
 *     closed, unused and retry; the backlog threshold; pipelining with a
 *     job queue per connection; free rides on active connections for jobs
 *     not allowed a new worker; closing idle connections when a worker is
 *     needed; ageing of idle and active connections; fallback to the
 *     secondary (tertiary ...) destinations; deferral when no destination
 *     is left.  Finch has no per-destination window: a host's connection
 *     count is limited by dest_limit instead.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
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

int sim_finch_owns_sessions(const sim *s)
{
    return s->sc->policy == SIM_FINCH && !s->sc->finch.router;
}

static void peer_unlink(sim_peer *p);
static void msg_deactivate(sim *s, sim_msg *m);
static void rr_remove(sim *s, sim_dest *d);

/* ---- destination windows (S-CON-*, through the core's kernels) ---- */

int sim_dest_ready(const sim *s, const sim_dest *d)
{
    (void)s;
    return !d->dead && d->window > d->busy;
}

/* Dead (S-CON-8, S-CON-9): pending recipients are deferred; revival at
 * now + minimal_backoff_time (S-CON-10), checked by revive_due(). */
void sim_dest_die(sim *s, sim_dest *d)
{
    sim_peer *p, *next;
    d->dead = 1;
    d->revive_at = s->now + s->backoff;
    for (p = d->phead; p; p = next) {
        int64_t n = p->left;
        next = p->dnext;
        p->left = 0;
        peer_unlink(p);
        p->msg->unselected -= n;
        if (p->msg->unselected == 0)
            msg_deactivate(s, p->msg);
        if (n > 0)
            sim_defer_recipients(s, p->msg, n, SIM_K_DEAD);
    }
    rr_remove(s, d);
    if (s->ndead == s->capdead) {
        s->capdead = s->capdead ? s->capdead * 2 : 16;
        s->dead = xrealloc(s->dead, s->capdead * sizeof *s->dead);
    }
    s->dead[s->ndead++] = d;
    sim_schedule(s, d->revive_at, EV_WAKEUP, 0, 0, 0, NULL);
}

static void revive_due(sim *s)
{
    size_t i = 0;
    while (i < s->ndead) {
        sim_dest *d = s->dead[i];
        if (d->revive_at <= s->now) {
            d->dead = 0;
            d->window = (int)s->transports[d->transport].init_conc;
            d->success = d->failure = d->fail_cohorts = 0;
            memmove(s->dead + i, s->dead + i + 1,
                    (s->ndead - i - 1) * sizeof *s->dead);
            s->ndead--;
        } else {
            i++;
        }
    }
}

/* Feedback for one finished delivery (S-CON-12), after the delivery has
 * left busy (document profile; the postfix profile counts it, S-PFX-6). */
void sim_dest_feedback(sim *s, sim_dest *d, int kind)
{
    sim_transport *t = &s->transports[d->transport];
    int postfix = s->sc->profile == QS_PROFILE_POSTFIX;
    int64_t busy = d->busy + (postfix ? 1 : 0);
    if (d->dead)
        return;         /* S-CON-11: no feedback on a dead destination */
    if (kind == SIM_K_OK || kind == SIM_K_REJECT) {
        if (postfix)
            d->fail_cohorts = 0;                            /* S-PFX-5 */
        if (postfix && t->conc_limit > 0 && d->window >= t->conc_limit) {
            /* S-PFX-3: no positive feedback at the limit */
        } else if (qs_safety_allows(d->window, (int)busy,
                                    (int)t->init_conc)) {    /* S-CON-3 */
            double g = qs_fb_value(t->pos_form, t->pos_base, d->window);
            d->fail_cohorts = 0;
            d->window = qs_success_step(d->window, g, (int)t->conc_limit,
                                        postfix, &d->success, &d->failure);
        }
    } else {
        double f;
        d->fail_cohorts = qs_cohort_add(d->fail_cohorts, d->window); /* 6 */
        if (qs_cohort_dead(d->fail_cohorts, (int)t->cohort_limit,
                           postfix)) {                       /* S-CON-8 */
            sim_dest_die(s, d);
            return;
        }
        f = qs_fb_value(t->neg_form, t->neg_base, d->window);
        d->window = qs_failure_step(d->window, f, postfix, &d->success,
                                    &d->failure);            /* S-CON-7 */
    }
    if (s->watch_dest < 0 || s->dests[s->watch_dest] == d)
        sim_metrics_window(s, d->window);
}

/* ---- messages and peers ---- */

static void msg_activate(sim *s, sim_msg *m)
{
    if (m->active)
        return;
    m->active = 1;
    m->prev = s->mtail;
    m->next = NULL;
    if (s->mtail)
        s->mtail->next = m;
    else
        s->mhead = m;
    s->mtail = m;
}

static void msg_deactivate(sim *s, sim_msg *m)
{
    if (!m->active)
        return;
    m->active = 0;
    if (m->prev)
        m->prev->next = m->next;
    else
        s->mhead = m->next;
    if (m->next)
        m->next->prev = m->prev;
    else
        s->mtail = m->prev;
    m->prev = m->next = NULL;
}

static void rr_add(sim *s, sim_dest *d)
{
    sim_transport *t = &s->transports[d->transport];
    if (d->on_rr)
        return;
    d->on_rr = 1;
    d->rr_prev = t->rr_tail;
    d->rr_next = NULL;
    if (t->rr_tail)
        t->rr_tail->rr_next = d;
    else
        t->rr_head = d;
    t->rr_tail = d;
}

static void rr_remove(sim *s, sim_dest *d)
{
    sim_transport *t = &s->transports[d->transport];
    if (!d->on_rr)
        return;
    d->on_rr = 0;
    if (d->rr_prev)
        d->rr_prev->rr_next = d->rr_next;
    else
        t->rr_head = d->rr_next;
    if (d->rr_next)
        d->rr_next->rr_prev = d->rr_prev;
    else
        t->rr_tail = d->rr_prev;
    d->rr_prev = d->rr_next = NULL;
}

static void peer_unlink(sim_peer *p)
{
    sim_dest *d = p->dest;
    if (p->dprev)
        p->dprev->dnext = p->dnext;
    else if (d->phead == p)
        d->phead = p->dnext;
    else
        return;         /* not linked */
    if (p->dnext)
        p->dnext->dprev = p->dprev;
    else
        d->ptail = p->dprev;
    p->dprev = p->dnext = NULL;
}

void sim_policy_arrive(sim *s, sim_msg *m)
{
    size_t i, k;
    /* one peer per destination, in the order the groups name them */
    m->peers = xrealloc(NULL, m->ngroups * sizeof *m->peers);
    for (i = 0; i < m->ngroups; i++) {
        sim_dest *d = s->dests[m->g_dest[i]];
        for (k = 0; k < m->npeers; k++)
            if (m->peers[k].dest == d)
                break;
        if (k == m->npeers) {
            memset(&m->peers[k], 0, sizeof m->peers[k]);
            m->peers[k].msg = m;
            m->peers[k].dest = d;
            m->npeers++;
        }
        m->peers[k].left += m->g_count[i];
    }
    m->unselected = m->nrcpt;
    if (s->sc->policy == SIM_FINCH && m->npeers > 16) {
        /* Finch looks a message's jobs up by destination */
        m->peer_map = sim_map_new();
        for (k = 0; k < m->npeers; k++)
            sim_map_put(m->peer_map, m->peers[k].dest->key, (int64_t)k);
    }
    for (k = 0; k < m->npeers; k++) {
        sim_peer *p = &m->peers[k];
        sim_dest *d = p->dest;
        if (d->dead) {
            /* S-CON-9: a recipient for a dead destination is deferred */
            int64_t n = p->left;
            p->left = 0;
            m->unselected -= n;
            sim_defer_recipients(s, m, n, SIM_K_DEAD);
            continue;
        }
        p->dprev = d->ptail;
        if (d->ptail)
            d->ptail->dnext = p;
        else
            d->phead = p;
        d->ptail = p;
        rr_add(s, d);
    }
    if (m->unselected > 0)
        msg_activate(s, m);
}

/* Starts a delivery of the next entry of peer p. */
static sim_delivery *take_entry(sim *s, sim_peer *p)
{
    sim_transport *t = &s->transports[p->dest->transport];
    sim_delivery *d = sim_delivery_new(s);
    int64_t n = p->left;
    if (t->rcpt_limit > 0 && n > t->rcpt_limit)
        n = t->rcpt_limit;
    d->msg = p->msg;
    d->dest = p->dest;
    d->peer = p;
    d->nrcpt = n;
    p->left -= n;
    p->msg->unselected -= n;
    p->inflight++;
    if (p->left == 0)
        peer_unlink(p);
    if (!p->dest->phead)
        rr_remove(s, p->dest);
    if (p->msg->unselected == 0)
        msg_deactivate(s, p->msg);
    return d;
}

static int transport_has_room(const sim_transport *t)
{
    return t->process_limit <= 0 || t->inflight < t->process_limit;
}

/* oqmgr: round-robin over transports, then over destinations. */
static int select_oqmgr(sim *s)
{
    size_t n = s->ntransports, i;
    for (i = 0; i < n; i++) {
        size_t ti = (s->rr_transport + i) % n;
        sim_transport *t = &s->transports[ti];
        sim_dest *d;
        if (!transport_has_room(t))
            continue;
        for (d = t->rr_head; d; d = d->rr_next)
            if (sim_dest_ready(s, d) && d->phead)
                break;
        if (!d)
            continue;
        {
            sim_delivery *dl;
            /* served: to the tail of the list */
            rr_remove(s, d);
            rr_add(s, d);
            dl = take_entry(s, d->phead);
            dl->dest->busy++;
            s->rr_transport = (ti + 1) % n;
            sim_delivery_begin(s, dl);
            return 1;
        }
    }
    return 0;
}

/* FIFO: the oldest message with a ready destination. */
static int select_fifo(sim *s)
{
    sim_msg *m;
    size_t i;
    for (i = 0; i < s->ntransports; i++)
        if (transport_has_room(&s->transports[i]))
            break;
    if (i == s->ntransports)
        return 0;       /* every agent busy: nothing to scan */
    for (m = s->mhead; m; m = m->next) {
        size_t k;
        while (m->peer_cursor < m->npeers &&
               m->peers[m->peer_cursor].left == 0)
            m->peer_cursor++;
        for (k = m->peer_cursor; k < m->npeers; k++) {
            sim_peer *p = &m->peers[k];
            sim_delivery *dl;
            if (p->left == 0 || !sim_dest_ready(s, p->dest) ||
                !transport_has_room(&s->transports[p->dest->transport]))
                continue;
            dl = take_entry(s, p);
            dl->dest->busy++;
            sim_delivery_begin(s, dl);
            return 1;
        }
    }
    return 0;
}

/* ---- Finch ---- */

static int64_t finch_workers(const sim *s, int transport)
{
    int64_t w = s->transports[transport].process_limit;
    return w > 0 ? w : 100;
}

static int64_t conn_jobs(const sim_conn *c)
{
    return c->qlen + (c->running ? 1 : 0);
}

/* Workers not busy with a job (idle connections count as free: they can
 * be closed when a worker is needed).  In router mode a worker is busy
 * while its job is in flight. */
static int64_t free_workers(const sim *s, int transport)
{
    const sim_transport *t = &s->transports[transport];
    return finch_workers(s, transport) -
           (s->sc->finch.router ? t->inflight : t->conns_busy);
}

/* Keeps the transport's count of connections with jobs up to date. */
static void conn_sync(sim *s, sim_conn *c)
{
    int busy = c->open && conn_jobs(c) > 0;
    if (busy != c->busy) {
        s->transports[s->finch_conn_transport[c->id]].conns_busy +=
            busy ? 1 : -1;
        c->busy = busy;
    }
}

/* allowed_new_worker(job) */
static int allowed_new_worker(const sim *s, const sim_msg *m, int transport)
{
    const sim_finch_opts *f = &s->sc->finch;
    if (m->concurrency < f->max_message_concurrency)
        return 1;
    if ((double)m->concurrency <
        f->scale * (double)free_workers(s, transport))
        return 1;
    return 0;
}

/* Router mode: next_router_job(jobs) = the first job whose message is
 * allowed a new worker; the job runs on a delivery agent. */
static int select_finch_router(sim *s)
{
    sim_msg *m;
    for (m = s->mhead; m; m = m->next) {
        size_t k;
        while (m->peer_cursor < m->npeers &&
               m->peers[m->peer_cursor].left == 0)
            m->peer_cursor++;
        for (k = m->peer_cursor; k < m->npeers; k++) {
            sim_peer *p = &m->peers[k];
            int t = p->dest->transport;
            sim_delivery *dl;
            if (p->left == 0)
                continue;
            if (s->transports[t].inflight >= finch_workers(s, t))
                continue;
            if (!allowed_new_worker(s, m, t))
                break;      /* this message: no new worker */
            dl = take_entry(s, p);
            m->concurrency++;
            sim_delivery_begin(s, dl);
            return 1;
        }
    }
    return 0;
}

/* --- delivery mode: connections with job queues --- */

static sim_conn *conn_alloc(sim *s)
{
    int64_t id;
    sim_conn *c;
    uint32_t gen;
    if (s->free_conn >= 0) {
        id = s->free_conn;
        s->free_conn = s->conns[id].next_free;
    } else {
        if (s->nconns == s->capconns) {
            s->capconns = s->capconns ? s->capconns * 2 : 32;
            s->conns = xrealloc(s->conns,
                                (size_t)s->capconns * sizeof *s->conns);
            s->finch_conn_transport = xrealloc(
                s->finch_conn_transport,
                (size_t)s->capconns * sizeof *s->finch_conn_transport);
            memset(s->conns + s->nconns, 0,
                   (size_t)(s->capconns - s->nconns) * sizeof *s->conns);
        }
        id = s->nconns++;
    }
    c = &s->conns[id];
    gen = c->gen + 1;
    memset(c, 0, sizeof *c);
    c->id = id;
    c->gen = gen;
    c->qhead = c->qtail = -1;
    c->session = -1;
    return c;
}

static sim_host *addr_record(sim_site *site, int h)
{
    return site->hosts[h * site->nbackends];
}

static void conn_close(sim *s, sim_conn *c)
{
    sim_host *rec = c->host;
    c->open = 0;
    conn_sync(s, c);
    if (c->session >= 0)
        sim_session_close(s, c->session);
    c->session = -1;
    rec->conns--;
    rec->site->conns--;
    s->transports[s->finch_conn_transport[c->id]].conns_open--;
    if (rec->conns == 0)
        rec->closed_at = s->now;    /* destdb keeps a "closed" record */
    c->open = 0;
    c->gen++;
    c->next_free = s->free_conn;
    s->free_conn = c->id;
    sim_request_dispatch(s);
}

static void conn_push(sim *s, sim_conn *c, sim_delivery *d)
{
    d->conn = c->id;
    d->qnext = -1;
    if (c->qtail >= 0)
        s->deliveries[c->qtail].qnext = d->id;
    else
        c->qhead = d->id;
    c->qtail = d->id;
    c->qlen++;
    conn_sync(s, c);
}

static sim_delivery *conn_pop(sim *s, sim_conn *c)
{
    sim_delivery *d;
    if (c->qhead < 0)
        return NULL;
    d = &s->deliveries[c->qhead];
    c->qhead = d->qnext;
    if (c->qhead < 0)
        c->qtail = -1;
    c->qlen--;
    d->qnext = -1;
    conn_sync(s, c);
    return d;
}

/* Runs the next job of a ready connection (pipelining: back to back). */
static void conn_kick(sim *s, sim_conn *c)
{
    sim_delivery *d;
    if (!c->open || !c->ready || c->running)
        return;
    d = conn_pop(s, c);
    if (!d) {
        if (c->retiring) {
            conn_close(s, c);
            return;
        }
        /* idle: ageing closes it after idle_timeout */
        sim_schedule(s, s->now + s->sc->finch.idle_timeout, EV_FINCH_IDLE,
                     c->id, ++c->idle_serial, c->gen, NULL);
        sim_request_dispatch(s);
        return;
    }
    c->running = d->id + 1;
    conn_sync(s, c);
    sim_session_transact(s, c->session, d->nrcpt);
}

static sim_conn *conn_open(sim *s, sim_site *site, int h, int transport)
{
    sim_conn *c = conn_alloc(s);
    sim_host *rec = addr_record(site, h);
    c->host = rec;
    c->open = 1;
    c->opened = s->now;
    s->finch_conn_transport[c->id] = transport;
    rec->conns++;
    site->conns++;
    s->transports[transport].conns_open++;
    c->session = sim_session_open(s, site, h, c->id);
    sim_schedule(s, s->now + s->sc->finch.max_age, EV_FINCH_AGE, c->id, 0,
                 c->gen, NULL);
    return c;
}

/* Does connection c carry a job of message m (running or queued)?  A
 * message's concurrency is the number of workers (connections) its jobs
 * occupy, however many of its jobs wait on each. */
static int conn_carries(sim *s, const sim_conn *c, const sim_msg *m)
{
    int64_t i;
    if (c->running && s->deliveries[c->running - 1].msg == m)
        return 1;
    for (i = c->qhead; i >= 0; i = s->deliveries[i].qnext)
        if (s->deliveries[i].msg == m)
            return 1;
    return 0;
}

/* A job goes back to its peer (its connection failed before running it);
 * it has already left the connection c. */
static void job_unassign(sim *s, sim_conn *c, sim_delivery *d)
{
    sim_peer *p = d->peer;
    sim_msg *m = d->msg;
    p->left += d->nrcpt;
    p->inflight--;
    m->unselected += d->nrcpt;
    if (!conn_carries(s, c, m))
        m->concurrency--;
    if (p - m->peers < (ptrdiff_t)m->peer_cursor)
        m->peer_cursor = (size_t)(p - m->peers);
    sim_delivery_count(s, d, -1);
    msg_activate(s, m);
    sim_delivery_free(s, d);
}

static void assign(sim *s, sim_conn *c, sim_delivery *d)
{
    if (!conn_carries(s, c, d->msg))
        d->msg->concurrency++;
    conn_push(s, c, d);
    conn_kick(s, c);
}

/* The connections to the addresses of a site that take jobs, newest
 * first. */
static size_t site_conns(sim *s, sim_site *site, sim_conn **out, size_t max,
                         int active)
{
    size_t n = 0, i, j;
    int64_t k;
    if (site->conns == 0)
        return 0;
    for (k = 0; k < s->nconns && n < max; k++) {
        sim_conn *c = &s->conns[k];
        if (!c->open || c->retiring || c->host->site != site)
            continue;
        if ((conn_jobs(c) > 0) != active)
            continue;
        out[n++] = c;
    }
    /* insertion sort by connection time, most recent first (ties: lower
     * id first) */
    for (i = 1; i < n; i++) {
        sim_conn *x = out[i];
        for (j = i; j > 0 && (out[j - 1]->opened < x->opened ||
                              (out[j - 1]->opened == x->opened &&
                               out[j - 1]->id > x->id));
             j--)
            out[j] = out[j - 1];
        out[j] = x;
    }
    return n;
}

/* "We choose the first connection in the active list that has fewer jobs
 * than the newest active connection. If they all have the same number of
 * jobs, use the first one." */
static sim_conn *free_ride(sim_conn **active, size_t n)
{
    size_t i;
    if (!n)
        return NULL;
    for (i = 0; i < n; i++)
        if (conn_jobs(active[i]) < conn_jobs(active[0]))
            return active[i];
    return active[0];
}

/* Closes the oldest idle connection anywhere, to free a worker. */
static int close_an_idle(sim *s, int transport)
{
    sim_conn *best = NULL;
    int64_t k;
    for (k = 0; k < s->nconns; k++) {
        sim_conn *c = &s->conns[k];
        if (c->open && c->ready && conn_jobs(c) == 0 &&
            s->finch_conn_transport[k] == transport &&
            (!best || c->opened < best->opened))
            best = c;
    }
    if (!best)
        return 0;
    conn_close(s, best);
    return 1;
}

static sim_site *site_backup(sim *s, sim_site *site)
{
    if (site->backup == -2)
        site->backup = site->spec->backup
                           ? sim_site_get(s, site->spec->backup)->index
                           : -1;
    return site->backup >= 0 ? s->sites[site->backup] : NULL;
}

enum { PLACE_WAIT, PLACE_DONE };

/* The destdb procedure for one job of peer p (finch-mta-scheduler.txt). */
static int finch_place(sim *s, sim_peer *p)
{
    sim_msg *m = p->msg;
    int t = p->dest->transport;
    const sim_finch_opts *f = &s->sc->finch;
    int64_t dest_limit = f->dest_limit > 0 ? f->dest_limit
                                           : s->transports[t].conc_limit;
    int allowed = allowed_new_worker(s, m, t);
    sim_site *site = p->dest->site;
    sim_conn *act[256], *idle[256];
    int level;
    sim_delivery *d;
    for (level = 0; site && level < 8; level++, site = site_backup(s, site)) {
        size_t na = site_conns(s, site, act, 256, 1), ni, i;
        int h, choice = -1, nunused = 0, nretry = 0, nworking = 0;
        int unused[128], retry[128];
        sim_us oldest = SIM_NEVER;
        int64_t fewest = INT64_MAX;
        int working[128];
        sim_conn *c = NULL;
        /* "First sort the active list by connection time and traverse it
         * from most recent to least recent. If we find one that has less
         * than the backlog threshold then the first we find is the worker
         * for this job." */
        for (i = 0; i < na; i++)
            if (conn_jobs(act[i]) < f->backlog) {
                c = act[i];
                break;
            }
        if (!c && !allowed) {
            /* a free ride, or wait for a worker */
            c = free_ride(act, na);
            if (!c)
                return PLACE_WAIT;
        }
        if (!c) {
            /* "If there are destinations on its idle list the job should
             * use the most recent one" */
            ni = site_conns(s, site, idle, 256, 0);
            if (ni)
                c = idle[0];
        }
        if (!c && s->transports[t].conns_open >= finch_workers(s, t) &&
            !close_an_idle(s, t)) {
            /* no worker for a new connection: ride an active one */
            c = free_ride(act, na);
            if (!c)
                return PLACE_WAIT;
        }
        if (!c) {
            /* classify the addresses: unused, closed, retry */
            for (h = 0; h < site->nhosts && h < 128; h++) {
                sim_host *rec = addr_record(site, h);
                if (rec->retry_at && s->now >= rec->retry_gc) {
                    rec->retry_at = 0;      /* garbage-collected */
                    rec->closed_at = 0;
                }
                if (rec->retry_at && s->now < rec->retry_at)
                    continue;               /* omitted until its time */
                if (rec->retry_at) {
                    retry[nretry++] = h;
                    continue;
                }
                working[nworking++] = h;
                if (rec->conns > 0)
                    continue;
                if (rec->closed_at == 0)
                    unused[nunused++] = h;
                else if (rec->closed_at < oldest) {
                    oldest = rec->closed_at;
                    choice = h;
                }
            }
            if (nunused)
                choice = unused[sim_rng_below(&s->rng_policy,
                                              (uint64_t)nunused)];
            else if (choice < 0 && nretry)
                choice = retry[sim_rng_below(&s->rng_policy,
                                             (uint64_t)nretry)];
            if (choice < 0 && nworking) {
                /* every working address has connections: another one to
                 * an address with the fewest */
                int cand[128], nc = 0;
                for (i = 0; i < (size_t)nworking; i++) {
                    int64_t n = addr_record(site, working[i])->conns;
                    if (n < fewest) {
                        fewest = n;
                        nc = 0;
                    }
                    if (n == fewest)
                        cand[nc++] = working[i];
                }
                if (fewest < dest_limit)
                    choice = cand[sim_rng_below(&s->rng_policy,
                                                (uint64_t)nc)];
                else {
                    c = free_ride(act, na);
                    if (!c)
                        return PLACE_WAIT;
                }
            }
            if (!c && choice < 0)
                continue;       /* nothing works here: the next level */
            if (!c)
                c = conn_open(s, site, choice, t);
        }
        d = take_entry(s, p);
        sim_delivery_count(s, d, +1);
        assign(s, c, d);
        return PLACE_DONE;
    }
    /* "If we run out of fallbacks then the message must be deferred" */
    {
        int64_t n = p->left;
        sim_transport *tr = &s->transports[t];
        if (tr->rcpt_limit > 0 && n > tr->rcpt_limit)
            n = tr->rcpt_limit;
        p->left -= n;
        m->unselected -= n;
        if (p->left == 0)
            peer_unlink(p);
        if (m->unselected == 0)
            msg_deactivate(s, m);
        s->m.kind_deliveries[SIM_K_NOROUTE]++;
        sim_defer_recipients(s, m, n, SIM_K_NOROUTE);
    }
    return PLACE_DONE;
}

/* The peer of m for the destination of connection c, or NULL. */
static sim_peer *peer_for_conn(sim *s, sim_msg *m, const sim_conn *c)
{
    size_t k;
    int t = s->finch_conn_transport[c->id];
    if (m->peer_map) {
        char key[400];
        int64_t i;
        if (snprintf(key, sizeof key, "%s:%s", s->transports[t].name,
                     c->host->site->name) >= (int)sizeof key)
            return NULL;
        i = sim_map_get(m->peer_map, key);
        return i < 0 ? NULL : &m->peers[i];
    }
    for (k = m->peer_cursor; k < m->npeers; k++)
        if (m->peers[k].dest->site == c->host->site &&
            m->peers[k].dest->transport == t)
            return &m->peers[k];
    return NULL;
}

static void dispatch_finch_delivery(sim *s)
{
    sim_msg *m, *next;
    for (m = s->mhead; m; m = next) {
        size_t k;
        int waited = 0;
        next = m->next;
        while (m->peer_cursor < m->npeers &&
               m->peers[m->peer_cursor].left == 0)
            m->peer_cursor++;
        for (k = m->peer_cursor; k < m->npeers && m->active && !waited;
             k++) {
            sim_peer *p = &m->peers[k];
            while (p->left > 0)
                if (finch_place(s, p) == PLACE_WAIT) {
                    waited = 1;
                    break;
                }
        }
        if (waited && m->active) {
            /* This message gets no new worker now: only the active
             * connections can still take its jobs (backlog room or a free
             * ride), so look at them rather than at every peer. */
            int64_t i;
            for (i = 0; i < s->nconns && m->active; i++) {
                sim_conn *c = &s->conns[i];
                sim_peer *p;
                if (!c->open || c->retiring || conn_jobs(c) == 0)
                    continue;
                p = peer_for_conn(s, m, c);
                while (p && p->left > 0)
                    if (finch_place(s, p) == PLACE_WAIT)
                        break;
            }
        }
    }
}

void sim_finch_session_ready(sim *s, int64_t sid)
{
    sim_conn *c = &s->conns[sim_session_at(s, sid)->owner];
    c->ready = 1;
    conn_kick(s, c);
}

void sim_finch_session_failed(sim *s, int64_t sid, int kind)
{
    sim_conn *c = &s->conns[sim_session_at(s, sid)->owner];
    sim_host *rec = c->host;
    sim_delivery *d;
    s->m.conn_fail[kind]++;
    /* destdb: a retry record for the address */
    rec->retry_at = s->now + s->sc->finch.retry;
    rec->retry_gc = rec->retry_at + s->sc->finch.gc;
    /* its jobs are rescheduled */
    if (c->running) {
        d = &s->deliveries[c->running - 1];
        c->running = 0;
        conn_sync(s, c);
        job_unassign(s, c, d);
    }
    while ((d = conn_pop(s, c)))
        job_unassign(s, c, d);
    c->session = -1;        /* the server frees the session itself */
    conn_close(s, c);
}

void sim_finch_xact_done(sim *s, int64_t sid, int kind)
{
    sim_conn *c = &s->conns[sim_session_at(s, sid)->owner];
    sim_delivery *d = &s->deliveries[c->running - 1];
    c->running = 0;
    conn_sync(s, c);
    sim_delivery_finish(s, d, kind);
    if (c->open)
        conn_kick(s, c);
}

/* ---- dispatch, per policy ---- */

void sim_policy_dispatch(sim *s)
{
    int guard = 0;
    if (s->ndead)
        revive_due(s);
    switch (s->sc->policy) {
    case SIM_OQMGR:
        while (!s->failed && select_oqmgr(s))
            guard++;
        break;
    case SIM_FIFO:
        while (!s->failed && select_fifo(s))
            guard++;
        break;
    case SIM_FINCH:
        if (s->sc->finch.router)
            while (!s->failed && select_finch_router(s))
                guard++;
        else
            dispatch_finch_delivery(s);
        break;
    default:
        break;
    }
    (void)guard;
}

void sim_policy_done(sim *s, sim_delivery *d, int kind)
{
    switch (s->sc->policy) {
    case SIM_NQMGR:
        sim_core_done(s, d, kind);
        break;
    case SIM_FINCH:
        /* router: one job per worker; delivery: the connection may still
         * carry other jobs of the message */
        if (d->conn < 0 || !conn_carries(s, &s->conns[d->conn], d->msg))
            d->msg->concurrency--;
        d->peer->inflight--;
        break;
    default:
        d->peer->inflight--;
        d->dest->busy--;
        sim_dest_feedback(s, d->dest, kind);
        if (!d->dest->dead && d->dest->busy == 0 && !d->dest->phead) {
            /* S-CON-13: an alive queue with nothing pending and nothing
             * in flight is discarded; the next recipient starts afresh */
            d->dest->window = (int)s->transports[d->dest->transport].init_conc;
            d->dest->success = d->dest->failure = d->dest->fail_cohorts = 0;
        }
        break;
    }
}

void sim_policy_event(sim *s, const sim_event *ev)
{
    sim_conn *c = &s->conns[ev->a];
    if (c->gen != ev->gen || !c->open)
        return;
    if (ev->kind == EV_FINCH_IDLE) {
        if (c->ready && conn_jobs(c) == 0 && c->idle_serial == (uint32_t)ev->b)
            conn_close(s, c);
    } else {
        /* ageing: an active connection takes no more jobs and closes
         * when its queue is empty, "to spread load around" */
        c->retiring = 1;
        if (c->ready && conn_jobs(c) == 0)
            conn_close(s, c);
    }
}

void sim_policy_free(sim *s)
{
    free(s->dead);
    free(s->finch_conn_transport);
}
