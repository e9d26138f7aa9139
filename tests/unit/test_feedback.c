/*
 * test_feedback.c - table-driven tests of the concurrency feedback kernels
 * (src/kernels.c): qs_fb_value, qs_success_step, qs_failure_step,
 * qs_cohort_add, qs_cohort_dead, qs_safety_allows.
 *
 * Owns: the hand-worked arithmetic of the 2.5 concurrency scheduler
 * (SCHEDULER_README "Pseudocode for the Postfix 2.5 concurrency scheduler")
 * for every feedback form, several windows and both profiles (guard 0 =
 * the document's loops, guard 1 = Postfix's g/2, f/2 rounding guard,
 * S-PFX-2).  Every expected value below was worked out by hand from the
 * pseudocode; the comment next to each row shows the arithmetic.  Where a
 * double rounds (7 * (1/7) = 0.9999999999999998 < 1), the row says so: those
 * are the cases where the profiles part ways.
 *
 * The last section drives the public API to show the one postfix-profile
 * difference that no trace can reveal (S-PFX-3: no positive feedback at a
 * non-zero limit only changes `success`, which every later step-down wipes),
 * by comparing the canonical state encodings of the two profiles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kernels.h"
#include "qsched.h"

#define DOC 0 /* guard 0: the document's `while (success >= 1)` */
#define PFX 1 /* guard 1: Postfix's `while (success + g/2 >= 1)` */

/* Doubles that the arithmetic makes exact are compared exactly; values
 * like 1/sqrt(2) within one part in 10^15. */
static int near(double a, double b)
{
    return fabs(a - b) <= 1e-15 * (fabs(b) > 1 ? fabs(b) : 1);
}

#define CHECK_DBL(name, got, want)                                           \
    do {                                                                     \
        double gd_ = (got), wd_ = (want);                                    \
        check_count++;                                                       \
        if (near(gd_, wd_))                                                  \
            printf("ok %s\n", name);                                         \
        else {                                                               \
            printf("FAIL %s: got %.17g, want %.17g (%s:%d)\n", name, gd_,    \
                   wd_, __FILE__, __LINE__);                                 \
            check_failures++;                                                \
        }                                                                    \
    } while (0)

/* ------------------------------------------------------------------ */
/* S-CON-2: g(N) = x | x/N | x/sqrt(N)                                 */
/* ------------------------------------------------------------------ */

static const struct {
    const char *name;
    int form;
    double base;
    int window;
    double want;
} fb_rows[] = {
    /* constant: the window does not matter */
    {"S-CON-2 fb const 1 at N=1", QS_FB_CONST, 1.0, 1, 1.0},
    {"S-CON-2 fb const 0.25 at N=7", QS_FB_CONST, 0.25, 7, 0.25},
    {"S-CON-2 fb const 0 at N=3", QS_FB_CONST, 0.0, 3, 0.0},
    /* x/concurrency */
    {"S-CON-2 fb 1/N at N=1", QS_FB_CONC, 1.0, 1, 1.0},      /* 1/1 */
    {"S-CON-2 fb 1/N at N=4", QS_FB_CONC, 1.0, 4, 0.25},     /* 1/4 */
    {"S-CON-2 fb 0.5/N at N=5", QS_FB_CONC, 0.5, 5, 0.1},    /* .5/5 */
    {"S-CON-2 fb 1/N at N=20", QS_FB_CONC, 1.0, 20, 0.05},   /* 1/20 */
    /* x/sqrt_concurrency */
    {"S-CON-2 fb 1/sqrtN at N=1", QS_FB_SQRT, 1.0, 1, 1.0},  /* 1/1 */
    {"S-CON-2 fb 1/sqrtN at N=4", QS_FB_SQRT, 1.0, 4, 0.5},  /* 1/2 */
    {"S-CON-2 fb 1/sqrtN at N=9", QS_FB_SQRT, 1.0, 9, 1.0 / 3.0},
    {"S-CON-2 fb 0.5/sqrtN at N=16", QS_FB_SQRT, 0.5, 16, 0.125}, /* .5/4 */
    /* 1/sqrt(2) = 0.70710678118654752440... */
    {"S-CON-2 fb 1/sqrtN at N=2", QS_FB_SQRT, 1.0, 2, 0.70710678118654752},
};

static void test_fb_value(void)
{
    size_t i;
    for (i = 0; i < sizeof fb_rows / sizeof fb_rows[0]; i++)
        CHECK_DBL(fb_rows[i].name,
                  qs_fb_value(fb_rows[i].form, fb_rows[i].base,
                              fb_rows[i].window),
                  fb_rows[i].want);
}

/* ------------------------------------------------------------------ */
/* S-CON-4, S-CON-5: one "After success" step                         */
/* ------------------------------------------------------------------ */

static const struct {
    const char *name;
    int window;
    double g;
    int limit, guard;
    double s0, f0;
    int want_window;
    double want_s, want_f;
} up_rows[] = {
    /* s = 0 + 1 = 1 >= 1: window 5 -> 6, failure = 0, success = 0 */
    {"S-CON-4 up g=1 steps and clears failure", 5, 1.0, 20, DOC, 0, 0.7,
     6, 0, 0},
    /* s = 0 + .5 = .5 < 1: no step, failure untouched */
    {"S-CON-4 up g=.5 accumulates", 5, 0.5, 20, DOC, 0, 0.7, 5, 0.5, 0.7},
    /* s = .5 + .5 = 1: step, s = 0 */
    {"S-CON-4 up g=.5 second event steps", 5, 0.5, 20, DOC, 0.5, 0.7, 6, 0,
     0},
    /* "feedback > hysteresis": s = 1.5 + 1 = 2.5: two steps 5 -> 7, s = .5 */
    {"S-CON-4 up loop steps twice", 5, 1.0, 20, DOC, 1.5, 0.3, 7, 0.5, 0},
    /* overshoot: 20 + 1 = 21 > 20 -> 20 (S-CON-5) */
    {"S-CON-5 up clamped at limit", 20, 1.0, 20, DOC, 0, 0, 20, 0, 0},
    /* s = .5 + 1 = 1.5: 3 -> 4, s = .5, then clamp 4 -> 3 */
    {"S-CON-5 up clamp keeps remainder", 3, 1.0, 3, DOC, 0.5, 0, 3, 0.5, 0},
    /* g = 0 never moves anything */
    {"S-CON-4 up g=0 inert", 4, 0.0, 20, DOC, 0.25, 0.5, 4, 0.25, 0.5},
    /* postfix, limit 0 = no limit: 100 -> 101, no clamp (S-PFX-3) */
    {"S-PFX-3 up limit 0 no clamp", 100, 1.0, 0, PFX, 0, 0, 101, 0, 0},
    /* postfix guard, g = .4: s = .4 + .4 = .8; .8 + .2 = 1 >= 1: step,
     * s = .8 - 1 = -.2; -.2 + .2 = 0 < 1: stop.  The document needs a
     * third event (1.2 >= 1). */
    {"S-PFX-2 up guard g=.4 steps at .8", 3, 0.4, 20, PFX, 0.4, 0, 4, -0.2,
     0},
    {"S-CON-4 up doc g=.4 waits at .8", 3, 0.4, 20, DOC, 0.4, 0, 3, 0.8, 0},
    /* postfix guard, g = 1: s = 1: 1 + .5 >= 1 step, s = 0; 0 + .5 < 1 */
    {"S-PFX-2 up guard g=1 one step", 5, 1.0, 20, PFX, 0, 0.4, 6, 0, 0},
};

static void test_success_step(void)
{
    size_t i;
    char name[160];
    for (i = 0; i < sizeof up_rows / sizeof up_rows[0]; i++) {
        double s = up_rows[i].s0, f = up_rows[i].f0;
        int w;
#ifdef QS_CONTRACT_CHECKS
        /* The one row outside the kernel's contract (success 1.5, the
         * "feedback > hysteresis" robustness row; requires success_range)
         * would rightly stop the contract-checked build (src/kernels_rtc.h):
         * it runs in the plain build only. */
        if (!(s < 1))
            continue;
#endif
        w = qs_success_step(up_rows[i].window, up_rows[i].g,
                                up_rows[i].limit, up_rows[i].guard, &s, &f);
        snprintf(name, sizeof name, "%s: window", up_rows[i].name);
        CHECK_EQ_LL(name, w, up_rows[i].want_window);
        snprintf(name, sizeof name, "%s: success", up_rows[i].name);
        CHECK_DBL(name, s, up_rows[i].want_s);
        snprintf(name, sizeof name, "%s: failure", up_rows[i].name);
        CHECK_DBL(name, f, up_rows[i].want_f);
    }
}

/* ------------------------------------------------------------------ */
/* S-CON-7: one "After failure" step (reverse hysteresis)             */
/* ------------------------------------------------------------------ */

static const struct {
    const char *name;
    int window;
    double f;
    int guard;
    double s0, f0;
    int want_window;
    double want_s, want_f;
} down_rows[] = {
    /* failure = 0 - 1 = -1 < 0: 5 -> 4, failure = 0, success = 0 */
    {"S-CON-7 down f=1 steps and clears success", 5, 1.0, DOC, 0.6, 0, 4, 0,
     0},
    /* failure = .5 - .25 = .25 >= 0: no step, success kept */
    {"S-CON-7 down inside cycle keeps success", 5, 0.25, DOC, 0.6, 0.5, 5,
     0.6, 0.25},
    /* start of a cycle: failure = 0 - .25 < 0: 5 -> 4 at once, .75 left */
    {"S-CON-7 down f=.25 steps at cycle start", 5, 0.25, DOC, 0.6, 0, 4, 0,
     0.75},
    /* overshoot loop: failure = -1.5 - 1 = -2.5: 5 -> 4 (-1.5) -> 3 (-.5)
     * -> 2 (.5) */
    {"S-CON-7 down loop steps three times", 5, 1.0, DOC, 0, -1.5, 2, 0, 0.5},
    /* window 1: failure -1 -> window 0, failure 0; clamp to 1 */
    {"S-CON-7 down clamped at 1", 1, 1.0, DOC, 0, 0, 1, 0, 0},
    /* f = 0: nothing moves (postfix guard: 0 - 0 < 0 is false too) */
    {"S-CON-7 down f=0 inert", 3, 0.0, DOC, 0.5, 0, 3, 0.5, 0},
    {"S-PFX-2 down f=0 inert", 3, 0.0, PFX, 0.5, 0, 3, 0.5, 0},
    /* postfix guard, f = 1 from a reset: failure = -1; -1 - .5 < 0: 5 -> 4,
     * failure 0; 0 - .5 < 0: 4 -> 3, failure 1; 1 - .5 >= 0: stop.  The
     * first failure lowers 5 -> 3 (issue 3, item 5). */
    {"S-PFX-2 down f=1 first failure 5->3", 5, 1.0, PFX, 0.5, 0, 3, 0, 1},
    /* then failure = 1 - 1 = 0; 0 - .5 < 0: 3 -> 2, failure 1; stop */
    {"S-PFX-2 down f=1 later failure by 1", 3, 1.0, PFX, 0, 1, 2, 0, 1},
    /* postfix guard, f = .5 at failure .5: 0; 0 - .25 < 0: step (the
     * document waits: 0 < 0 is false) */
    {"S-PFX-2 down guard f=.5 steps at 0", 4, 0.5, PFX, 0, 0.5, 3, 0, 1},
    {"S-CON-7 down doc f=.5 waits at 0", 4, 0.5, DOC, 0.3, 0.5, 4, 0.3, 0},
};

static void test_failure_step(void)
{
    size_t i;
    char name[160];
    for (i = 0; i < sizeof down_rows / sizeof down_rows[0]; i++) {
        double s = down_rows[i].s0, f = down_rows[i].f0;
        int w;
#ifdef QS_CONTRACT_CHECKS
        /* Likewise failure -1.5 (requires failure_range): plain build only. */
        if (f < 0)
            continue;
#endif
        w = qs_failure_step(down_rows[i].window, down_rows[i].f,
                                down_rows[i].guard, &s, &f);
        snprintf(name, sizeof name, "%s: window", down_rows[i].name);
        CHECK_EQ_LL(name, w, down_rows[i].want_window);
        snprintf(name, sizeof name, "%s: success", down_rows[i].name);
        CHECK_DBL(name, s, down_rows[i].want_s);
        snprintf(name, sizeof name, "%s: failure", down_rows[i].name);
        CHECK_DBL(name, f, down_rows[i].want_f);
    }
}

/* ------------------------------------------------------------------ */
/* Sequences: the window after each of n events, g or f recomputed    */
/* from the current window each time (as the scheduler does).         */
/* ------------------------------------------------------------------ */

struct seq_row {
    const char *name;
    int up;          /* 1: success events, 0: failure events */
    int form;
    double base;
    int window, limit, guard;
    int n;
    int want[24];    /* window after event 1..n */
};

static const struct seq_row seq_rows[] = {
    /* 1/N from 2, exact sums: 2 events at N=2 (.5, 1) -> 3; 3 at N=3
     * (1/3+1/3+1/3 = 1.0 exactly in doubles) -> 4; 4 at N=4 -> 5; 5 at
     * N=5 (.2 * 5 = 1.0 exactly) -> 6: linear growth, one step per
     * pseudo-cohort of N events, at the END of the cycle. */
    {"S-CON-4 seq doc 1/N linear from 2", 1, QS_FB_CONC, 1, 2, 20, DOC, 14,
     {2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6}},
    /* the guard changes nothing while the sums are exact:
     * (N-1)/N + 1/(2N) = (2N-1)/(2N) < 1 */
    {"S-PFX-2 seq pfx 1/N linear from 2", 1, QS_FB_CONC, 1, 2, 20, PFX, 14,
     {2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6}},
    /* N = 6: six additions of 1/6 give 0.9999999999999999 < 1: the
     * document needs a 7th event; Postfix steps at the 6th
     * (0.99.. + 1/12 >= 1). */
    {"S-CON-4 seq doc 1/N at 6 rounds low", 1, QS_FB_CONC, 1, 6, 20, DOC, 7,
     {6, 6, 6, 6, 6, 6, 7}},
    {"S-PFX-2 seq pfx 1/N at 6 guard", 1, QS_FB_CONC, 1, 6, 20, PFX, 7,
     {6, 6, 6, 6, 6, 7, 7}},
    /* N = 7: seven additions of 1/7 give 0.9999999999999998 */
    {"S-CON-4 seq doc 1/N at 7 rounds low", 1, QS_FB_CONC, 1, 7, 20, DOC, 8,
     {7, 7, 7, 7, 7, 7, 7, 8}},
    {"S-PFX-2 seq pfx 1/N at 7 guard", 1, QS_FB_CONC, 1, 7, 20, PFX, 8,
     {7, 7, 7, 7, 7, 7, 8, 8}},
    /* g = 1: +1 per event (the old scheduler), until the limit 8 */
    {"S-CON-5 seq doc g=1 stops at limit", 1, QS_FB_CONST, 1, 5, 8, DOC, 5,
     {6, 7, 8, 8, 8}},
    /* g = .4: doc .4 .8 1.2(step, .2) .6 1.0(step); postfix .4,
     * .8+.2>=1 (step, -.2), .2, .6, 1.0 (step) */
    {"S-CON-4 seq doc g=.4", 1, QS_FB_CONST, 0.4, 3, 20, DOC, 5,
     {3, 3, 4, 4, 5}},
    {"S-PFX-2 seq pfx g=.4", 1, QS_FB_CONST, 0.4, 3, 20, PFX, 5,
     {3, 4, 4, 4, 5}},
    /* 1/sqrt(N) from 4: .5, 1 (step to 5); 1/sqrt5 = .4472: .447, .894,
     * 1.342 (step to 6, .342 left); 1/sqrt6 = .4082: .750, 1.158 (step) */
    {"S-CON-4 seq doc 1/sqrtN from 4", 1, QS_FB_SQRT, 1, 4, 20, DOC, 7,
     {4, 5, 5, 5, 6, 6, 7}},

    /* f = 1: -1 per failure down to 1 */
    {"S-CON-7 seq doc f=1 from 5", 0, QS_FB_CONST, 1, 5, 0, DOC, 5,
     {4, 3, 2, 1, 1}},
    /* postfix f = 1: 5 -> 3 first (see down_rows), then by 1 */
    {"S-PFX-2 seq pfx f=1 from 5", 0, QS_FB_CONST, 1, 5, 0, PFX, 4,
     {3, 2, 1, 1}},
    /* 1/N from 4, document: -.25 (step at once, .75); at N=3: .4167,
     * .0833, -.25 (step at the start of the next cycle, .75); at N=2:
     * .25, -.25 (step); at N=1: -.25 -> 0, clamped to 1 */
    {"S-CON-7 seq doc 1/N from 4", 0, QS_FB_CONC, 1, 4, 0, DOC, 7,
     {3, 3, 3, 2, 2, 1, 1}},
    /* postfix: -.25-.125 < 0 (step, .75); .4167-.1667 >= 0; .0833-.1667
     * < 0 (step, 1.0833); at N=2: .5833-.25 >= 0; .0833-.25 < 0 (step,
     * 1.0833); at N=1: .0833-.5 < 0 -> 0, clamped to 1 */
    {"S-PFX-2 seq pfx 1/N from 4", 0, QS_FB_CONC, 1, 4, 0, PFX, 6,
     {3, 3, 2, 2, 1, 1}},
    /* f = .5: document -.5 (step, .5), 0 (no step: 0 < 0 false), -.5
     * (step) ...; postfix steps at 0 as well (0 - .25 < 0) */
    {"S-CON-7 seq doc f=.5 from 5", 0, QS_FB_CONST, 0.5, 5, 0, DOC, 4,
     {4, 4, 3, 3}},
    {"S-PFX-2 seq pfx f=.5 from 5", 0, QS_FB_CONST, 0.5, 5, 0, PFX, 4,
     {4, 3, 3, 2}},
    /* 1/sqrt(N) from 4: -.5 (step, .5); 1/sqrt3 = .5774: -.077 (step,
     * .923); 1/sqrt2 = .7071: .216; -.491 (step) */
    {"S-CON-7 seq doc 1/sqrtN from 4", 0, QS_FB_SQRT, 1, 4, 0, DOC, 4,
     {3, 2, 2, 1}},
    /* f = 0 and any guard: the window never moves */
    {"S-CON-7 seq pfx f=0 inert", 0, QS_FB_CONST, 0, 4, 0, PFX, 3,
     {4, 4, 4}},
};

static void test_sequences(void)
{
    size_t i;
    int k;
    char detail[256];
    for (i = 0; i < sizeof seq_rows / sizeof seq_rows[0]; i++) {
        const struct seq_row *r = &seq_rows[i];
        double s = 0, f = 0;
        int w = r->window, bad = -1, got = 0;
        for (k = 0; k < r->n; k++) {
            double v = qs_fb_value(r->form, r->base, w);
            w = r->up ? qs_success_step(w, v, r->limit, r->guard, &s, &f)
                      : qs_failure_step(w, v, r->guard, &s, &f);
            if (w != r->want[k] && bad < 0) {
                bad = k;
                got = w;
            }
        }
        check_count++;
        if (bad < 0)
            printf("ok %s\n", r->name);
        else {
            snprintf(detail, sizeof detail, "after event %d window %d, want "
                     "%d", bad + 1, got, r->want[bad]);
            printf("FAIL %s: %s\n", r->name, detail);
            check_failures++;
        }
    }
}

/* ------------------------------------------------------------------ */
/* S-CON-6, S-CON-8, S-PFX-1: pseudo-cohort failure counting          */
/* ------------------------------------------------------------------ */

/* fail_cohorts after n failures at a constant window (negative feedback
 * 0 keeps the window constant in the scheduler too). */
static double cohorts_after(int n, int window)
{
    double c = 0;
    while (n-- > 0)
        c = qs_cohort_add(c, window);
    return c;
}

/* The first failure (1-based) that declares the destination dead. */
static int dead_at(int window, int limit, int postfix)
{
    double c = 0;
    int n;
    for (n = 1; n <= 1000; n++) {
        c = qs_cohort_add(c, window);
        if (qs_cohort_dead(c, limit, postfix))
            return n;
    }
    return 0; /* never */
}

static void test_cohorts(void)
{
    /* 0 + 1/5 = .2; .2 + 1/4 = .45; .45 + 1/2 = .95 */
    CHECK_DBL("S-CON-6 cohort_add 1/5", qs_cohort_add(0, 5), 0.2);
    CHECK_DBL("S-CON-6 cohort_add +1/4", qs_cohort_add(0.2, 4), 0.45);
    CHECK_DBL("S-CON-6 cohort_add +1/2", qs_cohort_add(0.45, 2), 0.95);
    /* five failures at window 5 are exactly one pseudo-cohort */
    CHECK_DBL("S-CON-6 cohort five 1/5 = 1", cohorts_after(5, 5), 1.0);

    /* the dead test itself */
    CHECK("S-CON-8 doc 1.0 > 1 is false", !qs_cohort_dead(1.0, 1, 0));
    CHECK("S-CON-8 doc 1.25 > 1", qs_cohort_dead(1.25, 1, 0));
    CHECK("S-PFX-1 pfx 1.0 >= 1", qs_cohort_dead(1.0, 1, 1));
    CHECK("S-PFX-1 pfx .95 < 1", !qs_cohort_dead(0.95, 1, 1));
    CHECK("S-CON-8 doc 2.0 > 2 is false", !qs_cohort_dead(2.0, 2, 0));
    CHECK("S-PFX-1 pfx 2.0 >= 2", qs_cohort_dead(2.0, 2, 1));
    /* limit 0: Postfix disables detection; the document's `> 0` makes
     * any failure fatal (taken verbatim) */
    CHECK("S-PFX-1 pfx limit 0 never dead", !qs_cohort_dead(100.0, 0, 1));
    CHECK("S-CON-8 doc limit 0 first failure", qs_cohort_dead(0.2, 0, 0));
    CHECK("S-CON-8 doc limit 0 with 0 cohorts", !qs_cohort_dead(0.0, 0, 0));

    /* counting failures at a constant window: limit 1, window 5: Postfix
     * dead at the 5th (5/5 = 1 >= 1), the document at the 6th (6/5 > 1):
     * "dead after one failed cohort", not one failure earlier. */
    CHECK_EQ_LL("S-PFX-1 window 5 limit 1 dead at 5th", dead_at(5, 1, 1), 5);
    CHECK_EQ_LL("S-CON-8 window 5 limit 1 dead at 6th", dead_at(5, 1, 0), 6);
    /* limit 2, window 4: 8/4 = 2 (Postfix dead), 9/4 > 2 (document) */
    CHECK_EQ_LL("S-PFX-1 window 4 limit 2 dead at 8th", dead_at(4, 2, 1), 8);
    CHECK_EQ_LL("S-CON-8 window 4 limit 2 dead at 9th", dead_at(4, 2, 0), 9);
    /* rounding: ten additions of 1/10 give 0.9999999999999999 < 1, so
     * Postfix (no guard on this comparison) needs an 11th failure too */
    CHECK("S-CON-6 ten 1/10 round below 1", cohorts_after(10, 10) < 1.0);
    CHECK_EQ_LL("S-PFX-1 window 10 rounds: dead at 11th", dead_at(10, 1, 1),
                11);
    CHECK_EQ_LL("S-CON-8 window 10 dead at 11th", dead_at(10, 1, 0), 11);
    /* and nine additions of 1/9 give 1.0000000000000002 > 1: the document
     * is dead at the 9th failure, like Postfix */
    CHECK("S-CON-6 nine 1/9 round above 1", cohorts_after(9, 9) > 1.0);
    CHECK_EQ_LL("S-CON-8 window 9 rounds: dead at 9th", dead_at(9, 1, 0), 9);
    CHECK_EQ_LL("S-PFX-1 window 9 dead at 9th", dead_at(9, 1, 1), 9);
    /* the old scheduler (cohort limit 1) at window 1: one failure */
    CHECK_EQ_LL("S-PFX-1 window 1 limit 1 dead at 1st", dead_at(1, 1, 1), 1);
    CHECK_EQ_LL("S-CON-8 window 1 limit 1 dead at 2nd", dead_at(1, 1, 0), 2);
    CHECK_EQ_LL("S-PFX-1 limit 0 never dead", dead_at(3, 0, 1), 0);
}

/* ------------------------------------------------------------------ */
/* S-CON-3: the safety rule window < busy + init                      */
/* ------------------------------------------------------------------ */

static const struct {
    const char *name;
    int window, busy, init, want;
} safety_rows[] = {
    {"S-CON-3 safety 5 < 0+5 false", 5, 0, 5, 0},
    {"S-CON-3 safety 5 < 1+5", 5, 1, 5, 1},
    {"S-CON-3 safety 9 < 4+5 false", 9, 4, 5, 0},
    {"S-CON-3 safety 8 < 4+5", 8, 4, 5, 1},
    /* init 1, one delivery: the document (busy without it) never grows,
     * Postfix (busy with it, S-PFX-6) does */
    {"S-CON-3 safety 1 < 0+1 false", 1, 0, 1, 0},
    {"S-PFX-6 safety 1 < 1+1", 1, 1, 1, 1},
};

static void test_safety(void)
{
    size_t i;
    for (i = 0; i < sizeof safety_rows / sizeof safety_rows[0]; i++)
        CHECK_EQ_LL(safety_rows[i].name,
                    qs_safety_allows(safety_rows[i].window,
                                     safety_rows[i].busy,
                                     safety_rows[i].init),
                    safety_rows[i].want);
}

/* ------------------------------------------------------------------ */
/* S-PFX-3 through the API: the state difference no trace shows       */
/* ------------------------------------------------------------------ */

/* Returns the canonical state encoding after: init = limit = 3, positive
 * feedback 1/2; two deliveries to example.com in flight; the first
 * completes ok.  Document: busy (without it) = 1, 3 < 1 + 3: feedback
 * applies: success = .5 (no step, window stays 3).  Postfix: window 3 ==
 * limit 3: positive feedback skipped, success stays 0. */
static char *limit_state(enum qs_profile profile)
{
    char err[256];
    qs_params *p = qs_params_new();
    qs_sched *s;
    qs_group g = {"smtp", NULL, "example.com", 6};
    qs_delivery d1, d2;
    char *buf = NULL;
    size_t n;
    if (!p)
        return NULL;
    if (qs_params_set(p, "default_destination_recipient_limit", "2", err,
                      sizeof err) ||
        qs_params_set(p, "initial_destination_concurrency", "3", err,
                      sizeof err) ||
        qs_params_set(p, "default_destination_concurrency_limit", "3", err,
                      sizeof err) ||
        qs_params_set(p, "default_destination_concurrency_positive_feedback",
                      "1/2", err, sizeof err)) {
        qs_params_free(p);
        return NULL;
    }
    s = qs_sched_new(p, profile, NULL, NULL, err, sizeof err);
    qs_params_free(p);
    if (!s)
        return NULL;
    if (qs_arrive(s, "M1", &g, 1, err, sizeof err) == 0 &&
        qs_select(s, NULL, &d1, err, sizeof err) == 1 &&
        qs_select(s, NULL, &d2, err, sizeof err) == 1 &&
        qs_done(s, d1.handle, QS_DONE_OK, err, sizeof err) == 0) {
        n = qs_encode_state(s, NULL, 0);
        buf = malloc(n + 1);
        if (buf)
            qs_encode_state(s, buf, n + 1);
    }
    qs_sched_free(s);
    return buf;
}

static void test_limit_state(void)
{
    char *doc = limit_state(QS_PROFILE_DOCUMENT);
    char *pfx = limit_state(QS_PROFILE_POSTFIX);
    /* %a encodings: .5 = 0x1p-1, 0 = 0x0p+0 */
    CHECK("S-CON-4 at the limit the document accumulates success .5",
          doc && strstr(doc, "Qexample.com w3 s0x1p-1 ") != NULL);
    CHECK("S-PFX-3 at the limit postfix skips positive feedback",
          pfx && strstr(pfx, "Qexample.com w3 s0x0p+0 ") != NULL);
    free(doc);
    free(pfx);
}

int main(void)
{
    test_fb_value();
    test_success_step();
    test_failure_step();
    test_sequences();
    test_cohorts();
    test_safety();
    test_limit_state();
    return CHECK_DONE();
}
