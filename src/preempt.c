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

/* The children list of a job (S-PRE-10: a job may have several children
 * after adoptions), doubly linked through sprev/snext.  Contracts: the
 * neighbours are relinked around the child, the ends of the list follow. */
/*@
  requires valid:   \valid(parent) && \valid(child) && \separated(parent, child);
  requires prev:    child->sprev == \null ||
                    (\valid(child->sprev) && \separated(child->sprev, parent, child));
  requires next:    child->snext == \null ||
                    (\valid(child->snext) && \separated(child->snext, parent, child) &&
                     (child->sprev != \null ==>
                        \separated(child->snext, child->sprev)));
  requires ends:    child->sprev == \null ==> parent->child_head == child;
  requires ends2:   child->snext == \null ==> parent->child_tail == child;
  assigns child->sprev, child->snext, parent->child_head, parent->child_tail,
          child->sprev->snext, child->snext->sprev;
  ensures prev:     \old(child->sprev) != \null ==>
                      \old(child->sprev)->snext == \old(child->snext);
  ensures next:     \old(child->snext) != \null ==>
                      \old(child->snext)->sprev == \old(child->sprev);
  ensures head:     \old(child->sprev) == \null ==>
                      parent->child_head == \old(child->snext);
  ensures tail:     \old(child->snext) == \null ==>
                      parent->child_tail == \old(child->sprev);
  ensures alone:    child->sprev == \null && child->snext == \null;
*/
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

/*@
  requires valid:   \valid(parent) && \valid(child) && \separated(parent, child);
  requires tail:    parent->child_tail == \null ||
                    (\valid(parent->child_tail) &&
                     \separated(parent->child_tail, parent, child));
  assigns child->sprev, child->snext, parent->child_head, parent->child_tail,
          parent->child_tail->snext;
  ensures last:     parent->child_tail == child && child->snext == \null &&
                    child->sprev == \old(parent->child_tail);
  ensures linked:   \old(parent->child_tail) != \null ==>
                      \old(parent->child_tail)->snext == child &&
                      parent->child_head == \old(parent->child_head);
  ensures first:    \old(parent->child_tail) == \null ==>
                      parent->child_head == child;
*/
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

/* S-PRE-9: the refund on pop.  The child's slots_used started at -needed
 * when it preempted (S-PRE-8) and grew by one per entry it selected
 * (S-PRE-4), so subtracting slots_used * k gives back what was paid and
 * not used.  Only the original parent (one level up) paid; an adoptive
 * parent (S-PRE-10) gets nothing.  Returns 1 when `parent` is the original
 * parent (the trace's "refund" flag), 0 otherwise. */
/*@
  requires valid:   \valid(parent) && \valid_read(job) && \separated(parent, job);
  requires cost:    0 <= slot_cost <= QS_COST_MAX;
  requires counter: -2 * QS_SLOTS_MAX <= parent->slots_available <= 2 * QS_SLOTS_MAX;
  requires used:    qs_count(job->slots_used);
  requires levels:  0 <= job->stack_level <= QS_LEVEL_MAX &&
                    0 <= parent->stack_level <= QS_LEVEL_MAX;
  assigns parent->slots_available;
  ensures boolean:  \result == 0 || \result == 1;
  behavior original_parent:
    assumes job->stack_level == parent->stack_level + 1;
    ensures refund: parent->slots_available ==
                    \old(parent->slots_available - job->slots_used * slot_cost);
    ensures flag:   \result == 1;
  behavior adoptive_parent:
    assumes job->stack_level != parent->stack_level + 1;
    ensures none:   parent->slots_available == \old(parent->slots_available);
    ensures flag:   \result == 0;
  complete behaviors;
  disjoint behaviors;
*/
static int job_refund_parent(qs_job *parent, const qs_job *job, int slot_cost)
{
    parent->slots_available =
        qs_slots_refund(parent->slots_available, job->slots_used, slot_cost,
                        job->stack_level, parent->stack_level);
    return job->stack_level == parent->stack_level + 1;
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
        r.msg2 = parent->message->id;
        r.b = job_refund_parent(parent, job, t->slot_cost);
        r.c = parent->slots_available;
        child_unlink(parent, job);
        job->parent = NULL;
    }
    qsi_job_parent_gone(job, parent);
    job->stack_level = 0;
    qsi_emit(s, &r);
}

/* The best candidate found so far and its score delay/total (S-PRE-6). */
typedef struct qs_best {
    qs_job *job;
    int64_t delay, total;
} qs_best;

/* S-PRE-5, S-PRE-6: one job of the candidate scan (neither preempted nor
 * a blocker: the scan skips those), as the scan calls the kernels.  A job
 * is a candidate when it needs 1 .. max_slots slots; it replaces the best
 * so far when its score delay/total is strictly better, so ties go to the
 * earlier job. */
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
/*@
  requires job:     qs_job_counts_ok(job) && qs_job_queued_ok(job, now);
  requires best:    best.job != \null && 1 <= best.total <= QS_COUNT_MAX &&
                    0 <= best.delay <= QS_DELAY_SAFE;
  assigns \nothing;
  ensures stop_iff: \result == 1 <==>
    (job->stack_level == 0 && qs_delay(job, now) * best.total <= best.delay);
  ensures boolean:  \result == 0 || \result == 1;
*/
static int candidate_scan_stops(const qs_job *job, int64_t now, qs_best best)
{
    return job->stack_level == 0 &&
           qs_score_cannot_improve(now - job->message->queued_time + 1,
                                   best.delay, best.total);
}

/* S-PRE-5, S-PRE-6: the best candidate to preempt `current`: its delay,
 * total and the current job's max_slots go to the out parameters.  The
 * contract: the candidate needs 1 .. max_slots slots, is neither preempted
 * nor a blocker, and every kernel is called within its preconditions. */
/*@
  requires s:       \valid_read(s) && 0 <= s->now <= QS_TIME_MAX;
  requires current: qs_job_counts_ok(current) && current->transport == t;
  requires cost:    \valid_read(t) && 1 <= t->slot_cost <= QS_COST_MAX;
  requires list:    qs_joblist_ok(current->lnext, s->now);
  requires out:     \valid(out_delay) && \valid(out_total) && \valid(out_max) &&
                    \separated(out_delay, out_total, out_max);
  assigns *out_delay, *out_total, *out_max;
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
                                  int64_t *out_delay, int64_t *out_total,
                                  int64_t *out_max)
{
    qs_job *job;
    qs_best best = {NULL, 0, 1};
    int64_t max_slots;

    max_slots = qs_candidate_max_slots(QS_MIN_ENTRIES(current),
                                       current->selected_entries,
                                       current->slots_available,
                                       t->slot_cost);
    /* Only jobs after the current one: jobs before it are blockers or its
     * own stack children.  Jobs that are themselves preempted (have
     * children) and blockers are not candidates. */
    /*@
      loop invariant list: qs_joblist_ok(job, s->now);
      loop invariant best: best.job == \null ||
        (qs_job_counts_ok(best.job) && 1 <= qs_needed(best.job) <= max_slots &&
         best.job->child_head == \null && !qs_is_blocker(best.job) &&
         best.total == qs_total(best.job) &&
         best.delay == qs_delay(best.job, s->now) &&
         1 <= best.total <= QS_COUNT_MAX && 0 <= best.delay <= QS_DELAY_SAFE);
      loop assigns job, best;
    */
    for (job = max_slots > 0 ? current->lnext : NULL; job; job = job->lnext) {
        if (job->child_head || QS_IS_BLOCKER(job))
            continue;
        best = candidate_consider(job, s->now, max_slots, best);
        if (early_stop && best.job && candidate_scan_stops(job, s->now, best))
            break;
    }
    *out_max = max_slots;
    *out_delay = best.delay;
    *out_total = best.total;
    return best.job;
}

static qs_job *job_candidate(qs_sched *s, qs_job *current, int64_t *delay,
                             int64_t *total, int64_t *max_slots)
{
    qs_job *best = job_candidate_scan(s, current->transport, current, 1, delay,
                                      total, max_slots);
#ifdef QSCHED_CROSSCHECK
    {
        /* Fuzz builds: the early stop must not change the answer. */
        int64_t d2, t2, m2;
        if (job_candidate_scan(s, current->transport, current, 0, &d2, &t2,
                               &m2) != best)
            abort();
    }
#endif
    return best;
}

/* S-PRE-3: "no attempt while the counter is <= 0" nor while the current
 * job could never accumulate min_slots slots: MAX(current) >= min * k. */
/*@
  requires current: qs_job_counts_ok(current);
  requires params:  qs_transport_slots_ok(t);
  assigns \nothing;
  ensures open_iff: \result == 1 <==>
    (current->slots_available > 0 &&
     qs_total(current) >= t->min_slots * t->slot_cost);
  ensures boolean:  \result == 0 || \result == 1;
*/
static int preempt_gate_open(const qs_job *current, const qs_transport *t)
{
    return qs_preempt_gate(current->slots_available, QS_MAX_ENTRIES(current),
                           t->min_slots, t->slot_cost);
}

/* S-PRE-7: "counter / k + loan >= needed * (100 - discount) / 100", for
 * the candidate's `needed` slots, behind the gate (counter > 0). */
/*@
  requires current: qs_job_counts_ok(current);
  requires params:  qs_transport_slots_ok(t) && t->slot_cost >= 1;
  requires gate:    current->slots_available > 0;
  requires needed:  1 <= needed <= QS_COUNT_MAX;
  assigns \nothing;
  ensures fires_iff: \result == 1 <==>
    100 * (current->slots_available / t->slot_cost + t->slot_loan) >=
    needed * (100 - t->slot_discount);
  ensures boolean:  \result == 0 || \result == 1;
*/
static int preempt_test_fires(const qs_job *current, const qs_transport *t,
                              int64_t needed)
{
    return qs_preempt_fires(current->slots_available, t->slot_cost,
                            t->slot_loan, t->slot_discount, needed);
}

/*@
  // Integer division (rounding toward zero) and products: a quotient of a
  // non-negative number times its divisor is at most that number, and so
  // is any smaller count times the divisor.  Proved by the SMT solvers.
  lemma qs_fits_affordable: \forall integer n, k, q;
    1 <= k && 1 <= q && q <= n / k ==> q * k <= n;
*/

/* S-PRE-8: "the job is preempted and the candidate becomes its child, one
 * level deeper; the preempted job pays for the candidate's slots at once":
 * the push onto the preemption stack with the charge.  The child starts
 * its slots_used at -needed so that the pop refunds what it did not use
 * (S-PRE-9).  The candidate fits (S-PRE-5: needed <= max_slots), which is
 * why the counter stays >= -(entries left) >= -10^9 after the charge. */
/*@
  requires valid:   \valid(current) && \valid(job) && \separated(current, job);
  requires current: qs_job_counts_ok(current);
  requires tail:    current->child_tail == \null ||
                    (\valid(current->child_tail) &&
                     \separated(current->child_tail, current, job));
  requires cost:    1 <= slot_cost <= QS_COST_MAX;
  requires fits:    1 <= needed <= QS_COUNT_MAX &&
                    needed <= (current->read_entries - current->selected_entries +
                               current->slots_available) / slot_cost;
  assigns job->parent, job->preempted_serial, job->stack_level, job->slots_used,
          job->sprev, job->snext, current->child_head, current->child_tail,
          current->child_tail->snext, current->slots_available;
  ensures parent:   job->parent == current &&
                    job->preempted_serial == current->serial;
  ensures level:    job->stack_level == current->stack_level + 1;
  ensures child:    current->child_tail == job && job->snext == \null &&
                    job->sprev == \old(current->child_tail);
  ensures charged:  current->slots_available ==
                    \old(current->slots_available) - needed * slot_cost;
  ensures floor:    current->slots_available >=
                    current->selected_entries - current->read_entries;
  ensures counter:  -QS_SLOTS_MAX <= current->slots_available <= QS_SLOTS_MAX;
  ensures used:     job->slots_used == -needed;
*/
static void job_stack_push(qs_job *current, qs_job *job, int64_t needed,
                           int slot_cost)
{
    /* Proof step: a fitting candidate is affordable (needed <= N / k, so
     * needed * k <= N; the C quotient rounds toward zero and N >= 0). */
    /*@ assert affordable: needed * slot_cost <=
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
/*@
  requires valid:   \valid(job) && \valid(m) && \valid(t) &&
                    \separated(job, m, t);
  requires extra:   0 <= t->extra_rcpt_limit <= QS_COUNT_MAX;
  requires pool:    -t->extra_rcpt_limit <= t->rcpt_unused <= QS_COUNT_MAX;
  requires limits:  qs_count(job->rcpt_limit) && qs_count(m->rcpt_limit);
  assigns job->rcpt_limit, m->rcpt_limit, t->rcpt_unused;
  ensures conserved: job->rcpt_limit + t->rcpt_unused ==
                     \old(job->rcpt_limit) + \old(t->rcpt_unused);
  ensures msg_follows: m->rcpt_limit - \old(m->rcpt_limit) ==
                       job->rcpt_limit - \old(job->rcpt_limit);
  ensures half_up:  2 * (job->rcpt_limit - \old(job->rcpt_limit)) ==
                      t->extra_rcpt_limit + \old(t->rcpt_unused) ||
                    2 * (job->rcpt_limit - \old(job->rcpt_limit)) ==
                      t->extra_rcpt_limit + \old(t->rcpt_unused) + 1;
  ensures floor:    -t->extra_rcpt_limit <= t->rcpt_unused <= \old(t->rcpt_unused);
*/
static void job_extra_grant(qs_job *job, qs_message *m, qs_transport *t)
{
    int64_t share = qs_pool_extra_share(t->extra_rcpt_limit, t->rcpt_unused);
    job->rcpt_limit += share;
    m->rcpt_limit += share;
    t->rcpt_unused -= share;
}

/* S-PRE-3 .. S-PRE-8: try to preempt the current job. */
qs_job *qsi_job_preempt(qs_sched *s, qs_job *current)
{
    qs_transport *t = current->transport;
    qs_job *job;
    int64_t needed, delay, total, max_slots;
    qs_trace r;

    if (!preempt_gate_open(current, t))
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
    if (!preempt_test_fires(current, t, needed)) {
        s->stats.preempt_refused++;
        qsi_emit(s, &r);
        return current;
    }
    /* The candidate leaves any stack it tops, moves in front of the
     * current job, and becomes its child one level deeper. */
    if (job->stack_level > 0)
        qsi_job_pop(s, job);
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
    job_stack_push(current, job, needed, t->slot_cost);
    t->job_current = job;
    /* S-MEM-6: an unread preempting job gets a share of the extra pool. */
    if (job->message->rcpt_unread > 0)
        job_extra_grant(job, job->message, t);
    s->stats.preemptions++;
    t->preemptions++;
    r.kind = QS_T_PREEMPT;
    r.f = job->stack_level;
    qsi_emit(s, &r);
    return job;
}
