/*
 * test_handles.c - the in-flight table (src/map.h, qs_handle_table):
 * a delivery's entry found by its handle.
 *
 * Owns: the table's contract, checked against a plain reference array
 * (value of handle h, or none) that is independent of the ring:
 *   - get, put, del and count agree with the reference after every step
 *     of long pseudo-random sequences in the core's pattern (handles put
 *     in increasing order, ended in any order), with many in flight at
 *     once (the ring grows) and few (it stays small);
 *   - stragglers: a handle kept in flight while a million later ones come
 *     and go is still found, and the ring stays small (memory in
 *     proportion to the handles present, not to the distance between the
 *     oldest and the newest: map.h's promise);
 *   - handles out of the core's order (a jump far ahead, a handle below
 *     the window) are still stored and found;
 *   - qs_handles_list names each present handle exactly once.
 * Also an end-to-end check through the public API: `done` of a handle
 * selected long before (D1, in flight while 20,000 later deliveries end)
 * is accepted, a repeated one refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "map.h"
#include "check.h"

#define NH 200000

static char ref_present[NH];
static int values[NH]; /* &values[h] is the value stored under h */

static unsigned long lcg(unsigned long *x)
{
    *x = *x * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned long)(*x >> 33);
}

/* Every handle below `upto` agrees with the reference; count too. */
static int agrees(const qs_handle_table *t, uint64_t upto)
{
    uint64_t h;
    size_t n = 0;
    for (h = 0; h < upto; h++) {
        void *want = ref_present[h] ? &values[h] : NULL;
        if (qs_handles_get(t, h) != want)
            return 0;
        n += ref_present[h] != 0;
    }
    return qs_handles_count(t) == n;
}

/* The list names exactly the present handles. */
static int list_ok(const qs_handle_table *t, uint64_t upto)
{
    size_t n = qs_handles_count(t), k, i;
    uint64_t *out = calloc(n + 1, sizeof *out);
    char *seen = calloc(upto, 1);
    int ok = out && seen;
    k = ok ? qs_handles_list(t, out) : 0;
    ok = ok && k == n;
    for (i = 0; ok && i < k; i++) {
        ok = out[i] < upto && ref_present[out[i]] && !seen[out[i]];
        if (ok)
            seen[out[i]] = 1;
    }
    free(out);
    free(seen);
    return ok;
}

/* The core's pattern: put the next handle, or end a random one in
 * flight; `window` bounds how many are in flight. */
static int random_run(unsigned long seed, size_t window, size_t steps,
                      int *list_checked)
{
    qs_handle_table t;
    uint64_t next = 1, h;
    size_t live = 0, i;
    unsigned long x = seed;
    int ok = 1;
    memset(ref_present, 0, sizeof ref_present);
    qs_handles_init(&t);
    for (i = 0; i < steps && next < NH - 1 && ok; i++) {
        if (live < window && (live == 0 || lcg(&x) % 2 == 0)) {
            h = next++;
            if (qs_handles_put(&t, h, &values[h]) != 0)
                ok = 0;
            ref_present[h] = 1;
            live++;
        } else {
            /* a random handle among the last 4 * window + 1: present or
             * not (an end of an unknown handle must be refused) */
            uint64_t span = 4 * window + 1;
            uint64_t lo = next > span ? next - span : 1;
            h = lo + lcg(&x) % (next - lo);
            if (qs_handles_del(&t, h) != (ref_present[h] ? &values[h] : NULL))
                ok = 0;
            if (ref_present[h]) {
                ref_present[h] = 0;
                live--;
            }
        }
        if (i % 997 == 0)
            ok = ok && agrees(&t, next + 8);
    }
    ok = ok && agrees(&t, next + 8);
    if (ok && list_checked) {
        ok = list_ok(&t, next + 8);
        *list_checked = 1;
    }
    qs_handles_destroy(&t);
    return ok;
}

/* One handle stays while a million later ones come and go, one at a
 * time: still found, and the ring small. */
static int straggler_run(size_t *cap_seen)
{
    qs_handle_table t;
    static int v0, v;
    uint64_t h;
    int ok = 1;
    qs_handles_init(&t);
    ok = qs_handles_put(&t, 1, &v0) == 0;
    for (h = 2; h < 1000000 && ok; h++) {
        ok = qs_handles_put(&t, h, &v) == 0 && qs_handles_get(&t, 1) == &v0 &&
             qs_handles_del(&t, h) == &v;
    }
    *cap_seen = t.cap;
    ok = ok && qs_handles_count(&t) == 1 && qs_handles_del(&t, 1) == &v0 &&
         qs_handles_count(&t) == 0 && qs_handles_get(&t, 1) == NULL;
    qs_handles_destroy(&t);
    return ok;
}

/* Out of the core's order: far jumps ahead, and puts below the window. */
static int jumps_run(void)
{
    qs_handle_table t;
    static int a, b, c, d, e;
    int ok;
    qs_handles_init(&t);
    ok = qs_handles_put(&t, 5, &a) == 0 &&
         qs_handles_put(&t, 1000000000000ULL, &b) == 0 && /* far ahead */
         qs_handles_put(&t, 6, &c) == 0 &&                /* below window */
         qs_handles_put(&t, 1000000000001ULL, &d) == 0 &&
         qs_handles_put(&t, 3, &e) == 0;
    ok = ok && qs_handles_count(&t) == 5 && qs_handles_get(&t, 5) == &a &&
         qs_handles_get(&t, 1000000000000ULL) == &b &&
         qs_handles_get(&t, 6) == &c &&
         qs_handles_get(&t, 1000000000001ULL) == &d &&
         qs_handles_get(&t, 3) == &e && qs_handles_get(&t, 4) == NULL &&
         qs_handles_get(&t, 999999999999ULL) == NULL &&
         qs_handles_get(&t, ~0ULL) == NULL;
    ok = ok && qs_handles_del(&t, 6) == &c && qs_handles_del(&t, 6) == NULL &&
         qs_handles_del(&t, 1000000000000ULL) == &b &&
         qs_handles_del(&t, ~0ULL) == NULL && qs_handles_count(&t) == 3;
    qs_handles_destroy(&t);
    return ok;
}

/* Through the public API: D1 stays in flight at destination a while
 * 20,000 deliveries at b come and go; then done D1 is accepted once. */
static int end_to_end(void)
{
    char err[256];
    qs_params *p = qs_params_new();
    qs_sched *s;
    qs_delivery d;
    qs_group ga = {"smtp", NULL, "a.example", 1};
    qs_group gb = {"smtp", NULL, "b.example", 1};
    int ok = 1, i;
    if (!p)
        return 0;
    s = qs_sched_new(p, QS_PROFILE_DOCUMENT, NULL, NULL, err, sizeof err);
    if (!s) {
        qs_params_free(p);
        return 0;
    }
    ok = qs_arrive(s, "M0", &ga, 1, err, sizeof err) == 0 &&
         qs_select(s, NULL, &d, err, sizeof err) == 1 && d.handle == 1;
    for (i = 1; ok && i <= 20000; i++) {
        char id[32];
        snprintf(id, sizeof id, "M%d", i);
        ok = qs_arrive(s, id, &gb, 1, err, sizeof err) == 0 &&
             qs_select(s, NULL, &d, err, sizeof err) == 1 &&
             d.handle == i + 1 &&
             qs_done(s, d.handle, QS_DONE_OK, err, sizeof err) == 0;
    }
    ok = ok && qs_in_flight(s, 1) && qs_in_flight_count(s) == 1 &&
         qs_in_flight_nth(s, 0) == 1 &&
         qs_done(s, 1, QS_DONE_OK, err, sizeof err) == 0 &&
         !qs_in_flight(s, 1) &&
         qs_done(s, 1, QS_DONE_OK, err, sizeof err) != 0;
    qs_sched_free(s);
    qs_params_free(p);
    return ok;
}

int main(void)
{
    size_t cap = 0;
    int listed = 0;
    CHECK("handles-random-wide", random_run(1, 5000, 150000, &listed));
    CHECK("handles-list-names-each-once", listed);
    CHECK("handles-random-narrow", random_run(2, 3, 150000, NULL));
    CHECK("handles-random-medium", random_run(3, 64, 150000, NULL));
    CHECK("handles-straggler-found", straggler_run(&cap));
    if (cap > 64)
        printf("# ring of %zu slots for 2 handles\n", cap);
    CHECK("handles-straggler-ring-stays-small", cap > 0 && cap <= 64);
    CHECK("handles-out-of-order", jumps_run());
    CHECK("handles-end-to-end-old-handle", end_to_end());
    return CHECK_DONE();
}
