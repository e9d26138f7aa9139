/*
 * test_job_place.c - the place of a job linked while a transport's two
 * job lists are one sequence (src/job_place.c qsi_job_time_place; S-PRE-13,
 * issue 16).
 *
 * Owns: the promise of qsi_job_time_place, checked against S-PRE-13's
 * rule computed here without walking from both ends: the place is the
 * last job enqueued at or before the new job's time (NULL: the head);
 * where selection starts and the first unread job are dropped (NULL)
 * exactly when they lie after the place, as the walks from the tail
 * would have passed them; the rent charged is the rounds the two cursors
 * took, min(P + 1, n - 1 - P) for the place at index P of n jobs - twice
 * the shorter distance in jobs looked at, never the whole list.
 *
 * Lists of 1 to 12 jobs with enqueue times drawn with many ties, every
 * time from below the first to just below the last (the caller's
 * condition: the tail job was enqueued later), and every choice of the
 * two pointers (none, or each job).  The jobs are built by hand on both
 * lists in one order, as the caller guarantees; nothing else of the
 * scheduler is involved.
 */
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "check.h"

#define NMAX 12

static qs_transport t;
static qs_job jobs[NMAX];
static qs_message msgs[NMAX];

static unsigned long lcg(unsigned long *x)
{
    *x = *x * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned long)(*x >> 33);
}

/* n jobs on both lists, in index order, with the given times */
static void build(int n, const int64_t *times)
{
    int i;
    memset(&t, 0, sizeof t);
    memset(jobs, 0, sizeof jobs);
    memset(msgs, 0, sizeof msgs);
    for (i = 0; i < n; i++) {
        msgs[i].queued_time = times[i];
        jobs[i].message = &msgs[i];
        jobs[i].transport = &t;
        jobs[i].lprev = jobs[i].tprev = i > 0 ? &jobs[i - 1] : NULL;
        jobs[i].lnext = jobs[i].tnext = i + 1 < n ? &jobs[i + 1] : NULL;
    }
    t.jhead = t.thead = &jobs[0];
    t.jtail = t.ttail = &jobs[n - 1];
    t.njobs = n;
}

/* S-PRE-13's place, by the rule: the last job enqueued at or before T */
static int rule_place(int n, const int64_t *times, int64_t T)
{
    int i, p = -1;
    for (i = 0; i < n; i++)
        if (times[i] <= T)
            p = i;
    return p;
}

int main(void)
{
    unsigned long seed = 11;
    long long cases = 0, wrong_place = 0, wrong_walk = 0, wrong_unread = 0,
              wrong_rent = 0, max_rent = 0, tail_wins = 0, head_wins = 0;
    int n, round;
    for (n = 1; n <= NMAX; n++) {
        for (round = 0; round < 40; round++) {
            int64_t times[NMAX], T;
            int i;
            /* nondecreasing, with ties: steps of 0, 1 or 2 */
            times[0] = 100;
            for (i = 1; i < n; i++)
                times[i] = times[i - 1] + (int64_t)(lcg(&seed) % 3);
            for (T = times[0] - 1; T < times[n - 1]; T++) {
                int p = rule_place(n, times, T), w, u;
                for (w = -1; w < n; w++) {
                    for (u = -1; u < n; u++) {
                        qs_job *walk, *unread, *place;
                        int64_t want_rent = p + 1 < n - 1 - p ? p + 1
                                                              : n - 1 - p;
                        build(n, times);
                        walk = w < 0 ? NULL : &jobs[w];
                        unread = u < 0 ? NULL : &jobs[u];
                        place = qsi_job_time_place(&t, T, &walk, &unread);
                        cases++;
                        if (place != (p < 0 ? NULL : &jobs[p]))
                            wrong_place++;
                        /* passed: after the place */
                        if (walk != (w < 0 || w > p ? NULL : &jobs[w]))
                            wrong_walk++;
                        if (unread != (u < 0 || u > p ? NULL : &jobs[u]))
                            wrong_unread++;
                        if (t.cix_rent != want_rent)
                            wrong_rent++;
                        if (t.cix_rent > max_rent)
                            max_rent = t.cix_rent;
                        if (p + 1 < n - 1 - p)
                            head_wins++;
                        else if (n - 1 - p < p + 1)
                            tail_wins++;
                    }
                }
            }
        }
    }
    printf("# %lld cases (head nearer %lld, tail nearer %lld), rent at "
           "most %lld for %d jobs\n",
           cases, head_wins, tail_wins, max_rent, NMAX);
    CHECK("job-place/cases", cases > 100000 && head_wins > 1000 &&
                                 tail_wins > 1000);
    CHECK_EQ_LL("job-place/place-is-the-rule", wrong_place, 0);
    CHECK_EQ_LL("job-place/walk-dropped-iff-after", wrong_walk, 0);
    CHECK_EQ_LL("job-place/unread-dropped-iff-after", wrong_unread, 0);
    CHECK_EQ_LL("job-place/rent-is-the-shorter-side", wrong_rent, 0);
    CHECK("job-place/rent-half-the-list", max_rent <= NMAX / 2);
    return check_failures ? 1 : 0;
}
