/*
 * draw.h - the fixed pseudo-random generator of the C unit tests that
 * draw their inputs (test_arrive_fast.c, test_done_fast.c).
 *
 * Owns: splitmix64 over a seed the test holds, so that the drawn inputs
 * are the same on every run and machine (no rand(), whose sequence is
 * the C library's).  Included by exactly one .c file per binary.
 */
#ifndef QSCHED_TEST_DRAW_H
#define QSCHED_TEST_DRAW_H

/* The next number of the sequence that *seed holds (advanced). */
static unsigned long long draw_next(unsigned long long *seed)
{
    unsigned long long z = (*seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
