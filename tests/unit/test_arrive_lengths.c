/*
 * test_arrive_lengths.c - the parser's measured arrive (src/arrive.h).
 *
 * Owns: the promise that lets the core skip its name scans when the
 * event parser passes the lengths it measured: an `arrive` line the
 * parser accepts that way is accepted by the public qs_arrive with the
 * same groups, and the message it makes is the same (same names, same
 * lengths); and the converse, so that skipping changes no answer at all.
 * Derived independently of both character tables: every byte value in
 * every name position (transport, local part, next-hop; not the bytes
 * that end the line or a word, start a comment or split a group there),
 * and names at
 * and one past each length limit (64, 64, 200: S-EV-7), are fed twice -
 * as a text line through a qs_stream, and as qs_group values through
 * qs_arrive on a scheduler of its own - and the verdicts and the
 * `deliver` lines that follow must agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "events.h"
#include "check.h"
#include "capture.h"

/* The line through the parser: accepted?  Its trace after a select. */
static int by_line(const char *transport, const char *local,
                   const char *nexthop, capture *out)
{
    char line[600], err[512];
    qs_stream *st = qs_stream_new("t", capture_sink, out);
    int ok;
    snprintf(line, sizeof line, "arrive M1 %s:%s%s%s*2", transport,
             local ? local : "", local ? "@" : "", nexthop);
    ok = st && qs_stream_line(st, line, strlen(line), err, sizeof err) == 0;
    if (ok)
        qs_stream_line(st, "select", 6, err, sizeof err);
    qs_stream_free(st);
    return ok;
}

/* The same groups through the public API. */
static int by_api(const char *transport, const char *local,
                  const char *nexthop, capture *out)
{
    char err[256];
    qs_params *p = qs_params_new();
    qs_sched *s = p ? qs_sched_new(p, QS_PROFILE_DOCUMENT, capture_sink, out,
                                   err, sizeof err)
                    : NULL;
    qs_group g;
    qs_delivery d;
    int ok;
    g.transport = transport;
    g.local = local;
    g.nexthop = nexthop;
    g.count = 2;
    ok = s && qs_arrive(s, "M1", &g, 1, err, sizeof err) == 0;
    if (ok)
        qs_select(s, NULL, &d, err, sizeof err);
    qs_sched_free(s);
    qs_params_free(p);
    return ok;
}

/* Both ways agree: verdict and trace.  Returns 1 if they do. */
static int agree(const char *transport, const char *local,
                 const char *nexthop, int *accepted)
{
    capture a, b;
    int la, lb;
    a.len = b.len = 0;
    a.text[0] = b.text[0] = 0;
    la = by_line(transport, local, nexthop, &a);
    lb = by_api(transport, local, nexthop, &b);
    if (accepted)
        *accepted = la;
    /* the parser may refuse more (a byte that ends a word or splits a
     * group is not a name's byte there), never less */
    if (la && !lb)
        return 0;
    return !la || (a.len == b.len && strcmp(a.text, b.text) == 0);
}

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memset(s, c, n);
        s[n] = 0;
    }
    return s;
}

int main(void)
{
    int c, bad_t = 0, bad_l = 0, bad_n = 0, acc, n_acc = 0, n_api = 0;
    char name[8];
    char *t64 = repeat('t', 64), *t65 = repeat('t', 65);
    char *l64 = repeat('L', 64), *l65 = repeat('L', 65);
    char *h200 = repeat('h', 200), *h201 = repeat('h', 201);
    int ok_limits = 1;

    for (c = 1; c < 256; c++) {
        capture x;
        /* bytes with a meaning of their own in the line: it ends there,
         * a comment starts, words or a group's parts are split there - the
         * line then names other groups than the qs_group below */
        if (strchr("\n# \t:@*", c))
            continue;
        name[0] = 'a';
        name[1] = (char)c;
        name[2] = 'b';
        name[3] = 0;
        if (!agree(name, NULL, "h.example", &acc))
            bad_t++;
        if (!agree("smtp", name, "h.example", NULL))
            bad_l++;
        if (!agree("smtp", NULL, name, NULL))
            bad_n++;
        n_acc += acc;
        x.len = 0;
        n_api += by_api(name, NULL, "h.example", &x);
    }
    CHECK("arrive-lengths-transport-bytes", bad_t == 0);
    CHECK("arrive-lengths-local-bytes", bad_l == 0);
    CHECK("arrive-lengths-nexthop-bytes", bad_n == 0);
    /* the classes of S-EV-7 for transports: a-z 0-9 - (37 byte values),
     * the same for both ways */
    CHECK_EQ_LL("arrive-lengths-transport-class-size-line", n_acc, 37);
    CHECK_EQ_LL("arrive-lengths-transport-class-size-api", n_api, 37);

    /* the length limits, at and one past */
    if (!t64 || !t65 || !l64 || !l65 || !h200 || !h201)
        return 1;
    {
        int a1, a2, a3, a4, a5, a6;
        ok_limits = agree(t64, NULL, "h", &a1) && agree(t65, NULL, "h", &a2) &&
                    agree("smtp", l64, "h", &a3) &&
                    agree("smtp", l65, "h", &a4) &&
                    agree("smtp", NULL, h200, &a5) &&
                    agree("smtp", NULL, h201, &a6);
        CHECK("arrive-lengths-limits-agree", ok_limits);
        CHECK("arrive-lengths-limits-values",
              a1 && !a2 && a3 && !a4 && a5 && !a6);
    }
    free(t64);
    free(t65);
    free(l64);
    free(l65);
    free(h200);
    free(h201);
    return CHECK_DONE();
}
