/*
 * select.c - entry selection: which recipient entry goes to a delivery
 * agent next.
 *
 * Implements SCHEDULER_README, "How the entry selection works" (its
 * pseudocode, below) and the user's view of "How destination concurrency
 * limits affect the scheduling algorithm": jobs none of whose
 * destinations can take a delivery are "blocker jobs", skipped until a
 * destination frees up.  Rules S-PRE-2, S-PRE-4, S-PRE-11, S-PRE-12,
 * S-PRE-14, S-PRE-15 (spec/preemption.md) and the refill triggers of
 * S-MEM-7 that the selection walk fires.
 *
 * Owns: qs_select, the current job of each transport (job_current), the
 * round-robin position among transports and within each job's peers, the
 * blocker marks of jobs and queues, and the per-entry slot counting
 * (S-PRE-4).  May not: change windows (concurrency.c), decide or perform
 * preemptions (preempt.c, called once per selection), or move recipient
 * slots (memory.c).
 *
 * Tested by: tests/golden/pre-* (the blocker stories among them),
 * tests/conformance/hand/pre-* and ev-*, the select property of the
 * bounded model checker.
 *
 * The document's first approximation, which the functions below follow
 * from the outside in:
 *
 *     for each transport, round robin:                     qs_select
 *         skip it if its process limit is reached
 *         for each job of the transport, in job-list order:
 *                                              transport_entry_select
 *             for each peer of the job, round robin:        peer_select
 *                 if deliveries in flight there < window:
 *                     hand out the peer's next entry    entry_select_peer
 *
 * Two refinements make it the real thing.  The transport's current job,
 * "the job whose entry was selected the last time" (normally the head of
 * the list), may first be preempted: another job is put in front of it.
 * And a job none of whose peers may be selected is marked a blocker:
 * skipped by the walk and by the candidate scan as if it were not on the
 * list, until one of the destinations it waits for can take more.  "Thus
 * the scheduler effectively behaves as if the blocker jobs didn't exist
 * on the job list at all."  The walk starts at job_walk, past the
 * blockers at the front of the list.
 *
 * A blocker story.  Window 2 at destination a, two deliveries in flight
 * there; job 1 has entries only for a, job 2 for b.  The walk marks job 1
 * a blocker (and queue a as blocking) and hands out job 2's entry: job 2
 * is now the current job.  When a delivery at a ends, its window has
 * room, so the jobs with entries waiting at a are released (job 1), and
 * the next walk looks from the head again: job 1 goes next, and becomes
 * the current job.  Jobs may thus complete out of list order, but for
 * each destination the order stays FIFO (the document's "interesting side
 * note"), because all jobs waiting there are released together.
 *
 * The preemption "stack" that blockers turn into a tree (preempt.c) does
 * not matter here: "the job preempting the current job is moved in front
 * of the current job on the job list", so the order of the list is all
 * the walk needs, and the relations only serve the slot accounting.
 *
 * Blocker marks are tags: a job or queue is marked when its tag equals its
 * transport's (odd) tag; a released job's tag is cleared, and adding 2 to
 * the transport's tag unmarks all of them at once, in O(1), which is what
 * Postfix's release of every blocker needs (S-PFX-21).
 */
#include <string.h>
#include "sched_int.h"
/* With QS_CONTRACT_CHECKS (the test, fuzz and model-checker builds)
 * every call of a contracted helper checks its contract: select_rtc.h,
 * generated from the ACSL by proofs/rtc/gen.py, defines NAME(...) as
 * "check the requires, call, check the ensures".  The helpers are
 * defined as `static T (NAME)(...)`: a name in parentheses is not a
 * macro call, so the definition stays the function itself.  Other
 * builds see no difference. */
#ifdef QS_CONTRACT_CHECKS
#include "select_rtc.h"
#endif

/* S-PRE-12: release blockers because of destination q.  Document: "all
 * jobs which have peers for that destination are unblocked at once"
 * (R-13 blocker_release = pending: the blockers with a pending entry at
 * q), and the current job stays the job selected last (R-14 current_job =
 * last_selected); only the walk must go back far enough to reach them.
 * S-PFX-21 (postfix profile: blocker_release = all, current_job =
 * walk_start): every blocker of the transport is released (a tag bump)
 * and selection restarts at the head, which becomes the current job. */
void qsi_blocker_release(qs_sched *s, qs_transport *t, qs_queue *q)
{
    qs_trace r;
    qsi_trace_start(&r, QS_T_UNBLOCK);
    int released = 0;
    qs_job *job;
    qs_entry *e;
    if (QS_READING(s, QR_BLOCKER_RELEASE) == QRV_RELEASE_ALL) {
        t->blocker_tag += 2;
        released = 1;
        if (t->bix_on)
            qsi_bix_released(t); /* (job_walk goes to the head below) */
    } else {
        /* The blockers on the list whose peer at q has a pending entry.
         * The job list, not q's pending entries, is walked: a bulk job may
         * have thousands of entries at q, and each `done` there can
         * release. */
        for (job = t->jhead; job; job = job->lnext) {
            qs_peer *p;
            if (!QS_IS_BLOCKER(job))
                continue;
            p = qsi_peer_find(job, q);
            if (p && p->ehead) {
                job->blocker_tag = 0;
                released = 1;
            }
        }
        /* peer: also the blockers with a delivery in flight there (at
         * most the window's worth; the one that just ended is no longer
         * on the busy list) */
        if (QS_READING(s, QR_BLOCKER_RELEASE) == QRV_RELEASE_PEER)
            for (e = q->busy_head; e; e = e->qnext)
                if (QS_IS_BLOCKER(e->peer->job)) {
                    e->peer->job->blocker_tag = 0;
                    released = 1;
                }
    }
    if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START) {
        t->job_current = t->jhead;
        t->job_walk = t->jhead;
    } else if (released) {
        /* A released job may sit anywhere before the walk's start: the
         * next walk starts at the head and skips the blockers. */
        t->job_walk = t->jhead;
    }
    QSI_CK_XPORT(s, t);
    QSI_CAND_RESET(t);          /* S-PFX-20 */
    r.transport = t->name;
    r.dest = q->name;
    qsi_emit_explain(s, &r);
}

/* A queue that blocked jobs can take more: release blockers (S-PRE-12;
 * the next selection re-marks those still blocked).  Called after every
 * finished delivery (qs_done), after a revival and by a dying queue in the
 * postfix profile.
 * The document: "as soon as at least one of the peers of a blocker job
 * becomes unblocked ... the job's blocker status is removed", and "all
 * jobs which have peers for that destination are unblocked at once",
 * which keeps each destination's jobs in FIFO order.  Which blockers that
 * is, is reading R-13 (qsi_blocker_release).  A release needs the
 * destination to have room and something pending; the queue's own mark is
 * dropped as soon as it has room (or died), since it no longer blocks
 * anyone. */
void qsi_blocker_update(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    QSI_BIX_CHECK_MARK(q); /* (crosscheck builds: blocker_region.c) */
    if (!qsi_queue_marked(q)) /* S-PRE-11: a blocker waits here */
        return;
    if (!q->dead && q->window > q->busy && q->todo > 0)
        qsi_blocker_release(s, t, q);
    if ((!q->dead && q->window > q->busy) || q->dead)
        q->blocker_tag = 0;
}

/* S-PRE-15: peers round-robin; the first peer whose destination has
 * window > deliveries in flight; the chosen peer goes to the end.
 * In the document's pseudocode the test is "peer->queue->concurrency <
 * peer->queue->window": there "concurrency" is the count in flight (busy
 * here), not the concurrency scheduler's number (the window).  A full
 * destination is passed over, not waited for, so one slow destination
 * does not hold up the job's others.  Rotating the list makes the job
 * serve its destinations in turn: "even within single jobs, destinations
 * are treated fairly". */
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

/* S-PRE-11: "a job none of whose peers may be selected" is a blocker: it
 * takes the transport's tag, and so do the destinations it waits for, so
 * that the end of a delivery there (qsi_blocker_update) knows it may
 * release blockers (S-PRE-12).  only: the one destination the job waits
 * for, when the caller already knows it is the only one (no pass over
 * the peers), or NULL. */
static void job_mark_blocker(qs_sched *s, qs_transport *t, qs_job *job,
                             qs_queue *only)
{
    qs_peer *pp;
    job->blocker_tag = t->blocker_tag;
    if (++t->walk_marks >= QSI_BIX_MARKS)
        t->bix_due = 1; /* long walks: the next selection asks for the
                           blocker index (qsi_bix_adapt) */
    if (only)
        only->blocker_tag = t->blocker_tag;
    else
        for (pp = job->peer_head; pp; pp = pp->next)
            if (pp->ehead)
                pp->queue->blocker_tag = t->blocker_tag;
    s->stats.blockers++;
    if (QSI_EXPLAIN(s)) /* `blocker` is of the explain level */
        qsi_trace_job(s, QS_T_BLOCKER, job);
}

/* The walk's common case (a job that can read nothing: its message is
 * fully read and it has entries): peer_select's test without its
 * rotation - does a pending peer have a live destination with room
 * (window > deliveries in flight)? - and, if none does, job_mark_blocker.
 * Returns 1 if the job was marked.  The test remembers the destination of
 * the pending peer, so a job waiting at one destination (the common
 * blocker) is marked without a second pass over its peers.  After a
 * release of every blocker (S-PFX-21) the walk re-marks hundreds of such
 * jobs per selection on long lists (docs/performance.md section 3), so
 * this is the walk's inner loop. */
static int job_mark_if_no_room(qs_sched *s, qs_transport *t, qs_job *job)
{
    qs_peer *p;
    qs_queue *last = NULL;
    int pending = 0;
    for (p = job->peer_head; p; p = p->next) {
        if (p->ehead) {
            qs_queue *q = p->queue;
            if (!q->dead && q->window > q->busy)
                return 0; /* room: peer_select will find it */
            last = q;
            pending++;
        }
    }
    job_mark_blocker(s, t, job, pending == 1 ? last : NULL);
    return 1;
}

/* S-MEM-7: refill when the job has room, then select a peer; if none,
 * read more as a last chance.
 * The document: more recipients are read "whenever the current job has
 * space for more recipients, subject to transport's refill_limit and
 * refill_delay parameters".  Space is the message's (batches are read per
 * message, S-MEM-4): limit - in core.  A read is worth it when the space
 * reaches refill_limit, or, for a smaller space, once refill_delay has
 * passed since the message's last read - so that a big message is not
 * re-read for every few recipients that finish, yet not starved either.
 * With the defaults (refill limit 100, delay 5s) a message reads again
 * once 100 slots are free, or after 5 seconds with any free slot.
 * The last chance is Postfix's: before a job is declared a blocker or
 * stalled, any space at all is used, since the next batch may hold
 * recipients for a destination that can take them. */
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

/* Hand out the peer's oldest pending entry: it moves from the queue's todo
 * list to its busy list (one more delivery in flight there, which may
 * fill the window), gets the next handle D1, D2, ... (S-EV-8), and is
 * reported as a `deliver` line and in *out. */
static void entry_select_peer(qs_sched *s, qs_peer *p, qs_delivery *out)
{
    qs_entry *e = p->ehead;
    qs_queue *q = p->queue;
    qs_job *job = p->job;
    qs_transport *t = q->transport;
    qs_trace r;
    qsi_trace_start(&r, QS_T_DELIVER);

    qsi_peer_unlink_entry(p, e);
    qsi_qlist_unlink(&q->todo_head, &q->todo_tail, e);
    q->todo--;
    qsi_qlist_append(&q->busy_head, &q->busy_tail, e);
    q->busy++;
    job->selected_entries++;    /* the candidate index follows in
                                   transport_entry_select */
    QSI_CK_MSG(s, job->message);
    QSI_CK_QUEUE(s, q);
    qsi_queue_update_ready(q);
    e->handle = s->next_handle++;
    QSI_CK_ENTRY(s, e);
    qsi_handles_put(&s->inflight, (uint64_t)e->handle, e);
    t->in_flight++;
    t->deliveries++;
    s->stats.deliveries++;
    out->handle = e->handle;
    out->msg = job->message->id;
    out->transport = t->name;
    out->dest = q->name;
    out->nrcpt = e->nrcpt;
    r.handle = e->handle;
    qsi_trace_msg(&r, job->message);
    qsi_trace_dest(&r, q);
    r.n = e->nrcpt;
    qsi_emit(s, &r);
}

/* S-PRE-4: "each time an entry of the job is selected, the job's slot
 * counter is incremented by one"; slots_used counts the same for the
 * refund of S-PRE-9.  (entry_select_peer counted the entry as selected.) */
/*@
  requires job:     \valid(job);
  requires counts:  -QS_SLOTS_MAX <= job->slots_available < QS_SLOTS_MAX &&
                    -QS_COUNT_MAX <= job->slots_used < QS_COUNT_MAX;
  assigns job->slots_available, job->slots_used;
  ensures counter:  job->slots_available == \old(job->slots_available) + 1;
  ensures used:     job->slots_used == \old(job->slots_used) + 1;
*/
static void (job_count_selection)(qs_job *job)
{
    job->slots_available++;
    job->slots_used++;
}

/* The walk below passes a job by (a blocker, or one it marks): what its
 * tests read of the next one - its first line, its message, its first
 * peer - and the first line of the one after are asked for now
 * (QSI_PREFETCH, sched_int.h).  On a long list most jobs are passed by, a
 * few reads each, and the walk waited for each job's memory in turn
 * (issue 16: the transports shape's selections).  Only when passing by:
 * a walk that stops at its first job (most, in the small shapes) would
 * load the next one for nothing. */
static inline void walk_ahead(const qs_job *next)
{
    if (next) {
        QSI_PREFETCH(next->lnext);
        QSI_PREFETCH(next->message);
        QSI_PREFETCH(next->peer_head);
    }
}

/*
 * S-PRE-2: the transport's job list in order, from where selection starts.
 *
 *     if k >= 2 and there is a current job: try to preempt it  (preempt.c)
 *     for job = first job that may not be a blocker, its next, ...:
 *         blocker:                    skip
 *         a peer can be selected:     hand out its entry, counter += 1,
 *                                     current = job, retire job if done
 *         pending entries, no peer:   mark job (and its queues) blocker
 *         nothing pending:            stalled: retire
 *     nothing found: every job is a blocker
 *
 * The walk is the document's "in the order of the transport's job list"
 * from the head; job_walk only saves it the blockers at the front: every
 * job before it is a blocker (checked by S-INV-2).  It is the current job
 * when the current job was selected last and nothing was released in
 * front of it since; a release, and a blocker that receives new entries,
 * set it back to the head (select.c, jobs.c).  The current job - the one
 * that may be preempted - is "the job whose entry was selected the last
 * time" (R-14 current_job = last_selected); Postfix's current job is where
 * the walk starts (walk_start, the postfix profile), and then the two
 * pointers are one.
 */
static int transport_entry_select(qs_sched *s, qs_transport *t,
                                  qs_delivery *out)
{
    qs_job *job, *next;
    qs_peer *p;
    int fast;
    /* how long the walks are decides whether the blocker index is kept */
    fast = 0;
    if (t->bix_due) { /* (always while the index is on) */
        if (!t->bix_on || ++t->walk_selects == QSI_BIX_WINDOW)
            qsi_bix_adapt(t);
        if (t->bix_on) {
            if (!QSI_EXPLAIN(s))
                fast = 1; /* straight to the stops (blocker_region.c) */
            else
                qsi_bix_materialize(t); /* the plain walk needs the tags */
        }
    }
    if (!t->job_walk)
        return 0; /* every job is a blocker */
    QSI_BIX_CHECK_START(t); /* (crosscheck builds: blocker_region.c) */
    /* S-PRE-3: preemption only with k >= 2 (k = 1 degenerates).
     * With k = 1 every selected entry would earn a whole free slot, an
     * inflation bound of k/(k-1) = infinity; k = 0 is the documented way
     * to switch preemption off.  A preemption moves the preempting job in
     * front of the current job and makes the walk start there. */
    if (t->slot_cost >= 2 && t->job_current)
        qsi_job_preempt(s, t->job_current);
    /* The successor is taken before the job is looked at: a stalled job
     * retires below, leaving the list, and the walk must go on from where
     * it was, not from a job no longer linked. */
    for (job = t->job_walk; job; job = next) {
        /* with the blocker index, straight to the next job the plain
         * logic below would do more with than mark it */
        if (fast && t->bix_on &&
            (job = qsi_bix_walk_to_stop(s, t, job)) == NULL)
            break;
        next = job->lnext;
        if (QS_IS_BLOCKER(job)) {
            walk_ahead(next);
            continue;
        }
        /* S-PRE-11, the common case first: a job whose message is fully
         * read and that has entries can read nothing (job_peer_select
         * reads only with unread recipients), so it is a blocker exactly
         * when none of its pending peers has room - the test of
         * peer_select without its rotation.  After a release of every
         * blocker (S-PFX-21) the walk re-marks hundreds of such jobs per
         * selection on long lists (docs/performance.md section 3); this
         * keeps each at one pass over its peers. */
        if (!QS_UNREAD(job->message) && QS_HAS_ENTRIES(job) &&
            job_mark_if_no_room(s, t, job)) {
            walk_ahead(next);
            continue;
        }
        if ((p = job_peer_select(s, job)) != NULL) {
            entry_select_peer(s, p, out);
            /* S-PRE-4: the counter grows by one per selected entry.
             * The document first says one slot per k selected entries,
             * then corrects itself: the counter counts entries and is
             * divided by k where it is used (preempt.c).  slots_used
             * counts towards the refund the job's parent gets when the
             * job leaves its stack (S-PRE-9). */
            job_count_selection(job);
            /* S-PFX-20: a job other than the cached current job got
             * closer to being a candidate. */
            if (job != t->cand_current)
                QSI_CAND_RESET(t);
            /* "The job whose entry was selected the last time is the so
             * called current job"; the jobs the walk passed are blockers. */
            t->job_current = job;
            t->job_walk = job;
            QSI_CK_XPORT(s, t);
            /* Done with this job for now: it leaves the job lists
             * (S-PRE-2).  A job whose message is not fully read
             * (QS_UNREAD, S-PFX-16) stays, since the next batch may bring
             * it entries and its place in the list must be kept. */
            if (!QS_HAS_ENTRIES(job) && !QS_UNREAD(job->message))
                qsi_job_retire(s, job);
            else
                qsi_cix_selected(job);
            /* The candidate index learns of the selection (needed fell by
             * one) only now, and not at all for a job that retired: its
             * removal repairs the tree from the job's place up, and a
             * minimum it still held from before the selection (one too
             * high) goes with it (issue 16: with a destination recipient
             * limit of 1 most selections take a job's last entry, and the
             * tree was repaired twice on the same path). */
            return 1;
        } else if (QS_HAS_ENTRIES(job)) {
            /* S-PRE-11: no selectable peer (a read found none either) */
            job_mark_blocker(s, t, job, NULL);
        } else {
            /* A stalled job (no entries now): retire it.
             * Its entries are all selected and its message could not read
             * more for it now (no room, or the batch went to other
             * transports).  It comes back, linked by its enqueue time,
             * when a batch brings it entries (S-PRE-13); meanwhile it
             * neither keeps the walk busy nor holds recipient slots. */
            qsi_job_retire(s, job);
        }
    }
    /* Every job is a blocker.  R-14: the job selected last stays the
     * current job (last_selected); Postfix has no current job then
     * (walk_start). */
    t->job_walk = NULL;
    if (QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START)
        t->job_current = NULL;
    QSI_CK_XPORT(s, t);
    return 0;
}

/* S-PFX-17 (postfix profile): whether Postfix's round robin offers the
 * transport a delivery agent.  Postfix adds up, over the transport's live
 * destinations in the order they were created, min(window - deliveries in
 * flight, pending entries), and offers the transport as soon as the sum
 * reaches 1.  A destination with more deliveries in flight than its window
 * (after negative feedback) adds a negative amount, so it can hide the room
 * of the destinations after it. */
/* Without a destination over its window every amount is >= 0, and one
 * of at least 1 is exactly a ready destination (alive, room, something
 * pending: sched_int.h): the sum reaches 1 exactly when the transport has
 * a ready destination, which the counts answer without the walk (issue
 * 16: the walk was 2.6% of the queue shape). */
static int postfix_offered(const qs_transport *t)
{
    const qs_queue *q;
    int64_t need = 1;
    if (t->in_flight >= t->process_limit)
        return 0;
    if (t->over_queues == 0)
        return t->ready_queues > 0;
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
 * process limit or without a destination that could take a delivery.
 * `select T` asks one transport only (a delivery agent of T is free);
 * plain `select` asks the transports in creation order from where the
 * last round-robin delivery left off, so that one transport with a long
 * backlog cannot starve the others ("the top-level round-robin
 * transport").  The document's "if transport busy continue" is read as
 * "no destination of the transport can take a delivery now" (no ready
 * queue), which is also when Postfix allocates no delivery agent to it;
 * such a transport is skipped without walking its job list, so no
 * preemption, refill or blocker marking happens for it.  At the end of
 * the event the messages whose counts changed are checked (reads, leaving
 * the active queue: memory.c).  Nothing found: an `idle` line. */
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
    } else if (s->rr &&
               QS_READING(s, QR_TRANSPORT_RR) == QRV_RR_ROTATE) {
        /* R-2 transport_rr = rotate: Postfix's round robin (S-PFX-13,
         * S-PFX-17), the postfix profile's default */
        found = round_robin_postfix(s, out);
    } else if (s->rr) {
        size_t i;
        /* R-2 transport_rr: "starts at the transport after the one that
         * gave the previous round-robin delivery": that transport's
         * successor in the cycle now (last: a transport created since then
         * comes next, the cycle being the creation order), or the
         * successor it had at the delivery (next). */
        if (QS_READING(s, QR_TRANSPORT_RR) == QRV_RR_LAST)
            t = s->rr_last ? s->rr_last->rr_next : s->xhead;
        else
            t = s->rr;
        for (i = 0; i < s->ntransports; i++) {
            qs_transport *nt = t->rr_next;
            /* The round robin moves only when a transport delivers: the
             * next `select` starts with the transport after it. */
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
    qsi_trace_start(&r, QS_T_IDLE);
    r.transport = transport;
    qsi_emit(s, &r);
    return 0;
}
