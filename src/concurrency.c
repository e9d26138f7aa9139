/*
 * concurrency.c - the Postfix 2.5 concurrency scheduler: one window per
 * destination queue, positive and negative feedback with hysteresis, the
 * safety rule, pseudo-cohort failure, dead destinations and their revival.
 *
 * Owns: destination queues (creation, readiness, discarding) and every
 * change of a queue's window, success, failure and fail_cohorts counters.
 * Implements SCHEDULER_README "Concurrency scheduling" (the pseudocode
 * "Pseudocode for the Postfix 2.5 concurrency scheduler" and the dead
 * destination summary): S-CON-1 .. S-CON-13, S-PFX-1 .. S-PFX-8, S-PFX-10.
 * The arithmetic is in kernels.c.  May not: choose entries or jobs
 * (select.c, preempt.c).
 *
 * Explains itself like preemption does (spec/trace.md "The concurrency
 * scheduler's explain lines"): every feedback event emits the test or the
 * sum the pseudocode computes, with its numbers - `safety` (S-CON-3,
 * S-PFX-3), `success` (the "After success" block: feedback form and value,
 * the success counter against hysteresis 1, the window step and clamp),
 * `cohort` (S-CON-6, S-CON-8: the failed pseudo-cohorts against the
 * limit), `failure` ("After failure" with the reversed hysteresis), and
 * `backoff` (S-CON-9 .. S-CON-11: when a dead destination revives, and why
 * feedback on it is ignored).  The records carry the binary64 counters
 * exactly (qs_trace x, y, z, w); they are explain level, so the default
 * trace is unchanged.
 */
#include <stdlib.h>
#include "sched_int.h"
#include "kernels.h"

/* A queue is "ready" when the transport could select from it now. */
void qsi_queue_update_ready(qs_queue *q)
{
    int ready = !q->dead && q->window > q->busy && q->todo > 0;
    if (ready != q->ready) {
        q->ready = ready;
        q->transport->ready_queues += ready ? 1 : -1;
    }
}

/* S-CON-1: a new destination starts at the initial concurrency. */
qs_queue *qsi_queue_obtain(qs_sched *s, qs_transport *t, const char *name)
{
    qs_queue *q = qs_map_get(&t->queues, name, 0);
    if (q)
        return q;
    q = qsi_calloc(1, sizeof *q);
    q->name = qsi_strdup(name);
    q->serial = ++s->serial;
    q->transport = t;
    q->window = t->init_conc;
    qsi_map_put(&t->queues, q->name, 0, q);
    q->prev = t->qtail;
    if (t->qtail)
        t->qtail->next = q;
    else
        t->qhead = q;
    t->qtail = q;
    return q;
}

/* S-CON-13: Postfix discards an in-core queue when it is empty and alive;
 * a new one starts again from the initial window.  Dead queues stay until
 * they revive. */
void qsi_queue_free_if_idle(qs_queue *q)
{
    qs_transport *t = q->transport;
    if (q->dead || q->todo || q->busy)
        return;
    if (q->ready)
        t->ready_queues--;
    qs_map_del(&t->queues, q->name, 0);
    if (q->prev)
        q->prev->next = q->next;
    else
        t->qhead = q->next;
    if (q->next)
        q->next->prev = q->prev;
    else
        t->qtail = q->prev;
    free(q->name);
    free(q);
}

/* ---- explain records (explain level) ---- */

static qs_trace conc_trace(enum qs_trace_kind kind, const qs_queue *q)
{
    qs_trace r = qsi_trace_init(kind);
    r.transport = q->transport->name;
    r.dest = q->name;
    return r;
}

/* S-CON-3 "Don't apply positive feedback unless concurrency <
 * busy_refcount + init_dest_concurrency", with the busy count the profile
 * uses (S-PFX-6), and in the postfix profile the limit stop first
 * (S-PFX-3). */
static void trace_safety(qs_sched *s, const qs_queue *q, int allowed)
{
    qs_trace r = conc_trace(QS_T_SAFETY, q);
    r.a = q->window;
    r.b = q->busy;
    r.c = q->transport->init_conc;
    r.d = q->transport->dest_conc_limit;
    r.e = allowed;
    r.f = qsi_postfix(s);
    qsi_emit(s, &r);
}

/* One feedback step: the form and value of g(N) or f(N), the counter
 * before and after, the rounds of hysteresis 1 (each adds or takes 1, at
 * most two, kernels.c) and the window. */
static void trace_step(qs_sched *s, const qs_queue *q,
                       enum qs_trace_kind kind, const qs_feedback *fb,
                       int old, double value, double before, double after,
                       int guard)
{
    qs_trace r = conc_trace(kind, q);
    double rounds = kind == QS_T_SUCCESS ? (before + value) - after
                                         : after - (before - value);
    r.a = old;
    r.b = q->window;
    r.c = q->transport->dest_conc_limit;
    r.d = guard;
    r.e = (int64_t)(rounds + 0.5); /* a whole number, up to rounding */
    r.f = fb->form;
    r.x = fb->base;
    r.y = value;
    r.z = before;
    r.w = after;
    qsi_emit(s, &r);
}

/* S-CON-6, S-CON-8 / S-PFX-1: the failed pseudo-cohorts against the
 * limit. */
static void trace_cohort(qs_sched *s, const qs_queue *q, double before,
                         int dead)
{
    qs_trace r = conc_trace(QS_T_COHORT, q);
    r.a = q->window;
    r.b = q->transport->cohort_limit;
    r.c = dead;
    r.d = qsi_postfix(s);
    r.x = before;
    r.y = q->fail_cohorts;
    qsi_emit(s, &r);
}

/* S-CON-9 .. S-CON-11, S-PFX-8: the backoff of a dead destination. */
static void trace_backoff(qs_sched *s, const qs_queue *q,
                          enum qs_backoff_case why)
{
    qs_trace r = conc_trace(QS_T_BACKOFF, q);
    r.a = q->revive_at;
    r.b = s->min_backoff;
    r.c = s->now;
    r.d = why;
    qsi_emit(s, &r);
}

static void trace_window(qs_sched *s, qs_queue *q, int old)
{
    qs_trace r;
    if (q->window == old)
        return;
    r = qsi_trace_init(QS_T_WINDOW);
    r.transport = q->transport->name;
    r.dest = q->name;
    r.a = old;
    r.b = q->window;
    qsi_emit(s, &r);
}

static void queue_dead_unlink(qs_sched *s, qs_queue *q)
{
    if (q->dprev)
        q->dprev->dnext = q->dnext;
    else
        s->dead_head = q->dnext;
    if (q->dnext)
        q->dnext->dprev = q->dprev;
    else
        s->dead_tail = q->dprev;
    q->dprev = q->dnext = NULL;
}

/* S-CON-10 / S-PFX-4: back from the dead. */
void qsi_queue_revive(qs_sched *s, qs_queue *q, int busy)
{
    qs_trace r = qsi_trace_init(QS_T_REVIVE);
    /* At an `at` event the revival time has come; a revival before it is
     * the postfix profile's success on a dead destination, explained by
     * feedback_positive. */
    if (q->revive_at <= s->now)
        trace_backoff(s, q, QS_BACKOFF_EXPIRED);
    queue_dead_unlink(s, q);
    q->dead = 0;
    if (qsi_postfix(s) && busy > 0)
        q->window = busy;
    else
        q->window = q->transport->init_conc;
    q->success = q->failure = q->fail_cohorts = 0;
    s->stats.revivals++;
    r.transport = q->transport->name;
    r.dest = q->name;
    r.a = q->window;
    qsi_emit(s, &r);
    qsi_queue_update_ready(q);
}

/* S-CON-8, S-CON-9: declared dead: stop deliveries, defer pending entries,
 * revive after minimal_backoff_time. */
static void queue_die(qs_sched *s, qs_queue *q)
{
    qs_trace r = qsi_trace_init(QS_T_DEAD);
    qs_transport *t = q->transport;
    int released = 0;
    q->dead = 1;
    q->revive_at = s->now + s->min_backoff;
    q->dprev = s->dead_tail;
    q->dnext = NULL;
    if (s->dead_tail)
        s->dead_tail->dnext = q;
    else
        s->dead_head = q;
    s->dead_tail = q;
    s->stats.deaths++;
    r.transport = t->name;
    r.dest = q->name;
    qsi_emit(s, &r);
    trace_backoff(s, q, QS_BACKOFF_DEAD);
    qsi_queue_update_ready(q);
    /* S-PRE-12 (document profile): a destination declared dead releases
     * the blockers it caused; their entries there are gone.  S-PFX-10:
     * Postfix only stops counting the queue as a blocker (below). */
    if (!qsi_postfix(s) && q->blocker_tag == t->blocker_tag) {
        qsi_blocker_release_all(s, t, q);
        released = 1;
    }
    while (q->todo_head)
        qsi_entry_defer_todo(s, q->todo_head);
    if (!released)
        qsi_blocker_update(s, q);
    else
        q->blocker_tag = 0;
}

/* "After success" (positive feedback; also for `defer` outcomes). */
static void feedback_positive(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    int old = q->window, allowed;
    double g, before;
    if (q->dead) {
        /* S-PFX-8: Postfix revives at once, cancelling the backoff, with
         * the deliveries still in flight (including this one).
         * S-CON-11: the document profile ignores it; the destination stays
         * dead until its backoff expires. */
        trace_backoff(s, q, qsi_postfix(s) ? QS_BACKOFF_OK_REVIVES
                                           : QS_BACKOFF_OK_IGNORED);
        if (qsi_postfix(s))
            qsi_queue_revive(s, q, (int)q->busy);
        return;
    }
    if (qsi_postfix(s)) {
        /* S-PFX-5: fail_cohorts reset on every positive feedback. */
        q->fail_cohorts = 0;
        /* S-PFX-3: skip when already at a non-zero limit; S-CON-3 safety
         * with busy still counting this delivery (S-PFX-6). */
        allowed = (t->dest_conc_limit == 0 || t->dest_conc_limit > q->window)
                  && qs_safety_allows(q->window, (int)q->busy, t->init_conc);
        trace_safety(s, q, allowed);
        if (allowed) {
            g = qs_fb_value(t->pos.form, t->pos.base, q->window);
            before = q->success;
            q->window = qs_success_step(q->window, g, t->dest_conc_limit, 1,
                                        &q->success, &q->failure);
            trace_step(s, q, QS_T_SUCCESS, &t->pos, old, g, before,
                       q->success, 1);
        }
    } else {
        allowed = qs_safety_allows(q->window, (int)q->busy, t->init_conc);
        trace_safety(s, q, allowed);
        if (allowed) {
            /* S-CON-3 holds: S-CON-4, S-CON-5. */
            q->fail_cohorts = 0;
            g = qs_fb_value(t->pos.form, t->pos.base, q->window);
            before = q->success;
            q->window = qs_success_step(q->window, g, t->dest_conc_limit, 0,
                                        &q->success, &q->failure);
            trace_step(s, q, QS_T_SUCCESS, &t->pos, old, g, before,
                       q->success, 0);
        }
    }
    trace_window(s, q, old);
    qsi_queue_update_ready(q);
}

/* "After failure" (negative feedback). */
static void feedback_negative(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    int old = q->window;
    double f, before;
    if (q->dead) {
        /* the pseudocode's "if (concurrency > 0)" */
        trace_backoff(s, q, QS_BACKOFF_FAIL_IGNORED);
        return;
    }
    /* S-CON-6 */
    before = q->fail_cohorts;
    q->fail_cohorts = qs_cohort_add(q->fail_cohorts, q->window);
    /* S-CON-8 / S-PFX-1 */
    if (qs_cohort_dead(q->fail_cohorts, t->cohort_limit, qsi_postfix(s))) {
        trace_cohort(s, q, before, 1);
        queue_die(s, q);
        return;
    }
    trace_cohort(s, q, before, 0);
    /* S-CON-7 (S-PFX-2: rounding guard) */
    f = qs_fb_value(t->neg.form, t->neg.base, q->window);
    before = q->failure;
    q->window = qs_failure_step(q->window, f, qsi_postfix(s), &q->success,
                                &q->failure);
    trace_step(s, q, QS_T_FAILURE, &t->neg, old, f, before, q->failure,
               qsi_postfix(s));
    trace_window(s, q, old);
    qsi_queue_update_ready(q);
}

void qsi_feedback(qs_sched *s, qs_queue *q, enum qs_outcome outcome)
{
    if (outcome == QS_DONE_FAIL)
        feedback_negative(s, q);
    else
        feedback_positive(s, q);
}
