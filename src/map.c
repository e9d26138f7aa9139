/*
 * map.c - chained hash map with FNV-1a hashing (see map.h).
 *
 * Grows by doubling when the load passes 1, so look-ups stay O(1)
 * amortised whatever the number of destinations or deliveries in flight.
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
    /* FNV's low bits only see the low bits of each byte, and the buckets
     * are picked by low bits: finish with a full avalanche (splitmix64),
     * which alone is a good hash for the numeric keys. */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

static int key_eq(const qs_map_node *n, const char *str, uint64_t num)
{
    if (n->num != num)
        return 0;
    if (!n->str || !str)
        return n->str == str;
    return strcmp(n->str, str) == 0;
}

void qs_map_init(qs_map *m)
{
    m->bucket = NULL;
    m->nbucket = m->count = 0;
}

void qs_map_destroy(qs_map *m)
{
    size_t i;
    for (i = 0; i < m->nbucket; i++) {
        qs_map_node *n = m->bucket[i], *next;
        for (; n; n = next) {
            next = n->next;
            free(n);
        }
    }
    free(m->bucket);
    qs_map_init(m);
}

void *qs_map_get(const qs_map *m, const char *str, uint64_t num)
{
    qs_map_node *n;
    uint64_t h;
    if (!m->nbucket)
        return NULL;
    h = key_hash(str, num);
    for (n = m->bucket[h & (m->nbucket - 1)]; n; n = n->next)
        if (n->hash == h && key_eq(n, str, num))
            return n->value;
    return NULL;
}

static int grow(qs_map *m)
{
    size_t nb = m->nbucket ? 2 * m->nbucket : 16, i;
    qs_map_node **b = calloc(nb, sizeof *b);
    if (!b)
        return -1;
    for (i = 0; i < m->nbucket; i++) {
        qs_map_node *n = m->bucket[i], *next;
        for (; n; n = next) {
            next = n->next;
            n->next = b[n->hash & (nb - 1)];
            b[n->hash & (nb - 1)] = n;
        }
    }
    free(m->bucket);
    m->bucket = b;
    m->nbucket = nb;
    return 0;
}

int qs_map_put(qs_map *m, const char *str, uint64_t num, void *value)
{
    qs_map_node *n;
    if (m->count >= m->nbucket && grow(m) < 0)
        return -1;
    n = malloc(sizeof *n);
    if (!n)
        return -1;
    n->str = str;
    n->num = num;
    n->hash = key_hash(str, num);
    n->value = value;
    n->next = m->bucket[n->hash & (m->nbucket - 1)];
    m->bucket[n->hash & (m->nbucket - 1)] = n;
    m->count++;
    return 0;
}

void *qs_map_del(qs_map *m, const char *str, uint64_t num)
{
    qs_map_node **pp, *n;
    uint64_t h;
    void *v;
    if (!m->nbucket)
        return NULL;
    h = key_hash(str, num);
    for (pp = &m->bucket[h & (m->nbucket - 1)]; (n = *pp); pp = &n->next) {
        if (n->hash == h && key_eq(n, str, num)) {
            *pp = n->next;
            v = n->value;
            free(n);
            m->count--;
            return v;
        }
    }
    return NULL;
}
