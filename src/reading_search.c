/*
 * reading_search.c - which named readings explain a divergence (see
 * reading_search.h; spec/readings.md; docs/implementers.md, "Readings").
 *
 * Owns: loading a stream once, replaying it under a set of forced readings
 * (qs_stream_force_param) while comparing the default-level lines as they
 * are printed - with the other implementation's trace, and with qsched's
 * trace under its own readings - and the bounded search over single
 * readings, pairs and triples.  A replay stops as soon as both comparisons
 * have failed, so most replays of a long stream are short.
 *
 * Why it exists: an independent model of the job scheduler written from
 * the document alone agreed with qsched on 80 of 500 generated streams
 * with its own readings, and on 3,499 of 3,500 once each reading was
 * resolved as qsched resolves it (issue 20).  "Your trace differs at line
 * 12" does not tell such an implementer that they read "less than" where
 * qsched reads "no more than"; this does.
 */
#include <stdlib.h>
#include <string.h>
#include "events.h"
#include "readings.h"
#include "reading_search.h"
#include "trace.h"

/* The stream, read once. */
typedef struct stream_text {
    char **line;
    size_t *len;
    size_t n;
} stream_text;

/* One alternative: switch r takes value v. */
typedef struct alt {
    int r, v;
} alt;

/* A replay compared, line by line, with two references. */
typedef struct replay {
    char *const *other;   /* the other implementation's lines */
    size_t n_other;
    char *const *base;    /* qsched's own trace (its own readings) */
    size_t n_base;
    size_t agree_other;   /* lines equal to other[] so far */
    size_t agree_base;
    int off_other, off_base; /* a line differed (or was one too many) */
    char **keep;          /* collect the lines (qs_reading_trace) */
    size_t n_keep, cap_keep;
} replay;

static void oom(void)
{
    fputs("qsched: out of memory\n", stderr);
    exit(2);
}

static void text_free(stream_text *t)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        free(t->line[i]);
    free(t->line);
    free(t->len);
    memset(t, 0, sizeof *t);
}

static int text_load(const char *path, stream_text *t)
{
    FILE *in = fopen(path, "r");
    char *buf = NULL;
    size_t cap = 0, tcap = 0;
    ssize_t n;
    memset(t, 0, sizeof *t);
    if (!in) {
        fprintf(stderr, "qsched: cannot open %s\n", path);
        return -1;
    }
    while ((n = getline(&buf, &cap, in)) >= 0) {
        if (t->n == tcap) {
            size_t ncap = tcap ? 2 * tcap : 64;
            char **l = realloc(t->line, ncap * sizeof *l);
            size_t *len;
            if (!l)
                oom();
            t->line = l;
            len = realloc(t->len, ncap * sizeof *len);
            if (!len)
                oom();
            t->len = len;
            tcap = ncap;
        }
        if (n > 0 && buf[n - 1] == '\n')
            n--;
        t->line[t->n] = malloc((size_t)n + 1);
        if (!t->line[t->n])
            oom();
        memcpy(t->line[t->n], buf, (size_t)n);
        t->line[t->n][n] = 0;
        t->len[t->n] = (size_t)n;
        t->n++;
    }
    free(buf);
    if (ferror(in)) {
        fprintf(stderr, "qsched: cannot read %s\n", path);
        fclose(in);
        text_free(t);
        return -1;
    }
    fclose(in);
    return 0;
}

static void replay_sink(void *ctx, const qs_trace *r)
{
    replay *p = ctx;
    char buf[1024];
    if (!qs_trace_is_default(r) || !qs_trace_format(r, 0, buf, sizeof buf))
        return;
    if (p->keep) {
        if (p->n_keep == p->cap_keep) {
            size_t ncap = p->cap_keep ? 2 * p->cap_keep : 64;
            char **k = realloc(p->keep, ncap * sizeof *k);
            if (!k)
                oom();
            p->keep = k;
            p->cap_keep = ncap;
        }
        if (!(p->keep[p->n_keep] = strdup(buf)))
            oom();
        p->n_keep++;
    }
    if (!p->off_other) {
        if (p->agree_other < p->n_other &&
            strcmp(buf, p->other[p->agree_other]) == 0)
            p->agree_other++;
        else
            p->off_other = 1;
    }
    if (!p->off_base) {
        if (p->agree_base < p->n_base &&
            strcmp(buf, p->base[p->agree_base]) == 0)
            p->agree_base++;
        else
            p->off_base = 1;
    }
}

/* Replays the stream with the alternatives forced.  Stops early once it
 * differs from both references (unless it keeps its lines).  *st_out, if
 * asked, keeps the stream (to read the readings in force). */
static void replay_run(const stream_text *t, const alt *declared,
                       size_t ndeclared, const alt *alts, size_t nalts,
                       replay *p, long *bad_line, qs_stream **st_out)
{
    qs_stream *st = qs_stream_new("-", replay_sink, p);
    char err[512];
    size_t i;
    int rc = 0;
    if (!st)
        oom();
    for (i = 0; i < ndeclared + nalts; i++) {
        const alt *a = i < ndeclared ? &declared[i] : &alts[i - ndeclared];
        const qs_reading_def *d = qs_reading((size_t)a->r);
        if (qs_stream_force_param(st, d->param, d->values[a->v], err,
                                  sizeof err)) {
            /* the table's own words: only memory can make it fail */
            fprintf(stderr, "qsched: %s\n", err);
            exit(2);
        }
    }
    if (bad_line)
        *bad_line = 0;
    for (i = 0; i < t->n && rc == 0; i++) {
        if (!p->keep && p->off_other && p->off_base)
            break;
        rc = qs_stream_line(st, t->line[i], t->len[i], err, sizeof err);
    }
    if (rc == 0 && i == t->n)
        rc = qs_stream_finish(st, err, sizeof err);
    if (rc != 0 && bad_line)
        *bad_line = qs_stream_lineno(st);
    /* one line short is a difference too */
    if (!p->off_other && p->agree_other < p->n_other &&
        (rc != 0 || i == t->n))
        p->off_other = 1;
    if (!p->off_base && p->agree_base < p->n_base &&
        (rc != 0 || i == t->n))
        p->off_base = 1;
    if (st_out)
        *st_out = st;
    else
        qs_stream_free(st);
}

/* The text "a=x and b=y" of a combination. */
static void combo_text(const alt *c, size_t k, char *buf, size_t len)
{
    size_t i, used = 0;
    buf[0] = 0;
    for (i = 0; i < k && used < len; i++) {
        const qs_reading_def *d = qs_reading((size_t)c[i].r);
        int w = snprintf(buf + used, len - used, "%s%s=%s",
                         i == 0 ? "" : (i + 1 == k ? " and " : ", "),
                         d->name, d->values[c[i].v]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void combo_entries(const alt *c, size_t k, char *buf, size_t len)
{
    size_t i, used = 0;
    buf[0] = 0;
    for (i = 0; i < k && used < len; i++) {
        const qs_reading_def *d = qs_reading((size_t)c[i].r);
        int w = snprintf(buf + used, len - used, "%s%s (%s)",
                         i == 0 ? "" : ", ", d->entry, d->rules);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void combo_params(const alt *c, size_t k, char *buf, size_t len)
{
    size_t i, used = 0;
    buf[0] = 0;
    for (i = 0; i < k && used < len; i++) {
        const qs_reading_def *d = qs_reading((size_t)c[i].r);
        int w = snprintf(buf + used, len - used, "%s%s = %s",
                         i == 0 ? "" : "; ", d->param, d->values[c[i].v]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

int qs_reading_parse(const char *text, char *param, size_t plen,
                     const char **word)
{
    const char *eq = strchr(text, '=');
    char name[128];
    int r;
    if (!eq || (size_t)(eq - text) >= sizeof name) {
        fprintf(stderr, "qsched: bad reading \"%s\" (want NAME=VALUE)\n",
                text);
        return -1;
    }
    memcpy(name, text, (size_t)(eq - text));
    name[eq - text] = 0;
    if ((r = qs_reading_find(name)) < 0 ||
        qs_reading_value_find((size_t)r, eq + 1) < 0) {
        fprintf(stderr, "qsched: unknown reading \"%s\" (qsched -d lists "
                "them)\n", text);
        return -1;
    }
    snprintf(param, plen, "%s", qs_reading((size_t)r)->param);
    *word = eq + 1;
    return 0;
}

/* "NAME=WORD" texts to alternatives; -1 if one is bad. */
static int parse_alts(char *const *texts, size_t n, alt *out, size_t max)
{
    size_t i;
    for (i = 0; i < n; i++) {
        char param[128];
        const char *word;
        int r;
        if (i >= max || qs_reading_parse(texts[i], param, sizeof param,
                                         &word) < 0)
            return -1;
        r = qs_reading_find(param);
        out[i].r = r;
        out[i].v = qs_reading_value_find((size_t)r, word);
    }
    return 0;
}

int qs_reading_search(const char *events, char *const *declared,
                      size_t ndeclared, char *const *other, size_t n,
                      FILE *out, const char *indent)
{
    alt decl[64];
    stream_text t;
    replay base = {0};
    qs_stream *st = NULL;
    alt alts[64], best[QS_RSEARCH_MAX_SIZE], found[64][QS_RSEARCH_MAX_SIZE];
    int relevant[64];
    size_t nalts = 0, nrel = 0, nfound = 0, best_k = 0, best_agree = 0;
    size_t runs = 0, size = 0, i, j, l;
    int cut = 0;
    char buf[1024], buf2[1024];

    if (parse_alts(declared, ndeclared, decl, 64) < 0)
        return -1;
    if (text_load(events, &t) < 0)
        return -1;
    /* qsched as it is (with the declared readings): its own trace, and the
     * readings in force */
    base.other = other;
    base.n_other = n;
    base.keep = NULL;
    {
        replay keep = {0};
        keep.other = other;
        keep.n_other = n;
        keep.keep = malloc(sizeof *keep.keep);
        keep.cap_keep = keep.keep ? 1 : 0;
        replay_run(&t, decl, ndeclared, NULL, 0, &keep, NULL, &st);
        base = keep;
        runs++;
    }
    if (!base.off_other) {
        fprintf(out, "%sreadings: your trace matches qsched with %s "
                "readings\n", indent, ndeclared ? "the declared" : "its own");
        qs_reading_lines_free(base.keep, base.n_keep);
        qs_stream_free(st);
        text_free(&t);
        return 0;
    }
    if (!qs_stream_sched(st)) {
        fprintf(out, "%sreadings: the stream has no event: no reading can "
                "matter\n", indent);
        qs_reading_lines_free(base.keep, base.n_keep);
        qs_stream_free(st);
        text_free(&t);
        return 0;
    }
    for (i = 0; i < qs_reading_count(); i++) {
        int now = qs_reading_in_force(qs_stream_sched(st), i);
        for (j = 0; j < qs_reading_nvalues(i); j++)
            if ((int)j != now && nalts < sizeof alts / sizeof alts[0]) {
                alts[nalts].r = (int)i;
                alts[nalts].v = (int)j;
                nalts++;
            }
    }
    qs_stream_free(st);
    best_agree = base.agree_other;

    /* size 1: every alternative; remember which change the stream */
    for (size = 1; size <= QS_RSEARCH_MAX_SIZE && nfound == 0; size++) {
        size_t idx[QS_RSEARCH_MAX_SIZE];
        size_t pool = size <= 2 ? nalts : nrel;
        alt pick[QS_RSEARCH_MAX_SIZE];
        if (pool < size)
            break;
        /* combinations of `size` indices out of `pool`, in order */
        for (i = 0; i < size; i++)
            idx[i] = i;
        for (;;) {
            int ok = 1;
            for (i = 0; i < size; i++) {
                pick[i] = size <= 2 ? alts[idx[i]] : alts[relevant[idx[i]]];
                for (l = 0; l < i; l++)
                    if (pick[l].r == pick[i].r)
                        ok = 0; /* two values of one switch */
            }
            if (ok) {
                replay p = {0};
                if (runs >= QS_RSEARCH_MAX_RUNS) {
                    cut = 1;
                    break;
                }
                p.other = other;
                p.n_other = n;
                p.base = base.keep;
                p.n_base = base.n_keep;
                replay_run(&t, decl, ndeclared, pick, size, &p, NULL, NULL);
                runs++;
                if (size == 1 && p.off_base && nrel < 64)
                    relevant[nrel++] = idx[0];
                if (!p.off_other) {
                    if (nfound < 64)
                        memcpy(found[nfound++], pick, size * sizeof *pick);
                } else if (p.agree_other > best_agree) {
                    best_agree = p.agree_other;
                    best_k = size;
                    memcpy(best, pick, size * sizeof *pick);
                }
            }
            /* next combination */
            for (i = size; i-- > 0;)
                if (idx[i] < pool - size + i)
                    break;
            if (i == (size_t)-1)
                break;
            idx[i]++;
            for (j = i + 1; j < size; j++)
                idx[j] = idx[j - 1] + 1;
        }
        if (cut)
            break;
    }
    if (nfound > 0) {
        size_t k = size - 1;
        for (i = 0; i < nfound; i++) {
            combo_text(found[i], k, buf, sizeof buf);
            if (i == 0)
                fprintf(out, "%sreadings: your trace matches qsched with "
                        "%s\n", indent, buf);
            else
                fprintf(out, "%s          or with %s\n", indent, buf);
            combo_entries(found[i], k, buf, sizeof buf);
            combo_params(found[i], k, buf2, sizeof buf2);
            fprintf(out, "%s          see spec/readings.md %s; qsched "
                    "runs so with: %s\n", indent, buf, buf2);
        }
    } else {
        fprintf(out, "%sreadings: no reading explains it (%zu replays: "
                "single readings, pairs%s%s)\n", indent, runs,
                nrel >= 3 ? ", triples of the readings that change this "
                "stream" : "", cut ? "; search cut short" : "");
        if (best_k > 0) {
            combo_text(best, best_k, buf, sizeof buf);
            fprintf(out, "%s          nearest: with %s your trace agrees "
                    "for %zu lines (%zu with qsched's own readings)\n",
                    indent, buf, best_agree, base.agree_other);
        }
    }
    qs_reading_lines_free(base.keep, base.n_keep);
    text_free(&t);
    return nfound > 0;
}

int qs_reading_trace(const char *events, char *const *readings,
                     size_t nreadings, char ***lines, size_t *n_lines,
                     long *bad_line)
{
    stream_text t;
    replay p = {0};
    alt alts[64];
    size_t k = nreadings;
    *lines = NULL;
    *n_lines = 0;
    if (parse_alts(readings, nreadings, alts, 64) < 0)
        return 2;
    if (text_load(events, &t) < 0)
        return 2;
    p.keep = malloc(sizeof *p.keep);
    if (!p.keep)
        oom();
    p.cap_keep = 1;
    p.off_other = p.off_base = 1;
    replay_run(&t, alts, k, NULL, 0, &p, bad_line, NULL);
    text_free(&t);
    *lines = p.keep;
    *n_lines = p.n_keep;
    return 0;
}

void qs_reading_lines_free(char **lines, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}
