/*
 * diff-harness.c - an example differential harness: drives another C
 * implementation of the scheduler and qsched with the same generated event
 * streams, in lockstep, and stops at the first difference.
 *
 * Owns: the comparison loop and the adapter interface (struct impl) an
 * implementer fills in for their own scheduler (see fuzz/diff-README.md).
 * The reference side is qsched through its public API (qsched.h, with the
 * event parser of events.h and the trace printer of trace.h); the other
 * side is whatever `other_impl` is linked in: fuzz/diff-other-qsched.c
 * adapts a second, deliberately broken copy of qsched (a refund bug, see
 * tests/conformance/broken/) to show the harness finding a difference.
 *
 * usage: diff-harness [--seed N] [--count N] [--size EVENTS]
 *                     [--profile document|postfix] [--mix MIX] [--self]
 *                     [--out FILE]
 * For each seed N, N+1, ... the stream of `qsched gen --seed N ...` is fed
 * line by line to both implementations; after every line their new
 * default-level trace lines must be equal.  At the first difference the
 * harness prints the seed, the event line, both traces' new lines, writes
 * the stream to FILE (default diff-first.events) for `qsched verify`, and
 * exits 1.  Exit 0: no difference in COUNT streams.  --self compares qsched
 * with a second qsched instance (the harness's own sanity check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "events.h"
#include "trace.h"
#include "gen.h"

/* ---- the adapter interface ---- */

/* An implementation under test, seen through the event language: it
 * receives one stream line at a time and reports each default-level trace
 * line (spec/trace.md, without newline) through emit. */
typedef void (*emit_fn)(void *ctx, const char *trace_line);

struct impl {
    const char *name;
    /* A fresh scheduler; NULL on failure. */
    void *(*create)(emit_fn emit, void *ctx);
    /* One line of the stream (parameters, profile, events, comments).
     * Returns 0, or non-zero if the implementation refuses it. */
    int (*line)(void *self, const char *line);
    void (*destroy)(void *self);
};

/* Provided by the adapter file linked in (diff-other-qsched.c, or yours). */
extern const struct impl other_impl;

/* ---- qsched as an implementation (the reference) ---- */

typedef struct qsched_side {
    qs_stream *st;
    emit_fn emit;
    void *ctx;
} qsched_side;

static void qsched_sink(void *vp, const qs_trace *r)
{
    qsched_side *q = vp;
    char buf[1024];
    if (qs_trace_format(r, 0, buf, sizeof buf) > 0)
        q->emit(q->ctx, buf);
}

static void *qsched_create(emit_fn emit, void *ctx)
{
    qsched_side *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->emit = emit;
    q->ctx = ctx;
    q->st = qs_stream_new("stream", qsched_sink, q);
    if (!q->st) {
        free(q);
        return NULL;
    }
    return q;
}

static int qsched_line(void *self, const char *line)
{
    qsched_side *q = self;
    char err[512];
    return qs_stream_line(q->st, line, strlen(line), err, sizeof err);
}

static void qsched_destroy(void *self)
{
    qsched_side *q = self;
    qs_stream_free(q->st);
    free(q);
}

static const struct impl qsched_impl = {"qsched", qsched_create, qsched_line,
                                        qsched_destroy};

/* ---- collected trace lines of one event ---- */

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void lines_emit(void *ctx, const char *s)
{
    lines *l = ctx;
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, ncap * sizeof *v);
        if (!v) {
            fputs("diff-harness: out of memory\n", stderr);
            exit(2);
        }
        l->v = v;
        l->cap = ncap;
    }
    l->v[l->n] = strdup(s);
    if (!l->v[l->n]) {
        fputs("diff-harness: out of memory\n", stderr);
        exit(2);
    }
    l->n++;
}

static void lines_clear(lines *l)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}

static int lines_equal(const lines *a, const lines *b)
{
    size_t i;
    if (a->n != b->n)
        return 0;
    for (i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0)
            return 0;
    return 1;
}

static void lines_print(const char *who, const lines *l)
{
    size_t i;
    printf("  %s:\n", who);
    if (l->n == 0)
        printf("    (nothing)\n");
    for (i = 0; i < l->n; i++)
        printf("    %s\n", l->v[i]);
}

/* ---- one stream through both ---- */

/* Returns 0 if equal, 1 at the first difference (reported), 2 on error. */
static int compare_stream(const struct impl *ref, const struct impl *other,
                          uint64_t seed, char *text, const char *outfile)
{
    lines a = {0}, b = {0};
    FILE *other_trace = tmpfile(); /* the other side's trace so far */
    void *ra = ref->create(lines_emit, &a);
    void *rb = other->create(lines_emit, &b);
    char *line, *save = NULL, *copy = strdup(text);
    long no = 0;
    int rc = 0;
    if (!ra || !rb || !copy) {
        fputs("diff-harness: cannot create the schedulers\n", stderr);
        rc = 2;
        goto out;
    }
    for (line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        int ea, eb;
        no++;
        lines_clear(&a);
        lines_clear(&b);
        ea = ref->line(ra, line);
        eb = other->line(rb, line);
        if (other_trace) {
            size_t i;
            for (i = 0; i < b.n; i++)
                fprintf(other_trace, "%s\n", b.v[i]);
        }
        if (ea == 0 && eb == 0 && lines_equal(&a, &b))
            continue;
        printf("DIFFERENCE in the stream of seed %llu at line %ld: %s\n",
               (unsigned long long)seed, no, line);
        if (ea != eb)
            printf("  %s %s the line, %s %s it\n", ref->name,
                   ea ? "refuses" : "accepts", other->name,
                   eb ? "refuses" : "accepts");
        lines_print(ref->name, &a);
        lines_print(other->name, &b);
        {
            /* the stream, and the other side's trace up to this event, so
             * that `qsched verify` can explain the divergence */
            char tname[4096];
            FILE *f = fopen(outfile, "w"), *t;
            snprintf(tname, sizeof tname, "%s.trace", outfile);
            t = fopen(tname, "w");
            if (f && t && other_trace) {
                int c;
                fputs(text, f);
                rewind(other_trace);
                while ((c = getc(other_trace)) != EOF)
                    putc(c, t);
                printf("  stream written to %s, %s's trace to %s; for the "
                       "report with qsched's state:\n    qsched verify %s "
                       "%s\n", outfile, other->name, tname, outfile, tname);
            }
            if (f)
                fclose(f);
            if (t)
                fclose(t);
        }
        rc = 1;
        break;
    }
out:
    if (other_trace)
        fclose(other_trace);
    if (ra)
        ref->destroy(ra);
    if (rb)
        other->destroy(rb);
    lines_clear(&a);
    lines_clear(&b);
    free(a.v);
    free(b.v);
    free(copy);
    return rc;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (!*s)
        return -1;
    *v = strtoull(s, &end, 10);
    return *end ? -1 : 0;
}

int main(int argc, char **argv)
{
    qs_gen_options opt = {1, -1, NULL, 400, 0, NULL, 0};
    uint64_t count = 100, i;
    const struct impl *other = &other_impl;
    const char *outfile = "diff-first.events";
    int k;
    for (k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (strcmp(a, "--self") == 0) {
            other = &qsched_impl;
        } else if (strcmp(a, "--seed") == 0 && v && !parse_u64(v, &opt.seed)) {
            k++;
        } else if (strcmp(a, "--count") == 0 && v && !parse_u64(v, &count)) {
            k++;
        } else if (strcmp(a, "--size") == 0 && v &&
                   !parse_u64(v, &opt.events) && opt.events > 0) {
            k++;
        } else if (strcmp(a, "--profile") == 0 && v) {
            opt.profile = strcmp(v, "postfix") == 0 ? QS_PROFILE_POSTFIX
                                                    : QS_PROFILE_DOCUMENT;
            k++;
        } else if (strcmp(a, "--mix") == 0 && v) {
            opt.mix = v;
            k++;
        } else if (strcmp(a, "--out") == 0 && v) {
            outfile = v;
            k++;
        } else {
            fprintf(stderr, "usage: %s [--seed N] [--count N] [--size "
                    "EVENTS] [--profile P] [--mix MIX] [--self] "
                    "[--out FILE]\n", argv[0]);
            return 2;
        }
    }
    for (i = 0; i < count; i++, opt.seed++) {
        char *text = NULL, err[256];
        size_t len = 0;
        int rc;
        FILE *f = open_memstream(&text, &len);
        if (!f || qs_gen_write(f, &opt, err, sizeof err) != 0) {
            fprintf(stderr, "diff-harness: cannot generate seed %llu\n",
                    (unsigned long long)opt.seed);
            if (f)
                fclose(f);
            free(text);
            return 2;
        }
        fclose(f);
        rc = compare_stream(&qsched_impl, other, opt.seed, text, outfile);
        free(text);
        if (rc != 0) {
            printf("%llu streams compared before the difference\n",
                   (unsigned long long)i);
            return rc;
        }
    }
    printf("no difference in %llu streams (qsched vs %s)\n",
           (unsigned long long)count, other->name);
    return 0;
}
