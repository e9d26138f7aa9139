/*
 * concurrency_trace.c - the trace records of the concurrency scheduler:
 * what concurrency.c reports about each feedback step, safety test,
 * pseudo-cohort count and backoff, and the `window` line.
 *
 * Implements spec/trace.md for the records `safety` (S-CON-3, S-PFX-3,
 * S-PFX-6), `success` and `failure` ("After success" / "After failure" of
 * the document's pseudocode, S-CON-4, S-CON-5, S-CON-7, S-PFX-2),
 * `cohort` (S-CON-6, S-CON-8, S-PFX-1), `backoff` (S-CON-9 .. S-CON-11,
 * S-PFX-8) of the explain level, and `window` of the default level.
 *
 * Owns: building those records from a queue's state and handing them to
 * the sink.  May not: change any state (each function only reads the
 * queue it is given); concurrency.c decides when each is called.
 *
 * Why a file of its own: the rules (concurrency.c) and what is reported
 * about them are read separately, and the explain level is skipped here
 * as a whole when the caller does not want it (qs_sched_set_explain,
 * issue 16: a run printing only the default level built about one
 * concurrency record per delivery that nobody read).  The `window` line
 * is of the default level and always built.
 */
#include "sched_int.h"

static qs_trace conc_trace(enum qs_trace_kind kind, const qs_queue *q)
{
    qs_trace r;
    qsi_trace_start(&r, kind);
    r.transport = q->transport->name;
    r.dest = q->name;
    return r;
}

/* `safety`: S-CON-3 "Don't apply positive feedback unless concurrency <
 * busy_refcount + init_dest_concurrency", with the busy count the profile
 * uses (S-PFX-6), and in the postfix profile the limit stop first
 * (S-PFX-3). */
void qsi_conc_trace_safety(qs_sched *s, const qs_queue *q, int allowed)
{
    qs_trace r;
    if (!QSI_EXPLAIN(s))
        return; /* nobody reads it (qs_sched_set_explain) */
    r = conc_trace(QS_T_SAFETY, q);
    r.a = q->window;
    r.b = q->busy;
    r.c = q->transport->init_conc;
    r.d = q->transport->dest_conc_limit;
    r.e = allowed;
    r.f = qsi_postfix(s);
    qsi_emit(s, &r);
}

/* `success` / `failure`: one feedback step - the form and value of g(N)
 * or f(N), the counter before and after, the rounds of hysteresis 1 (each
 * adds or takes 1, at most two, kernels.c) and the window. */
void qsi_conc_trace_step(qs_sched *s, const qs_queue *q,
                         enum qs_trace_kind kind, const qs_feedback *fb,
                         int old, double value, double before, double after,
                         int guard)
{
    qs_trace r;
    double rounds;
    if (!QSI_EXPLAIN(s))
        return;
    r = conc_trace(kind, q);
    rounds = kind == QS_T_SUCCESS ? (before + value) - after
                                  : after - (before - value);
    r.a = old;
    r.b = q->window;
    r.c = q->transport->dest_conc_limit;
    r.d = guard;
    r.e = (int64_t)(rounds + 0.5); /* a whole number, up to rounding */
    r.f = fb->form;
    r.x = fb->base;
    r.y = value;
    r.z = before;
    r.w = after;
    qsi_emit(s, &r);
}

/* `cohort`: S-CON-6, S-CON-8 / S-PFX-1, the failed pseudo-cohorts against
 * the limit. */
void qsi_conc_trace_cohort(qs_sched *s, const qs_queue *q, double before,
                           int dead)
{
    qs_trace r;
    if (!QSI_EXPLAIN(s))
        return;
    r = conc_trace(QS_T_COHORT, q);
    r.a = q->window;
    r.b = q->transport->cohort_limit;
    r.c = dead;
    r.d = qsi_postfix(s);
    r.x = before;
    r.y = q->fail_cohorts;
    qsi_emit(s, &r);
}

/* `backoff`: S-CON-9 .. S-CON-11, S-PFX-8, the life of a dead
 * destination. */
void qsi_conc_trace_backoff(qs_sched *s, const qs_queue *q,
                            enum qs_backoff_case why)
{
    qs_trace r;
    if (!QSI_EXPLAIN(s))
        return;
    r = conc_trace(QS_T_BACKOFF, q);
    r.a = q->revive_at;
    r.b = s->min_backoff;
    r.c = s->now;
    r.d = why;
    qsi_emit(s, &r);
}

/* One `window T:DEST OLD NEW` line per feedback that moved the window,
 * however many steps it took (spec/trace.md).  Unchanged: nothing. */
void qsi_conc_trace_window(qs_sched *s, qs_queue *q, int old)
{
    qs_trace r;
    if (q->window == old)
        return;
    qsi_trace_start(&r, QS_T_WINDOW);
    qsi_trace_dest(&r, q);
    r.a = old;
    r.b = q->window;
    qsi_emit(s, &r);
}
