/*
 * test_arrive_fast.c - the one-pass arrive reader (events.c, arrive_parse)
 * against the general path of the parser.
 *
 * Owns: the promise that reading an `arrive` line in one pass changes no
 * verdict, no message and no decision.  The parser takes the one-pass
 * reader only when its line buffer already holds the line (a stream's
 * first line never does), so the same line is fed twice, as the second
 * line of two streams: one whose first line was a one-byte comment (its
 * buffer is too small: the general path, load_line, split_words,
 * do_arrive, parse_group) and one whose first line was a comment longer
 * than it (the one-pass reader, which hands back to the general path
 * anything it does not take).  The status, the message ("t:2: reason")
 * and the trace of three selects after it must be the same, byte for
 * byte.  What this compares is the line around the groups (blanks, the
 * message id, the group and recipient totals, where a group ends): a
 * group itself is read by one function on both paths (scan_group), whose
 * checks test_arrive_lengths.c holds against the core's and the error
 * streams (tests/errors: bad-*, count-zero, count-over) against the
 * messages of spec/events.md.
 *
 * The lines: hand-picked edges of the grammar of S-EV-4 / S-EV-7 - the
 * length limits of each name at and one past (64, 64, 200), counts at
 * and past QS_COUNT_MAX and with leading zeros, the total over
 * QS_COUNT_MAX, a count that wraps a 64-bit integer, blanks, tabs, CR,
 * comments, '=' and NUL, empty parts, doubled separators, QS_GROUPS_MAX
 * groups and one more - and 20,000 lines drawn (fixed seed) from an
 * alphabet of the characters that matter to the reader.  Independent of
 * the reader: the verdicts are the general path's.  The test also counts
 * how many lines each way accepts, so that a reader that took nothing
 * (every line to the general path, agreeing trivially) cannot pass: the
 * hand-picked accepted lines must be a known number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "events.h"
#include "check.h"
#include "capture.h"
#include "draw.h"

/* The line as the second line of a stream whose first line is a comment
 * of first_len bytes; the verdict, the message and the trace of three
 * selects after it, into out.  Returns the status of the line. */
static int feed(const char *line, size_t len, size_t first_len,
                capture *out, char *msg, size_t msglen)
{
    char err[512], *first = malloc(first_len);
    qs_stream *st = qs_stream_new("t", capture_sink, out);
    int rc;
    out->len = 0;
    out->text[0] = 0;
    msg[0] = 0;
    if (!st || !first) {
        qs_stream_free(st);
        free(first);
        return -1;
    }
    memset(first, 'x', first_len);
    first[0] = '#';
    rc = qs_stream_line(st, first, first_len, err, sizeof err);
    free(first);
    return capture_line(st, rc, line, len, 3, msg, msglen);
}

static capture_tally tally;

/* Both ways agree on the line (len bytes); counts the accepted ones. */
static void agree(const char *line, size_t len)
{
    static capture a, b;
    char ma[512], mb[512];
    int ra = feed(line, len, 1, &a, ma, sizeof ma);
    int rb = feed(line, len, len + 1, &b, mb, sizeof mb);
    capture_count(&tally, line, len, ra, ma, &a, rb, mb, &b);
}

static void agree_str(const char *line) { agree(line, strlen(line)); }

/* A name of n copies of c, into buf. */
static char *rep(char *buf, char c, size_t n)
{
    memset(buf, c, n);
    buf[n] = 0;
    return buf;
}

/* The drawn inputs' sequence (draw.h): the same on every run and
 * machine. */
static unsigned long long seed = 16;
static unsigned long long next_rand(void) { return draw_next(&seed); }

int main(void)
{
    /* hand-picked edges; the comment after each says whether the general
     * path accepts it (counted: 13 accepted) */
    static const char *const edges[] = {
        "arrive M1 smtp:a.example",              /* yes */
        "arrive M1 smtp:a.example*3",            /* yes */
        "arrive  M1   smtp:a*2   local:bob@h1 ", /* yes: repeated blanks */
        "arrive M1 smtp:a relay:b*2 smtp:a*1",   /* yes */
        "arrive M1 s-1:x_y.z+w*1000000000",      /* yes: QS_COUNT_MAX */
        "arrive M1 s:a*1000000001",              /* no: over */
        "arrive M1 s:a*01",                      /* yes: leading zero */
        "arrive M1 s:a*0",                       /* no */
        "arrive M1 s:a*",                        /* no */
        "arrive M1 s:a*12345678901",             /* no: 11 digits */
        "arrive M1 s:a*x",                       /* no */
        "arrive M1 s:a*3*4",                     /* no */
        "arrive M1 s:a*3@b",                     /* no */
        "arrive M1 s:a*3x:b",                    /* no: not 2 groups */
        "arrive M1 s:a*18446744073709551621",    /* no: 2^64 + 5 */
        "arrive M1 s:a*600000000 s:b*400000000", /* yes: total at max */
        "arrive M1 s:a*600000000 s:b*400000001", /* no: total over */
        "arrive M1 s:@a",                        /* no: empty local */
        "arrive M1 s:l@",                        /* no: empty next-hop */
        "arrive M1 s:",                          /* no */
        "arrive M1 :a",                          /* no */
        "arrive M1 S:a",                         /* no: upper-case transport */
        "arrive M1 s:a@b@c",                     /* no */
        "arrive M1 s::a",                        /* no */
        "arrive M1 s:a:b",                       /* no */
        "arrive M1",                             /* no */
        "arrive M1 ",                            /* no */
        "arrive  ",                              /* no */
        "arrive M1\ts:a",                        /* yes: a tab is a blank */
        "arrive M1 s:a\r",                       /* yes: CR before LF */
        "arrive M1 s:a # comment",               /* yes */
        "arrive M1 s:a#c",                       /* yes: comment */
        "arrive M1 s:a=b",                       /* no */
        "arrive M1 x=y",                         /* no */
        "arrive M1 s:a.example s:b.example s:c s:d s:e s:f s:g", /* yes */
        "arrive M1 s:a s:b s:c s:d s:e s:f s:g s:h s:i",         /* yes */
        "arrive M/1 s:a",                        /* no: bad id */
        "arrive M1 s:a!",                        /* no */
        "arrive M1 s:l!@a",                      /* no */
    };
    char line[1024], t[80], l[80], h[240];
    size_t i;
    int k;

    for (i = 0; i < sizeof edges / sizeof *edges; i++)
        agree_str(edges[i]);
    /* a NUL inside the line, where the one-pass reader ends a group */
    agree("arrive M1 s:a\0 s:b", 18);
    agree("arrive M1 s:a*2\0", 16);
    CHECK_EQ_LL("arrive-fast-edges-accepted", tally.accepted, 13);

    /* the length limits, at and one past: message id 64, transport 64,
     * local part 64, next-hop 200 */
    tally.accepted = 0;
    for (k = 0; k < 2; k++) {
        snprintf(line, sizeof line, "arrive %s s:a*2", rep(t, 'M', 64 + k));
        agree_str(line);
        snprintf(line, sizeof line, "arrive M1 %s:a*2", rep(t, 't', 64 + k));
        agree_str(line);
        snprintf(line, sizeof line, "arrive M1 s:%s@a*2",
                 rep(l, 'L', 64 + k));
        agree_str(line);
        snprintf(line, sizeof line, "arrive M1 s:%s*2", rep(h, 'h', 200 + k));
        agree_str(line);
        snprintf(line, sizeof line, "arrive M1 s:%s@%s", rep(l, 'L', 64 + k),
                 rep(h, 'h', 200 + k));
        agree_str(line);
    }
    CHECK_EQ_LL("arrive-fast-limits-accepted", tally.accepted, 5);

    /* the most groups on a line, and one more (QS_GROUPS_MAX) */
    {
        size_t ng, n;
        char *big = malloc(7 + 3 + 4 * (QS_GROUPS_MAX + 1) + 1);
        tally.accepted = 0;
        for (ng = QS_GROUPS_MAX; big && ng <= QS_GROUPS_MAX + 1; ng++) {
            size_t gi;
            n = (size_t)sprintf(big, "arrive M1");
            for (gi = 0; gi < ng; gi++)
                n += (size_t)sprintf(big + n, " s:%c", 'a' + (int)(gi % 26));
            agree(big, n);
        }
        free(big);
        CHECK_EQ_LL("arrive-fast-groups-max-accepted", tally.accepted, 1);
    }

    /* drawn lines: "arrive" and up to 6 parts from an alphabet of what
     * the reader looks at */
    {
        static const char alphabet[] = "aaaabbcz09-.AM_+:::@@**1110  \t#=\r!";
        int drawn, accepted_before = tally.accepted;
        for (drawn = 0; drawn < 20000; drawn++) {
            size_t n = 0, parts = 1 + next_rand() % 6, pi;
            n += (size_t)snprintf(line, sizeof line, "arrive M%d", drawn % 7);
            for (pi = 0; pi < parts; pi++) {
                size_t plen = 1 + next_rand() % 14, c;
                unsigned long long shape = next_rand() % 4;
                line[n++] = ' ';
                if (shape == 0) {
                    /* a well-formed group with a drawn count */
                    n += (size_t)snprintf(line + n, sizeof line - n,
                                          "smtp:d%llu.example*%llu",
                                          next_rand() % 5, next_rand() % 12);
                    continue;
                }
                for (c = 0; c < plen; c++)
                    line[n++] = alphabet[next_rand() % (sizeof alphabet - 1)];
            }
            line[n] = 0;
            agree(line, n);
        }
        /* a drawn line is mostly refused; some must be accepted, or the
         * draw tests only the refusals */
        CHECK("arrive-fast-drawn-some-accepted",
              tally.accepted - accepted_before > 1000);
    }
    printf("# %d lines, %d disagreements\n", tally.lines, tally.disagree);
    CHECK_EQ_LL("arrive-fast-agrees", tally.disagree, 0);
    return CHECK_DONE();
}
