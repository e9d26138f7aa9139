/*
 * fuzz/common.h - what both fuzz harnesses share: a trace sink that checks
 * the trace contract of qsched.h and renders every record through the
 * printers of src/trace.c, and the abort path for findings.
 *
 * Owns: the harness-side view of a run (record counts, recipients seen in
 * deliver/defer/leave records) and qsf_finding(), the single place where a
 * harness turns a broken property into abort().  A finding prints one line
 * "qsched-fuzz: FINDING: ..." on stderr first, so a crash log says which
 * property broke.
 */
#ifndef QSCHED_FUZZ_COMMON_H
#define QSCHED_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include "qsched.h"

/* What the sink has seen during one input. */
typedef struct qsf_run {
    int64_t records;         /* every record */
    int64_t last_time;       /* virtual time of the previous record */
    int64_t deliveries;      /* QS_T_DELIVER records */
    int64_t deferred_rcpts;  /* recipients in QS_T_DEFER records */
    int64_t leaves;          /* QS_T_LEAVE records */
    int64_t left_rcpts;      /* a + b over QS_T_LEAVE records */
    /* Optional per-message bookkeeping (structured harness): message ids
     * are "M<n>", 1 <= n <= nmsg; msg_total[n] is the recipient count of
     * the arrive call, msg_left[n] becomes 1 when the message leaves. */
    const int64_t *msg_total;
    unsigned char *msg_left;
    size_t nmsg;
} qsf_run;

/* Resets *run for a new input (keeps the per-message pointers). */
void qsf_run_reset(qsf_run *run);

/* The qs_trace_sink of both harnesses; ctx is a qsf_run. */
void qsf_sink(void *ctx, const qs_trace *r);

/* Reports a broken property and aborts (never returns). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn, format(printf, 1, 2)))
#endif
void qsf_finding(const char *fmt, ...);

/* Runs the invariant checker; a violation is a finding, unless its text
 * contains one of the '|'-separated substrings of the environment variable
 * QSCHED_FUZZ_TOLERATE (a finding already reported and still open): then
 * the input ends quietly by longjmp to the harness's *stop (set with
 * qsf_set_stop; without one, the finding aborts as usual).  Replays never
 * set the variable, so they stay strict. */
void qsf_check(const qs_sched *s, const char *where);
void qsf_set_stop(jmp_buf *stop);

/* Exercises the read-only state API (describe, encode, stats) once. */
void qsf_touch_state(const qs_sched *s);

/* 1 when QSCHED_FUZZ_ECHO is set: harnesses then write the event stream
 * they fed to the core on stdout (a reproducer for `qsched`). */
int qsf_echo(void);

#endif
