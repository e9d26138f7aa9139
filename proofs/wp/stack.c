/*
 * proofs/wp/stack.c - WP harness: the preemption stack's slot accounting
 * over a child's whole stay, composed from the functions that run.
 *
 * Owns: proof_charge_select_refund, a proof-only function that calls, in
 * the order the scheduler does, the real job_stack_push (preempt.c,
 * S-PRE-8), job_count_selection once per entry the child selects
 * (select.c, S-PRE-4) and job_refund_parent (preempt.c, S-PRE-9), and
 * whose contract states what no single one of them can: the original
 * parent pays, in the end, exactly k slots per entry its child used.  It
 * restates no code: every statement below is a call of the core's own
 * functions (included here with their contracts) or loop bookkeeping.
 * Not linked into qsched.  Replaces the hand-written model
 * qs_model_charge_refund of the former proofs/model.c.
 */
#include "harness.h"
#include "../../src/kernels.c"
#include "../../src/preempt.c"
#include "../../src/select.c"

void proof_charge_select_refund(qs_job *current, qs_job *job,
                                int64_t needed, int slot_cost, int64_t used);

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
  // The child uses at most the entries it needed (MAX(j) - selected is an
  // upper estimate: reads never raise it, S-MEM-8).
  requires used:    0 <= used <= needed;
  requires child:   -QS_SLOTS_MAX <= job->slots_available <=
                    QS_SLOTS_MAX - QS_COUNT_MAX;
  assigns job->parent, job->preempted_serial, job->stack_level, job->slots_used,
          job->slots_available, job->sprev, job->snext, current->child_head,
          current->child_tail, current->child_tail->snext,
          current->slots_available;
  // S-PRE-8 + S-PRE-9: charged needed * k, refunded (needed - used) * k.
  ensures net_cost: current->slots_available ==
                    \old(current->slots_available) - used * slot_cost;
  // ... and never more than it could afford when it was preempted.
  ensures floor:    current->slots_available >=
                    \old(current->selected_entries - current->read_entries);
  ensures child:    job->slots_available == \old(job->slots_available) + used &&
                    job->slots_used == used - needed;
*/
void proof_charge_select_refund(qs_job *current, qs_job *job,
                                int64_t needed, int slot_cost, int64_t used)
{
    int64_t i;
    job_stack_push(current, job, needed, slot_cost);
    /*@
      loop invariant count:   0 <= i <= used;
      loop invariant used:    job->slots_used == -needed + i;
      loop invariant child:   job->slots_available ==
                              \at(job->slots_available, Pre) + i;
      loop invariant parent:  current->slots_available ==
                              \at(current->slots_available, Pre) - needed * slot_cost;
      loop invariant level:   job->stack_level == current->stack_level + 1 &&
                              0 <= current->stack_level < QS_LEVEL_MAX;
      loop assigns i, job->slots_available, job->slots_used;
      loop variant used - i;
    */
    for (i = 0; i < used; i++)
        job_count_selection(job);
    /*@ assert before_pop: job->slots_used == used - needed &&
          job->stack_level == current->stack_level + 1; */
    (void)job_refund_parent(current, job, slot_cost);
    /*@ assert refunded: current->slots_available ==
          \at(current->slots_available, Pre) - needed * slot_cost -
          (used - needed) * slot_cost; */
    /*@ assert distributes: needed * slot_cost + (used - needed) * slot_cost ==
                            used * slot_cost; */
}
