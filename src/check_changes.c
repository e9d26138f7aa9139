/*
 * check_changes.c - the incremental invariant checker: qs_check_changes,
 * and the notes the scheduler takes of what each event touched.
 *
 * Owns: the touched-object sets (qsi_ck_*), each object's checked share of
 * the global sums, and qs_check_changes, which re-checks only what changed
 * since its last call.  It states the same invariants as check.c
 * (S-INV-1 .. S-INV-8) and reuses check.c's per-object checks
 * (qsi_check_queue_fields, qsi_check_message) so that there is one
 * statement of each invariant, not two.
 *
 * Why it exists: qs_check_invariants recomputes everything, O(state) per
 * call, which made `--check-invariants` quadratic on long streams
 * (issue 16).  A reference implementation is most useful when its own
 * invariants are checked on every stream anyone runs, so the check must
 * cost O(what the event changed).  Split from check.c to keep each core
 * file small enough to hold in one's head.
 *
 * Implements no section of SCHEDULER_README.  May not: change any
 * scheduling state (it only reads the scheduler and updates its own
 * bookkeeping in the touched sets and shares).
 */
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"

/* CHECK(condition, message...): stop at the first broken invariant. */
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond))                                                          \
            return qsi_check_fail(err, errlen, __VA_ARGS__);                            \
    } while (0)

/* ---- the incremental checker (qs_check_changes) ----
 *
 * qs_check_invariants recomputes everything from the structures: O(state)
 * per call, so after every event of a long stream it costs O(events x
 * state) (issue 16: over 300 s on a 100k-line stream that replays in
 * 0.8 s).  qs_check_changes checks the same invariants, but only for the
 * objects the events since its last call touched, which the core notes
 * as it changes them (QSI_CK_* in sched_int.h):
 *   - a touched queue: its lists against its counters, window, ready flag
 *     (check_queue, unchanged);
 *   - a touched active message: its jobs, peers and entries against their
 *     counters, recipient conservation, its limit (check_message);
 *   - a touched job: its links on both lists (its neighbours point back,
 *     or it is the head or tail), the by-time order with its neighbours,
 *     its stack relations (check_job_lists' tests, for this job only);
 *   - a touched transport: its counters against the checker's sums;
 *   - always: the scheduler's counters against the checker's sums.
 * The sums over all objects (busy entries, ready queues, job slots and
 * in-core recipients per transport, in-core recipients, active messages,
 * listed jobs) are not recomputed: each object's share, as it was last
 * checked, is kept with the object, and a check adds the difference; an
 * object that goes gives its share back (qsi_ck_*_gone).  A share is
 * always recomputed from the structures, never copied from the counter
 * it is compared with.  An event that changed an object without noting it
 * leaves a share stale, and the sum then disagrees with the counter: a
 * missing note shows up as a reported inconsistency, not as silence.
 * The first call checks everything (qs_check_invariants) and takes every
 * share.  Cost: O(size of the touched objects) per call. */

/* Why checking only touched objects is sound.  Every invariant S-INV-1 ..
 * S-INV-8 is a conjunction of (a) local tests that read one object and
 * its immediate neighbours or owned children, and (b) equalities between
 * a counter and a sum over objects.  A local test that held at the last
 * check can only fail now if something it reads has changed since, and
 * every change notes the object it changes (and, for list links, the
 * neighbours that point at it): so re-running the local tests on the
 * touched set re-establishes (a) for all objects.  For (b) the sum is the
 * previous sum plus the changes of the touched objects' shares, exactly
 * what the full recomputation would give if the untouched ones are
 * unchanged - and if one did change without a note, its stale share makes
 * the sum differ from the counter, which is reported, not hidden.
 *
 * Membership is an epoch stamp: an object is in the current set iff its
 * ck_epoch equals s->ck_epoch.  Notes are O(1) and deduplicated, and
 * raising the epoch after a check empties every set without visiting the
 * objects.  The array grows by doubling, amortised O(1) per note. */
void qsi_ck_note(qs_sched *s, struct qs_touched *set, void *obj,
                 uint64_t *epoch, size_t *index)
{
    qsi_grow_ptrs(&set->v, set->n, &set->cap, 64);
    *epoch = s->ck_epoch;
    *index = set->n;
    set->v[set->n++] = obj;
}

/* The records of entries and jobs (sched_int.h qs_entry_ck, qs_job_ck)
 * are taken from their pools the first time the checker needs them: a
 * note, a count, a share.  So only a checked replay has them, and once
 * the checker is on every live entry and job has one: the core notes
 * each at its creation (qsi_entry_create, qsi_job_obtain), and ck_start,
 * which turns the checker on only after the full check has passed, counts
 * every entry already there and shares every job of every active message
 * (the only jobs there are).  The *_gone functions rely on it
 * (test_check.c (d) holds it). */
static qs_entry_ck *entry_ck(qs_sched *s, qs_entry *e)
{
    if (!e->ck)
        e->ck = qsi_pool_get(&s->ck_entry_pool);
    return e->ck;
}

static qs_job_ck *job_ck(qs_sched *s, qs_job *j)
{
    if (!j->ck)
        j->ck = qsi_pool_get(&s->ck_job_pool);
    return j->ck;
}

/* The typed note functions, one per kind of object the checker re-tests.
 * They are called from the core (through QSI_CK_*) at each change. */
void qsi_ck_msg(qs_sched *s, qs_message *m)
{
    if (m->ck_epoch != s->ck_epoch)
        qsi_ck_note(s, &s->ck_msgs, m, &m->ck_epoch, &m->ck_index);
}

void qsi_ck_xport(qs_sched *s, qs_transport *t)
{
    if (t->ck_epoch != s->ck_epoch)
        qsi_ck_note(s, &s->ck_xports, t, &t->ck_epoch, &t->ck_index);
}

/* a job (NULL: none, for a missing neighbour) and its transport */
/* The transport is noted too because the job's share of the transport's
 * sums (S-INV-2's job count, S-INV-5's slots) may change with it. */
void qsi_ck_job(qs_sched *s, qs_job *j)
{
    if (j && job_ck(s, j)->epoch != s->ck_epoch) {
        qsi_ck_note(s, &s->ck_jobs, j, &j->ck->epoch, &j->ck->index);
        qsi_ck_xport(s, j->transport);
    }
}

/* a queue and its transport */
/* Its transport too: ck_queue moves the queue's share of the in-flight
 * and ready sums that ck_transport compares. */
void qsi_ck_queue(qs_sched *s, qs_queue *q)
{
    if (q->ck_epoch != s->ck_epoch) {
        qsi_ck_note(s, &s->ck_queues, q, &q->ck_epoch, &q->ck_index);
        qsi_ck_xport(s, q->transport);
    }
}

/* An entry carries the counts of its queue and peer (S-INV-3, S-INV-4);
 * ck_entry notes those owners itself when it moves the counts. */
void qsi_ck_entry(qs_sched *s, qs_entry *e)
{
    if (entry_ck(s, e)->epoch != s->ck_epoch)
        qsi_ck_note(s, &s->ck_entries, e, &e->ck->epoch, &e->ck->index);
}

/* Swap-remove from the touched set (the object is freed before the next
 * check); the moved object learns its new place, an lvalue that `place`
 * names from the object (->ck_index, or ->ck->index for the kinds with a
 * record apart). */
/* Without this the next check would read freed memory: the set holds raw
 * pointers.  The order of the set is irrelevant (every member is checked),
 * so a swap-remove in O(1) is enough. */
#define CK_FORGET(set, obj, type, place)                                     \
    do {                                                                     \
        type *last_ = (set)->v[--(set)->n];                                  \
        (set)->v[(obj)place] = last_;                                        \
        last_ place = (obj)place;                                            \
    } while (0)

/* The *_gone functions keep (b) exact across frees: the object's last
 * checked share leaves the sums at the moment it leaves the structures,
 * so that the counters (which the core lowers at the same time) and the
 * sums keep agreeing.  They do nothing before the first check, when no
 * share has been taken.  A departing message returns its in-core
 * recipients (S-INV-8's sum) and its place in the active queue (S-INV-7). */
void qsi_ck_message_gone(qs_sched *s, qs_message *m)
{
    if (!s->ck_on)
        return;
    s->ck_in_core -= m->ck_rcpt;
    s->ck_active -= m->ck_active;
    if (m->ck_epoch == s->ck_epoch)
        CK_FORGET(&s->ck_msgs, m, qs_message, ->ck_index);
}

/* A departing job returns its slot share (S-INV-5), its in-core share,
 * and its place in the listed-job count (S-INV-2); its transport is noted
 * so that the next check compares the lowered sums with its counters. */
/* Its record goes back to the pool with it. */
void qsi_ck_job_gone(qs_sched *s, qs_job *j)
{
    qs_transport *t;
    qs_job_ck *c;
    if (!s->ck_on)
        return; /* (before any read of the job: a plain replay's jobs are
                   cold when they go) */
    t = j->transport;
    c = j->ck;
    QSI_CK_XPORT(s, t);
    t->ck_limits -= c->limit;
    t->ck_core -= c->count;
    t->ck_njobs -= c->listed;
    if (c->epoch == s->ck_epoch)
        CK_FORGET(&s->ck_jobs, j, qs_job, ->ck->index);
    j->ck = NULL;
    qsi_pool_put(&s->ck_job_pool, c);
}

/* A departing queue returns its in-flight and ready shares; a dead queue
 * must hold nothing pending (S-INV-3), so these are normally zero, and a
 * nonzero share surfaces as a transport mismatch. */
void qsi_ck_queue_gone(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    if (!s->ck_on)
        return;
    t->ck_busy -= q->ck_busy;
    t->ck_ready -= q->ck_ready;
    t->ck_over -= q->ck_over;
    s->ck_busy -= q->ck_busy;
    QSI_CK_XPORT(s, t);
    if (q->ck_epoch == s->ck_epoch)
        CK_FORGET(&s->ck_queues, q, qs_queue, ->ck_index);
}

/* An entry's share out of the counts it was last counted in: its queue's
 * list, its peer, its job's recipients; the owners are noted, so that the
 * next check compares them with their counters. */
/* Uses its record's copies of where the entry was counted, not its
 * current fields: the entry may have moved (todo to busy, another peer)
 * since. */
static void ck_entry_uncount(qs_sched *s, qs_entry_ck *c)
{
    if (c->state == 1) {
        c->queue->ck_todo_n--;
        c->peer->ck_todo--;
    } else {
        c->queue->ck_busy_n--;
    }
    c->peer->ck_refs--;
    job_ck(s, c->peer->job)->rc -= c->nrcpt;
    QSI_CK_QUEUE(s, c->queue);
    QSI_CK_MSG(s, c->peer->job->message);
}

/* Its record goes back to the pool with it. */
void qsi_ck_entry_gone(qs_sched *s, qs_entry *e)
{
    qs_entry_ck *c;
    if (!s->ck_on)
        return;
    c = e->ck;
    if (c->queue)
        ck_entry_uncount(s, c);
    if (c->epoch == s->ck_epoch)
        CK_FORGET(&s->ck_entries, e, qs_entry, ->ck->index);
    e->ck = NULL;
    qsi_pool_put(&s->ck_entry_pool, c);
}

/* A touched entry: check_queue's tests for this entry (it is linked where
 * its state says, its neighbours point back, a busy one is the one its
 * handle finds), and its count moved to the list it is on now.  (That it
 * is on the todo list rather than the busy list is read from its handle;
 * the counts then agree with the queue's only if every move was noted.) */
/* Protects S-INV-3 (an entry is on exactly the list its state names and
 * the list counts match) and feeds S-INV-4 (the job record's rc: the
 * job's recipients as its entries hold them) and S-INV-1 via
 * check_message. */
static int ck_entry(qs_sched *s, qs_entry *e, char *err, size_t errlen)
{
    qs_queue *q = e->queue;
    qs_transport *t = q->transport;
    int state = e->handle ? 2 : 1;
    qs_entry_ck *c;
    if (state == 1) {
        /* S-INV-3 for a todo entry: a sane batch size (at most the
         * destination recipient limit, S-PRE-1), doubly linked on todo */
        CHECK(e->nrcpt >= 1 && (t->dest_rcpt_limit == 0 ||
                                e->nrcpt <= t->dest_rcpt_limit),
              "queue %s:%s: bad todo entry", t->name, q->name);
        CHECK((e->qprev ? e->qprev->qnext == e : q->todo_head == e) &&
              (e->qnext ? e->qnext->qprev == e : q->todo_tail == e),
              "queue %s:%s: todo entry not on the list", t->name, q->name);
    } else {
        /* a busy entry must be the one its delivery handle names, or a
         * delivery end would complete the wrong entry */
        CHECK(e->handle > 0 && qs_handles_get(&s->inflight,
                                              (uint64_t)e->handle) == e,
              "queue %s:%s: busy entry D%lld not in flight", t->name,
              q->name, (long long)e->handle);
        CHECK((e->qprev ? e->qprev->qnext == e : q->busy_head == e) &&
              (e->qnext ? e->qnext->qprev == e : q->busy_tail == e),
              "queue %s:%s: busy entry not on the list", t->name, q->name);
    }
    CHECK(e->peer && e->peer->queue == q, "queue %s:%s: entry of another "
          "queue's peer", t->name, q->name);
    CHECK(e->job == e->peer->job, "queue %s:%s: entry of another job than "
          "its peer's", t->name, q->name);
    c = entry_ck(s, e);
    if (c->queue)
        ck_entry_uncount(s, c);
    if (state == 1) {
        q->ck_todo_n++;
        e->peer->ck_todo++;
    } else {
        q->ck_busy_n++;
    }
    e->peer->ck_refs++;
    job_ck(s, e->peer->job)->rc += e->nrcpt;
    /* the count was moved (out of its old place, into the present one);
     * remember where, so the next uncount takes it from here.  Old and
     * new owners are both noted, so both get re-checked */
    c->queue = q;
    c->peer = e->peer;
    c->nrcpt = e->nrcpt;
    c->state = state;
    QSI_CK_QUEUE(s, q);
    QSI_CK_MSG(s, e->peer->job->message);
    return 0;
}

/* A touched queue: its counters against the entries counted in it, and
 * the tests on its own fields. */
/* Protects S-INV-3 (counts against lists) and, through the shared
 * qsi_check_queue_fields, S-INV-6 (window within [1, limit]) and the
 * ready flag.  Then moves the queue's share into the transport's and
 * scheduler's in-flight sums and the transport's ready count. */
static int ck_queue(qs_sched *s, qs_queue *q, char *err, size_t errlen)
{
    qs_transport *t = q->transport;
    int64_t busy = q->ck_busy_n;
    CHECK(q->todo == q->ck_todo_n && q->busy == q->ck_busy_n,
          "queue %s:%s: todo/busy counts %lld/%lld, entries hold %lld/%lld",
          t->name, q->name, (long long)q->todo, (long long)q->busy,
          (long long)q->ck_todo_n, (long long)q->ck_busy_n);
    if (qsi_check_queue_fields(s, t, q, err, errlen) < 0)
        return -1;
    t->ck_busy += busy - q->ck_busy;
    s->ck_busy += busy - q->ck_busy;
    q->ck_busy = busy;
    t->ck_ready += q->ready - q->ck_ready;
    q->ck_ready = q->ready;
    t->ck_over += q->over - q->ck_over;
    q->ck_over = q->over;
    return 0;
}

/* Protects S-INV-1 (recipient conservation) and S-INV-4 (job accounting)
 * through check.c's qsi_check_message, which recomputes the message's own
 * counters from its jobs, peers and entries; then moves its shares of the
 * in-core sum (S-INV-8) and the active count (S-INV-7). */
static int ck_message(qs_sched *s, qs_message *m, char *err, size_t errlen)
{
    qs_job *j;
    int64_t in_core = 0;
    if (!m->active)
        return 0; /* waiting: no jobs, no recipients in core yet */
    if (qsi_check_message(s, m, &in_core, 1, err, errlen) < 0)
        return -1;
    s->ck_in_core += in_core - m->ck_rcpt;
    m->ck_rcpt = in_core;
    s->ck_active += 1 - m->ck_active;
    m->ck_active = 1;
    /* the shares of its jobs in their transports' slot and in-core sums
     * (S-INV-5): the counters check_message has just recomputed */
    for (j = m->jobs; j; j = j->mnext) {
        qs_transport *t = j->transport;
        qs_job_ck *c = job_ck(s, j);
        t->ck_limits += j->rcpt_limit - c->limit;
        c->limit = j->rcpt_limit;
        t->ck_core += j->rcpt_count - c->count;
        c->count = j->rcpt_count;
        QSI_CK_XPORT(s, t);
    }
    return 0;
}

/* check_job_lists' tests for one job, and its share of the listed jobs. */
/* Protects S-INV-2 locally: if every job's links point back and each is
 * in order with its neighbours, the whole lists are consistent and
 * sorted.  That is why a job's neighbours are noted when it is linked or
 * unlinked: their links changed too. */
static int ck_job(qs_sched *s, qs_job *j, char *err, size_t errlen)
{
    qs_transport *t = j->transport;
    int listed = j->stack_level >= 0;
    qs_job_ck *c = job_ck(s, j);
    t->ck_njobs += listed - c->listed;
    c->listed = listed;
        /* a retired job (S-PRE-2) must be reachable from nowhere, or the
         * scheduler could select from a job that is about to be freed */
    if (!listed) {
        CHECK(!j->lprev && !j->lnext && !j->tprev && !j->tnext &&
              t->jhead != j && t->thead != j && t->job_current != j &&
              t->job_walk != j && !j->parent && !j->child_head,
              "transport %s: retired job %s still linked", t->name,
              j->message->id);
        return 0;
    }
    CHECK(j->lprev ? j->lprev->lnext == j : t->jhead == j,
          "transport %s: broken scheduler list at %s", t->name,
          j->message->id);
    CHECK(j->lnext ? j->lnext->lprev == j : t->jtail == j,
          "transport %s: broken scheduler list at %s", t->name,
          j->message->id);
    CHECK(j->tprev ? j->tprev->tnext == j : t->thead == j,
          "transport %s: broken by-time list at %s", t->name,
          j->message->id);
    CHECK(j->tnext ? j->tnext->tprev == j : t->ttail == j,
          "transport %s: broken by-time list at %s", t->name,
          j->message->id);
    CHECK((!j->tprev || j->tprev->stack_level >= 0) &&
          (!j->tnext || j->tnext->stack_level >= 0),
          "transport %s: retired job next to %s on the by-time list",
          t->name, j->message->id);
    /* S-PRE-13 / S-INV-2: by-time order, checked pairwise with the
     * neighbours; local order everywhere is global order */
    CHECK((!j->tprev ||
           j->tprev->message->queued_time <= j->message->queued_time) &&
          (!j->tnext ||
           j->message->queued_time <= j->tnext->message->queued_time),
          "transport %s: by-time list out of order at %s", t->name,
          j->message->id);
    /* S-INV-2: with no job misplaced the lists are one sequence
     * (job_place.c): locally, the same neighbours on both */
    CHECK(t->jobs_misplaced > 0 ||
          (j->lprev == j->tprev && j->lnext == j->tnext),
          "transport %s: no job misplaced, yet %s has other neighbours on "
          "the by-time list", t->name, j->message->id);
    /* S-PRE-8..10: stack level, parent and children (check.c) */
    return qsi_check_job_stack(t, j, err, errlen);
}

/* The transport's counters against the sums of its touched-and-untouched
 * objects' shares: in flight (and the process limit, S-PRE-14), ready
 * queues (S-INV-3), S-INV-5's pool conservation and its lower bound, in
 * core (S-INV-8's per-transport term), listed jobs and list ends
 * (S-INV-2).  All O(1): the sums are kept, not recomputed. */
static int ck_transport(qs_transport *t, char *err, size_t errlen)
{
    CHECK(t->ck_busy == t->in_flight, "transport %s: in flight %lld, "
          "queues hold %lld", t->name, (long long)t->in_flight,
          (long long)t->ck_busy);
    CHECK(t->in_flight <= t->process_limit, "transport %s: %lld in flight "
          "over the process limit %d", t->name, (long long)t->in_flight,
          t->process_limit);
    CHECK(t->ck_ready == t->ready_queues, "transport %s: ready count",
          t->name);
    CHECK(t->ck_over == t->over_queues, "transport %s: over count",
          t->name);
    CHECK(t->ck_limits + t->rcpt_unused == t->rcpt_limit,
          "transport %s: job slots %lld + pool %lld != recipient limit %lld",
          t->name, (long long)t->ck_limits, (long long)t->rcpt_unused,
          (long long)t->rcpt_limit);
    CHECK(t->rcpt_unused >= -t->extra_rcpt_limit,
          "transport %s: pool %lld below -extra %lld", t->name,
          (long long)t->rcpt_unused, (long long)t->extra_rcpt_limit);
    CHECK(t->ck_core == t->in_core, "transport %s: in core %lld, jobs hold "
          "%lld", t->name, (long long)t->in_core, (long long)t->ck_core);
    CHECK(t->ck_njobs == t->njobs, "transport %s: %lld jobs listed, %lld "
          "counted", t->name, (long long)t->ck_njobs, (long long)t->njobs);
    /* (the count itself: check.c, which walks the list) */
    CHECK(t->jobs_misplaced >= 0 && t->jobs_misplaced <= t->njobs,
          "transport %s: %lld jobs misplaced of %lld", t->name,
          (long long)t->jobs_misplaced, (long long)t->njobs);
    CHECK(!t->jhead == !t->jtail && !t->thead == !t->ttail &&
          !t->jhead == !t->thead &&
          (!t->jhead || (!t->jhead->lprev && !t->jtail->lnext &&
                         !t->thead->tprev && !t->ttail->tnext)),
          "transport %s: broken list ends", t->name);
    CHECK(!t->job_current || (t->job_current->stack_level >= 0 &&
                              t->job_current->transport == t),
          "transport %s: current job not on the job list", t->name);
    /* S-PRE-2, the local part of check_job_lists' walk test: where
     * selection starts is on the list, and the job just before it (every
     * job, if it starts nowhere: the last one) is a blocker.  Every change
     * of job_walk or of a blocker tag notes the transport. */
    CHECK(!t->job_walk || (t->job_walk->stack_level >= 0 &&
                           t->job_walk->transport == t),
          "transport %s: selection starts at a job not on the job list",
          t->name);
    CHECK(t->job_walk ? !t->job_walk->lprev ||
                            qsi_is_blocker(t->job_walk->lprev)
                      : !t->jtail || qsi_is_blocker(t->jtail),
          "transport %s: job before where selection starts is not a "
          "blocker", t->name);
    return 0;
}

/* Scheduler-wide: S-INV-7 (active count and limit, and messages wait only
 * while the active queue is full), in-core and in-flight totals, and the
 * S-INV-8 bound.  Run on every call: it is O(1) and every event can move
 * these counters. */
static int ck_global(const qs_sched *s, char *err, size_t errlen)
{
    CHECK(s->ck_active == s->active_count &&
          s->active_count <= s->active_limit,
          "active queue holds %lld messages (count %lld, limit %lld)",
          (long long)s->ck_active, (long long)s->active_count,
          (long long)s->active_limit);
    CHECK(s->incoming_head == NULL || s->active_count == s->active_limit,
          "messages wait while the active queue has room");
    CHECK(s->ck_in_core == s->in_core, "in-core recipients %lld, counted "
          "%lld", (long long)s->in_core, (long long)s->ck_in_core);
    CHECK(s->ck_busy == (int64_t)qs_handles_count(&s->inflight),
          "deliveries in flight %lld, queues hold %lld",
          (long long)qs_handles_count(&s->inflight), (long long)s->ck_busy);
    CHECK(s->in_core <= qs_bound_holding(s), "%lld recipients in core "
          "exceed the bound %lld (S-INV-8)", (long long)s->in_core,
          (long long)qs_bound_holding(s));
    return 0;
}

/* The first call: everything, and every share taken. */
/* The base case of the argument above: the full check establishes every
 * invariant, then every object's share is taken from the structures.
 * Entries come before queues and messages, so their counts are in place
 * when those are checked. */
static int ck_start(qs_sched *s, char *err, size_t errlen)
{
    qs_transport *t;
    qs_message *m;
    if (qs_check_invariants(s, err, errlen) < 0)
        return -1;
    /* from here the *_gone functions keep the sums; taking the shares
     * below notes every object, so the sets are emptied afterwards and
     * transports are checked against complete sums */
    s->ck_on = 1;
    s->ck_epoch = 1;
    for (t = s->xhead; t; t = t->next) {
        qs_queue *q;
        qs_job *j;
        for (q = t->qhead; q; q = q->next) {
            qs_entry *e;
            for (e = q->todo_head; e; e = e->qnext)
                if (ck_entry(s, e, err, errlen) < 0)
                    return -1;
            for (e = q->busy_head; e; e = e->qnext)
                if (ck_entry(s, e, err, errlen) < 0)
                    return -1;
            if (ck_queue(s, q, err, errlen) < 0)
                return -1;
        }
        for (j = t->jhead; j; j = j->lnext)
            if (ck_job(s, j, err, errlen) < 0)
                return -1;
    }
    for (m = s->active_head; m; m = m->next)
        if (ck_message(s, m, err, errlen) < 0)
            return -1;
    s->ck_msgs.n = s->ck_jobs.n = s->ck_queues.n = s->ck_xports.n = 0;
    s->ck_entries.n = 0;
    s->ck_epoch++;
    for (t = s->xhead; t; t = t->next)
        if (ck_transport(t, err, errlen) < 0)
            return -1;
    return ck_global(s, err, errlen);
}

/* The order matters: entries move counts into queues and messages and
 * note them; messages and jobs move shares into transports; so each kind
 * is checked after everything that feeds its sums.  The sets are emptied
 * even on failure: the caller stops at the first report anyway. */
int qs_check_changes(qs_sched *s, char *err, size_t errlen)
{
    size_t i;
    int rc = 0;
    if (!s->ck_on)
        return ck_start(s, err, errlen);
    for (i = 0; rc == 0 && i < s->ck_entries.n; i++)
        rc = ck_entry(s, s->ck_entries.v[i], err, errlen);
    for (i = 0; rc == 0 && i < s->ck_queues.n; i++)
        rc = ck_queue(s, s->ck_queues.v[i], err, errlen);
    for (i = 0; rc == 0 && i < s->ck_msgs.n; i++)
        rc = ck_message(s, s->ck_msgs.v[i], err, errlen);
    for (i = 0; rc == 0 && i < s->ck_jobs.n; i++)
        rc = ck_job(s, s->ck_jobs.v[i], err, errlen);
    for (i = 0; rc == 0 && i < s->ck_xports.n; i++)
        rc = ck_transport(s->ck_xports.v[i], err, errlen);
    if (rc == 0)
        rc = ck_global(s, err, errlen);
    s->ck_msgs.n = s->ck_jobs.n = s->ck_queues.n = s->ck_xports.n = 0;
    s->ck_entries.n = 0;
    s->ck_epoch++;
    return rc;
}
