/*
 * param_syntax.c - the main.cf value syntax of the parameter store.
 *
 * Owns: reading one parameter value as text into what the store keeps:
 * decimal integers (parse_int), times with a unit suffix s m h d w
 * (parse_time), yes/no, and the four feedback forms of S-CON-2
 * (qs_feedback_parse: "1/concurrency", "1/sqrt_concurrency", a constant
 * "NUMBER", "NUMBER/concurrency"...), each checked against its row's
 * range in the parameter table (qp_parse_value, param_table.c's qp_defs).
 * No I/O: a refusal is returned as text (qp_set_err), for the caller to
 * print with its FILE:LINE (events.c).
 *
 * Implements the syntax half of S-EV-2 (values) and S-CON-2 (feedback);
 * SCHEDULER_README's "Concurrency configuration parameters" table says
 * which forms each feedback parameter takes (the "1/N, 1/sqrt(N)" reading
 * of the feedback section), postconf(5) the time units.
 *
 * Why it exists: split from params.c (issue 16's size limit of the core
 * files) so that the store - global values, TRANSPORT_suffix overrides,
 * readings, which value wins - and the syntax - what text is a value at
 * all, and which refusal message fits - can each be read on its own.
 * Strict on purpose: a reference implementation refuses "+5", " 5" or
 * "5 s" rather than guess what the user meant, and names the fix (the
 * range, the units) in its message.  Declared in param_table.h, which
 * only the parameter store includes (qs_feedback_parse is public:
 * params.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "params.h"
#include "kernels.h"
#include "param_table.h"

/* The error text for a refused setting; at most two string arguments
 * (callers pad with "" to keep one format-checked signature).  err may be
 * NULL: qs_params_new parses the defaults with no one to tell. */
void qp_set_err(char *err, size_t errlen, const char *fmt, const char *a,
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
                qp_set_err(err, errlen, "feedback \"%s\": division by zero%s",
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
        qp_set_err(err, errlen,
                   "feedback \"%s\" is out of range: the value must be in "
                   "[0,1]%s", text, "");
        return -1;
    }
    return 0;
bad:
    qp_set_err(err, errlen,
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
int qp_parse_value(int id, const char *value, long long *iv, qs_feedback *fb,
                   char *err, size_t errlen)
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
            qp_set_err(err, errlen, "bad boolean \"%s\" (want yes or no)%s",
                       value, "");
            return -1;
        }
        return 0;
    case T_INT:
        rc = parse_int(value, iv);
        if (rc == -2 && too_many_digits(value)) {
            /* well-formed, but bigger than any range: say so */
            snprintf(range, sizeof range, "[%lld, %lld]", d->min, d->max);
            qp_set_err(err, errlen, "value \"%s\" is out of range %s", value,
                       range);
            return -1;
        }
        if (rc < 0) {
            qp_set_err(err, errlen, "bad number \"%s\"%s", value, "");
            return -1;
        }
        break;
    case T_TIME:
        rc = parse_time(value, iv);
        if (rc == -2) {
            snprintf(range, sizeof range, "[%lld, %lld]", d->min, d->max);
            qp_set_err(err, errlen, "value \"%s\" is out of range %s", value,
                       range);
            return -1;
        }
        if (rc < 0) {
            qp_set_err(err, errlen, "bad time \"%s\" (want N, Ns, Nm, Nh, Nd "
                       "or Nw)%s", value, "");
            return -1;
        }
        /* Rate delays (max 0 in the table): only 0 is meaningful, since
         * qsched does not model Postfix's rate-delay scheduler. */
        if (d->max == 0 && *iv != 0) {
            qp_set_err(err, errlen, "rate delays are not modelled by qsched: "
                       "only 0 is accepted, not \"%s\"%s", value, "");
            return -1;
        }
        break;
    }
    if (*iv < d->min || *iv > d->max) {
        snprintf(range, sizeof range, "[%lld, %lld]", d->min, d->max);
        qp_set_err(err, errlen, "value \"%s\" is out of range %s", value,
                   range);
        return -1;
    }
    return 0;
}
