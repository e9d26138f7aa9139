/*
 * pfh.h - shared declarations of the Postfix differential harness.
 *
 * Owns: the interface between the harness driver (pfh-driver.c) and the
 * infrastructure stubs that stand in for the parts of Postfix that are not
 * the scheduler: the event loop and the clock (pfh-events.c), logging
 * (pfh-msg.c), main.cf (pfh-config.c), queue files, queue scans and the
 * address resolver (pfh-queue.c), delivery agents (pfh-agent.c) and the
 * logging clients of the bounce/defer/trace services (pfh-log.c).
 *
 * Why it exists: issue 14.  Postfix's queue manager (src/qmgr of the Debian
 * source package, compiled unchanged) runs inside this program on a virtual
 * clock; the driver turns qsched's event language into the events Postfix
 * reacts to (a message in the incoming queue, a delivery agent that asks
 * for work, a delivery agent's status report, time passing) and prints
 * Postfix's decisions in qsched's trace format (spec/trace.md).  See
 * tests/postfix/README.md for what runs unchanged and why each stub is
 * faithful.
 *
 * No Postfix code is copied here: the harness includes Postfix's headers
 * from the unpacked source package under build/ and implements some of
 * their functions.
 */
#ifndef PFH_H
#define PFH_H

#include <sys_defs.h>
#include <sys/time.h>
#include <stdio.h>
#include <string.h>

#include <vstream.h>
#include <vstring.h>
#include <events.h>
#include <htable.h>
#include <mymalloc.h>
#include <msg.h>

#include <recipient_list.h>
#include <dsn.h>
#include <mail_conf.h>

#include "qmgr.h"

/* ---- exit statuses of the harness program ---- */
#define PFH_EXIT_OK           0
#define PFH_EXIT_INPUT        2 /* the stream is malformed */
#define PFH_EXIT_INEXPRESSIBLE 3 /* valid for qsched, but no Postfix
                                  * situation corresponds to it */
#define PFH_EXIT_STREAM_AHEAD 4 /* the stream names a delivery Postfix
                                  * never started (an earlier divergence) */
#define PFH_EXIT_POSTFIX      5 /* Postfix called msg_fatal or msg_panic */

/* ---- pfh-events.c: virtual clock, timers, I/O readiness ---- */
#define PFH_EPOCH ((time_t)1000000000)   /* the stream's time 0 */
extern time_t pfh_now;                  /* Postfix's time */
extern void pfh_clock_set(time_t when);
/* Runs every timer due at or before `until`, each at its own time, in
 * Postfix's order (time, then the order of the requests). */
extern void pfh_timers_run_until(time_t until);
/* Called just before a timer's callback runs, with its context. */
extern void (*pfh_on_timer)(void *context);
/* The read handler registered for fd, or 0. */
extern EVENT_NOTIFY_RDWR_FN pfh_read_handler(int fd, void **context);
/* Calls the read handler of fd (the peer wrote something). */
extern void pfh_fire_read(int fd);

/* ---- pfh-msg.c: logging, fatal errors ---- */
extern int pfh_debug;           /* --debug: Postfix's log on stderr */
extern int pfh_abort_on_fatal;  /* abort() instead of exit (fuzzing) */

/* ---- pfh-config.c: main.cf ---- */
extern void pfh_config_set(const char *name, const char *value);
extern const char *pfh_config_get(const char *name);
/* Runs Postfix's queue manager main() up to the end of its
 * initialisation (parameter tables, pre-init, post-init). */
extern void pfh_qmgr_start(void);

/* ---- pfh-queue.c: queue files, queue scans, the resolver ---- */
typedef struct PFH_RCPT {
    char *address;              /* LOCAL@NEXTHOP, LOCAL.J@NEXTHOP, rN@NEXTHOP */
    const char *transport;      /* what the resolver answers */
    const char *nexthop;
} PFH_RCPT;
/* Writes a queue file for message id into the incoming queue.  The
 * recipients are copied.  Returns 0, or -1 if the id is still queued. */
extern int pfh_queue_file_create(const char *id, const PFH_RCPT *rcpt,
                                 size_t nrcpt);
/* Called when Postfix opens a queue file: a recipient batch starts. */
extern void (*pfh_on_batch_start)(void);

/* ---- pfh-agent.c: delivery agents ---- */
typedef struct PFH_CONN PFH_CONN;
/* The connection that mail_connect() created last (the driver takes it
 * over at once). */
extern PFH_CONN *pfh_conn_last;
extern int pfh_conn_fd(const PFH_CONN *conn);
/* The agent side: "ready for a request", and the final status. */
extern void pfh_agent_send_ready(PFH_CONN *conn);
enum pfh_outcome { PFH_OK, PFH_FAIL, PFH_DEFER };
extern void pfh_agent_send_status(PFH_CONN *conn, enum pfh_outcome outcome,
                                  const char *site);
extern void pfh_conn_free(PFH_CONN *conn);

/* ---- pfh-driver.c: the stream, one line at a time ---- */
extern void pfh_set_stream_name(const char *name);
extern void pfh_set_state_mode(int on);
/* The default-level trace lines go to sink (default: stdout). */
extern void pfh_set_trace_sink(void (*sink)(void *ctx, const char *line),
                               void *ctx);
/* One line of the stream (the text is modified). */
extern void pfh_line(char *text);
/* The end of the stream. */
extern void pfh_end(void);

/* ---- pfh-driver.c: the trace ---- */
/* Prints one default-level trace line (spec/trace.md). */
extern void pfh_trace(const char *fmt, ...) PRINTFLIKE(1, 2);
/* Postfix logged a destination's window (QMGR_LOG_WINDOW). */
extern void pfh_observe_window(const char *who, const char *queue_name,
                               int window);
/* Postfix deferred one recipient (defer_append). */
extern void pfh_observe_defer(const char *queue_id, RECIPIENT *rcpt,
                              DSN *dsn);
extern NORETURN pfh_internal_error(const char *fmt, ...) PRINTFLIKE(1, 2);

#endif
