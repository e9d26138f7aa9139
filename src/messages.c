/*
 * messages.c - messages arriving, deliveries ending, entries deferred.
 *
 * Owns: qs_arrive (validation, the message structure, activation or the
 * incoming queue), qs_done (outcome, feedback, pool and blocker updates),
 * deferral of pending entries of a dead destination, and freeing a
 * message.  Implements the events of spec/events.md (S-EV-1, S-EV-7,
 * S-EV-9) and S-CON-9, S-CON-12, S-PFX-6.  May not: decide feedback
 * (concurrency.c) or slot moves (memory.c); it calls them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "kernels.h"

static int valid_name(const char *str, int transport)
{
    if (!str || !*str)
        return 0;
    for (; *str; str++) {
        unsigned char c = (unsigned char)*str;
        int ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                 c == '-';
        if (!transport)
            ok = ok || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' ||
                 c == '+';
        if (!ok)
            return 0;
    }
    return 1;
}

int qs_arrive(qs_sched *s, const char *msgid, const qs_group *groups,
              size_t ngroups, char *err, size_t errlen)
{
    qs_message *m;
    int64_t total = 0;
    size_t i;
    qs_trace r;
    if (!msgid || !*msgid || strlen(msgid) > 64) {
        qsi_seterr(err, errlen, "bad message id");
        return -1;
    }
    if (qs_map_get(&s->messages, msgid, 0)) {
        if (err)
            snprintf(err, errlen, "duplicate message id \"%s\" (still in "
                     "the queue)", msgid);
        return -1;
    }
    if (ngroups == 0) {
        qsi_seterr(err, errlen, "a message needs at least one recipient");
        return -1;
    }
    /* S-EV-1: the incoming queue is bounded too. */
    if (s->active_count >= s->active_limit &&
        s->incoming_count >= QS_WAITING_MAX) {
        qsi_seterr(err, errlen, "too many messages waiting for the active queue "
               "(limit 1000000)");
        return -1;
    }
    for (i = 0; i < ngroups; i++) {
        const qs_group *g = &groups[i];
        if (!valid_name(g->transport, 1) || strlen(g->transport) > 64) {
            qsi_seterr(err, errlen, "bad transport name");
            return -1;
        }
        if (!valid_name(g->nexthop, 0) || strlen(g->nexthop) > 200 ||
            (g->local && (!valid_name(g->local, 0) || strlen(g->local) > 64))) {
            qsi_seterr(err, errlen, "bad next-hop or local part");
            return -1;
        }
        if (g->count < 1 || g->count > QS_COUNT_MAX - total) {
            qsi_seterr(err, errlen, "recipient count out of range (1 .. "
                   "1000000000 per message)");
            return -1;
        }
        total += g->count;
    }
    m = qsi_calloc(1, sizeof *m);
    m->id = qsi_strdup(msgid);
    m->serial = ++s->serial;
    m->groups = qsi_calloc(ngroups, sizeof *m->groups);
    m->ngroups = ngroups;
    for (i = 0; i < ngroups; i++) {
        m->groups[i].transport = qsi_strdup(groups[i].transport);
        m->groups[i].local = groups[i].local ? qsi_strdup(groups[i].local)
                                             : NULL;
        m->groups[i].nexthop = qsi_strdup(groups[i].nexthop);
        m->groups[i].count = groups[i].count;
    }
    m->rcpt_total = m->rcpt_unread = total;
    qsi_map_put(&s->messages, m->id, 0, m);
    if (s->active_count < s->active_limit) {
        qsi_message_activate(s, m);
    } else {
        /* S-MEM-2: the active queue is full: wait, first come first in. */
        if (s->incoming_tail)
            s->incoming_tail->next = m;
        else
            s->incoming_head = m;
        s->incoming_tail = m;
        s->incoming_count++;
        r = qsi_trace_init(QS_T_WAIT);
        r.msg = m->id;
        qsi_emit(s, &r);
    }
    qsi_run_checks(s);
    return 0;
}

/* Recipients leave core: delivered, deferred, or failed. */
static void rcpt_leave_core(qs_sched *s, qs_entry *e)
{
    qs_job *job = e->peer->job;
    qs_message *m = job->message;
    job->rcpt_count -= e->nrcpt;
    m->rcpt_count -= e->nrcpt;
    job->transport->in_core -= e->nrcpt;
    s->in_core -= e->nrcpt;
}

/* S-CON-9: a todo entry of a dead destination is deferred: removed from
 * the active queue; its recipients stay undelivered. */
void qsi_entry_defer_todo(qs_sched *s, qs_entry *e)
{
    qs_peer *p = e->peer;
    qs_queue *q = e->queue;
    qs_job *job = p->job;
    qs_message *m = job->message;
    qs_trace r = qsi_trace_init(QS_T_DEFER);

    r.msg = m->id;
    r.transport = q->transport->name;
    r.dest = q->name;
    r.n = e->nrcpt;
    qsi_emit(s, &r);
    qsi_peer_unlink_entry(p, e);
    qsi_qlist_unlink(&q->todo_head, &q->todo_tail, e);
    q->todo--;
    p->refcount--;
    /* R-12 deferred_entries: dealt with, it counts as selected (as in
     * Postfix), so the job's entry total - the score denominator, the
     * S-PRE-3 gate - still includes it (selected); or it leaves the job's
     * entry count as if never read (forgotten). */
    if (QS_READING(s, QR_DEFERRED_ENTRIES) == QRV_DEFERRED_FORGOTTEN)
        job->read_entries--;
    else
        job->selected_entries++;
    rcpt_leave_core(s, e);
    m->deferred += e->nrcpt;
    s->stats.recipients_deferred += e->nrcpt;
    qsi_message_return_slots(s, m, job);
    qsi_peer_free_if_unused(p);
    qsi_message_schedule_check(s, m);
    free(e);
}

int qs_done(qs_sched *s, int64_t handle, enum qs_outcome outcome, char *err,
            size_t errlen)
{
    qs_entry *e;
    qs_queue *q;
    qs_peer *p;
    qs_job *job;
    qs_message *m;
    qs_transport *t;
    if (outcome != QS_DONE_OK && outcome != QS_DONE_FAIL &&
        outcome != QS_DONE_DEFER) {
        qsi_seterr(err, errlen, "bad outcome");
        return -1;
    }
    e = qs_map_del(&s->inflight, NULL, (uint64_t)handle);
    if (!e) {
        if (err)
            snprintf(err, errlen, "D%lld is not in flight",
                     (long long)handle);
        return -1;
    }
    q = e->queue;
    p = e->peer;
    job = p->job;
    m = job->message;
    t = q->transport;
    /* S-PFX-6: Postfix applies feedback while the delivery still counts
     * as in flight; the document's busy count no longer includes it. */
    if (qsi_postfix(s))
        qsi_feedback(s, q, outcome);
    qsi_qlist_unlink(&q->busy_head, &q->busy_tail, e);
    q->busy--;
    t->in_flight--;
    rcpt_leave_core(s, e);
    if (outcome == QS_DONE_OK) {
        m->delivered += e->nrcpt;
        s->stats.recipients_delivered += e->nrcpt;
    } else {
        m->deferred += e->nrcpt;
        s->stats.recipients_deferred += e->nrcpt;
    }
    qsi_queue_update_ready(q);
    if (!qsi_postfix(s))
        qsi_feedback(s, q, outcome);
    /* S-MEM-5: slots freed by the finished entry move on. */
    qsi_message_return_slots(s, m, job);
    /* S-PRE-12: the destination can take more: release blockers. */
    qsi_blocker_update(s, q);
    /* The peer's reference is dropped only now: negative feedback above
     * may have deferred the peer's other entries. */
    p->refcount--;
    qsi_peer_free_if_unused(p);
    qsi_queue_free_if_idle(s, q);
    free(e);
    qsi_message_schedule_check(s, m);
    qsi_run_checks(s);
    return 0;
}

void qsi_message_free(qs_message *m)
{
    size_t i;
    for (i = 0; i < m->ngroups; i++) {
        free(m->groups[i].transport);
        free(m->groups[i].local);
        free(m->groups[i].nexthop);
    }
    free(m->groups);
    free(m->id);
    free(m);
}
