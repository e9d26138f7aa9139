/*
 * qstate.c - qsched's side of the state comparison with Postfix (a
 * debugging aid of the differential harness, issue 14).
 *
 * Owns: printing, after every event of a stream, qsched's memory and job
 * accounting in the canonical form that the harness prints for Postfix
 * (pfqmgr --state), so that `diff` of the two outputs shows the first
 * event after which the two schedulers' states differ, even when the
 * traces still agree.  The format (every line starts with "# ", so
 * `qsched verify` ignores it):
 *   # @LINE                         the event's line number
 *   # R T1 T2 ...                   the transport round robin, from where
 *                                   the next round-robin select starts
 *   # M ID limit L count C unread U  messages with jobs, by id
 *   # X T pool P cur ID unread ID   transports, by name
 *   # J T ID lvl L avail A used U sel S read R rlim L rcnt C blk B pos P
 *                                   jobs by transport and id; pos is the
 *                                   place on the scheduler's list, -1 if
 *                                   retired
 *   # Q T N NAME w W|dead busy B todo N: ID/R ...  destinations, by
 *                                   transport and in the order of the
 *                                   transport's list (N counts from 1),
 *                                   with the pending entries in order
 *                                   (message, recipients; the first ~500)
 * It reads the core's internal structures (sched_int.h): it is a test
 * tool, not part of the product.
 *
 * usage: qstate FILE
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_int.h"
#include "events.h"
#include "trace.h"

static void sink(void *ctx, const qs_trace *r)
{
    char buf[1024];
    (void)ctx;
    if (qs_trace_is_default(r) && qs_trace_format(r, 0, buf, sizeof buf))
        printf("%s\n", buf);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct line_set {
    char **v;
    size_t n, cap;
} line_set;

static void add(line_set *ls, const char *fmt, ...)
{
    char buf[9000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (ls->n == ls->cap) {
        ls->cap = ls->cap ? 2 * ls->cap : 64;
        ls->v = realloc(ls->v, ls->cap * sizeof *ls->v);
        if (!ls->v)
            abort();
    }
    ls->v[ls->n++] = strdup(buf);
}

static void flush(line_set *ls)
{
    size_t i;
    qsort(ls->v, ls->n, sizeof *ls->v, by_name);
    for (i = 0; i < ls->n; i++) {
        printf("%s\n", ls->v[i]);
        free(ls->v[i]);
    }
    ls->n = 0;
}

static void dump(const qs_sched *s, long lineno)
{
    line_set ms = {0}, xs = {0}, js = {0}, qs = {0};
    const qs_message *m;
    const qs_transport *t;
    printf("# @%ld\n# R", lineno);
    if (s->rr) {
        t = s->rr;
        do {
            printf(" %s", t->name);
            t = t->rr_next;
        } while (t != s->rr);
    }
    printf("\n");
    for (m = s->active_head; m; m = m->next)
        if (m->jobs)
            add(&ms, "# M %s limit %lld count %lld unread %lld", m->id,
                (long long)m->rcpt_limit, (long long)m->rcpt_count,
                (long long)m->rcpt_unread);
    for (t = s->xhead; t; t = t->next) {
        const qs_queue *q;
        int qn = 0;
        add(&xs, "# X %s pool %lld cur %s unread %s", t->name,
            (long long)t->rcpt_unused,
            t->job_current ? t->job_current->message->id : "-",
            t->job_next_unread ? t->job_next_unread->message->id : "-");
        for (q = t->qhead; q; q = q->next) {
            char todo[8000];
            const qs_entry *e;
            size_t used = 0;
            todo[0] = 0;
            for (e = q->todo_head; e && used < sizeof todo - 80; e = e->qnext)
                used += (size_t)snprintf(todo + used, sizeof todo - used,
                                         " %s/%lld", e->peer->job->message->id,
                                         (long long)e->nrcpt);
            qn++;
            if (q->dead)
                add(&qs, "# Q %s %04d %s w dead busy %lld todo %lld:%s",
                    t->name, qn, q->name, (long long)q->busy,
                    (long long)q->todo, todo);
            else
                add(&qs, "# Q %s %04d %s w %d busy %lld todo %lld:%s",
                    t->name, qn, q->name, q->window, (long long)q->busy,
                    (long long)q->todo, todo);
        }
    }
    for (m = s->active_head; m; m = m->next) {
        const qs_job *j;
        for (j = m->jobs; j; j = j->mnext) {
            const qs_job *k;
            long pos = -1, i = 0;
            if (j->stack_level >= 0)
                for (k = j->transport->jhead; k; k = k->lnext, i++)
                    if (k == j)
                        pos = i;
            add(&js, "# J %s %s lvl %d avail %lld used %lld sel %lld read "
                "%lld rlim %lld rcnt %lld blk %d pos %ld", j->transport->name,
                m->id, j->stack_level, (long long)j->slots_available,
                (long long)j->slots_used, (long long)j->selected_entries,
                (long long)j->read_entries, (long long)j->rcpt_limit,
                (long long)j->rcpt_count, QS_IS_BLOCKER(j) ? 1 : 0, pos);
        }
    }
    flush(&ms);
    flush(&xs);
    flush(&js);
    flush(&qs);
    free(ms.v);
    free(xs.v);
    free(js.v);
    free(qs.v);
}

int main(int argc, char **argv)
{
    FILE *in;
    qs_stream *st;
    char *line = NULL, why[512];
    size_t cap = 0;
    ssize_t n;
    if (argc != 2 || !(in = fopen(argv[1], "r"))) {
        fprintf(stderr, "usage: qstate FILE\n");
        return 2;
    }
    st = qs_stream_new(argv[1], sink, NULL);
    while ((n = getline(&line, &cap, in)) >= 0) {
        size_t len = (size_t)n;
        const qs_sched *s;
        if (len && line[len - 1] == '\n')
            len--;
        if (qs_stream_line(st, line, len, why, sizeof why) != 0) {
            fprintf(stderr, "%s\n", why);
            return 2;
        }
        s = qs_stream_sched(st);
        if (s && qs_stream_lineno(st) > 0 && strspn(line, " \t") < len &&
            line[strspn(line, " \t")] != '#' && !strchr(line, '=') &&
            strncmp(line + strspn(line, " \t"), "profile", 7) != 0)
            dump(s, qs_stream_lineno(st));
    }
    free(line);
    fclose(in);
    qs_stream_free(st);
    return 0;
}
