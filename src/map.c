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
 * (NULL, handle) for the stragglers of qs_sched.inflight, whose other
 * handles live in the ring of a qs_handle_table (the end of this file).
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
#if defined(__linux__) && !defined(__FRAMAC__)
/* madvise and MADV_HUGEPAGE (Linux): a hint, see table_alloc */
#define _DEFAULT_SOURCE 1
#include <sys/mman.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "map.h"
#include "words.h"

/* A table of `bytes` (a power of two times a slot).  From 2 MiB up it is
 * asked for at 2 MiB alignment and advised to be backed by huge pages,
 * as the pools' areas are (alloc.c): a big table is probed at random
 * places (the message table holds every message of a queue that has
 * hundreds of thousands waiting), and with 4 KiB pages nearly every
 * probe also missed the TLB - on a virtual machine a walk of two sets of
 * page tables (issue 16: the arrival's look-up of its id was 13 to 20% of
 * the memory and bulk shapes' time under perf; with the advice bulk
 * replays 32% faster, memory 11%.  Smaller tables given a huge page of
 * their own, from 128 KiB, measured no faster: their pages fit the
 * TLB).  The advice concerns only how memory is mapped: where it is not
 * honoured, nothing changes but the speed.  Freed with free, either
 * way. */
#define MAP_HUGE_TABLE ((size_t)2 << 20)
static void *table_alloc(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(__FRAMAC__)
    if (bytes >= MAP_HUGE_TABLE) {
        void *t = aligned_alloc(MAP_HUGE_TABLE, bytes);
        if (t)
            (void)madvise(t, bytes, MADV_HUGEPAGE); /* a hint */
        return t;
    }
#endif
    return malloc(bytes);
}

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

/* Word at a time: each 8 bytes xored in and multiplied (an odd 64-bit
 * constant), the last partial word with only its len % 8 bytes (the
 * others masked off, wherever the byte order puts them), the length
 * first so that trailing NUL bytes count; then key_hash's final
 * avalanche.  Issue 16: FNV's byte loop was about 100 instructions for a
 * recipient's address (LOCAL@NEXTHOP, a destination recipient limit of
 * 1: a look-up per recipient), this is about 20. */
uint64_t qs_map_hash_len(const char *str, size_t len)
{
    uint64_t h = (uint64_t)len * 0x9e3779b97f4a7c15ULL, w;
    const unsigned char *p = (const unsigned char *)str;
    size_t n = len;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
    }
    if (n > 0) {
        memcpy(&w, p, 8); /* the caller's padding: readable */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        w &= ~0ULL >> (64 - 8 * n);  /* the first n bytes are the low ones */
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w &= ~0ULL << (64 - 8 * n);  /* ... the high ones */
#else
        {
            size_t i;
            for (w = 0, i = 0; i < n; i++)
                w |= (uint64_t)p[i] << (8 * i);
        }
#endif
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
    }
    return key_hash(NULL, h);
}

void *qs_map_get_hashed(const qs_map *m, uint64_t h, const char *str,
                        uint64_t num)
{
    if (!m->count)
        return NULL;
    return m->slot[find(m, h, str, num)].value;
}

/* The stored key `key` is the len bytes of str and ends there (its NUL),
 * compared a word at a time: a key under 8 bytes as one word masked to
 * its len bytes; a longer one by whole words, then its last 8 bytes
 * (overlapping the words before: no byte loop, whose trip count varied
 * with every name - issue 16, destinations of 9 to 20 bytes).  What is
 * read: the first 8 bytes of both (map.h: str's by the contract of
 * qs_map_hash_len when len > 0, a stored key's by that of
 * qs_map_get_hashed_len), and
 * no byte at or past len of either except key[len]; a key shorter than
 * len differs from str within its first word holding its NUL, as before:
 * str has no NUL in its len bytes. */
static int key_eq_len(const char *key, const char *str, size_t len)
{
    uint64_t a, b;
    size_t i = 0;
    if (len < 8) {
        if (len == 0) /* (str may have no readable byte) */
            return key[0] == 0;
        return word_first_bytes(key, len) == word_first_bytes(str, len) &&
               key[len] == 0;
    }
    for (; len - i >= 8; i += 8) {
        memcpy(&a, key + i, 8);
        memcpy(&b, str + i, 8);
        if (a != b)
            return 0;
    }
    if (i < len) { /* the last len - i bytes, as the last word of all */
        memcpy(&a, key + len - 8, 8);
        memcpy(&b, str + len - 8, 8);
        if (a != b)
            return 0;
    }
    return key[len] == 0;
}

void *qs_map_get_hashed_len(const qs_map *m, uint64_t h, const char *str,
                            size_t len)
{
    size_t mask, i;
    if (!m->count)
        return NULL;
    mask = m->cap - 1;
    for (i = (size_t)h & mask; m->slot[i].value; i = (i + 1) & mask) {
        const qs_map_slot *n = &m->slot[i];
        if (n->hash == h && n->num == 0 && n->str &&
            key_eq_len(n->str, str, len))
            return n->value;
    }
    return NULL;
}

/* Doubles the table (8 slots to start) and re-places every entry by its
 * stored hash; nothing is rehashed.  Doubling keeps the total work of all
 * growths linear in the number of insertions.  On failure the old table
 * stays, so the map is unchanged.  A new table's slots are emptied by
 * their value alone: a slot is empty when its value is NULL, and no
 * other field of an empty slot is ever read (find, del), so the rest is
 * left unwritten (issue 16: a quarter of calloc's stores; the tables of
 * jobs with many destinations grow often). */
static int grow(qs_map *m)
{
    size_t nc = m->cap ? 2 * m->cap : 8, oc = m->cap, i;
    qs_map_slot *old = m->slot, *ns;
    if (nc > SIZE_MAX / sizeof *ns || !(ns = table_alloc(nc * sizeof *ns)))
        return -1;
    for (i = 0; i < nc; i++)
        ns[i].value = NULL;
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

/* Empties slot i (in use) by the backward shift above. */
static void remove_at(qs_map *m, size_t i)
{
    size_t mask = m->cap - 1, j;
    for (j = (i + 1) & mask; m->slot[j].value; j = (j + 1) & mask) {
        size_t home = (size_t)m->slot[j].hash & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->slot[i] = m->slot[j];
            i = j;
        }
    }
    m->slot[i].value = NULL;
    m->count--;
}

void *qs_map_del_hashed(qs_map *m, uint64_t h, const char *str,
                        uint64_t num)
{
    size_t i;
    void *v;
    if (!m->count)
        return NULL;
    i = find(m, h, str, num);
    v = m->slot[i].value;
    if (!v)
        return NULL;
    remove_at(m, i);
    return v;
}

/* Removes the entry whose value is `value` (stored under a key of hash
 * h), found by the value, not the key: the owner of a value that knows
 * its key's hash needs no key comparison (issue 16: a message leaving
 * compared its id, a call of strcmp on a line that is otherwise not
 * read).  Returns 1, or 0 if no entry of that hash holds it. */
int qs_map_del_value(qs_map *m, uint64_t h, const void *value)
{
    size_t mask, i;
    if (!m->count)
        return 0;
    mask = m->cap - 1;
    for (i = (size_t)h & mask;; i = (i + 1) & mask) {
        if (!m->slot[i].value) /* (a NULL value: never stored) */
            return 0;
        if (m->slot[i].value == value) {
            remove_at(m, i);
            return 1;
        }
    }
}

/* ---- the in-flight table (map.h: qs_handle_table) ----
 *
 * Invariant: every handle present is either in the window [base, base +
 * cap), in ring slot h & (cap - 1) (each slot of the ring stands for
 * exactly one handle of the window), or below base, in `old`.  The window
 * only moves forward.  With handles put in increasing order, as the core
 * does, a put either lands in the window or finds the window full from
 * base to its end; then the window first slides over handles that have
 * ended, and if the oldest is still in flight, the ring doubles when at
 * least half of it is in use, or that oldest straggler moves to `old`.
 * Every slide, move and doubling is paid for by the puts before it, so
 * each operation is amortised O(1), and the ring has at most about four
 * slots per handle in it. */

void qs_handles_init(qs_handle_table *t)
{
    t->ring = NULL;
    t->cap = t->in_ring = 0;
    t->base = 0;
    qs_map_init(&t->old);
}

void qs_handles_destroy(qs_handle_table *t)
{
    free(t->ring);
    qs_map_destroy(&t->old);
    qs_handles_init(t);
}

size_t qs_handles_count(const qs_handle_table *t)
{
    return t->in_ring + t->old.count;
}

void *qs_handles_get(const qs_handle_table *t, uint64_t h)
{
    if (h >= t->base)
        return h - t->base < t->cap ? t->ring[h & (t->cap - 1)] : NULL;
    return t->old.count ? qs_map_get(&t->old, NULL, h) : NULL;
}

/* The ring doubled (or first allocated, 8 slots), the window's values
 * re-placed by their handles; on failure nothing changed. */
static int handles_grow(qs_handle_table *t)
{
    size_t nc = t->cap ? 2 * t->cap : 8, i;
    void **nr = calloc(nc, sizeof *nr);
    if (!nr)
        return -1;
    for (i = 0; i < t->cap; i++) {
        uint64_t h = t->base + i;
        nr[h & (nc - 1)] = t->ring[h & (t->cap - 1)];
    }
    free(t->ring);
    t->ring = nr;
    t->cap = nc;
    return 0;
}

/* Makes the window reach h (h >= base). */
static int handles_make_room(qs_handle_table *t, uint64_t h)
{
    if (!t->in_ring)
        t->base = h; /* an empty window may start anywhere */
    while (h - t->base >= t->cap) {
        void **slot = t->cap ? &t->ring[t->base & (t->cap - 1)] : NULL;
        if (slot && !*slot) {
            t->base++; /* that delivery ended: slide over it */
            continue;
        }
        if (!t->cap || 2 * t->in_ring >= t->cap) {
            if (handles_grow(t) < 0)
                return -1;
            continue;
        }
        /* sparse, and the oldest handle of the window still in flight: a
         * straggler; it goes to `old` and the window moves on */
        if (qs_map_put(&t->old, NULL, t->base, *slot) < 0)
            return -1;
        *slot = NULL;
        t->base++;
        if (!--t->in_ring)
            t->base = h;
    }
    return 0;
}

int qs_handles_put(qs_handle_table *t, uint64_t h, void *value)
{
    if (h < t->base)
        return qs_map_put(&t->old, NULL, h, value);
    if (h - t->base >= t->cap && handles_make_room(t, h) < 0)
        return -1;
    t->ring[h & (t->cap - 1)] = value;
    t->in_ring++;
    return 0;
}

void *qs_handles_del(qs_handle_table *t, uint64_t h)
{
    void **slot, *v;
    if (h < t->base)
        return t->old.count ? qs_map_del(&t->old, NULL, h) : NULL;
    if (h - t->base >= t->cap)
        return NULL;
    slot = &t->ring[h & (t->cap - 1)];
    v = *slot;
    if (v) {
        *slot = NULL;
        t->in_ring--;
    }
    return v;
}

size_t qs_handles_list(const qs_handle_table *t, uint64_t *out)
{
    size_t i, k = 0;
    for (i = 0; i < t->cap; i++)
        if (t->ring[(t->base + i) & (t->cap - 1)])
            out[k++] = t->base + i;
    for (i = 0; i < t->old.cap; i++)
        if (t->old.slot[i].value)
            out[k++] = t->old.slot[i].num;
    return k;
}
