/*
 * param_table.h - the table of parameters qsched understands (internal to
 * the parameter store: params.c and param_syntax.c read it, param_table.c
 * fills it), and the value syntax's entry points (param_syntax.c).
 *
 * Owns: the shape of one row (Postfix name, value syntax, default text,
 * accepted range) and of the built-in per-transport defaults (S-EV-3).
 * Split from params.c so that the table, with the reason for every
 * default, can be read on its own; the store is params.c, the value
 * syntax param_syntax.c.  Nothing outside those three files includes it.
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

/* param_syntax.c.  qp_parse_value: parse VALUE by the syntax of
 * parameter id and check it against qp_defs[id]'s range; 0 and the value
 * in *iv (or *fb for a feedback parameter), or -1 and the reason in err
 * (which may be NULL).  The store is not touched, so a refused value
 * changes nothing.  qp_set_err: the error text of a refusal, at most two
 * string arguments (callers pad with ""), into err if err is not NULL. */
int qp_parse_value(int id, const char *value, long long *iv, qs_feedback *fb,
                   char *err, size_t errlen);
void qp_set_err(char *err, size_t errlen, const char *fmt, const char *a,
                const char *b);

#endif
