/*
 * test_check.c - the incremental invariant checker (qs_check_changes,
 * src/check.c; issue 16) against the full one (qs_check_invariants).
 *
 * Owns: the evidence that the incremental checker (a) accepts every honest
 * state the full checker accepts, event after event, on streams that
 * exercise every part of the scheduler (preemption stacks, refills, pools,
 * dead destinations, blockers), and (b) refuses a broken state when the
 * broken object was touched: each breakage below is one that
 * test_memory.c's test_checker_catches shows the full checker refusing,
 * applied to an object that is then noted as an event would note it.
 * Also (c): a change the core forgets to note leaves a share of the
 * checker's sums stale, which the next check of the sum reports (a missing
 * note is loud, not silent).  And (d): the checker's records of entries
 * and jobs (qs_entry_ck, qs_job_ck) exist exactly while it is on - none in
 * a plain replay, one per live entry and job in a checked one - and go
 * back to their pools with their objects.  White box: it includes
 * sched_int.h.
 */
#include "check.h"
#include "harness.h"
#include "sched_int.h"

static const char *params[] = {
    "qmgr_message_recipient_minimum", "2",
    "qmgr_message_recipient_limit", "20",
    "smtp_recipient_limit", "20",
    "smtp_extra_recipient_limit", "12",
    "smtp_recipient_refill_limit", "3",
    "smtp_destination_recipient_limit", "1",
    "default_delivery_slot_cost", "2",
    "default_delivery_slot_discount", "0",
    "default_delivery_slot_loan", "0",
    "default_minimum_delivery_slots", "1",
    "default_destination_concurrency_failed_cohort_limit", "1",
    NULL};

/* (a) A stream with stacks, refills, failures (a dead destination), and
 * completions: after every event both checkers agree that all is well. */
static void test_agrees(void)
{
    harness *h = h_new(QS_PROFILE_DOCUMENT, params);
    char err[256];
    int i, bad_inc = 0, bad_full = 0;
    long long hd;
    h_arrive(h, "B", "smtp:big.example*200");
    if (qs_check_changes(h->s, err, sizeof err) < 0)
        bad_inc++;
    h_arrive(h, "S", "smtp:small.example*8 relay:r.example*3");
    h_arrive(h, "D", "smtp:dead.example*4");
    for (i = 0; i < 120; i++) {
        hd = h_select(h, NULL);
        if (qs_check_changes(h->s, err, sizeof err) < 0)
            bad_inc++;
        if (h_invariants(h) < 0)
            bad_full++;
        if (hd > 0) {
            h_done(h, hd, i % 7 == 3 ? QS_DONE_FAIL : QS_DONE_OK);
            if (qs_check_changes(h->s, err, sizeof err) < 0)
                bad_inc++;
        }
        if (i == 40)
            h_arrive(h, "L", "smtp:late.example*5");
    }
    CHECK_EQ_LL("incremental checker: no complaint on an honest stream",
                bad_inc, 0);
    CHECK_EQ_LL("full checker: no complaint on the same stream", bad_full,
                0);
    CHECK("incremental checker: the stream delivered",
          h->ndeliv > 100);
    h_free(h);
}

/* (b) and (c) on the state of test_memory.c's checker test: S preempting
 * B, unread recipients left. */
static void test_catches(void)
{
    harness *h = h_new(QS_PROFILE_DOCUMENT, params);
    qs_sched *s = h->s;
    qs_transport *t;
    qs_message *b;
    qs_job *jb, *js;
    qs_queue *q;
    char err[256];
    int i;
    int64_t save;
    h_arrive(h, "B", "smtp:big.example*1000");
    CHECK("incremental checker: the first call checks the whole state",
          qs_check_changes(s, err, sizeof err) == 0 && s->ck_on);
    h_arrive(h, "S", "smtp:small.example*8");
    for (i = 0; i < 17; i++) {
        h_select(h, NULL); /* S preempts B at the 17th select */
        qs_check_changes(s, err, sizeof err);
    }
    CHECK("incremental checker: the honest state passes",
          qs_check_changes(s, err, sizeof err) == 0);
    CHECK("incremental checker: the state has a preemption",
          h_last(h, QS_T_PREEMPT) != NULL);
    t = s->xhead;
    jb = t->thead;
    js = jb ? jb->tnext : NULL;
    b = jb ? jb->message : NULL;
    q = t->qhead;
    if (!t || !jb || !js || !b || !q || js->parent != jb) {
        CHECK("incremental checker: expected state (S preempting B)", 0);
        h_free(h);
        return;
    }
    /* one field broken, its owner noted as the event that broke it would
     * note it; the check must refuse; then repaired, noted, accepted */
#define BREAK(label, note, field, delta)                                     \
    do {                                                                     \
        save = (field);                                                      \
        (field) += (delta);                                                  \
        note;                                                                \
        CHECK("incremental checker catches " label,                          \
              qs_check_changes(s, err, sizeof err) < 0);                     \
        printf("#   %s\n", err);                                             \
        (field) = save;                                                      \
        note;                                                                \
        CHECK("incremental checker accepts the repair of " label,            \
              qs_check_changes(s, err, sizeof err) == 0);                    \
    } while (0)
    BREAK("a lost unread recipient", QSI_CK_MSG(s, b), b->rcpt_unread, -1);
    BREAK("a recipient counted twice", QSI_CK_MSG(s, b), b->delivered, 1);
    BREAK("a job count off", QSI_CK_MSG(s, b), jb->rcpt_count, 1);
    BREAK("selected entries off", QSI_CK_MSG(s, b), jb->selected_entries,
          1);
    BREAK("a spare-jobs count off", QSI_CK_MSG(s, b), b->jobs_spare, 1);
    BREAK("a slot from nothing", QSI_CK_XPORT(s, t), t->rcpt_unused, 1);
    BREAK("a job slot from nothing", QSI_CK_MSG(s, js->message),
          js->rcpt_limit, 1);
    BREAK("a queue count off", QSI_CK_QUEUE(s, q), q->todo, 1);
    BREAK("a transport in-flight count off", QSI_CK_XPORT(s, t),
          t->in_flight, 1);
    BREAK("the in-core count off", QSI_CK_XPORT(s, t), s->in_core, 1);
    BREAK("a child at its parent's level", QSI_CK_JOB(s, js),
          js->stack_level, -js->stack_level);
    BREAK("an unsorted by-time list", QSI_CK_JOB(s, jb), b->queued_time,
          50);
#undef BREAK
    /* (c) a slot moved from the pool to S's job (conservation kept, the
     * full checker content) by code that noted the transport but forgot
     * the job's message: the job's share in the transport's sum is
     * stale, and the sum reports it */
    js->rcpt_limit += 1;
    js->message->rcpt_limit += 1;
    t->rcpt_unused -= 1;
    QSI_CK_XPORT(s, t);
    CHECK("full checker: the moved slot is a consistent state",
          qs_check_invariants(s, err, sizeof err) == 0);
    CHECK("incremental checker: a forgotten note is reported",
          qs_check_changes(s, err, sizeof err) < 0 &&
              strstr(err, "recipient limit") != NULL);
    printf("#   %s\n", err);
    QSI_CK_MSG(s, js->message);
    CHECK("incremental checker: noted, the same state passes",
          qs_check_changes(s, err, sizeof err) == 0);
    h_free(h);
}

/* (d) The records.  Counted: a pool's slabs (alloc.c: about 8 KiB each,
 * one object each in the sanitizer builds), every live entry (on its
 * queue's todo or busy list) and every job of an active message. */
static long long pool_slabs(const qs_pool *p)
{
    long long n = 0;
    const void *slab = p->slabs;
    while (slab) {
        memcpy(&slab, slab, sizeof slab);
        n++;
    }
    return n;
}

/* live entries and jobs, and how many of them have a record */
static void count_records(const qs_sched *s, long long *entries,
                          long long *entry_records, long long *jobs,
                          long long *job_records)
{
    const qs_transport *t;
    const qs_message *m;
    *entries = *entry_records = *jobs = *job_records = 0;
    for (t = s->xhead; t; t = t->next) {
        const qs_queue *q;
        for (q = t->qhead; q; q = q->next) {
            const qs_entry *e;
            for (e = q->todo_head; e; e = e->qnext) {
                ++*entries;
                *entry_records += e->ck != NULL;
            }
            for (e = q->busy_head; e; e = e->qnext) {
                ++*entries;
                *entry_records += e->ck != NULL;
            }
        }
    }
    for (m = s->active_head; m; m = m->next) {
        const qs_job *j;
        for (j = m->jobs; j; j = j->mnext) {
            ++*jobs;
            *job_records += j->ck != NULL;
        }
    }
}

/* One message of one recipient after another, delivered, `rounds` times:
 * at most one entry and one job live at a time.  With the checker after
 * every event if `checked`. */
static harness *one_at_a_time(int rounds, int checked, int *bad)
{
    harness *h = h_new(QS_PROFILE_DOCUMENT, params);
    char err[256], id[32];
    int i;
    *bad = 0;
    for (i = 0; i < rounds; i++) {
        long long d;
        snprintf(id, sizeof id, "M%d", i);
        h_arrive(h, id, "smtp:a.example");
        if (checked && qs_check_changes(h->s, err, sizeof err) < 0)
            ++*bad;
        d = h_select(h, NULL);
        if (checked && qs_check_changes(h->s, err, sizeof err) < 0)
            ++*bad;
        if (d > 0)
            h_done(h, d, QS_DONE_OK);
        if (checked && qs_check_changes(h->s, err, sizeof err) < 0)
            ++*bad;
    }
    return h;
}

static void test_records(void)
{
    long long entries, erec, jobs, jrec;
    int bad;
    harness *h;
    /* a plain replay: the records' pools never cut a slab, no object
     * points at one */
    h = h_new(QS_PROFILE_DOCUMENT, params);
    h_arrive(h, "B", "smtp:big.example*30 smtp:other.example*5");
    h_arrive(h, "S", "smtp:small.example*4");
    h_select(h, NULL);
    h_select(h, NULL);
    count_records(h->s, &entries, &erec, &jobs, &jrec);
    CHECK("records: the plain state has entries and jobs",
          entries > 2 && jobs == 2);
    CHECK_EQ_LL("records: no entry of a plain replay has one", erec, 0);
    CHECK_EQ_LL("records: no job of a plain replay has one", jrec, 0);
    CHECK_EQ_LL("records: the entry records' pool is empty",
                pool_slabs(&h->s->ck_entry_pool), 0);
    CHECK_EQ_LL("records: the job records' pool is empty",
                pool_slabs(&h->s->ck_job_pool), 0);
    /* the checker's first call takes one for every live object, and the
     * events after it one for every new one */
    {
        char err[256];
        CHECK("records: the first check passes",
              qs_check_changes(h->s, err, sizeof err) == 0);
        count_records(h->s, &entries, &erec, &jobs, &jrec);
        CHECK_EQ_LL("records: every entry has one after the first check",
                    erec, entries);
        CHECK_EQ_LL("records: every job has one after the first check",
                    jrec, jobs);
        h_arrive(h, "T", "smtp:third.example*3");
        h_select(h, NULL);
        count_records(h->s, &entries, &erec, &jobs, &jrec);
        CHECK_EQ_LL("records: a new entry has one at once", erec, entries);
        CHECK_EQ_LL("records: a new job has one at once", jrec, jobs);
    }
    h_free(h);
    /* records go back with their objects: 500 entries and jobs made and
     * freed one at a time need one record of each at a time, so their
     * pools stay within one slab (two in the sanitizer builds, whose
     * slabs hold one object), where a record kept past its object would
     * take 500 */
    h = one_at_a_time(500, 1, &bad);
    CHECK_EQ_LL("records: the checked stream passes every check", bad, 0);
    CHECK_EQ_LL("records: the stream delivered every message",
                (long long)h->ndeliv, 500);
    CHECK("records: entry records recycled (at most 2 slabs)",
          pool_slabs(&h->s->ck_entry_pool) >= 1 &&
              pool_slabs(&h->s->ck_entry_pool) <= 2);
    CHECK("records: job records recycled (at most 2 slabs)",
          pool_slabs(&h->s->ck_job_pool) >= 1 &&
              pool_slabs(&h->s->ck_job_pool) <= 2);
    h_free(h);
}

int main(void)
{
    test_agrees();
    test_catches();
    test_records();
    printf("# test_check: %d checks, %d failed\n", check_count,
           check_failures);
    return CHECK_DONE();
}
