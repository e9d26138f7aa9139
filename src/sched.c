/*
 * sched.c - the scheduler core: the concurrency scheduler (per-destination
 * window, feedback, dead destinations) and the preemptive job scheduler
 * (job lists, delivery slots, candidates, preemption stacks, blockers,
 * recipient pools, batched reading).
 *
 * Owns: every state change of qs_sched.  It follows SCHEDULER_README
 * sentence by sentence; the rule ids (S-...) name the spec/ rule each block
 * implements.  Arithmetic decisions are delegated to the pure kernels in
 * kernels.c.  No I/O: decisions leave through the trace sink.  Deterministic:
 * lists are kept in explicit orders, maps are only used for look-ups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "kernels.h"

/* ------------------------------------------------------------------ */
/* small helpers                                                       */
/* ------------------------------------------------------------------ */

static void seterr(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

static void emit(qs_sched *s, qs_trace *r)
{
    r->time = s->now;
    if (s->sink)
        s->sink(s->ctx, r);
}

static qs_trace rec(enum qs_trace_kind kind)
{
    qs_trace r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    return r;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        /* The core cannot report allocation failure half-way through an
         * event without leaving a half-applied state; limits in the parser
         * keep memory bounded, so running out is fatal.  (No message: the
         * core does no I/O; the abort is the report.) */
        abort();
    }
    return p;
}

static char *xstrdup(const char *str)
{
    size_t n = strlen(str) + 1;
    char *p = xcalloc(1, n);
    memcpy(p, str, n);
    return p;
}

static void xmap_put(qs_map *m, const char *str, uint64_t num, void *v)
{
    if (qs_map_put(m, str, num, v) < 0) {
        abort(); /* out of memory: see xcalloc */
    }
}

static int postfix(const qs_sched *s)
{
    return s->profile == QS_PROFILE_POSTFIX;
}

/* ------------------------------------------------------------------ */
/* transports and queues                                               */
/* ------------------------------------------------------------------ */

static int64_t pint(const qs_sched *s, const char *t, int id)
{
    return qs_param_int(s->params, t, id);
}

static qs_transport *transport_find(const qs_sched *s, const char *name)
{
    return qs_map_get(&s->transports, name, 0);
}

/* S-EV-2: parameters resolve TRANSPORT_suffix, built-in, default_suffix. */
static qs_transport *transport_obtain(qs_sched *s, const char *name)
{
    qs_transport *t = transport_find(s, name);
    if (t)
        return t;
    t = xcalloc(1, sizeof *t);
    t->name = xstrdup(name);
    t->serial = ++s->serial;
    t->slot_cost = (int)pint(s, name, QP_SLOT_COST);
    t->slot_loan = (int)pint(s, name, QP_SLOT_LOAN);
    t->slot_discount = (int)pint(s, name, QP_SLOT_DISCOUNT);
    t->min_slots = (int)pint(s, name, QP_MIN_SLOTS);
    t->dest_conc_limit = (int)pint(s, name, QP_DEST_CONC_LIMIT);
    t->dest_rcpt_limit = (int)pint(s, name, QP_DEST_RCPT_LIMIT);
    t->init_conc = (int)pint(s, name, QP_INIT_CONC);
    /* S-PFX-9: Postfix lowers the initial window to a non-zero limit. */
    if (postfix(s) && t->dest_conc_limit > 0 &&
        t->init_conc > t->dest_conc_limit)
        t->init_conc = t->dest_conc_limit;
    t->cohort_limit = (int)pint(s, name, QP_COHORT_LIMIT);
    t->process_limit = (int)pint(s, name, QP_PROCESS_LIMIT);
    t->rcpt_limit = pint(s, name, QP_RCPT_LIMIT);
    t->extra_rcpt_limit = pint(s, name, QP_EXTRA_RCPT_LIMIT);
    t->refill_limit = pint(s, name, QP_REFILL_LIMIT);
    t->refill_delay = pint(s, name, QP_REFILL_DELAY);
    t->pos = qs_param_feedback(s->params, name, QP_POS_FEEDBACK);
    t->neg = qs_param_feedback(s->params, name, QP_NEG_FEEDBACK);
    /* S-PFX-7: Postfix 3.x has the sqrt form compiled out: warn, use 1. */
    if (postfix(s)) {
        qs_feedback *fbs[2] = {&t->pos, &t->neg};
        int i;
        for (i = 0; i < 2; i++) {
            if (fbs[i]->form == QS_FB_SQRT) {
                qs_trace r = rec(QS_T_FBWARN);
                fbs[i]->form = QS_FB_CONST;
                fbs[i]->base = 1;
                r.transport = t->name;
                r.a = i; /* 0 positive, 1 negative */
                emit(s, &r);
            }
        }
    }
    t->blocker_tag = 1;
    /* S-MEM-5: the pool starts with TRANSPORT_recipient_limit slots. */
    t->rcpt_unused = t->rcpt_limit;
    qs_map_init(&t->queues);
    xmap_put(&s->transports, t->name, 0, t);
    if (s->xtail)
        s->xtail->next = t;
    else
        s->xhead = t;
    s->xtail = t;
    if (!s->rr)
        s->rr = t;
    s->ntransports++;
    return t;
}

/* A queue is "ready" when the transport could select from it now. */
static void queue_update_ready(qs_queue *q)
{
    int ready = !q->dead && q->window > q->busy && q->todo > 0;
    if (ready != q->ready) {
        q->ready = ready;
        q->transport->ready_queues += ready ? 1 : -1;
    }
}

/* S-CON-1: a new destination starts at the initial concurrency. */
static qs_queue *queue_obtain(qs_sched *s, qs_transport *t, const char *name)
{
    qs_queue *q = qs_map_get(&t->queues, name, 0);
    if (q)
        return q;
    q = xcalloc(1, sizeof *q);
    q->name = xstrdup(name);
    q->serial = ++s->serial;
    q->transport = t;
    q->window = t->init_conc;
    xmap_put(&t->queues, q->name, 0, q);
    q->prev = t->qtail;
    if (t->qtail)
        t->qtail->next = q;
    else
        t->qhead = q;
    t->qtail = q;
    return q;
}

/* S-CON-13: Postfix discards an in-core queue when it is empty and alive;
 * a new one starts again from the initial window.  Dead queues stay until
 * they revive. */
static void queue_free_if_idle(qs_queue *q)
{
    qs_transport *t = q->transport;
    if (q->dead || q->todo || q->busy)
        return;
    if (q->ready)
        t->ready_queues--;
    qs_map_del(&t->queues, q->name, 0);
    if (q->prev)
        q->prev->next = q->next;
    else
        t->qhead = q->next;
    if (q->next)
        q->next->prev = q->prev;
    else
        t->qtail = q->prev;
    free(q->name);
    free(q);
}

/* ------------------------------------------------------------------ */
/* job lists (S-PRE-1, S-PRE-13, S-MEM-5, S-MEM-10)                    */
/* ------------------------------------------------------------------ */

static void trace_job(qs_sched *s, enum qs_trace_kind kind, qs_job *j)
{
    qs_trace r = rec(kind);
    r.transport = j->transport->name;
    r.msg = j->message->id;
    emit(s, &r);
}

/* S-MEM-5: give the job's unused recipient slots to the first job on the
 * by-time list that still has unread recipients, or to the pool. */
static void job_move_limits(qs_sched *s, qs_job *job)
{
    qs_transport *t = job->transport;
    qs_message *m = job->message;
    qs_job *next = t->job_next_unread;
    int64_t unused;

    /* Advance the cached first-unread pointer past this job (amortised
     * O(1) per job: the by-time list never reorders). */
    if (job == next) {
        for (next = next->tnext; next; next = next->tnext)
            if (next->message->rcpt_unread > 0)
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
            qs_trace r = rec(QS_T_SLOTS);
            r.transport = t->name;
            r.msg = m->id;
            r.msg2 = next ? next->message->id : NULL;
            r.a = job->rcpt_limit;
            r.b = t->rcpt_unused;
            emit(s, &r);
        }
    }
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
    qs_job *prev, *next, *current = t->job_current, *unread;

    for (next = NULL, prev = t->jtail; prev; next = prev, prev = prev->lprev) {
        if (prev->parent == NULL &&
            m->queued_time - prev->message->queued_time >= 0)
            break;
        if (current == prev)
            current = NULL;
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
    /* Linked in front of the current job: it becomes the current job. */
    if (current == NULL)
        t->job_current = job;
    /* Linked in front of the first unread job: that job first returns its
     * unused slots to the pool (S-MEM-5). */
    if (unread == NULL) {
        unread = t->job_next_unread;
        t->job_next_unread = job;
        if (unread)
            job_move_limits(s, unread);
    }
    /* A job on the list takes every unused slot of the pool. */
    if (t->rcpt_unused > 0) {
        job->rcpt_limit += t->rcpt_unused;
        m->rcpt_limit += t->rcpt_unused;
        t->rcpt_unused = 0;
    }
    if (revived)
        trace_job(s, QS_T_RELINK, job);
}

static void child_unlink(qs_job *parent, qs_job *child)
{
    if (child->sprev)
        child->sprev->snext = child->snext;
    else
        parent->child_head = child->snext;
    if (child->snext)
        child->snext->sprev = child->sprev;
    else
        parent->child_tail = child->sprev;
    child->sprev = child->snext = NULL;
}

static void child_append(qs_job *parent, qs_job *child)
{
    child->sprev = parent->child_tail;
    child->snext = NULL;
    if (parent->child_tail)
        parent->child_tail->snext = child;
    else
        parent->child_head = child;
    parent->child_tail = child;
}

/* S-PRE-10: the children of a job leaving its stack are adopted by its
 * parent (or orphaned); they keep their stack level. */
static void job_parent_gone(qs_job *job, qs_job *parent)
{
    qs_job *child;
    while ((child = job->child_head) != NULL) {
        child_unlink(job, child);
        if (parent)
            child_append(parent, child);
        child->parent = parent;
    }
}

/* S-PRE-9: leave the preemption stack; refund the original parent. */
static void job_pop(qs_sched *s, qs_job *job)
{
    qs_transport *t = job->transport;
    qs_job *parent = job->parent;
    qs_trace r = rec(QS_T_POP);

    r.transport = t->name;
    r.msg = job->message->id;
    r.a = job->slots_used;
    if (parent) {
        int64_t before = parent->slots_available;
        parent->slots_available =
            qs_slots_refund(before, job->slots_used, t->slot_cost,
                            job->stack_level, parent->stack_level);
        r.msg2 = parent->message->id;
        r.b = parent->slots_available != before ||
              job->stack_level == parent->stack_level + 1;
        r.c = parent->slots_available;
        child_unlink(parent, job);
        job->parent = NULL;
    }
    job_parent_gone(job, parent);
    job->stack_level = 0;
    emit(s, &r);
}

static void job_unlink(qs_job *job)
{
    qs_transport *t = job->transport;
    /* Children of a level-0 job learn that their parent is gone. */
    job_parent_gone(job, NULL);
    if (t->job_current == job)
        t->job_current = job->lnext;
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
static void job_retire(qs_sched *s, qs_job *job)
{
    if (job->stack_level > 0)
        job_pop(s, job);
    job_move_limits(s, job);
    job_unlink(job);
    trace_job(s, QS_T_RETIRE, job);
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
static qs_job *job_obtain(qs_sched *s, qs_message *m, qs_transport *t)
{
    qs_job *job = job_find(m, t), **pp;
    int revived = job != NULL;
    if (!job) {
        job = xcalloc(1, sizeof *job);
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
    if (QS_IS_BLOCKER(job)) {
        job->blocker_tag = 0;
        t->job_current = t->jhead;
    }
    return job;
}

static qs_peer *peer_obtain(qs_sched *s, qs_job *job, qs_queue *q)
{
    qs_peer *p = qs_map_get(&job->peers, NULL, q->serial);
    (void)s;
    if (p)
        return p;
    p = xcalloc(1, sizeof *p);
    p->job = job;
    p->queue = q;
    p->prev = job->peer_tail;
    if (job->peer_tail)
        job->peer_tail->next = p;
    else
        job->peer_head = p;
    job->peer_tail = p;
    job->peer_count++;
    xmap_put(&job->peers, NULL, q->serial, p);
    return p;
}

static void peer_free_if_unused(qs_peer *p)
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

/* ------------------------------------------------------------------ */
/* entries                                                             */
/* ------------------------------------------------------------------ */

static void qlist_append(qs_entry **head, qs_entry **tail, qs_entry *e)
{
    e->qprev = *tail;
    e->qnext = NULL;
    if (*tail)
        (*tail)->qnext = e;
    else
        *head = e;
    *tail = e;
}

static void qlist_unlink(qs_entry **head, qs_entry **tail, qs_entry *e)
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

static void peer_unlink_entry(qs_peer *p, qs_entry *e)
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

static qs_entry *entry_create(qs_peer *p)
{
    qs_entry *e = xcalloc(1, sizeof *e);
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
    qlist_append(&q->todo_head, &q->todo_tail, e);
    q->todo++;
    p->job->read_entries++;
    queue_update_ready(q);
    return e;
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

static void message_schedule_check(qs_sched *s, qs_message *m)
{
    if (!m->check_pending) {
        m->check_pending = 1;
        m->check_next = s->check_head;
        s->check_head = m;
    }
}

/* S-MEM-5: after an entry of `job` is done or deferred, the message's
 * other jobs that have slots to spare give them back first - retired jobs
 * at once, all of them once the message is fully read (a job may have
 * sponsored another job of its message) - then the job itself, once the
 * message is fully read. */
static void message_return_slots(qs_sched *s, qs_message *m, qs_job *job)
{
    qs_job *sponsor;
    for (sponsor = m->jobs; sponsor; sponsor = sponsor->mnext) {
        if (sponsor == job || sponsor->rcpt_count >= sponsor->rcpt_limit)
            continue;
        if (sponsor->stack_level < 0 || m->rcpt_unread == 0)
            job_move_limits(s, sponsor);
    }
    if (m->rcpt_unread == 0)
        job_move_limits(s, job);
}

/* S-CON-9: a todo entry of a dead destination is deferred: removed from
 * the active queue; its recipients stay undelivered. */
static void entry_defer_todo(qs_sched *s, qs_entry *e)
{
    qs_peer *p = e->peer;
    qs_queue *q = e->queue;
    qs_job *job = p->job;
    qs_message *m = job->message;
    qs_trace r = rec(QS_T_DEFER);

    r.msg = m->id;
    r.transport = q->transport->name;
    r.dest = q->name;
    r.n = e->nrcpt;
    emit(s, &r);
    peer_unlink_entry(p, e);
    qlist_unlink(&q->todo_head, &q->todo_tail, e);
    q->todo--;
    p->refcount--;
    /* Dealt with: it counts as selected (as in Postfix), so the job's
     * entry total - the score denominator - still includes it. */
    job->selected_entries++;
    rcpt_leave_core(s, e);
    m->deferred += e->nrcpt;
    s->stats.recipients_deferred += e->nrcpt;
    message_return_slots(s, m, job);
    peer_free_if_unused(p);
    message_schedule_check(s, m);
    free(e);
}

/* ------------------------------------------------------------------ */
/* reading recipients (S-MEM-1 .. S-MEM-4)                             */
/* ------------------------------------------------------------------ */

struct qs_batch_rcpt {
    size_t group;
    int64_t index;    /* 1-based within the group */
    int64_t ordinal;  /* 1-based within the message */
};

/* S-EV-4: with a destination recipient limit of 1 the destination is the
 * recipient, LOCAL@NEXTHOP; unnamed recipients are rN@NEXTHOP (N = their
 * ordinal in the message), named ones with COUNT > 1 are LOCAL.J@NEXTHOP. */
static void rcpt_dest(const qs_transport *t, const qs_mgroup *g,
                      const struct qs_batch_rcpt *b, char *buf, size_t len)
{
    if (t->dest_rcpt_limit != 1) {
        size_t n = strlen(g->nexthop);   /* <= 200 (parser), len is 512 */
        if (n >= len)
            n = len - 1;
        memcpy(buf, g->nexthop, n);
        buf[n] = 0;
    } else if (!g->local)
        snprintf(buf, len, "r%lld@%s", (long long)b->ordinal, g->nexthop);
    else if (g->count == 1)
        snprintf(buf, len, "%s@%s", g->local, g->nexthop);
    else
        snprintf(buf, len, "%s.%lld@%s", g->local, (long long)b->index,
                 g->nexthop);
}

/* S-PFX-11: the postfix profile sorts each batch by transport, then
 * destination name, then domain, then address (byte order); recipients
 * equal in all four keep their written order (the sort is stable). */
static int batch_cmp(const qs_sched *s, const qs_message *m,
                     const struct qs_batch_rcpt *a,
                     const struct qs_batch_rcpt *b)
{
    const qs_mgroup *ga = &m->groups[a->group];
    const qs_mgroup *gb = &m->groups[b->group];
    char da[512], db[512];
    qs_transport one;
    int c = strcmp(ga->transport, gb->transport);
    if (c)
        return c;
    rcpt_dest(transport_find(s, ga->transport), ga, a, da, sizeof da);
    rcpt_dest(transport_find(s, gb->transport), gb, b, db, sizeof db);
    if ((c = strcmp(da, db)) != 0)
        return c;
    if ((c = strcmp(ga->nexthop, gb->nexthop)) != 0)
        return c;
    memset(&one, 0, sizeof one);
    one.dest_rcpt_limit = 1; /* full address LOCAL@NEXTHOP */
    rcpt_dest(&one, ga, a, da, sizeof da);
    rcpt_dest(&one, gb, b, db, sizeof db);
    return strcmp(da, db);
}

/* Stable merge sort with context (qsort has neither). */
static void batch_sort(const qs_sched *s, const qs_message *m,
                       struct qs_batch_rcpt *v, struct qs_batch_rcpt *tmp,
                       size_t n)
{
    size_t mid = n / 2, i = 0, j = mid, k = 0;
    if (n < 2)
        return;
    batch_sort(s, m, v, tmp, mid);
    batch_sort(s, m, v + mid, tmp, n - mid);
    while (i < mid && j < n)
        tmp[k++] = batch_cmp(s, m, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
    while (i < mid)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static void message_read(qs_sched *s, qs_message *m, int64_t limit);

/* Read up to `limit` recipients in the order written (S-MEM-1), resolve
 * them, and assign them to jobs, peers and entries (S-PRE-1). */
static void message_read(qs_sched *s, qs_message *m, int64_t limit)
{
    int64_t n = limit < m->rcpt_unread ? limit : m->rcpt_unread, i;
    int64_t ordinal_base = m->rcpt_total - m->rcpt_unread;
    qs_entry *entry = NULL;
    qs_queue *dead_q = NULL, *last_q = NULL;
    qs_transport *t = NULL;
    size_t last_group = (size_t)-1;
    int64_t dead_run = 0;
    char dest[512];
    qs_trace r;

    if (n <= 0)
        return;
    if ((size_t)n > s->batch_cap) {
        /* twice the batch: the second half is the merge sort's scratch */
        free(s->batch);
        s->batch_cap = (size_t)n;
        s->batch = xcalloc(2 * s->batch_cap, sizeof *s->batch);
    }
    for (i = 0; i < n; i++) {
        qs_mgroup *g = &m->groups[m->cur_group];
        s->batch[i].group = m->cur_group;
        s->batch[i].index = m->cur_offset + 1;
        s->batch[i].ordinal = ordinal_base + i + 1;
        transport_obtain(s, g->transport);
        if (++m->cur_offset == g->count) {
            m->cur_group++;
            m->cur_offset = 0;
        }
    }
    m->rcpt_unread -= n;
    m->refill_time = s->now;
    s->stats.reads++;
    if (postfix(s))
        batch_sort(s, m, s->batch, s->batch + n, (size_t)n);
    r = rec(QS_T_READ);
    r.msg = m->id;
    r.n = n;
    r.a = m->rcpt_unread;
    r.b = limit;
    emit(s, &r);

    for (i = 0; i < n; i++) {
        struct qs_batch_rcpt *b = &s->batch[i];
        qs_mgroup *g = &m->groups[b->group];
        qs_queue *q;
        /* Consecutive recipients of one group share transport and, unless
         * the destination is the recipient, destination: look up once. */
        if (b->group != last_group || t->dest_rcpt_limit == 1) {
            if (b->group != last_group)
                t = transport_find(s, g->transport);
            rcpt_dest(t, g, b, dest, sizeof dest);
            last_q = queue_obtain(s, t, dest);
            last_group = b->group;
        }
        q = last_q;
        /* S-CON-9: recipients for a dead destination are deferred at once
         * (the document: a queue is instantiated "unless it's dead"). */
        if (q->dead) {
            if (dead_q != q && dead_run > 0) {
                r = rec(QS_T_DEFER);
                r.msg = m->id;
                r.transport = dead_q->transport->name;
                r.dest = dead_q->name;
                r.n = dead_run;
                emit(s, &r);
                dead_run = 0;
            }
            dead_q = q;
            dead_run++;
            m->deferred++;
            s->stats.recipients_deferred++;
            continue;
        }
        /* Batch per destination up to TRANSPORT_destination_recipient_limit:
         * continue the previous entry, else the peer's last unselected
         * entry if it has room, else a new entry. */
        if (!entry || entry->queue != q ||
            (t->dest_rcpt_limit > 0 && entry->nrcpt >= t->dest_rcpt_limit)) {
            qs_job *job = job_obtain(s, m, t);
            qs_peer *p = peer_obtain(s, job, q);
            entry = p->etail;
            if (!entry || (t->dest_rcpt_limit > 0 &&
                           entry->nrcpt >= t->dest_rcpt_limit))
                entry = entry_create(p);
        }
        entry->nrcpt++;
        entry->peer->job->rcpt_count++;
        m->rcpt_count++;
        t->in_core++;
        if (t->in_core > t->peak_in_core)
            t->peak_in_core = t->in_core;
        s->in_core++;
    }
    if (dead_run > 0) {
        r = rec(QS_T_DEFER);
        r.msg = m->id;
        r.transport = dead_q->transport->name;
        r.dest = dead_q->name;
        r.n = dead_run;
        emit(s, &r);
    }
    if (s->in_core > s->stats.peak_in_core)
        s->stats.peak_in_core = s->in_core;
    /* Fully read: every job gives back what it does not need (S-MEM-5). */
    if (m->rcpt_unread == 0) {
        qs_job *j;
        for (j = m->jobs; j; j = j->mnext)
            job_move_limits(s, j);
    }
    message_schedule_check(s, m);
}

/* S-MEM-4: later batches: as many as the message's jobs' slots permit
 * plus qmgr_message_recipient_minimum (already in m->rcpt_limit). */
static void message_realloc(qs_sched *s, qs_message *m)
{
    int64_t limit = m->rcpt_limit - m->rcpt_count;
    /* S-PFX-12: Postfix reads at most 5000 recipients at a time. */
    if (postfix(s) && limit > 5000)
        limit = 5000;
    if (limit > 0)
        message_read(s, m, limit);
}

static void message_activate(qs_sched *s, qs_message *m);

static void job_free(qs_sched *s, qs_job *job)
{
    if (job->stack_level > 0)
        job_pop(s, job);
    job_move_limits(s, job);
    if (job->stack_level >= 0)
        job_unlink(job);
    qs_map_destroy(&job->peers);
    free(job);
}

static void message_free(qs_message *m)
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

/* A message whose in-core recipients are all dealt with reads more, or
 * leaves the active queue, letting a waiting message in (S-MEM-2, S-MEM-7). */
static int message_check(qs_sched *s, qs_message *m)
{
    qs_trace r;
    /* S-MEM-7: all in-core recipients dealt with, more unread: read.
     * (m is still marked check_pending, so the reads do not queue it.) */
    while (m->rcpt_count == 0 && m->rcpt_unread > 0)
        message_realloc(s, m);
    if (m->rcpt_count > 0 || m->rcpt_unread > 0)
        return 0;
    while (m->jobs) {
        qs_job *j = m->jobs;
        m->jobs = j->mnext;
        job_free(s, j);
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
    r = rec(QS_T_LEAVE);
    r.msg = m->id;
    r.a = m->delivered;
    r.b = m->deferred;
    emit(s, &r);
    message_free(m);
    while (s->incoming_head && s->active_count < s->active_limit) {
        qs_message *w = s->incoming_head;
        s->incoming_count--;
        s->incoming_head = w->next;
        if (!s->incoming_head)
            s->incoming_tail = NULL;
        message_activate(s, w);
    }
    return 1;
}

static void run_checks(qs_sched *s)
{
    while (s->check_head) {
        qs_message *m = s->check_head;
        s->check_head = m->check_next;
        m->check_next = NULL;
        if (!message_check(s, m))
            m->check_pending = 0; /* still active: may be queued again */
    }
}

/* S-MEM-2, S-MEM-3: enter the active queue; the first batch is at least
 * qmgr_message_recipient_minimum, more while fewer than
 * qmgr_message_recipient_limit recipients are in core. */
static void message_activate(qs_sched *s, qs_message *m)
{
    int64_t limit;
    qs_trace r = rec(QS_T_ACTIVATE);
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
    emit(s, &r);
    m->rcpt_limit = s->msg_rcpt_minimum;
    limit = s->msg_rcpt_limit - s->in_core;
    if (limit < m->rcpt_limit)
        limit = m->rcpt_limit;
    if (postfix(s) && limit > 5000)
        limit = 5000;
    message_read(s, m, limit);
}

/* ------------------------------------------------------------------ */
/* blockers (S-PRE-11, S-PRE-12)                                       */
/* ------------------------------------------------------------------ */

static void blocker_release_all(qs_sched *s, qs_transport *t, qs_queue *q)
{
    qs_trace r = rec(QS_T_UNBLOCK);
    t->blocker_tag += 2;
    t->job_current = t->jhead;
    r.transport = t->name;
    r.dest = q->name;
    emit(s, &r);
}

/* A queue that blocked jobs can take more: release every blocker of the
 * transport at once (the next selection re-marks those still blocked). */
static void blocker_update(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    if (q->blocker_tag != t->blocker_tag)
        return;
    if (!q->dead && q->window > q->busy && q->todo > 0)
        blocker_release_all(s, t, q);
    if ((!q->dead && q->window > q->busy) || q->dead)
        q->blocker_tag = 0;
}

/* ------------------------------------------------------------------ */
/* concurrency feedback (S-CON-*, S-PFX-*)                             */
/* ------------------------------------------------------------------ */

static void trace_window(qs_sched *s, qs_queue *q, int old)
{
    qs_trace r;
    if (q->window == old)
        return;
    r = rec(QS_T_WINDOW);
    r.transport = q->transport->name;
    r.dest = q->name;
    r.a = old;
    r.b = q->window;
    emit(s, &r);
}

static void queue_dead_unlink(qs_sched *s, qs_queue *q)
{
    if (q->dprev)
        q->dprev->dnext = q->dnext;
    else
        s->dead_head = q->dnext;
    if (q->dnext)
        q->dnext->dprev = q->dprev;
    else
        s->dead_tail = q->dprev;
    q->dprev = q->dnext = NULL;
}

/* S-CON-10 / S-PFX-4: back from the dead. */
static void queue_revive(qs_sched *s, qs_queue *q, int busy)
{
    qs_trace r = rec(QS_T_REVIVE);
    queue_dead_unlink(s, q);
    q->dead = 0;
    if (postfix(s) && busy > 0)
        q->window = busy;
    else
        q->window = q->transport->init_conc;
    q->success = q->failure = q->fail_cohorts = 0;
    s->stats.revivals++;
    r.transport = q->transport->name;
    r.dest = q->name;
    r.a = q->window;
    emit(s, &r);
    queue_update_ready(q);
}

/* S-CON-8, S-CON-9: declared dead: stop deliveries, defer pending entries,
 * revive after minimal_backoff_time. */
static void queue_die(qs_sched *s, qs_queue *q)
{
    qs_trace r = rec(QS_T_DEAD);
    qs_transport *t = q->transport;
    int released = 0;
    q->dead = 1;
    q->revive_at = s->now + s->min_backoff;
    q->dprev = s->dead_tail;
    q->dnext = NULL;
    if (s->dead_tail)
        s->dead_tail->dnext = q;
    else
        s->dead_head = q;
    s->dead_tail = q;
    s->stats.deaths++;
    r.transport = t->name;
    r.dest = q->name;
    emit(s, &r);
    queue_update_ready(q);
    /* S-PRE-12 (document profile): a destination declared dead releases
     * the blockers it caused; their entries there are gone.  S-PFX-10:
     * Postfix only stops counting the queue as a blocker (below). */
    if (!postfix(s) && q->blocker_tag == t->blocker_tag) {
        blocker_release_all(s, t, q);
        released = 1;
    }
    while (q->todo_head)
        entry_defer_todo(s, q->todo_head);
    if (!released)
        blocker_update(s, q);
    else
        q->blocker_tag = 0;
}

/* "After success" (positive feedback; also for `defer` outcomes). */
static void feedback_positive(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    int old = q->window;
    double g;
    if (q->dead) {
        /* S-PFX-8: Postfix revives at once, cancelling the backoff, with
         * the deliveries still in flight (including this one).
         * S-CON-11: the document profile ignores it; the destination stays
         * dead until its backoff expires. */
        if (postfix(s))
            queue_revive(s, q, (int)q->busy);
        return;
    }
    if (postfix(s)) {
        /* S-PFX-5: fail_cohorts reset on every positive feedback. */
        q->fail_cohorts = 0;
        /* S-PFX-3: skip when already at a non-zero limit; S-CON-3 safety
         * with busy still counting this delivery (S-PFX-6). */
        if ((t->dest_conc_limit == 0 || t->dest_conc_limit > q->window) &&
            qs_safety_allows(q->window, (int)q->busy, t->init_conc)) {
            g = qs_fb_value(t->pos.form, t->pos.base, q->window);
            q->window = qs_success_step(q->window, g, t->dest_conc_limit, 1,
                                        &q->success, &q->failure);
        }
    } else if (qs_safety_allows(q->window, (int)q->busy, t->init_conc)) {
        /* S-CON-3 holds: S-CON-4, S-CON-5. */
        q->fail_cohorts = 0;
        g = qs_fb_value(t->pos.form, t->pos.base, q->window);
        q->window = qs_success_step(q->window, g, t->dest_conc_limit, 0,
                                    &q->success, &q->failure);
    }
    trace_window(s, q, old);
    queue_update_ready(q);
}

/* "After failure" (negative feedback). */
static void feedback_negative(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    int old = q->window;
    double f;
    if (q->dead)
        return; /* the pseudocode's "if (concurrency > 0)" */
    /* S-CON-6 */
    q->fail_cohorts = qs_cohort_add(q->fail_cohorts, q->window);
    /* S-CON-8 / S-PFX-1 */
    if (qs_cohort_dead(q->fail_cohorts, t->cohort_limit, postfix(s))) {
        queue_die(s, q);
        return;
    }
    /* S-CON-7 (S-PFX-2: rounding guard) */
    f = qs_fb_value(t->neg.form, t->neg.base, q->window);
    q->window = qs_failure_step(q->window, f, postfix(s), &q->success,
                                &q->failure);
    trace_window(s, q, old);
    queue_update_ready(q);
}

static void feedback(qs_sched *s, qs_queue *q, enum qs_outcome outcome)
{
    if (outcome == QS_DONE_FAIL)
        feedback_negative(s, q);
    else
        feedback_positive(s, q);
}

/* ------------------------------------------------------------------ */
/* entry selection and preemption (S-PRE-2 .. S-PRE-10)                */
/* ------------------------------------------------------------------ */

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
        message_realloc(s, m);
    if (QS_HAS_ENTRIES(job) && (p = peer_select(job)) != NULL)
        return p;
    if (m->rcpt_unread > 0 && m->rcpt_limit > m->rcpt_count) {
        message_realloc(s, m);
        if (QS_HAS_ENTRIES(job))
            return peer_select(job);
    }
    return NULL;
}

/* S-PRE-5, S-PRE-6: the best candidate to preempt `current`. */
static qs_job *job_candidate_scan(qs_sched *s, qs_job *current,
                                  int early_stop, int64_t *out_delay,
                                  int64_t *out_total, int64_t *out_max)
{
    qs_transport *t = current->transport;
    qs_job *job, *best = NULL;
    int64_t best_delay = 0, best_total = 1, max_slots;

    max_slots = qs_candidate_max_slots(QS_MIN_ENTRIES(current),
                                       current->selected_entries,
                                       current->slots_available,
                                       t->slot_cost);
    *out_max = max_slots;
    if (max_slots <= 0)
        return NULL;
    /* Only jobs after the current one: jobs before it are blockers or its
     * own stack children.  Jobs that are themselves preempted (have
     * children) and blockers are not candidates. */
    for (job = current->lnext; job; job = job->lnext) {
        int64_t total, needed, delay;
        if (job->child_head || QS_IS_BLOCKER(job))
            continue;
        total = QS_MAX_ENTRIES(job);
        needed = total - job->selected_entries;
        delay = s->now - job->message->queued_time + 1;
        if (qs_candidate_fits(needed, max_slots) &&
            (!best || qs_score_better(delay, total, best_delay, best_total))) {
            best = job;
            best_delay = delay;
            best_total = total;
        }
        /* Level-0 jobs follow in enqueue-time order, so once a level-0
         * job's delay cannot beat the best score no later job can. */
        if (early_stop && best && job->stack_level == 0 &&
            qs_score_cannot_improve(delay, best_delay, best_total))
            break;
    }
    *out_delay = best_delay;
    *out_total = best_total;
    return best;
}

static qs_job *job_candidate(qs_sched *s, qs_job *current, int64_t *delay,
                             int64_t *total, int64_t *max_slots)
{
    qs_job *best = job_candidate_scan(s, current, 1, delay, total, max_slots);
#ifdef QSCHED_CROSSCHECK
    {
        /* Fuzz builds: the early stop must not change the answer. */
        int64_t d2, t2, m2;
        if (job_candidate_scan(s, current, 0, &d2, &t2, &m2) != best)
            abort();
    }
#endif
    return best;
}

/* S-PRE-3 .. S-PRE-8: try to preempt the current job. */
static qs_job *job_preempt(qs_sched *s, qs_job *current)
{
    qs_transport *t = current->transport;
    qs_job *job;
    int64_t needed, delay, total, max_slots;
    qs_trace r;

    if (!qs_preempt_gate(current->slots_available, QS_MAX_ENTRIES(current),
                         t->min_slots, t->slot_cost))
        return current;
    job = job_candidate(s, current, &delay, &total, &max_slots);
    if (!job) {
        /* an attempt (the gate let it through) that found no candidate */
        r = rec(QS_T_NOCANDIDATE);
        r.transport = t->name;
        r.msg = current->message->id;
        r.a = current->slots_available;
        r.c = max_slots;
        emit(s, &r);
        return current;
    }
    r = rec(QS_T_CANDIDATE);
    r.transport = t->name;
    r.msg = current->message->id;
    r.msg2 = job->message->id;
    r.a = delay;
    r.b = total;
    r.c = max_slots;
    emit(s, &r);

    needed = QS_MAX_ENTRIES(job) - job->selected_entries;
    r = rec(QS_T_NOPREEMPT);
    r.transport = t->name;
    r.msg = current->message->id;
    r.msg2 = job->message->id;
    r.a = current->slots_available;
    r.b = needed;
    r.c = t->slot_cost;
    r.d = t->slot_loan;
    r.e = t->slot_discount;
    if (!qs_preempt_fires(current->slots_available, t->slot_cost,
                          t->slot_loan, t->slot_discount, needed)) {
        s->stats.preempt_refused++;
        emit(s, &r);
        return current;
    }
    /* The candidate leaves any stack it tops, moves in front of the
     * current job, and becomes its child one level deeper. */
    if (job->stack_level > 0)
        job_pop(s, job);
    if (job->lprev)
        job->lprev->lnext = job->lnext;
    else
        t->jhead = job->lnext;
    if (job->lnext)
        job->lnext->lprev = job->lprev;
    else
        t->jtail = job->lprev;
    job->lprev = current->lprev;
    job->lnext = current;
    if (current->lprev)
        current->lprev->lnext = job;
    else
        t->jhead = job;
    current->lprev = job;
    job->parent = current;
    job->preempted_serial = current->serial;
    child_append(current, job);
    job->stack_level = current->stack_level + 1;
    t->job_current = job;
    /* The preempted job pays up front; the child counts the difference
     * between what it uses and what was paid (slots_used = -needed). */
    current->slots_available =
        qs_slots_charge(current->slots_available, needed, t->slot_cost);
    job->slots_used = -needed;
    /* S-MEM-6: an unread preempting job gets a share of the extra pool. */
    if (job->message->rcpt_unread > 0) {
        int64_t share = qs_pool_extra_share(t->extra_rcpt_limit,
                                            t->rcpt_unused);
        job->rcpt_limit += share;
        job->message->rcpt_limit += share;
        t->rcpt_unused -= share;
    }
    s->stats.preemptions++;
    t->preemptions++;
    r.kind = QS_T_PREEMPT;
    r.f = job->stack_level;
    emit(s, &r);
    return job;
}

static void entry_select_peer(qs_sched *s, qs_peer *p, qs_delivery *out)
{
    qs_entry *e = p->ehead;
    qs_queue *q = p->queue;
    qs_job *job = p->job;
    qs_transport *t = q->transport;
    qs_trace r = rec(QS_T_DELIVER);

    peer_unlink_entry(p, e);
    qlist_unlink(&q->todo_head, &q->todo_tail, e);
    q->todo--;
    qlist_append(&q->busy_head, &q->busy_tail, e);
    q->busy++;
    job->selected_entries++;
    queue_update_ready(q);
    e->handle = s->next_handle++;
    xmap_put(&s->inflight, NULL, (uint64_t)e->handle, e);
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
    emit(s, &r);
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
        job = job_preempt(s, job);
    for (; job; job = next) {
        next = job->lnext;
        if (QS_IS_BLOCKER(job))
            continue;
        if ((p = job_peer_select(s, job)) != NULL) {
            entry_select_peer(s, p, out);
            /* S-PRE-4: the counter grows by one per selected entry. */
            job->slots_available++;
            job->slots_used++;
            t->job_current = job;
            if (!QS_HAS_ENTRIES(job) && job->message->rcpt_unread == 0)
                job_retire(s, job);
            return 1;
        } else if (QS_HAS_ENTRIES(job)) {
            /* S-PRE-11: no selectable peer: a blocker; mark its queues. */
            qs_peer *pp;
            job->blocker_tag = t->blocker_tag;
            for (pp = job->peer_head; pp; pp = pp->next)
                if (pp->ehead)
                    pp->queue->blocker_tag = t->blocker_tag;
            s->stats.blockers++;
            trace_job(s, QS_T_BLOCKER, job);
        } else {
            /* A stalled job (no entries now): retire it. */
            job_retire(s, job);
        }
    }
    t->job_current = NULL;
    return 0;
}

/* ------------------------------------------------------------------ */
/* the public API                                                      */
/* ------------------------------------------------------------------ */

qs_sched *qs_sched_new(const qs_params *p, enum qs_profile profile,
                       qs_trace_sink sink, void *ctx, char *err,
                       size_t errlen)
{
    qs_sched *s;
    size_t i;
    if (profile != QS_PROFILE_DOCUMENT && profile != QS_PROFILE_POSTFIX) {
        seterr(err, errlen, "unknown profile");
        return NULL;
    }
    /* S-EV-5: the document profile has no "0 = no limit" convention. */
    if (profile == QS_PROFILE_DOCUMENT) {
        if (qs_param_int(p, NULL, QP_DEST_CONC_LIMIT) == 0) {
            seterr(err, errlen, "default_destination_concurrency_limit = 0 "
                   "(no limit) exists only in the postfix profile");
            return NULL;
        }
        for (i = 0; i < qs_param_override_count(p); i++) {
            const char *tn;
            int id;
            qs_param_override(p, i, &tn, &id);
            if (id == QP_DEST_CONC_LIMIT && qs_param_int(p, tn, id) == 0) {
                seterr(err, errlen, "a destination concurrency limit of 0 "
                       "(no limit) exists only in the postfix profile");
                return NULL;
            }
        }
    }
    s = xcalloc(1, sizeof *s);
    s->params = qs_params_clone(p);
    if (!s->params) {
        free(s);
        seterr(err, errlen, "out of memory");
        return NULL;
    }
    s->profile = profile;
    s->sink = sink;
    s->ctx = ctx;
    s->next_handle = 1;
    s->active_limit = qs_param_int(p, NULL, QP_ACTIVE_LIMIT);
    s->msg_rcpt_limit = qs_param_int(p, NULL, QP_MSG_RCPT_LIMIT);
    s->msg_rcpt_minimum = qs_param_int(p, NULL, QP_MSG_RCPT_MINIMUM);
    s->min_backoff = qs_param_int(p, NULL, QP_MIN_BACKOFF);
    qs_map_init(&s->transports);
    qs_map_init(&s->messages);
    qs_map_init(&s->inflight);
    return s;
}

static void free_queue_entries(qs_entry *e)
{
    while (e) {
        qs_entry *n = e->qnext;
        free(e);
        e = n;
    }
}

void qs_sched_free(qs_sched *s)
{
    qs_transport *t, *tn;
    qs_message *m, *mn;
    if (!s)
        return;
    for (t = s->xhead; t; t = tn) {
        qs_queue *q, *qn;
        qs_job *j, *jn;
        tn = t->next;
        for (q = t->qhead; q; q = qn) {
            qn = q->next;
            free_queue_entries(q->todo_head);
            free_queue_entries(q->busy_head);
            free(q->name);
            free(q);
        }
        (void)j;
        (void)jn;
        qs_map_destroy(&t->queues);
        free(t->name);
        free(t);
    }
    for (m = s->active_head; m; m = mn) {
        mn = m->next;
        while (m->jobs) {
            qs_job *j = m->jobs;
            qs_peer *p, *pn;
            m->jobs = j->mnext;
            for (p = j->peer_head; p; p = pn) {
                pn = p->next;
                free(p);
            }
            qs_map_destroy(&j->peers);
            free(j);
        }
        message_free(m);
    }
    for (m = s->incoming_head; m; m = mn) {
        mn = m->next;
        message_free(m);
    }
    qs_map_destroy(&s->transports);
    qs_map_destroy(&s->messages);
    qs_map_destroy(&s->inflight);
    qs_params_free(s->params);
    free(s->batch);
    free(s);
}

int qs_advance(qs_sched *s, int64_t now, char *err, size_t errlen)
{
    if (now < s->now) {
        seterr(err, errlen, "time goes backwards");
        return -1;
    }
    s->now = now;
    /* S-CON-10: revive dead destinations whose backoff has expired, in
     * the order they died. */
    while (s->dead_head && s->dead_head->revive_at <= s->now) {
        qs_queue *q = s->dead_head;
        queue_revive(s, q, (int)q->busy);
        blocker_update(s, q);
        queue_free_if_idle(q);
    }
    return 0;
}

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
        seterr(err, errlen, "bad message id");
        return -1;
    }
    if (qs_map_get(&s->messages, msgid, 0)) {
        if (err)
            snprintf(err, errlen, "duplicate message id \"%s\" (still in "
                     "the queue)", msgid);
        return -1;
    }
    if (ngroups == 0) {
        seterr(err, errlen, "a message needs at least one recipient");
        return -1;
    }
    /* S-EV-1: the incoming queue is bounded too. */
    if (s->active_count >= s->active_limit &&
        s->incoming_count >= QS_WAITING_MAX) {
        seterr(err, errlen, "too many messages waiting for the active queue "
               "(limit 1000000)");
        return -1;
    }
    for (i = 0; i < ngroups; i++) {
        const qs_group *g = &groups[i];
        if (!valid_name(g->transport, 1) || strlen(g->transport) > 64) {
            seterr(err, errlen, "bad transport name");
            return -1;
        }
        if (!valid_name(g->nexthop, 0) || strlen(g->nexthop) > 200 ||
            (g->local && (!valid_name(g->local, 0) || strlen(g->local) > 64))) {
            seterr(err, errlen, "bad next-hop or local part");
            return -1;
        }
        if (g->count < 1 || g->count > QS_COUNT_MAX - total) {
            seterr(err, errlen, "recipient count out of range (1 .. "
                   "1000000000 per message)");
            return -1;
        }
        total += g->count;
    }
    m = xcalloc(1, sizeof *m);
    m->id = xstrdup(msgid);
    m->serial = ++s->serial;
    m->groups = xcalloc(ngroups, sizeof *m->groups);
    m->ngroups = ngroups;
    for (i = 0; i < ngroups; i++) {
        m->groups[i].transport = xstrdup(groups[i].transport);
        m->groups[i].local = groups[i].local ? xstrdup(groups[i].local)
                                             : NULL;
        m->groups[i].nexthop = xstrdup(groups[i].nexthop);
        m->groups[i].count = groups[i].count;
    }
    m->rcpt_total = m->rcpt_unread = total;
    xmap_put(&s->messages, m->id, 0, m);
    if (s->active_count < s->active_limit) {
        message_activate(s, m);
    } else {
        /* S-MEM-2: the active queue is full: wait, first come first in. */
        if (s->incoming_tail)
            s->incoming_tail->next = m;
        else
            s->incoming_head = m;
        s->incoming_tail = m;
        s->incoming_count++;
        r = rec(QS_T_WAIT);
        r.msg = m->id;
        emit(s, &r);
    }
    run_checks(s);
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
        t = transport_find(s, transport);
        if (t && t->in_flight < t->process_limit && t->ready_queues > 0)
            found = transport_entry_select(s, t, out);
    } else if (s->rr) {
        size_t i;
        t = s->rr;
        for (i = 0; i < s->ntransports; i++) {
            qs_transport *nt = t->next ? t->next : s->xhead;
            if (t->in_flight < t->process_limit && t->ready_queues > 0 &&
                transport_entry_select(s, t, out)) {
                s->rr = nt;
                found = 1;
                break;
            }
            t = nt;
        }
    }
    run_checks(s);
    if (found)
        return 1;
    s->stats.idles++;
    r = rec(QS_T_IDLE);
    r.transport = transport;
    emit(s, &r);
    return 0;
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
        seterr(err, errlen, "bad outcome");
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
    if (postfix(s))
        feedback(s, q, outcome);
    qlist_unlink(&q->busy_head, &q->busy_tail, e);
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
    queue_update_ready(q);
    if (!postfix(s))
        feedback(s, q, outcome);
    /* S-MEM-5: slots freed by the finished entry move on. */
    message_return_slots(s, m, job);
    /* S-PRE-12: the destination can take more: release blockers. */
    blocker_update(s, q);
    /* The peer's reference is dropped only now: negative feedback above
     * may have deferred the peer's other entries. */
    p->refcount--;
    peer_free_if_unused(p);
    queue_free_if_idle(q);
    free(e);
    message_schedule_check(s, m);
    run_checks(s);
    return 0;
}

int64_t qs_now(const qs_sched *s) { return s->now; }
int64_t qs_next_handle(const qs_sched *s) { return s->next_handle; }

int qs_in_flight(const qs_sched *s, int64_t handle)
{
    return qs_map_get(&s->inflight, NULL, (uint64_t)handle) != NULL;
}

size_t qs_in_flight_count(const qs_sched *s) { return s->inflight.count; }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The i-th smallest handle in flight (O(n log n): for generators and
 * tools, never on the scheduling path). */
int64_t qs_in_flight_nth(const qs_sched *s, size_t i)
{
    size_t n = s->inflight.count, k = 0, b;
    int64_t *h, v;
    if (i >= n)
        return 0;
    h = xcalloc(n, sizeof *h);
    for (b = 0; b < s->inflight.nbucket; b++) {
        qs_map_node *nd;
        for (nd = s->inflight.bucket[b]; nd; nd = nd->next)
            h[k++] = (int64_t)nd->num;
    }
    qsort(h, n, sizeof *h, cmp_i64);
    v = h[i];
    free(h);
    return v;
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

void qs_get_stats(const qs_sched *s, qs_stats *st)
{
    *st = s->stats;
    st->bound_in_core = qs_bound_total(s);
    /* S-INV-8 with A at its maximum, so that it bounds every step */
    st->bound_holding = qs_bound_holding(s) +
                        s->msg_rcpt_minimum * (s->active_limit -
                                               s->active_count);
}

size_t qs_transport_count(const qs_sched *s) { return s->ntransports; }

void qs_get_transport_stats(const qs_sched *s, size_t i,
                            qs_transport_stats *st)
{
    const qs_transport *t = s->xhead;
    while (i-- > 0 && t)
        t = t->next;
    memset(st, 0, sizeof *st);
    if (!t)
        return;
    st->name = t->name;
    st->deliveries = t->deliveries;
    st->preemptions = t->preemptions;
    st->in_core = t->in_core;
    st->peak_in_core = t->peak_in_core;
    st->bound_in_core = qs_bound_transport(s, t);
    st->in_flight = t->in_flight;
}
