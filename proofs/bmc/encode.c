/*
 * encode.c - the bounded model checker's view of qs_encode_state.
 *
 * Owns: a strict parser of the text qs_encode_state (src/state_text.c)
 * writes, and the canonical state key built from it.  Why parse instead of
 * hashing the text as it is: the text names objects by message id, handle and
 * absolute time, so two runs that differ only by which ids were used, how
 * many deliveries happened before, or when everything started would count
 * as different states.  The key renames messages by their rank on the
 * active list, writes handles relative to the next handle and times
 * relative to now, and zeroes two stale fields that no future event reads
 * (the refill time of a fully read message, the revival time of a live
 * destination).  Each rewrite is a behaviour-preserving symmetry of the
 * core (it never compares ids, handles or absolute times, only
 * differences), so equal keys still mean equal futures, up to renaming.
 *
 * The parser accepts exactly the grammar below and fails on anything else,
 * so a change of the encoding format makes the checker fail loudly instead
 * of silently merging states:
 *   T<n> H<n> C<n> R<name>|
 *   (M<id> q<n> g<n>.<n> u<n> c<n> l<n> f<n> d<n> x<n>;)*  (W<id>;)*
 *   (|X<name> p<n> cur<id|-> un<id|->|
 *      (Q<name> w<n> s<hex> f<hex> c<hex> d<n> r<n> b<n>:
 *         (t<id>/<n>,)* (D<n>/<id>/<n>,)* ;)*
 *      (J<id> L<n> P<id|-> B<n> a<n> u<n> s<n> r<n> c<n> l<n>: (<name>,)* ;)*
 *      by-time:(<id>,)*)*
 *   (|r<id>/<name> a<n> u<n> s<n> r<n> c<n> l<n>)*
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bmc.h"

typedef struct cur {
    const char *p;
    char *err;
    size_t errlen;
    int bad;
} cur;

static int perr(cur *c, const char *what)
{
    if (!c->bad && c->err && c->errlen)
        snprintf(c->err, c->errlen, "qs_encode_state format not understood "
                 "(%s) at \"%.40s\"", what, c->p);
    c->bad = 1;
    return -1;
}

static int lit(cur *c, const char *s)
{
    size_t n = strlen(s);
    if (c->bad)
        return -1;
    if (strncmp(c->p, s, n) != 0)
        return perr(c, s);
    c->p += n;
    return 0;
}

static int peek(const cur *c, const char *s)
{
    return !c->bad && strncmp(c->p, s, strlen(s)) == 0;
}

static long long num(cur *c)
{
    /* decimal, optional minus; strtoll's locale handling costs a fifth
     * of the checker's time, and the encoding is plain ASCII */
    const char *p = c->p;
    int neg = 0;
    unsigned long long v = 0;
    if (c->bad)
        return 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (*p < '0' || *p > '9') {
        perr(c, "number");
        return 0;
    }
    while (*p >= '0' && *p <= '9') {
        if (v > 922337203685477579ULL) {
            perr(c, "number out of range");
            return 0;
        }
        v = v * 10 + (unsigned)(*p - '0');
        p++;
    }
    c->p = p;
    return neg ? -(long long)v : (long long)v;
}

/* A name up to (not including) the first character of stop. */
static void word(cur *c, const char *stop, char *out, size_t cap)
{
    size_t n = strcspn(c->p, stop);
    if (c->bad)
        return;
    if (n == 0 || n >= cap || c->p[n] == 0) {
        perr(c, "name");
        return;
    }
    memcpy(out, c->p, n);
    out[n] = 0;
    c->p += n;
}

static int msg_index(const enc_state *st, const char *id)
{
    int i;
    for (i = 0; i < st->nmsg; i++)
        if (strcmp(st->msg[i].id, id) == 0)
            return i;
    for (i = 0; i < st->nwait; i++)
        if (strcmp(st->wait[i], id) == 0)
            return st->nmsg + i;
    return -1;
}

static int msg_ref(cur *c, const enc_state *st, const char *stop)
{
    char id[16];
    int i;
    word(c, stop, id, sizeof id);
    if (c->bad)
        return -1;
    if (strcmp(id, "-") == 0)
        return -1;
    i = msg_index(st, id);
    if (i < 0)
        perr(c, "unknown message id");
    return i;
}

int enc_dest_index(const char *name)
{
    if (strcmp(name, "u@a") == 0)
        return 0;
    if (strcmp(name, "u@b") == 0)
        return 1;
    return -1;
}

static void job_fields(cur *c, enc_job *j)
{
    lit(c, " a");
    j->a = num(c);
    lit(c, " u");
    j->u = num(c);
    lit(c, " s");
    j->s = num(c);
    lit(c, " r");
    j->r = num(c);
    lit(c, " c");
    j->c = num(c);
    lit(c, " l");
    j->l = num(c);
}

static void parse_queue(cur *c, enc_state *st)
{
    enc_queue *q;
    char hex[40];
    if (st->nq >= BMC_NDEST) {
        perr(c, "too many queues");
        return;
    }
    q = &st->q[st->nq++];
    q->ntodo = q->nbusy = 0;
    lit(c, "Q");
    word(c, " ", q->name, sizeof q->name);
    if (!c->bad && enc_dest_index(q->name) < 0)
        perr(c, "unknown destination");
    lit(c, " w");
    q->w = (int)num(c);
    lit(c, " s");
    word(c, " ", q->s_raw, sizeof q->s_raw);
    lit(c, " f");
    word(c, " ", q->f_raw, sizeof q->f_raw);
    lit(c, " c");
    word(c, " ", hex, sizeof hex);
    snprintf(q->c_raw, sizeof q->c_raw, "%s", hex);
    q->fc = strtod(hex, NULL);
    lit(c, " d");
    q->dead = (int)num(c);
    lit(c, " r");
    q->r = num(c);
    lit(c, " b");
    q->b = (int)num(c);
    lit(c, ":");
    while (peek(c, "t")) {
        enc_entry *e;
        if (q->ntodo >= (int)(sizeof q->todo / sizeof q->todo[0])) {
            perr(c, "too many todo entries");
            return;
        }
        e = &q->todo[q->ntodo++];
        lit(c, "t");
        e->msg = msg_ref(c, st, "/");
        lit(c, "/");
        e->n = num(c);
        e->h = 0;
        lit(c, ",");
    }
    while (peek(c, "D")) {
        enc_entry *e;
        if (q->nbusy >= BMC_MAX_FLIGHT) {
            perr(c, "too many busy entries");
            return;
        }
        e = &q->busy[q->nbusy++];
        lit(c, "D");
        e->h = num(c);
        lit(c, "/");
        e->msg = msg_ref(c, st, "/");
        lit(c, "/");
        e->n = num(c);
        lit(c, ",");
    }
    lit(c, ";");
}

static void parse_job(cur *c, enc_state *st)
{
    enc_job *j;
    if (st->nj >= BMC_MAX_MSG) {
        perr(c, "too many jobs");
        return;
    }
    j = &st->j[st->nj++];
    memset(j, 0, sizeof *j);
    lit(c, "J");
    j->msg = msg_ref(c, st, " ");
    lit(c, " L");
    j->level = (int)num(c);
    lit(c, " P");
    j->parent = msg_ref(c, st, " ");
    lit(c, " B");
    j->blocker = (int)num(c);
    job_fields(c, j);
    lit(c, ":");
    while (!c->bad && *c->p && *c->p != ';') {
        char name[16];
        word(c, ",", name, sizeof name);
        if (c->bad)
            return;
        if (j->npeers >= BMC_NDEST || enc_dest_index(name) < 0) {
            perr(c, "peer");
            return;
        }
        j->peers[j->npeers++] = enc_dest_index(name);
        lit(c, ",");
    }
    lit(c, ";");
}

int enc_parse(const char *text, enc_state *st, char *err, size_t errlen)
{
    cur c = {text, err, errlen, 0};
    /* counts only: the arrays are filled up to them (the struct is large
     * and this runs once per explored transition) */
    st->T = st->H = st->C = st->pool = 0;
    st->nmsg = st->nwait = st->has_transport = st->nq = st->nj = 0;
    st->nbt = st->nret = 0;
    st->cur = st->unread = -1;
    lit(&c, "T");
    st->T = num(&c);
    lit(&c, " H");
    st->H = num(&c);
    lit(&c, " C");
    st->C = num(&c);
    lit(&c, " R");
    word(&c, "|", st->rr, sizeof st->rr);
    lit(&c, "|");
    while (peek(&c, "M")) {
        enc_msg *m;
        if (st->nmsg >= BMC_MAX_MSG)
            return perr(&c, "too many messages");
        m = &st->msg[st->nmsg++];
        lit(&c, "M");
        word(&c, " ", m->id, sizeof m->id);
        /* postfix profile: " e" marks a message whose last read filled its
         * limit (S-PFX-16): it still counts as unread */
        m->e = peek(&c, " e ");
        if (m->e)
            lit(&c, " e");
        lit(&c, " q");
        m->q = num(&c);
        lit(&c, " g");
        m->gi = num(&c);
        lit(&c, ".");
        m->go = num(&c);
        lit(&c, " u");
        m->u = num(&c);
        lit(&c, " c");
        m->c = num(&c);
        lit(&c, " l");
        m->l = num(&c);
        lit(&c, " f");
        m->f = num(&c);
        lit(&c, " d");
        m->d = num(&c);
        lit(&c, " x");
        m->x = num(&c);
        lit(&c, ";");
    }
    while (peek(&c, "W")) {
        if (st->nwait >= BMC_MAX_MSG)
            return perr(&c, "too many waiting messages");
        lit(&c, "W");
        word(&c, ";", st->wait[st->nwait++], sizeof st->wait[0]);
        lit(&c, ";");
    }
    while (peek(&c, "|X")) {
        if (st->has_transport)
            return perr(&c, "a second transport");
        st->has_transport = 1;
        lit(&c, "|X");
        word(&c, " ", st->tname, sizeof st->tname);
        lit(&c, " p");
        st->pool = num(&c);
        lit(&c, " cur");
        st->cur = msg_ref(&c, st, " ");
        lit(&c, " un");
        st->unread = msg_ref(&c, st, "|");
        lit(&c, "|");
        st->has_cache = 0;
        if (peek(&c, "C")) {    /* postfix profile: the candidate cache */
            st->has_cache = 1;
            lit(&c, "C");
            st->cache = msg_ref(&c, st, ",");
            lit(&c, ",");
            st->cache_cur = msg_ref(&c, st, ",");
            lit(&c, ",");
            st->cache_time = num(&c);
            lit(&c, "|");
        }
        while (peek(&c, "Q"))
            parse_queue(&c, st);
        while (peek(&c, "J"))
            parse_job(&c, st);
        lit(&c, "by-time:");
        while (!c.bad && *c.p && *c.p != '|') {
            if (st->nbt >= BMC_MAX_MSG)
                return perr(&c, "by-time list too long");
            st->bytime[st->nbt++] = msg_ref(&c, st, ",");
            lit(&c, ",");
        }
    }
    while (peek(&c, "|r")) {
        enc_job *j;
        char tn[16];
        if (st->nret >= BMC_MAX_MSG)
            return perr(&c, "too many retired jobs");
        j = &st->ret[st->nret++];
        memset(j, 0, sizeof *j);
        lit(&c, "|r");
        j->msg = msg_ref(&c, st, "/");
        lit(&c, "/");
        word(&c, " ", tn, sizeof tn);
        j->level = -1;
        j->parent = -1;
        job_fields(&c, j);
    }
    /* the unread recipients section: the explorer keys message shapes
     * itself (see the key below), so it is skipped here */
    if (!c.bad && peek(&c, "|g"))
        c.p += strlen(c.p);
    if (!c.bad && *c.p)
        perr(&c, "trailing text");
    return c.bad ? -1 : 0;
}

/* ---- the canonical key ---- */

/* The key is binary (it is only hashed): 64-bit little-endian-agnostic
 * words appended to a buffer, with tags between the variable-length
 * parts so that distinct states cannot serialise alike. */
typedef struct out {
    char *buf;
    size_t len, cap;
} out;

static void putw(out *o, long long v)
{
    if (o->len + sizeof v <= o->cap)
        memcpy(o->buf + o->len, &v, sizeof v);
    o->len += sizeof v;
}

static void puts_(out *o, const char *s)
{
    size_t n = strlen(s) + 1;
    if (o->len + n <= o->cap)
        memcpy(o->buf + o->len, s, n);
    o->len += n;
}

enum { TAG_MSG = -101, TAG_Q = -102, TAG_J = -103, TAG_BT = -104,
       TAG_R = -105, TAG_X = -106, TAG_END = -107 };

static void job_out(out *o, const enc_job *j)
{
    putw(o, j->msg);
    putw(o, j->a);
    putw(o, j->u);
    putw(o, j->s);
    putw(o, j->r);
    putw(o, j->c);
    putw(o, j->l);
}

size_t enc_canonical(const enc_state *st, char *buf, size_t cap)
{
    out o = {buf, 0, cap};
    int i, k;
    putw(&o, st->C);
    puts_(&o, st->rr);
    for (i = 0; i < st->nmsg; i++) {
        const enc_msg *m = &st->msg[i];
        putw(&o, TAG_MSG);
        putw(&o, m->q - st->T);
        putw(&o, m->gi);
        putw(&o, m->go);
        putw(&o, m->u);
        putw(&o, m->c);
        putw(&o, m->l);
        putw(&o, m->e);
        /* refill time: read only while recipients are unread */
        putw(&o, m->u > 0 || m->e ? m->f - st->T : 0);
        putw(&o, m->d);
        putw(&o, m->x);
    }
    putw(&o, st->nwait);
    if (st->has_transport) {
        putw(&o, TAG_X);
        puts_(&o, st->tname);
        putw(&o, st->pool);
        putw(&o, st->cur);
        putw(&o, st->unread);
        /* the candidate cache: its answer and current job; its time only
         * as "this second" (a remembered candidate is reused in the same
         * second, a remembered "none" at any time) */
        putw(&o, st->has_cache);
        if (st->has_cache) {
            putw(&o, st->cache);
            putw(&o, st->cache_cur);
            putw(&o, st->cache_time == st->T);
        }
        for (i = 0; i < st->nq; i++) {
            const enc_queue *q = &st->q[i];
            putw(&o, TAG_Q);
            puts_(&o, q->name);
            putw(&o, q->w);
            puts_(&o, q->s_raw);
            puts_(&o, q->f_raw);
            puts_(&o, q->c_raw);
            putw(&o, q->dead);
            /* revival time: read only while dead */
            putw(&o, q->dead ? q->r - st->T : 0);
            putw(&o, q->b);
            putw(&o, q->ntodo);
            for (k = 0; k < q->ntodo; k++) {
                putw(&o, q->todo[k].msg);
                putw(&o, q->todo[k].n);
            }
            putw(&o, q->nbusy);
            for (k = 0; k < q->nbusy; k++) {
                putw(&o, q->busy[k].h - st->H);
                putw(&o, q->busy[k].msg);
                putw(&o, q->busy[k].n);
            }
        }
        for (i = 0; i < st->nj; i++) {
            const enc_job *j = &st->j[i];
            putw(&o, TAG_J);
            putw(&o, j->level);
            putw(&o, j->parent);
            putw(&o, j->blocker);
            job_out(&o, j);
            putw(&o, j->npeers);
            for (k = 0; k < j->npeers; k++)
                putw(&o, j->peers[k]);
        }
        putw(&o, TAG_BT);
        putw(&o, st->nbt);
        for (i = 0; i < st->nbt; i++)
            putw(&o, st->bytime[i]);
    }
    for (i = 0; i < st->nret; i++) {
        putw(&o, TAG_R);
        job_out(&o, &st->ret[i]);
    }
    putw(&o, TAG_END);
    return o.len;
}
