/*
 * gen.h - the stream generator behind `qsched gen` as a library call.
 *
 * Owns: qs_gen_write, so that harnesses linked with libqsched.a (e.g.
 * fuzz/diff-harness.c) can generate the same random valid streams in
 * memory as `qsched gen --seed N ...` prints.
 */
#ifndef QSCHED_GEN_H
#define QSCHED_GEN_H

#include <stdint.h>
#include <stdio.h>

typedef struct qs_gen_options {
    uint64_t seed;
    int profile;          /* QS_PROFILE_DOCUMENT, QS_PROFILE_POSTFIX, or -1:
                             chosen by the seed */
    const char *mix;      /* a mix name (qsched gen --help), or NULL: chosen
                             by the seed */
    uint64_t events;      /* number of events (small 80, medium 400, large
                             2000) */
    int check;            /* run the invariant checker after every event */
    const char *const *readings; /* "NAME=VALUE" named readings
                             (spec/readings.md) written into the stream and
                             in force while generating it; may be NULL */
    size_t nreadings;
} qs_gen_options;

/* Writes one stream to out.  Returns 0; 2 for an unknown mix (message in
 * err); 3 if the generator found an inconsistency (message on stderr). */
int qs_gen_write(FILE *out, const qs_gen_options *opt, char *err,
                 size_t errlen);

/* qsched gen --seed N [--profile P] [--size S] [--mix M] [--check]
 * [--reading NAME=VALUE]...: the
 * command line around qs_gen_write (exit status as qs_gen_write's). */
int qs_gen_main(int argc, char **argv);

#endif
