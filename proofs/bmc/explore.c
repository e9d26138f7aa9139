/*
 * explore.c - the bounded model checker's search over the real core.
 *
 * Owns: one mix group's breadth-first exploration of every event sequence
 * up to a depth, driving src/qsched.h (qs_sched_new, qs_arrive, qs_select,
 * qs_done, qs_advance) with the monitor (monitor.c) on the trace sink;
 * state deduplication by a 128-bit hash of the canonical key (encode.c)
 * plus the path history; counterexample and witness streams in the event
 * language, each checked to replay to the same state through the event
 * parser (events.h), the code behind `qsched --explain`.
 *
 * The core has no state-copy function, so a state is re-created by
 * replaying its path from the empty scheduler: states are stored as
 * (parent, letter) in breadth-first order, a level is a contiguous range,
 * and the path of any state is read back through its parents.  Depths are
 * small, so a replay costs a few dozen core calls.  Breadth-first order
 * makes every counterexample a shortest one, and makes the depth bound
 * exact under deduplication (a state is always first met at its least
 * depth).
 *
 * Soundness of the deduplication: the key is (canonical core state, path
 * history the monitor needs).  Equal keys have equal futures for the core
 * (qs_encode_state's contract, plus the symmetries argued in encode.c) and
 * for every property (the history is in the key).  Distinct keys collide
 * with probability about states^2 / 2^129 (1e-25 at 10^7 states).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bmc.h"
#include "events.h"

/* ---- the visited set: open addressing over 128-bit hashes ---- */

typedef struct vset {
    uint64_t *k;      /* 3 words per slot: hash, hash, state index + 1;
                         (0,0) is empty */
    size_t cap, n;
} vset;

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fputs("bmc: out of memory\n", stderr);
        exit(4);
    }
    return p;
}

static void vset_init(vset *v, size_t cap)
{
    v->cap = cap;
    v->n = 0;
    v->k = xmalloc(3 * cap * sizeof *v->k);
}

/* Returns -1 if (a, b) was new (and is now stored with index idx), else
 * the index stored with it. */
static long long vset_add_raw(vset *v, uint64_t a, uint64_t b, uint64_t idx)
{
    size_t i = (size_t)(a ^ (b >> 7)) & (v->cap - 1);
    for (;;) {
        uint64_t *s = &v->k[3 * i];
        if (s[0] == 0 && s[1] == 0) {
            s[0] = a;
            s[1] = b;
            s[2] = idx + 1;
            v->n++;
            return -1;
        }
        if (s[0] == a && s[1] == b)
            return (long long)s[2] - 1;
        i = (i + 1) & (v->cap - 1);
    }
}

static long long vset_add(vset *v, uint64_t a, uint64_t b, uint64_t idx)
{
    if (a == 0 && b == 0)
        a = 1;
    if (2 * (v->n + 1) > v->cap) {
        vset old = *v;
        size_t i;
        vset_init(v, old.cap * 2);
        for (i = 0; i < old.cap; i++)
            if (old.k[3 * i] || old.k[3 * i + 1])
                vset_add_raw(v, old.k[3 * i], old.k[3 * i + 1],
                             old.k[3 * i + 2] - 1);
        free(old.k);
    }
    return vset_add_raw(v, a, b, idx);
}

static void vset_free(vset *v)
{
    free(v->k);
    v->k = NULL;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Two 64-bit hashes of the key, word by word: a multiply-xorshift chain
 * and a polynomial hash with another odd multiplier, each finished by the
 * splitmix64 mixer. */
static void hash128(const char *s, size_t n, uint64_t *a, uint64_t *b)
{
    uint64_t h1 = 0xcbf29ce484222325ULL ^ n, h2 = 0x84222325cbf29ce4ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h1 = mix64(h1 ^ w);
        h2 = h2 * 0x9e3779b97f4a7c15ULL + w + 1;
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        h1 = (h1 ^ c) * 0x100000001b3ULL;
        h2 = h2 * 0x9e3779b97f4a7c15ULL + c + 1;
    }
    *a = mix64(h1);
    *b = mix64(h2 + 0x632be59bd9b4e019ULL);
}

/* ---- one replay of a path ---- */

typedef struct srec {
    uint32_t parent;
    uint8_t letter, nfl, nmsg, ticks;
} srec;

typedef struct run {
    const bmc_mix *mix;
    qs_params *params;
    qs_sched *s;
    monitor mon;
    char *buf;
    size_t cap;
    enc_state *pre, *post;
    long long pre_for;       /* state index whose encoding is in pre */
    char err[200];
} run;

static int set_param(qs_params *p, const char *name, long long v,
                     const char *suffix, char *err, size_t errlen)
{
    char val[64];
    snprintf(val, sizeof val, "%lld%s", v, suffix);
    return qs_params_set(p, name, val, err, errlen);
}

/* The mix as parameter lines (the head of every stream) and as a
 * qs_params (the same values, set through the same names). */
static const struct {
    const char *name;
    size_t off;
    const char *suffix;
} param_table[] = {
    {"default_delivery_slot_cost", offsetof(bmc_mix, k), ""},
    {"default_delivery_slot_loan", offsetof(bmc_mix, loan), ""},
    {"default_delivery_slot_discount", offsetof(bmc_mix, discount), ""},
    {"default_minimum_delivery_slots", offsetof(bmc_mix, min_slots), ""},
    {"default_destination_concurrency_limit", offsetof(bmc_mix, limit), ""},
    {"initial_destination_concurrency", offsetof(bmc_mix, init), ""},
    {"default_destination_concurrency_failed_cohort_limit",
     offsetof(bmc_mix, cohort_limit), ""},
    {"minimal_backoff_time", offsetof(bmc_mix, backoff), "s"},
    {"qmgr_message_active_limit", offsetof(bmc_mix, active_limit), ""},
    {"qmgr_message_recipient_limit", offsetof(bmc_mix, msg_rcpt_limit), ""},
    {"qmgr_message_recipient_minimum", offsetof(bmc_mix, msg_rcpt_min), ""},
    {"default_recipient_limit", offsetof(bmc_mix, rcpt_limit), ""},
    {"default_extra_recipient_limit", offsetof(bmc_mix, extra_rcpt_limit),
     ""},
    {"default_recipient_refill_limit", offsetof(bmc_mix, refill_limit), ""},
    {"default_recipient_refill_delay", offsetof(bmc_mix, refill_delay), "s"},
};
#define NPARAMS (sizeof param_table / sizeof param_table[0])

static int mix_field(const bmc_mix *mix, size_t i)
{
    return *(const int *)((const char *)mix + param_table[i].off);
}

static qs_params *mix_params(const bmc_mix *mix, char *err, size_t errlen)
{
    qs_params *p = qs_params_new();
    size_t i;
    if (!p)
        return NULL;
    /* each recipient its own entry: u@a twice is one destination with two
     * one-recipient entries (S-EV-4) */
    if (qs_params_set(p, "default_destination_recipient_limit", "1", err,
                      errlen) < 0)
        goto bad;
    for (i = 0; i < NPARAMS; i++)
        if (set_param(p, param_table[i].name, mix_field(mix, i),
                      param_table[i].suffix, err, errlen) < 0)
            goto bad;
    return p;
bad:
    qs_params_free(p);
    return NULL;
}

static const char *const dest_nexthop[BMC_NDEST] = {"a", "b"};

static int do_arrive(qs_sched *s, const bmc_mix *mix, int shape, int index,
                     char *err, size_t errlen)
{
    qs_group g[BMC_MAX_ENTRIES * BMC_NDEST];
    size_t n = 0;
    int d, i;
    char id[16];
    snprintf(id, sizeof id, "M%d", index + 1);
    for (d = 0; d < BMC_NDEST; d++)
        for (i = 0; i < mix->shapes[shape].n[d]; i++) {
            g[n].transport = "smtp";
            g[n].local = "u";
            g[n].nexthop = dest_nexthop[d];
            g[n].count = 1;
            n++;
        }
    return qs_arrive(s, id, g, n, err, errlen);
}

static int encode_parse(run *r, enc_state *st)
{
    size_t need = qs_encode_state(r->s, r->buf, r->cap);
    if (need + 1 > r->cap) {
        free(r->buf);
        r->cap = 2 * (need + 1);
        r->buf = xmalloc(r->cap);
        qs_encode_state(r->s, r->buf, r->cap);
    }
    if (enc_parse(r->buf, st, r->err, sizeof r->err) < 0)
        return -1;
    return 0;
}

/* Applies one letter; the monitor brackets it.  Returns 0, or -1 with
 * r->err set when the core refused a call the alphabet considers valid
 * (a tool or core error, reported as a failure). */
static int apply(run *r, int letter)
{
    monitor *m = &r->mon;
    char err[256];
    int rc = 0;
    err[0] = 0;
    if (letter == L_SELECT) {
        qs_delivery d;
        mon_before_select(m);
        rc = qs_select(r->s, NULL, &d, err, sizeof err) < 0 ? -1 : 0;
    } else if (letter == L_TICK) {
        mon_before_tick(m);
        rc = qs_advance(r->s, m->now, err, sizeof err);
    } else if (letter < L_ARRIVE0) {
        int i = (letter - L_DONE0) / 2, fail = (letter - L_DONE0) % 2, k;
        int64_t h = qs_in_flight_nth(r->s, (size_t)i);
        for (k = 0; k < m->nfl; k++)
            if (m->fl[k].h == h)
                break;
        if (h == 0 || k == m->nfl) {
            snprintf(r->err, sizeof r->err, "in-flight delivery %d (D%lld) "
                     "unknown to the shadow", i, (long long)h);
            return -1;
        }
        mon_before_done(m, k, fail);
        rc = qs_done(r->s, h, fail ? QS_DONE_FAIL : QS_DONE_OK, err,
                     sizeof err);
    } else {
        int shape = letter - L_ARRIVE0, index = m->nmsg;
        mon_before_arrive(m, shape);
        rc = do_arrive(r->s, r->mix, shape, index, err, sizeof err);
    }
    if (rc < 0)
        snprintf(r->err, sizeof r->err, "core refused letter %d: %.150s", letter,
                 err);
    return rc;
}

/* Re-creates the state of path[0..len-1]; the last letter is applied with
 * the monitor live (checks and statistics on) if live is set.  The parsed
 * states before and after the last letter are left in r->pre / r->post. */
static int replay(run *r, const uint8_t *path, int len, int live,
                  long long parent_index, bmc_stats *stats)
{
    int i;
    char err[256];
    qs_sched_free(r->s);
    r->s = qs_sched_new(r->params, (enum qs_profile)r->mix->profile,
                        mon_sink, &r->mon, err, sizeof err);
    if (!r->s) {
        snprintf(r->err, sizeof r->err, "qs_sched_new: %.150s", err);
        return -1;
    }
    mon_init(&r->mon, r->mix, NULL);
    for (i = 0; i < len; i++) {
        int last = live && i == len - 1;
        if (last) {
            if (r->pre_for != parent_index || parent_index < 0) {
                if (encode_parse(r, r->pre) < 0)
                    return -1;
                r->pre_for = parent_index;
            }
            r->mon.live = 1;
            r->mon.stats = stats;
            r->mon.pre = r->pre;
        }
        if (apply(r, path[i]) < 0)
            return -1;
        if (last) {
            if (encode_parse(r, r->post) < 0)
                return -1;
            mon_after_event(&r->mon, r->post);
        } else {
            mon_after_event(&r->mon, NULL);
        }
    }
    return 0;
}

/* ---- streams ---- */

static void letter_text(char *buf, size_t n, const bmc_mix *mix, int letter,
                        qs_sched *s, int msgs, long long now)
{
    if (letter == L_SELECT)
        snprintf(buf, n, "select");
    else if (letter == L_TICK)
        snprintf(buf, n, "at %lld", now);
    else if (letter < L_ARRIVE0) {
        int i = (letter - L_DONE0) / 2, fail = (letter - L_DONE0) % 2;
        snprintf(buf, n, "done D%lld %s",
                 (long long)qs_in_flight_nth(s, (size_t)i),
                 fail ? "fail" : "ok");
    } else {
        const bmc_shape *sh = &mix->shapes[letter - L_ARRIVE0];
        size_t len;
        int d, k;
        snprintf(buf, n, "arrive M%d", msgs + 1);
        for (d = 0; d < BMC_NDEST; d++)
            for (k = 0; k < sh->n[d]; k++) {
                len = strlen(buf);
                snprintf(buf + len, n - len, " smtp:u@%s", dest_nexthop[d]);
            }
    }
}

/* Writes the event stream of a path and returns the API-driven final
 * encoding in *enc (malloc'd), for the replay check. */
static int write_stream(FILE *f, const bmc_mix *mix, const uint8_t *path,
                        int len, char **enc)
{
    char err[256], line[1024];
    qs_params *p = mix_params(mix, err, sizeof err);
    qs_sched *s;
    long long now = 0;
    int msgs = 0, i;
    size_t k, need;
    if (!p)
        return -1;
    s = qs_sched_new(p, (enum qs_profile)mix->profile, NULL, NULL, err,
                     sizeof err);
    if (!s) {
        qs_params_free(p);
        return -1;
    }
    fprintf(f, "default_destination_recipient_limit = 1\n");
    for (k = 0; k < NPARAMS; k++)
        fprintf(f, "%s = %d%s\n", param_table[k].name, mix_field(mix, k),
                param_table[k].suffix);
    fprintf(f, "profile %s\n",
            mix->profile == QS_PROFILE_POSTFIX ? "postfix" : "document");
    for (i = 0; i < len; i++) {
        int l = path[i];
        if (l == L_TICK)
            now++;
        letter_text(line, sizeof line, mix, l, s, msgs, now);
        fprintf(f, "%s\n", line);
        if (l == L_SELECT) {
            qs_delivery d;
            qs_select(s, NULL, &d, err, sizeof err);
        } else if (l == L_TICK) {
            qs_advance(s, now, err, sizeof err);
        } else if (l < L_ARRIVE0) {
            int fi = (l - L_DONE0) / 2, fail = (l - L_DONE0) % 2;
            qs_done(s, qs_in_flight_nth(s, (size_t)fi),
                    fail ? QS_DONE_FAIL : QS_DONE_OK, err, sizeof err);
        } else {
            do_arrive(s, mix, l - L_ARRIVE0, msgs, err, sizeof err);
            msgs++;
        }
    }
    need = qs_encode_state(s, NULL, 0) + 1;
    *enc = xmalloc(need);
    qs_encode_state(s, *enc, need);
    qs_sched_free(s);
    qs_params_free(p);
    return 0;
}

void bmc_write_stream(FILE *f, const bmc_mix *mix, const uint8_t *path,
                      int len)
{
    char *enc = NULL;
    write_stream(f, mix, path, len, &enc);
    free(enc);
}

/* The written text, fed through the event parser (the code behind
 * `qsched --explain`), must reach the same state as the API calls. */
static int stream_replays(const char *text, const char *enc)
{
    char err[512];
    qs_stream *st = qs_stream_new("cex", NULL, NULL);
    const char *p = text;
    int ok = 1;
    if (!st)
        return 0;
    while (*p && ok) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (qs_stream_line(st, p, n, err, sizeof err) != 0)
            ok = 0;
        p += n + (nl ? 1 : 0);
    }
    if (ok && qs_stream_finish(st, err, sizeof err) != 0)
        ok = 0;
    if (ok) {
        qs_sched *s = qs_stream_sched(st);
        size_t need = qs_encode_state(s, NULL, 0) + 1;
        char *mine = xmalloc(need);
        qs_encode_state(s, mine, need);
        ok = strcmp(mine, enc) == 0;
        free(mine);
    }
    qs_stream_free(st);
    return ok;
}

/* Writes DIR/NAME.events with a comment head; returns 0 if the stream
 * replays through the parser to the same state. */
static int save_stream(const char *dir, const char *name, const char *head,
                       const bmc_mix *mix, const bmc_path *path)
{
    char fname[512], *text = NULL, *enc = NULL;
    size_t tlen = 0;
    FILE *mem = open_memstream(&text, &tlen), *f;
    int ok;
    if (!mem)
        return -1;
    fprintf(mem, "%s", head);
    write_stream(mem, mix, path->l, path->len, &enc);
    fclose(mem);
    ok = enc && stream_replays(text, enc);
    if (dir) {
        snprintf(fname, sizeof fname, "%s/%s.events", dir, name);
        f = fopen(fname, "w");
        if (f) {
            fputs(text, f);
            if (!ok)
                fputs("# WARNING: this text did not replay to the state the "
                      "checker reached\n", f);
            fclose(f);
        }
    }
    free(text);
    free(enc);
    return ok ? 0 : -1;
}

/* ---- the search ---- */

static int path_of(const srec *st, uint32_t idx, uint8_t *out)
{
    uint8_t rev[BMC_MAX_DEPTH];
    int n = 0, i;
    while (idx != 0 && n < BMC_MAX_DEPTH) {
        rev[n++] = st[idx].letter;
        idx = st[idx].parent;
    }
    for (i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    return n;
}

static int enabled(const bmc_mix *mix, const srec *sr, int letter)
{
    if (letter == L_SELECT)
        return 1;
    if (letter == L_TICK)
        return sr->ticks < mix->max_ticks;
    if (letter < L_ARRIVE0) {
        int i = (letter - L_DONE0) / 2, fail = (letter - L_DONE0) % 2;
        return mix->allow_done && i < sr->nfl && (!fail || mix->allow_fail);
    }
    return letter - L_ARRIVE0 < mix->nshapes && sr->nmsg < mix->max_msgs;
}

/* Breadth-first order: the first counterexample met is a shortest one. */
static void record_cex(bmc_result *res, int prop, const uint8_t *path,
                       int len, const char *why)
{
    if (res->viol_count[prop]++ > 0)
        return;
    res->cex[prop].len = len;
    memcpy(res->cex[prop].l, path, (size_t)len);
    snprintf(res->cex_why[prop], sizeof res->cex_why[prop], "%s", why);
}

static void save_all(const bmc_mix *mix, const bmc_opts *o, bmc_result *res)
{
    char dir[400], name[200], head[800];
    int p, w;
    static const char *const wname[W_COUNT] = {"worst-nonrecursive",
                                               "worst-recursive",
                                               "worst-any-job"};
    for (p = 0; p < P_COUNT; p++) {
        if (!res->viol_count[p])
            continue;
        snprintf(dir, sizeof dir, "%s/%s", o->outdir,
                 p == P_INFL ? "findings" : "cex");
        snprintf(name, sizeof name, "%s.%s", mix->name, bmc_prop_name[p]);
        snprintf(head, sizeof head, "# %s: %s in mix %s\n# %s\n# replay: "
                 "qsched --explain --check-invariants THIS_FILE\n",
                 p == P_INFL ? "finding" : "counterexample",
                 bmc_prop_name[p], mix->name, res->cex_why[p]);
        if (save_stream(o->outdir ? dir : NULL, name, head, mix,
                        &res->cex[p]) < 0 && !res->tool_error) {
            res->tool_error = 1;
            snprintf(res->tool_err, sizeof res->tool_err, "the stream of "
                     "the %s counterexample does not replay",
                     bmc_prop_name[p]);
        }
    }
    for (w = 0; w < W_COUNT; w++) {
        if (!res->wit[w].len)
            continue;
        snprintf(dir, sizeof dir, "%s/witness", o->outdir);
        snprintf(name, sizeof name, "%s.%s", mix->name, wname[w]);
        snprintf(head, sizeof head, "# witness of the %s inflation ratio in "
                 "mix %s\n", wname[w], mix->name);
        save_stream(o->outdir ? dir : NULL, name, head, mix, &res->wit[w]);
    }
}

/* The key of the state reached by a path (last letter live). */
static int key_of(run *r, const uint8_t *path, int len, char *key,
                  size_t cap, uint64_t *a, uint64_t *b, unsigned *viol)
{
    size_t n;
    r->pre_for = -2;
    if (replay(r, path, len, 1, -1, NULL) < 0)
        return -1;
    n = enc_canonical(r->post, key, cap);
    n += mon_history(&r->mon, r->post, key + n, cap - n);
    if (n >= cap)
        return -1;
    hash128(key, n, a, b);
    *viol = r->mon.viol;
    return 0;
}

/* Dedupe soundness self-test: two paths that reached the same key must
 * agree on the key and on every verdict after the same continuation (a
 * few letters drawn from a splitmix64 sequence seeded by the duplicate's
 * number).  A disagreement means the canonical key merged states that
 * behave differently: a tool error, reported as a failure. */
/* ---- liveness (P_LIVE) ----
 * From a state, a fair supply of delivery agents: select while anything can
 * be selected, let every delivery complete (ok, the oldest first), and when
 * nothing can be selected and nothing is in flight let time pass one second
 * at a time (backoffs, refill delays).  Every message must then be served
 * and leave within a budget, and every dead destination must be alive again
 * as soon as its backoff has expired.  The continuation is deterministic,
 * so a failure is a stream: the state's path followed by these letters. */
#define LIVE_EVERY 4          /* drain one new state in 4 of the last level */

static int drain(run *r, uint8_t *path, int *plen, char *why, size_t n)
{
    monitor *m = &r->mon;
    int i, entries = 0, budget, step;
    for (i = 0; i < m->nmsg; i++)
        entries += m->job[i].E;
    budget = 32 + 6 * entries + 4 * r->mix->backoff;
    m->live = 0;
    m->stats = NULL;
    for (step = 0; step < budget; step++) {
        qs_stats st;
        long long before;
        int letter;
        qs_get_stats(r->s, &st);
        if (st.messages_done == m->nmsg)
            return 0;
        before = st.deliveries;
        letter = L_SELECT;
        if (apply(r, letter) < 0)
            return -1;
        mon_after_event(m, NULL);
        qs_get_stats(r->s, &st);
        if (st.deliveries == before) {
            if (qs_in_flight_count(r->s) > 0)
                letter = L_DONE0;   /* the oldest delivery completes, ok */
            else
                letter = L_TICK;    /* nothing to do now: time passes */
            if (apply(r, letter) < 0)
                return -1;
            mon_after_event(m, NULL);
        }
        if (*plen + 2 < BMC_MAX_DEPTH) {
            path[(*plen)++] = L_SELECT;
            if (letter != L_SELECT)
                path[(*plen)++] = (uint8_t)letter;
        }
        if (letter == L_TICK) {
            /* S-CON-10: a dead destination is retried once its backoff
             * has expired */
            if (encode_parse(r, r->post) < 0)
                return -1;
            for (i = 0; i < r->post->nq; i++)
                if (r->post->q[i].dead && r->post->q[i].r <= r->post->T) {
                    snprintf(why, n, "%s still dead at %lld, its backoff "
                             "expired at %lld", r->post->q[i].name,
                             r->post->T, r->post->q[i].r);
                    return 1;
                }
        }
    }
    {
        qs_stats st;
        qs_get_stats(r->s, &st);
        snprintf(why, n, "%lld of %d messages still queued after %d steps "
                 "of a fair continuation (select, complete ok, let time "
                 "pass)", (long long)(m->nmsg - st.messages_done), m->nmsg,
                 budget);
    }
    return 1;
}

#define SELFTEST_EVERY 499
#define SELFTEST_LEN 4
static void selftest(run *r, const bmc_mix *mix, const srec *st,
                     uint32_t other, const uint8_t *path, int len,
                     const srec *info, unsigned long long seed,
                     bmc_result *res)
{
    uint8_t pa[BMC_MAX_DEPTH + SELFTEST_LEN + 1];
    uint8_t pb[BMC_MAX_DEPTH + SELFTEST_LEN + 1];
    char *ka = xmalloc(1 << 14), *kb = xmalloc(1 << 14);
    int la = path_of(st, other, pa), lb = len, i;
    uint64_t z = seed * 0x9e3779b97f4a7c15ULL;
    srec cur = *info;
    memcpy(pb, path, (size_t)len);
    res->selftests++;
    for (i = 0; i < SELFTEST_LEN && la < BMC_MAX_DEPTH; i++) {
        int nl = L_ARRIVE0 + mix->nshapes, letter, tries;
        uint64_t ha, hb, hc, hd;
        unsigned va, vb;
        for (tries = 0; tries < 64; tries++) {
            z = mix64(z + 0x632be59bd9b4e019ULL);
            letter = (int)(z % (uint64_t)nl);
            if (enabled(mix, &cur, letter))
                break;
        }
        if (tries == 64)
            letter = L_SELECT;
        pa[la++] = (uint8_t)letter;
        pb[lb++] = (uint8_t)letter;
        if (key_of(r, pa, la, ka, 1 << 14, &ha, &hb, &va) < 0 ||
            key_of(r, pb, lb, kb, 1 << 14, &hc, &hd, &vb) < 0)
            break;
        if (ha != hc || hb != hd || va != vb) {
            res->selftest_fail++;
            if (!res->tool_error) {
                res->tool_error = 1;
                snprintf(res->tool_err, sizeof res->tool_err, "dedupe "
                         "self-test: two paths merged as one state diverge "
                         "after %d more letters (paths of %d and %d letters)",
                         i + 1, la - i - 1, lb - i - 1);
            }
            break;
        }
        cur.nfl = (uint8_t)qs_in_flight_count(r->s);
        cur.nmsg = (uint8_t)r->mon.nmsg;
        cur.ticks = (uint8_t)r->mon.ticks;
    }
    r->pre_for = -2;
    free(ka);
    free(kb);
}

int bmc_explore(const bmc_mix *mix, const bmc_opts *o, bmc_result *res,
                FILE *log)
{
    run r;
    vset vs;
    srec *st;
    size_t st_cap = 1 << 16, nst = 1, lvl_start = 0, lvl_end = 1;
    int depth = o->depth > 0 ? o->depth : mix->depth, d, stop = 0;
    unsigned long long dups = 0;
    uint8_t path[BMC_MAX_DEPTH + 1] = {0};
    char *key = NULL;
    size_t key_cap = 1 << 14;
    const int nletters = L_ARRIVE0 + mix->nshapes;

    memset(res, 0, sizeof *res);
    res->stats.min_counter = 0;
    if (depth > BMC_MAX_DEPTH)
        depth = BMC_MAX_DEPTH;
    memset(&r, 0, sizeof r);
    r.mix = mix;
    r.params = mix_params(mix, r.err, sizeof r.err);
    if (!r.params) {
        res->tool_error = 1;
        snprintf(res->tool_err, sizeof res->tool_err, "parameters: %.200s",
                 r.err);
        return -1;
    }
    r.cap = 1 << 14;
    r.buf = xmalloc(r.cap);
    r.pre = xmalloc(sizeof *r.pre);
    r.post = xmalloc(sizeof *r.post);
    r.pre_for = -2;
    key = xmalloc(key_cap);
    st = xmalloc(st_cap * sizeof *st);
    vset_init(&vs, 1 << 16);

    /* the root: the empty scheduler */
    {
        uint64_t a, b;
        size_t n;
        if (replay(&r, path, 0, 0, -1, NULL) < 0 ||
            encode_parse(&r, r.post) < 0) {
            res->tool_error = 1;
            snprintf(res->tool_err, sizeof res->tool_err, "%s", r.err);
            goto out;
        }
        n = enc_canonical(r.post, key, key_cap);
        n += mon_history(&r.mon, r.post, key + n, key_cap - n);
        hash128(key, n, &a, &b);
        vset_add(&vs, a, b, 0);
        memset(&st[0], 0, sizeof st[0]);
    }

    for (d = 1; d <= depth && !stop; d++) {
        size_t idx;
        for (idx = lvl_start; idx < lvl_end && !stop; idx++) {
            int plen = path_of(st, (uint32_t)idx, path), letter;
            srec cur = st[idx];
            for (letter = 0; letter < nletters && !stop; letter++) {
                monitor *m = &r.mon;
                bmc_stats before;
                size_t n;
                uint64_t a, b;
                int p, bad = 0;
                if (!enabled(mix, &cur, letter))
                    continue;
                path[plen] = (uint8_t)letter;
                before = res->stats;
                res->transitions++;
                if (replay(&r, path, plen + 1, 1, (long long)idx,
                           &res->stats) < 0) {
                    /* a refused call or an unparsable encoding */
                    mon_flag(m, P_ACCT, "%s", r.err);
                    if (!m->viol) {
                        res->tool_error = 1;
                        snprintf(res->tool_err, sizeof res->tool_err, "%s",
                                 r.err);
                        stop = 1;
                        break;
                    }
                } else {
                    char ierr[400];
                    if (qs_check_invariants(r.s, ierr, sizeof ierr) < 0)
                        mon_flag(m, P_INV, "%s", ierr);
                }
                for (p = 0; p < P_COUNT; p++)
                    if (m->viol & (1u << p)) {
                        record_cex(res, p, path, plen + 1, m->why[p]);
                        if (p != P_INFL)
                            bad = 1;
                    }
                /* worst-ratio witnesses */
                if (res->stats.w_nr_n != before.w_nr_n ||
                    res->stats.w_nr_span != before.w_nr_span) {
                    res->wit[W_NONREC].len = plen + 1;
                    memcpy(res->wit[W_NONREC].l, path, (size_t)plen + 1);
                }
                if (res->stats.w_r_n != before.w_r_n ||
                    res->stats.w_r_span != before.w_r_span) {
                    res->wit[W_REC].len = plen + 1;
                    memcpy(res->wit[W_REC].l, path, (size_t)plen + 1);
                }
                if (res->stats.w_any_n != before.w_any_n ||
                    res->stats.w_any_span != before.w_any_span) {
                    res->wit[W_ANY].len = plen + 1;
                    memcpy(res->wit[W_ANY].l, path, (size_t)plen + 1);
                }
                if (bad) {
                    if (o->stop_first)
                        stop = 1;
                    continue;
                }
                n = enc_canonical(r.post, key, key_cap);
                n += mon_history(m, r.post, key + n, key_cap - n);
                if (n + 1 >= key_cap) {
                    res->tool_error = 1;
                    snprintf(res->tool_err, sizeof res->tool_err,
                             "state key too long");
                    stop = 1;
                    break;
                }
                hash128(key, n, &a, &b);
                {
                    long long other = vset_add(&vs, a, b, nst);
                    if (other >= 0) {
                        /* a known state: now and then, check that the
                         * merge was sound */
                        if (++dups % SELFTEST_EVERY == 0) {
                            srec info;
                            info.nfl = (uint8_t)qs_in_flight_count(r.s);
                            info.nmsg = (uint8_t)m->nmsg;
                            info.ticks = (uint8_t)m->ticks;
                            selftest(&r, mix, st, (uint32_t)other, path,
                                     plen + 1, &info, dups, res);
                        }
                        continue;
                    }
                }
                if (nst == st_cap) {
                    srec *ns = xmalloc(2 * st_cap * sizeof *ns);
                    memcpy(ns, st, st_cap * sizeof *st);
                    free(st);
                    st = ns;
                    st_cap *= 2;
                }
                st[nst].parent = (uint32_t)idx;
                st[nst].letter = (uint8_t)letter;
                st[nst].nfl = (uint8_t)qs_in_flight_count(r.s);
                st[nst].nmsg = (uint8_t)m->nmsg;
                st[nst].ticks = (uint8_t)m->ticks;
                nst++;
                /* P_LIVE from a sample of the last level's new states */
                if (d == depth && nst % LIVE_EVERY == 0) {
                    char lwhy[320];
                    uint8_t lpath[BMC_MAX_DEPTH];
                    int llen = plen + 1, lr;
                    memcpy(lpath, path, (size_t)llen);
                    lr = drain(&r, lpath, &llen, lwhy, sizeof lwhy);
                    res->live_checked++;
                    if (lr < 0) {
                        record_cex(res, P_LIVE, path, plen + 1, r.err);
                        if (o->stop_first)
                            stop = 1;
                    } else if (lr > 0) {
                        record_cex(res, P_LIVE, lpath, llen, lwhy);
                        if (o->stop_first)
                            stop = 1;
                    }
                }
                if (o->max_states > 0 && (long long)nst >= o->max_states) {
                    res->capped = 1;
                    stop = 1;
                }
            }
        }
        if (stop && res->capped)
            break;
        if (stop)
            break;
        res->depth_reached = d;
        lvl_start = lvl_end;
        lvl_end = nst;
        if (log && !o->quiet)
            fprintf(log, "  %s: depth %d, %zu states\n", mix->name, d, nst);
        if (lvl_start == lvl_end) {
            res->complete = 1;
            break;
        }
    }
    res->states = (long long)nst;
out:
    save_all(mix, o, res);
    qs_sched_free(r.s);
    qs_params_free(r.params);
    free(r.buf);
    free(r.pre);
    free(r.post);
    free(key);
    free(st);
    vset_free(&vs);
    return 0;
}
