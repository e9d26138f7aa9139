/*
 * gen.c - `qsched gen`: writes a random but valid event stream.
 *
 * Owns: the stream generator behind the generated conformance vectors, the
 * differential harness (fuzz/diff-harness.c) and anyone who wants many
 * streams to compare two schedulers with.  A stream is valid when the
 * parser accepts every line and every `done Dn` names a delivery that is in
 * flight at that point; the generator knows which ones are because it
 * drives a real scheduler through the public API (qsched.h) while it
 * writes, and asks it (qs_in_flight_count / qs_in_flight_nth).
 *
 * Deterministic: the only source of randomness is a splitmix64 sequence
 * seeded with --seed, consumed in a fixed order with integer arithmetic
 * only, so a seed names the same stream on every platform.
 *
 * A "mix" chooses which parts of the scheduler the stream leans on:
 * parameters (written as NAME = VALUE lines before the first event) and
 * the shape of the traffic (recipient counts, failure rate, time steps).
 * As a self-check, the text written is also fed to a second scheduler
 * through the event parser (events.h); both must end in the same state
 * (qs_encode_state), so the text and the API calls cannot drift apart.
 *
 * Layer: around the core, like the CLI; it uses only qsched.h and the
 * event parser (events.h).  Why streams are generated rather than
 * written: the conformance vectors of tests/conformance/gen and the
 * differential harness need hundreds of varied, valid streams that lean
 * on one part of the document at a time, and a seed is a short name for
 * a long stream.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "events.h"
#include "gen.h"

/* ---- the PRNG: splitmix64 (Steele, Lea, Flood 2014) ---- */

typedef struct gen_rng {
    uint64_t state;
} gen_rng;

/* The next 64 random bits.  splitmix64: tiny, fast, well mixed, and
 * defined by integer arithmetic alone, so every platform agrees. */
static uint64_t rng_next(gen_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1, without modulo bias (rejection). */
static uint64_t rng_below(gen_rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = rng_next(r);
    while (x >= limit);
    return x % n;
}

/* Uniform in [lo, hi], both included. */
static int64_t rng_range(gen_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)rng_below(r, (uint64_t)(hi - lo + 1));
}

/* True with the given chance in percent. */
static int rng_pct(gen_rng *r, int percent)
{
    return (int)rng_below(r, 100) < percent;
}

/* ---- mixes ----
 * A mix picks the parameters (knobs_*) and the traffic shape (the fields
 * of struct gen) that make one area of the document busy; `mixed` picks
 * a random union.  The names and descriptions are those of
 * `qsched gen --help`. */

enum gen_mix {
    MIX_FIFO,
    MIX_PREEMPT,
    MIX_CONCURRENCY,
    MIX_DEAD,
    MIX_MEMORY,
    MIX_BLOCKERS,
    MIX_LOCAL,
    MIX_MIXED,
    /* Named only (issue 14, differential testing against Postfix): a seed
     * without --mix still chooses among the mixes above, so existing
     * seeds keep naming the same streams. */
    MIX_TRANSPORTS,
    MIX_BULK,
    MIX_OVERRIDES,
    /* Named only too: the benchmark's shapes (issue 16, tests/bench.sh,
     * docs/performance.md), scaled by --backlog and --dests. */
    MIX_SHAPES,
    MIX_SORT = MIX_SHAPES,
    MIX_LARGE,
    MIX_QUEUE,
    MIX_HEAVY,
    MIX_COUNT
};
#define MIX_BY_SEED (MIX_MIXED + 1)

static const struct {
    const char *name;
    const char *about;
} gen_mixes[MIX_COUNT] = {
    [MIX_FIFO] = {"fifo", "no preemption (slot cost 0 or 1), few failures"},
    [MIX_PREEMPT] = {"preempt", "slot cost 0..5, loan, discount, minimum "
                     "slots; bulk and small messages"},
    [MIX_CONCURRENCY] = {"concurrency", "feedback forms, initial windows, "
                         "small limits, failures and defers"},
    [MIX_DEAD] = {"dead", "failed cohort limits, many failures, time steps "
                  "past minimal_backoff_time (revivals)"},
    [MIX_MEMORY] = {"memory", "small active queue and recipient limits: "
                    "batches, refills, pools, incoming queue"},
    [MIX_BLOCKERS] = {"blockers", "concurrency limits of 1..2 and small "
                      "process limits: blockers and releases"},
    [MIX_LOCAL] = {"local", "the local transport (recipient limit 1: "
                   "LOCAL@NEXTHOP destinations) next to smtp"},
    [MIX_MIXED] = {"mixed", "a random union of the knobs above"},
    [MIX_TRANSPORTS] = {"transports", "four transports, two with recipient "
                        "limit 1, their own process and concurrency limits"},
    [MIX_BULK] = {"bulk", "large messages read in many batches: refill "
                  "limits and delays, small pools, the incoming queue"},
    [MIX_OVERRIDES] = {"overrides", "TRANSPORT_suffix overrides of every "
                       "per-transport parameter on smtp and relay"},
    [MIX_SORT] = {"sort", "4..40 recipient groups over four transports (two "
                  "with the recipient as destination), many next-hops: "
                  "batch sorting (backlog 300)"},
    [MIX_LARGE] = {"large", "bulk messages of 1000..20000 recipients next "
                   "to small ones: batches, refills, pools (backlog 30)"},
    [MIX_QUEUE] = {"queue", "a backlog of --backlog messages (default 2000) "
                   "on --dests next-hops (default 200), slow destinations"},
    [MIX_HEAVY] = {"heavy", "preemption-heavy: bulk messages and a backlog "
                   "of mid-size ones queued in the same second, slot cost "
                   "2..3"},
};

/* ---- the generator ---- */

#define GEN_MAX_TRANSPORTS 4
#define GEN_MAX_GROUPS 40

typedef struct gen {
    gen_rng rng;
    int mix;
    enum qs_profile profile;
    qs_params *params;
    qs_sched *sched;       /* driven through qsched.h */
    qs_stream *shadow;     /* the same text through the parser */
    FILE *out;
    int check;             /* --check: invariants after every event */
    /* traffic shape, chosen by the mix */
    const char *transports[GEN_MAX_TRANSPORTS];
    int ntransports;
    int ndest;             /* size of the next-hop pool */
    int local_pct;         /* share of groups for the local transport */
    int fail_pct, defer_pct;
    int bulk_pct, bulk_min, bulk_max, small_max;
    int max_groups;
    int revive_pct;        /* share of `at` steps past the backoff */
    int64_t backoff;
    int wide_dests;        /* next-hops dN.example (N < ndest), not a..z */
    int min_groups;
    int local_transports;  /* groups for local/lmtp (recipient limit 1) */
    int bulk_rounds;       /* heavy: a bulk message every so many arrivals */
    long backlog;          /* > 0: keep this many messages queued */
    int filled;            /* the backlog was reached once */
    int distinct_addresses; /* --distinct-addresses (see ev_arrive) */
    /* progress */
    int64_t now;
    long events, messages;
    int idle_streak;       /* selects in a row that found nothing */
    char line[4096];
} gen;

/* The generator is a test tool: a refused line or call means the
 * generator (or the core) is wrong, not the user.  Exit 3, as for a
 * broken invariant. */
static void gen_fatal(const char *what, const char *detail)
{
    fprintf(stderr, "qsched gen: internal error: %s%s%s\n", what,
            detail && *detail ? ": " : "", detail ? detail : "");
    exit(3);
}

/* Writes one line and feeds it to the shadow parser. */
static void gen_write(gen *g)
{
    char err[512];
    size_t len = strlen(g->line);
    if (qs_stream_line(g->shadow, g->line, len, err, sizeof err) != 0)
        gen_fatal("the parser refused a generated line", err);
    fputs(g->line, g->out);
    fputc('\n', g->out);
}

/* Formats the next line into g->line (written by gen_write). */
static void gen_printf(gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->line, sizeof g->line, fmt, ap);
    va_end(ap);
}

/* NAME = VALUE: into the parameters of the API scheduler and the text. */
static void param(gen *g, const char *name, const char *fmt, ...)
{
    char value[64], err[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    if (qs_params_set(g->params, name, value, err, sizeof err) < 0)
        gen_fatal("a generated parameter was refused", err);
    gen_printf(g, "%s = %s", name, value);
    gen_write(g);
}

/* TRANSPORT_suffix = VALUE (S-EV-2, a per-transport override). */
static void tparam(gen *g, const char *transport, const char *suffix,
                   const char *fmt, ...)
{
    char name[128], value[64], err[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    snprintf(name, sizeof name, "%s_%s", transport, suffix);
    if (qs_params_set(g->params, name, value, err, sizeof err) < 0)
        gen_fatal("a generated parameter was refused", err);
    gen_printf(g, "%s = %s", name, value);
    gen_write(g);
}

/* S-CON-2 forms; x in [0,1].  One of each shape: constants (0, 1, a
 * fraction written both ways), per window, per square root (which the
 * postfix profile replaces with 1 and warns about, S-PFX-7). */
static const char *pick_feedback(gen *g)
{
    static const char *forms[] = {"1",   "0",     "0.5",  "1/2",
                                  "1/4", "3/4",   "1/concurrency",
                                  "0.5/concurrency", "1/sqrt_concurrency"};
    return forms[rng_below(&g->rng, sizeof forms / sizeof forms[0])];
}

/* Preemption: slot cost, loan, discount, minimum slots, small entries,
 * and bulk messages (the first group large) for small ones to slip past. */
static void knobs_preempt(gen *g)
{
    /* cost 0 and 1 switch preemption off (S-PRE-3); 2..5 exercise it */
    param(g, "default_delivery_slot_cost", "%d",
          rng_pct(&g->rng, 15) ? (int)rng_range(&g->rng, 0, 1)
                               : (int)rng_range(&g->rng, 2, 5));
    param(g, "default_delivery_slot_loan", "%d",
          (int)rng_range(&g->rng, 0, 5));
    param(g, "default_delivery_slot_discount", "%d",
          25 * (int)rng_range(&g->rng, 0, 4));
    param(g, "default_minimum_delivery_slots", "%d",
          (int)rng_range(&g->rng, 0, 4));
    param(g, "default_destination_recipient_limit", "%d",
          rng_pct(&g->rng, 15) ? 1 : (int)rng_range(&g->rng, 2, 6));
    if (rng_pct(&g->rng, 30))
        param(g, "relay_delivery_slot_cost", "%d",
              (int)rng_range(&g->rng, 2, 4));
    g->bulk_pct = 35;
    g->bulk_min = 8;
    g->bulk_max = 40;
}

/* Concurrency feedback: windows, limits, every feedback form, cohort
 * limits, and enough failures and defers to move the windows. */
static void knobs_concurrency(gen *g)
{
    int limit = (int)rng_range(&g->rng, 1, 8);
    /* S-EV-5: a limit of 0 (no limit) only in the postfix profile */
    if (g->profile == QS_PROFILE_POSTFIX && rng_pct(&g->rng, 20))
        limit = 0;
    param(g, "initial_destination_concurrency", "%d",
          (int)rng_range(&g->rng, 1, 5));
    param(g, "default_destination_concurrency_limit", "%d", limit);
    param(g, "default_destination_concurrency_positive_feedback", "%s",
          pick_feedback(g));
    param(g, "default_destination_concurrency_negative_feedback", "%s",
          pick_feedback(g));
    param(g, "default_destination_concurrency_failed_cohort_limit", "%d",
          (int)rng_range(&g->rng, 0, 3));
    if (rng_pct(&g->rng, 30))
        param(g, "smtp_initial_destination_concurrency", "%d",
              (int)rng_range(&g->rng, 1, 3));
    g->fail_pct = 30;
    g->defer_pct = 10;
}

/* Dead destinations: low cohort limits, many failures, and time steps
 * long enough to reach the revivals. */
static void knobs_dead(gen *g)
{
    param(g, "initial_destination_concurrency", "%d",
          (int)rng_range(&g->rng, 1, 3));
    param(g, "default_destination_concurrency_failed_cohort_limit", "%d",
          (int)rng_range(&g->rng, 0, 2));
    param(g, "default_destination_concurrency_negative_feedback", "%s",
          rng_pct(&g->rng, 50) ? "1" : "1/concurrency");
    g->fail_pct = 50;
    g->revive_pct = 30;
}

/* Memory limits: a small active queue and small recipient budgets, so
 * that batches, refills, pools, sponsoring and the incoming queue all
 * happen within a few dozen recipients. */
static void knobs_memory(gen *g)
{
    param(g, "qmgr_message_active_limit", "%d",
          (int)rng_range(&g->rng, 1, 4));
    param(g, "qmgr_message_recipient_limit", "%d",
          (int)rng_range(&g->rng, 5, 50));
    param(g, "qmgr_message_recipient_minimum", "%d",
          (int)rng_range(&g->rng, 1, 6));
    param(g, "default_recipient_limit", "%d",
          (int)rng_range(&g->rng, 3, 40));
    param(g, "default_extra_recipient_limit", "%d",
          (int)rng_range(&g->rng, 0, 20));
    param(g, "default_recipient_refill_limit", "%d",
          (int)rng_range(&g->rng, 1, 10));
    param(g, "default_recipient_refill_delay", "%ds",
          (int)rng_range(&g->rng, 1, 4));
    if (rng_pct(&g->rng, 50))
        param(g, "default_delivery_slot_cost", "%d",
              (int)rng_range(&g->rng, 2, 5));
    param(g, "default_destination_recipient_limit", "%d",
          (int)rng_range(&g->rng, 2, 10));
    g->bulk_pct = 45;
    g->bulk_min = 10;
    g->bulk_max = 60;
}

/* Blockers: windows of 1 or 2, few destinations and small process
 * limits, so jobs often find every destination full. */
static void knobs_blockers(gen *g)
{
    param(g, "default_destination_concurrency_limit", "%d",
          (int)rng_range(&g->rng, 1, 2));
    param(g, "initial_destination_concurrency", "%d",
          (int)rng_range(&g->rng, 1, 2));
    param(g, "default_process_limit", "%d", (int)rng_range(&g->rng, 2, 6));
    param(g, "default_delivery_slot_cost", "%d",
          (int)rng_range(&g->rng, 2, 4));
    if (rng_pct(&g->rng, 50))
        param(g, "default_destination_recipient_limit", "%d",
              (int)rng_range(&g->rng, 1, 3));
    g->ndest = (int)rng_range(&g->rng, 2, 3);
    if (g->fail_pct < 10)
        g->fail_pct = 10;
}

/* Per-recipient destinations (S-EV-4): the local transport and, at
 * times, another transport with a destination recipient limit of 1. */
static void knobs_local(gen *g)
{
    g->transports[0] = "local";
    g->transports[1] = "smtp";
    g->ntransports = 2;
    if (rng_pct(&g->rng, 40)) {
        /* a second transport with the recipient as destination */
        param(g, "lmtp_destination_recipient_limit", "1");
        g->transports[g->ntransports++] = "lmtp";
    }
    if (rng_pct(&g->rng, 40))
        param(g, "local_destination_concurrency_limit", "%d",
              (int)rng_range(&g->rng, 1, 3));
    g->local_pct = 60;
}

/* The benchmark's shapes (docs/performance.md).  Sizes: --backlog (queued
 * messages kept) and --dests (next-hops) scale them. */
static void knobs_sort(gen *g)
{
    /* S-PFX-11: many groups per message over transports whose destination
     * is the next-hop (smtp, relay) and the recipient (local, lmtp) */
    param(g, "lmtp_destination_recipient_limit", "1");
    g->transports[0] = "smtp";
    g->transports[1] = "relay";
    g->ntransports = 2;
    g->local_transports = 1;
    g->local_pct = 30;
    g->wide_dests = 1;
    g->min_groups = 4;
    g->max_groups = 40;
    g->small_max = 5;
    g->bulk_pct = 0;
}

static void knobs_large(gen *g)
{
    /* S-MEM-3 .. S-MEM-7: messages larger than a batch (5000 in the
     * postfix profile, S-PFX-12; the recipient limits otherwise) */
    param(g, "default_recipient_refill_limit", "%d",
          (int)rng_range(&g->rng, 50, 500));
    param(g, "default_recipient_refill_delay", "%ds",
          (int)rng_range(&g->rng, 1, 3));
    g->wide_dests = 1;
    g->bulk_pct = 15;
    g->bulk_min = 1000;
    g->bulk_max = 20000;
    g->max_groups = 4;
}

static void knobs_queue(gen *g)
{
    /* many jobs on the job lists: destinations take few deliveries in
     * parallel, every message waits its turn */
    param(g, "qmgr_message_active_limit", "%ld", g->backlog + 1000);
    param(g, "default_destination_concurrency_limit", "%d",
          (int)rng_range(&g->rng, 2, 4));
    param(g, "initial_destination_concurrency", "2");
    g->wide_dests = 1;
    g->bulk_pct = 5;
    g->bulk_min = 50;
    g->bulk_max = 500;
    g->max_groups = 3;
}

static void knobs_heavy(gen *g)
{
    /* S-PRE-3 .. S-PRE-9: a bulk message every 200 arrivals and a backlog
     * of mid-size messages, all queued in the same second, so that the
     * candidate scan cannot stop early (equal delays, totals > 1) */
    param(g, "qmgr_message_active_limit", "%ld", g->backlog + 1000);
    param(g, "default_delivery_slot_cost", "%d",
          (int)rng_range(&g->rng, 2, 3));
    param(g, "default_delivery_slot_loan", "%d",
          (int)rng_range(&g->rng, 0, 3));
    param(g, "default_delivery_slot_discount", "%d",
          25 * (int)rng_range(&g->rng, 0, 2));
    param(g, "default_destination_recipient_limit", "%d",
          (int)rng_range(&g->rng, 2, 5));
    g->wide_dests = 1;
    g->bulk_rounds = 200;
    g->bulk_min = 2000;
    g->bulk_max = 5000;
    g->small_max = 30;
    g->max_groups = 3;
}

/* Several transports: two domain-based, two with per-recipient
 * destinations (recipient limit 1, S-EV-4), each with its own limits. */
static void knobs_transports(gen *g)
{
    static const char *names[] = {"smtp", "relay", "lmtp", "pipe"};
    int i;
    for (i = 0; i < 4; i++)
        g->transports[i] = names[i];
    g->ntransports = 4;
    param(g, "lmtp_destination_recipient_limit", "1");
    param(g, "pipe_destination_recipient_limit", "1");
    for (i = 0; i < 4; i++) {
        if (rng_pct(&g->rng, 50))
            tparam(g, names[i], "process_limit",
                   "%d", (int)rng_range(&g->rng, 1, 4));
        if (rng_pct(&g->rng, 40))
            tparam(g, names[i], "destination_concurrency_limit",
                   "%d", (int)rng_range(&g->rng, 1, 4));
    }
    param(g, "default_delivery_slot_cost", "%d",
          (int)rng_range(&g->rng, 0, 4));
    g->ndest = 3;
    g->local_pct = 15;
    g->max_groups = 5;
}

/* Bulk messages that do not fit in one batch: refills (S-MEM-7) by limit
 * and by delay, small pools (S-MEM-5), and a waiting incoming queue. */
static void knobs_bulk(gen *g)
{
    param(g, "qmgr_message_active_limit", "%d",
          (int)rng_range(&g->rng, 2, 8));
    param(g, "qmgr_message_recipient_limit", "%d",
          (int)rng_range(&g->rng, 20, 120));
    param(g, "qmgr_message_recipient_minimum", "%d",
          (int)rng_range(&g->rng, 1, 10));
    param(g, "default_recipient_limit", "%d",
          (int)rng_range(&g->rng, 5, 80));
    param(g, "default_extra_recipient_limit", "%d",
          (int)rng_range(&g->rng, 0, 40));
    param(g, "default_recipient_refill_limit", "%d",
          (int)rng_range(&g->rng, 1, 30));
    param(g, "default_recipient_refill_delay", "%ds",
          (int)rng_range(&g->rng, 1, 6));
    param(g, "default_destination_recipient_limit", "%d",
          (int)rng_range(&g->rng, 2, 20));
    param(g, "default_delivery_slot_cost", "%d",
          (int)rng_range(&g->rng, 2, 5));
    g->bulk_pct = 50;
    g->bulk_min = 30;
    g->bulk_max = 300;
}

/* Every per-transport parameter (S-EV-2), overridden on smtp or relay. */
static void knobs_overrides(gen *g)
{
    static const char *t[] = {"smtp", "relay"};
    const char *x = t[rng_below(&g->rng, 2)];
    tparam(g, x, "delivery_slot_cost", "%d", (int)rng_range(&g->rng, 0, 5));
    tparam(g, x, "delivery_slot_loan", "%d", (int)rng_range(&g->rng, 0, 5));
    tparam(g, x, "delivery_slot_discount", "%d",
           25 * (int)rng_range(&g->rng, 0, 4));
    tparam(g, x, "minimum_delivery_slots", "%d",
           (int)rng_range(&g->rng, 0, 4));
    x = t[rng_below(&g->rng, 2)];
    tparam(g, x, "destination_concurrency_limit",
           "%d", (int)rng_range(&g->rng, 1, 6));
    tparam(g, x, "initial_destination_concurrency",
          "%d", (int)rng_range(&g->rng, 1, 4));
    tparam(g, x, "destination_concurrency_failed_cohort_limit",
          "%d", (int)rng_range(&g->rng, 0, 3));
    tparam(g, x, "destination_concurrency_positive_feedback", "%s",
          pick_feedback(g));
    tparam(g, x, "destination_concurrency_negative_feedback", "%s",
          pick_feedback(g));
    x = t[rng_below(&g->rng, 2)];
    tparam(g, x, "destination_recipient_limit", "%d",
           (int)rng_range(&g->rng, 1, 6));
    tparam(g, x, "process_limit", "%d", (int)rng_range(&g->rng, 1, 5));
    tparam(g, x, "recipient_limit", "%d", (int)rng_range(&g->rng, 5, 60));
    tparam(g, x, "extra_recipient_limit", "%d",
           (int)rng_range(&g->rng, 0, 30));
    tparam(g, x, "recipient_refill_limit", "%d",
           (int)rng_range(&g->rng, 1, 20));
    tparam(g, x, "recipient_refill_delay", "%ds",
          (int)rng_range(&g->rng, 1, 5));
    g->fail_pct = 15;
    g->bulk_pct = 25;
    g->bulk_min = 8;
    g->bulk_max = 50;
}

/* The head of the stream: the profile line, then the parameters of the
 * mix, each written as a NAME = VALUE line and set on the API side too.
 * The defaults below are the traffic shape of a plain stream; knobs
 * override them. */
static void gen_setup(gen *g)
{
    int i;
    g->transports[0] = "smtp";
    g->transports[1] = "relay";
    g->ntransports = 2;
    g->ndest = 4;
    g->local_pct = 10;
    g->fail_pct = 5;
    g->defer_pct = 5;
    g->bulk_pct = 10;
    g->bulk_min = 4;
    g->bulk_max = 12;
    g->small_max = 3;
    g->max_groups = 3;
    g->revive_pct = 10;

    gen_printf(g, "profile %s",
               g->profile == QS_PROFILE_POSTFIX ? "postfix" : "document");
    gen_write(g);
    /* a short backoff, so that `at` steps can reach revivals (S-CON-10) */
    g->backoff = rng_range(&g->rng, 5, 20);
    param(g, "minimal_backoff_time", "%llds", (long long)g->backoff);
    switch (g->mix) {
    case MIX_FIFO:
        param(g, "default_delivery_slot_cost", "%d",
              (int)rng_range(&g->rng, 0, 1));
        break;
    case MIX_PREEMPT:
        knobs_preempt(g);
        g->max_groups = 2;
        break;
    case MIX_CONCURRENCY:
        knobs_concurrency(g);
        g->ndest = 3;
        break;
    case MIX_DEAD:
        knobs_dead(g);
        break;
    case MIX_MEMORY:
        knobs_memory(g);
        g->max_groups = 4;
        break;
    case MIX_BLOCKERS:
        knobs_blockers(g);
        break;
    case MIX_LOCAL:
        knobs_local(g);
        break;
    case MIX_SORT:
        knobs_sort(g);
        break;
    case MIX_LARGE:
        knobs_large(g);
        break;
    case MIX_QUEUE:
        knobs_queue(g);
        break;
    case MIX_HEAVY:
        knobs_heavy(g);
        break;
    case MIX_TRANSPORTS:
        knobs_transports(g);
        break;
    case MIX_BULK:
        knobs_bulk(g);
        g->max_groups = 3;
        break;
    case MIX_OVERRIDES:
        knobs_overrides(g);
        break;
    default:
        /* mixed: each group of knobs with probability 2/5 (at least one) */
        for (i = 0; i < 6; i++) {
            int on = rng_pct(&g->rng, 40);
            if (!on)
                continue;
            switch (i) {
            case 0: knobs_preempt(g); break;
            case 1: knobs_concurrency(g); break;
            case 2: knobs_dead(g); break;
            case 3: knobs_memory(g); break;
            case 4: knobs_blockers(g); break;
            default: knobs_local(g); break;
            }
        }
        g->max_groups = 4;
        break;
    }
}

/* ---- events ---- */

/* A generated event the API refused: a generator bug (see gen_fatal).
 * The callers' err buffers start empty: the core fills them when it
 * refuses, but gcc's link-time optimiser (-flto) cannot see that and
 * warns that err may be read uninitialised. */
static void gen_fail_api(const char *what, const char *err)
{
    gen_fatal(what, err);
}

/* `arrive Mn ...`: 1 .. max_groups recipient groups, over the mix's
 * transports and next-hops, sometimes local parts; a bulk message has a
 * large first group.  Next-hop strings live in a static buffer, valid
 * for the qs_arrive call (which copies them). */
static void ev_arrive(gen *g)
{
    static const char *locals[] = {"alice", "bob", "carol", "dave", "erin"};
    static char nexthops[GEN_MAX_GROUPS][24];
    qs_group grp[GEN_MAX_GROUPS];
    char id[32], err[256], *p;
    int n = (int)rng_range(&g->rng, g->min_groups ? g->min_groups : 1,
                           g->max_groups), i;
    int bulk = g->bulk_rounds ? g->messages % g->bulk_rounds == 0
                              : rng_pct(&g->rng, g->bulk_pct);
    size_t left;
    snprintf(id, sizeof id, "M%ld", ++g->messages);
    p = g->line;
    left = sizeof g->line;
    i = snprintf(p, left, "arrive %s", id);
    p += i;
    left -= (size_t)i;
    for (i = 0; i < n; i++) {
        qs_group *gr = &grp[i];
        int w;
        if (g->local_transports && rng_pct(&g->rng, g->local_pct)) {
            /* a transport with the recipient as destination (S-EV-4) */
            gr->transport = rng_pct(&g->rng, 50) ? "local" : "lmtp";
            gr->local = rng_pct(&g->rng, 70)
                            ? locals[rng_below(&g->rng, 5)] : NULL;
            snprintf(nexthops[i], sizeof nexthops[i], "d%d.example",
                     (int)rng_below(&g->rng, (uint64_t)g->ndest));
            gr->count = rng_range(&g->rng, 1, g->small_max);
        } else if (rng_pct(&g->rng, g->local_pct)) {
            gr->transport = "local";
            gr->local = rng_pct(&g->rng, 80)
                            ? locals[rng_below(&g->rng, 5)] : NULL;
            snprintf(nexthops[i], sizeof nexthops[i], "h%d",
                     (int)rng_range(&g->rng, 1, 2));
            gr->count = rng_pct(&g->rng, 80) ? 1 : rng_range(&g->rng, 2, 3);
        } else {
            gr->transport = g->transports[rng_below(
                &g->rng, (uint64_t)g->ntransports)];
            gr->local = rng_pct(&g->rng, 10)
                            ? locals[rng_below(&g->rng, 5)] : NULL;
            if (g->wide_dests)
                snprintf(nexthops[i], sizeof nexthops[i], "d%d.example",
                         (int)rng_below(&g->rng, (uint64_t)g->ndest));
            else
                snprintf(nexthops[i], sizeof nexthops[i], "%c.example",
                         'a' + (int)rng_below(&g->rng, (uint64_t)g->ndest));
            gr->count = bulk && i == 0
                            ? rng_range(&g->rng, g->bulk_min, g->bulk_max)
                            : rng_range(&g->rng, 1, g->small_max);
        }
        gr->nexthop = nexthops[i];
        /* --distinct-addresses: a group whose local part and next-hop an
         * earlier group of this message has takes that group's transport,
         * so that no address goes to two transports in one message.  That
         * is legal for qsched (S-EV-4: a group is a transport, an optional
         * local part and a next-hop), but Postfix's queue file holds one
         * transport per address, and the Postfix harness (tests/postfix)
         * refuses such a message as inexpressible.  The draws above are
         * unchanged; later lines may differ, as the generator's choices
         * follow the scheduler's state (tests/sh/gen-distinct.sh). */
        if (g->distinct_addresses && gr->local) {
            int e;
            for (e = 0; e < i; e++)
                if (grp[e].local && strcmp(grp[e].local, gr->local) == 0 &&
                    strcmp(grp[e].nexthop, gr->nexthop) == 0) {
                    gr->transport = grp[e].transport;
                    break;
                }
        }
        w = snprintf(p, left, " %s:%s%s%s", gr->transport,
                     gr->local ? gr->local : "", gr->local ? "@" : "",
                     gr->nexthop);
        p += w;
        left -= (size_t)w;
        if (gr->count > 1) {
            w = snprintf(p, left, "*%lld", (long long)gr->count);
            p += w;
            left -= (size_t)w;
        }
    }
    if (qs_arrive(g->sched, id, grp, (size_t)n, err, sizeof err) < 0)
        gen_fail_api("qs_arrive", err);
    gen_write(g);
}

/* `select` (round robin) or, one time in eight, `select TRANSPORT`,
 * including a transport that never had mail (it must answer idle). */
static void ev_select(gen *g)
{
    qs_delivery d;
    char err[256] = "";
    const char *t = NULL;
    if (rng_pct(&g->rng, 12)) {
        /* a named transport, now and then one that never had mail */
        t = rng_pct(&g->rng, 15)
                ? "uucp"
                : g->transports[rng_below(&g->rng, (uint64_t)g->ntransports)];
    }
    switch (qs_select(g->sched, t, &d, err, sizeof err)) {
    case 1:
        g->idle_streak = 0;
        break;
    case 0:
        g->idle_streak++;
        break;
    default:
        gen_fail_api("qs_select", err);
    }
    if (t)
        gen_printf(g, "select %s", t);
    else
        gen_printf(g, "select");
    gen_write(g);
}

/* `done Dn ok|fail|defer` for a delivery that is in flight (asked of the
 * scheduler itself), with the mix's failure and defer rates. */
static void ev_done(gen *g)
{
    size_t n = qs_in_flight_count(g->sched);
    int64_t h = qs_in_flight_nth(g->sched, (size_t)rng_below(&g->rng, n));
    int roll = (int)rng_below(&g->rng, 100);
    enum qs_outcome o = roll < g->fail_pct ? QS_DONE_FAIL
                        : roll < g->fail_pct + g->defer_pct ? QS_DONE_DEFER
                                                            : QS_DONE_OK;
    static const char *names[] = {"ok", "fail", "defer"};
    char err[256] = "";
    if (qs_done(g->sched, h, o, err, sizeof err) < 0)
        gen_fail_api("qs_done", err);
    gen_printf(g, "done D%lld %s", (long long)h, names[o]);
    gen_write(g);
}

/* `at T`: mostly 1 to 3 seconds on, sometimes past the backoff (to
 * reach revivals), sometimes the same time again. */
static void ev_at(gen *g)
{
    char err[256] = "";
    int roll = (int)rng_below(&g->rng, 100);
    if (roll < g->revive_pct)
        g->now += g->backoff + rng_range(&g->rng, 0, 3);
    else if (roll < 95)
        g->now += rng_range(&g->rng, 1, 3);
    /* else: the same time again, which is valid */
    if (qs_advance(g->sched, g->now, err, sizeof err) < 0)
        gen_fail_api("qs_advance", err);
    gen_printf(g, "at %lld", (long long)g->now);
    gen_write(g);
}

/* Messages in the queue (active or waiting). */
static long gen_queued(const gen *g)
{
    qs_stats st;
    qs_get_stats(g->sched, &st);
    return g->messages - (long)st.messages_done;
}

/* Backlog shapes: arrivals until --backlog messages are queued (no time
 * passes: they share one enqueue second), then a steady state that lets
 * a message in for each one that leaves: select 52, done 45, at 3. */
static void gen_event_backlog(gen *g)
{
    size_t inflight = qs_in_flight_count(g->sched);
    long queued = gen_queued(g);
    int roll = (int)rng_below(&g->rng, 100);
    if (queued >= g->backlog)
        g->filled = 1;
    if (queued < g->backlog && (!g->filled || roll < 30))
        ev_arrive(g);
    else if (inflight > 0 && (roll < 45 || (g->idle_streak > 0 &&
                                           rng_pct(&g->rng, 80))))
        ev_done(g);
    else if (roll < 97 || g->messages == 0)
        ev_select(g);
    else
        ev_at(g);
}

/* One event, drawn by phase: filling (many arrivals and selections) or
 * draining (mostly completions), so that streams both build up state and
 * work it off.  With --check the invariants are checked after it. */
static void gen_event(gen *g, int draining)
{
    size_t inflight = qs_in_flight_count(g->sched);
    int roll = (int)rng_below(&g->rng, 100);
    /* fill: arrive 22, select 48, done 20, at 10;
     * drain: arrive 3, select 35, done 52, at 10 */
    int p_arrive = draining ? 3 : 22;
    int p_select = p_arrive + (draining ? 35 : 48);
    int p_done = p_select + (draining ? 52 : 20);
    /* after an idle select, another select is mostly wasted: usually
     * finish a delivery, let mail in or let time pass instead */
    if (g->idle_streak > 0 && roll >= p_arrive && roll < p_select &&
        rng_pct(&g->rng, 50 + 20 * g->idle_streak))
        roll = inflight > 0 && rng_pct(&g->rng, 60) ? p_select
               : rng_pct(&g->rng, 50) ? 0 : p_done;
    if (g->backlog > 0)
        gen_event_backlog(g);
    else if (g->messages == 0 || roll < p_arrive)
        ev_arrive(g);
    else if (roll < p_select || (roll < p_done && inflight == 0))
        ev_select(g);
    else if (roll < p_done)
        ev_done(g);
    else
        ev_at(g);
    g->events++;
    if (g->check) {
        char err[512];
        if (qs_check_invariants(g->sched, err, sizeof err) < 0) {
            fprintf(stderr, "qsched gen: invariant broken after event %ld: "
                    "%s\n", g->events, err);
            exit(3);
        }
    }
}

/* The two schedulers (API-driven and parser-driven) must agree. */
static void gen_compare_shadow(gen *g)
{
    qs_sched *other = qs_stream_sched(g->shadow);
    size_t n1, n2;
    char *a, *b;
    if (!other)
        gen_fatal("the shadow stream has no scheduler", NULL);
    n1 = qs_encode_state(g->sched, NULL, 0) + 1;
    n2 = qs_encode_state(other, NULL, 0) + 1;
    a = malloc(n1);
    b = malloc(n2);
    if (!a || !b)
        gen_fatal("out of memory", NULL);
    qs_encode_state(g->sched, a, n1);
    qs_encode_state(other, b, n2);
    if (n1 != n2 || strcmp(a, b) != 0)
        gen_fatal("the written text and the API calls diverged", NULL);
    free(a);
    free(b);
}

/* `qsched gen --help`: the options and the list of mixes. */
static void gen_usage(FILE *f)
{
    int i;
    fputs("usage: qsched gen --seed N [--profile document|postfix]\n"
          "                  [--size small|medium|large|EVENTS] [--mix MIX] "
          "[--check]\n"
          "                  [--reading NAME=VALUE]... [--distinct-addresses]\n"
          "                  [--backlog N] [--dests N]  (sort, large, queue, "
          "heavy)\n"
          "Writes a random valid event stream on stdout (the same seed and "
          "options\nalways give the same stream).  Defaults: profile and "
          "mix chosen by the\nseed, size small (80 events; medium 400, "
          "large 2000).\n--check runs the invariant checker after every "
          "event (exit 3 if broken).\n--reading sets a named reading "
          "(spec/readings.md, qsched -d) in the\nstream and while "
          "generating it.\n--distinct-addresses: no address goes to two "
          "transports in one message\n(what the Postfix harness can "
          "express, tests/postfix/README.md).\nmixes:\n", f);
    for (i = 0; i < MIX_COUNT; i++)
        fprintf(f, "  %-12s %s\n", gen_mixes[i].name, gen_mixes[i].about);
}

/* A decimal seed or size, refusing anything that would overflow. */
static int parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* The benchmark shapes' sizes (qsched gen --backlog N --dests N); 0: the
 * mix's default.  Kept out of qs_gen_options so that the library's
 * callers are unchanged. */
typedef struct gen_shape {
    long backlog;
    int dests;
    int distinct_addresses; /* --distinct-addresses */
} gen_shape;

/* One stream: draw profile and mix from the seed if not given, write
 * the header comment and the parameters, then opt->events events in
 * fill and drain phases (or, for the backlog shapes, a fill and a steady
 * state), and finally compare the API-driven scheduler with the
 * parser-driven shadow.  The order of random draws is part of the
 * stream's definition: changing it changes every seed's stream. */
static int gen_write_shape(FILE *out, const qs_gen_options *opt,
                           const gen_shape *shape, char *err, size_t errlen)
{
    gen g;
    char why[256];
    int mix = -1, profile = opt->profile, k;
    memset(&g, 0, sizeof g);
    if (opt->mix) {
        for (k = 0; k < MIX_COUNT; k++)
            if (strcmp(opt->mix, gen_mixes[k].name) == 0)
                mix = k;
        if (mix < 0) {
            if (err && errlen)
                snprintf(err, errlen, "unknown mix \"%s\"", opt->mix);
            return 2;
        }
    }
    g.check = opt->check;
    g.rng.state = opt->seed;
    /* profile and mix not given: both come from the seed, in this order */
    if (profile != QS_PROFILE_DOCUMENT && profile != QS_PROFILE_POSTFIX)
        profile = rng_pct(&g.rng, 50) ? QS_PROFILE_POSTFIX
                                      : QS_PROFILE_DOCUMENT;
    if (mix < 0)
        mix = (int)rng_below(&g.rng, MIX_BY_SEED);
    if ((shape->backlog > 0 || shape->dests > 0) && mix < MIX_SHAPES) {
        if (err && errlen)
            snprintf(err, errlen, "--backlog and --dests apply to the mixes "
                     "sort, large, queue and heavy");
        return 2;
    }
    g.backlog = shape->backlog > 0 ? shape->backlog
                : mix == MIX_QUEUE || mix == MIX_HEAVY ? 2000
                : mix == MIX_SORT ? 300 : mix == MIX_LARGE ? 30 : 0;
    g.profile = (enum qs_profile)profile;
    g.mix = mix;
    g.distinct_addresses = shape->distinct_addresses;
    g.out = out;
    g.params = qs_params_new();
    g.shadow = qs_stream_new("gen", NULL, NULL);
    if (!g.params || !g.shadow)
        gen_fatal("out of memory", NULL);
    fprintf(out, "# generated: qsched gen --seed %llu --profile %s --size "
            "%llu --mix %s%s", (unsigned long long)opt->seed,
            profile == QS_PROFILE_POSTFIX ? "postfix" : "document",
            (unsigned long long)opt->events, gen_mixes[mix].name,
            shape->distinct_addresses ? " --distinct-addresses" : "");
    for (k = 0; k < (int)opt->nreadings; k++)
        fprintf(out, " --reading %s", opt->readings[k]);
    fputc('\n', out);
    gen_setup(&g);
    /* Named readings (spec/readings.md): written like parameters, so that
     * the stream stays valid for qsched with those readings. */
    for (k = 0; k < (int)opt->nreadings; k++) {
        char name[96];
        const char *eq = strchr(opt->readings[k], '=');
        int bad = !eq || eq - opt->readings[k] >= 60;
        if (!bad) {
            snprintf(name, sizeof name, "qsched_reading_%.*s",
                     (int)(eq - opt->readings[k]), opt->readings[k]);
            bad = qs_params_set(g.params, name, eq + 1, why, sizeof why) < 0;
        }
        if (bad) {
            if (err && errlen)
                snprintf(err, errlen, "reading \"%s\": %s", opt->readings[k],
                         eq ? why : "want NAME=VALUE");
            qs_stream_free(g.shadow);
            qs_params_free(g.params);
            return 2;
        }
        param(&g, name, "%s", eq + 1);
    }
    if (mix >= MIX_SHAPES) {
        if (shape->dests > 0)
            g.ndest = shape->dests;
        else
            g.ndest = mix == MIX_HEAVY ? 20 : mix == MIX_LARGE ? 50 : 200;
        gen_printf(&g, "# shape: --backlog %ld --dests %d", g.backlog,
                   g.ndest);
        gen_write(&g);
    }
    g.sched = qs_sched_new(g.params, g.profile, NULL, NULL, why, sizeof why);
    if (!g.sched)
        gen_fatal("qs_sched_new", why);
    {
        /* alternate fill and drain phases of 10..40 events */
        int draining = 0;
        long phase_end = (long)rng_range(&g.rng, 10, 40);
        while ((uint64_t)g.events < opt->events) {
            if (g.events >= phase_end) {
                draining = !draining;
                phase_end = g.events + (long)rng_range(&g.rng, 10, 40);
            }
            gen_event(&g, draining);
        }
    }
    gen_compare_shadow(&g);
    qs_sched_free(g.sched);
    qs_stream_free(g.shadow);
    qs_params_free(g.params);
    return 0;
}

/* The library entry: a stream with the mix's default sizes. */
int qs_gen_write(FILE *out, const qs_gen_options *opt, char *err,
                 size_t errlen)
{
    gen_shape shape = {0, 0, 0};
    return gen_write_shape(out, opt, &shape, err, errlen);
}

/* `qsched gen` on the command line: options, then qs_gen_write on
 * stdout; a write error is an error (exit 2), never a silent success. */
int qs_gen_main(int argc, char **argv)
{
    qs_gen_options opt = {0, -1, NULL, 80, 0, NULL, 0};
    const char *readings[64];
    gen_shape shape = {0, 0, 0};
    int have_seed = 0, i, rc;
    char err[256];
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            gen_usage(stdout);
            return 0;
        } else if (strcmp(a, "--check") == 0) {
            opt.check = 1;
        } else if (strcmp(a, "--distinct-addresses") == 0) {
            shape.distinct_addresses = 1;
        } else if (strcmp(a, "--seed") == 0 && v) {
            if (parse_u64(v, &opt.seed) < 0) {
                fprintf(stderr, "qsched gen: bad seed \"%s\"\n", v);
                return 2;
            }
            have_seed = 1;
            i++;
        } else if (strcmp(a, "--profile") == 0 && v) {
            if (strcmp(v, "document") == 0)
                opt.profile = QS_PROFILE_DOCUMENT;
            else if (strcmp(v, "postfix") == 0)
                opt.profile = QS_PROFILE_POSTFIX;
            else {
                fprintf(stderr, "qsched gen: unknown profile \"%s\"\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--size") == 0 && v) {
            if (strcmp(v, "small") == 0)
                opt.events = 80;
            else if (strcmp(v, "medium") == 0)
                opt.events = 400;
            else if (strcmp(v, "large") == 0)
                opt.events = 2000;
            else if (parse_u64(v, &opt.events) < 0 || opt.events < 1 ||
                     opt.events > 10000000) {
                fprintf(stderr, "qsched gen: bad size \"%s\" (small, "
                        "medium, large or 1 .. 10000000 events)\n", v);
                return 2;
            }
            i++;
        } else if ((strcmp(a, "--backlog") == 0 ||
                    strcmp(a, "--dests") == 0) && v) {
            uint64_t x;
            if (parse_u64(v, &x) < 0 || x < 1 || x > 1000000) {
                fprintf(stderr, "qsched gen: bad %s \"%s\" (1 .. "
                        "1000000)\n", a, v);
                return 2;
            }
            if (a[2] == 'b')
                shape.backlog = (long)x;
            else
                shape.dests = (int)x;
            i++;
        } else if (strcmp(a, "--mix") == 0 && v) {
            opt.mix = v;
            i++;
        } else if (strcmp(a, "--reading") == 0 && v &&
                   opt.nreadings < sizeof readings / sizeof readings[0]) {
            readings[opt.nreadings++] = v;
            opt.readings = readings;
            i++;
        } else {
            fprintf(stderr, "qsched gen: bad argument \"%s\"\n", a);
            gen_usage(stderr);
            return 2;
        }
    }
    if (!have_seed) {
        fputs("qsched gen: --seed N is required\n", stderr);
        gen_usage(stderr);
        return 2;
    }
    rc = gen_write_shape(stdout, &opt, &shape, err, sizeof err);
    if (rc == 2) {
        fprintf(stderr, "qsched gen: %s\n", err);
        gen_usage(stderr);
        return 2;
    }
    /* a write error on stdout is reported by cli.c (exit 4, strerror) */
    return rc;
}
