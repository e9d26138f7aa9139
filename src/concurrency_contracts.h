/*
 * src/concurrency_contracts.h - the ACSL contracts of concurrency.c's proved helpers.
 *
 * Owns: the requires/assigns/ensures of the helpers of concurrency.c
 * that WP proves (proofs/run.sh: every function with a contract is
 * proved, as compiled, through proofs/wp/concurrency.c), stated on their
 * prototypes; Frama-C joins each one to the definition.  They live here,
 * not above each definition, so that concurrency.c stays within the
 * core's size limit (issue 13); the comment above each definition in
 * concurrency.c says what the function does and which rule it implements.
 * Included by concurrency.c only (the helpers are static).  Clause names are the
 * names of WP's goals (typed_<function>_ensures_<clause>).
 */
#ifndef QSCHED_CONCURRENCY_CONTRACTS_H
#define QSCHED_CONCURRENCY_CONTRACTS_H

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
static void queue_revive_state(qs_queue *q, int init, int busy, int postfix);

/*@
  requires q:       \valid(q);
  requires now:     0 <= now <= QS_TIME_MAX;
  requires backoff: 1 <= backoff <= QS_BACKOFF_MAX;
  assigns q->dead, q->revive_at;
  ensures dead:     q->dead == 1;
  ensures retry:    q->revive_at == now + backoff && q->revive_at > now;
*/
static void queue_mark_dead(qs_queue *q, int64_t now, int64_t backoff);

/*@
  requires q:       \valid(q) && \valid_read(t) && \separated(q, t);
  requires profile: postfix == 0 || postfix == 1;
  requires params:  qs_transport_feedback_ok(t, postfix);
  requires state:   qs_queue_feedback_ok(q, postfix);
  assigns q->fail_cohorts;
  ensures boolean:  \result == 0 || \result == 1;
  behavior document:
    assumes postfix == 0;
    // "Don't apply positive feedback unless concurrency <
    // busy_refcount + init_dest_concurrency"
    ensures allowed_iff: \result == 1 <==> q->window < q->busy + t->init_conc;
    ensures kept:     \eq_double(q->fail_cohorts, \old(q->fail_cohorts));
  behavior postfix:
    assumes postfix == 1;
    ensures allowed_iff: \result == 1 <==>
      (t->dest_conc_limit == 0 || t->dest_conc_limit > q->window) &&
      q->window < q->busy + t->init_conc;
    ensures reset:    \eq_double(q->fail_cohorts, 0.0d);
  complete behaviors;
  disjoint behaviors;
*/
static int queue_positive_allowed(qs_queue *q, const qs_transport *t,
                                  int postfix);

/*@
  requires q:       \valid(q) && \valid_read(t) && \separated(q, t);
  requires profile: postfix == 0 || postfix == 1;
  requires params:  qs_transport_feedback_ok(t, postfix);
  requires state:   qs_queue_feedback_ok(q, postfix);
  requires allowed: q->window < q->busy + t->init_conc;
  assigns q->window, q->success, q->failure, q->fail_cohorts;
  ensures g:        qs_unit(\result);
  // The state stays in range (qs_queue_feedback_ok, clause by clause).
  ensures window_range:  1 <= q->window <= QS_QWINDOW_MAX;
  ensures success_range: qs_success_range(q->success, postfix);
  ensures failure_range: qs_failure_range(q->failure, postfix);
  ensures cohorts_range: \is_finite(q->fail_cohorts) &&
    \le_double(0.0d, q->fail_cohorts) &&
    \le_double(q->fail_cohorts, (double)QS_COHORTS_MAX);
  // One success moves the window by at most 2 (S-CON-5's "be prepared
  // for feedback > hysteresis, or rounding error"), so with the safety
  // rule it stays at most busy + init + 1.
  ensures steps:    q->window <= \old(q->window) + 2;
  ensures bound:    q->window <= q->busy + t->init_conc + 1 ||
                    q->window <= \old(q->window);
  // S-CON-5: "if (concurrency > concurrency limit) concurrency = limit";
  // only that clamp may lower the window.
  ensures clamp:    t->dest_conc_limit > 0 && q->window > \old(q->window) ==>
                      q->window <= t->dest_conc_limit;
  ensures never_down: q->window >= \old(q->window) ||
                      q->window == t->dest_conc_limit;
  // "concurrency += 1; failure = 0": a step resets failure.
  ensures step_resets_failure: q->window > \old(q->window) ==>
                      \eq_double(q->failure, 0.0d);
  // The document resets fail_cohorts with the step (S-CON-6).
  ensures reset:    postfix == 0 ==> \eq_double(q->fail_cohorts, 0.0d);
  ensures kept:     postfix == 1 ==>
                      \eq_double(q->fail_cohorts, \old(q->fail_cohorts));
*/
static double queue_positive_step(qs_queue *q, const qs_transport *t,
                                  int postfix);

/*@
  requires q:       \valid(q) && \valid_read(t) && \separated(q, t);
  requires profile: postfix == 0 || postfix == 1;
  requires params:  qs_transport_feedback_ok(t, postfix);
  requires state:   qs_queue_feedback_ok(q, postfix);
  assigns q->fail_cohorts;
  ensures boolean:  \result == 0 || \result == 1;
  ensures counted:  \le_double(\old(q->fail_cohorts), q->fail_cohorts) &&
                    \is_finite(q->fail_cohorts);
  // S-CON-8 / S-PFX-1: dead exactly when the rule holds on the new count.
  ensures dead_iff: \result == 1 <==>
    (postfix == 0 ? \lt_double((double)t->cohort_limit, q->fail_cohorts)
                  : t->cohort_limit > 0 &&
                    \le_double((double)t->cohort_limit, q->fail_cohorts));
  // While alive the count stays in range; in the postfix profile with no
  // cohort limit only the number of failures bounds it.
  ensures cohorts_range: \result == 0 && (postfix == 0 || t->cohort_limit > 0) ==>
    \le_double(q->fail_cohorts, (double)QS_COHORTS_MAX);
*/
static int queue_negative_count(qs_queue *q, const qs_transport *t,
                                int postfix);

/*@
  requires q:       \valid(q) && \valid_read(t) && \separated(q, t);
  requires profile: postfix == 0 || postfix == 1;
  requires params:  qs_transport_feedback_ok(t, postfix);
  requires state:   1 <= q->window <= QS_QWINDOW_MAX &&
                    qs_success_range(q->success, postfix) &&
                    qs_failure_range(q->failure, postfix);
  assigns q->window, q->success, q->failure;
  ensures f:        qs_unit(\result);
  ensures success_range: qs_success_range(q->success, postfix);
  ensures failure_range: qs_failure_range(q->failure, postfix);
  // "if (concurrency < 1) concurrency = 1"; never up; one step (two with
  // Postfix's rounding guard, S-PFX-2).
  ensures window:   1 <= q->window <= \old(q->window) &&
                    q->window >= \old(q->window) - (postfix == 0 ? 1 : 2);
  // "concurrency -= 1; failure += 1; success = 0"
  ensures step_resets_success: q->window < \old(q->window) ==>
                    \eq_double(q->success, 0.0d);
*/
static double queue_negative_step(qs_queue *q, const qs_transport *t,
                                  int postfix);

#endif /* QSCHED_CONCURRENCY_CONTRACTS_H */
