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

void qsi_blocker_release_all(qs_sched *s, qs_transport *t, qs_queue *q)
{
    qs_trace r = qsi_trace_init(QS_T_UNBLOCK);
    t->blocker_tag += 2;
    t->job_current = t->jhead;
    QSI_CAND_RESET(t);          /* S-PFX-20 */
    r.transport = t->name;
    r.dest = q->name;
    qsi_emit(s, &r);
}

/* A queue that blocked jobs can take more: release every blocker of the
 * transport at once (the next selection re-marks those still blocked). */
void qsi_blocker_update(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    if (q->blocker_tag != t->blocker_tag)
        return;
    if (!q->dead && q->window > q->busy && q->todo > 0)
        qsi_blocker_release_all(s, t, q);
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
    if (QS_UNREAD(m) &&
        (m->rcpt_limit - m->rcpt_count >= t->refill_limit ||
         (m->rcpt_limit > m->rcpt_count &&
          s->now - m->refill_time >= t->refill_delay)))
        qsi_message_realloc(s, m);
    if (QS_HAS_ENTRIES(job) && (p = peer_select(job)) != NULL)
        return p;
    if (QS_UNREAD(m) && m->rcpt_limit > m->rcpt_count) {
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

/* S-PRE-2: the transport's job list in order from the current job. */
static int transport_entry_select(qs_sched *s, qs_transport *t,
                                  qs_delivery *out)
{
    qs_job *job = t->job_current, *next;
    qs_peer *p;
    if (!job)
        return 0;
    /* S-PRE-3: preemption only with k >= 2 (k = 1 degenerates). */
    if (t->slot_cost >= 2)
        job = qsi_job_preempt(s, job);
    for (; job; job = next) {
        next = job->lnext;
        if (QS_IS_BLOCKER(job))
            continue;
        if ((p = job_peer_select(s, job)) != NULL) {
            entry_select_peer(s, p, out);
            /* S-PRE-4: the counter grows by one per selected entry. */
            job->slots_available++;
            job->slots_used++;
            /* S-PFX-20: a job other than the cached current job got
             * closer to being a candidate. */
            if (job != t->cand_current)
                QSI_CAND_RESET(t);
            t->job_current = job;
            if (!QS_HAS_ENTRIES(job) && !QS_UNREAD(job->message))
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
    t->job_current = NULL;
    return 0;
}

/* S-PFX-17 (postfix profile): whether Postfix's round robin offers the
 * transport a delivery agent.  Postfix adds up, over the transport's live
 * destinations in the order they were created, min(window - deliveries in
 * flight, pending entries), and offers the transport as soon as the sum
 * reaches 1.  A destination with more deliveries in flight than its window
 * (after negative feedback) adds a negative amount, so it can hide the room
 * of the destinations after it. */
static int postfix_offered(const qs_transport *t)
{
    const qs_queue *q;
    int64_t need = 1;
    if (t->in_flight >= t->process_limit)
        return 0;
    for (q = t->qhead; q; q = q->next) {
        int64_t room = (int64_t)q->window - q->busy;
        if (q->dead)
            continue;
        if ((need -= room < q->todo ? room : q->todo) <= 0)
            return 1;
    }
    return 0;
}

/* S-PRE-14, postfix profile (S-PFX-13).  Postfix's round robin
 * (qmgr_transport_select) takes the first transport in its cycle that is
 * below its process limit and that it offers an agent (S-PFX-17), and
 * moves the
 * cycle past it at once; a delivery agent is then handed to it and the
 * entry selection runs.  If that gives nothing, the round robin offers the
 * next transport, from wherever the cycle now starts (a transport created
 * by a read during the failed selection comes first), until it offers one
 * already tried in this select. */
static int round_robin_postfix(qs_sched *s, qs_delivery *out)
{
    qs_transport *t;
    size_t i;
    s->rr_round++;
    for (;;) {
        t = s->rr;
        for (i = 0; i < s->ntransports; i++, t = t->rr_next)
            if (postfix_offered(t))
                break;
        if (i == s->ntransports || t->rr_round == s->rr_round)
            return 0;
        t->rr_round = s->rr_round;
        s->rr = t->rr_next;
        if (transport_entry_select(s, t, out))
            return 1;
    }
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
        /* S-EV-8.  Document profile: a transport without a ready
         * destination is idle at once.  S-PFX-14 (postfix profile): a
         * delivery agent of the transport asks for work, and Postfix runs
         * its entry selection whatever the state of the transport's
         * destinations (qmgr_deliver), with everything that selection does
         * on the way: a preemption attempt, blocker marks, retirements,
         * and no current job left if it finds nothing. */
        t = qsi_transport_find(s, transport);
        if (t && t->in_flight < t->process_limit &&
            (t->ready_queues > 0 || qsi_postfix(s)))
            found = transport_entry_select(s, t, out);
    } else if (s->rr && qsi_postfix(s)) {
        found = round_robin_postfix(s, out);
    } else if (s->rr) {
        size_t i;
        t = s->rr;
        for (i = 0; i < s->ntransports; i++) {
            qs_transport *nt = t->rr_next;
            if (t->in_flight < t->process_limit && t->ready_queues > 0 &&
                transport_entry_select(s, t, out)) {
                s->rr = nt;
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
