/*
 * test_preempt.c - tests of the preemptive job scheduler (spec rules
 * S-PRE-2 .. S-PRE-15): the pure kernels with hand-computed tables, and
 * scenarios driven through the public API (src/qsched.h) where a property
 * is easier to assert in C than in a golden trace: the document's delivery
 * sequences under several parameter sets, the job list order of the
 * document's preemption pictures (read back with qs_describe), the
 * inflation bound of a bulk job under a continuous stream of small jobs,
 * the candidate score as time *since* enqueue, and the exclusion of
 * preempted jobs from the candidates.
 *
 * Owns: these checks only.  Every expected value is worked out by hand in
 * the comment next to it, from SCHEDULER_README ("How the preemption
 * works", "How destination concurrency limits affect the scheduling
 * algorithm") and the rules in spec/rules.md; none is copied from a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kernels.h"
#include "qsched.h"

/* ================================================================== */
/* the API harness (the same in test_memory.c)                         */
/* ================================================================== */
/* A small driver of the public API: arrive lines written as in the event
 * language ("smtp:a.example*3 smtp:w@w.example"), select/done wrappers
 * that log every delivery, a trace sink keeping the explain records the
 * tests look at, and a compact rendering of a transport's job list read
 * back from qs_describe ("*M7:2:B:P" = current job M7, stack level 2,
 * blocker, has a stack parent).  Everything goes through src/qsched.h. */
#include "harness.h"

/* select then finish at once; returns the handle (0 idle) */
static long long h_step(harness *h, const char *transport)
{
    long long d = h_select(h, transport);
    if (d)
        h_done(h, d, QS_DONE_OK);
    return d;
}

static void h_at(harness *h, long long t)
{
    if (qs_advance(h->s, t, h->err, sizeof h->err)) {
        printf("# harness: at %lld: %s\n", t, h->err);
        h->errors++;
    }
}

/* Does the n bytes at p contain word? */
static int h_has(const char *p, size_t n, const char *word)
{
    size_t w = strlen(word), i;
    for (i = 0; i + w <= n; i++)
        if (memcmp(p + i, word, w) == 0)
            return 1;
    return 0;
}

/* The transport's job list from qs_describe, as "*M7:2:B:P M1:0 ...". */
static void h_joblist(harness *h, const char *transport, char *out,
                      size_t outlen)
{
    static char desc[1 << 16];
    char head[128], *p, *end;
    size_t o = 0;
    out[0] = 0;
    qs_describe(h->s, desc, sizeof desc);
    snprintf(head, sizeof head, "transport %s:", transport);
    p = strstr(desc, head);
    if (!p || !(p = strstr(p, "job list:")))
        return;
    p += strlen("job list:");
    end = strchr(p, '\n');
    while (p && p < end) {
        char id[64], *paren, *close;
        int current = 0, level = 0, n;
        while (*p == ' ')
            p++;
        if (p >= end)
            break;
        if (*p == '*') {
            current = 1;
            p++;
        }
        paren = strchr(p, '(');
        close = paren ? strchr(paren, ')') : NULL;
        if (!paren || !close || close > end)
            break;
        n = (int)(paren - p);
        snprintf(id, sizeof id, "%.*s", n, p);
        sscanf(paren, "(level %d", &level);
        o += (size_t)snprintf(out + o, o < outlen ? outlen - o : 0,
                              "%s%s%s:%d%s%s", o ? " " : "",
                              current ? "*" : "", id, level,
                              h_has(paren, (size_t)(close - paren), "blocker")
                                  ? ":B" : "",
                              h_has(paren, (size_t)(close - paren),
                                    "preempting") ? ":P" : "");
        p = close + 1;
    }
}

/* The deliveries so far as one string of message ids with the leading
 * "M" removed ("M1" "M2" -> "12"), for the document's sequences. */
static void h_sequence(const harness *h, char *out, size_t outlen)
{
    size_t o = 0;
    int i;
    out[0] = 0;
    for (i = 0; i < h->ndeliv && o + 8 < outlen; i++)
        o += (size_t)snprintf(out + o, outlen - o, "%s",
                              h->dmsg[i][0] == 'M' ? h->dmsg[i] + 1
                                                   : h->dmsg[i]);
}

/* Count kept records of one kind (and message, if msg != NULL). */
static int h_count(const harness *h, enum qs_trace_kind kind,
                   const char *msg)
{
    int i, n = 0;
    for (i = 0; i < h->nrec; i++)
        if (h->rec[i].kind == kind && (!msg || !strcmp(h->rec[i].msg, msg)))
            n++;
    return n;
}


/* ================================================================== */
/* kernels                                                             */
/* ================================================================== */

/* S-PRE-3: qs_preempt_gate(counter, max entries, minimum slots, k). */
static void test_gate(void)
{
    static const struct {
        const char *name;
        long long counter, max_entries;
        int min_slots, k, want;
    } rows[] = {
        /* counter 0: nothing accumulated yet */
        {"S-PRE-3 gate counter 0", 0, 100, 3, 2, 0},
        /* counter negative after a loan */
        {"S-PRE-3 gate counter -2", -2, 100, 3, 2, 0},
        /* 6 entries >= 3 * 2: could accumulate the minimum */
        {"S-PRE-3 gate 6 >= 3*2", 1, 6, 3, 2, 1},
        /* 5 entries < 3 * 2: never */
        {"S-PRE-3 gate 5 < 3*2", 4, 5, 3, 2, 0},
        /* the document's ten-recipient job with the defaults k=5, min 3:
         * 10 < 15, the default never preempts a 10-entry job */
        {"S-PRE-3 gate 10 < 3*5", 9, 10, 3, 5, 0},
        {"S-PRE-3 gate 15 >= 3*5", 1, 15, 3, 5, 1},
        /* minimum 0: only the counter matters */
        {"S-PRE-3 gate min 0", 1, 1, 0, 2, 1},
    };
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_EQ_LL(rows[i].name,
                    qs_preempt_gate(rows[i].counter, rows[i].max_entries,
                                    rows[i].min_slots, rows[i].k),
                    rows[i].want);
}

/* S-PRE-5: max_slots = (in-core entries - selected + counter) / k. */
static void test_max_slots(void)
{
    static const struct {
        const char *name;
        long long min_entries, selected, counter;
        int k;
        long long want;
    } rows[] = {
        /* the document's 10-recipient job after one selection */
        {"S-PRE-5 max_slots (10-1+1)/2", 10, 1, 1, 2, 5},
        /* ... after M2 was paid for and one more selection */
        {"S-PRE-5 max_slots (10-5+1)/2", 10, 5, 1, 2, 3},
        {"S-PRE-5 max_slots (10-9+1)/2", 10, 9, 1, 2, 1},
        /* selecting moves one from entries to counter: unchanged */
        {"S-PRE-5 max_slots (12-10+10)/2", 12, 10, 10, 2, 6},
        /* after a loan: (5-3+(-1))/2 = 1/2 = 0 */
        {"S-PRE-5 max_slots after loan", 5, 3, -1, 2, 0},
        /* negative numerator truncates toward zero: -3/2 = -1 */
        {"S-PRE-5 max_slots negative", 5, 5, -3, 2, -1},
        /* k = 5: (100-20+20)/5 */
        {"S-PRE-5 max_slots k=5", 100, 20, 20, 5, 20},
    };
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_EQ_LL(rows[i].name,
                    qs_candidate_max_slots(rows[i].min_entries,
                                           rows[i].selected,
                                           rows[i].counter, rows[i].k),
                    rows[i].want);
}

/* S-PRE-5: 1 <= needed <= max_slots. */
static void test_fits(void)
{
    CHECK_EQ_LL("S-PRE-5 fits 0 needed", qs_candidate_fits(0, 5), 0);
    CHECK_EQ_LL("S-PRE-5 fits 1 of 5", qs_candidate_fits(1, 5), 1);
    CHECK_EQ_LL("S-PRE-5 fits 5 of 5", qs_candidate_fits(5, 5), 1);
    CHECK_EQ_LL("S-PRE-5 fits 6 of 5", qs_candidate_fits(6, 5), 0);
    CHECK_EQ_LL("S-PRE-5 fits 1 of 0", qs_candidate_fits(1, 0), 0);
    CHECK_EQ_LL("S-PRE-5 fits 1 of -1", qs_candidate_fits(1, -1), 0);
}

/* S-PRE-6: a/b > c/d, exactly. */
static void test_score(void)
{
    /* equal scores: not better, so the earlier job on the list stays */
    CHECK_EQ_LL("S-PRE-6 score 1/2 vs 1/2", qs_score_better(1, 2, 1, 2), 0);
    CHECK_EQ_LL("S-PRE-6 score 2/4 vs 1/2", qs_score_better(2, 4, 1, 2), 0);
    CHECK_EQ_LL("S-PRE-6 score 1/2 vs 1/3", qs_score_better(1, 2, 1, 3), 1);
    CHECK_EQ_LL("S-PRE-6 score 1/3 vs 1/2", qs_score_better(1, 3, 1, 2), 0);
    /* 3/7 = 0.4286 > 2/5 = 0.4 */
    CHECK_EQ_LL("S-PRE-6 score 3/7 vs 2/5", qs_score_better(3, 7, 2, 5), 1);
    CHECK_EQ_LL("S-PRE-6 score 2/5 vs 3/7", qs_score_better(2, 5, 3, 7), 0);
    /* old and big beats new and small: 11/4 > 1/1 */
    CHECK_EQ_LL("S-PRE-6 score 11/4 vs 1/1", qs_score_better(11, 4, 1, 1),
                1);
    /* (1e9-1)/1e9 > (1e9-2)/(1e9-1): the difference, about 1e-18, is
     * below double precision; cross multiplication in 64 bits gets it:
     * (1e9-1)^2 = 1e18 - 2e9 + 1 > (1e9-2)*1e9 = 1e18 - 2e9. */
    CHECK_EQ_LL("S-PRE-6 score exact near 1",
                qs_score_better(999999999LL, 1000000000LL, 999999998LL,
                                999999999LL),
                1);
}

/* S-PRE-6 early stop: delay <= best_delay / best_total. */
static void test_cannot_improve(void)
{
    /* best 1/2: a delay of 1 could still give 1/1 > 1/2 */
    CHECK_EQ_LL("S-PRE-6 stop 1 vs 1/2", qs_score_cannot_improve(1, 1, 2),
                0);
    /* best 2/2 = 1: delay 1 gives at most 1/1 = 1, not better */
    CHECK_EQ_LL("S-PRE-6 stop 1 vs 2/2", qs_score_cannot_improve(1, 2, 2),
                1);
    /* best 5/1: delay 1 can never beat it */
    CHECK_EQ_LL("S-PRE-6 stop 1 vs 5/1", qs_score_cannot_improve(1, 5, 1),
                1);
    /* best 5/2 = 2.5: delay 3 could (3/1) */
    CHECK_EQ_LL("S-PRE-6 stop 3 vs 5/2", qs_score_cannot_improve(3, 5, 2),
                0);
}

/* S-PRE-7: counter/k + loan >= needed * (100 - discount) / 100. */
static void test_fires(void)
{
    static const struct {
        const char *name;
        long long counter;
        int k, loan, discount;
        long long needed;
        int want;
    } rows[] = {
        /* the document's first sequence (k 2, no loan, no discount) */
        {"S-PRE-7 fires 3/2 < 2", 3, 2, 0, 0, 2, 0},  /* 1 < 2 */
        {"S-PRE-7 fires 4/2 >= 2", 4, 2, 0, 0, 2, 1}, /* 2 >= 2 */
        /* the second: discount 50 */
        {"S-PRE-7 fires 1/2 < 2*50%", 1, 2, 0, 50, 2, 0}, /* 0 < 1 */
        {"S-PRE-7 fires 2/2 >= 2*50%", 2, 2, 0, 50, 2, 1}, /* 1 >= 1 */
        /* the fraction counts: 1 < 3 * 50/100 = 1.5 (Postfix compares
         * against a double) */
        {"S-PRE-7 fires 3/2 < 1.5", 3, 2, 0, 50, 3, 0},
        {"S-PRE-7 fires 4/2 >= 1.5", 4, 2, 0, 50, 3, 1},
        /* the defaults k 5, loan 3, discount 50: 1/5 + 3 = 3 >= 1*0.5 */
        {"S-PRE-7 fires defaults", 1, 5, 3, 50, 1, 1},
        /* 0 + 3 = 3 < 7 * 0.5 = 3.5 */
        {"S-PRE-7 fires loan 3 < 3.5", 4, 5, 3, 50, 7, 0},
        {"S-PRE-7 fires loan 4 >= 3.5", 5, 5, 3, 50, 7, 1},
        /* loan only: 1/2 + 1 = 1 >= 1 */
        {"S-PRE-7 fires loan 1", 1, 2, 1, 0, 1, 1},
        /* discount 100: nothing needed */
        {"S-PRE-7 fires discount 100", 1, 2, 0, 100, 9, 1},
        /* integer division of the counter: 9/5 = 1 < 2 */
        {"S-PRE-7 fires 9/5 < 2", 9, 5, 0, 0, 2, 0},
        {"S-PRE-7 fires 10/5 >= 2", 10, 5, 0, 0, 2, 1},
    };
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_EQ_LL(rows[i].name,
                    qs_preempt_fires(rows[i].counter, rows[i].k,
                                     rows[i].loan, rows[i].discount,
                                     rows[i].needed),
                    rows[i].want);
}

/* S-PRE-8 / S-PRE-9: charge and refund. */
static void test_charge_refund(void)
{
    /* 4 - 2*2 = 0 (the first sequence); 2 - 2*2 = -2 (the second) */
    CHECK_EQ_LL("S-PRE-8 charge 4-2*2", qs_slots_charge(4, 2, 2), 0);
    CHECK_EQ_LL("S-PRE-8 charge 2-2*2", qs_slots_charge(2, 2, 2), -2);
    CHECK_EQ_LL("S-PRE-8 charge 10-5*2", qs_slots_charge(10, 5, 2), 0);
    CHECK_EQ_LL("S-PRE-8 charge k=5", qs_slots_charge(7, 1, 5), 2);
    /* used exactly what was charged: nothing changes */
    CHECK_EQ_LL("S-PRE-9 refund 0", qs_slots_refund(0, 0, 2, 1, 0), 0);
    /* charged 6, used 1: used_delta -5, parent gets 5*2 back */
    CHECK_EQ_LL("S-PRE-9 refund -5*2", qs_slots_refund(0, -5, 2, 1, 0), 10);
    /* used 2 more than charged: parent pays 2*2 more */
    CHECK_EQ_LL("S-PRE-9 refund +2*2", qs_slots_refund(3, 2, 2, 2, 1), -1);
    /* adopted: child level 2, parent level 0 - not the job it preempted */
    CHECK_EQ_LL("S-PRE-9 no refund adopted", qs_slots_refund(0, -5, 2, 2, 0),
                0);
    CHECK_EQ_LL("S-PRE-9 refund k=5", qs_slots_refund(7, -1, 5, 3, 2), 12);
}

/* ================================================================== */
/* the document's delivery sequences (S-PRE-3 .. S-PRE-9)              */
/* ================================================================== */

/* Ten-recipient M1, then two two-recipient M2, M3; each recipient its own
 * entry and destination; minimum slots 3; each delivery finished before
 * the next select.  Returns the message sequence. */
static void doc_sequence(const char *k, const char *discount,
                         const char *loan, char *out, size_t outlen)
{
    const char *params[] = {
        "default_delivery_slot_cost", k,
        "default_delivery_slot_discount", discount,
        "default_delivery_slot_loan", loan,
        "default_minimum_delivery_slots", "3",
        "smtp_destination_recipient_limit", "1",
        NULL};
    harness *h = h_new(QS_PROFILE_DOCUMENT, params);
    int i;
    h_arrive(h, "M1", "smtp:one.example*10");
    h_arrive(h, "M2", "smtp:two.example*2");
    h_arrive(h, "M3", "smtp:three.example*2");
    for (i = 0; i < 15; i++)
        h_step(h, NULL);
    h_sequence(h, out, outlen);
    if (h->errors || h_invariants(h))
        snprintf(out, outlen, "harness error");
    h_free(h);
}

static void test_doc_sequences(void)
{
    char seq[64];
    /* The document: "the delivery sequence becomes 11112211113311" */
    doc_sequence("2", "0", "0", seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-7 document sequence k=2 discount 0", seq,
                 "11112211113311");
    /* "If we use such a slot loan, the delivery sequence becomes
     * 11221111331111" (waiting for 50% of the slots) */
    doc_sequence("2", "50", "0", seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-7 document sequence k=2 discount 50", seq,
                 "11221111331111");
    /* A loan of 1 slot does the same here: 2/2 + 1 >= 2 at counter 2,
     * 1/2 + 1 < 2 at counter 1. */
    doc_sequence("2", "0", "1", seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-7 sequence k=2 loan 1", seq, "11221111331111");
    /* Loan 2: 1/2 + 2 >= 2 already at counter 1: M2 after one entry;
     * M1 pays 4: -3, so four more M1 entries (-2, -1, 0, 1) before the
     * gate opens again; then max_slots (10-5+1)/2 = 3 and M3 goes in;
     * M1 -3 again, and its last five entries close the sequence. */
    doc_sequence("2", "0", "2", seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-7 sequence k=2 loan 2", seq, "12211113311111");
    /* k = 3, discount 0, loan 0: 10 >= 3*3 passes the gate; M2 needs
     * counter/3 >= 2, i.e. counter 6: six M1 entries, then 22, M1 back to
     * 0.  From then on max_slots = (10-7+1)/3, (10-8+2)/3, (10-9+3)/3 =
     * 1 < 2: M3 no longer fits in what M1 can still accumulate and waits
     * for M1's last four entries: 111111 22 1111 33. */
    doc_sequence("3", "0", "0", seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-7 sequence k=3", seq, "11111122111133");
    /* k = 5 (the default): 10 < 3*5, the gate never opens: FIFO */
    doc_sequence("5", "50", "3", seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-3 sequence k=5 gate closed", seq, "11111111112233");
    /* k = 0 and k = 1: no preemption at all, even with a loan that would
     * fire at once */
    doc_sequence("1", "50", "3", seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-3 sequence k=1 FIFO", seq, "11111111112233");
    doc_sequence("0", "50", "3", seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-3 sequence k=0 FIFO", seq, "11111111112233");
}

/* ================================================================== */
/* the document's pictures, read back with qs_describe                 */
/* ================================================================== */

static const char *const picture_params[] = {
    "default_delivery_slot_cost", "2",
    "default_delivery_slot_discount", "0",
    "default_delivery_slot_loan", "0",
    "default_minimum_delivery_slots", "1",
    "smtp_destination_recipient_limit", "1",
    "initial_destination_concurrency", "1",
    "smtp_destination_concurrency_limit", "1",
    NULL};

/* The stream of tests/golden/pre-stack-picture.events (derivation there):
 * 1 preempted by 4, 4 by 7 (blocked) and by 8 (blocked), 4 completes,
 * 1 and 2 blocked, 3 preempted by 6. */
static void test_stack_picture(void)
{
    harness *h = h_new(QS_PROFILE_DOCUMENT, picture_params);
    char list[512];
    int i;
    h_arrive(h, "M1", "smtp:w@w.example smtp:w@w.example "
                      "smtp:m1.example*10");
    h_arrive(h, "M2", "smtp:v@v.example smtp:v@v.example smtp:v@v.example "
                      "smtp:v@v.example smtp:v@v.example smtp:v@v.example "
                      "smtp:v@v.example");
    h_arrive(h, "M3", "smtp:m3.example*7");
    h_arrive(h, "M4", "smtp:m4.example*5");
    h_arrive(h, "M5", "smtp:m5.example*7");
    h_select(h, NULL); /* D1: w@w.example stays busy */
    for (i = 2; i <= 11; i++)
        h_step(h, NULL);
    /* S11: 4 preempts 1 (counter 10/2 >= 5) */
    h_joblist(h, "smtp", list, sizeof list);
    CHECK_EQ_STR("S-PRE-8 picture: 4 preempts 1", list,
                 "*M4:1:P M1:0 M2:0 M3:0 M5:0");
    h_arrive(h, "M6", "smtp:m6.example*3");
    h_arrive(h, "M7", "smtp:w@w.example");
    h_step(h, NULL);
    h_step(h, NULL);
    /* S13: 7 preempts 4 and is blocked at once; 4 goes on.  The clean
     * picture of the document (1 <- 4 <- 7), with 7 on level 2. */
    h_joblist(h, "smtp", list, sizeof list);
    CHECK_EQ_STR("S-PRE-8 picture: 7 preempts 4 (level 2, blocked)", list,
                 "M7:2:B:P *M4:1:P M1:0 M2:0 M3:0 M5:0 M6:0");
    h_arrive(h, "M8", "smtp:w@w.example");
    h_step(h, NULL);
    h_step(h, NULL);
    /* S15: 8 preempts 4 too (4 is preempted by 7 AND 8), then 4
     * completes: 7 and 8 are adopted by 1 and keep level 2 (S-PRE-10);
     * the current job is the one after 4, i.e. 1. */
    h_joblist(h, "smtp", list, sizeof list);
    CHECK_EQ_STR("S-PRE-10 picture: 4 gone, 7 and 8 adopted by 1", list,
                 "M7:2:B:P M8:2:B:P *M1:0 M2:0 M3:0 M5:0 M6:0");
    h_step(h, NULL);   /* S16: M1's last free entry */
    h_select(h, NULL); /* S17: M1 blocked; D17 M2 to v@v.example busy */
    for (i = 18; i <= 24; i++)
        h_step(h, NULL);
    /* The document: 7--8--1--2--6--3--5 */
    h_joblist(h, "smtp", list, sizeof list);
    CHECK_EQ_STR("S-PRE-11 picture: 7--8--1--2--6--3--5", list,
                 "M7:2:B:P M8:2:B:P M1:0:B M2:0:B *M6:1:P M3:0 M5:0");
    CHECK("picture: invariants hold", h_invariants(h) == 0);
    CHECK("picture: no harness error", h->errors == 0);
    h_free(h);
}

/* The same, with Postfix's readings of S-PRE-12 (R-13 blocker_release =
 * all, R-14 current_job = walk_start: S-PFX-21). */
static const char *const picture_params_postfix_release[] = {
    "default_delivery_slot_cost", "2",
    "default_delivery_slot_discount", "0",
    "default_delivery_slot_loan", "0",
    "default_minimum_delivery_slots", "1",
    "smtp_destination_recipient_limit", "1",
    "initial_destination_concurrency", "1",
    "smtp_destination_concurrency_limit", "1",
    "qsched_reading_blocker_release", "all",
    "qsched_reading_current_job", "walk_start",
    NULL};

/* The stream of tests/golden/pre-blocker-story-b.events: 7 and 4 blocked,
 * 1 completes, 7 unblocked and completed, 2 completed, 4 last.  With
 * postfix_release, the S-PRE-12 step as Postfix does it (S-PFX-21). */
static void test_blocker_story(int postfix_release)
{
    harness *h = h_new(QS_PROFILE_DOCUMENT,
                       postfix_release ? picture_params_postfix_release
                                       : picture_params);
    char list[512], seq[128];
    int i;
    h_arrive(h, "M1", "smtp:x@x.example smtp:y@y.example smtp:m1.example*6");
    h_arrive(h, "M2", "smtp:m2.example*5");
    h_arrive(h, "M3", "smtp:m3.example*5");
    h_arrive(h, "M4", "smtp:m4.example*2 smtp:y@y.example");
    h_select(h, NULL); /* D1 x, kept */
    h_select(h, NULL); /* D2 y, kept */
    for (i = 3; i <= 7; i++)
        h_step(h, NULL);
    h_arrive(h, "M7", "smtp:x@x.example");
    h_step(h, NULL); /* S8 */
    h_step(h, NULL); /* S9: 7 preempts 4; 7 and 4 blocked; 1 goes on */
    h_joblist(h, "smtp", list, sizeof list);
    CHECK_EQ_STR("S-PRE-11 story: 7 and 4 blocked, 1 current", list,
                 "M7:2:B:P M4:1:B:P *M1:0 M2:0 M3:0");
    h_step(h, NULL); /* S10: 1 completes; 4 orphaned (level 1, no parent) */
    h_joblist(h, "smtp", list, sizeof list);
    CHECK_EQ_STR("S-PRE-10 story: 1 completed, 4 orphaned", list,
                 "M7:2:B:P M4:1:B *M2:0 M3:0");
    h_done(h, h->dhandle[0], QS_DONE_OK); /* x free */
    h_joblist(h, "smtp", list, sizeof list);
    if (postfix_release)
        /* every blocker released; the head is the current job */
        CHECK_EQ_STR("S-PFX-21 story: x free, all blockers released", list,
                     "*M7:2:P M4:1 M2:0 M3:0");
    else
        /* "all jobs which have peers for that destination are unblocked":
         * 7 (its entry is for x); 4 waits for y and stays a blocker; 2,
         * selected last, stays the current job */
        CHECK_EQ_STR("S-PRE-12 story: x free, 7 released", list,
                     "M7:2:P M4:1:B *M2:0 M3:0");
    for (i = 11; i <= 16; i++)
        h_step(h, NULL);
    h_done(h, h->dhandle[1], QS_DONE_OK); /* y free */
    h_step(h, NULL);
    h_sequence(h, seq, sizeof seq);
    /* deliveries: 1 1 1111 4 4 1 1 | 7 | 22222 | 4 */
    CHECK_EQ_STR("S-PRE-11 story: completion order 1, 7, 2, 4", seq,
                 "1111114411722222" "4");
    h_joblist(h, "smtp", list, sizeof list);
    CHECK_EQ_STR("S-PRE-11 story: only 3 left", list, "*M3:0");
    CHECK("story: invariants hold", h_invariants(h) == 0);
    CHECK("story: no harness error", h->errors == 0);
    h_free(h);
}

/* ================================================================== */
/* S-PRE-5: a job that is itself preempted is no candidate             */
/* ================================================================== */

static void test_parent_not_candidate(void)
{
    const char *params[] = {
        "default_delivery_slot_cost", "2",
        "default_delivery_slot_discount", "0",
        "default_delivery_slot_loan", "0",
        "default_minimum_delivery_slots", "1",
        "smtp_destination_recipient_limit", "1",
        NULL};
    harness *h = h_new(QS_PROFILE_DOCUMENT, params);
    char seq[64];
    int i;
    /* A: 7 entries, max_slots 7/2 = 3; B: 3 entries.  B preempts A at
     * counter 6 (6/2 >= 3).  B then has max_slots (3-1+1)/2 = 1 and
     * (3-2+2)/2 = 1; A needs 7-6 = 1 and would fit, and at B's counter 2
     * (2/2 >= 1) would preempt B back - but A has a stack child (B), so
     * it is no candidate (Postfix: "Don't preempt ... already preempted")
     * and B finishes first: AAAAAA BBB A. */
    h_arrive(h, "A", "smtp:a.example*7");
    h_arrive(h, "B", "smtp:b.example*3");
    for (i = 0; i < 10; i++)
        h_step(h, NULL);
    h_sequence(h, seq, sizeof seq);
    CHECK_EQ_STR("S-PRE-5 preempted job is no candidate: sequence", seq,
                 "AAAAAABBBA");
    CHECK_EQ_LL("S-PRE-5 preempted job is no candidate: no candidate for B",
                h_count(h, QS_T_CANDIDATE, "B"), 0);
    CHECK("parent: no harness error", h->errors == 0);
    h_free(h);
}

/* ================================================================== */
/* S-PRE-6: the score is time since enqueue over entries               */
/* ================================================================== */

static void test_score_since_enqueue(void)
{
    const char *params[] = {
        "default_delivery_slot_cost", "2",
        "default_delivery_slot_discount", "0",
        "default_delivery_slot_loan", "0",
        "default_minimum_delivery_slots", "1",
        "smtp_destination_recipient_limit", "1",
        NULL};
    harness *h = h_new(QS_PROFILE_DOCUMENT, params);
    const h_rec *r;
    /* The document says "maximum enqueue_time/recipient_entry_count" but
     * means the time a job has waited: "the older the job is, the more
     * we should try to deliver it".  Bulk A and 4-entry O enqueued at 0,
     * 1-entry N at 10; A's first selection is at 10.  Then O scores
     * (10-0+1)/4 = 11/4 and N (10-10+1)/1 = 1: O is the best candidate.
     * With the literal enqueue_time/count, O would score 0/4 and N 10/1.
     * max_slots = (20-1+1)/2 = 10. */
    h_arrive(h, "A", "smtp:a.example*20");
    h_arrive(h, "O", "smtp:o.example*4");
    h_at(h, 10);
    h_arrive(h, "N", "smtp:n.example");
    h_step(h, NULL);
    h_step(h, NULL);
    r = h_last(h, QS_T_CANDIDATE);
    CHECK("S-PRE-6 since enqueue: a candidate", r != NULL);
    if (r) {
        CHECK_EQ_STR("S-PRE-6 since enqueue: best is the old job", r->msg2,
                     "O");
        CHECK_EQ_LL("S-PRE-6 since enqueue: delay 11", r->a, 11);
        CHECK_EQ_LL("S-PRE-6 since enqueue: total 4", r->b, 4);
        CHECK_EQ_LL("S-PRE-6 since enqueue: max_slots 10", r->c, 10);
    }
    CHECK("since enqueue: no harness error", h->errors == 0);
    h_free(h);
}

/* ================================================================== */
/* the inflation bound under continuous small mail                     */
/* ================================================================== */

/* A bulk job of n entries at time 0; before every delivery slot (time i)
 * a new m-entry job arrives; every delivery finishes before the next
 * select.  Returns the number of delivery slots from the bulk job's first
 * to its last selection, inclusive. */
static long long bulk_slots(int n, int k, int loan, int discount, int m,
                            int *preempted)
{
    char ks[16], ls[16], ds[16], spec[64], id[32];
    const char *params[] = {
        "default_delivery_slot_cost", ks,
        "default_delivery_slot_loan", ls,
        "default_delivery_slot_discount", ds,
        "smtp_destination_recipient_limit", "1",
        NULL};
    harness *h;
    int i, first = -1, last = -1, bulk = 0;
    snprintf(ks, sizeof ks, "%d", k);
    snprintf(ls, sizeof ls, "%d", loan);
    snprintf(ds, sizeof ds, "%d", discount);
    h = h_new(QS_PROFILE_DOCUMENT, params);
    snprintf(spec, sizeof spec, "smtp:bulk.example*%d", n);
    h_arrive(h, "B", spec);
    for (i = 1; bulk < n && i < 20 * n; i++) {
        h_at(h, i);
        snprintf(id, sizeof id, "S%d", i);
        snprintf(spec, sizeof spec, "smtp:s%d.example*%d", i, m);
        h_arrive(h, id, spec);
        if (!h_step(h, NULL))
            break;
        if (strcmp(h->dmsg[h->ndeliv - 1], "B") == 0) {
            if (first < 0)
                first = h->ndeliv - 1;
            last = h->ndeliv - 1;
            bulk++;
        }
    }
    *preempted = (int)qs_transport_count(h->s) > 0 && h->errors == 0;
    {
        qs_stats st;
        qs_get_stats(h->s, &st);
        if (st.preemptions == 0)
            *preempted = 0;
    }
    if (h->errors || bulk < n || h_invariants(h))
        last = first - 1000000; /* make the caller's checks fail */
    h_free(h);
    return last - first + 1;
}

static void test_inflation_bound(void)
{
    /* SCHEDULER_README: "if for every k>1 normally used slots we accumulate
     * one free delivery slot, than the inflation factor is ... not worse
     * than (k+1)/k if only non-recursive preemption happens".  Jobs of 1
     * or 2 entries are below minimum slots * k (3k >= 6), so they are
     * never preempted themselves: the preemption is non-recursive.  The
     * loan and the discount let a preemption happen before its slots are
     * accumulated ("gets in advance"), at most loan + m*discount/100
     * slots ahead, so the measured bound is
     *   slots <= n*(k+1)/k + loan + m*discount/100
     * checked in integers as 100*k*slots <= 100*n*(k+1) + k*(100*loan +
     * m*discount). */
    static const int ks[] = {2, 3, 5};
    static const int loans[] = {0, 1, 3};
    static const int discounts[] = {0, 50};
    static const int ms[] = {1, 2};
    const int n = 60;
    size_t a, b, c, d;
    char name[128];
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++)
            for (c = 0; c < 2; c++)
                for (d = 0; d < 2; d++) {
                    int k = ks[a], loan = loans[b], disc = discounts[c];
                    int m = ms[d], pre = 0;
                    long long slots = bulk_slots(n, k, loan, disc, m, &pre);
                    snprintf(name, sizeof name,
                             "inflation n=%d k=%d loan=%d discount=%d m=%d: "
                             "%lld slots within the bound",
                             n, k, loan, disc, m, slots);
                    CHECK(name, slots >= n &&
                                    100LL * k * slots <=
                                        100LL * n * (k + 1) +
                                            (long long)k *
                                                (100 * loan + m * disc));
                    snprintf(name, sizeof name,
                             "inflation n=%d k=%d loan=%d discount=%d m=%d: "
                             "small jobs got in", n, k, loan, disc, m);
                    CHECK(name, slots > n && pre);
                }
    /* Exact counts, by hand, for 1-entry jobs (n = 60):
     * k=2, loan 0, discount 0: preempt at counter 2, back to 0: B B S
     * after the 2nd, 4th, ..., 58th bulk entry (after the 60th the job
     * is done): 29 small -> 89 slots. */
    {
        int pre;
        CHECK_EQ_LL("inflation exact k=2 loan 0: 60 + 29",
                    bulk_slots(60, 2, 0, 0, 1, &pre), 89);
        /* k=2, loan 3: the gate opens at counter 1, 1/2 + 3 >= 1 fires,
         * counter 1 - 2 = -1, two more entries to get back to 1: after
         * bulk entries 1, 3, ..., 59: 30 small -> 90 = 60 * 3/2 */
        CHECK_EQ_LL("inflation exact k=2 loan 3: 60 * 3/2",
                    bulk_slots(60, 2, 3, 50, 1, &pre), 90);
        /* k=5, loan 3: after entries 1, 6, ..., 56: 12 -> 72 = 60 * 6/5 */
        CHECK_EQ_LL("inflation exact k=5 loan 3: 60 * 6/5",
                    bulk_slots(60, 5, 3, 50, 1, &pre), 72);
        /* k=5, loan 0, discount 0: counter 5 -> 0: after 5, 10, ..., 55:
         * 11 -> 71 */
        CHECK_EQ_LL("inflation exact k=5 loan 0: 60 + 11",
                    bulk_slots(60, 5, 0, 0, 1, &pre), 71);
        /* k = 1 and k = 0: no preemption, the bulk job runs through */
        CHECK_EQ_LL("inflation k=1: no preemption",
                    bulk_slots(60, 1, 3, 50, 1, &pre), 60);
        CHECK_EQ_LL("inflation k=0: no preemption",
                    bulk_slots(60, 0, 3, 50, 1, &pre), 60);
    }
}

int main(void)
{
    test_gate();
    test_max_slots();
    test_fits();
    test_score();
    test_cannot_improve();
    test_fires();
    test_charge_refund();
    test_doc_sequences();
    test_stack_picture();
    test_blocker_story(0);
    test_blocker_story(1);
    test_parent_not_candidate();
    test_score_since_enqueue();
    test_inflation_bound();
    printf("# test_preempt: %d checks, %d failed\n", check_count,
           check_failures);
    return CHECK_DONE();
}
