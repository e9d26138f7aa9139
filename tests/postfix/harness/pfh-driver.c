/*
 * pfh-driver.c - runs a qsched event stream through Postfix's queue
 * manager and prints Postfix's decisions as a qsched trace.
 *
 * Owns: reading the event language (spec/events.md), the part of the
 * queue manager's main loop and of the master daemon that the harness
 * plays, and the default-level trace (spec/trace.md: deliver, idle,
 * window, dead, revive, defer).
 *
 * The command line is pfh-main.c; the differential fuzz harness
 * (fuzz/fuzz_postfix.c) drives the same functions.
 *
 * How the events reach Postfix (the mapping is the harness's reading of
 * qsched's model; tests/postfix/README.md discusses each point):
 *  - settings: `NAME = VALUE` lines become main.cf lines (pfh-config.c);
 *    the queue manager starts at the first event.  `profile` lines are
 *    ignored: this program is Postfix.
 *  - `arrive`: the cleanup daemon drops a queue file into the incoming
 *    queue and sends the queue manager a wakeup; the queue manager then
 *    moves incoming files into the active queue while it has room
 *    (qmgr_active_feed, as qmgr_loop does).
 *  - `select TRANSPORT`: a delivery agent process of that transport
 *    connects and says it is ready: qmgr_transport_alloc, then the agent's
 *    announcement, then qmgr_deliver, which runs Postfix's entry selection
 *    whatever state the transport is in.  No agent can connect when as many
 *    deliveries as the transport's process limit are in flight (master's
 *    maxproc), or when the transport does not exist.
 *  - `select`: Postfix's transport round robin picks the transport
 *    (qmgr_transport_select); a transport at its process limit has its
 *    agent pipeline full and is skipped, as in Postfix.  Its agent then
 *    connects at once, as above.  If Postfix's entry selection gives
 *    nothing, the next transport the round robin offers is tried, as
 *    qmgr_active_drain would have allocated agents for every eligible
 *    transport; a transport is tried at most once per `select`.
 *  - `done Dn ok|fail|defer`: the agent of delivery n reports (pfh-agent.c)
 *    and qmgr_deliver_update runs.
 *  - `at T`: the clock moves to T and Postfix's timers that fall due run
 *    in order (dead destinations come back, S-CON-10).
 * After every event the incoming queue is fed as above.
 *
 * Exit status: 0 the stream was run; 2 malformed stream; 3 the stream is
 * valid for qsched but has no Postfix counterpart (message on stderr);
 * 4 the stream finishes a delivery Postfix never started (the traces
 * differed before); 5 Postfix called msg_fatal or msg_panic.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <ctype.h>
#include <errno.h>
#include "pfh.h"
#include <mail_params.h>
#include <mail_queue.h>
#include <argv.h>

/* Recipients the harness keeps in queue files at once (memory bound). */
#define PFH_MAX_QUEUED_RCPT 4000000L

static const char *stream_name = "-";
static long lineno;
static QMGR_SCAN *incoming;
static int started;
static long queued_rcpt;

/* ---- errors ---- */

void pfh_internal_error(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "pfqmgr: %s:%ld: harness error: ", stream_name, lineno);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (pfh_abort_on_fatal)
        abort();
    exit(PFH_EXIT_POSTFIX);
}

static NORETURN stop(int status, const char *what, const char *fmt, ...)
    PRINTFLIKE(3, 4);

static NORETURN stop(int status, const char *what, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "pfqmgr: %s:%ld: %s: ", stream_name, lineno, what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (pfh_abort_on_fatal && status != PFH_EXIT_INEXPRESSIBLE)
        abort();
    exit(pfh_abort_on_fatal ? 0 : status);
}

/* ---- the trace ---- */

/* A run of recipients deferred while a batch was read (spec/trace.md,
 * `defer`): same message, same destination, consecutive. */
static struct {
    int active;
    char msg[128], transport[128], dest[512];
    long count;
} run;

static void run_flush(void)
{
    if (run.active) {
        run.active = 0;         /* before printing: pfh_trace flushes runs */
        pfh_trace("defer %s %s:%s %ld", run.msg, run.transport, run.dest,
                  run.count);
    }
}

static void (*trace_sink)(void *ctx, const char *line);
static void *trace_ctx;

void pfh_set_trace_sink(void (*sink)(void *ctx, const char *line), void *ctx)
{
    trace_sink = sink;
    trace_ctx = ctx;
}

void pfh_trace(const char *fmt, ...)
{
    va_list ap;
    char text[2048];
    run_flush();                /* a pending run comes before anything else */
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (trace_sink) {
        trace_sink(trace_ctx, text);
        return;
    }
    printf("%s\n", text);
    if (pfh_debug)
        fflush(stdout);
}

static void batch_start(void)
{
    run_flush();
}

/* The destination whose feedback is being applied (a finishing delivery)
 * or whose timer runs, and its window as last seen. */
static struct {
    QMGR_QUEUE *queue;
    int window;
} obs;

static void obs_set(QMGR_QUEUE *queue)
{
    obs.queue = queue;
    obs.window = queue ? queue->window : 0;
}

void pfh_observe_window(const char *who, const char *queue_name, int window)
{
    const char *t;
    if (!obs.queue || strcmp(obs.queue->name, queue_name) != 0)
        pfh_internal_error("%s: window of %s logged outside its feedback",
                           who, queue_name);
    t = obs.queue->transport->name;
    if (obs.window > 0 && window <= 0)
        pfh_trace("dead %s:%s", t, queue_name);
    else if (obs.window <= 0 && window > 0)
        pfh_trace("revive %s:%s %d", t, queue_name, window);
    else if (obs.window != window)
        pfh_trace("window %s:%s %d %d", t, queue_name, obs.window, window);
    obs.window = window;
}

static QMGR_QUEUE *queue_with_dsn(const DSN *dsn)
{
    QMGR_TRANSPORT *t;
    QMGR_QUEUE *q;
    for (t = qmgr_transport_list.next; t; t = t->peers.next)
        for (q = t->queue_list.next; q; q = q->peers.next)
            if (q->dsn == dsn)
                return q;
    return 0;
}

void pfh_observe_defer(const char *queue_id, RECIPIENT *rcpt, DSN *dsn)
{
    QMGR_QUEUE *q;
    QMGR_ENTRY *e;

    /* A recipient just read, for a destination that is dead: the queue
     * manager passes that destination's own reason (qmgr_message_resolve). */
    if ((q = queue_with_dsn(dsn)) != 0) {
        const char *t = q->transport->name;
        if (run.active && strcmp(run.msg, queue_id) == 0 &&
            strcmp(run.transport, t) == 0 && strcmp(run.dest, q->name) == 0) {
            run.count++;
            return;
        }
        run_flush();
        if (strlen(queue_id) >= sizeof run.msg ||
            strlen(t) >= sizeof run.transport ||
            strlen(q->name) >= sizeof run.dest)
            pfh_internal_error("name too long in a defer run");
        strcpy(run.msg, queue_id);
        strcpy(run.transport, t);
        strcpy(run.dest, q->name);
        run.count = 1;
        run.active = 1;
        return;
    }
    /* A pending entry of a destination that has just died
     * (qmgr_defer_todo, one recipient after the other, entry by entry). */
    if (obs.queue)
        for (e = obs.queue->todo.next; e; e = e->queue_peers.next)
            if (rcpt >= e->rcpt_list.info &&
                rcpt < e->rcpt_list.info + e->rcpt_list.len) {
                if (rcpt == e->rcpt_list.info)
                    pfh_trace("defer %s %s:%s %d", queue_id,
                              obs.queue->transport->name, obs.queue->name,
                              e->rcpt_list.len);
                return;
            }
    pfh_internal_error("%s: deferral of %s not explained", queue_id,
                       rcpt->address);
}

/* A timer about to run: if it is a destination's backoff, watch it. */
static void timer_start(void *context)
{
    QMGR_TRANSPORT *t;
    QMGR_QUEUE *q;
    run_flush();
    for (t = qmgr_transport_list.next; t; t = t->peers.next)
        for (q = t->queue_list.next; q; q = q->peers.next)
            if ((void *)q == context) {
                obs_set(q);
                return;
            }
    obs_set(0);
}

/* ---- deliveries in flight ---- */

typedef struct PFH_DELIVERY {
    PFH_CONN *conn;             /* 0 once done */
    char *transport;
} PFH_DELIVERY;

static PFH_DELIVERY *deliveries;        /* [1 .. ndeliveries] */
static long ndeliveries, cap_deliveries;

static long in_flight_on(const char *transport)
{
    long i, n = 0;
    for (i = 1; i <= ndeliveries; i++)
        if (deliveries[i].conn && strcmp(deliveries[i].transport, transport) == 0)
            n++;
    return n;
}

/* master.cf's maxproc: qsched spells it TRANSPORT_process_limit and
 * default_process_limit (spec/events.md, S-EV-2). */
static long process_limit(const char *transport)
{
    VSTRING *name = vstring_alloc(100);
    const char *v;
    long limit = 100;
    vstring_sprintf(name, "%s_process_limit", transport);
    if ((v = pfh_config_get(vstring_str(name))) != 0 ||
        (v = pfh_config_get("default_process_limit")) != 0)
        limit = atol(v);
    vstring_free(name);
    return limit;
}

/* An agent of transport t connects and asks for work.  1: a delivery. */
static int agent_asks(QMGR_TRANSPORT *t)
{
    PFH_CONN *conn;
    void *ctx;
    int fd;
    QMGR_ENTRY *entry;

    pfh_conn_last = 0;
    qmgr_transport_alloc(t, qmgr_deliver);
    if ((conn = pfh_conn_last) == 0)
        pfh_internal_error("qmgr_transport_alloc did not connect");
    fd = pfh_conn_fd(conn);
    pfh_agent_send_ready(conn);
    pfh_fire_read(fd);          /* qmgr_transport_event, qmgr_deliver */
    if (pfh_read_handler(fd, &ctx) == 0) {
        pfh_conn_free(conn);    /* nothing to deliver: qmgr hung up */
        return 0;
    }
    entry = (QMGR_ENTRY *)ctx;
    if (ndeliveries + 1 >= cap_deliveries) {
        size_t size;
        cap_deliveries = cap_deliveries ? 2 * cap_deliveries : 256;
        size = sizeof *deliveries * (size_t)cap_deliveries;
        deliveries = (PFH_DELIVERY *)(deliveries ? myrealloc(deliveries, size)
                                                 : mymalloc(size));
    }
    ndeliveries++;
    deliveries[ndeliveries].conn = conn;
    deliveries[ndeliveries].transport = mystrdup(t->name);
    pfh_trace("deliver D%ld %s %s:%s %d", ndeliveries,
              entry->message->queue_id, t->name, entry->queue->name,
              entry->rcpt_list.len);
    return 1;
}

static void ev_select(const char *name)
{
    QMGR_TRANSPORT *t, **tried = 0;
    size_t ntried = 0, i;
    int *saved = 0;
    size_t nt = 0;

    if (name) {
        t = qmgr_transport_find(name);
        if (!t || in_flight_on(name) >= process_limit(name) || !agent_asks(t))
            pfh_trace("idle");
        return;
    }
    for (t = qmgr_transport_list.next; t; t = t->peers.next)
        nt++;
    tried = (QMGR_TRANSPORT **)mymalloc(sizeof *tried * (nt + 1));
    saved = (int *)mymalloc(sizeof *saved * (nt + 1));
    for (;;) {
        /* transports whose processes are all busy: pipeline full */
        for (i = 0, t = qmgr_transport_list.next; t; t = t->peers.next, i++) {
            saved[i] = t->pending;
            if (in_flight_on(t->name) >= process_limit(t->name))
                t->pending = 1000000;
        }
        t = qmgr_transport_select();
        {
            QMGR_TRANSPORT *u;
            /* the list may have been rotated: restore by search */
            for (u = qmgr_transport_list.next; u; u = u->peers.next)
                if (u->pending == 1000000)
                    u->pending = 0;
        }
        if (!t)
            break;
        for (i = 0; i < ntried; i++)
            if (tried[i] == t)
                break;
        if (i < ntried)
            break;
        tried[ntried++] = t;
        if (agent_asks(t)) {
            myfree((void *)tried);
            myfree((void *)saved);
            return;
        }
    }
    myfree((void *)tried);
    myfree((void *)saved);
    pfh_trace("idle");
}

static void ev_done(long handle, enum pfh_outcome outcome)
{
    PFH_DELIVERY *d;
    void *ctx;
    QMGR_ENTRY *entry;
    int fd;
    VSTRING *site;

    if (handle < 1 || handle > ndeliveries || !deliveries[handle].conn)
        stop(PFH_EXIT_STREAM_AHEAD, "stream ahead of Postfix",
             "D%ld is not in flight in Postfix", handle);
    d = &deliveries[handle];
    fd = pfh_conn_fd(d->conn);
    if (!pfh_read_handler(fd, &ctx))
        pfh_internal_error("D%ld has no status handler", handle);
    entry = (QMGR_ENTRY *)ctx;
    site = vstring_alloc(100);
    vstring_sprintf(site, "%s:%s", entry->queue->transport->name,
                    entry->queue->name);
    run_flush();
    obs_set(entry->queue);
    pfh_agent_send_status(d->conn, outcome, vstring_str(site));
    pfh_fire_read(fd);          /* qmgr_deliver_update */
    obs_set(0);
    if (pfh_read_handler(fd, 0))
        pfh_internal_error("D%ld: the queue manager kept the agent", handle);
    pfh_conn_free(d->conn);
    d->conn = 0;
    myfree(d->transport);
    d->transport = 0;
    vstring_free(site);
}

/* ---- arrive ---- */

static int has_upper(const char *s)
{
    for (; *s; s++)
        if (isupper((unsigned char)*s))
            return 1;
    return 0;
}

/* One word TRANSPORT:[LOCAL@]NEXTHOP[*COUNT] (spec/events.md, S-EV-4). */
static void parse_group(char *word, char **transport, char **local,
                        char **nexthop, long *count)
{
    char *colon = strchr(word, ':'), *star, *at;
    if (!colon || colon == word)
        stop(PFH_EXIT_INPUT, "bad stream", "bad recipient group %s", word);
    *colon = 0;
    *transport = word;
    *local = 0;
    *count = 1;
    *nexthop = colon + 1;
    if ((star = strchr(*nexthop, '*')) != 0) {
        char *end;
        *star = 0;
        errno = 0;
        *count = strtol(star + 1, &end, 10);
        if (*end || errno || *count < 1)
            stop(PFH_EXIT_INPUT, "bad stream", "bad count in %s", word);
    }
    if ((at = strchr(*nexthop, '@')) != 0) {
        *at = 0;
        *local = *nexthop;
        *nexthop = at + 1;
    }
    if (!**nexthop || (*local && !**local))
        stop(PFH_EXIT_INPUT, "bad stream", "bad recipient group");
}

static void ev_arrive(char **words, int nwords)
{
    PFH_RCPT *rcpt;
    long total = 0, n = 0, j;
    int i;
    HTABLE *seen;
    VSTRING *addr = vstring_alloc(100);

    /* count first: the message must fit in memory */
    for (i = 2; i < nwords; i++) {
        const char *star = strchr(words[i], '*');
        long c = star ? atol(star + 1) : 1;
        total += c;
        if (total > PFH_MAX_QUEUED_RCPT)
            break;
    }
    if (total + queued_rcpt > PFH_MAX_QUEUED_RCPT)
        stop(PFH_EXIT_INEXPRESSIBLE, "inexpressible",
             "more than %ld recipients in queue files at once",
             PFH_MAX_QUEUED_RCPT);
    rcpt = (PFH_RCPT *)mymalloc(sizeof *rcpt * (size_t)(total ? total : 1));
    seen = htable_create(100);
    for (i = 2; i < nwords; i++) {
        char *transport, *local, *nexthop;
        long count;
        parse_group(words[i], &transport, &local, &nexthop, &count);
        /* Postfix folds destination names to lower case; qsched does not
         * (spec/profiles.md, "Not modelled") */
        if (has_upper(nexthop) || (local && has_upper(local)))
            stop(PFH_EXIT_INEXPRESSIBLE, "inexpressible",
                 "upper case in %s:%s%s%s (Postfix folds queue names)",
                 transport, local ? local : "", local ? "@" : "", nexthop);
        for (j = 1; j <= count; j++) {
            const char *other;
            n++;
            if (local && count == 1)
                vstring_sprintf(addr, "%s@%s", local, nexthop);
            else if (local)
                vstring_sprintf(addr, "%s.%ld@%s", local, j, nexthop);
            else
                vstring_sprintf(addr, "r%ld@%s", n, nexthop);
            if ((other = (const char *)htable_find(seen, vstring_str(addr))) &&
                strcmp(other, transport) != 0)
                stop(PFH_EXIT_INEXPRESSIBLE, "inexpressible",
                     "address %s goes to transports %s and %s in one message",
                     vstring_str(addr), other, transport);
            if (!other)
                htable_enter(seen, vstring_str(addr), transport);
            rcpt[n - 1].address = mystrdup(vstring_str(addr));
            rcpt[n - 1].transport = mystrdup(transport);
            rcpt[n - 1].nexthop = mystrdup(nexthop);
        }
    }
    if (pfh_queue_file_create(words[1], rcpt, (size_t)n) < 0)
        stop(PFH_EXIT_INPUT, "bad stream", "message %s is still queued",
             words[1]);
    queued_rcpt += n;
    for (j = 0; j < n; j++)
        myfree(rcpt[j].address);
    /* transport and next-hop strings stay: the queue file points to them */
    myfree((void *)rcpt);
    htable_free(seen, (void (*)(void *))0);
    vstring_free(addr);
    /* the cleanup daemon's wakeup */
    qmgr_scan_request(incoming, QMGR_SCAN_START);
}

/* qmgr_loop: let new mail into the active queue while there is room. */
static void feed(void)
{
    char *path;
    while (qmgr_message_count < var_qmgr_active_limit &&
           (path = qmgr_scan_next(incoming)) != 0)
        qmgr_active_feed(incoming, path);
    run_flush();
}

/* ---- --state: the accounting, in tests/postfix/qstate.c's format ---- */

static int state_mode;

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void state_print(ARGV *lines)
{
    ssize_t i;
    qsort(lines->argv, (size_t)lines->argc, sizeof *lines->argv, by_text);
    for (i = 0; i < lines->argc; i++)
        printf("%s\n", lines->argv[i]);
    argv_truncate(lines, 0);
}

static void state_dump(void)
{
    ARGV *ms = argv_alloc(10), *xs = argv_alloc(10), *js = argv_alloc(10),
         *qs = argv_alloc(10);
    VSTRING *buf = vstring_alloc(100);
    HTABLE *seen = htable_create(10);
    QMGR_TRANSPORT *t;

    printf("# @%ld\n# R", lineno);
    for (t = qmgr_transport_list.next; t; t = t->peers.next)
        printf(" %s", t->name);
    printf("\n");
    for (t = qmgr_transport_list.next; t; t = t->peers.next) {
        HTABLE_INFO **list = htable_list(t->job_byname), **hp;
        QMGR_QUEUE *q;
        int qn;
        vstring_sprintf(buf, "# X %s pool %d cur %s unread %s", t->name,
                        t->rcpt_unused,
                        t->job_current ? t->job_current->message->queue_id
                                       : "-",
                        t->job_next_unread ?
                            t->job_next_unread->message->queue_id : "-");
        argv_add(xs, vstring_str(buf), ARGV_END);
        for (hp = list; *hp; hp++) {
            QMGR_JOB *j = (QMGR_JOB *)(*hp)->value, *k;
            QMGR_MESSAGE *m = j->message;
            long pos = -1, i = 0;
            if (j->stack_level >= 0)
                for (k = t->job_list.next; k; k = k->transport_peers.next, i++)
                    if (k == j)
                        pos = i;
            vstring_sprintf(buf, "# J %s %s lvl %d avail %d used %d sel %d "
                            "read %d rlim %d rcnt %d blk %d pos %ld", t->name,
                            m->queue_id, j->stack_level, j->slots_available,
                            j->slots_used, j->selected_entries,
                            j->read_entries, j->rcpt_limit, j->rcpt_count,
                            j->blocker_tag == t->blocker_tag, pos);
            argv_add(js, vstring_str(buf), ARGV_END);
            if (!htable_find(seen, m->queue_id)) {
                htable_enter(seen, m->queue_id, (void *)m);
                vstring_sprintf(buf, "# M %s limit %d count %d unread %d",
                                m->queue_id, m->rcpt_limit, m->rcpt_count,
                                m->rcpt_unread);
                argv_add(ms, vstring_str(buf), ARGV_END);
            }
        }
        myfree((void *)list);
        for (qn = 1, q = t->queue_list.next; q; q = q->peers.next, qn++) {
            QMGR_ENTRY *e;
            if (QMGR_QUEUE_THROTTLED(q))
                vstring_sprintf(buf, "# Q %s %04d %s w dead busy %d todo %d:",
                                t->name, qn, q->name, q->busy_refcount,
                                q->todo_refcount);
            else
                vstring_sprintf(buf, "# Q %s %04d %s w %d busy %d todo %d:",
                                t->name, qn, q->name, q->window,
                                q->busy_refcount, q->todo_refcount);
            for (e = q->todo.next; e && VSTRING_LEN(buf) < 8000 - 80;
                 e = e->queue_peers.next)
                vstring_sprintf_append(buf, " %s/%d", e->message->queue_id,
                                       e->rcpt_list.len);
            argv_add(qs, vstring_str(buf), ARGV_END);
        }
    }
    state_print(ms);
    state_print(xs);
    state_print(js);
    state_print(qs);
    argv_free(ms);
    argv_free(xs);
    argv_free(js);
    argv_free(qs);
    vstring_free(buf);
    htable_free(seen, (void (*)(void *))0);
}

/* ---- the stream ---- */

static void start(void)
{
    pfh_on_timer = timer_start;
    pfh_on_batch_start = batch_start;
    pfh_qmgr_start();
    incoming = qmgr_scan_create(MAIL_QUEUE_INCOMING);
    started = 1;
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        *--e = 0;
    return s;
}

static void line(char *text)
{
    char *hash = strchr(text, '#'), *eq, *words[4096], *save = 0, *w;
    int nwords = 0;
    size_t len = strlen(text);

    if (len && text[len - 1] == '\r')
        text[--len] = 0;
    if (hash)
        *hash = 0;
    if ((eq = strchr(text, '=')) != 0) {
        char *name, *value;
        *eq = 0;
        name = trim(text);
        value = trim(eq + 1);
        if (started)
            stop(PFH_EXIT_INPUT, "bad stream", "parameter after the first "
                 "event");
        if (!*name || !*value)
            stop(PFH_EXIT_INPUT, "bad stream", "bad parameter line");
        pfh_config_set(name, value);
        return;
    }
    for (w = strtok_r(text, " \t", &save); w; w = strtok_r(0, " \t", &save)) {
        if (nwords == (int)(sizeof words / sizeof words[0]))
            stop(PFH_EXIT_INEXPRESSIBLE, "inexpressible", "too many words");
        words[nwords++] = w;
    }
    if (nwords == 0)
        return;
    if (strcmp(words[0], "profile") == 0)
        return;
    if (!started)
        start();
    if (pfh_debug)
        fprintf(stderr, "pfqmgr: event %ld: %s%s%s\n", lineno, words[0],
                nwords > 1 ? " " : "", nwords > 1 ? words[1] : "");
    if (strcmp(words[0], "at") == 0 && nwords == 2) {
        char *end;
        long t = strtol(words[1], &end, 10);
        if (*end || t < 0 || PFH_EPOCH + t < pfh_now)
            stop(PFH_EXIT_INPUT, "bad stream", "bad time %s", words[1]);
        pfh_timers_run_until(PFH_EPOCH + (time_t)t);
        run_flush();
    } else if (strcmp(words[0], "arrive") == 0 && nwords >= 3) {
        ev_arrive(words, nwords);
    } else if (strcmp(words[0], "select") == 0 && nwords <= 2) {
        ev_select(nwords == 2 ? words[1] : 0);
    } else if (strcmp(words[0], "done") == 0 && nwords == 3 &&
               words[1][0] == 'D') {
        enum pfh_outcome o;
        if (strcmp(words[2], "ok") == 0)
            o = PFH_OK;
        else if (strcmp(words[2], "fail") == 0)
            o = PFH_FAIL;
        else if (strcmp(words[2], "defer") == 0)
            o = PFH_DEFER;
        else
            stop(PFH_EXIT_INPUT, "bad stream", "bad outcome %s", words[2]);
        ev_done(atol(words[1] + 1), o);
    } else {
        stop(PFH_EXIT_INPUT, "bad stream", "unknown event %s", words[0]);
    }
    feed();
    if (state_mode)
        state_dump();
}

/* ---- the interface of pfh.h: one line at a time ---- */

void pfh_set_stream_name(const char *name)
{
    stream_name = name;
}

void pfh_set_state_mode(int on)
{
    state_mode = on;
}

void pfh_line(char *text)
{
    lineno++;
    line(text);
}

void pfh_end(void)
{
    run_flush();
}
