/*
 * jobs.c - the structures of the preemptive scheduler that sit between a
 * message and its deliveries: jobs, peers and recipient entries, and the
 * two job lists of each transport.
 *
 * Implements SCHEDULER_README, "The structures used by nqmgr" and the end
 * of "What happens when nqmgr picks up the message" (jobs, peers and
 * entries are found or created as recipients are assigned; a new job is
 * "enqueued on the transport's job list based on the time its message was
 * picked up").  Rules S-PRE-1, S-PRE-2 (retirement), S-PRE-13 and
 * S-MEM-10 (linking by enqueue time), and the pool hand-over a link
 * triggers (S-MEM-5).
 *
 * Owns: creating and freeing jobs, peers and entries; the links of both
 * job lists (except the one move preemption makes, preempt.c); the list
 * primitives for entries.  May not: decide which entry goes next
 * (select.c), preempt (preempt.c), or decide how many slots a job may
 * hold (memory.c, called from here when a link or retirement moves them).
 *
 * How the structures relate (the document invites you to come back to its
 * list "anytime you'll feel you have lost a sense what is what"):
 *
 *     message --< job (one per transport the message uses)
 *     job --< peer (one per destination of that transport)  >-- queue
 *     peer --< entry (batches of up to destination_recipient_limit
 *                     recipients), each entry also on its queue's list
 *
 * For example, with a destination recipient limit of 2,
 *     arrive M1 smtp:a*3 smtp:b relay:a
 * gives
 *     M1 -+- job(M1, smtp) --+- peer(a): entry(2), entry(1)  -> queue smtp:a
 *         |                  +- peer(b): entry(1)            -> queue smtp:b
 *         +- job(M1, relay) -+- peer(a): entry(1)            -> queue relay:a
 * and each entry is also on the todo list of the queue on the right.
 *
 * A queue lists the entries of every message for its destination; a peer
 * lists those of one message only, which is what lets the scheduler walk
 * messages (jobs) in its own order while the concurrency scheduler counts
 * per destination.
 *
 * The life of a job (stack_level in brackets):
 *     created by a batch [-1] -> linked by enqueue time [0]
 *     -> preempts another job [n + 1], pops back [0]   (preempt.c)
 *     -> all entries selected: retired [-1]           (select.c)
 *     -> a later batch brings entries: relinked [0]   (qsi_job_obtain)
 *     -> its message leaves: freed                    (memory.c)
 *
 * The two job lists.  Both start in enqueue-time order.  The scheduler's
 * list (lprev/lnext) is reordered by preemption; the by-time list
 * (tprev/tnext) never is, and recipient slots are handed out along it
 * (S-MEM-5), "because it doesn't change over time as the scheduler's job
 * list does".  A job is on both or on neither: a job whose entries are all
 * selected retires from both, keeping its counters, and is linked again
 * by the same time rule when a later batch brings it entries.  This is
 * the document's "third complication" of reading in batches: a job is
 * not done when its in-core recipients are, and some jobs are created
 * "long after the first batch of recipients was read in core"; both must
 * land where their message's enqueue time puts them, not at the end.
 */
#include <stdlib.h>
#include "sched_int.h"
/* With QS_CONTRACT_CHECKS (the test, fuzz and model-checker builds)
 * every call of a contracted helper checks its contract: jobs_rtc.h,
 * generated from the ACSL by proofs/rtc/gen.py, defines NAME(...) as
 * "check the requires, call, check the ensures".  The helpers are
 * defined as `static T (NAME)(...)`: a name in parentheses is not a
 * macro call, so the definition stays the function itself.  Other
 * builds see no difference. */
#ifdef QS_CONTRACT_CHECKS
#include "jobs_rtc.h"
#endif

/* One explain-level line naming a job: blocker, retire, relink; nothing
 * when nobody wants the explain level (qs_sched_set_explain). */
void qsi_trace_job(qs_sched *s, enum qs_trace_kind kind, qs_job *j)
{
    qs_trace r;
    if (!QSI_EXPLAIN(s))
        return;
    qsi_trace_start(&r, kind);
    r.transport = j->transport->name;
    r.msg = j->message->id;
    qsi_emit(s, &r);
}

/* S-MEM-5: a job put on the list takes every unused slot of the pool (a
 * positive pool; a negative one is the extra pool's debt, S-MEM-6). */
/*@
  requires valid:   \valid(job) && \valid(m) && \valid(t) &&
                    \separated(job, m, t);
  requires counts:  qs_count(job->rcpt_limit) && qs_count(m->rcpt_limit) &&
                    qs_count(t->rcpt_unused);
  assigns job->rcpt_limit, m->rcpt_limit, t->rcpt_unused;
  ensures conserved: job->rcpt_limit + t->rcpt_unused ==
                     \old(job->rcpt_limit + t->rcpt_unused);
  ensures msg_follows: m->rcpt_limit - \old(m->rcpt_limit) ==
                       job->rcpt_limit - \old(job->rcpt_limit);
  ensures takes_all: t->rcpt_unused == (\old(t->rcpt_unused) > 0 ? 0 :
                                        \old(t->rcpt_unused));
*/
static void (job_take_pool)(qs_job *job, qs_message *m, qs_transport *t)
{
    if (t->rcpt_unused > 0) {
        job->rcpt_limit += t->rcpt_unused;
        m->rcpt_limit += t->rcpt_unused;
        t->rcpt_unused = 0;
    }
}

/* QSI_TIME_PLACE_TAIL=1: always S-PRE-13's walks from the tail (the
 * reference build of tests/sh/time-place.sh) */
#ifndef QSI_TIME_PLACE_TAIL
#define QSI_TIME_PLACE_TAIL 0
#endif

/* S-PRE-13: put a job on both lists by its message's enqueue time.  Jobs
 * normally go at the end; revived jobs and jobs created by a later batch
 * find their place from the end.  On the scheduler's list only jobs
 * without a stack parent count as time markers (preempting children sit
 * out of time order).
 *
 *     scheduler's list: from the tail, pass jobs that have a parent or a
 *         later enqueue time; insert after the first other job (or at
 *         the head).  Passed where selection starts (or every job is a
 *         blocker)?  Then selection starts at the new job (and, under
 *         R-14 walk_start, it is the current job).
 *     by-time list: the same walk without the parent condition.  Passed
 *         the first unread job (or there is none)?  Then the new job is
 *         the first unread job, and the old one returns its unused slots.
 *     the job takes whatever the transport's pool holds.
 *
 * Why by enqueue time, and why it matters beyond FIFO: the candidate scan
 * stops early on the strength of this order (preempt.c), and the pools are
 * distributed along it.  For the first batch of a new message the walks
 * stop at once: the job is simply appended.  A job placed in front of
 * where selection starts must become the start, or the selection walk
 * would never see it. */
static void job_link(qs_sched *s, qs_job *job, int revived)
{
    qs_transport *t = job->transport;
    qs_message *m = job->message;
    qs_job *prev, *next, *walk = t->job_walk, *unread = t->job_next_unread;
    int placed = 0;

    /* The walk from the tail: a job enqueued at the same second as this
     * one stops it (>= 0), so equal times keep their arrival order.  Jobs
     * with a parent are preempting children, placed by preemption rather
     * than by time, so they do not stop the walk; orphans do, so that a
     * job linked late stays in time order with respect to them, which the
     * early stop of the candidate scan needs (S-PRE-6, S-PRE-13).  Usually
     * the first job looked at stops the walk, so a link costs O(1).  A
     * job relinked by a later batch of an old message would walk back
     * over every younger job: on a long list the index finds the same
     * place, and tells whether the walk would have passed where
     * selection starts (candidates.c).  While no job is misplaced the
     * two lists are one sequence, and one walk from both ends of the
     * by-time list finds the place on both (job_place.c). */
    prev = t->jtail;
    job->misplaced = t->jobs_misplaced > 0; /* counted once it is linked */
    if (!QSI_TIME_PLACE_TAIL && !t->cix_on && !job->misplaced && prev &&
        m->queued_time - prev->message->queued_time < 0) {
        prev = qsi_job_time_place(t, m->queued_time, &walk, &unread);
        next = prev ? prev->lnext : t->jhead;
        placed = 1;
    } else if (t->cix_on && prev &&
        !(prev->parent == NULL &&
          m->queued_time - prev->message->queued_time >= 0)) {
        QSI_CIX_USED(t);
        prev = qsi_cix_time_marker(t, m->queued_time);
        next = prev ? prev->lnext : t->jhead;
        if (walk && (!prev || qsi_cix_after(walk, prev)))
            walk = NULL;
#ifdef QSCHED_CROSSCHECK
        {
            /* fuzz builds: the index finds what the walk finds */
            qs_job *c = t->job_walk;
            int64_t steps;
            if (qsi_job_tail_place(t, m->queued_time, &c, &steps) != prev ||
                c != walk)
                abort();
        }
#endif
    } else {
        int64_t steps;
        prev = qsi_job_tail_place(t, m->queued_time, &walk, &steps);
        next = prev ? prev->lnext : t->jhead;
        QSI_CIX_RENT(t, steps); /* (the index off: job_index.c) */
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
    t->njobs++;
    t->jobs_misplaced += job->misplaced;
    /* the tree's path above the job is repaired by qsi_message_read,
     * which ends with qsi_cix_update of every job of the message (the
     * only caller of qsi_job_obtain, and so of job_link, is its
     * assignment: assign.c) */
    qsi_cix_insert(t, job, 0);
    if (t->bix_on)
        qsi_bix_linked(t, job);
    qsi_cix_resize(t);

    /* The by-time list has no children to step over: it is in time order
     * throughout (S-INV-2 checks it). */
    prev = t->ttail;
    if (placed) { /* the same place: the lists are one sequence */
        prev = job->lprev;
        next = prev ? prev->tnext : t->thead;
    } else if (t->cix_on && prev &&
               m->queued_time - prev->message->queued_time < 0) {
        QSI_CIX_USED(t);
        prev = qsi_tix_time_marker(t, m->queued_time);
        next = prev ? prev->tnext : t->thead;
        if (unread && (!prev || qsi_tix_after(unread, prev)))
            unread = NULL;
#ifdef QSCHED_CROSSCHECK
        {
            qs_job *u = t->job_next_unread;
            int64_t steps;
            if (qsi_job_tail_place_time(t, m->queued_time, &u, &steps) !=
                    prev ||
                u != unread)
                abort();
        }
#endif
    } else {
        int64_t steps;
        prev = qsi_job_tail_place_time(t, m->queued_time, &unread, &steps);
        next = prev ? prev->tnext : t->thead;
        QSI_CIX_RENT(t, steps);
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
    qsi_tix_insert(t, job);
    /* the incremental checker: the job, its new neighbours on both lists,
     * and the message (the pool's slots below) */
    QSI_CK_JOB(s, job);
    QSI_CK_JOB(s, job->lprev);
    QSI_CK_JOB(s, job->lnext);
    QSI_CK_JOB(s, prev);
    QSI_CK_JOB(s, next);
    QSI_CK_MSG(s, m);

    /* On the lists, on no stack (a revived job's stack was left when it
     * retired). */
    job->stack_level = 0;
    /* Linked in front of where selection starts (or every job is a
     * blocker): selection starts at the new job.  R-14: it also becomes
     * the current job under walk_start (Postfix); under last_selected the
     * current job stays the job selected last. */
    if (walk == NULL) {
        /* blocker_index.c: the blockers are those before job_walk; a job
         * linked right in front of it (or appended when every job is one)
         * leaves them as they are, anywhere else they are written down */
        if (t->bix_region && job->lnext != t->job_walk)
            qsi_bix_materialize_but(t, job);
        t->job_walk = job;
        if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START)
            t->job_current = job;
    }
    /* Linked in front of the first unread job: that job first returns its
     * unused slots to the pool (S-MEM-5).  The document: such a job "is
     * first forced to return all of its unused recipient slots to the
     * transport pool", from which the new job then takes them: the slots
     * always go to the first job that still has recipients to read. */
    if (unread == NULL) {
        unread = t->job_next_unread;
        t->job_next_unread = job;
        if (unread)
            qsi_job_move_limits(s, unread);
    }
    /* A job on the list takes every unused slot of the pool ("each time a
     * job is created and appended to the job list, it gets all unused
     * recipient slots from its transport's pool"). */
    {
        int was_spare = qsi_job_spare(job);
        job_take_pool(job, m, t);
        qsi_spare_after(job, was_spare);
    }
    QSI_BIX_MESSAGE(s, m);
    /* Only a relink is traced: a new job is implied by the `read` line of
     * the batch that created it. */
    if (revived)
        qsi_trace_job(s, QS_T_RELINK, job);
}

/* Off both lists.  If it was the current job, reading R-7 says which job
 * is current now (the job after it, as in Postfix); if selection was to
 * start there, it starts with the job after it.  stack_level -1 marks "on
 * no list"; a popped job's children were already adopted (qsi_job_pop),
 * so children still here belong to a level-0 job and become orphans
 * (S-PRE-10). */
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
    qsi_tix_remove(t, job);
    qsi_cix_remove(t, job);
    /* the incremental checker: the job and its neighbours on both lists */
    QSI_CK_JOB(t->sched, job);
    QSI_CK_JOB(t->sched, job->lprev);
    QSI_CK_JOB(t->sched, job->lnext);
    QSI_CK_JOB(t->sched, job->tprev);
    QSI_CK_JOB(t->sched, job->tnext);
    if (job == t->cand_cache || job == t->cand_current)
        QSI_CAND_RESET(t);      /* S-PFX-20 */
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
    t->njobs--;
    t->jobs_misplaced -= job->misplaced;
    job->misplaced = 0;
    qsi_cix_resize(t);
}

/* S-PRE-2: a job whose entries are all selected leaves the job lists; it
 * keeps its counters and comes back if its message gets more entries.
 * Leaving means: leave its preemption stack (refunding its parent,
 * S-PRE-9), give back the recipient slots it holds beyond what is in core
 * (S-MEM-5: a retired job has nothing to read them for), then unlink.
 * Why keep the counters: "it is possible that the job will be revived
 * later, when another batch of recipients is read in core"; its selected
 * and read entries still describe the message's share on this transport,
 * and its score denominator (MAX entries) must count them. */
void qsi_job_retire(qs_sched *s, qs_job *job)
{
    if (job->stack_level > 0)
        qsi_job_pop(s, job);
    qsi_job_move_limits(s, job);
    job_unlink(s, job);
    qsi_trace_job(s, QS_T_RETIRE, job);
}

/* A message has one job per transport it uses, rarely more than a few:
 * a linear search is the simplest exact answer. */
static qs_job *job_find(qs_message *m, qs_transport *t)
{
    qs_job *j;
    for (j = m->jobs; j; j = j->mnext)
        if (j->transport == t)
            return j;
    return NULL;
}

/* A job per (message, transport); linked by time; a blocker that gets new
 * entries is a blocker no more.
 * Called for each recipient being assigned (assign.c).  A new job is
 * appended to the message's job list (creation order, which fixes the
 * order of slot returns in memory.c) and linked; a retired one (level -1)
 * is linked again (`relink`).  A blocker that receives entries might now
 * have a selectable peer, so it is unmarked, and selection restarts at the
 * head of the list so the walk reaches it (S-PRE-11). */
qs_job *qsi_job_obtain(qs_sched *s, qs_message *m, qs_transport *t)
{
    qs_job *job = job_find(m, t), **pp;
    int revived = job != NULL;
    /* New: all counters 0, on no list (level -1) until linked below.
     * Zeroed up to its index fields, which the index sets when the job
     * enters it (sched_int.h, QSI_JOB_INDEXED). */
    if (!job) {
        job = qsi_pool_get_sized(&s->job_pool, QSI_JOB_INDEXED);
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
    QSI_CAND_RESET(t);          /* S-PFX-20: new recipients expected */
    /* The job may have been a blocker anywhere before where selection
     * starts: the next walk starts at the head (S-PRE-11).  R-14: under
     * walk_start (Postfix) the head also becomes the current job. */
    if (qsi_is_blocker(job)) {
        if (t->bix_on) {
            qsi_bix_materialize(t); /* job_walk moves back */
            qsi_bix_job_untag(job);
        }
        job->blocker_tag = 0;
        t->job_walk = t->jhead;
        if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START)
            t->job_current = t->jhead;
    }
    QSI_CK_JOB(s, job);
    QSI_CK_MSG(s, m);
    return job;
}

/* The message is leaving the active queue (memory.c): the job leaves its
 * stack (a final refund), gives back its slots, and leaves the lists if it
 * is still on them.  Its peers are already gone: every entry was dealt
 * with before the message could leave. */
void qsi_job_free(qs_sched *s, qs_job *job)
{
    if (job->stack_level > 0)
        qsi_job_pop(s, job);
    qsi_job_move_limits(s, job);
    if (job->stack_level >= 0)
        job_unlink(s, job);
    qs_map_destroy(&job->peers);
    qsi_ck_job_gone(s, job);
    qsi_pool_put(&s->job_pool, job);
}

/* The job's peer for destination q, created at the end of the job's peer
 * list when the first recipient for q is assigned (for a message with
 * few recipients usually one entry per peer; a mailing list may need many
 * entries per peer once the destination recipient limit is reached): "within the job, it
 * finds the peer which represents the bound destination queue ... if it
 * does not exist yet, it instantiates it".  The map is keyed by the
 * queue's serial, never its address, so that nothing can depend on where
 * malloc put things.  A job's peers are found by walking its peer list
 * while it has few (most jobs have one to three: cheaper than hashing),
 * through the map once it has more than PEER_WALK_MAX.  The map is built
 * at the first look-up that needs it, from the list, and kept from then
 * on: a job whose peers are all made by one sorted batch never needs one
 * (assign.c, the postfix profile's fresh job), and one that does pays
 * for the build once (issue 16: the sort shape spent 4% of its
 * instructions growing and emptying maps nobody asked). */
#define PEER_WALK_MAX 8

qs_peer *qsi_peer_find(qs_job *job, const qs_queue *q)
{
    qs_peer *p;
    if (!job->peers.cap && job->peer_count >= PEER_WALK_MAX)
        for (p = job->peer_head; p; p = p->next)
            qsi_map_put(&job->peers, NULL, p->queue->serial, p);
    if (job->peers.cap)
        return qs_map_get(&job->peers, NULL, q->serial);
    for (p = job->peer_head; p && p->queue != q; p = p->next)
        ;
    return p;
}

qs_peer *qsi_peer_obtain(qs_sched *s, qs_job *job, qs_queue *q)
{
    qs_peer *p = qsi_peer_find(job, q);
    return p ? p : qsi_peer_create(s, job, q);
}

/* A new peer of the job for q, at the end of its peer list (the caller
 * knows the job has none for q). */
qs_peer *qsi_peer_create(qs_sched *s, qs_job *job, qs_queue *q)
{
    qs_peer *p = qsi_pool_get_sized(&s->peer_pool, sizeof *p);
    QSI_CK_MSG(s, job->message); /* one peer more: the checker counts */
    p->job = job;
    p->queue = q;
    p->prev = job->peer_tail;
    if (job->peer_tail)
        job->peer_tail->next = p;
    else
        job->peer_head = p;
    job->peer_tail = p;
    job->peer_count++;
    if (job->peers.cap)
        qsi_map_put(&job->peers, NULL, q->serial, p);
    return p;
}

/* A peer with no pending and no in-flight entries is freed.  In-flight
 * entries keep it (refcount): their `done` needs the peer to reach the
 * job and message.  A later recipient for the same destination simply
 * makes a new peer, at the end of the round robin. */
void qsi_peer_free_if_unused(qs_sched *s, qs_peer *p)
{
    qs_job *job = p->job;
    if (p->refcount > 0)
        return;
    if (job->peers.cap)
        qs_map_del(&job->peers, NULL, p->queue->serial);
    QSI_CK_MSG(s, job->message);
    if (p->prev)
        p->prev->next = p->next;
    else
        job->peer_head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        job->peer_tail = p->prev;
    job->peer_count--;
    qsi_pool_put(&s->peer_pool, p);
}

/* The queue's entry lists (todo and busy share the qprev/qnext links,
 * since an entry is on exactly one of them): append and unlink, O(1). */
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

/* An entry leaves its peer's pending list: selected (select.c) or
 * deferred (messages.c).  The peer's refcount is not touched here: an
 * in-flight entry still counts. */
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
    if (!p->ehead && p->bix_pos)
        qsi_bix_peer_idle(p); /* its last pending entry */
}

/* A new, empty entry at the end of the peer's list and of its queue's
 * todo list; the caller (assign.c) fills it with recipients up to the
 * destination recipient limit.  It is one more entry read for the job:
 * the minimum entry estimate grows (S-MEM-8), and the queue may become
 * ready. */
qs_entry *qsi_entry_create(qs_sched *s, qs_peer *p)
{
    qs_entry *e = qsi_pool_get_sized(&s->entry_pool, sizeof *e);
    qs_queue *q = p->queue;
    e->peer = p;
    e->queue = q;
    e->job = p->job;
    if (q->transport->bix_on && !p->bix_pos)
        qsi_bix_peer_pending(p); /* its first pending entry */
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
    QSI_CK_ENTRY(s, e);
    qsi_queue_update_ready(q);
    return e;
}

void qsi_entry_free(qs_sched *s, qs_entry *e)
{
    qsi_pool_put(&s->entry_pool, e);
}
