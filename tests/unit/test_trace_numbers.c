/*
 * test_trace_numbers.c - the numbers of the default-level trace lines
 * (spec/trace.md) through the public qs_trace_text.
 *
 * Owns: the digits of every number field that the printer's fast path
 * writes (trace.c fast_num: handles, recipient counts, windows, revival
 * windows), checked against the C library's own "%lld" for every value
 * from 0 to 120,000, around every power of ten up to 10^18, at LLONG_MAX,
 * and for negative values (which the fast path hands to the general code,
 * so they must still print with their sign).  The expected text is built
 * here with snprintf, independently of trace.c, which hand-writes its
 * digits two at a time (issue 16).  Also checks that a line that does not
 * fit the caller's buffer is cut as snprintf would cut it, and that
 * names of every length up to 400 bytes, in buffers of 1 to 1024 bytes,
 * give snprintf's line (the fast path's one bound check per line).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "qsched.h"
#include "check.h"

/* The line of one record of each number-carrying default-level kind,
 * compared with the text snprintf makes of the same fields. */
static int lines_agree(long long v)
{
    char got[256], want[256];
    qs_trace r;
    memset(&r, 0, sizeof r);
    r.msg = "M1";
    r.transport = "smtp";
    r.dest = "a.example";

    r.kind = QS_T_DELIVER;
    r.handle = v;
    r.n = v;
    qs_trace_text(&r, 0, got, sizeof got);
    snprintf(want, sizeof want, "deliver D%lld M1 smtp:a.example %lld", v, v);
    if (strcmp(got, want) != 0)
        return 0;

    r.kind = QS_T_DEFER;
    qs_trace_text(&r, 0, got, sizeof got);
    snprintf(want, sizeof want, "defer M1 smtp:a.example %lld", v);
    if (strcmp(got, want) != 0)
        return 0;

    r.kind = QS_T_WINDOW;
    r.a = v;
    r.b = v / 7;
    qs_trace_text(&r, 0, got, sizeof got);
    snprintf(want, sizeof want, "window smtp:a.example %lld %lld", v, v / 7);
    if (strcmp(got, want) != 0)
        return 0;

    r.kind = QS_T_REVIVE;
    qs_trace_text(&r, 0, got, sizeof got);
    snprintf(want, sizeof want, "revive smtp:a.example %lld", v);
    return strcmp(got, want) == 0;
}

/* Names of every length from 0 to 400 bytes (a next-hop may have 200,
 * an address 286) in the message id, the transport and the destination,
 * into buffers from 1 byte to 1023: the line is the one snprintf makes,
 * cut where snprintf cuts (the fast path measures the names and leaves a
 * line that might not fit to the general code; a null name also goes
 * there, and prints as "(null)" as glibc's %s does not promise, so it is
 * not compared here). */
static int names_agree(size_t len, size_t bufsize)
{
    static char name[401], got[1024], want[2048];
    qs_trace r;
    size_t i;
    for (i = 0; i < len; i++)
        name[i] = (char)('a' + i % 26);
    name[len] = 0;
    memset(&r, 0, sizeof r);
    r.handle = 42;
    r.n = 7;
    r.a = 3;
    r.b = 12345;
    r.msg = name;
    r.transport = len % 2 ? name : "smtp";
    r.dest = name;
    r.kind = QS_T_DELIVER;
    qs_trace_text(&r, 0, got, bufsize);
    snprintf(want, bufsize, "deliver D42 %s %s:%s 7", name, r.transport,
             name);
    if (strcmp(got, want) != 0)
        return 0;
    r.kind = QS_T_DEFER;
    qs_trace_text(&r, 0, got, bufsize);
    snprintf(want, bufsize, "defer %s %s:%s 7", name, r.transport, name);
    if (strcmp(got, want) != 0)
        return 0;
    r.kind = QS_T_WINDOW;
    qs_trace_text(&r, 0, got, bufsize);
    snprintf(want, bufsize, "window %s:%s 3 12345", r.transport, name);
    if (strcmp(got, want) != 0)
        return 0;
    r.kind = QS_T_DEAD;
    qs_trace_text(&r, 0, got, bufsize);
    snprintf(want, bufsize, "dead %s:%s", r.transport, name);
    if (strcmp(got, want) != 0)
        return 0;
    r.kind = QS_T_REVIVE;
    qs_trace_text(&r, 0, got, bufsize);
    snprintf(want, bufsize, "revive %s:%s 3", r.transport, name);
    return strcmp(got, want) == 0;
}

int main(void)
{
    long long v, p, bad = -1;
    int ok = 1;
    char got[16], want[256];
    qs_trace r;

    for (v = 0; v <= 120000 && ok; v++)
        if (!lines_agree(v)) {
            ok = 0;
            bad = v;
        }
    if (!ok)
        printf("# first disagreement at %lld\n", bad);
    CHECK("trace-numbers-0-to-120000", ok);

    /* every digit count: 10^k - 1, 10^k, 10^k + 1 for k = 1..18 */
    ok = 1;
    for (p = 10; ok; p *= 10) {
        if (!lines_agree(p - 1) || !lines_agree(p) || !lines_agree(p + 1)) {
            ok = 0;
            bad = p;
        }
        if (p > LLONG_MAX / 10)
            break;
    }
    if (!ok)
        printf("# disagreement around %lld\n", bad);
    CHECK("trace-numbers-powers-of-ten", ok);
    CHECK("trace-numbers-llong-max", lines_agree(LLONG_MAX));
    CHECK("trace-numbers-llong-max-minus-1", lines_agree(LLONG_MAX - 1));
    CHECK("trace-numbers-negative", lines_agree(-1) && lines_agree(-99) &&
                                        lines_agree(-100) &&
                                        lines_agree(LLONG_MIN + 1));

    /* a buffer too short for the line: cut where snprintf cuts */
    memset(&r, 0, sizeof r);
    r.kind = QS_T_DELIVER;
    r.handle = 1234567;
    r.msg = "M1";
    r.transport = "smtp";
    r.dest = "a.example";
    r.n = 3;
    qs_trace_text(&r, 0, got, sizeof got);
    /* what snprintf into 16 bytes keeps: the first 15 and a NUL */
    snprintf(want, sizeof want, "deliver D%lld M1 smtp:a.example %d",
             1234567LL, 3);
    want[sizeof got - 1] = 0;
    CHECK("trace-numbers-cut-like-snprintf", strcmp(got, want) == 0);

    {
        static const size_t sizes[] = {1, 2, 5, 16, 40, 64, 100, 300,
                                       700, 1023, 1024};
        size_t len, k;
        ok = 1;
        for (len = 0; len <= 400 && ok; len++)
            for (k = 0; k < sizeof sizes / sizeof sizes[0] && ok; k++)
                if (!names_agree(len, sizes[k])) {
                    ok = 0;
                    printf("# names of %zu bytes, buffer %zu\n", len,
                           sizes[k]);
                }
        CHECK("trace-names-every-length-every-buffer", ok);
    }

    return CHECK_DONE();
}
