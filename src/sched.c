/*
 * sched.c - the scheduler object: creating and destroying it, the
 * transports it knows, the clock, and the read-only accessors of qsched.h.
 *
 * Owns: qs_sched_new, qs_sched_free, qs_advance and the statistics and
 * in-flight accessors; transports and their resolved parameters (S-EV-2,
 * S-EV-5, S-PFX-7, S-PFX-9); the small helpers every core file shares
 * (trace emission, allocation that aborts, the profile test).
 * Implements no section of SCHEDULER_README by itself: it is the glue the
 * concept files hang from.  May not: take scheduling decisions (they live
 * in concurrency.c, jobs.c, preempt.c, select.c, memory.c, messages.c,
 * assign.c) or do I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "kernels.h"

void qsi_seterr(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

void qsi_emit(qs_sched *s, qs_trace *r)
{
    r->time = s->now;
    if (s->sink)
        s->sink(s->ctx, r);
}

qs_trace qsi_trace_init(enum qs_trace_kind kind)
{
    qs_trace r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    return r;
}

void *qsi_calloc(size_t n, size_t size)
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

char *qsi_strdup(const char *str)
{
    size_t n = strlen(str) + 1;
    char *p = qsi_calloc(1, n);
    memcpy(p, str, n);
    return p;
}

void qsi_map_put(qs_map *m, const char *str, uint64_t num, void *v)
{
    if (qs_map_put(m, str, num, v) < 0) {
        abort(); /* out of memory: see qsi_calloc */
    }
}

int qsi_postfix(const qs_sched *s)
{
    return s->profile == QS_PROFILE_POSTFIX;
}

static int64_t pint(const qs_sched *s, const char *t, int id)
{
    return qs_param_int(s->params, t, id);
}

qs_transport *qsi_transport_find(const qs_sched *s, const char *name)
{
    return qs_map_get(&s->transports, name, 0);
}

/* S-EV-2: parameters resolve TRANSPORT_suffix, built-in, default_suffix. */
qs_transport *qsi_transport_obtain(qs_sched *s, const char *name)
{
    qs_transport *t = qsi_transport_find(s, name);
    if (t)
        return t;
    t = qsi_calloc(1, sizeof *t);
    t->name = qsi_strdup(name);
    t->serial = ++s->serial;
    t->slot_cost = (int)pint(s, name, QP_SLOT_COST);
    t->slot_loan = (int)pint(s, name, QP_SLOT_LOAN);
    t->slot_discount = (int)pint(s, name, QP_SLOT_DISCOUNT);
    t->min_slots = (int)pint(s, name, QP_MIN_SLOTS);
    t->dest_conc_limit = (int)pint(s, name, QP_DEST_CONC_LIMIT);
    t->dest_rcpt_limit = (int)pint(s, name, QP_DEST_RCPT_LIMIT);
    t->init_conc = (int)pint(s, name, QP_INIT_CONC);
    /* S-PFX-9: Postfix lowers the initial window to a non-zero limit. */
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
    /* S-PFX-7: Postfix 3.x has the sqrt form compiled out: warn, use 1. */
    if (qsi_postfix(s)) {
        qs_feedback *fbs[2] = {&t->pos, &t->neg};
        int i;
        for (i = 0; i < 2; i++) {
            if (fbs[i]->form == QS_FB_SQRT) {
                qs_trace r = qsi_trace_init(QS_T_FBWARN);
                fbs[i]->form = QS_FB_CONST;
                fbs[i]->base = 1;
                r.transport = t->name;
                r.a = i; /* 0 positive, 1 negative */
                qsi_emit(s, &r);
            }
        }
    }
    t->blocker_tag = 1;
    /* S-MEM-5: the pool starts with TRANSPORT_recipient_limit slots. */
    t->rcpt_unused = t->rcpt_limit;
    qs_map_init(&t->queues);
    qsi_map_put(&s->transports, t->name, 0, t);
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
    /* S-EV-5: the document profile has no "0 = no limit" convention. */
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
        qsi_message_free(m);
    }
    for (m = s->incoming_head; m; m = mn) {
        mn = m->next;
        qsi_message_free(m);
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
        qsi_seterr(err, errlen, "time goes backwards");
        return -1;
    }
    s->now = now;
    /* S-CON-10: revive dead destinations whose backoff has expired, in
     * the order they died. */
    while (s->dead_head && s->dead_head->revive_at <= s->now) {
        qs_queue *q = s->dead_head;
        qsi_queue_revive(s, q, (int)q->busy);
        qsi_blocker_update(s, q);
        qsi_queue_free_if_idle(s, q);
    }
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
    h = qsi_calloc(n, sizeof *h);
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
