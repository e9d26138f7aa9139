/*
 * param_table.h - the table of parameters qsched understands (internal to
 * the parameter store: params.c reads it, param_table.c fills it).
 *
 * Owns: the shape of one row (Postfix name, value syntax, default text,
 * accepted range) and of the built-in per-transport defaults (S-EV-3).
 * Split from params.c so that the table, with the reason for every
 * default, can be read on its own; the store and the value syntax stay in
 * params.c.  Nothing outside params.c and param_table.c includes it.
 */
#ifndef QSCHED_PARAM_TABLE_H
#define QSCHED_PARAM_TABLE_H

#include <stddef.h>
#include "params.h"

/* Value syntaxes: integer, time with unit, feedback form, yes/no. */
enum qp_type { T_INT, T_TIME, T_FEEDBACK, T_BOOL };

struct qp_def {
    const char *global_name; /* main.cf name of the global default */
    const char *suffix;      /* per-transport suffix, or NULL */
    enum qp_type type;
    const char *def;         /* default value text */
    long long min, max;      /* accepted range; a time with max 0 is
                                accepted only as 0 (not modelled) */
};

/* One built-in per-transport default: the value parameter id takes for
 * transport when no TRANSPORT_suffix line sets it (S-EV-3). */
struct qp_builtin_def {
    const char *transport;
    int id;
    long long value;
};

/* Indexed by enum qs_param_id; the order is the order of `qsched -d`. */
extern const struct qp_def qp_defs[QP_NUM_PARAMS];
extern const struct qp_builtin_def qp_builtin[];
extern const size_t qp_nbuiltin;

#endif
