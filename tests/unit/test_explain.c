/*
 * test_explain.c - qs_sched_set_explain (src/qsched.h): a scheduler told
 * that nobody wants the explain level neither builds nor emits its
 * records, and decides exactly as one that emits them.
 *
 * Owns: the contract of the switch, checked through the public API only.
 * Two schedulers (and a third that switches off and on half-way) are fed
 * the same events, both profiles; the trace of the quiet one must be the
 * default-level records of the full one, record for record (their
 * canonical text, qs_trace_text), and contain no explain-level record;
 * the full one must contain explain records of several kinds (else the
 * comparison would prove nothing).  The events come from a fixed linear
 * congruential sequence: arrivals on three transports with dead-prone
 * destinations, selects, and done with every outcome, so that feedback,
 * cohorts, backoff, preemption and blocker records all occur.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "check.h"

#define MAX_LINES 200000

typedef struct log {
    char **line;     /* the canonical text of each record, in order */
    int *dflt;       /* each record is of the default level */
    size_t n;
    int explain_kinds[64]; /* records seen per kind of the explain level */
} log;

/* the default level (spec/trace.md): what qsched prints without --explain */
static int is_default(enum qs_trace_kind k)
{
    return k == QS_T_DELIVER || k == QS_T_IDLE || k == QS_T_WINDOW ||
           k == QS_T_DEAD || k == QS_T_REVIVE || k == QS_T_DEFER ||
           k == QS_T_FBWARN;
}

static void sink(void *ctx, const qs_trace *r)
{
    log *l = ctx;
    char buf[512];
    if (!is_default(r->kind) && (int)r->kind < 64)
        l->explain_kinds[r->kind]++;
    if (l->n >= MAX_LINES)
        return;
    qs_trace_text(r, 1, buf, sizeof buf);
    l->line[l->n] = malloc(strlen(buf) + 1);
    if (!l->line[l->n])
        abort();
    l->dflt[l->n] = is_default(r->kind);
    strcpy(l->line[l->n++], buf);
}

static unsigned long lcg(unsigned long *x)
{
    *x = *x * 1103515245UL + 12345UL;
    return (*x >> 16) & 0x7fff;
}

/* Drives s with the fixed event sequence; `flip`: switch the explain
 * level off at step 2000 and on again at step 4000. */
static void drive(qs_sched *s, int flip)
{
    static const char *const transports[] = {"smtp", "relay", "local"};
    static const char *const hops[] = {"a.example", "b.example", "c.example",
                                       "d.example", "e.example"};
    unsigned long x = 42;
    int64_t now = 0, handles[4096];
    size_t nh = 0;
    char err[256], id[32];
    int step, msg = 0;
    for (step = 0; step < 6000; step++) {
        unsigned long r = lcg(&x) % 10;
        if (flip && step == 2000)
            qs_sched_set_explain(s, 0);
        if (flip && step == 4000)
            qs_sched_set_explain(s, 1);
        if (r < 3) {
            qs_group g[3];
            size_t i, ng = 1 + lcg(&x) % 3;
            for (i = 0; i < ng; i++) {
                g[i].transport = transports[lcg(&x) % 3];
                g[i].local = NULL;
                g[i].nexthop = hops[lcg(&x) % 5];
                g[i].count = 1 + (int64_t)(lcg(&x) % (lcg(&x) % 8 ? 4 : 60));
            }
            snprintf(id, sizeof id, "M%d", ++msg);
            qs_arrive(s, id, g, ng, err, sizeof err);
        } else if (r < 6) {
            qs_delivery d;
            if (qs_select(s, NULL, &d, err, sizeof err) == 1 &&
                nh < sizeof handles / sizeof handles[0])
                handles[nh++] = d.handle;
        } else if (r < 9 && nh > 0) {
            size_t k = lcg(&x) % nh;
            /* destinations d and e fail often: cohorts, deaths */
            unsigned long o = lcg(&x) % 10;
            qs_done(s, handles[k], o < 6 ? QS_DONE_OK
                                        : o < 8 ? QS_DONE_FAIL : QS_DONE_DEFER,
                    err, sizeof err);
            handles[k] = handles[--nh];
        } else {
            now += 1 + (int64_t)(lcg(&x) % 30);
            qs_advance(s, now, err, sizeof err);
        }
    }
}

static void run(log *l, enum qs_profile profile, int explain, int flip)
{
    qs_params *p = qs_params_new();
    char err[256];
    qs_sched *s;
    memset(l, 0, sizeof *l);
    l->line = calloc(MAX_LINES, sizeof *l->line);
    l->dflt = calloc(MAX_LINES, sizeof *l->dflt);
    if (!p || !l->line || !l->dflt)
        abort();
    qs_params_set(p, "default_delivery_slot_cost", "2", err, sizeof err);
    qs_params_set(p, "default_destination_concurrency_failed_cohort_limit",
                  "1", err, sizeof err);
    qs_params_set(p, "minimal_backoff_time", "20s", err, sizeof err);
    /* a small active queue: messages wait (`wait`, S-MEM-2) */
    qs_params_set(p, "qmgr_message_active_limit", "8", err, sizeof err);
    s = qs_sched_new(p, profile, sink, l, err, sizeof err);
    if (!s)
        abort();
    if (!explain)
        CHECK("set_explain returns the default (1)",
              qs_sched_set_explain(s, 0) == 1);
    drive(s, flip);
    qs_sched_free(s);
    qs_params_free(p);
}

static void free_log(log *l)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        free(l->line[i]);
    free(l->line);
    free(l->dflt);
}

/* a and b have the same records of the default level, in the same order */
static int same_default(const log *a, const log *b)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (i < a->n && !a->dflt[i])
            i++;
        while (j < b->n && !b->dflt[j])
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (strcmp(a->line[i], b->line[j]) != 0)
            return 0;
        i++;
        j++;
    }
}

/* records of the explain level in l */
static long explain_count(const log *l)
{
    long c = 0;
    int k;
    for (k = 0; k < 64; k++)
        c += l->explain_kinds[k];
    return c;
}

int main(void)
{
    int prof;
    for (prof = 0; prof < 2; prof++) {
        log full, quiet, flip;
        int k, kinds = 0;
        char name[96];
        const char *pn = prof ? "postfix" : "document";
        run(&full, (enum qs_profile)prof, 1, 0);
        run(&quiet, (enum qs_profile)prof, 0, 0);
        run(&flip, (enum qs_profile)prof, 1, 1);
        for (k = 0; k < 64; k++)
            kinds += full.explain_kinds[k] > 0;
        snprintf(name, sizeof name, "%s: the full trace has explain records "
                 "of 8 kinds or more (%d)", pn, kinds);
        CHECK(name, kinds >= 8);
        snprintf(name, sizeof name, "%s: the full trace has deliveries and "
                 "deaths", pn);
        CHECK(name, full.n > 1000 && full.n < MAX_LINES &&
                        full.explain_kinds[QS_T_BACKOFF] > 0);
        snprintf(name, sizeof name, "%s: explain off: no explain record",
                 pn);
        CHECK_EQ_LL(name, explain_count(&quiet), 0);
        snprintf(name, sizeof name, "%s: explain off: the default-level "
                 "records, identical", pn);
        CHECK(name, same_default(&full, &quiet));
        snprintf(name, sizeof name, "%s: switched off and on: the same "
                 "default-level records", pn);
        CHECK(name, same_default(&full, &flip));
        snprintf(name, sizeof name, "%s: switched off and on: explain "
                 "records only while on", pn);
        CHECK(name, explain_count(&flip) > 0 &&
                        explain_count(&flip) < explain_count(&full));
        free_log(&full);
        free_log(&quiet);
        free_log(&flip);
    }
    return CHECK_DONE();
}
