/*
 * check.h - the tiny assertion kit of the C unit tests.
 *
 * Owns: CHECK/CHECK_EQ macros and the per-binary summary.  Each test
 * binary prints one "ok NAME" or "FAIL NAME: detail" line per check and
 * exits non-zero if any failed; tests/run.sh counts the lines.
 */
#ifndef QSCHED_TEST_CHECK_H
#define QSCHED_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(name, cond)                                                     \
    do {                                                                      \
        check_count++;                                                        \
        if (cond)                                                             \
            printf("ok %s\n", name);                                          \
        else {                                                                \
            printf("FAIL %s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__); \
            check_failures++;                                                 \
        }                                                                     \
    } while (0)

#define CHECK_EQ_LL(name, got, want)                                          \
    do {                                                                      \
        long long g_ = (long long)(got), w_ = (long long)(want);              \
        check_count++;                                                        \
        if (g_ == w_)                                                         \
            printf("ok %s\n", name);                                          \
        else {                                                                \
            printf("FAIL %s: got %lld, want %lld (%s:%d)\n", name, g_, w_,    \
                   __FILE__, __LINE__);                                       \
            check_failures++;                                                 \
        }                                                                     \
    } while (0)

#define CHECK_EQ_STR(name, got, want)                                         \
    do {                                                                      \
        const char *g_ = (got), *w_ = (want);                                 \
        check_count++;                                                        \
        if (g_ && w_ && strcmp(g_, w_) == 0)                                  \
            printf("ok %s\n", name);                                          \
        else {                                                                \
            printf("FAIL %s: got \"%s\", want \"%s\" (%s:%d)\n", name,        \
                   g_ ? g_ : "(null)", w_ ? w_ : "(null)", __FILE__,          \
                   __LINE__);                                                 \
            check_failures++;                                                 \
        }                                                                     \
    } while (0)

#define CHECK_DONE() (check_failures ? 1 : 0)

#endif
