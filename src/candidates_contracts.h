/*
 * src/candidates_contracts.h - the ACSL contract of the candidate index's
 * call into the kernels (issue 15, item 1: every kernel precondition is
 * proved at its call site).
 *
 * Owns: the query state cix_best (moved here from candidates.c so that the
 * contract can name it) and the contract of cix_consider, which calls
 * qs_candidate_fits and qs_score_better for one job.  WP proves it as
 * compiled through proofs/wp/candidates.c (proofs/run.sh), hence the two
 * kernels' preconditions at that call.  Included by candidates.c only.
 * The third call, qs_score_better on a subtree's score bound, sits in
 * cix_bound_may_beat, whose contract is below: its range guard makes the
 * kernel's precondition a fact at the call, without the tree's aggregates
 * as an inductive predicate (which cix_visit would need, proofs/README.md).
 */
#ifndef QSCHED_CANDIDATES_CONTRACTS_H
#define QSCHED_CANDIDATES_CONTRACTS_H

/* The state of one query: the best job so far and its exact score as the
 * pair (delay, total), never a rounded quotient, so comparisons are the
 * kernels' exact ones (a float would make near-ties order-dependent). */
typedef struct cix_best {
    qs_sched *s;
    int64_t max_slots;
    qs_job *job;
    int64_t delay, total;
} cix_best;

/*@
  requires valid:   \valid(b) && \valid_read(b->s) &&
                    \separated(b, b->s, job, job->message, job->transport);
  requires job:     qs_job_counts_ok(job) && qs_job_queued_ok(job, b->s->now);
  // The job's own part of the index's minima (job_index.c cix_own) is
  // its counters as they are: what the function reads instead of them.
  // A job that needs nothing has none (CIX_NONE, INT64_MAX), which no
  // max_slots reaches (at most (QS_COUNT_MAX + QS_SLOTS_MAX) / 2).
  requires own:     (qs_needed(job) >= 1 ==>
                       job->cix_own_needed == qs_needed(job) &&
                       job->cix_own_total == qs_total(job) &&
                       job->cix_own_queued == job->message->queued_time) &&
                    (qs_needed(job) < 1 ==>
                       job->cix_own_needed > b->max_slots);
  requires best:    b->job == \null ||
                    (1 <= b->total <= QS_COUNT_MAX &&
                     0 <= b->delay <= QS_DELAY_SAFE);
  assigns b->job, b->delay, b->total;
  // What the query keeps: the best so far stays in the kernels' ranges.
  ensures best:     b->job == \null ||
                    (1 <= b->total <= QS_COUNT_MAX &&
                     0 <= b->delay <= QS_DELAY_SAFE);
  behavior skipped:
    assumes job->child_head != \null || qs_is_blocker(job);
    ensures kept: b->job == \old(b->job) && b->delay == \old(b->delay) &&
                  b->total == \old(b->total);
  behavior better:
    assumes job->child_head == \null && !qs_is_blocker(job);
    assumes 1 <= qs_needed(job) <= b->max_slots;
    assumes b->job == \null ||
            qs_delay(job, b->s->now) * b->total > b->delay * qs_total(job);
    // (the job's score as it was on entry: cix_consider writes only b)
    ensures taken: b->job == job &&
                   b->delay == \old(qs_delay(job, b->s->now)) &&
                   b->total == \old(qs_total(job));
  behavior not_better:
    assumes job->child_head == \null && !qs_is_blocker(job);
    assumes !(1 <= qs_needed(job) <= b->max_slots) ||
            !(b->job == \null ||
              qs_delay(job, b->s->now) * b->total > b->delay * qs_total(job));
    ensures kept: b->job == \old(b->job) && b->delay == \old(b->delay) &&
                  b->total == \old(b->total);
  complete behaviors;
  disjoint behaviors;
*/
static void cix_consider(cix_best *b, qs_job *job);

/* Why the guard (issue 15, every kernel precondition proved at every call
 * site).  qs_score_better requires 0 <= delays <= QS_DELAY_SAFE and
 * 1 <= totals <= QS_COUNT_MAX.  On the index's aggregates that holds by
 * the tree's invariant (every job's total in range, its enqueue time <=
 * now), but that invariant is inductive over the whole tree, which the SMT
 * provers cannot carry through cix_visit.  So the precondition is tested
 * here on the two values, and WP proves this function (contract in
 * candidates_contracts.h) with the kernel's precondition discharged at the
 * call.  Why the fallback is safe: an aggregate outside the range answers
 * "may beat", so the subtree is visited and every job in it meets the exact
 * per-job test of cix_consider (proved): that is the document's plain walk
 * over those jobs, never a wrong prune, at worst a slower query.  Builds
 * with run-time checks (QS_CONTRACT_CHECKS: sanitizer, fuzz and model
 * checker builds) or QSCHED_CROSSCHECK abort instead: an aggregate out of
 * range means the index is corrupt. */
/* The subtree bound of S-PRE-6 (cix_visit): 0, "skip", exactly when there
 * is a best, the aggregates are in the kernels' ranges (delay = now -
 * min_queued + 1 in [1, QS_DELAY_SAFE], total in [1, QS_COUNT_MAX]) and the
 * bound's score does not strictly beat the best's; otherwise 1, "visit". */
/*@
  requires valid:   \valid_read(b) && \valid_read(b->s);
  requires best:    b->job == \null ||
                    (1 <= b->total <= QS_COUNT_MAX &&
                     0 <= b->delay <= QS_DELAY_SAFE);
  assigns \nothing;
  ensures boolean:  \result == 0 || \result == 1;
  ensures prune:    \result == 0 <==>
                    (b->job != \null &&
                     1 <= min_total <= QS_COUNT_MAX &&
                     1 <= b->s->now - min_queued + 1 <= QS_DELAY_SAFE &&
                     !((b->s->now - min_queued + 1) * b->total >
                       b->delay * min_total));
*/
static int cix_bound_may_beat(const cix_best *b, int64_t min_queued,
                              int64_t min_total);

#endif
