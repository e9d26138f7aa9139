/*
 * sched_int.h - the scheduler's data structures, as the document names them
 * ("The structures used by nqmgr"): message, recipient entry, transport,
 * destination queue, peer, job (S-PRE-1).
 *
 * Owns: the layout shared by the core files (sched.c, concurrency.c,
 * jobs.c, preempt.c, select.c, memory.c, messages.c, assign.c) and check.c
 * (the invariant checker), and the functions one core file calls in
 * another: they carry the prefix qsi_ (qsched internal).  Not part of the
 * public API: embedders use qsched.h.
 * Every list is an intrusive doubly linked list so that every unlink is
 * O(1); every count the algorithm consults is kept incrementally.
 */
#ifndef QSCHED_SCHED_INT_H
#define QSCHED_SCHED_INT_H

#include "qsched.h"
#include "params.h"
#include "map.h"
#include "readings.h"

typedef struct qs_entry qs_entry;
typedef struct qs_peer qs_peer;
typedef struct qs_job qs_job;
typedef struct qs_queue qs_queue;
typedef struct qs_transport qs_transport;
typedef struct qs_message qs_message;

/* A recipient entry: a batch of recipients of one message for one
 * destination queue of one transport. */
struct qs_entry {
    qs_entry *qprev, *qnext;  /* queue todo list, or queue busy list */
    qs_entry *pprev, *pnext;  /* peer entry list (todo entries only) */
    qs_peer *peer;
    qs_queue *queue;
    int64_t nrcpt;
    int64_t handle;           /* delivery handle while busy, else 0 */
};

/* A peer: the entries of one job for one destination queue. */
struct qs_peer {
    qs_job *job;
    qs_queue *queue;
    qs_entry *ehead, *etail;  /* todo entries, in creation order */
    int64_t todo;             /* entries on the list above */
    int64_t refcount;         /* todo + busy entries of this peer */
    qs_peer *prev, *next;     /* the job's peer list (round robin) */
};

/* A destination queue: one next-hop (or recipient) of one transport. */
struct qs_queue {
    char *name;
    uint64_t serial;
    qs_transport *transport;
    qs_entry *todo_head, *todo_tail, *busy_head, *busy_tail;
    int64_t todo, busy;       /* entry counts; busy = deliveries in flight */
    int window;               /* the document's "concurrency" */
    double success, failure, fail_cohorts;
    int dead;
    int64_t revive_at;
    qs_queue *dprev, *dnext;  /* the scheduler's dead list (by revive_at) */
    unsigned blocker_tag;
    int ready;                /* counted in transport->ready_queues */
    qs_queue *prev, *next;    /* the transport's queue list */
};

/* A job: one message within one transport. */
struct qs_job {
    qs_message *message;
    qs_transport *transport;
    uint64_t serial;
    qs_job *lprev, *lnext;    /* the scheduler's job list */
    qs_job *tprev, *tnext;    /* the by-enqueue-time job list */
    qs_job *parent;           /* preemption stack parent */
    qs_job *child_head, *child_tail, *sprev, *snext; /* children/siblings */
    int stack_level;          /* -1: not on the job lists (retired/new) */
    uint64_t preempted_serial; /* serial of the job it last preempted */
    unsigned blocker_tag;
    qs_peer *peer_head, *peer_tail;
    int64_t peer_count;
    qs_map peers;             /* queue serial -> peer */
    int64_t slots_used, slots_available;
    int64_t selected_entries, read_entries;
    int64_t rcpt_count, rcpt_limit;
    qs_job *mnext;            /* the message's job list */
};

/* A transport with its resolved parameters. */
struct qs_transport {
    char *name;
    uint64_t serial;
    /* parameters (S-EV-2) */
    int slot_cost, slot_loan, slot_discount, min_slots;
    int dest_conc_limit, dest_rcpt_limit, init_conc, cohort_limit;
    int process_limit;
    int64_t rcpt_limit, extra_rcpt_limit, refill_limit, refill_delay;
    qs_feedback pos, neg;
    /* job lists */
    qs_job *jhead, *jtail;    /* scheduler's list */
    qs_job *thead, *ttail;    /* by-time list */
    /* job_current: the job that may be preempted (S-PRE-2; by default the
     * job whose entry was selected last, reading R-14).  job_walk: where
     * entry selection starts; every job before it on the scheduler's list
     * is a blocker, NULL means every job is (S-PRE-2).  Under reading
     * current_job = walk_start (the postfix profile) they are one. */
    qs_job *job_current, *job_walk, *job_next_unread;
    unsigned blocker_tag;     /* odd; += 2 releases every blocker */
    int64_t rcpt_unused;      /* recipient pool (may go negative by at
                                 most extra_rcpt_limit: S-MEM-6) */
    /* queues */
    qs_queue *qhead, *qtail;
    qs_map queues;            /* name -> queue */
    int64_t ready_queues;     /* alive, window > busy, todo > 0 */
    int64_t in_flight;
    /* statistics */
    int64_t deliveries, preemptions, in_core, peak_in_core;
    qs_transport *next;       /* scheduler's transport list (round robin) */
};

/* One recipient group of an arrive line, owned by the message. */
typedef struct qs_mgroup {
    char *transport, *local, *nexthop;
    int64_t count;
} qs_mgroup;

struct qs_message {
    char *id;
    uint64_t serial;
    int64_t queued_time;      /* when it entered the active queue */
    qs_mgroup *groups;
    size_t ngroups;
    size_t cur_group;         /* read cursor (S-MEM-1) */
    int64_t cur_offset;
    int64_t rcpt_total, rcpt_unread, rcpt_count, rcpt_limit;
    int64_t refill_time;
    int64_t delivered, deferred;
    int active;
    int check_pending;
    qs_job *jobs;
    qs_message *next;         /* incoming FIFO, or the active list */
    qs_message *aprev;        /* active list */
    qs_message *check_next;
};

struct qs_sched {
    qs_params *params;
    int profile;
    /* the named readings in force (readings.h, spec/readings.md): what the
     * stream set, else the profile's default */
    unsigned char reading[QR_COUNT];
    qs_trace_sink sink;
    void *ctx;
    int64_t now;
    uint64_t serial;
    int64_t next_handle;
    /* global parameters */
    int64_t active_limit, msg_rcpt_limit, msg_rcpt_minimum, min_backoff;
    /* transports, in creation order; rr: where round robin starts
     * (reading transport_rr = next), rr_last: the transport of the last
     * round-robin delivery (transport_rr = last, S-PRE-14) */
    qs_transport *xhead, *xtail, *rr, *rr_last;
    size_t ntransports;
    qs_map transports;
    /* messages */
    qs_map messages;          /* id -> message (active and incoming) */
    qs_message *incoming_head, *incoming_tail;
    int64_t incoming_count;
    qs_message *active_head, *active_tail;
    int64_t active_count;
    qs_message *check_head;
    /* deliveries in flight: handle -> entry */
    qs_map inflight;
    /* dead destinations, oldest first */
    qs_queue *dead_head, *dead_tail;
    int64_t in_core;          /* qmgr_recipient_count */
    qs_stats stats;
    /* scratch buffer for reading batches */
    struct qs_batch_rcpt *batch;
    size_t batch_cap;
};

/* The value of a named reading (readings.h), e.g.
 * QS_READING(s, QR_IDLE_WINDOW) == QRV_IDLE_KEEP. */
#define QS_READING(s, r) ((int)(s)->reading[(r)])

#define QS_HAS_ENTRIES(j) ((j)->selected_entries < (j)->read_entries)
/* S-MEM-8: estimates the scheduler may use with unread recipients. */
#define QS_MIN_ENTRIES(j) ((j)->read_entries)
#define QS_MAX_ENTRIES(j) ((j)->read_entries + (j)->message->rcpt_unread)
#define QS_IS_BLOCKER(j) ((j)->blocker_tag == (j)->transport->blocker_tag)

/* The document's upper bounds on in-core recipients (S-MEM-9). */
int64_t qs_bound_transport(const qs_sched *s, const qs_transport *t);
int64_t qs_bound_total(const qs_sched *s);
/* S-INV-8: the bound that holds: qmgr_message_recipient_limit +
 * qmgr_message_recipient_minimum x active messages + sum over transports of
 * (recipient limit + extra recipient limit). */
int64_t qs_bound_holding(const qs_sched *s);

/* ---- cross-file functions of the core (qsi_: internal) ---- */

/* sched.c: shared helpers and transports */
void qsi_seterr(char *err, size_t errlen, const char *msg);
void qsi_emit(qs_sched *s, qs_trace *r);
qs_trace qsi_trace_init(enum qs_trace_kind kind);
void *qsi_calloc(size_t n, size_t size);
char *qsi_strdup(const char *str);
void qsi_map_put(qs_map *m, const char *str, uint64_t num, void *v);
int qsi_postfix(const qs_sched *s);
qs_transport *qsi_transport_find(const qs_sched *s, const char *name);
qs_transport *qsi_transport_obtain(qs_sched *s, const char *name);

/* concurrency.c: destination queues and their windows */
void qsi_queue_update_ready(qs_queue *q);
qs_queue *qsi_queue_obtain(qs_sched *s, qs_transport *t, const char *name);
void qsi_queue_free_if_idle(qs_sched *s, qs_queue *q);
void qsi_queue_revive(qs_sched *s, qs_queue *q, int busy);
void qsi_feedback(qs_sched *s, qs_queue *q, enum qs_outcome outcome);

/* jobs.c: jobs, peers, entries, the two job lists */
void qsi_trace_job(qs_sched *s, enum qs_trace_kind kind, qs_job *j);
void qsi_job_retire(qs_sched *s, qs_job *job);
qs_job *qsi_job_obtain(qs_sched *s, qs_message *m, qs_transport *t);
void qsi_job_free(qs_sched *s, qs_job *job);
qs_peer *qsi_peer_obtain(qs_sched *s, qs_job *job, qs_queue *q);
void qsi_peer_free_if_unused(qs_peer *p);
void qsi_qlist_append(qs_entry **head, qs_entry **tail, qs_entry *e);
void qsi_qlist_unlink(qs_entry **head, qs_entry **tail, qs_entry *e);
void qsi_peer_unlink_entry(qs_peer *p, qs_entry *e);
qs_entry *qsi_entry_create(qs_peer *p);

/* preempt.c: the preemption stack and the preemption itself */
void qsi_job_parent_gone(qs_job *job, qs_job *parent);
void qsi_job_pop(qs_sched *s, qs_job *job);
qs_job *qsi_job_preempt(qs_sched *s, qs_job *current);

/* select.c: blockers */
void qsi_blocker_release(qs_sched *s, qs_transport *t, qs_queue *q);
void qsi_blocker_update(qs_sched *s, qs_queue *q);

/* memory.c: recipient limits, pools, the active queue */
void qsi_job_move_limits(qs_sched *s, qs_job *job);
void qsi_message_return_slots(qs_sched *s, qs_message *m, qs_job *job);
void qsi_message_schedule_check(qs_sched *s, qs_message *m);
void qsi_message_realloc(qs_sched *s, qs_message *m);
void qsi_run_checks(qs_sched *s);
void qsi_message_activate(qs_sched *s, qs_message *m);

/* messages.c: deferral and freeing */
void qsi_entry_defer_todo(qs_sched *s, qs_entry *e);
void qsi_message_free(qs_message *m);

/* assign.c: reading and assigning a batch of recipients */
void qsi_message_read(qs_sched *s, qs_message *m, int64_t limit);

#endif
