/*
 * words.h - short byte strings copied a machine word at a time.
 *
 * Owns: the copy of a name whose length is known, and the load of its
 * first bytes as one word, used where names are copied or compared once
 * per event (the message's copies at arrival, messages.c;
 * the trace's lines, trace.c).  Why it exists: names are mostly 4 to 32
 * bytes (message ids, transports, next-hops, addresses), and a call of
 * the C library's memcpy dispatches on the length at about the cost of
 * the copy itself (issue 16).  Here such a name is copied as two
 * overlapping halves of whole words - its first and its last 4, 8 or 16
 * bytes - which read only the name's n bytes and write only the n bytes
 * at the destination: no padding is needed on either side.  Longer and
 * shorter names go to memcpy.  No I/O, no state.
 */
#ifndef QSCHED_WORDS_H
#define QSCHED_WORDS_H

#include <stdint.h>
#include <string.h>

/* 8 (4) bytes from s to d, as one load and one store */
static inline void copy_word8(char *d, const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    memcpy(d, &w, 8);
}

static inline void copy_word4(char *d, const char *s)
{
    uint32_t w;
    memcpy(&w, s, 4);
    memcpy(d, &w, 4);
}

/* The n bytes at name to p; returns p + n.  Every load happens before
 * the stores of the same half, and the halves overlap only within the n
 * bytes, so the copy is memcpy's for regions that do not overlap. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline char *copy_short(char *p, const char *name, size_t n)
{
    if (n >= 8 && n <= 32) {
        if (n > 16) {
            copy_word8(p, name);
            copy_word8(p + 8, name + 8);
            copy_word8(p + n - 16, name + n - 16);
        } else {
            copy_word8(p, name);
        }
        copy_word8(p + n - 8, name + n - 8);
    } else if (n >= 4 && n < 8) {
        copy_word4(p, name);
        copy_word4(p + n - 4, name + n - 4);
    } else {
        memcpy(p, name, n);
    }
    return p + n;
}

/* The first n bytes at s (n <= 8; 8 bytes readable there) as a word whose
 * other bytes are 0: two such words are equal exactly when the n bytes
 * are (map.c's queue names, sched.c's transport names). */
static inline uint64_t word_first_bytes(const char *s, size_t n)
{
    /* bytes 8 - n .. 15: the mask of a word's first n bytes, in memory
     * order whatever the machine's byte order */
    static const unsigned char first_mask[16] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0,    0,    0,    0,    0,    0,    0,    0};
    uint64_t w, mask;
    memcpy(&w, s, 8);
    memcpy(&mask, first_mask + 8 - n, 8);
    return w & mask;
}

#endif
