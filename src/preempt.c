/*
 * preempt.c - job preemption: how a message with few recipients slips past
 * bulk mail without delaying the bulk by more than a known factor.
 *
 * Implements SCHEDULER_README, "How the preemption works" (delivery slots,
 * the slot counter, candidates and their score, when preemption happens,
 * slot loans and discounts) and the programmer's half of "How destination
 * concurrency limits affect the scheduling algorithm" (the preemption
 * stack that blockers turn into a tree: parents, children, adoption).
 * Rules S-PRE-3 .. S-PRE-10 (spec/preemption.md) and S-MEM-6, the extra
 * recipient pool an unread preempting job receives.
 *
 * Owns: slots_available and slots_used of every job, the parent/child
 * relations and stack levels, and the one move of the scheduler's job list
 * that preemption makes (the candidate goes in front of the current job).
 * Every arithmetic decision (gate, max slots, fit, score, test, charge,
 * refund, extra share) is a proved kernel in kernels.c; this file strings
 * them together.  May not: select entries (select.c, which calls
 * qsi_job_preempt once per selection) or link jobs by time (jobs.c).
 *
 * The theory, in short.  Picture each moment a delivery agent becomes free
 * as a delivery slot.  The oldest job would take every slot (FIFO).  If
 * instead it earns one free slot for every k slots it uses, its delivery
 * stretches by (k+1)/k at most, and the free slots go to other mail
 * ("inflating" the job's delivery time on purpose, like the accumulation
 * of potential in amortised analysis).  The free slots need not be
 * spread evenly: the job may first
 * accumulate them (selecting its own entries in the meantime, which only
 * makes it finish earlier) and spend several at once, by letting a smaller
 * job go first.  That smaller job may itself be preempted the same way,
 * and the document's argument is that the stretch of any job stays below
 * k/(k-1) however deep this recursion goes (and below (k+1)/k without
 * recursion).  k is the transport's delivery_slot_cost (default 5).
 *
 * The two bounds, worked out.  A job of n entries earns one free slot per
 * k of its entries, n/k in all, so if only it is preempted its last entry
 * goes out after at most n + n/k slots: a stretch of (k+1)/k.  If the jobs
 * that take its free slots are preempted in turn, they earn slots too,
 * each level at most 1/k of the level above, and the series
 * n (1 + 1/k + 1/k^2 + ...) sums to n k/(k-1).  With k = 5 that is 1.2
 * and 1.25.  (The document states the bounds; the bounded model checker
 * confirms them on every short stream, docs/inflation.md.)
 *
 * The document's picture of it, with 1 a four-entry job followed by four
 * one-entry jobs 2..5 and free slots every other slot: FIFO delivers
 * 1111 2 3 4 5, preemption delivers 1 2 1 3 1 4 1 5.  Job 1 finishes
 * three slots later; jobs 2, 3 and 4 finish 3, 2 and 1 slots earlier.  Why the
 * slots are accumulated rather than handed out evenly: a job that
 * delivers its own entries first and lends its slots later is never worse
 * off ("111...1 is no worse than 1.1.1.1"), and a later, smaller message
 * still finds slots to use instead of a sequence already promised away
 * (the document's thousand-, hundred- and ten-recipient example).
 *
 * What qsched keeps per job, following "the truth" the document admits in
 * brackets: the counter slots_available grows by 1 per selected entry (in
 * select.c) and is divided by k whenever it is compared with slots.  A
 * preemption charges the preempted job needed x k at once; its
 * preempting child starts with slots_used = -needed and counts up per
 * selected entry, so when the child leaves the stack slots_used says how
 * far it under- or overspent, and the parent is refunded accordingly.
 *
 * Tested by: tests/golden/pre-* (the document's own sequences among
 * them), tests/conformance/hand/pre-*, tests/unit/test_preempt.c,
 * tests/sh/preempt-stats.sh; the bounded model checker (make bmc) checks
 * the gate, the test, the candidate rule, the refunds and the inflation
 * bounds on every short stream.
 *
 * Reading order: qsi_job_preempt at the end is the entry point; it uses
 * qsi_job_candidate (preempt_scan.c: which job), the kernels (whether),
 * and the stack helpers
 * at the top (how the relations change); qsi_job_pop is also called when
 * a job retires or is freed (jobs.c).
 */
#include <stdlib.h>
#include "sched_int.h"
#include "kernels.h"
#include "preempt_contracts.h"   /* the helpers' ACSL contracts */
/* With QS_CONTRACT_CHECKS (the test, fuzz and model-checker builds)
 * every call of a contracted helper checks its contract: preempt_rtc.h,
 * generated from the ACSL by proofs/rtc/gen.py, defines NAME(...) as
 * "check the requires, call, check the ensures".  The helpers are
 * defined as `static T (NAME)(...)`: a name in parentheses is not a
 * macro call, so the definition stays the function itself.  Other
 * builds see no difference. */
#ifdef QS_CONTRACT_CHECKS
#include "preempt_rtc.h"
#endif

/* The children of a job are kept in a list in the order they preempted it
 * (several at once are possible once blockers are involved).  The order
 * only matters for adoption, which appends, and for describing the state;
 * no decision iterates it. */
static void (child_unlink)(qs_job *parent, qs_job *child)
{
    QSI_CK_JOB(parent->transport->sched, parent);
    QSI_CK_JOB(parent->transport->sched, child);
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

static void (child_append)(qs_job *parent, qs_job *child)
{
    QSI_CK_JOB(parent->transport->sched, parent);
    QSI_CK_JOB(parent->transport->sched, child);
    child->sprev = parent->child_tail;
    child->snext = NULL;
    if (parent->child_tail)
        parent->child_tail->snext = child;
    else
        parent->child_head = child;
    parent->child_tail = child;
}

/* S-PRE-10: the children of a job leaving its stack are adopted by its
 * parent (or orphaned); they keep their stack level.
 *
 *     level 0:     1 --- 2 --- 3 --- 5          1 preempted by 4,
 *                  |           |                3 preempted by 6,
 *     level 1:     4 (gone)    6                4 preempted by 7 and 8
 *                 / \      (7 and 8 both preempted 4)
 *     level 2:   7   8      (after 4 leaves: 7 and 8 hang from 1)
 *
 * The document's picture: job 4 preempted job 1 and was itself preempted
 * by 7 and 8; when 4 completes, 7 and 8 hang from 1 ("adoptive parent"),
 * two levels down.  Keeping the level is what marks the adoption: a child
 * exactly one level below its parent is the one that parent paid for, a
 * deeper one was adopted and earns its adoptive parent no refund
 * (qsi_job_pop).  Orphans (no parent left at all) stay on the job list
 * where they are; only the slot accounting forgets them. */
void qsi_job_parent_gone(qs_job *job, qs_job *parent)
{
    qs_job *child;
    while ((child = job->child_head) != NULL) {
        child_unlink(job, child);
        if (parent)
            child_append(parent, child);
        child->parent = parent;
        qsi_cix_update(child); /* a parent or none: a time marker or not */
        QSI_CK_JOB(job->transport->sched, child);
    }
}

/* S-PRE-9: the refund on pop.  The child's slots_used started at -needed
 * when it preempted (S-PRE-8) and grew by one per entry it selected
 * (S-PRE-4), so subtracting slots_used * k gives back what was paid and
 * not used.  Only the original parent (one level up) paid; an adoptive
 * parent (S-PRE-10) gets nothing.  Returns 1 when `parent` is the original
 * parent (the trace's "refund" flag), 0 otherwise. */
static int (job_refund_parent)(qs_job *parent, const qs_job *job, int slot_cost)
{
    parent->slots_available =
        qs_slots_refund(parent->slots_available, job->slots_used, slot_cost,
                        job->stack_level, parent->stack_level);
    return job->stack_level == parent->stack_level + 1;
}

/*
 * S-PRE-9: leave the preemption stack; refund the original parent.
 *
 *     if parent and level(job) == level(parent) + 1:
 *         counter(parent) -= slots_used(job) x k       (the refund)
 *     unlink job from parent's children
 *     job's children -> adopted by parent (or orphans)
 *     level(job) = 0
 *
 * Why a refund: when the job preempted its parent, the parent paid for
 * the job's whole estimated need (qsi_job_preempt).  The estimate is a
 * maximum (S-MEM-8); a job may leave having used fewer entries than paid
 * for (unread recipients went to other transports, or it left to preempt
 * someone else), and the parent gets the difference back.  It may also
 * have used more (its estimate grew with later batches), and then the
 * parent pays the rest now.  Either way the parent ends up having paid for
 * exactly what its child selected, which is what keeps the inflation bound.
 * The document leaves this bookkeeping to "the nqmgr sources"; the rule is
 * Postfix's.
 *
 * The trace (explain level) shows the used delta, whether a refund was
 * applied, and the parent's counter after it.
 */
void qsi_job_pop(qs_sched *s, qs_job *job)
{
    qs_transport *t = job->transport;
    qs_job *parent = job->parent;
    qs_trace r;
    qsi_trace_start(&r, QS_T_POP);

    r.transport = t->name;
    r.msg = job->message->id;
    r.a = job->slots_used;
    if (parent) {
        r.msg2 = parent->message->id;
        /* R-10 pop_refund: the document never gives slots back (it only
         * says the counter is decreased "by the amount used by the
         * candidate"); qsched refunds as Postfix does (yes).  The reading
         * is taken here, at the caller: the proved helper is the refund. */
        r.b = QS_READING(s, QR_POP_REFUND) == QRV_REFUND_YES
                  ? job_refund_parent(parent, job, t->slot_cost)
                  : 0;
        r.c = parent->slots_available;
        child_unlink(parent, job);
        job->parent = NULL;
        qsi_cix_update(job);
        QSI_CK_JOB(s, job);
    }
    qsi_job_parent_gone(job, parent);
    job->stack_level = 0;
    QSI_CK_JOB(s, job);
    QSI_CAND_RESET(t);          /* S-PFX-20 */
    qsi_emit_explain(s, &r);
}



/* S-PRE-3: "no attempt while the counter is <= 0" nor while the current
 * job could never accumulate min_slots slots: MAX(current) >= min * k. */
static int (preempt_gate_open)(const qs_job *current, const qs_transport *t)
{
    return qs_preempt_gate(current->slots_available, QS_MAX_ENTRIES(current),
                           t->min_slots, t->slot_cost);
}

/* S-PRE-7: "counter / k + loan >= needed * (100 - discount) / 100", for
 * the candidate's `needed` slots, behind the gate (counter > 0). */
static int (preempt_test_fires)(const qs_job *current, const qs_transport *t,
                                int64_t needed)
{
    return qs_preempt_fires(current->slots_available, t->slot_cost,
                            t->slot_loan, t->slot_discount, needed);
}


/* S-PRE-8: "the job is preempted and the candidate becomes its child, one
 * level deeper; the preempted job pays for the candidate's slots at once":
 * the push onto the preemption stack with the charge.  The child starts
 * its slots_used at -needed so that the pop refunds what it did not use
 * (S-PRE-9).  The candidate fits (S-PRE-5: needed <= max_slots), which is
 * why the counter stays >= -(entries left) >= -10^9 after the charge. */
static void (job_stack_push)(qs_job *current, qs_job *job, int64_t needed,
                             int slot_cost)
{
    /* Proof step: a fitting candidate is affordable (needed <= N / k, so
     * needed * k <= N; the C quotient rounds toward zero and N >= 0). */
    /*@ assert affordable: 1 <= needed <=
          (current->read_entries - current->selected_entries +
           current->slots_available) / slot_cost ==>
          needed * slot_cost <=
          current->read_entries - current->selected_entries +
          current->slots_available; */
    job->parent = current;
    job->preempted_serial = current->serial;
    child_append(current, job);
    job->stack_level = current->stack_level + 1;
    /* The preempted job pays up front; the child counts the difference
     * between what it uses and what was paid (slots_used = -needed). */
    current->slots_available =
        qs_slots_charge(current->slots_available, needed, slot_cost);
    job->slots_used = -needed;
}

/* S-MEM-6: an unread preempting job takes half (rounded up) of what is left
 * of the normal pool and the extra pool; the pool may go negative down to
 * -extra_recipient_limit and no further (S-INV-5). */
static void (job_extra_grant)(qs_job *job, qs_message *m, qs_transport *t)
{
    int64_t share = qs_pool_extra_share(t->extra_rcpt_limit, t->rcpt_unused);
    job->rcpt_limit += share;
    m->rcpt_limit += share;
    t->rcpt_unused -= share;
}

/*
 * S-PRE-3 .. S-PRE-8: try to preempt the current job.  Called at every
 * selection on a transport with k >= 2 ("the preemption attempt happens
 * every time next transport's recipient entry is to be chosen").
 *
 *     gate:   counter(C) > 0 and MAX(C) >= minimum_delivery_slots x k
 *     J = best candidate (above); none: keep C
 *     needed = MAX(J) - selected(J)
 *     test:   counter(C) / k + loan >= needed x (100 - discount) / 100
 *     if the test holds:
 *         J leaves its own stack, if on one
 *         J moves in front of C on the scheduler's list
 *         J becomes C's child, level(J) = level(C) + 1
 *         counter(C) -= needed x k;  slots_used(J) = -needed
 *         J unread: J gets half of what is left of the extra pool
 *         selection starts at J; J is the current job at once
 *         (R-14 walk_start) or once its entry is selected (last_selected)
 * Returns J, or C unchanged.
 */
qs_job *qsi_job_preempt(qs_sched *s, qs_job *current)
{
    qs_transport *t = current->transport;
    qs_job *job;
    int64_t needed, delay, total, max_slots;
    qs_trace r;

    /* S-PRE-3, the gate: "to avoid needless overhead" no attempt for a job
     * too small ever to accumulate minimum_delivery_slots (Postfix's
     * reading, "at least", is used: R-4), nor while its counter is not
     * positive (a loan taken by an earlier preemption is being repaid
     * first: R-5). */
    if (!(qsi_readings_gate_default(s) ? preempt_gate_open(current, t)
                                       : qsi_preempt_gate_read(s, current)))
        return current;
    job = qsi_job_candidate(s, current, &delay, &total, &max_slots);
    if (!job) {
        /* an attempt (the gate let it through) that found no candidate */
        qsi_trace_start(&r, QS_T_NOCANDIDATE);
        r.transport = t->name;
        r.msg = current->message->id;
        r.a = current->slots_available;
        r.c = max_slots;
        qsi_emit_explain(s, &r);
        return current;
    }
    qsi_trace_start(&r, QS_T_CANDIDATE);
    r.transport = t->name;
    r.msg = current->message->id;
    r.msg2 = job->message->id;
    r.a = delay;
    r.b = total;
    r.c = max_slots;
    qsi_emit_explain(s, &r);

    /* S-PRE-7, the test.  Without loan and discount: preempt once the
     * accumulated slots pay for the candidate in full.  The document shows
     * why waiting for the full amount is needlessly strict: with k = 2, a
     * ten-entry job and two two-entry jobs, full payment gives the
     * sequence 11112211113311, while taking 50% in advance (discount 50)
     * gives 11221111331111 - the small mail goes much sooner and the big
     * job finishes no later.  The advance is only a loan: the full price
     * is charged below, so the counter may go negative and the gate above
     * holds further attempts until it is repaid. */
    needed = QS_MAX_ENTRIES(job) - job->selected_entries;
    qsi_trace_start(&r, QS_T_NOPREEMPT);
    r.transport = t->name;
    r.msg = current->message->id;
    r.msg2 = job->message->id;
    r.a = current->slots_available;
    r.b = needed;
    r.c = t->slot_cost;
    r.d = t->slot_loan;
    r.e = t->slot_discount;
    /* R-9 slot_division, R-5 (preempt_readings.c) */
    if (!(qsi_readings_fires_default(s, current)
              ? preempt_test_fires(current, t, needed)
              : qsi_preempt_fires_read(s, current, needed))) {
        s->stats.preempt_refused++;
        qsi_emit_explain(s, &r);
        return current;
    }
    /* S-PRE-8.  The candidate leaves any stack it tops, moves in front of
     * the current job, and becomes its child one level deeper.
     * For the tree drawn above qsi_job_parent_gone the scheduler's list
     * reads 7 8 1 2 6 3 5: each child sits just in front of the job it
     * preempted, and the walk of select.c sees nothing else.
     * "The job preempting the current job is moved in front of the current
     * job on the job list": entry selection, which walks the list, then
     * serves the child first and returns to the parent when the child is
     * done or blocked, with no separate stack to consult.  The by-time
     * list does not move (it orders recipient slots, S-MEM-5). */
    if (job->stack_level > 0)
        qsi_job_pop(s, job);
    else if (job->child_head)
        /* R-11 preempted_candidates = included: a preempted job that
         * preempts hands its children on as if it left its stack
         * (S-PRE-10: they become orphans, keeping their levels). */
        qsi_job_parent_gone(job, NULL);
    qsi_cix_remove(t, job);
    /* the incremental checker: the job, its old and new neighbours */
    QSI_CK_JOB(s, job);
    QSI_CK_JOB(s, job->lprev);
    QSI_CK_JOB(s, job->lnext);
    QSI_CK_JOB(s, current);
    QSI_CK_JOB(s, current->lprev);
    QSI_CK_MSG(s, job->message);
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
    qsi_job_misplace(t, job); /* no longer where its time put it */
    qsi_cix_insert(t, job, 1);
    qsi_bix_moved(t, job);
    /* The preempted job pays up front; the child counts the difference
     * between what it uses and what was paid (slots_used = -needed).
     * Paying at once, not per entry the child selects, matters once
     * blockers exist: a job may then be preempted by a second child while
     * the first is blocked ("job 4 is preempted by both job 7 AND job 8"),
     * and slots not yet taken out would be spent twice. */
    job_stack_push(current, job, needed, t->slot_cost);
    qsi_cix_update(job);        /* the index keys on the new parent */
    /* Selection continues at the preempting job, which sits where the
     * current job was if the walk was to start there (otherwise a job
     * before it was released: the walk starts at the head, S-PRE-2).
     * it becomes the current job at once (walk_start, Postfix) or
     * when its entry is selected (last_selected). */
    if (t->bix_region && t->job_walk != current)
        qsi_bix_materialize_but(t, job); /* job_walk moves back
                                            (blocker_index.c) */
    t->job_walk = t->job_walk == current ? job : t->jhead;
    if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START)
        t->job_current = job;
    QSI_CAND_RESET(t);          /* S-PFX-20 */
    /* S-MEM-6: an unread preempting job gets a share of the extra pool.
     * A preempting job whose message is not fully read could otherwise
     * only read qmgr_message_recipient_minimum recipients at a time (the
     * normal pool is held by the first unread job on the by-time list),
     * which "would really degrade performance".  Its share is half of what
     * is left of the extra pool, rounded up, so repeated preemptions never
     * drain it below zero; the normal pool goes negative by that amount
     * (S-INV-5 allows down to -extra_recipient_limit).  "Not fully read"
     * is QS_UNREAD (S-PFX-16 in the postfix profile). */
    if (QS_UNREAD(job->message)) {
        int was_spare = qsi_job_spare(job);
        job_extra_grant(job, job->message, t);
        qsi_spare_after(job, was_spare);
        QSI_BIX_MESSAGE(s, job->message);
    }
    s->stats.preemptions++;
    t->preemptions++;
    r.kind = QS_T_PREEMPT;
    r.f = job->stack_level;
    qsi_emit_explain(s, &r);
    return job;
}
