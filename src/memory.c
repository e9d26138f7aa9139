/*
 * memory.c - the memory limits: how many messages and how many recipients
 * the scheduler holds in core, and how the recipient budget is shared.
 *
 * Implements SCHEDULER_README, "Dealing with memory resource limits": the
 * active-queue limit, the first batch and later batches of recipients,
 * the per-transport recipient pools and how they pass along the job list,
 * refills when all in-core recipients are dealt with, and the documented
 * upper bounds.  Rules S-MEM-2 .. S-MEM-5, S-MEM-7 (the part at the end of
 * an event), S-MEM-9 and the bound that holds, S-INV-8 (spec/memory.md).
 * The extra pool (S-MEM-6) is granted in preempt.c, the reading itself is
 * in assign.c, the room-based refills in select.c.
 *
 * Owns: rcpt_limit of jobs and messages, rcpt_unused of transports (the
 * pools), the first-unread-job pointer, the active and incoming message
 * lists, and the end-of-event message checks.  May not: read recipients
 * itself (assign.c) or select entries (select.c).
 *
 * Tested by: tests/golden/mem-* (the document's worked example among
 * them), tests/conformance/hand/mem-*, tests/unit/test_memory.c,
 * tests/sh/memory-*.sh; the invariant checker asserts the pool and
 * limit identities after every event (check.c, S-INV-5, S-INV-8).
 *
 * The problem.  A message may have hundreds of thousands of recipients
 * and the active queue many messages, so not everything can be read at
 * once.  Two limits bound memory: qmgr_message_active_limit messages, and
 * a recipient budget.  A per-message recipient cap would be simple but
 * poor (small batches, many re-reads of the queue file, poor estimates for
 * preemption), so the budget is a pool of recipient slots per transport,
 * shared among that transport's jobs: transports do not compete, and
 * within a transport the slots go where the scheduler works, the head of
 * the job list.
 *
 * How the slots move (S-MEM-5), in the document's terms:
 *   - a job linked on the list takes whatever the pool holds;
 *   - it keeps its slots until its message is fully read, then passes what
 *     it does not use to the next job on the by-time list that still has
 *     unread recipients (or back to the pool), and again each time one of
 *     its entries is delivered;
 *   - a job linked in front of the first unread job makes that job return
 *     its spare slots first.
 * The result: the first unread job holds the rest of the pool; jobs before
 * it are fully read and hold no more than they have in core; jobs after it
 * hold nothing (unless they received slots before a job was linked in
 * front of them).  The scheduler therefore has exact counts (or the best
 * estimates) for the jobs near the head, where it preempts.
 *
 * A message's limit is qmgr_message_recipient_minimum plus the slots of
 * all its jobs, and a batch reads up to limit - in core: the jobs lend
 * their slots to the message as a whole, and one job may "sponsor"
 * another's recipients (the batch cannot know which transport its next
 * recipients use until they are read).
 *
 * The document's own example: a message with three jobs holding 1, 5 and
 * 2 recipients in core and 4, 5 and 0 slots has 8 recipients in core and
 * a limit of minimum + 9, so its next batch may read minimum + 1 (see
 * qsi_message_realloc for the document's "2").  If those recipients all
 * go to the second job, the first job has sponsored the second, and the
 * third job, with 2 recipients and no slots, was paid for by its first
 * batch or by the message's minimum.  Sponsoring is why a job's slots and
 * its recipients in core need not match, and why every slot return takes
 * the smaller of the job's and the message's spare (qs_pool_unused).
 *
 * Why the extra pool exists (S-MEM-6, granted in preempt.c): the first
 * unread job holds the normal pool, so a job that preempts it while
 * itself still unread would find the pool empty and read only the
 * minimum at a time; each such preemption takes half of what is left of
 * a second, smaller pool instead.
 */
#include "sched_int.h"
#include "kernels.h"
/* With QS_CONTRACT_CHECKS (the test, fuzz and model-checker builds)
 * every call of a contracted helper checks its contract: memory_rtc.h,
 * generated from the ACSL by proofs/rtc/gen.py, defines NAME(...) as
 * "check the requires, call, check the ensures".  The helpers are
 * defined as `static T (NAME)(...)`: a name in parentheses is not a
 * macro call, so the definition stays the function itself.  Other
 * builds see no difference. */
#ifdef QS_CONTRACT_CHECKS
#include "memory_rtc.h"
#endif

/* S-MEM-5: the slot arithmetic of giving back: the job returns what
 * neither it nor its message uses, min(limit - count) of the two, to the
 * transport's pool; a positive pool then goes whole to `next`, the first
 * job with unread recipients (when there is one).  Returns what the job
 * gave.  Slots are conserved: job limits + pool unchanged (S-INV-5). */
/*@
  requires valid:   \valid(job) && \valid(m) && \valid(t) &&
                    \separated(job, m, t);
  requires next:    next == \null ||
                    (\valid(next) && \valid(nm) && \separated(next, nm, job, m, t));
  requires counts:  qs_count(job->rcpt_limit) && qs_count(job->rcpt_count) &&
                    qs_count(m->rcpt_limit) && qs_count(m->rcpt_count) &&
                    qs_count(t->rcpt_unused);
  requires next_counts: next != \null ==>
                    qs_count(next->rcpt_limit) && qs_count(nm->rcpt_limit);
  assigns job->rcpt_limit, m->rcpt_limit, t->rcpt_unused,
          next->rcpt_limit, nm->rcpt_limit;
  ensures gave:     \result == qs_unused(\old(job->rcpt_limit), job->rcpt_count,
                                          \old(m->rcpt_limit), m->rcpt_count);
  ensures job:      \result > 0 ==>
                      job->rcpt_limit == \old(job->rcpt_limit) - \result &&
                      m->rcpt_limit == \old(m->rcpt_limit) - \result;
  ensures keeps:    job->rcpt_limit >= job->rcpt_count ||
                    job->rcpt_limit == \old(job->rcpt_limit);
  ensures conserved: next != \null ==>
                      job->rcpt_limit + next->rcpt_limit + t->rcpt_unused ==
                      \old(job->rcpt_limit + next->rcpt_limit + t->rcpt_unused);
  ensures conserved_pool: next == \null ==>
                      job->rcpt_limit + t->rcpt_unused ==
                      \old(job->rcpt_limit + t->rcpt_unused);
  ensures next_takes: next != \null && \result > 0 ==>
                      (t->rcpt_unused == 0 || t->rcpt_unused == \old(t->rcpt_unused) + \result) &&
                      next->rcpt_limit >= \old(next->rcpt_limit) &&
                      nm->rcpt_limit - \old(nm->rcpt_limit) ==
                        next->rcpt_limit - \old(next->rcpt_limit);
  ensures nothing:  \result <= 0 ==>
                      t->rcpt_unused == \old(t->rcpt_unused) &&
                      m->rcpt_limit == \old(m->rcpt_limit);
*/
static int64_t (job_give_back)(qs_job *job, qs_message *m, qs_transport *t,
                               qs_job *next, qs_message *nm)
{
    int64_t unused = qs_pool_unused(job->rcpt_limit, job->rcpt_count,
                                    m->rcpt_limit, m->rcpt_count);
    if (unused > 0) {
        job->rcpt_limit -= unused;
        m->rcpt_limit -= unused;
        t->rcpt_unused += unused;
        if (next && t->rcpt_unused > 0) {
            next->rcpt_limit += t->rcpt_unused;
            nm->rcpt_limit += t->rcpt_unused;
            t->rcpt_unused = 0;
        }
    }
    return unused;
}

/* S-MEM-5: give the job's unused recipient slots to the first job on the
 * by-time list that still has unread recipients, or to the pool.
 *
 *     if job is the first unread job: advance that pointer to the next
 *         job on the by-time list whose message has unread recipients
 *     unused = min(limit(job) - count(job), limit(msg) - count(msg))
 *     if unused > 0:
 *         limit(job) -= unused; limit(msg) -= unused; pool += unused
 *         if a first unread job exists and pool > 0: it takes the pool
 *
 * The min: a job must not give away slots its message is using for
 * another job's recipients (sponsoring), or the message would hold more
 * recipients than its limit says.  The move is traced (`slots`) at the
 * explain level. */
static void job_move_limits(qs_sched *s, qs_job *job);

void qsi_job_move_limits(qs_sched *s, qs_job *job)
{
    const qs_message *m = job->message;
    /* Nothing to give back, nothing to advance: qs_pool_unused's result
     * is at most each of the two spares (its proved job_bound and
     * msg_bound), so with either spare at 0 or below no slot moves; and
     * the first-unread pointer moves only past this job.  (issue 16:
     * about half of the calls, from the sister jobs' returns of every
     * `done`, S-MEM-5.  The move is a function of its own, so that the
     * calls that end here do not pay for its frame.) */
    if (job != job->transport->job_next_unread &&
        (job->rcpt_limit <= job->rcpt_count || m->rcpt_limit <= m->rcpt_count))
        return;
    job_move_limits(s, job);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void job_move_limits(qs_sched *s, qs_job *job)
{
    qs_transport *t = job->transport;
    qs_message *m = job->message;
    qs_job *next = t->job_next_unread;
    int64_t unused, pool_before;
    int was_spare, next_was_spare;

    QSI_CK_MSG(s, m);
    QSI_CK_XPORT(s, t);
    /* Advance the cached first-unread pointer past this job (amortised
     * O(1) per job: the by-time list never reorders). */
    if (job == next) {
        for (next = next->tnext; next; next = next->tnext)
            if (QS_UNREAD(next->message))
                break;
        t->job_next_unread = next;
    }
    pool_before = t->rcpt_unused;
    was_spare = qsi_job_spare(job);
    next_was_spare = next ? qsi_job_spare(next) : 0;
    unused = job_give_back(job, m, t, next, next ? next->message : NULL);
    if (unused > 0) { /* (else no limit moved: the proved `nothing`) */
        qsi_spare_after(job, was_spare);
        if (next)
            qsi_spare_after(next, next_was_spare);
    }
    if (s->bix_on_count > 0) { /* QSI_BIX_MESSAGE, both messages */
        qsi_bix_message(m);
        if (next)
            qsi_bix_message(next->message);
    }
    /* the first unread job took the pool: its message's limit moved */
    if (unused > 0 && next && pool_before + unused > 0)
        QSI_CK_MSG(s, next->message);
    if (unused > 0) {
        if (QSI_EXPLAIN(s)) { /* `rcptpool` is of the explain level */
            qs_trace r;
            qsi_trace_start(&r, QS_T_RCPTPOOL);
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
 * message is fully read.
 * The document speaks only of the job's own transfer "whenever a
 * recipient entry of that job is delivered"; the returns of the sister
 * jobs are Postfix's.  They matter because sponsoring crosses transports:
 * the recipients that finished may have been read on another job's slots,
 * and those slots must go back to the transport they came from, or that
 * transport's pool would shrink for good.  Before the message is fully
 * read, only retired jobs return (a job still on the list keeps its slots
 * for the message's next batch). */
void qsi_message_return_slots(qs_sched *s, qs_message *m, qs_job *job)
{
    qs_job *sponsor;
    /* A sister gives back only if it has slots to spare.  When the count
     * of such jobs is the finishing job's own (0 or 1), the walk would
     * pass every sister by: it is not taken (qsi_job_spare). */
    if (m->jobs_spare > qsi_job_spare(job)) {
        for (sponsor = m->jobs; sponsor; sponsor = sponsor->mnext) {
            if (sponsor == job || !qsi_job_spare(sponsor))
                continue;
            if (sponsor->stack_level < 0 || !QS_UNREAD(m))
                qsi_job_move_limits(s, sponsor);
        }
    }
    if (!QS_UNREAD(m))
        qsi_job_move_limits(s, job);
}

static int message_finish(qs_sched *s, qs_message *m);

/* Queue m for the end-of-event check (qsi_run_checks).  Checks are
 * deferred rather than done on the spot because a check may free the
 * message and its jobs, and the code that changed the counts (a selection
 * walk, a deferral loop) may still hold pointers to them.  (The postfix
 * profile checks on the spot where Postfix does: S-PFX-18 below; the
 * callers there hold no pointer into the message.) */
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
 * plus qmgr_message_recipient_minimum (already in m->rcpt_limit).
 *     n = min(unread, limit(msg) - count(msg)), read only if n > 0
 * The document's worked example (jobs with 1, 5, 2 recipients in core and
 * 4, 5, 0 slots) says "2 + minimum" more may be read; by this formula, and
 * by Postfix's code, it is (min + 9) - 8 = 1 + minimum: the 2 is a slip of
 * the document (spec/memory.md; tests/golden/mem-worked-example). */
void qsi_message_realloc(qs_sched *s, qs_message *m)
{
    int64_t limit = m->rcpt_limit - m->rcpt_count;
    /* S-PFX-12: Postfix reads at most 5000 recipients at a time (a fixed
     * cap of its queue-file reader; the document has none). */
    if (qsi_postfix(s) && limit > 5000)
        limit = 5000;
    if (limit > 0)
        qsi_message_read(s, m, limit);
}

/* A message whose in-core recipients are all dealt with reads more, or
 * leaves the active queue (S-MEM-2, S-MEM-7).
 *
 *     while nothing in core and some unread: read a batch
 *     nothing in core and nothing unread:
 *         free its jobs, leave the active queue (`leave`)
 *
 * The loop is needed because a whole batch can be deferred as it is read
 * (every recipient for a dead destination), leaving the count at 0 again.
 * The document: reading happens "any time when all in-core recipients of
 * the message are dealt with (which may also mean they were deferred) but
 * there are still more in the queue file".  Returns 1 if m left (and was
 * freed); the waiting messages are let in by the caller. */
static int message_finish(qs_sched *s, qs_message *m)
{
    qs_trace r;
    /* S-MEM-7: all in-core recipients dealt with, more unread: read.
     * (m is still marked check_pending, so the reads do not queue it.) */
    while (m->rcpt_count == 0 && QS_UNREAD(m))
        qsi_message_realloc(s, m);
    if (m->rcpt_count > 0 || QS_UNREAD(m))
        return 0;
    /* Done with the message.  Its jobs go first, so that each gives its
     * slots back and leaves its stack (refunding its parent) while the
     * message is still there for them to refer to. */
    while (m->jobs) {
        qs_job *j = m->jobs;
        m->jobs = j->mnext;
        /* The next job is cold (its last recipient left long ago): asked
         * for while this one is freed (issue 16: the first read of each
         * job freed here was 5% of the transports shape's time). */
        QSI_PREFETCH_W(m->jobs);
        qsi_job_free(s, j);
    }
    qs_map_del_value(&s->messages, m->id_hash, m); /* (no id compared) */
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
    if (QSI_EXPLAIN(s)) { /* `leave` is of the explain level */
        qsi_trace_start(&r, QS_T_LEAVE);
        r.msg = m->id;
        r.a = m->delivered;
        r.b = m->deferred;
        qsi_emit(s, &r);
    }
    qsi_ck_message_gone(s, m);
    qsi_message_free(s, m);
    return 1;
}

/* S-MEM-2: the room a message leaves lets waiting messages in, oldest
 * first.  (The document's "incoming having priority" over the deferred
 * queue has nothing to compete with: qsched has no deferred queue.) */
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

/* The end of every arrive, select and done: check each message whose
 * counts changed during the event.  A message that stays may be queued
 * again by a later event. */
void qsi_run_checks(qs_sched *s)
{
    while (s->check_head) {
        qs_message *m = s->check_head;
        s->check_head = m->check_next;
        m->check_next = NULL;
        /* A message that left is freed; one that stays is unmarked so that
         * the next event that changes it queues it again. */
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
 * qmgr_message_recipient_limit recipients are in core.
 *
 *     enqueue time = now; append to the active list (`activate`)
 *     limit(msg) = minimum
 *     n = max(minimum, recipient_limit - recipients in core, all messages)
 *     read min(n, unread)
 *
 * A chicken-and-egg problem, as the document puts it: the per-transport
 * pools cannot pay for the first batch, since which transports the
 * message uses is known only after reading some recipients.  So the first
 * batch is paid from the message's own minimum ("no matter what": at
 * least one recipient is needed to create a job) and, while few
 * recipients are in core overall, from the global
 * qmgr_message_recipient_limit, so that light traffic is read whole.
 * The enqueue time set here orders the job lists and ages candidates. */
void qsi_message_activate(qs_sched *s, qs_message *m)
{
    int64_t limit;
    qs_trace r;
    QSI_CK_MSG(s, m);
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
    if (QSI_EXPLAIN(s)) { /* `activate` is of the explain level */
        qsi_trace_start(&r, QS_T_ACTIVATE);
        r.msg = m->id;
        qsi_emit(s, &r);
    }
    m->rcpt_limit = s->msg_rcpt_minimum;
    limit = s->msg_rcpt_limit - s->in_core;
    if (limit < m->rcpt_limit)
        limit = m->rcpt_limit;
    if (qsi_postfix(s) && limit > 5000)
        limit = 5000;
    qsi_message_read(s, m, limit);
}

/*
 * S-MEM-9: the document's upper bounds on recipients in core.
 *     per transport: max(minimum x active_limit + R + X, recipient_limit)
 *     total:         max(minimum x active_limit + sum(R + X),
 *                        recipient_limit)
 * R, X: the transport's recipient_limit and extra_recipient_limit.  The
 * reasoning behind them: each active message may hold its minimum, the
 * pools hold at most R + X, and the first batches are covered by the
 * global limit.  They are printed by --stats, not asserted: valid streams
 * exceed them (a first batch of the minimum comes on top of a full global
 * limit, and sponsoring moves slots across transports; spec/memory.md
 * gives both streams).  qs_bound_holding is the bound that does hold.
 */
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

/* S-INV-8: recipient_limit + minimum x (messages active now) + the sum
 * of every pool with its extra pool.  The global limit and the minimums
 * are added, not maxed, since both kinds of first batch can be in core at
 * once.  The invariant checker asserts this after every event. */
int64_t qs_bound_holding(const qs_sched *s)
{
    const qs_transport *t;
    int64_t a = s->msg_rcpt_limit + s->msg_rcpt_minimum * s->active_count;
    for (t = s->xhead; t; t = t->next)
        a += t->rcpt_limit + t->extra_rcpt_limit;
    return a;
}
