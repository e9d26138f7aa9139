/*
 * verify.c - `qsched verify EVENTS TRACE`: compare another implementation's
 * default-level trace with qsched's own for the same stream.
 *
 * Owns: the first-divergence report (event line, expected vs got, and
 * qsched's state just before that event) that tells an implementer why
 * their scheduler differs.  Exit 0 equal, 1 different, 2 bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "events.h"
#include "trace.h"

typedef struct tline {
    char *text;
    long event_line;  /* the stream line that produced it */
} tline;

typedef struct collect {
    tline *v;
    size_t n, cap;
    qs_stream *st;
} collect;

static void collect_sink(void *ctx, const qs_trace *r)
{
    collect *c = ctx;
    char buf[1024];
    size_t n = qs_trace_format(r, 0, buf, sizeof buf);
    if (!n)
        return;
    if (c->n == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 256;
        tline *v = realloc(c->v, ncap * sizeof *v);
        if (!v) {
            fputs("qsched: out of memory\n", stderr);
            exit(2);
        }
        c->v = v;
        c->cap = ncap;
    }
    c->v[c->n].text = strdup(buf);
    c->v[c->n].event_line = qs_stream_lineno(c->st);
    if (!c->v[c->n].text) {
        fputs("qsched: out of memory\n", stderr);
        exit(2);
    }
    c->n++;
}

static void collect_free(collect *c)
{
    size_t i;
    for (i = 0; i < c->n; i++)
        free(c->v[i].text);
    free(c->v);
}

/* Runs the stream; every trace line remembers its event line. */
static int run_collect(const char *path, collect *c, long stop_before,
                       qs_stream **out_state)
{
    FILE *in = fopen(path, "r");
    char *line = NULL, err[512];
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    if (!in) {
        fprintf(stderr, "qsched verify: cannot open %s\n", path);
        return 2;
    }
    c->st = qs_stream_new(path, collect_sink, c);
    while ((n = getline(&line, &cap, in)) >= 0) {
        size_t len = (size_t)n;
        if (stop_before > 0 && qs_stream_lineno(c->st) + 1 >= stop_before)
            break;
        if (len && line[len - 1] == '\n')
            len--;
        if ((rc = qs_stream_line(c->st, line, len, err, sizeof err)) != 0) {
            fprintf(stderr, "%s\n", err);
            break;
        }
    }
    free(line);
    fclose(in);
    if (out_state)
        *out_state = c->st;
    else
        qs_stream_free(c->st);
    return rc;
}

static char *read_event_line(const char *path, long want)
{
    FILE *in = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    long no = 0;
    ssize_t n;
    if (!in)
        return NULL;
    while ((n = getline(&line, &cap, in)) >= 0) {
        if (++no == want) {
            if (n && line[n - 1] == '\n')
                line[n - 1] = 0;
            fclose(in);
            return line;
        }
    }
    free(line);
    fclose(in);
    return NULL;
}

/* Lines of the other trace: blank lines and # comments are ignored;
 * explain-level lines are ignored too, so an implementation may print
 * more than the minimum. */
static int trace_line_counts(const char *s)
{
    static const char *verbs[] = {"deliver ", "idle", "window ", "dead ",
                                  "revive ", "defer "};
    size_t i;
    for (i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strncmp(s, verbs[i], strlen(verbs[i])) == 0)
            return strcmp(verbs[i], "idle") != 0 || s[4] == 0;
    return 0;
}

int qs_verify_main(int argc, char **argv)
{
    collect mine = {0};
    FILE *tf;
    char *line = NULL;
    size_t cap = 0, i = 0;
    ssize_t n;
    long got_no = 0;
    int rc;
    if (argc != 3) {
        fputs("usage: qsched verify EVENTS TRACE\n", stderr);
        return 2;
    }
    rc = run_collect(argv[1], &mine, 0, NULL);
    if (rc != 0) {
        collect_free(&mine);
        return 2;
    }
    tf = fopen(argv[2], "r");
    if (!tf) {
        fprintf(stderr, "qsched verify: cannot open %s\n", argv[2]);
        collect_free(&mine);
        return 2;
    }
    for (;;) {
        const char *got = NULL;
        n = getline(&line, &cap, tf);
        if (n >= 0) {
            got_no++;
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
                line[--n] = 0;
            if (!trace_line_counts(line))
                continue;
            got = line;
        }
        if (!got && i == mine.n)
            break; /* both ended together: equal */
        if (got && i < mine.n && strcmp(got, mine.v[i].text) == 0) {
            i++;
            continue;
        }
        /* first divergence */
        {
            long ev = i < mine.n ? mine.v[i].event_line
                                 : (mine.n ? mine.v[mine.n - 1].event_line
                                           : 0);
            char *evtext = ev > 0 ? read_event_line(argv[1], ev) : NULL;
            collect before = {0};
            qs_stream *st = NULL;
            printf("DIVERGENCE at trace line %zu (%s line %ld)\n", i + 1,
                   argv[2], got ? got_no : got_no + 1);
            printf("  event:    %s:%ld: %s\n", argv[1], ev,
                   evtext ? evtext : "(end of stream)");
            printf("  expected: %s\n",
                   i < mine.n ? mine.v[i].text : "(end of trace)");
            printf("  got:      %s\n", got ? got : "(end of trace)");
            if (ev > 0 && run_collect(argv[1], &before, ev, &st) == 0 &&
                qs_stream_sched(st)) {
                size_t need = qs_describe(qs_stream_sched(st), NULL, 0) + 1;
                char *desc = malloc(need);
                if (desc) {
                    qs_describe(qs_stream_sched(st), desc, need);
                    printf("  qsched state before that event (* = current "
                           "job):\n");
                    {
                        char *p = desc, *nl;
                        while (*p && (nl = strchr(p, '\n')) != NULL) {
                            printf("    %.*s\n", (int)(nl - p), p);
                            p = nl + 1;
                        }
                    }
                    free(desc);
                }
            }
            if (st)
                qs_stream_free(st);
            collect_free(&before);
            free(evtext);
            free(line);
            fclose(tf);
            collect_free(&mine);
            return 1;
        }
    }
    free(line);
    fclose(tf);
    printf("traces agree: %zu lines\n", mine.n);
    collect_free(&mine);
    return 0;
}
