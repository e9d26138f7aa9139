/*
 * verify.c - `qsched verify EVENTS TRACE`: compare another implementation's
 * default-level trace with qsched's own for the same stream.
 *
 * Owns: the first-divergence report that tells an implementer where and
 * why their scheduler differs: the event line, expected vs got, the last
 * lines both agreed on, qsched's reasoning at that event (its explain-level
 * lines), qsched's state just before that event (job list order with
 * levels and counters, windows and in-flight counts per destination), and
 * the spec rules to re-read.  Exit 0 equal, 1 different, 2 bad input.
 *
 * Only the default-level lines of TRACE count (deliver, idle, window, dead,
 * revive, defer); blank lines, `#` comments and any other line (explain
 * output, logging) are skipped, so an implementation may print more than
 * the minimum.  A stream that stops with an input error (S-EV-10) is
 * compared up to the bad line, which is what a conforming implementation
 * prints before it exits with status 2.
 *
 * Why it exists: an implementation of the document that disagrees with
 * qsched needs to know where first and why, not that a diff is non-empty.
 * qsched can say why because it can replay the stream to any line and
 * show its own explain-level reasoning and state there.  Layer: around
 * the core, like gen.c; it runs the core through the event parser
 * (events.h) and renders with trace.c.  Implements spec/trace.md's
 * comparison rules; no rule of the document itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "events.h"
#include "reading_search.h"
#include "trace.h"
#include "verify.h"

#define VERIFY_CONTEXT 3  /* agreeing lines shown before a divergence */

/* One line of qsched's own trace, with the stream line that caused it. */
typedef struct tline {
    char *text;
    long event_line;      /* the stream line that produced it */
    int is_default;       /* counts in the comparison */
} tline;

/* qsched's whole trace for a stream, collected by collect_sink. */
typedef struct collect {
    tline *v;
    size_t n, cap;
    qs_stream *st;
    char *const *declared;  /* --reading NAME=VALUE: readings qsched runs */
    size_t ndeclared;       /* with (spec/readings.md) */
} collect;

/* verify is a tool, not the core: out of memory ends it with status 2. */
static void oom(void)
{
    fputs("qsched verify: out of memory\n", stderr);
    exit(2);
}

/* Keeps every record at the explain level; the default-level ones are
 * flagged for the comparison. */
static void collect_sink(void *ctx, const qs_trace *r)
{
    collect *c = ctx;
    char buf[1024];
    size_t n = qs_trace_format(r, 1, buf, sizeof buf);
    if (!n)
        return;
    if (c->n == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 256;
        tline *v = realloc(c->v, ncap * sizeof *v);
        if (!v)
            oom();
        c->v = v;
        c->cap = ncap;
    }
    c->v[c->n].text = strdup(buf);
    if (!c->v[c->n].text)
        oom();
    c->v[c->n].event_line = qs_stream_lineno(c->st);
    c->v[c->n].is_default = qs_trace_is_default(r);
    c->n++;
}

/* Frees the collected lines and leaves the collection empty. */
static void collect_free(collect *c)
{
    size_t i;
    for (i = 0; i < c->n; i++)
        free(c->v[i].text);
    free(c->v);
    c->v = NULL;
    c->n = c->cap = 0;
    c->st = NULL;
}

/* Runs the stream (up to, not including, line stop_before if > 0).
 * Returns 0, or 2 if the file cannot be read.  An input error inside the
 * stream is not a failure here: it ends the stream, and *bad_line / why
 * say where and why.  The stream is kept in *keep if asked. */
static int run_collect(const char *path, collect *c, long stop_before,
                       qs_stream **keep, long *bad_line, char *why,
                       size_t whylen)
{
    FILE *in = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    if (bad_line)
        *bad_line = 0;
    if (!in) {
        fprintf(stderr, "qsched verify: cannot open %s\n", path);
        return 2;
    }
    c->st = qs_stream_new(path, collect_sink, c);
    if (!c->st)
        oom();
    {
        size_t i;
        for (i = 0; i < c->ndeclared; i++) {
            char param[128];
            const char *word;
            if (qs_reading_parse(c->declared[i], param, sizeof param,
                                 &word) < 0 ||
                qs_stream_force_param(c->st, param, word, why, whylen)) {
                fclose(in);
                qs_stream_free(c->st);
                c->st = NULL;
                return 2;
            }
        }
    }
    while ((n = getline(&line, &cap, in)) >= 0) {
        size_t len = (size_t)n;
        if (stop_before > 0 && qs_stream_lineno(c->st) + 1 >= stop_before)
            break;
        if (len && line[len - 1] == '\n')
            len--;
        if ((rc = qs_stream_line(c->st, line, len, why, whylen)) != 0)
            break;
    }
    /* A read error is not the end of the stream: comparing against a
     * stream cut short would report "agree" on a file never read. */
    if (n < 0 && ferror(in)) {
        fprintf(stderr, "qsched verify: cannot read %s\n", path);
        free(line);
        fclose(in);
        qs_stream_free(c->st);
        c->st = NULL;
        return 2;
    }
    if (rc == 0 && stop_before <= 0)
        rc = qs_stream_finish(c->st, why, whylen);
    if (rc != 0 && bad_line)
        *bad_line = qs_stream_lineno(c->st);
    free(line);
    fclose(in);
    if (keep)
        *keep = c->st;
    else
        qs_stream_free(c->st);
    return 0;
}

/* The text of line `want` of the stream file (for the report), or NULL.
 * The caller frees it. */
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
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
                line[--n] = 0;
            fclose(in);
            return line;
        }
    }
    free(line);
    fclose(in);
    return NULL;
}

/* Does a line of the other trace take part in the comparison?  Only the
 * default-level verbs (spec/trace.md); any other line - explain output,
 * logging, comments - is the other implementation's own business. */
static int trace_line_counts(const char *s)
{
    static const char *verbs[] = {"deliver ", "window ", "dead ", "revive ",
                                  "defer "};
    size_t i;
    if (strcmp(s, "idle") == 0)
        return 1;
    for (i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strncmp(s, verbs[i], strlen(verbs[i])) == 0)
            return 1;
    return 0;
}

/* The rules behind each kind of default-level line (spec/rules.md): where
 * an implementer should look first when that kind of line differs. */
static const char *rules_for(const char *line)
{
    if (!line)
        return NULL;
    if (strncmp(line, "deliver ", 8) == 0)
        return "S-PRE-2 (entry selection), S-PRE-3..S-PRE-10 (preemption), "
               "S-PRE-11/12 (blockers), S-PRE-14 (transport round robin), "
               "S-PRE-15 (peer round robin), S-PRE-1/S-EV-4 (entries), "
               "S-MEM-* (batches)";
    if (strcmp(line, "idle") == 0)
        return "S-EV-8 (select), S-PRE-11 (blockers), S-PRE-14 (process "
               "limit), S-CON-1/S-CON-9 (windows, dead destinations)";
    if (strncmp(line, "window ", 7) == 0)
        return "S-CON-2..S-CON-7 (feedback, safety, hysteresis, clamp), "
               "S-CON-12 (outcomes), S-PFX-2/3/5/6 (postfix profile); the "
               "safety/success/cohort/failure lines above are the "
               "pseudocode's numbers (spec/trace.md)";
    if (strncmp(line, "dead ", 5) == 0)
        return "S-CON-6, S-CON-8 (pseudo-cohort failures), S-PFX-1; the "
               "cohort line above counts them against the limit";
    if (strncmp(line, "revive ", 7) == 0)
        return "S-CON-10 (backoff), S-CON-11, S-PFX-4, S-PFX-8; the backoff "
               "line above gives the revival time";
    if (strncmp(line, "defer ", 6) == 0)
        return "S-CON-9 (dead destinations)";
    return NULL;
}

/* Prints a multi-line text (the state description) with an indent. */
static void print_indented(const char *text, const char *indent)
{
    const char *p = text, *nl;
    while (*p) {
        nl = strchr(p, '\n');
        if (!nl) {
            printf("%s%s\n", indent, p);
            break;
        }
        printf("%s%.*s\n", indent, (int)(nl - p), p);
        p = nl + 1;
    }
}

/* mine.v[k] is the first default line that differs (k == mine.n: qsched
 * has nothing more); `index` is its number among default lines.
 * The report, in order: where (trace line, stream line and its text),
 * expected and got, the last agreeing lines for context, qsched's
 * explain-level lines at that event, qsched's state just before it
 * (replayed up to that line), and the rules to re-read. */
static void report(const char *events, const char *trace_name,
                   const collect *mine, size_t k, size_t index,
                   const char *got, long got_no, long bad_line,
                   const char *bad_why)
{
    long ev;
    char *evtext;
    size_t j, shown, first;
    const char *exp_text = k < mine->n ? mine->v[k].text : NULL;
    const char *rules;

    if (k < mine->n)
        ev = mine->v[k].event_line;
    else if (bad_line > 0)
        ev = bad_line;
    else
        ev = 0;
    evtext = ev > 0 ? read_event_line(events, ev) : NULL;
    printf("DIVERGENCE at trace line %zu (%s line %ld)\n", index + 1,
           trace_name, got_no);
    if (ev > 0)
        printf("  event:    %s:%ld: %s\n", events, ev,
               evtext ? evtext : "?");
    else
        printf("  event:    %s: (end of stream)\n", events);
    printf("  expected: %s\n", exp_text ? exp_text : "(end of trace)");
    printf("  got:      %s\n", got ? got : "(end of trace)");
    if (!exp_text && bad_line > 0)
        printf("  note:     the stream stops with an input error (%s): a "
               "conforming implementation prints nothing more and exits "
               "with status 2 (S-EV-10)\n", bad_why);

    /* the last lines both agreed on */
    for (j = k, shown = 0; j > 0 && shown < VERIFY_CONTEXT; j--)
        if (mine->v[j - 1].is_default)
            shown++;
    first = j;
    if (shown) {
        printf("  agreed just before:\n");
        for (j = first; j < k; j++)
            if (mine->v[j].is_default)
                printf("    %s:%ld: %s\n", events, mine->v[j].event_line,
                       mine->v[j].text);
    } else {
        printf("  agreed just before: (nothing: the first line differs)\n");
    }

    /* why qsched did what it did at that event */
    if (ev > 0) {
        int any = 0;
        for (j = 0; j < mine->n; j++) {
            if (mine->v[j].event_line != ev)
                continue;
            if (!any)
                printf("  qsched at that event (explain level; > marks "
                       "the expected line):\n");
            any = 1;
            printf("    %s %s\n", j == k ? ">" : " ", mine->v[j].text);
        }
    }

    /* the state the event found */
    if (ev > 0) {
        collect before = {0};
        qs_stream *st = NULL;
        before.declared = mine->declared;
        before.ndeclared = mine->ndeclared;
        long bl;
        char why[512];
        if (run_collect(events, &before, ev, &st, &bl, why, sizeof why) == 0
            && st && qs_stream_sched(st)) {
            qs_sched *s = qs_stream_sched(st);
            size_t need = qs_describe(s, NULL, 0) + 1;
            char *desc = malloc(need);
            if (!desc)
                oom();
            qs_describe(s, desc, need);
            printf("  qsched state before that event (* = current job; "
                   "counter = delivery slots accumulated):\n");
            print_indented(desc, "    ");
            free(desc);
        } else if (st) {
            printf("  qsched state before that event: no scheduler yet "
                   "(parameters only)\n");
        }
        if (st)
            qs_stream_free(st);
        collect_free(&before);
    }
    rules = rules_for(exp_text ? exp_text : got);
    if (rules)
        printf("  rules to re-read: %s\n", rules);
    free(evtext);
}

/* The whole of a trace file (or stdin), for --readings, which needs it
 * twice: for the report and for the search.  NULL if it cannot be read. */
static char *slurp(FILE *f, size_t *len)
{
    char *b = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (cap - n < 65536) {
            char *nb = realloc(b, cap ? 2 * cap : 65536);
            if (!nb)
                oom();
            b = nb;
            cap = cap ? 2 * cap : 65536;
        }
        got = fread(b + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    if (ferror(f)) {
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

/* The default-level lines of a trace text, in order (--readings). */
static char **trace_lines(const char *text, size_t len, size_t *count)
{
    char **v = NULL;
    size_t n = 0, cap = 0, i = 0;
    while (i < len) {
        size_t j = i, e;
        while (j < len && text[j] != '\n')
            j++;
        e = j;
        while (e > i && (text[e - 1] == '\r' || text[e - 1] == ' ' ||
                         text[e - 1] == '\t'))
            e--;
        {
            char *l = malloc(e - i + 1);
            if (!l)
                oom();
            memcpy(l, text + i, e - i);
            l[e - i] = 0;
            if (trace_line_counts(l)) {
                if (n == cap) {
                    char **nv = realloc(v, (cap ? 2 * cap : 64) * sizeof *nv);
                    if (!nv)
                        oom();
                    v = nv;
                    cap = cap ? 2 * cap : 64;
                }
                v[n++] = l;
            } else {
                free(l);
            }
        }
        i = j + 1;
    }
    *count = n;
    return v;
}

/* `qsched verify [--readings] EVENTS TRACE`: replay EVENTS, then walk
 * TRACE and qsched's default-level lines side by side (trailing blanks and
 * CR ignored) until one differs or both end.  With --readings, a
 * divergence is followed by the named readings (spec/readings.md) under
 * which qsched prints TRACE, if some single reading, pair or triple does
 * (reading_search.c).  Exit 0 equal, 1 divergence (reported on stdout), 2
 * bad input. */
int qs_verify_main(int argc, char **argv)
{
    collect mine = {0};
    FILE *tf;
    char *line = NULL, why[512], *text = NULL;
    size_t cap = 0, k = 0, index = 0, text_len = 0;
    ssize_t n;
    long got_no = 0, bad_line = 0;
    const char *trace_name;
    int result = 0, readings = 0;
    char *declared[64];
    size_t ndeclared = 0;

    if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
                      strcmp(argv[1], "-h") == 0)) {
        puts("usage: qsched verify [--readings] [--reading NAME=VALUE]... "
             "EVENTS TRACE\n"
             "Compares TRACE (another implementation's output for EVENTS; "
             "- for stdin)\nwith qsched's default-level trace.  Exit 0 "
             "equal, 1 different (first\ndivergence reported on stdout), "
             "2 bad input.\n--readings: after a divergence, also name the "
             "readings of the document\n(spec/readings.md, qsched -d) "
             "under which qsched prints TRACE: single\nreadings, pairs, "
             "triples.\n--reading NAME=VALUE: the readings TRACE follows "
             "(declared by its\nimplementation): qsched runs with them.");
        return 0;
    }
    while (argc > 1 && (strcmp(argv[1], "--readings") == 0 ||
                        strcmp(argv[1], "--reading") == 0)) {
        if (strcmp(argv[1], "--readings") == 0) {
            readings = 1;
            argc--;
            argv++;
            continue;
        }
        if (argc < 3 || ndeclared == sizeof declared / sizeof declared[0])
            break;
        declared[ndeclared++] = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc != 3) {
        fputs("usage: qsched verify [--readings] [--reading NAME=VALUE]... "
              "EVENTS TRACE\n", stderr);
        return 2;
    }
    mine.declared = declared;
    mine.ndeclared = ndeclared;
    why[0] = 0;
    if (run_collect(argv[1], &mine, 0, NULL, &bad_line, why, sizeof why)) {
        if (why[0])
            fprintf(stderr, "qsched verify: %s\n", why);
        return 2;
    }
    if (strcmp(argv[2], "-") == 0) {
        tf = stdin;
        trace_name = "stdin";
    } else {
        tf = fopen(argv[2], "r");
        trace_name = argv[2];
    }
    if (!tf) {
        fprintf(stderr, "qsched verify: cannot open %s\n", argv[2]);
        collect_free(&mine);
        return 2;
    }
    if (readings) {
        /* read it all: the search needs it after the report */
        text = slurp(tf, &text_len);
        if (tf != stdin)
            fclose(tf);
        if (!text) {
            fprintf(stderr, "qsched verify: cannot read %s\n", argv[2]);
            collect_free(&mine);
            return 2;
        }
        tf = text_len ? fmemopen(text, text_len, "r") : fopen("/dev/null",
                                                              "r");
        if (!tf)
            oom();
    }
    for (;;) {
        const char *got = NULL;
        n = getline(&line, &cap, tf);
        if (n >= 0) {
            got_no++;
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
                             line[n - 1] == ' ' || line[n - 1] == '\t'))
                line[--n] = 0;
            if (!trace_line_counts(line))
                continue;
            got = line;
        } else if (ferror(tf)) {
            /* the same for the other trace: unread is not empty */
            fprintf(stderr, "qsched verify: cannot read %s\n", argv[2]);
            result = 2;
            break;
        } else {
            got_no++; /* "the line after the last one" */
        }
        while (k < mine.n && !mine.v[k].is_default)
            k++;
        if (!got && k == mine.n)
            break; /* both ended together: equal */
        if (got && k < mine.n && strcmp(got, mine.v[k].text) == 0) {
            k++;
            index++;
            continue;
        }
        report(argv[1], trace_name, &mine, k, index, got, got_no, bad_line,
               why);
        result = 1;
        break;
    }
    if (result == 0) {
        printf("traces agree: %zu lines\n", index);
        if (bad_line > 0)
            printf("note: the stream stops with an input error (%s): the "
                   "implementation must also exit with status 2\n", why);
    }
    free(line);
    if (tf != stdin)
        fclose(tf);
    collect_free(&mine);
    if (result == 1 && readings) {
        size_t nl = 0, i;
        char **lines = trace_lines(text, text_len, &nl);
        fflush(stdout);
        if (qs_reading_search(argv[1], declared, ndeclared, lines, nl,
                              stdout, "  ") < 0)
            result = 2;
        for (i = 0; i < nl; i++)
            free(lines[i]);
        free(lines);
    }
    free(text);
    return result;
}
