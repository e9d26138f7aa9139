/*
 * map.h - a small hash map for the core's look-ups.
 *
 * Owns: finding a message by id, a transport by name, a destination queue by
 * name within a transport, a peer by (job, queue), each in amortised O(1)
 * by hashing; and an in-flight delivery by handle in O(1) by the handle's
 * place in a ring (qs_handle_table).  Keys are strings and/or
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
/* Another hash of a string key (num 0) whose length len is known, eight
 * bytes at a time; any 8 bytes from a position before its end must be
 * readable (a name followed by 8 padding bytes, or in a buffer with that
 * room).  A map keeps to one of the two hashes for all its keys (the
 * destination queues use this one: concurrency.c qsi_queue_obtain). */
uint64_t qs_map_hash_len(const char *str, size_t len);
void *qs_map_get_hashed(const qs_map *m, uint64_t h, const char *str,
                        uint64_t num);
/* qs_map_get_hashed for a string key (num 0) of known length len, such
 * as qs_map_hash_len hashes: the stored key must be exactly those len
 * bytes, compared eight at a time (issue 16: a strcmp call per found
 * destination queue, 2% of the blockers shape's time).  str is read as
 * for qs_map_hash_len; the map's stored keys must each have their first
 * 8 bytes readable (the destination queues' names: a name buffer of at
 * least QSI_QUEUE_NAME_POOLED bytes, sched_int.h). */
void *qs_map_get_hashed_len(const qs_map *m, uint64_t h, const char *str,
                            size_t len);
int qs_map_put_hashed(qs_map *m, uint64_t h, const char *str, uint64_t num,
                      void *value);
void *qs_map_del_hashed(qs_map *m, uint64_t h, const char *str,
                        uint64_t num);
/* Removes the entry holding `value` under a key of hash h (the value's
 * owner knows both): 1, or 0 if there is none. */
int qs_map_del_value(qs_map *m, uint64_t h, const void *value);

/* ---- the in-flight table: a value by delivery handle ----
 * Handles are handed out in increasing order (S-EV-8) and end in any
 * order, so the live ones sit in a window [base, base + cap) of a ring
 * indexed by the handle itself: a put, a look-up and a delete are one
 * array access, with no hash and no probing (issue 16: the in-flight map
 * cost about 200 instructions a delivery).  A handle that stays in flight
 * while the window has to move on (a straggler, when the ring is sparse)
 * goes to the map `old`, so the ring stays O(live handles) whatever the
 * distance between the oldest and the newest handle. */
typedef struct qs_handle_table {
    void **ring;       /* cap slots, NULL when free; handle h of the window
                          at ring[h & (cap - 1)] */
    size_t cap;        /* 0 or a power of two */
    size_t in_ring;    /* values in the ring */
    uint64_t base;     /* first handle of the window */
    qs_map old;        /* values of handles below base: key (NULL, handle) */
} qs_handle_table;

void qs_handles_init(qs_handle_table *t);
void qs_handles_destroy(qs_handle_table *t);
/* The value of handle h, or NULL. */
void *qs_handles_get(const qs_handle_table *t, uint64_t h);
/* Stores a value (not NULL) under h, which must not be present.  Returns
 * 0, or -1 out of memory (the table unchanged). */
int qs_handles_put(qs_handle_table *t, uint64_t h, void *value);
/* Removes h and returns its value, or NULL if h is not present. */
void *qs_handles_del(qs_handle_table *t, uint64_t h);
/* The number of handles present. */
size_t qs_handles_count(const qs_handle_table *t);
/* Writes every handle present into out (room for qs_handles_count), in
 * no particular order; returns how many. */
size_t qs_handles_list(const qs_handle_table *t, uint64_t *out);

#endif
