/*
 * capture.h - a trace sink that keeps the default-level text of every
 * record (spec/trace.md), for the C unit tests that compare two runs line
 * for line (test_arrive_lengths.c, test_arrive_fast.c).
 *
 * Owns: the capture buffer and its sink.  Goes through the public
 * qs_trace_text only, so what is compared is what any program printing
 * the trace would print.  Included by exactly one .c file per binary.
 */
#ifndef QSCHED_TEST_CAPTURE_H
#define QSCHED_TEST_CAPTURE_H

#include <string.h>
#include "qsched.h"

/* The default-level text of every record, appended to a buffer (lines
 * that would not fit are dropped, and the comparisons then differ). */
typedef struct {
    char text[8192];
    size_t len;
} capture;

static void capture_sink(void *ctx, const qs_trace *r)
{
    capture *c = ctx;
    char line[1100];
    size_t n = qs_trace_text(r, 0, line, sizeof line);
    if (n && c->len + n + 1 < sizeof c->text) {
        memcpy(c->text + c->len, line, n);
        c->len += n;
        c->text[c->len++] = '\n';
        c->text[c->len] = 0;
    }
}

#endif
