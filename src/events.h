/*
 * events.h - the event language (spec/events.md), around the core.
 *
 * Owns: turning lines of text into calls of the qsched.h API, with
 * "FILE:LINE: reason" diagnostics (S-EV-10), and reading a whole input in
 * bounded memory with read errors reported, never taken for end of file.
 * A qs_stream is fed one line at a time, so the CLI, `qsched verify`, the
 * fuzz harnesses, the model checker and tests can all step through a
 * stream and stop or inspect it at any line.
 */
#ifndef QSCHED_EVENTS_H
#define QSCHED_EVENTS_H

#include <stdio.h>
#include "qsched.h"

/* Longest accepted line, in bytes, without the newline (S-EV-1).  Reading
 * never holds more than this (+ 1) of one line. */
#define QS_LINE_MAX 1048576
/* Most recipient groups on one arrive line. */
#define QS_GROUPS_MAX 100000

typedef struct qs_stream qs_stream;

/* fname is used in diagnostics.  The sink receives the core's trace. */
qs_stream *qs_stream_new(const char *fname, qs_trace_sink sink, void *ctx);
void qs_stream_free(qs_stream *st);

/* Feed one line (without its newline; len bytes, may contain NUL, which
 * is an error).  Returns 0, or 2 with "FILE:LINE: reason" in err (escaped:
 * no byte outside printable ASCII, see qs_escape). */
int qs_stream_line(qs_stream *st, const char *line, size_t len, char *err,
                   size_t errlen);
/* End of input: creates the scheduler if no event came (so that an empty
 * stream or one with only parameters is valid and still checked).
 * Returns 0 or 2. */
int qs_stream_finish(qs_stream *st, char *err, size_t errlen);

/* The scheduler (NULL before the first event). */
qs_sched *qs_stream_sched(qs_stream *st);
/* The number of the last line fed (0 before the first). */
long qs_stream_lineno(const qs_stream *st);
/* Whether the sink wants the records of the explain level: 1 (every
 * record) unless set to 0, which the scheduler is then told, now or when
 * it is created (qs_sched_set_explain: it neither builds nor emits
 * them).  For a sink that prints only the default level. */
void qs_stream_set_explain(qs_stream *st, int wanted);
/* Force a profile before the first event (command line). */
int qs_stream_set_profile(qs_stream *st, const char *name, char *err,
                          size_t errlen);
/* Force a parameter (e.g. a named reading, qsched_reading_NAME = WORD):
 * it is set when the scheduler is created, after the stream's own
 * parameter lines, so it wins over them.  Checked at once: 0, or 2 with
 * the reason in err. */
int qs_stream_force_param(qs_stream *st, const char *name,
                          const char *value, char *err, size_t errlen);

/* Options of qs_stream_read. */
typedef struct qs_read_opts {
    /* > 0: stop (status 0) before feeding this line number */
    long stop_before;
    /* called after every line that was accepted; a non-zero return stops
     * the reading with that status (err filled by the hook) */
    int (*after_line)(void *ctx, qs_stream *st, char *err, size_t errlen);
    void *ctx;
    /* NULL: the hook runs after every accepted line; otherwise only while
     * *wanted is non-zero (a caller with nothing to check on most lines
     * saves the call: issue 16) */
    const int *wanted;
} qs_read_opts;

/* Reads `in` to its end into st, one line at a time, holding at most
 * QS_LINE_MAX + 1 bytes of a line (a longer line is refused at once).
 * Returns 0 at end of input, 2 on an input error or a read error
 * ("FILE:LINE: cannot read: <strerror>", LINE the line being read), or the
 * hook's status.  o may be NULL.  Does not call qs_stream_finish. */
int qs_stream_read(qs_stream *st, FILE *in, const qs_read_opts *o, char *err,
                   size_t errlen);

/* Reads a whole stream: returns 0, or 2 on input error (message on errf).
 * check: 0 none; 1 the invariant checker after every line, incrementally
 * (qs_check_changes: what the line changed), and on the whole state at the
 * end; N > 1 the same and the whole state every N lines; < 0 the whole
 * state after every line (qs_check_invariants).  A broken invariant is
 * reported on errf and returns 3. */
int qs_stream_run_file(FILE *in, const char *fname, qs_trace_sink sink,
                       void *ctx, const char *profile, int check,
                       qs_stream **keep, FILE *errf);

/* Copies src into dst for a message: bytes outside printable ASCII and
 * the backslash become \xNN; always NUL-terminated, escapes never cut.
 * Returns the length written. */
size_t qs_escape(char *dst, size_t dstlen, const char *src);

#endif
