/*
 * state_text.c - the scheduler's state as text: qs_describe for people,
 * qs_encode_state for the bounded model checker.
 *
 * Owns: qs_describe (what `qsched verify` prints at a divergence) and
 * qs_encode_state (the canonical encoding by which proofs/bmc recognises
 * a state it has already explored).  Split from check.c, which checks the
 * state; this file only writes it out.  Both are read-only over the
 * core's structures (sched_int.h) and do no I/O: they format into the
 * caller's buffer.
 *
 * Implements no section of SCHEDULER_README.  It shows the quantities the
 * document reasons with - the scheduler's job list with each job's
 * available delivery slot counter and stack level (the preemption
 * chapter), each destination's window, deliveries in flight and pending
 * entries (the concurrency chapter) - so that an implementer comparing
 * against qsched sees which of them they computed differently.  May not:
 * change the state, or depend on addresses (the encoding must be equal for
 * states that behave alike, whatever the allocator did).
 */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include "sched_int.h"

/* ---- text output into a caller's buffer ----
 * qs_describe and qs_encode_state follow snprintf's contract: write what
 * fits, always report the length needed, so a caller can size its buffer
 * with a first call.  The core does no I/O; these only format. */

/* The caller's buffer: buf of cap bytes (cap may be 0, buf NULL), and
 * len, the length the whole text needs, which goes on growing after the
 * buffer is full so that the return value is right. */
typedef struct sbuf {
    char *buf;
    size_t len, cap;
} sbuf;

/* Appends with vsnprintf's contract: writes what fits (always
 * terminated), counts everything.  A negative return (an encoding error,
 * impossible with these formats) adds nothing. */
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *dst = b->len < b->cap ? b->buf + b->len : NULL;
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    va_start(ap, fmt);
    n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}

/* For people: what `qsched verify` prints at a divergence - per
 * transport, the scheduler's job list in order (the current job starred,
 * with level, counter, selected/maximum entries, blocker and preempting
 * marks) and each destination's window, deliveries in flight and pending
 * entries.  These are the numbers the preemption and feedback rules read,
 * so an implementer can see which one they computed differently. */
/* Example item of a job list: "*M1(level 0, counter -3, selected 4/10)":
 * M1 is the current job, on no stack, has paid for a preemption and not
 * yet earned it back (a negative counter, S-PRE-8), and has handed out 4
 * of at most 10 entries. */
size_t qs_describe(const qs_sched *s, char *buf, size_t buflen)
{
    sbuf b = {buf, 0, buflen};
    const qs_transport *t;
    if (buflen)
        buf[0] = 0;
    /* The scheduler-wide line: the clock and the two memory counts
     * (S-MEM-2, S-MEM-3) a reader checks first. */
    sb_printf(&b, "time %lld, %lld messages active, %lld recipients in "
              "core\n", (long long)s->now, (long long)s->active_count,
              (long long)s->in_core);
    for (t = s->xhead; t; t = t->next) {
        const qs_job *j;
        const qs_queue *q;
        sb_printf(&b, "transport %s: %lld in flight (process limit %d), "
                  "pool %lld\n  job list:", t->name, (long long)t->in_flight,
                  t->process_limit, (long long)t->rcpt_unused);
        /* The job list in the scheduler's order, which after preemptions
         * is no longer arrival order: the order in which the selection
         * walk of S-PRE-2 will look at the jobs.  The maximum is the
         * S-MEM-8 estimate, so it shrinks as unread recipients turn out
         * to belong to other transports or to join existing entries. */
        for (j = t->jhead; j; j = j->lnext)
            sb_printf(&b, " %s%s(level %d, counter %lld, selected %lld/%lld"
                      "%s%s)", j == t->job_current ? "*" : "",
                      j->message->id, j->stack_level,
                      (long long)j->slots_available,
                      (long long)j->selected_entries,
                      (long long)QS_MAX_ENTRIES(j),
                      qsi_is_blocker(j) ? ", blocker" : "",
                      j->parent ? ", preempting " : "");
        /* Dead destinations show only what is still in flight: their
         * window is frozen and nothing can be pending (S-CON-9). */
        sb_printf(&b, "\n  destinations:");
        for (q = t->qhead; q; q = q->next) {
            if (q->dead)
                sb_printf(&b, " %s(dead, %lld in flight)", q->name,
                          (long long)q->busy);
            else
                sb_printf(&b, " %s(window %d, %lld in flight, %lld pending)",
                          q->name, q->window, (long long)q->busy,
                          (long long)q->todo);
        }
        sb_printf(&b, "\n");
    }
    return b.len;
}

/* Canonical encoding: every field that influences future behaviour, in
 * list order, with objects named by message id / destination name (never
 * by address).  Doubles are written as their exact hex form.
 * The model checker stores the encodings of states it has explored and
 * prunes a state whose encoding it has seen: sound only if equal
 * encodings behave alike on every future event (qsched.h promises it;
 * proofs/bmc re-checks merged states).  Hence every list is written in
 * its own order (the order is behaviour: round robin, job list, peer
 * rotation), counters that only statistics read are left out, and so are
 * serial numbers; handles are kept (in flight: a `done` names them; the
 * next one: it names the next delivery).
 *
 * The format, section by section (sections separated by '|'):
 *   T now  H next handle  C recipients in core  R round-robin transport
 *   per active message: M id q enqueue time g group.offset (read cursor)
 *     u unread c in core l limit f last read d delivered x deferred;
 *     per waiting message: W id;
 *   per transport: X name p pool cur current job un first unread job,
 *     then per queue: Q name w window s success f failure c fail_cohorts
 *     d dead r revive time b blocking, its pending entries t msg/n and
 *     in-flight entries D handle/msg/n;
 *     then per job in scheduler's-list order: J msg L level P parent
 *     B blocker a counter u slots_used s selected r read c in core
 *     l slots, and its peers in round-robin order;
 *     then the by-time list;
 *   per retired job: r msg/transport with the same counters;
 *   g: each message's unread recipient groups. */
size_t qs_encode_state(const qs_sched *s, char *buf, size_t buflen)
{
    sbuf b = {buf, 0, buflen};
    const qs_transport *t;
    const qs_message *m;
    if (buflen)
        buf[0] = 0;
    /* the scheduler: clock, next handle, in core, round robin (S-PRE-14):
     * the transport the next select starts from (readings transport_rr =
     * next, rotate), or the one after which it starts (last: the document
     * profile's; a transport created later changes where that is, so the
     * transport itself is the state).  A state holds one reading, so one
     * field serves. */
    sb_printf(&b, "T%lld H%lld C%lld R%s", (long long)s->now,
              (long long)s->next_handle, (long long)s->in_core,
              QS_READING(s, QR_TRANSPORT_RR) == QRV_RR_LAST
                  ? (s->rr_last ? s->rr_last->name : "-")
                  : (s->rr ? s->rr->name : "-"));
    if (QS_READING(s, QR_TRANSPORT_RR) == QRV_RR_ROTATE && s->rr) {
        /* S-PFX-13: the round-robin cycle is not the creation order: the
         * rest of it, after the transport where the next select starts */
        for (t = s->rr->rr_next; t != s->rr; t = t->rr_next)
            sb_printf(&b, ",%s", t->name);
    }
    sb_printf(&b, "|");
    /* active messages in activation order: the order of later batches
     * and of the by-time list.  The read cursor (g.offset) says where the
     * next batch starts; f, the last read time, decides the refill delay
     * (S-MEM-7); l and c the room of the next batch (S-MEM-4).  " e"
     * (postfix profile): the last read filled its limit (S-PFX-16). */
    for (m = s->active_head; m; m = m->next)
        sb_printf(&b, "M%s%s q%lld g%zu.%lld u%lld c%lld l%lld f%lld d%lld "
                  "x%lld;", m->id, m->end_unseen ? " e" : "",
                  (long long)m->queued_time, m->cur_group,
                  (long long)m->cur_offset, (long long)m->rcpt_unread,
                  (long long)m->rcpt_count, (long long)m->rcpt_limit,
                  (long long)m->refill_time, (long long)m->delivered,
                  (long long)m->deferred);
    /* waiting messages: only their order matters until they enter (the
     * incoming queue is first come, first served, S-MEM-2); their counts
     * are all still unread and appear in the last section */
    for (m = s->incoming_head; m; m = m->next)
        sb_printf(&b, "W%s;", m->id);
    for (t = s->xhead; t; t = t->next) {
        const qs_job *j;
        const qs_queue *q;
        sb_printf(&b, "|X%s p%lld cur%s un%s|", t->name,
                  (long long)t->rcpt_unused,
                  t->job_current ? t->job_current->message->id : "-",
                  t->job_next_unread ? t->job_next_unread->message->id : "-");
        /* S-PFX-20: a valid candidate cache (the answer, its current job,
         * its time); its jobs are the transport's, named by message */
        if (t->cand_current)
            sb_printf(&b, "C%s,%s,%lld|",
                      t->cand_cache ? t->cand_cache->message->id : "-",
                      t->cand_current->message->id, (long long)t->cand_time);
        /* each destination: the feedback state of the pseudocode
         * (concurrency, success, failure, fail_cohorts) written exactly
         * with %a, since a rounded decimal could merge two states that
         * reach the next step at different deliveries; then its entries
         * in queue order, the order selection takes them. */
        for (q = t->qhead; q; q = q->next) {
            const qs_entry *e;
            sb_printf(&b, "Q%s w%d s%a f%a c%a d%d r%lld b%d:", q->name,
                      q->window, q->success, q->failure, q->fail_cohorts,
                      q->dead, (long long)q->revive_at,
                      qsi_queue_marked(q));
            for (e = q->todo_head; e; e = e->qnext)
                sb_printf(&b, "t%s/%lld,", e->peer->job->message->id,
                          (long long)e->nrcpt);
            for (e = q->busy_head; e; e = e->qnext)
                sb_printf(&b, "D%lld/%s/%lld,", (long long)e->handle,
                          e->peer->job->message->id, (long long)e->nrcpt);
            sb_printf(&b, ";");
        }
        /* each job on the scheduler's list, in list order (the order of
         * entry selection, S-PRE-2), with what the preemption test reads:
         * level and parent (the stack, S-PRE-8..10), the slot counter
         * (S-PRE-4), selected and read entries (S-MEM-8), and its
         * recipient slots (S-MEM-5); its peers in round-robin order. */
        for (j = t->jhead; j; j = j->lnext) {
            const qs_peer *p;
            sb_printf(&b, "J%s L%d P%s B%d a%lld u%lld s%lld r%lld c%lld "
                      "l%lld:", j->message->id, j->stack_level,
                      j->parent ? j->parent->message->id : "-",
                      qsi_is_blocker(j), (long long)j->slots_available,
                      (long long)j->slots_used,
                      (long long)j->selected_entries,
                      (long long)j->read_entries, (long long)j->rcpt_count,
                      (long long)j->rcpt_limit);
            for (p = j->peer_head; p; p = p->next)
                sb_printf(&b, "%s,", p->queue->name);
            sb_printf(&b, ";");
        }
        /* the by-time list can differ from the scheduler's list once
         * preemption has moved jobs; the pools follow it (S-MEM-5) */
        sb_printf(&b, "by-time:");
        for (j = t->thead; j; j = j->tnext)
            sb_printf(&b, "%s,", j->message->id);
    }
    /* retired jobs keep counters that matter if they come back (relinked
     * by a later batch, S-PRE-13) */
    for (m = s->active_head; m; m = m->next) {
        const qs_job *j;
        for (j = m->jobs; j; j = j->mnext)
            if (j->stack_level < 0)
                sb_printf(&b, "|r%s/%s a%lld u%lld s%lld r%lld c%lld l%lld",
                          m->id, j->transport->name,
                          (long long)j->slots_available,
                          (long long)j->slots_used,
                          (long long)j->selected_entries,
                          (long long)j->read_entries,
                          (long long)j->rcpt_count,
                          (long long)j->rcpt_limit);
    }
    /* the recipients still unread, active and waiting messages: they decide
     * future batches (a last section, so that readers of the fields above
     * need not know it) */
    sb_printf(&b, "|g");
    for (m = s->active_head; m; m = m->next) {
        size_t g;
        sb_printf(&b, "%s", m->id);
        for (g = m->cur_group; g < m->ngroups; g++)
            sb_printf(&b, " %s:%s@%s*%lld", m->groups[g].transport,
                      m->groups[g].local ? m->groups[g].local : "",
                      m->groups[g].nexthop,
                      (long long)(m->groups[g].count -
                                  (g == m->cur_group ? m->cur_offset : 0)));
        sb_printf(&b, ";");
    }
    for (m = s->incoming_head; m; m = m->next) {
        size_t g;
        sb_printf(&b, "%s", m->id);
        for (g = 0; g < m->ngroups; g++)
            sb_printf(&b, " %s:%s@%s*%lld", m->groups[g].transport,
                      m->groups[g].local ? m->groups[g].local : "",
                      m->groups[g].nexthop, (long long)m->groups[g].count);
        sb_printf(&b, ";");
    }
    return b.len;
}
