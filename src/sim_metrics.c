/*
 * sim_metrics.c - what `qsched sim` measures and how it prints it.
 *
 * Owns (spec/sim.md, S-SIM-11): the counters and statistics of a run and their TSV / JSON forms
 * (spec/sim.md, "Metrics"):
 *   - % deferred on first delivery attempts, as the document measures it
 *     ("All results ... are based on the first delivery runs only"):
 *     deferred recipients / recipients attempted.  Deferred mail leaves
 *     the model, so every attempt is a first attempt;
 *   - client concurrency, the document's way: the window after each
 *     feedback event (Postfix logs it with
 *     destination_concurrency_feedback_debug), average and standard
 *     deviation over the run (conc_*); and the number of deliveries in
 *     flight averaged over time (inflight_*), for comparison;
 *   - failures by kind, in recipients (as the document's "timed-out in
 *     connect/greeting" columns count them: one per deferred recipient)
 *     and in deliveries;
 *   - per-message delay by class (mean, percentiles, max), the makespan of
 *     a class and the bulk inflation factor against a run without the
 *     other classes; throughput.
 * Every number is printed with a fixed format, so output is byte-stable.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

const char *const sim_kind_name[SIM_K_COUNT] = {
    "ok", "connect", "greeting", "421", "refused", "handshake", "reject",
    "dead", "noroute"};

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("qsched sim: out of memory\n", stderr);
        exit(3);
    }
    return q;
}

void sim_metrics_inflight(sim *s, int64_t delta)
{
    sim_metrics *m = &s->m;
    if (!m->f_started) {
        m->f_started = 1;
        m->f_first = m->f_since = s->now;
    }
    if (s->now > m->f_since) {
        double dt = (double)(s->now - m->f_since);
        m->f_area += (double)m->f_now * dt;
        m->f_area2 += (double)m->f_now * (double)m->f_now * dt;
        m->f_since = s->now;
    }
    m->f_last = s->now;
    m->f_now += delta;
}

void sim_metrics_window(sim *s, int window)
{
    sim_metrics *m = &s->m;
    if (m->w_n == 0 || window < m->w_min)
        m->w_min = window;
    if (m->w_n == 0 || window > m->w_max)
        m->w_max = window;
    m->w_sum += window;
    m->w_sum2 += (double)window * window;
    m->w_n++;
}

int sim_class_index(sim *s, const char *name)
{
    size_t i;
    sim_class *c;
    for (i = 0; i < s->nclasses; i++)
        if (strcmp(s->classes[i].name, name) == 0)
            return (int)i;
    s->classes = xrealloc(s->classes, (s->nclasses + 1) * sizeof *s->classes);
    c = &s->classes[s->nclasses];
    memset(c, 0, sizeof *c);
    c->name = xrealloc(NULL, strlen(name) + 1);
    memcpy(c->name, name, strlen(name) + 1);
    return (int)s->nclasses++;
}

void sim_classes_free(sim *s)
{
    size_t i;
    for (i = 0; i < s->nclasses; i++) {
        free(s->classes[i].name);
        free(s->classes[i].delays);
    }
    free(s->classes);
}

void sim_metrics_message_done(sim *s, sim_msg *m)
{
    sim_class *c = &s->classes[m->cls];
    if (c->ndelays == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->delays = xrealloc(c->delays, c->cap * sizeof *c->delays);
    }
    c->delays[c->ndelays++] = (double)(m->last_done - m->arrive) / SIM_SEC;
    c->done++;
    c->delivered += m->delivered;
    c->deferred += m->deferred;
    if (m->last_done > c->last_done)
        c->last_done = m->last_done;
    s->msgs_open--;
    if (s->delays)
        fprintf(s->delays, "%s\t%s\t%.6f\t%lld\t%lld\t%lld\t%.6f\n", m->id,
                c->name, (double)m->arrive / SIM_SEC, (long long)m->nrcpt,
                (long long)m->delivered, (long long)m->deferred,
                (double)(m->last_done - m->arrive) / SIM_SEC);
    if (s->nfinished == s->capfinished) {
        s->capfinished = s->capfinished ? s->capfinished * 2 : 64;
        s->finished = xrealloc(s->finished,
                               s->capfinished * sizeof *s->finished);
    }
    s->finished[s->nfinished++] = m;
}

void sim_series_sample(sim *s)
{
    int w = -1;
    if (!s->series)
        return;
    if (s->watch_dest >= 0) {
        sim_dest *d = s->dests[s->watch_dest];
        w = d->tracked && !d->dead ? d->window : d->dead ? 0 : -1;
    } else if (s->ndests == 1) {
        w = s->dests[0]->tracked && !s->dests[0]->dead ? s->dests[0]->window : -1;
    }
    fprintf(s->series, "%.3f\t%lld\t%d\n", (double)s->now / SIM_SEC,
            (long long)s->m.f_now, w);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted values */
static double pct(const double *v, size_t n, double p)
{
    size_t r;
    if (!n)
        return 0;
    r = (size_t)ceil(p / 100.0 * (double)n);
    if (r < 1)
        r = 1;
    return v[r - 1];
}

/* ---- printing: one key and value per line (TSV) or a JSON object ---- */

typedef struct out {
    FILE *f;
    int json, n;
} out;

static void put(out *o, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void put(out *o, const char *key, const char *fmt, ...)
{
    va_list ap;
    char val[256];
    va_start(ap, fmt);
    vsnprintf(val, sizeof val, fmt, ap);
    va_end(ap);
    if (o->json) {
        /* numbers stay bare; anything else is a string */
        char *end;
        int number = val[0] && (strtod(val, &end), *end == 0) &&
                     strcmp(val, "nan") != 0 && strcmp(val, "inf") != 0;
        fprintf(o->f, "%s  \"%s\": ", o->n++ ? ",\n" : "{\n", key);
        if (number)
            fputs(val, o->f);
        else {
            const char *p;
            fputc('"', o->f);
            for (p = val; *p; p++) {
                if (*p == '"' || *p == '\\')
                    fputc('\\', o->f);
                fputc(*p, o->f);
            }
            fputc('"', o->f);
        }
    } else {
        fprintf(o->f, "%s\t%s\n", key, val);
    }
}

static const char *policy_name(int p)
{
    static const char *const names[] = {"nqmgr", "oqmgr", "fifo", "finch"};
    return names[p];
}

static sim_us class_makespan(const sim *s, const char *name)
{
    size_t i;
    for (i = 0; i < s->nclasses; i++)
        if (strcmp(s->classes[i].name, name) == 0 && s->classes[i].done)
            return s->classes[i].last_done - s->classes[i].first_arrive;
    return -1;
}

void sim_metrics_print(sim *s, FILE *f, int json, const sim *base)
{
    const sim_metrics *m = &s->m;
    const sim_scenario *sc = s->sc;
    out o = {f, json, 0};
    int64_t attempted = m->delivered + m->deferred;
    double span = m->f_last > m->f_first ? (double)(m->f_last - m->f_first)
                                         : 0;
    double fa = span > 0 ? m->f_area / span : 0;
    double fv = span > 0 ? m->f_area2 / span - fa * fa : 0;
    double wa = m->w_n ? m->w_sum / (double)m->w_n : 0;
    double wv = m->w_n ? m->w_sum2 / (double)m->w_n - wa * wa : 0;
    sim_us start = m->first_arrive < 0 ? 0 : m->first_arrive;
    double dur = (double)(m->last_done - start) / SIM_SEC;
    char key[128];
    size_t i;
    int k;
    put(&o, "scenario", "%s", sc->fname);
    put(&o, "policy", "%s", policy_name(sc->policy));
    put(&o, "profile", "%s",
        sc->profile == QS_PROFILE_POSTFIX ? "postfix" : "document");
    put(&o, "seed", "%llu", (unsigned long long)sc->seed);
    put(&o, "recipients", "%lld", (long long)m->recipients);
    put(&o, "attempted", "%lld", (long long)attempted);
    put(&o, "delivered", "%lld", (long long)m->delivered);
    put(&o, "deferred", "%lld", (long long)m->deferred);
    put(&o, "deferred_pct", "%.2f",
        attempted ? 100.0 * (double)m->deferred / (double)attempted : 0.0);
    put(&o, "unfinished", "%lld", (long long)(m->recipients - attempted));
    put(&o, "deliveries", "%lld", (long long)m->deliveries);
    put(&o, "failed_deliveries", "%lld", (long long)m->failed);
    for (k = 1; k < SIM_K_COUNT; k++) {
        snprintf(key, sizeof key, "%s_rcpts", sim_kind_name[k]);
        put(&o, key, "%lld", (long long)m->kind_rcpts[k]);
        snprintf(key, sizeof key, "%s_deliveries", sim_kind_name[k]);
        put(&o, key, "%lld", (long long)m->kind_deliveries[k]);
    }
    put(&o, "conc_avg", "%.3f", wa);
    put(&o, "conc_stddev", "%.3f", wv > 0 ? sqrt(wv) : 0.0);
    put(&o, "conc_samples", "%lld", (long long)m->w_n);
    put(&o, "conc_min", "%d", m->w_min);
    put(&o, "conc_max", "%d", m->w_max);
    put(&o, "inflight_avg", "%.3f", fa);
    put(&o, "inflight_stddev", "%.3f", fv > 0 ? sqrt(fv) : 0.0);
    put(&o, "sessions_opened", "%lld", (long long)m->sessions_opened);
    put(&o, "sessions_reused", "%lld", (long long)m->sessions_reused);
    put(&o, "start", "%.3f", (double)start / SIM_SEC);
    put(&o, "end", "%.3f", (double)m->last_done / SIM_SEC);
    put(&o, "throughput", "%.3f",
        dur > 0 ? (double)m->delivered / dur : 0.0);
    for (i = 0; i < s->nclasses; i++) {
        sim_class *c = &s->classes[i];
        double sum = 0;
        size_t j;
        if (c->ndelays)
            qsort(c->delays, c->ndelays, sizeof *c->delays, cmp_double);
        for (j = 0; j < c->ndelays; j++)
            sum += c->delays[j];
#define CK(suffix) (snprintf(key, sizeof key, "class.%s.%s", c->name, suffix), key)
        put(&o, CK("messages"), "%lld", (long long)c->messages);
        put(&o, CK("finished"), "%lld", (long long)c->done);
        put(&o, CK("rcpts"), "%lld", (long long)c->rcpts);
        put(&o, CK("deferred"), "%lld", (long long)c->deferred);
        put(&o, CK("delay_mean"), "%.3f",
            c->ndelays ? sum / (double)c->ndelays : 0.0);
        put(&o, CK("delay_p50"), "%.3f", pct(c->delays, c->ndelays, 50));
        put(&o, CK("delay_p90"), "%.3f", pct(c->delays, c->ndelays, 90));
        put(&o, CK("delay_p99"), "%.3f", pct(c->delays, c->ndelays, 99));
        put(&o, CK("delay_max"), "%.3f",
            c->ndelays ? c->delays[c->ndelays - 1] : 0.0);
        {
            /* deliveries of this class in flight, averaged from its first
             * arrival to the end of the run */
            double area = c->f_area +
                          (double)c->f_now * (double)(s->now - c->f_since);
            sim_us cspan = s->now - c->first_arrive;
            put(&o, CK("inflight_avg"), "%.3f",
                c->messages && cspan > 0 ? area / (double)cspan : 0.0);
        }
        put(&o, CK("makespan"), "%.3f",
            c->done ? (double)(c->last_done - c->first_arrive) / SIM_SEC : 0.0);
#undef CK
    }
    if (base) {
        sim_us a = class_makespan(s, sc->bulk_class);
        sim_us b = class_makespan(base, sc->bulk_class);
        put(&o, "bulk_makespan", "%.3f", a >= 0 ? (double)a / SIM_SEC : 0.0);
        put(&o, "bulk_alone_makespan", "%.3f",
            b >= 0 ? (double)b / SIM_SEC : 0.0);
        put(&o, "inflation", "%.4f",
            a > 0 && b > 0 ? (double)a / (double)b : 0.0);
    }
    put(&o, "events", "%lld", (long long)m->events);
    if (json)
        fputs("\n}\n", f);
}
