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

#include <string.h>
#include "qsched.h"
#include "params.h"
#include "map.h"
#include "readings.h"
#include "kernels.h"

typedef struct qs_entry qs_entry;
typedef struct qs_peer qs_peer;
typedef struct qs_job qs_job;
typedef struct qs_queue qs_queue;
typedef struct qs_transport qs_transport;
typedef struct qs_message qs_message;

/*
 * A recipient entry: "a batch of recipients of one message which are all
 * going to be delivered to the same destination (and over the same
 * transport)".  It is the unit the scheduler hands out: one `select` gives
 * one entry, one `done` takes one entry back.  An entry is either pending
 * (on its queue's todo list and its peer's list) or in flight (on its
 * queue's busy list only, with a handle).
 */
struct qs_entry {
    qs_entry *qprev, *qnext;  /* the queue's todo list while pending, its
                                 busy list while in flight */
    qs_entry *pprev, *pnext;  /* the peer's list (pending entries only) */
    qs_peer *peer;
    qs_queue *queue;          /* = peer->queue, and */
    qs_job *job;              /* = peer->job: kept here so that an entry's
                                 job and queue load in parallel with its
                                 peer rather than after it (issue 16: a
                                 dying destination's deferrals and every
                                 `done` chase entry, peer, job, message) */
    int64_t nrcpt;            /* recipients in the batch: 1 .. the
                                 transport's destination recipient limit */
    int64_t handle;           /* delivery handle while busy, else 0 */
    struct qs_entry_ck *ck;   /* the incremental checker's record of it
                                 (below); NULL until the checker is on */
};

/* What the incremental checker (check_changes.c) keeps of an entry: the
 * last check's epoch and the entry's place in its list of touched
 * entries; the queue and list (1 pending, 2 in flight), the peer and the
 * recipients it was counted with.  Apart from the entry, in a pool of its
 * own (qs_sched.ck_entry_pool), taken when the checker first notes or
 * counts the entry and given back when the entry goes: a plain replay
 * never has one.  Why apart (issue 16): in the entry it was 48 of 120
 * bytes that every replay carried and only `--check-invariants` read;
 * the shapes whose recipients in core outgrow the caches chase entries
 * from one to the next, and 80-byte entries put more of them in each
 * cache line and cache.  With the job's record (below): the transports
 * shape +2.7% in a paired A/B of 24 rounds, the others within 1%. */
typedef struct qs_entry_ck {
    uint64_t epoch;
    size_t index;
    qs_queue *queue;
    qs_peer *peer;
    int64_t nrcpt;
    int state;
} qs_entry_ck;

/*
 * A peer: "like the queue structure ... the difference is that it lists
 * only the recipient entries which all originate from the same message".
 * One peer per (job, destination queue).  The job's peers form a list that
 * entry selection walks round robin (S-PRE-15).
 */
struct qs_peer {
    qs_job *job;
    qs_queue *queue;
    qs_entry *ehead, *etail;  /* pending entries, in creation order; a new
                                 recipient tops up etail while it has room */
    int64_t todo;             /* entries on the list above */
    int64_t refcount;         /* pending + in-flight entries: the peer may
                                 be freed only at 0, since a `done` still
                                 needs it to find its job */
    qs_peer *prev, *next;     /* the job's peer list (round robin) */
    int32_t ck_todo, ck_refs; /* the incremental checker's counts of its
                                 pending, and pending + busy, entries (at
                                 most one entry per recipient: < 2^31) */
    uint32_t bix_pos;         /* 1 + its place in its queue's heap of
                                 pending peers (blocker_index.c), 0: none
                                 (the three in one word: a peer stays at
                                 80 bytes, zeroed at every recipient
                                 group's first entry) */
};


/* The size of qs_queue's flexible name member: empty (a flexible array
 * member) in every build; the WP harnesses (proofs/wp/harness.h) make it
 * 1, because WP's memory model needs a complete type to state \valid(q)
 * and no proved function reads the name. */
#ifndef QSI_NAME_FAM
#define QSI_NAME_FAM
#endif
/* A queue whose name (NUL included) fits in this many bytes is allocated
 * with exactly this much room for it and recycled through the scheduler's
 * queue_pool; a longer name gets an allocation of its own size, freed. */
#define QSI_QUEUE_NAME_POOLED 48
/* Discarded (idle) queues a transport keeps parked for their names to
 * come back (concurrency.c, S-CON-13): a bound on the memory they hold. */
#define QSI_QUEUES_PARKED 256
/* The message size classes of the scheduler's msg_pool (messages.c). */
#define QSI_MSG_POOL_STEP 128
#define QSI_MSG_POOLS 8
/*
 * A destination queue: everything one transport delivers to one next-hop
 * (or, with a destination recipient limit of 1, to one recipient: S-EV-4).
 * It carries the concurrency scheduler's per-destination state, the
 * pseudocode's "int concurrency, double success, double failure, double
 * fail_cohorts" (S-CON-1), under the names window/success/failure/
 * fail_cohorts: "window" because the document's "concurrency" also names
 * the number of deliveries in flight elsewhere (the selection pseudocode's
 * peer->queue->concurrency), which here is `busy`.
 */
struct qs_queue {
    char *name;
    size_t name_len;          /* strlen(name), for the trace */
    uint64_t name_hash;       /* qs_map_hash(name, 0): its key in the
                                 transport's map, hashed once (issue 16) */
    /* S-CON-13's discarded queue, parked (issue 16): an idle destination
     * leaves the transport's queue list but keeps its map slot, so that
     * when it comes back only its state is reset (qsi_queue_obtain); the
     * transport keeps at most QSI_QUEUES_PARKED of them, oldest evicted.
     * Coming back, every field before name_buf is zeroed and the name,
     * its hash, the transport, a new serial and the window set as for a
     * new queue. */
    qs_queue *park_prev, *park_next;
    double success, failure;  /* the hysteresis accumulators: success grows
                                 towards 1 (a step up), failure is driven
                                 below 0 (a step down) (S-CON-4, S-CON-7) */
    double fail_cohorts;      /* failed pseudo-cohorts since the last
                                 success (S-CON-6, S-CON-8) */
    int64_t revive_at;        /* while dead: now + minimal_backoff_time */
    qs_queue *dprev, *dnext;  /* the scheduler's dead list (by revive_at:
                                 deaths happen in time order, so appending
                                 keeps it sorted) */
    qs_queue *prev, *next;    /* the transport's queue list */
    /* blocker_index.c (while the transport's bix_on): the peers with
     * pending entries here, a heap by their job's list place; 1 + this
     * queue's place in the transport's heap of ready queues, 0: none */
    qs_peer **bix_ph;
    size_t bix_pn, bix_pcap, bix_rpos;
    /* the incremental checker (check.c): last check's epoch and place in
     * its list of touched queues; what it counted for this queue */
    uint64_t ck_epoch;
    size_t ck_index;
    int64_t ck_busy;
    int64_t ck_todo_n, ck_busy_n; /* entries counted in its two lists */
    int ck_ready, ck_over, ck_in;
    /* The fields a recipient's arrival and a selection read, last, beside
     * the name that the look-up compares (issue 16: perf had the name's
     * comparison, a cache miss on a cold queue, at 4% of the blockers
     * shape's time; then the state was another line): */
    qs_transport *transport;
    uint64_t serial;          /* creation number: the key of the job's peer
                                 map, so look-ups never depend on addresses */
    qs_entry *todo_head, *todo_tail, *busy_head, *busy_tail;
    int64_t todo, busy;       /* entry counts; busy = deliveries in flight
                                 (the pseudocode's busy_refcount) */
    int window;               /* the document's "concurrency": how many
                                 deliveries may be in flight at once */
    int dead;                 /* declared dead: no selection, pending
                                 entries deferred (S-CON-9) */
    int parked;               /* S-CON-13: parked (park_prev, above) */
    unsigned blocker_tag;     /* == transport->blocker_tag: a blocker job
                                 has pending entries here (S-PRE-11) */
    int ready;                /* alive, window > busy and todo > 0: the
                                 transport could select here now; counted
                                 in transport->ready_queues */
    int over;                 /* alive and busy > window (after negative
                                 feedback): a negative room in Postfix's
                                 round robin (S-PFX-17); counted in
                                 transport->over_queues */
    char name_buf[QSI_NAME_FAM]; /* the name (one allocation per queue) */
};

/*
 * A job: "everything it takes to deliver one message via its transport".
 * One job per (message, transport).  It sits on two lists of its
 * transport: the scheduler's job list, which preemption reorders, and the
 * list by enqueue time, which never reorders and along which recipient
 * slots are handed out (S-MEM-5).  A job whose entries are all selected
 * leaves both lists (retires) but keeps its counters, because a later
 * batch of its message may bring it back (S-PRE-2, S-PRE-13).
 */
struct qs_job {
    /* The fields a visit of a cold job reads first share its first cache
     * line (issue 16): the sister-job loop of every done and deferral
     * (memory.c qsi_message_return_slots, qsi_job_move_limits) reads the
     * message, the transport, the next sister, the recipients in core and
     * the slots, and the level; the blocker tag is the first test of the
     * selection walk and the candidate query.  (cachegrind, transports'
     * 1M stream with an 8 MB last level: 11% fewer read misses.) */
    qs_message *message;
    qs_transport *transport;
    qs_job *mnext;            /* the message's job list */
    int64_t rcpt_count;       /* recipients of this job in core */
    int64_t rcpt_limit;       /* recipient slots this job holds from its
                                 transport's pool (S-MEM-5, S-MEM-6) */
    int stack_level;          /* 0: not preempting; n > 0: n levels of
                                 preemption deep; -1: not on the job lists
                                 (new or retired) */
    unsigned blocker_tag;     /* == transport->blocker_tag: a blocker */
    int bix_listed;           /* labelled and on the list (while bix_on) */
    int misplaced;            /* on the lists, and its place on the
                                 scheduler's list may not be its enqueue
                                 time's: moved by a preemption, or linked
                                 while another job was (job_place.c) */
    qs_job *lprev, *lnext;    /* the scheduler's job list */
    /* Then what a selection, an arrival and a job's end read: the slot and
     * entry counters, the peers; then the rest of the lists and the
     * preemption stack.  (Issue 16: with a 1 MB cache simulated, the
     * transports shape misses 8% fewer reads in this order - its
     * `misplaced`, read by every unlink, was 4% of the misses where it
     * sat among the index fields - but in time a paired A/B sees no
     * difference: those loads were not the ones the events wait for.) */
    qs_peer *peer_head, *peer_tail; /* round-robin order (S-PRE-15) */
    int64_t peer_count;
    qs_map peers;             /* queue serial -> peer */
    int64_t slots_used;       /* entries selected beyond what its parent
                                 paid for it: -needed at preemption, +1 per
                                 selected entry; the refund at pop is
                                 -slots_used (S-PRE-9) */
    int64_t slots_available;  /* the document's "available delivery slot
                                 counter", in entries: +1 per selected
                                 entry, read divided by slot_cost (S-PRE-4);
                                 charged when preempted (S-PRE-8) */
    int64_t selected_entries, read_entries; /* entries handed out (or
                                 deferred) and entries created: their
                                 difference is what is pending (S-INV-4);
                                 read_entries is the minimum estimate of
                                 S-MEM-8 */
    uint64_t serial;
    qs_job *tprev, *tnext;    /* the by-enqueue-time job list */
    qs_job *parent;           /* the job it preempted, or the one that
                                 adopted it; NULL at level 0 and for
                                 orphans (S-PRE-10) */
    qs_job *child_head, *child_tail, *sprev, *snext; /* the jobs preempting
                                 this one (children) and this job's place
                                 among its parent's children (siblings);
                                 after blockers a job may have several */
    uint64_t preempted_serial; /* serial of the job it last preempted: lets
                                 the checker tell a parent that paid for
                                 this child from an adoptive one */
    int cix_in;               /* in the tree (= on the job list) */
    int bix_stop;             /* qsi_job_walk_stop: no entries, or unread
                                 recipients with room to read them - the
                                 selection walk does more than mark it
                                 (kept while bix_listed: blocker_region.c) */
    uint64_t bix_label;       /* its place on the list, increasing along
                                 it (blocker_index.c, while bix_on) */
    ptrdiff_t bix_fpos;       /* with bix_stop: 1 + its place in the
                                 transport's heap of such jobs, or -(1 +
                                 its place) in the set aside ones, 0 none */
    struct qs_job_ck *ck;     /* the incremental checker's record of it
                                 (below); NULL until the checker is on */
    /* The index fields (QSI_JOB_INDEXED, to the end): set when the job
     * enters its transport's index (job_index.c qsi_cix_insert and
     * qsi_tix_insert, which give every one of them a value) and read
     * only while it is in it (cix_in, cix_on): a job out of the index
     * holds whatever they were, as after an index drop.  So a new job's
     * are not zeroed (jobs.c qsi_job_obtain): two of its six cache lines
     * are not written when the index is off (issue 16: jobs were 38% of
     * the transports shape's pool memory, and every arrival zeroes
     * three or four).
     * The candidate index (candidates.c): this job as a node of its
     * transport's tree, whose in-order sequence is the job list, with the
     * subtree's fewest remaining entries, earliest enqueue time and fewest
     * entries in total (over the jobs with remaining entries) */
    qs_job *cix_up;
    uint64_t cix_prio;
    int64_t cix_min_free;     /* earliest enqueue time of a job without a
                                 stack parent (job_link's time markers) */
    int64_t cix_own_free;     /* this job's own part of cix_min_free */
    /* What the candidate query reads of every node it visits, together
     * (64 bytes; alloc.c checks it): the children, the three minima
     * it prunes by, and the job's own part of them (this job's part of
     * the minima, as its counters were at its last update: job_index.c
     * cix_own). */
    qs_job *cix_left, *cix_right;
    int64_t cix_min_needed, cix_min_queued, cix_min_total;
    int64_t cix_own_needed, cix_own_queued, cix_own_total;
    int64_t cix_size;         /* jobs in its subtree (kept while bix_on:
                                 qsi_cix_rank; 1 at insertion) */
    /* the same tree shape for the by-time list (job_index.c), kept with
     * the above; links only, no aggregate */
    qs_job *tix_left, *tix_right, *tix_up;
};

/* The first of a job's index fields (above): a new job is zeroed up to
 * it. */
#define QSI_JOB_INDEXED offsetof(qs_job, cix_up)

/* What the incremental checker (check_changes.c) keeps of a job: as for
 * an entry (qs_entry_ck), its epoch and place in the touched set; what it
 * counted for this job in its transport's sums (slot limit, recipients in
 * core, 1 if listed) and the recipients its counted entries hold.  Apart
 * from the job for the same reason (issue 16: 40 of its 424 bytes). */
typedef struct qs_job_ck {
    uint64_t epoch;
    size_t index;
    int64_t limit, count;
    int64_t rc;               /* recipients of its entries, counted */
    int listed;
} qs_job_ck;

/*
 * A transport: "everything what is going to be delivered by delivery
 * agents dedicated for that transport".  Its parameters are resolved once,
 * at creation, from TRANSPORT_suffix, the built-in defaults and the
 * default_suffix values (S-EV-2, S-EV-3).
 */
struct qs_transport {
    char *name;
    size_t name_len;          /* strlen(name), for the trace */
    uint64_t name_word;       /* a name of under 8 bytes as one word: its
                                 bytes, then NULs; 0 for a longer name
                                 (qsi_transport_find_len) */
    uint64_t serial;
    /* parameters (S-EV-2); names as in main.cf without the prefix:
     * slot_cost is k of the inflation argument (delivery_slot_cost), then
     * delivery_slot_loan, delivery_slot_discount, minimum_delivery_slots,
     * destination_concurrency_limit, destination_recipient_limit,
     * initial_destination_concurrency, the failed cohort limit and
     * process_limit */
    int slot_cost, slot_loan, slot_discount, min_slots;
    int dest_conc_limit, dest_rcpt_limit, init_conc, cohort_limit;
    int process_limit;
    /* recipient_limit, extra_recipient_limit, recipient_refill_limit and
     * recipient_refill_delay (seconds) */
    int64_t rcpt_limit, extra_rcpt_limit, refill_limit, refill_delay;
    qs_feedback pos, neg;     /* g(N) and f(N) (S-CON-2) */
    /* job lists */
    qs_job *jhead, *jtail;    /* scheduler's list */
    qs_job *thead, *ttail;    /* by-time list */
    qs_job *job_current;      /* the job that may be preempted (S-PRE-2):
                                 "the job whose entry was selected the last
                                 time" (R-14 last_selected), or where
                                 selection starts (walk_start); NULL: none */
    qs_job *job_walk;         /* where entry selection starts: every job
                                 before it on the scheduler's list is a
                                 blocker; NULL: every job is (S-PRE-2) */
    qs_job *job_next_unread;  /* first job on the by-time list whose message
                                 has unread recipients: it holds the pool
                                 (S-MEM-5); a cache, advanced lazily */
    int64_t njobs;            /* jobs on the scheduler's list */
    int64_t jobs_misplaced;   /* jobs on it with `misplaced` set: while 0,
                                 the two job lists are one sequence
                                 (job_place.c) */
    int cix_on;               /* the list indexes are kept (long lists
                                 that ask them questions: job_index.c) */
    int64_t cix_rent;         /* while off on a long list: the walk steps
                                 that the questions cost (QSI_CIX_RENT) */
    int64_t cix_idle;         /* while on: list changes the index kept up
                                 with since it last answered a question
                                 worth it (cix_worth) */
    int64_t cix_asked;        /* while on: candidate questions asked
                                 since the build (one in CIX_SAMPLE
                                 tries the walk) */
    int cix_worth;            /* while on: tries of the walk beside it
                                 (CIX_SAMPLE) before it stops counting
                                 questions as uses; CIX_WORTH again at
                                 each try that would have been long */
    int cix_let_go;           /* the index was dropped for want of such
                                 questions while the list was long: it is
                                 no longer kept for length alone (CIX_OWN),
                                 until the list is short again */
    int bix_on;               /* and the blocker index (postfix readings,
                                 long walks: blocker_index.c) */
    int bix_hot;              /* the last window of selections averaged
                                 long walks (qsi_bix_adapt) */
    int bix_due;              /* the selection asks qsi_bix_adapt */
    int64_t bix_window_start; /* deliveries when the marks started */
    int64_t walk_selects, walk_marks; /* selections and blocker marks in
                                 the current window */
    qs_queue **bix_rh;        /* its ready queues, a heap by the list place
                                 of their first pending job */
    size_t bix_rn, bix_rcap;
    int bix_region;           /* the blockers are the jobs before job_walk
                                 (and the tagged ones): blocker_index.c */
    qs_job **bix_fh;          /* its jobs with bix_stop, a heap by list
                                 place ... */
    size_t bix_fn, bix_fcap;
    qs_job **bix_fs;          /* ... but for those set aside, passed by the
                                 walk since the last release */
    size_t bix_sn, bix_scap;
    qs_job *cix_root;         /* the job list's tree (candidates.c) */
    qs_job *tix_root;         /* the by-time list's tree */
    unsigned blocker_tag;     /* odd; += 2 releases every blocker */
    int64_t rcpt_unused;      /* recipient pool (may go negative by at
                                 most extra_rcpt_limit: S-MEM-6) */
    /* queues */
    qs_queue *qhead, *qtail;
    qs_map queues;            /* name -> queue (the parked ones too) */
    qs_queue *park_head, *park_tail; /* parked queues, oldest first */
    int64_t nparked;
    int64_t ready_queues;     /* alive, window > busy, todo > 0 */
    int64_t over_queues;      /* alive, busy > window */
    /* S-PFX-20: Postfix's candidate cache (postfix profile only): the
     * last answer of the candidate search (cand_cache, NULL = none), for
     * which current job, and when; valid while cand_current is set */
    qs_job *cand_cache, *cand_current;
    int64_t cand_time;
    int64_t in_flight;        /* deliveries in flight: the process limit
                                 is compared with it (S-PRE-14) */
    /* statistics */
    int64_t deliveries, preemptions, in_core, peak_in_core;
    qs_transport *next;       /* transports in creation order */
    qs_transport *rr_next;    /* the round-robin cycle (S-PRE-14) */
    uint64_t rr_round;        /* last postfix-profile select that tried it */
    qs_sched *sched;          /* its scheduler (for the checker's notes) */
    /* the incremental checker (check.c): its sums over the transport's
     * queues and jobs, kept by differences */
    uint64_t ck_epoch;
    size_t ck_index;
    int64_t ck_busy, ck_ready, ck_over, ck_limits, ck_core, ck_njobs;
    size_t batch_rank;        /* scratch of the postfix profile's batch
                                 sort (assign.c): the rank of the name
                                 among the transports of the batch ... */
    uint64_t batch_stamp;     /* ... numbered batch_stamp (stats.reads) */
};

/* One recipient group of an arrive line, owned by the message.  nexthop
 * is followed by at least 7 more NUL bytes (messages.c), so that its first
 * 8 bytes are always readable, NUL-padded (batch_order.c's sort keys). */
typedef struct qs_mgroup {
    char *transport, *local, *nexthop;  /* local may be NULL; a group of
                                 the previous group's transport shares
                                 its string (so for two groups in a row
                                 the same name is the same pointer) */
    int64_t count;
    unsigned char local_len, nexthop_len; /* strlen of each (the limits of
                                 S-EV-7 are 64 and 200): a recipient's own
                                 address is built without measuring them
                                 (batch_order.c, issue 16) */
    unsigned char transport_len; /* strlen(transport) (at most 64): its
                                 transport is found without strcmp
                                 (qsi_transport_find_len) */
    qs_transport *t;          /* the transport, once a batch met the group
                                 (transports live as long as the scheduler) */
} qs_mgroup;

/*
 * A message: one queue file.  The arrive line stands for the file: its
 * recipients are read in batches from a cursor (S-MEM-1), and the message
 * leaves when none are in core and none unread (S-MEM-2).
 */
struct qs_message {
    char *id;
    uint32_t id_len;          /* strlen(id), for the trace (at most 64) */
    int pool_class;           /* the msg_pool it came from, or -1 */
    char id_short[16];        /* the id when under 16 bytes (id points
                                 here; else after the groups): on the
                                 line of the pointer, which a trace line
                                 naming the message reads first (issue 16:
                                 reading the id from after the groups was
                                 a cache miss at about one line in three
                                 of the transports shape's trace) */
    uint64_t serial;
    int64_t queued_time;      /* when it entered the active queue: the
                                 "enqueue time" that orders job lists and
                                 ages candidates (S-PRE-6, S-PRE-13) */
    qs_mgroup *groups;
    size_t ngroups;
    size_t cur_group;         /* read cursor (S-MEM-1): group, and */
    int64_t cur_offset;       /* recipients of it already read */
    int64_t rcpt_total;       /* recipients on the arrive line */
    int64_t rcpt_unread;      /* still in the "queue file" */
    int64_t rcpt_count;       /* in core: pending or in flight */
    int64_t rcpt_limit;       /* qmgr_message_recipient_minimum plus the
                                 slots of its jobs: how many recipients it
                                 may hold in core (S-MEM-4) */
    int64_t jobs_spare;       /* its jobs with slots to spare (rcpt_count <
                                 rcpt_limit: qsi_job_spare); S-MEM-5's
                                 return walks the jobs only when one other
                                 than the finishing job is counted here */
    int end_unseen;           /* S-PFX-16: the last read filled its limit */
    int64_t refill_time;      /* time of its latest batch (refill delay) */
    int64_t delivered, deferred;  /* recipients done, by outcome */
    int active;               /* in the active queue (not waiting) */
    int check_pending;        /* queued on the scheduler's check list */
    qs_job *jobs;             /* one per transport, in creation order */
    qs_message *next;         /* incoming FIFO, or the active list */
    qs_message *aprev;        /* active list */
    qs_message *check_next;   /* the scheduler's check list */
    /* the incremental checker (check.c): as for queues; the in-core
     * recipients it counted for the message */
    uint64_t ck_epoch;
    size_t ck_index;
    int64_t ck_rcpt;
    int ck_active, ck_in;
    uint64_t id_hash;         /* qs_map_hash(id, 0): its key in the
                                 scheduler's map, hashed once (issue 16) */
    /* the groups and every string above follow in the same allocation */
};

/* A free list of one kind of object (entries, peers, jobs): a delivery
 * creates and frees an entry, a message its jobs and peers; reusing them
 * keeps malloc out of the scheduling path.  Objects come back zeroed, as
 * from calloc.  New objects are cut from slabs of about 8 KiB (alloc.c,
 * pool_cut), which belong to the pool: qs_sched_free frees the slabs, not
 * the objects one by one (issue 16: a run that ends with thousands of
 * messages queued spent about 2% of its instructions in one calloc per
 * object and one free per object at the end). */
/* Once a scheduler's pools hold a megabyte, their slabs are cut in turn
 * from blocks of 2 MiB, each aligned on its size (alloc.c,
 * slab_from_area), which the system is asked to back with huge pages: the
 * objects the scheduling path chases from one to the next then share a
 * few TLB entries instead of one per 4 KiB (issue 16: the many-transports
 * shape, 18 MB, 5% faster, the memory shape 9%).  The first megabyte is
 * malloc'ed slab by slab, as before: a small scheduler (a test, a model
 * checker's state, a short stream) never pays for a block it would barely
 * use.  One area per scheduler, freed with it. */
typedef struct qs_slab_area {
    char *cut, *end;   /* the newest block's bytes not handed out yet */
    void *blocks;      /* every block, linked through their first bytes */
    size_t before;     /* bytes of slabs malloc'ed before the first block */
} qs_slab_area;

typedef struct qs_pool {
    void *head;        /* the free objects, linked through their first bytes */
    size_t size;       /* an object's size */
    char *cut, *cut_end; /* the newest slab's objects not handed out yet */
    void *slabs;       /* every slab, linked through their first bytes */
    qs_slab_area *area; /* where its slabs come from: the scheduler's */
} qs_pool;

/*
 * The scheduler.  Everything it knows lives here or hangs from here: no
 * global or static state anywhere in the core, so two schedulers in one
 * program never interfere.
 */
struct qs_sched {
    qs_params *params;        /* a frozen copy */
    int profile;              /* enum qs_profile */
    /* the named readings in force (readings.h, spec/readings.md): what the
     * stream set, else the profile's default */
    unsigned char reading[QR_COUNT];
    qs_trace_sink sink;
    void *ctx;
    /* the caller wants the records of the explain level (spec/trace.md)
     * and there is a sink to take them: 1 from qs_sched_new with a sink;
     * 0 without one, or after qs_sched_set_explain(s, 0), and then the
     * core neither builds nor emits them (QSI_EXPLAIN) */
    int explain;
    int64_t now;              /* virtual time, seconds */
    uint64_t serial;          /* the last serial handed out (messages,
                                 transports, queues, jobs share it) */
    int64_t next_handle;      /* D1, D2, ... in selection order (S-EV-8) */
    int bix_on_count;         /* transports keeping the blocker index */
    /* global parameters: qmgr_message_active_limit,
     * qmgr_message_recipient_limit, qmgr_message_recipient_minimum,
     * minimal_backoff_time */
    int64_t active_limit, msg_rcpt_limit, msg_rcpt_minimum, min_backoff;
    /* transports, in creation order (next); the round-robin cycle
     * (rr_next), and rr: where the next round-robin select starts
     * (readings transport_rr = next and rotate); rr_last: the transport of
     * the last round-robin delivery (transport_rr = last, S-PRE-14) */
    qs_transport *xhead, *xtail, *rr, *rr_last;
    uint64_t rr_round;        /* rotate selects so far (S-PFX-13) */
    size_t ntransports;
    int64_t queue_count;      /* destinations of all transports (S-PFX-19) */
    qs_map transports;
    /* messages */
    qs_map messages;          /* id -> message (active and incoming) */
    qs_message *incoming_head, *incoming_tail;
    int64_t incoming_count;
    qs_message *active_head, *active_tail;
    int64_t active_count;
    qs_message *check_head;   /* messages whose counts changed during the
                                 current event: checked at its end */
    /* deliveries in flight: handle -> entry */
    qs_handle_table inflight;
    /* dead destinations, oldest first */
    qs_queue *dead_head, *dead_tail;
    int64_t in_core;          /* recipients in core, all messages (Postfix
                                 calls it qmgr_recipient_count) */
    qs_stats stats;
    /* scratch buffer for reading batches */
    struct qs_batch_rcpt *batch;
    size_t batch_cap;
    struct qs_batch_key *batch_keys; /* the sorts' keys (batch_order.c),
                                 2 * batch_cap of them */
    size_t *batch_counts;     /* batch_cap counters: the sorts' buckets
                                 by rank (batch_order.c) */
    qs_queue **batch_own;     /* batch_cap queues: of each recipient whose
                                 destination is the recipient, by its
                                 ordinal in the batch, as looked up before
                                 resolving (assign.c) */
    qs_slab_area slab_area;   /* the pools' slabs (qs_slab_area) */
    qs_pool entry_pool, peer_pool, job_pool;
    /* the incremental checker's records of entries and jobs (qs_entry_ck,
     * qs_job_ck): empty unless it is on */
    qs_pool ck_entry_pool, ck_job_pool;
    /* destination queues with a name shorter than QSI_QUEUE_NAME_POOLED
     * bytes (concurrency.c): an idle destination that comes back (S-CON-13)
     * takes one from here instead of calloc, and gives it back instead of
     * free (issue 16) */
    qs_pool queue_pool;
    /* messages of at most (i + 1) * QSI_MSG_POOL_STEP bytes (their one
     * allocation, qs_arrive) are recycled through msg_pool[i], larger ones
     * are malloc'd and freed (issue 16: no calloc/free per message; the
     * classes waste less than one step per message) */
    qs_pool msg_pool[QSI_MSG_POOLS];
    /* the incremental invariant checker (check_changes.c, qs_check_changes): on
     * after its first call; the objects events touched since its last
     * call; its sums over all objects */
    int ck_on;
    uint64_t ck_epoch;
    struct qs_touched {
        void **v;
        size_t n, cap;
    } ck_msgs, ck_jobs, ck_queues, ck_xports, ck_entries;
    int64_t ck_in_core, ck_busy, ck_active;
};

/* The value of a named reading (readings.h), e.g.
 * QS_READING(s, QR_IDLE_WINDOW) == QRV_IDLE_KEEP. */
#define QS_READING(s, r) ((int)(s)->reading[(r)])

/* A job has pending entries (selectable if a peer's destination allows). */
#define QS_HAS_ENTRIES(j) ((j)->selected_entries < (j)->read_entries)
/* S-MEM-8: estimates the scheduler may use with unread recipients.  The
 * minimum counts the entries that exist; the maximum assumes every unread
 * recipient of the message becomes one more entry of this job.  Both are
 * safe, which is the document's point: "the scheduler can always err on
 * the safe side". */
#define QS_MIN_ENTRIES(j) ((j)->read_entries)
#define QS_MAX_ENTRIES(j) ((j)->read_entries + (j)->message->rcpt_unread)
/* "The message is not fully read."  Document profile: recipients are left
 * unread.  S-PFX-16 (postfix profile): Postfix knows that a message has no
 * recipients left only when a read stops before its limit; after a read
 * that fills its limit exactly, the message counts as not fully read (its
 * queue file offset stays set) until a later read, which reads nothing,
 * finds the end. */
#define QS_UNREAD(m) ((m)->rcpt_unread > 0 || (m)->end_unseen)
/* S-MEM-5: a job has slots to spare when it holds more recipient slots
 * than it has recipients in core: a sister job's `done` may make it give
 * them back (memory.c qsi_message_return_slots).  Its message counts such
 * jobs (qs_message.jobs_spare, checked with S-INV-1), so that a `done`
 * whose sisters have nothing to spare does not visit them: in a shape
 * whose messages have jobs on several transports each sister is a cache
 * miss, and the walk was the largest single item of its time (issue 16,
 * perf on transports: 7%).  A job's rcpt_count changes through
 * qsi_job_count_add (assign.c, messages.c); its rcpt_limit in the proved
 * kernels (jobs.c, memory.c, preempt.c), each followed by qsi_spare_after
 * with the job's state before it. */
static inline int qsi_job_spare(const qs_job *j)
{
    return j->rcpt_count < j->rcpt_limit;
}
static inline void qsi_spare_after(qs_job *j, int was_spare)
{
    j->message->jobs_spare += qsi_job_spare(j) - was_spare;
}
/* n recipients (n < 0: leaving) in core for job j of message m. */
static inline void qsi_job_count_add(qs_message *m, qs_job *j, int64_t n)
{
    int64_t before = j->rcpt_count, limit = j->rcpt_limit;
    j->rcpt_count = before + n;
    m->jobs_spare += (before + n < limit) - (before < limit);
}
/* S-PRE-11: blocker marks are tags; see qs_transport.blocker_tag. */
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
/* Whether a record of the explain level has anyone to go to: there is a
 * sink and the caller wants them (qs_sched_set_explain; s->explain holds
 * both).  Every site that builds such a record tests this first, so that
 * a run printing only the default level does not pay for records nobody
 * reads (issue 16).  The test guards only the building of records, never
 * a change of state. */
#define QSI_EXPLAIN(s) ((s)->explain)
/* Emits a record of the explain level if anyone wants it: for sites whose
 * record is built along with a state change (the fields are computed
 * anyway); elsewhere the building itself is under QSI_EXPLAIN. */
static inline void qsi_emit_explain(qs_sched *s, qs_trace *r)
{
    if (QSI_EXPLAIN(s))
        qsi_emit(s, r);
}
/* A trace record of the kind, every other field zero (inline: one per
 * decision).  Each field is zeroed by name, not by a memset of the
 * record: gcc expands a constant 152-byte memset on x86-64 as `rep
 * stosq`, whose start-up cost (tens of cycles on the machine of
 * docs/performance.md) made it one of the dearest lines of a replay
 * (issue 16: 5-12% of the replay rate with every such memset avoided);
 * the named stores become a few vector stores.  A new field of qs_trace
 * must be added here: an assertion in sched.c catches one added at the
 * end (qsched.h says so at the struct). */
static inline void qsi_trace_start(qs_trace *r, enum qs_trace_kind kind)
{
    r->kind = kind;
    r->time = r->handle = 0;
    r->msg = r->msg2 = r->transport = r->dest = NULL;
    r->n = r->a = r->b = r->c = r->d = r->e = r->f = 0;
    r->x = r->y = r->z = r->w = 0;
    r->msg_len = r->transport_len = r->dest_len = 0;
}
/* The names of a record and their lengths, which the CLI's printer then
 * need not measure (issue 16: a strlen call per name and line, 4% of the
 * transports shape's time under perf).  Names are set through these only
 * where the length is known to be the string's. */
static inline void qsi_trace_dest(qs_trace *r, const qs_queue *q)
{
    r->transport = q->transport->name;
    r->transport_len = q->transport->name_len;
    r->dest = q->name;
    r->dest_len = q->name_len;
}
static inline void qsi_trace_msg(qs_trace *r, const qs_message *m)
{
    r->msg = m->id;
    r->msg_len = m->id_len;
}
/* QSI_PREFETCH(a): a hint that the object at a will be read soon - a load
 * started now, in parallel with the work between, instead of a cache miss
 * waited for when the loop gets there.  It changes nothing a program can
 * observe (a prefetch never faults: NULL, the end of a list, is allowed;
 * every other address here is of a live object), so builds that are not
 * GCC or clang, and Frama-C's proofs (proofs/wp/harness.h), have it as
 * nothing.  Issue 16: where a loop chases pointers through objects that a
 * large queue has scattered in memory (a dying destination's entries, the
 * selection walk's jobs), the next object is asked for while the current
 * one is handled (docs/performance.md, session 15). */
#if defined(__GNUC__) && !defined(__FRAMAC__)
#define QSI_PREFETCH(a) __builtin_prefetch(a)
#define QSI_PREFETCH_W(a) __builtin_prefetch(a, 1)
#else
#define QSI_PREFETCH(a) ((void)0)
#define QSI_PREFETCH_W(a) ((void)0)
#endif
/* QSI_PREFETCH_W(a): the same hint for an object about to be written
 * (the line is asked for to be owned, not only read). */
void *qsi_calloc(size_t n, size_t size);
void *qsi_pool_get(qs_pool *p);
/* Zeroes n bytes at p in pieces of 64 bytes.  For an n known at compile
 * time gcc then writes a few vector stores, where a single memset of 96
 * bytes or more becomes `rep stosq` on x86-64 (see qsi_trace_start for
 * what that costs). */
static inline void qsi_zero(void *p, size_t n)
{
    unsigned char *c = p;
    for (; n >= 64; c += 64, n -= 64)
        memset(c, 0, 64);
    memset(c, 0, n);
}
/* qsi_pool_get for a pool whose object size the caller knows at compile
 * time (size == p->size): the zeroing is then inlined by the compiler,
 * not a call of memset with a size read at run time (issue 16: entries
 * and peers, two of them per recipient group, in every run).  A smaller
 * size zeroes only the object's first size bytes when it is reused (the
 * caller sets the rest itself before reading it: a job's index fields);
 * a new object is zeroed whole. */
static inline void *qsi_pool_get_sized(qs_pool *p, size_t size)
{
    void *obj = p->head;
    if (!obj)
        return qsi_pool_get(p);
    memcpy(&p->head, obj, sizeof p->head); /* the link in its first bytes */
    /* The next object of the list is the next one handed out, and
     * reading its link is the next get's first step: asked for now
     * (issue 16: a freed object is cold when it is reused - that read was
     * 4 to 6% of the blockers and transports shapes' time under perf,
     * docs/performance.md session 23). */
    QSI_PREFETCH_W(p->head);
    qsi_zero(obj, size);
    return obj;
}
void qsi_pool_put(qs_pool *p, void *obj);
void qsi_pool_free(qs_pool *p);
void qsi_slab_area_free(qs_slab_area *a);
void qsi_grow_ptrs(void *vp, size_t n, size_t *cap, size_t first);
char *qsi_strdup(const char *str);
void qsi_map_put(qs_map *m, const char *str, uint64_t num, void *v);
void qsi_handles_put(qs_handle_table *t, uint64_t h, void *v);
void qsi_map_put_hashed(qs_map *m, uint64_t h, const char *str, uint64_t num,
                        void *v);
int qsi_postfix(const qs_sched *s);
/* The same test, inline at the hot call sites (issue 16: a call per
 * feedback, read and selection was 0.7% of a fifo run); sched.c defines
 * the function itself as (qsi_postfix), and the proved preempt_scan.c
 * calls the function, as its proofs assume. */
#define qsi_postfix(s) ((s)->profile == QS_PROFILE_POSTFIX)
qs_transport *qsi_transport_find(const qs_sched *s, const char *name);
/* The same for a name of len = strlen(name) bytes followed by at least
 * 8 - len readable bytes (a message's copy of a group's transport,
 * messages.c): a name under 8 bytes is compared as one word. */
qs_transport *qsi_transport_find_len(const qs_sched *s, const char *name,
                                     size_t len);
qs_transport *qsi_transport_obtain(qs_sched *s, const char *name);
void qsi_transport_ring_insert(qs_sched *s, qs_transport *t);

/* concurrency.c: destination queues and their windows */
void qsi_queue_destroy(qs_sched *s, qs_queue *q);
qs_queue *qsi_queue_live(const qs_transport *t, const char *name, size_t len);
qs_queue *qsi_queue_obtain(qs_sched *s, qs_transport *t, const char *name,
                           size_t len);
void qsi_queue_free_if_idle(qs_sched *s, qs_queue *q);
/* S-PFX-20: forget the transport's cached candidate answer. */
#define QSI_CAND_RESET(t) ((t)->cand_current = NULL)
void qsi_queue_revive(qs_sched *s, qs_queue *q, int busy);
void qsi_feedback(qs_sched *s, qs_queue *q, enum qs_outcome outcome);

/* jobs.c: jobs, peers, entries, the two job lists */
void qsi_trace_job(qs_sched *s, enum qs_trace_kind kind, qs_job *j);
void qsi_job_retire(qs_sched *s, qs_job *job);
qs_job *qsi_job_obtain(qs_sched *s, qs_message *m, qs_transport *t);
void qsi_job_free(qs_sched *s, qs_job *job);
qs_peer *qsi_peer_obtain(qs_sched *s, qs_job *job, qs_queue *q);
/* the job's peer for destination q, or NULL (no new peer; the job's map
 * may be built) */
qs_peer *qsi_peer_find(qs_job *job, const qs_queue *q);
/* a new peer for q at the end of the job's list (the caller knows there
 * is none: assign.c's fresh job) */
qs_peer *qsi_peer_create(qs_sched *s, qs_job *job, qs_queue *q);
void qsi_peer_free_if_unused(qs_sched *s, qs_peer *p);
void qsi_qlist_append(qs_entry **head, qs_entry **tail, qs_entry *e);
void qsi_qlist_unlink(qs_entry **head, qs_entry **tail, qs_entry *e);
void qsi_peer_unlink_entry(qs_peer *p, qs_entry *e);
qs_entry *qsi_entry_create(qs_sched *s, qs_peer *p);
void qsi_entry_free(qs_sched *s, qs_entry *e);

/* preempt.c: the preemption stack and the preemption itself */
void qsi_job_parent_gone(qs_job *job, qs_job *parent);
void qsi_job_pop(qs_sched *s, qs_job *job);
qs_job *qsi_job_preempt(qs_sched *s, qs_job *current);
/* preempt_scan.c: the candidate of S-PRE-5, S-PRE-6 (walk, index or cache) */
qs_job *qsi_job_candidate(qs_sched *s, qs_job *current, int64_t *delay,
                          int64_t *total, int64_t *max_slots);
/* preempt_readings.c: the preemption rules under every reading (R-3, R-4,
 * ); preempt.c calls them when a reading is not
 * qsched's, its proved helpers otherwise. */
int qsi_readings_candidate_default(const qs_sched *s);
int qsi_readings_gate_default(const qs_sched *s);
int qsi_readings_fires_default(const qs_sched *s, const qs_job *current);
void qsi_candidate_score_read(const qs_sched *s, const qs_job *job,
                              int64_t *delay, int64_t *total);
int qsi_preempt_gate_read(const qs_sched *s, const qs_job *current);
int qsi_preempt_fires_read(const qs_sched *s, const qs_job *current,
                           int64_t needed);
qs_job *qsi_candidate_scan_read(const qs_sched *s, qs_job *current,
                                int early_stop, int64_t *out_delay,
                                int64_t *out_total, int64_t *out_max);

/* check.c's per-object checks, shared with the incremental checker in
 * check_changes.c so that each invariant is stated once: the first broken
 * invariant as a message (returns -1), a queue's counters and window
 * (S-INV-3, S-INV-6), a message's jobs, peers and entries (S-INV-4,
 * S-INV-5). */
int qsi_check_fail(char *err, size_t errlen, const char *fmt, ...);
int qsi_check_job_stack(const qs_transport *t, const qs_job *j, char *err,
                        size_t errlen);
int qsi_check_queue_fields(const qs_sched *s, const qs_transport *t,
                           const qs_queue *q, char *err, size_t errlen);
int qsi_check_message(const qs_sched *s, const qs_message *m,
                      int64_t *in_core_sum, int counted, char *err,
                      size_t errlen);

/* check.c: the incremental checker's notes.  An event that changes an
 * object (its counters, its lists, its links) notes it, once per check;
 * nothing happens until the checker is on (qs_check_changes). */
void qsi_ck_note(qs_sched *s, struct qs_touched *set, void *obj,
                 uint64_t *epoch, size_t *index);
void qsi_ck_message_gone(qs_sched *s, qs_message *m);
void qsi_ck_job_gone(qs_sched *s, qs_job *j);
void qsi_ck_queue_gone(qs_sched *s, qs_queue *q);
void qsi_ck_entry_gone(qs_sched *s, qs_entry *e);

/* The notes: one test at the call site (the checker is off in a plain
 * replay), the rest in check.c. */
void qsi_ck_msg(qs_sched *s, qs_message *m);
void qsi_ck_xport(qs_sched *s, qs_transport *t);
void qsi_ck_job(qs_sched *s, qs_job *j);
void qsi_ck_queue(qs_sched *s, qs_queue *q);
/* blocker_index.c: the walk's stop and the destinations' marks */
void qsi_bix_peer_pending(qs_peer *p);
void qsi_bix_peer_idle(qs_peer *p);
void qsi_bix_queue_ready(qs_queue *q);
void qsi_bix_job_untag(qs_job *job);
qs_job *qsi_bix_stop(const qs_transport *t);
void qsi_bix_linked(qs_transport *t, qs_job *job);
void qsi_bix_moved(qs_transport *t, qs_job *job);
void qsi_bix_resize(qs_transport *t);
void qsi_bix_adapt(qs_transport *t);
int qsi_bix_wanted(const qs_transport *t);
/* blocker_index.c qsi_bix_adapt's window and threshold (tests/sh/
 * blocker-index.sh builds with others: the index always, or never) */
#ifndef QSI_BIX_WINDOW
#define QSI_BIX_WINDOW 128 /* selections between two qsi_bix_adapt */
#endif
#ifndef QSI_BIX_MARKS
#define QSI_BIX_MARKS (32 * QSI_BIX_WINDOW) /* marks that ask for it */
#endif
void qsi_bix_queue_gone(qs_queue *q);
void qsi_bix_flag_sync(qs_job *job);
void qsi_bix_flag_update(qs_job *job);
/* The selection walk must stop at the job (blocker_index.c, job_index.c
 * cix_pull keeps it as bix_stop): it has no entries (it retires), or its
 * message has unread recipients and room for some (job_peer_select may
 * read).  Otherwise the walk only tests its peers: with no room in the
 * message (rcpt_limit <= rcpt_count) job_peer_select reads nothing
 * (qsi_message_realloc reads limit - count > 0 recipients at most). */
static inline int qsi_job_walk_stop(const qs_job *j)
{
    const qs_message *m = j->message;
    return !QS_HAS_ENTRIES(j) ||
           (QS_UNREAD(m) && m->rcpt_limit > m->rcpt_count);
}
void qsi_bix_message(qs_message *m);
/* The message's recipient count or limit changed: its jobs' bix_stop
 * follow, on transports that keep the blocker index (s->bix_on_count). */
#define QSI_BIX_MESSAGE(s, m)                                                \
    do {                                                                     \
        if ((s)->bix_on_count > 0)                                           \
            qsi_bix_message(m);                                              \
    } while (0)
void qsi_bix_unlinked(qs_job *job);
void qsi_bix_materialize(qs_transport *t);
void qsi_bix_materialize_but(qs_transport *t, const qs_job *fresh);
void qsi_bix_released(qs_transport *t);
qs_job *qsi_bix_region_stop(qs_transport *t, qs_job *from);
qs_job *qsi_bix_walk_to_stop(qs_sched *s, qs_transport *t, qs_job *job);
#ifdef QSCHED_CROSSCHECK
void qsi_bix_check_mark(const qs_queue *q);
void qsi_bix_check_start(const qs_transport *t);
#define QSI_BIX_CHECK_MARK(q) qsi_bix_check_mark(q)
#define QSI_BIX_CHECK_START(t) qsi_bix_check_start(t)
#else
#define QSI_BIX_CHECK_MARK(q) ((void)0)
#define QSI_BIX_CHECK_START(t) ((void)0)
#endif
void qsi_cix_sizes(qs_transport *t);
int64_t qsi_cix_rank(const qs_transport *t, const qs_job *x);
/* S-PRE-11: is the job a blocker?  Its tag, or, while the transport's
 * blocker index keeps the region (blocker_index.c: the postfix readings,
 * long walks), its place: every job on the list before job_walk (all of
 * them when job_walk is NULL) is one.  QS_IS_BLOCKER, the tag alone, is
 * what the candidate scans use: they look at jobs after the current job,
 * which under walk_start is job_walk, so never at the region. */
static inline int qsi_is_blocker(const qs_job *j)
{
    const qs_transport *t = j->transport;
    return j->blocker_tag == t->blocker_tag ||
           (t->bix_region && j->bix_listed &&
            (!t->job_walk || j->bix_label < t->job_walk->bix_label));
}
/* Is the destination marked as waited for by a blocker (S-PRE-11)?  Its
 * tag, or, with the blocker index, its first pending job a blocker
 * (blocker_index.c's header: why the two agree).  Without the index its
 * heap is empty (bix_pn 0): the tag alone. */
static inline int qsi_queue_marked(const qs_queue *q)
{
    return q->blocker_tag == q->transport->blocker_tag ||
           (q->bix_pn > 0 && qsi_is_blocker(q->bix_ph[0]->job));
}
void qsi_ck_entry(qs_sched *s, qs_entry *e);
#define QSI_CK_MSG(s, m)                                                     \
    do {                                                                     \
        if ((s)->ck_on)                                                      \
            qsi_ck_msg((s), (m));                                            \
    } while (0)
#define QSI_CK_XPORT(s, t)                                                   \
    do {                                                                     \
        if ((s)->ck_on)                                                      \
            qsi_ck_xport((s), (t));                                          \
    } while (0)
#define QSI_CK_JOB(s, j)                                                     \
    do {                                                                     \
        if ((s)->ck_on)                                                      \
            qsi_ck_job((s), (j));                                            \
    } while (0)
#define QSI_CK_QUEUE(s, q)                                                   \
    do {                                                                     \
        if ((s)->ck_on)                                                      \
            qsi_ck_queue((s), (q));                                          \
    } while (0)
#define QSI_CK_ENTRY(s, e)                                                   \
    do {                                                                     \
        if ((s)->ck_on)                                                      \
            qsi_ck_entry((s), (e));                                          \
    } while (0)

/*
 * A queue is "ready" when the transport could select from it now: it is
 * alive, has room in its window (window > busy) and something pending.
 * The transport keeps a count of its ready queues so that qs_select can
 * skip an idle transport in O(1) (S-PRE-14) instead of walking its job
 * list only to find nothing.  Every change of dead, window, busy or todo
 * is followed by a call here, which keeps the count exact (S-INV-3).
 * A queue is "over" when it is alive with more deliveries in flight than
 * its window (negative feedback shrank the window under them); the count
 * of those lets the postfix profile's round robin (S-PFX-17) answer
 * without walking the destinations when there is none (select.c,
 * postfix_offered).
 */
static inline void qsi_queue_update_ready(qs_queue *q)
{
    int ready = !q->dead && q->window > q->busy && q->todo > 0;
    int over = !q->dead && q->busy > q->window;
    /* every change of a queue's lists or window ends here: note it for
     * the incremental checker (check.c) */
    QSI_CK_QUEUE(q->transport->sched, q);
    if (ready != q->ready) {
        q->ready = ready;
        q->transport->ready_queues += ready ? 1 : -1;
        if (q->transport->bix_on)
            qsi_bix_queue_ready(q);
    }
    if (over != q->over) {
        q->over = over;
        q->transport->over_queues += over ? 1 : -1;
    }
}

/* candidates.c: the candidate index, kept in step with the job list */
void qsi_cix_insert(qs_transport *t, qs_job *job, int repair);
void qsi_cix_remove(qs_transport *t, qs_job *job);
void qsi_cix_update(qs_job *job);
void qsi_cix_selected(qs_job *job);
void qsi_cix_resize(qs_transport *t);
/* A question walked the list (the index off): the `steps` jobs it looked
 * at, rent towards a build; a question answered by the index while the
 * tried walks say it is worth it (cix_worth): it earns its upkeep again
 * (job_index.c qsi_cix_resize, which reads both). */
#define QSI_CIX_RENT(t, steps) ((t)->cix_rent += (steps))
#define QSI_CIX_USED(t) ((t)->cix_idle = 0)
/* The rental's thresholds (job_index.c qsi_cix_resize). */
#ifndef CIX_BUILD /* (tests/sh/blocker-index.sh builds with others) */
#define CIX_BUILD 64
#define CIX_DROP 32
#endif
#ifndef CIX_BUY /* (the rental: tests/sh/blocker-index.sh, the coverage */
#define CIX_BUY 32 /* build, set both, and CIX_OWN, with others) */
#define CIX_IDLE_PART 2
#endif
#ifndef CIX_OWN
#define CIX_OWN 4096
#endif
/* While the index is on, one question in CIX_SAMPLE also tries the walk,
 * for CIX_SAMPLE_STEPS jobs at most: a walk that has not ended by then
 * makes the index worth keeping for the next CIX_WORTH tries
 * (preempt_scan.c qsi_job_candidate; a cost choice: the answers are the
 * same either way). */
#ifndef CIX_SAMPLE /* (tests/sh/blocker-index.sh builds with others) */
#define CIX_SAMPLE 64
#define CIX_SAMPLE_STEPS 128
#define CIX_WORTH 4
#endif
qs_job *qsi_cix_time_marker(const qs_transport *t, int64_t queued_time);
int qsi_cix_after(const qs_job *a, const qs_job *b);
void qsi_tix_insert(qs_transport *t, qs_job *job);
void qsi_tix_remove(qs_transport *t, qs_job *job);
qs_job *qsi_tix_time_marker(const qs_transport *t, int64_t queued_time);
int qsi_tix_after(const qs_job *a, const qs_job *b);
qs_job *qsi_cix_candidate(qs_sched *s, qs_job *current, int64_t max_slots,
                          int64_t *delay, int64_t *total);
/* job_place.c: where job_link puts a job while the lists are one
 * sequence (t->jobs_misplaced == 0), and the marking that keeps count */
qs_job *qsi_job_time_place(qs_transport *t, int64_t queued_time,
                           qs_job **walk, qs_job **unread);
qs_job *qsi_job_tail_place(const qs_transport *t, int64_t queued_time,
                           qs_job **walk, int64_t *steps);
qs_job *qsi_job_tail_place_time(const qs_transport *t, int64_t queued_time,
                                qs_job **unread, int64_t *steps);
static inline void qsi_job_misplace(qs_transport *t, qs_job *job)
{
    if (!job->misplaced) {
        job->misplaced = 1;
        t->jobs_misplaced++;
    }
}

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

/* messages.c: deferral (next: the entry deferred after e, or NULL) and
 * freeing */
void qsi_entry_defer_todo(qs_sched *s, qs_entry *e, const qs_entry *next);
void qsi_message_free(qs_sched *s, qs_message *m);

/* concurrency_trace.c: the concurrency scheduler's records (explain
 * level, skipped unless QSI_EXPLAIN; and `window`, the default level) */
void qsi_conc_trace_safety(qs_sched *s, const qs_queue *q, int allowed);
void qsi_conc_trace_step(qs_sched *s, const qs_queue *q,
                         enum qs_trace_kind kind, const qs_feedback *fb,
                         int old, double value, double before, double after,
                         int guard);
void qsi_conc_trace_cohort(qs_sched *s, const qs_queue *q, double before,
                           int dead);
void qsi_conc_trace_backoff(qs_sched *s, const qs_queue *q,
                            enum qs_backoff_case why);
void qsi_conc_trace_window(qs_sched *s, qs_queue *q, int old);

/* assign.c: reading and assigning a batch of recipients */
void qsi_message_read(qs_sched *s, qs_message *m, int64_t limit);


/* ---- ACSL: the facts about these structures that the proved functions
 * of the core rely on and keep (Frama-C only; proofs/README.md).  The
 * ranges are the parser's (params.c, events.c) and the kernels'
 * (kernels.h); src/check.c checks the same facts at run time. ---- */
/*@
  // A destination's window is bounded by its limit (S-INV-6), or, in the
  // postfix profile's "no limit" (S-PFX-3), by the safety rule alone
  // (S-CON-3): at most busy + init + 1.
  logic integer QS_QWINDOW_MAX = QS_COUNT_MAX + QS_WINDOW_MAX + 1;
  // fail_cohorts while alive: at most the cohort limit + 1 (S-CON-8), or
  // the number of failures in the postfix profile with limit 0 (S-PFX-1);
  // 2^52 failures in a row are out of reach.
  logic real QS_COHORTS_MAX = 0x1p52;

  // The parameters of a transport the feedback arithmetic reads (S-EV-2,
  // S-EV-5: the document profile has no limit 0; S-CON-2: x in [0, 1]).
  predicate qs_transport_feedback_ok(qs_transport *t, integer postfix) =
    \valid_read(t) &&
    0 <= t->dest_conc_limit <= QS_WINDOW_MAX &&
    (postfix == 0 ==> t->dest_conc_limit >= 1) &&
    1 <= t->init_conc <= QS_WINDOW_MAX &&
    0 <= t->cohort_limit <= QS_WINDOW_MAX &&
    qs_unit(t->pos.base) && qs_unit(t->neg.base);

  // A live destination's feedback state between events (S-CON-1: it
  // starts at init, 0, 0, 0; S-INV-6; the kernels' ranges of success and
  // failure for the profile's loop, S-CON-4, S-CON-7, S-PFX-2).
  predicate qs_queue_feedback_ok(qs_queue *q, integer postfix) =
    \valid_read(q) &&
    1 <= q->window <= QS_QWINDOW_MAX &&
    0 <= q->busy <= QS_COUNT_MAX &&
    qs_success_range(q->success, postfix) &&
    qs_failure_range(q->failure, postfix) &&
    \is_finite(q->fail_cohorts) && \le_double(0.0d, q->fail_cohorts) &&
    \le_double(q->fail_cohorts, (double)QS_COHORTS_MAX);

  // The preemption parameters of a transport (S-EV-2, params.c ranges).
  predicate qs_transport_slots_ok(qs_transport *t) =
    \valid_read(t) &&
    0 <= t->slot_cost <= QS_COST_MAX && 0 <= t->slot_loan <= QS_LOAN_MAX &&
    0 <= t->slot_discount <= 100 && 0 <= t->min_slots <= QS_MINSLOTS_MAX;

  // The counts of a job on the job lists that the preemption arithmetic
  // reads (S-PRE-4 .. S-PRE-9, S-MEM-8): selected <= read entries (MIN),
  // MAX = read entries + unread recipients within a message's 10^9
  // recipients (S-INV-1), its message queued no later than now, its slot
  // counters and stack level in the kernels' ranges.  The counter range
  // is a premise: each charge keeps the counter >= -(entries left) when
  // the candidate fits (S-PRE-5), and a refund gives back at most what
  // was charged; check.c checks it after every event.
  predicate qs_job_counts_ok(qs_job *j) =
    \valid_read(j) && \valid_read(j->message) && \valid_read(j->transport) &&
    0 <= j->selected_entries <= j->read_entries &&
    0 <= j->message->rcpt_unread &&
    j->read_entries + j->message->rcpt_unread <= QS_COUNT_MAX &&
    -QS_SLOTS_MAX <= j->slots_available <= QS_SLOTS_MAX &&
    qs_count(j->slots_used) &&
    0 <= j->stack_level < QS_LEVEL_MAX;
  // ... and its message entered the active queue no later than now.
  predicate qs_job_queued_ok(qs_job *j, integer now) =
    \valid_read(j) && \valid_read(j->message) &&
    0 <= j->message->queued_time <= now <= QS_TIME_MAX;

  // The scheduler's job list from j on (S-INV-2): finite (nil-terminated,
  // no cycle: an inductive predicate holds only of finite derivations)
  // and every job on it satisfies the two predicates above.
  inductive qs_joblist_ok{L}(qs_job *j, integer now) {
    case nil{L}:  \forall integer now; qs_joblist_ok(\null, now);
    case cons{L}: \forall qs_job *j, integer now;
      j != \null && qs_job_counts_ok(j) && qs_job_queued_ok(j, now) &&
      qs_joblist_ok(j->lnext, now) ==> qs_joblist_ok(j, now);
  }

  // S-PRE-5: MAX(j) - selected(j), the slots a candidate needs.
  logic integer qs_needed(qs_job *j) =
    j->read_entries + j->message->rcpt_unread - j->selected_entries;
  // S-PRE-6: the score's numerator and denominator.
  logic integer qs_delay(qs_job *j, integer now) =
    now - j->message->queued_time + 1;
  logic integer qs_total(qs_job *j) =
    j->read_entries + j->message->rcpt_unread;
  // S-PRE-11: a blocker carries its transport's current blocker tag.
  predicate qs_is_blocker(qs_job *j) =
    j->blocker_tag == j->transport->blocker_tag;
*/

#endif
