/*
 * src/preempt_scan_contracts.h - the ACSL contracts of preempt_scan.c's
 * proved helpers.
 *
 * Owns: the requires/assigns/ensures of the candidate scan's helpers that
 * WP proves (proofs/run.sh: every function with a contract is proved, as
 * compiled, through proofs/wp/preempt_scan.c), stated on their prototypes;
 * Frama-C joins each one to the definition.  They live here, not above
 * each definition, so that preempt_scan.c stays short (the same layout as
 * preempt_contracts.h, from which they moved when preempt.c was split); the
 * comment above each definition says what the function does and which rule
 * it implements.  Included by preempt_scan.c only (the helpers are
 * static).  Clause names are the names of WP's goals
 * (typed_<function>_ensures_<clause>).
 */
#ifndef QSCHED_PREEMPT_SCAN_CONTRACTS_H
#define QSCHED_PREEMPT_SCAN_CONTRACTS_H

/* The best candidate found so far and its score delay/total (S-PRE-6). */
typedef struct qs_best {
    qs_job *job;
    int64_t delay, total;
} qs_best;

/*@
  requires job:     qs_job_counts_ok(job) && qs_job_queued_ok(job, now);
  requires kind:    job->child_head == \null && !qs_is_blocker(job);
  requires best:    best.job == \null ||
                    (1 <= best.total <= QS_COUNT_MAX &&
                     0 <= best.delay <= QS_DELAY_SAFE);
  assigns \nothing;
  ensures best:     \result.job == \null ||
                    (1 <= \result.total <= QS_COUNT_MAX &&
                     0 <= \result.delay <= QS_DELAY_SAFE);
  behavior better:
    assumes 1 <= qs_needed(job) <= max_slots;
    assumes best.job == \null ||
            qs_delay(job, now) * best.total > best.delay * qs_total(job);
    ensures taken:  \result.job == job &&
                    \result.delay == qs_delay(job, now) &&
                    \result.total == qs_total(job);
  behavior not_better:
    assumes !(1 <= qs_needed(job) <= max_slots) ||
            !(best.job == \null ||
              qs_delay(job, now) * best.total > best.delay * qs_total(job));
    ensures kept:   \result == best;
  complete behaviors;
  disjoint behaviors;
*/
static qs_best candidate_consider(qs_job *job, int64_t now, int64_t max_slots,
                                  qs_best best);

/*@
  requires job:     qs_job_counts_ok(job) && qs_job_queued_ok(job, now);
  requires best:    best.job != \null && 1 <= best.total <= QS_COUNT_MAX &&
                    0 <= best.delay <= QS_DELAY_SAFE;
  assigns \nothing;
  ensures stop_iff: \result == 1 <==>
    (job->stack_level == 0 && qs_delay(job, now) * best.total <= best.delay);
  ensures boolean:  \result == 0 || \result == 1;
*/
static int candidate_scan_stops(const qs_job *job, int64_t now, qs_best best);

/*@
  requires current: qs_job_counts_ok(current);
  requires cost:    1 <= slot_cost <= QS_COST_MAX;
  assigns \nothing;
  ensures value:    \result == (current->read_entries - current->selected_entries +
                                current->slots_available) / slot_cost;
*/
static int64_t job_max_slots(const qs_job *current, int slot_cost);

/*@
  requires s:       \valid_read(s) && 0 <= s->now <= QS_TIME_MAX;
  requires current: qs_job_counts_ok(current) && current->transport == t;
  requires cost:    \valid_read(t) && 1 <= t->slot_cost <= QS_COST_MAX;
  requires list:    qs_joblist_ok(current->lnext, s->now);
  requires bound:   0 <= max_steps <= QS_COUNT_MAX;
  requires out:     \valid(out_delay) && \valid(out_total) && \valid(out_max) &&
                    \valid(out_steps) &&
                    \separated(out_delay, out_total, out_max, out_steps);
  assigns *out_delay, *out_total, *out_max, *out_steps;
  ensures steps:    0 <= *out_steps <= max_steps;
  ensures max:      *out_max == \old((current->read_entries -
                                      current->selected_entries +
                                      current->slots_available) / t->slot_cost);
  ensures score:    \result != \null ==>
                      1 <= *out_total <= QS_COUNT_MAX &&
                      0 <= *out_delay <= QS_DELAY_SAFE;
  ensures fits:     \result != \null ==>
                      \at(qs_job_counts_ok(\result) &&
                          \result->child_head == \null &&
                          !qs_is_blocker(\result), Pre) &&
                      1 <= \at(qs_needed(\result), Pre) <= *out_max &&
                      *out_total == \at(qs_total(\result), Pre) &&
                      *out_delay == \at(qs_delay(\result, s->now), Pre);
*/
static qs_job *job_candidate_scan(const qs_sched *s, const qs_transport *t,
                                  qs_job *current, int early_stop,
                                  int64_t max_steps, int64_t *out_steps,
                                  int64_t *out_delay, int64_t *out_total,
                                  int64_t *out_max);

#endif /* QSCHED_PREEMPT_SCAN_CONTRACTS_H */
