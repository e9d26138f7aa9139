/*
 * test_map_del_value.c - removal from the core's hash map by value
 * (src/map.c qs_map_del_value; issue 16: a message leaving and a parked
 * queue evicted are removed from their maps without comparing their
 * names).
 *
 * Owns: the promise of map.h - the entry holding the value, stored under
 * a key of the given hash, is removed and nothing else; every other key
 * is still found under its own hash; an absent value removes nothing and
 * answers 0.  Checked against a plain reference (which keys are present)
 * that does not look at the table:
 *   - keys forced into one probe run (all of hash 0, and of a few hashes
 *     whose home slots are neighbours), removed from its start, middle
 *     and end, so that the backward shift that fills the hole moves the
 *     entries after it (and only those that may move);
 *   - a long pseudo-random sequence of puts and removals, checked after
 *     every step;
 *   - a table past 2 MiB (map.c table_alloc's huge-page allocation):
 *     every key found, half removed, the rest found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "map.h"
#include "check.h"

#define NK 600

static int values[NK];     /* &values[i] is key i's value */
static char names[NK][16]; /* key i's string */
static char present[NK];   /* the reference */
static uint64_t hash_of[NK];

/* every key agrees with the reference: present ones found under their
 * hash with their own value, absent ones not found as theirs */
static int agrees(const qs_map *m, int nk)
{
    int i;
    size_t count = 0;
    for (i = 0; i < nk; i++) {
        void *v = qs_map_get_hashed(m, hash_of[i], names[i], 0);
        if (present[i]) {
            count++;
            if (v != &values[i])
                return 0;
        } else if (v == &values[i]) {
            return 0;
        }
    }
    return count == m->count;
}

static unsigned long lcg(unsigned long *x)
{
    *x = *x * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned long)(*x >> 33);
}

int main(void)
{
    qs_map m;
    int i, ok;
    unsigned long seed = 7;

    /* 1. one probe run: 40 keys of hash 0 (distinct strings), removed by
     * value from the middle, the start, the end, then all */
    qs_map_init(&m);
    for (i = 0; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "k%d", i);
        hash_of[i] = 0;
        present[i] = 1;
        qs_map_put_hashed(&m, 0, names[i], 0, &values[i]);
    }
    CHECK("map-del-value/run-built", agrees(&m, 40));
    CHECK_EQ_LL("map-del-value/middle", qs_map_del_value(&m, 0, &values[20]),
                1);
    present[20] = 0;
    CHECK("map-del-value/middle-rest", agrees(&m, 40));
    CHECK_EQ_LL("map-del-value/start", qs_map_del_value(&m, 0, &values[0]), 1);
    present[0] = 0;
    CHECK_EQ_LL("map-del-value/end", qs_map_del_value(&m, 0, &values[39]), 1);
    present[39] = 0;
    CHECK("map-del-value/start-end-rest", agrees(&m, 40));
    /* absent: already removed, or never stored, or under another hash */
    CHECK_EQ_LL("map-del-value/again", qs_map_del_value(&m, 0, &values[20]),
                0);
    CHECK_EQ_LL("map-del-value/never", qs_map_del_value(&m, 0, &values[45]),
                0);
    CHECK_EQ_LL("map-del-value/other-hash",
                qs_map_del_value(&m, 12345, &values[5]), 0);
    CHECK("map-del-value/absent-changed-nothing", agrees(&m, 40));
    ok = 1;
    for (i = 0; i < 40; i++)
        if (present[i]) {
            ok &= qs_map_del_value(&m, 0, &values[i]) == 1;
            present[i] = 0;
        }
    CHECK("map-del-value/all-removed", ok && m.count == 0 && agrees(&m, 40));
    qs_map_destroy(&m);

    /* 2. neighbouring home slots and a long random sequence: hashes from a
     * small range, so that runs of several homes merge and the shift has
     * to leave entries whose home is after the hole in place */
    qs_map_init(&m);
    for (i = 0; i < NK; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        hash_of[i] = (uint64_t)(lcg(&seed) % 97);
        present[i] = 0;
    }
    ok = 1;
    for (i = 0; i < 20000 && ok; i++) {
        int k = (int)(lcg(&seed) % NK);
        if (present[k]) {
            ok &= qs_map_del_value(&m, hash_of[k], &values[k]) == 1;
            present[k] = 0;
        } else {
            ok &= qs_map_put_hashed(&m, hash_of[k], names[k], 0,
                                    &values[k]) == 0;
            present[k] = 1;
        }
        if (i % 97 == 0)
            ok &= agrees(&m, NK);
    }
    CHECK("map-del-value/random-sequence", ok && agrees(&m, NK));
    qs_map_destroy(&m);

    /* 3. a table past 2 MiB (map.c table_alloc: from there a table is
     * allocated at 2 MiB alignment, advised for huge pages): 100,000
     * numeric keys (262,144 slots of 32 bytes: 8 MiB after the last
     * doubling, which re-places every entry), each found, then half
     * removed by value and the rest still found */
    {
        static int big[100000];
        size_t k, found = 0, kept = 0;
        qs_map_init(&m);
        ok = 1;
        for (k = 0; k < 100000; k++)
            ok &= qs_map_put_hashed(&m, qs_map_hash(NULL, k + 1), NULL,
                                    k + 1, &big[k]) == 0;
        CHECK("map-big/built", ok && m.count == 100000 &&
                                   m.cap * sizeof *m.slot >= (size_t)2 << 20);
        for (k = 0; k < 100000; k++)
            found += qs_map_get_hashed(&m, qs_map_hash(NULL, k + 1), NULL,
                                       k + 1) == &big[k];
        CHECK_EQ_LL("map-big/all-found", (long long)found, 100000);
        for (k = 0; k < 100000; k += 2)
            ok &= qs_map_del_value(&m, qs_map_hash(NULL, k + 1), &big[k]) == 1;
        for (k = 0; k < 100000; k++) {
            void *v = qs_map_get_hashed(&m, qs_map_hash(NULL, k + 1), NULL,
                                        k + 1);
            kept += k % 2 ? v == &big[k] : v == NULL;
        }
        CHECK("map-big/half-removed", ok && m.count == 50000 &&
                                          kept == 100000);
        qs_map_destroy(&m);
    }
    printf("# %d checks, %d failed\n", check_count, check_failures);
    return check_failures != 0;
}
