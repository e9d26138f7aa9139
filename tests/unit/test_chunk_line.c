/*
 * test_chunk_line.c - the reading of `select`, `done` and `at` lines
 * straight from the input chunk (events.c, chunk_line, taken by
 * qs_stream_read) against the same lines fed one at a time to
 * qs_stream_line.
 *
 * Owns: the promise that finding a line's end while reading it (without
 * memchr, and without qs_stream_line's dispatch) changes no verdict, no
 * message, no line number and no decision.  Each line under test is put
 * in a stream between a set-up (a message of three recipients, one
 * select: D1 is in flight) and a select after it; the stream is read by
 * qs_stream_read from memory (fmemopen, so that every read fills a whole
 * 64 KiB chunk), and the same lines are fed by qs_stream_line one by
 * one.  The reference is independent of chunk_line: qs_stream_line is
 * given each line without its newline and takes its own paths, whose
 * verdicts test_done_fast.c holds against the general path.  Status,
 * message ("t:N: reason") and trace must be the same, byte for byte.
 *
 * The lines: hand-picked forms around the three the chunk reader takes -
 * `select` with a blank, a tab, a CR, a letter more; `done` with each
 * outcome, misspelt ones, a blank more or less, handles of 1 to 20
 * digits and a leading 0, a CR; `at` with 1 to 10 digits, 2^33 and one
 * more, a leading 0, a blank more, a CR; a line cut before its
 * newline (the last line of an input) - then 20,000 drawn (fixed
 * seed) from an alphabet of the bytes that matter, and every place of
 * a line across the end of a chunk (the reader must leave such a line
 * to the collecting path).
 * So that a reader taking nothing cannot pass, the accepted lines among
 * the hand-picked ones are counted against the grammar's answer; by
 * hand (session 25), a chunk_line that read each digit one too low, or
 * took " okay" for " ok", failed this test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "events.h"
#include "check.h"
#include "capture.h"
#include "draw.h"

#define SETUP "arrive M1 smtp:a.example*3\nselect\n"

/* One run's outcome: status, message, trace. */
typedef struct {
    int rc;
    char msg[512];
    capture trace;
} run;

/* The text read by qs_stream_read from memory, then finished as the CLI
 * finishes a stream. */
static void by_reader(const char *text, size_t len, run *r)
{
    FILE *in = fmemopen((void *)text, len, "r");
    qs_stream *st = qs_stream_new("t", capture_sink, &r->trace);
    char err[512];
    r->trace.len = 0;
    r->trace.text[0] = 0;
    r->msg[0] = 0;
    if (!in || !st) {
        r->rc = -1;
    } else {
        r->rc = qs_stream_read(st, in, NULL, err, sizeof err);
        if (r->rc == 0)
            r->rc = qs_stream_finish(st, err, sizeof err);
        if (r->rc)
            snprintf(r->msg, sizeof r->msg, "%s", err);
    }
    if (in)
        fclose(in);
    qs_stream_free(st);
}

/* The same text cut at its newlines and fed line by line (a last line
 * without a newline counts, as qs_stream_read counts it). */
static void by_lines(const char *text, size_t len, run *r)
{
    qs_stream *st = qs_stream_new("t", capture_sink, &r->trace);
    char err[512];
    size_t at = 0;
    r->trace.len = 0;
    r->trace.text[0] = 0;
    r->msg[0] = 0;
    r->rc = st ? 0 : -1;
    while (r->rc == 0 && at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = (size_t)((nl ? nl : text + len) - (text + at));
        r->rc = qs_stream_line(st, text + at, n, err, sizeof err);
        at += n + 1;
    }
    if (r->rc == 0 && st)
        r->rc = qs_stream_finish(st, err, sizeof err);
    if (r->rc)
        snprintf(r->msg, sizeof r->msg, "%s", err);
    qs_stream_free(st);
}

static capture_tally tally;
static char text[70000 + 256];

/* pad bytes of comment first (0: none), the set-up, the line, and (with
 * nl) its newline and one select more. */
static void agree_padded(const char *line, size_t n, size_t pad, int nl)
{
    static run a, b;
    size_t len = 0;
    if (pad) {
        memset(text, '#', pad - 1);
        text[pad - 1] = '\n';
        len = pad;
    }
    memcpy(text + len, SETUP, sizeof SETUP - 1);
    len += sizeof SETUP - 1;
    memcpy(text + len, line, n);
    len += n;
    if (nl) {
        memcpy(text + len, "\nselect\n", 8);
        len += 8;
    }
    by_reader(text, len, &a);
    by_lines(text, len, &b);
    capture_count(&tally, line, n, a.rc, a.msg, &a.trace, b.rc, b.msg,
                  &b.trace);
}

static void agree(const char *line)
{
    agree_padded(line, strlen(line), 0, 1);
}

static unsigned long long seed = 25;
static unsigned long long next_rand(void) { return draw_next(&seed); }

int main(void)
{
    /* accepted (the grammar, spec/events.md S-EV-8 and S-EV-9; D1 is the
     * one delivery in flight, and leading zeros are allowed): marked + */
    static const char *const hand[] = {
        "select",                  /* + */
        "select ",                 /* + (a trailing blank: general path) */
        "select\t",                /* + */
        "select\r",                /* + (CR before LF dropped) */
        "selectx",                 /*   unknown verb */
        "selec",                   /*   */
        "select smtp",             /* + (by transport) */
        "done D1 ok",              /* + */
        "done D1 fail",            /* + */
        "done D1 defer",           /* + */
        "done D01 ok",             /* + (general path: a leading 0) */
        "done D001 defer",         /* + */
        "done D1  ok",             /* + (two blanks) */
        "done  D1 ok",             /* + */
        "done D1 ok\r",            /* + */
        "done D1 ok ",             /* + */
        "done D1 okay",            /*   */
        "done D1 o",               /*   */
        "done D1 fai",             /*   */
        "done D1 defe",            /*   */
        "done D1 deferred",        /*   */
        "done D1ok",               /*   */
        "done D2 ok",              /*   no such delivery */
        "done D0 ok",              /*   */
        "done D ok",               /*   */
        "done D-1 ok",             /*   */
        "done D1x ok",             /*   */
        "done d1 ok",              /*   */
        "done D123456789012345678 ok",   /* no such delivery (18 digits) */
        "done D1234567890123456789 ok",  /* 19 digits */
        "done D12345678901234567890 ok", /* 20 */
        "done D1 ok # a comment",  /* + */
        "done",                    /*   */
        "d",                       /*   */
        "at 5",                    /* + */
        "at 999999999",            /* + (nine digits) */
        "at 1234567890",           /* + (ten: general path) */
        "at 8589934592",           /* + (2^33) */
        "at 8589934593",           /*   */
        "at 0",                    /* + (now; general path) */
        "at 05",                   /* + */
        "at 5 ",                   /* + */
        "at  5",                   /* + */
        "at 5\r",                  /* + */
        "at 5x",                   /*   */
        "at5",                     /*   */
        "at -1",                   /*   */
        "at ",                     /*   */
        "a",                       /*   */
    };
    size_t i, k;

    for (i = 0; i < sizeof hand / sizeof *hand; i++)
        agree(hand[i]);
    /* the + lines: 15 select and done, 9 at */
    CHECK_EQ_LL("chunk-line-hand-accepted", tally.accepted, 15 + 9);

    /* the line under test as the input's last line, without a newline
     * (the chunk reader must not take it: it is not followed by one) */
    tally.accepted = 0;
    agree_padded("select", 6, 0, 0);
    agree_padded("done D1 ok", 10, 0, 0);
    agree_padded("done D1 fail", 12, 0, 0);
    agree_padded("done D1 defer", 13, 0, 0);
    agree_padded("done D1 okay", 12, 0, 0);
    agree_padded("at 5", 4, 0, 0);
    CHECK_EQ_LL("chunk-line-last-accepted", tally.accepted, 5);

    /* across the end of the first chunk (64 KiB): the line under test
     * starts 1 to 16 bytes before it, or right at it */
    tally.accepted = 0;
    for (k = 0; k <= 16; k++) {
        size_t start = 65536 - k; /* where the line begins */
        size_t pad = start - (sizeof SETUP - 1);
        agree_padded("select", 6, pad, 1);
        agree_padded("done D1 ok", 10, pad, 1);
        agree_padded("done D1 defer", 13, pad, 1);
        agree_padded("at 123456789", 12, pad, 1);
    }
    CHECK_EQ_LL("chunk-line-boundary-accepted", tally.accepted, 4 * 17);

    /* numbers of 1 to 12 digits, and with a byte that is not a digit at
     * each place - among them bytes whose + 6 carries into the next
     * byte of a word (chunk_number reads eight at a time): a done's
     * handle is in its message ("t:4: D<n> is not in flight") when it is
     * not D1; an `at` line is put between two of the same time that
     * chunk_line does not take (a blank more), so that a time read too
     * low or too high is refused as going backwards */
    {
        static const unsigned char odd[] = {0xfa, 0xfb, 0xfe, 0xff, 0x7f,
                                            0x80, '/', ':', ' ', 'a'};
        char num[16], line[64];
        int before = tally.accepted;
        size_t d, pos, j, n;
        for (d = 1; d <= 12; d++)
            for (pos = 0; pos <= d; pos++)
                for (j = 0; j < (pos < d ? sizeof odd : 1); j++) {
                    memcpy(num, "987654321098", d);
                    if (pos < d)
                        num[pos] = (char)odd[j]; /* pos == d: all digits */
                    n = (size_t)sprintf(line, "done D");
                    memcpy(line + n, num, d);
                    n += d;
                    n += (size_t)sprintf(line + n, " fail");
                    agree_padded(line, n, 0, 1);
                    /* "at  NUM\nat NUM\nat  NUM" */
                    n = (size_t)sprintf(line, "at  %.*s\nat %.*s\nat  %.*s",
                                        (int)d, num, (int)d, num, (int)d,
                                        num);
                    agree_padded(line, n, 0, 1);
                }
        /* accepted: the at lines of 1 to 9 digits (2^33 bounds 10) - all
         * digits (d = 1..9), or a blank first or last and the other d - 1
         * digits (d = 2..10); no done (D1 is never among them) */
        CHECK_EQ_LL("chunk-line-numbers-accepted", tally.accepted - before,
                    9 + 9 + 9);
    }

    /* drawn lines: "done D" or "select" or nothing, then up to 14 bytes
     * of an alphabet of what the reader tests */
    {
        static const char alphabet[] =
            "0123456789011 okfaildefer\r\t D\n\xfa\xff/:";
        static const char *const heads[] = {"done D", "done D1", "select",
                                            "done D1 ", "at ", "at 1", ""};
        int drawn, before = tally.accepted;
        char line[64];
        for (drawn = 0; drawn < 20000; drawn++) {
            size_t n = (size_t)sprintf(line, "%s",
                                       heads[next_rand() % 7]);
            size_t extra = next_rand() % 15, c;
            for (c = 0; c < extra; c++)
                line[n++] = alphabet[next_rand() % (sizeof alphabet - 1)];
            agree_padded(line, n, 0, 1);
        }
        CHECK("chunk-line-drawn-some-accepted", tally.accepted - before > 500);
    }
    printf("# %d streams, %d disagreements\n", tally.lines, tally.disagree);
    CHECK_EQ_LL("chunk-line-agrees", tally.disagree, 0);
    return CHECK_DONE();
}
