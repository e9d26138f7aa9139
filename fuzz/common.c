/*
 * fuzz/common.c - the trace sink, state probes and finding reporter shared
 * by fuzz/fuzz_text.c and fuzz/fuzz_struct.c (see fuzz/common.h).
 *
 * The sink checks only what qsched.h and spec/rules.md promise about
 * records, independently of how the core computes them:
 *   - virtual time never goes backwards between records (S-EV-6);
 *   - a deliver record names a message, transport and destination, has a
 *     handle >= 1 and at least one recipient (S-EV-8, S-PRE-1);
 *   - window/dead/revive/defer records name a transport and destination;
 *     windows are never below 1 (S-INV-6, S-CON-7); a defer record defers
 *     at least one recipient of a named message (S-CON-9);
 *   - a message leaves with delivered + deferred equal to the recipients
 *     it arrived with, exactly once (S-INV-1), when the harness knows the
 *     totals.
 * Every record is also rendered by qs_trace_format at the explain level
 * and by qs_trace_print as JSON Lines into /dev/null, so the printers run
 * under the sanitizers on every state the fuzzer reaches.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "trace.h"

void qsf_finding(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout); /* the echoed stream up to the finding */
    fputs("qsched-fuzz: FINDING: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

void qsf_run_reset(qsf_run *run)
{
    run->records = 0;
    run->last_time = 0;
    run->deliveries = 0;
    run->deferred_rcpts = 0;
    run->leaves = 0;
    run->left_rcpts = 0;
}

static int echo_flag = -1;

int qsf_echo(void)
{
    if (echo_flag < 0) {
        const char *e = getenv("QSCHED_FUZZ_ECHO");
        echo_flag = e && *e && strcmp(e, "0") != 0;
        /* line buffered, so a crash keeps the stream up to the event */
        if (echo_flag)
            setvbuf(stdout, NULL, _IOLBF, 0);
    }
    return echo_flag;
}

static FILE *devnull(void)
{
    static FILE *f;
    static int tried;
    if (!tried) {
        tried = 1;
        f = fopen("/dev/null", "w");
    }
    return f;
}

/* "M<n>" -> n, or 0 when the id is not of that form. */
static size_t msg_number(const char *id)
{
    size_t n = 0;
    if (!id || id[0] != 'M' || !id[1])
        return 0;
    for (id++; *id; id++) {
        if (*id < '0' || *id > '9' || n > 100000000)
            return 0;
        n = n * 10 + (size_t)(*id - '0');
    }
    return n;
}

static void need(const qs_trace *r, int cond, const char *what)
{
    if (!cond)
        qsf_finding("trace record kind %d at time %lld: %s", (int)r->kind,
                    (long long)r->time, what);
}

void qsf_sink(void *ctx, const qs_trace *r)
{
    qsf_run *run = ctx;
    char line[1024];
    FILE *nul;

    need(r, r->time >= run->last_time, "virtual time went backwards");
    run->last_time = r->time;
    run->records++;
    switch (r->kind) {
    case QS_T_DELIVER:
        need(r, r->msg && r->transport && r->dest, "deliver without names");
        need(r, r->handle >= 1, "deliver handle below 1");
        need(r, r->n >= 1, "deliver of no recipient");
        run->deliveries++;
        break;
    case QS_T_WINDOW:
        need(r, r->transport && r->dest, "window without names");
        need(r, r->a >= 1 && r->b >= 1, "window below 1");
        break;
    case QS_T_DEAD:
    case QS_T_REVIVE:
        need(r, r->transport && r->dest, "dead/revive without names");
        break;
    case QS_T_DEFER:
        need(r, r->msg && r->transport && r->dest, "defer without names");
        need(r, r->n >= 1, "defer of no recipient");
        run->deferred_rcpts += r->n;
        break;
    case QS_T_LEAVE: {
        size_t k = msg_number(r->msg);
        need(r, r->msg != NULL, "leave without message");
        need(r, r->a >= 0 && r->b >= 0, "leave with negative counts");
        run->leaves++;
        run->left_rcpts += r->a + r->b;
        if (run->msg_total && k >= 1 && k <= run->nmsg) {
            if (run->msg_left[k])
                qsf_finding("message %s left twice", r->msg);
            run->msg_left[k] = 1;
            if (r->a + r->b != run->msg_total[k])
                qsf_finding("message %s left with %lld delivered + %lld "
                            "deferred, but arrived with %lld recipients "
                            "(S-INV-1)", r->msg, (long long)r->a,
                            (long long)r->b, (long long)run->msg_total[k]);
        }
        break;
    }
    default:
        break;
    }
    qs_trace_format(r, 1, line, sizeof line);
    if ((nul = devnull()) != NULL) {
        qs_printer pr = {nul, nul, 1, (int)(run->records & 1)};
        qs_trace_print(&pr, r);
    }
}

static jmp_buf *stop_at;

void qsf_set_stop(jmp_buf *stop) { stop_at = stop; }

/* 1 if err contains one of the '|'-separated substrings of list. */
static int tolerated(const char *list, const char *err)
{
    char pat[256];
    while (list && *list) {
        const char *bar = strchr(list, '|');
        size_t n = bar ? (size_t)(bar - list) : strlen(list);
        if (n > 0 && n < sizeof pat) {
            memcpy(pat, list, n);
            pat[n] = 0;
            if (strstr(err, pat))
                return 1;
        }
        list = bar ? bar + 1 : NULL;
    }
    return 0;
}

void qsf_check(const qs_sched *s, const char *where)
{
    static const char *tolerate;
    static int looked;
    char err[512];
    if (!s || qs_check_invariants(s, err, sizeof err) == 0)
        return;
    if (!looked) {
        looked = 1;
        tolerate = getenv("QSCHED_FUZZ_TOLERATE");
    }
    if (stop_at && tolerate && tolerated(tolerate, err))
        longjmp(*stop_at, 1);
    qsf_finding("invariant broken after %s: %s", where, err);
}

/* Calls a "returns the length needed" writer twice: once to size, once
 * into an exact buffer; both must agree and the text must be terminated. */
static void probe_writer(const qs_sched *s,
                         size_t (*writer)(const qs_sched *, char *, size_t),
                         const char *name)
{
    char small[8];
    size_t n = writer(s, small, sizeof small), m;
    char *buf = malloc(n + 1);
    if (!buf)
        return;
    m = writer(s, buf, n + 1);
    if (m != n || strlen(buf) != n)
        qsf_finding("%s: length %zu, then %zu, text %zu", name, n, m,
                    strlen(buf));
    free(buf);
}

void qsf_touch_state(const qs_sched *s)
{
    qs_stats st;
    size_t i, nt;
    int64_t in_flight = 0;
    if (!s)
        return;
    probe_writer(s, qs_describe, "qs_describe");
    probe_writer(s, qs_encode_state, "qs_encode_state");
    qs_get_stats(s, &st);
    nt = qs_transport_count(s);
    for (i = 0; i < nt; i++) {
        qs_transport_stats ts;
        qs_get_transport_stats(s, i, &ts);
        if (!ts.name || ts.in_flight < 0 || ts.in_core < 0 ||
            ts.peak_in_core < ts.in_core)
            qsf_finding("transport stats %zu inconsistent", i);
        in_flight += ts.in_flight;
    }
    if ((size_t)in_flight != qs_in_flight_count(s))
        qsf_finding("transports have %lld deliveries in flight, "
                    "qs_in_flight_count says %zu", (long long)in_flight,
                    qs_in_flight_count(s));
}
