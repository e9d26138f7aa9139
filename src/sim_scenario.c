/*
 * sim_scenario.c - the scenario language of `qsched sim` (spec/sim.md).
 *
 * Owns: reading a scenario file into a sim_scenario (spec/sim.md, S-SIM-1
 * lines and errors, S-SIM-2 parameters, S-SIM-3 policy, S-SIM-4 servers,
 * S-SIM-5 workload, S-SIM-6 run control): core parameters
 * (checked by the core's own qs_params_set, so a scenario accepts exactly
 * the parameters a stream accepts), the smtp(8) client parameters the
 * simulator plays, the policy, the server models per next-hop and the
 * workload (messages, repeated messages, Poisson arrivals).  Every bad line
 * is reported as `FILE:LINE: reason` and the file is refused as a whole
 * (exit 2), like the event language's S-EV-10.
 *
 * Why a separate language: a stream says what the scheduler is told; a
 * scenario says what the world is like (servers, traffic), and the
 * simulator turns it into a stream (--trace writes it).  The document's
 * experiments ("Results for delivery to concurrency-limited servers") are
 * scenarios: client and server configuration, one message of 2000
 * recipients.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "events.h"
#include "kernels.h"
#include "sim.h"

#define SC_WORDS_MAX 100000

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("qsched sim: out of memory\n", stderr);
        exit(3);
    }
    return q;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xrealloc(NULL, n);
    memcpy(p, s, n);
    return p;
}

/* ---- values ---- */

/* Whole number 0..max, digits only. */
static int parse_int(const char *s, int64_t max, int64_t *out)
{
    int64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (v > (max - (*s - '0')) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 0;
}

/* Decimal number >= 0 with an optional fraction, no exponent, no sign. */
static int parse_real(const char *s, double *out)
{
    const char *p = s;
    int digits = 0, dot = 0;
    char *end;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digits++;
        else if (*p == '.' && !dot)
            dot = 1;
        else
            return -1;
    }
    if (!digits || strlen(s) > 30)
        return -1;
    errno = 0;
    *out = strtod(s, &end);
    if (errno || *end || !isfinite(*out))
        return -1;
    return 0;
}

/* N[.F][us|ms|s|m|h|d|w] (no unit: seconds), exact in microseconds: the
 * fraction has at most 6 digits and no floating point is involved, so a
 * time means the same on every platform. */
int sim_parse_time(const char *s, sim_us *out)
{
    const char *p = s;
    int64_t whole = 0, frac = 0, fscale = 1, unit;
    int nd = 0;
    sim_us v;
    while (*p >= '0' && *p <= '9') {
        if (whole > 100000000000LL)
            return -1;
        whole = whole * 10 + (*p++ - '0');
        nd++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (fscale == 1000000)
                return -1;            /* more than 6 decimals */
            frac = frac * 10 + (*p++ - '0');
            fscale *= 10;
            nd++;
        }
    }
    if (!nd)
        return -1;
    if (!*p || strcmp(p, "s") == 0)
        unit = SIM_SEC;
    else if (strcmp(p, "us") == 0)
        unit = 1;
    else if (strcmp(p, "ms") == 0)
        unit = 1000;
    else if (strcmp(p, "m") == 0)
        unit = 60 * SIM_SEC;
    else if (strcmp(p, "h") == 0)
        unit = 3600 * SIM_SEC;
    else if (strcmp(p, "d") == 0)
        unit = 86400 * SIM_SEC;
    else if (strcmp(p, "w") == 0)
        unit = 7 * 86400 * SIM_SEC;
    else
        return -1;
    if (whole > SIM_TIME_MAX / unit)
        return -1;
    /* frac < 10^6 and unit <= 6.048e11: the product fits in 64 bits */
    v = whole * unit + frac * unit / fscale;
    if (v > SIM_TIME_MAX)
        return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    if (strcmp(s, "yes") == 0)
        *out = 1;
    else if (strcmp(s, "no") == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

static int is_namechar(int c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' ||
           c == '+';
}

static int valid_transport(const char *s, size_t n)
{
    size_t i;
    if (n < 1 || n > 64)
        return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-'))
            return 0;
    return 1;
}

static int valid_name(const char *s, size_t max)
{
    size_t n = strlen(s), i;
    if (n < 1 || n > max)
        return 0;
    for (i = 0; i < n; i++)
        if (!is_namechar(s[i]))
            return 0;
    return 1;
}

/* ---- the parser state ---- */

typedef struct sc_parse {
    sim_scenario *sc;
    const char *where;  /* FILE or "--set" */
    long line;
    char *err;
    size_t errlen;
    int override;       /* lines from --set replace single settings */
    long seen_seed, seen_profile, seen_policy, seen_stop, seen_sample,
        seen_watch, seen_inflation;
    qs_params *check;   /* scratch store: validates core parameters */
} sc_parse;

static int fail(sc_parse *ps, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->err, ps->errlen, "%s:%ld: %s", ps->where, ps->line, msg);
    return 2;
}

/* A single-valued setting: refuse a second one in the file; a --set line
 * replaces it. */
static int once(sc_parse *ps, long *seen, const char *what)
{
    if (*seen && !ps->override)
        return fail(ps, "duplicate %s (first at line %ld)", what, *seen);
    if (!ps->override)
        *seen = ps->line;
    return 0;
}

/* Splits KEY=VALUE; returns the value, or NULL if there is no '='. */
static char *split_kv(char *word)
{
    char *eq = strchr(word, '=');
    if (!eq)
        return NULL;
    *eq = 0;
    return eq + 1;
}

/* ---- client (smtp(8)) parameters played by the simulator ---- */

static int client_param(sc_parse *ps, const char *name, const char *value,
                        int *handled)
{
    sim_scenario *sc = ps->sc;
    sim_us t;
    *handled = 1;
    if (strcmp(name, "smtp_connection_cache_on_demand") == 0) {
        if (parse_bool(value, &sc->caching) < 0)
            return fail(ps, "%s: bad boolean \"%s\" (want yes or no)", name,
                        value);
        return 0;
    }
    if (strcmp(name, "smtp_connect_timeout") == 0 ||
        strcmp(name, "smtp_helo_timeout") == 0 ||
        strcmp(name, "smtp_connection_cache_time_limit") == 0 ||
        strcmp(name, "smtp_connection_reuse_time_limit") == 0) {
        if (sim_parse_time(value, &t) < 0 || t < 1000)
            return fail(ps, "%s: bad time \"%s\" (want N[.F] with unit us, "
                        "ms, s, m, h, d or w; at least 1ms)", name, value);
        if (strcmp(name, "smtp_connect_timeout") == 0)
            sc->connect_timeout = t;
        else if (strcmp(name, "smtp_helo_timeout") == 0)
            sc->helo_timeout = t;
        else if (strcmp(name, "smtp_connection_cache_time_limit") == 0)
            sc->cache_time = t;
        else
            sc->reuse_time = t;
        return 0;
    }
    *handled = 0;
    return 0;
}

static int param_line(sc_parse *ps, char *text)
{
    char *eq = strchr(text, '='), *name = text, *value = eq + 1, *e;
    char perr[300];
    int handled = 0, rc;
    sim_scenario *sc = ps->sc;
    *eq = 0;
    while (*name == ' ' || *name == '\t')
        name++;
    e = name + strlen(name);
    while (e > name && (e[-1] == ' ' || e[-1] == '\t'))
        *--e = 0;
    while (*value == ' ' || *value == '\t')
        value++;
    e = value + strlen(value);
    while (e > value && (e[-1] == ' ' || e[-1] == '\t'))
        *--e = 0;
    if (!*name || strpbrk(name, " \t"))
        return fail(ps, "bad parameter name%s%s", *name ? ": " : "", name);
    if (!*value)
        return fail(ps, "empty parameter value: %s", name);
    rc = client_param(ps, name, value, &handled);
    if (rc || handled)
        return rc;
    /* a core parameter: the core's own validation (S-EV-2) */
    if (qs_params_set(ps->check, name, value, perr, sizeof perr) < 0)
        return fail(ps, "%s: %s", name, perr);
    sc->params = xrealloc(sc->params, (sc->nparams + 1) * sizeof *sc->params);
    sc->params[sc->nparams].name = xstrdup(name);
    sc->params[sc->nparams].value = xstrdup(value);
    /* a --set line is remembered as -N (the N-th --set) */
    sc->params[sc->nparams].line = ps->override ? -ps->line : ps->line;
    sc->nparams++;
    return 0;
}

/* ---- groups ---- */

/* TRANSPORT:NEXTHOP[*COUNT] with at most one {LO..HI} in NEXTHOP. */
static int parse_group(sc_parse *ps, const char *w, sim_group *g)
{
    const char *colon = strchr(w, ':'), *star, *nh, *lb, *rb, *dots;
    char buf[600];
    size_t tlen, nlen;
    memset(g, 0, sizeof *g);
    if (!colon)
        return fail(ps, "\"%s\": want TRANSPORT:NEXTHOP[*COUNT]", w);
    tlen = (size_t)(colon - w);
    if (!valid_transport(w, tlen))
        return fail(ps, "bad transport name \"%.*s\" (lower-case letters, "
                    "digits, -; at most 64)", (int)(tlen > 80 ? 80 : tlen), w);
    nh = colon + 1;
    star = strchr(nh, '*');
    nlen = star ? (size_t)(star - nh) : strlen(nh);
    if (nlen >= sizeof buf)
        return fail(ps, "bad next-hop (longer than 200 bytes)");
    memcpy(buf, nh, nlen);
    buf[nlen] = 0;
    g->count = 1;
    if (star && parse_int(star + 1, QS_COUNT_MAX, &g->count) < 0)
        return fail(ps, "bad recipient count \"%s\" (1 .. 1000000000)",
                    star + 1);
    if (g->count < 1)
        return fail(ps, "bad recipient count \"%s\" (1 .. 1000000000)",
                    star + 1);
    if (strchr(buf, '@'))
        return fail(ps, "\"%s\": local parts are not supported in scenarios "
                    "(recipients are counted per next-hop)", w);
    lb = strchr(buf, '{');
    if (lb) {
        char pre[300], lo[40], hi[40];
        size_t np;
        rb = strchr(lb, '}');
        dots = strstr(lb, "..");
        if (!rb || !dots || dots > rb || strchr(rb + 1, '{') ||
            (size_t)(dots - lb - 1) >= sizeof lo ||
            (size_t)(rb - dots - 2) >= sizeof hi)
            return fail(ps, "\"%s\": bad range (want {LO..HI} once in the "
                        "next-hop)", w);
        memcpy(lo, lb + 1, (size_t)(dots - lb - 1));
        lo[dots - lb - 1] = 0;
        memcpy(hi, dots + 2, (size_t)(rb - dots - 2));
        hi[rb - dots - 2] = 0;
        if (parse_int(lo, 1000000000LL, &g->lo) < 0 ||
            parse_int(hi, 1000000000LL, &g->hi) < 0 || g->hi < g->lo)
            return fail(ps, "\"%s\": bad range {%s..%s} (whole numbers, LO <= "
                        "HI)", w, lo, hi);
        np = (size_t)(lb - buf);
        memcpy(pre, buf, np);
        pre[np] = 0;
        g->pre = xstrdup(pre);
        g->post = xstrdup(rb + 1);
        g->ranged = 1;
        /* the longest expansion must be a valid next-hop */
        snprintf(buf, sizeof buf, "%s%lld%s", g->pre, (long long)g->hi,
                 g->post);
        if (!valid_name(buf, 200))
            goto bad_nexthop;
        snprintf(buf, sizeof buf, "%s%lld%s", g->pre, (long long)g->lo,
                 g->post);
        if (!valid_name(buf, 200))
            goto bad_nexthop;
    } else {
        if (!valid_name(buf, 200))
            goto bad_nexthop;
        g->pre = xstrdup(buf);
        g->post = xstrdup("");
    }
    g->transport = xrealloc(NULL, tlen + 1);
    memcpy(g->transport, w, tlen);
    g->transport[tlen] = 0;
    return 0;
bad_nexthop:
    free(g->pre);
    free(g->post);
    g->pre = g->post = NULL;
    return fail(ps, "bad next-hop \"%s\" (letters, digits, .-_+; at most 200)",
                buf);
}

static void group_free(sim_group *g)
{
    free(g->transport);
    free(g->pre);
    free(g->post);
}

/* ---- workload lines ---- */

static int work_line(sc_parse *ps, int kind, char **w, size_t nw)
{
    sim_scenario *sc = ps->sc;
    sim_work wk;
    size_t i, k;
    int have_rate = 0, have_stop = 0;
    char idbuf[40];
    long double rcpts = 0, groups = 0, linelen = 0;
    memset(&wk, 0, sizeof wk);
    wk.kind = kind;
    wk.line = ps->line;
    wk.count = kind == SIM_W_MESSAGE ? 1 : 0;
    for (i = 1; i < nw; i++) {
        char *v;
        if (strchr(w[i], ':'))
            break;
        v = split_kv(w[i]);
        if (!v) {
            fail(ps, "\"%s\": want KEY=VALUE or TRANSPORT:NEXTHOP[*COUNT]",
                 w[i]);
            goto out;
        }
        if (strcmp(w[i], "id") == 0) {
            if (!valid_name(v, 40) || strchr(v, '.')) {
                fail(ps, "bad id \"%s\" (letters, digits, -_+; no '.'; at "
                     "most 40)", v);
                goto out;
            }
            free(wk.id);
            wk.id = xstrdup(v);
        } else if (strcmp(w[i], "class") == 0) {
            if (!valid_name(v, 40)) {
                fail(ps, "bad class \"%s\" (letters, digits, .-_+; at most "
                     "40)", v);
                goto out;
            }
            free(wk.cls);
            wk.cls = xstrdup(v);
        } else if (strcmp(w[i], "count") == 0) {
            if (parse_int(v, 100000000LL, &wk.count) < 0 ||
                (kind == SIM_W_MESSAGE && wk.count < 1)) {
                fail(ps, "bad count \"%s\" (%s .. 100000000)", v,
                     kind == SIM_W_MESSAGE ? "1" : "0");
                goto out;
            }
        } else if (kind == SIM_W_MESSAGE && strcmp(w[i], "at") == 0) {
            if (sim_parse_time(v, &wk.at) < 0) {
                fail(ps, "at: bad time \"%s\"", v);
                goto out;
            }
        } else if (kind == SIM_W_MESSAGE && strcmp(w[i], "every") == 0) {
            if (sim_parse_time(v, &wk.every) < 0) {
                fail(ps, "every: bad time \"%s\"", v);
                goto out;
            }
        } else if (kind == SIM_W_POISSON && strcmp(w[i], "rate") == 0) {
            if (parse_real(v, &wk.rate) < 0 || wk.rate <= 0 ||
                wk.rate > 1e6) {
                fail(ps, "rate: bad rate \"%s\" (messages per second, > 0, "
                     "at most 1000000)", v);
                goto out;
            }
            have_rate = 1;
        } else if (kind == SIM_W_POISSON && strcmp(w[i], "start") == 0) {
            if (sim_parse_time(v, &wk.start) < 0) {
                fail(ps, "start: bad time \"%s\"", v);
                goto out;
            }
        } else if (kind == SIM_W_POISSON && strcmp(w[i], "stop") == 0) {
            if (sim_parse_time(v, &wk.stop) < 0) {
                fail(ps, "stop: bad time \"%s\"", v);
                goto out;
            }
            have_stop = 1;
        } else {
            goto bad_word;
        }
    }
    if (i == nw) {
        fail(ps, "%s needs at least one TRANSPORT:NEXTHOP[*COUNT]", w[0]);
        goto out;
    }
    if (kind == SIM_W_POISSON && (!have_rate || !have_stop)) {
        fail(ps, "poisson needs rate=R and stop=T");
        goto out;
    }
    if (kind == SIM_W_POISSON && wk.stop <= wk.start) {
        fail(ps, "poisson: stop must be after start");
        goto out;
    }
    if (kind == SIM_W_MESSAGE && wk.count > 1 && wk.every > 0 &&
        (SIM_TIME_MAX - wk.at) / wk.every < wk.count) {
        fail(ps, "message: the last copy would arrive after the end of time");
        goto out;
    }
    for (; i < nw; i++) {
        sim_group g;
        long double n;
        if (!strchr(w[i], ':')) {
            fail(ps, "\"%s\": options come before the recipient groups", w[i]);
            goto out;
        }
        if (parse_group(ps, w[i], &g))
            goto out;
        wk.groups = xrealloc(wk.groups, (wk.ngroups + 1) * sizeof *wk.groups);
        wk.groups[wk.ngroups++] = g;
        /* what one arrive line will hold (S-EV-1 limits) */
        n = (kind == SIM_W_MESSAGE && g.ranged) ? (long double)(g.hi - g.lo + 1)
                                                : 1;
        groups += n;
        rcpts += n * g.count;
        linelen += n * (strlen(g.transport) + strlen(g.pre) + strlen(g.post) +
                        24);
    }
    if (groups > QS_GROUPS_MAX) {
        fail(ps, "too many recipient groups in one message (limit %d)",
             QS_GROUPS_MAX);
        goto out;
    }
    if (rcpts > QS_COUNT_MAX) {
        fail(ps, "more than 1000000000 recipients in one message");
        goto out;
    }
    if (linelen > QS_LINE_MAX - 200) {
        fail(ps, "the arrive line of this message would be longer than %d "
             "bytes", QS_LINE_MAX);
        goto out;
    }
    if (!wk.id) {
        snprintf(idbuf, sizeof idbuf, "%s%ld",
                 kind == SIM_W_MESSAGE ? "m" : "p", ps->line);
        wk.id = xstrdup(idbuf);
    }
    if (!wk.cls)
        wk.cls = xstrdup("mail");
    for (k = 0; k < sc->nwork; k++)
        if (strcmp(sc->work[k].id, wk.id) == 0) {
            size_t j;
            if (!ps->override) {
                fail(ps, "duplicate id \"%s\" (first at line %ld)", wk.id,
                     sc->work[k].line);
                goto out;
            }
            /* a --set workload line replaces the file's with that id */
            for (j = 0; j < sc->work[k].ngroups; j++)
                group_free(&sc->work[k].groups[j]);
            free(sc->work[k].groups);
            free(sc->work[k].id);
            free(sc->work[k].cls);
            wk.line = sc->work[k].line;
            sc->work[k] = wk;
            return 0;
        }
    sc->work = xrealloc(sc->work, (sc->nwork + 1) * sizeof *sc->work);
    sc->work[sc->nwork++] = wk;
    return 0;
bad_word:
    fail(ps, "%s: unknown option \"%s\"", w[0], w[i]);
out:
    for (k = 0; k < wk.ngroups; k++)
        group_free(&wk.groups[k]);
    free(wk.groups);
    free(wk.id);
    free(wk.cls);
    return 2;
}

/* ---- servers ---- */

void sim_server_spec_defaults(sim_server_spec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->per_rcpt = SIM_SEC;   /* the test bed's "sleep 1" per recipient */
    sp->rtt = 1000;           /* 1 ms: a LAN */
    sp->processes = 0;
    sp->backlog = -1;
    sp->queue = -1;
    sp->stack = SIM_STACK_LINUX;
    sp->backends = 1;
    sp->hosts = 1;
    sp->lb = SIM_LB_RR;
    sp->bad_mode = SIM_BAD_DROP;
    sp->down_mode = SIM_DOWN_REFUSE;
}

static int prob(sc_parse *ps, const char *k, const char *v, double *out)
{
    if (parse_real(v, out) < 0 || *out > 1)
        return fail(ps, "%s: bad probability \"%s\" (0 .. 1)", k, v);
    return 0;
}

static int server_line(sc_parse *ps, char **w, size_t nw)
{
    sim_scenario *sc = ps->sc;
    sim_server_spec sp;
    size_t i, k;
    int rc = 2;
    if (nw < 2)
        return fail(ps, "usage: server NEXTHOP|* KEY=VALUE...");
    if (strcmp(w[1], "*") != 0 && !valid_name(w[1], 200))
        return fail(ps, "bad next-hop \"%s\" (letters, digits, .-_+; at most "
                    "200)", w[1]);
    for (k = 0; k < sc->nservers; k++)
        if (strcmp(sc->servers[k].name, w[1]) == 0 && !ps->override)
            return fail(ps, "duplicate server %s (first at line %ld)", w[1],
                        sc->servers[k].line);
    sim_server_spec_defaults(&sp);
    sp.name = xstrdup(w[1]);
    sp.line = ps->line;
    for (i = 2; i < nw; i++) {
        char *v = split_kv(w[i]);
        int64_t n;
        sim_us t;
        if (!v) {
            fail(ps, "server: want KEY=VALUE, not \"%s\"", w[i]);
            goto out;
        }
#define TIMEKEY(key, field)                                                   \
    if (strcmp(w[i], key) == 0) {                                             \
        if (sim_parse_time(v, &t) < 0) {                                      \
            fail(ps, "%s: bad time \"%s\"", key, v);                          \
            goto out;                                                         \
        }                                                                     \
        sp.field = t;                                                         \
        continue;                                                             \
    }
#define INTKEY(key, field, lo, hi)                                            \
    if (strcmp(w[i], key) == 0) {                                             \
        if (parse_int(v, hi, &n) < 0 || n < lo) {                             \
            fail(ps, "%s: bad number \"%s\" (%d .. %lld)", key, v, lo,        \
                 (long long)(hi));                                            \
            goto out;                                                         \
        }                                                                     \
        sp.field = n;                                                         \
        continue;                                                             \
    }
        TIMEKEY("per_rcpt", per_rcpt)
        TIMEKEY("per_msg", per_msg)
        TIMEKEY("jitter", jitter)
        TIMEKEY("rtt", rtt)
        TIMEKEY("greet", greet)
        INTKEY("processes", processes, 0, 1000000LL)
        INTKEY("backlog", backlog, 1, 1000000LL)
        INTKEY("queue", queue, 0, 1000000LL)
        INTKEY("session_limit", session_limit, 0, 1000000LL)
        INTKEY("backends", backends, 1, 1000LL)
        INTKEY("bad", bad, 0, 1000LL)
        INTKEY("hosts", hosts, 1, 100LL)
#undef TIMEKEY
#undef INTKEY
        if (strcmp(w[i], "stack") == 0) {
            if (strcmp(v, "linux") == 0)
                sp.stack = SIM_STACK_LINUX;
            else if (strcmp(v, "bsd") == 0)
                sp.stack = SIM_STACK_BSD;
            else {
                fail(ps, "stack: want linux or bsd, not \"%s\"", v);
                goto out;
            }
        } else if (strcmp(w[i], "lb") == 0) {
            if (strcmp(v, "rr") == 0)
                sp.lb = SIM_LB_RR;
            else if (strcmp(v, "random") == 0)
                sp.lb = SIM_LB_RANDOM;
            else {
                fail(ps, "lb: want rr or random, not \"%s\"", v);
                goto out;
            }
        } else if (strcmp(w[i], "bad_mode") == 0) {
            if (strcmp(v, "drop") == 0)
                sp.bad_mode = SIM_BAD_DROP;
            else if (strcmp(v, "421") == 0)
                sp.bad_mode = SIM_BAD_421;
            else if (strcmp(v, "timeout") == 0)
                sp.bad_mode = SIM_BAD_TIMEOUT;
            else {
                fail(ps, "bad_mode: want drop, 421 or timeout, not \"%s\"", v);
                goto out;
            }
        } else if (strcmp(w[i], "down_mode") == 0) {
            if (strcmp(v, "refuse") == 0)
                sp.down_mode = SIM_DOWN_REFUSE;
            else if (strcmp(v, "blackhole") == 0)
                sp.down_mode = SIM_DOWN_BLACKHOLE;
            else {
                fail(ps, "down_mode: want refuse or blackhole, not \"%s\"", v);
                goto out;
            }
        } else if (strcmp(w[i], "down") == 0) {
            char *dots = strstr(v, "..");
            sim_us a, b;
            if (!dots) {
                fail(ps, "down: want FROM..TO, not \"%s\"", v);
                goto out;
            }
            *dots = 0;
            if (sim_parse_time(v, &a) < 0 || sim_parse_time(dots + 2, &b) < 0 ||
                b <= a) {
                fail(ps, "down: bad interval \"%s..%s\" (times, FROM < TO)", v,
                     dots + 2);
                goto out;
            }
            if (sp.ndown && a < sp.down_to[sp.ndown - 1]) {
                fail(ps, "down: intervals must be in order and not overlap");
                goto out;
            }
            sp.down_from = xrealloc(sp.down_from,
                                    (sp.ndown + 1) * sizeof *sp.down_from);
            sp.down_to = xrealloc(sp.down_to, (sp.ndown + 1) * sizeof *sp.down_to);
            sp.down_from[sp.ndown] = a;
            sp.down_to[sp.ndown++] = b;
        } else if (strcmp(w[i], "noise") == 0) {
            if (prob(ps, "noise", v, &sp.noise))
                goto out;
        } else if (strcmp(w[i], "reject") == 0) {
            if (prob(ps, "reject", v, &sp.reject))
                goto out;
        } else if (strcmp(w[i], "backup") == 0) {
            if (!valid_name(v, 200) || strcmp(v, w[1]) == 0) {
                fail(ps, "backup: bad next-hop \"%s\"", v);
                goto out;
            }
            free(sp.backup);
            sp.backup = xstrdup(v);
        } else {
            fail(ps, "server: unknown key \"%s\"", w[i]);
            goto out;
        }
    }
    if (sp.bad > sp.backends) {
        fail(ps, "bad=%lld is more than backends=%lld", (long long)sp.bad,
             (long long)sp.backends);
        goto out;
    }
    if (sp.hosts * sp.backends > 10000) {
        fail(ps, "hosts x backends is more than 10000");
        goto out;
    }
    for (k = 0; k < sc->nservers; k++)
        if (strcmp(sc->servers[k].name, sp.name) == 0) {
            /* a --set server line replaces the file's */
            free(sc->servers[k].name);
            free(sc->servers[k].backup);
            free(sc->servers[k].down_from);
            free(sc->servers[k].down_to);
            sc->servers[k] = sp;
            return 0;
        }
    sc->servers = xrealloc(sc->servers, (sc->nservers + 1) * sizeof *sc->servers);
    sc->servers[sc->nservers++] = sp;
    return 0;
out:
    free(sp.name);
    free(sp.backup);
    free(sp.down_from);
    free(sp.down_to);
    return rc;
}

/* ---- policy line ---- */

static int policy_line(sc_parse *ps, char **w, size_t nw)
{
    sim_scenario *sc = ps->sc;
    sim_finch_opts *f = &sc->finch;
    size_t i;
    if (nw < 2)
        return fail(ps, "usage: policy nqmgr|oqmgr|fifo|finch [KEY=VALUE...]");
    if (once(ps, &ps->seen_policy, "policy"))
        return 2;
    if (strcmp(w[1], "nqmgr") == 0)
        sc->policy = SIM_NQMGR;
    else if (strcmp(w[1], "oqmgr") == 0)
        sc->policy = SIM_OQMGR;
    else if (strcmp(w[1], "fifo") == 0)
        sc->policy = SIM_FIFO;
    else if (strcmp(w[1], "finch") == 0)
        sc->policy = SIM_FINCH;
    else
        return fail(ps, "unknown policy \"%s\" (want nqmgr, oqmgr, fifo or "
                    "finch)", w[1]);
    sc->policy_line = ps->line;
    if (sc->policy != SIM_FINCH && nw > 2)
        return fail(ps, "policy %s takes no options (its parameters are the "
                    "core's)", w[1]);
    for (i = 2; i < nw; i++) {
        char *v = split_kv(w[i]);
        int64_t n;
        if (!v)
            return fail(ps, "policy finch: want KEY=VALUE, not \"%s\"", w[i]);
        if (strcmp(w[i], "max_message_concurrency") == 0) {
            if (parse_int(v, 1000000LL, &n) < 0)
                return fail(ps, "%s: bad number \"%s\"", w[i], v);
            f->max_message_concurrency = n;
        } else if (strcmp(w[i], "scale") == 0) {
            if (parse_real(v, &f->scale) < 0 || f->scale > 1e6)
                return fail(ps, "scale: bad number \"%s\"", v);
        } else if (strcmp(w[i], "backlog") == 0) {
            if (parse_int(v, 1000000LL, &n) < 0 || n < 1)
                return fail(ps, "backlog: bad number \"%s\" (>= 1)", v);
            f->backlog = n;
        } else if (strcmp(w[i], "dest_limit") == 0) {
            if (parse_int(v, 1000000LL, &n) < 0 || n < 1)
                return fail(ps, "dest_limit: bad number \"%s\" (>= 1)", v);
            f->dest_limit = n;
        } else if (strcmp(w[i], "mode") == 0) {
            if (strcmp(v, "router") == 0)
                f->router = 1;
            else if (strcmp(v, "delivery") == 0)
                f->router = 0;
            else
                return fail(ps, "mode: want router or delivery, not \"%s\"", v);
        } else if (strcmp(w[i], "idle_timeout") == 0 ||
                   strcmp(w[i], "max_age") == 0 ||
                   strcmp(w[i], "retry") == 0 || strcmp(w[i], "gc") == 0) {
            sim_us t;
            if (sim_parse_time(v, &t) < 0 || t < 1000)
                return fail(ps, "%s: bad time \"%s\" (at least 1ms)", w[i], v);
            if (w[i][0] == 'i')
                f->idle_timeout = t;
            else if (w[i][0] == 'm')
                f->max_age = t;
            else if (w[i][0] == 'r')
                f->retry = t;
            else
                f->gc = t;
        } else {
            return fail(ps, "policy finch: unknown key \"%s\"", w[i]);
        }
    }
    return 0;
}

/* ---- one line ---- */

static int split_words(char *s, char ***words, size_t *nw)
{
    size_t n = 0, cap = 0;
    char **w = NULL;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            *s++ = 0;
        if (!*s)
            break;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            w = xrealloc(w, cap * sizeof *w);
        }
        w[n++] = s;
        if (n > SC_WORDS_MAX) {
            free(w);
            return -1;
        }
        while (*s && *s != ' ' && *s != '\t')
            s++;
    }
    *words = w;
    *nw = n;
    return 0;
}

static int is_verb(const char *s, size_t n)
{
    static const char *const verbs[] = {
        "seed", "profile", "policy", "stop", "sample", "watch", "inflation",
        "server", "message", "poisson", NULL};
    size_t i;
    for (i = 0; verbs[i]; i++)
        if (strlen(verbs[i]) == n && memcmp(verbs[i], s, n) == 0)
            return 1;
    return 0;
}

static int one_line(sc_parse *ps, char *line, size_t len)
{
    sim_scenario *sc = ps->sc;
    char *hash, *p, **w = NULL;
    size_t nw = 0, vlen;
    int rc = 0;
    if (len > QS_LINE_MAX)
        return fail(ps, "line too long (limit %d bytes)", QS_LINE_MAX);
    if (memchr(line, 0, len))
        return fail(ps, "NUL byte in line");
    if (len && line[len - 1] == '\r')
        line[--len] = 0;
    hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return 0;
    vlen = strcspn(p, " \t=");
    if (!is_verb(p, vlen)) {
        if (strchr(p, '='))
            return param_line(ps, p);
        return fail(ps, "unknown verb: %.*s", (int)(vlen > 80 ? 80 : vlen), p);
    }
    if (split_words(p, &w, &nw) < 0)
        return fail(ps, "too many words");
    if (strcmp(w[0], "seed") == 0) {
        int64_t v;
        if (nw != 2 || parse_int(w[1], INT64_MAX, &v) < 0)
            rc = fail(ps, "usage: seed N (a whole number)");
        else if (!(rc = once(ps, &ps->seen_seed, "seed")))
            sc->seed = (uint64_t)v;
    } else if (strcmp(w[0], "profile") == 0) {
        if (nw != 2)
            rc = fail(ps, "usage: profile document|postfix");
        else if (strcmp(w[1], "document") != 0 && strcmp(w[1], "postfix") != 0)
            rc = fail(ps, "unknown profile (want document or postfix): %s",
                      w[1]);
        else if (!(rc = once(ps, &ps->seen_profile, "profile")))
            sc->profile = strcmp(w[1], "postfix") == 0 ? QS_PROFILE_POSTFIX
                                                        : QS_PROFILE_DOCUMENT;
    } else if (strcmp(w[0], "policy") == 0) {
        rc = policy_line(ps, w, nw);
    } else if (strcmp(w[0], "stop") == 0 || strcmp(w[0], "sample") == 0) {
        sim_us t;
        int stop = w[0][1] == 't';
        if (nw != 2 || sim_parse_time(w[1], &t) < 0 || (!stop && t < 1000))
            rc = fail(ps, "usage: %s TIME (N[.F] with unit us, ms, s, m, h, "
                      "d or w%s)", w[0], stop ? "" : "; at least 1ms");
        else if (!(rc = once(ps, stop ? &ps->seen_stop : &ps->seen_sample,
                             w[0]))) {
            if (stop)
                sc->stop = t;
            else
                sc->sample = t;
        }
    } else if (strcmp(w[0], "watch") == 0) {
        sim_group g;
        if (nw != 2)
            rc = fail(ps, "usage: watch TRANSPORT:NEXTHOP");
        else if (!(rc = parse_group(ps, w[1], &g))) {
            if (g.ranged || g.count != 1 || strchr(w[1], '*'))
                rc = fail(ps, "usage: watch TRANSPORT:NEXTHOP");
            else if (!(rc = once(ps, &ps->seen_watch, "watch"))) {
                free(sc->watch);
                sc->watch = xstrdup(w[1]);
                sc->watch_line = ps->line;
            }
            group_free(&g);
        }
    } else if (strcmp(w[0], "inflation") == 0) {
        if (nw != 2 || !valid_name(w[1], 40))
            rc = fail(ps, "usage: inflation CLASS");
        else if (!(rc = once(ps, &ps->seen_inflation, "inflation"))) {
            sc->inflation = 1;
            free(sc->bulk_class);
            sc->bulk_class = xstrdup(w[1]);
        }
    } else if (strcmp(w[0], "server") == 0) {
        rc = server_line(ps, w, nw);
    } else if (strcmp(w[0], "message") == 0) {
        rc = work_line(ps, SIM_W_MESSAGE, w, nw);
    } else {
        rc = work_line(ps, SIM_W_POISSON, w, nw);
    }
    free(w);
    return rc;
}

/* After the whole file: cross-line checks. */
static int finish(sc_parse *ps)
{
    sim_scenario *sc = ps->sc;
    size_t i, k;
    char err[300];
    qs_sched *s;
    if (sc->nwork == 0) {
        return fail(ps, "no workload (want at least one message or poisson "
                    "line)");
    }
    if (sc->inflation) {
        for (i = 0; i < sc->nwork; i++)
            if (strcmp(sc->work[i].cls, sc->bulk_class) == 0)
                break;
        if (i == sc->nwork) {
            ps->line = ps->seen_inflation;
            return fail(ps, "inflation: no workload line has class=%s",
                        sc->bulk_class);
        }
    }
    /* the core must accept the parameters under the chosen profile
     * (S-EV-5); find the line that breaks it */
    s = qs_sched_new(ps->check, (enum qs_profile)sc->profile, NULL, NULL, err,
                     sizeof err);
    if (s) {
        qs_sched_free(s);
    } else {
        qs_params *p = qs_params_new();
        for (k = 0; k < sc->nparams; k++) {
            qs_params_set(p, sc->params[k].name, sc->params[k].value, NULL, 0);
            s = qs_sched_new(p, (enum qs_profile)sc->profile, NULL, NULL,
                             err, sizeof err);
            if (!s)
                break;
            qs_sched_free(s);
        }
        qs_params_free(p);
        if (k < sc->nparams)
            ps->line = sc->params[k].line;
        if (ps->line < 0) {
            ps->where = "--set";
            ps->line = -ps->line;
        }
        return fail(ps, "%s", err);
    }
    return 0;
}

int sim_scenario_load(const char *fname, char **overrides, size_t noverrides,
                      sim_scenario *sc, char *err, size_t errlen)
{
    sc_parse ps;
    FILE *in;
    char *line = NULL;
    size_t cap = 0, i;
    ssize_t got;
    int rc = 0;
    long file_lines = 0;
    memset(sc, 0, sizeof *sc);
    memset(&ps, 0, sizeof ps);
    sc->fname = xstrdup(fname);
    sim_server_spec_defaults(&sc->dflt);
    sc->dflt.name = NULL;
    sc->seed = 1;
    sc->stop = SIM_NEVER;
    sc->sample = SIM_SEC;
    sc->connect_timeout = 30 * SIM_SEC;   /* smtp_connect_timeout */
    sc->helo_timeout = 300 * SIM_SEC;     /* smtp_helo_timeout */
    sc->caching = 1;                      /* smtp_connection_cache_on_demand */
    sc->cache_time = 2 * SIM_SEC;         /* smtp_connection_cache_time_limit */
    sc->reuse_time = 300 * SIM_SEC;       /* smtp_connection_reuse_time_limit */
    sc->finch.max_message_concurrency = 10;
    sc->finch.scale = 10;
    sc->finch.backlog = 2;
    sc->finch.idle_timeout = 2 * SIM_SEC;
    sc->finch.max_age = 300 * SIM_SEC;
    sc->finch.retry = 300 * SIM_SEC;
    sc->finch.gc = 600 * SIM_SEC;
    sc->finch.dest_limit = -1;
    ps.sc = sc;
    ps.where = fname;
    ps.err = err;
    ps.errlen = errlen;
    ps.check = qs_params_new();
    in = strcmp(fname, "-") == 0 ? stdin : fopen(fname, "r");
    if (!in) {
        snprintf(err, errlen, "qsched sim: cannot open %s", fname);
        qs_params_free(ps.check);
        return 2;
    }
    while ((got = getline(&line, &cap, in)) >= 0) {
        size_t len = (size_t)got;
        ps.line++;
        file_lines = ps.line;
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        rc = one_line(&ps, line, len);
        if (rc)
            break;
    }
    if (!rc && ferror(in)) {
        snprintf(err, errlen, "%s: read error", fname);
        rc = 2;
    }
    if (in != stdin)
        fclose(in);
    ps.where = "--set";
    ps.override = 1;
    for (i = 0; !rc && i < noverrides; i++) {
        size_t n = strlen(overrides[i]);
        char *copy = xrealloc(NULL, n + 1);
        memcpy(copy, overrides[i], n + 1);
        ps.line = (long)i + 1;
        rc = one_line(&ps, copy, n);
        free(copy);
    }
    if (!rc) {
        ps.where = fname;
        ps.line = file_lines;   /* errors about the whole file: its end */
        rc = finish(&ps);
    }
    free(line);
    qs_params_free(ps.check);
    return rc;
}

void sim_scenario_free(sim_scenario *sc)
{
    size_t i, k;
    for (i = 0; i < sc->nparams; i++) {
        free(sc->params[i].name);
        free(sc->params[i].value);
    }
    free(sc->params);
    for (i = 0; i < sc->nservers; i++) {
        free(sc->servers[i].name);
        free(sc->servers[i].backup);
        free(sc->servers[i].down_from);
        free(sc->servers[i].down_to);
    }
    free(sc->servers);
    for (i = 0; i < sc->nwork; i++) {
        for (k = 0; k < sc->work[i].ngroups; k++)
            group_free(&sc->work[i].groups[k]);
        free(sc->work[i].groups);
        free(sc->work[i].id);
        free(sc->work[i].cls);
    }
    free(sc->work);
    free(sc->watch);
    free(sc->bulk_class);
    free(sc->fname);
    memset(sc, 0, sizeof *sc);
}

const sim_server_spec *sim_scenario_server(const sim_scenario *sc,
                                           const char *nexthop)
{
    size_t i;
    for (i = 0; i < sc->nservers; i++)
        if (strcmp(sc->servers[i].name, nexthop) == 0)
            return &sc->servers[i];
    for (i = 0; i < sc->nservers; i++)
        if (strcmp(sc->servers[i].name, "*") == 0)
            return &sc->servers[i];
    return &sc->dflt;
}
