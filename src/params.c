/*
 * params.c - the parameter store: Postfix names, defaults, syntax, ranges.
 *
 * Owns: qs_params (global values plus TRANSPORT_suffix overrides) and the
 * main.cf value syntax qsched accepts: decimal integers, times with a unit
 * suffix (s m h d w), yes/no, and the four feedback forms (S-CON-2).  The
 * defaults are those of ../shared/reference/postconf-scheduler-params.txt;
 * the built-in `local` transport defaults come from Postfix's master.cf
 * conventions (S-EV-3).  No I/O: errors are returned as text.
 *
 * Implements the parameter half of the event language (S-EV-2, S-EV-3)
 * and the feedback syntax of S-CON-2; SCHEDULER_README's tables of
 * "Concurrency configuration parameters" and the parameters named in the
 * preemption and memory sections are the rows of qp_defs below.  Why it
 * is part of the core: the scheduler reads its parameters from here when
 * it creates a transport (sched.c), and the C API (qsched.h) lets any
 * embedder set them by their main.cf names.  May not: know the event
 * syntax (events.c parses "NAME = VALUE" lines and calls qs_params_set)
 * or check profile-dependent values (qs_sched_new, S-EV-5).
 *
 * Adding a parameter: a QP_ id in params.h (per-transport ids before
 * QP_NUM_TRANSPORT_PARAMS), a row of qp_defs with its Postfix name,
 * default and range, the spec's table in spec/events.md (S-EV-2); for a
 * per-transport one, a field of qs_transport resolved in
 * qsi_transport_obtain (sched.c), for a global one a field of qs_sched
 * set in qs_sched_new; then the rule that reads it, with its id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "params.h"
#include "kernels.h"
#include "readings.h"

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

/* The order of this table is the order of `qsched -d`.
 * Ranges: wide enough for any real configuration, narrow enough that every
 * product the kernels form stays in 64-bit range (proofs/README.md,
 * "Preconditions").  Per-transport rows first (overridable as
 * TRANSPORT_suffix), then the global-only ones. */
static const struct qp_def qp_defs[QP_NUM_PARAMS] = {
    /* Preemption (S-PRE-3 .. S-PRE-7).
     * delivery_slot_cost, k: one slot per k selected entries ("for every
     * k>1 normally used slots we accumulate one free delivery slot"); 0
     * turns preemption off, 1 is treated as off too (S-PRE-3). */
    [QP_SLOT_COST] = {"default_delivery_slot_cost", "delivery_slot_cost",
                      T_INT, "5", 0, 1000},
    /* delivery_slot_loan: slots a candidate may have in advance when the
     * test of S-PRE-7 is made, repaid later from the same counter. */
    [QP_SLOT_LOAN] = {"default_delivery_slot_loan", "delivery_slot_loan",
                      T_INT, "3", 0, 1000000},
    /* delivery_slot_discount: the percentage of a candidate's need that
     * may still be missing when it preempts (S-PRE-7). */
    [QP_SLOT_DISCOUNT] = {"default_delivery_slot_discount",
                          "delivery_slot_discount", T_INT, "50", 0, 100},
    /* minimum_delivery_slots: a job that could never accumulate this many
     * slots is not preempted at all (the gate of S-PRE-3). */
    [QP_MIN_SLOTS] = {"default_minimum_delivery_slots",
                      "minimum_delivery_slots", T_INT, "3", 0, 1000000},
    /* destination_concurrency_limit: the window's ceiling (the overshoot
     * clamp of S-CON-5; 0 = none, postfix profile only, S-EV-5). */
    [QP_DEST_CONC_LIMIT] = {"default_destination_concurrency_limit",
                            "destination_concurrency_limit", T_INT, "20", 0,
                            1000000},
    /* destination_recipient_limit: recipients per entry (S-PRE-1); 1 makes
     * each recipient its own destination (S-EV-4); 0 = no limit. */
    [QP_DEST_RCPT_LIMIT] = {"default_destination_recipient_limit",
                            "destination_recipient_limit", T_INT, "50", 0,
                            1000000},
    /* recipient_limit: the transport's pool of recipient slots (S-MEM-5). */
    [QP_RCPT_LIMIT] = {"default_recipient_limit", "recipient_limit", T_INT,
                       "20000", 1, 100000000},
    /* extra_recipient_limit: the extra pool for unread jobs that preempt
     * (S-MEM-6). */
    [QP_EXTRA_RCPT_LIMIT] = {"default_extra_recipient_limit",
                             "extra_recipient_limit", T_INT, "1000", 0,
                             100000000},
    /* recipient_refill_limit and recipient_refill_delay: when a message
     * with room reads its next batch (S-MEM-7). */
    [QP_REFILL_LIMIT] = {"default_recipient_refill_limit",
                         "recipient_refill_limit", T_INT, "100", 1,
                         100000000},
    [QP_REFILL_DELAY] = {"default_recipient_refill_delay",
                         "recipient_refill_delay", T_TIME, "5s", 1,
                         1000000000},
    /* initial_destination_concurrency: a new or revived destination's
     * window (S-CON-1, S-CON-10), and the slack of the safety rule
     * (S-CON-3).  Its global name has no default_ prefix, as in Postfix. */
    [QP_INIT_CONC] = {"initial_destination_concurrency",
                      "initial_destination_concurrency", T_INT, "5", 1,
                      1000000},
    /* destination_concurrency_failed_cohort_limit: failed pseudo-cohorts
     * before a destination is declared dead (S-CON-8). */
    [QP_COHORT_LIMIT] = {"default_destination_concurrency_failed_cohort_limit",
                         "destination_concurrency_failed_cohort_limit", T_INT,
                         "1", 0, 1000000},
    /* positive and negative feedback: g(N) and f(N) (S-CON-2); the
     * default 1 is the old scheduler's +1/-1 per delivery. */
    [QP_POS_FEEDBACK] = {"default_destination_concurrency_positive_feedback",
                         "destination_concurrency_positive_feedback",
                         T_FEEDBACK, "1", 0, 0},
    [QP_NEG_FEEDBACK] = {"default_destination_concurrency_negative_feedback",
                         "destination_concurrency_negative_feedback",
                         T_FEEDBACK, "1", 0, 0},
    /* process_limit: delivery agents of the transport, i.e. deliveries in
     * flight on it (S-PRE-14). */
    [QP_PROCESS_LIMIT] = {"default_process_limit", "process_limit", T_INT,
                          "100", 1, 1000000},
    /* The rate delays, a third scheduler of Postfix that the document
     * does not describe: accepted only as 0. */
    [QP_XPORT_RATE_DELAY] = {"default_transport_rate_delay",
                             "transport_rate_delay", T_TIME, "0s", 0, 0},
    [QP_DEST_RATE_DELAY] = {"default_destination_rate_delay",
                            "destination_rate_delay", T_TIME, "0s", 0, 0},
    /* Global only.  qmgr_message_active_limit: messages in the active
     * queue (S-MEM-2). */
    [QP_ACTIVE_LIMIT] = {"qmgr_message_active_limit", NULL, T_INT, "20000",
                         1, 10000000},
    /* qmgr_message_recipient_limit: the global budget of first batches
     * (S-MEM-3). */
    [QP_MSG_RCPT_LIMIT] = {"qmgr_message_recipient_limit", NULL, T_INT,
                           "20000", 1, 100000000},
    /* qmgr_message_recipient_minimum: what every message may read
     * "no matter what" (S-MEM-3, S-MEM-4). */
    [QP_MSG_RCPT_MINIMUM] = {"qmgr_message_recipient_minimum", NULL, T_INT,
                             "10", 1, 100000000},
    /* minimal_backoff_time: how long a dead destination stays dead
     * (S-CON-10). */
    [QP_MIN_BACKOFF] = {"minimal_backoff_time", NULL, T_TIME, "300s", 1,
                        1000000000},
    /* The last three are accepted so that main.cf fragments paste in, and
     * change nothing (no deferred queue, no logging). */
    [QP_MAX_BACKOFF] = {"maximal_backoff_time", NULL, T_TIME, "4000s", 1,
                        1000000000},
    [QP_QUEUE_RUN_DELAY] = {"queue_run_delay", NULL, T_TIME, "300s", 1,
                            1000000000},
    [QP_FEEDBACK_DEBUG] = {"destination_concurrency_feedback_debug", NULL,
                           T_BOOL, "no", 0, 1},
};

/* Built-in per-transport defaults (S-EV-3): Postfix's local(8) delivers to
 * one recipient at a time and at most 2 in parallel per recipient. */
static const struct {
    const char *transport;
    int id;
    long long value;
} qp_builtin[] = {
    {"local", QP_DEST_RCPT_LIMIT, 1},
    {"local", QP_DEST_CONC_LIMIT, 2},
};

/* One TRANSPORT_suffix setting.  Few are expected, so a list searched
 * linearly (and only when a transport is created) is enough. */
struct qp_override {
    char *transport;
    int id;
    long long value;
    qs_feedback fb;
};

/* Global values (as set, else the default) and the overrides.  A feedback
 * parameter keeps its parsed form in fb[], the others their value: two
 * arrays indexed by parameter id, so that a look-up is one index, and
 * every value is parsed once, when it is set, never at each use. */
struct qs_params {
    long long value[QP_NUM_PARAMS];
    qs_feedback fb[QP_NUM_PARAMS];
    int reading[QR_COUNT];   /* value index, or -1: the profile's default */
    struct qp_override *ov;
    size_t nov, cap;
};

/* The error text for a refused setting; at most two string arguments
 * (callers pad with "" to keep one format-checked signature). */
static void set_err(char *err, size_t errlen, const char *fmt, const char *a,
                    const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
}

/* Decimal integer, no sign, no spaces, at most 12 digits.
 * Twelve digits cannot overflow 64 bits, so the range check after it is
 * the only limit a value meets.  Returns 0, -1 if s is not a decimal
 * number, -2 if it is one but has more than 12 digits (so that the caller
 * can say "out of range" when the number is really too big, rather than
 * call a well-formed number malformed). */
static int parse_int(const char *s, long long *out)
{
    long long v = 0;
    size_t n = 0;
    if (!*s)
        return -1;
    if (strspn(s, "0123456789") != strlen(s))
        return -1;
    for (; *s; s++, n++) {
        if (n >= 12)
            return -2;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 0;
}

/* 1 if the decimal number s has more than 12 digits once its leading
 * zeros are ignored: a number too big for any parameter. */
static int too_many_digits(const char *s)
{
    s += strspn(s, "0");
    return strspn(s, "0123456789") > 12;
}

/* Time: integer with optional unit s, m, h, d, w (Postfix time syntax).
 * The result is in seconds, the unit of virtual time, and at most 10^9
 * (tested before multiplying, so nothing overflows).  Returns 0, -1 if
 * malformed, -2 if well-formed but beyond 10^9 seconds. */
static int parse_time(const char *s, long long *out)
{
    char buf[32];
    size_t len = strlen(s);
    long long mult = 1, v;
    int rc;
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len + 1);
    switch (buf[len - 1]) {
    case 's': mult = 1; buf[len - 1] = 0; break;
    case 'm': mult = 60; buf[len - 1] = 0; break;
    case 'h': mult = 3600; buf[len - 1] = 0; break;
    case 'd': mult = 86400; buf[len - 1] = 0; break;
    case 'w': mult = 604800; buf[len - 1] = 0; break;
    default: break;
    }
    if ((rc = parse_int(buf, &v)) == -1)
        return -1;
    if (rc == -2 ? too_many_digits(buf) : v > 1000000000LL / mult)
        return -2;
    if (rc == -2)
        return -1; /* more than 12 digits, most of them leading zeros */
    *out = v * mult;
    return 0;
}

/* Non-negative decimal number with optional fraction: 1, 0.25, .5
 * The characters are checked first, so strtod only ever sees plain
 * decimals (no exponents, hex, inf or nan, which it would also accept). */
static int parse_number(const char *s, const char *end, double *out)
{
    int digits = 0, dots = 0;
    char buf[64];
    const char *q;
    if (end - s <= 0 || end - s >= (long)sizeof buf)
        return -1;
    for (q = s; q < end; q++) {
        if (*q == '.')
            dots++;
        else if (isdigit((unsigned char)*q))
            digits++;
        else
            return -1;
    }
    if (digits == 0 || dots > 1)
        return -1;
    memcpy(buf, s, (size_t)(end - s));
    buf[end - s] = 0;
    *out = strtod(buf, NULL);
    return 0;
}

/* S-CON-2: x | number/number | x/concurrency | x/sqrt_concurrency, with
 * every resulting value in [0,1].  Examples: "1", "0.25", "1/4" (0.25),
 * "1/concurrency", ".5/sqrt_concurrency"; refused: "2", "1/0", "-1",
 * "1e-2", "x/concurrency".
 * The document gives g(N) = x/N | x/sqrt(N) | x with x in [0..1]; the
 * number/number form is Postfix's constant written as a fraction (1/4),
 * folded to its value here.  The base must lie in [0,1] because feedback
 * above 1 per delivery would bring back the overshoot the design removes,
 * and the kernels' proofs assume it.  A sqrt request is remembered: the
 * postfix profile replaces it with 1 and warns (S-PFX-7). */
int qs_feedback_parse(const char *text, qs_feedback *fb, char *err,
                      size_t errlen)
{
    const char *slash = strchr(text, '/');
    const char *end = text + strlen(text);
    double x, y;
    fb->sqrt_requested = 0;
    /* No slash: a constant.  A slash: x/concurrency, x/sqrt_concurrency,
     * or a fraction a/b folded to its value now (b = 0 refused). */
    if (!slash) {
        if (parse_number(text, end, &x) < 0)
            goto bad;
        fb->form = QS_FB_CONST;
        fb->base = x;
    } else {
        if (parse_number(text, slash, &x) < 0)
            goto bad;
        if (strcmp(slash + 1, "concurrency") == 0) {
            fb->form = QS_FB_CONC;
            fb->base = x;
        } else if (strcmp(slash + 1, "sqrt_concurrency") == 0) {
            fb->form = QS_FB_SQRT;
            fb->base = x;
            fb->sqrt_requested = 1;
        } else {
            if (parse_number(slash + 1, end, &y) < 0)
                goto bad;
            if (y == 0) {
                set_err(err, errlen, "feedback \"%s\": division by zero%s",
                        text, "");
                return -1;
            }
            fb->form = QS_FB_CONST;
            fb->base = x / y;
        }
    }
    /* Written so that a NaN would fail too (every comparison with NaN is
     * false), though parse_number cannot produce one. */
    if (!(fb->base >= 0 && fb->base <= 1)) {
        set_err(err, errlen,
                "feedback \"%s\" is out of range: the value must be in "
                "[0,1]%s", text, "");
        return -1;
    }
    return 0;
bad:
    set_err(err, errlen,
            "malformed feedback \"%s\": expected NUMBER, NUMBER/NUMBER, "
            "NUMBER/concurrency or NUMBER/sqrt_concurrency%s", text, "");
    return -1;
}

/* Parse VALUE by the syntax of parameter id and check its range. */
static int parse_value(int id, const char *value, long long *iv,
                       qs_feedback *fb, char *err, size_t errlen)
{
    const struct qp_def *d = &qp_defs[id];
    char range[96];
    int rc;
    switch (d->type) {
    case T_FEEDBACK:
        return qs_feedback_parse(value, fb, err, errlen);
    case T_BOOL:
        if (strcmp(value, "yes") == 0)
            *iv = 1;
        else if (strcmp(value, "no") == 0)
            *iv = 0;
        else {
            set_err(err, errlen, "bad boolean \"%s\" (want yes or no)%s",
                    value, "");
            return -1;
        }
        return 0;
    case T_INT:
        rc = parse_int(value, iv);
        if (rc == -2 && too_many_digits(value)) {
            /* well-formed, but bigger than any range: say so */
            snprintf(range, sizeof range, "[%lld, %lld]", d->min, d->max);
            set_err(err, errlen, "value \"%s\" is out of range %s", value,
                    range);
            return -1;
        }
        if (rc < 0) {
            set_err(err, errlen, "bad number \"%s\"%s", value, "");
            return -1;
        }
        break;
    case T_TIME:
        rc = parse_time(value, iv);
        if (rc == -2) {
            snprintf(range, sizeof range, "[%lld, %lld]", d->min, d->max);
            set_err(err, errlen, "value \"%s\" is out of range %s", value,
                    range);
            return -1;
        }
        if (rc < 0) {
            set_err(err, errlen, "bad time \"%s\" (want N, Ns, Nm, Nh, Nd "
                    "or Nw)%s", value, "");
            return -1;
        }
        /* Rate delays (max 0 in the table): only 0 is meaningful, since
         * qsched does not model Postfix's rate-delay scheduler. */
        if (d->max == 0 && *iv != 0) {
            set_err(err, errlen, "rate delays are not modelled by qsched: "
                    "only 0 is accepted, not \"%s\"%s", value, "");
            return -1;
        }
        break;
    }
    if (*iv < d->min || *iv > d->max) {
        snprintf(range, sizeof range, "[%lld, %lld]", d->min, d->max);
        set_err(err, errlen, "value \"%s\" is out of range %s", value, range);
        return -1;
    }
    return 0;
}

/* The transport part of TRANSPORT_suffix: the event language's
 * transport names (lower case, digits, '-'), which have no '_'. */
static int valid_transport_name(const char *s, size_t len)
{
    size_t i;
    if (len == 0)
        return 0;
    for (i = 0; i < len; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) ||
              s[i] == '-'))
            return 0;
    return 1;
}

/* Every parameter at its default (parsed from the table's text, so that
 * `qsched -d` prints exactly what is used). */
qs_params *qs_params_new(void)
{
    qs_params *p = calloc(1, sizeof *p);
    int id;
    if (!p)
        return NULL;
    for (id = 0; id < QP_NUM_PARAMS; id++)
        if (parse_value(id, qp_defs[id].def, &p->value[id], &p->fb[id], NULL,
                        0) < 0)
            abort(); /* the table above is wrong: a build defect (a
                      * default that its own syntax or range refuses),
                      * which every test would hit at once */
    /* No reading set: each takes its profile's default (readings.h). */
    for (id = 0; id < QR_COUNT; id++)
        p->reading[id] = -1;
    return p;
}

/* A deep copy: qs_sched_new keeps its own, so the caller's store may be
 * changed or freed afterwards without touching a running scheduler. */
qs_params *qs_params_clone(const qs_params *p)
{
    /* The values are copied by assignment, then the override list is
     * copied with its own transport names; a failure half-way frees what
     * was copied and gives NULL. */
    qs_params *c = malloc(sizeof *c);
    size_t i;
    if (!c)
        return NULL;
    *c = *p;
    c->ov = NULL;
    c->nov = c->cap = 0;
    if (p->nov) {
        c->ov = malloc(p->nov * sizeof *c->ov);
        if (!c->ov) {
            free(c);
            return NULL;
        }
        c->cap = c->nov = p->nov;
        for (i = 0; i < p->nov; i++) {
            c->ov[i] = p->ov[i];
            c->ov[i].transport = strdup(p->ov[i].transport);
            if (!c->ov[i].transport) {
                c->nov = i;
                qs_params_free(c);
                return NULL;
            }
        }
    }
    return c;
}

void qs_params_free(qs_params *p)
{
    size_t i;
    if (!p)
        return;
    for (i = 0; i < p->nov; i++)
        free(p->ov[i].transport);
    free(p->ov);
    free(p);
}

/* S-EV-2: NAME = VALUE.  NAME is a global name or TRANSPORT_suffix; a
 * second setting of the same name replaces the first.  Nothing changes
 * if the value is refused.  Examples: default_delivery_slot_cost = 2
 * sets the global value; smtp_delivery_slot_cost = 2 an override for the
 * transport smtp; default_smtp_x = 1 and smtp_x = 1 are unknown names. */
int qs_params_set(qs_params *p, const char *name, const char *value,
                  char *err, size_t errlen)
{
    int id;
    long long iv = 0;
    qs_feedback fb = {0, 0, 0};
    const char *us;
    size_t i;
    /* The named readings (spec/readings.md): qsched_reading_NAME = WORD. */
    if (strncmp(name, "qsched_reading_", 15) == 0) {
        int r = qs_reading_find(name), v;
        if (r < 0) {
            set_err(err, errlen, "unknown reading \"%s\" (qsched -d lists "
                    "them)%s", name, "");
            return -1;
        }
        if ((v = qs_reading_value_find((size_t)r, value)) < 0) {
            char words[96] = "";
            size_t k;
            for (k = 0; k < qs_reading_nvalues((size_t)r); k++) {
                if (k)
                    strcat(words, "|");
                strcat(words, qs_reading((size_t)r)->values[k]);
            }
            set_err(err, errlen, "bad value \"%s\" (want %s)", value, words);
            return -1;
        }
        p->reading[r] = v;
        return 0;
    }
    /* Global names first: they win over a transport named "default" or
     * "initial".  initial_destination_concurrency would otherwise read as
     * the override "destination_concurrency" of a transport "initial". */
    for (id = 0; id < QP_NUM_PARAMS; id++) {
        if (strcmp(name, qp_defs[id].global_name) == 0) {
            if (parse_value(id, value, &iv, &fb, err, errlen) < 0)
                return -1;
            p->value[id] = iv;
            p->fb[id] = fb;
            return 0;
        }
    }
    /* TRANSPORT_suffix: transport names have no underscore (S-EV-2). */
    us = strchr(name, '_');
    if (us && valid_transport_name(name, (size_t)(us - name)) &&
        strncmp(name, "default_", 8) != 0) {
        for (id = 0; id < QP_NUM_TRANSPORT_PARAMS; id++) {
            if (strcmp(us + 1, qp_defs[id].suffix) == 0) {
                size_t tlen = (size_t)(us - name);
                if (parse_value(id, value, &iv, &fb, err, errlen) < 0)
                    return -1;
                /* A second setting of the same override replaces it, as a
                 * later line of main.cf does. */
                for (i = 0; i < p->nov; i++) {
                    if (p->ov[i].id == id &&
                        strlen(p->ov[i].transport) == tlen &&
                        strncmp(p->ov[i].transport, name, tlen) == 0) {
                        p->ov[i].value = iv;
                        p->ov[i].fb = fb;
                        return 0;
                    }
                }
                /* A new override: grow the list by doubling if full.  On
                 * failure nothing is changed (the contract of this API). */
                if (p->nov == p->cap) {
                    size_t ncap = p->cap ? 2 * p->cap : 8;
                    struct qp_override *n =
                        realloc(p->ov, ncap * sizeof *n);
                    if (!n) {
                        set_err(err, errlen, "out of memory%s%s", "", "");
                        return -1;
                    }
                    p->ov = n;
                    p->cap = ncap;
                }
                p->ov[p->nov].transport = strndup(name, tlen);
                if (!p->ov[p->nov].transport) {
                    set_err(err, errlen, "out of memory%s%s", "", "");
                    return -1;
                }
                p->ov[p->nov].id = id;
                p->ov[p->nov].value = iv;
                p->ov[p->nov].fb = fb;
                p->nov++;
                return 0;
            }
        }
    }
    set_err(err, errlen, "unknown parameter \"%s\"%s", name, "");
    return -1;
}

/* The parameters of main.cf, then the named readings (document profile
 * defaults). */
size_t qs_params_count(void) { return QP_NUM_PARAMS + QR_COUNT; }

const char *qs_params_name(size_t i)
{
    if (i >= QP_NUM_PARAMS)
        return qs_reading(i - QP_NUM_PARAMS)->param;
    return qp_defs[i].global_name;
}

const char *qs_params_default(size_t i)
{
    if (i >= QP_NUM_PARAMS) {
        const qs_reading_def *d = qs_reading(i - QP_NUM_PARAMS);
        return d->values[d->def_document];
    }
    return qp_defs[i].def;
}

int qs_param_reading(const qs_params *p, int r)
{
    return r >= 0 && r < QR_COUNT ? p->reading[r] : -1;
}

/* The TRANSPORT_suffix setting of parameter id for transport, if any. */
static const struct qp_override *find_override(const qs_params *p,
                                               const char *transport, int id)
{
    size_t i;
    if (!transport)
        return NULL;
    for (i = 0; i < p->nov; i++)
        if (p->ov[i].id == id && strcmp(p->ov[i].transport, transport) == 0)
            return &p->ov[i];
    return NULL;
}

/* S-EV-2, S-EV-3: the value for transport (NULL: the global one):
 * its override, else the built-in default of that transport, else the
 * global value.  The built-in defaults sit between the two because in
 * Postfix local_destination_recipient_limit and
 * local_destination_concurrency_limit are parameters of their own, with
 * their own defaults: changing default_* does not change them. */
int64_t qs_param_int(const qs_params *p, const char *transport, int id)
{
    const struct qp_override *o = find_override(p, transport, id);
    size_t i;
    if (o)
        return o->value;
    if (transport)
        for (i = 0; i < sizeof qp_builtin / sizeof qp_builtin[0]; i++)
            if (qp_builtin[i].id == id &&
                strcmp(qp_builtin[i].transport, transport) == 0)
                return qp_builtin[i].value;
    return p->value[id];
}

/* The same for a feedback parameter (no built-in defaults exist). */
qs_feedback qs_param_feedback(const qs_params *p, const char *transport,
                              int id)
{
    const struct qp_override *o = find_override(p, transport, id);
    return o ? o->fb : p->fb[id];
}

/* The overrides in the order set, for qs_sched_new's profile checks. */
size_t qs_param_override_count(const qs_params *p) { return p->nov; }

void qs_param_override(const qs_params *p, size_t i, const char **transport,
                       int *id)
{
    *transport = p->ov[i].transport;
    *id = p->ov[i].id;
}
