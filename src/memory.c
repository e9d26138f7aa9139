/*
 * memory.c - the memory limits: the active-queue limit, the recipient
 * limits of the first and later batches, the per-transport recipient pools
 * and their extra pools, refills, and the documented in-core bounds.
 *
 * Owns: rcpt_limit of jobs and messages, rcpt_unused of transports, the
 * active and incoming message lists, and the per-event message check that
 * reads more recipients or lets a message leave.  Implements
 * SCHEDULER_README "Dealing with memory resource limits": S-MEM-2 ..
 * S-MEM-5, S-MEM-7, S-MEM-9, S-INV-8.  May not: read recipients itself
 * (assign.c) or select entries (select.c).
 */
#include "sched_int.h"
#include "kernels.h"

/* S-MEM-5: give the job's unused recipient slots to the first job on the
 * by-time list that still has unread recipients, or to the pool. */
void qsi_job_move_limits(qs_sched *s, qs_job *job)
{
    qs_transport *t = job->transport;
    qs_message *m = job->message;
    qs_job *next = t->job_next_unread;
    int64_t unused;

    /* Advance the cached first-unread pointer past this job (amortised
     * O(1) per job: the by-time list never reorders). */
    if (job == next) {
        for (next = next->tnext; next; next = next->tnext)
            if (QS_UNREAD(next->message))
                break;
        t->job_next_unread = next;
    }
    unused = qs_pool_unused(job->rcpt_limit, job->rcpt_count, m->rcpt_limit,
                            m->rcpt_count);
    if (unused > 0) {
        job->rcpt_limit -= unused;
        m->rcpt_limit -= unused;
        t->rcpt_unused += unused;
        if (next && t->rcpt_unused > 0) {
            next->rcpt_limit += t->rcpt_unused;
            next->message->rcpt_limit += t->rcpt_unused;
            t->rcpt_unused = 0;
        }
        if (s->sink) {
            qs_trace r = qsi_trace_init(QS_T_SLOTS);
            r.transport = t->name;
            r.msg = m->id;
            r.msg2 = next ? next->message->id : NULL;
            r.a = job->rcpt_limit;
            r.b = t->rcpt_unused;
            qsi_emit(s, &r);
        }
    }
}

/* S-MEM-5: after an entry of `job` is done or deferred, the message's
 * other jobs that have slots to spare give them back first - retired jobs
 * at once, all of them once the message is fully read (a job may have
 * sponsored another job of its message) - then the job itself, once the
 * message is fully read. */
void qsi_message_return_slots(qs_sched *s, qs_message *m, qs_job *job)
{
    qs_job *sponsor;
    for (sponsor = m->jobs; sponsor; sponsor = sponsor->mnext) {
        if (sponsor == job || sponsor->rcpt_count >= sponsor->rcpt_limit)
            continue;
        if (sponsor->stack_level < 0 || !QS_UNREAD(m))
            qsi_job_move_limits(s, sponsor);
    }
    if (!QS_UNREAD(m))
        qsi_job_move_limits(s, job);
}

static int message_finish(qs_sched *s, qs_message *m);

void qsi_message_schedule_check(qs_sched *s, qs_message *m)
{
    if (m->check_pending)
        return;
    m->check_pending = 1;
    if (!qsi_postfix(s)) {
        m->check_next = s->check_head;
        s->check_head = m;
        return;
    }
    /* S-PFX-18 (postfix profile): Postfix finishes with a message at the
     * moment its last in-core recipient is dealt with (qmgr_entry_done
     * calls qmgr_active_done): it reads more at once, or the message
     * leaves at once, in the middle of whatever the event is doing (for
     * example between the deferrals of a dying destination's entries).
     * Only the waiting messages enter later, at the end of the event,
     * when the queue manager's loop feeds the active queue. */
    if (!message_finish(s, m))
        m->check_pending = 0;
}

/* S-MEM-4: later batches: as many as the message's jobs' slots permit
 * plus qmgr_message_recipient_minimum (already in m->rcpt_limit). */
void qsi_message_realloc(qs_sched *s, qs_message *m)
{
    int64_t limit = m->rcpt_limit - m->rcpt_count;
    /* S-PFX-12: Postfix reads at most 5000 recipients at a time. */
    if (qsi_postfix(s) && limit > 5000)
        limit = 5000;
    if (limit > 0)
        qsi_message_read(s, m, limit);
}

/* A message whose in-core recipients are all dealt with reads more, or
 * leaves the active queue (S-MEM-2, S-MEM-7).  1: it left (m is freed). */
static int message_finish(qs_sched *s, qs_message *m)
{
    qs_trace r;
    /* S-MEM-7: all in-core recipients dealt with, more unread: read.
     * (m is still marked check_pending, so the reads do not queue it.) */
    while (m->rcpt_count == 0 && QS_UNREAD(m))
        qsi_message_realloc(s, m);
    if (m->rcpt_count > 0 || QS_UNREAD(m))
        return 0;
    while (m->jobs) {
        qs_job *j = m->jobs;
        m->jobs = j->mnext;
        qsi_job_free(s, j);
    }
    qs_map_del(&s->messages, m->id, 0);
    if (m->aprev)
        m->aprev->next = m->next;
    else
        s->active_head = m->next;
    if (m->next)
        m->next->aprev = m->aprev;
    else
        s->active_tail = m->aprev;
    s->active_count--;
    s->stats.messages_done++;
    r = qsi_trace_init(QS_T_LEAVE);
    r.msg = m->id;
    r.a = m->delivered;
    r.b = m->deferred;
    qsi_emit(s, &r);
    qsi_message_free(m);
    return 1;
}

/* S-MEM-2: waiting messages enter from the head of the FIFO while there
 * is room. */
static void activate_waiting(qs_sched *s)
{
    while (s->incoming_head && s->active_count < s->active_limit) {
        qs_message *w = s->incoming_head;
        s->incoming_count--;
        s->incoming_head = w->next;
        if (!s->incoming_head)
            s->incoming_tail = NULL;
        qsi_message_activate(s, w);
    }
}

/* Document profile: a message that leaves lets waiting messages in at
 * once. */
static int message_check(qs_sched *s, qs_message *m)
{
    if (!message_finish(s, m))
        return 0;
    activate_waiting(s);
    return 1;
}

void qsi_run_checks(qs_sched *s)
{
    while (s->check_head) {
        qs_message *m = s->check_head;
        s->check_head = m->check_next;
        m->check_next = NULL;
        if (!message_check(s, m))
            m->check_pending = 0; /* still active: may be queued again */
    }
    /* S-PFX-18: the end of the event, where Postfix feeds the active
     * queue (messages left during the event without a check). */
    if (qsi_postfix(s))
        activate_waiting(s);
}

/* S-MEM-2, S-MEM-3: enter the active queue; the first batch is at least
 * qmgr_message_recipient_minimum, more while fewer than
 * qmgr_message_recipient_limit recipients are in core. */
void qsi_message_activate(qs_sched *s, qs_message *m)
{
    int64_t limit;
    qs_trace r = qsi_trace_init(QS_T_ACTIVATE);
    m->active = 1;
    m->queued_time = s->now;
    m->next = NULL;
    m->aprev = s->active_tail;
    if (s->active_tail)
        s->active_tail->next = m;
    else
        s->active_head = m;
    s->active_tail = m;
    s->active_count++;
    r.msg = m->id;
    qsi_emit(s, &r);
    m->rcpt_limit = s->msg_rcpt_minimum;
    limit = s->msg_rcpt_limit - s->in_core;
    if (limit < m->rcpt_limit)
        limit = m->rcpt_limit;
    if (qsi_postfix(s) && limit > 5000)
        limit = 5000;
    qsi_message_read(s, m, limit);
}

int64_t qs_bound_transport(const qs_sched *s, const qs_transport *t)
{
    int64_t a = s->msg_rcpt_minimum * s->active_limit + t->rcpt_limit +
                t->extra_rcpt_limit;
    return a > s->msg_rcpt_limit ? a : s->msg_rcpt_limit;
}

int64_t qs_bound_total(const qs_sched *s)
{
    const qs_transport *t;
    int64_t a = s->msg_rcpt_minimum * s->active_limit;
    for (t = s->xhead; t; t = t->next)
        a += t->rcpt_limit + t->extra_rcpt_limit;
    return a > s->msg_rcpt_limit ? a : s->msg_rcpt_limit;
}

int64_t qs_bound_holding(const qs_sched *s)
{
    const qs_transport *t;
    int64_t a = s->msg_rcpt_limit + s->msg_rcpt_minimum * s->active_count;
    for (t = s->xhead; t; t = t->next)
        a += t->rcpt_limit + t->extra_rcpt_limit;
    return a;
}
