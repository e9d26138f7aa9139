/*
 * cli.c - the qsched command line: `qsched [OPTIONS] [FILE]`, `-d`,
 * `--help`, `--version`, and dispatch to `verify` and `gen`.
 *
 * Owns: options, exit codes (0 ok, 1 verify divergence, 2 input error,
 * 3 broken invariant), and wiring the parser, the core and the printers
 * together.  The core itself never sees a FILE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "events.h"
#include "readings.h"
#include "trace.h"

#ifndef QSCHED_VERSION
#define QSCHED_VERSION "dev"
#endif

static void usage(FILE *f)
{
    fputs("usage: qsched [OPTIONS] [FILE]     replay an event stream (FILE "
          "or - for stdin)\n"
          "       qsched verify [--readings] EVENTS TRACE\n"
          "                                    compare another "
          "implementation's trace\n"
          "       qsched gen --seed N [--profile P] [--size S]\n"
          "                                    write a random valid event "
          "stream\n"
          "       qsched -d                    print every parameter with "
          "its default,\n"
          "                                    and the named readings "
          "(spec/readings.md)\n"
          "options:\n"
          "  --explain            also print why (candidates, preemption "
          "tests, blockers,\n"
          "                       pools, reads, message activation)\n"
          "  --format text|jsonl  trace format (default text)\n"
          "  --stats              print counters at the end\n"
          "  --check-invariants   check the whole state after every event "
          "(exit 3 if broken)\n"
          "  --profile P          document (default) or postfix, as if the "
          "stream began\n"
          "                       with `profile P`\n"
          "  --help, --version\n"
          "exit: 0 ok, 1 verify found a divergence, 2 input error "
          "(FILE:LINE: reason),\n"
          "      3 broken invariant.  See qsched(1) and spec/.\n",
          f);
}

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

int qs_cli_main(int argc, char **argv)
{
    qs_printer pr = {stdout, stderr, 0, 0};
    int stats = 0, check = 0, i, rc;
    const char *file = NULL, *profile = NULL;
    FILE *in = stdin;
    qs_stream *st = NULL;
    static char outbuf[1 << 16];

    if (argc > 1 && strcmp(argv[1], "verify") == 0)
        return qs_verify_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "gen") == 0)
        return qs_gen_main(argc - 1, argv + 1);
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
            pr.explain = 1;
        } else if (strcmp(a, "--stats") == 0) {
            stats = 1;
        } else if (strcmp(a, "--check-invariants") == 0) {
            check = 1;
        } else if (strcmp(a, "--format") == 0 && i + 1 < argc) {
            const char *f = argv[++i];
            if (strcmp(f, "jsonl") == 0)
                pr.jsonl = 1;
            else if (strcmp(f, "text") != 0) {
                fprintf(stderr, "qsched: unknown format \"%s\" (want text "
                        "or jsonl)\n", f);
                return 2;
            }
        } else if (strcmp(a, "--profile") == 0 && i + 1 < argc) {
            profile = argv[++i];
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "qsched: unknown option \"%s\"\n", a);
            usage(stderr);
            return 2;
        } else if (file) {
            fprintf(stderr, "qsched: more than one input file\n");
            return 2;
        } else {
            file = a;
        }
    }
    if (file && strcmp(file, "-") != 0) {
        in = fopen(file, "r");
        if (!in) {
            fprintf(stderr, "qsched: cannot open %s\n", file);
            return 2;
        }
    }
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    rc = qs_stream_run_file(in, file ? file : "-", qs_trace_print, &pr,
                            profile, check, &st, stderr);
    if (in != stdin)
        fclose(in);
    if (rc == 0 && stats)
        qs_print_stats(&pr, qs_stream_sched(st));
    qs_stream_free(st);
    fflush(stdout);
    return rc;
}
