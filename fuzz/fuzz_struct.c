/*
 * fuzz/fuzz_struct.c - the structured harness: fuzz bytes are choices
 * that always make a valid event stream.
 *
 * Owns: driving the core through the qsched.h API (qs_sched_new,
 * qs_arrive, qs_select, qs_done, qs_advance) with streams that cannot be
 * rejected, so the fuzzer spends its time deep in scheduler states (job
 * stacks, blockers, pools, dead destinations) instead of in syntax errors.
 *
 * Reading the bytes (each choice takes one byte, modulo the number of
 * options; a missing byte reads as 0):
 *   1. mode: profile (document or postfix), and whether to drain at the
 *      end (3 times in 4) or free the scheduler with everything still in
 *      it (so qs_sched_free runs on live state under the sanitizers);
 *   2. one byte per entry of param_table: one of its values, or "leave
 *      the default" (the last choice).  Values are small so that slots,
 *      loans, preemption, batching, recipient pools and refills happen
 *      with few recipients; feedback takes every form (S-CON-2);
 *   3. up to 3 per-transport overrides (TRANSPORT_suffix), each: transport,
 *      parameter, value;
 *   4. events until the bytes run out (at most QSF_STRUCT_MAX_EVENTS):
 *      arrive (1..6 groups over transports smtp/relay/local, next-hops
 *      a..d.example, an optional local part, 1..40 recipients each),
 *      select (any transport, or a named one, or one never used), done
 *      of an in-flight handle (picked with qs_in_flight_count and
 *      qs_in_flight_nth) with ok/fail/defer, bursts of selects or dones,
 *      and time steps;
 *   5. unless the mode says otherwise, a drain: select and complete `ok`
 *      until every recipient is delivered or deferred, advancing time when
 *      nothing is selectable.
 * Messages stop arriving once QSF_STRUCT_MAX_RCPTS recipients arrived, so
 * one execution stays in the millisecond range.
 *
 * Checked after every event: qs_check_invariants; the API contract of
 * qsched.h (a valid call succeeds; handles are D1, D2, ... in selection
 * order (S-EV-8); a delivery is in flight until done; a requested transport
 * is the one delivering; a delivery carries 1 .. destination recipient
 * limit recipients (S-PRE-1); a transport never exceeds its process limit
 * (S-PRE-14)); the trace contract (fuzz/common.c).  After the drain: every
 * message left exactly once, with delivered + deferred equal to what it
 * arrived with (S-INV-1), and the counters of qs_get_stats agree with what
 * the harness itself saw.  The drain must finish: a state where recipients
 * remain, nothing is in flight and no time step makes anything selectable
 * is a finding (liveness).
 * With QSCHED_FUZZ_ECHO=1 the equivalent event stream is written on stdout
 * (a reproducer for `qsched --check-invariants`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define QSF_STRUCT_MAX_INPUT 4096
#define QSF_STRUCT_MAX_EVENTS 1000
#define QSF_STRUCT_MAX_RCPTS 400
/* time step that makes any backoff (minimal_backoff_time <= 300s here)
 * and any refill delay (<= 60s here) expire */
#define QSF_STRUCT_LONG_STEP 400
#define QSF_STRUCT_MAX_STALLS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NTRANSPORTS = 3 };
static const char *const transports[NTRANSPORTS] = {"smtp", "relay",
                                                    "local"};
static const char *const nexthops[] = {"a.example", "b.example",
                                       "c.example", "d.example"};
static const char *const locals[] = {"u1", "u2", "u3"};
static const int64_t time_steps[] = {1, 2, 3, 5, 10, 30, 60, 100,
                                     299, 300, 301, 1000};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One parameter the harness varies; values end with NULL. */
struct qsf_param {
    const char *global;   /* main.cf name */
    const char *suffix;   /* TRANSPORT_suffix form, or NULL: global only */
    const char *values[9];
};

enum {
    P_DEST_CONC_LIMIT = 4,
    P_DEST_RCPT_LIMIT = 9,
    P_PROCESS_LIMIT = 14
};

static const struct qsf_param param_table[] = {
    {"default_delivery_slot_cost", "delivery_slot_cost",
     {"0", "1", "2", "3", "4", "5", NULL}},
    {"default_delivery_slot_discount", "delivery_slot_discount",
     {"0", "50", "100", NULL}},
    {"default_delivery_slot_loan", "delivery_slot_loan",
     {"0", "1", "2", "3", NULL}},
    {"default_minimum_delivery_slots", "minimum_delivery_slots",
     {"0", "1", "2", "3", NULL}},
    [P_DEST_CONC_LIMIT] = {"default_destination_concurrency_limit",
                           "destination_concurrency_limit",
                           {"1", "2", "3", "4", "0", NULL}},
    {"initial_destination_concurrency", "initial_destination_concurrency",
     {"1", "2", "3", "4", NULL}},
    {"default_destination_concurrency_positive_feedback",
     "destination_concurrency_positive_feedback",
     {"1", "1/concurrency", "1/sqrt_concurrency", "0.5", "1/4", "0",
      "0.5/concurrency", "1/3", NULL}},
    {"default_destination_concurrency_negative_feedback",
     "destination_concurrency_negative_feedback",
     {"1", "1/concurrency", "1/sqrt_concurrency", "0.5", "1/4", "0",
      "0.5/concurrency", "1/3", NULL}},
    {"default_destination_concurrency_failed_cohort_limit",
     "destination_concurrency_failed_cohort_limit",
     {"0", "1", "2", "3", NULL}},
    [P_DEST_RCPT_LIMIT] = {"default_destination_recipient_limit",
                           "destination_recipient_limit",
                           {"1", "2", "3", "50", NULL}},
    {"default_recipient_limit", "recipient_limit",
     {"1", "2", "3", "5", "10", "20", "100", NULL}},
    {"default_extra_recipient_limit", "extra_recipient_limit",
     {"0", "1", "2", "5", "10", "1000", NULL}},
    {"default_recipient_refill_limit", "recipient_refill_limit",
     {"1", "2", "5", "10", "100", NULL}},
    {"default_recipient_refill_delay", "recipient_refill_delay",
     {"1s", "5s", "60s", NULL}},
    [P_PROCESS_LIMIT] = {"default_process_limit", "process_limit",
                         {"1", "2", "3", "100", NULL}},
    {"qmgr_message_active_limit", NULL, {"1", "2", "3", "5", "20000", NULL}},
    {"qmgr_message_recipient_limit", NULL,
     {"1", "2", "5", "10", "20", "50", "20000", NULL}},
    {"qmgr_message_recipient_minimum", NULL, {"1", "2", "5", "10", NULL}},
    {"minimal_backoff_time", NULL, {"1s", "10s", "300s", NULL}},
};
#define NPARAMS NELEM(param_table)
/* the entries with a suffix come first in param_table */
#define NXPARAMS 15

/* The byte reader. */
typedef struct qsf_bytes {
    const uint8_t *p;
    size_t n, i;
} qsf_bytes;

static unsigned pick(qsf_bytes *b, unsigned k)
{
    if (k <= 1 || b->i >= b->n) {
        if (b->i < b->n)
            b->i++;
        return 0;
    }
    return b->p[b->i++] % k;
}

static size_t nvalues(const struct qsf_param *p)
{
    size_t n = 0;
    while (p->values[n])
        n++;
    return n;
}

/* The state of one execution. */
typedef struct qsf_state {
    qs_sched *s;
    qsf_run run;
    int postfix;
    int drain;
    int echo;
    /* effective per-transport limits, as the harness resolves them from
     * the parameters it set (S-EV-2, S-EV-3) */
    int64_t dest_rcpt_limit[NTRANSPORTS];
    int64_t process_limit[NTRANSPORTS];
    /* messages M1 .. Mnmsg */
    int64_t msg_total[QSF_STRUCT_MAX_RCPTS + 1];
    unsigned char msg_left[QSF_STRUCT_MAX_RCPTS + 1];
    size_t nmsg;
    int64_t arrived_rcpts;
    /* deliveries D1 .. Dndeliv: recipients of each */
    int64_t *nrcpt;
    size_t nrcpt_cap;
    int64_t ndeliv;
    int64_t ok_rcpts, bad_rcpts;
    int64_t events;
} qsf_state;

static int transport_index(const char *name)
{
    int i;
    for (i = 0; i < NTRANSPORTS; i++)
        if (name && strcmp(name, transports[i]) == 0)
            return i;
    return -1;
}

static void set_param(qs_params *p, qsf_state *x, const char *name,
                      const char *value)
{
    char err[256];
    if (qs_params_set(p, name, value, err, sizeof err) < 0)
        qsf_finding("valid parameter %s = %s refused: %s", name, value, err);
    if (x->echo)
        printf("%s = %s\n", name, value);
}

/* Steps 1-3: the profile and the parameter mix; creates the scheduler. */
static void setup(qsf_state *x, qsf_bytes *b)
{
    qs_params *p = qs_params_new();
    char err[256], name[128];
    int64_t g_rcpt = 50, g_proc = 100, ov_rcpt[NTRANSPORTS],
            ov_proc[NTRANSPORTS];
    size_t i;
    int t;
    unsigned nov, mode;
    if (!p)
        qsf_finding("out of memory");
    for (t = 0; t < NTRANSPORTS; t++)
        ov_rcpt[t] = ov_proc[t] = -1;
    mode = pick(b, 8);
    x->postfix = (int)(mode & 1);
    x->drain = (mode >> 1) != 3;
    if (x->echo)
        printf("profile %s\n", x->postfix ? "postfix" : "document");
    for (i = 0; i < NPARAMS; i++) {
        const struct qsf_param *q = &param_table[i];
        size_t nv = nvalues(q);
        unsigned v;
        /* S-EV-5: a concurrency limit of 0 (no limit) is postfix-only */
        if (i == P_DEST_CONC_LIMIT && !x->postfix)
            nv--;
        v = pick(b, (unsigned)nv + 1);
        if (v == nv)
            continue;
        set_param(p, x, q->global, q->values[v]);
        if (i == P_DEST_RCPT_LIMIT)
            g_rcpt = atoll(q->values[v]);
        if (i == P_PROCESS_LIMIT)
            g_proc = atoll(q->values[v]);
    }
    nov = pick(b, 4);
    while (nov--) {
        unsigned tr = pick(b, NTRANSPORTS), k = pick(b, NXPARAMS);
        const struct qsf_param *q = &param_table[k];
        size_t nv = nvalues(q);
        unsigned v;
        if (k == P_DEST_CONC_LIMIT && !x->postfix)
            nv--;
        v = pick(b, (unsigned)nv);
        snprintf(name, sizeof name, "%s_%s", transports[tr], q->suffix);
        set_param(p, x, name, q->values[v]);
        if (k == P_DEST_RCPT_LIMIT)
            ov_rcpt[tr] = atoll(q->values[v]);
        if (k == P_PROCESS_LIMIT)
            ov_proc[tr] = atoll(q->values[v]);
    }
    for (t = 0; t < NTRANSPORTS; t++) {
        /* override, else the built-in local default (S-EV-3), else the
         * global value */
        x->dest_rcpt_limit[t] = ov_rcpt[t] >= 0 ? ov_rcpt[t]
                                : strcmp(transports[t], "local") == 0
                                    ? 1
                                    : g_rcpt;
        x->process_limit[t] = ov_proc[t] >= 0 ? ov_proc[t] : g_proc;
    }
    x->s = qs_sched_new(p, x->postfix ? QS_PROFILE_POSTFIX
                                      : QS_PROFILE_DOCUMENT,
                        qsf_sink, &x->run, err, sizeof err);
    qs_params_free(p);
    if (!x->s)
        qsf_finding("valid parameter mix refused: %s", err);
    qsf_check(x->s, "qs_sched_new");
}

static void ev_arrive(qsf_state *x, qsf_bytes *b)
{
    qs_group g[6];
    unsigned ng = 1 + pick(b, 6), i;
    int64_t total = 0;
    char id[32], err[256];
    for (i = 0; i < ng; i++) {
        unsigned lp = pick(b, NELEM(locals) + 1);
        g[i].transport = transports[pick(b, NTRANSPORTS)];
        g[i].nexthop = nexthops[pick(b, NELEM(nexthops))];
        g[i].local = lp ? locals[lp - 1] : NULL;
        g[i].count = 1 + pick(b, 40);
        total += g[i].count;
    }
    if (x->arrived_rcpts + total > QSF_STRUCT_MAX_RCPTS)
        return;
    x->nmsg++;
    snprintf(id, sizeof id, "M%zu", x->nmsg);
    x->msg_total[x->nmsg] = total;
    x->arrived_rcpts += total;
    if (x->echo) {
        printf("arrive %s", id);
        for (i = 0; i < ng; i++)
            printf(" %s:%s%s%s*%lld", g[i].transport,
                   g[i].local ? g[i].local : "", g[i].local ? "@" : "",
                   g[i].nexthop, (long long)g[i].count);
        fputc('\n', stdout);
    }
    if (qs_arrive(x->s, id, g, ng, err, sizeof err) < 0)
        qsf_finding("valid arrive %s refused: %s", id, err);
    x->events++;
    qsf_check(x->s, "arrive");
}

static int64_t transport_in_flight(const qs_sched *s, const char *name)
{
    size_t i, n = qs_transport_count(s);
    for (i = 0; i < n; i++) {
        qs_transport_stats ts;
        qs_get_transport_stats(s, i, &ts);
        if (strcmp(ts.name, name) == 0)
            return ts.in_flight;
    }
    return -1;
}

/* which: 0 any transport, 1..3 transports[which-1], 4 one never used */
static int ev_select(qsf_state *x, unsigned which)
{
    const char *want = which == 0 ? NULL
                       : which <= NTRANSPORTS ? transports[which - 1]
                                              : "unused";
    size_t before = qs_in_flight_count(x->s);
    qs_delivery d;
    char err[256];
    int rc, t;
    if (x->echo)
        printf("select%s%s\n", want ? " " : "", want ? want : "");
    rc = qs_select(x->s, want, &d, err, sizeof err);
    x->events++;
    if (rc < 0)
        qsf_finding("valid select refused: %s", err);
    qsf_check(x->s, "select");
    if (rc == 0) {
        if (qs_in_flight_count(x->s) != before || d.handle != 0)
            qsf_finding("idle select changed the deliveries in flight");
        return 0;
    }
    /* S-EV-8: handles D1, D2, ... in selection order */
    if (d.handle != x->ndeliv + 1)
        qsf_finding("delivery handle D%lld, expected D%lld",
                    (long long)d.handle, (long long)(x->ndeliv + 1));
    if (!d.msg || !d.transport || !d.dest)
        qsf_finding("delivery D%lld without names", (long long)d.handle);
    if (want && strcmp(want, d.transport) != 0)
        qsf_finding("select %s delivered through %s", want, d.transport);
    t = transport_index(d.transport);
    if (t < 0)
        qsf_finding("delivery through unknown transport %s", d.transport);
    if (d.nrcpt < 1 || d.nrcpt > x->dest_rcpt_limit[t])
        qsf_finding("delivery D%lld of %lld recipients through %s "
                    "(destination recipient limit %lld)",
                    (long long)d.handle, (long long)d.nrcpt, d.transport,
                    (long long)x->dest_rcpt_limit[t]);
    if (!qs_in_flight(x->s, d.handle) ||
        qs_in_flight_count(x->s) != before + 1)
        qsf_finding("delivery D%lld is not in flight", (long long)d.handle);
    if (transport_in_flight(x->s, d.transport) > x->process_limit[t])
        qsf_finding("transport %s above its process limit %lld",
                    d.transport, (long long)x->process_limit[t]);
    if ((size_t)d.handle >= x->nrcpt_cap) {
        size_t cap = x->nrcpt_cap ? 2 * x->nrcpt_cap : 256;
        int64_t *n = realloc(x->nrcpt, cap * sizeof *n);
        if (!n)
            qsf_finding("out of memory");
        x->nrcpt = n;
        x->nrcpt_cap = cap;
    }
    x->nrcpt[d.handle] = d.nrcpt;
    x->ndeliv = d.handle;
    return 1;
}

static void ev_done(qsf_state *x, size_t nth, enum qs_outcome o)
{
    static const char *const names[] = {"ok", "fail", "defer"};
    size_t before = qs_in_flight_count(x->s);
    int64_t h;
    char err[256];
    if (before == 0)
        return;
    h = qs_in_flight_nth(x->s, nth % before);
    if (h < 1 || h > x->ndeliv || !qs_in_flight(x->s, h))
        qsf_finding("qs_in_flight_nth gave D%lld", (long long)h);
    if (x->echo)
        printf("done D%lld %s\n", (long long)h, names[o]);
    if (qs_done(x->s, h, o, err, sizeof err) < 0)
        qsf_finding("done D%lld refused: %s", (long long)h, err);
    x->events++;
    qsf_check(x->s, "done");
    if (qs_in_flight(x->s, h) || qs_in_flight_count(x->s) != before - 1)
        qsf_finding("D%lld still in flight after done", (long long)h);
    if (o == QS_DONE_OK)
        x->ok_rcpts += x->nrcpt[h];
    else
        x->bad_rcpts += x->nrcpt[h];
}

static void ev_at(qsf_state *x, int64_t step)
{
    int64_t t = qs_now(x->s) + step;
    char err[256];
    if (x->echo)
        printf("at %lld\n", (long long)t);
    if (qs_advance(x->s, t, err, sizeof err) < 0)
        qsf_finding("at %lld refused: %s", (long long)t, err);
    x->events++;
    qsf_check(x->s, "at");
    if (qs_now(x->s) != t)
        qsf_finding("qs_now is %lld after at %lld", (long long)qs_now(x->s),
                    (long long)t);
}

static int64_t accounted(const qsf_state *x)
{
    return x->ok_rcpts + x->bad_rcpts + x->run.deferred_rcpts;
}

/* Step 5: complete everything; then every recipient must be accounted. */
static void drain(qsf_state *x)
{
    int stalls = 0;
    int64_t progress = -1;
    qs_stats st;
    size_t i, nt;
    if (x->echo)
        printf("# drain\n");
    while (accounted(x) < x->arrived_rcpts ||
           qs_in_flight_count(x->s) > 0) {
        if (ev_select(x, 0))
            continue;
        if (qs_in_flight_count(x->s) > 0) {
            ev_done(x, 0, QS_DONE_OK);
            continue;
        }
        /* nothing selectable, nothing in flight: only time can help */
        if (accounted(x) != progress) {
            progress = accounted(x);
            stalls = 0;
        } else if (++stalls > QSF_STRUCT_MAX_STALLS) {
            qsf_finding("stuck: %lld of %lld recipients accounted for, "
                        "nothing in flight, nothing selectable after %d "
                        "time steps of %ds",
                        (long long)accounted(x), (long long)x->arrived_rcpts,
                        QSF_STRUCT_MAX_STALLS, QSF_STRUCT_LONG_STEP);
        }
        ev_at(x, QSF_STRUCT_LONG_STEP);
    }
    if (accounted(x) != x->arrived_rcpts)
        qsf_finding("%lld recipients arrived, %lld delivered + %lld failed "
                    "or deferred by done + %lld deferred by the scheduler",
                    (long long)x->arrived_rcpts, (long long)x->ok_rcpts,
                    (long long)x->bad_rcpts,
                    (long long)x->run.deferred_rcpts);
    for (i = 1; i <= x->nmsg; i++)
        if (!x->msg_left[i])
            qsf_finding("message M%zu never left the queue", i);
    qs_get_stats(x->s, &st);
    if (st.messages_done != (int64_t)x->nmsg ||
        st.deliveries != x->ndeliv ||
        st.recipients_delivered != x->ok_rcpts ||
        st.recipients_deferred != x->bad_rcpts + x->run.deferred_rcpts)
        qsf_finding("qs_get_stats disagrees with the trace: done %lld/%zu "
                    "deliveries %lld/%lld delivered %lld/%lld deferred "
                    "%lld/%lld",
                    (long long)st.messages_done, x->nmsg,
                    (long long)st.deliveries, (long long)x->ndeliv,
                    (long long)st.recipients_delivered,
                    (long long)x->ok_rcpts,
                    (long long)st.recipients_deferred,
                    (long long)(x->bad_rcpts + x->run.deferred_rcpts));
    nt = qs_transport_count(x->s);
    for (i = 0; i < nt; i++) {
        qs_transport_stats ts;
        qs_get_transport_stats(x->s, i, &ts);
        if (ts.in_core != 0 || ts.in_flight != 0)
            qsf_finding("transport %s holds %lld recipients, %lld in flight"
                        " with an empty queue", ts.name,
                        (long long)ts.in_core, (long long)ts.in_flight);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qsf_state x;
    static jmp_buf stop;
    qsf_bytes b = {data, size, 0};
    if (size > QSF_STRUCT_MAX_INPUT)
        return 0;
    free(x.nrcpt);
    memset(&x, 0, sizeof x);
    if (setjmp(stop)) {
        /* a tolerated open finding (QSCHED_FUZZ_TOLERATE) ended it */
        qsf_set_stop(NULL);
        qs_sched_free(x.s);
        x.s = NULL;
        return 0;
    }
    qsf_set_stop(&stop);
    x.echo = qsf_echo();
    x.run.msg_total = x.msg_total;
    x.run.msg_left = x.msg_left;
    x.run.nmsg = QSF_STRUCT_MAX_RCPTS;
    setup(&x, &b);
    while (b.i < b.n && x.events < QSF_STRUCT_MAX_EVENTS) {
        unsigned op = pick(&b, 16), k;
        switch (op) {
        case 0: case 1: case 2: case 3:
            ev_arrive(&x, &b);
            break;
        case 4: case 5: case 6: case 7:
            ev_select(&x, pick(&b, NTRANSPORTS + 2));
            break;
        case 8: case 9: case 10: {
            unsigned nth = pick(&b, 256);
            ev_done(&x, nth, (enum qs_outcome)pick(&b, 3));
            break;
        }
        case 11:
            for (k = 1 + pick(&b, 8); k > 0; k--)
                ev_select(&x, 0);
            break;
        case 12: {
            enum qs_outcome o = (enum qs_outcome)pick(&b, 3);
            for (k = 1 + pick(&b, 8); k > 0; k--)
                ev_done(&x, 0, o);
            break;
        }
        default:
            ev_at(&x, time_steps[pick(&b, NELEM(time_steps))]);
            break;
        }
    }
    if (x.drain)
        drain(&x);
    else if (x.echo)
        printf("# end without a drain\n");
    qsf_touch_state(x.s);
    qsf_set_stop(NULL);
    qs_sched_free(x.s);
    x.s = NULL;
    free(x.nrcpt);
    x.nrcpt = NULL;
    x.nrcpt_cap = 0;
    if (x.echo)
        fflush(stdout);
    return 0;
}
