/*
 * sched.c - the scheduler object that the concept files hang from: its
 * creation and destruction, its clock, its transports, its read-only
 * accessors, and the few helpers every core file shares.
 *
 * Implements no section of SCHEDULER_README by itself.  What it holds is
 * what the document takes for granted: "each transport structure groups
 * everything what is going to be delivered by delivery agents dedicated
 * for that transport", with its parameters resolved from main.cf names
 * (S-EV-2, S-EV-3, and the postfix profile's adjustments S-PFX-7,
 * S-PFX-9), the profile check of the parameters (S-EV-5), and the passage
 * of time that revives dead destinations (S-EV-6, S-CON-10).
 *
 * Owns: qs_sched_new, qs_sched_free, qs_advance, the transports (creation,
 * look-up, resolved parameters, the round-robin list), the statistics and
 * in-flight accessors of qsched.h, and the qsi_ helpers below.  May not:
 * take scheduling decisions (they live in the concept files) or do I/O.
 *
 * Map of the core, in the order of the document:
 *   concurrency.c  "Concurrency scheduling": windows, feedback, dead
 *                  destinations (S-CON-*)
 *   assign.c       "What happens when nqmgr picks up the message"
 *   jobs.c         "The structures used by nqmgr", the job lists
 *   select.c       "How the entry selection works", blockers
 *   preempt.c      "How the preemption works", the preemption stack
 *   memory.c       "Dealing with memory resource limits"
 *   messages.c     the arrive and done events that drive all of the above
 *   kernels.c      the arithmetic of every rule, proved (proofs/)
 *   params.c, param_syntax.c, param_table.c, map.c, alloc.c, check.c:
 *   parameters, look-ups, allocation and pools, invariants
 * docs/architecture.md draws the same map with the path of one event.
 * A learner may read them in this order: concurrency.c (self-contained,
 * the first half of the document), then jobs.c and assign.c (the
 * structures and how a message fills them), select.c (entry selection),
 * preempt.c (preemption), memory.c (the limits that complicate both),
 * messages.c (the events that drive it all), and kernels.c whenever a
 * function there is called.
 *
 * The four events through the core (events.c turns each line of a stream
 * into one of these calls):
 *   at T       qs_advance (here): time moves; expired backoffs revive
 *              queues (concurrency.c), which may release blockers.
 *   arrive     qs_arrive (messages.c): the message waits, or is activated
 *              (memory.c), which reads its first batch (assign.c), which
 *              creates transports (here), queues (concurrency.c), jobs,
 *              peers and entries (jobs.c).
 *   select     qs_select (select.c): round robin over transports, a
 *              preemption attempt (preempt.c), the walk along the job
 *              list with refills (memory.c, assign.c), one entry handed
 *              out.
 *   done Dn    qs_done (messages.c): feedback (concurrency.c), slot
 *              returns (memory.c), blocker release (select.c).
 * Each of arrive, select and done ends with the message checks of
 * memory.c, which read more recipients or let messages leave.
 *
 * The document's words and qsched's names:
 *   concurrency (of a destination)     qs_queue.window
 *   busy_refcount, "concurrency" in    qs_queue.busy (deliveries in
 *     the selection pseudocode           flight there)
 *   success, failure, fail_cohorts     the same names in qs_queue
 *   todo list, busy list               qs_queue.todo_head, busy_head
 *   "dead" destination                 qs_queue.dead, revive_at
 *   recipient entry, peer, job         qs_entry, qs_peer, qs_job
 *   the scheduler's job list           lprev/lnext, jhead/jtail
 *   the job list by enqueue time       tprev/tnext, thead/ttail
 *   current job                        qs_transport.job_current
 *   available delivery slot counter    qs_job.slots_available
 *   blocker job                        blocker_tag equal to the
 *                                        transport's (QS_IS_BLOCKER)
 *   preemption stack, parent, level    qs_job.parent, children,
 *                                        stack_level
 *   transport recipient pool           qs_transport.rcpt_unused
 *   a job's recipient slots            qs_job.rcpt_limit
 *   qmgr_recipient_count               qs_sched.in_core
 *   enqueue time                       qs_message.queued_time
 *   k (transport_delivery_slot_cost)   qs_transport.slot_cost
 *
 * Conventions the whole core keeps: no I/O (decisions leave through the
 * trace sink), no global state (everything hangs from qs_sched), and
 * determinism (lists have explicit orders; maps are only for look-ups and
 * are keyed by names and serial numbers, never by addresses).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "kernels.h"
#include "words.h"

/* ---- helpers shared by the core files (declared in sched_int.h) ---- */

/* A one-line reason for a refused call; callers may pass no buffer. */
void qsi_seterr(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

/* qsi_trace_start (sched_int.h) zeroes a record field by field: a field
 * added after the last one it knows would be left unset.  The last one
 * ends in the struct's last alignment unit (only tail padding after it:
 * a size_t of 4 bytes is followed by 4 on wasm32, where the doubles
 * align the struct to 8).  (Here, not in sched_int.h: Frama-C reads
 * that header as C99.) */
_Static_assert(offsetof(qs_trace, dest_len) + sizeof(size_t) >
                   sizeof(qs_trace) - _Alignof(qs_trace),
               "qs_trace has a field qsi_trace_start does not zero");

/* Every decision is reported through here: stamped with the virtual time
 * and handed to the embedder's sink (the CLI prints it, harnesses compare
 * it).  This is the core's only output. */
/* qsched.h: whether the explain level is built (never without a sink);
 * the previous setting. */
int qs_sched_set_explain(qs_sched *s, int wanted)
{
    int was = s->explain;
    s->explain = (wanted != 0) & (s->sink != NULL);
    return was;
}

void qsi_emit(qs_sched *s, qs_trace *r)
{
    r->time = s->now;
    if (s->sink)
        s->sink(s->ctx, r);
}


/* (qsi_calloc, qsi_strdup, qsi_map_put and the pools: alloc.c) */

/* True in the postfix profile.  Every place where the profiles differ
 * tests this, next to the S-PFX rule id that says why (spec/profiles.md):
 * grep for qsi_postfix to list them all.
 * A new difference: write it down in spec/profiles.md as the next S-PFX
 * rule (what the document says, what Postfix does, the effect), test
 * qsi_postfix at the one place where the behaviour forks, cite the id
 * there, and add a golden trace that shows both profiles. */
int (qsi_postfix)(const qs_sched *s)
{
    return s->profile == QS_PROFILE_POSTFIX;
}

/* ---- transports ---- */

/* A per-transport parameter as resolved for transport t (params.c):
 * override, else built-in default, else global value (S-EV-2, S-EV-3).
 * Only qsi_transport_obtain calls it; after that the value lives in a
 * field of qs_transport and no rule looks a parameter up by name. */
static int64_t pint(const qs_sched *s, const char *t, int id)
{
    return qs_param_int(s->params, t, id);
}

/* The transport of that name, or NULL if no recipient named it yet
 * (`select T` for such a transport is simply idle, S-EV-8). */
qs_transport *qsi_transport_find(const qs_sched *s, const char *name)
{
    qs_transport *t;
    /* A stream names few transports: then the transport list (every
     * transport, each name once) is walked, first bytes compared before
     * whole names; that costs less than hashing the name (issue 16).
     * The map answers when there are many. */
    if (s->ntransports > 8)
        return qs_map_get(&s->transports, name, 0);
    for (t = s->xhead; t; t = t->next)
        if (t->name[0] == name[0] && strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* Transport names are short (smtp, relay, local: S-EV-3's examples), and
 * a name of under 8 bytes is its word of 8 bytes: its bytes, then NULs.
 * Two such words are equal exactly when the names are (a name has no
 * NUL inside it, so a shorter name's word has a NUL where a longer one's
 * has a byte).  Issue 16: the first read of every group found its
 * transport by strcmp, about 55 instructions a group with the call; the
 * word costs a load, a mask and one comparison per transport. */
qs_transport *qsi_transport_find_len(const qs_sched *s, const char *name,
                                     size_t len)
{
    qs_transport *t;
    uint64_t w;
    if (len >= 8 || s->ntransports > 8)
        return qsi_transport_find(s, name);
    w = word_first_bytes(name, len);
    for (t = s->xhead; t; t = t->next)
        if (t->name_word == w)
            return t;
    return NULL;
}

/* S-EV-2: parameters resolve TRANSPORT_suffix, built-in, default_suffix.
 * A transport comes into being with the first recipient read for it
 * ("for each triple, it finds the transport; if it does not exist yet, it
 * instantiates it").  Its parameters are resolved once, here: they are
 * frozen with the scheduler, so a transport never needs to look them up
 * again.  It is appended to the transport list, whose order is the round
 * robin of qs_select (S-PRE-14); the first transport also starts the
 * round robin. */
qs_transport *qsi_transport_obtain(qs_sched *s, const char *name)
{
    qs_transport *t = qsi_transport_find(s, name);
    if (t)
        return t;
    t = qsi_calloc(1, sizeof *t);
    t->name = qsi_strdup(name);
    t->name_len = strlen(name);
    if (t->name_len < 8) /* (calloc: else 0) */
        memcpy(&t->name_word, name, t->name_len);
    t->sched = s;
    QSI_CK_XPORT(s, t);
    t->serial = ++s->serial;
    /* The parameters the preemptive scheduler reads (k, loan, discount,
     * minimum slots), then the concurrency scheduler's, the process
     * limit, the pools and refills, and the feedback forms.  Ranges were
     * checked when they were set (params.c), so the casts cannot
     * truncate. */
    t->slot_cost = (int)pint(s, name, QP_SLOT_COST);
    t->slot_loan = (int)pint(s, name, QP_SLOT_LOAN);
    t->slot_discount = (int)pint(s, name, QP_SLOT_DISCOUNT);
    t->min_slots = (int)pint(s, name, QP_MIN_SLOTS);
    t->dest_conc_limit = (int)pint(s, name, QP_DEST_CONC_LIMIT);
    t->dest_rcpt_limit = (int)pint(s, name, QP_DEST_RCPT_LIMIT);
    t->init_conc = (int)pint(s, name, QP_INIT_CONC);
    /* S-PFX-9: Postfix lowers the initial window to a non-zero limit.
     * The document starts every destination at the initial concurrency
     * and clamps to the limit only after positive feedback (S-CON-5), so
     * local (initial 5, limit 2) starts at 5 there and at 2 in Postfix.
     * The lowered value is also what the safety rule and revival use. */
    if (qsi_postfix(s) && t->dest_conc_limit > 0 &&
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
    /* S-PFX-7: Postfix 3.x has the sqrt form compiled out: warn, use 1.
     * The warning is a trace record (QS_T_FBWARN) that the CLI prints on
     * stderr, once per transport and direction, when the transport is
     * created. */
    if (qsi_postfix(s)) {
        qs_feedback *fbs[2] = {&t->pos, &t->neg};
        int i;
        for (i = 0; i < 2; i++) {
            if (fbs[i]->form == QS_FB_SQRT) {
                qs_trace r;
                qsi_trace_start(&r, QS_T_FBWARN);
                fbs[i]->form = QS_FB_CONST;
                fbs[i]->base = 1;
                r.transport = t->name;
                r.a = i; /* 0 positive, 1 negative */
                qsi_emit(s, &r);
            }
        }
    }
    /* blocker tags start odd; jobs and queues start at 0: unmarked.
     * A job or queue is a blocker while its tag equals the transport's;
     * releasing all blockers at once (S-PFX-13, reading R-13 all) is then
     * one step of the transport's tag (by 2: it stays odd, so never equals
     * the 0 of an unmarked object) instead of a walk over every marked
     * job; the document profile releases only the blockers waiting at the
     * freed destination, by clearing their tags (S-PRE-12). */
    t->blocker_tag = 1;
    /* S-MEM-5: the pool starts with TRANSPORT_recipient_limit slots.
     * The first job linked on this transport takes them all. */
    t->rcpt_unused = t->rcpt_limit;
    qs_map_init(&t->queues);
    qsi_map_put(&s->transports, t->name, 0, t);
    if (s->xtail)
        s->xtail->next = t;
    else
        s->xhead = t;
    s->xtail = t;
    qsi_transport_ring_insert(s, t);
    s->ntransports++;
    return t;
}

/* S-PRE-14: the round-robin cycle.  Document profile: the creation order,
 * a new transport goes last in the cycle.  S-PFX-13 (postfix profile;
 * reading R-2 transport_rr = rotate): Postfix puts a new transport at the
 * head of its transport list, which is where its round robin resumes, so
 * the new transport is tried next. */
void qsi_transport_ring_insert(qs_sched *s, qs_transport *t)
{
    qs_transport *before, *prev;
    int rotate;
    if (!s->rr) {
        t->rr_next = t;
        s->rr = t;
        return;
    }
    rotate = QS_READING(s, QR_TRANSPORT_RR) == QRV_RR_ROTATE;
    before = rotate ? s->rr : s->xhead;
    for (prev = before; prev->rr_next != before; prev = prev->rr_next)
        ;
    prev->rr_next = t;
    t->rr_next = before;
    if (rotate)
        s->rr = t;
}

/* ---- the public API: life cycle and time ---- */

/* Creates a scheduler from a copy of the parameters (S-EV-2: the first
 * event freezes them).  The checks that depend on the profile come first,
 * so that a refused configuration allocates nothing. */
qs_sched *qs_sched_new(const qs_params *p, enum qs_profile profile,
                       qs_trace_sink sink, void *ctx, char *err,
                       size_t errlen)
{
    qs_sched *s;
    size_t i;
    if (profile != QS_PROFILE_DOCUMENT && profile != QS_PROFILE_POSTFIX) {
        qsi_seterr(err, errlen, "unknown profile");
        return NULL;
    }
    /* S-EV-5: the document profile has no "0 = no limit" convention.
     * The document's clamp "if (concurrency > concurrency limit)
     * concurrency = concurrency limit" would set every window to 0 with a
     * limit of 0, so the value has no meaning there; Postfix reads 0 as
     * unlimited (S-PFX-3).  Every override is checked, not only the
     * global value. */
    if (profile == QS_PROFILE_DOCUMENT) {
        if (qs_param_int(p, NULL, QP_DEST_CONC_LIMIT) == 0) {
            qsi_seterr(err, errlen, "default_destination_concurrency_limit = 0 "
                   "(no limit) exists only in the postfix profile");
            return NULL;
        }
        for (i = 0; i < qs_param_override_count(p); i++) {
            const char *tn;
            int id;
            qs_param_override(p, i, &tn, &id);
            if (id == QP_DEST_CONC_LIMIT && qs_param_int(p, tn, id) == 0) {
                qsi_seterr(err, errlen, "a destination concurrency limit of 0 "
                       "(no limit) exists only in the postfix profile");
                return NULL;
            }
        }
    }
    /* Everything else starts empty or at zero (calloc): time 0, no
     * transports, no messages.  Handles start at D1 (S-EV-8). */
    s = qsi_calloc(1, sizeof *s);
    s->params = qs_params_clone(p);
    if (!s->params) {
        free(s);
        qsi_seterr(err, errlen, "out of memory");
        return NULL;
    }
    s->profile = profile;
    /* The named readings: the stream's choice, else the profile's. */
    for (i = 0; i < QR_COUNT; i++) {
        int v = qs_param_reading(p, (int)i);
        s->reading[i] = (unsigned char)(v >= 0 ? v : qs_reading_default(
                                             i, profile == QS_PROFILE_POSTFIX));
    }
    s->entry_pool.size = sizeof(qs_entry);
    s->peer_pool.size = sizeof(qs_peer);
    s->job_pool.size = sizeof(qs_job);
    s->ck_entry_pool.size = sizeof(qs_entry_ck);
    s->ck_job_pool.size = sizeof(qs_job_ck);
    s->queue_pool.size = sizeof(qs_queue) + QSI_QUEUE_NAME_POOLED;
    s->entry_pool.area = s->peer_pool.area = s->job_pool.area =
        s->queue_pool.area = s->ck_entry_pool.area = s->ck_job_pool.area =
        &s->slab_area;
    for (i = 0; i < QSI_MSG_POOLS; i++) {
        s->msg_pool[i].size = (i + 1) * QSI_MSG_POOL_STEP;
        s->msg_pool[i].area = &s->slab_area;
    }
    s->sink = sink;
    s->ctx = ctx;
    /* every record, until the caller says otherwise; none without a sink */
    s->explain = sink != NULL;
    s->next_handle = 1;
    s->active_limit = qs_param_int(p, NULL, QP_ACTIVE_LIMIT);
    s->msg_rcpt_limit = qs_param_int(p, NULL, QP_MSG_RCPT_LIMIT);
    s->msg_rcpt_minimum = qs_param_int(p, NULL, QP_MSG_RCPT_MINIMUM);
    /* S-PFX-15: when it starts, Postfix's queue manager raises
     * qmgr_message_recipient_limit to qmgr_message_active_limit if it is
     * smaller (with a warning in its log). */
    if (qsi_postfix(s) && s->msg_rcpt_limit < s->active_limit)
        s->msg_rcpt_limit = s->active_limit;
    s->min_backoff = qs_param_int(p, NULL, QP_MIN_BACKOFF);
    qs_map_init(&s->transports);
    qs_map_init(&s->messages);
    qs_handles_init(&s->inflight);
    return s;
}

/* A queue not cut from the queue pool (a name too long for it,
 * qsi_queue_obtain) has an allocation of its own. */
static void queue_free_unpooled(qs_queue *q)
{
    if (strlen(q->name) >= QSI_QUEUE_NAME_POOLED)
        free(q);
}

/* Frees everything, whatever state the scheduler is in (deliveries in
 * flight, messages waiting).  Entries, peers, jobs, queues with short
 * names and messages of the size classes live in the pools' slabs, which
 * go at the end, all at once (qsi_pool_free); what has an allocation of
 * its own is reachable from exactly one owner list - queues from their
 * transport, jobs (with their peer maps) from their message, messages
 * from the active or incoming list - so walking the owner lists frees it
 * once.  No trace is emitted. */
void qs_sched_free(qs_sched *s)
{
    qs_transport *t, *tn;
    qs_message *m, *mn;
    size_t i;
    if (!s)
        return;
    /* Entries are all pooled (their queues' lists need no walk);
     * transports go after their queues. */
    for (t = s->xhead; t; t = tn) {
        qs_queue *q, *qn;
        tn = t->next;
        for (q = t->qhead; q; q = qn) {
            qn = q->next;
            free(q->bix_ph);
            queue_free_unpooled(q);
        }
        for (q = t->park_head; q; q = qn) { /* parked: no entries */
            qn = q->park_next;
            queue_free_unpooled(q);
        }
        qs_map_destroy(&t->queues);
        free(t->bix_rh);
        free(t->bix_fh);
        free(t->bix_fs);
        free(t->name);
        free(t);
    }
    /* Active messages own their jobs, jobs their peers (pooled, as the
     * jobs are: only a job's peer map is its own).  Not through
     * qsi_job_free: that would pop stacks and move slots, work (and trace
     * lines) a scheduler being destroyed must not do. */
    for (m = s->active_head; m; m = mn) {
        qs_job *j;
        mn = m->next;
        for (j = m->jobs; j; j = j->mnext)
            qs_map_destroy(&j->peers);
        qsi_message_free(s, m); /* freed, or to a pool freed below */
    }
    /* Waiting messages have nothing but themselves. */
    for (m = s->incoming_head; m; m = mn) {
        mn = m->next;
        qsi_message_free(s, m);
    }
    qs_map_destroy(&s->transports);
    qs_map_destroy(&s->messages);
    qs_handles_destroy(&s->inflight);
    qs_params_free(s->params);
    free(s->ck_msgs.v);
    free(s->ck_jobs.v);
    free(s->ck_queues.v);
    free(s->ck_xports.v);
    free(s->ck_entries.v);
    qsi_pool_free(&s->entry_pool);
    qsi_pool_free(&s->peer_pool);
    qsi_pool_free(&s->job_pool);
    qsi_pool_free(&s->ck_entry_pool);
    qsi_pool_free(&s->ck_job_pool);
    qsi_pool_free(&s->queue_pool);
    for (i = 0; i < QSI_MSG_POOLS; i++)
        qsi_pool_free(&s->msg_pool[i]);
    qsi_slab_area_free(&s->slab_area); /* after the pools: their slabs */
    free(s->batch);
    free(s->batch_keys);
    free(s->batch_counts);
    free(s->batch_own);
    free(s);
}

/* S-EV-6: `at T` - virtual time moves forward (never back), and dead
 * destinations whose backoff has expired come back.  Time is the only
 * input besides events: it ages jobs for the candidate score (S-PRE-6),
 * lets refill delays pass (S-MEM-7), and ends backoffs. */
int qs_advance(qs_sched *s, int64_t now, char *err, size_t errlen)
{
    if (now < s->now) {
        qsi_seterr(err, errlen, "time goes backwards");
        return -1;
    }
    s->now = now;
    /* S-CON-10: revive dead destinations whose backoff has expired, in
     * the order they died.  A revived queue holds no pending entries (they
     * were deferred when it died), so it may only have deliveries still in
     * flight; it is released as a blocker if it was one, and discarded if
     * nothing at all is left in it (S-CON-13). */
    while (s->dead_head && s->dead_head->revive_at <= s->now) {
        qs_queue *q = s->dead_head;
        qsi_queue_revive(s, q, (int)q->busy);
        qsi_blocker_update(s, q);
        qsi_queue_free_if_idle(s, q);
    }
    return 0;
}

/* ---- the public API: accessors (read-only) ----
 * None of these changes the scheduler.  The CLI uses the statistics for
 * --stats; stream generators (qsched gen, the fuzz harnesses) use the
 * clock and the in-flight queries to write only valid `done` lines. */

/* The virtual clock in seconds: the last `at T`, 0 before any.  A
 * generator needs it to write times that do not go backwards (S-EV-6). */
int64_t qs_now(const qs_sched *s) { return s->now; }

/* The handle the next selected delivery will get: handles are handed
 * out in order from D1 and never reused (S-EV-8), so a trace's Dn lines
 * can be predicted and a stale `done` told from a future one. */
int64_t qs_next_handle(const qs_sched *s) { return s->next_handle; }

/* Whether `done Dhandle` would be accepted now. */
int qs_in_flight(const qs_sched *s, int64_t handle)
{
    return qs_handles_get(&s->inflight, (uint64_t)handle) != NULL;
}

/* Deliveries selected and not yet done, over all transports: the sum of
 * the queues' busy counts (S-INV-3 checks it). */
size_t qs_in_flight_count(const qs_sched *s)
{
    return qs_handles_count(&s->inflight);
}

/* qsort order for handles (no subtraction: it could overflow). */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The i-th smallest handle in flight (O(n log n): for generators and
 * tools, never on the scheduling path).  The table lists its handles in
 * ring and map order, but they are sorted before one is picked, so the
 * answer does not depend on that order. */
int64_t qs_in_flight_nth(const qs_sched *s, size_t i)
{
    size_t n = qs_handles_count(&s->inflight);
    uint64_t *h;
    int64_t v;
    if (i >= n)
        return 0;
    h = qsi_calloc(n, sizeof *h);
    qs_handles_list(&s->inflight, h);
    qsort(h, n, sizeof *h, cmp_u64);
    v = (int64_t)h[i];
    free(h);
    return v;
}

/* The counters kept as the scheduler runs, with the two in-core bounds
 * computed for comparison with the peak (S-MEM-9, S-INV-8). */
void qs_get_stats(const qs_sched *s, qs_stats *st)
{
    *st = s->stats;
    st->bound_in_core = qs_bound_total(s);
    /* S-INV-8 with A at its maximum, so that it bounds every step:
     * qs_bound_holding counts the minimum of the messages active now; a
     * peak may have come with more, so the reported bound takes the
     * active limit, the most there can be. */
    st->bound_holding = qs_bound_holding(s) +
                        s->msg_rcpt_minimum * (s->active_limit -
                                               s->active_count);
}

/* Transports created so far: one per transport name that a read
 * recipient used, never removed (their parameters are resolved once). */
size_t qs_transport_count(const qs_sched *s) { return s->ntransports; }

/* The i-th transport in creation order (the order --stats prints);
 * an index past the end gives an all-zero record. */
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
