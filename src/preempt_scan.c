/*
 * preempt_scan.c - which job may preempt the current one: the candidate
 * scan of the preemption.
 *
 * Implements SCHEDULER_README, "How the preemption works", the part that
 * chooses the candidate: how many slots the current job can still pay for
 * (S-PRE-5), which jobs fit them, and the score that picks the best of them
 * (S-PRE-6: the highest enqueue-age per entry, ties to the earlier job),
 * with the postfix profile's candidate cache (S-PFX-20) and the readings of
 * the candidate rule (R-3, R-8, R-11, R-19: preempt_readings.c).
 *
 * Owns: the walk along the job list after the current job (the document's
 * description, used on short lists) and the choice between the walk, the
 * candidate index (candidates.c, the same answer on long lists) and the
 * readings walk; the candidate cache fields of the transport.  Every test
 * it makes (max slots, fit, score, early stop) is a proved kernel of
 * kernels.c; its helpers carry proved contracts (preempt_scan_contracts.h).
 * May not: change any job (the scan only reads; preempt.c preempts).
 *
 * Why a file of its own: preempt.c, which holds the preemption itself and
 * the preemption stack, had grown past the core's 600-line limit (issue
 * 15); the scan is the one part preempt.c calls through a single entry
 * point, qsi_job_candidate, and reads nothing of the stack.
 *
 * Tested by: tests/golden/pre-*, tests/unit/test_preempt.c, the crosscheck
 * builds (the walk with and without its early stop, the index and the
 * readings walk compared at every query), WP (proofs/wp/preempt_scan.c).
 */
#include <stdlib.h>
#include "sched_int.h"
#include "kernels.h"
#include "preempt_scan_contracts.h"   /* the helpers' ACSL contracts */
/* With QS_CONTRACT_CHECKS (the test, fuzz and model-checker builds)
 * every call of a contracted helper checks its contract: preempt_scan_rtc.h,
 * generated from the ACSL by proofs/rtc/gen.py, defines NAME(...) as
 * "check the requires, call, check the ensures".  The helpers are
 * defined as `static T (NAME)(...)`: a name in parentheses is not a
 * macro call, so the definition stays the function itself.  Other
 * builds see no difference. */
#ifdef QS_CONTRACT_CHECKS
#include "preempt_scan_rtc.h"
#endif

/* S-PRE-5, S-PRE-6: one job of the candidate scan (neither preempted nor
 * a blocker: the scan skips those), as the scan calls the kernels.  A job
 * is a candidate when it needs 1 .. max_slots slots; it replaces the best
 * so far when its score delay/total is strictly better, so ties go to the
 * earlier job. */
static qs_best (candidate_consider)(qs_job *job, int64_t now, int64_t max_slots,
                                    qs_best best)
{
    int64_t total, needed, delay;
    total = QS_MAX_ENTRIES(job);
    needed = total - job->selected_entries;
    delay = now - job->message->queued_time + 1;
    if (qs_candidate_fits(needed, max_slots) &&
        (!best.job || qs_score_better(delay, total, best.delay, best.total))) {
        best.job = job;
        best.delay = delay;
        best.total = total;
    }
    return best;
}

/* S-PRE-6, early stop: level-0 jobs follow in enqueue-time order, so once
 * a level-0 job's delay cannot beat the best score no later job can. */
static int (candidate_scan_stops)(const qs_job *job, int64_t now, qs_best best)
{
    return job->stack_level == 0 &&
           qs_score_cannot_improve(now - job->message->queued_time + 1,
                                   best.delay, best.total);
}

/* S-PRE-5: "we know how many [slots] are accumulated and how many are left
 * to deliver, so we know how many it may yet accumulate at maximum": what
 * the current job can still pay for, (MIN - selected + counter) / k. */
static int64_t (job_max_slots)(const qs_job *current, int slot_cost)
{
    return qs_candidate_max_slots(QS_MIN_ENTRIES(current),
                                  current->selected_entries,
                                  current->slots_available, slot_cost);
}

/*
 * S-PRE-5, S-PRE-6: the best candidate to preempt `current`.
 *
 *     max_slots = (MIN(current) - selected(current) + counter(current)) / k
 *     if max_slots <= 0: no candidate
 *     for each job J after current on the scheduler's list:
 *         skip blockers and jobs that have children
 *         needed = MAX(J) - selected(J)
 *         if 1 <= needed <= max_slots and score(J) > score(best):
 *             best = J
 *     score(J) = (now - enqueue time of J + 1) / MAX(J)
 *
 * Which jobs may preempt: those that could be delivered within the slots
 * the current job has accumulated *plus those it may still accumulate*
 * from its remaining entries.  The document poses this as a riddle: if
 * only the slots already accumulated counted, the job with the fewest
 * entries would always fit first, and a steady stream of one-recipient
 * mail would starve every two-recipient message forever.  Counting the
 * whole budget lets the best-scored candidate be chosen even when it
 * cannot be afforded yet (the test in qsi_job_preempt then waits).  The
 * current job's budget uses its minimum estimate and the candidate's need
 * its maximum: both err on the side of not preempting (S-MEM-8).
 *
 * A reading (R-3 candidate_fit): the document first says a job that
 * "requires no more than" the slots can preempt, later one "which may be
 * delivered by less than that number of slots".  qsched takes "no more
 * than" (<=), as Postfix does; the document's own sequence 11112211113311
 * needs it, since with k = 2 each two-entry job preempts with exactly two
 * slots accumulated.
 *
 * Which candidate: the one with the highest enqueue-age per entry.  The
 * document writes "maximum enqueue_time/recipient_entry_count" and means
 * the time since enqueue (older first: that maximises message delivery
 * rates), divided by the size, since a message of n entries takes n times
 * as long.  The +1 keeps a job enqueued this very second from scoring 0
 * (Postfix's; the document has none: R-8 score_wait_plus_one).
 * Scores are compared exactly, by cross-multiplication (qs_score_better);
 * only a strictly better score wins, so ties go to the earlier job.
 *
 * Only jobs after the current one: jobs before it are blockers, its own
 * stack children, or jobs released in front of it since it was selected
 * (which selection serves before it anyway), and "it is always only the
 * current job which may get preempted".  A job with children is a
 * preempted parent itself; letting it preempt would undo its own
 * preemption (R-11 preempted_candidates).  A job at the top of another
 * stack may be chosen: it leaves that stack first (qsi_job_preempt).
 *
 * Example: at time 100 the current job C may still earn 4 slots.  After
 * it on the list: A, enqueued at 10 with 3 entries (score 91/3 = 30.3),
 * B, enqueued at 40 with 1 entry (score 61), D, enqueued at 50 with 6
 * entries (too big: 6 > 4).  B is chosen: younger than A, but it is done
 * three times as fast.  At time 50 A would have won (41/3 against 11):
 * a small message does not overtake an older one at once, its score
 * grows faster, ties with A's at time 54 (the tie goes to A, the earlier
 * job) and passes it from time 55 on.
 *
 * early_stop: the scan may stop at a level-0 job whose age alone cannot
 * beat the best score; see the comment in the loop.
 *
 * This walk is the document's description, and what the scheduler runs on
 * short job lists.  On a long list it asks the candidate index instead
 * (candidates.c: the same answer in O(log n) where the walk costs O(n));
 * crosscheck builds (the fuzz harnesses, tests/identity.sh) run both walks
 * beside every query and abort on any difference.
 */
/* S-PRE-5, S-PRE-6: the best candidate to preempt `current`: its delay,
 * total and the current job's max_slots go to the out parameters, and
 * the number of jobs the walk looked at to *out_steps.  The contract: the
 * candidate needs 1 .. max_slots slots, is neither preempted nor a
 * blocker, and every kernel is called within its preconditions.  The walk
 * looks at max_steps jobs at most: QS_COUNT_MAX for the answer (a list is
 * never that long); fewer only for qsi_job_candidate's sample of what a
 * walk would cost, whose answer is not used (it is the best of the jobs
 * looked at, not of the list). */
static qs_job *(job_candidate_scan)(const qs_sched *s, const qs_transport *t,
                                    qs_job *current, int early_stop,
                                    int64_t max_steps, int64_t *out_steps,
                                    int64_t *out_delay, int64_t *out_total,
                                    int64_t *out_max)
{
    qs_job *job;
    qs_best best = {NULL, 0, 1};
    int64_t max_slots, steps = 0;

    max_slots = job_max_slots(current, t->slot_cost);
    /* Only jobs after the current one: jobs before it are blockers or its
     * own stack children.  Jobs that are themselves preempted (have
     * children) and blockers are not candidates. */
    /*@
      loop invariant list: qs_joblist_ok(job, s->now);
      loop invariant steps: 0 <= steps <= max_steps;
      loop invariant best: best.job == \null ||
        (qs_job_counts_ok(best.job) && 1 <= qs_needed(best.job) <= max_slots &&
         best.job->child_head == \null && !qs_is_blocker(best.job) &&
         best.total == qs_total(best.job) &&
         best.delay == qs_delay(best.job, s->now) &&
         1 <= best.total <= QS_COUNT_MAX && 0 <= best.delay <= QS_DELAY_SAFE);
      loop assigns job, best, steps;
    */
    for (job = max_slots > 0 ? current->lnext : NULL; job && steps < max_steps;
         job = job->lnext) {
        steps++;
        if (job->child_head || QS_IS_BLOCKER(job))
            continue;
        best = candidate_consider(job, s->now, max_slots, best);
        /* Level-0 jobs follow in enqueue-time order, so once a level-0
         * job's delay cannot beat the best score no later job can.
         * Every job after a level-0 job J was enqueued no earlier than J
         * (jobs are linked by enqueue time, S-PRE-13, and preemption only
         * moves a job forward), so its delay is at most J's, and with a
         * total of at least 1 its score is at most delay(J) <= score(best).
         * Stack children are out of time order, hence level 0 only. */
        if (early_stop && best.job && candidate_scan_stops(job, s->now, best))
            break;
    }
    *out_max = max_slots;
    *out_delay = best.delay;
    *out_total = best.total;
    *out_steps = steps;
    return best.job;
}

/* S-PRE-5, S-PRE-6: the candidate: from the walk with its early stop on a
 * short list, from the candidate index (candidates.c) on a long one.  The
 * early stop is an optimisation resting on an ordering property of the
 * job list that no kernel contract can state, and the index is another
 * structure; fuzz builds (QSCHED_CROSSCHECK) therefore repeat the full
 * scan and abort if any two ever disagree. */
qs_job *qsi_job_candidate(qs_sched *s, qs_job *current, int64_t *delay,
                          int64_t *total, int64_t *max_slots)
{
    qs_transport *t = current->transport;
    qs_job *best = NULL;
    /* S-PFX-20 (postfix profile): Postfix answers from its candidate
     * cache when the cached answer was found for this same current job,
     * and either in this same second or the answer was "no candidate"
     * (which no passing of time can change).  The answer is used as it
     * is, even if the job has since become a blocker or no longer fits:
     * Postfix clears the cache only at the changes listed in
     * spec/profiles.md (S-PFX-20), not at every change. */
    if ((qsi_postfix)(s) && t->cand_current == current &&
        (t->cand_time == s->now || !t->cand_cache)) {
        best = t->cand_cache;
        *max_slots = job_max_slots(current, t->slot_cost);
        if (best) {
            /* the score as the walk computes it */
            qsi_candidate_score_read(s, best, delay, total);
        }
        return best;
    }
    /* A fresh answer: the walk on a short list, the index on a long one
     * (the same job, candidates.c); both hold qsched's readings of the
     * candidate rule; under another the
     * readings walk answers (preempt_readings.c). */
    *delay = 0;
    *total = 1;
    if (!qsi_readings_candidate_default(s)) {
        best = qsi_candidate_scan_read(s, current, 1, delay, total,
                                       max_slots);
    } else if (!t->cix_on) {
        int64_t steps;
        best = job_candidate_scan(s, t, current, 1, QS_COUNT_MAX, &steps,
                                  delay, total, max_slots);
        /* on a long list the walk pays its steps as rent towards the
         * index (job_index.c qsi_cix_resize) */
        QSI_CIX_RENT(t, steps);
    } else {
        /* The index answers.  What it saves is the walk, which stops
         * early where the candidate is near and the jobs after it are
         * younger: at the first question after a build and at every
         * CIX_SAMPLE-th after it, the walk is tried for CIX_SAMPLE_STEPS
         * jobs at most (its answer unused).  A try that does not end by
         * then makes the index worth keeping for the next CIX_WORTH
         * tries, and while it is, every question counts as a use
         * (QSI_CIX_USED); once CIX_WORTH tries in a row ended early, the
         * questions stop counting, and an index that only keeps up with
         * changes is dropped (qsi_cix_resize).  Issue 16: the transports
         * shape's lmtp list, thousands of jobs, kept its index through
         * 121,924 changes for 1,377 questions that walks answer in 8
         * steps each. */
        if (t->cix_asked++ % CIX_SAMPLE == 0) {
            int64_t steps, d2, t2, m2;
            (void)job_candidate_scan(s, t, current, 1, CIX_SAMPLE_STEPS,
                                     &steps, &d2, &t2, &m2);
            if (steps >= CIX_SAMPLE_STEPS)
                t->cix_worth = CIX_WORTH;
            else if (t->cix_worth > 0)
                t->cix_worth--;
        }
        if (t->cix_worth > 0)
            QSI_CIX_USED(t);
        *max_slots = job_max_slots(current, t->slot_cost);
        if (*max_slots > 0)
            best = qsi_cix_candidate(s, current, *max_slots, delay, total);
    }
    t->cand_cache = best;
    t->cand_current = current;
    t->cand_time = s->now;
#ifdef QSCHED_CROSSCHECK
    {
        /* Fuzz builds: the index, the walk with its early stop, and the
         * whole walk must agree. */
        int64_t d2, t2, m2, n2;
        if (!qsi_readings_candidate_default(s)) {
            /* the readings walk without its early stop */
            if (qsi_candidate_scan_read(s, current, 0, &d2, &t2, &m2) != best)
                abort();
        } else {
            if (job_candidate_scan(s, t, current, 1, QS_COUNT_MAX, &n2, &d2,
                                   &t2, &m2) != best ||
                (best && (d2 != *delay || t2 != *total)) || m2 != *max_slots)
                abort();
            if (job_candidate_scan(s, t, current, 0, QS_COUNT_MAX, &n2, &d2,
                                   &t2, &m2) != best)
                abort();
            /* the readings walk at qsched's readings is the proved walk */
            if (qsi_candidate_scan_read(s, current, 1, &d2, &t2, &m2) != best ||
                (best && (d2 != *delay || t2 != *total)) || m2 != *max_slots)
                abort();
        }
    }
#endif
    return best;
}
