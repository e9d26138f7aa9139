/*
 * select.c - entry selection: the round robin over transports, the walk
 * along a transport's job list from the current job, the round robin over
 * a job's peers, blockers and their release.
 *
 * Owns: qs_select, the current job of each transport, blocker marks.
 * Implements SCHEDULER_README "How the entry selection works" (its
 * pseudocode) and the user's view of "How destination concurrency limits
 * affect the scheduling algorithm": S-PRE-2, S-PRE-4, S-PRE-11, S-PRE-12,
 * S-PRE-14, S-PRE-15.  May not: change windows (concurrency.c) or decide
 * preemptions (preempt.c).
 */
#include <string.h>
#include "sched_int.h"

/* A job whose peer on q makes it one of the jobs that "have peers for
 * that destination" (reading R-13 blocker_release): a pending entry there
 * (pending), or any entry there, pending or in flight (peer). */
static void release_job_of(const qs_entry *e, int *released)
{
    qs_job *job = e->peer->job;
    if (QS_IS_BLOCKER(job)) {
        job->blocker_tag = 0;
        *released = 1;
    }
}

/* S-PRE-12: release blockers because of destination q.  Document: "all
 * jobs which have peers for that destination are unblocked at once"
 * (R-13 blocker_release = pending: the blockers with a pending entry at
 * q), and the current job stays the job selected last (R-14 current_job =
 * last_selected); only the walk must go back far enough to reach them.
 * S-PFX-13 (postfix profile: blocker_release = all, current_job =
 * walk_start): every blocker of the transport is released (a tag bump)
 * and selection restarts at the head, which becomes the current job. */
void qsi_blocker_release(qs_sched *s, qs_transport *t, qs_queue *q)
{
    qs_trace r = qsi_trace_init(QS_T_UNBLOCK);
    int released = 0;
    qs_entry *e;
    switch (QS_READING(s, QR_BLOCKER_RELEASE)) {
    case QRV_RELEASE_ALL:
        t->blocker_tag += 2;
        released = 1;
        break;
    default:
        /* pending, and for peer also the jobs with deliveries in flight */
        for (e = q->todo_head; e; e = e->qnext)
            release_job_of(e, &released);
        if (QS_READING(s, QR_BLOCKER_RELEASE) == QRV_RELEASE_PEER)
            for (e = q->busy_head; e; e = e->qnext)
                release_job_of(e, &released);
        break;
    }
    if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START) {
        t->job_current = t->jhead;
        t->job_walk = t->jhead;
    } else if (released) {
        /* A released job may sit anywhere before the walk's start: the
         * next walk starts at the head and skips the blockers. */
        t->job_walk = t->jhead;
    }
    r.transport = t->name;
    r.dest = q->name;
    qsi_emit(s, &r);
}

/* A queue that blocked jobs can take more: release blockers (S-PRE-12;
 * the next selection re-marks those still blocked). */
void qsi_blocker_update(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    if (q->blocker_tag != t->blocker_tag)
        return;
    if (!q->dead && q->window > q->busy && q->todo > 0)
        qsi_blocker_release(s, t, q);
    if ((!q->dead && q->window > q->busy) || q->dead)
        q->blocker_tag = 0;
}

/* S-PRE-15: peers round-robin; the first peer whose destination has
 * window > deliveries in flight; the chosen peer goes to the end. */
static qs_peer *peer_select(qs_job *job)
{
    qs_peer *p;
    for (p = job->peer_head; p; p = p->next) {
        qs_queue *q = p->queue;
        if (!q->dead && q->window > q->busy && p->ehead) {
            if (p != job->peer_tail) {
                /* rotate: the list continues after p, p becomes last */
                qs_peer *old_head = job->peer_head;
                job->peer_tail->next = old_head;
                old_head->prev = job->peer_tail;
                job->peer_head = p->next;
                job->peer_head->prev = NULL;
                job->peer_tail = p;
                p->next = NULL;
            }
            return p;
        }
    }
    return NULL;
}

/* S-MEM-7: refill when the job has room, then select a peer; if none,
 * read more as a last chance. */
static qs_peer *job_peer_select(qs_sched *s, qs_job *job)
{
    qs_message *m = job->message;
    qs_transport *t = job->transport;
    qs_peer *p;
    if (m->rcpt_unread > 0 &&
        (m->rcpt_limit - m->rcpt_count >= t->refill_limit ||
         (m->rcpt_limit > m->rcpt_count &&
          s->now - m->refill_time >= t->refill_delay)))
        qsi_message_realloc(s, m);
    if (QS_HAS_ENTRIES(job) && (p = peer_select(job)) != NULL)
        return p;
    if (m->rcpt_unread > 0 && m->rcpt_limit > m->rcpt_count) {
        qsi_message_realloc(s, m);
        if (QS_HAS_ENTRIES(job))
            return peer_select(job);
    }
    return NULL;
}

static void entry_select_peer(qs_sched *s, qs_peer *p, qs_delivery *out)
{
    qs_entry *e = p->ehead;
    qs_queue *q = p->queue;
    qs_job *job = p->job;
    qs_transport *t = q->transport;
    qs_trace r = qsi_trace_init(QS_T_DELIVER);

    qsi_peer_unlink_entry(p, e);
    qsi_qlist_unlink(&q->todo_head, &q->todo_tail, e);
    q->todo--;
    qsi_qlist_append(&q->busy_head, &q->busy_tail, e);
    q->busy++;
    job->selected_entries++;
    qsi_queue_update_ready(q);
    e->handle = s->next_handle++;
    qsi_map_put(&s->inflight, NULL, (uint64_t)e->handle, e);
    t->in_flight++;
    t->deliveries++;
    s->stats.deliveries++;
    out->handle = e->handle;
    out->msg = job->message->id;
    out->transport = t->name;
    out->dest = q->name;
    out->nrcpt = e->nrcpt;
    r.handle = e->handle;
    r.msg = out->msg;
    r.transport = t->name;
    r.dest = q->name;
    r.n = e->nrcpt;
    qsi_emit(s, &r);
}

/* S-PRE-2: the transport's job list in order, from the first job that is
 * not known to be a blocker (job_walk); the current job may be preempted
 * first. */
static int transport_entry_select(qs_sched *s, qs_transport *t,
                                  qs_delivery *out)
{
    qs_job *job, *next;
    qs_peer *p;
    if (!t->job_walk)
        return 0; /* every job is a blocker */
    /* S-PRE-3: preemption only with k >= 2 (k = 1 degenerates).  It moves
     * the preempting job in front of the current job and sets job_walk. */
    if (t->slot_cost >= 2 && t->job_current)
        qsi_job_preempt(s, t->job_current);
    for (job = t->job_walk; job; job = next) {
        next = job->lnext;
        if (QS_IS_BLOCKER(job))
            continue;
        if ((p = job_peer_select(s, job)) != NULL) {
            entry_select_peer(s, p, out);
            /* S-PRE-4: the counter grows by one per selected entry. */
            job->slots_available++;
            job->slots_used++;
            /* "The job whose entry was selected the last time is the so
             * called current job"; the jobs the walk passed are blockers. */
            t->job_current = job;
            t->job_walk = job;
            if (!QS_HAS_ENTRIES(job) && job->message->rcpt_unread == 0)
                qsi_job_retire(s, job);
            return 1;
        } else if (QS_HAS_ENTRIES(job)) {
            /* S-PRE-11: no selectable peer: a blocker; mark its queues. */
            qs_peer *pp;
            job->blocker_tag = t->blocker_tag;
            for (pp = job->peer_head; pp; pp = pp->next)
                if (pp->ehead)
                    pp->queue->blocker_tag = t->blocker_tag;
            s->stats.blockers++;
            qsi_trace_job(s, QS_T_BLOCKER, job);
        } else {
            /* A stalled job (no entries now): retire it. */
            qsi_job_retire(s, job);
        }
    }
    /* Every job is a blocker.  R-14: the job selected last stays the
     * current job (last_selected); Postfix has no current job then
     * (walk_start). */
    t->job_walk = NULL;
    if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START)
        t->job_current = NULL;
    return 0;
}

/* S-PRE-14: round robin over transports, skipping transports at their
 * process limit or without a destination that could take a delivery. */
int qs_select(qs_sched *s, const char *transport, qs_delivery *out,
              char *err, size_t errlen)
{
    qs_transport *t;
    qs_trace r;
    int found = 0;
    (void)err;
    (void)errlen;
    memset(out, 0, sizeof *out);
    if (transport) {
        t = qsi_transport_find(s, transport);
        if (t && t->in_flight < t->process_limit && t->ready_queues > 0)
            found = transport_entry_select(s, t, out);
    } else if (s->rr) {
        size_t i;
        /* R-2 transport_rr: "starts at the transport after the one that
         * gave the previous round-robin delivery", that transport's
         * successor now (last: a transport created since then right after
         * it comes next), or the successor it had at the delivery (next:
         * S-PFX-14, Postfix's rotation of its transport list). */
        if (QS_READING(s, QR_TRANSPORT_RR) == QRV_RR_LAST)
            t = s->rr_last && s->rr_last->next ? s->rr_last->next : s->xhead;
        else
            t = s->rr;
        for (i = 0; i < s->ntransports; i++) {
            qs_transport *nt = t->next ? t->next : s->xhead;
            if (t->in_flight < t->process_limit && t->ready_queues > 0 &&
                transport_entry_select(s, t, out)) {
                s->rr = nt;
                s->rr_last = t;
                found = 1;
                break;
            }
            t = nt;
        }
    }
    qsi_run_checks(s);
    if (found)
        return 1;
    s->stats.idles++;
    r = qsi_trace_init(QS_T_IDLE);
    r.transport = transport;
    qsi_emit(s, &r);
    return 0;
}
