/*
 * trace.c - text and JSON Lines renderings of the trace (spec/trace.md).
 *
 * Owns: the exact bytes of every trace line.  The text form is the
 * contract other implementations are verified against: one decision per
 * line, words separated by one space, no trailing space.
 *
 * Why it sits outside the core: the core reports each decision as a
 * qs_trace record (numbers and names, no text) through the sink of
 * qsched.h; turning records into bytes is a choice of the embedder.  The
 * CLI prints them with qs_trace_print; a harness may compare records
 * directly.  The core never includes this file.
 *
 * Two levels (spec/trace.md): the default level is what the scheduler
 * did (deliver, idle, window, dead, revive, defer) and is what another
 * implementation must reproduce exactly; the explain level adds why
 * (activation, reads, candidates, preemption tests with every number,
 * pops, blockers, recipient-slot moves, and the concurrency scheduler's
 * safety test, feedback sums, failed cohorts and backoff with their
 * binary64 values), for people and for divergence reports.
 * May not: decide anything, or print what the core did not report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace.h"
#include "words.h"

/* The six kinds of the default level: the decisions a conforming
 * implementation must print (tests/conformance compares only these). */
int qs_trace_is_default(const qs_trace *r)
{
    return QS_TRACE_IS_DEFAULT(r);
}

/* An optional name: "-" when absent (a pop with no parent, a slot move
 * with no next job), so that every line has the same number of words. */
static const char *nz(const char *s) { return s ? s : "-"; }

/* A binary64 value of the concurrency explain records, in the shortest
 * decimal form that reads back as the same double (0.2, not
 * 0.20000000000000001; 0.9999999999999999 stays what it is).  buf has 32
 * bytes. */
static const char *dbl(char *buf, double v)
{
    int p;
    if (v == 0) /* also -0 */
        return strcpy(buf, "0");
    for (p = 1; p <= 17; p++) {
        snprintf(buf, 32, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* The feedback form with its value at window n: "1", "1/concurrency=1/5=0.2",
 * "1/sqrt_concurrency=1/sqrt(5)=0.4472135954999579" (form numbers of
 * qsched.h QS_T_SUCCESS). */
static const char *form_text(char *buf, size_t len, int64_t form,
                             double base, int64_t n, double value)
{
    char b1[32], b2[32];
    if (form == 1)
        snprintf(buf, len, "%s/concurrency=%s/%lld=%s", dbl(b1, base),
                 b1, (long long)n, dbl(b2, value));
    else if (form == 2)
        snprintf(buf, len, "%s/sqrt_concurrency=%s/sqrt(%lld)=%s",
                 dbl(b1, base), b1, (long long)n, dbl(b2, value));
    else
        snprintf(buf, len, "%s", dbl(b1, value));
    return buf;
}

static const char *form_name(int64_t form)
{
    return form == 1 ? "x/concurrency" : form == 2 ? "x/sqrt_concurrency"
                                                   : "x";
}

/* The concurrency scheduler's explain lines (spec/trace.md). */
static int format_concurrency(const qs_trace *r, char *buf, size_t len)
{
    char fb[128], v1[32], v2[32], v3[32], v4[32], win[96];
    long long a = r->a, b = r->b, c = r->c, d = r->d, e = r->e;
    switch (r->kind) {
    case QS_T_SAFETY:
        if (r->f && d > 0 && a >= d)
            return snprintf(buf, len, "safety %s:%s window=%lld busy=%lld "
                            "initial=%lld limit=%lld: %lld >= %lld: no "
                            "positive feedback", r->transport, r->dest, a, b,
                            c, d, a, d);
        if (r->f)
            snprintf(win, sizeof win, " limit=%lld", d);
        else
            win[0] = 0;
        return snprintf(buf, len, "safety %s:%s window=%lld busy=%lld "
                        "initial=%lld%s: %lld %s %lld+%lld%s", r->transport,
                        r->dest, a, b, c, win, a, r->e ? "<" : ">=", b, c,
                        r->e ? "" : ": no positive feedback");
    case QS_T_SUCCESS:
    case QS_T_FAILURE: {
        int up = r->kind == QS_T_SUCCESS;
        double sum = up ? r->z + r->y : r->z - r->y;
        long long stepped = up ? a + e : a - e;
        form_text(fb, sizeof fb, r->f, r->x, a, r->y);
        if (e == 0 && b == a)
            snprintf(win, sizeof win, "window %lld", a);
        else if (e == 0) /* an initial window above the limit (S-CON-5) */
            snprintf(win, sizeof win, "window %lld, clamped to limit %lld",
                     a, b);
        else if (stepped != b)
            snprintf(win, sizeof win, "window %lld%c%lld=%lld, %s %lld "
                     "%s=%s %s=0", a, up ? '+' : '-', e, stepped,
                     up ? "clamped to limit" : "raised to", b,
                     up ? "success" : "failure", dbl(v4, r->w),
                     up ? "failure" : "success");
        else
            snprintf(win, sizeof win, "window %lld%c%lld=%lld %s=%s %s=0",
                     a, up ? '+' : '-', e, b, up ? "success" : "failure",
                     dbl(v4, r->w), up ? "failure" : "success");
        if (d) /* S-PFX-2: the rounding guard in the test */
            return snprintf(buf, len, "%s %s:%s %c=%s %s=%s%c%s=%s: %s%c%s/2 "
                            "%s %d: %s", up ? "success" : "failure",
                            r->transport, r->dest, up ? 'g' : 'f', fb,
                            up ? "success" : "failure", dbl(v1, r->z),
                            up ? '+' : '-', dbl(v2, r->y), dbl(v3, sum), v3,
                            up ? '+' : '-', v2,
                            up ? (e ? ">=" : "<") : (e ? "<" : ">="),
                            up ? 1 : 0, win);
        return snprintf(buf, len, "%s %s:%s %c=%s %s=%s%c%s=%s: %s %s %d: %s",
                        up ? "success" : "failure", r->transport, r->dest,
                        up ? 'g' : 'f', fb, up ? "success" : "failure",
                        dbl(v1, r->z), up ? '+' : '-', dbl(v2, r->y),
                        dbl(v3, sum), v3,
                        up ? (e ? ">=" : "<") : (e ? "<" : ">="), up ? 1 : 0,
                        win);
    }
    case QS_T_COHORT:
        dbl(v1, r->x);
        dbl(v2, r->y);
        if (d && b == 0) /* S-PFX-1: a limit of 0 turns detection off */
            return snprintf(buf, len, "cohort %s:%s fail_cohorts=%s+1/%lld=%s "
                            "limit=0: detection off", r->transport, r->dest,
                            v1, a, v2);
        return snprintf(buf, len, "cohort %s:%s fail_cohorts=%s+1/%lld=%s "
                        "limit=%lld: %s %s %lld%s", r->transport, r->dest, v1,
                        a, v2, b, v2,
                        c ? (d ? ">=" : ">") : (d ? "<" : "<="), b,
                        c ? ": dead" : "");
    case QS_T_BACKOFF:
        switch (r->d) {
        case QS_BACKOFF_DEAD:
            return snprintf(buf, len, "backoff %s:%s dead at %lld: revives "
                            "at %lld = %lld+%lld (minimal_backoff_time)",
                            r->transport, r->dest, c, a, c, b);
        case QS_BACKOFF_EXPIRED:
            return snprintf(buf, len, "backoff %s:%s revive time %lld <= now "
                            "%lld: backoff over", r->transport, r->dest, a,
                            c);
        case QS_BACKOFF_OK_IGNORED:
            return snprintf(buf, len, "backoff %s:%s success while dead: "
                            "ignored, revives at %lld", r->transport, r->dest,
                            a);
        case QS_BACKOFF_OK_REVIVES:
            return snprintf(buf, len, "backoff %s:%s success while dead: "
                            "revives now (%lld), not at %lld", r->transport,
                            r->dest, c, a);
        default:
            return snprintf(buf, len, "backoff %s:%s failure while dead: no "
                            "feedback, revives at %lld", r->transport,
                            r->dest, a);
        }
    default:
        return 0;
    }
}

/* A line under construction: the text form is built by hand, not by
 * snprintf (a trace line per decision; replay speed, tests/bench.sh).
 * Output that does not fit is cut exactly where snprintf would cut it:
 * at most len - 1 bytes and a NUL. */
typedef struct line_buf {
    char *buf;
    size_t pos, len;  /* len >= 1 */
} line_buf;

static void put_str(line_buf *b, const char *s)
{
    size_t n, room = b->len - 1 - b->pos;
    if (!s)
        s = "(null)"; /* what printf's %s writes for a null pointer */
    n = strlen(s);
    if (n > room)
        n = room;
    memcpy(b->buf + b->pos, s, n);
    b->pos += n;
}

/* Decimal digits of v, negative included (via unsigned, so that the
 * most negative value has no overflow); cut at the buffer's end. */
static void put_num(line_buf *b, long long v)
{
    char digits[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
                                 : (unsigned long long)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0 && b->pos + 1 < b->len)
        b->buf[b->pos++] = '-';
    while (n > 0 && b->pos + 1 < b->len)
        b->buf[b->pos++] = digits[--n];
}

/* "WORD A B": a word and two names, the common shape of explain lines */
static void put_word2(line_buf *b, const char *word, const char *x,
                      const char *y)
{
    put_str(b, word);
    put_str(b, " ");
    put_str(b, x);
    put_str(b, " ");
    put_str(b, y);
}

/* "TRANSPORT:DEST" */
static void put_tdest(line_buf *b, const qs_trace *r)
{
    put_str(b, r->transport);
    put_str(b, ":");
    put_str(b, r->dest);
}

/* The default-level lines, the ones every run prints (one or more per
 * event), built with one bound check per line (issue 16): the names are
 * measured first, and a line that might not fit in its buffer (or has a
 * null name, or a negative number) is left to the general code below,
 * which cuts it exactly where snprintf would.  Names of the core are
 * short (64 bytes, next-hops 200: messages.c), so that never happens in
 * practice.  Every line ends up as the general code writes it. */

/* The most a number adds to a line (19 digits and a separator). */
#define FAST_NUM_MAX 20

/* a non-negative number (the default-level numbers: handles, counts,
 * windows, times) at p, two digits at a time; returns the end.  The room
 * (FAST_NUM_MAX) was checked for the whole line. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline char *fast_num(char *p, unsigned long long u)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021"
        "222324252627282930313233343536373839404142434445464748495051525354"
        "555657585960616263646566676869707172737475767778798081828384858687"
        "888990919293949596979899";
    unsigned long long q;
    size_t n;
    char *d;
    if (u < 100) {
        /* the commonest numbers (counts, windows, small handles) written
         * in place */
        if (u >= 10) {
            *p++ = pairs[u * 2];
            *p++ = pairs[u * 2 + 1];
        } else {
            *p++ = (char)('0' + u);
        }
        return p;
    }
    /* the number of digits first (at most 19 for a long long: 10^19 still
     * fits the unsigned type), then the digits written from the last one
     * back, two at a time, straight into the line: no reversed buffer to
     * copy (issue 16: a handle of 4..6 digits cost about 80 instructions
     * with the copy) */
    if (u < 10000)          /* handles and times: mostly 3..6 digits */
        n = u < 1000 ? 3 : 4;
    else if (u < 1000000)
        n = u < 100000 ? 5 : 6;
    else
        for (n = 7, q = 10000000; n < 19 && u >= q; q *= 10)
            n++;
    d = p + n;
    p = d;
    while (u >= 100) {
        unsigned k = (unsigned)(u % 100) * 2;
        u /= 100;
        *--d = pairs[k + 1];
        *--d = pairs[k];
    }
    if (u >= 10) {
        *--d = pairs[u * 2 + 1];
        *--d = pairs[u * 2];
    } else {
        *--d = (char)('0' + u);
    }
    return p;
}

/* a literal at p (its length is known: a few stores); the room was
 * checked for the whole line */
#define FAST_LIT(p, lit)                                                    \
    do {                                                                    \
        memcpy((p), lit, sizeof lit - 1);                                   \
        (p) += sizeof lit - 1;                                              \
    } while (0)

/* Names are copied a word at a time (words.h: copy_short, copy_word8). */

/* "TRANSPORT:DEST" at p from the lengths given; returns the end */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline char *copy_tdest(char *p, const qs_trace *r, size_t lt,
                               size_t ld)
{
    p = copy_short(p, r->transport, lt);
    *p++ = ':';
    return copy_short(p, r->dest, ld);
}

/* The line of a default-level record into buf (len >= 1), or 0 when the
 * general code must build it (another kind, a null name, a negative
 * number, or a line that might not fit).  lengths = 1: the record came
 * from the scheduler, so each of its names' lengths, where not 0, is the
 * name's strlen (qsched.h; sched_int.h qsi_trace_dest, qsi_trace_msg);
 * only the CLI's printer knows that of the records it is given (a record
 * passed to qs_trace_text may have been built with an older qsched.h,
 * without the length fields). */
static size_t fast_format(const qs_trace *r, char *buf, size_t len,
                          int lengths)
{
    char *p = buf;
    size_t lm = 0, lt, ld;
    /* per kind: the head, and the numbers after T:DEST (x0, x1; nums of
     * them) - only the fields the line prints are read and checked, as in
     * the general code below (issue 16: one test of every field of every
     * kind, and three switches, were a third of this function) */
    static const char heads[5][16] = {"deliver D", "defer ", "window ",
                                      "dead ", "revive "};
    const char *head;
    size_t head_len;
    unsigned long long x0 = 0, x1 = 0;
    long long sign;
    int nums, msg = 0;
    switch (r->kind) {
    case QS_T_DELIVER: /* deliver D<handle> MSG T:DEST N */
        head = heads[0];
        head_len = 9;
        msg = 1;
        x0 = (unsigned long long)r->n;
        nums = 1;
        sign = r->handle | r->n;
        break;
    case QS_T_DEFER: /* defer MSG T:DEST N */
        head = heads[1];
        head_len = 6;
        msg = 1;
        x0 = (unsigned long long)r->n;
        nums = 1;
        sign = r->n;
        break;
    case QS_T_IDLE:
        if (len < 5)
            return 0;
        FAST_LIT(p, "idle");
        *p = 0;
        return 4;
    case QS_T_WINDOW: /* window T:DEST OLD NEW */
        head = heads[2];
        head_len = 7;
        x0 = (unsigned long long)r->a;
        x1 = (unsigned long long)r->b;
        nums = 2;
        sign = r->a | r->b;
        break;
    case QS_T_DEAD: /* dead T:DEST */
        head = heads[3];
        head_len = 5;
        nums = 0;
        sign = 0;
        break;
    case QS_T_REVIVE: /* revive T:DEST WINDOW */
        head = heads[4];
        head_len = 7;
        x0 = (unsigned long long)r->a;
        nums = 1;
        sign = r->a;
        break;
    default:
        return 0;
    }
    /* a negative number (the sign bit of any of them), or a null name:
     * the general code */
    if (sign < 0 || !r->transport || !r->dest)
        return 0;
    if (msg) { /* deliver, defer */
        if (!r->msg)
            return 0;
        lm = lengths && r->msg_len ? r->msg_len : strlen(r->msg);
    }
    lt = lengths && r->transport_len ? r->transport_len : strlen(r->transport);
    ld = lengths && r->dest_len ? r->dest_len : strlen(r->dest);
    /* room: the head, the names, a separator around each piece, a handle
     * and the numbers, the NUL (the names one by one first, so that the
     * sum cannot wrap; their | is at least the largest of them) */
    if ((lm | lt | ld) > len ||
        head_len + lm + lt + ld + 4 + (size_t)(nums + 1) * FAST_NUM_MAX + 1 >
            len)
        return 0;
    /* the head: its 16 bytes (NUL-padded) as two words, of which the
     * line keeps head_len (the room checked above is more than 16) */
    copy_word8(p, head);
    copy_word8(p + 8, head + 8);
    p += head_len;
    if (r->kind == QS_T_DELIVER) { /* the handle, then the message */
        p = fast_num(p, (unsigned long long)r->handle);
        *p++ = ' ';
    }
    if (msg) {
        p = copy_short(p, r->msg, lm);
        *p++ = ' ';
    }
    p = copy_tdest(p, r, lt, ld);
    if (nums > 0) {
        *p++ = ' ';
        p = fast_num(p, x0);
        if (nums > 1) {
            *p++ = ' ';
            p = fast_num(p, x1);
        }
    }
    *p = 0;
    return (size_t)(p - buf);
}

/* The two lines of most records (deliver and defer: 70 to 97% of the
 * bench shapes' lines), for the CLI's printer, whose records come from
 * the scheduler: the line into buf, which has room for 1024 bytes, or 0
 * when fast_format must build it (a name without the scheduler's length
 * or of more than 256 bytes - the core's are at most 64 + 1 + 20 + 1 +
 * 200 bytes -, a null name, a negative number).  The same bytes as
 * fast_format's, with its general steps taken out: no dispatch on the
 * kind, the lengths taken as given (a non-zero length is the name's
 * strlen, qsched.h), one test of the room (three names of at most 256
 * bytes, a head of 9, two numbers of at most 20 and four separators fit
 * in 1024) and no NUL after the line.  Issue 16: the trace's lines cost
 * 180 to 220 instructions each, 8 to 13% of a replay.  A head is written
 * as one word of 8 bytes; bytes of it past the head's length are
 * overwritten by what follows (a name of at least one byte and its
 * separator), so the line ends up exactly as fast_format's. */
static size_t line_deliver_defer(const qs_trace *r, char *buf)
{
    char *p = buf;
    size_t lm = r->msg_len, lt = r->transport_len, ld = r->dest_len;
    /* each length in 1..256: each length - 1 below 256, which their |
     * is exactly when all are (0 wraps to the largest size_t) */
    if (((lm - 1) | (lt - 1) | (ld - 1)) >= 256 || (r->n | r->handle) < 0 ||
        !r->msg || !r->transport || !r->dest)
        return 0;
    if (r->kind == QS_T_DELIVER) { /* deliver D<handle> MSG T:DEST N */
        copy_word8(p, "deliver ");
        p[8] = 'D';
        p = fast_num(p + 9, (unsigned long long)r->handle);
        *p++ = ' ';
    } else { /* defer MSG T:DEST N: 8 bytes written, 6 kept (the
              * message and its space cover the other two) */
        copy_word8(p, "defer   ");
        p += 6;
    }
    p = copy_short(p, r->msg, lm);
    *p++ = ' ';
    p = copy_tdest(p, r, lt, ld);
    *p++ = ' ';
    p = fast_num(p, (unsigned long long)r->n);
    return (size_t)(p - buf);
}

/* The other default-level lines with a destination, as line_deliver_defer
 * builds its two (the same conditions, the same bytes as fast_format's):
 * "window T:DEST OLD NEW", "dead T:DEST", "revive T:DEST WINDOW"; 0 when
 * fast_format must build it.  (issue 16: a dying destination's `dead`
 * and its `revive` are a fifth of the mixed shape's lines) */
static size_t line_dest(const qs_trace *r, char *buf)
{
    char *p = buf;
    size_t lt = r->transport_len, ld = r->dest_len;
    if (((lt - 1) | (ld - 1)) >= 256 || (r->a | r->b) < 0 || !r->transport ||
        !r->dest)
        return 0;
    switch (r->kind) {
    case QS_T_DEAD:
        copy_word8(p, "dead    "); /* 8 written, 5 kept: the transport,
                                     * ':' and the next-hop cover 3 */
        p += 5;
        break;
    case QS_T_REVIVE:
        copy_word8(p, "revive  ");
        p += 7;
        break;
    default: /* QS_T_WINDOW */
        copy_word8(p, "window  ");
        p += 7;
        break;
    }
    p = copy_tdest(p, r, lt, ld);
    if (r->kind != QS_T_DEAD) {
        *p++ = ' ';
        p = fast_num(p, (unsigned long long)r->a);
        if (r->kind == QS_T_WINDOW) {
            *p++ = ' ';
            p = fast_num(p, (unsigned long long)r->b);
        }
    }
    return (size_t)(p - buf);
}

/* One record as its text line, snprintf-style into buf (truncated if
 * needed, always terminated when len > 0).  Returns the length written,
 * or 0 for a record not printed at this level.  The formats are the
 * contract of spec/trace.md: the preemption lines print the whole test
 * of S-PRE-7 with its numbers, so that a reader can redo it by hand. */
size_t qs_trace_format(const qs_trace *r, int explain, char *buf,
                       size_t len)
{
    line_buf lb = {buf, 0, len}, *b = &lb;
    size_t fast;
    if (!qs_trace_is_default(r) && !explain)
        return 0;
    if (len == 0)
        return 0;
    if ((fast = fast_format(r, buf, len, 0)) > 0)
        return fast;
    switch (r->kind) {
    case QS_T_DELIVER:
        put_str(b, "deliver D");
        put_num(b, r->handle);
        put_str(b, " ");
        put_str(b, r->msg);
        put_str(b, " ");
        put_tdest(b, r);
        put_str(b, " ");
        put_num(b, r->n);
        break;
    case QS_T_IDLE:
        put_str(b, "idle");
        break;
    case QS_T_WINDOW:
        put_str(b, "window ");
        put_tdest(b, r);
        put_str(b, " ");
        put_num(b, r->a);
        put_str(b, " ");
        put_num(b, r->b);
        break;
    case QS_T_DEAD:
        put_str(b, "dead ");
        put_tdest(b, r);
        break;
    case QS_T_REVIVE:
        put_str(b, "revive ");
        put_tdest(b, r);
        put_str(b, " ");
        put_num(b, r->a);
        break;
    case QS_T_DEFER:
        put_str(b, "defer ");
        put_str(b, r->msg);
        put_str(b, " ");
        put_tdest(b, r);
        put_str(b, " ");
        put_num(b, r->n);
        break;
    case QS_T_FBWARN:
        return 0; /* not a trace line: a warning, see qs_trace_print */
    case QS_T_ACTIVATE:
        put_str(b, "activate ");
        put_str(b, r->msg);
        break;
    case QS_T_WAIT:
        put_str(b, "wait ");
        put_str(b, r->msg);
        break;
    case QS_T_LEAVE:
        put_str(b, "leave ");
        put_str(b, r->msg);
        put_str(b, " delivered=");
        put_num(b, r->a);
        put_str(b, " deferred=");
        put_num(b, r->b);
        break;
    case QS_T_READ:
        put_str(b, "read ");
        put_str(b, r->msg);
        put_str(b, " ");
        put_num(b, r->n);
        put_str(b, " unread=");
        put_num(b, r->a);
        put_str(b, " limit=");
        put_num(b, r->b);
        break;
    case QS_T_CANDIDATE:
        put_str(b, "candidate ");
        put_str(b, r->transport);
        put_str(b, " current=");
        put_str(b, r->msg);
        put_str(b, " best=");
        put_str(b, r->msg2);
        put_str(b, " score=");
        put_num(b, r->a);
        put_str(b, "/");
        put_num(b, r->b);
        put_str(b, " max_slots=");
        put_num(b, r->c);
        break;
    case QS_T_PREEMPT:
    case QS_T_NOPREEMPT:
        /* "preempt T M by M2: counter=A k=C loan=D discount=E needed=B:
         *  A/C+D >= B*(100-E)/100 level=F" (nopreempt: "<", no level) */
        put_word2(b, r->kind == QS_T_PREEMPT ? "preempt" : "nopreempt",
                  r->transport, r->msg);
        put_str(b, " by ");
        put_str(b, r->msg2);
        put_str(b, ": counter=");
        put_num(b, r->a);
        put_str(b, " k=");
        put_num(b, r->c);
        put_str(b, " loan=");
        put_num(b, r->d);
        put_str(b, " discount=");
        put_num(b, r->e);
        put_str(b, " needed=");
        put_num(b, r->b);
        put_str(b, ": ");
        put_num(b, r->a);
        put_str(b, "/");
        put_num(b, r->c);
        put_str(b, "+");
        put_num(b, r->d);
        put_str(b, r->kind == QS_T_PREEMPT ? " >= " : " < ");
        put_num(b, r->b);
        put_str(b, "*(100-");
        put_num(b, r->e);
        put_str(b, ")/100");
        if (r->kind == QS_T_PREEMPT) {
            put_str(b, " level=");
            put_num(b, r->f);
        }
        break;
    case QS_T_POP:
        put_word2(b, "pop", r->transport, r->msg);
        put_str(b, " parent=");
        put_str(b, nz(r->msg2));
        put_str(b, " used_delta=");
        put_num(b, r->a);
        put_str(b, " refund=");
        put_str(b, r->b ? "yes" : "no");
        put_str(b, " parent_counter=");
        put_num(b, r->c);
        break;
    case QS_T_BLOCKER:
        put_word2(b, "blocker", r->transport, r->msg);
        break;
    case QS_T_UNBLOCK:
        put_word2(b, "unblock", r->transport, r->dest);
        break;
    case QS_T_RETIRE:
        put_word2(b, "retire", r->transport, r->msg);
        break;
    case QS_T_RELINK:
        put_word2(b, "relink", r->transport, r->msg);
        break;
    case QS_T_NOCANDIDATE:
        put_str(b, "nocandidate ");
        put_str(b, r->transport);
        put_str(b, " current=");
        put_str(b, r->msg);
        put_str(b, " counter=");
        put_num(b, r->a);
        put_str(b, " max_slots=");
        put_num(b, r->c);
        break;
    case QS_T_SAFETY:
    case QS_T_SUCCESS:
    case QS_T_FAILURE:
    case QS_T_COHORT:
    case QS_T_BACKOFF: {
        /* explain-level concurrency records: rare enough for snprintf */
        int n = format_concurrency(r, buf, len);
        if (n < 0)
            return 0;
        return (size_t)n < len ? (size_t)n : len - 1;
    }
    case QS_T_RCPTPOOL:
        put_word2(b, "rcptpool", r->transport, r->msg);
        put_str(b, " limit=");
        put_num(b, r->a);
        put_str(b, " pool=");
        put_num(b, r->b);
        put_str(b, " next=");
        put_str(b, nz(r->msg2));
        break;
    }
    buf[lb.pos] = 0;
    return lb.pos;
}

/* The "event" value of a JSON line, in enum qs_trace_kind order. */
/* The "event" value of a JSON line, in enum qs_trace_kind order. */
static const char *kind_name(enum qs_trace_kind k)
{
    static const char *names[] = {
        "deliver", "idle", "window", "dead", "revive", "defer", "warning",
        "activate", "wait", "leave", "read", "candidate", "preempt",
        "nopreempt", "pop", "blocker", "unblock", "retire", "relink",
        "rcptpool", "nocandidate", "safety", "success", "cohort", "failure",
        "backoff"};
    return names[k];
}

/* A string member, left out when absent.  Names need no escaping: the
 * event language admits no quote, backslash or control character in
 * them (S-EV-1). */
static void json_str(FILE *out, const char *key, const char *v)
{
    if (v)
        fprintf(out, ",\"%s\":\"%s\"", key, v); /* names need no escaping */
}

/* A number member. */
static void json_num(FILE *out, const char *key, long long v)
{
    fprintf(out, ",\"%s\":%lld", key, v);
}

static void json_dbl(FILE *out, const char *key, double v)
{
    char b[32];
    fprintf(out, ",\"%s\":%s", key, dbl(b, v));
}

/* JSON Lines: {"time":T,"event":KIND, ...keys of spec/trace.md}
 * The same records as the text form, with the time of each and named
 * fields, for tools that would rather not parse text. */
static void print_json(FILE *out, const qs_trace *r)
{
    fprintf(out, "{\"time\":%lld,\"event\":\"%s\"", (long long)r->time,
            kind_name(r->kind));
    json_str(out, "transport", r->transport);
    json_str(out, "dest", r->dest);
    json_str(out, "msg", r->msg);
    switch (r->kind) {
    case QS_T_DELIVER:
        json_num(out, "handle", r->handle);
        json_num(out, "nrcpt", r->n);
        break;
    case QS_T_DEFER:
        json_num(out, "nrcpt", r->n);
        break;
    case QS_T_WINDOW:
        json_num(out, "old", r->a);
        json_num(out, "new", r->b);
        break;
    case QS_T_REVIVE:
        json_num(out, "window", r->a);
        break;
    case QS_T_LEAVE:
        json_num(out, "delivered", r->a);
        json_num(out, "deferred", r->b);
        break;
    case QS_T_READ:
        json_num(out, "read", r->n);
        json_num(out, "unread", r->a);
        json_num(out, "limit", r->b);
        break;
    case QS_T_CANDIDATE:
        json_str(out, "candidate", r->msg2);
        json_num(out, "delay", r->a);
        json_num(out, "total", r->b);
        json_num(out, "max_slots", r->c);
        break;
    case QS_T_PREEMPT:
    case QS_T_NOPREEMPT:
        json_str(out, "candidate", r->msg2);
        json_num(out, "counter", r->a);
        json_num(out, "needed", r->b);
        json_num(out, "k", r->c);
        json_num(out, "loan", r->d);
        json_num(out, "discount", r->e);
        if (r->kind == QS_T_PREEMPT)
            json_num(out, "level", r->f);
        break;
    case QS_T_POP:
        json_str(out, "parent", r->msg2);
        json_num(out, "used_delta", r->a);
        fprintf(out, ",\"refund\":%s", r->b ? "true" : "false");
        json_num(out, "parent_counter", r->c);
        break;
    case QS_T_NOCANDIDATE:
        json_num(out, "counter", r->a);
        json_num(out, "max_slots", r->c);
        break;
    case QS_T_SAFETY:
        json_num(out, "window", r->a);
        json_num(out, "busy", r->b);
        json_num(out, "initial", r->c);
        json_num(out, "limit", r->d);
        fprintf(out, ",\"allowed\":%s", r->e ? "true" : "false");
        break;
    case QS_T_SUCCESS:
    case QS_T_FAILURE: {
        int up = r->kind == QS_T_SUCCESS;
        json_str(out, "form", form_name(r->f));
        json_dbl(out, "x", r->x);
        json_dbl(out, up ? "g" : "f", r->y);
        json_dbl(out, up ? "success_before" : "failure_before", r->z);
        json_dbl(out, up ? "success" : "failure", r->w);
        json_num(out, "old", r->a);
        json_num(out, "new", r->b);
        json_num(out, "steps", r->e);
        if (up)
            json_num(out, "limit", r->c);
        fprintf(out, ",\"guard\":%s", r->d ? "true" : "false");
        break;
    }
    case QS_T_COHORT:
        json_num(out, "window", r->a);
        json_num(out, "limit", r->b);
        json_dbl(out, "fail_cohorts_before", r->x);
        json_dbl(out, "fail_cohorts", r->y);
        fprintf(out, ",\"dead\":%s", r->c ? "true" : "false");
        break;
    case QS_T_BACKOFF: {
        static const char *cases[] = {"dead", "expired", "success_ignored",
                                      "success_revives", "failure_ignored"};
        json_str(out, "case", cases[r->d >= 0 && r->d <= 4 ? r->d : 4]);
        json_num(out, "revive_at", r->a);
        json_num(out, "backoff", r->b);
        json_num(out, "now", r->c);
        break;
    }
    case QS_T_RCPTPOOL:
        json_str(out, "next", r->msg2);
        json_num(out, "limit", r->a);
        json_num(out, "pool", r->b);
        break;
    default:
        break;
    }
    fputs("}\n", out);
}

/* The trace sink of the CLI: a qs_printer (trace.h) as context.  The
 * postfix profile's feedback warning (S-PFX-7) goes to the warning
 * stream, everything else to the output at the chosen level and format.
 * Write errors cannot be reported from here (a sink returns nothing):
 * the caller must check the stream (ferror) when the run ends. */
void qs_trace_print(void *vp, const qs_trace *r)
{
    const qs_printer *p = vp;
    char line[1024];
    size_t n;
    if (r->kind == QS_T_FBWARN) {
        if (p->warn)
            fprintf(p->warn, "qsched: warning: transport %s: %s feedback "
                    "x/sqrt_concurrency is not supported by Postfix 3.x; "
                    "using 1\n", r->transport,
                    r->a ? "negative" : "positive");
        return;
    }
    if (!qs_trace_is_default(r) && !p->explain)
        return;
    if (p->jsonl) {
        print_json(p->out, r);
        return;
    }
    n = qs_trace_format(r, p->explain, line, sizeof line - 1);
    line[n] = '\n';
    fwrite(line, 1, n + 1, p->out);
}

/* The buffered printer of the CLI (trace.h): the same lines as
 * qs_trace_print, gathered in 64 KB blocks. */
/* Issue 16: an fwrite of 64 KB copied every byte into stdio's buffer
 * before writing it (1.3..1.9% of the instructions of a replay); the
 * write of the block itself, after a flush of what stdio holds, puts out
 * the same bytes in the same order. */
void qs_printer_flush(qs_buffered_printer *bp)
{
    const char *p = bp->buf;
    size_t left = bp->len;
    int fd;
    bp->len = 0;
    if (left == 0 || bp->err)
        return;
    fd = fileno(bp->p.out);
    if (fd < 0) { /* a stream without a descriptor */
        fwrite(p, 1, left, bp->p.out);
        return;
    }
    if (fflush(bp->p.out) != 0) {
        bp->err = errno ? errno : EIO;
        return;
    }
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            bp->err = n < 0 && errno ? errno : EIO;
            return;
        }
        p += n;
        left -= (size_t)n;
    }
}

int qs_trace_append_common(qs_buffered_printer *bp, const qs_trace *r)
{
    char *p = bp->buf + bp->len;
    size_t n;
    if (bp->p.jsonl || QS_PRINT_BUFFER - bp->len < 1024)
        return 0;
    /* by how often each comes (the bench shapes' lines): deliver and
     * defer, then idle, then the other three */
    if (r->kind == QS_T_DELIVER || r->kind == QS_T_DEFER)
        n = line_deliver_defer(r, p);
    else if (r->kind == QS_T_IDLE) {
        memcpy(p, "idle\n", 5);
        bp->len += 5;
        return 1;
    } else if (r->kind == QS_T_DEAD || r->kind == QS_T_REVIVE ||
               r->kind == QS_T_WINDOW)
        n = line_dest(r, p);
    else
        return 0;
    if (n == 0)
        return 0;
    p[n] = '\n';
    bp->len += n + 1;
    return 1;
}

void qs_trace_print_buffered(void *vp, const qs_trace *r)
{
    qs_buffered_printer *bp = vp;
    size_t n;
    if (r->kind == QS_T_FBWARN || bp->p.jsonl) {
        /* warnings and JSON Lines: through stdio, in order */
        qs_printer_flush(bp);
        qs_trace_print(&bp->p, r);
        return;
    }
    if (!QS_TRACE_IS_DEFAULT(r) && !bp->p.explain)
        return;
    /* a line is at most 1022 bytes and its newline (qs_trace_print) */
    if (QS_PRINT_BUFFER - bp->len < 1024)
        qs_printer_flush(bp);
    /* the default-level lines straight from the fast path (what
     * qs_trace_format tries first), the others through it.  The CLI's
     * sink offers each record to qs_trace_append_common first, so what
     * comes here is what that declined, or a line after a flush: the
     * same bytes either way, and one caller of qs_trace_append_common
     * (a second one kept gcc from inlining it into the sink: +0.35% of
     * mixed's instructions) */
    n = fast_format(r, bp->buf + bp->len, 1023, 1);
    if (n == 0)
        n = qs_trace_format(r, bp->p.explain, bp->buf + bp->len, 1023);
    bp->buf[bp->len + n] = '\n';
    bp->len += n + 1;
}

/* --stats: the scheduler's counters, the document's in-core bound beside
 * the peak (S-MEM-9), the bound that holds (S-INV-8), then one line per
 * transport in creation order.  Printed after the trace, so it never
 * interleaves with decisions. */
void qs_print_stats(const qs_printer *p, const qs_sched *s)
{
    qs_stats st;
    size_t i, n = qs_transport_count(s);
    qs_get_stats(s, &st);
    if (p->jsonl) {
        fprintf(p->out, "{\"event\":\"stats\",\"deliveries\":%lld,"
                "\"idles\":%lld,\"preemptions\":%lld,\"preempt_refused\":%lld,"
                "\"blockers\":%lld,\"recipients_delivered\":%lld,"
                "\"recipients_deferred\":%lld,\"messages_done\":%lld,"
                "\"deaths\":%lld,\"revivals\":%lld,\"reads\":%lld,"
                "\"peak_in_core\":%lld,\"bound_in_core\":%lld,"
                "\"s_inv_8_bound\":%lld}\n",
                (long long)st.deliveries, (long long)st.idles,
                (long long)st.preemptions, (long long)st.preempt_refused,
                (long long)st.blockers, (long long)st.recipients_delivered,
                (long long)st.recipients_deferred,
                (long long)st.messages_done, (long long)st.deaths,
                (long long)st.revivals, (long long)st.reads,
                (long long)st.peak_in_core, (long long)st.bound_in_core,
                (long long)st.bound_holding);
    } else {
        fprintf(p->out,
                "stats deliveries=%lld idles=%lld preemptions=%lld "
                "preempt_refused=%lld blockers=%lld\n"
                "stats recipients_delivered=%lld recipients_deferred=%lld "
                "messages_done=%lld deaths=%lld revivals=%lld reads=%lld\n"
                "stats peak_in_core=%lld bound=%lld\n",
                (long long)st.deliveries, (long long)st.idles,
                (long long)st.preemptions, (long long)st.preempt_refused,
                (long long)st.blockers, (long long)st.recipients_delivered,
                (long long)st.recipients_deferred,
                (long long)st.messages_done, (long long)st.deaths,
                (long long)st.revivals, (long long)st.reads,
                (long long)st.peak_in_core, (long long)st.bound_in_core);
        fprintf(p->out, "stats s_inv_8_bound=%lld\n",
                (long long)st.bound_holding);
    }
    for (i = 0; i < n; i++) {
        qs_transport_stats ts;
        qs_get_transport_stats(s, i, &ts);
        if (p->jsonl)
            fprintf(p->out, "{\"event\":\"stats\",\"transport\":\"%s\","
                    "\"deliveries\":%lld,\"preemptions\":%lld,"
                    "\"peak_in_core\":%lld,\"bound_in_core\":%lld}\n",
                    ts.name, (long long)ts.deliveries,
                    (long long)ts.preemptions, (long long)ts.peak_in_core,
                    (long long)ts.bound_in_core);
        else
            fprintf(p->out, "stats transport=%s deliveries=%lld "
                    "preemptions=%lld peak_in_core=%lld bound=%lld\n",
                    ts.name, (long long)ts.deliveries,
                    (long long)ts.preemptions, (long long)ts.peak_in_core,
                    (long long)ts.bound_in_core);
    }
}

/* The public form of qs_trace_format (qsched.h): an empty string, not
 * stale bytes, for a record that has no line at this level. */
size_t qs_trace_text(const qs_trace *rec, int explain, char *buf,
                     size_t len)
{
    size_t n = len ? qs_trace_format(rec, explain, buf, len) : 0;
    if (len && n == 0)
        buf[0] = 0;
    return n;
}
