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
#include <stdlib.h>
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
static int check_queue_fields(const qs_sched *s, const qs_transport *t,
                              const qs_queue *q, char *err, size_t errlen);

static int check_queue(const qs_sched *s, const qs_transport *t,
                       const qs_queue *q, int64_t *busy_sum, char *err,
                       size_t errlen)
{
    const qs_entry *e;
    int64_t todo = 0, busy = 0;
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
    *busy_sum += busy;
    return check_queue_fields(s, t, q, err, errlen);
}

/* check_queue's tests that need no walk of the lists. */
static int check_queue_fields(const qs_sched *s, const qs_transport *t,
                              const qs_queue *q, char *err, size_t errlen)
{
    int ready;
    CHECK(!q->todo_head == !q->todo_tail && !q->busy_head == !q->busy_tail &&
          (q->todo == 0) == !q->todo_head && (q->busy == 0) == !q->busy_head &&
          (!q->todo_head || (!q->todo_head->qprev && !q->todo_tail->qnext)) &&
          (!q->busy_head || (!q->busy_head->qprev && !q->busy_tail->qnext)),
          "queue %s:%s: broken list ends", t->name, q->name);
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
    /* The scheduler's list, with the stack relations of each job on it. */
    for (j = t->jhead; j; j = j->lnext) {
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
                         int64_t *in_core_sum, int counted, char *err,
                         size_t errlen)
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
            if (counted) {
                /* the incremental checker: the entries as counted when
                 * they were touched (ck_entry), not walked */
                pt = p->ck_todo;
                CHECK(p->refcount == p->ck_refs, "message %s: peer %s "
                      "refcount %lld, entries hold %lld", m->id,
                      p->queue->name, (long long)p->refcount,
                      (long long)p->ck_refs);
            } else {
                for (e = p->ehead; e; e = e->pnext) {
                    rc += e->nrcpt;
                    pt++;
                }
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
        if (counted) {
            rc = j->ck_rc;
        } else {
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
        if (check_message(s, m, &in_core, 0, err, errlen) < 0)
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

/* ---- the incremental checker (qs_check_changes) ----
 *
 * qs_check_invariants recomputes everything from the structures: O(state)
 * per call, so after every event of a long stream it costs O(events x
 * state) (issue 16: over 300 s on a 100k-line stream that replays in
 * 0.8 s).  qs_check_changes checks the same invariants, but only for the
 * objects the events since its last call touched, which the core notes
 * as it changes them (QSI_CK_* in sched_int.h):
 *   - a touched queue: its lists against its counters, window, ready flag
 *     (check_queue, unchanged);
 *   - a touched active message: its jobs, peers and entries against their
 *     counters, recipient conservation, its limit (check_message);
 *   - a touched job: its links on both lists (its neighbours point back,
 *     or it is the head or tail), the by-time order with its neighbours,
 *     its stack relations (check_job_lists' tests, for this job only);
 *   - a touched transport: its counters against the checker's sums;
 *   - always: the scheduler's counters against the checker's sums.
 * The sums over all objects (busy entries, ready queues, job slots and
 * in-core recipients per transport, in-core recipients, active messages,
 * listed jobs) are not recomputed: each object's share, as it was last
 * checked, is kept with the object, and a check adds the difference; an
 * object that goes gives its share back (qsi_ck_*_gone).  A share is
 * always recomputed from the structures, never copied from the counter
 * it is compared with.  An event that changed an object without noting it
 * leaves a share stale, and the sum then disagrees with the counter: a
 * missing note shows up as a reported inconsistency, not as silence.
 * The first call checks everything (qs_check_invariants) and takes every
 * share.  Cost: O(size of the touched objects) per call. */

void qsi_ck_note(qs_sched *s, struct qs_touched *set, void *obj,
                 uint64_t *epoch, size_t *index)
{
    if (set->n == set->cap) {
        size_t ncap = set->cap ? 2 * set->cap : 64;
        void **v = realloc(set->v, ncap * sizeof *v);
        if (!v)
            abort(); /* out of memory: see qsi_calloc */
        set->v = v;
        set->cap = ncap;
    }
    *epoch = s->ck_epoch;
    *index = set->n;
    set->v[set->n++] = obj;
}

void qsi_ck_msg(qs_sched *s, qs_message *m)
{
    if (m->ck_epoch != s->ck_epoch)
        qsi_ck_note(s, &s->ck_msgs, m, &m->ck_epoch, &m->ck_index);
}

void qsi_ck_xport(qs_sched *s, qs_transport *t)
{
    if (t->ck_epoch != s->ck_epoch)
        qsi_ck_note(s, &s->ck_xports, t, &t->ck_epoch, &t->ck_index);
}

/* a job (NULL: none, for a missing neighbour) and its transport */
void qsi_ck_job(qs_sched *s, qs_job *j)
{
    if (j && j->ck_epoch != s->ck_epoch) {
        qsi_ck_note(s, &s->ck_jobs, j, &j->ck_epoch, &j->ck_index);
        qsi_ck_xport(s, j->transport);
    }
}

/* a queue and its transport */
void qsi_ck_queue(qs_sched *s, qs_queue *q)
{
    if (q->ck_epoch != s->ck_epoch) {
        qsi_ck_note(s, &s->ck_queues, q, &q->ck_epoch, &q->ck_index);
        qsi_ck_xport(s, q->transport);
    }
}

void qsi_ck_entry(qs_sched *s, qs_entry *e)
{
    if (e->ck_epoch != s->ck_epoch)
        qsi_ck_note(s, &s->ck_entries, e, &e->ck_epoch, &e->ck_index);
}

/* Swap-remove from the touched set (the object is freed before the next
 * check); the moved object learns its new place. */
#define CK_FORGET(set, obj, type)                                            \
    do {                                                                     \
        type *last_ = (set)->v[--(set)->n];                                  \
        (set)->v[(obj)->ck_index] = last_;                                   \
        last_->ck_index = (obj)->ck_index;                                   \
    } while (0)

void qsi_ck_message_gone(qs_sched *s, qs_message *m)
{
    if (!s->ck_on)
        return;
    s->ck_in_core -= m->ck_rcpt;
    s->ck_active -= m->ck_active;
    if (m->ck_epoch == s->ck_epoch)
        CK_FORGET(&s->ck_msgs, m, qs_message);
}

void qsi_ck_job_gone(qs_sched *s, qs_job *j)
{
    qs_transport *t = j->transport;
    if (!s->ck_on)
        return;
    t->ck_limits -= j->ck_limit;
    t->ck_core -= j->ck_count;
    t->ck_njobs -= j->ck_listed;
    QSI_CK_XPORT(s, t);
    if (j->ck_epoch == s->ck_epoch)
        CK_FORGET(&s->ck_jobs, j, qs_job);
}

void qsi_ck_queue_gone(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    if (!s->ck_on)
        return;
    t->ck_busy -= q->ck_busy;
    t->ck_ready -= q->ck_ready;
    s->ck_busy -= q->ck_busy;
    QSI_CK_XPORT(s, t);
    if (q->ck_epoch == s->ck_epoch)
        CK_FORGET(&s->ck_queues, q, qs_queue);
}

/* An entry's share out of the counts it was last counted in: its queue's
 * list, its peer, its job's recipients; the owners are noted, so that the
 * next check compares them with their counters. */
static void ck_entry_uncount(qs_sched *s, qs_entry *e)
{
    if (e->ck_state == 1) {
        e->ck_queue->ck_todo_n--;
        e->ck_peer->ck_todo--;
    } else {
        e->ck_queue->ck_busy_n--;
    }
    e->ck_peer->ck_refs--;
    e->ck_peer->job->ck_rc -= e->ck_nrcpt;
    QSI_CK_QUEUE(s, e->ck_queue);
    QSI_CK_MSG(s, e->ck_peer->job->message);
}

void qsi_ck_entry_gone(qs_sched *s, qs_entry *e)
{
    if (!s->ck_on)
        return;
    if (e->ck_queue)
        ck_entry_uncount(s, e);
    e->ck_queue = NULL;
    if (e->ck_epoch == s->ck_epoch)
        CK_FORGET(&s->ck_entries, e, qs_entry);
}

/* A touched entry: check_queue's tests for this entry (it is linked where
 * its state says, its neighbours point back, a busy one is the one its
 * handle finds), and its count moved to the list it is on now.  (That it
 * is on the todo list rather than the busy list is read from its handle;
 * the counts then agree with the queue's only if every move was noted.) */
static int ck_entry(qs_sched *s, qs_entry *e, char *err, size_t errlen)
{
    qs_queue *q = e->queue;
    qs_transport *t = q->transport;
    int state = e->handle ? 2 : 1;
    if (state == 1) {
        CHECK(e->nrcpt >= 1 && (t->dest_rcpt_limit == 0 ||
                                e->nrcpt <= t->dest_rcpt_limit),
              "queue %s:%s: bad todo entry", t->name, q->name);
        CHECK((e->qprev ? e->qprev->qnext == e : q->todo_head == e) &&
              (e->qnext ? e->qnext->qprev == e : q->todo_tail == e),
              "queue %s:%s: todo entry not on the list", t->name, q->name);
    } else {
        CHECK(e->handle > 0 && qs_map_get(&s->inflight, NULL,
                                          (uint64_t)e->handle) == e,
              "queue %s:%s: busy entry D%lld not in flight", t->name,
              q->name, (long long)e->handle);
        CHECK((e->qprev ? e->qprev->qnext == e : q->busy_head == e) &&
              (e->qnext ? e->qnext->qprev == e : q->busy_tail == e),
              "queue %s:%s: busy entry not on the list", t->name, q->name);
    }
    CHECK(e->peer && e->peer->queue == q, "queue %s:%s: entry of another "
          "queue's peer", t->name, q->name);
    if (e->ck_queue)
        ck_entry_uncount(s, e);
    if (state == 1) {
        q->ck_todo_n++;
        e->peer->ck_todo++;
    } else {
        q->ck_busy_n++;
    }
    e->peer->ck_refs++;
    e->peer->job->ck_rc += e->nrcpt;
    e->ck_queue = q;
    e->ck_peer = e->peer;
    e->ck_nrcpt = e->nrcpt;
    e->ck_state = state;
    QSI_CK_QUEUE(s, q);
    QSI_CK_MSG(s, e->peer->job->message);
    return 0;
}

/* A touched queue: its counters against the entries counted in it, and
 * the tests on its own fields. */
static int ck_queue(qs_sched *s, qs_queue *q, char *err, size_t errlen)
{
    qs_transport *t = q->transport;
    int64_t busy = q->ck_busy_n;
    CHECK(q->todo == q->ck_todo_n && q->busy == q->ck_busy_n,
          "queue %s:%s: todo/busy counts %lld/%lld, entries hold %lld/%lld",
          t->name, q->name, (long long)q->todo, (long long)q->busy,
          (long long)q->ck_todo_n, (long long)q->ck_busy_n);
    if (check_queue_fields(s, t, q, err, errlen) < 0)
        return -1;
    t->ck_busy += busy - q->ck_busy;
    s->ck_busy += busy - q->ck_busy;
    q->ck_busy = busy;
    t->ck_ready += q->ready - q->ck_ready;
    q->ck_ready = q->ready;
    return 0;
}

static int ck_message(qs_sched *s, qs_message *m, char *err, size_t errlen)
{
    qs_job *j;
    int64_t in_core = 0;
    if (!m->active)
        return 0; /* waiting: no jobs, no recipients in core yet */
    if (check_message(s, m, &in_core, 1, err, errlen) < 0)
        return -1;
    s->ck_in_core += in_core - m->ck_rcpt;
    m->ck_rcpt = in_core;
    s->ck_active += 1 - m->ck_active;
    m->ck_active = 1;
    /* the shares of its jobs in their transports' slot and in-core sums
     * (S-INV-5): the counters check_message has just recomputed */
    for (j = m->jobs; j; j = j->mnext) {
        qs_transport *t = j->transport;
        t->ck_limits += j->rcpt_limit - j->ck_limit;
        j->ck_limit = j->rcpt_limit;
        t->ck_core += j->rcpt_count - j->ck_count;
        j->ck_count = j->rcpt_count;
        QSI_CK_XPORT(s, t);
    }
    return 0;
}

/* check_job_lists' tests for one job, and its share of the listed jobs. */
static int ck_job(qs_sched *s, qs_job *j, char *err, size_t errlen)
{
    qs_transport *t = j->transport;
    const qs_job *c;
    int listed = j->stack_level >= 0;
    (void)s;
    t->ck_njobs += listed - j->ck_listed;
    j->ck_listed = listed;
    if (!listed) {
        CHECK(!j->lprev && !j->lnext && !j->tprev && !j->tnext &&
              t->jhead != j && t->thead != j && t->job_current != j &&
              !j->parent && !j->child_head,
              "transport %s: retired job %s still linked", t->name,
              j->message->id);
        return 0;
    }
    CHECK(j->lprev ? j->lprev->lnext == j : t->jhead == j,
          "transport %s: broken scheduler list at %s", t->name,
          j->message->id);
    CHECK(j->lnext ? j->lnext->lprev == j : t->jtail == j,
          "transport %s: broken scheduler list at %s", t->name,
          j->message->id);
    CHECK(j->tprev ? j->tprev->tnext == j : t->thead == j,
          "transport %s: broken by-time list at %s", t->name,
          j->message->id);
    CHECK(j->tnext ? j->tnext->tprev == j : t->ttail == j,
          "transport %s: broken by-time list at %s", t->name,
          j->message->id);
    CHECK((!j->tprev || j->tprev->stack_level >= 0) &&
          (!j->tnext || j->tnext->stack_level >= 0),
          "transport %s: retired job next to %s on the by-time list",
          t->name, j->message->id);
    CHECK((!j->tprev ||
           j->tprev->message->queued_time <= j->message->queued_time) &&
          (!j->tnext ||
           j->message->queued_time <= j->tnext->message->queued_time),
          "transport %s: by-time list out of order at %s", t->name,
          j->message->id);
    CHECK((j->stack_level == 0) == (j->parent == NULL) ||
          (j->parent == NULL && j->stack_level > 0),
          "transport %s: job %s level %d with%s parent", t->name,
          j->message->id, j->stack_level, j->parent ? "" : "out");
    if (j->parent) {
        CHECK(j->stack_level > j->parent->stack_level &&
              j->parent->stack_level >= 0,
              "transport %s: job %s level %d not below parent %s level %d",
              t->name, j->message->id, j->stack_level,
              j->parent->message->id, j->parent->stack_level);
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
    return 0;
}

static int ck_transport(qs_transport *t, char *err, size_t errlen)
{
    CHECK(t->ck_busy == t->in_flight, "transport %s: in flight %lld, "
          "queues hold %lld", t->name, (long long)t->in_flight,
          (long long)t->ck_busy);
    CHECK(t->in_flight <= t->process_limit, "transport %s: %lld in flight "
          "over the process limit %d", t->name, (long long)t->in_flight,
          t->process_limit);
    CHECK(t->ck_ready == t->ready_queues, "transport %s: ready count",
          t->name);
    CHECK(t->ck_limits + t->rcpt_unused == t->rcpt_limit,
          "transport %s: job slots %lld + pool %lld != recipient limit %lld",
          t->name, (long long)t->ck_limits, (long long)t->rcpt_unused,
          (long long)t->rcpt_limit);
    CHECK(t->rcpt_unused >= -t->extra_rcpt_limit,
          "transport %s: pool %lld below -extra %lld", t->name,
          (long long)t->rcpt_unused, (long long)t->extra_rcpt_limit);
    CHECK(t->ck_core == t->in_core, "transport %s: in core %lld, jobs hold "
          "%lld", t->name, (long long)t->in_core, (long long)t->ck_core);
    CHECK(t->ck_njobs == t->njobs, "transport %s: %lld jobs listed, %lld "
          "counted", t->name, (long long)t->ck_njobs, (long long)t->njobs);
    CHECK(!t->jhead == !t->jtail && !t->thead == !t->ttail &&
          !t->jhead == !t->thead &&
          (!t->jhead || (!t->jhead->lprev && !t->jtail->lnext &&
                         !t->thead->tprev && !t->ttail->tnext)),
          "transport %s: broken list ends", t->name);
    CHECK(!t->job_current || (t->job_current->stack_level >= 0 &&
                              t->job_current->transport == t),
          "transport %s: current job not on the job list", t->name);
    return 0;
}

static int ck_global(const qs_sched *s, char *err, size_t errlen)
{
    CHECK(s->ck_active == s->active_count &&
          s->active_count <= s->active_limit,
          "active queue holds %lld messages (count %lld, limit %lld)",
          (long long)s->ck_active, (long long)s->active_count,
          (long long)s->active_limit);
    CHECK(s->incoming_head == NULL || s->active_count == s->active_limit,
          "messages wait while the active queue has room");
    CHECK(s->ck_in_core == s->in_core, "in-core recipients %lld, counted "
          "%lld", (long long)s->in_core, (long long)s->ck_in_core);
    CHECK(s->ck_busy == (int64_t)s->inflight.count, "deliveries in flight "
          "%lld, queues hold %lld", (long long)s->inflight.count,
          (long long)s->ck_busy);
    CHECK(s->in_core <= qs_bound_holding(s), "%lld recipients in core "
          "exceed the bound %lld (S-INV-8)", (long long)s->in_core,
          (long long)qs_bound_holding(s));
    return 0;
}

/* The first call: everything, and every share taken. */
static int ck_start(qs_sched *s, char *err, size_t errlen)
{
    qs_transport *t;
    qs_message *m;
    if (qs_check_invariants(s, err, errlen) < 0)
        return -1;
    s->ck_on = 1;
    s->ck_epoch = 1;
    for (t = s->xhead; t; t = t->next) {
        qs_queue *q;
        qs_job *j;
        for (q = t->qhead; q; q = q->next) {
            qs_entry *e;
            for (e = q->todo_head; e; e = e->qnext)
                if (ck_entry(s, e, err, errlen) < 0)
                    return -1;
            for (e = q->busy_head; e; e = e->qnext)
                if (ck_entry(s, e, err, errlen) < 0)
                    return -1;
            if (ck_queue(s, q, err, errlen) < 0)
                return -1;
        }
        for (j = t->jhead; j; j = j->lnext)
            if (ck_job(s, j, err, errlen) < 0)
                return -1;
    }
    for (m = s->active_head; m; m = m->next)
        if (ck_message(s, m, err, errlen) < 0)
            return -1;
    s->ck_msgs.n = s->ck_jobs.n = s->ck_queues.n = s->ck_xports.n = 0;
    s->ck_entries.n = 0;
    s->ck_epoch++;
    for (t = s->xhead; t; t = t->next)
        if (ck_transport(t, err, errlen) < 0)
            return -1;
    return ck_global(s, err, errlen);
}

int qs_check_changes(qs_sched *s, char *err, size_t errlen)
{
    size_t i;
    int rc = 0;
    if (!s->ck_on)
        return ck_start(s, err, errlen);
    for (i = 0; rc == 0 && i < s->ck_entries.n; i++)
        rc = ck_entry(s, s->ck_entries.v[i], err, errlen);
    for (i = 0; rc == 0 && i < s->ck_queues.n; i++)
        rc = ck_queue(s, s->ck_queues.v[i], err, errlen);
    for (i = 0; rc == 0 && i < s->ck_msgs.n; i++)
        rc = ck_message(s, s->ck_msgs.v[i], err, errlen);
    for (i = 0; rc == 0 && i < s->ck_jobs.n; i++)
        rc = ck_job(s, s->ck_jobs.v[i], err, errlen);
    for (i = 0; rc == 0 && i < s->ck_xports.n; i++)
        rc = ck_transport(s->ck_xports.v[i], err, errlen);
    if (rc == 0)
        rc = ck_global(s, err, errlen);
    s->ck_msgs.n = s->ck_jobs.n = s->ck_queues.n = s->ck_xports.n = 0;
    s->ck_entries.n = 0;
    s->ck_epoch++;
    return rc;
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
    /* the scheduler: clock, next handle, in core, round robin */
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
