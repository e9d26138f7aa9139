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
 * fit the caller's buffer is cut as snprintf would cut it.
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

    return CHECK_DONE();
}
