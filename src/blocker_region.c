/*
 * blocker_region.c - the selection walk with the blocker index: its jump
 * to the stop, the region of blockers in front of job_walk, and the jobs
 * the walk must stop at for another reason (issue 16).
 *
 * Implements no sentence of SCHEDULER_README by itself: it is part 2 of
 * blocker_index.c's design (read its header first) and the walk of
 * select.c's S-PRE-2 / S-PRE-11 in that design.  Owns:
 *   - the heap of the jobs with bix_stop (no entries, or unread recipients
 *     with room: job_peer_select may read), with those the walk passed set
 *     aside until the next release (qsi_bix_flag_sync, _update, _message,
 *     qsi_bix_region_stop, qsi_bix_released);
 *   - the region's end: written down as tags when job_walk would move
 *     back without a release (qsi_bix_materialize, _but);
 *   - qsi_bix_walk_to_stop, called by select.c's walk: what the plain walk
 *     would mark up to the stop, marked (the region: job_walk moved; else
 *     tags) and counted; and, in QSCHED_CROSSCHECK builds, the plain
 *     walk's tests on every job it passes (walk_to_stop_check).
 * Apart from blocker_index.c to keep each core file under 600 lines.
 * May not: select or release anything; mark only what the plain walk
 * would mark, in the same number.
 */
#include <stdlib.h>
#include <stdint.h>
#include "sched_int.h"

/* ---- the jobs the walk must stop at for another reason (bix_stop) ----
 *
 * A heap by list place of the transport's jobs with bix_stop (no entries,
 * or unread recipients and room to read them: qsi_job_walk_stop), kept at
 * every change of what it reads (job_index.c's qsi_cix_update and
 * qsi_cix_selected, QSI_BIX_MESSAGE where a message's recipient count or
 * limit moves), for the region walk: the first of them at
 * or after where the walk is.  Those the walk has passed are blockers
 * (every job before job_walk is one) and are set aside until the next
 * release of every blocker puts them back: a job's position in the
 * heap is 1 + its index, in the set-aside array -(1 + its index). */

static void fh_set(qs_transport *t, size_t i, qs_job *j)
{
    t->bix_fh[i] = j;
    j->bix_fpos = (ptrdiff_t)i + 1;
}

static void fh_up(qs_transport *t, size_t i)
{
    qs_job *j = t->bix_fh[i];
    while (i > 0 && t->bix_fh[(i - 1) / 2]->bix_label > j->bix_label) {
        fh_set(t, i, t->bix_fh[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    fh_set(t, i, j);
}

static void fh_down(qs_transport *t, size_t i)
{
    qs_job *j = t->bix_fh[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= t->bix_fn)
            break;
        if (c + 1 < t->bix_fn &&
            t->bix_fh[c + 1]->bix_label < t->bix_fh[c]->bix_label)
            c++;
        if (t->bix_fh[c]->bix_label >= j->bix_label)
            break;
        fh_set(t, i, t->bix_fh[c]);
        i = c;
    }
    fh_set(t, i, j);
}

static void fh_push(qs_transport *t, qs_job *j)
{
    qsi_grow_ptrs(&t->bix_fh, t->bix_fn, &t->bix_fcap, 16);
    fh_set(t, t->bix_fn++, j);
    fh_up(t, t->bix_fn - 1);
}

static void fh_remove(qs_transport *t, qs_job *j)
{
    size_t i = (size_t)j->bix_fpos - 1;
    j->bix_fpos = 0;
    if (i != --t->bix_fn) {
        qs_job *moved = t->bix_fh[t->bix_fn];
        fh_set(t, i, moved);
        fh_up(t, i);
        fh_down(t, (size_t)moved->bix_fpos - 1);
    }
}

static void fs_push(qs_transport *t, qs_job *j)
{
    qsi_grow_ptrs(&t->bix_fs, t->bix_sn, &t->bix_scap, 16);
    t->bix_fs[t->bix_sn] = j;
    j->bix_fpos = -(ptrdiff_t)++t->bix_sn;
}

static void fs_remove(qs_transport *t, qs_job *j)
{
    size_t i = (size_t)(-j->bix_fpos) - 1;
    j->bix_fpos = 0;
    if (i != --t->bix_sn) {
        t->bix_fs[i] = t->bix_fs[t->bix_sn];
        t->bix_fs[i]->bix_fpos = -(ptrdiff_t)(i + 1);
    }
}

/* The job's flag or its place on the list changed: it is in the heap (or
 * set aside) exactly while it is on the list with bix_stop. */
void qsi_bix_flag_sync(qs_job *job)
{
    qs_transport *t = job->transport;
    int want = job->bix_listed && job->bix_stop;
    if (want && !job->bix_fpos)
        fh_push(t, job);
    else if (!want && job->bix_fpos > 0)
        fh_remove(t, job);
    else if (!want && job->bix_fpos < 0)
        fs_remove(t, job);
}

/* The first job, at or after `from` (the walk's place: every job before it
 * is a blocker), that the walk must do more with than mark: the first
 * with a pending entry at a ready destination (never a blocker, see the
 * header), or the first with bix_stop; NULL: none, every job from `from`
 * on is one the walk marks. */
qs_job *qsi_bix_region_stop(qs_transport *t, qs_job *from)
{
    qs_job *ready = qsi_bix_stop(t), *flagged;
    while (t->bix_fn && t->bix_fh[0]->bix_label < from->bix_label) {
        flagged = t->bix_fh[0];
        fh_remove(t, flagged);
        fs_push(t, flagged); /* passed: a blocker until the next release */
    }
    flagged = t->bix_fn ? t->bix_fh[0] : NULL;
    if (!ready)
        return flagged;
    if (!flagged)
        return ready;
    return flagged->bix_label < ready->bix_label ? flagged : ready;
}

/* Every blocker was released (S-PFX-21: the tag moved, the walk starts at
 * the head): no job is before job_walk any more, so the region holds
 * nothing and stands for the blockers from now on; the jobs set aside are
 * no blockers now. */
void qsi_bix_released(qs_transport *t)
{
    while (t->bix_sn > 0) {
        qs_job *j = t->bix_fs[t->bix_sn - 1];
        fs_remove(t, j);
        fh_push(t, j);
    }
    t->bix_region = 1;
}

/* The region's blockers written down as tags (each job before job_walk
 * takes the transport's tag, as the plain walk would have given it):
 * before job_walk moves back without a release - a blocker that gets
 * entries, a job linked in front of the walk, a preemption elsewhere
 * than at the walk's place - or the index is dropped, or the explain
 * level wants the plain walk.  Blocker status does not change, so neither
 * do the destinations' marks.  Until the next release the walks tag. */
void qsi_bix_materialize(qs_transport *t)
{
    qsi_bix_materialize_but(t, NULL);
}

/* The same, but for `fresh`, a job just linked (or moved) in front of
 * job_walk that is no blocker of the region: it keeps its tag. */
void qsi_bix_materialize_but(qs_transport *t, const qs_job *fresh)
{
    qs_job *j;
    if (!t->bix_region)
        return;
    for (j = t->jhead; j && j != t->job_walk; j = j->lnext)
        if (j != fresh)
            j->blocker_tag = t->blocker_tag;
    t->bix_region = 0;
}

/* A counter the job's bix_stop reads changed (job_index.c, with the
 * candidate index's upkeep): the flag, and the heap, follow. */
void qsi_bix_flag_update(qs_job *job)
{
    int stop = qsi_job_walk_stop(job);
    if (stop != job->bix_stop) {
        job->bix_stop = stop;
        qsi_bix_flag_sync(job);
    }
}

/* The message's recipient count or limit changed (QSI_BIX_MESSAGE): the
 * bix_stop of each of its jobs on a transport with the index. */
void qsi_bix_message(qs_message *m)
{
    qs_job *j;
    for (j = m->jobs; j; j = j->mnext)
        if (j->bix_listed)
            qsi_bix_flag_update(j);
}

#ifdef QSCHED_CROSSCHECK
/* Fuzz builds (QSCHED_CROSSCHECK): walk_to_stop's answer against the
 * plain walk's tests, job by job.  Every job before `from` is a blocker
 * with no entry pending where there is room (the invariant that makes the
 * stop found by blocker_index.c the first such job); every job from
 * `from` to `stop` that is no blocker is one the plain walk marks
 * (job_mark_if_no_room's case: entries, nothing it can read, no room at
 * any destination it waits for), and they are `marked` in number; the
 * stop is no blocker; labels increase along the list; the heaps are in
 * order. */
static void walk_to_stop_check(const qs_transport *t, const qs_job *from,
                               const qs_job *stop, int64_t marked)
{
    const qs_job *j;
    const qs_peer *p;
    int64_t n = 0;
    size_t i, k;
    for (j = t->jhead; j != from; j = j->lnext) {
        if (!j || !qsi_is_blocker(j))
            abort();
        for (p = j->peer_head; p; p = p->next)
            if (p->ehead && p->queue->ready)
                abort();
    }
    for (j = from; j != stop; j = j->lnext) {
        if (!j)
            abort(); /* the stop is not after `from` */
        if (qsi_is_blocker(j))
            continue;
        if (!QS_HAS_ENTRIES(j) ||
            (QS_UNREAD(j->message) &&
             j->message->rcpt_limit > j->message->rcpt_count))
            abort();
        for (p = j->peer_head; p; p = p->next)
            if (p->ehead && !p->queue->dead &&
                p->queue->window > p->queue->busy)
                abort();
        n++;
    }
    if (n != marked || (stop && qsi_is_blocker(stop)))
        abort();
    for (j = t->jhead; j && j->lnext; j = j->lnext)
        if (j->lnext->bix_label <= j->bix_label)
            abort();
    for (i = 0; i < t->bix_rn; i++) {
        const qs_queue *q = t->bix_rh[i];
        if (q->bix_rpos != i + 1 || !q->ready || !q->bix_pn ||
            (i > 0 && t->bix_rh[(i - 1) / 2]->bix_ph[0]->job->bix_label >
                          q->bix_ph[0]->job->bix_label))
            abort();
        for (k = 1; k < q->bix_pn; k++)
            if (q->bix_ph[(k - 1) / 2]->job->bix_label >
                q->bix_ph[k]->job->bix_label)
                abort();
    }
}
#endif

/* The walk's marks up to its stop, with the blocker index
 * (blocker_index.c: the postfix readings, long lists with long walks, not
 * at the explain level).  Every job from `job` (where the walk is; every
 * job before it is a blocker) up to the stop - the first job with a
 * pending entry at a ready destination, or with bix_stop set - that is no
 * blocker yet is one the plain walk below would mark (S-PRE-11): it has
 * entries, cannot read, and no destination it waits for has room, so the
 * plain logic would do nothing with it but mark it.  The plain walk tags
 * such a job and the destinations of its pending entries; a destination's
 * mark here follows from its first pending job (qsi_queue_marked).  With
 * the region (since the last release) the jobs passed are blockers by
 * their place: job_walk moves to the stop, and the marks are counted from
 * ranks; otherwise (blocker_index.c: after the region was written down)
 * each is tagged, in a loop that stops at the stop or at a job with
 * bix_stop.  Returns the job the plain logic must look at, or NULL at the
 * list's end. */
qs_job *qsi_bix_walk_to_stop(qs_sched *s, qs_transport *t, qs_job *job)
{
    qs_job *from = job, *stop;
    (void)from; /* (the crosscheck build's) */
    unsigned tag = t->blocker_tag;
    int64_t marked = 0;
    if (t->bix_region) {
        stop = qsi_bix_region_stop(t, job);
        marked = qsi_cix_rank(t, stop) - qsi_cix_rank(t, job);
#ifdef QSCHED_CROSSCHECK
        walk_to_stop_check(t, from, stop, marked);
#endif
        t->job_walk = stop; /* the jobs passed are the region's */
        job = stop;
    } else {
        stop = qsi_bix_stop(t);
#ifdef QSCHED_CROSSCHECK
        {
            /* the loop's end and count, checked before it tags */
            const qs_job *j;
            int64_t n = 0;
            for (j = job; j && j != stop; j = j->lnext) {
                if (j->blocker_tag == tag)
                    continue;
                if (j->bix_stop)
                    break;
                n++;
            }
            walk_to_stop_check(t, from, j, n);
        }
#endif
        for (; job && job != stop; job = job->lnext) {
            if (job->blocker_tag == tag)
                continue;           /* a blocker already */
            if (job->bix_stop)
                break;              /* the walk reads or retires here */
            job->blocker_tag = tag;
            marked++;
        }
    }
    s->stats.blockers += marked;
    t->walk_marks += marked;
    return job;
}


#ifdef QSCHED_CROSSCHECK
/* Fuzz builds: the destination's mark as blocker_index.c infers it
 * (qsi_queue_marked) is the plain walk's: its tag, or a blocker with an
 * entry pending here (qsi_blocker_update, before it trusts the mark). */
void qsi_bix_check_mark(const qs_queue *q)
{
    const qs_entry *e;
    int plain = q->blocker_tag == q->transport->blocker_tag;
    for (e = q->todo_head; e && !plain; e = e->qnext)
        plain = qsi_is_blocker(e->peer->job);
    if (plain != qsi_queue_marked(q))
        abort();
}
#endif

#ifdef QSCHED_CROSSCHECK
/* Fuzz builds, at the start of a selection: under walk_start the current
 * job is where the walk starts, so the candidate scans (the jobs after
 * it, QS_IS_BLOCKER: the tags alone) never look at the region. */
void qsi_bix_check_start(const qs_transport *t)
{
    if (t->bix_region && t->job_current != t->job_walk)
        abort();
}
#endif
