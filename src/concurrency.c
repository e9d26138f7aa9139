/*
 * concurrency.c - the Postfix 2.5 concurrency scheduler: how many
 * deliveries one destination may have in flight, how that number moves
 * with success and failure, and when a destination is given up for a
 * while ("dead") and taken back.
 *
 * Implements SCHEDULER_README, "Concurrency scheduling": the summaries of
 * the feedback algorithm and of dead destination detection, and the
 * "Pseudocode for the Postfix 2.5 concurrency scheduler".  Rules S-CON-1 ..
 * S-CON-13 (spec/concurrency.md) and the Postfix profile's differences
 * S-PFX-1 .. S-PFX-8 and S-PFX-10 (spec/profiles.md).
 *
 * Owns: destination queues (creation, readiness, discarding, the dead
 * list) and every change of a queue's window, success, failure and
 * fail_cohorts.  The arithmetic of each pseudocode block (the feedback
 * value, the hysteresis loops, the cohort count, the safety test) is a
 * pure function in kernels.c, proved there with Frama-C; this file decides
 * when each block runs and on which queue, and reports the result
 * (the records are built in concurrency_trace.c).
 * May not: choose entries or jobs (select.c, preempt.c), or touch recipient
 * slots (memory.c).  Pending entries of a dying queue are deferred through
 * messages.c, blockers released through select.c.
 *
 * Why the design is as it is.  The old scheduler moved a destination's
 * concurrency by +1 per good delivery and -1 per failed one, and called a
 * destination dead when it reached 0.  The document names two faults:
 * growth is exponential (every delivery of a pseudo-cohort - as many
 * deliveries as the concurrency - adds one, so the concurrency doubles per
 * cohort: 5, 10, 20), and a single failed cohort throttles a small
 * destination to zero and suspends it.  The 2.5 design separates the two
 * jobs the old counter did:
 *   - concurrency control, with feedback of less than 1 per delivery
 *     (g(N), f(N), e.g. 1/N: one step per whole cohort, so linear growth)
 *     and integer steps taken only when a fractional accumulator crosses a
 *     whole number (hysteresis: no oscillation on every event);
 *   - dead destination detection, by counting failed pseudo-cohorts
 *     (each failure adds 1/N of a cohort) against a limit, independently
 *     of how far the window has come down.
 * Negative feedback gets a twist: its cycle is "reversed", so the step
 * down comes at the first failure of a cycle, not the last.  Growth should
 * be cautious, but a correction for overload that comes late defers a lot
 * of mail; the document shows that this asymmetry is what keeps
 * less-than-1 feedback from deferring half the mail against a server that
 * rejects connections beyond its limit.  The arithmetic behind that claim:
 * at such a server the window climbs one step past the limit after 1/g
 * successes, the first rejection takes it back at once, and the cycle
 * repeats, so one delivery in 1 + 1/g fails.  The document's table shows
 * this "theoretical defer rate" 1/(1+roundup(1/feedback)) measured:
 * 1/2 with the old +/-1, 1/6 with g = 1/N at N = 5.  Had the step down
 * waited for the end of its cycle as well, the window would sit above
 * the limit for 1/f deliveries each time, and the gain would be lost.
 *
 * What the document's measurements add.  Against a server whose
 * connection queue is full (congestion), the feedback style hardly
 * matters: positive feedback outnumbers negative 10 to 100 times.  It
 * matters against an active limiter (a 421 or a reset beyond N
 * connections), where smaller feedback defers less.  The price of small
 * concurrency-dependent feedback is noise: behind a load balancer with
 * K servers of which one fails handshakes, g = 1/N stops growing at a
 * window of about K.  A constant g (1/4 tolerates one bad server in
 * four) trades some of the old +/-1 behaviour at large windows for that
 * robustness.  Hence the three forms of S-CON-2; the defaults keep the
 * old behaviour (g = f = 1).
 *
 * Tested by: tests/golden/con-* (one stream per rule, expected traces
 * derived by hand), tests/conformance/hand/con-* and pfx-*,
 * tests/unit/test_feedback.c, tests/sh/concurrency-*.sh (among them an
 * independent model of the pseudocode, concurrency-model.sh).
 *
 * Explains itself like preemption does (spec/trace.md "The concurrency
 * scheduler's explain lines"): every feedback event emits the test or the
 * sum the pseudocode computes, with its numbers - `safety` (S-CON-3,
 * S-PFX-3), `success` (the "After success" block: feedback form and value,
 * the success counter against hysteresis 1, the window step and clamp),
 * `cohort` (S-CON-6, S-CON-8: the failed pseudo-cohorts against the
 * limit), `failure` ("After failure" with the reversed hysteresis), and
 * `backoff` (S-CON-9 .. S-CON-11: when a dead destination revives, and why
 * feedback on it is ignored).  The records carry the binary64 counters
 * exactly (qs_trace x, y, z, w); they are explain level, so the default
 * trace is unchanged.  Tested by tests/sh/teach-explain.sh, which
 * recomputes every line from the pseudocode.
 *
 * Reading order: qsi_feedback at the end is the entry point (called by
 * qs_done); feedback_positive and feedback_negative carry the two
 * pseudocode blocks; queue_die and qsi_queue_revive the dead state; the
 * queue helpers come first, then the explain records.
 */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "sched_int.h"
#include "kernels.h"
#include "concurrency_contracts.h"   /* the helpers' ACSL contracts */
/* With QS_CONTRACT_CHECKS (the test, fuzz and model-checker builds)
 * every call of a contracted helper checks its contract: concurrency_rtc.h,
 * generated from the ACSL by proofs/rtc/gen.py, defines NAME(...) as
 * "check the requires, call, check the ensures".  The helpers are
 * defined as `static T (NAME)(...)`: a name in parentheses is not a
 * macro call, so the definition stays the function itself.  Other
 * builds see no difference. */
#ifdef QS_CONTRACT_CHECKS
#include "concurrency_rtc.h"
#endif

/* qsi_queue_update_ready, the ready count's upkeep: sched_int.h (inline:
 * it runs at every change of a queue's lists or window). */

/*
 * S-CON-1, the pseudocode's "Initialization":
 *     concurrency = initial_concurrency
 *     success = failure = fail_cohorts = 0
 * A queue comes into being with the first recipient read for it (the
 * document: within the transport, "it finds the destination queue for the
 * given nexthop; if it does not exist yet, it instantiates it").  calloc
 * provides the three zeros; the initial window is the transport's
 * resolved initial_destination_concurrency (already lowered to the limit
 * in the postfix profile, S-PFX-9, see qsi_transport_obtain).
 */
static void queue_unpark(qs_transport *t, qs_queue *q);

/* The live queue of t named name (as for qsi_queue_obtain), or NULL if
 * there is none or it is parked (only qsi_queue_obtain brings a parked one
 * back, starting it over): a look-up that changes nothing, for a batch
 * that asks first whether its resolution would create anything
 * (assign.c, S-PFX-11's settled batches). */
qs_queue *qsi_queue_live(const qs_transport *t, const char *name, size_t len)
{
    qs_queue *q = qs_map_get_hashed_len(&t->queues,
                                        qs_map_hash_len(name, len), name, len);
    return q && !q->parked ? q : NULL;
}

/* name is len bytes, with 8 readable bytes after its end (a group's
 * next-hop, or an address built by qsi_rcpt_address: qs_map_hash_len). */
qs_queue *qsi_queue_obtain(qs_sched *s, qs_transport *t, const char *name,
                           size_t len)
{
    /* hashed once: look-up, insertion, and queue_destroy's delete */
    uint64_t h = qs_map_hash_len(name, len);
    qs_queue *q = qs_map_get_hashed_len(&t->queues, h, name, len);
    if (q && !q->parked)
        return q;
    if (q) {
        /* A discarded destination comes back (S-CON-13): its parked
         * queue starts over exactly as a new one would - every field of
         * its state zero - keeping only its name, its map slot and its
         * transport (issue 16: no map delete and insertion, no name copy,
         * each time an idle destination gets mail again). */
        char *keep_name = q->name;
        queue_unpark(t, q);
        qsi_zero(q, offsetof(qs_queue, name_buf));
        q->name = keep_name;
        q->name_len = len;
        q->name_hash = h;
    } else {
        /* zeroed either way; a short name (the usual case) in a recycled
         * queue of the scheduler's pool, which an evicted parked queue
         * gave back (no calloc and free each time).  A name is followed
         * by NUL bytes up to 8 or more (QSI_QUEUE_NAME_POOLED >= 8, or a
         * name of 48 bytes or more): batch_order.c reads its first 8. */
        _Static_assert(QSI_QUEUE_NAME_POOLED >= 8, "a name's first 8 bytes");
        if (len + 1 <= QSI_QUEUE_NAME_POOLED) /* with its NUL */
            q = qsi_pool_get_sized(&s->queue_pool,
                                   sizeof(qs_queue) + QSI_QUEUE_NAME_POOLED);
        else
            q = qsi_calloc(1, sizeof *q + len + 1);
        q->name = memcpy(q->name_buf, name, len + 1);
        q->name_len = len;
        q->name_hash = h;
        qsi_map_put_hashed(&t->queues, h, q->name, 0, q);
    }
    q->serial = ++s->serial;
    q->transport = t;
    q->window = t->init_conc;
    s->queue_count++;
    q->prev = t->qtail;
    if (t->qtail)
        t->qtail->next = q;
    else
        t->qhead = q;
    t->qtail = q;
    QSI_CK_QUEUE(s, q);
    return q;
}

/* S-CON-13: Postfix discards an in-core queue when it is empty and alive;
 * a new one starts again from the initial window.  Dead queues stay until
 * they revive.
 * Why it matters: the window is not remembered across idle periods.  A
 * destination that was throttled to 1, drained, and gets mail again starts
 * over at the initial concurrency.  The document does not say so; it
 * follows from Postfix keeping queues only while they hold something, and
 * qsched reproduces it because it is visible in every trace.  A dead
 * queue, by contrast, must stay: it is the memory that the destination is
 * dead, and new recipients for it are deferred (S-CON-9) until revival.
 * s->queue_count counts the destinations (S-PFX-19).  This is reading R-1
 * idle_window = discard; keep is the other reading. */
void qsi_queue_free_if_idle(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    if (q->dead || q->todo || q->busy)
        return;
    /* R-1 idle_window: Postfix forgets an idle destination (discard); the
     * document, which never says so, can be read as keeping its window
     * (keep). */
    if (QS_READING(s, QR_IDLE_WINDOW) == QRV_IDLE_KEEP)
        return;
    s->queue_count--;
    if (q->ready)
        t->ready_queues--;
    qsi_ck_queue_gone(t->sched, q);
    if (q->bix_ph)
        qsi_bix_queue_gone(q);
    if (q->prev)
        q->prev->next = q->next;
    else
        t->qhead = q->next;
    if (q->next)
        q->next->prev = q->prev;
    else
        t->qtail = q->prev;
    /* Off the transport's list, so gone for the scheduler (its state is
     * never read again: qsi_queue_obtain resets it), but parked under its
     * name; past QSI_QUEUES_PARKED the oldest parked queue is freed. */
    q->parked = 1;
    q->park_prev = t->park_tail;
    q->park_next = NULL;
    if (t->park_tail)
        t->park_tail->park_next = q;
    else
        t->park_head = q;
    t->park_tail = q;
    if (++t->nparked > QSI_QUEUES_PARKED)
        qsi_queue_destroy(s, t->park_head);
}

/* A parked queue leaves the parked list (to come back, or to be freed). */
static void queue_unpark(qs_transport *t, qs_queue *q)
{
    if (q->park_prev)
        q->park_prev->park_next = q->park_next;
    else
        t->park_head = q->park_next;
    if (q->park_next)
        q->park_next->park_prev = q->park_prev;
    else
        t->park_tail = q->park_prev;
    q->parked = 0;
    t->nparked--;
}

/* The oldest parked queue is evicted: out of the map, back to the pool if
 * it came from there (see qsi_queue_obtain).  (qs_sched_free frees the
 * parked queues with the rest, map and all.) */
void qsi_queue_destroy(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    queue_unpark(t, q);
    qs_map_del_value(&t->queues, q->name_hash, q); /* (no name compared) */
    if (strlen(q->name) < QSI_QUEUE_NAME_POOLED)
        qsi_pool_put(&s->queue_pool, q);
    else
        free(q);
}

/* The dead list is ordered by revival time; a queue leaves it when it
 * revives (by backoff in qs_advance, or early in the postfix profile). */
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

/* S-CON-10 / S-PFX-4: the state a revived destination starts from: the
 * initial window (S-CON-10: "start at init_dest_concurrency"), or in the
 * postfix profile the deliveries still in flight when there are any
 * (S-PFX-4), and the feedback counters reset. */
static void (queue_revive_state)(qs_queue *q, int init, int busy, int postfix)
{
    q->dead = 0;
    if (postfix && busy > 0)
        q->window = busy;
    else
        q->window = init;
    q->success = q->failure = q->fail_cohorts = 0;
}

/*
 * S-CON-10 / S-PFX-4: back from the dead.
 *     dead = 0
 *     window = initial concurrency          (document)
 *            = deliveries in flight, if any (postfix, S-PFX-4)
 *     success = failure = fail_cohorts = 0
 * The document only says delivery is "suspended" after the cohort limit;
 * the revival is Postfix's: after minimal_backoff_time the destination is
 * tried afresh, as if new (S-CON-10).  Postfix restarts from the number of
 * deliveries still running when there are some, so the window starts at
 * the load the destination is actually carrying.
 */
void qsi_queue_revive(qs_sched *s, qs_queue *q, int busy)
{
    qs_trace r;
    qsi_trace_start(&r, QS_T_REVIVE);
    /* At an `at` event the revival time has come; a revival before it is
     * the postfix profile's success on a dead destination, explained by
     * feedback_positive. */
    if (q->revive_at <= s->now)
        qsi_conc_trace_backoff(s, q, QS_BACKOFF_EXPIRED);
    queue_dead_unlink(s, q);
    /* R-16 revival_window: initial (the document profile) or the
     * deliveries in flight, if any (S-PFX-4, the postfix profile).  The
     * reading is taken here: the proved helper's flag selects the
     * in-flight window, whatever the profile. */
    queue_revive_state(q, q->transport->init_conc, busy,
                       QS_READING(s, QR_REVIVAL_WINDOW) ==
                           QRV_REVIVAL_IN_FLIGHT);
    s->stats.revivals++;
    qsi_trace_dest(&r, q);
    r.a = q->window;
    qsi_emit(s, &r);
    qsi_queue_update_ready(q);
}

/* S-CON-8: "concurrency = 0" (dead), with the time of the next attempt:
 * "after minimal_backoff_time" (S-CON-10), strictly in the future. */
static void (queue_mark_dead)(qs_queue *q, int64_t now, int64_t backoff)
{
    q->dead = 1;
    q->revive_at = now + backoff;
}

/*
 * S-CON-8, S-CON-9: declared dead.  The pseudocode writes it as
 * "concurrency = 0"; what that means in the rest of the system is:
 *   - no more selections here (the queue is never ready while dead);
 *   - every pending entry is deferred now, and recipients read later for
 *     this destination are deferred as they are read (assign.c), the
 *     document's "(unless it's dead)" when queues are instantiated;
 *   - deliveries in flight are left to finish (their outcomes arrive, see
 *     feedback_positive and feedback_negative on a dead queue);
 *   - revival after minimal_backoff_time (qs_advance), so the dead list
 *     is appended to in time order and stays sorted.
 * Why defer rather than keep: a dead destination would otherwise hold
 * recipients in core (and recipient slots) for the whole backoff, and the
 * jobs holding them would block others.
 */
static void queue_die(qs_sched *s, qs_queue *q)
{
    qs_trace r;
    qsi_trace_start(&r, QS_T_DEAD);
    qs_transport *t = q->transport;
    int released = 0;
    queue_mark_dead(q, s->now, s->min_backoff);
    q->dprev = s->dead_tail;
    q->dnext = NULL;
    if (s->dead_tail)
        s->dead_tail->dnext = q;
    else
        s->dead_head = q;
    s->dead_tail = q;
    s->stats.deaths++;
    qsi_trace_dest(&r, q);
    qsi_emit(s, &r);
    qsi_conc_trace_backoff(s, q, QS_BACKOFF_DEAD);
    qsi_queue_update_ready(q);
    /* S-PRE-12 (document profile): a destination declared dead releases
     * the blockers that have peers there (R-13; before its entries are
     * deferred, while they still show which jobs those are): their entries
     * there are gone.  S-PFX-10: Postfix only stops counting the queue as
     * a blocker (below).
     * The document's reason to keep a blocker is that its destination has
     * no room; once the destination is dead its entries are deferred, so
     * the reason is gone and those blockers should take part again (a job
     * left with nothing retires at the next walk).  The release has to
     * come before the deferrals: deferring removes the queue's entries,
     * after which nothing would show who had blocked. */
    if (QS_READING(s, QR_DEATH_RELEASE) == QRV_DEATH_RELEASES &&
        qsi_queue_marked(q)) {
        /* R-18 death_release = yes (the document profile; no: S-PFX-10) */
        qsi_blocker_release(s, t, q);
        released = 1;
    }
    /* In todo order.  A deferral reads the entry, its peer, job and
     * message, scattered in memory: the next entry's are asked for while
     * this one is deferred (QSI_PREFETCH; all live, nothing is freed
     * before e's deferral starts).  Issue 16: 13..14% of blockers' and
     * transports' time was here, mostly waiting for memory. */
    while (q->todo_head) {
        qs_entry *e = q->todo_head, *n = e->qnext;
        if (n) {
            QSI_PREFETCH(n->peer);
            QSI_PREFETCH(n->job);
            QSI_PREFETCH(n->job->message);
            QSI_PREFETCH(n->qnext); /* (NULL at the end: allowed) */
        }
        qsi_entry_defer_todo(s, e, n); /* (n: runs of one job, there) */
    }
    if (!released)
        qsi_blocker_update(s, q);
    else
        q->blocker_tag = 0;
}

/* "After success", the safety rule (S-CON-3): may positive feedback move
 * the window?  Postfix (S-PFX-5) resets fail_cohorts on every positive
 * feedback first, and skips when the window is already at a non-zero limit
 * (S-PFX-3); its busy still counts this delivery (S-PFX-6), the document's
 * no longer does (qs_done removed it first).  Apart from feedback_positive,
 * with its tracing, so that WP proves it as it runs (proofs/wp/). */
static int (queue_positive_allowed)(qs_queue *q, const qs_transport *t,
                                    int postfix)
{
    if (postfix) {
        /* S-PFX-5: fail_cohorts reset on every positive feedback. */
        q->fail_cohorts = 0;
        /* S-PFX-3: skip when already at a non-zero limit; S-CON-3 safety
         * with busy still counting this delivery (S-PFX-6).  At the limit
         * Postfix leaves success and failure alone, where the document
         * would add g and clamp the step away again; a limit of 0 is
         * Postfix's "no limit". */
        return (t->dest_conc_limit == 0 || t->dest_conc_limit > q->window) &&
               qs_safety_allows(q->window, (int)q->busy, t->init_conc);
    }
    return qs_safety_allows(q->window, (int)q->busy, t->init_conc);
}

/* "After success" once the safety rule allows it (S-CON-4, S-CON-5; the
 * postfix profile's rounding guard, S-PFX-2): the document resets
 * fail_cohorts with the step, then success += g(N) and the window steps up
 * per whole unit, clamped to the limit.  Returns g(N). */
static double (queue_positive_step)(qs_queue *q, const qs_transport *t,
                                    int postfix)
{
    double g;
    /* S-CON-3 holds: S-CON-4, S-CON-5. */
    if (!postfix)
        q->fail_cohorts = 0;
    g = qs_fb_value(t->pos.form, t->pos.base, q->window);
    /* guard = 1 (postfix): the loop runs while success + g/2 >= 1, so that
     * a sum like 7 x (1/7) that rounds to just under 1 still steps up
     * (S-PFX-2); guard = 0: the document's while (success >= 1) */
    q->window = qs_success_step(q->window, g, t->dest_conc_limit, postfix,
                                &q->success, &q->failure);
    return g;
}

/*
 * "After success" (positive feedback; also for `defer` outcomes, which are
 * not connection or handshake failures: S-CON-12).  The pseudocode:
 *
 *     Safety: skip all of this unless
 *             concurrency < busy_refcount + initial_concurrency
 *     fail_cohorts = 0
 *     success += g(concurrency)
 *     while (success >= 1)              hysteresis 1
 *         concurrency += 1
 *         failure = 0
 *         success -= 1
 *     if (concurrency > limit)          overshoot
 *         concurrency = limit
 *
 * The loop is in qs_success_step (kernels.c), g in qs_fb_value.
 *
 * Why the safety rule (S-CON-3): a window can only be used by deliveries
 * that are in flight.  A success that arrives while few are in flight says
 * nothing about whether a larger window would work, and growing on it
 * anyway would let the window run far ahead of the load actually tested;
 * when load came, the many steps of negative feedback needed to come back
 * down would arrive late ("otherwise negative feedback effect could be
 * delayed").  The rule guards the whole block, so in the document profile
 * a success that may not grow the window does not forgive failed cohorts
 * either; that is the document's layout, kept as written.
 *
 * Example: g = 1/N at window 4, with enough deliveries in flight for the
 * safety rule: success goes 0.25, 0.5, 0.75, 1 and the window becomes 5
 * at the fourth success, the end of a pseudo-cohort.  With g = 1 (the
 * default) every success adds one: the old scheduler's growth.
 *
 * Why "while" and not "if": with g in [0, 1] and success below 1 before,
 * the loop runs at most once; the pseudocode writes a loop to stay correct
 * should feedback ever exceed the hysteresis ("be prepared for feedback >
 * hysteresis, or rounding error").  A step up resets failure: the new
 * window starts a fresh negative cycle.
 */
static void feedback_positive(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    int old = q->window, allowed;
    int revives = QS_READING(s, QR_DEAD_SUCCESS) == QRV_DEAD_SUCCESS_REVIVES;
    double g, before, cohorts;
    if (q->dead) {
        /* S-PFX-8: Postfix revives at once, cancelling the backoff, with
         * the deliveries still in flight (including this one).
         * S-CON-11: the document profile ignores it; the destination stays
         * dead until its backoff expires.  (Reading R-15 dead_success:
         * ignored, or revives, the postfix profile's default.)
         * A delivery started before the death can still succeed.  The
         * document has a dead destination's concurrency at 0 and guards
         * nothing else with it, so the success has nowhere to go; Postfix
         * takes it as proof of life. */
        qsi_conc_trace_backoff(s, q, revives ? QS_BACKOFF_OK_REVIVES
                                             : QS_BACKOFF_OK_IGNORED);
        if (revives)
            qsi_queue_revive(s, q, (int)q->busy);
        return;
    }
    /* R-6 safety_cohort_reset, taken here at the caller around the proved
     * helpers.  The postfix profile's helper resets fail_cohorts on every
     * positive feedback (done, S-PFX-5), the document profile's with the
     * step only (skipped: the safety rule holds back the whole block). */
    cohorts = q->fail_cohorts;
    /* S-CON-3 (S-PFX-3, S-PFX-5, S-PFX-6): may the window grow? */
    allowed = queue_positive_allowed(q, t, qsi_postfix(s));
    qsi_conc_trace_safety(s, q, allowed);
    if (allowed) {
        /* S-CON-4, S-CON-5 (S-PFX-2) */
        before = q->success;
        g = queue_positive_step(q, t, qsi_postfix(s));
        qsi_conc_trace_step(s, q, QS_T_SUCCESS, &t->pos, old, g, before,
                            q->success, qsi_postfix(s));
    } else if (QS_READING(s, QR_SAFETY_COHORT_RESET) == QRV_SAFETY_RESETS) {
        /* done: the safety rule holds back the window only;
         * "fail_cohorts = 0" still runs. */
        q->fail_cohorts = 0;
    } else {
        /* skipped (the postfix profile's helper reset it already): the
         * safety rule holds back the reset too. */
        q->fail_cohorts = cohorts;
    }
    qsi_conc_trace_window(s, q, old);
    qsi_queue_update_ready(q);
}

/* "After failure", the count: S-CON-6 ("fail_cohorts += 1.0 /
 * concurrency") and the cohort rule, S-CON-8 (document: the count exceeds
 * the limit) / S-PFX-1 (Postfix: reaches a non-zero limit).  Returns 1 when
 * the destination must be declared dead; dying skips the window step (the
 * pseudocode's second "if (concurrency > 0)" is false after
 * "concurrency = 0").  Apart from feedback_negative so that WP proves it. */
static int (queue_negative_count)(qs_queue *q, const qs_transport *t,
                                  int postfix)
{
    q->fail_cohorts = qs_cohort_add(q->fail_cohorts, q->window);
    return qs_cohort_dead(q->fail_cohorts, t->cohort_limit, postfix);
}

/* "After failure", the step of a destination that stays alive (S-CON-7;
 * the postfix profile's rounding guard, S-PFX-2): failure -= f(N), the
 * window steps down at the start of each cycle of 1/f failures, never
 * below 1.  Returns f(N). */
static double (queue_negative_step)(qs_queue *q, const qs_transport *t,
                                    int postfix)
{
    double f = qs_fb_value(t->neg.form, t->neg.base, q->window);
    q->window = qs_failure_step(q->window, f, postfix, &q->success,
                                &q->failure);
    return f;
}

/*
 * "After failure" (negative feedback: a connection or handshake failure,
 * the `fail` outcome).  The pseudocode:
 *
 *     if (concurrency > 0)
 *         fail_cohorts += 1.0 / concurrency
 *         if (fail_cohorts > cohort_failure_limit)
 *             concurrency = 0                      declared dead
 *     if (concurrency > 0)
 *         failure -= f(concurrency)
 *         while (failure < 0)                      reverse hysteresis
 *             concurrency -= 1
 *             failure += 1
 *             success = 0
 *         if (concurrency < 1)
 *             concurrency = 1
 *
 * "concurrency > 0" is "not dead" here: a dead queue keeps its last window
 * for the record, and the dead flag stands for the 0.
 *
 * Pseudo-cohorts (S-CON-6, S-CON-8): each failure is worth 1/window of a
 * cohort, so the limit counts whole windows' worth of failures, however
 * large the window.  This is what separates death from the window: with
 * feedback 1/N the window would take very long to reach 0, so death can no
 * longer mean "window reached 0".  Any success resets the count (above),
 * so only failures without successes in between add up.
 *
 * Reverse hysteresis (S-CON-7): failure starts at 0 and the first
 * failure of a cycle drives it below 0, so the window drops at once and
 * the next 1/f - 1 failures only pay the debt back.  Positive feedback
 * does the opposite (the step comes at the end of its cycle).  The reason
 * is the one in the file header: overload must be corrected early.  The
 * price, which the document states too, is sensitivity to noise: one
 * lone failure costs a whole step.
 *
 * Example: constant f = 1/4.  Failure 1 takes failure from 0 to -0.25:
 * window - 1, failure 0.75.  Failures 2, 3 and 4 bring it to 0.5, 0.25
 * and 0 with no step; failure 5 starts the next cycle with a step.  So the
 * steps come at failures 1, 5, 9, ...: the start of each cycle of 1/f.
 */
static void feedback_negative(qs_sched *s, qs_queue *q)
{
    qs_transport *t = q->transport;
    int old = q->window;
    double f, before;
    if (q->dead) {
        /* the pseudocode's "if (concurrency > 0)" */
        qsi_conc_trace_backoff(s, q, QS_BACKOFF_FAIL_IGNORED);
        return;
    }
    /* S-CON-6, S-CON-8 / S-PFX-1 */
    before = q->fail_cohorts;
    if (queue_negative_count(q, t, qsi_postfix(s))) {
        qsi_conc_trace_cohort(s, q, before, 1);
        queue_die(s, q);
        return;
    }
    qsi_conc_trace_cohort(s, q, before, 0);
    /* S-CON-7 (S-PFX-2: rounding guard, here failure - f/2 < 0) */
    before = q->failure;
    f = queue_negative_step(q, t, qsi_postfix(s));
    qsi_conc_trace_step(s, q, QS_T_FAILURE, &t->neg, old, f, before,
                        q->failure, qsi_postfix(s));
    qsi_conc_trace_window(s, q, old);
    qsi_queue_update_ready(q);
}

/*
 * S-CON-12: the outcome of a finished delivery as feedback.  `fail` is a
 * connection or handshake failure: negative.  `ok` is positive, and so is
 * `defer`: the recipient was refused after the handshake, which says the
 * server talks to us at this concurrency (the document counts as positive
 * every delivery "that does not fail with connection or handshake
 * failure").  Called by qs_done, before or after it removes the delivery
 * from busy depending on the profile (S-PFX-6).
 */
void qsi_feedback(qs_sched *s, qs_queue *q, enum qs_outcome outcome)
{
    if (outcome == QS_DONE_FAIL)
        feedback_negative(s, q);
    else
        feedback_positive(s, q);
}
