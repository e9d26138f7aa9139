/*
 * html.c - the timeline viewer's data and page: `qsched --format html`
 * (one self-contained HTML page) and `qsched --format view-json` (the same
 * data alone, which the playground's WebAssembly build hands to the same
 * viewer).  Around the core, never inside it: it reads the stream line by
 * line through events.h, receives the core's trace records through the
 * ordinary sink, and reads the state after every event through the public
 * qs_describe().
 *
 * Owns: the viewer's data model (spec/trace.md "The timeline viewer"):
 *   - the input events (stream lines with a verb) with their line numbers
 *     and virtual times, and the trace records each one produced, as the
 *     canonical explain-level text (qs_trace_format), flagged default or
 *     explain level - so a click on an event shows exactly what
 *     `qsched --explain` prints for it;
 *   - per transport, the job list after every event that changed it (order,
 *     current job, stack level, blocker and preempting flags: the
 *     document's "job list and preemption stack" pictures over time), and
 *     each job's counters (available-slot counter, entries selected, the
 *     maximum entry estimate) when they change;
 *   - per destination, window, deliveries in flight, pending entries and
 *     the dead flag when they change (step plots);
 *   - every delivery from its `deliver` line to its `done` (bars), and the
 *     preemption, pop, blocker, unblock, dead and revive marks.
 * Only changes are stored (the state after event i is the last change at
 * or before i), so a 100,000-event stream stays a page Chromium opens in
 * well under 3 s (tests/browser, docs/guide.md "Seeing it").
 *
 * Deterministic: ids are given in order of first appearance, no address,
 * hash order, clock or randomness reaches the output; the same stream gives
 * the same bytes.  The page (src/viewer/page.html, viewer.css, viewer.js) is
 * embedded at build time (src/viewer/embed.sh) and needs no network: no
 * external URL, every script, style and picture is inline.
 *
 * Bad input: like the text trace, the page shows the valid prefix and the
 * error (FILE:LINE: reason) and the exit status is 2; a broken invariant
 * (--check-invariants) 3; a page that cannot be written 4 (qsched(1)).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "events.h"
#include "trace.h"
#include "html.h"

/* ---------------------------------------------------------------- */
/* growable buffers                                                   */
/* ---------------------------------------------------------------- */

typedef struct hbuf {
    char *p;
    size_t n, cap;
} hbuf;

static void hoom(void)
{
    fputs("qsched: out of memory\n", stderr);
    exit(2);
}

static void hb_grow(hbuf *b, size_t more)
{
    if (b->n + more + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        char *q;
        while (ncap < b->n + more + 1)
            ncap *= 2;
        q = realloc(b->p, ncap);
        if (!q)
            hoom();
        b->p = q;
        b->cap = ncap;
    }
}

static void hb_mem(hbuf *b, const char *s, size_t n)
{
    hb_grow(b, n);
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void hb_str(hbuf *b, const char *s) { hb_mem(b, s, strlen(s)); }

static void hb_chr(hbuf *b, char c) { hb_mem(b, &c, 1); }

static void hb_num(hbuf *b, long long v)
{
    char d[24];
    int n = snprintf(d, sizeof d, "%lld", v);
    hb_mem(b, d, (size_t)n);
}

/* A number of an int array: "," before every element but the first. */
static void hb_item(hbuf *b, long long v)
{
    if (b->n)
        hb_chr(b, ',');
    hb_num(b, v);
}

/* JSON string contents: ", \ and control bytes escaped, and <, >, & as
 * \u escapes so that the data can sit inside a <script> element whatever
 * the stream's comments contain. */
static void hb_json_chars(hbuf *b, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char e[8];
        if (c == '"' || c == '\\') {
            hb_chr(b, '\\');
            hb_chr(b, (char)c);
        } else if (c == '\n') {
            hb_str(b, "\\n");
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&' ||
                   c == 0x7f) {
            snprintf(e, sizeof e, "\\u%04x", c);
            hb_str(b, e);
        } else {
            hb_chr(b, (char)c);
        }
    }
}

static void hb_json_str(hbuf *b, const char *s)
{
    hb_chr(b, '"');
    hb_json_chars(b, s, strlen(s));
    hb_chr(b, '"');
}

/* ---------------------------------------------------------------- */
/* names: transports, destinations, messages, each with a small id    */
/* ---------------------------------------------------------------- */

typedef struct intern {
    char **name;      /* by id */
    size_t n, cap;
    int *slot;        /* open addressing: id + 1, 0 = empty */
    size_t nslot;
} intern;

static unsigned long hash_str(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static int intern_id(intern *t, const char *s)
{
    size_t i;
    if (2 * (t->n + 1) > t->nslot) {
        size_t ns = t->nslot ? 2 * t->nslot : 256, k;
        int *sl = calloc(ns, sizeof *sl);
        if (!sl)
            hoom();
        for (k = 0; k < t->n; k++) {
            i = hash_str(t->name[k]) & (ns - 1);
            while (sl[i])
                i = (i + 1) & (ns - 1);
            sl[i] = (int)k + 1;
        }
        free(t->slot);
        t->slot = sl;
        t->nslot = ns;
    }
    i = hash_str(s) & (t->nslot - 1);
    while (t->slot[i]) {
        if (strcmp(t->name[t->slot[i] - 1], s) == 0)
            return t->slot[i] - 1;
        i = (i + 1) & (t->nslot - 1);
    }
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 64;
        char **nn = realloc(t->name, nc * sizeof *nn);
        if (!nn)
            hoom();
        t->name = nn;
        t->cap = nc;
    }
    t->name[t->n] = strdup(s);
    if (!t->name[t->n])
        hoom();
    t->slot[i] = (int)t->n + 1;
    return (int)t->n++;
}

static void intern_free(intern *t)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        free(t->name[i]);
    free(t->name);
    free(t->slot);
}

/* ---------------------------------------------------------------- */
/* the model                                                          */
/* ---------------------------------------------------------------- */

/* Last known values, to store changes only. */
typedef struct dest_last {
    int transport;            /* transport index */
    int name;                 /* name id of the destination */
    long long v[4];           /* window, busy, todo, dead (-1: no queue) */
    int seen;                 /* present in the current snapshot */
} dest_last;

typedef struct job_last {
    long long v[3];           /* counter, selected, max entries */
} job_last;

typedef struct trans_last {
    int name;
    long long v[2];           /* in flight, pool */
    hbuf list;                /* the job list key of the last snapshot */
} trans_last;

typedef struct model {
    intern names;             /* exported: transports, dests, messages */
    intern destkeys;          /* "transport:dest" -> dest index */
    intern jobkeys;           /* "transport msg" -> job index */
    intern tnames;            /* transport -> transport index */
    dest_last *dests;
    size_t ndests, capdests;
    job_last *jobs;
    size_t njobs, capjobs;
    trans_last *trans;
    size_t ntrans, captrans;

    long nev;                 /* events so far */
    long cur_recs;            /* records of the current event */
    hbuf ev_text, ev_line, ev_time, ev_recs;
    hbuf rec_text, rec_level;
    long long *deliv;         /* per delivery: handle, dest, msg, nrcpt,
                                 start event, end event (-1: in flight at
                                 the end), outcome (0 ok, 1 fail, 2 defer) */
    size_t ndeliv, capdeliv;
    long long *deliv_pos;     /* handle -> delivery index, or -1 */
    size_t cappos;
    hbuf markers;             /* ev,kind,a,b */
    hbuf dest_state;          /* ev,dest,window,busy,todo,dead */
    hbuf trans_state;         /* ev,transport,in flight,pool */
    hbuf job_vals;            /* ev,transport,msg,counter,selected,max */
    hbuf job_lists;           /* [ev,transport,(msg,level,flags)*] */
    hbuf moments;             /* [record,transport,(msg,level,flags)*]:
                                 the job list at a preempt record, inside
                                 its event (the document's stack picture) */
    long nrec;                /* records so far */
    qs_stream *st;            /* the stream being read (its scheduler) */
    hbuf params, warnings;
    char *desc;
    size_t desccap;
} model;

enum { MK_PREEMPT = 1, MK_POP, MK_BLOCKER, MK_UNBLOCK, MK_DEAD, MK_REVIVE,
       MK_RETIRE };

static int name_id(model *m, const char *s) { return intern_id(&m->names, s); }

static int trans_index(model *m, const char *name)
{
    int i = intern_id(&m->tnames, name);
    if ((size_t)i == m->ntrans) {
        if (m->ntrans == m->captrans) {
            size_t nc = m->captrans ? 2 * m->captrans : 8;
            trans_last *t = realloc(m->trans, nc * sizeof *t);
            if (!t)
                hoom();
            m->trans = t;
            m->captrans = nc;
        }
        memset(&m->trans[i], 0, sizeof m->trans[i]);
        m->trans[i].name = name_id(m, name);
        m->trans[i].v[0] = m->trans[i].v[1] = -1;
        m->ntrans++;
    }
    return i;
}

static int dest_index(model *m, int t, const char *dest)
{
    hbuf key = {0};
    int i;
    hb_num(&key, t);
    hb_chr(&key, ':');
    hb_str(&key, dest);
    i = intern_id(&m->destkeys, key.p);
    free(key.p);
    if ((size_t)i == m->ndests) {
        if (m->ndests == m->capdests) {
            size_t nc = m->capdests ? 2 * m->capdests : 64;
            dest_last *d = realloc(m->dests, nc * sizeof *d);
            if (!d)
                hoom();
            m->dests = d;
            m->capdests = nc;
        }
        memset(&m->dests[i], 0, sizeof m->dests[i]);
        m->dests[i].transport = t;
        m->dests[i].name = name_id(m, dest);
        m->dests[i].v[0] = -2;
        m->ndests++;
    }
    return i;
}

static int job_index(model *m, int t, const char *msg)
{
    hbuf key = {0};
    int i;
    hb_num(&key, t);
    hb_chr(&key, ' ');
    hb_str(&key, msg);
    i = intern_id(&m->jobkeys, key.p);
    free(key.p);
    if ((size_t)i == m->njobs) {
        if (m->njobs == m->capjobs) {
            size_t nc = m->capjobs ? 2 * m->capjobs : 64;
            job_last *j = realloc(m->jobs, nc * sizeof *j);
            if (!j)
                hoom();
            m->jobs = j;
            m->capjobs = nc;
        }
        m->jobs[i].v[0] = m->jobs[i].v[1] = m->jobs[i].v[2] = -1;
        m->njobs++;
    }
    return i;
}

static void marker(model *m, int kind, int a, int b)
{
    hb_item(&m->markers, m->nev);
    hb_item(&m->markers, kind);
    hb_item(&m->markers, a);
    hb_item(&m->markers, b);
}

static const char *jobs_line(model *m, const char *p, int t, hbuf *key,
                             int vals);
static const char *describe(model *m, const qs_sched *s);

/* The job list of transport `name` now, in the middle of an event: at a
 * preempt record the core has relinked the jobs (the candidate in front of
 * the job it preempted, one stack level deeper), so this is the document's
 * picture "job 7 preempting job 4 preempting job 1" even when job 7 is
 * done within the same event.  qs_describe only reads. */
static void model_moment(model *m, const char *name, int t)
{
    const qs_sched *s = qs_stream_sched(m->st);
    const char *p;
    hbuf head = {0}, key = {0};
    if (!s)
        return;
    p = describe(m, s);
    hb_str(&head, "\ntransport ");
    hb_str(&head, name);
    hb_str(&head, ": ");
    p = strstr(p, head.p);
    free(head.p);
    if (!p || !(p = strchr(p + 1, '\n')))
        return;
    hb_item(&key, m->nrec - 1);
    hb_item(&key, t);
    if (jobs_line(m, p + 1, t, &key, 0)) {
        if (m->moments.n)
            hb_chr(&m->moments, ',');
        hb_chr(&m->moments, '[');
        hb_str(&m->moments, key.p);
        hb_chr(&m->moments, ']');
    }
    free(key.p);
}

/* The sink: every record at the explain level, plus the timeline's
 * structured bits. */
static void model_sink(void *ctx, const qs_trace *r)
{
    model *m = ctx;
    char line[1024];
    size_t n;
    int t;
    if (r->kind == QS_T_FBWARN) {
        hbuf w = {0};
        hb_str(&w, "transport ");
        hb_str(&w, r->transport);
        hb_str(&w, r->a ? ": negative" : ": positive");
        hb_str(&w, " feedback x/sqrt_concurrency is not supported by "
               "Postfix 3.x; using 1");
        if (m->warnings.n)
            hb_chr(&m->warnings, ',');
        hb_json_str(&m->warnings, w.p);
        free(w.p);
        return;
    }
    n = qs_trace_format(r, 1, line, sizeof line);
    if (!n)
        return;
    hb_mem(&m->rec_text, line, n);
    hb_chr(&m->rec_text, '\n');
    hb_chr(&m->rec_level, qs_trace_is_default(r) ? 'd' : 'e');
    m->cur_recs++;
    m->nrec++;
    t = r->transport ? trans_index(m, r->transport) : -1;
    switch (r->kind) {
    case QS_T_DELIVER: {
        size_t h = (size_t)r->handle;
        long long *d;
        if (h >= m->cappos) {
            size_t nc = m->cappos ? m->cappos : 1024, k;
            long long *p;
            while (nc <= h)
                nc *= 2;
            p = realloc(m->deliv_pos, nc * sizeof *p);
            if (!p)
                hoom();
            for (k = m->cappos; k < nc; k++)
                p[k] = -1;
            m->deliv_pos = p;
            m->cappos = nc;
        }
        if (m->ndeliv == m->capdeliv) {
            size_t nc = m->capdeliv ? 2 * m->capdeliv : 1024;
            long long *p = realloc(m->deliv, nc * 7 * sizeof *p);
            if (!p)
                hoom();
            m->deliv = p;
            m->capdeliv = nc;
        }
        m->deliv_pos[h] = (long long)m->ndeliv;
        d = m->deliv + 7 * m->ndeliv++;
        d[0] = r->handle;
        d[1] = dest_index(m, t, r->dest);
        d[2] = name_id(m, r->msg);
        d[3] = r->n;
        d[4] = m->nev;
        d[5] = -1;
        d[6] = -1;
        break;
    }
    case QS_T_PREEMPT:
        marker(m, MK_PREEMPT, t, name_id(m, r->msg2));
        model_moment(m, r->transport, t);
        break;
    case QS_T_POP:
        marker(m, MK_POP, t, name_id(m, r->msg));
        break;
    case QS_T_BLOCKER:
        marker(m, MK_BLOCKER, t, name_id(m, r->msg));
        break;
    case QS_T_RETIRE:
        marker(m, MK_RETIRE, t, name_id(m, r->msg));
        break;
    case QS_T_UNBLOCK:
        marker(m, MK_UNBLOCK, t, dest_index(m, t, r->dest));
        break;
    case QS_T_DEAD:
        marker(m, MK_DEAD, dest_index(m, t, r->dest), 0);
        break;
    case QS_T_REVIVE:
        marker(m, MK_REVIVE, dest_index(m, t, r->dest), (int)r->a);
        break;
    default:
        break;
    }
}

/* ---- reading qs_describe (src/check.c) back ---- */

/* "transport NAME: F in flight (process limit P), pool N" */
static const char *parse_transport(model *m, const char *p, int *t)
{
    char name[128];
    long long f = 0, pool = 0;
    int lim = 0;
    if (sscanf(p, "transport %127[^:]: %lld in flight (process limit %d), "
               "pool %lld", name, &f, &lim, &pool) != 4)
        return NULL;
    *t = trans_index(m, name);
    if (m->trans[*t].v[0] != f || m->trans[*t].v[1] != pool) {
        m->trans[*t].v[0] = f;
        m->trans[*t].v[1] = pool;
        hb_item(&m->trans_state, m->nev);
        hb_item(&m->trans_state, *t);
        hb_item(&m->trans_state, f);
        hb_item(&m->trans_state, pool);
    }
    return strchr(p, '\n');
}

/* 1 if w occurs in [p, end). */
static int has_word(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    for (; p + n <= end; p++)
        if (memcmp(p, w, n) == 0)
            return 1;
    return 0;
}

/* "  job list: *M7(level 2, counter 2, selected 1/1, blocker, preempting )
 *  M4(...) ..." - flags: 1 current, 2 blocker, 4 preempting */
/* The job list line of transport t into key as ",msg,level,flags" triples
 * (flags: 1 current, 2 blocker, 4 preempting); with vals set, each job's
 * changed counters are stored too.  Returns the end of the line. */
static const char *jobs_line(model *m, const char *p, int t, hbuf *key,
                             int vals)
{
    const char *end = strchr(p, '\n');
    if (!end)
        return NULL;
    p = strstr(p, "job list:");
    if (!p || p > end)
        return NULL;
    p += strlen("job list:");
    while (p < end) {
        char id[128];
        long long lev, cnt, sel, max;
        const char *open, *close;
        int flags = 0, j;
        while (*p == ' ')
            p++;
        if (p >= end)
            break;
        if (*p == '*') {
            flags |= 1;
            p++;
        }
        open = strchr(p, '(');
        close = open ? strchr(open, ')') : NULL;
        if (!open || !close || close > end || (size_t)(open - p) >= sizeof id)
            break;
        memcpy(id, p, (size_t)(open - p));
        id[open - p] = 0;
        if (sscanf(open, "(level %lld, counter %lld, selected %lld/%lld",
                   &lev, &cnt, &sel, &max) != 4)
            break;
        if (has_word(open, close, "blocker"))
            flags |= 2;
        if (has_word(open, close, "preempting"))
            flags |= 4;
        j = job_index(m, t, id);
        if (vals && (m->jobs[j].v[0] != cnt || m->jobs[j].v[1] != sel ||
                     m->jobs[j].v[2] != max)) {
            m->jobs[j].v[0] = cnt;
            m->jobs[j].v[1] = sel;
            m->jobs[j].v[2] = max;
            hb_item(&m->job_vals, m->nev);
            hb_item(&m->job_vals, t);
            hb_item(&m->job_vals, name_id(m, id));
            hb_item(&m->job_vals, cnt);
            hb_item(&m->job_vals, sel);
            hb_item(&m->job_vals, max);
        }
        hb_item(key, name_id(m, id));
        hb_item(key, lev);
        hb_item(key, flags);
        p = close + 1;
    }
    return end;
}

/* "  job list: *M7(level 2, counter 2, selected 1/1, blocker, preempting )
 *  M4(...) ..." after an event: stored when its shape changed. */
static const char *parse_jobs(model *m, const char *p, int t)
{
    hbuf key = {0};
    trans_last *tl = &m->trans[t];
    hb_item(&key, t);
    p = jobs_line(m, p, t, &key, 1);
    if (!p) {
        free(key.p);
        return NULL;
    }
    if (!tl->list.p || strcmp(tl->list.p, key.p) != 0) {
        if (m->job_lists.n)
            hb_chr(&m->job_lists, ',');
        hb_chr(&m->job_lists, '[');
        hb_num(&m->job_lists, m->nev);
        hb_chr(&m->job_lists, ',');
        hb_str(&m->job_lists, key.p);
        hb_chr(&m->job_lists, ']');
        free(tl->list.p);
        tl->list = key;
    } else {
        free(key.p);
    }
    return p;
}

static void dest_set(model *m, int d, long long w, long long busy,
                     long long todo, long long dead)
{
    dest_last *dl = &m->dests[d];
    dl->seen = 1;
    if (dl->v[0] == w && dl->v[1] == busy && dl->v[2] == todo &&
        dl->v[3] == dead)
        return;
    dl->v[0] = w;
    dl->v[1] = busy;
    dl->v[2] = todo;
    dl->v[3] = dead;
    hb_item(&m->dest_state, m->nev);
    hb_item(&m->dest_state, d);
    hb_item(&m->dest_state, w);
    hb_item(&m->dest_state, busy);
    hb_item(&m->dest_state, todo);
    hb_item(&m->dest_state, dead);
}

/* "  destinations: a(window 5, 1 in flight, 2 pending) b(dead, 1 in
 * flight)" */
static const char *parse_dests(model *m, const char *p, int t)
{
    const char *end = strchr(p, '\n');
    if (!end)
        return NULL;
    p = strstr(p, "destinations:");
    if (!p || p > end)
        return NULL;
    p += strlen("destinations:");
    while (p < end) {
        char name[256];
        const char *open, *close;
        long long w, busy, todo;
        int d;
        while (*p == ' ')
            p++;
        if (p >= end)
            break;
        open = strchr(p, '(');
        close = open ? strchr(open, ')') : NULL;
        if (!open || !close || close > end ||
            (size_t)(open - p) >= sizeof name)
            break;
        memcpy(name, p, (size_t)(open - p));
        name[open - p] = 0;
        d = dest_index(m, t, name);
        if (sscanf(open, "(window %lld, %lld in flight, %lld pending)", &w,
                   &busy, &todo) == 3)
            dest_set(m, d, w, busy, todo, 0);
        else if (sscanf(open, "(dead, %lld in flight)", &busy) == 1)
            dest_set(m, d, 0, busy, 0, 1);
        p = close + 1;
    }
    return end;
}

/* qs_describe into m->desc. */
static const char *describe(model *m, const qs_sched *s)
{
    size_t need = qs_describe(s, NULL, 0) + 1;
    if (need > m->desccap) {
        free(m->desc);
        m->desc = malloc(need);
        if (!m->desc)
            hoom();
        m->desccap = need;
    }
    qs_describe(s, m->desc, need);
    return m->desc;
}

/* The state after event m->nev: changes only. */
static void model_snapshot(model *m, const qs_sched *s)
{
    size_t i;
    const char *p;
    describe(m, s);
    for (i = 0; i < m->ndests; i++)
        m->dests[i].seen = 0;
    p = strchr(m->desc, '\n'); /* "time T, ..." */
    while (p && *++p) {
        int t;
        if (!(p = parse_transport(m, p, &t)) || !*++p)
            break;
        if (!(p = parse_jobs(m, p, t)) || !*++p)
            break;
        if (!(p = parse_dests(m, p, t)))
            break;
    }
    /* queues discarded when empty (S-CON-13) */
    for (i = 0; i < m->ndests; i++)
        if (!m->dests[i].seen && m->dests[i].v[0] != -1)
            dest_set(m, (int)i, -1, 0, 0, 0);
}

/* ---------------------------------------------------------------- */
/* reading the stream                                                 */
/* ---------------------------------------------------------------- */

/* 1 if the first word of the line (before any # comment) is w. */
static int first_word_is(const char *line, size_t len, const char *w)
{
    size_t i = 0, n = strlen(w);
    const char *hash = memchr(line, '#', len);
    if (hash)
        len = (size_t)(hash - line);
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    return len - i >= n && memcmp(line + i, w, n) == 0 &&
           (len - i == n || line[i + n] == ' ' || line[i + n] == '\t' ||
            line[i + n] == '\r');
}

/* What a line is (after a # comment is cut): 1 an event (any verb but
 * profile: an unknown verb is an event line that fails), 2 a parameter or
 * profile line, 0 blank. */
static int line_kind(const char *line, size_t len)
{
    size_t i = 0;
    const char *hash = memchr(line, '#', len);
    if (hash)
        len = (size_t)(hash - line);
    if (memchr(line, '=', len))
        return 2;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    if (i == len)
        return 0;
    return first_word_is(line, len, "profile") ? 2 : 1;
}

/* The first word of a line is `done`: "done D<n> ok|fail|defer" (the
 * parser has accepted it). */
static void model_done(model *m, const char *line, size_t len)
{
    char buf[128], out[16];
    long long h, *d;
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = 0;
    if (sscanf(buf, " done D%lld %15s", &h, out) != 2 || h < 0 ||
        (size_t)h >= m->cappos || m->deliv_pos[h] < 0)
        return;
    d = m->deliv + 7 * m->deliv_pos[h];
    d[5] = m->nev;
    d[6] = strcmp(out, "ok") == 0 ? 0 : strcmp(out, "fail") == 0 ? 1 : 2;
}

#define EV_TEXT_MAX 4000 /* longer event lines are cut for display */

static void model_event(model *m, const char *line, size_t len, long lineno,
                        const qs_sched *s)
{
    size_t show = len;
    while (show && (line[show - 1] == '\r' || line[show - 1] == ' '))
        show--;
    if (m->nev)
        hb_str(&m->ev_text, "\\n");
    if (show > EV_TEXT_MAX) {
        hb_json_chars(&m->ev_text, line, EV_TEXT_MAX);
        hb_str(&m->ev_text, " ...");
    } else {
        hb_json_chars(&m->ev_text, line, show);
    }
    hb_item(&m->ev_line, lineno);
    hb_item(&m->ev_time, s ? qs_now(s) : 0);
    hb_item(&m->ev_recs, m->cur_recs);
    m->cur_recs = 0;
    if (first_word_is(line, len, "done"))
        model_done(m, line, len);
    if (s)
        model_snapshot(m, s);
    m->nev++;
}

static void model_free(model *m)
{
    size_t i;
    hbuf *bufs[] = {&m->ev_text, &m->ev_line, &m->ev_time, &m->ev_recs,
                    &m->rec_text, &m->rec_level,
                    &m->markers, &m->dest_state, &m->trans_state,
                    &m->job_vals, &m->job_lists, &m->moments, &m->params,
                    &m->warnings};
    for (i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]->p);
    for (i = 0; i < m->ntrans; i++)
        free(m->trans[i].list.p);
    intern_free(&m->names);
    intern_free(&m->destkeys);
    intern_free(&m->jobkeys);
    intern_free(&m->tnames);
    free(m->dests);
    free(m->jobs);
    free(m->trans);
    free(m->deliv_pos);
    free(m->deliv);
    free(m->desc);
}

/* ---------------------------------------------------------------- */
/* output                                                             */
/* ---------------------------------------------------------------- */

static void put_array(FILE *out, const char *key, const hbuf *b)
{
    fprintf(out, ",\n\"%s\":[", key);
    if (b->n)
        fwrite(b->p, 1, b->n, out);
    fputc(']', out);
}

static void put_string(FILE *out, const char *key, const char *s, size_t n)
{
    hbuf b = {0};
    hb_json_chars(&b, s ? s : "", s ? n : 0);
    fprintf(out, ",\n\"%s\":\"", key);
    if (b.n)
        fwrite(b.p, 1, b.n, out);
    fputc('"', out);
    free(b.p);
}

static void write_model(FILE *out, model *m, const char *source,
                        const char *profile, const char *error,
                        const qs_sched *s)
{
    size_t i;
    hbuf b = {0};
    qs_stats st;
    fputs("{\"format\":\"qsched-view\",\"version\":1", out);
    put_string(out, "source", source, strlen(source));
    put_string(out, "profile", profile, strlen(profile));
    if (error)
        put_string(out, "error", error, strlen(error));
    else
        fputs(",\n\"error\":null", out);
    fputs(",\n\"names\":[", out);
    for (i = 0; i < m->names.n; i++) {
        if (i)
            fputc(',', out);
        b.n = 0;
        hb_json_str(&b, m->names.name[i]);
        fwrite(b.p, 1, b.n, out);
    }
    fputc(']', out);
    b.n = 0;
    for (i = 0; i < m->ntrans; i++)
        hb_item(&b, m->trans[i].name);
    put_array(out, "transports", &b);
    b.n = 0;
    for (i = 0; i < m->ndests; i++) {
        hb_item(&b, m->dests[i].transport);
        hb_item(&b, m->dests[i].name);
    }
    put_array(out, "dests", &b);
    fprintf(out, ",\n\"params\":[%s]", m->params.p ? m->params.p : "");
    fprintf(out, ",\n\"warnings\":[%s]", m->warnings.p ? m->warnings.p : "");
    fprintf(out, ",\n\"events\":%ld", m->nev);
    fputs(",\n\"evText\":\"", out);
    if (m->ev_text.n)
        fwrite(m->ev_text.p, 1, m->ev_text.n, out);
    fputc('"', out);
    put_array(out, "evLine", &m->ev_line);
    put_array(out, "evTime", &m->ev_time);
    put_array(out, "evRecs", &m->ev_recs);
    put_string(out, "recText", m->rec_text.p,
               m->rec_text.n ? m->rec_text.n - 1 : 0);
    put_string(out, "recLevel", m->rec_level.p, m->rec_level.n);
    /* deliveries: handle,dest,msg,nrcpt,start,end,outcome */
    b.n = 0;
    for (i = 0; i < 7 * m->ndeliv; i++)
        hb_item(&b, m->deliv[i]);
    put_array(out, "deliveries", &b);
    put_array(out, "markers", &m->markers);
    put_array(out, "destState", &m->dest_state);
    put_array(out, "transState", &m->trans_state);
    put_array(out, "jobVals", &m->job_vals);
    fprintf(out, ",\n\"jobLists\":[%s]", m->job_lists.p ? m->job_lists.p
                                                        : "");
    fprintf(out, ",\n\"moments\":[%s]", m->moments.p ? m->moments.p : "");
    if (s) {
        qs_get_stats(s, &st);
        fprintf(out, ",\n\"stats\":{\"deliveries\":%lld,\"idles\":%lld,"
                "\"preemptions\":%lld,\"preempt_refused\":%lld,"
                "\"blockers\":%lld,\"recipients_delivered\":%lld,"
                "\"recipients_deferred\":%lld,\"deaths\":%lld,"
                "\"revivals\":%lld,\"peak_in_core\":%lld,"
                "\"bound_in_core\":%lld,\"s_inv_8_bound\":%lld}",
                (long long)st.deliveries, (long long)st.idles,
                (long long)st.preemptions, (long long)st.preempt_refused,
                (long long)st.blockers, (long long)st.recipients_delivered,
                (long long)st.recipients_deferred, (long long)st.deaths,
                (long long)st.revivals, (long long)st.peak_in_core,
                (long long)st.bound_in_core, (long long)st.bound_holding);
    } else {
        fputs(",\n\"stats\":null", out);
    }
    fputs("\n}\n", out);
    free(b.p);
}

/* The page: src/viewer/page.html with its three slots filled. */
static void write_page(FILE *out, model *m, const char *source,
                       const char *profile, const char *error,
                       const qs_sched *s)
{
    const char *tpl = qs_viewer_page_html, *slot;
    while ((slot = strstr(tpl, "@@")) != NULL) {
        const char *close = strstr(slot + 2, "@@");
        if (!close)
            break;
        size_t len = (size_t)(close - slot - 2);
        const char *name = slot + 2;
        fwrite(tpl, 1, (size_t)(slot - tpl), out);
#define SLOT(s) (len == strlen(s) && memcmp(name, s, len) == 0)
        if (SLOT("CSS")) {
            fputs(qs_viewer_css, out);
        } else if (SLOT("JS")) {
            fputs(qs_viewer_js, out);
        } else if (SLOT("DATA")) {
            write_model(out, m, source, profile, error, s);
        } else if (SLOT("TITLE")) {
            const char *c;
            for (c = source; *c; c++) {
                if (*c == '<')
                    fputs("&lt;", out);
                else if (*c == '>')
                    fputs("&gt;", out);
                else if (*c == '&')
                    fputs("&amp;", out);
                else
                    fputc(*c, out);
            }
        } else {
            fwrite(slot, 1, (size_t)(close + 2 - slot), out);
        }
#undef SLOT
        tpl = close + 2;
    }
    fputs(tpl, out);
}

/* The second word of a `profile NAME` line, into out. */
static void profile_name(const char *line, size_t len, char *out,
                         size_t outlen)
{
    char buf[128], name[32];
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = 0;
    if (sscanf(buf, " profile %31s", name) == 1)
        snprintf(out, outlen, "%s", name);
}

/* One line of the stream into *b (without its newline): at most
 * QS_LINE_MAX + 1 bytes are kept, so a longer line is refused by the
 * parser as too long without being held whole (S-EV-1).  Returns 1, 0 at
 * the end of input, -1 on a read error (errno set). */
static int read_line(FILE *in, hbuf *b)
{
    int c, any = 0;
    b->n = 0;
    hb_grow(b, 1);
    while ((c = getc(in)) != EOF) {
        any = 1;
        if (c == '\n')
            return 1;
        if (b->n <= (size_t)QS_LINE_MAX) {
            hb_grow(b, 1);
            b->p[b->n++] = (char)c;
        }
    }
    if (ferror(in))
        return -1;
    return any;
}

int qs_html_run(FILE *in, const char *fname, const char *profile, int check,
                int page, FILE *out, FILE *errf)
{
    model m;
    qs_stream *st;
    char err[1024], prof[32], esc[600];
    hbuf lb = {0};
    int rc = 0, got;
    memset(&m, 0, sizeof m);
    snprintf(prof, sizeof prof, "%s", profile ? profile : "document");
    qs_escape(esc, sizeof esc, fname);
    st = qs_stream_new(fname, model_sink, &m);
    if (!st)
        hoom();
    m.st = st;
    if (profile && qs_stream_set_profile(st, profile, err, sizeof err)) {
        fprintf(errf, "qsched: %s\n", err);
        qs_stream_free(st);
        model_free(&m);
        return 2;
    }
    while ((got = read_line(in, &lb)) > 0) {
        const char *line = lb.p;
        size_t len = lb.n;
        int kind = line_kind(line, len);
        if ((rc = qs_stream_line(st, line, len, err, sizeof err)) != 0)
            break; /* a failed line changes nothing and has no record */
        if (kind == 2) {
            /* parameters and profile, shown in the page's header */
            if (first_word_is(line, len, "profile"))
                profile_name(line, len, prof, sizeof prof);
            if (m.params.n)
                hb_chr(&m.params, ',');
            hb_chr(&m.params, '[');
            hb_num(&m.params, qs_stream_lineno(st));
            hb_str(&m.params, ",\"");
            hb_json_chars(&m.params, line, len && line[len - 1] == '\r'
                                               ? len - 1 : len);
            hb_str(&m.params, "\"]");
        } else if (kind == 1) {
            model_event(&m, line, len, qs_stream_lineno(st),
                        qs_stream_sched(st));
        }
        if (check && qs_stream_sched(st) &&
            qs_check_invariants(qs_stream_sched(st), err, sizeof err) < 0) {
            char why[400];
            qs_escape(why, sizeof why, err);
            snprintf(err, sizeof err, "%s:%ld: invariant broken: %s", esc,
                     qs_stream_lineno(st), why);
            rc = 3;
            break;
        }
    }
    if (got < 0 && rc == 0) {
        snprintf(err, sizeof err, "%s:%ld: cannot read: %s", esc,
                 qs_stream_lineno(st) + 1, strerror(errno));
        rc = 2;
    }
    free(lb.p);
    if (rc == 0)
        rc = qs_stream_finish(st, err, sizeof err);
    if (page)
        write_page(out, &m, fname, prof, rc ? err : NULL,
                   qs_stream_sched(st));
    else
        write_model(out, &m, fname, prof, rc ? err : NULL,
                    qs_stream_sched(st));
    qs_stream_free(st);
    model_free(&m);
    /* the page first, then the diagnostic (2>&1 order); an incomplete
     * page is never exit 0 (qsched(1): 4, output error) */
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(errf, "qsched: cannot write to standard output: %s\n",
                strerror(errno ? errno : EIO));
        return 4;
    }
    if (rc)
        fprintf(errf, "%s\n", err);
    return rc;
}
