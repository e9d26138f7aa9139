/*
 * job_place.c - where a job is linked on its transport's two job lists
 * when the lists are one sequence: found by one walk from both ends of
 * the by-time list.
 *
 * Implements SCHEDULER_README "How the job scheduling works" on enqueue
 * order: a job "is enqueued on the transport's job list based on the time
 * its message was picked up by nqmgr", and "some jobs will be created for
 * the first time long after the first batch of recipients was read in
 * core" (spec/preemption.md S-PRE-13).  Owns: qsi_job_time_place, S-PRE-13's
 * walks from the tail (qsi_job_tail_place, qsi_job_tail_place_time), and the
 * argument for why its answer is S-PRE-13's (below).  The misplaced
 * counts it relies on are kept by jobs.c (job_link, job_unlink) and
 * preempt.c (the move of S-PRE-8, through qsi_job_misplace in
 * sched_int.h), and checked by check.c and check_changes.c (S-INV-2).
 * May not: link or unlink anything; it only answers where.
 *
 * Why it exists (issue 16).  S-PRE-13's walks go back from the tail.  A
 * new message's job stops them at once, but a job relinked by a later
 * batch of an old message (a bulk message refilled, S-MEM-7) walks back
 * over every job younger than its message, on both lists: in the queue
 * shape about 1,000 jobs per relink, two or three cache misses each, a
 * fifth of the run's time.  An old message's place is near the head, so
 * a walk from the head would be short, but a walk from the head finds
 * S-PRE-13's place only where the list is in time order.  The by-time
 * list always is (S-INV-2); the scheduler's list is when no job on it
 * was placed by anything but time.
 *
 * The argument.  Call a job misplaced when it was moved by a preemption
 * (S-PRE-8 puts it in front of the job it preempts, wherever its time
 * would put it), or was linked while the transport had a misplaced job
 * on its lists (the tail walk may then stop at a job placed by
 * preemption; see the note below).  A job stays misplaced until it leaves
 * the lists.  Every other job was linked while all jobs on the lists
 * were unmisplaced, so after the last job with an enqueue time <= its own
 * on both lists (parents: only misplaced jobs have them), and no list
 * operation but a preemption's move (which marks the job it moves)
 * changes the order of the jobs that stay.  So the unmisplaced jobs are
 * in the same order on both lists - by enqueue time, equal times in the
 * order they were linked - and while t->jobs_misplaced == 0 the two
 * lists are one sequence.  In it S-PRE-13's two walks stop at the same
 * job: the last one enqueued at or before the new job's time.
 *
 * Note (why jobs linked while a job is misplaced count as misplaced too):
 * with lists [A1 N6 J2 K7] (J2 moved in front of K7 and popped, level 0,
 * no parent), a job X3 stops the tail walk at J2: [A1 N6 J2 X3 K7],
 * while on the by-time list it goes after J2: [A1 J2 X3 N6 K7].  When J2
 * leaves, the scheduler's list [A1 N6 X3 K7] is no longer in time order.
 *
 * The walk.  The place is the boundary between the jobs enqueued at or
 * before the new job's time and those after it.  A cursor from the head
 * meets it at the first job enqueued later, a cursor from the tail at
 * the first job enqueued at or before; the two step in turn, so the walk
 * costs twice the shorter of the two distances, not the distance from the
 * tail.  What S-PRE-13's walks also tell - whether they passed where
 * selection starts (job_walk) and the first unread job - is the same
 * question about one job each: is it after the place?  The tail cursor
 * passes exactly the jobs after the place; the head cursor passes exactly
 * the jobs at or before it, so a job it has not seen is after it.
 * QSCHED_CROSSCHECK builds (fuzzing, tests/identity.sh) compare every
 * answer with S-PRE-13's two walks.
 */
#include <stdlib.h>
#include "sched_int.h"

/* S-PRE-13's walks from the tail, the rule itself: job_link takes them
 * while a job is misplaced, and crosscheck builds repeat them beside the
 * index and the walk from both ends.  On the scheduler's list the place
 * is after the last job without a stack parent enqueued at or before
 * queued_time; *walk becomes NULL if the walk passes it.  *steps: the
 * jobs passed (the caller's rent, job_index.c). */
qs_job *qsi_job_tail_place(const qs_transport *t, int64_t queued_time,
                           qs_job **walk, int64_t *steps)
{
    qs_job *j;
    *steps = 0;
    for (j = t->jtail; j; j = j->lprev, ++*steps) {
        if (j->parent == NULL && queued_time - j->message->queued_time >= 0)
            break;
        if (j == *walk)
            *walk = NULL;
    }
    return j;
}

/* ... and on the by-time list: after the last job enqueued at or before
 * queued_time; *unread becomes NULL if the walk passes it. */
qs_job *qsi_job_tail_place_time(const qs_transport *t, int64_t queued_time,
                                qs_job **unread, int64_t *steps)
{
    qs_job *j;
    *steps = 0;
    for (j = t->ttail; j; j = j->tprev, ++*steps) {
        if (queued_time - j->message->queued_time >= 0)
            break;
        if (j == *unread)
            *unread = NULL;
    }
    return j;
}

#ifdef QSCHED_CROSSCHECK
/* Both walks from the tail must stop at `place` and pass what the walk
 * from both ends says they pass. */
static void crosscheck(const qs_transport *t, int64_t queued_time,
                       const qs_job *place, qs_job *walk,
                       const qs_job *walk_after, qs_job *unread,
                       const qs_job *unread_after)
{
    int64_t steps;
    if (qsi_job_tail_place(t, queued_time, &walk, &steps) != place ||
        walk != walk_after ||
        qsi_job_tail_place_time(t, queued_time, &unread, &steps) != place ||
        unread != unread_after)
        abort();
}
#endif

/*
 * The job a job enqueued at queued_time goes after on both lists (NULL:
 * at the head), when t->jobs_misplaced == 0 and the tail job was enqueued
 * later (the caller's common case, an append, needs no walk).  *walk
 * (where selection starts) and *unread (the first unread job) become
 * NULL if they are after that place, as S-PRE-13's walks would have
 * passed them.
 *
 *     head = first job, tail = last job
 *     repeat:
 *         head enqueued after the time:            place = before head
 *         head = next
 *         tail enqueued at or before the time:     place = tail
 *         tail = previous
 *     passed = the jobs after place
 *
 * Neither cursor runs off the list: the head cursor stops at the tail
 * job at the latest (enqueued later: the caller's condition), and the
 * tail cursor moves only after the head cursor has passed a job enqueued
 * at or before the time, which stops it.  With the place at index P of
 * n jobs (-1: the head), the head cursor stops at round P + 1 and the
 * tail cursor at round n - 1 - P: min(P + 1, n - 1 - P) rounds, which go
 * to the candidate index's rent (job_index.c) - what the walk cost is
 * what the index would save (tests/unit/test_job_place.c checks both).
 */
qs_job *qsi_job_time_place(qs_transport *t, int64_t queued_time,
                           qs_job **walk, qs_job **unread)
{
    qs_job *head = t->thead, *tail = t->ttail, *place;
    int head_saw_walk = 0, head_saw_unread = 0; /* at or before place */
    int tail_saw_walk = 0, tail_saw_unread = 0; /* after place */
    int64_t steps = 0;
#ifdef QSCHED_CROSSCHECK
    qs_job *walk_before = *walk, *unread_before = *unread;
#endif
    for (;; steps++) {
        if (queued_time - head->message->queued_time < 0) {
            place = head->tprev;
            if (!head_saw_walk)
                *walk = NULL;
            if (!head_saw_unread)
                *unread = NULL;
            break;
        }
        head_saw_walk |= head == *walk;
        head_saw_unread |= head == *unread;
        head = head->tnext;
        if (queued_time - tail->message->queued_time >= 0) {
            place = tail;
            if (tail_saw_walk)
                *walk = NULL;
            if (tail_saw_unread)
                *unread = NULL;
            break;
        }
        tail_saw_walk |= tail == *walk;
        tail_saw_unread |= tail == *unread;
        tail = tail->tprev;
    }
    QSI_CIX_RENT(t, steps);
#ifdef QSCHED_CROSSCHECK
    crosscheck(t, queued_time, place, walk_before, *walk, unread_before,
               *unread);
#endif
    return place;
}
