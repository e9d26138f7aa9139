/*
 * preempt_readings.c - the preemption rules under the alternative readings
 * of the document (spec/readings.md; issue 20).
 *
 * Implements S-PRE-3 (the gate), S-PRE-5/S-PRE-6 (candidates and their
 * score) and S-PRE-7 (the test) of spec/preemption.md as they read under
 * every value of the readings that touch them: R-3 candidate_fit, R-4
 * min_slots_gate, R-5 preempt_credit, R-8 score_wait_plus_one, R-9
 * slot_division, R-11 preempted_candidates, R-19 score_entries.
 *
 * Owns nothing: pure functions of the scheduler's state, called by
 * preempt.c.  Why a file of its own: preempt.c's helpers carry ACSL
 * contracts proved with Frama-C WP (proofs/, issue 15), and each contract
 * states qsched's reading (Postfix's "no more than", the "+ 1", preempted
 * jobs left out ...).  A reading switched inside a proved helper would
 * change its contract.  So preempt.c calls its proved helpers under
 * qsched's readings and these functions under any other: the branch is at
 * the caller, and each reading is still one small conditional at the line
 * of its rule, here.  These functions hold every reading, qsched's too;
 * the fuzz builds check that under qsched's readings they agree with the
 * proved ones.
 */
#include <stdint.h>

#include "sched_int.h"
#include "kernels.h"

/* 1 if the candidate rule reads as qsched reads it (R-3 no_more_than, R-8
 * yes, R-11 excluded, R-19 total, in both profiles; R-9 matters only with
 * R-3 = less_than): then preempt.c's proved walk and the candidate index
 * (candidates.c), which know that reading only, answer. */
int qsi_readings_candidate_default(const qs_sched *s)
{
    return QS_READING(s, QR_CANDIDATE_FIT) == QRV_FIT_NO_MORE_THAN &&
           QS_READING(s, QR_SCORE_WAIT_PLUS_ONE) == QRV_PLUS_ONE_YES &&
           QS_READING(s, QR_PREEMPTED_CANDIDATES) == QRV_PREEMPTED_EXCLUDED &&
           QS_READING(s, QR_SCORE_ENTRIES) == QRV_SCORE_TOTAL;
}

/* 1 if the gate reads as qsched reads it (R-4 at_least, R-5 required):
 * then preempt.c's proved preempt_gate_open decides. */
int qsi_readings_gate_default(const qs_sched *s)
{
    return QS_READING(s, QR_PREEMPT_CREDIT) == QRV_CREDIT_REQUIRED &&
           QS_READING(s, QR_MIN_SLOTS_GATE) == QRV_GATE_AT_LEAST;
}

/* 1 if the test reads as qsched reads it (R-9 integer) and the counter is
 * positive (as behind the gate unless R-5 = ignored let a counter <= 0
 * through): then preempt.c's proved preempt_test_fires decides. */
int qsi_readings_fires_default(const qs_sched *s, const qs_job *current)
{
    return QS_READING(s, QR_SLOT_DIVISION) == QRV_DIV_INTEGER &&
           current->slots_available > 0;
}

/* S-PRE-6: the score of a job as the walk computes it, for an answer of
 * the postfix profile's candidate cache (S-PFX-20): R-8 the "+ 1" in the
 * waiting time, R-19 the total or the remaining entries. */
void qsi_candidate_score_read(const qs_sched *s, const qs_job *job,
                              int64_t *delay, int64_t *total)
{
    *delay = s->now - job->message->queued_time +
             (QS_READING(s, QR_SCORE_WAIT_PLUS_ONE) == QRV_PLUS_ONE_YES ? 1
                                                                        : 0);
    *total = QS_READING(s, QR_SCORE_ENTRIES) == QRV_SCORE_REMAINING
                 ? QS_MAX_ENTRIES(job) - job->selected_entries
                 : QS_MAX_ENTRIES(job);
}

/* S-PRE-3, "the preemption is not attempted if the current job could never
 * accumulate more than transport_minimum_delivery_slots" and not while its
 * counter is not positive: the kernel qs_preempt_gate with its inputs
 * adjusted to the readings. */
int qsi_preempt_gate_read(const qs_sched *s, const qs_job *current)
{
    const qs_transport *t = current->transport;
    int64_t counter = current->slots_available;
    int64_t max_entries = QS_MAX_ENTRIES(current);
    /* R-5 preempt_credit: no attempt while the counter is <= 0 (required,
     * Postfix), or the document's silence: attempt anyway (ignored). */
    if (QS_READING(s, QR_PREEMPT_CREDIT) == QRV_CREDIT_IGNORED)
        counter = 1;
    /* R-4 min_slots_gate: "could never accumulate more than
     * transport_minimum_delivery_slots" read as "at least" (the parameter
     * reference, Postfix), or literally: attempt only if MAX/k > minimum,
     * i.e. MAX - 1 >= minimum x k. */
    if (QS_READING(s, QR_MIN_SLOTS_GATE) == QRV_GATE_MORE_THAN) {
        if (max_entries < 1)
            return 0;
        max_entries--;
    }
    return qs_preempt_gate(counter, max_entries, t->min_slots, t->slot_cost);
}

/* S-PRE-7, "counter / k + loan >= needed x (100 - discount) / 100".  R-9
 * slot_division: counter / k in whole slots (integer, Postfix: the kernel
 * qs_preempt_fires, which takes any counter, also the one <= 0 that R-5 =
 * ignored lets through the gate), or the exact quotient: the inequality
 * multiplied out by 100 k. */
int qsi_preempt_fires_read(const qs_sched *s, const qs_job *current,
                           int64_t needed)
{
    const qs_transport *t = current->transport;
    if (QS_READING(s, QR_SLOT_DIVISION) == QRV_DIV_EXACT)
        return 100 * (current->slots_available +
                      (int64_t)t->slot_loan * t->slot_cost) >=
               needed * t->slot_cost * (100 - t->slot_discount);
    return qs_preempt_fires(current->slots_available, t->slot_cost,
                            t->slot_loan, t->slot_discount, needed);
}

/* S-PRE-5, S-PRE-6 under the readings of the candidate rule: R-3
 * candidate_fit, R-8 score_wait_plus_one, R-9 slot_division, R-11
 * preempted_candidates, R-19 score_entries (spec/readings.md).  The same
 * walk as job_candidate_scan of preempt.c, with each reading a conditional
 * at its line; under qsched's readings both give the same answer (fuzz
 * builds check it beside every query, job_candidate).  early_stop and the
 * out parameters as there. */
qs_job *qsi_candidate_scan_read(const qs_sched *s, qs_job *current,
                                int early_stop, int64_t *out_delay,
                                int64_t *out_total, int64_t *out_max)
{
    qs_transport *t = current->transport;
    qs_job *job, *best = NULL;
    int64_t best_delay = 0, best_total = 1, max_slots, fit_max;
    int plus_one =
        QS_READING(s, QR_SCORE_WAIT_PLUS_ONE) == QRV_PLUS_ONE_YES ? 1 : 0;

    max_slots = qs_candidate_max_slots(QS_MIN_ENTRIES(current),
                                       current->selected_entries,
                                       current->slots_available,
                                       t->slot_cost);
    *out_max = max_slots;
    /* R-3 candidate_fit: "no more than" that number of slots (needed <=
     * max_slots), or the document's other sentence, "less than" it.  With
     * R-9 slot_division = exact, max_slots is the exact quotient X/k, X =
     * MIN - selected + counter; for a whole number of slots needed,
     * needed < X/k <=> needed <= (X - 1)/k in integers. */
    fit_max = max_slots;
    if (QS_READING(s, QR_CANDIDATE_FIT) == QRV_FIT_LESS_THAN)
        fit_max = QS_READING(s, QR_SLOT_DIVISION) == QRV_DIV_EXACT
                      ? qs_candidate_max_slots(QS_MIN_ENTRIES(current),
                                               current->selected_entries + 1,
                                               current->slots_available,
                                               t->slot_cost)
                      : max_slots - 1;
    if (fit_max <= 0)
        return NULL;
    /* Only jobs after the current one (above).  Jobs that are themselves
     * preempted (have children) and blockers are not candidates. */
    for (job = current->lnext; job; job = job->lnext) {
        int64_t total, needed, delay;
        /* R-11 preempted_candidates: excluded (Postfix) or included. */
        if ((job->child_head && QS_READING(s, QR_PREEMPTED_CANDIDATES) ==
                                    QRV_PREEMPTED_EXCLUDED) ||
            QS_IS_BLOCKER(job))
            continue;
        total = QS_MAX_ENTRIES(job);
        needed = total - job->selected_entries;
        /* R-19 score_entries: "recipient_entry_count" is the job's total
         * (its maximum estimate; qsched, Postfix), or the entries it still
         * needs (remaining).  Either way it is >= 1 for a candidate, so
         * the early stop below stays sound. */
        if (QS_READING(s, QR_SCORE_ENTRIES) == QRV_SCORE_REMAINING)
            total = needed;
        /* R-8 score_wait_plus_one: Postfix's + 1 (yes), or the document's
         * time since enqueue alone (no). */
        delay = s->now - job->message->queued_time + plus_one;
        if (qs_candidate_fits(needed, fit_max) &&
            (!best || qs_score_better(delay, total, best_delay, best_total))) {
            best = job;
            best_delay = delay;
            best_total = total;
        }
        /* Level-0 jobs follow in enqueue-time order, so once a level-0
         * job's delay cannot beat the best score no later job can.
         * Every job after a level-0 job J was enqueued no earlier than J
         * (jobs are linked by enqueue time, S-PRE-13, and preemption only
         * moves a job forward), so its delay is at most J's, and with a
         * total of at least 1 its score is at most delay(J) <= score(best).
         * Stack children are out of time order, hence level 0 only. */
        if (early_stop && best && job->stack_level == 0 &&
            qs_score_cannot_improve(delay, best_delay, best_total))
            break;
    }
    *out_delay = best_delay;
    *out_total = best_total;
    return best;
}
