/*
 * test_trace_buffered.c - the CLI printer's lines of the default-level
 * records (src/trace.c qs_trace_append_common, qs_trace_print_buffered;
 * issue 16: these lines are built apart from the general fast path).
 *
 * Owns: the promise of trace.h - a record of the default level appended
 * to the buffer gives its line of spec/trace.md, "deliver D<handle> MSG
 * T:DEST N", "defer MSG T:DEST N", "window T:DEST OLD NEW", "dead
 * T:DEST", "revive T:DEST WINDOW" or "idle", then a newline, and nothing
 * else of the buffer changes; qs_trace_append_common takes exactly the records
 * it can write from the scheduler's lengths (every name given with its
 * length, 1 to 256 bytes, no negative number, room for a line of 1024)
 * and leaves the others to qs_trace_print_buffered, which writes the
 * same line for them (the lengths unknown, 0: measured; a null name:
 * "(null)", as printf; a negative number: with its sign).  The expected
 * text is made here with snprintf, independently of trace.c's hand-made
 * digits and word copies.  Names of 1 to 300 bytes, each followed in its
 * own storage by bytes that are not NUL after its NUL (the copies must
 * stop at the length), numbers around every power of ten and at the
 * extremes, and a buffer filled to just below and just at the room.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "trace.h"
#include "check.h"

static qs_buffered_printer bp;
static int wrong_line, wrong_taken, wrong_rest, lines;

/* a name of n bytes ('a'.. by position, so that a shifted copy shows)
 * in storage of its own with garbage after its NUL */
static const char *name_of(char *store, size_t n, char first)
{
    size_t i;
    for (i = 0; i < n; i++)
        store[i] = (char)(first + (char)(i % 23));
    store[n] = 0;
    memset(store + n + 1, '~', 16);
    return store;
}

/* The record appended at offset `at` of the buffer (filled with 0x5a):
 * through qs_trace_append_common, then, if it declined,
 * qs_trace_print_buffered; checks the line, the newline, the rest of the
 * buffer, and whether append_common took it as it should have. */
/* the contract of trace.h: a printed name, given with its length of 1
 * to 256 bytes */
static int name_ok(const char *name, size_t len)
{
    return name && len >= 1 && len <= 256;
}

static void one(const qs_trace *r, size_t at)
{
    char want[2048];
    int w, took, should_take;
    size_t i;
    int msg = r->kind == QS_T_DELIVER || r->kind == QS_T_DEFER;
    should_take = QS_PRINT_BUFFER - at >= 1024;
    if (r->kind != QS_T_IDLE)
        should_take = should_take && name_ok(r->transport, r->transport_len) &&
                      name_ok(r->dest, r->dest_len);
    if (msg)
        should_take = should_take && name_ok(r->msg, r->msg_len) &&
                      r->n >= 0 && r->handle >= 0;
    else if (r->kind != QS_T_IDLE)
        should_take = should_take && r->a >= 0 && r->b >= 0;
    const char *m = r->msg ? r->msg : "(null)";
    const char *t = r->transport ? r->transport : "(null)";
    const char *d = r->dest ? r->dest : "(null)";
    switch (r->kind) {
    case QS_T_DELIVER:
        w = snprintf(want, sizeof want, "deliver D%lld %s %s:%s %lld\n",
                     (long long)r->handle, m, t, d, (long long)r->n);
        break;
    case QS_T_DEFER:
        w = snprintf(want, sizeof want, "defer %s %s:%s %lld\n", m, t, d,
                     (long long)r->n);
        break;
    case QS_T_WINDOW:
        w = snprintf(want, sizeof want, "window %s:%s %lld %lld\n", t, d,
                     (long long)r->a, (long long)r->b);
        break;
    case QS_T_DEAD:
        w = snprintf(want, sizeof want, "dead %s:%s\n", t, d);
        break;
    case QS_T_REVIVE:
        w = snprintf(want, sizeof want, "revive %s:%s %lld\n", t, d,
                     (long long)r->a);
        break;
    default:
        w = snprintf(want, sizeof want, "idle\n");
        break;
    }
    memset(bp.buf, 0x5a, sizeof bp.buf);
    bp.len = at;
    took = qs_trace_append_common(&bp, r);
    if (!took) {
        if (bp.len != at)
            wrong_rest++; /* declined, but wrote */
        qs_trace_print_buffered(&bp, r);
        if (at > 0 && bp.len < at) /* (it flushed: only the line is left) */
            at = 0;
    }
    lines++;
    if (took != should_take && wrong_taken++ < 3)
        printf("# taken %d, lengths %zu %zu %zu\n", took, r->msg_len,
               r->transport_len, r->dest_len);
    if (bp.len != at + (size_t)w || memcmp(bp.buf + at, want, (size_t)w)) {
        if (wrong_line++ < 5)
            printf("# got \"%.*s\", want \"%s\"\n", (int)(bp.len - at),
                   bp.buf + at, want);
        return;
    }
    for (i = 0; i < at; i++)
        wrong_rest += (unsigned char)bp.buf[i] != 0x5a;
    for (i = bp.len; i < bp.len + 64 && i < sizeof bp.buf; i++)
        wrong_rest += (unsigned char)bp.buf[i] != 0x5a;
}

static void record(qs_trace *r, enum qs_trace_kind kind, long long handle,
                   const char *m, const char *t, const char *d, long long n)
{
    int has_msg = kind == QS_T_DELIVER || kind == QS_T_DEFER;
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->handle = kind == QS_T_DELIVER ? handle : 0;
    if (!has_msg) { /* the numbers are a (and b: window) */
        r->a = kind == QS_T_DEAD ? 0 : handle;
        r->b = kind == QS_T_WINDOW ? n : 0;
        r->transport = t;
        r->dest = d;
        r->transport_len = t ? strlen(t) : 0;
        r->dest_len = d ? strlen(d) : 0;
        return;
    }
    r->msg = m;
    r->transport = t;
    r->dest = d;
    r->msg_len = m ? strlen(m) : 0;
    r->transport_len = t ? strlen(t) : 0;
    r->dest_len = d ? strlen(d) : 0;
    r->n = n;
}

int main(void)
{
    static char ms[400], ts[400], ds[400];
    static const long long nums[] = {
        0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 9999, 10000, 99999, 100000,
        999999, 1000000, 9999999, 10000000, 123456789, 999999999999LL,
        1000000000000000000LL, LLONG_MAX};
    const size_t nn = sizeof nums / sizeof nums[0];
    static const size_t lens[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17,
                                  24, 31, 32, 33, 40, 64, 65, 127, 128,
                                  129, 200, 255, 256, 257, 300};
    const size_t nl = sizeof lens / sizeof lens[0];
    size_t i, j, k;
    qs_trace r;
    int kind;
    bp.p.out = stdout; /* (never flushed: the lines stay in the buffer) */
    for (kind = 0; kind < 6; kind++) {
        static const enum qs_trace_kind kinds[6] = {
            QS_T_DELIVER, QS_T_DEFER, QS_T_WINDOW, QS_T_DEAD, QS_T_REVIVE,
            QS_T_IDLE};
        enum qs_trace_kind kd = kinds[kind];
        /* every number in each numeric field, short names */
        for (i = 0; i < nn; i++)
            for (j = 0; j < nn; j++) {
                record(&r, kd, nums[i], name_of(ms, 2, 'M'),
                       name_of(ts, 4, 's'), name_of(ds, 9, 'b'), nums[j]);
                one(&r, 0);
            }
        /* every length in each name, the others at a few lengths */
        for (i = 0; i < nl; i++)
            for (j = 0; j < nl; j++)
                for (k = 0; k < nl; k += 3) {
                    record(&r, kd, 4321, name_of(ms, lens[i], 'M'),
                           name_of(ts, lens[j], 'a'),
                           name_of(ds, lens[k], 'A'), 7);
                    one(&r, 100);
                }
        /* lengths unknown (0), one name at a time: measured instead */
        record(&r, kd, 5, name_of(ms, 3, 'M'), name_of(ts, 4, 's'),
               name_of(ds, 10, 'b'), 2);
        r.msg_len = 0;
        one(&r, 0);
        record(&r, kd, 5, ms, ts, ds, 2);
        r.transport_len = 0;
        one(&r, 0);
        record(&r, kd, 5, ms, ts, ds, 2);
        r.dest_len = 0;
        one(&r, 0);
        /* null names (with length 0, as the scheduler would never pass) */
        record(&r, kd, 5, NULL, ts, ds, 2);
        one(&r, 0);
        record(&r, kd, 5, ms, NULL, ds, 2);
        one(&r, 0);
        record(&r, kd, 5, ms, ts, NULL, 2);
        one(&r, 0);
        /* negative numbers: the general code, with the sign */
        record(&r, kd, 5, ms, ts, ds, -1);
        one(&r, 0);
        record(&r, kd, 5, ms, ts, ds, LLONG_MIN);
        one(&r, 0);
        record(&r, kd, -7, ms, ts, ds, 3);
        one(&r, 0);
        /* the room: exactly 1024 left is enough, 1023 is not (the
         * general path flushes first) */
        record(&r, kd, 5, ms, ts, ds, 2);
        one(&r, QS_PRINT_BUFFER - 1024);
        bp.p.out = fopen("/dev/null", "w");
        one(&r, QS_PRINT_BUFFER - 1023);
        fclose(bp.p.out);
        bp.p.out = stdout;
        bp.len = 0;
    }
    /* JSON Lines: never a text line (left to qs_trace_print_buffered) */
    record(&r, QS_T_DEFER, 0, ms, ts, ds, 2);
    bp.p.jsonl = 1;
    bp.len = 0;
    CHECK("trace-buffered/jsonl-declined",
          qs_trace_append_common(&bp, &r) == 0 && bp.len == 0);
    bp.p.jsonl = 0;
    /* a record of the explain level: declined (not a line of this
     * printer's fast path) */
    record(&r, QS_T_WINDOW, 1, ms, ts, ds, 2);
    r.kind = QS_T_RCPTPOOL;
    CHECK("trace-buffered/explain-declined",
          qs_trace_append_common(&bp, &r) == 0 && bp.len == 0);
    printf("# %d lines\n", lines);
    CHECK("trace-buffered/lines", lines > 2000);
    CHECK_EQ_LL("trace-buffered/line", wrong_line, 0);
    CHECK_EQ_LL("trace-buffered/taken", wrong_taken, 0);
    CHECK_EQ_LL("trace-buffered/rest-untouched", wrong_rest, 0);
    return check_failures ? 1 : 0;
}
