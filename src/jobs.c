/*
 * jobs.c - the structures of the preemptive scheduler: jobs, peers and
 * recipient entries, and the two job lists of each transport.
 *
 * Owns: creating jobs (one per message and transport), peers (one per job
 * and destination) and entries; linking a job into the scheduler's job
 * list and the by-enqueue-time list (S-PRE-13, S-MEM-10); retiring a job
 * whose entries are all selected (S-PRE-2); freeing jobs and peers.
 * Implements SCHEDULER_README "The structures used by nqmgr" and the end
 * of "What happens when nqmgr picks up the message" (S-PRE-1).  May not:
 * reorder jobs for preemption (preempt.c) or move recipient slots other
 * than through memory.c.
 */
#include <stdlib.h>
#include "sched_int.h"

void qsi_trace_job(qs_sched *s, enum qs_trace_kind kind, qs_job *j)
{
    qs_trace r = qsi_trace_init(kind);
    r.transport = j->transport->name;
    r.msg = j->message->id;
    qsi_emit(s, &r);
}

/* S-PRE-13: put a job on both lists by its message's enqueue time.  Jobs
 * normally go at the end; revived jobs and jobs created by a later batch
 * find their place from the end.  On the scheduler's list only jobs
 * without a stack parent count as time markers (preempting children sit
 * out of time order). */
static void job_link(qs_sched *s, qs_job *job, int revived)
{
    qs_transport *t = job->transport;
    qs_message *m = job->message;
    qs_job *prev, *next, *walk = t->job_walk, *unread;

    for (next = NULL, prev = t->jtail; prev; next = prev, prev = prev->lprev) {
        if (prev->parent == NULL &&
            m->queued_time - prev->message->queued_time >= 0)
            break;
        if (walk == prev)
            walk = NULL;
    }
    job->lprev = prev;
    job->lnext = next;
    if (prev)
        prev->lnext = job;
    else
        t->jhead = job;
    if (next)
        next->lprev = job;
    else
        t->jtail = job;

    unread = t->job_next_unread;
    for (next = NULL, prev = t->ttail; prev; next = prev, prev = prev->tprev) {
        if (m->queued_time - prev->message->queued_time >= 0)
            break;
        if (unread == prev)
            unread = NULL;
    }
    job->tprev = prev;
    job->tnext = next;
    if (prev)
        prev->tnext = job;
    else
        t->thead = job;
    if (next)
        next->tprev = job;
    else
        t->ttail = job;

    job->stack_level = 0;
    /* Linked in front of where selection starts (or every job is a
     * blocker): selection starts at the new job.  R-14: it also becomes
     * the current job under walk_start (Postfix); under last_selected the
     * current job stays the job selected last. */
    if (walk == NULL) {
        t->job_walk = job;
        if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START)
            t->job_current = job;
    }
    /* Linked in front of the first unread job: that job first returns its
     * unused slots to the pool (S-MEM-5). */
    if (unread == NULL) {
        unread = t->job_next_unread;
        t->job_next_unread = job;
        if (unread)
            qsi_job_move_limits(s, unread);
    }
    /* A job on the list takes every unused slot of the pool. */
    if (t->rcpt_unused > 0) {
        job->rcpt_limit += t->rcpt_unused;
        m->rcpt_limit += t->rcpt_unused;
        t->rcpt_unused = 0;
    }
    if (revived)
        qsi_trace_job(s, QS_T_RELINK, job);
}

static void job_unlink(qs_sched *s, qs_job *job)
{
    qs_transport *t = job->transport;
    /* Children of a level-0 job learn that their parent is gone. */
    qsi_job_parent_gone(job, NULL);
    if (t->job_walk == job)
        t->job_walk = job->lnext;
    /* R-7 current_when_gone: the job after it (Postfix), the head of the
     * list, or no current job until the next selection.  (The document:
     * "the job whose entry was selected the last time".) */
    if (t->job_current == job) {
        switch (QS_READING(s, QR_CURRENT_WHEN_GONE)) {
        case QRV_GONE_HEAD:
            t->job_current = t->jhead != job ? t->jhead : job->lnext;
            break;
        case QRV_GONE_NONE:
            t->job_current = NULL;
            break;
        default:
            t->job_current = job->lnext;
            break;
        }
    }
    if (job->lprev)
        job->lprev->lnext = job->lnext;
    else
        t->jhead = job->lnext;
    if (job->lnext)
        job->lnext->lprev = job->lprev;
    else
        t->jtail = job->lprev;
    if (job->tprev)
        job->tprev->tnext = job->tnext;
    else
        t->thead = job->tnext;
    if (job->tnext)
        job->tnext->tprev = job->tprev;
    else
        t->ttail = job->tprev;
    job->lprev = job->lnext = job->tprev = job->tnext = NULL;
    job->stack_level = -1;
}

/* S-PRE-2: a job whose entries are all selected leaves the job lists; it
 * keeps its counters and comes back if its message gets more entries. */
void qsi_job_retire(qs_sched *s, qs_job *job)
{
    if (job->stack_level > 0)
        qsi_job_pop(s, job);
    qsi_job_move_limits(s, job);
    job_unlink(s, job);
    qsi_trace_job(s, QS_T_RETIRE, job);
}

static qs_job *job_find(qs_message *m, qs_transport *t)
{
    qs_job *j;
    for (j = m->jobs; j; j = j->mnext)
        if (j->transport == t)
            return j;
    return NULL;
}

/* A job per (message, transport); linked by time; a blocker that gets new
 * entries is a blocker no more. */
qs_job *qsi_job_obtain(qs_sched *s, qs_message *m, qs_transport *t)
{
    qs_job *job = job_find(m, t), **pp;
    int revived = job != NULL;
    if (!job) {
        job = qsi_calloc(1, sizeof *job);
        job->message = m;
        job->transport = t;
        job->serial = ++s->serial;
        job->stack_level = -1;
        qs_map_init(&job->peers);
        for (pp = &m->jobs; *pp; pp = &(*pp)->mnext)
            ;
        *pp = job;
    }
    if (job->stack_level < 0)
        job_link(s, job, revived);
    /* The job may have been a blocker anywhere before where selection
     * starts: the next walk starts at the head (S-PRE-11).  R-14: under
     * walk_start (Postfix) the head also becomes the current job. */
    if (QS_IS_BLOCKER(job)) {
        job->blocker_tag = 0;
        t->job_walk = t->jhead;
        if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START)
            t->job_current = t->jhead;
    }
    return job;
}

void qsi_job_free(qs_sched *s, qs_job *job)
{
    if (job->stack_level > 0)
        qsi_job_pop(s, job);
    qsi_job_move_limits(s, job);
    if (job->stack_level >= 0)
        job_unlink(s, job);
    qs_map_destroy(&job->peers);
    free(job);
}

qs_peer *qsi_peer_obtain(qs_sched *s, qs_job *job, qs_queue *q)
{
    qs_peer *p = qs_map_get(&job->peers, NULL, q->serial);
    (void)s;
    if (p)
        return p;
    p = qsi_calloc(1, sizeof *p);
    p->job = job;
    p->queue = q;
    p->prev = job->peer_tail;
    if (job->peer_tail)
        job->peer_tail->next = p;
    else
        job->peer_head = p;
    job->peer_tail = p;
    job->peer_count++;
    qsi_map_put(&job->peers, NULL, q->serial, p);
    return p;
}

void qsi_peer_free_if_unused(qs_peer *p)
{
    qs_job *job = p->job;
    if (p->refcount > 0)
        return;
    qs_map_del(&job->peers, NULL, p->queue->serial);
    if (p->prev)
        p->prev->next = p->next;
    else
        job->peer_head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        job->peer_tail = p->prev;
    job->peer_count--;
    free(p);
}

void qsi_qlist_append(qs_entry **head, qs_entry **tail, qs_entry *e)
{
    e->qprev = *tail;
    e->qnext = NULL;
    if (*tail)
        (*tail)->qnext = e;
    else
        *head = e;
    *tail = e;
}

void qsi_qlist_unlink(qs_entry **head, qs_entry **tail, qs_entry *e)
{
    if (e->qprev)
        e->qprev->qnext = e->qnext;
    else
        *head = e->qnext;
    if (e->qnext)
        e->qnext->qprev = e->qprev;
    else
        *tail = e->qprev;
    e->qprev = e->qnext = NULL;
}

void qsi_peer_unlink_entry(qs_peer *p, qs_entry *e)
{
    if (e->pprev)
        e->pprev->pnext = e->pnext;
    else
        p->ehead = e->pnext;
    if (e->pnext)
        e->pnext->pprev = e->pprev;
    else
        p->etail = e->pprev;
    e->pprev = e->pnext = NULL;
    p->todo--;
}

qs_entry *qsi_entry_create(qs_peer *p)
{
    qs_entry *e = qsi_calloc(1, sizeof *e);
    qs_queue *q = p->queue;
    e->peer = p;
    e->queue = q;
    e->pprev = p->etail;
    if (p->etail)
        p->etail->pnext = e;
    else
        p->ehead = e;
    p->etail = e;
    p->todo++;
    p->refcount++;
    qsi_qlist_append(&q->todo_head, &q->todo_tail, e);
    q->todo++;
    p->job->read_entries++;
    qsi_queue_update_ready(q);
    return e;
}
