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

/* S-CON-10 / S-PFX-4: the state a revived destination starts from: the
 * initial window (S-CON-10: "start at init_dest_concurrency"), or in the
 * postfix profile the deliveries still in flight when there are any
 * (S-PFX-4), and the feedback counters reset. */
/*@
  requires q:       \valid(q);
  requires profile: postfix == 0 || postfix == 1;
  requires init:    1 <= init <= QS_WINDOW_MAX;
  requires busy:    0 <= busy <= QS_WINDOW_MAX;
  assigns q->dead, q->window, q->success, q->failure, q->fail_cohorts;
  ensures alive:    q->dead == 0;
  ensures window:   q->window == (postfix == 1 && busy > 0 ? busy : init);
  ensures reset:    \eq_double(q->success, 0.0d) &&
                    \eq_double(q->failure, 0.0d) &&
                    \eq_double(q->fail_cohorts, 0.0d);
*/
static void queue_revive_state(qs_queue *q, int init, int busy, int postfix)
{
    q->dead = 0;
    if (postfix && busy > 0)
        q->window = busy;
    else
        q->window = init;
    q->success = q->failure = q->fail_cohorts = 0;
}

/* S-CON-10 / S-PFX-4: back from the dead. */
void qsi_queue_revive(qs_sched *s, qs_queue *q, int busy)
{
    qs_trace r = qsi_trace_init(QS_T_REVIVE);
    queue_dead_unlink(s, q);
    queue_revive_state(q, q->transport->init_conc, busy, qsi_postfix(s));
    s->stats.revivals++;
    r.transport = q->transport->name;
    r.dest = q->name;
    r.a = q->window;
    qsi_emit(s, &r);
    qsi_queue_update_ready(q);
}

/* S-CON-8: "concurrency = 0" (dead), with the time of the next attempt:
 * "after minimal_backoff_time" (S-CON-10), strictly in the future. */
/*@
  requires q:       \valid(q);
  requires now:     0 <= now <= QS_TIME_MAX;
  requires backoff: 1 <= backoff <= QS_BACKOFF_MAX;
  assigns q->dead, q->revive_at;
  ensures dead:     q->dead == 1;
  ensures retry:    q->revive_at == now + backoff && q->revive_at > now;
*/
static void queue_mark_dead(qs_queue *q, int64_t now, int64_t backoff)
{
    q->dead = 1;
    q->revive_at = now + backoff;
}

/* S-CON-8, S-CON-9: declared dead: stop deliveries, defer pending entries,
 * revive after minimal_backoff_time. */
static void queue_die(qs_sched *s, qs_queue *q)
{
    qs_trace r = qsi_trace_init(QS_T_DEAD);
    qs_transport *t = q->transport;
    int released = 0;
    queue_mark_dead(q, s->now, s->min_backoff);
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

/* "After success" for a live destination: the arithmetic of S-CON-3 ..
 * S-CON-5 (postfix: S-PFX-2, S-PFX-3, S-PFX-5), apart from the tracing in
 * feedback_positive so that WP proves it as it runs (proofs/wp/).  The
 * contract says the rules: the window grows only while the safety rule
 * holds, by at most 2, never past a non-zero limit; fail_cohorts is reset
 * where the rule applies; success and failure stay in their ranges. */
/*@
  requires q:       \valid(q) && \valid_read(t) && \separated(q, t);
  requires profile: postfix == 0 || postfix == 1;
  requires params:  qs_transport_feedback_ok(t, postfix);
  requires state:   qs_queue_feedback_ok(q, postfix);
  assigns q->window, q->success, q->failure, q->fail_cohorts;
  // The state stays in range (qs_queue_feedback_ok, clause by clause).
  ensures window_range:  1 <= q->window <= QS_QWINDOW_MAX;
  ensures success_range: qs_success_range(q->success, postfix);
  ensures failure_range: qs_failure_range(q->failure, postfix);
  ensures cohorts_range: \is_finite(q->fail_cohorts) &&
    \le_double(0.0d, q->fail_cohorts) &&
    \le_double(q->fail_cohorts, (double)QS_COHORTS_MAX);
  // S-CON-3: "Don't apply positive feedback unless concurrency <
  // busy_refcount + init_dest_concurrency".
  ensures safety:   q->window > \old(q->window) ==>
                      \old(q->window) < q->busy + t->init_conc;
  ensures steps:    q->window <= \old(q->window) + 2;
  // S-CON-5: "if (concurrency > concurrency limit) concurrency = limit";
  // only that clamp may lower the window.
  ensures clamp:    t->dest_conc_limit > 0 && q->window > \old(q->window) ==>
                      q->window <= t->dest_conc_limit;
  ensures never_down: q->window >= \old(q->window) ||
                      q->window == t->dest_conc_limit;
  behavior document:
    assumes postfix == 0;
    // The rule does not hold: nothing moves, fail_cohorts included.
    ensures held_back: !(\old(q->window) < q->busy + t->init_conc) ==>
      q->window == \old(q->window) &&
      \eq_double(q->success, \old(q->success)) &&
      \eq_double(q->failure, \old(q->failure)) &&
      \eq_double(q->fail_cohorts, \old(q->fail_cohorts));
    // The rule holds: "fail_cohorts = 0" with the step (S-CON-6 reset).
    ensures reset:  \old(q->window) < q->busy + t->init_conc ==>
      \eq_double(q->fail_cohorts, 0.0d);
  behavior postfix:
    assumes postfix == 1;
    // S-PFX-5: fail_cohorts reset on every positive feedback.
    ensures reset:  \eq_double(q->fail_cohorts, 0.0d);
    // S-PFX-3: no step at a non-zero limit already reached.
    ensures at_limit: t->dest_conc_limit != 0 &&
                      \old(q->window) >= t->dest_conc_limit ==>
      q->window == \old(q->window) &&
      \eq_double(q->success, \old(q->success)) &&
      \eq_double(q->failure, \old(q->failure));
  complete behaviors;
  disjoint behaviors;
*/
static void queue_feedback_positive(qs_queue *q, const qs_transport *t,
                                    int postfix)
{
    double g;
    if (postfix) {
        /* S-PFX-5: fail_cohorts reset on every positive feedback. */
        q->fail_cohorts = 0;
        /* S-PFX-3: skip when already at a non-zero limit; S-CON-3 safety
         * with busy still counting this delivery (S-PFX-6). */
        if ((t->dest_conc_limit == 0 || t->dest_conc_limit > q->window) &&
            qs_safety_allows(q->window, (int)q->busy, t->init_conc)) {
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
    }
}

/* "After success" (positive feedback; also for `defer` outcomes). */
static void feedback_positive(qs_sched *s, qs_queue *q)
{
    int old = q->window;
    if (q->dead) {
        /* S-PFX-8: Postfix revives at once, cancelling the backoff, with
         * the deliveries still in flight (including this one).
         * S-CON-11: the document profile ignores it; the destination stays
         * dead until its backoff expires. */
        if (qsi_postfix(s))
            qsi_queue_revive(s, q, (int)q->busy);
        return;
    }
    queue_feedback_positive(q, q->transport, qsi_postfix(s));
    trace_window(s, q, old);
    qsi_queue_update_ready(q);
}

/* "After failure" for a live destination: S-CON-6 (one failure is 1/window
 * of a pseudo-cohort), S-CON-8 / S-PFX-1 (the cohort rule), S-CON-7 /
 * S-PFX-2 (the step down).  Returns 1 when the destination must be
 * declared dead (nothing else changed but fail_cohorts), 0 after the step.
 * Apart from feedback_negative so that WP proves it (proofs/wp/). */
/*@
  requires q:       \valid(q) && \valid_read(t) && \separated(q, t);
  requires profile: postfix == 0 || postfix == 1;
  requires params:  qs_transport_feedback_ok(t, postfix);
  requires state:   qs_queue_feedback_ok(q, postfix);
  assigns q->window, q->success, q->failure, q->fail_cohorts;
  ensures boolean:  \result == 0 || \result == 1;
  // S-CON-6: "fail_cohorts += 1.0 / concurrency", before the test.
  ensures counted:  \le_double(\old(q->fail_cohorts), q->fail_cohorts);
  // S-CON-8 / S-PFX-1: dead exactly when the rule holds on the new count.
  ensures dead_iff: \result == 1 <==>
    (postfix == 0 ? \lt_double((double)t->cohort_limit, q->fail_cohorts)
                  : t->cohort_limit > 0 &&
                    \le_double((double)t->cohort_limit, q->fail_cohorts));
  ensures dead_untouched: \result == 1 ==>
    q->window == \old(q->window) &&
    \eq_double(q->success, \old(q->success)) &&
    \eq_double(q->failure, \old(q->failure));
  // S-CON-7: "if (concurrency < 1) concurrency = 1"; never up; one step
  // (two with Postfix's rounding guard, S-PFX-2).
  ensures alive_window: \result == 0 ==>
    1 <= q->window <= \old(q->window) &&
    q->window >= \old(q->window) - (postfix == 0 ? 1 : 2);
  // While alive the state stays in range; in the postfix profile with no
  // cohort limit fail_cohorts has no bound but the number of failures.
  ensures success_range: \result == 0 ==> qs_success_range(q->success, postfix);
  ensures failure_range: \result == 0 ==> qs_failure_range(q->failure, postfix);
  ensures cohorts_range: \result == 0 && (postfix == 0 || t->cohort_limit > 0) ==>
    \is_finite(q->fail_cohorts) && \le_double(q->fail_cohorts, (double)QS_COHORTS_MAX);
*/
static int queue_feedback_negative(qs_queue *q, const qs_transport *t,
                                   int postfix)
{
    double f;
    /* S-CON-6 */
    q->fail_cohorts = qs_cohort_add(q->fail_cohorts, q->window);
    /* S-CON-8 / S-PFX-1 */
    if (qs_cohort_dead(q->fail_cohorts, t->cohort_limit, postfix))
        return 1;
    /* S-CON-7 (S-PFX-2: rounding guard) */
    f = qs_fb_value(t->neg.form, t->neg.base, q->window);
    q->window = qs_failure_step(q->window, f, postfix, &q->success,
                                &q->failure);
    return 0;
}

/* "After failure" (negative feedback). */
static void feedback_negative(qs_sched *s, qs_queue *q)
{
    int old = q->window;
    if (q->dead)
        return; /* the pseudocode's "if (concurrency > 0)" */
    if (queue_feedback_negative(q, q->transport, qsi_postfix(s))) {
        queue_die(s, q);
        return;
    }
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
