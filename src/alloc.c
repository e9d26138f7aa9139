/*
 * alloc.c - the core's allocation helpers: calloc, strdup, map and
 * in-flight table insertion that never fail, and the free-list pools of
 * fixed-size objects (declared in sched_int.h).
 *
 * Implements no section of SCHEDULER_README.  Owns: qsi_calloc,
 * qsi_strdup, qsi_map_put, qsi_map_put_hashed, qsi_handles_put,
 * qsi_pool_get, qsi_pool_put.  The pools (qs_pool, sched_int.h) hang from
 * the scheduler (qs_sched: entries, peers, jobs, destination queues,
 * messages by size class), so there is no hidden state here;
 * qs_sched_free (sched.c) gives their free objects back to malloc.  Why
 * pools: the scheduling path creates and frees these objects at every
 * arrive, select and done, and reusing them keeps malloc and free out of
 * it (issue 16).  Split from sched.c, which had reached the 600-line limit
 * of a core file.
 */
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"

/* calloc that never returns NULL. */
void *qsi_calloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        /* The core cannot report allocation failure half-way through an
         * event without leaving a half-applied state; limits in the parser
         * keep memory bounded, so running out is fatal.  (No message: the
         * core does no I/O; the abort is the report.) */
        abort();
    }
    return p;
}

/* A zeroed object from the free list, or a new one (see qs_pool in
 * sched_int.h).  The list is threaded through the first bytes of the free
 * objects themselves. */
void *qsi_pool_get(qs_pool *p)
{
    void *obj = p->head;
    if (!obj)
        return qsi_calloc(1, p->size);
    memcpy(&p->head, obj, sizeof p->head); /* the link in its first bytes */
    memset(obj, 0, p->size);
    return obj;
}

/* Back on the free list, for the next qsi_pool_get of its kind. */
void qsi_pool_put(qs_pool *p, void *obj)
{
    memcpy(obj, &p->head, sizeof p->head);
    p->head = obj;
}

/* strdup that never returns NULL (see qsi_calloc). */
char *qsi_strdup(const char *str)
{
    size_t n = strlen(str) + 1;
    char *p = qsi_calloc(1, n);
    memcpy(p, str, n);
    return p;
}

/* qs_map_put that never fails (see qsi_calloc). */
void qsi_map_put(qs_map *m, const char *str, uint64_t num, void *v)
{
    if (qs_map_put(m, str, num, v) < 0) {
        abort(); /* out of memory: see qsi_calloc */
    }
}

/* qs_handles_put that never fails (the in-flight table, map.h). */
void qsi_handles_put(qs_handle_table *t, uint64_t h, void *v)
{
    if (qs_handles_put(t, h, v) < 0)
        abort(); /* out of memory: see qsi_calloc */
}

/* The same, the key's hash given (map.h). */
void qsi_map_put_hashed(qs_map *m, uint64_t h, const char *str, uint64_t num,
                        void *v)
{
    if (qs_map_put_hashed(m, h, str, num, v) < 0)
        abort(); /* out of memory: see qsi_calloc */
}
