/*
 * pfh-events.c - the clock and the event loop, on virtual time.
 *
 * Owns: time(), gettimeofday() and Postfix's event API (events.h):
 * event_time, event_request_timer, event_cancel_timer, event_enable_read,
 * event_disable_readwrite.  Replaces: util/events.c (a select/epoll loop
 * on real file descriptors and the wall clock) and the C library's clock.
 *
 * Why faithful: the queue manager only uses the loop for three things:
 * the clock (sane_time, event_time, time), timers (a dead destination's
 * backoff, the deferred-queue heartbeat, watchdogs) and "this stream is
 * readable" (a delivery agent is ready, or has reported).  The clock here
 * is qsched's virtual clock (S-EV-6), shifted by PFH_EPOCH.  Timers keep Postfix's rules: one
 * timer per (callback, context) pair, re-requesting one moves it, timers
 * run in time order and, for equal times, in the order they were
 * requested (a re-requested timer counts as new).  A timer due at time W
 * runs with the clock at W, as Postfix would wake up at W.  Readiness is
 * signalled by the driver when the simulated delivery agent has written
 * something (pfh_fire_read).
 */
#include "pfh.h"
#include <ldseed.h>

/* The stream's time 0 is this moment for Postfix: Postfix treats a time
 * stamp of 0 as "missing" (an arrival time of 0 makes a queue file
 * corrupt), and every decision depends on differences of times only. */
time_t pfh_now = PFH_EPOCH;

time_t time(time_t *t)
{
    if (t)
        *t = pfh_now;
    return pfh_now;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz;
    tv->tv_sec = pfh_now;
    tv->tv_usec = 0;
    return 0;
}

void pfh_clock_set(time_t when)
{
    if (when < pfh_now)
        pfh_internal_error("the clock goes backwards (%ld < %ld)",
                           (long)when, (long)pfh_now);
    pfh_now = when;
}

time_t event_time(void)
{
    return pfh_now;
}

/* ---- timers ---- */

typedef struct PFH_TIMER {
    EVENT_NOTIFY_TIME_FN callback;
    void *context;
    time_t when;
    struct PFH_TIMER *next;
} PFH_TIMER;

static PFH_TIMER *timers;      /* sorted by when, FIFO among equals */

static void timer_unlink(PFH_TIMER *t)
{
    PFH_TIMER **pp;
    for (pp = &timers; *pp; pp = &(*pp)->next)
        if (*pp == t) {
            *pp = t->next;
            return;
        }
}

time_t event_request_timer(EVENT_NOTIFY_TIME_FN callback, void *context,
                           int delay)
{
    PFH_TIMER *t, **pp;
    if (delay < 0)
        msg_panic("event_request_timer: invalid delay: %d", delay);
    for (t = timers; t; t = t->next)
        if (t->callback == callback && t->context == context)
            break;
    if (t) {
        timer_unlink(t);
    } else {
        t = (PFH_TIMER *)mymalloc(sizeof *t);
        t->callback = callback;
        t->context = context;
    }
    t->when = pfh_now + delay;
    /* after every timer with the same or an earlier time */
    for (pp = &timers; *pp && (*pp)->when <= t->when; pp = &(*pp)->next)
        ;
    t->next = *pp;
    *pp = t;
    return t->when;
}

int event_cancel_timer(EVENT_NOTIFY_TIME_FN callback, void *context)
{
    PFH_TIMER *t;
    int left = -1;
    for (t = timers; t; t = t->next)
        if (t->callback == callback && t->context == context) {
            left = t->when > pfh_now ? (int)(t->when - pfh_now) : 0;
            timer_unlink(t);
            myfree((void *)t);
            break;
        }
    return left;
}

void (*pfh_on_timer)(void *context);

void pfh_timers_run_until(time_t until)
{
    PFH_TIMER *t;
    while ((t = timers) != 0 && t->when <= until) {
        EVENT_NOTIFY_TIME_FN cb = t->callback;
        void *ctx = t->context;
        time_t when = t->when;
        timers = t->next;
        myfree((void *)t);
        pfh_clock_set(when);        /* the loop wakes up at the timer's time */
        if (pfh_on_timer)
            pfh_on_timer(ctx);
        cb(EVENT_TIME, ctx);
    }
    pfh_clock_set(until);
}

/* ---- readiness of (simulated) delivery agent connections ---- */

typedef struct PFH_RD {
    int fd;
    EVENT_NOTIFY_RDWR_FN callback;
    void *context;
    struct PFH_RD *next;
} PFH_RD;

static PFH_RD *readers;

void event_enable_read(int fd, EVENT_NOTIFY_RDWR_FN callback, void *context)
{
    PFH_RD *r;
    for (r = readers; r; r = r->next)
        if (r->fd == fd)
            break;
    if (!r) {
        r = (PFH_RD *)mymalloc(sizeof *r);
        r->fd = fd;
        r->next = readers;
        readers = r;
    }
    r->callback = callback;
    r->context = context;
}

void event_enable_write(int fd, EVENT_NOTIFY_RDWR_FN callback, void *context)
{
    (void)callback;
    (void)context;
    msg_panic("event_enable_write: not used by the queue manager (fd %d)", fd);
}

void event_disable_readwrite(int fd)
{
    PFH_RD **pp, *r;
    for (pp = &readers; (r = *pp) != 0; pp = &r->next)
        if (r->fd == fd) {
            *pp = r->next;
            myfree((void *)r);
            return;
        }
}

EVENT_NOTIFY_RDWR_FN pfh_read_handler(int fd, void **context)
{
    PFH_RD *r;
    for (r = readers; r; r = r->next)
        if (r->fd == fd) {
            if (context)
                *context = r->context;
            return r->callback;
        }
    return 0;
}

void pfh_fire_read(int fd)
{
    void *ctx;
    EVENT_NOTIFY_RDWR_FN cb = pfh_read_handler(fd, &ctx);
    if (!cb)
        pfh_internal_error("no read handler for connection %d", fd);
    cb(EVENT_READ, ctx);
}

/* ---- the seed of Postfix's string hash ----
 * util/ldseed.c reads the kernel's random source so that hash tables are
 * laid out differently in every process.  The queue manager only looks
 * names up in its tables and never walks them, so the seed changes no
 * decision; a constant keeps the harness deterministic (as Postfix's own
 * NORANDOMIZE does). */
void ldseed(void *dst, size_t len)
{
    memset(dst, 0, len);
}
