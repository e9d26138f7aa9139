/*
 * test_map_get_len.c - look-up of a string key of known length in the
 * core's hash map (src/map.c qs_map_get_hashed_len; issue 16: the
 * destination queues are found without a strcmp call).
 *
 * Owns: the promise of map.h - a stored key is found exactly when it is
 * the len bytes asked for, and nothing else is: not a key that the asked
 * bytes are a prefix of, not one that is a prefix of them, not one that
 * differs in any single byte.  Checked against a reference answer made
 * here with strlen and memcmp, and against qs_map_get_hashed (the strcmp
 * look-up), for keys of every length from 0 to 40 (both sides of the
 * 8-byte steps), built as chains of prefixes and one-byte variants, all
 * under one hash (the worst case: every look-up compares every key) and
 * under qs_map_hash_len's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "map.h"
#include "check.h"

#define NKEYS 123
#define KEYMAX 48

/* each key with 8 readable bytes after its NUL (qs_map_hash_len) */
static char keys[NKEYS][KEYMAX + 9];
static int values[NKEYS];

/* the reference: the key stored as exactly these len bytes, or -1 */
static int ref_find(int nk, const char *s, size_t len)
{
    int i;
    for (i = 0; i < nk; i++)
        if (strlen(keys[i]) == len && memcmp(keys[i], s, len) == 0)
            return i;
    return -1;
}

int main(void)
{
    qs_map one, own;
    int i, nk = 0, wrong_one = 0, wrong_own = 0, wrong_strcmp = 0,
           asked = 0, found = 0;
    size_t len;
    char probe[KEYMAX + 9];
    /* a chain of prefixes of "abcdefgh..." of every length 0..40, and for
     * every third length a variant differing in its last byte */
    for (len = 0; len <= 40 && nk < NKEYS - 1; len++) {
        for (i = 0; i < (int)len; i++)
            keys[nk][i] = (char)('a' + i % 26);
        nk++;
        if (len > 0 && len % 3 == 0) {
            memcpy(keys[nk], keys[nk - 1], len);
            keys[nk][len - 1] = 'Z';
            nk++;
        }
    }
    /* what follows a stored key's NUL must not count either */
    for (i = 0; i < nk; i++) {
        size_t l = strlen(keys[i]);
        memset(keys[i] + l + 1, '%', sizeof keys[i] - l - 1);
    }
    qs_map_init(&one);
    qs_map_init(&own);
    for (i = 0; i < nk; i++) {
        size_t l = strlen(keys[i]);
        qs_map_put_hashed(&one, 7, keys[i], 0, &values[i]);
        qs_map_put_hashed(&own, qs_map_hash_len(keys[i], l), keys[i], 0,
                          &values[i]);
    }
    /* every stored key, and for each a byte changed at every position, one
     * byte more and one byte fewer: found exactly when the reference
     * finds it */
    for (i = 0; i < nk; i++) {
        size_t l = strlen(keys[i]), pos;
        int variant;
        for (variant = -2; variant < (int)l; variant++) {
            int want;
            void *a, *b, *c;
            /* bytes past len that must not count: not NUL */
            memset(probe, '#', sizeof probe);
            memcpy(probe, keys[i], l);
            len = l;
            if (variant == -2) {
                probe[len++] = 'q'; /* one byte more */
            } else if (variant == -1) {
                if (l == 0)
                    continue;
                len = l - 1; /* one fewer (the rest stays readable) */
            } else {
                pos = (size_t)variant;
                probe[pos] = probe[pos] == 'X' ? 'Y' : 'X';
            }
            want = ref_find(nk, probe, len);
            a = qs_map_get_hashed_len(&one, 7, probe, len);
            b = qs_map_get_hashed_len(&own, qs_map_hash_len(probe, len),
                                      probe, len);
            asked++;
            found += want >= 0;
            wrong_one += a != (want < 0 ? NULL : &values[want]);
            wrong_own += b != (want < 0 ? NULL : &values[want]);
            /* the strcmp look-up agrees when the probe ends at len */
            probe[len] = 0;
            c = qs_map_get_hashed(&own, qs_map_hash_len(probe, len), probe, 0);
            wrong_strcmp += c != b;
        }
        /* the key itself */
        asked++;
        found++;
        wrong_one += qs_map_get_hashed_len(&one, 7, keys[i], l) != &values[i];
        wrong_own += qs_map_get_hashed_len(&own, qs_map_hash_len(keys[i], l),
                                           keys[i], l) != &values[i];
    }
    printf("# %d keys, %d look-ups, %d of them of a stored key\n", nk, asked,
           found);
    CHECK("map-get-len/asked", nk > 50 && asked > 1000 && found > nk + 40);
    CHECK_EQ_LL("map-get-len/one-hash", wrong_one, 0);
    CHECK_EQ_LL("map-get-len/own-hash", wrong_own, 0);
    CHECK_EQ_LL("map-get-len/as-strcmp", wrong_strcmp, 0);
    CHECK_EQ_LL("map-get-len/empty-map",
                (long long)(qs_map_get_hashed_len(&(qs_map){0}, 7, "a", 1) !=
                            NULL), 0);
    qs_map_destroy(&one);
    qs_map_destroy(&own);
    return check_failures ? 1 : 0;
}
