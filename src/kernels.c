/*
 * kernels.c - the pure decision kernels (see kernels.h).
 *
 * Each function here is one sentence of SCHEDULER_README turned into code,
 * with scalar inputs only, so that the ACSL contracts in this file can be
 * proved by Frama-C WP (make proofs) and the rules tested one by one.
 * No state, no I/O, no allocation.
 *
 * Why kernels.  The core's decisions are all of two kinds: moving
 * structures around (lists, stacks, pools) and arithmetic on counters
 * (feedback, hysteresis, cohorts, slots, scores, shares).  The first kind
 * lives in the concept files; every piece of the second kind is here,
 * one function per rule, so that each can be proved against the words of
 * the document, tested on its own, and mutated to show that the proofs
 * and the model checker notice (proofs/mutants, proofs/bmc/mutants).
 * The callers:
 *   concurrency.c  qs_fb_value, qs_success_step, qs_failure_step,
 *                  qs_cohort_add, qs_cohort_dead, qs_safety_allows
 *   preempt.c      qs_preempt_gate, qs_candidate_max_slots,
 *                  qs_candidate_fits, qs_score_better,
 *                  qs_score_cannot_improve, qs_preempt_fires,
 *                  qs_slots_charge, qs_slots_refund, qs_pool_extra_share
 *   memory.c       qs_pool_unused
 *
 * The contracts (the comments opening with an at sign) are proved by
 * `make proofs`; proofs/README.md says in words what each one means, which
 * spec rule and which sentence of the document it formalises, and how the
 * floating-point ones are proved.  Two conventions used below:
 *  - preconditions are the ranges the parser and the core guarantee
 *    (kernels.h: QS_COUNT_MAX; the logic constants just below for the rest);
 *  - doubles are compared with the IEEE predicates \le_double, \lt_double
 *    and \eq_double, which are exactly C's <=, < and == on finite doubles.
 *    A plain `x <= y` in ACSL would be a comparison of real numbers; for
 *    two doubles it means the same, but the SMT solvers decide the IEEE form
 *    much faster (bit-precise floating point, no real-number conversion).
 */
#include <math.h>
#include "kernels.h"
/* Run-time contract checks (issue 15; proofs/README.md "Run-time checks").
 * Only with -DQS_CONTRACT_CHECKS, which the sanitizer build of make check,
 * the fuzz builds and the model checker's build pass: the kernels below are
 * then compiled as K_unchecked, and the second inclusion at the end of this
 * file defines each K as "check the requires, call, check the ensures", the
 * checks generated from these very contracts by proofs/rtc/gen.py.  The
 * product build never sees the header. */
#ifdef QS_CONTRACT_CHECKS
#include "kernels_rtc.h"
#endif

/*@
  // Two facts of real arithmetic used by the bounds of qs_fb_value; both
  // are proved by the SMT solvers (not assumed).
  // sqrt is increasing and sqrt(1) = 1:
  lemma sqrt_ge_one: \forall real x; x >= 1 ==> \sqrt(x) >= 1;
  // dividing a non-negative number by at least 1 cannot make it bigger:
  lemma div_at_most: \forall real a, b; 0 <= a && 1 <= b ==> 0 <= a / b <= a;
*/

/* S-CON-2: g(N) = x | x/N | x/sqrt(N); the same shapes for f(N).
 * Proved with WP's real-number float model (proofs/README.md explains why
 * the bounds carry over to IEEE doubles: every bound here has representable
 * end points and each operation is correctly rounded, hence monotone). */
/* Why three forms.  A constant x is the same at every window: it keeps
 * the old scheduler's behaviour at large windows but tolerates noise (the
 * document: 1/4 per good delivery rides out one bad server in four behind
 * a load balancer).  x/N grows the window by one per pseudo-cohort, linear
 * in time, and defers least against an active limiter, at the price of
 * more sensitivity to noise as N grows.  x/sqrt(N) lies between. */
/*@
  requires base:   qs_unit(base);
  requires window: 1 <= window <= QS_WINDOW_TOP;
  assigns \nothing;
  ensures range:   qs_unit(\result);
  ensures at_most_base: \le_double(\result, base);
  // x/N and x/sqrt(N) are at most x because N >= 1 (lemmas above), and
  // exactly x at N = 1 (x/1 and sqrt(1) are exact in IEEE arithmetic too).
  behavior per_window:
    assumes form == QS_FB_CONC;
    ensures full_at_one: window == 1 ==> \result == base;
    // The one result: x/N rounded to a double (IEEE model, see above).
    check ensures exact: \result == (double)(base / (double)window);
  behavior per_sqrt_window:
    assumes form == QS_FB_SQRT;
    ensures full_at_one: window == 1 ==> \result == base;
    // The one result: x divided by the double sqrt(N) that libm returns
    // (correctly rounded, IEEE 754), rounded to a double.
    check ensures exact: \result == (double)(base / (double)\sqrt((double)window));
  behavior constant:
    assumes form != QS_FB_CONC && form != QS_FB_SQRT;
    ensures value: \result == base;
  complete behaviors;
  disjoint behaviors;
*/
double qs_fb_value(int form, double base, int window)
{
    if (form == QS_FB_CONC)
        return base / (double)window;
    if (form == QS_FB_SQRT)
        return base / sqrt((double)window);
    return base;
}

/* S-CON-4/S-CON-5: "After success" of the pseudocode. */
/* success and failure are updated in place: they carry over from one
 * event to the next, which is what makes the hysteresis.  The result is
 * the new window; the caller reports it if it changed. */
/*@
  requires window: 1 <= window <= QS_WINDOW_TOP;
  requires limit:  0 <= limit <= QS_WINDOW_MAX;
  requires guard:  guard == 0 || guard == 1;
  requires g:      qs_unit(g);
  requires ptrs:   \valid(success) && \valid(failure) &&
                   \separated(success, failure);
  requires success_range: qs_success_range(*success, guard);
  requires failure_finite: \is_finite(*failure);
  assigns *success, *failure;

  ensures success_range: qs_success_range(*success, guard);
  ensures failure_reset_or_kept:
    \eq_double(*failure, 0.0d) || \eq_double(*failure, \old(*failure));
  ensures failure_range_kept:
    qs_failure_range(\old(*failure), guard) ==> qs_failure_range(*failure, guard);
  ensures window_min:  \result >= 1;
  ensures window_max:  limit > 0 ==> \result <= limit;
  ensures at_most_two_steps: \result <= \old(window) + 2;
  ensures never_down:  \result >= \old(window) || \result == limit;
  ensures step_resets_failure:
    \result > \old(window) ==> \eq_double(*failure, 0.0d);
  // g(N) = 1 is the old scheduler: one step per success (S-CON-4 note).
  ensures plus_one:
    guard == 0 && \eq_double(g, 1.0d) ==>
      \eq_double(*failure, 0.0d) && (\result > \old(window) || \result == limit);
  // Hysteresis: the first event of a cycle (success == 0) never steps
  // when g < 1; growth happens at the END of a cycle of 1/g events.
  ensures cycle_start_holds:
    guard == 0 && \eq_double(\old(*success), 0.0d) && \lt_double(g, 1.0d) ==>
      \eq_double(*failure, \old(*failure)) && \eq_double(*success, g) &&
      \result == (limit > 0 && \old(window) > limit ? limit : \old(window));
  // The one result, bit for bit (kernels.h; a `check`: proved, not handed
  // to the callers, whose goals need only the clauses above).
  check ensures exact: qs_success_exact(\old(window), \old(*success),
      \old(*failure), g, limit, guard, \result, *success, *failure);
*/
int qs_success_step(int window, double g, int limit, int guard,
                    double *success, double *failure)
{
    /* "Be prepared for feedback > hysteresis, or rounding error" */
    *success += g;
    /* Hysteresis 1: one step up per whole unit of accumulated feedback.
     * Postfix adds g/2 so that a sum like 7 * (1/7) that rounds to
     * 0.999... still completes its cycle (S-PFX-2). */
    /*@
      // The loop runs at most twice: success + g < 2 on entry, and each
      // round takes exactly one unit off.  The window offset counts rounds.
      loop invariant rounds: \at(window, Pre) <= window <= \at(window, Pre) + 2;
      loop invariant finite: \is_finite(*success);
      loop invariant round0: window == \at(window, Pre) ==>
        \le_double(*success, 2.0d) &&
        \eq_double(*success, \at(*success, LoopEntry)) &&
        \eq_double(*failure, \at(*failure, Pre));
      loop invariant round1: window == \at(window, Pre) + 1 ==>
        \le_double(*success, 1.0d) && \eq_double(*failure, 0.0d) &&
        qs_success_more(\at(*success, LoopEntry), g, guard) &&
        \eq_double(*success, qs_dsub(\at(*success, LoopEntry), 1.0d));
      loop invariant round2: window == \at(window, Pre) + 2 ==>
        \le_double(*success, 0.0d) && \eq_double(*failure, 0.0d) &&
        qs_success_more(\at(*success, LoopEntry), g, guard) &&
        qs_success_more(qs_dsub(\at(*success, LoopEntry), 1.0d), g, guard) &&
        \eq_double(*success, qs_dsub(qs_dsub(\at(*success, LoopEntry),
                                             1.0d), 1.0d));
      loop invariant low_doc: guard == 0 ==> \le_double(0.0d, *success);
      loop invariant doc_only_if_whole: guard == 0 && window > \at(window, Pre) ==>
        \le_double(1.0d, \at(*success, LoopEntry));
      loop invariant low_pfx: guard == 1 ==>
        \le_double((double)(-1.0), *success);
      loop assigns window, *success, *failure;
      loop variant \at(window, Pre) + 2 - window;
    */
    while (guard ? (*success + g / 2 >= 1) : (*success >= 1)) {
        window += 1;
        *failure = 0;
        *success -= 1;
    }
    /* "Be prepared for overshoot" */
    if (limit > 0 && window > limit)
        window = limit;
    return window;
}

/* S-CON-7: "After failure" of the pseudocode, for a live destination. */
/* The floor of 1: a live destination always keeps at least one delivery
 * going, however much it fails; only the cohort test (qs_cohort_dead)
 * stops deliveries.  That is the 2.5 design's separation of concurrency
 * control from dead destination detection. */
/*@
  requires window: 1 <= window <= QS_WINDOW_TOP;
  requires guard:  guard == 0 || guard == 1;
  requires f:      qs_unit(f);
  requires ptrs:   \valid(success) && \valid(failure) &&
                   \separated(success, failure);
  requires failure_range: qs_failure_range(*failure, guard);
  requires success_finite: \is_finite(*success);
  assigns *success, *failure;

  ensures failure_range: qs_failure_range(*failure, guard);
  ensures success_reset_or_kept:
    \eq_double(*success, 0.0d) || \eq_double(*success, \old(*success));
  ensures success_range_kept:
    qs_success_range(\old(*success), guard) ==> qs_success_range(*success, guard);
  ensures window_min:  \result >= 1;
  ensures never_up:    \result <= \old(window);
  ensures at_most_two_steps: \result >= \old(window) - 2;
  ensures doc_one_step: guard == 0 ==> \result >= \old(window) - 1;
  ensures step_resets_success:
    \result < \old(window) ==> \eq_double(*success, 0.0d);
  // Reverse hysteresis: at the start of a cycle (failure == 0) the first
  // negative feedback steps down at once (or the window is already 1).
  ensures cycle_start_steps:
    \eq_double(\old(*failure), 0.0d) && \lt_double(0.0d, f) ==>
      \eq_double(*success, 0.0d) && (\result < \old(window) || \result == 1);
  // ... and, in the document's loop, while the credit left from the
  // cycle's first step covers f, nothing moves.
  ensures doc_credit_holds:
    guard == 0 && \le_double(f, \old(*failure)) ==>
      \result == \old(window) && \eq_double(*success, \old(*success));
  // The one result, bit for bit (kernels.h), a `check` like the above.
  check ensures exact: qs_failure_exact(\old(window), \old(*success),
      \old(*failure), f, guard, \result, *success, *failure);
*/
int qs_failure_step(int window, double f, int guard,
                    double *success, double *failure)
{
    *failure -= f;
    /* Reverse hysteresis: the step down happens at the START of a cycle of
     * 1/f negative feedback events, because failure drops below zero on the
     * first event of the cycle. */
    /*@
      // failure - f >= -1 on entry and each round adds exactly 1, so after
      // two rounds failure >= 1 and neither loop test can hold: at most two
      // rounds (one for the document's test, failure < 0).
      loop invariant rounds: \at(window, Pre) - 2 <= window <= \at(window, Pre);
      loop invariant finite: \is_finite(*failure);
      loop invariant round0: window == \at(window, Pre) ==>
        \le_double((double)(-1.0), *failure) &&
        \eq_double(*failure, \at(*failure, LoopEntry)) &&
        \eq_double(*success, \at(*success, Pre));
      loop invariant round1: window == \at(window, Pre) - 1 ==>
        \le_double(0.0d, *failure) && \eq_double(*success, 0.0d) &&
        qs_failure_less(\at(*failure, LoopEntry), f, guard) &&
        \eq_double(*failure, qs_dadd(\at(*failure, LoopEntry), 1.0d));
      loop invariant round2: window == \at(window, Pre) - 2 ==>
        \le_double(1.0d, *failure) && \eq_double(*success, 0.0d) &&
        qs_failure_less(\at(*failure, LoopEntry), f, guard) &&
        qs_failure_less(qs_dadd(\at(*failure, LoopEntry), 1.0d), f, guard) &&
        \eq_double(*failure, qs_dadd(qs_dadd(\at(*failure, LoopEntry),
                                             1.0d), 1.0d));
      loop invariant doc_rounds: guard == 0 ==> window >= \at(window, Pre) - 1;
      loop invariant doc_only_if_debt: guard == 0 && window < \at(window, Pre) ==>
        \lt_double(\at(*failure, LoopEntry), 0.0d);
      loop invariant high_doc: guard == 0 ==> \le_double(*failure, 1.0d);
      loop invariant high_pfx: guard == 1 ==> \le_double(*failure, 1.5d);
      loop assigns window, *success, *failure;
      loop variant window - (\at(window, Pre) - 2);
    */
    while (guard ? (*failure - f / 2 < 0) : (*failure < 0)) {
        window -= 1;
        *failure += 1;
        *success = 0;
    }
    if (window < 1)
        window = 1;
    return window;
}

/* S-CON-6: each failure is 1/window of a pseudo-cohort.
 * Proved with WP's real-number float model, like qs_fb_value. */
/* At window 5 five failures make one failed cohort, at window 1 every
 * failure does: the cohort limit counts windows' worth of failures, so it
 * means the same at any concurrency. */
/*@
  // fail_cohorts counts failures since the last reset, each worth at most
  // one cohort; 2^53 of them would take centuries, so the bound is real.
  requires cohorts: \is_finite(fail_cohorts) &&
                    \le_double(0.0d, fail_cohorts) &&
                    \le_double(fail_cohorts, (double)0x1p53);
  requires window:  1 <= window <= QS_WINDOW_TOP;
  assigns \nothing;
  ensures finite:   \is_finite(\result);
  ensures grows:    \le_double(fail_cohorts, \result);
  // The one result: 1/window rounded to a double, added to fail_cohorts
  // and rounded again (IEEE, round to nearest), proved in WP's IEEE model.
  check ensures exact: \result ==
    (double)(fail_cohorts + (double)(1.0 / (double)window));
*/
double qs_cohort_add(double fail_cohorts, int window)
{
    return fail_cohorts + 1.0 / (double)window;
}

/* S-CON-8 / S-PFX-1: the dead-destination test. */
/* With the defaults (f = 1, limit 1, initial window 5) successive
 * failures add 1/5 + 1/4 + 1/3 + 1/2 = 1.28 as the window steps down,
 * and the fourth one kills: the old scheduler's "throttling down to zero
 * concurrency after a single pseudo-cohort failure", which the document
 * says corresponds to a limit of 1. */
/*@
  // (double)limit is exact (|limit| < 2^53), so these are the document's
  // comparisons of fail_cohorts with the integer limit.
  assigns \nothing;
  ensures boolean: \result == 0 || \result == 1;
  behavior document:
    assumes postfix == 0;
    ensures dead_iff: \result == 1 <==> \lt_double((double)limit, fail_cohorts);
  behavior postfix:
    assumes postfix != 0;
    ensures dead_iff: \result == 1 <==>
      (limit > 0 && \le_double((double)limit, fail_cohorts));
  complete behaviors;
  disjoint behaviors;
*/
int qs_cohort_dead(double fail_cohorts, int limit, int postfix)
{
    if (postfix)
        return limit > 0 && fail_cohorts >= (double)limit;
    return fail_cohorts > (double)limit;
}

/* S-CON-3: "Don't apply positive feedback unless
 * concurrency < busy_refcount + init_dest_concurrency". */
/* busy is the number of deliveries in flight at the destination; which
 * ones it counts at the moment of feedback differs by profile (S-PFX-6,
 * see feedback_positive in concurrency.c). */
/*@
  requires busy:   qs_ucount(busy);
  requires init:   0 <= init <= QS_WINDOW_MAX;
  assigns \nothing;
  ensures boolean: \result == 0 || \result == 1;
  ensures allows_iff: \result == 1 <==> window < busy + init;
*/
int qs_safety_allows(int window, int busy, int init)
{
    return window < busy + init;
}

/* S-PRE-3: no attempt while the counter is <= 0 (loans can make it
 * negative) or while the job could never accumulate min_slots slots. */
/* A job of fewer than min_slots x k entries could never earn min_slots
 * slots; preempting it would gain its candidates little and cost an
 * attempt at every selection, the "needless overhead" the document
 * wants to avoid.  MAX is used: the job's size as it may yet turn out. */
/*@
  requires counter:  -QS_SLOTS_MAX <= slots_available <= QS_SLOTS_MAX;
  requires entries:  qs_count(max_entries);
  requires min_slots: 0 <= min_slots <= QS_MINSLOTS_MAX;
  requires cost:     qs_cost0(slot_cost);
  assigns \nothing;
  ensures boolean:   \result == 0 || \result == 1;
  ensures shared:    \result == 1 <==>
    qs_gate(slots_available, max_entries, min_slots, slot_cost);
  behavior empty_counter:
    assumes slots_available <= 0;
    ensures never: \result == 0;
  behavior positive_counter:
    assumes slots_available > 0;
    ensures gate_iff: \result == 1 <==> max_entries >= min_slots * slot_cost;
  complete behaviors;
  disjoint behaviors;
*/
int qs_preempt_gate(long long slots_available, long long max_entries,
                    int min_slots, int slot_cost)
{
    if (slots_available <= 0)
        return 0;
    return max_entries >= (long long)min_slots * slot_cost;
}

/* S-PRE-5: slots the current job may still accumulate, using the minimum
 * entry estimate so that the scheduler errs on the safe side. */
/* In words: what the job has earned (its counter) plus what its
 * remaining in-core entries will earn, in whole slots. */
/*@
  requires entries:  qs_ucount(min_entries);
  requires selected: qs_ucount(selected);
  requires counter:  -QS_SLOTS_MAX <= slots_available <= QS_SLOTS_MAX;
  requires cost:     qs_cost(slot_cost);
  assigns \nothing;
  ensures value: \result == (min_entries - selected + slots_available) / slot_cost;
  ensures shared: \result == qs_max_slots(min_entries, selected, slots_available,
                                          slot_cost);
  // Integer division rounds down here: the job can pay for \result
  // candidates' slots with what it has and may still earn, and not one more.
  ensures affordable: min_entries - selected + slots_available >= 0 ==>
    0 <= \result * slot_cost <= min_entries - selected + slots_available &&
    min_entries - selected + slots_available < (\result + 1) * slot_cost;
  ensures nothing_to_earn: min_entries - selected + slots_available < slot_cost ==>
    \result <= 0;
*/
long long qs_candidate_max_slots(long long min_entries, long long selected,
                                 long long slots_available, int slot_cost)
{
    return (min_entries - selected + slots_available) / slot_cost;
}

/* S-PRE-5: a candidate needs at least one and at most max_slots slots. */
/* needed 0 would be a job with nothing left to select: it has nothing
 * to gain from going first. */
/*@
  assigns \nothing;
  ensures boolean: \result == 0 || \result == 1;
  ensures fits_iff: \result == 1 <==> 1 <= needed <= max_slots;
  ensures shared: \result == 1 <==> qs_fits(needed, max_slots);
*/
int qs_candidate_fits(long long needed, long long max_slots)
{
    return needed > 0 && needed <= max_slots;
}

/* S-PRE-6: a/b > c/d with b, d >= 1, without rounding. */
/* Exact where Postfix compares two doubles: with delays up to 2^33 + 1
 * and totals up to 10^9 the products stay within 64 bits (the parser's
 * limits guarantee it), so no two different scores can ever tie by
 * rounding. */
/*@
  requires delays: 0 <= delay_a <= QS_DELAY_SAFE && 0 <= delay_b <= QS_DELAY_SAFE;
  requires totals: 1 <= total_a <= QS_COUNT_MAX && 1 <= total_b <= QS_COUNT_MAX;
  assigns \nothing;
  ensures boolean: \result == 0 || \result == 1;
  ensures cross: \result == 1 <==> delay_a * total_b > delay_b * total_a;
  // The same thing as a comparison of exact fractions.
  ensures score: \result == 1 <==>
    (real)delay_a / total_a > (real)delay_b / total_b;
*/
int qs_score_better(long long delay_a, long long total_a,
                    long long delay_b, long long total_b)
{
    /* Proof steps for `score` (multiply out one denominator at a time). */
    /*@ assert by_total_a:
          (real)delay_a / total_a > (real)delay_b / total_b <==>
          (real)delay_a > ((real)delay_b / total_b) * total_a; */
    /*@ assert regroup: ((real)delay_b / total_b) * total_a ==
                        (real)(delay_b * total_a) / total_b; */
    /*@ assert by_total_b:
          (real)delay_a > (real)(delay_b * total_a) / total_b <==>
          delay_a * total_b > delay_b * total_a; */
    return delay_a * total_b > delay_b * total_a;
}

/* S-PRE-6: delay <= best score, i.e. delay * total_best <= delay_best. */
/* The early stop of the candidate scan (preempt.c): a job whose delay
 * alone, divided by the smallest total (1), cannot beat the best score,
 * and every later job on a time-ordered list is younger still. */
/*@
  requires delays: 0 <= delay <= QS_DELAY_SAFE && 0 <= delay_best <= QS_DELAY_SAFE;
  requires total:  1 <= total_best <= QS_COUNT_MAX;
  assigns \nothing;
  ensures boolean: \result == 0 || \result == 1;
  ensures stop_iff: \result == 1 <==> delay * total_best <= delay_best;
  ensures score: \result == 1 <==> delay <= (real)delay_best / total_best;
  // Soundness of the early stop: no job with a delay <= this one and any
  // total >= 1 can have a strictly better score than the best.
  ensures sound: \result == 1 ==>
    \forall integer d, t; 0 <= d <= delay && t >= 1 ==>
      !(d * total_best > delay_best * t);
*/
int qs_score_cannot_improve(long long delay, long long delay_best,
                            long long total_best)
{
    return delay * total_best <= delay_best;
}

/* S-PRE-7: counter/k + loan >= needed * (100 - discount) / 100, computed
 * as 100 * (counter/k + loan) >= needed * (100 - discount) so that no
 * fraction is lost (Postfix compares against a double; same answer). */
/* The document's sequences for k = 2, a ten-entry job and two two-entry
 * jobs: 11112211113311 with discount 0 (wait for both slots), and
 * 11221111331111 with discount 50 (go once half is there). */
/*@
  requires counter:  -QS_SLOTS_MAX <= slots_available <= QS_SLOTS_MAX;
  requires cost:     qs_cost(slot_cost);
  requires loan:     0 <= loan <= QS_LOAN_MAX;
  requires discount: 0 <= discount <= 100;
  requires needed:   qs_ucount(needed);
  assigns \nothing;
  ensures boolean:   \result == 0 || \result == 1;
  ensures fires_iff: \result == 1 <==>
    100 * (slots_available / slot_cost + loan) >= needed * (100 - discount);
  ensures shared: \result == 1 <==>
    qs_fires(slots_available, slot_cost, loan, discount, needed);
  // The document's inequality with an exact right-hand side.
  ensures document: \result == 1 <==>
    slots_available / slot_cost + loan >= (real)(needed * (100 - discount)) / 100;
*/
int qs_preempt_fires(long long slots_available, int slot_cost, int loan,
                     int discount, long long needed)
{
    long long have = slots_available / slot_cost + loan;
    return 100 * have >= needed * (100 - discount);
}

/* S-PRE-8: the preempted job pays for the whole candidate at once. */
/* needed x k counter units are needed slots, since the counter counts
 * entries and k entries make a slot. */
/*@
  requires counter: -QS_SLOTS_MAX <= slots_available <= QS_SLOTS_MAX;
  requires needed:  qs_ucount(needed);
  requires cost:    qs_cost0(slot_cost);
  assigns \nothing;
  ensures charged:  \result == slots_available - needed * slot_cost;
  ensures shared:   \result == qs_charge(slots_available, needed, slot_cost);
  ensures pays:     \result <= slots_available;
*/
long long qs_slots_charge(long long slots_available, long long needed,
                          int slot_cost)
{
    return slots_available - needed * slot_cost;
}

/* S-PRE-9: refund on pop.  used_delta = entries really used - charged,
 * so subtracting used_delta * k gives back what was charged but unused
 * (or takes more when the child used more than it was charged). */
/* An adoptive parent (two or more levels up) never paid for the child,
 * so it gets nothing back; the child's slots_used is then simply dropped. */
/*@
  requires counter: -2 * QS_SLOTS_MAX <= parent_available <= 2 * QS_SLOTS_MAX;
  requires used:    qs_count(used_delta);
  requires cost:    qs_cost0(slot_cost);
  requires levels:  0 <= child_level <= QS_LEVEL_MAX &&
                    0 <= parent_level <= QS_LEVEL_MAX;
  assigns \nothing;
  behavior original_parent:
    assumes child_level == parent_level + 1;
    ensures refund: \result == parent_available - used_delta * slot_cost;
    ensures shared: \result == qs_refund(parent_available, used_delta, slot_cost);
  behavior adoptive_parent:
    assumes child_level != parent_level + 1;
    ensures no_refund: \result == parent_available;
  complete behaviors;
  disjoint behaviors;
*/
long long qs_slots_refund(long long parent_available, long long used_delta,
                          int slot_cost, int child_level, int parent_level)
{
    if (child_level != parent_level + 1)
        return parent_available;
    return parent_available - used_delta * slot_cost;
}

/* S-MEM-6: (extra + unused + 1) / 2, where unused is in [-extra, 0]
 * whenever this is called with the normal pool exhausted. */
/* What is left of the extra pool is extra + unused (unused <= 0 here,
 * the normal pool being held by the first unread job); half of it,
 * rounded up, leaves the other half for the next preemption. */
/*@
  requires extra:  qs_ucount(per_stack);
  requires pool:   -per_stack <= unused <= QS_COUNT_MAX;
  assigns \nothing;
  ensures value:   \result == (per_stack + unused + 1) / 2;
  // Half, rounded up, of what is left: never negative, never more than
  // what is left, so the pool stays >= -extra after paying it out.
  ensures nonneg:  \result >= 0;
  ensures half_up: 2 * \result == per_stack + unused ||
                   2 * \result == per_stack + unused + 1;
  ensures bounded: \result <= per_stack + unused;
  ensures pool_floor: unused - \result >= -per_stack;
*/
long long qs_pool_extra_share(long long per_stack, long long unused)
{
    return (per_stack + unused + 1) / 2;
}

/* S-MEM-5: a job can give back what neither it nor its message uses. */
/* The smaller of the job's spare slots and the message's: slots the
 * message uses to sponsor another job's recipients are not spare. */
/*@
  requires counts: qs_count(job_limit) && qs_count(job_count) &&
                   qs_count(msg_limit) && qs_count(msg_count);
  assigns \nothing;
  ensures job_bound: \result <= job_limit - job_count;
  ensures msg_bound: \result <= msg_limit - msg_count;
  ensures is_min:    \result == job_limit - job_count ||
                     \result == msg_limit - msg_count;
  ensures value:     \result == qs_unused(job_limit, job_count, msg_limit, msg_count);
*/
long long qs_pool_unused(long long job_limit, long long job_count,
                         long long msg_limit, long long msg_count)
{
    long long job_unused = job_limit - job_count;
    long long msg_unused = msg_limit - msg_count;
    return msg_unused < job_unused ? msg_unused : job_unused;
}

/* The checked kernels (see the top of this file); product builds skip it. */
#ifdef QS_CONTRACT_CHECKS
#define QS_RTC_WRAPPERS
#include "kernels_rtc.h"
#endif
