/*
 * cli.c - the qsched command line: `qsched [OPTIONS] [FILE]` (replay a
 * stream), `-d`, `--help`, `--version`, and the dispatch to the
 * sub-commands (`verify`, `gen`, `conformance`, ...).
 *
 * Owns: options, the exit codes, and wiring the parser (events.c), the core
 * and the printers (trace.c) together: the core itself never sees a FILE.
 * Exit codes (qsched(1), spec/events.md S-EV-10):
 *   0  ok
 *   1  `verify` found a divergence, `conformance` a failing vector
 *   2  input error ("FILE:LINE: reason"), bad command line, unreadable
 *      file (with the system's reason)
 *   3  --check-invariants: an invariant broke
 *   4  output error: standard output (or a report file) cannot be written,
 *      e.g. a full disk; the trace is incomplete, so this is never 0
 *
 * Why these rules live here: whoever reads qsched's output must be able to
 * trust an exit status of 0 to mean "the whole trace, nothing else", so
 * every write is checked, and every diagnostic is written only after the
 * trace lines that came before it (stdout is flushed first), so that
 * `qsched f 2>&1` shows them in the order they happened.
 *
 * To add a sub-command: one line in `subcommands` below (name, entry point,
 * usage line).  To add a trace format: one line in `formats`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "conformance.h"
#include "events.h"
#include "readings.h"
#include "trace.h"
#include "html.h"

#ifndef QSCHED_VERSION
#define QSCHED_VERSION "dev"
#endif

/* The sub-commands: `qsched NAME ARGS...` runs main(argc - 1, argv + 1),
 * so each sees its own name as argv[0]. */
static const struct subcommand {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *usage; /* for --help, after "qsched " */
} subcommands[] = {
    {"verify", qs_verify_main,
     "verify [--readings] [--reading NAME=VALUE]... EVENTS TRACE\n"
     "                                    compare another implementation's "
     "trace"},
    {"gen", qs_gen_main,
     "gen --seed N [--profile P] [--size S] [--mix MIX]\n"
     "                                    write a random valid event stream"},
    {"sim", qs_sim_main,
     "sim [OPTIONS] SCENARIO  simulate servers and traffic (qsched sim --help)"},
    {"conformance", qs_conformance_main,
     "conformance --impl CMD [--profile P] [--junit FILE] [--tap]\n"
     "            [--readings \"NAME=VALUE ...\"]\n"
     "                                    run the conformance suite against "
     "CMD"},
};

/* The trace formats of --format; html >= 0: the timeline viewer
 * (src/html.c), 1 the page, 0 its data alone. */
static const struct format {
    const char *name;
    int jsonl;
    int html;
} formats[] = {
    {"text", 0, -1},
    {"jsonl", 1, -1},
    {"html", 0, 1},
    {"view-json", 0, 0},
};

#define COUNT(a) (sizeof (a) / sizeof (a)[0])

/* --help text; the sub-commands' lines come from the table. */
static void usage(FILE *f)
{
    size_t i;
    fputs("usage: qsched [OPTIONS] [FILE]     replay an event stream (FILE "
          "or - for stdin)\n", f);
    for (i = 0; i < COUNT(subcommands); i++)
        fprintf(f, "       qsched %s\n", subcommands[i].usage);
    fputs("       qsched -d                    print every parameter with "
          "its default,\n"
          "                                    and the named readings "
          "(spec/readings.md)\n"
          "options:\n"
          "  --explain            also print why (candidates, preemption "
          "tests, blockers,\n"
          "                       pools, reads, message activation)\n"
          "  --format text|jsonl  trace format (default text)\n"
          "  --format html        one self-contained HTML page: the run as a "
          "timeline\n"
          "  --format view-json   the timeline's data alone (JSON)\n"
          "  --stats              print counters at the end\n"
          "  --check-invariants   check what every event changed, and the "
          "whole state at\n"
          "                       the end (exit 3 if broken); =N: the whole "
          "state every N\n"
          "                       events too; =full: the whole state after "
          "every event\n"
          "  --profile P          document (default) or postfix, as if the "
          "stream began\n"
          "                       with `profile P`\n"
          "  --help, --version\n"
          "exit: 0 ok, 1 verify/conformance found a difference, 2 input "
          "error\n"
          "      (FILE:LINE: reason), 3 broken invariant, 4 output error "
          "(stdout not\n"
          "      writable).  See qsched(1) and spec/.\n",
          f);
}

/* Writes one diagnostic line: the trace written so far goes out first, so
 * that with 2>&1 the message follows the lines that preceded it.  msg must
 * already be escaped if it holds input text (events.c does that; the CLI's
 * own messages go through qs_escape). */
static void diag(const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "%s\n", msg);
}

/* "qsched: <what> \"<arg, escaped>\"<tail>" for command-line errors. */
static int bad_arg(const char *what, const char *arg, const char *tail)
{
    char esc[512], msg[768];
    qs_escape(esc, sizeof esc, arg);
    snprintf(msg, sizeof msg, "qsched: %s \"%s\"%s", what, esc, tail);
    diag(msg);
    return 2;
}

/* `qsched -d`: the parameter table, like `postconf -d`. */
static int print_defaults(void)
{
    size_t i;
    for (i = 0; i < qs_params_count(); i++) {
        int r = qs_reading_find(qs_params_name(i));
        printf("%s = %s\n", qs_params_name(i), qs_params_default(i));
        if (r >= 0) {
            /* a named reading (spec/readings.md): what it decides, its
             * values, and the postfix profile's default if another */
            const qs_reading_def *d = qs_reading((size_t)r);
            size_t v;
            printf("    # %s, %s: %s; values:", d->entry, d->rules,
                   d->question);
            for (v = 0; d->values[v]; v++)
                printf("%s%s", v ? " | " : " ", d->values[v]);
            if (d->def_postfix != d->def_document)
                printf("; postfix profile: %s", d->values[d->def_postfix]);
            printf("\n");
        }
    }
    return 0;
}

/* State of one replay: the printer and the first error seen on stdout. */
typedef struct run_ctx {
    qs_printer pr;
    int check;       /* --check-invariants: the mode of events.h */
    long checks;     /* checks made */
    int out_errno;   /* errno of the first failed write, 0 if none */
    int hook_wanted; /* the reader's after-line hook has work: checks, or
                        a failed write to report (qs_read_opts.wanted) */
    char fname[600]; /* the input's name, escaped, for messages */
    qs_buffered_printer *bp; /* the text trace, gathered (trace.h) */
} run_ctx;

/* A failed write of stdout, noted once: the printer's own write (the
 * gathered lines) or stdio's (ferror is sticky). */
static void note_output_error(run_ctx *c)
{
    if (c->out_errno)
        return;
    if (c->bp->err)
        c->hook_wanted = c->out_errno = c->bp->err;
    else if (ferror(c->pr.out))
        c->hook_wanted = c->out_errno = errno ? errno : EIO;
}

/* The gathered trace to stdout, after what stdio holds (before anything
 * else is written: stats, diagnostics, warnings). */
static void run_flush(run_ctx *c)
{
    qs_printer_flush(c->bp);
    note_output_error(c);
}

/* The core's trace sink for the replay: prints the record and notes a
 * failed write at once (ferror is sticky), so that reading stops at the
 * next line instead of computing a trace nobody receives.  A warning goes
 * to stderr: stdout is flushed first, for the 2>&1 order. */
static void run_sink(void *vp, const qs_trace *r)
{
    run_ctx *c = vp;
    /* deliver and defer, the most of every trace, straight into the
     * buffer when it has the room (no flush: no output error can arise) */
    if (qs_trace_append_common(c->bp, r))
        return;
    /* most records of the explain level are dropped without --explain:
     * drop them here, before any work */
    if (!c->pr.explain && r->kind != QS_T_FBWARN && !QS_TRACE_IS_DEFAULT(r))
        return;
    if (r->kind == QS_T_FBWARN) {
        run_flush(c);
        fflush(c->pr.out);
    }
    /* text lines into the gathering buffer, one write per 64 KB (issue
     * 16: no stdio call per line); warnings and JSON Lines through stdio.
     * stdout is written, and an error can appear, only when the buffer
     * did not grow (a flush, or a line through stdio). */
    {
        size_t before = c->bp->len;
        qs_trace_print_buffered(c->bp, r);
        if (c->bp->len <= before)
            note_output_error(c);
    }
}

/* "qsched: cannot write to standard output: <reason>" into err. */
static int output_error(int e, char *err, size_t errlen)
{
    snprintf(err, errlen, "qsched: cannot write to standard output: %s",
             strerror(e ? e : EIO));
    return 4;
}

/* Called after every accepted line: the invariant checker (exit 3) and
 * the output check (exit 4). */
static int run_after_line_check(run_ctx *c, qs_stream *st, char *err,
                                size_t errlen);

/* After every line (issue 16: about one line in three costs less than
 * 200 instructions, so this hook's common case - no checks, no output
 * error - returns before the checks' frame is set up). */
static int run_after_line(void *vp, qs_stream *st, char *err, size_t errlen)
{
    run_ctx *c = vp;
    if (!c->check && !c->out_errno)
        return 0;
    return run_after_line_check(c, st, err, errlen);
}

static int run_after_line_check(run_ctx *c, qs_stream *st, char *err,
                                size_t errlen)
{
    char why[400], msg[512];
    /* --check-invariants (events.h): what the line changed, and the whole
     * state every c->check lines, or after every line (=full) */
    int broken = 0;
    if (c->check && qs_stream_sched(st)) {
        qs_sched *s = qs_stream_sched(st);
        if (c->check > 0)
            broken = qs_check_changes(s, why, sizeof why) < 0;
        c->checks++;
        if (!broken && (c->check < 0 ||
                        (c->check > 1 && c->checks % c->check == 0)))
            broken = qs_check_invariants(s, why, sizeof why) < 0;
    }
    if (broken) {
        char esc[300];
        qs_escape(esc, sizeof esc, why);
        snprintf(msg, sizeof msg, "invariant broken: %s", esc);
        snprintf(err, errlen, "%s:%ld: %s", c->fname, qs_stream_lineno(st),
                 msg);
        return 3;
    }
    if (c->out_errno)
        return output_error(c->out_errno, err, errlen);
    return 0;
}

/* `qsched [OPTIONS] [FILE]`: replays one stream and prints its trace. */
static int run_main(int argc, char **argv)
{
    static char outbuf[1 << 16];
    /* The trace's 64 KiB gathering buffer lives here, not in c on the
     * stack: a WebAssembly build (the playground) has a 64 KiB stack in
     * all, and a frame that big runs over into the program's data. */
    static qs_buffered_printer trace_buffer;
    run_ctx c;
    qs_read_opts ro;
    int stats = 0, i, rc, html = -1;
    const char *file = NULL, *profile = NULL, *fname;
    FILE *in = stdin;
    qs_stream *st;
    char err[1024];

    memset(&c, 0, sizeof c);
    c.pr.out = stdout;
    c.pr.warn = stderr;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("qsched %s (API %d)\n", QSCHED_VERSION,
                   QSCHED_API_VERSION);
            return 0;
        } else if (strcmp(a, "-d") == 0) {
            return print_defaults();
        } else if (strcmp(a, "--explain") == 0) {
            c.pr.explain = 1;
        } else if (strcmp(a, "--stats") == 0) {
            stats = 1;
        } else if (strcmp(a, "--check-invariants") == 0) {
            c.check = 1;
        } else if (strncmp(a, "--check-invariants=", 19) == 0) {
            /* =full: the whole state after every event; =N: incremental,
             * and the whole state every N events (events.h) */
            char *end;
            long n = strtol(a + 19, &end, 10);
            if (strcmp(a + 19, "full") == 0)
                c.check = -1;
            else if (a[19] >= '1' && a[19] <= '9' && !*end && n > 0 &&
                     n <= 1000000000L)
                c.check = (int)n;
            else
                return bad_arg("bad value", a, " (want full or a number of "
                               "events)");
        } else if (strcmp(a, "--format") == 0 || strcmp(a, "--profile") == 0) {
            if (i + 1 >= argc)
                return bad_arg("option needs a value:", a, "");
            if (strcmp(a, "--profile") == 0) {
                /* checked here, not as "line 0" of the stream */
                profile = argv[++i];
                if (strcmp(profile, "document") != 0 &&
                    strcmp(profile, "postfix") != 0)
                    return bad_arg("--profile: unknown profile", profile,
                                   " (want document or postfix)");
            } else {
                const char *f = argv[++i];
                size_t k;
                for (k = 0; k < COUNT(formats); k++)
                    if (strcmp(f, formats[k].name) == 0)
                        break;
                if (k == COUNT(formats))
                    return bad_arg("unknown format", f,
                                   " (want text, jsonl, html or view-json)");
                c.pr.jsonl = formats[k].jsonl;
                html = formats[k].html;
            }
        } else if (a[0] == '-' && a[1] != 0) {
            bad_arg("unknown option", a, "");
            usage(stderr);
            return 2;
        } else if (file) {
            diag("qsched: more than one input file");
            return 2;
        } else {
            file = a;
        }
    }
    fname = file ? file : "-";
    qs_escape(c.fname, sizeof c.fname, fname);
    c.bp = &trace_buffer;
    c.bp->p = c.pr;
    c.bp->len = 0;
    c.bp->err = 0;
    st = qs_stream_new(fname, run_sink, &c);
    if (!st) {
        diag("qsched: out of memory");
        return 2;
    }
    if (profile)
        qs_stream_set_profile(st, profile, err, sizeof err);
    /* without --explain the sink drops the explain level (run_sink): the
     * scheduler need not build it (issue 16) */
    qs_stream_set_explain(st, c.pr.explain);
    if (file && strcmp(file, "-") != 0) {
        in = fopen(file, "r");
        if (!in) {
            snprintf(err, sizeof err, "%s:1: cannot open: %s", c.fname,
                     strerror(errno));
            diag(err);
            qs_stream_free(st);
            return 2;
        }
    }
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (html >= 0) {
        /* the timeline viewer replays the stream itself (src/html.c) */
        qs_stream_free(st);
        rc = qs_html_run(in, fname, profile, c.check, html, stdout, stderr);
        if (in != stdin)
            fclose(in);
        return rc;
    }
    ro.stop_before = 0;
    ro.after_line = run_after_line;
    ro.ctx = &c;
    c.hook_wanted = c.check != 0 || c.out_errno != 0;
    ro.wanted = &c.hook_wanted;
    rc = qs_stream_read(st, in, &ro, err, sizeof err);
    if (rc == 0)
        rc = qs_stream_finish(st, err, sizeof err);
    /* the end of an incrementally checked stream: the whole state once */
    if (rc == 0 && c.check > 0 && qs_stream_sched(st)) {
        char why[400], esc[300];
        if (qs_check_invariants(qs_stream_sched(st), why, sizeof why) < 0) {
            qs_escape(esc, sizeof esc, why);
            snprintf(err, sizeof err, "%s:%ld: invariant broken: %s",
                     c.fname, qs_stream_lineno(st), esc);
            rc = 3;
        }
    }
    run_flush(&c);
    if (rc)
        diag(err);
    if (in != stdin)
        fclose(in);
    if (rc == 0 && stats)
        qs_print_stats(&c.pr, qs_stream_sched(st));
    qs_stream_free(st);
    if (rc == 0 && c.out_errno) {
        rc = output_error(c.out_errno, err, sizeof err);
        diag(err);
    }
    return rc;
}

/* The last word on standard output, for every command: flush it and turn a
 * write error into exit 4 with the system's reason, unless a more specific
 * error (2, 3, 4) was already reported. */
static int finish_output(int rc)
{
    int e = 0;
    char err[256];
    if (fflush(stdout) != 0)
        e = errno ? errno : EIO;
    else if (ferror(stdout))
        e = EIO;
    if (!e)
        return rc;
    if (rc == 0 || rc == 1) {
        output_error(e, err, sizeof err);
        fprintf(stderr, "%s\n", err);
        return 4;
    }
    return rc;
}

/* Entry point of the executable (main.c): a sub-command by its name, or
 * the replay. */
int qs_cli_main(int argc, char **argv)
{
    size_t i;
    int rc = -1;
    if (argc > 1)
        for (i = 0; i < COUNT(subcommands); i++)
            if (strcmp(argv[1], subcommands[i].name) == 0) {
                rc = subcommands[i].main(argc - 1, argv + 1);
                break;
            }
    if (rc == -1)
        rc = run_main(argc, argv);
    return finish_output(rc);
}
