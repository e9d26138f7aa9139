/*
 * kernels.c - the pure decision kernels (see kernels.h).
 *
 * Each function here is one sentence of SCHEDULER_README turned into code,
 * with scalar inputs only, so that the ACSL contracts in this file can be
 * proved by Frama-C WP (make proofs) and the rules tested one by one.
 * No state, no I/O, no allocation.
 */
#include <math.h>
#include "kernels.h"

/* S-CON-2: g(N) = x | x/N | x/sqrt(N); the same shapes for f(N). */
double qs_fb_value(int form, double base, int window)
{
    if (form == QS_FB_CONC)
        return base / (double)window;
    if (form == QS_FB_SQRT)
        return base / sqrt((double)window);
    return base;
}

/* S-CON-4/S-CON-5: "After success" of the pseudocode. */
int qs_success_step(int window, double g, int limit, int guard,
                    double *success, double *failure)
{
    /* "Be prepared for feedback > hysteresis, or rounding error" */
    *success += g;
    /* Hysteresis 1: one step up per whole unit of accumulated feedback.
     * Postfix adds g/2 so that a sum like 7 * (1/7) that rounds to
     * 0.999... still completes its cycle (S-PFX-2). */
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
int qs_failure_step(int window, double f, int guard,
                    double *success, double *failure)
{
    *failure -= f;
    /* Reverse hysteresis: the step down happens at the START of a cycle of
     * 1/f negative feedback events, because failure drops below zero on the
     * first event of the cycle. */
    while (guard ? (*failure - f / 2 < 0) : (*failure < 0)) {
        window -= 1;
        *failure += 1;
        *success = 0;
    }
    if (window < 1)
        window = 1;
    return window;
}

/* S-CON-6: each failure is 1/window of a pseudo-cohort. */
double qs_cohort_add(double fail_cohorts, int window)
{
    return fail_cohorts + 1.0 / (double)window;
}

/* S-CON-8 / S-PFX-1: the dead-destination test. */
int qs_cohort_dead(double fail_cohorts, int limit, int postfix)
{
    if (postfix)
        return limit > 0 && fail_cohorts >= (double)limit;
    return fail_cohorts > (double)limit;
}

/* S-CON-3: "Don't apply positive feedback unless
 * concurrency < busy_refcount + init_dest_concurrency". */
int qs_safety_allows(int window, int busy, int init)
{
    return window < busy + init;
}

/* S-PRE-3: no attempt while the counter is <= 0 (loans can make it
 * negative) or while the job could never accumulate min_slots slots. */
int qs_preempt_gate(long long slots_available, long long max_entries,
                    int min_slots, int slot_cost)
{
    if (slots_available <= 0)
        return 0;
    return max_entries >= (long long)min_slots * slot_cost;
}

/* S-PRE-5: slots the current job may still accumulate, using the minimum
 * entry estimate so that the scheduler errs on the safe side. */
long long qs_candidate_max_slots(long long min_entries, long long selected,
                                 long long slots_available, int slot_cost)
{
    return (min_entries - selected + slots_available) / slot_cost;
}

/* S-PRE-5: a candidate needs at least one and at most max_slots slots. */
int qs_candidate_fits(long long needed, long long max_slots)
{
    return needed > 0 && needed <= max_slots;
}

/* S-PRE-6: a/b > c/d with b, d >= 1, without rounding. */
int qs_score_better(long long delay_a, long long total_a,
                    long long delay_b, long long total_b)
{
    return delay_a * total_b > delay_b * total_a;
}

/* S-PRE-6: delay <= best score, i.e. delay * total_best <= delay_best. */
int qs_score_cannot_improve(long long delay, long long delay_best,
                            long long total_best)
{
    return delay * total_best <= delay_best;
}

/* S-PRE-7: counter/k + loan >= needed * (100 - discount) / 100, computed
 * as 100 * (counter/k + loan) >= needed * (100 - discount) so that no
 * fraction is lost (Postfix compares against a double; same answer). */
int qs_preempt_fires(long long slots_available, int slot_cost, int loan,
                     int discount, long long needed)
{
    long long have = slots_available / slot_cost + loan;
    return 100 * have >= needed * (100 - discount);
}

/* S-PRE-8: the preempted job pays for the whole candidate at once. */
long long qs_slots_charge(long long slots_available, long long needed,
                          int slot_cost)
{
    return slots_available - needed * slot_cost;
}

/* S-PRE-9: refund on pop.  used_delta = entries really used - charged,
 * so subtracting used_delta * k gives back what was charged but unused
 * (or takes more when the child used more than it was charged). */
long long qs_slots_refund(long long parent_available, long long used_delta,
                          int slot_cost, int child_level, int parent_level)
{
    if (child_level != parent_level + 1)
        return parent_available;
    return parent_available - used_delta * slot_cost;
}

/* S-MEM-6: (extra + unused + 1) / 2, where unused is in [-extra, 0]
 * whenever this is called with the normal pool exhausted. */
long long qs_pool_extra_share(long long per_stack, long long unused)
{
    return (per_stack + unused + 1) / 2;
}

/* S-MEM-5: a job can give back what neither it nor its message uses. */
long long qs_pool_unused(long long job_limit, long long job_count,
                         long long msg_limit, long long msg_count)
{
    long long job_unused = job_limit - job_count;
    long long msg_unused = msg_limit - msg_count;
    return msg_unused < job_unused ? msg_unused : job_unused;
}
