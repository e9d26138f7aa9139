/*
 * preempt.c - job preemption: delivery slots, the choice of a candidate,
 * the preemption test with its slot loan and discount, the preemption
 * "stack" with its parents, children and adoption, and the pop that
 * refunds a parent.
 *
 * Owns: slots_available and slots_used of every job, the parent/child
 * relations, and the moves of the scheduler's job list that preemption
 * makes.  Implements SCHEDULER_README "How the preemption works" and the
 * part of "How destination concurrency limits affect the scheduling
 * algorithm" about the stack: S-PRE-3 .. S-PRE-10, S-MEM-6.  The
 * arithmetic is in kernels.c.  May not: select entries (select.c).
 */
#include <stdlib.h>
#include "sched_int.h"
#include "kernels.h"

static void child_unlink(qs_job *parent, qs_job *child)
{
    if (child->sprev)
        child->sprev->snext = child->snext;
    else
        parent->child_head = child->snext;
    if (child->snext)
        child->snext->sprev = child->sprev;
    else
        parent->child_tail = child->sprev;
    child->sprev = child->snext = NULL;
}

static void child_append(qs_job *parent, qs_job *child)
{
    child->sprev = parent->child_tail;
    child->snext = NULL;
    if (parent->child_tail)
        parent->child_tail->snext = child;
    else
        parent->child_head = child;
    parent->child_tail = child;
}

/* S-PRE-10: the children of a job leaving its stack are adopted by its
 * parent (or orphaned); they keep their stack level. */
void qsi_job_parent_gone(qs_job *job, qs_job *parent)
{
    qs_job *child;
    while ((child = job->child_head) != NULL) {
        child_unlink(job, child);
        if (parent)
            child_append(parent, child);
        child->parent = parent;
    }
}

/* S-PRE-9: leave the preemption stack; refund the original parent. */
void qsi_job_pop(qs_sched *s, qs_job *job)
{
    qs_transport *t = job->transport;
    qs_job *parent = job->parent;
    qs_trace r = qsi_trace_init(QS_T_POP);

    r.transport = t->name;
    r.msg = job->message->id;
    r.a = job->slots_used;
    if (parent) {
        int64_t before = parent->slots_available;
        /* R-10 pop_refund: the document never gives slots back (it only
         * says the counter is decreased "by the amount used by the
         * candidate"); qsched refunds as Postfix does (yes). */
        if (QS_READING(s, QR_POP_REFUND) == QRV_REFUND_YES)
            parent->slots_available =
                qs_slots_refund(before, job->slots_used, t->slot_cost,
                                job->stack_level, parent->stack_level);
        r.msg2 = parent->message->id;
        r.b = QS_READING(s, QR_POP_REFUND) == QRV_REFUND_YES &&
              (parent->slots_available != before ||
               job->stack_level == parent->stack_level + 1);
        r.c = parent->slots_available;
        child_unlink(parent, job);
        job->parent = NULL;
    }
    qsi_job_parent_gone(job, parent);
    job->stack_level = 0;
    qsi_emit(s, &r);
}

/* S-PRE-5, S-PRE-6: the best candidate to preempt `current`. */
static qs_job *job_candidate_scan(qs_sched *s, qs_job *current,
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
    /* Only jobs after the current one: jobs before it are blockers or its
     * own stack children.  Jobs that are themselves preempted (have
     * children) and blockers are not candidates. */
    for (job = current->lnext; job; job = job->lnext) {
        int64_t total, needed, delay;
        /* R-11 preempted_candidates: excluded (Postfix) or included. */
        if ((job->child_head && QS_READING(s, QR_PREEMPTED_CANDIDATES) ==
                                    QRV_PREEMPTED_EXCLUDED) ||
            QS_IS_BLOCKER(job))
            continue;
        total = QS_MAX_ENTRIES(job);
        needed = total - job->selected_entries;
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
         * job's delay cannot beat the best score no later job can. */
        if (early_stop && best && job->stack_level == 0 &&
            qs_score_cannot_improve(delay, best_delay, best_total))
            break;
    }
    *out_delay = best_delay;
    *out_total = best_total;
    return best;
}

static qs_job *job_candidate(qs_sched *s, qs_job *current, int64_t *delay,
                             int64_t *total, int64_t *max_slots)
{
    qs_job *best = job_candidate_scan(s, current, 1, delay, total, max_slots);
#ifdef QSCHED_CROSSCHECK
    {
        /* Fuzz builds: the early stop must not change the answer. */
        int64_t d2, t2, m2;
        if (job_candidate_scan(s, current, 0, &d2, &t2, &m2) != best)
            abort();
    }
#endif
    return best;
}

/* S-PRE-3: is a preemption attempted at all?  With qsched's readings this
 * is the kernel qs_preempt_gate: counter > 0 and MAX >= min_slots x k. */
static int preempt_gate(const qs_sched *s, const qs_job *current)
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

/* S-PRE-7: the preemption test.  R-9 slot_division: counter / k in
 * integers (Postfix, the kernel), or exactly: counter/k + loan >= needed x
 * (100 - discount)/100 multiplied out by 100 k. */
static int preempt_fires(const qs_sched *s, const qs_job *current,
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

/* S-PRE-3 .. S-PRE-8: try to preempt the current job. */
qs_job *qsi_job_preempt(qs_sched *s, qs_job *current)
{
    qs_transport *t = current->transport;
    qs_job *job;
    int64_t needed, delay, total, max_slots;
    qs_trace r;

    if (!preempt_gate(s, current))
        return current;
    job = job_candidate(s, current, &delay, &total, &max_slots);
    if (!job) {
        /* an attempt (the gate let it through) that found no candidate */
        r = qsi_trace_init(QS_T_NOCANDIDATE);
        r.transport = t->name;
        r.msg = current->message->id;
        r.a = current->slots_available;
        r.c = max_slots;
        qsi_emit(s, &r);
        return current;
    }
    r = qsi_trace_init(QS_T_CANDIDATE);
    r.transport = t->name;
    r.msg = current->message->id;
    r.msg2 = job->message->id;
    r.a = delay;
    r.b = total;
    r.c = max_slots;
    qsi_emit(s, &r);

    needed = QS_MAX_ENTRIES(job) - job->selected_entries;
    r = qsi_trace_init(QS_T_NOPREEMPT);
    r.transport = t->name;
    r.msg = current->message->id;
    r.msg2 = job->message->id;
    r.a = current->slots_available;
    r.b = needed;
    r.c = t->slot_cost;
    r.d = t->slot_loan;
    r.e = t->slot_discount;
    if (!preempt_fires(s, current, needed)) {
        s->stats.preempt_refused++;
        qsi_emit(s, &r);
        return current;
    }
    /* The candidate leaves any stack it tops, moves in front of the
     * current job, and becomes its child one level deeper. */
    if (job->stack_level > 0)
        qsi_job_pop(s, job);
    else if (job->child_head)
        /* R-11 preempted_candidates = included: a preempted job that
         * preempts hands its children on as if it left its stack
         * (S-PRE-10: they become orphans, keeping their levels). */
        qsi_job_parent_gone(job, NULL);
    if (job->lprev)
        job->lprev->lnext = job->lnext;
    else
        t->jhead = job->lnext;
    if (job->lnext)
        job->lnext->lprev = job->lprev;
    else
        t->jtail = job->lprev;
    job->lprev = current->lprev;
    job->lnext = current;
    if (current->lprev)
        current->lprev->lnext = job;
    else
        t->jhead = job;
    current->lprev = job;
    job->parent = current;
    job->preempted_serial = current->serial;
    child_append(current, job);
    job->stack_level = current->stack_level + 1;
    /* Selection continues at the preempting job, which sits where the
     * current job was if the walk was to start there (otherwise a job
     * before it was released: the walk starts at the head, S-PRE-2).
     * it becomes the current job at once (walk_start, Postfix) or
     * when its entry is selected (last_selected). */
    t->job_walk = t->job_walk == current ? job : t->jhead;
    if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START)
        t->job_current = job;
    /* The preempted job pays up front; the child counts the difference
     * between what it uses and what was paid (slots_used = -needed). */
    current->slots_available =
        qs_slots_charge(current->slots_available, needed, t->slot_cost);
    job->slots_used = -needed;
    /* S-MEM-6: an unread preempting job gets a share of the extra pool. */
    if (job->message->rcpt_unread > 0) {
        int64_t share = qs_pool_extra_share(t->extra_rcpt_limit,
                                            t->rcpt_unused);
        job->rcpt_limit += share;
        job->message->rcpt_limit += share;
        t->rcpt_unused -= share;
    }
    s->stats.preemptions++;
    t->preemptions++;
    r.kind = QS_T_PREEMPT;
    r.f = job->stack_level;
    qsi_emit(s, &r);
    return job;
}
