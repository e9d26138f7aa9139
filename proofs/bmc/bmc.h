/*
 * bmc.h - the bounded model checker of qsched (issue 7): shared types.
 *
 * Owns: the parameter mix, the alphabet of events, the independent shadow
 * model ("monitor") that follows the core through its trace, the parsed
 * form of qs_encode_state, and the property list.  The explorer drives
 * the REAL core (the src/ files, through src/qsched.h) over every event sequence up
 * to a depth, so what is checked is the code that ships, not a re-model.
 *
 * Files: encode.c (strict parser of qs_encode_state + canonical state key),
 * monitor.c (trace sink, shadow model, every property), explore.c (mixes,
 * replay, breadth-first search, counterexample streams), main.c (command
 * line, grid, parallel workers, report).  The theory behind the inflation
 * and loan checks is in docs/inflation.md; how to run it in
 * proofs/README.md, section "Bounded model checking".
 */
#ifndef QSCHED_BMC_H
#define QSCHED_BMC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "qsched.h"

/* ---- limits of the explored world (small by design) ---- */
#define BMC_MAX_MSG 6      /* messages per path (ids M1..M6) */
#define BMC_NDEST 2        /* destinations u@a and u@b of transport smtp */
#define BMC_MAX_FLIGHT 64  /* deliveries in flight at once */
#define BMC_MAX_DEPTH 48   /* events per path */
#define BMC_MAX_SHAPES 16  /* arrive shapes of one mix */
#define BMC_MAX_ENTRIES 32 /* entries of one message */

/* ---- the properties (one ok/FAIL line each per mix group) ---- */
enum bmc_prop {
    P_INV,      /* qs_check_invariants after every event (S-INV-*) */
    P_ACCT,     /* core counters/levels/parents/blockers/windows/queues
                   equal the independent shadow model */
    P_GATE,     /* never preempted while counter <= 0 (S-PRE-3) */
    P_TEST,     /* preempt/nopreempt decided by counter/k + loan >=
                   needed*(100-discount)/100, recomputed (S-PRE-7) */
    P_CAND,     /* the candidate is the best valid one: after the current
                   job, not a blocker, not preempted, 1..max_slots
                   (S-PRE-5, S-PRE-6, S-PRE-11) */
    P_BOUND,    /* counter >= LB(k, loan, discount, M) and counter +
                   unselected entries >= 0 (docs/inflation.md) */
    P_LOAN,     /* every loan repaid: between two preemptions of a job it
                   accumulates the debt + 1; counter >= 0 at its last
                   selection */
    P_REFUND,   /* pop refunds only the original parent, exactly one level
                   up, by (needed - used) * k (S-PRE-9, S-PRE-10) */
    P_WINDOW,   /* while alive 1 <= window <= limit (S-CON-5, S-INV-6) */
    P_DEAD,     /* dead exactly when the cohort rule says; revival when
                   the backoff expires (S-CON-8, S-CON-10, S-PFX-1/4/8) */
    P_SELECT,   /* no delivery for a dead or window-full destination, nor
                   from a blocker or a job without a pending entry there */
    P_ORDER,    /* the shadow decides the order itself: the scheduler's
                   job list (linking and relinking by enqueue time,
                   S-PRE-13), the current job, the walk along the list
                   from it (S-PRE-2), each job's peer rotation (S-PRE-15),
                   blockers and their release (S-PRE-11, S-PRE-12); every
                   delivery, blocker, retirement and idle must be the one
                   it predicts, and list, current job, peer order and
                   blocker tags must equal the core's after every event */
    P_LIVE,     /* liveness under a fair supply of delivery agents: from
                   the explored states, selecting while anything can be
                   selected, completing every delivery and letting time
                   pass to the next revival, every message with
                   deliverable recipients is served and leaves, and every
                   dead destination comes back exactly when its backoff
                   expires (bounded by a step budget) */
    P_INFL,     /* the document's inflation claim (a finding if broken,
                   not a failure) */
    P_COUNT
};
extern const char *const bmc_prop_name[P_COUNT];

/* ---- a parameter mix and its alphabet ---- */
enum bmc_family {
    FAM_TIGHT = 0, /* windows 1..2, failures, deaths: blockers happen */
    FAM_WIDE = 1,  /* windows never fill, bigger jobs: deep preemption */
    FAM_MIXED = 2  /* tight windows, failures and a message big enough for
                      the gate at every k and minimum slots: preemption,
                      recursive preemption, blockers and deaths together */
};

typedef struct bmc_shape {
    int n[BMC_NDEST]; /* entries for u@a, u@b */
} bmc_shape;

typedef struct bmc_mix {
    int k, loan, discount, min_slots;
    int profile;            /* QS_PROFILE_DOCUMENT / QS_PROFILE_POSTFIX */
    int family;
    int limit, init;        /* destination concurrency limit / initial */
    int cohort_limit;
    int backoff;            /* minimal_backoff_time, seconds */
    int mem;                /* 1: small recipient limits (batched reads),
                               2: the same with a pool of one slot */
    int active_limit;       /* qmgr_message_active_limit (never reached:
                               at most max_msgs messages) */
    int msg_rcpt_limit, msg_rcpt_min, rcpt_limit, extra_rcpt_limit;
    int refill_limit, refill_delay;
    int max_msgs, max_ticks, depth;
    int allow_done, allow_fail;
    int nshapes;
    bmc_shape shapes[BMC_MAX_SHAPES];
    int max_needed;         /* largest message: M of the counter bound */
    char name[80];
} bmc_mix;

/* Letters of the alphabet.  A path is a string of letters. */
enum {
    L_SELECT = 0,
    L_TICK = 1,
    L_DONE0 = 2, /* L_DONE0 + 2*i + fail: done (i-th smallest in flight) */
    L_ARRIVE0 = L_DONE0 + 2 * BMC_MAX_FLIGHT /* + shape index */
};

/* ---- the parsed qs_encode_state ---- */
typedef struct enc_entry {
    int msg;        /* index into enc_state.msg (by id) */
    long long h;    /* handle (busy entries), 0 for todo */
    long long n;
} enc_entry;

typedef struct enc_queue {
    char name[16];
    int w, dead, b;
    double fc;
    char s_raw[40], f_raw[40], c_raw[40];
    long long r;
    int ntodo, nbusy;
    enc_entry todo[BMC_MAX_MSG * BMC_MAX_ENTRIES];
    enc_entry busy[BMC_MAX_FLIGHT];
} enc_queue;

typedef struct enc_job {
    int msg;                 /* message index */
    int level, parent, blocker; /* parent: message index or -1 */
    long long a, u, s, r, c, l;
    int npeers;
    int peers[BMC_NDEST];    /* queue name index: 0 u@a, 1 u@b */
} enc_job;

typedef struct enc_msg {
    int e;                   /* postfix profile: end of recipients unseen */
    char id[16];
    long long q, gi, go, u, c, l, f, d, x;
} enc_msg;

typedef struct enc_state {
    long long T, H, C;
    char rr[16];
    int nmsg, nwait;
    enc_msg msg[BMC_MAX_MSG];
    char wait[BMC_MAX_MSG][16];
    int has_transport;
    char tname[16];
    /* postfix profile: the candidate cache (S-PFX-20), if valid */
    int has_cache, cache, cache_cur;
    long long cache_time;
    long long pool;
    int cur, unread;         /* message index or -1 */
    int nq;
    enc_queue q[BMC_NDEST];
    int nj;
    enc_job j[BMC_MAX_MSG];  /* in scheduler's job list order */
    int nbt;
    int bytime[BMC_MAX_MSG];
    int nret;
    enc_job ret[BMC_MAX_MSG];
} enc_state;

/* Parses the text of qs_encode_state; 0 or -1 with a reason (a format
 * the parser does not know is an error, never silently accepted). */
int enc_parse(const char *text, enc_state *st, char *err, size_t errlen);
/* Index of a destination name (u@a -> 0, u@b -> 1), -1 if unknown. */
int enc_dest_index(const char *name);
/* Appends the canonical form of st (messages renamed by rank, handles
 * relative to the next handle, times relative to now, irrelevant stale
 * fields zeroed) to buf; returns the length. */
size_t enc_canonical(const enc_state *st, char *buf, size_t cap);

/* ---- the shadow model ---- */
typedef struct mjob {
    int live;               /* arrived and not left */
    int entries[BMC_NDEST]; /* recipients (= entries) per destination */
    int E;                  /* recipients of the message */
    int unread, cursor;     /* recipients not read yet / read so far */
    int end_unseen;         /* S-PFX-16 (postfix): the last read filled
                               its limit, the end of the file unseen */
    int todo[BMC_NDEST];    /* unselected entries per destination */
    int pend_dr[BMC_NDEST]; /* read for a dead destination, defer due */
    int death_due[BMC_NDEST]; /* entries pending when the destination
                               died in this event: deferral due */
    int selected, completed;
    int dr;                 /* deferred as read (never became entries) */
    int de;                 /* entries deferred (they count as selected) */
    long long counter, used;/* slots_available, slots_used */
    int level;              /* -1: off the job lists */
    int linked_once, expect_relink;
    int parent, orig_parent;/* message indices or -1 */
    int blocker;
    /* history (part of the state key) */
    long long first_h, last_h; /* 0: never selected */
    int eligible, rec, finished;
    int has_pre;            /* preempted at least once */
    long long after_pre;    /* counter right after its last preemption */
    long long acc_since;    /* selections + refunds since then */
    /* the shadow's own order (P_ORDER) */
    long long qtime;        /* entered the active queue (S-PRE-13 key) */
    int npeer;
    int peer[BMC_NDEST];    /* destinations in round-robin order */
} mjob;

typedef struct mdest {
    int exists, window, dead, inflight, todo;
    long long fc_num;       /* fail_cohorts * BMC_FC_DEN, exact */
    long long revive_at;
} mdest;
#define BMC_FC_DEN 2520     /* lcm(1..10): windows up to 10 are exact */

typedef struct mflight {
    long long h;
    int job, dest;
} mflight;

typedef struct bmc_stats {
    long long preemptions, recursive, refused, blockers, deaths, revivals;
    long long pops_refund, pops_norefund, adoptions;
    long long eligible_checked, eligible_preempted;
    long long min_counter;
    /* worst ratio span/n for eligible jobs: non-recursive and recursive;
     * "any": every job, no precondition (information only) */
    long long w_nr_span, w_nr_n, w_r_span, w_r_n, w_any_span, w_any_n;
} bmc_stats;

typedef struct monitor {
    const bmc_mix *mix;
    int profile, init_eff;
    long long lb;            /* the counter lower bound LB */
    int nmsg;                /* messages arrived on this path */
    int ticks;
    long long now;
    mjob job[BMC_MAX_MSG];
    mdest dest[BMC_NDEST];
    int blocker_seen;
    int nfl;
    mflight fl[BMC_MAX_FLIGHT];
    /* the event being applied */
    int live;                /* 1 for the last letter of a replay */
    int ev;                  /* letter class: L_SELECT, L_TICK, done, arrive */
    int ev_dest, ev_fail, ev_job, ev_alive, ev_busy_incl;
    int expect_dead, saw_dead, expect_revive, saw_revive;
    int revive_expect_mask;  /* tick: destinations due to revive */
    int saw_candidate, cand_expected, cand_msg;
    int cand_cached;        /* postfix: the answer comes from the cache */
    int last_dead_dest;      /* DEFER right after DEAD: entry deferrals */
    int delivered;           /* a deliver record this event */
    const enc_state *pre;    /* the state before this event */
    /* the shadow's scheduler job list and walk (P_ORDER) */
    int list[BMC_MAX_MSG], nlist;
    int cur;                 /* current job, -1: none */
    int qblock[BMC_NDEST];   /* queue carries the current blocker tag */
    int qorder[BMC_NDEST], nqorder; /* the transport's queue list */
    int sel_active;          /* this select walks the job list */
    int walk;                /* where the walk stands, -1: at the end */
    int unblocked, unblock_due, died_tagged, read_seen;
    /* results */
    unsigned viol;           /* bitmask of violated properties */
    char why[P_COUNT][320];
    int claim_broken;
    bmc_stats *stats;        /* NULL during prefix replay */
} monitor;

void mon_init(monitor *m, const bmc_mix *mix, bmc_stats *stats);
void mon_sink(void *ctx, const qs_trace *r);
void mon_flag(monitor *m, int prop, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Event brackets: call before and after the API call of each letter. */
void mon_before_arrive(monitor *m, int shape);
void mon_before_select(monitor *m);
void mon_before_done(monitor *m, int fl_index, int fail);
void mon_before_tick(monitor *m);
void mon_after_event(monitor *m, const enc_state *post);
/* Serialises the path history (not derivable from the core state). */
size_t mon_history(const monitor *m, const enc_state *st, char *buf,
                   size_t cap);
/* LB(k, loan, discount, M), docs/inflation.md section 2. */
long long bmc_counter_lb(int k, int loan, int discount, int max_needed);
/* A, the additive inflation allowance, docs/inflation.md section 4. */
long long bmc_allowance(int k, int loan, int discount);

/* ---- exploration ---- */
typedef struct bmc_opts {
    int depth;               /* overrides the mix's depth if > 0 */
    long long max_states;    /* per mix group */
    int stop_first;          /* stop a group at its first violation */
    int quiet;
    const char *outdir;      /* counterexample streams */
} bmc_opts;

typedef struct bmc_path {
    int len;
    uint8_t l[BMC_MAX_DEPTH];
} bmc_path;

enum { W_NONREC, W_REC, W_ANY, W_COUNT }; /* worst-ratio witnesses */

typedef struct bmc_result {
    int depth_reached;       /* levels explored completely */
    int complete;            /* 1: no new state at the last level */
    int capped;              /* 1: the state cap stopped the search */
    int tool_error;
    int skipped;             /* --stop-first: not run, a violation was
                                already found elsewhere */
    char tool_err[400];
    long long states, transitions;
    long long selftests, selftest_fail; /* dedupe soundness checks */
    long long live_checked;  /* states drained for P_LIVE */
    long long viol_count[P_COUNT];
    bmc_stats stats;
    bmc_path cex[P_COUNT];   /* shortest counterexample per property */
    char cex_why[P_COUNT][320];
    bmc_path wit[W_COUNT];
} bmc_result;

void bmc_mix_name(bmc_mix *mix);
int bmc_explore(const bmc_mix *mix, const bmc_opts *o, bmc_result *res,
                FILE *log);
/* Writes the event stream of a letter path (the counterexample format). */
void bmc_write_stream(FILE *f, const bmc_mix *mix, const uint8_t *path,
                      int len);

#endif
