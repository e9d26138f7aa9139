/*
 * events.c - parser of the event language (spec/events.md, S-EV-*).
 *
 * Owns: the grammar (NAME = VALUE, profile, at, arrive, select, done),
 * line limits, and turning each valid line into one call of the core API.
 * An invalid line changes nothing and yields "FILE:LINE: reason"; the
 * caller stops there (exit 2).
 */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "events.h"
#include "kernels.h"

struct qs_stream {
    char *fname;
    long lineno;
    qs_params *params;
    enum qs_profile profile;
    qs_sched *sched;
    qs_trace_sink sink;
    void *ctx;
    /* parameters forced from outside the stream (qsched verify --readings):
     * set after the stream's own, when the scheduler is created */
    char **forced;
    size_t nforced;
    /* scratch for arrive lines */
    qs_group *groups;
    size_t gcap;
    char *buf;
    size_t bufcap;
};

qs_stream *qs_stream_new(const char *fname, qs_trace_sink sink, void *ctx)
{
    qs_stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->fname = strdup(fname ? fname : "-");
    st->params = qs_params_new();
    if (!st->fname || !st->params) {
        qs_stream_free(st);
        return NULL;
    }
    st->sink = sink;
    st->ctx = ctx;
    return st;
}

void qs_stream_free(qs_stream *st)
{
    if (!st)
        return;
    qs_sched_free(st->sched);
    qs_params_free(st->params);
    while (st->nforced > 0)
        free(st->forced[--st->nforced]);
    free(st->forced);
    free(st->groups);
    free(st->buf);
    free(st->fname);
    free(st);
}

qs_sched *qs_stream_sched(qs_stream *st) { return st->sched; }
long qs_stream_lineno(const qs_stream *st) { return st->lineno; }

static int lerr(qs_stream *st, char *err, size_t errlen, const char *what,
                const char *detail)
{
    if (err && errlen)
        snprintf(err, errlen, "%s:%ld: %s%s%s", st->fname, st->lineno, what,
                 detail && *detail ? ": " : "", detail ? detail : "");
    return 2;
}

int qs_stream_set_profile(qs_stream *st, const char *name, char *err,
                          size_t errlen)
{
    if (st->sched)
        return lerr(st, err, errlen, "profile must come before the first "
                    "event", NULL);
    if (strcmp(name, "document") == 0)
        st->profile = QS_PROFILE_DOCUMENT;
    else if (strcmp(name, "postfix") == 0)
        st->profile = QS_PROFILE_POSTFIX;
    else
        return lerr(st, err, errlen, "unknown profile (want document or "
                    "postfix)", name);
    return 0;
}

int qs_stream_force_param(qs_stream *st, const char *name,
                          const char *value, char *err, size_t errlen)
{
    char **v;
    size_t i;
    if (st->sched)
        return lerr(st, err, errlen, "parameters must come before the "
                    "first event", NULL);
    /* checked now, against a scratch store, so that a bad one is refused
     * here rather than at the first event */
    {
        qs_params *scratch = qs_params_new();
        char why[256];
        int bad;
        if (!scratch)
            return lerr(st, err, errlen, "out of memory", NULL);
        bad = qs_params_set(scratch, name, value, why, sizeof why) < 0;
        qs_params_free(scratch);
        if (bad) {
            if (err && errlen)
                snprintf(err, errlen, "%s: %s", name, why);
            return 2;
        }
    }
    v = realloc(st->forced, (st->nforced + 2) * sizeof *v);
    if (!v)
        return lerr(st, err, errlen, "out of memory", NULL);
    st->forced = v;
    i = st->nforced;
    v[i] = strdup(name);
    v[i + 1] = strdup(value);
    if (!v[i] || !v[i + 1]) {
        free(v[i]);
        free(v[i + 1]);
        return lerr(st, err, errlen, "out of memory", NULL);
    }
    st->nforced += 2;
    return 0;
}

/* The first event freezes parameters and profile (S-EV-2). */
static int ensure_sched(qs_stream *st, char *err, size_t errlen)
{
    char why[256];
    size_t i;
    if (st->sched)
        return 0;
    for (i = 0; i + 1 < st->nforced; i += 2)
        if (qs_params_set(st->params, st->forced[i], st->forced[i + 1], why,
                          sizeof why) < 0)
            return lerr(st, err, errlen, st->forced[i], why);
    st->sched = qs_sched_new(st->params, st->profile, st->sink, st->ctx, why,
                             sizeof why);
    if (!st->sched)
        return lerr(st, err, errlen, why, NULL);
    return 0;
}

int qs_stream_finish(qs_stream *st, char *err, size_t errlen)
{
    return ensure_sched(st, err, errlen);
}

/* Splits buf in place into whitespace separated words. */
static size_t split_words(char *buf, char **w, size_t max)
{
    size_t n = 0;
    char *p = buf;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        if (n == max)
            return max + 1;
        w[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p)
            *p++ = 0;
    }
    return n;
}

/* Non-negative decimal, at most max. */
static int parse_count(const char *s, int64_t max, int64_t *out)
{
    int64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        int d = *s - '0';
        if (!isdigit((unsigned char)*s))
            return -1;
        /* v * 10 + d <= max, tested before computing it (no overflow) */
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int name_ok(const char *s, int transport)
{
    if (!*s)
        return 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (isdigit(c) || islower(c) || c == '-')
            continue;
        if (!transport && (isupper(c) || c == '.' || c == '_' || c == '+'))
            continue;
        return 0;
    }
    return 1;
}

/* TRANSPORT:[LOCAL@]NEXTHOP[*COUNT] */
static int parse_group(char *w, qs_group *g, char *why, size_t whylen)
{
    char *colon = strchr(w, ':'), *at, *star;
    int64_t count = 1;
    if (!colon) {
        snprintf(why, whylen, "\"%.100s\": want TRANSPORT:[LOCAL@]NEXTHOP"
                 "[*COUNT]", w);
        return -1;
    }
    *colon = 0;
    g->transport = w;
    w = colon + 1;
    if ((star = strchr(w, '*')) != NULL) {
        *star = 0;
        if (parse_count(star + 1, QS_COUNT_MAX, &count) < 0 || count < 1) {
            snprintf(why, whylen, "bad recipient count \"%.40s\" (1 .. "
                     "1000000000)", star + 1);
            return -1;
        }
    }
    g->local = NULL;
    if ((at = strchr(w, '@')) != NULL) {
        *at = 0;
        g->local = w;
        w = at + 1;
        if (!name_ok(g->local, 0) || strlen(g->local) > 64) {
            snprintf(why, whylen, "bad local part \"%.64s\" (letters, "
                     "digits, .-_+; at most 64)", g->local);
            return -1;
        }
    }
    g->nexthop = w;
    g->count = count;
    if (!name_ok(g->transport, 1) || strlen(g->transport) > 64) {
        snprintf(why, whylen, "bad transport name \"%.64s\" (lower-case "
                 "letters, digits, -; at most 64)", g->transport);
        return -1;
    }
    if (!name_ok(g->nexthop, 0) || strlen(g->nexthop) > 200) {
        snprintf(why, whylen, "bad next-hop \"%.64s\" (letters, digits, "
                 ".-_+; at most 200)", g->nexthop);
        return -1;
    }
    return 0;
}

static int do_arrive(qs_stream *st, char **w, size_t nw, char *err,
                     size_t errlen)
{
    size_t i;
    int64_t total = 0;
    char why[256];
    if (nw < 3)
        return lerr(st, err, errlen, "arrive needs MSGID and at least one "
                    "TRANSPORT:NEXTHOP", NULL);
    if (!name_ok(w[1], 0) || strlen(w[1]) > 64)
        return lerr(st, err, errlen, "bad message id (letters, digits, "
                    ".-_+; at most 64)", w[1]);
    if (nw - 2 > st->gcap) {
        qs_group *g = realloc(st->groups, (nw - 2) * sizeof *g);
        if (!g)
            return lerr(st, err, errlen, "out of memory", NULL);
        st->groups = g;
        st->gcap = nw - 2;
    }
    for (i = 2; i < nw; i++) {
        if (parse_group(w[i], &st->groups[i - 2], why, sizeof why) < 0)
            return lerr(st, err, errlen, why, NULL);
        total += st->groups[i - 2].count;
        if (total > QS_COUNT_MAX)
            return lerr(st, err, errlen, "more than 1000000000 recipients "
                        "in one message", NULL);
    }
    if (ensure_sched(st, err, errlen))
        return 2;
    if (qs_arrive(st->sched, w[1], st->groups, nw - 2, why, sizeof why) < 0)
        return lerr(st, err, errlen, why, NULL);
    return 0;
}

static int do_param(qs_stream *st, char *line, char *eq, char *err,
                    size_t errlen)
{
    char *name = line, *value = eq + 1, *e;
    char why[256];
    if (st->sched)
        return lerr(st, err, errlen, "parameters must come before the "
                    "first event", NULL);
    *eq = 0;
    while (*name == ' ' || *name == '\t')
        name++;
    for (e = eq; e > name && (e[-1] == ' ' || e[-1] == '\t'); e--)
        e[-1] = 0;
    while (*value == ' ' || *value == '\t')
        value++;
    for (e = value + strlen(value); e > value && (e[-1] == ' ' ||
                                                  e[-1] == '\t'); e--)
        e[-1] = 0;
    if (!*name || strpbrk(name, " \t"))
        return lerr(st, err, errlen, "bad parameter name", name);
    if (!*value)
        return lerr(st, err, errlen, "empty parameter value", name);
    if (qs_params_set(st->params, name, value, why, sizeof why) < 0)
        return lerr(st, err, errlen, name, why);
    return 0;
}

int qs_stream_line(qs_stream *st, const char *line, size_t len, char *err,
                   size_t errlen)
{
    char *w[8], *eq, *hash;
    char **words = w;
    size_t nw;
    int rc = 0;
    char why[256];

    st->lineno++;
    if (len > QS_LINE_MAX)
        return lerr(st, err, errlen, "line too long (limit 1048576 bytes)",
                    NULL);
    if (memchr(line, 0, len))
        return lerr(st, err, errlen, "NUL byte in line", NULL);
    if (len + 1 > st->bufcap) {
        char *b = realloc(st->buf, len + 1);
        if (!b)
            return lerr(st, err, errlen, "out of memory", NULL);
        st->buf = b;
        st->bufcap = len + 1;
    }
    memcpy(st->buf, line, len);
    st->buf[len] = 0;
    if (len && st->buf[len - 1] == '\r')
        st->buf[len - 1] = 0;
    if ((hash = strchr(st->buf, '#')) != NULL)
        *hash = 0;
    if ((eq = strchr(st->buf, '=')) != NULL)
        return do_param(st, st->buf, eq, err, errlen);

    nw = split_words(st->buf, w, 8);
    if (nw == 0)
        return 0;
    if (strcmp(w[0], "arrive") == 0) {
        /* arrive lines have many words: split again without a cap */
        size_t cap = 16, n;
        char *copy;
        memcpy(st->buf, line, len);
        st->buf[len] = 0;
        if (len && st->buf[len - 1] == '\r')
            st->buf[len - 1] = 0;
        if ((hash = strchr(st->buf, '#')) != NULL)
            *hash = 0;
        copy = st->buf;
        for (;;) {
            words = malloc(cap * sizeof *words);
            if (!words)
                return lerr(st, err, errlen, "out of memory", NULL);
            n = split_words(copy, words, cap);
            if (n <= cap)
                break;
            free(words);
            if (cap > QS_GROUPS_MAX + 2) {
                return lerr(st, err, errlen, "too many recipient groups "
                            "(limit 100000)", NULL);
            }
            cap *= 4;
            memcpy(st->buf, line, len);
            st->buf[len] = 0;
            if (len && st->buf[len - 1] == '\r')
                st->buf[len - 1] = 0;
            if ((hash = strchr(st->buf, '#')) != NULL)
                *hash = 0;
        }
        if (n - 2 > QS_GROUPS_MAX)
            rc = lerr(st, err, errlen, "too many recipient groups (limit "
                      "100000)", NULL);
        else
            rc = do_arrive(st, words, n, err, errlen);
        free(words);
        return rc;
    }
    if (nw > 3)
        return lerr(st, err, errlen, "too many words", w[0]);
    if (strcmp(w[0], "profile") == 0) {
        if (nw != 2)
            return lerr(st, err, errlen, "usage: profile document|postfix",
                        NULL);
        return qs_stream_set_profile(st, w[1], err, errlen);
    }
    if (strcmp(w[0], "at") == 0) {
        int64_t t;
        if (nw != 2 || parse_count(w[1], (int64_t)1 << 33, &t) < 0)
            return lerr(st, err, errlen, "usage: at T (T a whole number of "
                        "seconds, at most 2^33)", NULL);
        if (ensure_sched(st, err, errlen))
            return 2;
        if (qs_advance(st->sched, t, why, sizeof why) < 0)
            return lerr(st, err, errlen, why, w[1]);
        return 0;
    }
    if (strcmp(w[0], "select") == 0) {
        qs_delivery d;
        if (nw > 2)
            return lerr(st, err, errlen, "usage: select [TRANSPORT]", NULL);
        if (nw == 2 && (!name_ok(w[1], 1) || strlen(w[1]) > 64))
            return lerr(st, err, errlen, "bad transport name", w[1]);
        if (ensure_sched(st, err, errlen))
            return 2;
        if (qs_select(st->sched, nw == 2 ? w[1] : NULL, &d, why,
                      sizeof why) < 0)
            return lerr(st, err, errlen, why, NULL);
        return 0;
    }
    if (strcmp(w[0], "done") == 0) {
        int64_t h;
        enum qs_outcome o;
        if (nw != 3)
            return lerr(st, err, errlen, "usage: done D<n> ok|fail|defer",
                        NULL);
        if (w[1][0] != 'D' || parse_count(w[1] + 1, (int64_t)1 << 62, &h) < 0
            || h < 1)
            return lerr(st, err, errlen, "bad delivery handle (want D1, D2, "
                        "...)", w[1]);
        if (strcmp(w[2], "ok") == 0)
            o = QS_DONE_OK;
        else if (strcmp(w[2], "fail") == 0)
            o = QS_DONE_FAIL;
        else if (strcmp(w[2], "defer") == 0)
            o = QS_DONE_DEFER;
        else
            return lerr(st, err, errlen, "bad outcome (want ok, fail or "
                        "defer)", w[2]);
        if (ensure_sched(st, err, errlen))
            return 2;
        if (qs_done(st->sched, h, o, why, sizeof why) < 0)
            return lerr(st, err, errlen, why, NULL);
        return 0;
    }
    return lerr(st, err, errlen, "unknown verb", w[0]);
}

int qs_stream_run_file(FILE *in, const char *fname, qs_trace_sink sink,
                       void *ctx, const char *profile, int check,
                       qs_stream **keep, FILE *errf)
{
    qs_stream *st = qs_stream_new(fname, sink, ctx);
    char err[512], *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    if (!st) {
        fprintf(errf, "qsched: out of memory\n");
        return 2;
    }
    if (profile && qs_stream_set_profile(st, profile, err, sizeof err)) {
        fprintf(errf, "qsched: %s\n", err);
        qs_stream_free(st);
        return 2;
    }
    while ((n = getline(&line, &cap, in)) >= 0) {
        size_t len = (size_t)n;
        if (len && line[len - 1] == '\n')
            len--;
        if ((rc = qs_stream_line(st, line, len, err, sizeof err)) != 0) {
            fprintf(errf, "%s\n", err);
            break;
        }
        if (check && st->sched &&
            qs_check_invariants(st->sched, err, sizeof err) < 0) {
            fprintf(errf, "%s:%ld: invariant broken: %s\n", st->fname,
                    st->lineno, err);
            rc = 3;
            break;
        }
    }
    free(line);
    if (rc == 0 && ferror(in)) {
        fprintf(errf, "%s: read error\n", st->fname);
        rc = 2;
    }
    if (rc == 0 && (rc = qs_stream_finish(st, err, sizeof err)) != 0)
        fprintf(errf, "%s\n", err);
    if (keep && rc == 0)
        *keep = st;
    else
        qs_stream_free(st);
    return rc;
}
