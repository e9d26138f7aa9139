/*
 * test_index_rental.c - when a long job list keeps its index (the ski
 * rental of src/job_index.c qsi_cix_resize and src/preempt_scan.c
 * qsi_job_candidate, issue 16).
 *
 * Owns: the promise that the list index is built and dropped where the
 * rental says, so that a change that silently stops charging rent,
 * charges the wrong rent, stops counting idle upkeep, stops trying the
 * walk beside the index or forgets CIX_OWN (every answer would still be
 * the walk's: tests/identity.sh and the crosscheck builds cannot see it,
 * only the bench could) fails here.  The expected moments are derived by
 * hand from the rule and its default thresholds (CIX_BUILD 64, CIX_BUY
 * 32 steps per listed job, drop past njobs / CIX_IDLE_PART = njobs / 2
 * changes not followed by a use, CIX_OWN 4,096; a walk tried beside one
 * question in CIX_SAMPLE 64, for CIX_SAMPLE_STEPS 128 jobs at most, and
 * questions counting as uses for CIX_WORTH 4 tries after the last long
 * one), on document-profile schedulers (no candidate cache, S-PFX-20;
 * not the blocker index's readings) whose messages each bring one job to
 * smtp at time 0, linked at the tail (the walk from the tail stops at
 * once: no rent, no index answer).
 *
 * First scheduler: the head job has one recipient and may pay for one
 * slot (its counter set to the slot cost 5: (1 - 0 + 5) / 5 = 1), every
 * other job two recipients at two destinations (2 entries: it never
 * fits), so a candidate walk has no best, no early stop, and looks at
 * every job after the head:
 *   - 100 jobs, no question: not built;
 *   - 32 questions walk 99 jobs: rent 3,168 (the steps, not the list's
 *     length); the 101st link compares it with 32 x 101 = 3,232: off;
 *   - one more question walks 100: rent 3,268; the 102nd link compares
 *     with 32 x 102 = 3,264: built;
 *   - the 103rd link counts one idle change; the first question after
 *     the build tries the walk (102 jobs: it ends before 128: short,
 *     worth 4 -> 3) and, worth left, counts as a use: idle 0;
 *   - the tries at questions 64 and 128 are short too (worth 1); 5 links;
 *     the try at question 192 is the fourth short one: worth 0, and that
 *     question no longer clears the 5 idle changes;
 *   - k more links with no question: idle 5 + k against (108 + k) / 2:
 *     k = 98 keeps it (103 > 103 is false), k = 99 drops it;
 *   - 40 questions walking 206 jobs: rent 8,240 > 32 x 208: the 208th
 *     link builds it again; its first question's try walks 128 of the 207
 *     jobs after the head without ending: long, a use; so are the tries
 *     at 64, 128, 192: idle stays 0.
 * Second scheduler, every job one recipient:
 *   - past 4,096 jobs a list keeps its index for its length: built at
 *     the 4,097th link without any question, and 5,000 more links
 *     without a question keep it (worth 4 from the build);
 *   - the head may pay for one slot: a question's walk finds the next job
 *     (needed 1) and stops there (a level-0 job whose age cannot beat the
 *     best score: no later job, enqueued no earlier, can): 1 step, short.
 *     193 questions: the 193rd's try is the fourth short one (worth 0),
 *     the others cleared idle;
 *   - k links: idle k against (9,097 + k) / 2: k = 9,097 keeps it, k =
 *     9,098 drops it, and the list, let go while long, is not rebuilt
 *     for its length at the next link;
 *   - a question then walks its 1 step and pays 1 of rent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "check.h"

static char err[256];
static int serial;

/* One more message for smtp with n recipients (1 or 2), each at a
 * destination of its own: one more job on smtp's list. */
static int arrive_n(qs_sched *s, int n)
{
    char id[32], dest[2][48];
    qs_group g[2] = {{"smtp", NULL, dest[0], 1}, {"smtp", NULL, dest[1], 1}};
    serial++;
    snprintf(id, sizeof id, "M%d", serial);
    snprintf(dest[0], sizeof dest[0], "d%da.example", serial);
    snprintf(dest[1], sizeof dest[1], "d%db.example", serial);
    return qs_arrive(s, id, g, (size_t)n, err, sizeof err) == 0;
}

static int arrive_many(qs_sched *s, int count, int n)
{
    int i;
    for (i = 0; i < count; i++)
        if (!arrive_n(s, n))
            return 0;
    return 1;
}

/* A preemption candidate question, for the head of the list. */
static void ask(qs_sched *s, qs_transport *t, int times)
{
    int64_t delay, total, max_slots;
    int i;
    for (i = 0; i < times; i++)
        (void)qsi_job_candidate(s, t->jhead, &delay, &total, &max_slots);
}

static qs_sched *scheduler(void)
{
    qs_params *p = qs_params_new();
    qs_sched *s = p ? qs_sched_new(p, QS_PROFILE_DOCUMENT, NULL, NULL, err,
                                   sizeof err)
                    : NULL;
    qs_params_free(p);
    if (!s)
        printf("FAIL rental-setup: %s\n", err);
    return s;
}

/* The first scheduler: rent, build, tries, drop, long tries. */
static void walks_without_early_stop(qs_sched *s)
{
    int ok = arrive_n(s, 1) && arrive_many(s, 99, 2);
    qs_transport *t = qsi_transport_find(s, "smtp");
    CHECK("rental-setup-100-jobs", ok && t && t->njobs == 100);
    if (!ok || !t)
        return;
    CHECK("rental-no-question-no-index", !t->cix_on && t->cix_rent == 0);
    t->jhead->slots_available = t->slot_cost; /* it may pay for one slot */

    ask(s, t, 32);
    CHECK_EQ_LL("rental-rent-is-the-steps", t->cix_rent, 32 * 99);
    ok = arrive_n(s, 2);
    CHECK("rental-rent-short-of-build", ok && t->njobs == 101 && !t->cix_on);

    ask(s, t, 1);
    CHECK_EQ_LL("rental-rent-one-more-walk", t->cix_rent, 32 * 99 + 100);
    ok = arrive_n(s, 2);
    CHECK("rental-built-past-32-per-job",
          ok && t->njobs == 102 && t->cix_on && t->cix_idle == 0 &&
          t->cix_worth == CIX_WORTH && t->cix_asked == 0);

    ok = arrive_n(s, 2);
    CHECK_EQ_LL("rental-idle-counts-a-change", t->cix_idle, 1);
    ask(s, t, 1);
    CHECK("rental-short-try-still-a-use",
          t->cix_idle == 0 && t->cix_worth == CIX_WORTH - 1 &&
          t->cix_asked == 1);

    ask(s, t, 191);
    CHECK_EQ_LL("rental-three-short-tries", t->cix_worth, 1);
    ok = arrive_many(s, 5, 2);
    CHECK_EQ_LL("rental-five-idle", t->cix_idle, 5);
    ask(s, t, 1);
    CHECK("rental-fourth-short-try-not-a-use",
          ok && t->cix_worth == 0 && t->cix_idle == 5 && t->cix_asked == 193);

    ok = arrive_many(s, 98, 2);
    CHECK("rental-kept-at-103-idle",
          ok && t->njobs == 206 && t->cix_on && t->cix_idle == 103);
    ok = arrive_n(s, 2);
    CHECK("rental-dropped-at-104-idle",
          ok && t->njobs == 207 && !t->cix_on && t->cix_rent == 0 &&
          !t->cix_let_go);

    ask(s, t, 40);
    CHECK_EQ_LL("rental-rent-again", t->cix_rent, 40 * 206);
    ok = arrive_n(s, 2);
    CHECK("rental-built-again", ok && t->njobs == 208 && t->cix_on);
    ok = arrive_many(s, 3, 2);
    ask(s, t, 1);
    CHECK("rental-long-try-a-use",
          ok && t->cix_worth == CIX_WORTH && t->cix_idle == 0);
    ask(s, t, 192);
    ok = arrive_n(s, 2);
    ask(s, t, 1);
    CHECK("rental-long-tries-keep-it",
          ok && t->cix_on && t->cix_worth == CIX_WORTH && t->cix_idle == 0 &&
          t->cix_asked == 194);
}

/* The second scheduler: CIX_OWN, short walks, let go. */
static void long_list_short_walks(qs_sched *s)
{
    int ok = arrive_many(s, 4096, 1);
    qs_transport *t = qsi_transport_find(s, "smtp");
    CHECK("rental-not-owned-at-4096", ok && t && t->njobs == 4096 &&
          !t->cix_on);
    if (!ok || !t)
        return;
    ok = arrive_n(s, 1);
    CHECK("rental-owned-past-4096", ok && t->njobs == 4097 && t->cix_on);
    ok = arrive_many(s, 5000, 1);
    CHECK("rental-owned-kept-without-questions",
          ok && t->njobs == 9097 && t->cix_on && t->cix_idle == 5000);

    t->jhead->slots_available = t->slot_cost;
    ask(s, t, 193);
    CHECK("rental-short-walks-four-tries",
          t->cix_worth == 0 && t->cix_idle == 0 && t->cix_asked == 193);
    ok = arrive_many(s, 9097, 1);
    CHECK("rental-owned-kept-at-9097-idle",
          ok && t->njobs == 18194 && t->cix_on && t->cix_idle == 9097);
    ok = arrive_n(s, 1);
    CHECK("rental-let-go-at-9098-idle",
          ok && t->njobs == 18195 && !t->cix_on && t->cix_let_go);
    ok = arrive_n(s, 1);
    CHECK("rental-let-go-not-rebuilt-for-length",
          ok && t->njobs == 18196 && !t->cix_on);
    ask(s, t, 1);
    CHECK_EQ_LL("rental-short-walk-pays-its-steps", t->cix_rent, 1);
}

int main(void)
{
    qs_sched *s;
    if ((s = scheduler()) != NULL) {
        walks_without_early_stop(s);
        qs_sched_free(s);
    }
    if ((s = scheduler()) != NULL) {
        long_list_short_walks(s);
        qs_sched_free(s);
    }
    return CHECK_DONE();
}
