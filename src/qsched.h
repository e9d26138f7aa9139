/*
 * qsched.h - the stable C API of qsched, the reference implementation of the
 * Postfix queue manager's scheduler (SCHEDULER_README: the 2.5 concurrency
 * scheduler and Patrik Rak's preemptive job scheduler).
 *
 * Owns: the public types and entry points.  Everything an embedding program
 * (the qsched CLI, a differential harness, another implementation's test
 * suite) needs: create a scheduler from parameters, feed it events, read its
 * decisions through a trace callback and its state through accessors,
 * destroy it.  The core behind this header does no I/O, keeps no global
 * state and is deterministic: the same calls produce the same decisions.
 *
 * Life cycle:
 *   qs_params *p = qs_params_new();
 *   qs_params_set(p, "default_delivery_slot_cost", "2", err, sizeof err);
 *   qs_sched *s = qs_sched_new(p, QS_PROFILE_DOCUMENT, sink, ctx, err, n);
 *   qs_arrive(s, "M1", groups, ngroups, err, n);
 *   qs_select(s, NULL, &delivery, err, n);    // -> 1 delivery, 0 idle
 *   qs_done(s, delivery.handle, QS_DONE_OK, err, n);
 *   qs_advance(s, 300, err, n);
 *   qs_sched_free(s); qs_params_free(p);
 * Every call that can fail returns 0 on success or -1 with a one-line reason
 * in err; a failed call changes nothing.  Decisions are reported to the sink
 * as qs_trace records (see spec/trace.md for their meaning); qs_trace_text
 * renders one as the canonical trace line.
 *
 * Lifetimes: the strings of a qs_trace record are valid only during the
 * sink call; the strings of a qs_delivery only until the next call on the
 * scheduler.  Copy what you keep.
 */
#ifndef QSCHED_H
#define QSCHED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QSCHED_API_VERSION 1

/* ---- parameters (main.cf names, spec/events.md "Parameters") ---- */

typedef struct qs_params qs_params;

qs_params *qs_params_new(void);
qs_params *qs_params_clone(const qs_params *p);
void qs_params_free(qs_params *p);
/* NAME = VALUE in main.cf syntax; NAME may be TRANSPORT_suffix for every
 * per-transport parameter.  Validates the value (range, syntax). */
int qs_params_set(qs_params *p, const char *name, const char *value,
                  char *err, size_t errlen);
/* Iterate the known global parameters with their defaults (postconf -d). */
size_t qs_params_count(void);
const char *qs_params_name(size_t i);
const char *qs_params_default(size_t i);

/* ---- profiles (spec/profiles.md) ---- */
enum qs_profile {
    QS_PROFILE_DOCUMENT = 0, /* the document's pseudocode, verbatim */
    QS_PROFILE_POSTFIX = 1   /* Postfix 3.x as shipped, where it differs */
};

/* ---- trace records (spec/trace.md) ---- */
enum qs_trace_kind {
    /* default level */
    QS_T_DELIVER,   /* handle msg transport dest n */
    QS_T_IDLE,      /* transport (may be NULL) */
    QS_T_WINDOW,    /* transport dest a=old b=new */
    QS_T_DEAD,      /* transport dest */
    QS_T_REVIVE,    /* transport dest a=window */
    QS_T_DEFER,     /* msg transport dest n: entry deferred (dead dest) */
    QS_T_FBWARN,    /* transport: postfix profile refused a feedback form */
    /* explain level */
    QS_T_ACTIVATE,  /* msg: message enters the active queue */
    QS_T_WAIT,      /* msg: active queue full, message waits (incoming) */
    QS_T_LEAVE,     /* msg a=delivered b=deferred: message left the queue */
    QS_T_READ,      /* msg n=read a=unread left b=batch limit */
    QS_T_CANDIDATE, /* transport msg(current) msg2(candidate) a=delay b=total
                       c=max_slots */
    QS_T_PREEMPT,   /* transport msg msg2 a=counter b=needed c=k d=loan
                       e=discount f=level (preemption done) */
    QS_T_NOPREEMPT, /* same numbers, test failed */
    QS_T_POP,       /* transport msg msg2(parent or NULL) a=used_delta
                       b=refund applied (0/1) c=parent counter after */
    QS_T_BLOCKER,   /* transport msg: job marked blocker */
    QS_T_UNBLOCK,   /* transport dest: all blockers of transport released */
    QS_T_RETIRE,    /* transport msg: job left the job lists */
    QS_T_RELINK,    /* transport msg: retired job back on the lists */
    QS_T_RCPTPOOL,  /* transport msg msg2(next) a=job rcpt_limit b=pool
                       unused: recipient slots moved (S-MEM-5) */
    QS_T_NOCANDIDATE, /* transport msg(current) a=counter c=max_slots: a
                       preemption attempt found no candidate */
    /* explain level: the concurrency scheduler (S-CON-*, spec/trace.md);
     * x, y, z, w carry its binary64 counters exactly */
    QS_T_SAFETY,    /* transport dest a=window b=busy c=initial d=limit
                       e=allowed f=postfix: the S-CON-3 test (and S-PFX-3) */
    QS_T_SUCCESS,   /* transport dest a=old window b=new c=limit d=guard
                       e=steps f=form (0 x, 1 x/concurrency, 2
                       x/sqrt_concurrency) x=feedback base y=g(N) z=success
                       before w=success after: "After success" */
    QS_T_COHORT,    /* transport dest a=window b=limit c=dead d=postfix
                       x=fail_cohorts before y=after: S-CON-6, S-CON-8 */
    QS_T_FAILURE,   /* transport dest a=old window b=new d=guard e=steps
                       f=form x=feedback base y=f(N) z=failure before
                       w=failure after: "After failure" (S-CON-7) */
    QS_T_BACKOFF    /* transport dest a=revive time b=minimal_backoff_time
                       c=now d=case (enum qs_backoff_case): S-CON-9..11 */
};
/* Old name of QS_T_RCPTPOOL (the line was called `slots`). */
#define QS_T_SLOTS QS_T_RCPTPOOL

/* QS_T_BACKOFF cases */
enum qs_backoff_case {
    QS_BACKOFF_DEAD = 0,        /* declared dead now, revives at a */
    QS_BACKOFF_EXPIRED = 1,     /* backoff over: revives now (at event) */
    QS_BACKOFF_OK_IGNORED = 2,  /* success while dead: ignored (S-CON-11) */
    QS_BACKOFF_OK_REVIVES = 3,  /* success while dead revives (S-PFX-8) */
    QS_BACKOFF_FAIL_IGNORED = 4 /* failure while dead: no feedback */
};

/* (The core zeroes a record field by field: a new field must also be
 * added to qsi_trace_start in sched_int.h.) */
typedef struct qs_trace {
    enum qs_trace_kind kind;
    int64_t time;           /* virtual time of the record */
    int64_t handle;         /* QS_T_DELIVER */
    const char *msg;        /* message id, or NULL */
    const char *msg2;       /* second message id, or NULL */
    const char *transport;  /* transport name, or NULL */
    const char *dest;       /* destination (next-hop or LOCAL@NEXTHOP) */
    int64_t n;              /* recipient count */
    int64_t a, b, c, d, e, f;
    double x, y, z, w;      /* the concurrency explain records' counters */
    /* strlen of msg, transport and dest in the records the scheduler
     * passes to its sink, or 0 (a NULL string, a record made by hand);
     * qs_trace_text reads the strings, never these */
    size_t msg_len, transport_len, dest_len;
} qs_trace;

typedef void (*qs_trace_sink)(void *ctx, const qs_trace *rec);

/* The canonical text of a record (spec/trace.md), without newline, into
 * buf (always NUL-terminated when len > 0).  explain = 0: only records of
 * the default level are rendered, others give 0.  Returns the length. */
size_t qs_trace_text(const qs_trace *rec, int explain, char *buf,
                     size_t len);

/* ---- the scheduler ---- */
typedef struct qs_sched qs_sched;

/* Parameters are copied and frozen.  The sink receives every record; it may
 * be NULL.  Fails on inconsistent parameters (profile-specific checks). */
qs_sched *qs_sched_new(const qs_params *p, enum qs_profile profile,
                       qs_trace_sink sink, void *ctx, char *err,
                       size_t errlen);
void qs_sched_free(qs_sched *s);

/* The records of the explain level (QS_T_ACTIVATE .. QS_T_BACKOFF above;
 * spec/trace.md): a new scheduler with a sink builds and passes every
 * record to it.  wanted = 0: records of the explain level are neither
 * built nor passed (a caller that prints only the default level saves
 * their cost); the decisions, the state and the default-level records
 * (QS_T_FBWARN included) are the same either way.  wanted != 0: every
 * record again.  May be called at any time; returns the previous setting
 * (0 or 1; always 0 for a scheduler without a sink, which builds none). */
int qs_sched_set_explain(qs_sched *s, int wanted);

/* One recipient group of an arrive line: COUNT recipients for
 * TRANSPORT:[LOCAL@]NEXTHOP (local may be NULL). */
typedef struct qs_group {
    const char *transport;
    const char *local;
    const char *nexthop;
    int64_t count;
} qs_group;

int qs_advance(qs_sched *s, int64_t now, char *err, size_t errlen);
int qs_arrive(qs_sched *s, const char *msgid, const qs_group *groups,
              size_t ngroups, char *err, size_t errlen);

typedef struct qs_delivery {
    int64_t handle;         /* D<handle>; 0 when idle */
    const char *msg;
    const char *transport;
    const char *dest;
    int64_t nrcpt;
} qs_delivery;

/* transport NULL: round-robin over transports.  Returns 1 and fills *out for
 * a delivery, 0 when idle, -1 on error (unknown transport name is not an
 * error: that transport is simply idle). */
int qs_select(qs_sched *s, const char *transport, qs_delivery *out,
              char *err, size_t errlen);

enum qs_outcome { QS_DONE_OK = 0, QS_DONE_FAIL = 1, QS_DONE_DEFER = 2 };
int qs_done(qs_sched *s, int64_t handle, enum qs_outcome outcome,
            char *err, size_t errlen);

/* ---- state ---- */
int64_t qs_now(const qs_sched *s);
int qs_in_flight(const qs_sched *s, int64_t handle);
int64_t qs_next_handle(const qs_sched *s);
/* Number of deliveries in flight, and the i-th smallest in-flight handle
 * (0 <= i < count) - used by stream generators. */
size_t qs_in_flight_count(const qs_sched *s);
int64_t qs_in_flight_nth(const qs_sched *s, size_t i);

typedef struct qs_stats {
    /* deliveries started; selects that found nothing; preemptions done;
     * preemption tests that failed (a candidate was found but the slots
     * did not suffice, S-PRE-7); times a job was marked a blocker */
    int64_t deliveries, idles, preemptions, preempt_refused, blockers;
    /* recipients by outcome (deferred: fail, defer, dead destination) */
    int64_t recipients_delivered, recipients_deferred;
    /* messages that left the active queue; destinations declared dead
     * and revived; recipient batches read (S-MEM-1) */
    int64_t messages_done, deaths, revivals, reads;
    int64_t peak_in_core;     /* total in-core recipients, peak */
    int64_t bound_in_core;    /* the document's total bound (S-MEM-9) */
    int64_t bound_holding;    /* the bound that holds (S-INV-8), with
                                 A = qmgr_message_active_limit */
} qs_stats;
void qs_get_stats(const qs_sched *s, qs_stats *st);

typedef struct qs_transport_stats {
    const char *name;
    /* in_core: the transport's recipients in core now, peak_in_core its
     * maximum so far, bound_in_core the document's per-transport bound
     * (S-MEM-9) to compare it with */
    int64_t deliveries, preemptions, in_core, peak_in_core, bound_in_core;
    int64_t in_flight;        /* deliveries in flight on the transport */
} qs_transport_stats;
size_t qs_transport_count(const qs_sched *s);
void qs_get_transport_stats(const qs_sched *s, size_t i,
                            qs_transport_stats *st);

/* Human-readable snapshot of the state (job lists with levels and
 * counters, windows and in-flight counts per destination), for divergence
 * reports.  Writes at most buflen-1 bytes; returns the length needed. */
size_t qs_describe(const qs_sched *s, char *buf, size_t buflen);

/* Canonical encoding of the whole scheduler state, independent of memory
 * addresses: two states with equal encodings behave identically on every
 * future event.  Returns the length needed (like snprintf). */
size_t qs_encode_state(const qs_sched *s, char *buf, size_t buflen);

/* The invariant checker (spec/memory.md "Invariants"): 0 if the whole
 * state is consistent, else -1 with the first broken invariant in err. */
int qs_check_invariants(const qs_sched *s, char *err, size_t errlen);

/* The same invariants, checked incrementally (what `qsched
 * --check-invariants` runs after every event): the first call checks the
 * whole state, and from then on the scheduler notes the objects each event
 * touches; each later call checks those objects and the scheduler's sums,
 * in O(size of what the events since the last call changed).  0, or -1
 * with the first broken invariant in err. */
int qs_check_changes(qs_sched *s, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
