/*
 * test_done_fast.c - the fast reading of `done` and `at` lines (events.c,
 * fast_done and fast_number) against the general path of the parser.
 *
 * Owns: the promise that reading `done D<n> ok|fail|defer` and `at <t>`
 * without splitting the line changes no verdict, no message and no
 * decision.  The
 * general path reads the same line with one more blank before its last
 * word (`done D<n>  ok`, `at  <t>`), which the fast reading never takes
 * (its number would end or start with a blank); both lines are fed as the
 * third line of a stream that has one delivery in flight (D1, at time 0),
 * and the status, the message ("t:3: reason") and the trace of a select
 * after it must be the same, byte for byte.
 *
 * The numbers: hand-picked edges - 1 to 20 digits, the limits (18 digits
 * for a handle, 9 for a time), a leading 0, the bytes just below and
 * above the digits ('/' and ':') and high bytes (0x7f..0xff), a
 * non-digit at each place of numbers of 2 to 8 digits, lines shorter and
 * longer than 8 bytes (session 23 tried reading up to eight digits as
 * one word: no fewer instructions) - and 20,000 numbers drawn (fixed
 * seed) from an alphabet of digits and such bytes.
 * Independent of the reader: the verdicts are the general path's, and
 * the hand-picked lines accepted are counted against the grammar's
 * answer (spec/events.md).  That the fast reading is what the first line
 * of each pair meets: a copy of events.c whose fast_number reads each
 * digit one too low fails this test (session 23, by hand).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "events.h"
#include "check.h"
#include "capture.h"
#include "draw.h"

/* The line as the third line of a stream with D1 in flight: its status,
 * message and the trace from there on (the line and one select). */
static int feed(const char *line, size_t len, capture *out, char *msg,
                size_t msglen)
{
    char err[512];
    qs_stream *st = qs_stream_new("t", capture_sink, out);
    int rc;
    msg[0] = 0;
    if (!st)
        return -1;
    rc = qs_stream_line(st, "arrive M1 smtp:a.example*3", 26, err,
                        sizeof err);
    if (rc == 0)
        rc = qs_stream_line(st, "select", 6, err, sizeof err);
    out->len = 0;
    out->text[0] = 0;
    return capture_line(st, rc, line, len, 1, msg, msglen);
}

static capture_tally tally;

/* The fast line and its general twin agree (the twin: one more blank
 * before the line's last word, at `split`). */
static void agree(const char *line, size_t len, size_t split)
{
    static capture a, b;
    char ma[512], mb[512], twin[128];
    int ra, rb;
    if (len + 2 > sizeof twin)
        return;
    memcpy(twin, line, split);
    twin[split] = ' ';
    memcpy(twin + split + 1, line + split, len - split);
    ra = feed(line, len, &a, ma, sizeof ma);
    rb = feed(twin, len + 1, &b, mb, sizeof mb);
    capture_count(&tally, line, len, ra, ma, &a, rb, mb, &b);
}

/* `done D<number> <outcome>` and `at <number>`, both checked. */
static void both(const char *number, size_t n, const char *outcome)
{
    char line[128];
    size_t len;
    if (n + 32 > sizeof line)
        return;
    len = (size_t)sprintf(line, "done D");
    memcpy(line + len, number, n);
    len += n;
    len += (size_t)sprintf(line + len, " %s", outcome);
    agree(line, len, len - strlen(outcome) - 1);
    len = (size_t)sprintf(line, "at ");
    memcpy(line + len, number, n);
    len += n;
    agree(line, len, 2);
}

static void both_str(const char *number, const char *outcome)
{
    both(number, strlen(number), outcome);
}

/* The drawn inputs' sequence (draw.h): the same on every run and
 * machine. */
static unsigned long long seed = 23;
static unsigned long long next_rand(void) { return draw_next(&seed); }

int main(void)
{
    /* The comment after each: which of its two lines the grammar
     * (spec/events.md: `number = 1*DIGIT`, leading zeros allowed; `at`
     * 0 .. 2^33, S-EV-6; `done` of a delivery in flight, S-EV-9) accepts
     * - `done` only with the number 1 (D1 is the one delivery in flight),
     * `at` with 0 <= t <= 8589934592 (2^33), leading zeros or not (the
     * fast reading leaves those to the general path). */
    static const char *const edges[] = {
        "1",                    /* done and at */
        "2",                    /* at (no D2) */
        "9",                    /* at */
        "0",                    /* at: time 0 is now */
        "01",                   /* done and at: D01 is D1 */
        "00000001",             /* done and at */
        "10",                   /* at */
        "12345678",             /* at: eight digits */
        "99999999",             /* at */
        "100000000",            /* at: nine */
        "8589934592",           /* at: 2^33, ten digits (general path) */
        "8589934593",           /* neither */
        "999999999",            /* at */
        "123456789012345678",   /* neither (no such delivery; at: 18) */
        "1234567890123456789",  /* neither: 19 digits */
        "12345678901234567890", /* neither */
        "/",                    /* neither: just below '0' */
        ":",                    /* neither: just above '9' */
        "1/",                   /* neither */
        "1:",                   /* neither */
        "9:9",                  /* neither */
        "1a",                   /* neither */
        "a1",                   /* neither */
        "1-",                   /* neither */
        "+1",                   /* neither */
        "-1",                   /* neither */
        "1.0",                  /* neither */
    };
    static const char *const outcomes[] = {"ok", "fail", "defer"};
    static const unsigned char carries[] = {0xfa, 0xfb, 0xfc, 0xfd, 0xfe,
                                            0xff, 0x7f, 0x80, 0x29, 0x3f};
    char num[32];
    size_t i, j;
    int k;

    for (k = 0; k < 3; k++)
        for (i = 0; i < sizeof edges / sizeof *edges; i++)
            both_str(edges[i], outcomes[k]);
    /* done: D1 D01 D00000001, 3 per outcome; at: 1 2 9 0 01 00000001 10
     * 12345678 99999999 100000000 8589934592 999999999, 12 per outcome */
    CHECK_EQ_LL("done-fast-edges-accepted", tally.accepted, 3 * 3 + 3 * 12);

    /* a byte that is not a digit at each place of an eight-digit number
     * (and of numbers of 2..8 digits), among them bytes whose + 6 carries
     * into the next byte of the word */
    tally.accepted = 0;
    for (k = 2; k <= 8; k++)
        for (i = 0; i < (size_t)k; i++)
            for (j = 0; j < sizeof carries; j++) {
                memcpy(num, "98765432", (size_t)k);
                num[i] = (char)carries[j];
                both(num, (size_t)k, "ok");
            }
    CHECK_EQ_LL("done-fast-bad-bytes-refused", tally.accepted, 0);

    /* drawn numbers: 1 to 20 characters, mostly digits */
    {
        static const char alphabet[] = "0123456789012345678901234567891/:a\xfa\xff";
        int drawn, accepted_before = tally.accepted;
        for (drawn = 0; drawn < 20000; drawn++) {
            size_t n = 1 + next_rand() % 20, c;
            for (c = 0; c < n; c++)
                num[c] = alphabet[next_rand() % (sizeof alphabet - 1)];
            both(num, n, outcomes[next_rand() % 3]);
        }
        CHECK("done-fast-drawn-some-accepted",
              tally.accepted - accepted_before > 500);
    }
    printf("# %d lines, %d disagreements\n", tally.lines, tally.disagree);
    CHECK_EQ_LL("done-fast-agrees", tally.disagree, 0);
    return CHECK_DONE();
}
