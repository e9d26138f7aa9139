/*
 * params.h - internal view of the parameter store (core side).
 *
 * Owns: the table of Postfix parameter names qsched understands, their
 * defaults and ranges, and the resolution rule TRANSPORT_suffix ->
 * built-in transport default -> default_suffix (spec/events.md, S-EV-2).
 */
#ifndef QSCHED_PARAMS_H
#define QSCHED_PARAMS_H

#include "qsched.h"

enum qs_param_id {
    /* per-transport parameters: global name default_<suffix> (except
     * initial_destination_concurrency), override <transport>_<suffix> */
    QP_SLOT_COST,
    QP_SLOT_LOAN,
    QP_SLOT_DISCOUNT,
    QP_MIN_SLOTS,
    QP_DEST_CONC_LIMIT,
    QP_DEST_RCPT_LIMIT,
    QP_RCPT_LIMIT,
    QP_EXTRA_RCPT_LIMIT,
    QP_REFILL_LIMIT,
    QP_REFILL_DELAY,
    QP_INIT_CONC,
    QP_COHORT_LIMIT,
    QP_POS_FEEDBACK,
    QP_NEG_FEEDBACK,
    QP_PROCESS_LIMIT,
    QP_XPORT_RATE_DELAY,
    QP_DEST_RATE_DELAY,
    QP_NUM_TRANSPORT_PARAMS,
    /* global-only parameters */
    QP_ACTIVE_LIMIT = QP_NUM_TRANSPORT_PARAMS,
    QP_MSG_RCPT_LIMIT,
    QP_MSG_RCPT_MINIMUM,
    QP_MIN_BACKOFF,
    QP_MAX_BACKOFF,
    QP_QUEUE_RUN_DELAY,
    QP_FEEDBACK_DEBUG,
    QP_NUM_PARAMS
};

/* A parsed feedback value (S-CON-2): form (enum qs_fb_form) and base. */
typedef struct qs_feedback {
    int form;
    double base;
    int sqrt_requested; /* the text used x/sqrt_concurrency */
} qs_feedback;

/* Resolved value of parameter id for a transport (NULL: global). */
int64_t qs_param_int(const qs_params *p, const char *transport, int id);
qs_feedback qs_param_feedback(const qs_params *p, const char *transport,
                              int id);

/* A named reading (readings.h) as set in the stream: its value index, or
 * -1 if it was not set (then the profile's default applies). */
int qs_param_reading(const qs_params *p, int r);

/* Parses a feedback value; 0 ok, -1 with reason. */
int qs_feedback_parse(const char *text, qs_feedback *fb, char *err,
                      size_t errlen);

/* Every per-transport override names a transport; qs_sched_new validates
 * profile-dependent ranges over all of them with this iterator. */
size_t qs_param_override_count(const qs_params *p);
void qs_param_override(const qs_params *p, size_t i, const char **transport,
                       int *id);

#endif
