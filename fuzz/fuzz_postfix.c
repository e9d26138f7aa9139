/*
 * fuzz/fuzz_postfix.c - the differential fuzz harness: qsched's postfix
 * profile and Postfix's own queue manager run the same stream, and the
 * first decision on which they differ is a finding (issue 14).
 *
 * Owns: turning fuzz bytes into a valid event stream in the postfix
 * profile (so AFL++ searches for differences, not for syntax errors), and
 * the lockstep comparison.  Postfix is the harness of tests/postfix
 * (compiled unchanged src/qmgr with the infrastructure stubs of
 * tests/postfix/harness), linked into this program next to the qsched
 * core; see tests/postfix/README.md.
 *
 * Reading the bytes (each choice one byte modulo the number of options; a
 * missing byte reads as 0):
 *   1. one byte per entry of params[]: one of its values or "default";
 *   2. events until the bytes run out (at most MAX_EVENTS): arrive (1..4
 *      groups over smtp, relay, lmtp (recipient limit 1) and local,
 *      next-hops a..c.example, an optional local part, 1..12 recipients),
 *      select (round robin, or a named transport), done of a delivery in
 *      flight in qsched (ok, fail, defer), and time steps.
 * Local parts belong to one transport each, so no address has two
 * transports (which no Postfix situation expresses).
 *
 * After every line the default-level trace lines (spec/trace.md) of both
 * sides must be equal.  At the first difference the harness prints the
 * line and both sides' lines and aborts.  Postfix's msg_fatal/msg_panic
 * abort too.  With QSCHED_FUZZ_ECHO=1 the stream is written on stdout (a
 * reproducer for tests/postfix/compare.sh).
 *
 * usage: fuzz_postfix [FILE...]   (no FILE: the input on stdin, as AFL++
 * gives it).  Postfix's queue manager keeps its state in globals, so every
 * input runs in a fresh process: AFL++'s fork server, and one child per
 * FILE when several are given (the sanitizer sweep of fuzz/run.sh).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "qsched.h"
#include "events.h"
#include "trace.h"

/* from tests/postfix/harness/pfh.h (which needs Postfix's headers) */
extern int pfh_abort_on_fatal;
extern void pfh_set_stream_name(const char *name);
extern void pfh_set_trace_sink(void (*sink)(void *ctx, const char *line),
                               void *ctx);
extern void pfh_line(char *text);
extern void pfh_end(void);

#define MAX_INPUT 4096
#define MAX_EVENTS 400
#define MAX_RCPTS 300
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
    const char *name;
    const char *values[7];
} params[] = {
    {"default_delivery_slot_cost", {"0", "2", "3", "5", NULL}},
    {"default_delivery_slot_loan", {"0", "1", "3", NULL}},
    {"default_delivery_slot_discount", {"0", "50", "100", NULL}},
    {"default_minimum_delivery_slots", {"0", "1", "3", NULL}},
    {"default_destination_concurrency_limit", {"1", "2", "3", "0", NULL}},
    {"initial_destination_concurrency", {"1", "2", "4", NULL}},
    {"default_destination_concurrency_positive_feedback",
     {"1", "1/concurrency", "0.5", "1/3", NULL}},
    {"default_destination_concurrency_negative_feedback",
     {"1", "1/concurrency", "0.5", "0", NULL}},
    {"default_destination_concurrency_failed_cohort_limit",
     {"0", "1", "2", NULL}},
    {"default_destination_recipient_limit", {"1", "2", "3", "50", NULL}},
    {"default_recipient_limit", {"2", "5", "20", NULL}},
    {"default_extra_recipient_limit", {"0", "2", "10", NULL}},
    {"default_recipient_refill_limit", {"1", "3", "10", NULL}},
    {"default_recipient_refill_delay", {"1s", "3s", NULL}},
    {"default_process_limit", {"1", "2", "4", NULL}},
    {"qmgr_message_active_limit", {"1", "2", "4", NULL}},
    {"qmgr_message_recipient_limit", {"2", "5", "10", "30", NULL}},
    {"qmgr_message_recipient_minimum", {"1", "2", "5", NULL}},
    {"minimal_backoff_time", {"2s", "10s", NULL}},
    {"smtp_delivery_slot_cost", {"2", "4", NULL}},
    {"relay_destination_concurrency_limit", {"1", "2", NULL}},
    {"lmtp_process_limit", {"1", "3", NULL}},
};
static const char *const transports[] = {"smtp", "relay", "lmtp", "local"};
static const char *const locals[] = {"u1", "u2", "u3", "u4"}; /* per transport */
static const char *const hops[] = {"a.example", "b.example", "c.example"};
static const int time_steps[] = {0, 1, 1, 2, 3, 5, 11};

typedef struct bytes {
    const uint8_t *p;
    size_t n, i;
} bytes;

static unsigned pick(bytes *b, unsigned k)
{
    unsigned v = b->i < b->n ? b->p[b->i] : 0;
    if (b->i < b->n)
        b->i++;
    return k <= 1 ? 0 : v % k;
}

/* ---- the two sides' lines for one stream line ---- */

typedef struct lines {
    char text[64][160];
    size_t n;
    int overflow;
} lines;

static lines qsched_lines, postfix_lines;

static void add(lines *l, const char *s)
{
    if (l->n == NELEM(l->text)) {
        l->overflow = 1;
        return;
    }
    snprintf(l->text[l->n++], sizeof l->text[0], "%s", s);
}

static void postfix_sink(void *ctx, const char *line)
{
    add(ctx, line);
}

static void qsched_sink(void *ctx, const qs_trace *r)
{
    char buf[1024];
    if (qs_trace_is_default(r) && qs_trace_format(r, 0, buf, sizeof buf))
        add(ctx, buf);
}

static qs_stream *qs_side;
static long lineno;
static int echo;

/* One line to both; their new trace lines must be equal. */
static void feed(const char *text)
{
    char why[512], copy[4096];
    size_t i;
    lineno++;
    if (echo)
        printf("%s\n", text);
    qsched_lines.n = postfix_lines.n = 0;
    if (qs_stream_line(qs_side, text, strlen(text), why, sizeof why) != 0) {
        fprintf(stderr, "fuzz_postfix: qsched refused generated line %ld "
                "(%s): %s\n", lineno, text, why);
        abort();
    }
    snprintf(copy, sizeof copy, "%s", text);
    pfh_line(copy);
    pfh_end();  /* a pending defer run belongs to this line */
    if (qsched_lines.n == postfix_lines.n && !qsched_lines.overflow &&
        !postfix_lines.overflow) {
        for (i = 0; i < qsched_lines.n; i++)
            if (strcmp(qsched_lines.text[i], postfix_lines.text[i]) != 0)
                break;
        if (i == qsched_lines.n)
            return;
    }
    fflush(stdout);
    fprintf(stderr, "fuzz_postfix: DIVERGENCE at stream line %ld: %s\n",
            lineno, text);
    fprintf(stderr, "  qsched (postfix profile):\n");
    for (i = 0; i < qsched_lines.n; i++)
        fprintf(stderr, "    %s\n", qsched_lines.text[i]);
    fprintf(stderr, "  Postfix:\n");
    for (i = 0; i < postfix_lines.n; i++)
        fprintf(stderr, "    %s\n", postfix_lines.text[i]);
    abort();
}

static void feedf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void feedf(const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    feed(text);
}

/* Postfix's queue manager is a daemon: it never frees its global state
 * (transports, queues, configuration), so a leak report at exit says
 * nothing.  qsched's side is freed (qs_stream_free) and is checked for
 * leaks by the other harnesses. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

static int run_one(FILE *in)
{
    static uint8_t data[MAX_INPUT];
    bytes b = {data, 0, 0};
    size_t i, msgs = 0;
    long rcpts = 0, now = 0;
    int events;

    b.n = fread(data, 1, sizeof data, in);
    echo = getenv("QSCHED_FUZZ_ECHO") != NULL;
    pfh_abort_on_fatal = 1;
    pfh_set_stream_name("fuzz");
    pfh_set_trace_sink(postfix_sink, &postfix_lines);
    qs_side = qs_stream_new("fuzz", qsched_sink, &qsched_lines);
    if (!qs_side)
        abort();

    feed("profile postfix");
    feed("lmtp_destination_recipient_limit = 1");
    for (i = 0; i < NELEM(params); i++) {
        unsigned n = 0, k;
        while (params[i].values[n])
            n++;
        k = pick(&b, n + 1);
        if (k < n)
            feedf("%s = %s", params[i].name, params[i].values[k]);
    }
    for (events = 0; events < MAX_EVENTS && b.i < b.n; events++) {
        qs_sched *s;
        unsigned what = pick(&b, 10);
        if (events == 0 || (what < 3 && rcpts < MAX_RCPTS)) {
            char text[1024];
            int len, g, ng = 1 + (int)pick(&b, 4);
            len = snprintf(text, sizeof text, "arrive M%zu", ++msgs);
            for (g = 0; g < ng; g++) {
                unsigned t = pick(&b, NELEM(transports));
                unsigned named = pick(&b, 4) == 0;
                unsigned count = 1 + pick(&b, 12);
                const char *hop = t == 3 ? (pick(&b, 2) ? "h1" : "h2")
                                         : hops[pick(&b, NELEM(hops))];
                len += snprintf(text + len, sizeof text - (size_t)len,
                                " %s:%s%s%s", transports[t],
                                named ? locals[t] : "", named ? "@" : "",
                                hop);
                if (count > 1)
                    len += snprintf(text + len, sizeof text - (size_t)len,
                                    "*%u", count);
                rcpts += count;
            }
            feed(text);
        } else if (what < 6) {
            unsigned t = pick(&b, 6);
            if (t < NELEM(transports))
                feedf("select %s", transports[t]);
            else
                feed("select");
        } else if (what < 9) {
            size_t n;
            s = qs_stream_sched(qs_side);
            n = s ? qs_in_flight_count(s) : 0;
            if (n == 0) {
                feed("select");
            } else {
                static const char *outcome[] = {"ok", "ok", "fail", "defer"};
                int64_t h = qs_in_flight_nth(s, pick(&b, (unsigned)n));
                feedf("done D%lld %s", (long long)h, outcome[pick(&b, 4)]);
            }
        } else {
            now += time_steps[pick(&b, NELEM(time_steps))];
            feedf("at %ld", now);
        }
    }
    pfh_end();
    qs_stream_free(qs_side);
    return 0;
}

int main(int argc, char **argv)
{
    int i, bad = 0;
    if (argc <= 1)
        return run_one(stdin);
    if (argc == 2) {
        FILE *in = fopen(argv[1], "rb");
        if (!in) {
            fprintf(stderr, "fuzz_postfix: cannot open %s\n", argv[1]);
            return 2;
        }
        return run_one(in);
    }
    for (i = 1; i < argc; i++) {
        int status = 0;
        pid_t pid = fork();
        if (pid < 0) {
            perror("fuzz_postfix: fork");
            return 2;
        }
        if (pid == 0) {
            FILE *in = fopen(argv[i], "rb");
            _exit(in ? run_one(in) : 2);
        }
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            fprintf(stderr, "fuzz_postfix: %s: failed\n", argv[i]);
            bad = 1;
        }
    }
    return bad;
}
