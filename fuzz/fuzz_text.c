/*
 * fuzz/fuzz_text.c - the text harness: fuzz bytes are an event stream.
 *
 * Owns: feeding arbitrary bytes, line by line, through the event-language
 * parser (src/events.c, qs_stream_line) into the core, with the invariant
 * checker after every accepted line.  It hardens the parser every user
 * feeds and reaches the core through the same door as `qsched FILE`.
 *
 * Per input:
 *   - inputs over QSF_TEXT_MAX_INPUT bytes are ignored (returns at once);
 *   - lines are split at '\n' (a '\r' before it is the parser's business);
 *   - an arrive line whose recipient counts (the *COUNT suffixes, 1 for a
 *     group without one) add up to more than QSF_TEXT_LINE_RCPTS, or that
 *     would take the input's total over QSF_TEXT_INPUT_RCPTS, is skipped
 *     before the parser sees it.  Such lines are legitimate, but a huge
 *     count makes the core read (and the checker walk) many recipients, and
 *     a fuzzer that finds "*999999" would spend its time there instead of
 *     in new states.  A count that is not all digits is not skipped: the
 *     parser must reject it, and that path stays fuzzed.
 *   - the first rejected line (the exit-2 path) ends the input; that is not
 *     a finding.  It must however change nothing (qsched.h: "a failed call
 *     changes nothing"; S-EV-10): the harness replays the accepted lines
 *     into a fresh stream and requires the same qs_encode_state and no
 *     trace record from the rejected line.
 * Findings (abort): a broken invariant (qs_check_invariants), a trace
 * record breaking the contract (fuzz/common.c), a rejected line that
 * changed the state, and whatever the core's own QSCHED_CROSSCHECK and the
 * sanitizers catch.
 * With QSCHED_FUZZ_ECHO=1 the lines fed to the parser are echoed on
 * stdout: that is the reproducer stream for `qsched --check-invariants`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "events.h"

#define QSF_TEXT_MAX_INPUT 65536
#define QSF_TEXT_LINE_RCPTS 10000
#define QSF_TEXT_INPUT_RCPTS 20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Recipients an arrive line asks for, saturating above cap; 0 for any
 * other line.  Mirrors the parser only as far as needed: '#' starts a
 * comment, a line with '=' is a parameter, the verb is the first word. */
static int64_t arrive_rcpts(const char *line, size_t len, int64_t cap)
{
    size_t i = 0, end = len;
    int64_t total = 0;
    const char *hash = memchr(line, '#', len);
    if (hash)
        end = (size_t)(hash - line);
    if (memchr(line, '=', end))
        return 0;
    while (i < end && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (end - i < 6 || memcmp(line + i, "arrive", 6) != 0 ||
        (end - i > 6 && line[i + 6] != ' ' && line[i + 6] != '\t'))
        return 0;
    i += 6;
    /* skip the message id */
    while (i < end && (line[i] == ' ' || line[i] == '\t'))
        i++;
    while (i < end && line[i] != ' ' && line[i] != '\t')
        i++;
    while (i < end) {
        size_t w0, w1, k;
        int64_t count = 1;
        while (i < end && (line[i] == ' ' || line[i] == '\t'))
            i++;
        if (i == end)
            break;
        w0 = i;
        while (i < end && line[i] != ' ' && line[i] != '\t')
            i++;
        w1 = i;
        for (k = w0; k < w1 && line[k] != '*'; k++)
            ;
        if (k < w1) {
            int64_t v = 0;
            size_t d;
            for (d = k + 1; d < w1 && line[d] >= '0' && line[d] <= '9'; d++)
                if (v <= cap)
                    v = v * 10 + (line[d] - '0');
            if (d == w1 && d > k + 1)
                count = v;
        }
        total += count;
        if (total > cap)
            return cap + 1;
    }
    return total;
}

/* Feeds the lines of data to st up to (not including) line number stop
 * (1-based; 0: all lines), applying the recipient caps.  Returns the
 * parser's result of the last line fed; *rejected is the number of the
 * line that was rejected (0 if none).  A rejected line must not emit any
 * trace record (S-EV-10: nothing of it is processed). */
static int feed(qs_stream *st, qsf_run *run, const uint8_t *data,
                size_t size, long stop, int check, int echo, long *rejected,
                char *err, size_t errlen)
{
    size_t pos = 0;
    long lineno = 0;
    int64_t total = 0, records;
    *rejected = 0;
    while (pos < size) {
        const char *line = (const char *)data + pos;
        const uint8_t *nl = memchr(data + pos, '\n', size - pos);
        size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;
        int64_t n;
        pos += len + (nl ? 1 : 0);
        lineno++;
        if (stop && lineno >= stop)
            break;
        n = arrive_rcpts(line, len, QSF_TEXT_LINE_RCPTS);
        if (n > QSF_TEXT_LINE_RCPTS || total + n > QSF_TEXT_INPUT_RCPTS)
            continue;
        total += n;
        records = run->records;
        if (qs_stream_line(st, line, len, err, errlen) != 0) {
            *rejected = lineno;
            if (run->records != records)
                qsf_finding("rejected line %ld emitted trace records",
                            lineno);
            return 2;
        }
        if (echo) {
            fwrite(line, 1, len, stdout);
            fputc('\n', stdout);
        }
        if (check)
            qsf_check(qs_stream_sched(st), "an accepted line");
    }
    return 0;
}

static char *encode(const qs_sched *s)
{
    size_t n = qs_encode_state(s, NULL, 0);
    char *buf = malloc(n + 1);
    if (buf)
        qs_encode_state(s, buf, n + 1);
    return buf;
}

/* S-EV-10: the rejected line left the state as the accepted prefix made
 * it.  The core is deterministic, so replaying the prefix rebuilds it. */
static void check_rejection_changed_nothing(qs_stream *st,
                                            const uint8_t *data, size_t size,
                                            long rejected)
{
    qsf_run run2 = {0};
    qs_stream *again = qs_stream_new("fuzz", qsf_sink, &run2);
    long r2;
    char err[512];
    char *a, *b;
    if (!again)
        return;
    if (feed(again, &run2, data, size, rejected, 0, 0, &r2, err,
             sizeof err) != 0)
        qsf_finding("replaying the accepted prefix was rejected at line %ld:"
                    " %s", r2, err);
    if (!qs_stream_sched(again) &&
        qs_stream_finish(again, err, sizeof err) != 0)
        qsf_finding("the accepted prefix cannot create a scheduler: %s",
                    err);
    a = encode(qs_stream_sched(st));
    b = encode(qs_stream_sched(again));
    if (a && b && strcmp(a, b) != 0)
        qsf_finding("rejected line %ld changed the scheduler state", rejected);
    free(a);
    free(b);
    qs_stream_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qsf_run run;
    static qs_stream *st; /* static: survives the longjmp below */
    static jmp_buf stop;
    char err[512];
    long rejected;
    int rc;

    if (size > QSF_TEXT_MAX_INPUT)
        return 0;
    memset(&run, 0, sizeof run);
    st = qs_stream_new("fuzz", qsf_sink, &run);
    if (!st)
        return 0;
    if (setjmp(stop)) {
        /* a tolerated open finding (QSCHED_FUZZ_TOLERATE) ended it */
        qsf_set_stop(NULL);
        qs_stream_free(st);
        st = NULL;
        return 0;
    }
    qsf_set_stop(&stop);
    rc = feed(st, &run, data, size, 0, 1, qsf_echo(), &rejected, err,
              sizeof err);
    if (rc != 0) {
        if (qsf_echo())
            fprintf(stderr, "qsched-fuzz: input ends at the rejected line: "
                    "%s\n", err);
        if (qs_stream_sched(st))
            check_rejection_changed_nothing(st, data, size, rejected);
    } else if (qs_stream_finish(st, err, sizeof err) == 0) {
        qsf_check(qs_stream_sched(st), "the end of the stream");
    }
    qsf_touch_state(qs_stream_sched(st));
    qsf_set_stop(NULL);
    qs_stream_free(st);
    st = NULL;
    return 0;
}
