/*
 * sim_server.c - the network and the remote SMTP servers of `qsched sim`.
 *
 * Owns (spec/sim.md, S-SIM-9): what happens between a client's connect() and the end of an SMTP
 * transaction: the listen queue of a server with a process limit (and what
 * its TCP stack does when that queue is full), the server's active
 * concurrency limiter (421 and hang-up above S sessions), load balancers
 * with K backends of which some fail the handshake, handshake noise,
 * outages (refused or black-holed connections), and the service time of a
 * transaction (per recipient, per message, jitter, round trips).  The
 * client's smtp_connect_timeout and smtp_helo_timeout are enforced here
 * too, because they are what the client sees of a congested server.
 *
 * Which part of the document: "Results for delivery to concurrency-limited
 * servers".  Its three server configurations are three parameter sets of
 * this one model (spec/sim.md, "Server models"; docs/experiments.md):
 *   - "a busy server with a completely full connection queue" (FreeBSD,
 *     stack=bsd): a SYN that finds the listen queue full is dropped, the
 *     client retransmits it (3 s, doubling) and gives up after
 *     smtp_connect_timeout;
 *   - "a busy server with a non-full connection queue" (Linux, stack=linux):
 *     the handshake completes, the final ACK is dropped while the accept
 *     queue is full, the server retransmits its SYN-ACK (3 s, doubling, 5
 *     times), and a client that is never accepted gives up after
 *     smtp_helo_timeout waiting for the greeting;
 *   - "a server with active per-client concurrency limiter that replies
 *     with 421 and disconnects" (session_limit=S, processes=10);
 * and the limitations section's "multiple servers behind a load balancer
 * on a single IP address" (backends=K bad=1) and noisy negative feedback
 * (noise=p).
 *
 * Owners: a session belongs to a delivery agent (sim_client.c) or to a
 * Finch connection (sim_policy.c); they hear sim_session_ready,
 * sim_session_failed and sim_xact_done.  A failed session is freed right
 * after its owner was told.
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

/* TCP retransmission timer: first 3 s, doubling (RFC 1122's initial RTO,
 * used by the 2007 FreeBSD and Linux stacks).  Retransmission k (1, 2, ...)
 * happens 3 * (2^k - 1) seconds after the first transmission. */
#define RTO_BASE (3 * SIM_SEC)
static sim_us rto_offset(int k)
{
    return RTO_BASE * ((1LL << k) - 1);
}
/* Linux's tcp_synack_retries default: 5 SYN-ACK retransmissions. */
#define SYNACK_RETRIES 5

/* ---- sites and hosts ---- */

static sim_host *host_new(sim_site *site, int h, int b, int bad)
{
    sim_host *x = xrealloc(NULL, sizeof *x);
    const sim_server_spec *sp = site->spec;
    memset(x, 0, sizeof *x);
    x->site = site;
    x->index = h;
    x->backend = b;
    x->bad = bad;
    /* Accept queue capacity.  Postfix's master uses the process limit as
     * the listen(2) backlog (the document: "the same number is also used
     * as the backlog argument").  4.4BSD and FreeBSD accept a connection
     * while qlen <= 3*backlog/2 (sonewconn), so 3*backlog/2 + 1 fit;
     * Linux accepts while the queue holds at most backlog (acceptq full
     * when len > backlog), so backlog + 1 fit. */
    if (sp->queue >= 0) {
        x->aq_limit = sp->queue;
    } else if (sp->processes > 0) {
        int64_t backlog = sp->backlog > 0 ? sp->backlog : sp->processes;
        x->aq_limit = sp->stack == SIM_STACK_BSD ? 3 * backlog / 2 + 1
                                                 : backlog + 1;
    } else {
        x->aq_limit = 0;    /* unlimited processes: nothing ever waits */
    }
    return x;
}

sim_site *sim_site_get(sim *s, const char *nexthop)
{
    int64_t i = sim_map_get(s->site_map, nexthop);
    sim_site *site;
    int h, b;
    size_t k;
    if (i >= 0)
        return s->sites[i];
    site = xrealloc(NULL, sizeof *site);
    memset(site, 0, sizeof *site);
    site->name = xrealloc(NULL, strlen(nexthop) + 1);
    memcpy(site->name, nexthop, strlen(nexthop) + 1);
    site->spec = sim_scenario_server(s->sc, nexthop);
    site->index = (int)s->nsites;
    site->backup = -2;      /* not resolved yet */
    site->nhosts = (int)site->spec->hosts;
    site->nbackends = (int)site->spec->backends;
    site->hosts = xrealloc(NULL, (size_t)site->nhosts *
                                     (size_t)site->nbackends *
                                     sizeof *site->hosts);
    for (h = 0; h < site->nhosts; h++)
        for (b = 0; b < site->nbackends; b++)
            /* the last `bad` backends of each address fail handshakes */
            site->hosts[h * site->nbackends + b] =
                host_new(site, h, b, b >= site->nbackends - site->spec->bad);
    s->sites = xrealloc(s->sites, (s->nsites + 1) * sizeof *s->sites);
    s->sites[s->nsites++] = site;
    sim_map_put(s->site_map, nexthop, site->index);
    /* outages: the state now, and the transitions to come */
    for (k = 0; k < site->spec->ndown; k++) {
        sim_us a = site->spec->down_from[k], z = site->spec->down_to[k];
        if (s->now >= a && s->now < z)
            site->down = 1;
        if (a > s->now)
            sim_schedule(s, a, EV_DOWN, site->index, 1, 0, site);
        if (z > s->now)
            sim_schedule(s, z, EV_DOWN, site->index, 0, 0, site);
    }
    return site;
}

void sim_sites_build(sim *s)
{
    (void)s;    /* sites are created on first use (sim_site_get) */
}

void sim_sites_free(sim *s)
{
    size_t i;
    int k;
    for (i = 0; i < s->nsites; i++) {
        sim_site *site = s->sites[i];
        for (k = 0; k < site->nhosts * site->nbackends; k++) {
            free(site->hosts[k]->aq);
            free(site->hosts[k]->aq_gen);
            free(site->hosts[k]);
        }
        free(site->hosts);
        free(site->cache);
        free(site->name);
        free(site);
    }
    free(s->sites);
}

void sim_site_set_down(sim *s, sim_site *site, int down)
{
    (void)s;
    site->down = down;
}

/* ---- sessions ---- */

sim_session *sim_session_at(sim *s, int64_t sid)
{
    return &s->sessions[sid];
}

static sim_session *session_alloc(sim *s)
{
    int64_t id;
    sim_session *ss;
    uint32_t gen;
    if (s->free_session >= 0) {
        id = s->free_session;
        s->free_session = s->sessions[id].next_free;
    } else {
        if (s->nsessions == s->capsessions) {
            s->capsessions = s->capsessions ? s->capsessions * 2 : 64;
            s->sessions = xrealloc(s->sessions, (size_t)s->capsessions *
                                                    sizeof *s->sessions);
            memset(s->sessions + s->nsessions, 0,
                   (size_t)(s->capsessions - s->nsessions) *
                       sizeof *s->sessions);
        }
        id = s->nsessions++;
    }
    ss = &s->sessions[id];
    gen = ss->gen + 1;
    memset(ss, 0, sizeof *ss);
    ss->id = id;
    ss->gen = gen;
    ss->owner = -1;
    return ss;
}

static void session_free(sim *s, sim_session *ss)
{
    ss->state = SS_FREE;
    ss->gen++;              /* every pending event for it is now stale */
    ss->next_free = s->free_session;
    s->free_session = ss->id;
}

/* The server process serving ss is released at time t (and the limiter
 * forgets the session). */
static void release_process(sim *s, sim_session *ss, sim_us t)
{
    if (!ss->has_process)
        return;
    sim_schedule(s, t, EV_PROC_FREE, ss->counted, 0, 0, ss->host);
    ss->has_process = 0;
    ss->counted = 0;
}

static void fail_at(sim *s, sim_session *ss, sim_us t, int kind)
{
    ss->state = SS_OPENING;     /* nothing else may happen to it */
    sim_schedule(s, t, EV_SESSION_FAIL, ss->id, kind, ss->gen, NULL);
}

static void client_connected(sim *s, sim_session *ss, sim_us when)
{
    if (ss->connected)
        return;
    ss->connected = 1;
    /* smtp_helo_timeout: "the SMTP client waits for the server's greeting" */
    sim_schedule(s, when + s->sc->helo_timeout, EV_GREETING_TIMEOUT, ss->id,
                 0, ss->gen, NULL);
}

int64_t sim_session_open(sim *s, sim_site *site, int host_index, int64_t owner)
{
    sim_session *ss = session_alloc(s);
    const sim_server_spec *sp = site->spec;
    int b = 0;
    if (site->nbackends > 1) {
        /* a load balancer on one address picks the backend per
         * connection */
        if (sp->lb == SIM_LB_RR)
            b = (int)(site->lb_next++ % (uint64_t)site->nbackends);
        else
            b = (int)sim_rng_below(&s->rng_faults, (uint64_t)site->nbackends);
    }
    ss->host = site->hosts[host_index * site->nbackends + b];
    ss->state = SS_SYN;
    ss->t_open = s->now;
    ss->owner = owner;
    s->m.sessions_opened++;
    sim_schedule(s, s->now + sp->rtt / 2, EV_SYN, ss->id, 0, ss->gen, NULL);
    /* smtp_connect_timeout: the TCP handshake must complete in time */
    sim_schedule(s, s->now + s->sc->connect_timeout, EV_CONNECT_TIMEOUT,
                 ss->id, 0, ss->gen, NULL);
    return ss->id;
}

/* A server process takes the connection (accept()): the greeting, or the
 * limiter's 421, or a handshake fault. */
static void smtpd_start(sim *s, sim_host *h, sim_session *ss)
{
    const sim_server_spec *sp = h->site->spec;
    sim_us t = s->now + sp->greet;
    int fault = -1;
    h->procs_busy++;
    ss->has_process = 1;
    h->sessions++;          /* anvil counts the connection on arrival */
    ss->counted = 1;
    client_connected(s, ss, s->now + sp->rtt / 2);
    if (h->bad)
        fault = sp->bad_mode;
    else if (sp->noise > 0 && sim_rng_unit(&s->rng_faults) < sp->noise)
        fault = SIM_BAD_DROP;
    if (fault == SIM_BAD_DROP) {
        /* the connection is dropped before the handshake completes */
        release_process(s, ss, s->now);
        fail_at(s, ss, s->now + sp->rtt / 2, SIM_K_HANDSHAKE);
    } else if (fault == SIM_BAD_421 ||
               (sp->session_limit > 0 && h->sessions > sp->session_limit)) {
        /* smtpd_client_connection_count_limit: "the server replies with a
         * 421 status and disconnects immediately" */
        release_process(s, ss, t);
        fail_at(s, ss, t + sp->rtt / 2, SIM_K_421);
    } else if (fault == SIM_BAD_TIMEOUT) {
        ss->state = SS_STALLED; /* accepted, never greeted */
    } else {
        /* greeting, then one round trip for EHLO */
        ss->state = SS_OPENING;
        sim_schedule(s, t + sp->rtt / 2 + sp->rtt, EV_SESSION_READY, ss->id, 0,
                     ss->gen, NULL);
    }
}

/* Room for the connection?  A free process with nobody queued before it,
 * or a place in the accept queue. */
static int admit(sim *s, sim_host *h, sim_session *ss)
{
    const sim_server_spec *sp = h->site->spec;
    if (sp->processes == 0 ||
        (h->procs_busy < sp->processes && h->aq_len == 0)) {
        smtpd_start(s, h, ss);
        return 1;
    }
    if (h->aq_len < h->aq_limit) {
        if (h->aq_len == h->aq_cap) {
            int64_t i, cap = h->aq_cap ? h->aq_cap * 2 : 16;
            int64_t *q = xrealloc(NULL, (size_t)cap * sizeof *q);
            uint32_t *g = xrealloc(NULL, (size_t)cap * sizeof *g);
            for (i = 0; i < h->aq_len; i++) {
                q[i] = h->aq[(h->aq_head + i) % h->aq_cap];
                g[i] = h->aq_gen[(h->aq_head + i) % h->aq_cap];
            }
            free(h->aq);
            free(h->aq_gen);
            h->aq = q;
            h->aq_gen = g;
            h->aq_head = 0;
            h->aq_cap = cap;
        }
        h->aq[(h->aq_head + h->aq_len) % h->aq_cap] = ss->id;
        h->aq_gen[(h->aq_head + h->aq_len) % h->aq_cap] = ss->gen;
        h->aq_len++;
        ss->state = SS_QUEUED;
        client_connected(s, ss, s->now + sp->rtt / 2);
        return 1;
    }
    return 0;
}

/* A SYN (first or retransmitted) reaches the server. */
static void server_syn(sim *s, sim_session *ss)
{
    sim_host *h = ss->host;
    const sim_server_spec *sp = h->site->spec;
    if (h->site->down) {
        if (sp->down_mode == SIM_DOWN_REFUSE) {
            fail_at(s, ss, s->now + sp->rtt / 2, SIM_K_REFUSED);
            return;
        }
        /* black hole: nothing answers; the client retransmits */
    } else if (admit(s, h, ss)) {
        return;
    } else if (sp->stack == SIM_STACK_LINUX) {
        /* The handshake completes at the client; the server drops the
         * final ACK while its accept queue is full and retransmits its
         * SYN-ACK. */
        ss->state = SS_LIMBO_ACK;
        ss->t_base = s->now;
        ss->retries = 0;
        client_connected(s, ss, s->now + sp->rtt / 2);
        sim_schedule(s, ss->t_base + rto_offset(1), EV_SYNACK_RETRY, ss->id,
                     0, ss->gen, NULL);
        return;
    }
    /* BSD (and a black hole): the SYN is dropped, the client retransmits
     * until smtp_connect_timeout. */
    ss->state = SS_SYN;
    ss->retries++;
    if (rto_offset(ss->retries) < s->sc->connect_timeout)
        sim_schedule(s, ss->t_open + rto_offset(ss->retries) + sp->rtt / 2,
                     EV_SYN_RETRY, ss->id, 0, ss->gen, NULL);
}

static void proc_free(sim *s, sim_host *h, int counted)
{
    const sim_server_spec *sp = h->site->spec;
    h->procs_busy--;
    if (counted)
        h->sessions--;
    /* the freed process accepts the next connection of the queue;
     * connections whose client already gave up are read, found closed
     * and dropped */
    while (h->aq_len > 0 &&
           (sp->processes == 0 || h->procs_busy < sp->processes)) {
        int64_t id = h->aq[h->aq_head];
        uint32_t gen = h->aq_gen[h->aq_head];
        sim_session *ss;
        h->aq_head = (h->aq_head + 1) % h->aq_cap;
        h->aq_len--;
        ss = &s->sessions[id];
        if (ss->gen == gen && ss->state == SS_QUEUED)
            smtpd_start(s, h, ss);
    }
}

void sim_session_transact(sim *s, int64_t sid, int64_t nrcpt)
{
    sim_session *ss = &s->sessions[sid];
    const sim_server_spec *sp = ss->host->site->spec;
    sim_us dt = 2 * sp->rtt + sp->per_msg + nrcpt * sp->per_rcpt;
    int kind = SIM_K_OK;
    if (sp->jitter > 0) {
        /* each recipient's delay is late by uniform [0, jitter) */
        int64_t i, n = nrcpt < 1000 ? nrcpt : 1000;
        sim_us extra = 0;
        for (i = 0; i < n; i++)
            extra += (sim_us)sim_rng_below(&s->rng_service,
                                           (uint64_t)sp->jitter);
        dt += extra * (nrcpt / n);
    }
    if (sp->reject > 0 && sim_rng_unit(&s->rng_faults) < sp->reject)
        kind = SIM_K_REJECT;
    ss->state = SS_BUSY;
    sim_schedule(s, s->now + dt, EV_XACT_DONE, sid, kind, ss->gen, NULL);
}

void sim_session_close(sim *s, int64_t sid)
{
    sim_session *ss = &s->sessions[sid];
    /* QUIT (or the client's close) reaches the server half a round trip
     * later */
    release_process(s, ss, s->now + ss->host->site->spec->rtt / 2);
    session_free(s, ss);
}

static void session_fail_now(sim *s, sim_session *ss, int kind)
{
    sim_session_failed(s, ss->id, kind);
    session_free(s, ss);
}

void sim_server_event(sim *s, const sim_event *ev)
{
    sim_session *ss = NULL;
    if (ev->kind != EV_PROC_FREE && ev->kind != EV_DOWN) {
        ss = &s->sessions[ev->a];
        if (ss->gen != ev->gen || ss->state == SS_FREE)
            return;     /* stale: the session moved on or was recycled */
    }
    switch (ev->kind) {
    case EV_SYN:
    case EV_SYN_RETRY:
        if (ss->state == SS_SYN)
            server_syn(s, ss);
        break;
    case EV_SYNACK_RETRY:
        if (ss->state != SS_LIMBO_ACK)
            break;
        ss->retries++;
        if (!admit(s, ss->host, ss) && ss->retries < SYNACK_RETRIES)
            sim_schedule(s, ss->t_base + rto_offset(ss->retries + 1),
                         EV_SYNACK_RETRY, ss->id, 0, ss->gen, NULL);
        /* after the last retry the server forgets the connection; the
         * client waits for a greeting that never comes */
        break;
    case EV_CONNECT_TIMEOUT:
        if (ss->state == SS_SYN)
            session_fail_now(s, ss, SIM_K_CONNECT);
        break;
    case EV_GREETING_TIMEOUT:
        if (ss->state == SS_QUEUED || ss->state == SS_LIMBO_ACK ||
            ss->state == SS_STALLED) {
            release_process(s, ss,
                            s->now + ss->host->site->spec->rtt / 2);
            session_fail_now(s, ss, SIM_K_GREETING);
        }
        break;
    case EV_SESSION_READY:
        if (ss->state == SS_OPENING) {
            ss->state = SS_READY;
            ss->t_ready = s->now;
            sim_session_ready(s, ss->id);
        }
        break;
    case EV_SESSION_FAIL:
        session_fail_now(s, ss, (int)ev->b);
        break;
    case EV_XACT_DONE:
        if (ss->state == SS_BUSY) {
            ss->state = SS_READY;
            sim_xact_done(s, ss->id, (int)ev->b);
        }
        break;
    case EV_PROC_FREE:
        proc_free(s, ev->p, (int)ev->a);
        break;
    case EV_DOWN: {
        sim_site *site = ev->p;
        site->down = (int)ev->b;
        if (site->down)
            sim_cache_flush(s, site);
        break;
    }
    default:
        break;
    }
}
