/*
 * map.h - a small hash map for the core's look-ups.
 *
 * Owns: finding a message by id, a transport by name, a destination queue by
 * name within a transport, a peer by (job, queue), and an in-flight
 * delivery by handle, each in amortised O(1).  Keys are strings and/or
 * 64-bit numbers (object serial numbers, never addresses), and no decision
 * depends on the map's order (the one walk over it, qs_in_flight_nth,
 * sorts what it finds).
 */
#ifndef QSCHED_MAP_H
#define QSCHED_MAP_H

#include <stddef.h>
#include <stdint.h>

/* One slot of the open-addressed table: empty when value is NULL. */
typedef struct qs_map_slot {
    uint64_t hash;
    const char *str;   /* key part 1 (may be NULL); owned by the value */
    uint64_t num;      /* key part 2 */
    void *value;
} qs_map_slot;

typedef struct qs_map {
    qs_map_slot *slot;        /* NULL until the first insertion */
    size_t cap, count;        /* cap: 0 or a power of two, > 2 * count */
} qs_map;

void qs_map_init(qs_map *m);
void qs_map_destroy(qs_map *m);
void *qs_map_get(const qs_map *m, const char *str, uint64_t num);
/* Inserts; the key must not be present; value is not NULL.  Returns 0, or
 * -1 out of memory. */
int qs_map_put(qs_map *m, const char *str, uint64_t num, void *value);
/* Removes and returns the value, or NULL. */
void *qs_map_del(qs_map *m, const char *str, uint64_t num);
/* The same three with the key's hash given (qs_map_hash of the same
 * key): a caller that looks a key up, then inserts it, then later deletes
 * it hashes its name once (issue 16: queues and messages). */
uint64_t qs_map_hash(const char *str, uint64_t num);
void *qs_map_get_hashed(const qs_map *m, uint64_t h, const char *str,
                        uint64_t num);
int qs_map_put_hashed(qs_map *m, uint64_t h, const char *str, uint64_t num,
                      void *value);
void *qs_map_del_hashed(qs_map *m, uint64_t h, const char *str,
                        uint64_t num);

#endif
