/*
 * params.c - the parameter store: Postfix names, defaults, syntax, ranges.
 *
 * Owns: qs_params (global values plus TRANSPORT_suffix overrides) and the
 * main.cf value syntax qsched accepts: decimal integers, times with a unit
 * suffix (s m h d w), yes/no, and the four feedback forms (S-CON-2).  The
 * table of parameters itself - names, defaults, ranges, and for each what
 * the document says it controls and why its default is what it is - is
 * param_table.c; this file stores, parses and resolves values.  No I/O:
 * errors are returned as text, for the caller to print with its
 * FILE:LINE (events.c).
 *
 * Implements the parameter half of the event language (S-EV-2, S-EV-3)
 * and the feedback syntax of S-CON-2; SCHEDULER_README's tables of
 * "Concurrency configuration parameters" and the parameters named in the
 * preemption and memory sections are the rows of qp_defs (param_table.c).
 * Why it
 * is part of the core: the scheduler reads its parameters from here when
 * it creates a transport (sched.c), and the C API (qsched.h) lets any
 * embedder set them by their main.cf names.  May not: know the event
 * syntax (events.c parses "NAME = VALUE" lines and calls qs_params_set)
 * or check profile-dependent values (qs_sched_new, S-EV-5).
 *
 * Adding a parameter: a QP_ id in params.h (per-transport ids before
 * QP_NUM_TRANSPORT_PARAMS), a row of qp_defs (param_table.c) with its
 * Postfix name,
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
#include "param_table.h"
#include "readings.h"

/* One TRANSPORT_suffix setting.  Few are expected, so a list searched
 * linearly (and only when a transport is created) is enough.
 * transport: the master.cf name, owned (copied at qs_params_set);
 * id: which per-transport parameter (always < QP_NUM_TRANSPORT_PARAMS);
 * value or fb: the parsed value, fb only for the two feedback ids, as
 * in struct qs_params below. */
struct qp_override {
    char *transport;
    int id;
    long long value;
    qs_feedback fb;
};

/* Global values (as set, else the default) and the overrides.  A feedback
 * parameter keeps its parsed form in fb[], the others their value: two
 * arrays indexed by parameter id, so that a look-up is one index, and
 * every value is parsed once, when it is set, never at each use.
 * value[] holds times in seconds and yes/no as 1/0, so that readers need
 * not know a parameter's syntax.  ov, nov, cap: the override list, its
 * length and its allocated length (grown by doubling).  The store keeps
 * what was set, not what it means: which of override, built-in default
 * and global value wins is decided at each look-up (qs_param_int), so
 * the order in which lines set them does not matter. */
struct qs_params {
    long long value[QP_NUM_PARAMS];
    qs_feedback fb[QP_NUM_PARAMS];
    int reading[QR_COUNT];   /* value index, or -1: the profile's default */
    struct qp_override *ov;
    size_t nov, cap;
};

/* The error text for a refused setting; at most two string arguments
 * (callers pad with "" to keep one format-checked signature).  err may be
 * NULL: qs_params_new parses the defaults with no one to tell. */
static void set_err(char *err, size_t errlen, const char *fmt, const char *a,
                    const char *b)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, a, b);
}

/* Decimal integer, no sign, no spaces, at most 12 digits.
 * Why not strtoll: it skips leading blanks, accepts a sign and a "0x"
 * base only with base 0, and reports overflow through errno, so "-5",
 * " 5" or "+5" would be half-accepted; main.cf values are unsigned
 * decimals, and a stricter reader refuses the typo rather than guess.
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
/* It exists because parse_int stops at 12 digits whatever they are:
 * "0000000000000005" is well-formed and small, and must be called a bad
 * number (-1 from parse_int's caller), not "out of range". */
static int too_many_digits(const char *s)
{
    s += strspn(s, "0");
    return strspn(s, "0123456789") > 12;
}

/* Time: integer with optional unit s, m, h, d, w (Postfix time syntax).
 * A bare number is seconds, Postfix's default unit for these parameters
 * (refill delay, backoff times); the unit letter is the last character
 * and only one is allowed ("1h30m" is refused).
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
    /* The bound is compared as v > 10^9 / mult, a division, so that the
     * test itself cannot overflow even for 12-digit weeks. */
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
 * Used only for feedback values (S-CON-2), the one place where main.cf
 * takes a fraction.  [s, end) is a piece of the text (either side of the
 * '/'), copied into a bounded buffer since strtod needs a terminator.
 * The value is exact for the fractions the document uses (1, 0.5, 0.25)
 * and correctly rounded otherwise by a conforming strtod: the same
 * double on every platform, which byte-identical traces require.
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
    /* Why [0,1] (S-CON-2): the document's hysteresis adds at most one
     * step per delivery ("while (success >= 1) concurrency += 1"); a
     * feedback above 1 would add several at once and bring back the
     * overshoot the clamp then has to cut (S-CON-5).
     * Written so that a NaN would fail too (every comparison with NaN is
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

/* Parse VALUE by the syntax of parameter id and check its range.
 * Three kinds of refusal, each with its own message, because the user's
 * fix differs: a malformed value ("bad number", "bad time", "bad
 * boolean": wrong syntax), a value outside the row's [min, max] ("out of
 * range", with the range, so the fix is in the message), and a rate delay
 * other than 0 ("not modelled": legal for Postfix, outside qsched's
 * model).  On success *iv (or *fb for a feedback) holds the value and the
 * store is changed by the caller, so a refused value changes nothing. */
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
 * transport names (lower case, digits, '-'), which have no '_'.
 * That restriction is what makes TRANSPORT_suffix unambiguous: the first
 * '_' of the name ends the transport, so "smtp_delivery_slot_cost" can
 * only be the suffix delivery_slot_cost of smtp (S-EV-2, spec/events.md:
 * "the transport part is everything before the first _"). */
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
 * `qsched -d` prints exactly what is used).  No overrides yet: calloc
 * leaves the list empty.  NULL only when memory runs out. */
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

/* Frees the store and every override's transport name; NULL is a no-op,
 * as for free(), so error paths need not test. */
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
    /* The search order is the whole resolution of names:
     *   1. a global name (qp_defs[].global_name), exactly;
     *   2. else TRANSPORT_suffix for a per-transport row, where TRANSPORT
     *      is a valid transport name and not "default";
     *   3. else an unknown parameter (an error, not ignored: a misspelt
     *      knob that silently did nothing would make a trace that looks
     *      right for the wrong reason).
     * Global names first: they win over a transport named "default" or
     * "initial".  initial_destination_concurrency would otherwise read as
     * the override "destination_concurrency" of a transport "initial".
     * Before all of them, qsched_reading_NAME: a named reading of the
     * document (spec/readings.md), one of its words. */
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
    for (id = 0; id < QP_NUM_PARAMS; id++) {
        if (strcmp(name, qp_defs[id].global_name) == 0) {
            if (parse_value(id, value, &iv, &fb, err, errlen) < 0)
                return -1;
            p->value[id] = iv;
            p->fb[id] = fb;
            return 0;
        }
    }
    /* TRANSPORT_suffix: transport names have no underscore (S-EV-2).
     * "default_" is excluded although "default" is a valid transport
     * name: default_x that is not a global name is a misspelt global
     * parameter, and reporting it as unknown is the useful message.
     * Only per-transport rows (id < QP_NUM_TRANSPORT_PARAMS) have a
     * suffix; a global-only parameter cannot be overridden. */
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

/* The table for `qsched -d` and the C API (qsched.h): the i-th
 * parameter's global name and default text, i < qs_params_count().
 * They expose the table, never the values set, so a listing is the same
 * for every stream. */
/* The named readings come after the parameters (document profile
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

/* A named reading as the stream set it (value index), or -1. */
int qs_param_reading(const qs_params *p, int r)
{
    return r >= 0 && r < QR_COUNT ? p->reading[r] : -1;
}

/* The TRANSPORT_suffix setting of parameter id for transport, if any.
 * A linear search: it runs once per parameter when a transport is
 * created (qsi_transport_obtain copies the resolved values into the
 * transport), never per scheduling decision. */
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
        for (i = 0; i < qp_nbuiltin; i++)
            if (qp_builtin[i].id == id &&
                strcmp(qp_builtin[i].transport, transport) == 0)
                return qp_builtin[i].value;
    return p->value[id];
}

/* The same for a feedback parameter (no built-in defaults exist).
 * The result is the parsed form; what a sqrt form means in each profile
 * (S-PFX-7) is decided by the caller, which knows the profile. */
qs_feedback qs_param_feedback(const qs_params *p, const char *transport,
                              int id)
{
    const struct qp_override *o = find_override(p, transport, id);
    return o ? o->fb : p->fb[id];
}

/* The overrides in the order set, for qs_sched_new's profile checks.
 * Why an iterator: some values are legal only in one profile (a
 * concurrency limit of 0 exists only in the postfix profile, S-EV-5), and
 * the store does not know the profile; qs_sched_new walks every override
 * and refuses the stream if one is out of its profile's range, naming the
 * transport.  The order is the order set, so the first offender reported
 * is the first one written. */
size_t qs_param_override_count(const qs_params *p) { return p->nov; }

void qs_param_override(const qs_params *p, size_t i, const char **transport,
                       int *id)
{
    *transport = p->ov[i].transport;
    *id = p->ov[i].id;
}
