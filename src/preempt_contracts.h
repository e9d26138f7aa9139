/*
 * src/preempt_contracts.h - the ACSL contracts of preempt.c's proved helpers.
 *
 * Owns: the requires/assigns/ensures of the helpers of preempt.c that WP
 * proves (proofs/run.sh: every function with a contract is proved, as
 * compiled, through proofs/wp/preempt.c and proofs/wp/stack.c), stated
 * on their prototypes; Frama-C joins each one to the definition.  They
 * live here, not above each definition, so that preempt.c stays within
 * the core's size limit (issue 13); the comment above each definition
 * in preempt.c says what the function does and which rule it implements.
 * Included by preempt.c only (the helpers are static).  Clause names are the names
 * of WP's goals (typed_<function>_ensures_<clause>).
 */
#ifndef QSCHED_PREEMPT_CONTRACTS_H
#define QSCHED_PREEMPT_CONTRACTS_H

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
static void child_unlink(qs_job *parent, qs_job *child);

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
static void child_append(qs_job *parent, qs_job *child);

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
static int job_refund_parent(qs_job *parent, const qs_job *job, int slot_cost);

/*@
  requires current: qs_job_counts_ok(current);
  requires params:  qs_transport_slots_ok(t);
  assigns \nothing;
  ensures open_iff: \result == 1 <==>
    (current->slots_available > 0 &&
     qs_total(current) >= t->min_slots * t->slot_cost);
  ensures boolean:  \result == 0 || \result == 1;
*/
static int preempt_gate_open(const qs_job *current, const qs_transport *t);

/*@
  requires current: qs_job_counts_ok(current);
  requires params:  qs_transport_slots_ok(t) && t->slot_cost >= 1;
  requires gate:    current->slots_available > 0;
  // The candidate's need; a stale answer of the postfix profile's
  // candidate cache (S-PFX-20) may not fit any more, so only its range.
  requires needed:  0 <= needed <= QS_COUNT_MAX;
  assigns \nothing;
  ensures fires_iff: \result == 1 <==>
    100 * (current->slots_available / t->slot_cost + t->slot_loan) >=
    needed * (100 - t->slot_discount);
  ensures boolean:  \result == 0 || \result == 1;
*/
static int preempt_test_fires(const qs_job *current, const qs_transport *t,
                              int64_t needed);

/*@
  // Integer division (rounding toward zero) and products: a quotient of a
  // non-negative number times its divisor is at most that number, and so
  // is any smaller count times the divisor.  Proved by the SMT solvers.
  lemma qs_fits_affordable: \forall integer n, k, q;
    1 <= k && 1 <= q && q <= n / k ==> q * k <= n;
*/

/*@
  requires valid:   \valid(current) && \valid(job) && \separated(current, job);
  requires current: qs_job_counts_ok(current);
  requires tail:    current->child_tail == \null ||
                    (\valid(current->child_tail) &&
                     \separated(current->child_tail, current, job));
  requires cost:    1 <= slot_cost <= QS_COST_MAX;
  requires needed:  0 <= needed <= QS_COUNT_MAX;
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
  // A fitting candidate (S-PRE-5, as the scan finds it): the counter stays
  // >= -(entries left), so in range.  (The postfix profile's candidate
  // cache, S-PFX-20, may answer with one that no longer fits.)
  ensures floor:    1 <= needed <=
                      \old((current->read_entries - current->selected_entries +
                            current->slots_available) / slot_cost) ==>
                    current->slots_available >=
                      current->selected_entries - current->read_entries;
  ensures counter:  1 <= needed <=
                      \old((current->read_entries - current->selected_entries +
                            current->slots_available) / slot_cost) ==>
                    -QS_SLOTS_MAX <= current->slots_available <= QS_SLOTS_MAX;
  ensures used:     job->slots_used == -needed;
*/
static void job_stack_push(qs_job *current, qs_job *job, int64_t needed,
                           int slot_cost);

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
static void job_extra_grant(qs_job *job, qs_message *m, qs_transport *t);

#endif /* QSCHED_PREEMPT_CONTRACTS_H */
