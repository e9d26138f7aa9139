/*
 * proofs/model.c - proof-only compositions of the kernels of src/kernels.c.
 *
 * Owns: the statements that are about SEVERAL kernels used together, the
 * way the core (src/preempt.c, memory.c, concurrency.c) uses them, and that no single kernel contract can say:
 *  - the preemption decision (gate, then test) never fires on an empty
 *    counter or with preemption disabled (S-PRE-2, S-PRE-3, S-PRE-7);
 *  - charge on preempt then refund on pop leaves the original parent paying
 *    exactly for what the child used (S-PRE-8, S-PRE-9);
 *  - a fitting candidate's charge keeps the counter >= -(entries left)
 *    (S-PRE-5, S-PRE-8), which is why counters stay in range;
 *  - the recipient-pool transfers conserve slots: what leaves one place
 *    arrives in another (S-MEM-5, S-MEM-6, invariant S-INV-5);
 *  - "After success" / "After failure" keep a live destination's window in
 *    [1, limit] and its success/failure in range, and declare it dead
 *    exactly when the cohort rule says so (S-CON-3..8, S-PFX-1..3).
 * Exists because kernels.c has no function for these compositions (the
 * pool transfers and the feedback sequences are inline code in the core):
 * each function below is a small model of that inline code, written with
 * the same kernel calls in the same order, and proved by WP from the kernel
 * contracts alone (modular proof: the kernels' bodies are not looked at).
 * Nothing here is linked into qsched; `make proofs` only checks that it
 * compiles (with the kernels it includes).  Where the core must keep matching these models is said next to
 * each one, and in proofs/README.md.
 */
/* The kernels, with their contracts and logic definitions (qs_unit,
 * QS_SLOTS_MAX, ...), in this same translation unit: ACSL definitions are
 * per file, so this is how the models share them without a second copy. */
#include "../src/kernels.c"

struct qs_pool_model;
struct qs_dest_model;
int qs_model_preempt(long long slots_available, long long max_entries,
                     int min_slots, int slot_cost, int loan, int discount,
                     long long needed);
long long qs_model_charge_refund(long long parent_available, long long needed,
                                 long long used, int slot_cost,
                                 int child_level, int parent_level);
long long qs_model_fitting_charge(long long min_entries, long long selected,
                                  long long slots_available, int slot_cost,
                                  long long needed);
void qs_model_move_limits(struct qs_pool_model *p);
void qs_model_extra_grant(struct qs_pool_model *p);
void qs_model_link(struct qs_pool_model *p);
void qs_model_after_failure(struct qs_dest_model *q, int form, double base,
                            int cohort_limit, int postfix);
void qs_model_after_success(struct qs_dest_model *q, int busy, int init,
                            int limit, int form, double base, int postfix);

/* ------------------------------------------------------------------------
 * Preemption decision (preempt.c qsi_job_preempt, with select.c's k >= 2 test).
 * S-PRE-2 step 2: preemption is tried only for k >= 2 (k = 0 disables it,
 * k = 1 degenerates and is disabled as in Postfix).  S-PRE-3: the gate.
 * S-PRE-7: the test, for the best candidate's `needed` slots.
 * ------------------------------------------------------------------------ */
/*@
  requires counter:   -QS_SLOTS_MAX <= slots_available <= QS_SLOTS_MAX;
  requires entries:   qs_count(max_entries);
  requires min_slots: 0 <= min_slots <= QS_MINSLOTS_MAX;
  requires cost:      0 <= slot_cost <= QS_COST_MAX;
  requires loan:      0 <= loan <= QS_LOAN_MAX;
  requires discount:  0 <= discount <= 100;
  requires needed:    qs_ucount(needed);
  assigns \nothing;
  ensures boolean:    \result == 0 || \result == 1;
  // Never on an empty (or loan-negative) counter, never when disabled.
  ensures empty_counter_never: slots_available <= 0 ==> \result == 0;
  ensures disabled_never:      slot_cost < 2 ==> \result == 0;
  // And exactly the conjunction of the rules otherwise.
  ensures fires_iff: \result == 1 <==>
    (slot_cost >= 2 && slots_available > 0 &&
     max_entries >= min_slots * slot_cost &&
     100 * (slots_available / slot_cost + loan) >= needed * (100 - discount));
*/
int qs_model_preempt(long long slots_available, long long max_entries,
                     int min_slots, int slot_cost, int loan, int discount,
                     long long needed)
{
    if (slot_cost < 2)
        return 0;
    if (!qs_preempt_gate(slots_available, max_entries, min_slots, slot_cost))
        return 0;
    return qs_preempt_fires(slots_available, slot_cost, loan, discount,
                            needed);
}

/* ------------------------------------------------------------------------
 * Charge then refund (preempt.c qsi_job_preempt, then qsi_job_pop).  The child's
 * slots_used starts at -needed (S-PRE-8 step 5) and grows by one per entry
 * it selects (S-PRE-4), so after selecting `used` entries it is
 * used - needed.
 * ------------------------------------------------------------------------ */
/*@
  requires counter: -QS_SLOTS_MAX <= parent_available <= QS_SLOTS_MAX;
  requires needed:  qs_ucount(needed);
  requires used:    qs_ucount(used);
  requires cost:    1 <= slot_cost <= QS_COST_MAX;
  requires levels:  0 <= child_level <= QS_LEVEL_MAX &&
                    0 <= parent_level <= QS_LEVEL_MAX;
  assigns \nothing;
  behavior original_parent:
    assumes child_level == parent_level + 1;
    // The parent pays for exactly what the child used: the refund is the
    // charge minus the use.
    ensures net_cost: \result == parent_available - used * slot_cost;
    ensures refund_is_charge_minus_use:
      \result - (parent_available - needed * slot_cost) ==
      needed * slot_cost - used * slot_cost;
  behavior adoptive_parent:
    assumes child_level != parent_level + 1;
    // An adoptive parent never paid, so it gets nothing back: the charge
    // stays with the original parent's counter (which is gone).
    ensures charge_stands: \result == parent_available - needed * slot_cost;
  complete behaviors;
  disjoint behaviors;
*/
long long qs_model_charge_refund(long long parent_available, long long needed,
                                 long long used, int slot_cost,
                                 int child_level, int parent_level)
{
    long long after_charge, used_delta;
    after_charge = qs_slots_charge(parent_available, needed, slot_cost);
    used_delta = used - needed; /* the child's slots_used at pop time */
    return qs_slots_refund(after_charge, used_delta, slot_cost, child_level,
                           parent_level);
}

/* ------------------------------------------------------------------------
 * A fitting candidate's charge (preempt.c job_candidate_scan + qsi_job_preempt):
 * needed <= max_slots = (MIN - selected + counter) / k, so the charge
 * needed * k is at most MIN - selected + counter, and the counter ends
 * >= selected - MIN >= -QS_COUNT_MAX.  This is why the counter ranges of
 * the kernel preconditions hold (up to the refunds, S-PRE-9).
 * ------------------------------------------------------------------------ */
/*@
  requires entries:  qs_ucount(min_entries);
  requires selected: qs_ucount(selected) && selected <= min_entries;
  requires counter:  -QS_SLOTS_MAX <= slots_available <= QS_SLOTS_MAX;
  requires cost:     1 <= slot_cost <= QS_COST_MAX;
  requires needed:   qs_ucount(needed);
  assigns \nothing;
  behavior fits:
    assumes 1 <= needed <= (min_entries - selected + slots_available) / slot_cost;
    ensures charged: \result == slots_available - needed * slot_cost;
    ensures floor:   \result >= selected - min_entries;
    ensures in_range: -QS_COUNT_MAX <= \result;
  behavior no_fit:
    assumes !(1 <= needed <= (min_entries - selected + slots_available) / slot_cost);
    ensures untouched: \result == slots_available;
  complete behaviors;
  disjoint behaviors;
*/
long long qs_model_fitting_charge(long long min_entries, long long selected,
                                  long long slots_available, int slot_cost,
                                  long long needed)
{
    long long max_slots = qs_candidate_max_slots(min_entries, selected,
                                                 slots_available, slot_cost);
    if (!qs_candidate_fits(needed, max_slots))
        return slots_available;
    return qs_slots_charge(slots_available, needed, slot_cost);
}

/* ------------------------------------------------------------------------
 * Recipient pools (S-MEM-5, S-MEM-6).  One transport's pool, the job that
 * gives or takes slots and its message, and the first unread job and its
 * message (memory.c qsi_job_move_limits, preempt.c qsi_job_preempt, jobs.c job_link).
 * ------------------------------------------------------------------------ */
struct qs_pool_model {
    long long job_limit, job_count;       /* the job: limit(j), count(j) */
    long long msg_limit, msg_count;       /* its message: limit(m), count(m) */
    long long pool;                       /* the transport's pool(t) */
    long long extra;                      /* X_t, the extra pool size */
    int has_next;                         /* is there a first unread job? */
    long long next_limit, next_msg_limit; /* its limit and its message's */
};

/*@
  predicate pool_ok(struct qs_pool_model *p) =
    \valid(p) &&
    qs_count(p->job_limit) && qs_count(p->job_count) &&
    qs_count(p->msg_limit) && qs_count(p->msg_count) &&
    qs_count(p->pool) && qs_ucount(p->extra) && qs_count(p->next_limit) &&
    qs_count(p->next_msg_limit);

  // The S-INV-5 quantity restricted to the jobs involved: job limits plus
  // the pool.  A transfer is conservative when it leaves this unchanged.
  logic integer pool_total(struct qs_pool_model *p) =
    p->job_limit + p->next_limit + p->pool;
*/

/* Move (job_move_limits): give back min(unused of job, unused of message);
 * then the first unread job, if any, takes a positive pool in full. */
/*@
  requires ok: pool_ok(p);
  assigns p->job_limit, p->msg_limit, p->pool, p->next_limit,
          p->next_msg_limit;
  ensures conserved: pool_total(p) == \old(pool_total(p));
  // The job gives back only what neither it nor its message uses.
  ensures job_keeps_its_own: p->job_limit >= p->job_count ||
                             p->job_limit == \old(p->job_limit);
  ensures msg_keeps_its_own: p->msg_limit >= p->msg_count ||
                             p->msg_limit == \old(p->msg_limit);
  ensures gives_only: p->job_limit <= \old(p->job_limit);
  ensures messages_follow_jobs:
    p->msg_limit - \old(p->msg_limit) == p->job_limit - \old(p->job_limit) &&
    p->next_msg_limit - \old(p->next_msg_limit) ==
      p->next_limit - \old(p->next_limit);
  // The pool only grows, except when handed over whole to the next job.
  ensures pool_handed_whole: p->pool >= \old(p->pool) ||
    (p->has_next && p->pool == 0);
  ensures next_takes_positive_pool_only: p->next_limit >= \old(p->next_limit);
*/
void qs_model_move_limits(struct qs_pool_model *p)
{
    long long unused = qs_pool_unused(p->job_limit, p->job_count,
                                      p->msg_limit, p->msg_count);
    if (unused > 0) {
        p->job_limit -= unused;
        p->msg_limit -= unused;
        p->pool += unused;
        if (p->has_next && p->pool > 0) {
            p->next_limit += p->pool;
            p->next_msg_limit += p->pool;
            p->pool = 0;
        }
    }
}

/* Extra pool grant (job_preempt, S-MEM-6): an unread preempting job takes
 * half, rounded up, of what is left of normal + extra pool. */
/*@
  requires ok: pool_ok(p);
  requires floor: -p->extra <= p->pool;       // S-INV-5 before the grant
  assigns p->job_limit, p->msg_limit, p->pool;
  ensures conserved: p->job_limit + p->pool ==
                     \old(p->job_limit) + \old(p->pool);
  ensures msg_follows: p->msg_limit - \old(p->msg_limit) ==
                       p->job_limit - \old(p->job_limit);
  ensures takes: p->job_limit >= \old(p->job_limit);
  ensures floor_kept: -p->extra <= p->pool;   // S-INV-5 after it
*/
void qs_model_extra_grant(struct qs_pool_model *p)
{
    long long share = qs_pool_extra_share(p->extra, p->pool);
    p->job_limit += share;
    p->msg_limit += share;
    p->pool -= share;
}

/* Link (job_link, S-PRE-13): a newly linked job takes a positive pool. */
/*@
  requires ok: pool_ok(p);
  assigns p->job_limit, p->msg_limit, p->pool;
  ensures conserved: p->job_limit + p->pool ==
                     \old(p->job_limit) + \old(p->pool);
  ensures msg_follows: p->msg_limit - \old(p->msg_limit) ==
                       p->job_limit - \old(p->job_limit);
  ensures pool_not_positive: p->pool <= 0;
  ensures takes_only_positive: p->pool == \old(p->pool) || \old(p->pool) > 0;
*/
void qs_model_link(struct qs_pool_model *p)
{
    if (p->pool > 0) {
        p->job_limit += p->pool;
        p->msg_limit += p->pool;
        p->pool = 0;
    }
}

/* ------------------------------------------------------------------------
 * Concurrency feedback (concurrency.c feedback_positive / feedback_negative).
 * ------------------------------------------------------------------------ */
struct qs_dest_model {
    int window;
    double success, failure, fail_cohorts;
    int dead;
};

/*@
  // A live destination's state between events, for profile `guard`
  // (0 = document, 1 = postfix).  The window bound is the kernels' range
  // less the 2 steps one event may add (S-INV-6 bounds it far lower);
  // fail_cohorts below 2^52 failures is far beyond any run.
  predicate dest_ok(struct qs_dest_model *q, integer guard) =
    \valid(q) &&
    (q->dead == 0 ==>
       1 <= q->window <= QS_WINDOW_TOP - 2 &&
       qs_success_range(q->success, guard) &&
       qs_failure_range(q->failure, guard) &&
       \is_finite(q->fail_cohorts) && \le_double(0.0d, q->fail_cohorts) &&
       \le_double(q->fail_cohorts, (double)0x1p52));
*/

/* "After failure" (S-CON-6, S-CON-8 / S-PFX-1, S-CON-7 / S-PFX-2). */
/*@
  requires ok:      dest_ok(q, postfix);
  requires profile: postfix == 0 || postfix == 1;
  requires base:    qs_unit(base);
  requires cohort_limit: 0 <= cohort_limit <= QS_WINDOW_MAX;
  assigns q->window, q->success, q->failure, q->fail_cohorts, q->dead;
  ensures dead_stays_dead: \old(q->dead) != 0 ==>
    q->dead == \old(q->dead) && q->window == \old(q->window);
  // Dead exactly when the cohort rule says so, on the updated count.
  ensures dead_iff_rule: \old(q->dead) == 0 ==>
    (q->dead == 1 <==>
       (postfix == 0 ? \lt_double((double)cohort_limit, q->fail_cohorts)
                     : cohort_limit > 0 &&
                       \le_double((double)cohort_limit, q->fail_cohorts)));
  ensures cohorts_grow: \old(q->dead) == 0 ==>
    \le_double(\old(q->fail_cohorts), q->fail_cohorts);
  // While alive: window in [1, old window] (so never above the limit it
  // was under), success and failure in their documented ranges.
  ensures alive_window: \old(q->dead) == 0 && q->dead == 0 ==>
    1 <= q->window <= \old(q->window);
  ensures alive_ranges: \old(q->dead) == 0 && q->dead == 0 ==>
    qs_success_range(q->success, postfix) &&
    qs_failure_range(q->failure, postfix);
*/
void qs_model_after_failure(struct qs_dest_model *q, int form, double base,
                            int cohort_limit, int postfix)
{
    double f;
    if (q->dead)
        return;
    q->fail_cohorts = qs_cohort_add(q->fail_cohorts, q->window);
    if (qs_cohort_dead(q->fail_cohorts, cohort_limit, postfix)) {
        q->dead = 1;
        return;
    }
    f = qs_fb_value(form, base, q->window);
    q->window = qs_failure_step(q->window, f, postfix, &q->success,
                                &q->failure);
}

/* "After success" with the safety rule (S-CON-3, S-CON-4, S-CON-5;
 * postfix: S-PFX-2, S-PFX-3, S-PFX-5).  A dead destination is left alone
 * here (S-CON-11; the postfix revival S-PFX-8 resets the state anyway). */
/*@
  requires ok:      dest_ok(q, postfix);
  requires profile: postfix == 0 || postfix == 1;
  requires base:    qs_unit(base);
  requires limit:   0 <= limit <= QS_WINDOW_MAX;
  requires doc_limit: postfix == 0 ==> limit >= 1;   // S-EV-5
  requires busy:    qs_ucount(busy);
  requires init:    1 <= init <= QS_WINDOW_MAX;
  assigns q->window, q->success, q->failure, q->fail_cohorts;
  ensures dead_untouched: \old(q->dead) != 0 ==> q->window == \old(q->window);
  ensures alive_min: q->dead == 0 ==> q->window >= 1;
  // Never above the limit once under it; clamped to it by any step.
  ensures limit_kept: q->dead == 0 && limit > 0 && \old(q->window) <= limit ==>
    q->window <= limit;
  ensures never_down: q->window >= \old(q->window) || q->window == limit;
  // S-CON-3: no growth unless window < busy + init ...
  ensures safety: !(\old(q->window) < busy + init) ==>
    q->window <= \old(q->window);
  // ... so a window only grows up to busy + init + 1.
  ensures safety_bound: q->window <= \old(q->window) ||
                        q->window <= busy + init + 1;
  ensures alive_success: q->dead == 0 ==> qs_success_range(q->success, postfix);
  ensures alive_failure: q->dead == 0 ==> qs_failure_range(q->failure, postfix);
  ensures alive_cohorts: q->dead == 0 ==> \le_double(0.0d, q->fail_cohorts);
*/
void qs_model_after_success(struct qs_dest_model *q, int busy, int init,
                            int limit, int form, double base, int postfix)
{
    double g;
    if (q->dead)
        return;
    if (postfix) {
        q->fail_cohorts = 0;
        if ((limit == 0 || limit > q->window) &&
            qs_safety_allows(q->window, busy, init)) {
            g = qs_fb_value(form, base, q->window);
            q->window = qs_success_step(q->window, g, limit, 1, &q->success,
                                        &q->failure);
        }
    } else if (qs_safety_allows(q->window, busy, init)) {
        q->fail_cohorts = 0;
        g = qs_fb_value(form, base, q->window);
        q->window = qs_success_step(q->window, g, limit, 0, &q->success,
                                    &q->failure);
    }
}
