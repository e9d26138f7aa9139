/*
 * candidates.c - the candidate index: the preemption candidate of
 * SCHEDULER_README "How the preemption works" found without walking the
 * job list.
 *
 * Owns: one search tree per transport (that preempts at all: slot cost >=
 * 2, S-PRE-3) over the jobs of its scheduler's job list, and the query
 * qsi_cix_candidate (the trees' upkeep as the lists change, and the
 * list-order questions of jobs.c: job_index.c).  Exists for speed only
 * (issue 16): the document's
 * candidate (S-PRE-5, S-PRE-6) is "the job after the current one, not
 * preempted, not a blocker, whose remaining entries fit in max_slots, with
 * the best score delay/total" - a walk of the job list, which costs O(jobs)
 * per selection whenever the walk cannot stop early (equal enqueue times,
 * totals > 1, nothing that fits).  The index gives exactly the same job:
 * the same candidates, the same strict comparison of exact scores
 * (kernels.c), the same tie rule (the first in list order wins).
 * QSCHED_CROSSCHECK builds (fuzzing, tests/identity.sh) compare every answer
 * with the walk (preempt_scan.c).  May not: decide anything itself;
 * every test is the kernels' or the walk's.
 *
 * The structure.  A treap (a binary search tree balanced by random
 * priorities; here the priority is a hash of the job's serial number, so it
 * is deterministic) whose in-order sequence IS the scheduler's job list:
 * jobs.c and preempt.c insert, remove and move jobs in the tree wherever
 * they do it in the list.  Every node carries, for the jobs of its subtree
 * that could ever fit (needed = total - selected >= 1):
 *   cix_min_needed  the fewest remaining entries      (the fit test)
 *   cix_min_queued  the earliest enqueue time         (the largest delay)
 *   cix_min_total   the fewest entries in total       (the denominator)
 * so that for a whole subtree the query knows (a) whether any job in it can
 * fit (min_needed <= max_slots) and (b) an upper bound of every score in
 * it: delay <= now - min_queued + 1 and total >= min_total.  The query
 * walks the tree in list order from the current job (its suffix: "Only
 * jobs after the current one") and skips every subtree in which nothing
 * fits or nothing can beat the best score found so far (a later job must
 * be strictly better, S-PRE-6, so "bound <= best" skips).  Blockers and
 * preempted jobs are left out at the node (they are few after the current
 * job, and keeping them out of the aggregates would need a hook at every
 * blocker release).
 *
 * Cost.  Insert, remove, move: O(log n) expected (height of a treap).
 * Changing a job's counters (an entry selected or deferred, a batch read)
 * re-aggregates its path upward and stops as soon as a node is unchanged.
 * A query visits O(log n) nodes when the bounds prune (no fit: one node;
 * equal enqueue times: the nodes on the way to each new best total), in
 * the worst case (bounds that never prune) every node, like the walk.
 * The measured costs are in docs/performance.md.
 */
#include <stdint.h>
#if defined(QS_CONTRACT_CHECKS) || defined(QSCHED_CROSSCHECK)
#include <stdio.h> /* checking builds only: cix_bound_may_beat's abort */
#include <stdlib.h>
#endif
#include "sched_int.h"
#include "kernels.h"

/* ---- the query ---- */

/* The state of one query (cix_best: the best job so far and its exact
 * score) and the contract of cix_consider: candidates_contracts.h. */
#include "candidates_contracts.h"
/* With QS_CONTRACT_CHECKS (the test, fuzz and model-checker builds)
 * every call of a contracted helper checks its contract: candidates_rtc.h,
 * generated from the ACSL by proofs/rtc/gen.py, defines NAME(...) as
 * "check the requires, call, check the ensures".  The helpers are
 * defined as `static T (NAME)(...)`: a name in parentheses is not a
 * macro call, so the definition stays the function itself.  Other
 * builds see no difference. */
#ifdef QS_CONTRACT_CHECKS
#include "candidates_rtc.h"
#endif

/* S-PRE-5, S-PRE-6 at one job: the walk's test, verbatim (preempt.c),
 * on the job's own part of the index's minima (cix_own_needed, _total,
 * _queued: job_index.c cix_own), which are its counters as they are -
 * the contract's `own` - and sit beside what the visit read already,
 * where the counters are on two other lines of the job and one of its
 * message (issue 16: 3% of the blockers shape's time waited for them
 * under perf).  A job that needs nothing has no own part
 * (CIX_NONE), which fits no max_slots. */
static void (cix_consider)(cix_best *b, qs_job *job)
{
    int64_t total, needed, delay;
    /* S-PRE-5: a preempted job (it has a child) and a blocker (S-PRE-11)
     * are not candidates.  They are filtered here, not in the aggregates:
     * a job becomes or stops being a blocker without its counters
     * changing, and an aggregate kept exact for that would need a hook at
     * every blocker release (S-PRE-12) */
    if (job->child_head || QS_IS_BLOCKER(job))
        return;
    needed = job->cix_own_needed; /* = total - selected */
    if (!qs_candidate_fits(needed, b->max_slots))
        return;
    total = job->cix_own_total;   /* = QS_MAX_ENTRIES(job) */
    delay = b->s->now - job->cix_own_queued + 1; /* its message's time */
    /* (for WP: a job that fits has an own part, its counters) */
    /*@ assert own: qs_needed(job) >= 1 && total == qs_total(job) &&
                    delay == qs_delay(job, b->s->now); */
    /* S-PRE-6: replace only on a strictly better score; since jobs are
     * considered in list order, a tie keeps the earlier job */
    if (!b->job || qs_score_better(delay, total, b->delay, b->total)) {
        b->job = job;
        b->delay = delay;
        b->total = total;
    }
}

/* QS_DELAY_SAFE of kernels.h's ACSL (the largest delay whose exact score
 * products fit in 64 bits), as a C constant for the guard below; WP checks
 * the two agree where it matters: the guard must imply the kernel's
 * precondition at the call (proofs/mutants/cix-bound-delay-off-by-one). */
#define CIX_DELAY_SAFE 9223372036LL

/* S-PRE-6 on a whole subtree: may a job in it beat the best so far?
 * min_queued, min_total: the subtree's aggregates (cix_min_queued,
 * cix_min_total), so its scores are all <= (now - min_queued + 1) /
 * min_total.  Returns 0 only when that bound does not beat the best (the
 * subtree can be skipped), 1 otherwise (it must be visited). */
/* Why a guard, why its fallback (visit) is safe, why checking builds
 * abort: candidates_contracts.h, at the contract. */
static int (cix_bound_may_beat)(const cix_best *b, int64_t min_queued,
                                int64_t min_total)
{
    int64_t now = b->s->now;
    if (!b->job)
        return 1; /* no best yet: anything that fits beats it */
    /* the ranges, computed without overflow: delay = now - min_queued + 1
     * must be in [1, CIX_DELAY_SAFE], i.e. min_queued <= now and
     * now - min_queued <= CIX_DELAY_SAFE - 1 (for now >= 0 written as a
     * lower bound on min_queued; for now < 0 the difference is at most
     * -1 - INT64_MIN = INT64_MAX) */
    if (min_total < 1 || min_total > QS_COUNT_MAX || min_queued > now ||
        (now >= 0 ? min_queued < now - (CIX_DELAY_SAFE - 1)
                 : now - min_queued > CIX_DELAY_SAFE - 1)) {
#if defined(QS_CONTRACT_CHECKS) || defined(QSCHED_CROSSCHECK)
        /* checking builds: a corrupt index is a defect, stop at once */
        fprintf(stderr, "qsched: candidate index corrupt: subtree aggregate "
                "min_queued=%lld min_total=%lld at now=%lld\n",
                (long long)min_queued, (long long)min_total, (long long)now);
        abort();
#endif
        return 1; /* S-PRE-6 by the walk: visit, the per-job test decides */
    }
    /* S-PRE-6: the bound's score beats the best only if strictly better */
    return qs_score_better(now - min_queued + 1, min_total, b->delay,
                           b->total);
}

/* A subtree in list order, skipping what cannot fit or cannot be better. */
/* The visit order is left subtree, node, right subtree: list order, which
 * is what makes the strict comparison in cix_consider reproduce the
 * document's tie rule.  Why pruning cannot lose the document's answer:
 * a subtree is skipped only when no job in it fits, or when its score
 * bound is <= the best so far.  In the second case each skipped job is at
 * most as good as that best; the best only improves later, and on a tie
 * the holder was found earlier in list order, so the walk would not have
 * taken the skipped job either.  The walk's own early stop (S-PRE-6, at a
 * level-0 job) is not needed: the bounds do the same work and more. */
static void cix_visit(cix_best *b, qs_job *x)
{
    while (x) {
        if (x->cix_min_needed > b->max_slots)
            return; /* nothing here fits (also: no job could ever fit) */
        if (!cix_bound_may_beat(b, x->cix_min_queued, x->cix_min_total))
            return; /* no score here beats the best: later ones must */
        /* recursion on the left, a loop on the right: the stack depth is
         * bounded by the tree height, not by the list length */
        cix_visit(b, x->cix_left);
        cix_consider(b, x);
        x = x->cix_right;
    }
}

/* S-PRE-5, S-PRE-6: the best candidate after `current` in the job list,
 * or NULL; max_slots > 0. */
/* The entry point preempt.c calls instead of its walk when the index is
 * on.  max_slots is S-PRE-5's limit ((unselected in-core + counter)/k),
 * computed by the caller; the result, delay and total feed S-PRE-7. */
qs_job *qsi_cix_candidate(qs_sched *s, qs_job *current, int64_t max_slots,
                          int64_t *delay, int64_t *total)
{
    cix_best b;
    qs_job *x;
    b.s = s;
    b.max_slots = max_slots;
    b.job = NULL;
    b.delay = 0;
    /* the initial pair is never compared: b.job == NULL means "no best" */
    b.total = 1;
    /* the jobs after current: its right subtree, then each ancestor that
     * has it on the left, followed by that ancestor's right subtree */
    /* This is S-PRE-5's "only jobs after the current one" without a walk:
     * the in-order successors of current are exactly its right subtree
     * followed, for every ancestor reached from its left side, by that
     * ancestor and its right subtree, nearest ancestor first - the same
     * jobs in the same order as the walk from current->lnext.  Ancestors
     * reached from the right side come before current and are skipped. */
    cix_visit(&b, current->cix_right);
    for (x = current; x->cix_up; x = x->cix_up) {
        qs_job *p = x->cix_up;
            /* p follows everything below x: consider it, then its right
             * subtree, keeping list order for the tie rule */
        if (p->cix_left == x) {
            cix_consider(&b, p);
            cix_visit(&b, p->cix_right);
        }
    }
    /* with no candidate the caller sees NULL and does not preempt */
    *delay = b.delay;
    *total = b.total;
    return b.job;
}
