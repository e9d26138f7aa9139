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
void qsi_queue_free_if_idle(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    if (q->dead || q->todo || q->busy)
        return;
    /* R-1 idle_window: Postfix forgets an idle destination (discard); the
     * document, which never says so, can be read as keeping its window
     * (keep). */
    if (QS_READING(s, QR_IDLE_WINDOW) == QRV_IDLE_KEEP)
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
    qsi_queue_update_ready(q);
    /* S-PRE-12 (document profile): a destination declared dead releases
     * the blockers that have peers there (R-13; before its entries are
     * deferred, while they still show which jobs those are): their entries
     * there are gone.  S-PFX-10: Postfix only stops counting the queue as
     * a blocker (below). */
    if (!qsi_postfix(s) && q->blocker_tag == t->blocker_tag) {
        qsi_blocker_release(s, t, q);
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
    int old = q->window;
    double g;
    if (q->dead) {
        /* S-PFX-8: Postfix revives at once, cancelling the backoff, with
         * the deliveries still in flight (including this one).
         * S-CON-11: the document profile ignores it; the destination stays
         * dead until its backoff expires. */
        if (qsi_postfix(s))
            qsi_queue_revive(s, q, (int)q->busy);
        return;
    }
    if (qsi_postfix(s)) {
        /* S-PFX-5: fail_cohorts reset on every positive feedback (R-6
         * safety_cohort_reset = done, the postfix profile's default). */
        if (QS_READING(s, QR_SAFETY_COHORT_RESET) == QRV_SAFETY_RESETS)
            q->fail_cohorts = 0;
        /* S-PFX-3: skip when already at a non-zero limit; S-CON-3 safety
         * with busy still counting this delivery (S-PFX-6). */
        if ((t->dest_conc_limit == 0 || t->dest_conc_limit > q->window) &&
            qs_safety_allows(q->window, (int)q->busy, t->init_conc)) {
            if (QS_READING(s, QR_SAFETY_COHORT_RESET) ==
                QRV_SAFETY_SKIPS_RESET)
                q->fail_cohorts = 0;
            g = qs_fb_value(t->pos.form, t->pos.base, q->window);
            q->window = qs_success_step(q->window, g, t->dest_conc_limit, 1,
                                        &q->success, &q->failure);
        }
    } else if (qs_safety_allows(q->window, (int)q->busy, t->init_conc)) {
        /* S-CON-3 holds: S-CON-4, S-CON-5. */
        q->fail_cohorts = 0;
        g = qs_fb_value(t->pos.form, t->pos.base, q->window);
        q->window = qs_success_step(q->window, g, t->dest_conc_limit, 0,
                                    &q->success, &q->failure);
    } else if (QS_READING(s, QR_SAFETY_COHORT_RESET) == QRV_SAFETY_RESETS) {
        /* R-6 safety_cohort_reset = done: the safety rule holds back the
         * window only; "fail_cohorts = 0" still runs. */
        q->fail_cohorts = 0;
    }
    trace_window(s, q, old);
    qsi_queue_update_ready(q);
}

/* "After failure" (negative feedback). */
static void feedback_negative(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    int old = q->window;
    double f;
    if (q->dead)
        return; /* the pseudocode's "if (concurrency > 0)" */
    /* S-CON-6 */
    q->fail_cohorts = qs_cohort_add(q->fail_cohorts, q->window);
    /* S-CON-8 / S-PFX-1 */
    if (qs_cohort_dead(q->fail_cohorts, t->cohort_limit, qsi_postfix(s))) {
        queue_die(s, q);
        return;
    }
    /* S-CON-7 (S-PFX-2: rounding guard) */
    f = qs_fb_value(t->neg.form, t->neg.base, q->window);
    q->window = qs_failure_step(q->window, f, qsi_postfix(s), &q->success,
                                &q->failure);
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
