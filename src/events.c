/*
 * events.c - the parser of the event language (spec/events.md, S-EV-1 ..
 * S-EV-10), around the core.
 *
 * Owns: the grammar (NAME = VALUE, profile, at, arrive, select, done), the
 * input limits, reading a file line by line in bounded memory, and turning
 * each valid line into exactly one call of the core API (qsched.h).  An
 * invalid line changes nothing and yields one message "FILE:LINE: reason";
 * the caller stops there (exit 2).
 *
 * Why it exists apart from the core: the core has no I/O and no text
 * syntax, so that it can be proved, model-checked and embedded; every
 * program that speaks the language (the CLI, `qsched verify`, `qsched gen`'s
 * shadow run, the fuzz harnesses, the model checker's replays) goes through
 * this one parser, so there is a single reading of every line.
 *
 * The contract for bad input (S-EV-10, issue 19): never crash, never
 * half-accept; a message that says what is actually wrong, with the line it
 * is on; bytes of the input that are not printable ASCII are escaped as
 * \xNN in messages (a terminal must not interpret them); a read error is an
 * error with the system's reason, never an early end of file; and memory
 * stays bounded by the line limit whatever the input (a 200 MB line is
 * refused after 1 MiB, not read whole).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>
#include "events.h"
#include "arrive.h"
#include "kernels.h"

/* One setting line (NAME = VALUE) as written, kept until the scheduler
 * exists so that a profile-dependent refusal (S-EV-5), which can only be
 * decided at the first event, still points at the line that caused it. */
typedef struct setting {
    char *name;
    char *value;
    long lineno;
} setting;

/* Character classes of the language, one table look-up per byte instead
 * of a chain of comparisons (issue 16: the parser reads every byte of
 * every line).  C locale, no ctype call. */
enum {
    CH_END = 1,       /* ends a word: NUL, blank, tab */
    CH_TRANSPORT = 2, /* in a transport name: a-z 0-9 - */
    CH_NAME = 4,      /* in other names: also A-Z . _ + */
    CH_GROUP = 8      /* the separators inside a recipient group: : @ * */
};
#define CH_T (CH_TRANSPORT | CH_NAME)
static const unsigned char char_class[256] = {
    [0] = CH_END, [' '] = CH_END, ['\t'] = CH_END,
    ['-'] = CH_T, ['.'] = CH_NAME, ['_'] = CH_NAME, ['+'] = CH_NAME,
    ['0'] = CH_T, ['1'] = CH_T, ['2'] = CH_T, ['3'] = CH_T, ['4'] = CH_T,
    ['5'] = CH_T, ['6'] = CH_T, ['7'] = CH_T, ['8'] = CH_T, ['9'] = CH_T,
    ['a'] = CH_T, ['b'] = CH_T, ['c'] = CH_T, ['d'] = CH_T, ['e'] = CH_T,
    ['f'] = CH_T, ['g'] = CH_T, ['h'] = CH_T, ['i'] = CH_T, ['j'] = CH_T,
    ['k'] = CH_T, ['l'] = CH_T, ['m'] = CH_T, ['n'] = CH_T, ['o'] = CH_T,
    ['p'] = CH_T, ['q'] = CH_T, ['r'] = CH_T, ['s'] = CH_T, ['t'] = CH_T,
    ['u'] = CH_T, ['v'] = CH_T, ['w'] = CH_T, ['x'] = CH_T, ['y'] = CH_T,
    ['z'] = CH_T,
    ['A'] = CH_NAME, ['B'] = CH_NAME, ['C'] = CH_NAME, ['D'] = CH_NAME,
    ['E'] = CH_NAME, ['F'] = CH_NAME, ['G'] = CH_NAME, ['H'] = CH_NAME,
    ['I'] = CH_NAME, ['J'] = CH_NAME, ['K'] = CH_NAME, ['L'] = CH_NAME,
    ['M'] = CH_NAME, ['N'] = CH_NAME, ['O'] = CH_NAME, ['P'] = CH_NAME,
    ['Q'] = CH_NAME, ['R'] = CH_NAME, ['S'] = CH_NAME, ['T'] = CH_NAME,
    ['U'] = CH_NAME, ['V'] = CH_NAME, ['W'] = CH_NAME, ['X'] = CH_NAME,
    ['Y'] = CH_NAME, ['Z'] = CH_NAME,
    [':'] = CH_GROUP, ['@'] = CH_GROUP, ['*'] = CH_GROUP
};
#define CH(c, cls) (char_class[(unsigned char)(c)] & (cls))

/* tests/bench.sh section 7 only, in a build of its own with
 * -DQS_EVENT_CLOCK (never the binary that is measured, tested or
 * installed): the processor's time-stamp ticks spent in each kind of line
 * - select, done, arrive, any other - summed over the run and printed to
 * stderr when the stream is freed.  Why: the bench's machine has no
 * hardware counters, and callgrind counts instructions, not time; this
 * tells which kind of event the time goes to (issue 16, session 22:
 * arrivals, 40 to 59% of eleven shapes, 43% of blockers and 54% of
 * transports).  The counting itself costs two
 * reads of the counter per line; a line that straddles two reads of the
 * input (one in about 64 KiB) is not counted.  x86 only (elsewhere the
 * build has no clock and prints nothing). */
#if defined(QS_EVENT_CLOCK) && defined(__GNUC__) && \
    (defined(__x86_64__) || defined(__i386__))
#include <stdio.h>
#include <x86intrin.h>
#define EVENT_CLOCK 1
enum { EC_SELECT, EC_DONE, EC_ARRIVE, EC_OTHER, EC_KINDS };
#endif

struct qs_stream {
#ifdef EVENT_CLOCK
    unsigned long long clock_ticks[EC_KINDS], clock_lines[EC_KINDS];
#endif
    char *fname;            /* FILE of "FILE:LINE: reason" */
    long lineno;            /* lines fed so far (the current line's number) */
    qs_params *params;      /* the settings, until the first event */
    enum qs_profile profile;
    qs_sched *sched;        /* NULL until the first event (S-EV-2) */
    qs_trace_sink sink;
    void *ctx;
    /* parameters forced from outside the stream (qsched verify --readings):
     * set after the stream's own, when the scheduler is created */
    char **forced;
    size_t nforced;
    /* scratch for arrive lines, reused from line to line */
    qs_group *groups;
    unsigned char (*glens)[3]; /* their names' lengths (arrive.h) */
    size_t gcap;
    char *buf;              /* the current line, NUL-terminated, cut up */
    size_t bufcap;
    setting *settings;      /* every NAME = VALUE line, in order */
    size_t nsettings, scap;
    char **words;           /* the words of an arrive line (arrive_line) */
    size_t wcap;
    long checks;            /* invariant checks made (--check-invariants) */
    int quiet_explain;      /* qs_stream_set_explain(st, 0) was called */
};

/* Creates a stream reader; fname only names the input in messages. */
qs_stream *qs_stream_new(const char *fname, qs_trace_sink sink, void *ctx)
{
    qs_stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->fname = strdup(fname ? fname : "-");
    st->params = qs_params_new();
    if (!st->fname || !st->params) {
        qs_stream_free(st);
        return NULL;
    }
    st->sink = sink;
    st->ctx = ctx;
    return st;
}

/* Frees the stream and the scheduler it created. */
void qs_stream_free(qs_stream *st)
{
    size_t i;
    if (!st)
        return;
#ifdef EVENT_CLOCK
    {
        static const char *const kind[EC_KINDS] = {"select", "done",
                                                   "arrive", "other"};
        for (i = 0; i < EC_KINDS; i++)
            fprintf(stderr, "event-clock %s %llu %llu\n", kind[i],
                    st->clock_lines[i], st->clock_ticks[i]);
    }
#endif
    qs_sched_free(st->sched);
    qs_params_free(st->params);
    while (st->nforced > 0)
        free(st->forced[--st->nforced]);
    free(st->forced);
    for (i = 0; i < st->nsettings; i++) {
        free(st->settings[i].name);
        free(st->settings[i].value);
    }
    free(st->settings);
    free(st->words);
    free(st->groups);
    free(st->glens);
    free(st->buf);
    free(st->fname);
    free(st);
}

/* Accessors for the callers that step through a stream (verify, tests). */
qs_sched *qs_stream_sched(qs_stream *st) { return st->sched; }
long qs_stream_lineno(const qs_stream *st) { return st->lineno; }

/* Copies src into dst (always NUL-terminated when dstlen > 0), writing
 * every byte outside printable ASCII (below 0x20, 0x7f and above) and the
 * backslash itself as \xNN, so that what the input holds can be neither
 * interpreted by a terminal (escape sequences) nor confused with an
 * escape.  Escapes are never cut in half at the end of dst.  Returns the
 * length written. */
size_t qs_escape(char *dst, size_t dstlen, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)src;
    if (!dstlen)
        return 0;
    for (; *p; p++) {
        if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
            if (o + 1 >= dstlen)
                break;
            dst[o++] = (char)*p;
        } else {
            if (o + 4 >= dstlen)
                break;
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[*p >> 4];
            dst[o++] = hex[*p & 15];
        }
    }
    dst[o] = 0;
    return o;
}

/* Writes "FILE:LINE: what[: detail]" into err, escaped (qs_escape), and
 * returns 2, the status of an input error (S-EV-10).  Every message of the
 * parser goes through here, so no input byte reaches a terminal raw. */
static int lerr_at(qs_stream *st, long lineno, char *err, size_t errlen,
                   const char *what, const char *detail)
{
    char raw[1024];
    if (err && errlen) {
        snprintf(raw, sizeof raw, "%s:%ld: %s%s%s", st->fname, lineno, what,
                 detail && *detail ? ": " : "", detail ? detail : "");
        qs_escape(err, errlen, raw);
    }
    return 2;
}

/* lerr_at for the current line: the usual case. */
static int lerr(qs_stream *st, char *err, size_t errlen, const char *what,
                const char *detail)
{
    return lerr_at(st, st->lineno, err, errlen, what, detail);
}

/* events.h: whether the sink wants the explain level, for the scheduler
 * (now or when it is created). */
void qs_stream_set_explain(qs_stream *st, int wanted)
{
    st->quiet_explain = !wanted;
    if (st->sched)
        qs_sched_set_explain(st->sched, wanted);
}

/* `profile document|postfix`, or --profile: a setting, so only before the
 * first event (S-EV-2, S-EV-5). */
int qs_stream_set_profile(qs_stream *st, const char *name, char *err,
                          size_t errlen)
{
    if (st->sched)
        return lerr(st, err, errlen, "profile must come before the first "
                    "event", NULL);
    if (strcmp(name, "document") == 0)
        st->profile = QS_PROFILE_DOCUMENT;
    else if (strcmp(name, "postfix") == 0)
        st->profile = QS_PROFILE_POSTFIX;
    else
        return lerr(st, err, errlen, "unknown profile (want document or "
                    "postfix)", name);
    return 0;
}

int qs_stream_force_param(qs_stream *st, const char *name,
                          const char *value, char *err, size_t errlen)
{
    char **v;
    size_t i;
    if (st->sched)
        return lerr(st, err, errlen, "parameters must come before the "
                    "first event", NULL);
    /* checked now, against a scratch store, so that a bad one is refused
     * here rather than at the first event */
    {
        qs_params *scratch = qs_params_new();
        char why[256];
        int bad;
        if (!scratch)
            return lerr(st, err, errlen, "out of memory", NULL);
        bad = qs_params_set(scratch, name, value, why, sizeof why) < 0;
        qs_params_free(scratch);
        if (bad) {
            if (err && errlen)
                snprintf(err, errlen, "%s: %s", name, why);
            return 2;
        }
    }
    v = realloc(st->forced, (st->nforced + 2) * sizeof *v);
    if (!v)
        return lerr(st, err, errlen, "out of memory", NULL);
    st->forced = v;
    i = st->nforced;
    v[i] = strdup(name);
    v[i + 1] = strdup(value);
    if (!v[i] || !v[i + 1]) {
        free(v[i]);
        free(v[i + 1]);
        return lerr(st, err, errlen, "out of memory", NULL);
    }
    st->nforced += 2;
    return 0;
}

/* Remembers a setting line for blame_setting. */
static int remember_setting(qs_stream *st, const char *name,
                            const char *value)
{
    setting *s;
    if (st->nsettings == st->scap) {
        size_t ncap = st->scap ? 2 * st->scap : 16;
        s = realloc(st->settings, ncap * sizeof *s);
        if (!s)
            return -1;
        st->settings = s;
        st->scap = ncap;
    }
    s = &st->settings[st->nsettings];
    s->name = strdup(name);
    s->value = strdup(value);
    if (!s->name || !s->value) {
        free(s->name);
        free(s->value);
        return -1;
    }
    s->lineno = st->lineno;
    st->nsettings++;
    return 0;
}

/* The core refused the settings as a whole (a profile-dependent check,
 * S-EV-5: e.g. a concurrency limit of 0 in the document profile).  Which
 * line is to blame?  The core is the only judge of what it accepts, so ask
 * it again about each setting on its own (its last assignment, in stream
 * order): the first one that the core refuses alone, with this profile, is
 * the culprit, and the message points at its line rather than at the
 * first event.  Returns that line (0 if no single setting explains the
 * refusal, e.g. a combination) and its reason in why. */
static long blame_setting(const qs_stream *st, char *why, size_t whylen)
{
    size_t i, j;
    for (i = 0; i < st->nsettings; i++) {
        const setting *s = &st->settings[i];
        qs_params *alone;
        qs_sched *trial;
        int later = 0;
        for (j = i + 1; j < st->nsettings && !later; j++)
            later = strcmp(st->settings[j].name, s->name) == 0;
        if (later)
            continue; /* overridden by a later line */
        alone = qs_params_new();
        if (!alone)
            return 0;
        if (qs_params_set(alone, s->name, s->value, why, whylen) < 0) {
            qs_params_free(alone);
            continue;
        }
        trial = qs_sched_new(alone, st->profile, NULL, NULL, why, whylen);
        qs_params_free(alone);
        if (!trial)
            return s->lineno;
        qs_sched_free(trial);
    }
    return 0;
}

/* The first event freezes the parameters and the profile (S-EV-2): the
 * scheduler is created here, and only here. */
static int ensure_sched(qs_stream *st, char *err, size_t errlen)
{
    char why[256], blamed[256];
    long line;
    size_t i;
    if (st->sched)
        return 0;
    for (i = 0; i + 1 < st->nforced; i += 2)
        if (qs_params_set(st->params, st->forced[i], st->forced[i + 1], why,
                          sizeof why) < 0)
            return lerr(st, err, errlen, st->forced[i], why);
    st->sched = qs_sched_new(st->params, st->profile, st->sink, st->ctx, why,
                             sizeof why);
    if (st->sched) {
        if (st->quiet_explain)
            qs_sched_set_explain(st->sched, 0);
        return 0;
    }
    line = blame_setting(st, blamed, sizeof blamed);
    if (line > 0)
        return lerr_at(st, line, err, errlen, blamed, NULL);
    return lerr(st, err, errlen, why, NULL);
}

/* ensure_sched without a call once the scheduler exists (every line
 * after the first event). */
#define HAVE_SCHED(st, err, errlen)                                         \
    ((st)->sched ? 0 : ensure_sched((st), (err), (errlen)))

/* End of input: an empty stream, or one with only settings, is valid, and
 * its settings are still checked (the scheduler is created). */
int qs_stream_finish(qs_stream *st, char *err, size_t errlen)
{
    return ensure_sched(st, err, errlen);
}

/* Splits buf in place into blank-separated words; returns their number, or
 * max + 1 if there are more than max. */
static size_t split_words(char *buf, char **w, size_t max)
{
    size_t n = 0;
    char *p = buf;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        if (n == max)
            return max + 1;
        w[n++] = p;
        while (!CH(*p, CH_END))
            p++;
        if (*p)
            *p++ = 0;
    }
    return n;
}

/* A non-negative decimal number of at most max, without overflow.
 * Returns 0, -1 if s is not a decimal number (the caller says "usage"),
 * -2 if it is one but exceeds max (the caller says "out of range"): the
 * two faults need different fixes, so they get different messages. */
static int parse_count(const char *s, int64_t max, int64_t *out)
{
    int64_t v = 0, max10 = max / 10;
    int big = 0, maxd = (int)(max % 10);
    if (!*s)
        return -1;
    for (; *s; s++) {
        int d = *s - '0';
        if (*s < '0' || *s > '9') /* isdigit, C locale, without a call */
            return -1;
        /* v * 10 + d <= max, tested before computing it (no overflow):
         * v < max / 10, or v = max / 10 and d <= max % 10 */
        if (big || v > max10 || (v == max10 && d > maxd))
            big = 1;
        else
            v = v * 10 + d;
    }
    if (big)
        return -2;
    *out = v;
    return 0;
}

/* Names of the language (spec/events.md grammar): a transport is
 * lower-case letters, digits and '-'; message ids, local parts and
 * next-hops also allow upper case, '.', '_' and '+'.  Returns the name's
 * length, 0 if it is empty or has another character (the length comes
 * with the check: no strlen for the length limits). */
static size_t name_len(const char *s, int transport)
{
    const char *p = s;
    int cls = transport ? CH_TRANSPORT : CH_NAME;
    for (; *p; p++)
        if (!CH(*p, cls))
            return 0;
    return (size_t)(p - s);
}

/* A name of at most max bytes (name_len). */
static int name_ok(const char *s, int transport, size_t max)
{
    size_t n = name_len(s, transport);
    return n > 0 && n <= max;
}

/* A recipient group TRANSPORT:[LOCAL@]NEXTHOP[*COUNT] at w in its plain
 * form, read in one pass by the character table (issue 16): transport
 * and local part 1..64 bytes, next-hop 1..200 (S-EV-4, S-EV-7), COUNT
 * 1..QS_COUNT_MAX in at most 10 digits without a leading zero, the group
 * ending at a blank or a NUL.  Transport characters exclude ':', name
 * characters '@' and '*', so the first ':', '@' and '*' found here are
 * the ones parse_group's general code finds with strchr, and each test
 * is one of its tests: a group read here is accepted there alike.  Only
 * then is the group cut in place (its ':', '@' and '*' become NULs) and
 * g and len3 (the names' lengths, arrive.h) set; returns where it ends
 * (the blank or NUL, left as it is).  Any other group: NULL, nothing
 * written.  Shared by parse_group (one word of the general path) and
 * arrive_parse (the whole line in one pass); inlined in both, since a
 * call per group cost the replay 1% of its instructions. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline char *scan_group(char *w, qs_group *g, unsigned char len3[3])
{
    char *p = w, *colon, *at = NULL, *e, *d;
    int64_t count = 1;
    while (CH(*p, CH_TRANSPORT))
        p++;
    colon = p;
    if (*colon != ':' || colon - w < 1 || colon - w > 64)
        return NULL;
    for (p = colon + 1; CH(*p, CH_NAME); p++)
        ;
    if (*p == '@') {
        at = p;
        for (p = at + 1; CH(*p, CH_NAME); p++)
            ;
        if (at - colon - 1 < 1 || at - colon - 1 > 64)
            return NULL;
    }
    e = p; /* the end of the next-hop */
    if (e - (at ? at : colon) - 1 < 1 || e - (at ? at : colon) - 1 > 200)
        return NULL;
    if (*e == '*') {
        d = ++p;
        if (*p < '1' || *p > '9')
            return NULL;
        for (count = 0; *p >= '0' && *p <= '9' && p - d < 10; p++)
            count = count * 10 + (*p - '0');
        if (count > QS_COUNT_MAX)
            return NULL;
    }
    if (*p != ' ' && *p != 0)
        return NULL;
    *colon = 0;
    g->transport = w;
    g->local = NULL;
    if (at) {
        *at = 0;
        g->local = colon + 1;
    }
    g->nexthop = (at ? at : colon) + 1;
    if (*e == '*')
        *e = 0;
    g->count = count;
    len3[0] = (unsigned char)(colon - w);
    len3[1] = at ? (unsigned char)(at - colon - 1) : 0;
    len3[2] = (unsigned char)(e - (at ? at : colon) - 1);
    return p;
}

/* One recipient group TRANSPORT:[LOCAL@]NEXTHOP[*COUNT] (S-EV-4), split in
 * place: the first ':' ends the transport; in the rest the first '*'
 * starts the count and the first '@' ends the local part. */
/* Returns 0 with the names' lengths in len3 (the fast path: measured by
 * exactly the core's classes and limits, arrive.h), 1 when the group is
 * good but took the general way (lengths not kept), -1 on error. */
static int parse_group(char *w, qs_group *g, unsigned char len3[3],
                       char *why, size_t whylen)
{
    char *colon, *at, *star;
    int64_t count = 1;
    /* The fast path: a group in its plain form (scan_group); any other
     * group (errors included) goes to the general code below untouched. */
    if (scan_group(w, g, len3))
        return 0;
    colon = strchr(w, ':');
    if (!colon) {
        snprintf(why, whylen, "\"%.100s\": want TRANSPORT:[LOCAL@]NEXTHOP"
                 "[*COUNT]", w);
        return -1;
    }
    *colon = 0;
    g->transport = w;
    w = colon + 1;
    if ((star = strchr(w, '*')) != NULL) {
        *star = 0;
        if (parse_count(star + 1, QS_COUNT_MAX, &count) < 0 || count < 1) {
            snprintf(why, whylen, "bad recipient count \"%.40s\" (1 .. "
                     "1000000000)", star + 1);
            return -1;
        }
    }
    g->local = NULL;
    if ((at = strchr(w, '@')) != NULL) {
        *at = 0;
        g->local = w;
        w = at + 1;
        if (!name_ok(g->local, 0, 64)) {
            snprintf(why, whylen, "bad local part \"%.64s\" (letters, "
                     "digits, .-_+; at most 64)", g->local);
            return -1;
        }
    }
    g->nexthop = w;
    g->count = count;
    if (!name_ok(g->transport, 1, 64)) {
        snprintf(why, whylen, "bad transport name \"%.64s\" (lower-case "
                 "letters, digits, -; at most 64)", g->transport);
        return -1;
    }
    if (!name_ok(g->nexthop, 0, 200)) {
        snprintf(why, whylen, "bad next-hop \"%.64s\" (letters, digits, "
                 ".-_+; at most 200)", g->nexthop);
        return -1;
    }
    return 1;
}

/* Room for at least n recipient groups (and their names' lengths) in the
 * stream's scratch arrays, which grow by doubling and are kept from line
 * to line.  Returns 0, or -1 out of memory (the arrays then keep their
 * old size; what was in them stays valid). */
static int ensure_groups(qs_stream *st, size_t n)
{
    size_t ncap = st->gcap ? st->gcap : 8;
    qs_group *g;
    unsigned char (*l)[3];
    if (n <= st->gcap)
        return 0;
    while (ncap < n)
        ncap *= 2;
    if (!(g = realloc(st->groups, ncap * sizeof *g)))
        return -1;
    st->groups = g;
    if (!(l = realloc(st->glens, ncap * sizeof *l)))
        return -1;
    st->glens = l;
    st->gcap = ncap;
    return 0;
}

/* The message of a checked arrive line to the core: its ngroups groups
 * in st->groups, their names' lengths in st->glens when every group was
 * measured by scan_group (the core need not scan the names again:
 * arrive.h), else the public call's measuring.  The line's status. */
static inline int arrive_groups(qs_stream *st, const char *msgid,
                                size_t ngroups, int measured, char *err,
                                size_t errlen)
{
    char why[256];
    if (HAVE_SCHED(st, err, errlen))
        return 2;
    if (qsi_arrive_measured(st->sched, msgid, st->groups, ngroups,
                            measured ? (const unsigned char(*)[3])st->glens
                                     : NULL,
                            why, sizeof why) < 0)
        return lerr(st, err, errlen, why, NULL);
    return 0;
}

/* `arrive MSGID GROUP...` (S-EV-7): every group is checked, and the total
 * recipient count bounded (S-EV-1), before the core sees the message, so
 * a bad group refuses the whole line. */
static int do_arrive(qs_stream *st, char **w, size_t nw, char *err,
                     size_t errlen)
{
    size_t i;
    int64_t total = 0;
    int measured = 1, rc;
    char why[256];
    if (nw < 3)
        return lerr(st, err, errlen, "arrive needs MSGID and at least one "
                    "TRANSPORT:NEXTHOP", NULL);
    if (!name_ok(w[1], 0, 64))
        return lerr(st, err, errlen, "bad message id (letters, digits, "
                    ".-_+; at most 64)", w[1]);
    if (ensure_groups(st, nw - 2) < 0)
        return lerr(st, err, errlen, "out of memory", NULL);
    for (i = 2; i < nw; i++) {
        rc = parse_group(w[i], &st->groups[i - 2], st->glens[i - 2], why,
                         sizeof why);
        if (rc < 0)
            return lerr(st, err, errlen, why, NULL);
        measured &= rc == 0;
        total += st->groups[i - 2].count;
        if (total > QS_COUNT_MAX)
            return lerr(st, err, errlen, "more than 1000000000 recipients "
                        "in one message", NULL);
    }
    return arrive_groups(st, w[1], nw - 2, measured, err, errlen);
}

/* NAME = VALUE (S-EV-2): blanks around name and value are dropped; the
 * value is checked by the core's parameter table at once, and the line is
 * remembered for S-EV-5 (blame_setting). */
static int do_param(qs_stream *st, char *line, char *eq, char *err,
                    size_t errlen)
{
    char *name = line, *value = eq + 1, *e;
    char why[256];
    if (st->sched)
        return lerr(st, err, errlen, "parameters must come before the "
                    "first event", NULL);
    *eq = 0;
    while (*name == ' ' || *name == '\t')
        name++;
    for (e = eq; e > name && (e[-1] == ' ' || e[-1] == '\t'); e--)
        e[-1] = 0;
    while (*value == ' ' || *value == '\t')
        value++;
    for (e = value + strlen(value); e > value && (e[-1] == ' ' ||
                                                  e[-1] == '\t'); e--)
        e[-1] = 0;
    if (!*name || strpbrk(name, " \t"))
        return lerr(st, err, errlen, "bad parameter name", name);
    if (!*value)
        return lerr(st, err, errlen, "empty parameter value", name);
    if (qs_params_set(st->params, name, value, why, sizeof why) < 0)
        return lerr(st, err, errlen, name, why);
    if (remember_setting(st, name, value) < 0)
        return lerr(st, err, errlen, "out of memory", NULL);
    return 0;
}

/* Is this line (comment already cut off) a parameter line?  It is when it
 * holds '=' (S-EV-1 step 4), unless it reads as an event or profile line
 * that merely contains '=' somewhere in its words: its first word is a verb
 * and more words follow before the '='.  Then the verb's own parser says
 * what is wrong (e.g. `arrive M1 smtp:a=b`: a bad next-hop), instead of a
 * misleading "parameters must come before the first event". */
static int is_param_line(const char *buf, const char *eq)
{
    static const char *const verbs[] = {"arrive", "at", "select", "done",
                                        "profile"};
    const char *p = buf, *w;
    size_t i, n;
    while (*p == ' ' || *p == '\t')
        p++;
    w = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (p > eq)
        return 1; /* the '=' is inside the first word: NAME=VALUE */
    n = (size_t)(p - w);
    for (i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strlen(verbs[i]) == n && strncmp(w, verbs[i], n) == 0)
            break;
    if (i == sizeof verbs / sizeof verbs[0])
        return 1;
    /* a verb: an event line if another word comes before the '=' */
    while (p < eq && (*p == ' ' || *p == '\t'))
        p++;
    return p == eq;
}

/* Copies the line into the scratch buffer as a C string, drops one CR
 * before the (already removed) LF and cuts off the comment (S-EV-1 steps
 * 3 and the CR rule). */
static void load_line(qs_stream *st, const char *line, size_t len)
{
    char *hash;
    memcpy(st->buf, line, len);
    st->buf[len] = 0;
    if (len && st->buf[len - 1] == '\r')
        st->buf[len - 1] = 0;
    if ((hash = strchr(st->buf, '#')) != NULL)
        *hash = 0;
}

/* The stream's word array, four times larger (16 words at first):
 * arrive lines' words, kept from line to line.  Returns 0, or -1 out of
 * memory (the array is then unchanged). */
static int grow_words(qs_stream *st)
{
    size_t ncap = st->wcap ? 4 * st->wcap : 16;
    char **w = realloc(st->words, ncap * sizeof *w);
    if (!w)
        return -1;
    st->words = w;
    st->wcap = ncap;
    return 0;
}

/* An `arrive` line in its plain form, read in one pass (issue 16: the
 * split into words, the message id's check and parse_group each read
 * every byte again, and arrive lines are the longest of a replay):
 *
 *     "arrive" ' '+ MSGID (' '+ TRANSPORT ':' [LOCAL '@'] NEXTHOP
 *                          ['*' COUNT])+ ' '*
 *
 * with a message id of name characters (1..64 bytes), every group in
 * the plain form scan_group reads (which parse_group reads too), at most
 * QS_GROUPS_MAX groups and QS_COUNT_MAX recipients in all.  The line is
 * copied to the stream's buffer and cut there as parse_group cuts its
 * words; the groups and their names' lengths go to st->groups and
 * st->glens, the message id to *msgid.  Returns the number of groups, or
 * 0 for any other line (a tab, a comment, a CR, a NUL, a leading zero, a
 * bad name, no memory...), which then takes the general path from the
 * start (load_line, split_words, do_arrive) and is accepted or refused
 * there with its reason.  This path refuses nothing itself, so it cannot
 * refuse differently; what it accepts, do_arrive accepts with the same
 * groups, as each test here is one of do_arrive's (tests/unit/
 * test_arrive_fast.c compares the two paths line by line). */
static size_t arrive_parse(qs_stream *st, const char *line, size_t len,
                           const char **msgid)
{
    char *p, *end, *w;
    size_t n = 0;
    int64_t total = 0;
    if (len + 1 > st->bufcap)
        return 0; /* the general path grows the buffer (none at first) */
    memcpy(st->buf, line, len);
    st->buf[len] = 0;
    end = st->buf + len;
    p = st->buf + 7; /* after "arrive " */
    while (*p == ' ')
        p++;
    /* the message id: name characters, then a blank */
    for (w = p; CH(*p, CH_NAME); p++)
        ;
    if (p - w < 1 || p - w > 64 || *p != ' ')
        return 0;
    *p++ = 0;
    *msgid = w;
    for (;;) {
        qs_group *g;
        while (*p == ' ')
            p++;
        if (p == end)
            break;
        if (n == QS_GROUPS_MAX || ensure_groups(st, n + 1) < 0)
            return 0;
        g = &st->groups[n];
        if (!(p = scan_group(p, g, st->glens[n])))
            return 0;
        /* the end of the group: a blank, or the end of the line (a NUL
         * before it is a NUL byte in the line) */
        if (*p == ' ')
            *p++ = 0;
        else if (p != end)
            return 0;
        total += g->count;
        if (total > QS_COUNT_MAX)
            return 0;
        n++;
    }
    return n;
}

/* `arrive` lines may have up to QS_GROUPS_MAX groups: split them into
 * the stream's word array, which grows to the longest line and is kept
 * (the other verbs have at most three words).  One split per line, no
 * allocation per line (issue 16).  More than QS_GROUPS_MAX groups is an
 * error, and so, with the same words, is an arrive line without its
 * message id (nw - 2 wraps around). */
static int arrive_line(qs_stream *st, const char *line, size_t len,
                       char *err, size_t errlen)
{
    size_t n;
    load_line(st, line, len);
    for (;;) {
        n = split_words(st->buf, st->words, st->wcap);
        if (n <= st->wcap)
            break;
        if (st->wcap > QS_GROUPS_MAX + 2)
            return lerr(st, err, errlen, "too many recipient groups "
                        "(limit 100000)", NULL);
        if (grow_words(st) < 0)
            return lerr(st, err, errlen, "out of memory", NULL);
        load_line(st, line, len);
    }
    if (n - 2 > QS_GROUPS_MAX)
        return lerr(st, err, errlen, "too many recipient groups (limit "
                    "100000)", NULL);
    return do_arrive(st, st->words, n, err, errlen);
}

/* 1 to max digits from p (max >= 8), the first not 0, up to the first
 * byte that is not a digit or to end: their value, and *after the byte
 * after them; or -1.
 *
 * Eight bytes at a time where eight are left before end, on a
 * little-endian machine (issue 16: a digit at a time was about 48
 * instructions for a handle of six digits, a twentieth of a done line's
 * reading; this is about 25).  Of the word w of the next 8 bytes, the
 * first in its lowest byte:
 *     a byte is a digit iff its high nibble is 3 and, with 6 added, is
 *     still 3 (0x30..0x39); the first byte that is not is the lowest
 *     byte with a bit of `bad`: its number k, from bad's lowest bit (an
 *     addition carries only upwards, from a byte at or after the first
 *     non-digit, so the bytes before it read true);
 *     the k digits' values, moved to the top bytes (the last digit in the
 *     highest), are combined in pairs, fours and eights: 10 * upper +
 *     lower, each step one multiplication over the whole word.
 * Eight digits go on one at a time, up to max.  The value is the same
 * as the loop's, which is what a big-endian machine or the last bytes
 * of a line or chunk run (tests/unit/test_chunk_line.c and
 * test_done_fast.c draw bytes around the digits, high bytes included). */
static inline int64_t chunk_number(const char *p, const char *end, int max,
                                   const char **after)
{
    const char *q = p, *stop = end - p > max ? p + max : end;
    int64_t v = 0;
    unsigned d;
    if (p >= end || *p < '1' || *p > '9')
        return -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    defined(__GNUC__)
    if (end - p >= 8) {
        const uint64_t nib = 0xF0F0F0F0F0F0F0F0ULL;
        const uint64_t threes = 0x3030303030303030ULL;
        uint64_t w, bad, x;
        int k;
        memcpy(&w, p, 8);
        bad = ((w & nib) ^ threes) | (((w + 0x0606060606060606ULL) & nib) ^
                                      threes);
        k = bad ? __builtin_ctzll(bad) >> 3 : 8; /* 1..8: p[0] is one */
        x = (w - threes) << (8 * (8 - k));        /* k = 8: no shift */
        x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFULL;
        x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFULL;
        x = (x * 10000 + (x >> 32)) & 0xFFFFFFFFULL;
        v = (int64_t)x;
        q = p + k;
        if (k < 8) {
            *after = q;
            return v;
        }
    }
#endif
    for (; q < stop && (d = (unsigned char)*q - '0') < 10; q++)
        v = v * 10 + d;
    *after = q;
    return v;
}

/* The outcome word of a `done` line at q - " ok", " fail" or " defer" -
 * as the line's last word: the line ends at end (a line given whole,
 * nl 0) or at a newline right after the word (a line in the input chunk,
 * nl 1).  Sets *o and returns the byte after the word, or NULL. */
static inline const char *outcome_word(const char *q, const char *end,
                                       int nl, enum qs_outcome *o)
{
    if (end - q >= 3 && memcmp(q, " ok", 3) == 0) {
        *o = QS_DONE_OK;
        q += 3;
    } else if (end - q >= 5 && memcmp(q, " fail", 5) == 0) {
        *o = QS_DONE_FAIL;
        q += 5;
    } else if (end - q >= 6 && memcmp(q, " defer", 6) == 0) {
        *o = QS_DONE_DEFER;
        q += 6;
    } else {
        return NULL;
    }
    return (nl ? q < end && *q == '\n' : q == end) ? q : NULL;
}

/* The canonical forms of the two other frequent lines, read without
 * copying and splitting the line: `done D<n> ok|fail|defer` with n of 1 to
 * 18 digits, the first not 0 (so 1 <= n < 2^62, what parse_count admits),
 * and `at <t>` with t of 1 to 9 digits (t < 2^33), single blanks, nothing
 * else on the line.  Returns the number and sets *outcome (done) or
 * returns -1: the line is not in that form and goes the general way.
 * The same readers as the input chunk's (chunk_line): chunk_number and
 * outcome_word, here with the line's end for its newline. */
static int64_t fast_number(const char *p, const char *end, int maxdigits)
{
    const char *after;
    int64_t v = chunk_number(p, end, maxdigits, &after);
    return v >= 0 && after == end ? v : -1;
}

static int64_t fast_done(const char *line, size_t len, enum qs_outcome *o)
{
    const char *end = line + len, *after;
    int64_t v;
    if (len < 10 || memcmp(line, "done D", 6) != 0 ||
        (v = chunk_number(line + 6, end, 18, &after)) < 0)
        return -1;
    return outcome_word(after, end, 0, o) ? v : -1;
}

/* The canonical `select` (S-EV-8, round robin), `done D<n> OUTCOME`
 * (S-EV-9) and `at <t>` (S-EV-6, below) lines, once read (the line
 * counted): what the general path of qs_stream_line does with them,
 * shared by its fast paths and by qs_stream_read's (chunk_line).  Not
 * inlined: the read loop stays small, and the general path's many locals
 * are not set up for them. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int select_line(qs_stream *st, char *err, size_t errlen)
{
    qs_delivery d;
    char why[256];
    if (HAVE_SCHED(st, err, errlen))
        return 2;
    if (qs_select(st->sched, NULL, &d, why, sizeof why) < 0)
        return lerr(st, err, errlen, why, NULL);
    return 0;
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int done_line(qs_stream *st, int64_t handle, enum qs_outcome o,
                     char *err, size_t errlen)
{
    char why[256];
    if (HAVE_SCHED(st, err, errlen))
        return 2;
    if (qs_done(st->sched, handle, o, why, sizeof why) < 0)
        return lerr(st, err, errlen, why, NULL);
    return 0;
}

/* `at <t>` in fast_number's form (1 to 9 digits, the first not 0; digits
 * is its number as written, for the message). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int at_line(qs_stream *st, int64_t t, const char *digits, size_t n,
                   char *err, size_t errlen)
{
    char why[256], written[16];
    if (HAVE_SCHED(st, err, errlen))
        return 2;
    if (qs_advance(st->sched, t, why, sizeof why) < 0) {
        memcpy(written, digits, n);
        written[n] = 0;
        return lerr(st, err, errlen, why, written);
    }
    return 0;
}

/* Feeds one line (S-EV-1 .. S-EV-9): checks the limits, then dispatches on
 * the verb; one valid line is exactly one call of the core API. */
int qs_stream_line(qs_stream *st, const char *line, size_t len, char *err,
                   size_t errlen)
{
    char *w[8], *eq;
    const char *msgid;
    size_t nw;
    int64_t v;
    int rc;
    char why[256];
    enum qs_outcome o;

    st->lineno++;
    /* S-EV-1 steps 1 and 2, in this order */
    if (len > QS_LINE_MAX)
        return lerr(st, err, errlen, "line too long (limit 1048576 bytes)",
                    NULL);
    /* The commonest line, exactly `select` (S-EV-8, round robin): what the
     * general path below does with it, without copying and splitting it
     * (issue 16: about one line in three of a replay). */
    if (len == 6 && memcmp(line, "select", 6) == 0)
        return select_line(st, err, errlen);
    if (len > 3 && line[0] == 'd' && (v = fast_done(line, len, &o)) > 0)
        return done_line(st, v, o, err, errlen);
    if (len > 3 && memcmp(line, "at ", 3) == 0 &&
        (v = fast_number(line + 3, line + len, 9)) >= 0)
        return at_line(st, v, line + 3, len - 3, err, errlen);
    /* an arrive line in its plain form, read in one pass (arrive_parse):
     * what do_arrive below does with it, every check already made */
    if (len > 7 && memcmp(line, "arrive ", 7) == 0 &&
        (nw = arrive_parse(st, line, len, &msgid)) > 0)
        return arrive_groups(st, msgid, nw, 1, err, errlen);
    if (memchr(line, 0, len))
        return lerr(st, err, errlen, "NUL byte in line", NULL);
    if (len + 1 > st->bufcap) {
        char *b = realloc(st->buf, len + 1);
        if (!b)
            return lerr(st, err, errlen, "out of memory", NULL);
        st->buf = b;
        st->bufcap = len + 1;
    }
    load_line(st, line, len);
    if ((eq = strchr(st->buf, '=')) != NULL && is_param_line(st->buf, eq))
        return do_param(st, st->buf, eq, err, errlen);

    nw = split_words(st->buf, w, 8);
    if (nw == 0)
        return 0; /* blank or comment only: counts for line numbers */
    if (w[0][0] == 'a' && strcmp(w[0], "arrive") == 0) {
        if (nw <= 8 && nw >= 3) /* split already: no second pass */
            return do_arrive(st, w, nw, err, errlen);
        return arrive_line(st, line, len, err, errlen);
    }
    if (nw > 3)
        return lerr(st, err, errlen, "too many words", w[0]);
    if (w[0][0] == 'p' && strcmp(w[0], "profile") == 0) {
        /* S-EV-5: a setting, like a parameter */
        if (nw != 2)
            return lerr(st, err, errlen, "usage: profile document|postfix",
                        NULL);
        return qs_stream_set_profile(st, w[1], err, errlen);
    }
    if (w[0][0] == 'a' && strcmp(w[0], "at") == 0) {
        /* S-EV-6; the limit 2^33 keeps the score products in 64 bits */
        if (nw != 2 || (rc = parse_count(w[1], (int64_t)1 << 33, &v)) == -1)
            return lerr(st, err, errlen, "usage: at T (T a whole number of "
                        "seconds, at most 2^33)", NULL);
        if (rc == -2)
            return lerr(st, err, errlen, "time out of range (at most 2^33 = "
                        "8589934592 seconds)", w[1]);
        if (HAVE_SCHED(st, err, errlen))
            return 2;
        if (qs_advance(st->sched, v, why, sizeof why) < 0)
            return lerr(st, err, errlen, why, w[1]);
        return 0;
    }
    if (w[0][0] == 's' && strcmp(w[0], "select") == 0) {
        /* S-EV-8: one delivery agent asks for work, on TRANSPORT or by
         * round robin; the core prints deliver or idle */
        qs_delivery d;
        if (nw > 2)
            return lerr(st, err, errlen, "usage: select [TRANSPORT]", NULL);
        if (nw == 2 && !name_ok(w[1], 1, 64))
            return lerr(st, err, errlen, "bad transport name", w[1]);
        if (HAVE_SCHED(st, err, errlen))
            return 2;
        if (qs_select(st->sched, nw == 2 ? w[1] : NULL, &d, why,
                      sizeof why) < 0)
            return lerr(st, err, errlen, why, NULL);
        return 0;
    }
    if (w[0][0] == 'd' && strcmp(w[0], "done") == 0) {
        /* S-EV-9: delivery D<n> (numbered in select order) finished */
        if (nw != 3)
            return lerr(st, err, errlen, "usage: done D<n> ok|fail|defer",
                        NULL);
        if (w[1][0] != 'D' || parse_count(w[1] + 1, (int64_t)1 << 62, &v) < 0
            || v < 1)
            return lerr(st, err, errlen, "bad delivery handle (want D1, D2, "
                        "...)", w[1]);
        if (strcmp(w[2], "ok") == 0)
            o = QS_DONE_OK;
        else if (strcmp(w[2], "fail") == 0)
            o = QS_DONE_FAIL;
        else if (strcmp(w[2], "defer") == 0)
            o = QS_DONE_DEFER;
        else
            return lerr(st, err, errlen, "bad outcome (want ok, fail or "
                        "defer)", w[2]);
        if (HAVE_SCHED(st, err, errlen))
            return 2;
        if (qs_done(st->sched, v, o, why, sizeof why) < 0)
            return lerr(st, err, errlen, why, NULL);
        return 0;
    }
    return lerr(st, err, errlen, "unknown verb", w[0]);
}

/* One read from in: read(2) on its descriptor when it has one (returns as
 * soon as some bytes are there, so a pipe is not waited on until a whole
 * chunk fills), else fread (memory streams).  Returns the byte count, 0 at
 * end of file, or -1 with errno set. */
static ssize_t read_some(FILE *in, char *buf, size_t n)
{
    int fd = fileno(in);
    ssize_t r;
    size_t got;
    if (fd >= 0) {
        do
            r = read(fd, buf, n);
        while (r < 0 && errno == EINTR);
        return r;
    }
    got = fread(buf, 1, n, in);
    if (got == 0 && ferror(in)) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return (ssize_t)got;
}

/* "FILE:LINE: cannot read: <the system's reason>" for the line being read,
 * the one after the last complete line. */
static int read_error(qs_stream *st, int e, char *err, size_t errlen)
{
    return lerr_at(st, st->lineno + 1, err, errlen, "cannot read",
                   strerror(e));
}

/* Feeds one complete line, then the caller's hook (invariant check, output
 * check).  Returns 0 to go on, or the status to stop with. */
static int feed(qs_stream *st, const char *line, size_t len,
                const qs_read_opts *o, char *err, size_t errlen)
{
    int rc = qs_stream_line(st, line, len, err, errlen);
    if (rc == 0 && o && o->after_line && (!o->wanted || *o->wanted))
        rc = o->after_line(o->ctx, st, err, errlen);
    return rc;
}

/* The three commonest lines read straight from the input chunk, their
 * end found as they are read (issue 16: finding each line's end first
 * with a memchr call, then dispatching it through qs_stream_line, whose
 * general path sets up a large frame, cost about 100 instructions a
 * line, a tenth of a replay): exactly "select\n",
 * "done D<n> ok|fail|defer\n" in fast_done's form (n of 1 to 18 digits,
 * the first not 0) and "at <t>\n" in fast_number's (1 to 9 digits, the
 * first not 0), wholly inside [p, end).  Returns the kind (CHUNK_SELECT,
 * CHUNK_DONE with *number and *o, CHUNK_AT with *number) and sets *len
 * to the line's length without its newline; or CHUNK_OTHER for any other
 * line, a line that goes on past the chunk, or one of these in another
 * form: those go the usual way and are accepted or refused there as
 * before.  What this accepts is exactly what qs_stream_line's own fast
 * paths accept, with the same call (select_line, done_line, at_line), so
 * a line is read the same whichever way it goes (tests/unit/
 * test_chunk_line.c). */
enum { CHUNK_OTHER, CHUNK_SELECT, CHUNK_DONE, CHUNK_AT };

static int chunk_line(const char *p, const char *end, size_t *len,
                      int64_t *number, enum qs_outcome *o)
{
    const char *q;
    if (end - p >= 7 && memcmp(p, "select\n", 7) == 0) {
        *len = 6;
        return CHUNK_SELECT;
    }
    if (end - p >= 11 && memcmp(p, "done D", 6) == 0) {
        if ((*number = chunk_number(p + 6, end, 18, &q)) < 0 ||
            !(q = outcome_word(q, end, 1, o)))
            return CHUNK_OTHER;
        *len = (size_t)(q - p);
        return CHUNK_DONE;
    }
    if (end - p >= 5 && memcmp(p, "at ", 3) == 0) {
        if ((*number = chunk_number(p + 3, end, 9, &q)) < 0 || q == end ||
            *q != '\n')
            return CHUNK_OTHER;
        *len = (size_t)(q - p);
        return CHUNK_AT;
    }
    return CHUNK_OTHER;
}

/* Reads a whole input into the stream, line by line (S-EV-1), in bounded
 * memory: a line is collected up to QS_LINE_MAX + 1 bytes and, if it goes
 * on, refused at once as too long without reading the rest.  So whatever
 * the input (a 200 MB line, /dev/zero), the memory used is about one line
 * limit, and a memory limit can only fail the allocation of at most that
 * much, which is reported as a read error with the system's reason, never
 * taken for the end of the input. */
int qs_stream_read(qs_stream *st, FILE *in, const qs_read_opts *o, char *err,
                   size_t errlen)
{
    enum { CHUNK = 1 << 16 };
    char *chunk = malloc(CHUNK), *acc = NULL;
    size_t alen = 0, acap = 0;
    long stop = o ? o->stop_before : 0;
    /* the hook, read once: the loop's stores through st could alias *o
     * (issue 16: its three loads and tests at every line were 1% of a
     * replay) */
    int (*hook)(void *, qs_stream *, char *, size_t) = o ? o->after_line
                                                         : NULL;
    void *hook_ctx = o ? o->ctx : NULL;
    const int *wanted = o ? o->wanted : NULL;
    int rc = 0;

    if (!chunk)
        return read_error(st, ENOMEM, err, errlen);
    for (;;) {
        ssize_t n = read_some(in, chunk, CHUNK);
        const char *p = chunk, *end;
        if (n < 0) {
            rc = read_error(st, errno, err, errlen);
            break;
        }
        if (n == 0) {
            /* end of input: a last line without a newline still counts */
            if (alen && !(stop > 0 && st->lineno + 1 >= stop))
                rc = feed(st, acc, alen, o, err, errlen);
            break;
        }
        end = chunk + n;
        while (p < end && rc == 0) {
            const char *nl;
            size_t seg, take;
            int64_t number;
            enum qs_outcome outcome;
            int kind;
            if (stop > 0 && st->lineno + 1 >= stop)
                goto done;
            if (alen == 0 && (kind = chunk_line(p, end, &seg, &number,
                                                &outcome)) != CHUNK_OTHER) {
                /* a select, done or at, read where it lies (chunk_line) */
#ifdef EVENT_CLOCK
                int k = kind == CHUNK_SELECT ? EC_SELECT
                        : kind == CHUNK_DONE ? EC_DONE : EC_OTHER;
                unsigned long long t0 = __rdtsc();
#endif
                st->lineno++; /* as qs_stream_line counts it */
                rc = kind == CHUNK_SELECT ? select_line(st, err, errlen)
                     : kind == CHUNK_DONE
                         ? done_line(st, number, outcome, err, errlen)
                         : at_line(st, number, p + 3, seg - 3, err, errlen);
#ifdef EVENT_CLOCK
                st->clock_ticks[k] += __rdtsc() - t0;
                st->clock_lines[k]++;
#endif
                if (rc == 0 && hook && (!wanted || *wanted))
                    rc = hook(hook_ctx, st, err, errlen);
                p += seg + 1;
                continue;
            }
            nl = memchr(p, '\n', (size_t)(end - p));
            seg = (size_t)((nl ? nl : end) - p);
            if (alen == 0 && nl && seg <= QS_LINE_MAX) {
                /* the common case: a whole line inside the chunk; feed's
                 * two steps written out (issue 16: its call, with six
                 * arguments to pass and four registers to save, was 1.5%
                 * of a replay) */
#ifdef EVENT_CLOCK
                {
                    int k = p[0] == 's' ? EC_SELECT : p[0] == 'd' ? EC_DONE
                            : seg > 1 && p[0] == 'a' && p[1] == 'r'
                                ? EC_ARRIVE : EC_OTHER;
                    unsigned long long t0 = __rdtsc();
                    rc = qs_stream_line(st, p, seg, err, errlen);
                    st->clock_ticks[k] += __rdtsc() - t0;
                    st->clock_lines[k]++;
                }
#else
                rc = qs_stream_line(st, p, seg, err, errlen);
#endif
                if (rc == 0 && hook && (!wanted || *wanted))
                    rc = hook(hook_ctx, st, err, errlen);
                p = nl + 1;
                continue;
            }
            /* a line across chunks: collect at most the limit + 1 */
            take = seg;
            if (take > (size_t)QS_LINE_MAX + 1 - alen)
                take = (size_t)QS_LINE_MAX + 1 - alen;
            if (alen + take > acap) {
                size_t ncap = acap ? acap : 4096;
                char *a;
                while (ncap < alen + take)
                    ncap *= 2;
                if (ncap > (size_t)QS_LINE_MAX + 1)
                    ncap = (size_t)QS_LINE_MAX + 1;
                a = realloc(acc, ncap);
                if (!a) {
                    rc = read_error(st, ENOMEM, err, errlen);
                    goto done;
                }
                acc = a;
                acap = ncap;
            }
            memcpy(acc + alen, p, take);
            alen += take;
            if (alen > QS_LINE_MAX) {
                /* over the limit: refused as too long (S-EV-1 step 1) */
                rc = feed(st, acc, alen, o, err, errlen);
                goto done;
            }
            if (nl) {
                rc = feed(st, acc, alen, o, err, errlen);
                alen = 0;
                p = nl + 1;
            } else {
                p = end;
            }
        }
        if (rc)
            break;
    }
done:
    free(acc);
    free(chunk);
    return rc;
}

/* The hook of qs_stream_run_file: the invariant checker after every line
 * (--check-invariants; *ctx is the mode `check` of events.h): what the
 * line changed (qs_check_changes), and the whole state every `check`
 * lines or, with check < 0, after every line (qs_check_invariants).
 * Status 3 on a broken invariant. */
static int check_hook(void *ctx, qs_stream *st, char *err, size_t errlen)
{
    char why[400], raw[512];
    int check = *(const int *)ctx, rc = 0;
    if (!st->sched)
        return 0;
    if (check > 0)
        rc = qs_check_changes(st->sched, why, sizeof why);
    st->checks++;
    if (rc == 0 && (check < 0 || (check > 1 && st->checks % check == 0)))
        rc = qs_check_invariants(st->sched, why, sizeof why);
#ifdef QSCHED_CROSSCHECK
    /* fuzz builds: the incremental checker agrees with the full one */
    if (check > 0 && (rc == 0) != (qs_check_invariants(st->sched, raw,
                                                       sizeof raw) == 0))
        abort();
#endif
    if (rc == 0)
        return 0;
    snprintf(raw, sizeof raw, "invariant broken: %s", why);
    lerr(st, err, errlen, raw, NULL);
    return 3;
}

/* Reads a whole stream into a new qs_stream, for callers that need no
 * hook of their own: returns 0, 2 on an input or read error, 3 on a broken
 * invariant (check set), with the message on errf.  The stream is kept in
 * *keep on success if asked. */
int qs_stream_run_file(FILE *in, const char *fname, qs_trace_sink sink,
                       void *ctx, const char *profile, int check,
                       qs_stream **keep, FILE *errf)
{
    qs_stream *st = qs_stream_new(fname, sink, ctx);
    qs_read_opts o = {0, NULL, NULL, NULL};
    char err[1024];
    int rc;
    if (!st) {
        fprintf(errf, "qsched: out of memory\n");
        return 2;
    }
    if (check) {
        o.after_line = check_hook;
        o.ctx = &check;
    }
    rc = profile ? qs_stream_set_profile(st, profile, err, sizeof err) : 0;
    if (rc == 0)
        rc = qs_stream_read(st, in, &o, err, sizeof err);
    if (rc == 0)
        rc = qs_stream_finish(st, err, sizeof err);
    /* the end of an incrementally checked stream: the whole state once */
    if (rc == 0 && check > 0 && st->sched) {
        char why[400], raw[512];
        if (qs_check_invariants(st->sched, why, sizeof why) < 0) {
            snprintf(raw, sizeof raw, "invariant broken: %s", why);
            lerr(st, err, sizeof err, raw, NULL);
            rc = 3;
        }
    }
    if (rc)
        fprintf(errf, "%s\n", err);
    if (keep && rc == 0)
        *keep = st;
    else
        qs_stream_free(st);
    return rc;
}
