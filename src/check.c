/*
 * check.c - the invariant checker, the state description and the canonical
 * state encoding.
 *
 * Owns: qs_check_invariants (spec/memory.md S-INV-*), used by tests,
 * `qsched --check-invariants`, the fuzz harnesses and the bounded model
 * checker; qs_describe (divergence reports); qs_encode_state (state
 * deduplication in the model checker).  Read-only over the core's state:
 * every count is recomputed from the structures and compared with the
 * incrementally kept one.
 *
 * Why it exists.  The scheduler keeps many counts incrementally (entries
 * pending per queue, recipients in core per job, message and transport,
 * slots per job, ready queues) so that each decision is O(1); the document
 * states the relations between them only in passing ("the jobs queued
 * before this job are completely read ... and have at maximum as many
 * slots as they still have recipients in-core").  A count that drifts
 * would not crash anything: it would silently make a different decision
 * later.  Recounting from the lists after every event turns such drift
 * into an error at the event that caused it.  The pointer-heavy core is
 * not proved with Frama-C (proofs/README.md says why); this checker, run
 * by the fuzzers and the model checker over millions of states, is what
 * stands in for that proof.
 *
 * The invariants (spec/memory.md, "Invariants"):
 *   S-INV-1  every recipient of a message is unread, in core, delivered
 *            or deferred, exactly once
 *   S-INV-2  the two job lists hold the same jobs, the by-time list is
 *            sorted, stack levels and parents agree
 *   S-INV-3  each queue's lists agree with its counts; a dead queue has
 *            nothing pending
 *   S-INV-4  each job's recipient and entry counts agree with its entries
 *   S-INV-5  the job slots and the pool of a transport add up to its
 *            recipient limit; the pool stays >= -extra_recipient_limit
 *   S-INV-6  a live window is in [1, limit]
 *   S-INV-7  at most qmgr_message_active_limit messages are active, and
 *            messages wait only while the active queue is full
 *   S-INV-8  recipients in core stay within the bound that holds
 *
 * Implements no section of SCHEDULER_README; it states the document's
 * structural claims as checks (rule ids S-INV-1 .. S-INV-8).  May not:
 * change anything (every parameter is const), or assert the document's
 * S-MEM-9 bound formulas, which valid streams exceed (S-INV-8 instead).
 */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include "sched_int.h"

/* The first broken invariant, as one line in err; returns -1. */
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* CHECK(condition, message...): stop at the first broken invariant. */
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond))                                                          \
            return fail(err, errlen, __VA_ARGS__);                            \
    } while (0)

/* S-INV-3: the queue's lists agree with its counters; S-INV-6: windows.
 * Pending entries have no handle and 1 .. destination recipient limit
 * recipients (S-PRE-1); in-flight entries are exactly those of the
 * in-flight map; a dead queue holds nothing pending (S-CON-9: its entries
 * were deferred, and new recipients for it are deferred as read).  The
 * window of a live queue stays in [1, limit]: the negative step never
 * goes below 1 (S-CON-7) and the clamp keeps it under the limit
 * (S-CON-5).  The ready flag must match its definition, since qs_select
 * trusts the transport's ready count to skip a transport. */
static int check_queue(const qs_sched *s, const qs_transport *t,
                       const qs_queue *q, int64_t *busy_sum, char *err,
                       size_t errlen)
{
    const qs_entry *e;
    int64_t todo = 0, busy = 0;
    int ready;
    /* Pending entries: a handle is given only at selection, and an entry
     * is created for a recipient, so it is never empty. */
    for (e = q->todo_head; e; e = e->qnext) {
        CHECK(e->queue == q && e->handle == 0 && e->nrcpt >= 1,
              "queue %s:%s: bad todo entry", t->name, q->name);
        CHECK(t->dest_rcpt_limit == 0 || e->nrcpt <= t->dest_rcpt_limit,
              "queue %s:%s: entry of %lld recipients exceeds the "
              "destination recipient limit", t->name, q->name,
              (long long)e->nrcpt);
        todo++;
    }
    /* In-flight entries: each is the one its handle finds, or a `done`
     * would complete the wrong delivery. */
    for (e = q->busy_head; e; e = e->qnext) {
        CHECK(e->queue == q && e->handle > 0,
              "queue %s:%s: bad busy entry", t->name, q->name);
        CHECK(qs_map_get(&s->inflight, NULL, (uint64_t)e->handle) == e,
              "queue %s:%s: busy entry D%lld not in flight", t->name,
              q->name, (long long)e->handle);
        busy++;
    }
    CHECK(todo == q->todo && busy == q->busy,
          "queue %s:%s: todo/busy counts %lld/%lld, lists hold %lld/%lld",
          t->name, q->name, (long long)q->todo, (long long)q->busy,
          (long long)todo, (long long)busy);
    CHECK(!q->dead || q->todo == 0,
          "queue %s:%s: dead but has pending entries", t->name, q->name);
    /* A dead queue's window is not checked: it is frozen at its value when
     * it died and unused until revival resets it. */
    if (!q->dead) {
        int hi = t->dest_conc_limit;
        /* document profile: the initial window may exceed the limit until
         * the first positive feedback clamps it (S-CON-5). */
        if (s->profile == QS_PROFILE_DOCUMENT && t->init_conc > hi)
            hi = t->init_conc;
        CHECK(q->window >= 1 && (hi == 0 || q->window <= hi),
              "queue %s:%s: window %d outside [1, %d]", t->name, q->name,
              q->window, hi);
    }
    /* The cached flag against its definition (concurrency.c): a stale flag
     * would make qs_select skip a transport that has work, or walk one
     * that has none. */
    ready = !q->dead && q->window > q->busy && q->todo > 0;
    CHECK(ready == q->ready, "queue %s:%s: stale ready flag", t->name,
          q->name);
    *busy_sum += busy;
    return 0;
}

/* S-INV-2: the two job lists, the stacks, the current job.
 * Both lists hold the same jobs (counted), only linked ones (level >= 0);
 * the by-time list is sorted by enqueue time (the pools and the early
 * stop of the candidate scan depend on it); the current job is on the
 * list.  Stack relations: a job has a parent exactly when its level is
 * above 0, except orphans (level > 0, parent gone, S-PRE-10); a child
 * sits deeper than its parent and, under the job it preempted, exactly one
 * level deeper, since the refund (S-PRE-9) tells original parents from
 * adoptive ones by that difference; parent and child lists agree. */
static int check_job_lists(const qs_transport *t, char *err, size_t errlen)
{
    const qs_job *j, *c;
    int64_t nl = 0, nt = 0;
    int current_seen = t->job_current == NULL;
    int walk_seen = 0;
    /* The scheduler's list, with the stack relations of each job on it. */
    for (j = t->jhead; j; j = j->lnext) {
        /* S-PRE-2: every job before where selection starts is a blocker
         * (NULL: every job is). */
        if (j == t->job_walk)
            walk_seen = 1;
        CHECK(walk_seen || QS_IS_BLOCKER(j),
              "transport %s: job %s before where selection starts (%s) is "
              "not a blocker", t->name, j->message->id,
              t->job_walk ? t->job_walk->message->id : "nowhere");
        CHECK(j->transport == t && j->stack_level >= 0,
              "transport %s: job %s on the list with level %d", t->name,
              j->message->id, j->stack_level);
        CHECK(j->lnext == NULL || j->lnext->lprev == j,
              "transport %s: broken scheduler list", t->name);
        if (j == t->job_current)
            current_seen = 1;
        CHECK((j->stack_level == 0) == (j->parent == NULL) ||
              (j->parent == NULL && j->stack_level > 0),
              "transport %s: job %s level %d with%s parent", t->name,
              j->message->id, j->stack_level, j->parent ? "" : "out");
        if (j->parent) {
            /* S-PRE-8/S-PRE-10: one level deeper than the job it
             * preempted; adopted children keep their (deeper) level. */
            CHECK(j->stack_level > j->parent->stack_level &&
                  j->parent->stack_level >= 0,
                  "transport %s: job %s level %d not below parent %s level "
                  "%d", t->name, j->message->id, j->stack_level,
                  j->parent->message->id, j->parent->stack_level);
            /* ...and exactly one level deeper while its parent is still
             * the job it preempted (S-PRE-9's refund test relies on it). */
            CHECK(j->parent->serial != j->preempted_serial ||
                  j->stack_level == j->parent->stack_level + 1,
                  "transport %s: job %s level %d under the job it preempted "
                  "(%s, level %d)", t->name, j->message->id, j->stack_level,
                  j->parent->message->id, j->parent->stack_level);
            for (c = j->parent->child_head; c && c != j; c = c->snext)
                ;
            CHECK(c == j, "transport %s: job %s missing from its parent's "
                  "children", t->name, j->message->id);
        }
        for (c = j->child_head; c; c = c->snext)
            CHECK(c->parent == j, "transport %s: child %s of %s points "
                  "elsewhere", t->name, c->message->id, j->message->id);
        nl++;
    }
    /* A current job off the list would start the selection walk from a
     * retired or freed job. */
    CHECK(current_seen, "transport %s: current job not on the job list",
          t->name);
    CHECK(walk_seen || t->job_walk == NULL,
          "transport %s: selection starts at a job not on the job list",
          t->name);
    /* The by-time list: linked jobs only, sorted by enqueue time. */
    for (j = t->thead; j; j = j->tnext) {
        CHECK(j->stack_level >= 0, "transport %s: retired job %s on the "
              "by-time list", t->name, j->message->id);
        CHECK(j->tnext == NULL ||
              j->message->queued_time <= j->tnext->message->queued_time,
              "transport %s: by-time list out of order at %s", t->name,
              j->message->id);
        nt++;
    }
    /* Same number on both lists: catches a job linked on one list only
     * (a link or unlink that forgot the other list). */
    CHECK(nl == nt, "transport %s: %lld jobs on the scheduler's list, %lld "
          "on the by-time list", t->name, (long long)nl, (long long)nt);
    return 0;
}

/* S-INV-1, S-INV-4: per message recipient conservation and per job
 * entry/recipient/slot accounting.
 * For each job: its peers' pending lists match their counts, a peer is
 * kept only while it has entries (pending or in flight), the recipients
 * of its pending and in-flight entries add up to its rcpt_count, and read
 * - selected entries equals what is pending.  For the message: its jobs'
 * recipients add up to its count in core; every recipient is exactly one
 * of unread, in core, delivered or deferred (nothing lost, nothing
 * doubled); and its limit is the minimum plus its jobs' slots (S-MEM-4),
 * the identity that makes sponsoring safe. */
static int check_message(const qs_sched *s, const qs_message *m,
                         int64_t *in_core_sum, char *err, size_t errlen)
{
    const qs_job *j;
    int64_t in_core = 0, job_limits = 0;
    /* Each job: recount its pending entries and recipients from its
     * peers, and its in-flight recipients from its queues. */
    for (j = m->jobs; j; j = j->mnext) {
        const qs_peer *p;
        int64_t rc = 0, todo = 0, peers = 0;
        for (p = j->peer_head; p; p = p->next) {
            const qs_entry *e;
            int64_t pt = 0, busy_refs;
            for (e = p->ehead; e; e = e->pnext) {
                rc += e->nrcpt;
                pt++;
            }
            CHECK(pt == p->todo, "message %s: peer %s todo count", m->id,
                  p->queue->name);
            busy_refs = p->refcount - p->todo;
            CHECK(busy_refs >= 0, "message %s: peer %s refcount", m->id,
                  p->queue->name);
            /* An empty peer would still be tried by the round robin, and
             * its refcount would go wrong at the next entry. */
            CHECK(p->refcount > 0, "message %s: unused peer %s kept", m->id,
                  p->queue->name);
            todo += pt;
            peers++;
        }
        /* busy recipients of this job, found through its queues (an
         * in-flight entry is on its queue's busy list, no longer on its
         * peer's list) */
        {
            const qs_peer *pp;
            for (pp = j->peer_head; pp; pp = pp->next) {
                const qs_entry *e;
                for (e = pp->queue->busy_head; e; e = e->qnext)
                    if (e->peer == pp)
                        rc += e->nrcpt;
            }
        }
        CHECK(peers == j->peer_count, "message %s: peer count", m->id);
        CHECK(rc == j->rcpt_count, "message %s job %s: rcpt_count %lld, "
              "entries hold %lld", m->id, j->transport->name,
              (long long)j->rcpt_count, (long long)rc);
        CHECK(j->read_entries - j->selected_entries == todo,
              "message %s job %s: read %lld - selected %lld != %lld todo "
              "entries", m->id, j->transport->name,
              (long long)j->read_entries, (long long)j->selected_entries,
              (long long)todo);
        /* Only the pool may go negative (S-MEM-6); a job gives back at
         * most what it has spare (qs_pool_unused). */
        CHECK(j->rcpt_limit >= 0, "message %s job %s: negative slots",
              m->id, j->transport->name);
        in_core += rc;
        job_limits += j->rcpt_limit;
    }
    CHECK(in_core == m->rcpt_count, "message %s: rcpt_count %lld, jobs hold "
          "%lld", m->id, (long long)m->rcpt_count, (long long)in_core);
    CHECK(m->rcpt_total == m->rcpt_unread + m->rcpt_count + m->delivered +
                               m->deferred,
          "message %s: %lld recipients != %lld unread + %lld in core + %lld "
          "delivered + %lld deferred", m->id, (long long)m->rcpt_total,
          (long long)m->rcpt_unread, (long long)m->rcpt_count,
          (long long)m->delivered, (long long)m->deferred);
    CHECK(m->rcpt_limit == s->msg_rcpt_minimum + job_limits,
          "message %s: recipient limit %lld != minimum %lld + job slots "
          "%lld", m->id, (long long)m->rcpt_limit,
          (long long)s->msg_rcpt_minimum, (long long)job_limits);
    *in_core_sum += in_core;
    return 0;
}

/* Every invariant, messages first (they give the global in-core count
 * the transports are compared with), then each transport's queues, job
 * lists and pool.  O(size of the state): meant for tests and harnesses,
 * never called by the scheduler itself. */
int qs_check_invariants(const qs_sched *s, char *err, size_t errlen)
{
    const qs_transport *t;
    const qs_message *m;
    int64_t in_core = 0, inflight = 0, active = 0;
    for (m = s->active_head; m; m = m->next) {
        if (check_message(s, m, &in_core, err, errlen) < 0)
            return -1;
        active++;
    }
    /* S-INV-7: the active queue holds at most its limit; messages wait
     * only while it is full. */
    CHECK(active == s->active_count && active <= s->active_limit,
          "active queue holds %lld messages (count %lld, limit %lld)",
          (long long)active, (long long)s->active_count,
          (long long)s->active_limit);
    /* A message waiting while there is room would have been activated
     * when the room appeared (memory.c); this catches a missed wake-up. */
    CHECK(s->incoming_head == NULL || s->active_count == s->active_limit,
          "messages wait while the active queue has room");
    /* The scheduler-wide count drives the first batch (S-MEM-3). */
    CHECK(in_core == s->in_core, "in-core recipients %lld, counted %lld",
          (long long)s->in_core, (long long)in_core);
    for (t = s->xhead; t; t = t->next) {
        const qs_queue *q;
        const qs_job *j;
        int64_t busy = 0, ready = 0, limits = 0, tcore = 0;
        for (q = t->qhead; q; q = q->next) {
            if (check_queue(s, t, q, &busy, err, errlen) < 0)
                return -1;
            ready += q->ready;
        }
        CHECK(busy == t->in_flight, "transport %s: in flight %lld, queues "
              "hold %lld", t->name, (long long)t->in_flight,
              (long long)busy);
        /* qs_select never starts a delivery on a transport at its
         * process limit (S-PRE-14). */
        CHECK(t->in_flight <= t->process_limit, "transport %s: %lld in "
              "flight over the process limit %d", t->name,
              (long long)t->in_flight, t->process_limit);
        /* qs_select skips a transport whose ready count is 0. */
        CHECK(ready == t->ready_queues, "transport %s: ready count",
              t->name);
        inflight += busy;
        if (check_job_lists(t, err, errlen) < 0)
            return -1;
        /* S-INV-5: pool conservation: slots held by jobs plus the pool
         * equal the transport's limit; the pool never lends more than the
         * extra pool.
         * Slots only move between jobs and the pool (S-MEM-5), except the
         * extra share of S-MEM-6, which the pool lends by going negative;
         * a slot created or lost would change what the transport may hold
         * in core for the rest of the run. */
        for (m = s->active_head; m; m = m->next)
            for (j = m->jobs; j; j = j->mnext)
                if (j->transport == t) {
                    limits += j->rcpt_limit;
                    tcore += j->rcpt_count;
                }
        CHECK(limits + t->rcpt_unused == t->rcpt_limit,
              "transport %s: job slots %lld + pool %lld != recipient limit "
              "%lld", t->name, (long long)limits, (long long)t->rcpt_unused,
              (long long)t->rcpt_limit);
        CHECK(t->rcpt_unused >= -t->extra_rcpt_limit,
              "transport %s: pool %lld below -extra %lld", t->name,
              (long long)t->rcpt_unused, (long long)t->extra_rcpt_limit);
        CHECK(tcore == t->in_core, "transport %s: in core %lld, jobs hold "
              "%lld", t->name, (long long)t->in_core, (long long)tcore);
    }
    /* Every handle in the map is on some queue's busy list: no delivery
     * can be completed that no queue knows about. */
    CHECK(inflight == (int64_t)s->inflight.count, "deliveries in flight "
          "%lld, queues hold %lld", (long long)s->inflight.count,
          (long long)inflight);
    /* S-INV-8: the in-core bound that holds.  The document's S-MEM-9
     * formulas are not asserted: valid streams exceed them (spec/memory.md,
     * tests/unit/test_memory.c); --stats prints them beside the peak. */
    CHECK(s->in_core <= qs_bound_holding(s), "%lld recipients in core "
          "exceed the bound %lld (S-INV-8)", (long long)s->in_core,
          (long long)qs_bound_holding(s));
    return 0;
}

/* ---- text output into a caller's buffer ----
 * qs_describe and qs_encode_state follow snprintf's contract: write what
 * fits, always report the length needed, so a caller can size its buffer
 * with a first call.  The core does no I/O; these only format. */

typedef struct sbuf {
    char *buf;
    size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *dst = b->len < b->cap ? b->buf + b->len : NULL;
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    va_start(ap, fmt);
    n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}

/* For people: what `qsched verify` prints at a divergence - per
 * transport, the scheduler's job list in order (the current job starred,
 * with level, counter, selected/maximum entries, blocker and preempting
 * marks) and each destination's window, deliveries in flight and pending
 * entries.  These are the numbers the preemption and feedback rules read,
 * so an implementer can see which one they computed differently. */
/* Example item of a job list: "*M1(level 0, counter -3, selected 4/10)":
 * M1 is the current job, on no stack, has paid for a preemption and not
 * yet earned it back (a negative counter, S-PRE-8), and has handed out 4
 * of at most 10 entries. */
size_t qs_describe(const qs_sched *s, char *buf, size_t buflen)
{
    sbuf b = {buf, 0, buflen};
    const qs_transport *t;
    if (buflen)
        buf[0] = 0;
    sb_printf(&b, "time %lld, %lld messages active, %lld recipients in "
              "core\n", (long long)s->now, (long long)s->active_count,
              (long long)s->in_core);
    for (t = s->xhead; t; t = t->next) {
        const qs_job *j;
        const qs_queue *q;
        sb_printf(&b, "transport %s: %lld in flight (process limit %d), "
                  "pool %lld\n  job list:", t->name, (long long)t->in_flight,
                  t->process_limit, (long long)t->rcpt_unused);
        for (j = t->jhead; j; j = j->lnext)
            sb_printf(&b, " %s%s(level %d, counter %lld, selected %lld/%lld"
                      "%s%s)", j == t->job_current ? "*" : "",
                      j->message->id, j->stack_level,
                      (long long)j->slots_available,
                      (long long)j->selected_entries,
                      (long long)QS_MAX_ENTRIES(j),
                      QS_IS_BLOCKER(j) ? ", blocker" : "",
                      j->parent ? ", preempting " : "");
        sb_printf(&b, "\n  destinations:");
        for (q = t->qhead; q; q = q->next) {
            if (q->dead)
                sb_printf(&b, " %s(dead, %lld in flight)", q->name,
                          (long long)q->busy);
            else
                sb_printf(&b, " %s(window %d, %lld in flight, %lld pending)",
                          q->name, q->window, (long long)q->busy,
                          (long long)q->todo);
        }
        sb_printf(&b, "\n");
    }
    return b.len;
}

/* Canonical encoding: every field that influences future behaviour, in
 * list order, with objects named by message id / destination name (never
 * by address).  Doubles are written as their exact hex form.
 * The model checker stores the encodings of states it has explored and
 * prunes a state whose encoding it has seen: sound only if equal
 * encodings behave alike on every future event (qsched.h promises it;
 * proofs/bmc re-checks merged states).  Hence every list is written in
 * its own order (the order is behaviour: round robin, job list, peer
 * rotation), counters that only statistics read are left out, and so are
 * serial numbers; handles are kept (in flight: a `done` names them; the
 * next one: it names the next delivery).
 *
 * The format, section by section (sections separated by '|'):
 *   T now  H next handle  C recipients in core  R round-robin transport
 *   per active message: M id q enqueue time g group.offset (read cursor)
 *     u unread c in core l limit f last read d delivered x deferred;
 *     per waiting message: W id;
 *   per transport: X name p pool cur current job un first unread job,
 *     then per queue: Q name w window s success f failure c fail_cohorts
 *     d dead r revive time b blocking, its pending entries t msg/n and
 *     in-flight entries D handle/msg/n;
 *     then per job in scheduler's-list order: J msg L level P parent
 *     B blocker a counter u slots_used s selected r read c in core
 *     l slots, and its peers in round-robin order;
 *     then the by-time list;
 *   per retired job: r msg/transport with the same counters;
 *   g: each message's unread recipient groups. */
size_t qs_encode_state(const qs_sched *s, char *buf, size_t buflen)
{
    sbuf b = {buf, 0, buflen};
    const qs_transport *t;
    const qs_message *m;
    if (buflen)
        buf[0] = 0;
    /* the scheduler: clock, next handle, in core, round robin.  R-2: the
     * round robin is kept as the transport after which it resumes
     * (transport_rr = last: what R names then) or the one at which it
     * resumes (next); a state holds one reading, so one field serves. */
    if (QS_READING(s, QR_TRANSPORT_RR) == QRV_RR_LAST)
        sb_printf(&b, "T%lld H%lld C%lld R%s|", (long long)s->now,
                  (long long)s->next_handle, (long long)s->in_core,
                  s->rr_last ? s->rr_last->name : "-");
    else
        sb_printf(&b, "T%lld H%lld C%lld R%s|", (long long)s->now,
                  (long long)s->next_handle, (long long)s->in_core,
                  s->rr ? s->rr->name : "-");
    for (m = s->active_head; m; m = m->next)
        sb_printf(&b, "M%s q%lld g%zu.%lld u%lld c%lld l%lld f%lld d%lld "
                  "x%lld;", m->id, (long long)m->queued_time, m->cur_group,
                  (long long)m->cur_offset, (long long)m->rcpt_unread,
                  (long long)m->rcpt_count, (long long)m->rcpt_limit,
                  (long long)m->refill_time, (long long)m->delivered,
                  (long long)m->deferred);
    /* waiting messages: only their order matters until they enter */
    for (m = s->incoming_head; m; m = m->next)
        sb_printf(&b, "W%s;", m->id);
    for (t = s->xhead; t; t = t->next) {
        const qs_job *j;
        const qs_queue *q;
        sb_printf(&b, "|X%s p%lld cur%s un%s|", t->name,
                  (long long)t->rcpt_unused,
                  t->job_current ? t->job_current->message->id : "-",
                  t->job_next_unread ? t->job_next_unread->message->id : "-");
        for (q = t->qhead; q; q = q->next) {
            const qs_entry *e;
            sb_printf(&b, "Q%s w%d s%a f%a c%a d%d r%lld b%d:", q->name,
                      q->window, q->success, q->failure, q->fail_cohorts,
                      q->dead, (long long)q->revive_at,
                      q->blocker_tag == t->blocker_tag);
            for (e = q->todo_head; e; e = e->qnext)
                sb_printf(&b, "t%s/%lld,", e->peer->job->message->id,
                          (long long)e->nrcpt);
            for (e = q->busy_head; e; e = e->qnext)
                sb_printf(&b, "D%lld/%s/%lld,", (long long)e->handle,
                          e->peer->job->message->id, (long long)e->nrcpt);
            sb_printf(&b, ";");
        }
        for (j = t->jhead; j; j = j->lnext) {
            const qs_peer *p;
            sb_printf(&b, "J%s L%d P%s B%d a%lld u%lld s%lld r%lld c%lld "
                      "l%lld:", j->message->id, j->stack_level,
                      j->parent ? j->parent->message->id : "-",
                      QS_IS_BLOCKER(j), (long long)j->slots_available,
                      (long long)j->slots_used,
                      (long long)j->selected_entries,
                      (long long)j->read_entries, (long long)j->rcpt_count,
                      (long long)j->rcpt_limit);
            for (p = j->peer_head; p; p = p->next)
                sb_printf(&b, "%s,", p->queue->name);
            sb_printf(&b, ";");
        }
        sb_printf(&b, "by-time:");
        for (j = t->thead; j; j = j->tnext)
            sb_printf(&b, "%s,", j->message->id);
    }
    /* retired jobs keep counters that matter if they come back (relinked
     * by a later batch, S-PRE-13) */
    for (m = s->active_head; m; m = m->next) {
        const qs_job *j;
        for (j = m->jobs; j; j = j->mnext)
            if (j->stack_level < 0)
                sb_printf(&b, "|r%s/%s a%lld u%lld s%lld r%lld c%lld l%lld",
                          m->id, j->transport->name,
                          (long long)j->slots_available,
                          (long long)j->slots_used,
                          (long long)j->selected_entries,
                          (long long)j->read_entries,
                          (long long)j->rcpt_count,
                          (long long)j->rcpt_limit);
    }
    /* the recipients still unread, active and waiting messages: they decide
     * future batches (a last section, so that readers of the fields above
     * need not know it) */
    sb_printf(&b, "|g");
    for (m = s->active_head; m; m = m->next) {
        size_t g;
        sb_printf(&b, "%s", m->id);
        for (g = m->cur_group; g < m->ngroups; g++)
            sb_printf(&b, " %s:%s@%s*%lld", m->groups[g].transport,
                      m->groups[g].local ? m->groups[g].local : "",
                      m->groups[g].nexthop,
                      (long long)(m->groups[g].count -
                                  (g == m->cur_group ? m->cur_offset : 0)));
        sb_printf(&b, ";");
    }
    for (m = s->incoming_head; m; m = m->next) {
        size_t g;
        sb_printf(&b, "%s", m->id);
        for (g = 0; g < m->ngroups; g++)
            sb_printf(&b, " %s:%s@%s*%lld", m->groups[g].transport,
                      m->groups[g].local ? m->groups[g].local : "",
                      m->groups[g].nexthop, (long long)m->groups[g].count);
        sb_printf(&b, ";");
    }
    return b.len;
}
