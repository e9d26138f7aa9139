/*
 * alloc.c - the core's allocation helpers: calloc, strdup, map and
 * in-flight table insertion that never fail, and the free-list pools of
 * fixed-size objects (declared in sched_int.h).
 *
 * Implements no section of SCHEDULER_README.  Owns: qsi_calloc,
 * qsi_strdup, qsi_map_put, qsi_map_put_hashed, qsi_handles_put,
 * qsi_pool_get, qsi_pool_put, qsi_pool_free.  The pools (qs_pool,
 * sched_int.h) hang from the scheduler (qs_sched: entries, peers, jobs,
 * destination queues, messages by size class), so there is no hidden state
 * here; qs_sched_free (sched.c) gives their slabs back to malloc.  Why
 * pools: the scheduling path creates and frees these objects at every
 * arrive, select and done, and reusing them keeps malloc and free out of
 * it; why slabs: a new object is then a pointer bump, not a calloc, and the
 * end of a run frees a slab of about 8 KiB at a time, not each object
 * (issue 16); why one area of 2 MiB blocks for all the slabs: huge
 * pages (qs_slab_area, sched_int.h).  Split from sched.c, which had
 * reached the 600-line limit of a core file.
 */
/* madvise and MADV_HUGEPAGE (Linux): a hint, see slab_from_area */
#if defined(__linux__) && !defined(__FRAMAC__)
#define _DEFAULT_SOURCE 1
#include <sys/mman.h>
#endif
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"

/* What the candidate query reads of a job it visits (sched_int.h,
 * struct qs_job): the children, the three minima and the job's own part
 * of them, together - 64 bytes on a 64-bit machine (56 with 4-byte
 * pointers, the playground's wasm32), in one or two cache lines: the
 * pools align objects on 16 bytes (below; on 64, measured in session 23,
 * the time did not move). */
_Static_assert(offsetof(qs_job, cix_own_total) + sizeof(int64_t) -
                       offsetof(qs_job, cix_left) <= 64,
               "qs_job: the candidate query's fields together");

/* A new job is zeroed up to its index fields (QSI_JOB_INDEXED,
 * sched_int.h): what must start at 0 or NULL - the checker's record, the
 * flags telling whether it is in the index - comes before them, and they
 * run to the end of the job (then at most its padding). */
_Static_assert(offsetof(qs_job, ck) < QSI_JOB_INDEXED &&
                       offsetof(qs_job, cix_in) < QSI_JOB_INDEXED &&
                       offsetof(qs_job, bix_fpos) < QSI_JOB_INDEXED &&
                       sizeof(qs_job) - offsetof(qs_job, tix_up) -
                               sizeof(qs_job *) < _Alignof(qs_job),
               "qs_job: the index fields last");

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

/* How big a slab is: about 8 KiB, so at least one object and at most 73
 * (peers), 22 jobs or 8 messages of the largest size class.  One object
 * in the sanitizer builds: an object then has an allocation of its own,
 * and AddressSanitizer sees a write past its end (in a slab it would land
 * in the next object). */
#if defined(__SANITIZE_ADDRESS__)
#define QSI_POOL_SLAB_BYTES 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QSI_POOL_SLAB_BYTES 0
#endif
#endif
#ifndef QSI_POOL_SLAB_BYTES
#define QSI_POOL_SLAB_BYTES 8192
#endif
/* A slab's objects start after its link, at malloc's alignment, and
 * follow each other at a multiple of it. */
#define QSI_POOL_ALIGN 16
#define QSI_POOL_ROUND(n) (((n) + QSI_POOL_ALIGN - 1) & ~(size_t)(QSI_POOL_ALIGN - 1))
/* An area block: the size of an x86-64 huge page (and of an arm64 one
 * with 4 KiB pages), aligned on it, so that it can be one.  Blocks are
 * used once QSI_AREA_AFTER bytes of slabs have been malloc'ed: a block
 * costs the zeroing of a whole huge page when first touched, which a
 * scheduler that lives for a few events never earns back (the model
 * checker creates thousands: with a block each from the first slab, its
 * suite in `make check` took 149 s instead of 36). */
#define QSI_AREA_BLOCK ((size_t)2 << 20)
#ifndef QSI_AREA_AFTER
#define QSI_AREA_AFTER ((size_t)1 << 20)
#endif

/* `bytes` (a slab, at most QSI_POOL_SLAB_BYTES) from the area's newest
 * block, or from a new block; NULL while the pools are small (below
 * QSI_AREA_AFTER) or if the system has no new block to give: the caller
 * then asks malloc, as before areas.  A block is asked
 * for at its own alignment and advised to be backed by huge pages: with
 * Linux's transparent huge pages in their default `madvise` mode, the
 * whole block is then one 2 MiB page once touched, and the pointer chase
 * of the scheduling path from job to message to peer to entry, spread
 * over megabytes, takes one TLB entry per block instead of 512.  The
 * advice only concerns how memory is mapped, never its contents: where
 * it is not honoured (another mode, another system, no such call),
 * nothing changes but the speed.  A block's first QSI_POOL_ALIGN bytes
 * link it to the previous one; the end of a block too short for the next
 * slab stays unused (at most a slab, 0.4% of a block). */
static char *slab_from_area(qs_slab_area *a, size_t bytes)
{
    char *slab;
    bytes = QSI_POOL_ROUND(bytes);
    if (a->before < QSI_AREA_AFTER) {
        a->before += bytes; /* the caller mallocs this one */
        return NULL;
    }
    if (a->cut == NULL || (size_t)(a->end - a->cut) < bytes) {
        char *block = aligned_alloc(QSI_AREA_BLOCK, QSI_AREA_BLOCK);
        if (!block)
            return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(__FRAMAC__)
        (void)madvise(block, QSI_AREA_BLOCK, MADV_HUGEPAGE); /* a hint */
#endif
        memcpy(block, &a->blocks, sizeof a->blocks);
        a->blocks = block;
        a->cut = block + QSI_POOL_ALIGN;
        a->end = block + QSI_AREA_BLOCK;
    }
    slab = a->cut;
    a->cut += bytes;
    return slab;
}

/* With the scheduler, after its pools: every block goes back to malloc,
 * and with them every slab cut from them (qs_sched_free). */
void qsi_slab_area_free(qs_slab_area *a)
{
    while (a->blocks) {
        void *block = a->blocks;
        memcpy(&a->blocks, block, sizeof a->blocks);
        free(block);
    }
    a->cut = a->end = NULL;
}

/* A new zeroed object, cut from the pool's newest slab, or from a new
 * slab, linked into the pool's list through its first bytes
 * (qsi_pool_free gives the slabs back).  A slab is cut from the area
 * (slab_from_area), or malloc'ed if there is no new block, never
 * calloc'ed, and each object zeroed as it is cut: a slab's tail that is
 * never used is then never written (issue 16: calloc cleared 8 KiB at a
 * time with `rep stosb`, which callgrind counts byte by byte - 2% of the
 * sort shape's count).  If the system cannot give a whole slab, a slab
 * of one object is asked for, which is what an object cost before slabs:
 * a memory limit that let the run through then still does
 * (tests/sh/io-contract.sh, memory-limit-contract), and only that one
 * failing aborts (qsi_calloc).  Apart from qsi_pool_get so that its
 * free-list path, taken almost every time, stays a short function. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void *pool_cut(qs_pool *p)
{
    size_t stride = QSI_POOL_ROUND(p->size);
    void *obj;
    if (p->cut == NULL || (size_t)(p->cut_end - p->cut) < stride) {
        size_t n = (size_t)QSI_POOL_SLAB_BYTES >= QSI_POOL_ALIGN + 2 * stride
                   ? ((size_t)QSI_POOL_SLAB_BYTES - QSI_POOL_ALIGN) / stride
                   : 1;
        size_t bytes = QSI_POOL_ALIGN + n * stride;
        char *slab = NULL, from_area = 0;
        if (n > 1) {
            slab = slab_from_area(p->area, bytes); /* (qs_sched_new) */
            from_area = slab != NULL;
            if (!slab)
                slab = malloc(bytes);
        }
        if (!slab) {
            n = 1;
            slab = qsi_calloc(1, QSI_POOL_ALIGN + stride);
        }
        /* the link, then whether the area owns the slab (qsi_pool_free) */
        _Static_assert(sizeof p->slabs < QSI_POOL_ALIGN, "a slab's head");
        memcpy(slab, &p->slabs, sizeof p->slabs);
        slab[sizeof p->slabs] = from_area;
        p->slabs = slab;
        p->cut = slab + QSI_POOL_ALIGN;
        p->cut_end = p->cut + n * stride;
    }
    obj = p->cut;
    p->cut += stride;
    memset(obj, 0, p->size);
    return obj;
}

/* A zeroed object from the free list, or a new one (pool_cut). */
void *qsi_pool_get(qs_pool *p)
{
    void *obj = p->head;
    if (!obj)
        return pool_cut(p);
    memcpy(&p->head, obj, sizeof p->head); /* the link in its first bytes */
    QSI_PREFETCH_W(p->head); /* the next get's first read: see
                                qsi_pool_get_sized */
    memset(obj, 0, p->size);
    return obj;
}

/* With the scheduler: every slab of its own goes back to malloc (those of
 * the area go with the area's blocks, qsi_slab_area_free, after the
 * pools), and with them every object of the pool, free or in use
 * (qs_sched_free). */
void qsi_pool_free(qs_pool *p)
{
    while (p->slabs) {
        char *slab = p->slabs;
        memcpy(&p->slabs, slab, sizeof p->slabs);
        if (!slab[sizeof p->slabs])
            free(slab);
    }
    p->head = NULL;
    p->cut = p->cut_end = NULL;
}

/* Room for one more element in a growing array of pointers (*v, *cap
 * elements): doubled when full, from `first`; never fails (see
 * qsi_calloc).  Amortised O(1) per element. */
void qsi_grow_ptrs(void *vp, size_t n, size_t *cap, size_t first)
{
    void **old, **v;
    size_t nc;
    if (n < *cap)
        return;
    memcpy(&old, vp, sizeof old);
    nc = *cap ? 2 * *cap : first;
    v = realloc(old, nc * sizeof *v);
    if (!v)
        abort(); /* out of memory: see qsi_calloc */
    memcpy(vp, &v, sizeof v);
    *cap = nc;
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
