/*
 * test_parked.c - discarded destination queues, parked under their names
 * (src/concurrency.c qsi_queue_obtain / qsi_queue_free_if_idle, issue 16).
 *
 * Owns: the promise that parking is invisible.  S-CON-13 says an idle
 * destination is discarded and starts over at the initial window when it
 * gets mail again; qsched keeps the discarded queue's memory (its map
 * slot and name) so that the come-back costs no map delete and insertion.
 * Checked here, against values derived independently of the parking code:
 *   - a destination that came back is in exactly the state of a queue
 *     created for the same arrival by a fresh scheduler (every field of
 *     the queue's state compared; the window had been raised by positive
 *     feedback, the hysteresis accumulators were non-zero);
 *   - it is the newest queue: last on the transport's list (the order
 *     Postfix's round robin adds room in, S-PFX-17), with the largest
 *     serial;
 *   - at most QSI_QUEUES_PARKED queues stay parked: with 300 destinations
 *     gone idle in turn, the 44 oldest are no longer in the map, the 256
 *     newest are, parked, in the order they went idle;
 *   - a parked destination that comes back leaves the parked list, an
 *     evicted one is created anew, and the lists stay consistent;
 *   - a dead destination is never parked (it is the memory that the
 *     destination is dead).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "check.h"

static char err[256];

static qs_sched *new_sched(void)
{
    qs_params *p = qs_params_new();
    qs_sched *s;
    if (!p ||
        qs_params_set(p, "initial_destination_concurrency", "2", err,
                      sizeof err) < 0) {
        qs_params_free(p);
        return NULL;
    }
    s = qs_sched_new(p, QS_PROFILE_POSTFIX, NULL, NULL, err, sizeof err);
    qs_params_free(p);
    return s;
}

/* One message of n recipients for smtp:dest. */
static int arrive(qs_sched *s, const char *id, const char *dest, int64_t n)
{
    qs_group g = {"smtp", NULL, dest, n};
    return qs_arrive(s, id, &g, 1, err, sizeof err) == 0;
}

/* Selects and finishes (ok) deliveries until the scheduler is idle. */
static int drain(qs_sched *s)
{
    qs_delivery d;
    int64_t h[64];
    int n, i, guard;
    for (guard = 0; guard < 10000; guard++) {
        for (n = 0; n < 64 && qs_select(s, NULL, &d, err, sizeof err) == 1;)
            h[n++] = d.handle;
        if (n == 0)
            return 1;
        for (i = 0; i < n; i++)
            if (qs_done(s, h[i], QS_DONE_OK, err, sizeof err) < 0)
                return 0;
    }
    return 0;
}

/* The queue of smtp:dest in the transport's map, found as
 * qsi_queue_obtain finds it: by qs_map_hash_len, which reads up to 8
 * bytes past the name's end (a padded copy here). */
static qs_queue *queue_of(qs_sched *s, const char *dest)
{
    qs_transport *t = qsi_transport_find(s, "smtp");
    char name[256 + 8] = {0};
    size_t len = strlen(dest);
    if (!t || len > 256)
        return NULL;
    memcpy(name, dest, len);
    return qs_map_get_hashed(&t->queues, qs_map_hash_len(name, len), name, 0);
}

/* Every field of the queue's state, against the fresh scheduler's. */
static int same_state(const qs_queue *a, const qs_queue *b)
{
    return a->todo == b->todo && a->busy == b->busy &&
           a->window == b->window && a->success == b->success &&
           a->failure == b->failure && a->fail_cohorts == b->fail_cohorts &&
           a->dead == b->dead && a->revive_at == b->revive_at &&
           !a->dprev == !b->dprev && !a->dnext == !b->dnext &&
           a->blocker_tag == b->blocker_tag && a->ready == b->ready &&
           a->parked == b->parked && !a->park_prev && !a->park_next &&
           a->ck_epoch == b->ck_epoch && a->ck_index == b->ck_index &&
           a->ck_busy == b->ck_busy && a->ck_todo_n == b->ck_todo_n &&
           a->ck_busy_n == b->ck_busy_n && a->ck_ready == b->ck_ready &&
           a->ck_in == b->ck_in && !a->busy_head == !b->busy_head &&
           !a->todo_head == !b->todo_head;
}

/* The transport's parked list: consistent both ways, nparked long. */
static int park_list_ok(const qs_transport *t)
{
    const qs_queue *q, *prev = NULL;
    int64_t n = 0;
    for (q = t->park_head; q; prev = q, q = q->park_next, n++)
        if (!q->parked || q->park_prev != prev)
            return 0;
    return prev == t->park_tail && n == t->nparked;
}

static int newest(const qs_transport *t, const qs_queue *q)
{
    const qs_queue *o;
    if (t->qtail != q || q->next)
        return 0;
    for (o = t->qhead; o; o = o->next)
        if (o != q && o->serial >= q->serial)
            return 0;
    return 1;
}

int main(void)
{
    qs_sched *s = new_sched(), *fresh = new_sched();
    qs_transport *t;
    qs_queue *q, *f;
    char id[32], dest[32];
    int i, ok, window_raised = 0, order_ok = 1;

    if (!s || !fresh) {
        printf("FAIL parked-setup: %s\n", err);
        return 1;
    }
    /* A destination's window raised by positive feedback, then idle. */
    ok = arrive(s, "M1", "a.example", 1);
    for (i = 2; ok && i <= 40; i++) {
        snprintf(id, sizeof id, "M%d", i);
        ok = arrive(s, id, i % 2 ? "a.example" : "b.example", 1);
    }
    q = queue_of(s, "a.example");
    window_raised = q && q->window == 2;
    ok = ok && drain(s);
    q = queue_of(s, "a.example");
    t = qsi_transport_find(s, "smtp");
    CHECK("parked-setup-feedback-ran", ok && window_raised && q &&
          (q->window > 2 || q->success != 0));
    CHECK("parked-idle-destination-parked", q && q->parked && t &&
          t->nparked == 2 && t->qhead == NULL && park_list_ok(t));

    /* It comes back: the state of a new queue for the same arrival. */
    ok = arrive(s, "M100", "a.example", 3) && arrive(fresh, "M100",
                                                      "a.example", 3);
    q = queue_of(s, "a.example");
    f = queue_of(fresh, "a.example");
    CHECK("parked-comes-back-as-new", ok && q && f && same_state(q, f) &&
          q->window == 2);
    CHECK("parked-comes-back-newest", q && newest(t, q));
    CHECK("parked-comes-back-leaves-list", t->nparked == 1 &&
          park_list_ok(t) && t->park_head == queue_of(s, "b.example"));
    ok = drain(s);
    CHECK("parked-again-after-drain", ok && q->parked && t->nparked == 2 &&
          park_list_ok(t) && t->park_tail == q);

    /* A destination parked after a failed delivery (negative feedback:
     * window 1, failure and fail_cohorts non-zero) starts over too. */
    ok = arrive(s, "F1", "c.example", 1);
    {
        qs_delivery d;
        ok = ok && qs_select(s, "smtp", &d, err, sizeof err) == 1 &&
             qs_done(s, d.handle, QS_DONE_FAIL, err, sizeof err) == 0;
    }
    q = queue_of(s, "c.example");
    CHECK("parked-setup-failure-ran", ok && q && q->parked &&
          q->fail_cohorts > 0 && q->failure != 0 && q->window == 1);
    ok = arrive(s, "F2", "c.example", 1) && arrive(fresh, "F2", "c.example",
                                                    1);
    q = queue_of(s, "c.example");
    f = queue_of(fresh, "c.example");
    CHECK("parked-after-failure-comes-back-as-new", ok && q && f &&
          same_state(q, f) && q->window == 2 && newest(t, q));
    ok = drain(s);

    /* 300 destinations go idle in turn: the 256 newest stay parked. */
    for (i = 0; ok && i < 300; i++) {
        snprintf(id, sizeof id, "N%d", i);
        snprintf(dest, sizeof dest, "d%d.example", i);
        ok = arrive(s, id, dest, 1) && drain(s);
    }
    CHECK("parked-bound", ok && t->nparked == QSI_QUEUES_PARKED &&
          t->queues.count == QSI_QUEUES_PARKED && park_list_ok(t));
    for (i = 0; i < 300; i++) {
        snprintf(dest, sizeof dest, "d%d.example", i);
        q = queue_of(s, dest);
        if (i < 300 - QSI_QUEUES_PARKED ? q != NULL : !q || !q->parked)
            order_ok = 0;
    }
    CHECK("parked-oldest-evicted-first", order_ok &&
          queue_of(s, "a.example") == NULL &&
          t->park_head == queue_of(s, "d44.example") &&
          t->park_tail == queue_of(s, "d299.example"));

    /* An evicted one is created anew, a parked one unparked: both new. */
    ok = arrive(s, "P1", "d0.example", 1) && arrive(s, "P2", "d100.example",
                                                     1);
    q = queue_of(s, "d100.example");
    CHECK("parked-evicted-and-parked-come-back", ok && q && !q->parked &&
          newest(t, q) && q->prev == queue_of(s, "d0.example") &&
          t->nparked == QSI_QUEUES_PARKED - 1 && park_list_ok(t) &&
          t->queues.count == QSI_QUEUES_PARKED + 1);
    ok = drain(s);
    CHECK("parked-bound-kept", ok && t->nparked == QSI_QUEUES_PARKED &&
          t->queues.count == QSI_QUEUES_PARKED && park_list_ok(t) &&
          t->park_tail == queue_of(s, "d100.example"));

    /* A dead destination stays on the list, not parked: five messages
     * pending, deliveries failing until it is declared dead (each failure
     * adds 1/window of a pseudo-cohort; the cohort limit is 1), its
     * pending entries deferred - idle, but dead. */
    for (i = 1, ok = 1; ok && i <= 5; i++) {
        snprintf(id, sizeof id, "X%d", i);
        ok = arrive(s, id, "dead.example", 1);
    }
    for (i = 0; ok && i < 50; i++) {
        qs_delivery d;
        if (qs_select(s, NULL, &d, err, sizeof err) != 1)
            break;
        ok = qs_done(s, d.handle, QS_DONE_FAIL, err, sizeof err) == 0;
    }
    q = queue_of(s, "dead.example");
    CHECK("parked-dead-not-parked", ok && q && q->dead && !q->parked &&
          t->qhead == q);
    qs_sched_free(s);
    qs_sched_free(fresh);
    return CHECK_DONE();
}
