/*
 * test_trace_lengths.c - the names' lengths in the trace records
 * (qsched.h qs_trace: msg_len, transport_len, dest_len; issue 16).
 *
 * Owns: the evidence that (a) every record the scheduler passes to its
 * sink carries, for each name it has, either 0 or that name's strlen -
 * measured here with strlen, independently of the core, which copies
 * the lengths it keeps in the message, the transport and the queue -
 * and (b) that the default-level records with names (deliver, defer,
 * window, dead, revive), the ones the CLI's printer formats from the
 * lengths, carry all of them; and (c) that qs_trace_text reads the
 * strings and never the lengths, as qsched.h promises (a record built by
 * a program compiled against a header without the fields has garbage
 * there).  Through the public API only.
 */
#include <stdio.h>
#include <string.h>
#include "qsched.h"
#include "check.h"

typedef struct counts {
    long records, wrong, unset;
    long kind[64];
} counts;

static int has_msg(enum qs_trace_kind k)
{
    return k == QS_T_DELIVER || k == QS_T_DEFER;
}

static int has_dest(enum qs_trace_kind k)
{
    return k == QS_T_DELIVER || k == QS_T_DEFER || k == QS_T_WINDOW ||
           k == QS_T_DEAD || k == QS_T_REVIVE;
}

/* a length is right when it is 0 or the string's own */
static int len_ok(const char *str, size_t len)
{
    return len == 0 || (str && len == strlen(str));
}

static void sink(void *ctx, const qs_trace *r)
{
    counts *c = ctx;
    c->records++;
    if ((unsigned)r->kind < 64)
        c->kind[r->kind]++;
    if (!len_ok(r->msg, r->msg_len) || !len_ok(r->transport, r->transport_len) ||
        !len_ok(r->dest, r->dest_len)) {
        c->wrong++;
        printf("# kind %d: lengths %zu %zu %zu for \"%s\" \"%s\" \"%s\"\n",
               (int)r->kind, r->msg_len, r->transport_len, r->dest_len,
               r->msg ? r->msg : "", r->transport ? r->transport : "",
               r->dest ? r->dest : "");
    }
    if (has_dest(r->kind) &&
        (!r->transport_len || !r->dest_len || (has_msg(r->kind) && !r->msg_len)))
        c->unset++;
}

/* Deliveries, a failure that kills a destination with entries pending
 * (dead, defer), a later message for it while dead (the read's defer
 * run), its revival, and window changes on the way. */
static void run(enum qs_profile profile, counts *c)
{
    static const char *const params[] = {
        "default_destination_concurrency_failed_cohort_limit", "1",
        "initial_destination_concurrency", "2",
        "default_destination_recipient_limit", "2",
        "minimal_backoff_time", "10s",
        NULL};
    char err[256];
    qs_params *p = qs_params_new();
    qs_sched *s;
    qs_delivery d;
    const char *const *kv;
    qs_group m1[] = {{"smtp", NULL, "a.example", 6},
                     {"smtp", "bob", "b.example", 2},
                     {"relay", NULL, "c.example.org", 3}};
    qs_group m2[] = {{"smtp", NULL, "a.example", 2}};
    int i;
    for (kv = params; *kv; kv += 2)
        if (qs_params_set(p, kv[0], kv[1], err, sizeof err))
            printf("# %s: %s\n", kv[0], err);
    s = qs_sched_new(p, profile, sink, c, err, sizeof err);
    if (!s) {
        printf("# qs_sched_new: %s\n", err);
        qs_params_free(p);
        c->wrong++;
        return;
    }
    qs_arrive(s, "M1", m1, 3, err, sizeof err);
    /* every delivery to a.example fails: its window falls to 1, then it
     * dies with an entry pending */
    for (i = 0; i < 10; i++)
        if (qs_select(s, NULL, &d, err, sizeof err) == 1)
            qs_done(s, d.handle,
                    strcmp(d.dest, "a.example") ? QS_DONE_OK : QS_DONE_FAIL,
                    err, sizeof err);
    qs_arrive(s, "M22", m2, 1, err, sizeof err); /* read while it is dead */
    qs_advance(s, 100, err, sizeof err);         /* its backoff is over */
    for (i = 0; i < 20; i++)
        if (qs_select(s, NULL, &d, err, sizeof err) == 1)
            qs_done(s, d.handle, QS_DONE_OK, err, sizeof err);
    qs_sched_free(s);
    qs_params_free(p);
}

int main(void)
{
    counts c;
    char got[256];
    qs_trace r;
    enum qs_profile profiles[] = {QS_PROFILE_DOCUMENT, QS_PROFILE_POSTFIX};
    int i;
    for (i = 0; i < 2; i++) {
        memset(&c, 0, sizeof c);
        run(profiles[i], &c);
        printf("# profile %d: %ld records: %ld deliver, %ld defer, %ld window,"
               " %ld dead, %ld revive\n", i, c.records, c.kind[QS_T_DELIVER],
               c.kind[QS_T_DEFER], c.kind[QS_T_WINDOW], c.kind[QS_T_DEAD],
               c.kind[QS_T_REVIVE]);
        CHECK(i ? "postfix: every length is 0 or its name's strlen"
                : "document: every length is 0 or its name's strlen",
              c.wrong == 0);
        CHECK(i ? "postfix: the default-level records carry their lengths"
                : "document: the default-level records carry their lengths",
              c.unset == 0);
        /* the scenario reaches every kind whose line is built from them */
        CHECK(i ? "postfix: deliver, defer, window, dead and revive seen"
                : "document: deliver, defer, window, dead and revive seen",
              c.kind[QS_T_DELIVER] > 0 && c.kind[QS_T_DEFER] > 0 &&
                  c.kind[QS_T_WINDOW] > 0 && c.kind[QS_T_DEAD] > 0 &&
                  c.kind[QS_T_REVIVE] > 0);
    }
    /* (c) lengths that are not the strings' are not read */
    memset(&r, 0, sizeof r);
    r.kind = QS_T_DEFER;
    r.msg = "M7";
    r.transport = "smtp";
    r.dest = "a.example";
    r.n = 3;
    r.msg_len = 1; /* shorter than the strings: a line of the right */
    r.transport_len = 3; /* size would fit, cut names and all */
    r.dest_len = 5;
    qs_trace_text(&r, 0, got, sizeof got);
    CHECK("qs_trace_text reads the strings, not the lengths",
          strcmp(got, "defer M7 smtp:a.example 3") == 0);
    printf("# test_trace_lengths: %d checks, %d failed\n", check_count,
           check_failures);
    return CHECK_DONE();
}
