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
/* Renders one record as a text line into buf (no newline); returns the
 * length, or 0 if the record is not printed at that level. */
size_t qs_trace_format(const qs_trace *r, int explain, char *buf,
                       size_t buflen);
/* A qs_trace_sink printing to a qs_printer. */
void qs_trace_print(void *printer, const qs_trace *r);
/* The --stats report. */
void qs_print_stats(const qs_printer *p, const qs_sched *s);

#endif
