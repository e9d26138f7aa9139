/*
 * test_index_rental.c - when a long job list keeps its index (the ski
 * rental of src/job_index.c qsi_cix_resize, issue 16).
 *
 * Owns: the promise that the list index is built and dropped where the
 * rental says, so that a change that silently stops charging rent, stops
 * counting idle upkeep or forgets CIX_OWN (every answer would still be
 * the walk's: tests/identity.sh and the crosscheck builds cannot see it,
 * only the bench could) fails here.  The expected moments are derived by
 * hand from the rule and its default thresholds (CIX_BUILD 64, CIX_BUY
 * 32 steps per listed job, drop past njobs / CIX_IDLE_PART = njobs / 2
 * unanswered changes, CIX_OWN 4,096), on a document-profile scheduler
 * (no candidate cache, S-PFX-20; not the blocker index's readings) whose
 * messages each bring one job to smtp at time 0, linked at the tail (the
 * walk from the tail stops at once: no rent, no index answer):
 *   - 100 jobs, no question: the index is not built (before the rental
 *     it was, at 65);
 *   - 32 candidate questions walk the 100 jobs: rent 3,200; the 101st
 *     job's link compares it with 32 x 101 = 3,232: still off;
 *   - one more question charges 101: rent 3,301; the 102nd job's link
 *     compares with 32 x 102 = 3,264: built, idle 0;
 *   - the 103rd job's link counts one idle change; a question answered
 *     by the index clears the count;
 *   - with the index on and no question, the k-th link after that counts
 *     k idle changes against (103 + k) / 2: k = 103 keeps it (103 > 206
 *     / 2 is false), k = 104 drops it (104 > 207 / 2 = 103), and the
 *     drop clears the rent;
 *   - past 4,096 jobs the list owns its index: built at the link of the
 *     4,097th job without any question, and 5,000 more links without a
 *     question keep it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "check.h"

static char err[256];
static int serial;

/* One more message of one recipient for smtp, at a destination of its
 * own: one more job on smtp's list. */
static int arrive_one(qs_sched *s)
{
    char id[32], dest[48];
    qs_group g = {"smtp", NULL, dest, 1};
    serial++;
    snprintf(id, sizeof id, "M%d", serial);
    snprintf(dest, sizeof dest, "d%d.example", serial);
    return qs_arrive(s, id, &g, 1, err, sizeof err) == 0;
}

static int arrive_many(qs_sched *s, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (!arrive_one(s))
            return 0;
    return 1;
}

/* A preemption candidate question, from the head of the list. */
static void ask(qs_sched *s, qs_transport *t)
{
    int64_t delay, total, max_slots;
    (void)qsi_job_candidate(s, t->jhead, &delay, &total, &max_slots);
}

int main(void)
{
    qs_params *p = qs_params_new();
    qs_sched *s = p ? qs_sched_new(p, QS_PROFILE_DOCUMENT, NULL, NULL, err,
                                   sizeof err)
                    : NULL;
    qs_transport *t;
    int ok, i;
    qs_params_free(p);
    if (!s) {
        printf("FAIL rental-setup: %s\n", err);
        return 1;
    }
    ok = arrive_many(s, 100);
    t = qsi_transport_find(s, "smtp");
    CHECK("rental-setup-100-jobs", ok && t && t->njobs == 100);
    if (!ok || !t)
        return CHECK_DONE();
    CHECK("rental-no-question-no-index", !t->cix_on && t->cix_rent == 0);

    for (i = 0; i < 32; i++)
        ask(s, t);
    CHECK_EQ_LL("rental-rent-32-walks", t->cix_rent, 3200);
    ok = arrive_one(s);
    CHECK("rental-rent-short-of-build", ok && t->njobs == 101 && !t->cix_on);

    ask(s, t);
    CHECK_EQ_LL("rental-rent-33-walks", t->cix_rent, 3301);
    ok = arrive_one(s);
    CHECK("rental-built-past-32-per-job",
          ok && t->njobs == 102 && t->cix_on && t->cix_idle == 0);

    ok = arrive_one(s);
    CHECK_EQ_LL("rental-idle-counts-a-change", t->cix_idle, 1);
    ask(s, t);
    CHECK_EQ_LL("rental-answer-clears-idle", t->cix_idle, 0);

    /* the index was just used (idle 0) at 103 jobs: k links more */
    ok = arrive_many(s, 103);
    CHECK("rental-kept-at-103-idle", ok && t->njobs == 206 && t->cix_on &&
          t->cix_idle == 103);
    ok = arrive_one(s);
    CHECK("rental-dropped-at-104-idle",
          ok && t->njobs == 207 && !t->cix_on && t->cix_rent == 0);

    ok = arrive_many(s, 4096 - 207);
    CHECK("rental-not-owned-at-4096", ok && t->njobs == 4096 && !t->cix_on);
    ok = arrive_one(s);
    CHECK("rental-owned-past-4096", ok && t->njobs == 4097 && t->cix_on);
    ok = arrive_many(s, 5000);
    CHECK("rental-owned-kept-without-questions",
          ok && t->njobs == 9097 && t->cix_on);

    qs_sched_free(s);
    return CHECK_DONE();
}
