/*
 * map.c - hash map with FNV-1a hashing and linear probing (see map.h).
 *
 * Open addressing: the entries live in one array (no allocation per
 * entry; a delivery's start and end are a put and a delete on the
 * in-flight map).  The table doubles when it would be half full, so a
 * probe sequence stays short whatever the number of destinations or
 * deliveries in flight; deletion shifts the following entries of the
 * probe sequence back (no tombstones), so look-ups stay short after any
 * number of deletions too.
 */
#include <stdlib.h>
#include <string.h>
#include "map.h"

static uint64_t key_hash(const char *str, uint64_t num)
{
    uint64_t h = num;
    if (str) {
        h ^= 1469598103934665603ULL;
        for (; *str; str++) {
            h ^= (unsigned char)*str;
            h *= 1099511628211ULL;
        }
    }
    /* FNV's low bits only see the low bits of each byte, and the slots
     * are picked by low bits: finish with a full avalanche (splitmix64),
     * which alone is a good hash for the numeric keys. */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

static int key_eq(const qs_map_slot *n, uint64_t h, const char *str,
                  uint64_t num)
{
    if (n->hash != h || n->num != num)
        return 0;
    if (!n->str || !str)
        return n->str == str;
    return strcmp(n->str, str) == 0;
}

void qs_map_init(qs_map *m)
{
    m->slot = NULL;
    m->cap = m->count = 0;
}

void qs_map_destroy(qs_map *m)
{
    free(m->slot);
    qs_map_init(m);
}

/* The slot holding the key, or the empty slot where it would go. */
static size_t find(const qs_map *m, uint64_t h, const char *str,
                   uint64_t num)
{
    size_t mask = m->cap - 1, i = (size_t)h & mask;
    while (m->slot[i].value && !key_eq(&m->slot[i], h, str, num))
        i = (i + 1) & mask;
    return i;
}

void *qs_map_get(const qs_map *m, const char *str, uint64_t num)
{
    if (!m->count)
        return NULL;
    return m->slot[find(m, key_hash(str, num), str, num)].value;
}

static int grow(qs_map *m)
{
    size_t nc = m->cap ? 2 * m->cap : 8, i;
    qs_map_slot *old = m->slot, *ns = calloc(nc, sizeof *ns);
    size_t oc = m->cap;
    if (!ns)
        return -1;
    m->slot = ns;
    m->cap = nc;
    for (i = 0; i < oc; i++) {
        if (old[i].value) {
            size_t j = (size_t)old[i].hash & (nc - 1);
            while (ns[j].value)
                j = (j + 1) & (nc - 1);
            ns[j] = old[i];
        }
    }
    free(old);
    return 0;
}

int qs_map_put(qs_map *m, const char *str, uint64_t num, void *value)
{
    uint64_t h = key_hash(str, num);
    size_t i;
    if (2 * (m->count + 1) > m->cap && grow(m) < 0)
        return -1;
    i = find(m, h, str, num);
    m->slot[i].hash = h;
    m->slot[i].str = str;
    m->slot[i].num = num;
    m->slot[i].value = value;
    m->count++;
    return 0;
}

void *qs_map_del(qs_map *m, const char *str, uint64_t num)
{
    size_t mask, i, j;
    void *v;
    if (!m->count)
        return NULL;
    mask = m->cap - 1;
    i = find(m, key_hash(str, num), str, num);
    v = m->slot[i].value;
    if (!v)
        return NULL;
    /* backward shift: move up every later entry of the run that may not
     * stay behind the hole (its home slot is not in (i, j]) */
    for (j = (i + 1) & mask; m->slot[j].value; j = (j + 1) & mask) {
        size_t home = (size_t)m->slot[j].hash & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slot[i] = m->slot[j];
            i = j;
        }
    }
    m->slot[i].value = NULL;
    m->count--;
    return v;
}
