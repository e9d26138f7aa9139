/*
 * sim_client.c - the delivery agents of `qsched sim` for the Postfix-style
 * policies (nqmgr through the core, oqmgr, FIFO).
 *
 * Owns (spec/sim.md, S-SIM-8): what one Postfix smtp(8) process does with one delivery request:
 * take an idle cached session to the next-hop if there is one (connection
 * caching, smtp_connection_cache_on_demand), else connect to the site's
 * hosts in order (MX fallback: a connection or handshake failure moves on
 * to the next address; the delivery fails only when all were tried), run
 * one transaction, then either keep the session in the cache for
 * smtp_connection_cache_time_limit or close it; a session older than
 * smtp_connection_reuse_time_limit is closed.  The outcome goes back to
 * the policy as the `done` of the delivery (sim.c).
 *
 * Also: the routing of session callbacks to their owner (an agent here, a
 * Finch connection in sim_policy.c).
 *
 * Which part of the document: the client configuration of "Results for
 * delivery to concurrency-limited servers" ("The SMTP client used the
 * default 30s SMTP connect timeout and 300s SMTP greeting timeout", the
 * "connection caching" column).  Simplification: Postfix stores a session
 * only once it sees back-to-back deliveries to the destination; here
 * caching, when on, always stores, and the short idle limit (2 s by
 * default) ends the sessions no delivery wants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static sim_delivery *owner_delivery(sim *s, int64_t sid)
{
    sim_session *ss = sim_session_at(s, sid);
    if (ss->owner < 0 || ss->owner >= s->ndeliveries ||
        !s->deliveries[ss->owner].live) {
        sim_fail(s, "internal error: session %lld has no delivery",
                 (long long)sid);
        return NULL;
    }
    return &s->deliveries[ss->owner];
}

void sim_agent_start(sim *s, sim_delivery *d)
{
    sim_site *site = d->dest->site;
    d->host_try = 0;
    if (s->sc->caching && site->ncache > 0) {
        /* the most recently cached session first */
        int64_t sid = site->cache[--site->ncache];
        sim_session *ss = sim_session_at(s, sid);
        ss->owner = d->id;
        d->session = sid;
        s->m.sessions_reused++;
        sim_session_transact(s, sid, d->nrcpt);
        return;
    }
    d->session = sim_session_open(s, site, 0, d->id);
}

static void cache_remove(sim_site *site, int64_t sid)
{
    int64_t i;
    for (i = 0; i < site->ncache; i++)
        if (site->cache[i] == sid) {
            memmove(site->cache + i, site->cache + i + 1,
                    (size_t)(site->ncache - i - 1) * sizeof *site->cache);
            site->ncache--;
            return;
        }
}

void sim_cache_expire(sim *s, const sim_event *ev)
{
    sim_session *ss = sim_session_at(s, ev->a);
    if (ss->gen != ev->gen || ss->state != SS_IDLE ||
        ss->idle_serial != (uint32_t)ev->b)
        return;
    cache_remove(ss->host->site, ss->id);
    sim_session_close(s, ss->id);
}

void sim_cache_flush(sim *s, sim_site *site)
{
    while (site->ncache > 0)
        sim_session_close(s, site->cache[--site->ncache]);
}

void sim_session_ready(sim *s, int64_t sid)
{
    sim_delivery *d;
    if (sim_finch_owns_sessions(s)) {
        sim_finch_session_ready(s, sid);
        return;
    }
    d = owner_delivery(s, sid);
    if (d)
        sim_session_transact(s, sid, d->nrcpt);
}

void sim_session_failed(sim *s, int64_t sid, int kind)
{
    sim_delivery *d;
    sim_site *site;
    if (sim_finch_owns_sessions(s)) {
        sim_finch_session_failed(s, sid, kind);
        return;
    }
    d = owner_delivery(s, sid);
    if (!d)
        return;
    d->session = -1;
    site = d->dest->site;
    if (d->host_try + 1 < site->nhosts) {
        /* the next MX address, within the same delivery */
        d->host_try++;
        d->session = sim_session_open(s, site, d->host_try, d->id);
        return;
    }
    sim_delivery_finish(s, d, kind);
}

void sim_xact_done(sim *s, int64_t sid, int kind)
{
    sim_delivery *d;
    sim_session *ss = sim_session_at(s, sid);
    sim_site *site = ss->host->site;
    if (sim_finch_owns_sessions(s)) {
        sim_finch_xact_done(s, sid, kind);
        return;
    }
    d = owner_delivery(s, sid);
    if (!d)
        return;
    d->session = -1;
    /* The agent stores the session before it reports to the queue
     * manager, so the next delivery can find it. */
    if (s->sc->caching && s->now - ss->t_ready < s->sc->reuse_time &&
        !site->down) {
        ss->state = SS_IDLE;
        ss->owner = -1;
        ss->idle_serial++;
        if (site->ncache == site->cache_cap) {
            site->cache_cap = site->cache_cap ? site->cache_cap * 2 : 8;
            site->cache = xrealloc(site->cache, (size_t)site->cache_cap *
                                                    sizeof *site->cache);
        }
        site->cache[site->ncache++] = sid;
        sim_schedule(s, s->now + s->sc->cache_time, EV_CACHE_EXPIRE, sid,
                     ss->idle_serial, ss->gen, NULL);
    } else {
        sim_session_close(s, sid);
    }
    sim_delivery_finish(s, d, kind);
}
