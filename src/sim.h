/*
 * sim.h - the simulator behind `qsched sim SCENARIO` (issue 17), around the
 * core.
 *
 * Owns: the types shared by the simulator's files:
 *   sim_scenario.c  the scenario language (spec/sim.md): parse, validate,
 *                   FILE:LINE errors;
 *   sim.c           the discrete-event engine (virtual time in
 *                   microseconds, a heap of events), the command line, the
 *                   driver of the core (nqmgr) and the --trace writer;
 *   sim_server.c    the network and the remote servers: connections,
 *                   listen queues, process limits, the 421 limiter, load
 *                   balancers, outages, noise, service times;
 *   sim_client.c    the delivery agents of the Postfix-style policies:
 *                   one delivery = one SMTP transaction over a new or a
 *                   cached session, MX fallback;
 *   sim_policy.c    the schedulers beside nqmgr: oqmgr round-robin, plain
 *                   FIFO, Finch's allowed_new_worker / next_router_job and
 *                   his destdb connection choice;
 *   sim_metrics.c   what is measured and how it is printed (TSV, JSON).
 *
 * Why it exists: SCHEDULER_README justifies its design with measurements
 * ("Results for delivery to concurrency-limited servers", the limitations
 * section, the preemption chapter's "slips past" claim).  The core decides;
 * the simulator plays the delivery agents and the remote servers and turns
 * their behaviour into `done` outcomes and times, so that those
 * measurements can be reproduced (docs/experiments.md).
 *
 * Determinism: virtual time only, one seeded PRNG family (xoshiro256**,
 * seeded by splitmix64), events ordered by (time, insertion number), no
 * hash or pointer order anywhere.  Same scenario and seed, same output,
 * byte for byte.
 */
#ifndef QSCHED_SIM_H
#define QSCHED_SIM_H

#include <stdint.h>
#include <stdio.h>
#include "qsched.h"

/* ---- virtual time: microseconds ---- */
typedef int64_t sim_us;
#define SIM_SEC 1000000LL
#define SIM_NEVER INT64_MAX
/* Longest run: the core's clock stops at 2^33 s (spec/events.md). */
#define SIM_TIME_MAX ((sim_us)8589934592LL * SIM_SEC)

/* ---- PRNG: xoshiro256** (Blackman, Vigna 2018), seeded by splitmix64 ----
 * Each consumer has its own stream (sim_rng_seed(r, seed, STREAM)), so that
 * adding a draw in one model does not shift the numbers of another. */
typedef struct sim_rng {
    uint64_t s[4];
} sim_rng;
enum sim_stream {
    SIM_RNG_WORKLOAD = 1, /* arrival times, destination picks */
    SIM_RNG_SERVICE = 2,  /* service-time jitter */
    SIM_RNG_FAULTS = 3,   /* noise, rejects, load balancer picks */
    SIM_RNG_POLICY = 4    /* Finch's random destination choices */
};
void sim_rng_seed(sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t sim_rng_next(sim_rng *r);
double sim_rng_unit(sim_rng *r);                  /* [0, 1), 53 bits */
uint64_t sim_rng_below(sim_rng *r, uint64_t n);   /* [0, n), n >= 1 */

/* ---- the scenario (sim_scenario.c, spec/sim.md) ---- */

enum sim_policy_kind { SIM_NQMGR, SIM_OQMGR, SIM_FIFO, SIM_FINCH };
enum sim_stack { SIM_STACK_LINUX, SIM_STACK_BSD };
enum sim_lb { SIM_LB_RR, SIM_LB_RANDOM };
enum sim_bad_mode { SIM_BAD_DROP, SIM_BAD_421, SIM_BAD_TIMEOUT };
enum sim_down_mode { SIM_DOWN_REFUSE, SIM_DOWN_BLACKHOLE };

/* One recipient group of a workload line: TRANSPORT:NEXTHOP[*COUNT], where
 * NEXTHOP may hold one {LO..HI} range (expanded by `message`, drawn from by
 * `poisson`). */
typedef struct sim_group {
    char *transport;
    char *pre, *post;   /* NEXTHOP = pre, or pre N post for N in lo..hi */
    int ranged;
    int64_t lo, hi;
    int64_t count;
} sim_group;

enum sim_work_kind { SIM_W_MESSAGE, SIM_W_POISSON };
typedef struct sim_work {
    int kind;
    long line;
    char *id;           /* message id, or prefix of generated ids */
    char *cls;          /* class name for the delay metrics */
    sim_us at, every;   /* message: first arrival, spacing */
    int64_t count;      /* message: how many copies; poisson: at most */
    double rate;        /* poisson: messages per second */
    sim_us start, stop; /* poisson: arrival window [start, stop) */
    sim_group *groups;
    size_t ngroups;
} sim_work;

typedef struct sim_server_spec {
    char *name;         /* a next-hop, or "*" for every other one */
    long line;
    sim_us per_rcpt, per_msg, jitter, rtt, greet;
    int64_t processes;  /* 0: unlimited */
    int64_t backlog;    /* listen(2) backlog; -1: = processes */
    int64_t queue;      /* accept queue capacity; -1: from backlog, stack */
    int stack;          /* enum sim_stack: what a full queue does */
    int64_t session_limit;  /* 421 above this many sessions (0: off) */
    int64_t backends, bad;  /* servers behind one address, failing ones */
    int lb, bad_mode;
    int64_t hosts;      /* separately addressed hosts (MX records) */
    char *backup;       /* secondary destination, or NULL */
    sim_us *down_from, *down_to;
    size_t ndown;
    int down_mode;
    double noise;       /* probability a handshake fails */
    double reject;      /* probability a transaction gets a 4xx */
} sim_server_spec;

typedef struct sim_param {
    char *name, *value;
    long line;
} sim_param;

typedef struct sim_finch_opts {
    int64_t max_message_concurrency;
    double scale;
    int64_t backlog;        /* backlog threshold per connection */
    int router;             /* 1: next_router_job (no destdb) */
    sim_us idle_timeout, max_age, retry, gc;
    int64_t dest_limit;     /* connections per host; -1: concurrency limit */
} sim_finch_opts;

typedef struct sim_scenario {
    char *fname;
    uint64_t seed;
    int profile;            /* enum qs_profile */
    int policy;             /* enum sim_policy_kind */
    long policy_line;
    sim_finch_opts finch;
    sim_us stop;            /* SIM_NEVER: until all mail is dealt with */
    sim_us sample;          /* --series interval */
    char *watch;            /* "transport:nexthop" or NULL: all */
    long watch_line;
    int inflation;          /* measure the bulk inflation (baseline run) */
    char *bulk_class;
    /* core parameters, in order (written to --trace) */
    sim_param *params;
    size_t nparams;
    /* client (smtp(8)) parameters */
    sim_us connect_timeout, helo_timeout, cache_time, reuse_time;
    int caching;
    sim_server_spec *servers;
    size_t nservers;
    sim_server_spec dflt;   /* for next-hops without a server line */
    sim_work *work;
    size_t nwork;
} sim_scenario;

/* Parses FILE; overrides ("NAME=VALUE" strings as if appended as lines)
 * apply after it.  Returns 0, or 2 with "FILE:LINE: reason" in err. */
int sim_scenario_load(const char *fname, char **overrides, size_t noverrides,
                      sim_scenario *sc, char *err, size_t errlen);
void sim_scenario_free(sim_scenario *sc);
/* The server spec that applies to a next-hop (exact name, else "*", else
 * the built-in default). */
const sim_server_spec *sim_scenario_server(const sim_scenario *sc,
                                           const char *nexthop);
void sim_server_spec_defaults(sim_server_spec *sp);
/* Time value: N[.F][us|ms|s|m|h|d] (no unit: seconds) -> microseconds. */
int sim_parse_time(const char *s, sim_us *out);

/* ---- the run-time model (sim.c and friends) ---- */

typedef struct sim sim;
typedef struct sim_event sim_event;

/* Why a delivery failed or was deferred (the document's "timed-out in
 * connect/greeting" columns and the rest). */
enum sim_kind {
    SIM_K_OK = 0,
    SIM_K_CONNECT,   /* smtp_connect_timeout: no TCP handshake */
    SIM_K_GREETING,  /* smtp_helo_timeout: connected, no greeting */
    SIM_K_421,       /* active limiter: 421 and hang-up */
    SIM_K_REFUSED,   /* connection refused (server down) */
    SIM_K_HANDSHAKE, /* connection dropped during the handshake */
    SIM_K_REJECT,    /* 4xx to the transaction: deferred, positive fb */
    SIM_K_DEAD,      /* deferred by the scheduler: destination dead */
    SIM_K_NOROUTE,   /* Finch: no destination left to try */
    SIM_K_COUNT
};
extern const char *const sim_kind_name[SIM_K_COUNT];

/* A remote host: one server (or, behind a load balancer, one backend). */
typedef struct sim_host {
    struct sim_site *site;
    int index;            /* host number within the site */
    int backend;          /* backend number (load balancer), else 0 */
    int bad;              /* this backend fails handshakes */
    int64_t procs_busy;   /* server processes in use */
    int64_t sessions;     /* our sessions counted by the limiter (anvil) */
    int64_t *aq;          /* accept queue: session ids, ring buffer */
    uint32_t *aq_gen;     /* ... and their generations */
    int64_t aq_head, aq_len, aq_cap, aq_limit;
    /* Finch's destdb record of this host */
    int64_t conns;        /* open connections (on backend 0: per address) */
    sim_us closed_at;     /* last close (0: never), "closed" list */
    sim_us retry_at;      /* retry record, 0: none */
    sim_us retry_gc;      /* when the retry record is garbage-collected */
} sim_host;

/* A next-hop (the document's destination) as the network sees it. */
typedef struct sim_site {
    char *name;
    const sim_server_spec *spec;
    int index;
    sim_host **hosts;     /* hosts[h][b]: address h, backend b */
    int nhosts, nbackends;
    uint64_t lb_next;     /* round-robin position of the load balancer */
    int backup;           /* site index of the secondary, -1 none, -2 unknown */
    int64_t conns;        /* Finch: open connections to the site */
    int down;             /* inside a down=... interval */
    /* connection cache (Postfix agents): idle sessions, most recent last */
    int64_t *cache;
    int64_t ncache, cache_cap;
} sim_site;

/* Client side of a connection. */
enum sim_sess_state {
    SS_FREE,      /* in the pool */
    SS_SYN,       /* SYN sent (or being retransmitted: BSD, black hole) */
    SS_QUEUED,    /* in the server's accept queue, waiting for a process */
    SS_LIMBO_ACK, /* client connected, server dropped the ACK (Linux) */
    SS_STALLED,   /* accepted by a process that never greets */
    SS_OPENING,   /* greeting and EHLO under way (or a failure pending) */
    SS_READY,     /* usable: the owner may run a transaction */
    SS_BUSY,      /* a transaction is under way */
    SS_IDLE       /* cached by the agents, no owner */
};
typedef struct sim_session {
    int64_t id;
    uint32_t gen;         /* bumped when the session is recycled */
    int state;
    sim_host *host;
    sim_us t_open;        /* connect() called */
    sim_us t_ready;       /* greeting and EHLO done */
    sim_us t_base;        /* first SYN-ACK (Linux limbo) */
    int retries;          /* SYN or SYN-ACK retransmissions so far */
    int connected;        /* connect() returned: greeting timer runs */
    uint32_t idle_serial; /* bumped each time it goes idle (cache) */
    int has_process;      /* holds a server process */
    int counted;          /* counted by the limiter */
    int64_t owner;        /* delivery id (agents) or connection (Finch) */
    int64_t next_free;
} sim_session;

/* A destination queue as the simulator tracks it: transport + next-hop. */
typedef struct sim_dest {
    char *key;            /* "transport:nexthop" */
    int64_t index;        /* in sim.dests */
    int transport;
    sim_site *site;
    int tracked;          /* window known (nqmgr: from the trace) */
    int window, dead;
    double success, failure, fail_cohorts;
    sim_us revive_at;
    int64_t busy;         /* deliveries in flight */
    int64_t pending;      /* in-core recipients not selected (nqmgr) */
    /* oqmgr / FIFO: peers with work for this destination, FIFO */
    struct sim_peer *phead, *ptail;
    int on_rr;            /* on its transport's round-robin list */
    struct sim_dest *rr_prev, *rr_next;
    int64_t ready_serial;
} sim_dest;

/* The recipients of one message for one destination (oqmgr, FIFO, Finch). */
typedef struct sim_peer {
    struct sim_msg *msg;
    sim_dest *dest;
    int64_t left;         /* recipients not yet selected */
    int64_t inflight;     /* deliveries (jobs) of this peer in flight */
    struct sim_peer *dprev, *dnext;   /* the destination's list */
} sim_peer;

typedef struct sim_msg {
    char *id;
    size_t index;         /* in sim.msgs (NULL there once freed) */
    int cls;
    int bulk;
    sim_us arrive;
    int64_t nrcpt, delivered, deferred;
    sim_us last_done;
    int64_t *g_dest;      /* per group: destination index */
    int64_t *g_count;
    size_t ngroups;
    size_t read_group;    /* nqmgr: recipients read so far (cursor) */
    int64_t read_off;
    sim_peer *peers;      /* oqmgr/FIFO/Finch, in group order, merged */
    size_t npeers;
    size_t peer_cursor;   /* first peer that may still have work */
    int64_t concurrency;  /* Finch: jobs assigned and not finished */
    struct sim_map *peer_map;  /* Finch: destination key -> peer */
    int64_t unselected;   /* recipients not yet selected (policies) */
    struct sim_msg *prev, *next;   /* the policies' active list (FIFO) */
    int active;
} sim_msg;

/* One delivery: an entry (or a Finch job) in flight. */
typedef struct sim_delivery {
    int64_t id;
    int64_t handle;       /* the core's D<n> (nqmgr), else 0 */
    sim_msg *msg;
    sim_dest *dest;
    sim_peer *peer;
    int64_t nrcpt;
    sim_us start;
    int64_t session;      /* session id, -1 */
    int host_try;         /* MX fallback position */
    int kind;             /* last failure kind */
    int64_t conn;         /* Finch connection, -1 */
    int64_t next_free;
    int64_t qnext;        /* Finch: next job on the connection queue */
    int live;
} sim_delivery;

typedef struct sim_transport {
    char *name;
    int64_t process_limit, rcpt_limit, init_conc, conc_limit, cohort_limit;
    int pos_form, neg_form;
    double pos_base, neg_base;
    int64_t inflight;
    sim_dest *rr_head, *rr_tail;   /* oqmgr round-robin list */
    int64_t conns_open;            /* Finch: open connections */
    int64_t conns_busy;            /* Finch: connections with jobs */
} sim_transport;

/* Delay statistics of one class of mail. */
typedef struct sim_class {
    char *name;
    /* deliveries of this class in flight, time-weighted (Finch's shares) */
    int64_t f_now;
    double f_area;
    sim_us f_since;
    int64_t messages, done;
    double *delays;       /* per finished message, seconds */
    size_t ndelays, cap;
    sim_us first_arrive, last_done;
    int64_t rcpts, delivered, deferred;
} sim_class;

/* The metrics (sim_metrics.c). */
typedef struct sim_metrics {
    int64_t recipients, delivered, deferred;
    int64_t deliveries, failed;
    int64_t kind_rcpts[SIM_K_COUNT], kind_deliveries[SIM_K_COUNT];
    /* the document's concurrency: window after each feedback event */
    double w_sum, w_sum2;
    int64_t w_n;
    int w_min, w_max;
    /* deliveries in flight over time (time-weighted) */
    double f_area, f_area2;
    sim_us f_since, f_first, f_last;
    int64_t f_now;
    int f_started;
    int64_t conn_fail[SIM_K_COUNT];   /* Finch: failed connections */
    int64_t sessions_opened, sessions_reused;
    sim_us first_arrive, last_done;
    int64_t events;
} sim_metrics;

/* The Finch policy's connections (sim_policy.c). */
typedef struct sim_conn {
    int64_t id;
    sim_host *host;
    int64_t session;
    sim_us opened;
    int64_t qhead, qtail, qlen;   /* job queue (delivery ids) */
    int64_t running;      /* delivery id + 1 of the job under way, or 0 */
    int busy;             /* counted in the transport's conns_busy */
    uint32_t idle_serial;
    int ready;
    int retiring;         /* aged: takes no more jobs */
    int open;
    uint32_t gen;
    int64_t next_free;
} sim_conn;

struct sim {
    const sim_scenario *sc;
    sim_us now;
    uint64_t seq;
    /* event heap */
    struct sim_event *heap;
    size_t nheap, capheap;
    sim_rng rng_work, rng_service, rng_faults, rng_policy;
    /* core (nqmgr) */
    qs_params *params;
    qs_sched *core;
    int64_t core_now;     /* seconds last passed to qs_advance */
    FILE *trace, *decisions;
    char err[512];
    int failed;           /* internal error: message in err */
    /* the model */
    sim_site **sites;
    size_t nsites;
    sim_transport *transports;
    size_t ntransports;
    sim_dest **dests;
    size_t ndests, capdests;
    sim_session *sessions;
    int64_t nsessions, capsessions, free_session;
    sim_delivery *deliveries;
    int64_t ndeliveries, capdeliveries, free_delivery;
    sim_msg **msgs;
    size_t nmsgs, capmsgs;
    sim_msg *mhead, *mtail;       /* policies' active list */
    sim_msg **finished;           /* finished during this event: to free */
    size_t nfinished, capfinished;
    sim_dest **dead;              /* policies: dead destinations */
    size_t ndead, capdead;
    int64_t msgs_open;            /* arrived, not finished */
    int64_t work_left;            /* arrivals still to come */
    sim_class *classes;
    size_t nclasses;
    sim_metrics m;
    /* string maps (open addressing, FNV-1a) */
    struct sim_map *msg_map, *dest_map, *site_map, *handle_map;
    /* Finch */
    sim_conn *conns;
    int64_t nconns, capconns, free_conn;
    int *finch_conn_transport;    /* per connection: its transport */
    sim_us backoff;               /* minimal_backoff_time */
    /* options */
    int baseline;         /* this run only has the bulk class */
    FILE *series, *delays;
    sim_us next_sample;
    size_t rr_transport;  /* policies: round-robin over transports */
    int dispatch_pending;
    int64_t watch_dest;   /* -1: every destination */
};

/* ---- events (sim.c) ---- */
enum sim_ev_kind {
    EV_ARRIVAL,       /* a = work index, b = copy number */
    EV_POISSON,       /* a = work index: next Poisson arrival */
    EV_WAKEUP,        /* dispatch (revival, refill, dead timers) */
    EV_SYN,           /* a = session: connection attempt reaches server */
    EV_SYN_RETRY,     /* a = session: client retransmits SYN */
    EV_SYNACK_RETRY,  /* a = session: server retransmits SYN-ACK */
    EV_CONNECT_TIMEOUT,  /* a = session */
    EV_GREETING_TIMEOUT, /* a = session */
    EV_SESSION_READY, /* a = session: greeting and EHLO done */
    EV_SESSION_FAIL,  /* a = session, b = kind: client sees failure */
    EV_PROC_FREE,     /* a = host ptr index: server process freed */
    EV_XACT_DONE,     /* a = session, b = outcome kind */
    EV_CACHE_EXPIRE,  /* a = session: idle cached session times out */
    EV_DOWN,          /* a = site, b = 1 down, 0 up */
    EV_FINCH_AGE,     /* a = connection */
    EV_FINCH_IDLE,    /* a = connection */
    EV_SAMPLE         /* --series tick */
};
struct sim_event {
    sim_us t;
    uint64_t seq;
    int kind;
    int64_t a, b;
    uint32_t gen;
    void *p;
};

void sim_schedule(sim *s, sim_us t, int kind, int64_t a, int64_t b,
                  uint32_t gen, void *p);
/* Fatal internal inconsistency: records the message, stops the run. */
void sim_fail(sim *s, const char *fmt, ...);
void sim_request_dispatch(sim *s);

/* ---- the network and the servers (sim_server.c) ---- */
void sim_sites_build(sim *s);
void sim_sites_free(sim *s);
sim_site *sim_site_get(sim *s, const char *nexthop);
/* Opens a session from the client to host h (load balancer applied
 * inside); the owner is notified through sim_session_ready /
 * sim_session_failed. */
int64_t sim_session_open(sim *s, sim_site *site, int host_index,
                         int64_t owner);
/* Runs one transaction of nrcpt recipients on a ready session; the owner
 * hears sim_xact_done. */
void sim_session_transact(sim *s, int64_t sid, int64_t nrcpt);
/* Closes a session (QUIT, or the client gives up). */
void sim_session_close(sim *s, int64_t sid);
sim_session *sim_session_at(sim *s, int64_t sid);
void sim_server_event(sim *s, const sim_event *ev);
void sim_site_set_down(sim *s, sim_site *site, int down);

/* ---- owners' callbacks: agents (sim_client.c) or Finch (sim_policy.c) */
void sim_session_ready(sim *s, int64_t sid);
void sim_session_failed(sim *s, int64_t sid, int kind);
void sim_xact_done(sim *s, int64_t sid, int kind);

/* ---- delivery agents (sim_client.c) ---- */
void sim_agent_start(sim *s, sim_delivery *d);
/* An idle cached session expired (event). */
void sim_cache_expire(sim *s, const sim_event *ev);
/* Closes every idle cached session of a site (the server went down). */
void sim_cache_flush(sim *s, sim_site *site);
sim_delivery *sim_delivery_new(sim *s);
void sim_delivery_free(sim *s, sim_delivery *d);
/* A delivery ended: feed the policy (core or own), account metrics. */
void sim_delivery_finish(sim *s, sim_delivery *d, int kind);
/* A delivery the policy selected: counts it and starts an agent. */
void sim_delivery_begin(sim *s, sim_delivery *d);
/* Counts it in flight without an agent (Finch's connections run it). */
void sim_delivery_count(sim *s, sim_delivery *d, int64_t delta);
/* n recipients of m deferred without a delivery (dead destination, no
 * route). */
void sim_defer_recipients(sim *s, sim_msg *m, int64_t n, int kind);
/* Do Finch connections own the sessions (delivery mode)? */
int sim_finch_owns_sessions(const sim *s);

/* ---- policies (sim.c: nqmgr through the core; sim_policy.c: others) */
void sim_policy_arrive(sim *s, sim_msg *m);
void sim_policy_dispatch(sim *s);
void sim_policy_done(sim *s, sim_delivery *d, int kind);
void sim_policy_event(sim *s, const sim_event *ev);
void sim_policy_free(sim *s);
/* nqmgr */
void sim_core_dispatch(sim *s);
void sim_core_done(sim *s, sim_delivery *d, int kind);
/* Finch */
void sim_finch_session_ready(sim *s, int64_t sid);
void sim_finch_session_failed(sim *s, int64_t sid, int kind);
void sim_finch_xact_done(sim *s, int64_t sid, int kind);

/* Shared by the policies: destination windows through the core's kernels
 * (S-CON-*), for the policies that do not run the core. */
int sim_dest_ready(const sim *s, const sim_dest *d);
void sim_dest_feedback(sim *s, sim_dest *d, int kind);
void sim_dest_die(sim *s, sim_dest *d);

/* ---- metrics (sim_metrics.c) ---- */
void sim_metrics_inflight(sim *s, int64_t delta);
void sim_metrics_window(sim *s, int window);
void sim_metrics_message_done(sim *s, sim_msg *m);
int sim_class_index(sim *s, const char *name);
void sim_metrics_print(sim *s, FILE *out, int json, const sim *baseline);
void sim_series_sample(sim *s);
void sim_classes_free(sim *s);

/* ---- small string map (deterministic; insertion order irrelevant) ---- */
typedef struct sim_map sim_map;
sim_map *sim_map_new(void);
void sim_map_free(sim_map *m);
/* Returns the value for key, or -1. */
int64_t sim_map_get(const sim_map *m, const char *key);
int sim_map_put(sim_map *m, const char *key, int64_t value);
void sim_map_del(sim_map *m, const char *key);

/* qsched sim ... (cli.c dispatches here) */
int qs_sim_main(int argc, char **argv);

#endif
