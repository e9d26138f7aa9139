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

#include <stdio.h>
#include <string.h>
#include "qsched.h"
#include "events.h"

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

/* The line under test, fed to st once its set-up lines gave status rc
 * (0: fed; the set-up's own failure is returned as is, with no message):
 * its status, its message in msg ("" when accepted), then `selects`
 * select lines if it was accepted, whose trace the sink keeps.  st is
 * freed. */
static inline int capture_line(qs_stream *st, int rc, const char *line,
                               size_t len, int selects, char *msg,
                               size_t msglen)
{
    char err[512];
    int i;
    msg[0] = 0;
    if (rc == 0 && (rc = qs_stream_line(st, line, len, err, sizeof err)))
        snprintf(msg, msglen, "%s", err);
    for (i = 0; rc == 0 && i < selects; i++)
        qs_stream_line(st, "select", 6, err, sizeof err);
    qs_stream_free(st);
    return rc;
}

/* Two runs of one line (status, message, trace: a and b) told apart:
 * counted into the caller's tallies - lines, accepted (the first run
 * accepted it) and disagreements, the first five of which are printed
 * as "# disagree on ..." (test_arrive_fast.c, test_done_fast.c).
 * Inline, so that a test that does not compare pays no unused-function
 * warning. */
typedef struct {
    int lines, accepted, disagree;
} capture_tally;

static inline void capture_count(capture_tally *t, const char *line,
                                 size_t len, int ra, const char *ma,
                                 const capture *a, int rb, const char *mb,
                                 const capture *b)
{
    t->lines++;
    if (ra == 0)
        t->accepted++;
    if (ra != rb || strcmp(ma, mb) != 0 || a->len != b->len ||
        strcmp(a->text, b->text) != 0) {
        if (t->disagree++ < 5)
            printf("# disagree on \"%.*s\": %d \"%s\" / %d \"%s\"\n",
                   (int)len, line, ra, ma, rb, mb);
    }
}

#endif
