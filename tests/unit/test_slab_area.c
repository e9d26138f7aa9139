/*
 * test_slab_area.c - where the pools' objects live (src/alloc.c pool_cut,
 * slab_from_area; qs_slab_area in src/sched_int.h; issue 16).
 *
 * Owns: the promises of the slab area, white box through sched_int.h.
 * No scheduling decision depends on them (the outputs are the same with
 * or without the area: tests/identity.sh), so they are checked here, on a
 * pool of a fresh scheduler, with every expected count worked out below
 * from the three sizes alloc.c states - a slab of at most 8 KiB (8,192
 * bytes: a 16-byte head, then as many objects as fit, each rounded up to
 * 16 bytes), blocks of 2 MiB, and QSI_AREA_AFTER = 1 MiB of slabs
 * malloc'ed before the first block:
 *   - a small scheduler takes no block: as long as fewer than 1 MiB of
 *     slabs were cut, every slab is malloc'ed, and the area is empty;
 *   - the slab after the first 1 MiB comes from a block, and a block is
 *     aligned on its 2 MiB (so that it can be one huge page);
 *   - a block's slabs follow each other, after its 16-byte head, until the
 *     next would not fit; then a new block starts;
 *   - objects are zeroed and distinct wherever they come from;
 *   - qs_sched_free gives back each block once and each malloc'ed slab
 *     once: a slab of a block freed on its own aborts in glibc's free, so
 *     this binary fails.  The sanitizer build, in which a slab is one
 *     object and no block is ever taken, is checked as such.
 * Each promise was shown to catch its injected bug: no threshold, a block
 * not aligned, a block's head of another size, every slab freed alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "check.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
#define ROUND16(n) (((n) + 15) & ~(size_t)15)

static char err[256];

static unsigned count_blocks(const qs_slab_area *a)
{
    const void *b = a->blocks, *next;
    unsigned n = 0;
    while (b) {
        n++;
        memcpy(&next, b, sizeof next); /* the link in its first bytes */
        b = next;
    }
    return n;
}

/* 1 if every byte of the object is 0 */
static int zeroed(const unsigned char *o, size_t size)
{
    size_t i;
    for (i = 0; i < size; i++)
        if (o[i])
            return 0;
    return 1;
}

int main(void)
{
    qs_params *p = qs_params_new();
    qs_sched *s = p ? qs_sched_new(p, QS_PROFILE_POSTFIX, NULL, NULL, err,
                                   sizeof err)
                    : NULL;
    qs_pool *pool;
    /* the entry pool: its objects, its slabs (the sizes of the header) */
    size_t stride, per_slab, slab_bytes, before_slabs, per_block, i, n;
    unsigned char *o, *prev = NULL, *first_from_block = NULL;
    unsigned char **objs;
    int ok_zero = 1, ok_distinct = 1, ok_small = 1;
    qs_params_free(p);
    if (!s) {
        printf("FAIL slab-area/new: %s\n", err);
        return 1;
    }
    pool = &s->entry_pool;
    stride = ROUND16(sizeof(qs_entry));
    per_slab = (8 * KIB - 16) / stride;     /* objects in one slab */
    slab_bytes = ROUND16(16 + per_slab * stride);
    /* slabs malloc'ed while fewer than 1 MiB were: ceil(1 MiB / slab) */
    before_slabs = (MIB + slab_bytes - 1) / slab_bytes;
    /* slabs in one block: after its 16-byte head, as many as fit */
    per_block = (2 * MIB - 16) / slab_bytes;
    /* enough objects for the malloc'ed slabs, one full block and one
     * slab of a second block */
    n = (before_slabs + per_block + 1) * per_slab;
    objs = calloc(n, sizeof *objs);
    if (!objs) {
        printf("FAIL slab-area/calloc\n");
        return 1;
    }
    for (i = 0; i < n; i++) {
        o = qsi_pool_get(pool);
        objs[i] = o;
        if (!zeroed(o, pool->size))
            ok_zero = 0;
        memset(o, 0xa5, pool->size); /* a later object must not see it */
        if (prev && o >= prev && o < prev + pool->size)
            ok_distinct = 0;
        prev = o;
        /* up to the last object of the last malloc'ed slab: no block */
        if (i < before_slabs * per_slab && s->slab_area.blocks)
            ok_small = 0;
        if (i == before_slabs * per_slab)
            first_from_block = o;
    }
    CHECK("slab-area/objects-zeroed", ok_zero);
    CHECK("slab-area/objects-distinct", ok_distinct);
    if (SANITIZED) {
        /* one object per slab, never a block */
        CHECK("slab-area/sanitized-no-block", s->slab_area.blocks == NULL);
    } else {
        const char *blk = s->slab_area.blocks; /* the newest block */
        const char *first;
        CHECK("slab-area/small-scheduler-no-block", ok_small);
        /* the slab after the first 1 MiB: the first block's first slab,
         * right after the block's head, its first object after the slab's */
        CHECK_EQ_LL("slab-area/two-blocks", count_blocks(&s->slab_area), 2);
        memcpy(&first, blk, sizeof first); /* the block before the newest */
        CHECK("slab-area/first-block-aligned",
              first && ((uintptr_t)first & (2 * MIB - 1)) == 0);
        CHECK("slab-area/newest-block-aligned",
              ((uintptr_t)blk & (2 * MIB - 1)) == 0);
        CHECK("slab-area/first-object-after-heads",
              first && first_from_block == (const unsigned char *)first + 32);
        /* the block's last slab ends within it; the next object, the
         * first of the second block, after that block's heads */
        CHECK("slab-area/last-slab-in-first-block",
              first &&
                  objs[(before_slabs + per_block) * per_slab - 1] + stride <=
                      (const unsigned char *)first + 2 * MIB &&
                  objs[(before_slabs + per_block) * per_slab - 1] >
                      (const unsigned char *)first);
        CHECK("slab-area/second-block-starts",
              objs[(before_slabs + per_block) * per_slab] ==
                  (const unsigned char *)blk + 32);
    }
    /* given back and taken again: zeroed, the last one put first */
    qsi_pool_put(pool, objs[n - 1]);
    o = qsi_pool_get(pool);
    CHECK("slab-area/reused-zeroed", o == objs[n - 1] && zeroed(o, pool->size));
    free(objs);
    qs_sched_free(s); /* blocks and malloc'ed slabs: valgrind and ASan */
    printf("# %d checks, %d failed\n", check_count, check_failures);
    return check_failures != 0;
}
