/*
 * messages.c - the two events that start and end a piece of work: a
 * message arrives (qs_arrive), a delivery finishes (qs_done); and the
 * deferral of pending entries at a destination that died.
 *
 * Implements the event semantics of spec/events.md for `arrive` and
 * `done` (S-EV-1, S-EV-7, S-EV-9) and the order of the steps of a `done`
 * (S-CON-12, with S-PFX-6 for where feedback goes), plus the deferral of
 * S-CON-9.  In SCHEDULER_README terms: a message is "moved into the
 * active queue" (or waits while it is full: "Dealing with memory resource
 * limits"), and "after success"/"after failure" of the concurrency
 * pseudocode run when a delivery ends.
 *
 * Owns: the message structure (creation, its recipient groups, freeing),
 * the in-core recipient counts when recipients leave core, and the
 * delivered/deferred tallies.  May not: decide feedback (concurrency.c),
 * slot moves (memory.c) or blocker releases (select.c): qs_done calls
 * each of them in the order the rules fix, and that order is the main
 * content of this file.
 *
 * A message's life in one small stream (destination recipient limit 2),
 * with the trace of `qsched --explain` beside each event:
 *
 *     arrive M1 smtp:a.example*3 smtp:b.example
 *                        activate M1                        (memory.c)
 *                        read M1 4 unread=0 limit=20000     (assign.c)
 *                        slots smtp M1 limit=4 pool=19996   (memory.c)
 *     select             deliver D1 M1 smtp:a.example 2     (select.c)
 *     select             deliver D2 M1 smtp:b.example 1     (peers rotate)
 *     done D1 ok         slots smtp M1 limit=2 pool=19998   (S-MEM-5)
 *     done D2 fail       window smtp:b.example 5 4          (concurrency.c)
 *                        slots smtp M1 limit=1 pool=19999
 *     select             deliver D3 M1 smtp:a.example 1
 *                        retire smtp M1                     (jobs.c)
 *                        slots smtp M1 limit=0 pool=20000
 *     done D3 ok         leave M1 delivered=3 deferred=1    (memory.c)
 *
 * The three recipients for a.example make two entries (2 + 1); the fail
 * at b.example lowers its window at once (reverse hysteresis) and counts
 * its recipient as deferred; each finished entry hands its slots back;
 * the message leaves when nothing of it is in core or unread.
 *
 * The API contract (qsched.h): a call either succeeds or changes nothing.
 * Hence every check comes before the first change.  The checks repeat the
 * event parser's (events.c): the parser gives FILE:LINE messages, these
 * protect direct users of the C API (harnesses, other tools).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "arrive.h"
#include "kernels.h"
#include "words.h"

/* Names as the event language allows them (S-EV-1): a transport name is
 * lower-case letters, digits and '-' (no '_', which separates a transport
 * from a parameter suffix in TRANSPORT_suffix, S-EV-2); next-hops and
 * local parts add upper case and ". _ +".  Neither may contain ':' or '@',
 * which the trace uses to write TRANSPORT:LOCAL@NEXTHOP. */
#define NAME_TRANSPORT 1 /* a character of a transport name */
#define NAME_HOST 2      /* a character of a next-hop or local part */
/* The classes by table (issue 16: one load and one test per character,
 * instead of up to eight comparisons); filled from the rule above. */
static const unsigned char name_class[256] = {
    ['-'] = 3, ['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3,
    ['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
    ['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3,
    ['g'] = 3, ['h'] = 3, ['i'] = 3, ['j'] = 3, ['k'] = 3, ['l'] = 3,
    ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3,
    ['s'] = 3, ['t'] = 3, ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3,
    ['y'] = 3, ['z'] = 3,
    ['A'] = 2, ['B'] = 2, ['C'] = 2, ['D'] = 2, ['E'] = 2, ['F'] = 2,
    ['G'] = 2, ['H'] = 2, ['I'] = 2, ['J'] = 2, ['K'] = 2, ['L'] = 2,
    ['M'] = 2, ['N'] = 2, ['O'] = 2, ['P'] = 2, ['Q'] = 2, ['R'] = 2,
    ['S'] = 2, ['T'] = 2, ['U'] = 2, ['V'] = 2, ['W'] = 2, ['X'] = 2,
    ['Y'] = 2, ['Z'] = 2, ['.'] = 2, ['_'] = 2, ['+'] = 2,
};

/* The length of a valid name of class cls (NAME_TRANSPORT or NAME_HOST)
 * of at most max bytes, or 0: empty, absent, a character outside the
 * class, or longer than max.  The length then sizes the message's one
 * allocation without another strlen (issue 16). */
static size_t name_len(const char *str, unsigned cls, size_t max)
{
    const char *p = str;
    if (!str)
        return 0;
    /* name_class['\0'] is 0: the scan stops at the end or at the first
     * character outside the class, whichever comes first */
    while (name_class[(unsigned char)*p] & cls)
        p++;
    if (*p || p == str || (size_t)(p - str) > max)
        return 0;
    return (size_t)(p - str);
}

/* Copies a name (checked, n bytes) to dst and returns where the next one
 * goes, pad bytes after it (the allocation's zeros end it).  The length
 * is the one the checks measured (name_len), so the copy is one copy of
 * known length (words.h: a word at a time for 4 to 32 bytes, issue 16:
 * three memcpy calls per group were 2% of the mixed shape). */
static char *copy_name(char *dst, const char *name, size_t n, size_t pad)
{
    return copy_short(dst, name, n) + pad;
}

/* The checks measure every name of a group; the lengths of the first
 * QSI_ARRIVE_LENS groups are kept for the copies (names are at most 200
 * bytes, so a byte holds each), later groups are measured again there
 * (issue 16: one scan of a name instead of a scan and a strlen).  Only
 * the public qs_arrive needs this: the parser passes every length
 * (arrive.h). */
#define QSI_ARRIVE_LENS 32

/*
 * S-EV-7: `arrive MSG T:[LOCAL@]NEXTHOP[*COUNT] ...` - a message is queued.
 * The groups are the message's queue file: nothing is read yet (reading
 * is in batches, S-MEM-1).  If the active queue has room the message
 * enters it at once, which sets its enqueue time and reads its first
 * batch (memory.c); otherwise it waits at the tail of the incoming queue
 * and enters when another message leaves (S-MEM-2).  A message id is
 * unique while the message is in the scheduler (active or waiting), so
 * that traces name messages unambiguously; it may be reused afterwards.
 */
int qs_arrive(qs_sched *s, const char *msgid, const qs_group *groups,
              size_t ngroups, char *err, size_t errlen)
{
    return qsi_arrive_measured(s, msgid, groups, ngroups, NULL, err, errlen);
}

/* The names' lengths: given (known, arrive.h: the parser measured them
 * with these classes and limits) or measured and checked here. */
int qsi_arrive_measured(qs_sched *s, const char *msgid,
                        const qs_group *groups, size_t ngroups,
                        const unsigned char (*known)[3], char *err,
                        size_t errlen)
{
    qs_message *m;
    int64_t total = 0;
    size_t i, size, idlen;
    uint64_t id_hash;
    qs_trace r;
    unsigned char lens[QSI_ARRIVE_LENS][3]; /* transport, local, next-hop */
    if (!msgid || !*msgid || (idlen = strlen(msgid)) > 64) {
        qsi_seterr(err, errlen, "bad message id");
        return -1;
    }
    /* Checks first, in the parser's order, so the first problem is the
     * one reported and a refused call changes nothing. */
    id_hash = qs_map_hash(msgid, 0); /* once: here, the insertion below
                                        and message_finish's delete */
    if (qs_map_get_hashed(&s->messages, id_hash, msgid, 0)) {
        if (err)
            snprintf(err, errlen, "duplicate message id \"%s\" (still in "
                     "the queue)", msgid);
        return -1;
    }
    if (ngroups == 0) {
        qsi_seterr(err, errlen, "a message needs at least one recipient");
        return -1;
    }
    /* S-EV-1: the incoming queue is bounded too.  Memory must be bounded
     * by the input's limits, and messages that wait hold their recipient
     * groups in memory. */
    if (s->active_count >= s->active_limit &&
        s->incoming_count >= QS_WAITING_MAX) {
        qsi_seterr(err, errlen, "too many messages waiting for the active queue "
               "(limit 1000000)");
        return -1;
    }
    /* size: the message's one allocation (below): the message, its
     * groups, then every string; a next-hop is followed by 8 NUL bytes,
     * not 1: its first 8 bytes can then be read as one word (qs_mgroup,
     * batch_order.c) */
    size = sizeof *m + ngroups * sizeof *m->groups +
           (idlen < sizeof m->id_short ? 0 : idlen + 1);
    for (i = 0; i < ngroups; i++) {
        const qs_group *g = &groups[i];
        size_t tlen, nlen, llen;
        if (known) {
            tlen = known[i][0];
            llen = g->local ? known[i][1] : 1;
            nlen = known[i][2];
        } else {
            tlen = name_len(g->transport, NAME_TRANSPORT, 64);
            nlen = name_len(g->nexthop, NAME_HOST, 200);
            llen = g->local ? name_len(g->local, NAME_HOST, 64) : 1;
        }
        if (tlen == 0) {
            qsi_seterr(err, errlen, "bad transport name");
            return -1;
        }
        if (nlen == 0 || llen == 0) {
            qsi_seterr(err, errlen, "bad next-hop or local part");
            return -1;
        }
        size += tlen + 1 + (g->local ? llen + 1 : 0) + nlen + 8;
        if (!known && i < QSI_ARRIVE_LENS) {
            lens[i][0] = (unsigned char)tlen;
            lens[i][1] = (unsigned char)llen;
            lens[i][2] = (unsigned char)nlen;
        }
        /* The total stays within QS_COUNT_MAX: every count derived from
         * it (entries, slots times k, score products) then fits in 64
         * bits (kernels.h). */
        if (g->count < 1 || g->count > QS_COUNT_MAX - total) {
            qsi_seterr(err, errlen, "recipient count out of range (1 .. "
                   "1000000000 per message)");
            return -1;
        }
        total += g->count;
    }
    /* The message owns copies of every string: the caller's buffers are
     * only valid during the call (qsched.h).  One allocation: the
     * message, its groups, then every string (issue 16: one malloc per
     * arrival instead of 2 + 3 per group). */
    {
        char *str;
        size_t prev_tlen = 0;
        /* size: summed with the checks above; zeroed either way, from
         * the pool of the smallest class that holds it if there is one */
        size_t cls = (size - 1) / QSI_MSG_POOL_STEP;
        if (cls < QSI_MSG_POOLS) {
            /* zeroed as far as it is used: a reused object of the class
             * may be up to QSI_MSG_POOL_STEP - 1 bytes larger, which
             * nothing reads (issue 16: a cache line less to write, on
             * average, at every arrival) */
            m = qsi_pool_get_sized(&s->msg_pool[cls], size);
            m->pool_class = (int)cls;
        } else {
            m = qsi_calloc(1, size);
            m->pool_class = -1;
        }
        m->groups = (qs_mgroup *)(m + 1);
        str = (char *)(m->groups + ngroups);
        m->id_len = (uint32_t)idlen;
        if (idlen < sizeof m->id_short) {
            /* a short id in the message's first bytes, beside the
             * pointer every trace line of it reads first (zeroed: its
             * NUL is there) */
            m->id = m->id_short;
            copy_short(m->id_short, msgid, idlen);
        } else {
            m->id = str;
            str = copy_name(str, msgid, idlen, 1);
        }
        for (i = 0; i < ngroups; i++) {
            const qs_group *g = &groups[i];
            /* the lengths: the parser's, the checks', or measured again */
            const unsigned char *l = known ? known[i]
                                     : i < QSI_ARRIVE_LENS ? lens[i] : NULL;
            size_t tlen, llen, nlen;
            if (l) {
                tlen = l[0];
                llen = l[1];
                nlen = l[2];
            } else {
                tlen = strlen(g->transport);
                llen = g->local ? strlen(g->local) : 0;
                nlen = strlen(g->nexthop);
            }
            /* a group of the previous group's transport shares its copy:
             * for two groups in a row, the same name is then the same
             * pointer (issue 16: assign.c compares the pointers, not the
             * names; `size` above still counts a copy per group, a few
             * bytes more than needed) */
            if (i > 0 && tlen == prev_tlen &&
                memcmp(m->groups[i - 1].transport, g->transport, tlen) == 0) {
                m->groups[i].transport = m->groups[i - 1].transport;
            } else {
                m->groups[i].transport = str;
                str = copy_name(str, g->transport, tlen, 1);
            }
            prev_tlen = tlen;
            m->groups[i].transport_len = (unsigned char)tlen;
            if (g->local) {
                m->groups[i].local = str;
                m->groups[i].local_len = (unsigned char)llen;
                str = copy_name(str, g->local, llen, 1);
            }
            m->groups[i].nexthop = str;
            m->groups[i].nexthop_len = (unsigned char)nlen;
            /* calloc: the 8 bytes after it are NUL */
            str = copy_name(str, g->nexthop, nlen, 8);
            m->groups[i].count = g->count;
        }
    }
    m->serial = ++s->serial;
    m->ngroups = ngroups;
    m->rcpt_total = m->rcpt_unread = total;
    m->id_hash = id_hash;
    qsi_map_put_hashed(&s->messages, id_hash, m->id, 0, m);
    if (s->active_count < s->active_limit) {
        qsi_message_activate(s, m);
    } else {
        /* S-MEM-2: the active queue is full: wait, first come first in.
         * A waiting message is invisible to the scheduler: "messages not
         * in the 'active' queue are simply not considered at all", which
         * is how the active limit bounds the preemption lookahead. */
        if (s->incoming_tail)
            s->incoming_tail->next = m;
        else
            s->incoming_head = m;
        s->incoming_tail = m;
        s->incoming_count++;
        if (QSI_EXPLAIN(s)) { /* `wait` is of the explain level */
            qsi_trace_start(&r, QS_T_WAIT);
            r.msg = m->id;
            qsi_emit(s, &r);
        }
    }
    /* The first batch may have been deferred whole (dead destinations):
     * the message check reads on or lets the message leave. */
    qsi_run_checks(s);
    return 0;
}

/* Recipients leave core: delivered, deferred, or failed.  Four counts
 * move together (job, message, transport, scheduler) so that the pool
 * rules (memory.c) and the bounds can read them in O(1); the invariant
 * checker recounts them from the structures (S-INV-1, S-INV-4). */
static void rcpt_leave_core(qs_sched *s, qs_entry *e)
{
    qs_job *job = e->job;
    qs_message *m = job->message;
    QSI_CK_MSG(s, m);
    QSI_CK_QUEUE(s, e->queue);
    qsi_job_count_add(m, job, -e->nrcpt);
    m->rcpt_count -= e->nrcpt;
    job->transport->in_core -= e->nrcpt;
    s->in_core -= e->nrcpt;
    QSI_BIX_MESSAGE(s, m); /* its jobs may read again */
}

/* 1: every deferral of a dying destination moves its job's slots itself,
 * as before runs of one job were told apart (tests/sh/defer-runs.sh
 * builds the reference so) */
#ifndef QSI_DEFER_EACH
#define QSI_DEFER_EACH 0
#endif

/* S-CON-9: a todo entry of a dead destination is deferred: removed from
 * the active queue; its recipients stay undelivered.
 * In Postfix the recipients go back to the deferred queue to be retried
 * later; qsched has no deferred queue, so they leave the model, counted
 * as deferred.  Like a finished delivery, the deferral frees the entry's
 * recipients from core, so the slot rules of a `done` apply (S-MEM-5),
 * and the message is checked at the end of the event (it may need to
 * read more, or leave). */
void qsi_entry_defer_todo(qs_sched *s, qs_entry *e, const qs_entry *next)
{
    qs_peer *p = e->peer;
    qs_queue *q = e->queue;
    qs_job *job = e->job;
    qs_message *m = job->message;
    /* Entries of one job often follow each other in a dying destination's
     * todo list (queue_die: one message's recipients there, in entries of
     * the recipient limit): their slots move once, after the last of
     * them (below).  Not at the explain level, which shows each move
     * (`rcptpool`). */
    int more_of_job = next && next->job == job && !QSI_EXPLAIN(s) &&
                      !QSI_DEFER_EACH;
    qs_trace r;
    qsi_trace_start(&r, QS_T_DEFER);

    qsi_trace_msg(&r, m);
    qsi_trace_dest(&r, q);
    r.n = e->nrcpt;
    qsi_emit(s, &r);
    qsi_peer_unlink_entry(p, e);
    qsi_qlist_unlink(&q->todo_head, &q->todo_tail, e);
    q->todo--;
    qsi_ck_entry_gone(s, e);
    p->refcount--;
    /* Dealt with: it counts as selected (as in Postfix), so the job's
     * entry total - the score denominator, the S-PRE-3 gate - still
     * includes it.  read_entries is left alone: the pending count (read -
     * selected) drops by one, as the entry is gone.  R-12
     * deferred_entries = forgotten is the other reading: the entry leaves
     * the job's count as if it had never been read (read_entries - 1). */
    /* The candidate index learns the new counts: as selected, the
     * entry only lowers what the job still needs, by one, which is what
     * a selection does (qsi_cix_selected's one comparison per level,
     * issue 16); forgotten, it also lowers the job's total (the full
     * repair). */
    if (QS_READING(s, QR_DEFERRED_ENTRIES) == QRV_DEFERRED_FORGOTTEN) {
        job->read_entries--;
        qsi_cix_update(job);
    } else {
        job->selected_entries++;
        qsi_cix_selected(job);
    }
    rcpt_leave_core(s, e);
    m->deferred += e->nrcpt;
    s->stats.recipients_deferred += e->nrcpt;
    if (more_of_job) {
        /* The next entry deferred is of the same job (queue_die, never at
         * the explain level): the slots move, the peer is freed and the
         * message is checked after that one instead.  What each step
         * would do is done then, in full:
         *  - the slots (S-MEM-5): each deferral adds its recipients to the
         *    spares of the job and of its message alike, and a return
         *    hands the message's spare to the sisters first, in their
         *    order, then to the job, each at most its own spare.  The
         *    sisters' spares never grow during the run and the job's
         *    grows with the message's, so what each of them gives back,
         *    added up over the steps, is what one return gives after the
         *    last step; each transport's pool passes what it gets on to
         *    the same first unread job, once positive, in one go or in
         *    parts.  The first unread jobs are of other messages, and
         *    their moves touch nothing that a deferral reads;
         *  - the peer keeps the next entry, so it would stay;
         *  - the message keeps the next entry in core, so a check would
         *    neither read (S-MEM-7, S-PFX-18) nor let it leave; in the
         *    document profile the check list is the same, since nothing
         *    is queued in between.
         * (issue 16: three deferrals in four of the mixed shape, about
         * 170 instructions each.) */
        qsi_entry_free(s, e);
        return;
    }
    qsi_message_return_slots(s, m, job);
    qsi_peer_free_if_unused(s, p);
    qsi_message_schedule_check(s, m);
    qsi_entry_free(s, e);
}

/*
 * S-EV-9, S-CON-12: `done Dn ok|fail|defer` - a delivery agent reports.
 * `fail` and `defer` both end with the recipients deferred: in Postfix
 * they would go to the deferred queue and be tried again later, which is
 * outside the active queue this model covers.  The two differ only as
 * feedback: `fail` (connection or handshake) is negative, `defer`
 * (refused later in the session) positive.
 *
 *     1. (postfix) feedback, the delivery still counted as busy
 *     2. the entry leaves the busy list; its recipients leave core as
 *        delivered (ok) or deferred (fail, defer)
 *     3. (document) feedback, busy no longer counting it
 *     4. recipient slots move on (S-MEM-5)
 *     5. blockers released if the destination can take more (S-PRE-12)
 *     6. the peer and the queue are freed if nothing is left in them
 *     7. message check at the end of the event (S-MEM-7, S-MEM-2)
 *
 * Why this order.  Feedback comes before the slot and blocker steps
 * because it can change the window (and so whether the destination can
 * take more, step 5) and can kill the destination, deferring its pending
 * entries.  The profiles differ only in whether the finishing delivery
 * still counts as busy when the safety rule looks (S-PFX-6): the document
 * runs "after success" after the delivery is over; Postfix turns the
 * report into feedback before it takes the entry off the queue.
 */
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
    /* The handle must name a delivery in flight; the map answers in O(1)
     * and, found, forgets it (a handle is never reused, S-EV-8). */
    e = qs_handles_del(&s->inflight, (uint64_t)handle);
    if (!e) {
        if (err)
            snprintf(err, errlen, "D%lld is not in flight",
                     (long long)handle);
        return -1;
    }
    q = e->queue;
    p = e->peer;
    job = e->job;
    m = job->message;
    t = q->transport;
    /* Step 1 (postfix).  S-PFX-6: Postfix applies feedback while the
     * delivery still counts as in flight; the document's busy count no
     * longer includes it. */
    /* (R-17 feedback_busy = before: the postfix profile's default) */
    if (QS_READING(s, QR_FEEDBACK_BUSY) == QRV_FEEDBACK_BEFORE)
        qsi_feedback(s, q, outcome);
    /* Step 2: the delivery is over: off the busy list, its recipients
     * out of core and tallied by outcome. */
    qsi_qlist_unlink(&q->busy_head, &q->busy_tail, e);
    q->busy--;
    qsi_ck_entry_gone(s, e);
    t->in_flight--;
    rcpt_leave_core(s, e);
    if (outcome == QS_DONE_OK) {
        m->delivered += e->nrcpt;
        s->stats.recipients_delivered += e->nrcpt;
    } else {
        m->deferred += e->nrcpt;
        s->stats.recipients_deferred += e->nrcpt;
    }
    /* One fewer in flight: the window may have room again.  Step 3
     * (document): feedback, with busy no longer counting the delivery. */
    qsi_queue_update_ready(q);
    if (QS_READING(s, QR_FEEDBACK_BUSY) == QRV_FEEDBACK_AFTER)
        qsi_feedback(s, q, outcome);
    /* Step 4.  S-MEM-5: slots freed by the finished entry move on ("such a
     * transfer then also happens whenever a recipient entry of that job is
     * delivered"). */
    qsi_message_return_slots(s, m, job);
    /* Step 5.  S-PRE-12: the destination can take more: release blockers.  Any
     * outcome frees a place in the window, whatever the document's
     * "successfully finishes" suggests; a `fail` that also lowered the
     * window may leave it full, and then nothing is released. */
    qsi_blocker_update(s, q);
    /* Step 6.  The peer's reference is dropped only now: negative
     * feedback above may have deferred the peer's other entries (a dying
     * queue defers its pending entries), and the peer must survive that
     * to be found here. */
    p->refcount--;
    qsi_peer_free_if_unused(s, p);
    /* S-PFX-19 (postfix profile): when a dead destination has nothing
     * left and the queue manager holds more than twice
     * qmgr_message_recipient_limit destinations in all, Postfix brings it
     * back at once (and then discards it, empty), to keep the number of
     * in-memory destinations bounded. */
    if (qsi_postfix(s) && q->dead && !q->todo && !q->busy &&
        s->queue_count > 2 * s->msg_rcpt_limit)
        qsi_queue_revive(s, q, 0);
    /* S-CON-13: an alive queue with nothing pending or in flight goes
     * (R-1 idle_window). */
    qsi_queue_free_if_idle(s, q);
    qsi_entry_free(s, e);
    qsi_message_schedule_check(s, m);
    qsi_run_checks(s);
    return 0;
}

/* The message's own memory: its groups and id, in its one allocation.
 * Its jobs are freed first by the caller (memory.c message check, or
 * qs_sched_free). */
void qsi_message_free(qs_sched *s, qs_message *m)
{
    /* with its groups and strings: back to its size class's pool, or
     * free (qs_arrive) */
    if (m->pool_class >= 0)
        qsi_pool_put(&s->msg_pool[m->pool_class], m);
    else
        free(m);
}
