/*
 * kernels.h - the pure decision kernels of qsched.
 *
 * Owns: every arithmetic decision the scheduler takes, as small functions of
 * scalar inputs with no access to scheduler state.  Exists so that each rule
 * of the document can be read, tested and proved (Frama-C WP, see proofs/)
 * in isolation from the data structures that call it.  The ACSL contracts
 * live in kernels.c next to the code they describe.
 *
 * Rule ids (S-...) refer to the rules in the spec directory.
 */
#ifndef QSCHED_KERNELS_H
#define QSCHED_KERNELS_H

/* Largest count the core accepts anywhere (recipients, entries, slots).
 * Keeps every product below in 64-bit range; the parser enforces it. */
#define QS_COUNT_MAX 1000000000LL
/* Most messages waiting for the active queue at once (S-EV-1). */
#define QS_WAITING_MAX 1000000

/* Feedback forms (S-CON-2). */
enum qs_fb_form {
    QS_FB_CONST = 0,  /* x, or number/number folded to a constant */
    QS_FB_CONC = 1,   /* x/concurrency */
    QS_FB_SQRT = 2    /* x/sqrt_concurrency */
};

/* S-CON-2: feedback value g(N) or f(N) for window N >= 1. */
double qs_fb_value(int form, double base, int window);

/* S-CON-4, S-CON-5: positive feedback (hysteresis 1, overshoot clamp).
 * guard=0: the document's loop `while (success >= 1)`;
 * guard=1: Postfix's `while (success + g/2 >= 1)` (S-PFX-2).
 * limit 0 means "no limit" (postfix profile only; the document profile never
 * passes 0).  Returns the new window. */
int qs_success_step(int window, double g, int limit, int guard,
                    double *success, double *failure);

/* S-CON-7: negative feedback with the "reverse" hysteresis, window >= 1.
 * guard=1 is Postfix's `while (failure - f/2 < 0)`.  Returns new window. */
int qs_failure_step(int window, double f, int guard,
                    double *success, double *failure);

/* S-CON-6, S-CON-8: pseudo-cohort failure counting. */
double qs_cohort_add(double fail_cohorts, int window);

/* S-CON-8 (document): dead when fail_cohorts > limit.
 * S-PFX-1 (postfix):  dead when limit > 0 and fail_cohorts >= limit. */
int qs_cohort_dead(double fail_cohorts, int limit, int postfix);

/* S-CON-3 safety rule: positive feedback only while window < busy + init. */
int qs_safety_allows(int window, int busy, int init);

/* S-PRE-3: may the current job be preempted at all this round? */
int qs_preempt_gate(long long slots_available, long long max_entries,
                    int min_slots, int slot_cost);

/* S-PRE-5: how many slots the current job can still accumulate:
 * (in-core entries not yet selected + counter) / k, integer division. */
long long qs_candidate_max_slots(long long min_entries, long long selected,
                                 long long slots_available, int slot_cost);

/* S-PRE-5: is a job needing `needed` slots a valid candidate? */
int qs_candidate_fits(long long needed, long long max_slots);

/* S-PRE-6: score comparison delay_a/total_a > delay_b/total_b, exactly
 * (cross multiplication; totals >= 1). */
int qs_score_better(long long delay_a, long long total_a,
                    long long delay_b, long long total_b);

/* S-PRE-6: early stop: no level-0 job at or after this one can beat the
 * best score delay_best/total_best (delay <= best score). */
int qs_score_cannot_improve(long long delay, long long delay_best,
                            long long total_best);

/* S-PRE-7: the preemption test
 *   counter / k + loan >= needed * (100 - discount) / 100. */
int qs_preempt_fires(long long slots_available, int slot_cost, int loan,
                     int discount, long long needed);

/* S-PRE-8: the current job pays needed*k slots up front. */
long long qs_slots_charge(long long slots_available, long long needed,
                          int slot_cost);

/* S-PRE-9: on pop, the parent gets back (charged - used) * k, but only the
 * original parent (child level == parent level + 1).  `used_delta` is the
 * child's slots_used counter, which starts at -needed when it preempts. */
long long qs_slots_refund(long long parent_available, long long used_delta,
                          int slot_cost, int child_level, int parent_level);

/* S-MEM-6: share of the extra pool an unread preempting job takes:
 * half (rounded up) of what is left of normal + extra. */
long long qs_pool_extra_share(long long per_stack, long long unused);

/* S-MEM-5: unused slots a job can give back: min(job's, message's). */
long long qs_pool_unused(long long job_limit, long long job_count,
                         long long msg_limit, long long msg_count);

/* The ranges and predicates the contracts of the core are written with
 * (ACSL, read by Frama-C only; see proofs/README.md).  They live in this
 * header so that every core file that carries a contract sees the same
 * definitions: kernels.c, and the proved helpers of concurrency.c,
 * preempt.c, select.c, memory.c and jobs.c. */
/*@
  // Ranges guaranteed to every caller (the parser enforces them, see
  // proofs/README.md "Preconditions").  QS_COUNT_MAX comes from kernels.h.
  logic integer QS_WINDOW_MAX   = 1000000;       // limits, init, process limit
  // A window itself is only bounded by the safety rule (S-CON-3) when the
  // postfix profile has no limit (S-PFX-3): up to busy + init + 1, which
  // can pass 10^6.  The steps move it by at most 2, so any int up to
  // INT_MAX - 2 is safe, and that is all the contracts assume.
  logic integer QS_WINDOW_TOP   = 2147483645;    // INT_MAX - 2
  logic integer QS_COST_MAX     = 1000;          // slot cost k
  logic integer QS_LOAN_MAX     = 1000000;       // delivery slot loan
  logic integer QS_MINSLOTS_MAX = 1000000;       // minimum delivery slots
  // Preemption stack levels.  A level is its parent's + 1 at the push,
  // and orphans keep theirs (S-PRE-10), so only the number of
  // preemptions bounds it: 10^6 is a premise, checked by check.c.
  logic integer QS_LEVEL_MAX    = 1000000;
  // Largest delay for which the exact score products fit in 64 bits:
  // floor((2^63 - 1) / QS_COUNT_MAX).  The parser caps `at` at 2^33, so
  // delays are at most 2^33 + 1 < this (S-EV-6; proofs/README.md).
  logic integer QS_DELAY_SAFE   = 9223372036;
  // Virtual time: the parser caps `at` at 2^33 s (S-EV-6); backoff times
  // are at most 10^9 s (param_syntax.c).
  logic integer QS_TIME_MAX     = 8589934592;    // 2^33
  logic integer QS_BACKOFF_MAX  = 1000000000;
  // Counter values (slots_available) after charges and refunds: a count
  // plus a count times k (S-PRE-8 can subtract needed*k at once).
  logic integer QS_SLOTS_MAX    = QS_COUNT_MAX * (QS_COST_MAX + 1);

  // S-MEM-5: the slots a job can give back, min(limit - count) of the
  // job and its message.
  logic integer qs_unused(integer jl, integer jc, integer ml, integer mc) =
    ml - mc < jl - jc ? ml - mc : jl - jc;

  // The slot arithmetic of S-PRE-3 .. S-PRE-9, shared with the Why3
  // inflation theorem: proofs/why3/qsched.driver binds each symbol to its
  // definition in proofs/why3/qsched/slots.mlw (module Slots), so the
  // `shared` clauses of the kernels and the theorem's step relation use the
  // one definition.  (No axiom: the definitions are Why3 functions.)
  axiomatic QsSlots {
    logic integer qs_charge(integer c, integer m, integer k);
    logic integer qs_refund(integer c, integer used_delta, integer k);
    logic integer qs_max_slots(integer mn, integer sel, integer c, integer k);
    predicate qs_fits(integer m, integer ms);
    predicate qs_gate(integer c, integer mx, integer mins, integer k);
    predicate qs_fires(integer c, integer k, integer loan, integer d,
                       integer m);
  }

  predicate qs_count(integer n)  = -QS_COUNT_MAX <= n <= QS_COUNT_MAX;
  predicate qs_ucount(integer n) = 0 <= n <= QS_COUNT_MAX;
  // k as a divisor (S-PRE-5, S-PRE-7) and k in a product (any setting,
  // 0 included; select.c runs preemption only for k >= 2, S-PRE-2).
  predicate qs_cost(integer k)   = 1 <= k <= QS_COST_MAX;
  predicate qs_cost0(integer k)  = 0 <= k <= QS_COST_MAX;

  // A feedback value or base: a finite double in [0, 1] (S-CON-2).
  predicate qs_unit(double x) =
    \is_finite(x) && \le_double(0.0d, x) && \le_double(x, 1.0d);

  // The documented range of `success` between events (S-CON-4, S-PFX-2):
  // [0, 1) with the document's loop; [-1, 1) with Postfix's guard, whose
  // loop may stop with success slightly below 0 (down to about -g/2).
  predicate qs_success_range(double s, integer guard) =
    \is_finite(s) && \lt_double(s, 1.0d) &&
    (guard == 0 ? \le_double(0.0d, s) : \le_double((double)(-1.0), s));

  // C's binary64 operations x + y, x - y and x / y (rounded to nearest-
  // even) as logic functions, so that a contract can say what the code
  // computes as a pure IEEE term: proofs/why3/qsched.driver binds them to
  // add_f64, sub_f64 and div_f64 of WP's own float theory, the functions
  // WP translates C's + - / on doubles into.  (In ACSL x + y on doubles is
  // real addition, and goals mixing real and IEEE arithmetic are beyond
  // the solvers: proofs/README.md, "Floating point".)
  axiomatic QsDouble {
    logic double qs_dadd(double x, double y);
    logic double qs_dsub(double x, double y);
    logic double qs_ddiv(double x, double y);
  }
  // S-CON-5's clamp "if (concurrency > concurrency limit) concurrency =
  // concurrency limit" (limit 0: none, S-PFX-3), and S-CON-7's floor.
  logic integer qs_clamp(integer w, integer limit) =
    limit > 0 && w > limit ? limit : w;
  logic integer qs_floor1(integer w) = w < 1 ? 1 : w;

  // S-CON-4 / S-PFX-2: the test of the "After success" loop, on s, as C
  // evaluates it: `s >= 1`, or Postfix's `s + g/2 >= 1`.
  predicate qs_success_more(double s, double g, integer guard) =
    guard == 0 ? \le_double(1.0d, s)
               : \le_double(1.0d, qs_dadd(s, qs_ddiv(g, 2.0d)));
  // The one result of "After success" (qs_success_step): success += g,
  // then one round (window + 1, failure = 0, success - 1) while the test
  // holds, at most two (proved), then the clamp.  w0, s0, f0: before;
  // w, s, f: after.
  predicate qs_success_exact(integer w0, double s0, double f0, double g,
      integer limit, integer guard, integer w, double s, double f) =
    \let s1 = qs_dadd(s0, g); \let s2 = qs_dsub(s1, 1.0d);
    (!qs_success_more(s1, g, guard) ==> w == qs_clamp(w0, limit) &&
        \eq_double(s, s1) && \eq_double(f, f0)) &&
    (qs_success_more(s1, g, guard) && !qs_success_more(s2, g, guard) ==>
        w == qs_clamp(w0 + 1, limit) && \eq_double(s, s2) &&
        \eq_double(f, 0.0d)) &&
    (qs_success_more(s1, g, guard) && qs_success_more(s2, g, guard) ==>
        w == qs_clamp(w0 + 2, limit) &&
        \eq_double(s, qs_dsub(s2, 1.0d)) && \eq_double(f, 0.0d));

  // S-CON-7 / S-PFX-2: the test of the "After failure" loop, on x (the
  // failure credit), as C evaluates it: `x < 0`, or `x - f/2 < 0`.
  predicate qs_failure_less(double x, double f, integer guard) =
    guard == 0 ? \lt_double(x, 0.0d)
               : \lt_double(qs_dsub(x, qs_ddiv(f, 2.0d)), 0.0d);
  // The one result of "After failure" (qs_failure_step): failure -= f,
  // then one round (window - 1, failure + 1, success = 0) while the test
  // holds, at most two (proved), then the floor of 1.
  predicate qs_failure_exact(integer w0, double s0, double x0, double f,
      integer guard, integer w, double s, double x) =
    \let x1 = qs_dsub(x0, f); \let x2 = qs_dadd(x1, 1.0d);
    (!qs_failure_less(x1, f, guard) ==> w == w0 &&
        \eq_double(s, s0) && \eq_double(x, x1)) &&
    (qs_failure_less(x1, f, guard) && !qs_failure_less(x2, f, guard) ==>
        w == qs_floor1(w0 - 1) && \eq_double(s, 0.0d) && \eq_double(x, x2)) &&
    (qs_failure_less(x1, f, guard) && qs_failure_less(x2, f, guard) ==>
        w == qs_floor1(w0 - 2) && \eq_double(s, 0.0d) &&
        \eq_double(x, qs_dadd(x2, 1.0d)));

  // The documented range of `failure` between events (S-CON-7, S-PFX-2):
  // [0, 1] with the document's loop; [0, 3/2] with Postfix's guard, whose
  // loop stops only at failure >= f/2 and may overshoot to 1 + f/2.
  predicate qs_failure_range(double f, integer guard) =
    \is_finite(f) && \le_double(0.0d, f) &&
    (guard == 0 ? \le_double(f, 1.0d) : \le_double(f, 1.5d));
*/

#endif
