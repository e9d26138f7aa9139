/*
 * readings.h - the named readings of SCHEDULER_README (spec/readings.md).
 *
 * Owns: the list of places where the document is silent, ambiguous or
 * contradicts itself AND where the choice changes a decision, each as a
 * switch with a name, its possible values, qsched's choice per profile
 * (the default), the spec entry that argues it and the rule it sits at.
 * A switch is set in a stream like any main.cf parameter,
 *     qsched_reading_idle_window = keep
 * and `qsched -d` lists them all.  The core reads the resolved value with
 * QS_READING(s, QR_...) at the line of the rule (a small conditional with
 * a comment naming the reading), so the alternative readings are not a
 * second scheduler.  `qsched verify --readings` replays a stream under the
 * alternatives to tell an implementer which reading their trace follows.
 *
 * Why it exists: an independent model written from the document alone
 * agreed with qsched on 80 of 500 generated streams with its own readings
 * and on 3,499 of 3,500 once each reading was resolved as qsched resolves
 * it (issue 20).  Those differences are readings, not bugs, and an
 * implementer needs to be told which sentence they read differently.
 *
 * Part of the core: no I/O, constant tables only.
 */
#ifndef QSCHED_READINGS_H
#define QSCHED_READINGS_H

#include <stddef.h>
#include "qsched.h"

/* The switches, in the order of spec/readings.md (R-1 .. R-19). */
enum qs_reading_id {
    QR_IDLE_WINDOW,          /* R-1  S-CON-13 */
    QR_TRANSPORT_RR,         /* R-2  S-PRE-14 */
    QR_CANDIDATE_FIT,        /* R-3  S-PRE-5 */
    QR_MIN_SLOTS_GATE,       /* R-4  S-PRE-3 */
    QR_PREEMPT_CREDIT,       /* R-5  S-PRE-3 */
    QR_SAFETY_COHORT_RESET,  /* R-6  S-CON-3 */
    QR_CURRENT_WHEN_GONE,    /* R-7  S-PRE-2 */
    QR_SCORE_WAIT_PLUS_ONE,  /* R-8  S-PRE-6 */
    QR_SLOT_DIVISION,        /* R-9  S-PRE-5, S-PRE-7 */
    QR_POP_REFUND,           /* R-10 S-PRE-9 */
    QR_PREEMPTED_CANDIDATES, /* R-11 S-PRE-5 */
    QR_DEFERRED_ENTRIES,     /* R-12 S-CON-9 */
    QR_BLOCKER_RELEASE,      /* R-13 S-PRE-12 */
    QR_CURRENT_JOB,          /* R-14 S-PRE-2, S-PRE-12 */
    QR_DEAD_SUCCESS,         /* R-15 S-CON-11 */
    QR_REVIVAL_WINDOW,       /* R-16 S-CON-10 */
    QR_FEEDBACK_BUSY,        /* R-17 S-CON-3, S-CON-12 */
    QR_DEATH_RELEASE,        /* R-18 S-CON-9, S-PRE-12 */
    QR_SCORE_ENTRIES,        /* R-19 S-PRE-6 */
    QR_COUNT
};

/* The values of each switch: the index of its word in the table of
 * readings.c.  Value 0 is the document profile's default everywhere. */
enum { QRV_IDLE_DISCARD, QRV_IDLE_KEEP };
enum { QRV_RR_LAST, QRV_RR_NEXT, QRV_RR_ROTATE };
enum { QRV_FIT_NO_MORE_THAN, QRV_FIT_LESS_THAN };
enum { QRV_GATE_AT_LEAST, QRV_GATE_MORE_THAN };
enum { QRV_CREDIT_REQUIRED, QRV_CREDIT_IGNORED };
enum { QRV_SAFETY_SKIPS_RESET, QRV_SAFETY_RESETS };
enum { QRV_GONE_NEXT, QRV_GONE_HEAD, QRV_GONE_NONE };
enum { QRV_PLUS_ONE_YES, QRV_PLUS_ONE_NO };
enum { QRV_DIV_INTEGER, QRV_DIV_EXACT };
enum { QRV_REFUND_YES, QRV_REFUND_NO };
enum { QRV_PREEMPTED_EXCLUDED, QRV_PREEMPTED_INCLUDED };
enum { QRV_DEFERRED_SELECTED, QRV_DEFERRED_FORGOTTEN };
enum { QRV_RELEASE_PENDING, QRV_RELEASE_PEER, QRV_RELEASE_ALL };
enum { QRV_CURRENT_LAST_SELECTED, QRV_CURRENT_WALK_START };
enum { QRV_DEAD_SUCCESS_IGNORED, QRV_DEAD_SUCCESS_REVIVES };
enum { QRV_REVIVAL_INITIAL, QRV_REVIVAL_IN_FLIGHT };
enum { QRV_FEEDBACK_AFTER, QRV_FEEDBACK_BEFORE };
enum { QRV_DEATH_RELEASES, QRV_DEATH_KEEPS };
enum { QRV_SCORE_TOTAL, QRV_SCORE_REMAINING };

#define QS_READING_VALUES_MAX 3

typedef struct qs_reading_def {
    const char *name;      /* "idle_window" */
    const char *param;     /* "qsched_reading_idle_window" */
    const char *entry;     /* "R-1": its entry in spec/readings.md */
    const char *rules;     /* "S-CON-13": the rule it is a reading of */
    const char *values[QS_READING_VALUES_MAX + 1]; /* NULL-terminated */
    int def_document;      /* qsched's choice in the document profile */
    int def_postfix;       /* ... in the postfix profile (S-PFX-*) */
    const char *question;  /* the question, in a few words, for -d */
} qs_reading_def;

size_t qs_reading_count(void);
/* The switch with id r (0 <= r < qs_reading_count()). */
const qs_reading_def *qs_reading(size_t r);
/* The id of the switch called NAME ("idle_window") or of the parameter
 * ("qsched_reading_idle_window"); -1 if none. */
int qs_reading_find(const char *name);
/* The index of WORD among the values of switch r; -1 if none. */
int qs_reading_value_find(size_t r, const char *word);
size_t qs_reading_nvalues(size_t r);
/* qsched's choice for switch r in a profile (postfix: 0 or 1). */
int qs_reading_default(size_t r, int postfix);
/* The value of switch r a scheduler runs with (what its stream set, else
 * its profile's default). */
int qs_reading_in_force(const qs_sched *s, size_t r);

#endif
