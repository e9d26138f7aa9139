/*
 * map.c - hash map with FNV-1a hashing and linear probing (see map.h).
 *
 * Owns: the core's look-ups by key - message by id, transport by name,
 * queue by name within a transport, peer by queue serial within a job,
 * in-flight entry by handle.  Implements no part of SCHEDULER_README; it
 * exists so that the document's "finds the transport ... finds the
 * destination queue ... finds the job ... finds the peer" cost O(1) each,
 * which keeps a stream of millions of recipients linear in time.
 *
 * The key shapes in use: (message id, 0) in qs_sched.messages,
 * (transport name, 0) in qs_sched.transports, (next-hop or recipient, 0)
 * in qs_transport.queues, (NULL, queue serial) in qs_job.peers, and
 * (NULL, handle) in qs_sched.inflight.
 *
 * Open addressing (issue 16): the entries live in one array, with no
 * allocation per entry (a delivery's start and end are a put and a delete
 * on the in-flight map).  The table doubles when it would be half full,
 * so a probe sequence stays short whatever the number of destinations or
 * deliveries in flight; a deletion shifts the later entries of its probe
 * sequence back (no tombstones), so look-ups stay short after any number
 * of deletions too.
 *
 * Determinism: the map is only ever asked "is this key here?", never
 * walked to make a decision (the one walk, qs_in_flight_nth in sched.c,
 * sorts what it finds first), and keys are names and serial numbers,
 * never addresses.  So hash order cannot leak into a trace.
 * May not: own its keys (a string key belongs to the stored value, which
 * outlives its map entry) or report errors other than "out of memory".
 */
#include <stdlib.h>
#include <string.h>
#include "map.h"

/* A key is a string, a number, or both (str may be NULL).  FNV-1a over
 * the string, seeded with the number, then a final mix.
 * Every slot keeps its full 64-bit hash: growing never recomputes a hash,
 * and a look-up compares strings only when the hashes are equal. */
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

/* Equal keys: equal hashes, equal numbers, and both strings absent or
 * equal.  Two different keys with equal 64-bit hashes would reach the
 * string comparison and fail it, which no stream of the test suite
 * produces (the coverage gate lists those branches as unreachable). */
static int key_eq(const qs_map_slot *n, uint64_t h, const char *str,
                  uint64_t num)
{
    if (n->hash != h)
        return 0;
    if (n->num != num)
        return 0;
    if (!n->str || !str)
        return n->str == str;
    return strcmp(n->str, str) == 0;
}

/* An empty map allocates nothing until its first insertion. */
void qs_map_init(qs_map *m)
{
    m->slot = NULL;
    m->cap = m->count = 0;
}

/* Frees the table, not the values (their owners free them), and leaves
 * the map empty and reusable. */
void qs_map_destroy(qs_map *m)
{
    free(m->slot);
    qs_map_init(m);
}

/* The slot holding the key, or the empty slot where it would go: from the
 * slot the hash's low bits pick (cap is a power of two), onwards.  The
 * table is never more than half full, so an empty slot ends every search
 * soon. */
static size_t find(const qs_map *m, uint64_t h, const char *str,
                   uint64_t num)
{
    size_t mask = m->cap - 1, i = (size_t)h & mask;
    while (m->slot[i].value && !key_eq(&m->slot[i], h, str, num))
        i = (i + 1) & mask;
    return i;
}

/* The value stored under the key, or NULL. */
void *qs_map_get(const qs_map *m, const char *str, uint64_t num)
{
    if (!m->count)
        return NULL;
    return m->slot[find(m, key_hash(str, num), str, num)].value;
}

uint64_t qs_map_hash(const char *str, uint64_t num)
{
    return key_hash(str, num);
}

void *qs_map_get_hashed(const qs_map *m, uint64_t h, const char *str,
                        uint64_t num)
{
    if (!m->count)
        return NULL;
    return m->slot[find(m, h, str, num)].value;
}

/* Doubles the table (8 slots to start) and re-places every entry by its
 * stored hash; nothing is rehashed.  Doubling keeps the total work of all
 * growths linear in the number of insertions.  On failure the old table
 * stays, so the map is unchanged. */
static int grow(qs_map *m)
{
    size_t nc = m->cap ? 2 * m->cap : 8, oc = m->cap, i;
    qs_map_slot *old = m->slot, *ns = calloc(nc, sizeof *ns);
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

/* Inserts into the empty slot where a look-up would stop.  The caller
 * guarantees the key is absent (every caller has just looked it up).
 * Fails only when out of memory, leaving the map unchanged. */
int qs_map_put(qs_map *m, const char *str, uint64_t num, void *value)
{
    return qs_map_put_hashed(m, key_hash(str, num), str, num, value);
}

int qs_map_put_hashed(qs_map *m, uint64_t h, const char *str, uint64_t num,
                      void *value)
{
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

/* Removes the key and returns its value (NULL if absent): qs_done uses
 * the answer to tell a handle in flight from one that is not.  The hole
 * is filled by the later entries of the probe run that may not stay
 * behind it (backward shift): an entry at j whose home slot is not
 * between the hole and j moves into the hole, which moves to j. */
void *qs_map_del(qs_map *m, const char *str, uint64_t num)
{
    return qs_map_del_hashed(m, key_hash(str, num), str, num);
}

void *qs_map_del_hashed(qs_map *m, uint64_t h, const char *str,
                        uint64_t num)
{
    size_t mask, i, j;
    void *v;
    if (!m->count)
        return NULL;
    mask = m->cap - 1;
    i = find(m, h, str, num);
    v = m->slot[i].value;
    if (!v)
        return NULL;
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
