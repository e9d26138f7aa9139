/*
 * trace.h - printers of the decision trace (spec/trace.md), around the core.
 *
 * Owns: the text and JSON Lines renderings of qs_trace records at the two
 * levels (default, explain), and the --stats report.
 */
#ifndef QSCHED_TRACE_H
#define QSCHED_TRACE_H

#include <stdio.h>
#include "qsched.h"

typedef struct qs_printer {
    FILE *out;
    FILE *warn;   /* warnings (postfix profile feedback refusal) */
    int explain;  /* 1: explain level */
    int jsonl;    /* 1: JSON Lines */
} qs_printer;

/* 1 if the record belongs to the default level. */
int qs_trace_is_default(const qs_trace *r);
/* The same test inline, for the printers' per-line path (issue 16): the
 * default level is these six kinds (spec/trace.md). */
#define QS_TRACE_DEFAULT_KINDS                                               \
    ((1u << QS_T_DELIVER) | (1u << QS_T_IDLE) | (1u << QS_T_WINDOW) |        \
     (1u << QS_T_DEAD) | (1u << QS_T_REVIVE) | (1u << QS_T_DEFER))
#define QS_TRACE_IS_DEFAULT(r)                                               \
    ((unsigned)(r)->kind < 32 &&                                             \
     ((QS_TRACE_DEFAULT_KINDS >> (unsigned)(r)->kind) & 1u))
/* Renders one record as a text line into buf (no newline); returns the
 * length, or 0 if the record is not printed at that level. */
size_t qs_trace_format(const qs_trace *r, int explain, char *buf,
                       size_t buflen);
/* A qs_trace_sink printing to a qs_printer. */
void qs_trace_print(void *printer, const qs_trace *r);
/* A printer with an output buffer of its own (the CLI): text lines are
 * formatted straight into it and leave 64 KB at a time, with no stdio
 * call per line: written to the stream's file descriptor after a flush
 * of the stream (so what went through stdio before comes first), or by
 * fwrite if the stream has none.  Same bytes as qs_trace_print; flush
 * before anything else writes to the same stream.  err: the errno of the
 * first failed write (nothing is written after it), 0 while none. */
#define QS_PRINT_BUFFER 65536
typedef struct qs_buffered_printer {
    qs_printer p;
    size_t len;
    int err;
    char buf[QS_PRINT_BUFFER];
} qs_buffered_printer;
void qs_trace_print_buffered(void *bp, const qs_trace *r);
/* A record of the default level (deliver, defer, idle, window, dead,
 * revive) appended as qs_trace_print_buffered would, when that needs no
 * flush and no general formatting (text lines; its names given with
 * their lengths, of 1 to 256 bytes; no negative number): 1 if done, 0 if
 * r is left to qs_trace_print_buffered (issue 16: the sink's tests of
 * level, kind, format and room, made once for most lines). */
int qs_trace_append_common(qs_buffered_printer *bp, const qs_trace *r);
void qs_printer_flush(qs_buffered_printer *bp);
/* The --stats report. */
void qs_print_stats(const qs_printer *p, const qs_sched *s);

#endif
