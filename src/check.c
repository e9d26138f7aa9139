/*
 * check.c - the invariant checker.
 *
 * Owns: qs_check_invariants (spec/memory.md S-INV-*), used by tests,
 * `qsched --check-invariants`, the fuzz harnesses and the bounded model
 * checker.  (The state's text forms, qs_describe and qs_encode_state, are
 * in state_text.c.)  Read-only over the core's state:
 * every count is recomputed from the structures and compared with the
 * incrementally kept one.
 *
 * Why it exists.  The scheduler keeps many counts incrementally (entries
 * pending per queue, recipients in core per job, message and transport,
 * slots per job, ready queues) so that each decision is O(1); the document
 * states the relations between them only in passing ("the jobs queued
 * before this job are completely read ... and have at maximum as many
 * slots as they still have recipients in-core").  A count that drifts
 * would not crash anything: it would silently make a different decision
 * later.  Recounting from the lists after every event turns such drift
 * into an error at the event that caused it.  The pointer-heavy core is
 * not proved with Frama-C (proofs/README.md says why); this checker, run
 * by the fuzzers and the model checker over millions of states, is what
 * stands in for that proof.
 *
 * How to read each check below: the invariant, the argument why the core
 * keeps it (which code moves the counts, and why the moves balance), and
 * the rule that would be broken, visibly or silently, if it did not hold.
 *
 * The invariants (spec/memory.md, "Invariants"):
 *   S-INV-1  every recipient of a message is unread, in core, delivered
 *            or deferred, exactly once
 *   S-INV-2  the two job lists hold the same jobs, the by-time list is
 *            sorted, stack levels and parents agree
 *   S-INV-3  each queue's lists agree with its counts; a dead queue has
 *            nothing pending
 *   S-INV-4  each job's recipient and entry counts agree with its entries
 *   S-INV-5  the job slots and the pool of a transport add up to its
 *            recipient limit; the pool stays >= -extra_recipient_limit
 *   S-INV-6  a live window is in [1, limit]
 *   S-INV-7  at most qmgr_message_active_limit messages are active, and
 *            messages wait only while the active queue is full
 *   S-INV-8  recipients in core stay within the bound that holds
 *
 * Implements no section of SCHEDULER_README; it states the document's
 * structural claims as checks (rule ids S-INV-1 .. S-INV-8).  May not:
 * change anything (every parameter is const), or assert the document's
 * S-MEM-9 bound formulas, which valid streams exceed (S-INV-8 instead).
 */
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"

/* The first broken invariant, as one line in err; returns -1.
 * Only the first: after one count has drifted, later checks that use it
 * would report consequences, not the cause. */
int qsi_check_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* CHECK(condition, message...): stop at the first broken invariant. */
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond))                                                          \
            return qsi_check_fail(err, errlen, __VA_ARGS__);                            \
    } while (0)

/* S-INV-3: the queue's lists agree with its counters; S-INV-6: windows.
 * Pending entries have no handle and 1 .. destination recipient limit
 * recipients (S-PRE-1); in-flight entries are exactly those of the
 * in-flight map; a dead queue holds nothing pending (S-CON-9: its entries
 * were deferred, and new recipients for it are deferred as read).  The
 * window of a live queue stays in [1, limit]: the negative step never
 * goes below 1 (S-CON-7) and the clamp keeps it under the limit
 * (S-CON-5).  The ready flag must match its definition, since qs_select
 * trusts the transport's ready count to skip a transport. */
int qsi_check_queue_fields(const qs_sched *s, const qs_transport *t,
                           const qs_queue *q, char *err, size_t errlen);

static int check_queue(const qs_sched *s, const qs_transport *t,
                       const qs_queue *q, int64_t *busy_sum, char *err,
                       size_t errlen)
{
    const qs_entry *e;
    int64_t todo = 0, busy = 0;
    /* Pending entries: a handle is given only at selection, and an entry
     * is created for a recipient, so it is never empty.
     * Why the size bound holds: jobs.c adds a recipient to an existing
     * entry only while the entry is below the destination recipient
     * limit, else starts a new one (S-PRE-1).  An entry above it would be
     * one delivery carrying more recipients than the transport allows,
     * and MIN/MAX (S-MEM-8), which count entries, would be too small. */
    for (e = q->todo_head; e; e = e->qnext) {
        CHECK(e->queue == q && e->handle == 0 && e->nrcpt >= 1,
              "queue %s:%s: bad todo entry", t->name, q->name);
        /* the entry's own queue and job are its peer's (sched_int.h) */
        CHECK(e->peer->queue == q && e->job == e->peer->job,
              "queue %s:%s: todo entry of another peer", t->name, q->name);
        CHECK(t->dest_rcpt_limit == 0 || e->nrcpt <= t->dest_rcpt_limit,
              "queue %s:%s: entry of %lld recipients exceeds the "
              "destination recipient limit", t->name, q->name,
              (long long)e->nrcpt);
        todo++;
    }
    /* In-flight entries: each is the one its handle finds, or a `done`
     * would complete the wrong delivery. */
    for (e = q->busy_head; e; e = e->qnext) {
        CHECK(e->queue == q && e->handle > 0,
              "queue %s:%s: bad busy entry", t->name, q->name);
        CHECK(e->peer->queue == q && e->job == e->peer->job,
              "queue %s:%s: busy entry of another peer", t->name, q->name);
        CHECK(qs_handles_get(&s->inflight, (uint64_t)e->handle) == e,
              "queue %s:%s: busy entry D%lld not in flight", t->name,
              q->name, (long long)e->handle);
        busy++;
    }
    /* The counts against the lists.  Why they hold: every move of an
     * entry between todo, busy and gone is made by one helper that
     * updates the count beside the list (select: todo -> busy; done:
     * busy -> gone; death: todo -> deferred).  q->busy is the queue's
     * "busy_refcount" of the safety rule (S-CON-3) and q->todo what makes
     * it ready; a drift in either would change feedback or selection
     * without any error. */
    CHECK(todo == q->todo && busy == q->busy,
          "queue %s:%s: todo/busy counts %lld/%lld, lists hold %lld/%lld",
          t->name, q->name, (long long)q->todo, (long long)q->busy,
          (long long)todo, (long long)busy);
    *busy_sum += busy;
    return qsi_check_queue_fields(s, t, q, err, errlen);
}

/* check_queue's tests that need no walk of the lists. */
int qsi_check_queue_fields(const qs_sched *s, const qs_transport *t,
                              const qs_queue *q, char *err, size_t errlen)
{
    int ready;
    CHECK(!q->todo_head == !q->todo_tail && !q->busy_head == !q->busy_tail &&
          (q->todo == 0) == !q->todo_head && (q->busy == 0) == !q->busy_head &&
          (!q->todo_head || (!q->todo_head->qprev && !q->todo_tail->qnext)) &&
          (!q->busy_head || (!q->busy_head->qprev && !q->busy_tail->qnext)),
          "queue %s:%s: broken list ends", t->name, q->name);
    /* Why a dead queue has nothing pending: death defers every pending
     * entry at once (S-CON-9, item 3), and a recipient read for a dead
     * destination is deferred at the read, never queued.  A pending entry
     * on a dead queue could never be selected (a dead queue is never
     * ready) and its job would never finish: its message would stay in
     * the active queue for good. */
    CHECK(!q->dead || q->todo == 0,
          "queue %s:%s: dead but has pending entries", t->name, q->name);
    /* A dead queue's window is not checked: it is frozen at its value when
     * it died and unused until revival resets it. */
    if (!q->dead) {
        int hi = t->dest_conc_limit;
        /* document profile: the initial window may exceed the limit until
         * the first positive feedback clamps it (S-CON-5). */
        if (s->profile == QS_PROFILE_DOCUMENT && t->init_conc > hi)
            hi = t->init_conc;
        CHECK(q->window >= 1 && (hi == 0 || q->window <= hi),
              "queue %s:%s: window %d outside [1, %d]", t->name, q->name,
              q->window, hi);
    }
    /* ready = live, window above deliveries in flight, something pending:
     * exactly "may this destination get one more delivery now".  It is
     * recomputed (concurrency.c) after every change of those three
     * fields, and t->ready_queues counts the queues that have it.
     * The cached flag against its definition (concurrency.c): a stale flag
     * would make qs_select skip a transport that has work, or walk one
     * that has none. */
    ready = !q->dead && q->window > q->busy && q->todo > 0;
    CHECK(ready == q->ready, "queue %s:%s: stale ready flag", t->name,
          q->name);
    /* over = live with more in flight than the window: a stale flag would
     * make the postfix profile's round robin offer a transport that a
     * negative room hides, or the reverse (select.c, postfix_offered) */
    CHECK((!q->dead && q->busy > q->window) == q->over,
          "queue %s:%s: stale over flag", t->name, q->name);
    return 0;
}

/* S-INV-2: the two job lists, the stacks, the current job.
 * Both lists hold the same jobs (counted), only linked ones (level >= 0);
 * the by-time list is sorted by enqueue time (the pools and the early
 * stop of the candidate scan depend on it); the current job is on the
 * list.  Stack relations: a job has a parent exactly when its level is
 * above 0, except orphans (level > 0, parent gone, S-PRE-10); a child
 * sits deeper than its parent and, under the job it preempted, exactly one
 * level deeper, since the refund (S-PRE-9) tells original parents from
 * adoptive ones by that difference; parent and child lists agree. */
/* Why these hold: a job enters both lists together (jobs.c links it on
 * the scheduler's list by arrival time and on the by-time list in enqueue
 * order) and leaves both together at retirement, which also sets its
 * level to -1; preemption (preempt.c) only moves a job within the
 * scheduler's list and pushes it one level above the job it preempts;
 * a pop restores the level and hands the children to the parent (S-PRE-10).
 * What breaks otherwise: a job on one list only is scheduled but never
 * given recipient slots, or the reverse (S-MEM-5 walks the by-time list);
 * wrong levels make the refund of S-PRE-9 go to the wrong job. */
/* S-PRE-8..S-PRE-10, one job's place in the preemption stack: a level-0
 * job has no parent and a child is deeper than its parent (an orphan,
 * S-PRE-10, may keep a level > 0 without one); exactly one level below
 * the job it preempted while that job is still its parent (S-PRE-9's
 * refund test relies on it); parent and children point at each other.
 * Shared by the whole-state check here and the incremental one
 * (check_changes.c), so each invariant is stated once. */
int qsi_check_job_stack(const qs_transport *t, const qs_job *j, char *err,
                        size_t errlen)
{
    const qs_job *c;
    CHECK((j->stack_level == 0) == (j->parent == NULL) ||
          (j->parent == NULL && j->stack_level > 0),
          "transport %s: job %s level %d with%s parent", t->name,
          j->message->id, j->stack_level, j->parent ? "" : "out");
    if (j->parent) {
        /* S-PRE-8/S-PRE-10: one level deeper than the job it
         * preempted; adopted children keep their (deeper) level. */
        CHECK(j->stack_level > j->parent->stack_level &&
              j->parent->stack_level >= 0,
              "transport %s: job %s level %d not below parent %s level "
              "%d", t->name, j->message->id, j->stack_level,
              j->parent->message->id, j->parent->stack_level);
        /* ...and exactly one level deeper while its parent is still
         * the job it preempted (S-PRE-9's refund test relies on it). */
        CHECK(j->parent->serial != j->preempted_serial ||
              j->stack_level == j->parent->stack_level + 1,
              "transport %s: job %s level %d under the job it preempted "
              "(%s, level %d)", t->name, j->message->id, j->stack_level,
              j->parent->message->id, j->parent->stack_level);
        for (c = j->parent->child_head; c && c != j; c = c->snext)
            ;
        CHECK(c == j, "transport %s: job %s missing from its parent's "
              "children", t->name, j->message->id);
    }
    for (c = j->child_head; c; c = c->snext)
        CHECK(c->parent == j, "transport %s: child %s of %s points "
              "elsewhere", t->name, c->message->id, j->message->id);
    return 0;
}

static int check_job_lists(const qs_transport *t, char *err, size_t errlen)
{
    const qs_job *j, *k;
    int64_t nl = 0, nt = 0, misplaced = 0;
    int current_seen = t->job_current == NULL;
    int walk_seen = 0;
    /* The scheduler's list, with the stack relations of each job on it. */
    for (j = t->jhead; j; j = j->lnext) {
        /* S-PRE-2: every job before where selection starts is a blocker
         * (NULL: every job is), or selection would pass it over.  Holds
         * because job_walk moves only to the job an entry was selected
         * from (the walk marked or retired the ones before it), to the
         * job after one that leaves, to a job linked or preempting in
         * front of it, and back to the head when a blocker is released. */
        if (j == t->job_walk)
            walk_seen = 1;
        CHECK(walk_seen || qsi_is_blocker(j),
              "transport %s: job %s before where selection starts (%s) is "
              "not a blocker", t->name, j->message->id,
              t->job_walk ? t->job_walk->message->id : "nowhere");
        CHECK(j->transport == t && j->stack_level >= 0,
              "transport %s: job %s on the list with level %d", t->name,
              j->message->id, j->stack_level);
        CHECK(j->lnext == NULL || j->lnext->lprev == j,
              "transport %s: broken scheduler list", t->name);
        if (j == t->job_current)
            current_seen = 1;
        /* S-PRE-8..10: its stack level, parent and children */
        if (qsi_check_job_stack(t, j, err, errlen) < 0)
            return -1;
        misplaced += j->misplaced != 0;
        nl++;
    }
    /* job_place.c: the count of misplaced jobs is right, and with none
     * the two lists are one sequence, which is what lets job_link find a
     * job's place on both with one walk of the by-time list.  Holds
     * because only a preemption's move reorders the list, and it marks
     * the job it moves; a job linked while one is marked is marked too. */
    CHECK(misplaced == t->jobs_misplaced, "transport %s: %lld jobs "
          "misplaced, %lld counted", t->name, (long long)misplaced,
          (long long)t->jobs_misplaced);
    for (j = t->jhead, k = t->thead; !misplaced && (j || k);
         j = j->lnext, k = k->tnext)
        CHECK(j == k, "transport %s: no job misplaced, yet the lists "
              "differ at %s", t->name, (j ? j : k)->message->id);
    /* A current job off the list would start the selection walk from a
     * retired or freed job. */
    CHECK(current_seen, "transport %s: current job not on the job list",
          t->name);
    CHECK(walk_seen || t->job_walk == NULL,
          "transport %s: selection starts at a job not on the job list",
          t->name);
    /* The by-time list: linked jobs only, sorted by enqueue time.
     * Sorted because jobs.c inserts a job at the place of its message's
     * enqueue time (walking back from the tail), also when a retired job
     * is relinked by a later batch (S-PRE-13); enqueue times are set at
     * activation and virtual time only moves forward (S-EV-6).  Unsorted, the pool walk of
     * S-MEM-5 would give slots to a younger job before an older one. */
    for (j = t->thead; j; j = j->tnext) {
        CHECK(j->stack_level >= 0, "transport %s: retired job %s on the "
              "by-time list", t->name, j->message->id);
        CHECK(j->tnext == NULL ||
              j->message->queued_time <= j->tnext->message->queued_time,
              "transport %s: by-time list out of order at %s", t->name,
              j->message->id);
        nt++;
    }
    /* Same number on both lists: catches a job linked on one list only
     * (a link or unlink that forgot the other list). */
    CHECK(nl == nt, "transport %s: %lld jobs on the scheduler's list, %lld "
          "on the by-time list", t->name, (long long)nl, (long long)nt);
    return 0;
}

/* S-INV-1, S-INV-4: per message recipient conservation and per job
 * entry/recipient/slot accounting.
 * For each job: its peers' pending lists match their counts, a peer is
 * kept only while it has entries (pending or in flight), the recipients
 * of its pending and in-flight entries add up to its rcpt_count, and read
 * - selected entries equals what is pending.  For the message: its jobs'
 * recipients add up to its count in core; every recipient is exactly one
 * of unread, in core, delivered or deferred (nothing lost, nothing
 * doubled); and its limit is the minimum plus its jobs' slots (S-MEM-4),
 * the identity that makes sponsoring safe. */
/* Why conservation holds (S-INV-1): a recipient changes state only at
 * four places - read (unread -> in core, memory.c), deferred at the read
 * (unread -> deferred), completion of its entry (in core -> delivered or
 * deferred, messages.c), death of its destination (in core -> deferred) -
 * and each moves the same count out of one field and into another.  A
 * leak here would be a recipient the trace never mentions again, or one
 * delivered twice.  The limit identity (S-MEM-4) holds because a job's
 * slots are added to or taken from the message's limit in the same step
 * as the job's own rcpt_limit changes; without it a message could read
 * more than its jobs have room for, the loophole that sponsoring
 * (S-MEM-5) would open. */
int qsi_check_message(const qs_sched *s, const qs_message *m,
                         int64_t *in_core_sum, int counted, char *err,
                         size_t errlen)
{
    const qs_job *j;
    int64_t in_core = 0, job_limits = 0, spare = 0;
    /* Each job: recount its pending entries and recipients from its
     * peers, and its in-flight recipients from its queues. */
    for (j = m->jobs; j; j = j->mnext) {
        const qs_peer *p;
        int64_t rc = 0, todo = 0, peers = 0;
        for (p = j->peer_head; p; p = p->next) {
            const qs_entry *e;
            int64_t pt = 0, busy_refs;
            if (counted) {
                /* the incremental checker: the entries as counted when
                 * they were touched (ck_entry), not walked */
                pt = p->ck_todo;
                CHECK(p->refcount == p->ck_refs, "message %s: peer %s "
                      "refcount %lld, entries hold %lld", m->id,
                      p->queue->name, (long long)p->refcount,
                      (long long)p->ck_refs);
            } else {
                for (e = p->ehead; e; e = e->pnext) {
                    rc += e->nrcpt;
                    pt++;
                }
            }
            CHECK(pt == p->todo, "message %s: peer %s todo count", m->id,
                  p->queue->name);
            busy_refs = p->refcount - p->todo;
            CHECK(busy_refs >= 0, "message %s: peer %s refcount", m->id,
                  p->queue->name);
            /* An empty peer would still be tried by the round robin, and
             * its refcount would go wrong at the next entry. */
            CHECK(p->refcount > 0, "message %s: unused peer %s kept", m->id,
                  p->queue->name);
            todo += pt;
            peers++;
        }
        /* busy recipients of this job, found through its queues (an
         * in-flight entry is on its queue's busy list, no longer on its
         * peer's list) */
        if (counted) {
            rc = j->ck ? j->ck->rc : 0; /* (no record: none counted) */
        } else {
            const qs_peer *pp;
            for (pp = j->peer_head; pp; pp = pp->next) {
                const qs_entry *e;
                for (e = pp->queue->busy_head; e; e = e->qnext)
                    if (e->peer == pp)
                        rc += e->nrcpt;
            }
        }
        /* A peer exists per (job, destination) with entries; jobs.c
         * moves peer_count where it links and frees peers, and a peer
         * linked or freed without it is caught here. */
        CHECK(peers == j->peer_count, "message %s: peer count", m->id);
        CHECK(rc == j->rcpt_count, "message %s job %s: rcpt_count %lld, "
              "entries hold %lld", m->id, j->transport->name,
              (long long)j->rcpt_count, (long long)rc);
        /* read - selected = pending, the definition QS_HAS_ENTRIES uses
         * to decide whether a job has work.  Holds because an entry is
         * counted read when it is created and selected when it is handed
         * out or deferred by a dead destination (S-CON-9: dealt with,
         * S-MEM-8); both never decrease. */
        CHECK(j->read_entries - j->selected_entries == todo,
              "message %s job %s: read %lld - selected %lld != %lld todo "
              "entries", m->id, j->transport->name,
              (long long)j->read_entries, (long long)j->selected_entries,
              (long long)todo);
        /* Only the pool may go negative (S-MEM-6); a job gives back at
         * most what it has spare (qs_pool_unused). */
        CHECK(j->rcpt_limit >= 0, "message %s job %s: negative slots",
              m->id, j->transport->name);
        in_core += rc;
        job_limits += j->rcpt_limit;
        spare += qsi_job_spare(j);
    }
    /* S-MEM-5's return skips the walk over the sister jobs on this count
     * (qsi_message_return_slots): one too low and a sister would keep
     * slots its transport's pool needs back. */
    CHECK(spare == m->jobs_spare, "message %s: %lld jobs with slots to "
          "spare, counted %lld", m->id, (long long)spare,
          (long long)m->jobs_spare);
    /* The message's in-core count is what its next batch is measured
     * against (S-MEM-4: limit - in core = room), so it must be the sum
     * of its jobs' counts, each recounted above. */
    CHECK(in_core == m->rcpt_count, "message %s: rcpt_count %lld, jobs hold "
          "%lld", m->id, (long long)m->rcpt_count, (long long)in_core);
    CHECK(m->rcpt_total == m->rcpt_unread + m->rcpt_count + m->delivered +
                               m->deferred,
          "message %s: %lld recipients != %lld unread + %lld in core + %lld "
          "delivered + %lld deferred", m->id, (long long)m->rcpt_total,
          (long long)m->rcpt_unread, (long long)m->rcpt_count,
          (long long)m->delivered, (long long)m->deferred);
    CHECK(m->rcpt_limit == s->msg_rcpt_minimum + job_limits,
          "message %s: recipient limit %lld != minimum %lld + job slots "
          "%lld", m->id, (long long)m->rcpt_limit,
          (long long)s->msg_rcpt_minimum, (long long)job_limits);
    *in_core_sum += in_core;
    return 0;
}

/* Every invariant, messages first (they give the global in-core count
 * the transports are compared with), then each transport's queues, job
 * lists and pool.  O(size of the state): meant for tests and harnesses,
 * never called by the scheduler itself. */
/* The order matters only for the message printed: a broken message
 * count is reported as such, not as the transport total it also breaks.
 * Called after every event by --check-invariants; the core never calls
 * it, so a release build pays nothing for it. */
int qs_check_invariants(const qs_sched *s, char *err, size_t errlen)
{
    const qs_transport *t;
    const qs_message *m;
    int64_t in_core = 0, inflight = 0, active = 0;
    for (m = s->active_head; m; m = m->next) {
        if (qsi_check_message(s, m, &in_core, 0, err, errlen) < 0)
            return -1;
        active++;
    }
    /* S-INV-7: the active queue holds at most its limit; messages wait
     * only while it is full. */
    CHECK(active == s->active_count && active <= s->active_limit,
          "active queue holds %lld messages (count %lld, limit %lld)",
          (long long)active, (long long)s->active_count,
          (long long)s->active_limit);
    /* A message waiting while there is room would have been activated
     * when the room appeared (memory.c); this catches a missed wake-up. */
    CHECK(s->incoming_head == NULL || s->active_count == s->active_limit,
          "messages wait while the active queue has room");
    /* The scheduler-wide count drives the first batch (S-MEM-3): a new
     * message may read the global limit minus this count (but at least
     * the minimum).  It is moved in the same helpers that move the
     * messages' counts, so it equals their sum. */
    CHECK(in_core == s->in_core, "in-core recipients %lld, counted %lld",
          (long long)s->in_core, (long long)in_core);
    for (t = s->xhead; t; t = t->next) {
        const qs_queue *q;
        const qs_job *j;
        int64_t busy = 0, ready = 0, over = 0, limits = 0, tcore = 0;
        for (q = t->qhead; q; q = q->next) {
            if (check_queue(s, t, q, &busy, err, errlen) < 0)
                return -1;
            ready += q->ready;
            over += q->over;
        }
        CHECK(busy == t->in_flight, "transport %s: in flight %lld, queues "
              "hold %lld", t->name, (long long)t->in_flight,
              (long long)busy);
        /* qs_select never starts a delivery on a transport at its
         * process limit (S-PRE-14): the round robin tests the limit
         * before it selects, and only a completion lowers in_flight.
         * Above it, the model would run more delivery agents than
         * master.cf allows, and every timing derived from it would be
         * wrong. */
        CHECK(t->in_flight <= t->process_limit, "transport %s: %lld in "
              "flight over the process limit %d", t->name,
              (long long)t->in_flight, t->process_limit);
        /* qs_select skips a transport whose ready count is 0. */
        CHECK(ready == t->ready_queues, "transport %s: ready count",
              t->name);
        /* the postfix profile's round robin trusts a 0 here (S-PFX-17) */
        CHECK(over == t->over_queues, "transport %s: over count",
              t->name);
        inflight += busy;
        if (check_job_lists(t, err, errlen) < 0)
            return -1;
        /* S-INV-5: pool conservation: slots held by jobs plus the pool
         * equal the transport's limit; the pool never lends more than the
         * extra pool.
         * Slots only move between jobs and the pool (S-MEM-5), except the
         * extra share of S-MEM-6, which the pool lends by going negative;
         * a slot created or lost would change what the transport may hold
         * in core for the rest of the run. */
        for (m = s->active_head; m; m = m->next)
            for (j = m->jobs; j; j = j->mnext)
                if (j->transport == t) {
                    limits += j->rcpt_limit;
                    tcore += j->rcpt_count;
                }
        CHECK(limits + t->rcpt_unused == t->rcpt_limit,
              "transport %s: job slots %lld + pool %lld != recipient limit "
              "%lld", t->name, (long long)limits, (long long)t->rcpt_unused,
              (long long)t->rcpt_limit);
        CHECK(t->rcpt_unused >= -t->extra_rcpt_limit,
              "transport %s: pool %lld below -extra %lld", t->name,
              (long long)t->rcpt_unused, (long long)t->extra_rcpt_limit);
        CHECK(tcore == t->in_core, "transport %s: in core %lld, jobs hold "
              "%lld", t->name, (long long)t->in_core, (long long)tcore);
    }
    /* Every handle in the map is on some queue's busy list: no delivery
     * can be completed that no queue knows about.  Together with the
     * per-queue check (each busy entry is found by its handle) this makes
     * the map and the busy lists the same set: a `done Dn` finds exactly
     * the entry that was selected as Dn (S-EV-9). */
    CHECK(inflight == (int64_t)qs_handles_count(&s->inflight),
          "deliveries in flight %lld, queues hold %lld",
          (long long)qs_handles_count(&s->inflight), (long long)inflight);
    /* S-INV-8: the in-core bound that holds, G + min x A + sum over
     * transports of (R + X).  The argument: first batches take from the
     * global budget G, or the minimum per active message when G is used
     * up (min x A); later batches are paid from the transports' pools,
     * which lend at most R + X each (S-INV-5).  The document's S-MEM-9
     * formulas are not asserted: valid streams exceed them (spec/memory.md,
     * tests/unit/test_memory.c); --stats prints them beside the peak. */
    CHECK(s->in_core <= qs_bound_holding(s), "%lld recipients in core "
          "exceed the bound %lld (S-INV-8)", (long long)s->in_core,
          (long long)qs_bound_holding(s));
    return 0;
}
