/*
 * monitor.c - the bounded model checker's independent shadow model and
 * every property it checks.
 *
 * Owns: following one path of events through the core's trace (the
 * qs_trace_sink), keeping an independent account of what the document says
 * the state must be (counters, stack levels, parents, blockers, windows,
 * fail_cohorts, dead destinations, deliveries in flight), and checking the
 * properties of bmc.h against it.  The shadow is derived from the events
 * fed and the document's rules, never from the core's own numbers: the
 * core's view (trace fields and the parsed qs_encode_state) is what gets
 * compared against it.  The arithmetic of the loan and inflation checks is
 * derived in docs/inflation.md; rule ids name spec/rules.md.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bmc.h"

const char *const bmc_prop_name[P_COUNT] = {
    [P_INV] = "invariants",
    [P_ACCT] = "accounting",
    [P_GATE] = "preempt-gate",
    [P_TEST] = "preempt-test",
    [P_CAND] = "candidate",
    [P_BOUND] = "counter-bound",
    [P_LOAN] = "loan-repaid",
    [P_REFUND] = "refund",
    [P_WINDOW] = "window",
    [P_DEAD] = "dead",
    [P_SELECT] = "select",
    [P_ORDER] = "order",
    [P_LIVE] = "liveness",
    [P_INFL] = "inflation-claim",
};

void mon_flag(monitor *m, int prop, const char *fmt, ...)
{
    va_list ap;
    if (!m->live || (m->viol & (1u << prop)))
        return;
    m->viol |= 1u << prop;
    va_start(ap, fmt);
    vsnprintf(m->why[prop], sizeof m->why[prop], fmt, ap);
    va_end(ap);
}

/* ---- the derived bounds (docs/inflation.md) ---- */

static long long ceil_div(long long a, long long b)
{
    /* b > 0 */
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* docs/inflation.md section 2.  The test alone (S-PRE-7): a preemption
 * fires from counter c >= 1 when floor(c/k) + L >= m(100-d)/100, i.e.
 * floor(c/k) >= ceil(m(100-d)/100) - L, so c >= max(1, k*(ceil(m(100-d)
 * /100) - L)), and leaves c - m*k; the lowest value over 1 <= m <= M is
 * what loan and discount allow.  The candidate cap (S-PRE-5) adds
 * c - m*k >= -(unselected entries) >= -(M - 1): a job has been selected
 * at least once before its counter is positive.  LB is the larger. */
long long bmc_counter_lb(int k, int loan, int discount, int max_needed)
{
    long long best = 0, m, cap = 1 - (long long)max_needed;
    int first = 1;
    for (m = 1; m <= max_needed; m++) {
        long long need = ceil_div(m * (100 - discount), 100) - loan;
        long long cmin = (long long)k * need;
        long long after;
        if (cmin < 1)
            cmin = 1;
        after = cmin - m * k;
        if (first || after < best)
            best = after;
        first = 0;
    }
    if (first)
        return 0;
    return best > cap ? best : cap;
}

/* docs/inflation.md section 4: the candidate-size cap of S-PRE-5
 * (needed <= (unselected + counter)/k) makes every loan repayable out of
 * the preempted job's own remaining entries, so loans and discount buy no
 * inflation at the end of a job: A = 0 for every k, loan and discount. */
long long bmc_allowance(int k, int loan, int discount)
{
    (void)k;
    (void)loan;
    (void)discount;
    return 0;
}

/* ---- helpers ---- */

static int job_of(const char *id)
{
    int n;
    if (!id || id[0] != 'M')
        return -1;
    n = atoi(id + 1);
    if (n < 1 || n > BMC_MAX_MSG)
        return -1;
    return n - 1;
}

static int dest_of(const char *name)
{
    return name ? enc_dest_index(name) : -1;
}

static int todo_total(const mjob *j)
{
    int d, t = 0;
    for (d = 0; d < BMC_NDEST; d++)
        t += j->todo[d];
    return t;
}

/* S-MEM-8: the scheduler's maximum entry estimate (read entries +
 * unread recipients) and what a job still needs: entries not dealt with
 * (an entry deferred by a dead destination counts as dealt with). */
static long long max_entries(const mjob *j)
{
    return (long long)j->E - j->dr;
}

static long long still_needed(const mjob *j)
{
    return (long long)todo_total(j) + j->unread;
}

static int has_work(const mjob *j)
{
    return todo_total(j) > 0 || j->unread > 0;
}

static int has_children(const monitor *m, int x)
{
    int i;
    for (i = 0; i < m->nmsg; i++)
        if (m->job[i].live && m->job[i].level > 0 && m->job[i].parent == x)
            return 1;
    return 0;
}

static long long floor_div(long long a, long long b)
{
    long long q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* S-PRE-7 recomputed: C integer division truncates toward zero; the core
 * never tests a counter <= 0 (the gate is first), so truncation and floor
 * agree wherever the test matters; floor is the document's meaning. */
static int test_fires(const monitor *m, long long counter, long long needed)
{
    const bmc_mix *x = m->mix;
    return 100 * (floor_div(counter, x->k) + x->loan) >=
           needed * (100 - x->discount);
}

/* ---- the shadow's own order (P_ORDER) ----
 * The scheduler's job list, its current job and each job's peer list are
 * kept here from the document's rules alone; the core's are only compared
 * with them (after every event) and its decisions checked against them
 * (during every select).  Nothing below reads the core's order.
 * The two readings of the current job (spec/readings.md) are modelled per
 * profile, each as its profile's default:
 *   document  R-13 blocker_release = pending, R-14 current_job =
 *             last_selected: a freed destination releases the blockers
 *             with a pending entry there; the current job is "the job
 *             whose entry was selected the last time" (it changes only
 *             with a selection, a preemption's child being selected, or
 *             when it leaves, R-7); selection walks the job list "in the
 *             order of the transport's job list" from its head, past the
 *             blockers (S-PRE-2).
 *   postfix   S-PFX-21 (blocker_release = all, current_job = walk_start):
 *             every blocker released at once; the current job is where
 *             the walk starts (the head after a release). */

/* the current job is where the walk starts (Postfix). */
static int walk_start(const monitor *m)
{
    return m->profile == QS_PROFILE_POSTFIX;
}

static int list_head(const monitor *m)
{
    return m->nlist > 0 ? m->list[0] : -1;
}

static int list_pos(const monitor *m, int ji)
{
    int i;
    for (i = 0; i < m->nlist; i++)
        if (m->list[i] == ji)
            return i;
    return -1;
}

static int list_next(const monitor *m, int ji)
{
    int p = list_pos(m, ji);
    return p >= 0 && p + 1 < m->nlist ? m->list[p + 1] : -1;
}

static void list_remove(monitor *m, int ji)
{
    int p = list_pos(m, ji);
    if (p < 0)
        return;
    memmove(&m->list[p], &m->list[p + 1],
            (size_t)(m->nlist - p - 1) * sizeof m->list[0]);
    m->nlist--;
}

static void list_insert(monitor *m, int pos, int ji)
{
    memmove(&m->list[pos + 1], &m->list[pos],
            (size_t)(m->nlist - pos) * sizeof m->list[0]);
    m->list[pos] = ji;
    m->nlist++;
}

/* S-PRE-13: a job is linked by its message's enqueue time, found from the
 * end of the list; only jobs without a stack parent are time markers
 * (preempting children sit out of time order), and a job linked in front
 * of the current job becomes the current job. */
static void shadow_link(monitor *m, int ji)
{
    int p, cur_behind = m->cur < 0;
    for (p = m->nlist - 1; p >= 0; p--) {
        const mjob *x = &m->job[m->list[p]];
        if (x->parent < 0 && m->job[ji].qtime - x->qtime >= 0)
            break;
        if (m->list[p] == m->cur)
            cur_behind = 1;
    }
    list_insert(m, p + 1, ji);
    /* under last_selected the current job stays the job selected
     * last (the walk from the head reaches the new job anyway) */
    if (cur_behind && walk_start(m))
        m->cur = ji;
}

/* A job leaving the list: the current job moves on to the next one. */
static void shadow_unlink(monitor *m, int ji)
{
    if (m->cur == ji)
        m->cur = list_next(m, ji);
    list_remove(m, ji);
}

/* The transport's queue list: a queue is appended when created and leaves
 * when discarded (S-CON-13). */
static void qorder_remove(monitor *m, int d)
{
    int i, n = 0;
    for (i = 0; i < m->nqorder; i++)
        if (m->qorder[i] != d)
            m->qorder[n++] = m->qorder[i];
    m->nqorder = n;
}

static int inflight_of(const monitor *m, int ji, int d)
{
    int i, n = 0;
    for (i = 0; i < m->nfl; i++)
        if (m->fl[i].job == ji && m->fl[i].dest == d)
            n++;
    return n;
}

/* A peer lives while it has pending or in-flight entries. */
static void peer_gc(monitor *m, int ji)
{
    mjob *j = &m->job[ji];
    int i, n = 0;
    for (i = 0; i < j->npeer; i++) {
        int d = j->peer[i];
        if (j->todo[d] > 0 || inflight_of(m, ji, d) > 0)
            j->peer[n++] = d;
    }
    j->npeer = n;
}

static void peer_ensure(monitor *m, int ji, int d)
{
    mjob *j = &m->job[ji];
    int i;
    for (i = 0; i < j->npeer; i++)
        if (j->peer[i] == d)
            return;
    j->peer[j->npeer++] = d;
}

/* S-PRE-15: the first peer, in round-robin order, whose destination is
 * alive, has window > deliveries in flight, and has a pending entry. */
static int peer_choice(const monitor *m, int ji)
{
    const mjob *j = &m->job[ji];
    int i;
    for (i = 0; i < j->npeer; i++) {
        int d = j->peer[i];
        const mdest *q = &m->dest[d];
        if (!q->dead && q->window > q->inflight && j->todo[d] > 0)
            return i;
    }
    return -1;
}

/* "the chosen peer goes to the end": the list continues after it. */
static void peer_rotate(monitor *m, int ji, int pos)
{
    mjob *j = &m->job[ji];
    int tmp[BMC_NDEST], i, n = 0;
    for (i = pos + 1; i < j->npeer; i++)
        tmp[n++] = j->peer[i];
    for (i = 0; i <= pos; i++)
        tmp[n++] = j->peer[i];
    memcpy(j->peer, tmp, (size_t)n * sizeof tmp[0]);
}

/* S-PRE-2: the walk skips blockers. */
static int walk_skip(const monitor *m, int w)
{
    while (w >= 0 && m->job[w].blocker)
        w = list_next(m, w);
    return w;
}

/* S-PRE-12 released by destination d.  Postfix (S-PFX-21): every
 * blocker of the transport released at once (every queue's tag with
 * them); the next selection starts from the head, which becomes the
 * current job.  Document (R-13 pending): "all jobs which have peers for
 * that destination are unblocked at once": the blockers with an entry
 * waiting at d; no other queue's tag changes (d's own is dropped by the
 * blocker update, tag_update), and the current job stays. */
static void shadow_release(monitor *m, int d)
{
    int i;
    if (!walk_start(m)) {
        for (i = 0; d >= 0 && i < m->nmsg; i++)
            if (m->job[i].blocker && m->job[i].todo[d] > 0)
                m->job[i].blocker = 0;
        return;
    }
    for (i = 0; i < m->nmsg; i++)
        m->job[i].blocker = 0;
    for (i = 0; i < BMC_NDEST; i++)
        m->qblock[i] = 0;
    m->cur = list_head(m);
}

/* Would a blocker update of destination d release the blockers now? */
static int release_due(const monitor *m, int d)
{
    const mdest *q = &m->dest[d];
    return m->qblock[d] && !q->dead && q->window > q->inflight && q->todo > 0;
}

/* The tag of a destination that can take a delivery again, or is dead, is
 * cleared by the update (S-PRE-12). */
static void tag_update(monitor *m, int d)
{
    const mdest *q = &m->dest[d];
    if ((!q->dead && q->window > q->inflight) || q->dead)
        m->qblock[d] = 0;
}

void mon_init(monitor *m, const bmc_mix *mix, bmc_stats *stats)
{
    int i;
    memset(m, 0, sizeof *m);
    m->mix = mix;
    m->profile = mix->profile;
    m->init_eff = mix->init;
    /* S-PFX-9 */
    if (mix->profile == QS_PROFILE_POSTFIX && mix->limit > 0 &&
        mix->init > mix->limit)
        m->init_eff = mix->limit;
    m->lb = bmc_counter_lb(mix->k, mix->loan, mix->discount, mix->max_needed);
    for (i = 0; i < BMC_NDEST; i++)
        m->dest[i].window = m->init_eff;
    m->stats = stats;
    m->last_dead_dest = -1;
    m->cur = -1;
    m->walk = -1;
}

/* ---- inflation and end-of-life checks ---- */

static int ratio_worse(long long s1, long long n1, long long s2, long long n2)
{
    /* s1/n1 > s2/n2, n >= 1; an empty record (n2 == 0) loses */
    return n2 == 0 || s1 * n2 > s2 * n1;
}

static void job_finished(monitor *m, int ji)
{
    mjob *j = &m->job[ji];
    const bmc_mix *x = m->mix;
    long long span, n, a;
    if (j->finished || j->first_h == 0)
        return;
    j->finished = 1;
    span = j->last_h - j->first_h + 1;
    n = max_entries(j);
    /* loan repaid: counter + unselected >= 0 with nothing unselected left */
    if (j->de == 0 && j->counter < 0)
        mon_flag(m, P_LOAN, "M%d made its last selection with counter %lld "
                 "< 0: a loan was never repaid", ji + 1, j->counter);
    if (m->stats && ratio_worse(span, n, m->stats->w_any_span,
                                m->stats->w_any_n)) {
        m->stats->w_any_span = span;
        m->stats->w_any_n = n;
    }
    if (!j->eligible || m->blocker_seen || x->k < 2)
        return;
    a = bmc_allowance(x->k, x->loan, x->discount);
    if (m->stats) {
        m->stats->eligible_checked++;
        if (span > n)
            m->stats->eligible_preempted++;
        if (j->rec) {
            if (ratio_worse(span, n, m->stats->w_r_span, m->stats->w_r_n)) {
                m->stats->w_r_span = span;
                m->stats->w_r_n = n;
            }
        } else if (ratio_worse(span, n, m->stats->w_nr_span,
                               m->stats->w_nr_n)) {
            m->stats->w_nr_span = span;
            m->stats->w_nr_n = n;
        }
    }
    if (j->rec) {
        /* span <= n*k/(k-1) + A */
        if (span * (x->k - 1) > n * x->k + a * (x->k - 1)) {
            m->claim_broken = 1;
            mon_flag(m, P_INFL, "M%d: %lld slots for %lld entries with "
                     "recursive preemption > n*k/(k-1) + A = %lld*%d/%d + "
                     "%lld", ji + 1, span, n, n, x->k, x->k - 1, a);
        }
    } else if (span * x->k > n * (x->k + 1) + a * x->k) {
        m->claim_broken = 1;
        mon_flag(m, P_INFL, "M%d: %lld slots for %lld entries without "
                 "recursive preemption > n*(k+1)/k + A = %lld*%d/%d + %lld",
                 ji + 1, span, n, n, x->k + 1, x->k, a);
    }
}

/* ---- expectations computed before an event ---- */

void mon_before_arrive(monitor *m, int shape)
{
    const bmc_shape *sh = &m->mix->shapes[shape];
    int ji = m->nmsg++, d;
    mjob *j = &m->job[ji];
    memset(j, 0, sizeof *j);
    j->live = 1;
    j->parent = j->orig_parent = -1;
    j->level = -1; /* linked when its first entry is read */
    for (d = 0; d < BMC_NDEST; d++) {
        j->entries[d] = sh->n[d];
        j->E += sh->n[d];
    }
    j->unread = j->E;
    j->qtime = m->now; /* the active queue is never full in these mixes */
    m->ev = L_ARRIVE0 + shape;
    m->ev_job = ji;
}

/* The candidate S-PRE-5/S-PRE-6 say the core must consider, from the
 * state before the select (job list order and current job as the core
 * has them; counters, blockers and stacks from the shadow). */
void mon_before_select(monitor *m)
{
    const enc_state *pre = m->pre;
    const bmc_mix *x = m->mix;
    int d, ready = 0, i, ci, pos = -1, best = -1;
    long long max_slots, bd = 0, bt = 1;
    mjob *cj;
    m->ev = L_SELECT;
    m->cand_expected = 0;
    m->cand_msg = -1;
    m->cand_cached = 0;
    if (m->profile == QS_PROFILE_POSTFIX) {
        /* S-PFX-17: the round robin offers the transport when the running
         * sum, over its live destinations in list order (the shadow's own
         * order of creation), of min(window - in flight, pending) reaches 1 */
        long long need = 1;
        for (i = 0; i < m->nqorder && !ready; i++) {
            const mdest *q;
            long long room;
            d = m->qorder[i];
            q = &m->dest[d];
            if (!q->exists || q->dead)
                continue;
            room = q->window - q->inflight;
            if ((need -= room < q->todo ? room : q->todo) <= 0)
                ready = 1;
        }
    } else {
        for (d = 0; d < BMC_NDEST; d++) {
            const mdest *q = &m->dest[d];
            if (q->exists && !q->dead && q->window > q->inflight &&
                q->todo > 0)
                ready = 1;
        }
    }
    /* S-PRE-14: the transport is served when a destination is ready (the
     * process limit, 100, is never reached here).  Postfix: the walk
     * starts at the shadow's current job.  Document (R-14 last_selected):
     * it goes from the head of the list past the blockers, and walks at
     * all only when that reaches a job; a preemption needs a current job
     * as well. */
    if (walk_start(m)) {
        m->sel_active = ready && m->cur >= 0;
        m->walk = m->sel_active ? m->cur : -1;
    } else {
        m->sel_active = ready && walk_skip(m, list_head(m)) >= 0;
        m->walk = m->sel_active ? list_head(m) : -1;
    }
    if (!m->live || x->k < 2 || !m->sel_active || m->cur < 0)
        return;
    ci = m->cur;
    cj = &m->job[ci];
    /* S-PRE-3 gate: counter > 0, max entries >= min_slots * k */
    if (cj->counter <= 0 ||
        max_entries(cj) < (long long)x->min_slots * x->k)
        return;
    /* S-PFX-20: Postfix's candidate cache answers for the same current
     * job in the same second, and a "none" at any time */
    if (m->profile == QS_PROFILE_POSTFIX && pre->has_cache &&
        pre->cache_cur == pre->cur &&
        (pre->cache_time == pre->T || pre->cache < 0)) {
        m->cand_cached = 1;
        if (pre->cache >= 0) {
            m->cand_expected = 1;
            m->cand_msg = job_of(pre->msg[pre->cache].id);
        }
        return;
    }
    max_slots = floor_div(todo_total(cj) + cj->counter, x->k);
    if (max_slots <= 0)
        return;
    pos = list_pos(m, ci);
    for (i = pos + 1; pos >= 0 && i < m->nlist; i++) {
        int xi = m->list[i];
        mjob *xj;
        long long total, needed, delay;
        xj = &m->job[xi];
        if (has_children(m, xi) || xj->blocker)
            continue;
        total = max_entries(xj);
        needed = still_needed(xj);
        delay = m->now - xj->qtime + 1;
        if (needed > 0 && needed <= max_slots &&
            (best < 0 || delay * bt > bd * total)) {
            best = xi;
            bd = delay;
            bt = total;
        }
    }
    if (best >= 0) {
        m->cand_expected = 1;
        m->cand_msg = best;
    }
}

void mon_before_done(monitor *m, int fl_index, int fail)
{
    mflight f = m->fl[fl_index];
    mdest *q = &m->dest[f.dest];
    const bmc_mix *x = m->mix;
    int postfix = m->profile == QS_PROFILE_POSTFIX;
    m->ev = L_DONE0 + 2 * fl_index + fail;
    m->ev_dest = f.dest;
    m->ev_job = f.job;
    m->ev_fail = fail;
    m->ev_alive = !q->dead;
    m->ev_busy_incl = q->inflight;
    m->expect_dead = m->saw_dead = m->expect_revive = m->saw_revive = 0;
    if (fail && !q->dead) {
        /* S-CON-6: fail_cohorts += 1/window, exactly */
        if (q->window < 1 || BMC_FC_DEN % q->window != 0)
            mon_flag(m, P_WINDOW, "u@%c: failure at window %d (outside "
                     "1..10)", 'a' + f.dest, q->window);
        else
            q->fc_num += BMC_FC_DEN / q->window;
        /* S-CON-8 (document: >), S-PFX-1 (postfix: >=, limit 0 never) */
        if (postfix)
            m->expect_dead = x->cohort_limit > 0 &&
                             q->fc_num >= (long long)x->cohort_limit *
                                              BMC_FC_DEN;
        else
            m->expect_dead =
                q->fc_num > (long long)x->cohort_limit * BMC_FC_DEN;
    } else if (!fail && !q->dead) {
        /* S-CON-4 via S-CON-3 (document: only when the safety rule lets
         * positive feedback through, busy without this delivery);
         * S-PFX-5 (postfix: on every positive feedback) */
        if (postfix || q->window < (q->inflight - 1) + m->init_eff)
            q->fc_num = 0;
    } else if (!fail && q->dead && postfix) {
        /* S-PFX-8: a success revives at once with the deliveries in
         * flight, this one included (S-PFX-6) */
        m->expect_revive = 1;
    }
    /* the delivery is over: it leaves the shadow's flight list now (the
     * core may discard the destination and read more within this call) */
    m->fl[fl_index] = m->fl[--m->nfl];
    m->job[f.job].completed++;
    q->inflight--;
}

void mon_before_tick(monitor *m)
{
    int d;
    m->ev = L_TICK;
    m->now++;
    m->ticks++;
    m->revive_expect_mask = 0;
    m->saw_revive = 0;
    for (d = 0; d < BMC_NDEST; d++)
        if (m->dest[d].dead && m->dest[d].revive_at <= m->now)
            m->revive_expect_mask |= 1 << d;
}

/* ---- the trace sink ---- */

static void on_deliver(monitor *m, const qs_trace *r)
{
    int ji = job_of(r->msg), d = dest_of(r->dest), i;
    mjob *j;
    mdest *q;
    if (ji < 0 || d < 0 || ji >= m->nmsg) {
        mon_flag(m, P_ACCT, "deliver of unknown job %s or destination %s",
                 r->msg, r->dest);
        return;
    }
    j = &m->job[ji];
    q = &m->dest[d];
    /* P_ORDER: the walk from the current job, past blockers, reaches this
     * job first, and its round robin offers this destination first. */
    if (m->ev == L_SELECT && m->sel_active) {
        int w = walk_skip(m, m->walk), pos = peer_choice(m, ji);
        if (w != ji)
            mon_flag(m, P_ORDER, "D%lld from %s; the walk from the current "
                     "job reaches %s%d first", (long long)r->handle, r->msg,
                     w >= 0 ? "M" : "the end", w >= 0 ? w + 1 : 0);
        else if (pos < 0 || j->peer[pos] != d)
            mon_flag(m, P_ORDER, "D%lld of %s for %s; its peer round robin "
                     "offers %s first", (long long)r->handle, r->msg, r->dest,
                     pos < 0 ? "nothing" : (j->peer[pos] ? "u@b" : "u@a"));
        if (pos >= 0)
            peer_rotate(m, ji, pos);
        m->cur = ji;
    } else if (m->ev == L_SELECT) {
        mon_flag(m, P_ORDER, "D%lld from %s in a select that should not "
                 "walk the job list (no current job or nothing ready)",
                 (long long)r->handle, r->msg);
    }
    m->delivered = 1;
    if (m->ev != L_SELECT)
        mon_flag(m, P_SELECT, "a delivery outside a select");
    if (q->dead)
        mon_flag(m, P_SELECT, "D%lld for dead destination %s",
                 (long long)r->handle, r->dest);
    else if (q->inflight >= q->window)
        mon_flag(m, P_SELECT, "D%lld for %s with window %d full (%d in "
                 "flight)", (long long)r->handle, r->dest, q->window,
                 q->inflight);
    if (j->todo[d] <= 0)
        mon_flag(m, P_SELECT, "D%lld: %s has no pending entry for %s",
                 (long long)r->handle, r->msg, r->dest);
    if (j->blocker)
        mon_flag(m, P_SELECT, "D%lld from blocker job %s",
                 (long long)r->handle, r->msg);
    if (m->nfl >= BMC_MAX_FLIGHT) {
        mon_flag(m, P_ACCT, "too many deliveries in flight");
        return;
    }
    m->fl[m->nfl].h = r->handle;
    m->fl[m->nfl].job = ji;
    m->fl[m->nfl].dest = d;
    m->nfl++;
    q->inflight++;
    q->todo--;
    j->todo[d]--;
    j->selected++;
    /* S-PRE-4: +1 per selected entry */
    j->counter++;
    j->used++;
    if (j->has_pre)
        j->acc_since++;
    if (j->first_h == 0) {
        /* inflation precondition: the oldest job with entries to select
         * when it first gets a slot, and no blocker so far */
        int older_busy = 0;
        for (i = 0; i < ji; i++)
            if (m->job[i].live && has_work(&m->job[i]))
                older_busy = 1;
        j->first_h = r->handle;
        j->eligible = !older_busy && !m->blocker_seen;
    }
    j->last_h = r->handle;
    if (!has_work(j))
        job_finished(m, ji);
}

static void check_bounds(monitor *m, int ji)
{
    mjob *j = &m->job[ji];
    if (j->counter < m->lb)
        mon_flag(m, P_BOUND, "M%d counter %lld below LB(k=%d, loan=%d, "
                 "discount=%d, M=%d) = %lld", ji + 1, j->counter, m->mix->k,
                 m->mix->loan, m->mix->discount, m->mix->max_needed, m->lb);
    if (j->de == 0 && j->counter + todo_total(j) < 0)
        mon_flag(m, P_BOUND, "M%d counter %lld + %d unselected entries < 0:"
                 " the loan can no longer be repaid", ji + 1, j->counter,
                 todo_total(j));
    if (m->stats && j->counter < m->stats->min_counter)
        m->stats->min_counter = j->counter;
}

static void on_preempt(monitor *m, const qs_trace *r, int fired)
{
    const bmc_mix *x = m->mix;
    int ci = job_of(r->msg), xi = job_of(r->msg2), i;
    mjob *cj, *xj;
    long long needed;
    if (ci < 0 || xi < 0 || ci >= m->nmsg || xi >= m->nmsg) {
        mon_flag(m, P_ACCT, "preemption record with unknown jobs");
        return;
    }
    cj = &m->job[ci];
    xj = &m->job[xi];
    needed = still_needed(xj);
    if (!m->saw_candidate || m->cand_msg != xi)
        mon_flag(m, P_CAND, "%s of %s by %s without that candidate",
                 fired ? "preemption" : "refused preemption", r->msg,
                 r->msg2);
    if (r->c != x->k || r->d != x->loan || r->e != x->discount)
        mon_flag(m, P_TEST, "test used k=%lld loan=%lld discount=%lld, the "
                 "mix says %d/%d/%d", (long long)r->c, (long long)r->d,
                 (long long)r->e, x->k, x->loan, x->discount);
    if (r->a != cj->counter)
        mon_flag(m, P_ACCT, "%s counter %lld, shadow %lld", r->msg,
                 (long long)r->a, cj->counter);
    if (r->b != needed)
        mon_flag(m, P_ACCT, "%s needs %lld slots, shadow %lld", r->msg2,
                 (long long)r->b, needed);
    if (test_fires(m, cj->counter, needed) != fired)
        mon_flag(m, P_TEST, "%s %s by %s at counter %lld, needed %lld: "
                 "%lld/%d + %d %s %lld*(100-%d)/100", fired ? "preempted" :
                 "not preempted", r->msg, r->msg2, cj->counter, needed,
                 cj->counter, x->k, x->loan, fired ? "<" : ">=", needed,
                 x->discount);
    if (!fired) {
        if (m->stats)
            m->stats->refused++;
        return;
    }
    /* S-PRE-3: never while counter <= 0 */
    if (cj->counter <= 0)
        mon_flag(m, P_GATE, "%s preempted by %s with counter %lld <= 0",
                 r->msg, r->msg2, cj->counter);
    /* loan repaid between two preemptions of the same job */
    if (cj->has_pre && cj->acc_since < 1 - cj->after_pre)
        mon_flag(m, P_LOAN, "%s preempted again after accumulating %lld "
                 "slots since its counter fell to %lld (needs >= %lld)",
                 r->msg, cj->acc_since, cj->after_pre, 1 - cj->after_pre);
    if (r->f != cj->level + 1)
        mon_flag(m, P_ACCT, "%s got level %lld, shadow %d + 1", r->msg2,
                 (long long)r->f, cj->level);
    /* S-PRE-8 */
    cj->counter -= needed * x->k;
    cj->has_pre = 1;
    cj->after_pre = cj->counter;
    cj->acc_since = 0;
    xj->used = -needed;
    xj->parent = xj->orig_parent = ci;
    xj->level = cj->level + 1;
    /* S-PRE-8: the candidate moves in front of the current job.  Postfix
     * (walk_start): it becomes the current job and the walk starts there.
     * Document (R-14 last_selected): it becomes current when its entry is
     * selected; the walk still goes from the head past the blockers (which
     * reaches it first unless a job in front was released). */
    if (m->cur != ci)
        mon_flag(m, P_ORDER, "%s preempted, but the current job is %s%d",
                 r->msg, m->cur >= 0 ? "M" : "none", m->cur + 1);
    list_remove(m, xi);
    {
        int cp = list_pos(m, ci);
        list_insert(m, cp >= 0 ? cp : 0, xi);
    }
    if (walk_start(m)) {
        m->cur = xi;
        m->walk = xi;
    } else {
        m->walk = list_head(m);
    }
    check_bounds(m, ci);
    if (m->stats) {
        m->stats->preemptions++;
        if (xj->level > 1)
            m->stats->recursive++;
    }
    if (xj->level > 1)
        for (i = 0; i < m->nmsg; i++)
            if (m->job[i].first_h && !m->job[i].finished)
                m->job[i].rec = 1;
}

/* Children of a job leaving its stack go to its parent (S-PRE-10), or
 * become orphans when it leaves the job lists. */
static void adopt(monitor *m, int ji, int new_parent)
{
    int i;
    for (i = 0; i < m->nmsg; i++)
        if (m->job[i].live && m->job[i].level > 0 &&
            m->job[i].parent == ji) {
            m->job[i].parent = new_parent;
            if (m->stats)
                m->stats->adoptions++;
        }
}

static void on_pop(monitor *m, const qs_trace *r)
{
    const bmc_mix *x = m->mix;
    int xi = job_of(r->msg), pi = r->msg2 ? job_of(r->msg2) : -1;
    mjob *xj;
    int expect, level_rule;
    if (xi < 0 || xi >= m->nmsg) {
        mon_flag(m, P_ACCT, "pop of unknown job %s", r->msg);
        return;
    }
    xj = &m->job[xi];
    if (pi != xj->parent)
        mon_flag(m, P_REFUND, "%s popped from parent %s, the shadow stack "
                 "says %s%d", r->msg, r->msg2 ? r->msg2 : "-",
                 xj->parent >= 0 ? "M" : "", xj->parent >= 0 ?
                 xj->parent + 1 : -1);
    if (xj->level <= 0)
        mon_flag(m, P_ACCT, "pop of %s at level %d", r->msg, xj->level);
    if (r->a != xj->used)
        mon_flag(m, P_ACCT, "%s used_delta %lld, shadow %lld", r->msg,
                 (long long)r->a, xj->used);
    /* the refund belongs to the job this one preempted, and only while
     * it is still its parent (not after an adoption) */
    expect = xj->parent >= 0 && xj->parent == xj->orig_parent;
    level_rule = xj->parent >= 0 &&
                 xj->level == m->job[xj->parent].level + 1;
    if (expect != level_rule)
        mon_flag(m, P_REFUND, "%s: original-parent rule (%d) and level "
                 "rule (%d) disagree", r->msg, expect, level_rule);
    if (r->b != expect)
        mon_flag(m, P_REFUND, "%s: refund %s to %s, original parent %s%d",
                 r->msg, r->b ? "given" : "refused", r->msg2 ? r->msg2 : "-",
                 xj->orig_parent >= 0 ? "M" : "", xj->orig_parent >= 0 ?
                 xj->orig_parent + 1 : -1);
    if (xj->parent >= 0) {
        mjob *pj = &m->job[xj->parent];
        /* S-PRE-9: parent -= used_delta * k */
        if (expect) {
            long long refund = -xj->used * x->k;
            pj->counter += refund;
            if (pj->has_pre)
                pj->acc_since += refund;
        }
        if (r->c != pj->counter)
            mon_flag(m, P_REFUND, "parent %s counter %lld after the pop of "
                     "%s, shadow %lld", r->msg2 ? r->msg2 : "-",
                     (long long)r->c, r->msg, pj->counter);
        if (m->stats) {
            if (expect)
                m->stats->pops_refund++;
            else
                m->stats->pops_norefund++;
        }
    }
    adopt(m, xi, xj->parent);
    xj->parent = -1;
    xj->level = 0;
}

static void on_leave_lists(monitor *m, int ji)
{
    mjob *j = &m->job[ji];
    if (j->level > 0)
        mon_flag(m, P_ACCT, "M%d left the job lists at level %d without a "
                 "pop", ji + 1, j->level);
    adopt(m, ji, -1);
    j->level = -1;
    j->parent = -1;
}

/* Two kinds of deferral (S-CON-9): entries pending for a destination
 * declared dead (right after its DEAD record; they count as selected), and
 * recipients read for a destination that is already dead (they never
 * become entries). */
static void on_defer(monitor *m, const qs_trace *r)
{
    int ji = job_of(r->msg), d = dest_of(r->dest);
    mjob *j;
    if (ji < 0 || d < 0 || ji >= m->nmsg) {
        mon_flag(m, P_ACCT, "defer of unknown job/destination");
        return;
    }
    j = &m->job[ji];
    if (!m->dest[d].dead)
        mon_flag(m, P_DEAD, "%s deferred for live destination %s", r->msg,
                 r->dest);
    /* Which kind: the job's entries pending at the death come first.  The
     * postfix profile may read other messages between the deferrals of
     * one death (S-PFX-18: a message reads more, or leaves, the moment
     * its last in-core recipient is dealt with), so the kind is told by
     * what the death left due, not by the record before. */
    if (j->death_due[d] > 0) {
        if (r->n > j->todo[d] || r->n > j->death_due[d]) {
            mon_flag(m, P_ACCT, "%lld entries of %s deferred for %s, %d "
                     "pending", (long long)r->n, r->msg, r->dest,
                     j->todo[d]);
            return;
        }
        j->todo[d] -= (int)r->n;
        j->death_due[d] -= (int)r->n;
        j->de += (int)r->n;
        m->dest[d].todo -= (int)r->n;
        peer_gc(m, ji);
    } else {
        if (r->n > j->pend_dr[d]) {
            mon_flag(m, P_ACCT, "%lld recipients of %s deferred for %s, %d "
                     "read for it", (long long)r->n, r->msg, r->dest,
                     j->pend_dr[d]);
            return;
        }
        j->pend_dr[d] -= (int)r->n;
        j->dr += (int)r->n;
    }
    if (!has_work(j))
        job_finished(m, ji);
}

/* S-MEM-1: a batch is the next recipients in the order written (u@a
 * ones first, then u@b); the postfix profile sorts within the batch
 * (S-PFX-11), which changes no count. */
static void on_read(monitor *m, const qs_trace *r)
{
    int ji = job_of(r->msg), i, live_any = 0;
    mjob *j;
    if (ji < 0 || ji >= m->nmsg) {
        m->last_dead_dest = -1;
        mon_flag(m, P_ACCT, "read of unknown message %s", r->msg);
        return;
    }
    j = &m->job[ji];
    /* S-PFX-16 (postfix profile): a read that fills its limit has not
     * seen the end of the file; the message counts as not fully read
     * until a later read, of 0 recipients if none is left, finds it.
     * Such a read brings nothing: deferrals of a death just announced
     * still follow (last_dead_dest kept) */
    if (r->n == 0 && m->profile == QS_PROFILE_POSTFIX && j->end_unseen &&
        j->unread == 0 && r->a == 0) {
        j->end_unseen = 0;
        return;
    }
    m->last_dead_dest = -1;
    m->read_seen = 1;
    peer_gc(m, ji);
    if (r->n < 1 || r->n > j->unread || j->unread - r->n != r->a) {
        mon_flag(m, P_ACCT, "%s read %lld leaving %lld, shadow has %d "
                 "unread", r->msg, (long long)r->n, (long long)r->a,
                 j->unread);
        return;
    }
    for (i = j->cursor; i < j->cursor + r->n; i++) {
        int d = i < j->entries[0] ? 0 : 1;
        mdest *q = &m->dest[d];
        if (q->dead) {
            j->pend_dr[d]++;
            continue;
        }
        if (!q->exists || (q->todo == 0 && q->inflight == 0)) {
            /* S-CON-1: a new destination (an idle live one has been
             * discarded by now) */
            q->exists = 1;
            q->window = m->init_eff;
            q->fc_num = 0;
            qorder_remove(m, d);
            m->qorder[m->nqorder++] = d;
        }
        if (!live_any && j->level < 0) {
            /* S-PRE-13, S-MEM-10: linked (or relinked) by enqueue time
             * with its first entry */
            shadow_link(m, ji);
            if (j->linked_once)
                j->expect_relink = 1;
            else
                j->level = 0;
            j->linked_once = 1;
        }
        if (!live_any && j->blocker) {
            /* a blocker that gets new entries is a blocker no more, and
             * the next selection starts from the head of the list (which
             * becomes the current job only under R-14 walk_start) */
            j->blocker = 0;
            if (walk_start(m))
                m->cur = list_head(m);
        }
        j->todo[d]++;
        q->todo++;
        peer_ensure(m, ji, d);
        live_any = 1;
    }
    j->cursor += (int)r->n;
    j->unread -= (int)r->n;
    j->end_unseen = m->profile == QS_PROFILE_POSTFIX && r->n == r->b;
}

void mon_sink(void *ctx, const qs_trace *r)
{
    monitor *m = ctx;
    int ji, d, i;
    switch (r->kind) {
    case QS_T_DELIVER:
        on_deliver(m, r);
        break;
    case QS_T_CANDIDATE:
        ji = job_of(r->msg2);
        m->saw_candidate = 1;
        if (!m->live || ji < 0)
            break;
        {
            int ci = job_of(r->msg);
            /* S-PRE-3: no attempt at all while the counter is <= 0 */
            if (ci >= 0 && ci < m->nmsg && m->job[ci].counter <= 0)
                mon_flag(m, P_GATE, "preemption of %s attempted (candidate "
                         "%s) with counter %lld <= 0", r->msg, r->msg2,
                         m->job[ci].counter);
        }
        if (!m->cand_expected)
            mon_flag(m, P_CAND, "candidate %s for %s, none expected (gate, "
                     "max_slots or eligibility)", r->msg2, r->msg);
        else if (ji != m->cand_msg)
            mon_flag(m, P_CAND, "candidate %s for %s, expected M%d", r->msg2,
                     r->msg, m->cand_msg + 1);
        else {
            const mjob *cj = &m->job[job_of(r->msg)];
            long long ms = floor_div(todo_total(cj) + cj->counter, m->mix->k);
            if (r->c != ms)
                mon_flag(m, P_CAND, "max_slots %lld, (unselected %d + "
                         "counter %lld)/%d = %lld", (long long)r->c,
                         todo_total(cj), cj->counter, m->mix->k, ms);
            /* a remembered candidate (S-PFX-20) may have become one */
            if (m->job[ji].blocker && !m->cand_cached)
                mon_flag(m, P_CAND, "candidate %s is a blocker", r->msg2);
        }
        m->cand_msg = ji;
        break;
    case QS_T_PREEMPT:
        on_preempt(m, r, 1);
        break;
    case QS_T_NOPREEMPT:
        on_preempt(m, r, 0);
        break;
    case QS_T_POP:
        on_pop(m, r);
        break;
    case QS_T_BLOCKER:
        ji = job_of(r->msg);
        if (ji < 0 || ji >= m->nmsg)
            break;
        /* S-PRE-11: the job the walk reaches has entries but no peer it
         * can select from; its destinations with pending entries are
         * marked as the blockers' cause */
        if (m->ev != L_SELECT || !m->sel_active ||
            walk_skip(m, m->walk) != ji)
            mon_flag(m, P_ORDER, "%s marked blocker; the walk is at %s%d",
                     r->msg, m->walk >= 0 ? "M" : "the end",
                     walk_skip(m, m->walk) + 1);
        else if (todo_total(&m->job[ji]) == 0 || peer_choice(m, ji) >= 0)
            mon_flag(m, P_ORDER, "%s marked blocker with %d pending entries "
                     "and %s selectable peer", r->msg,
                     todo_total(&m->job[ji]),
                     peer_choice(m, ji) >= 0 ? "a" : "no");
        for (d = 0; d < BMC_NDEST; d++)
            if (m->job[ji].todo[d] > 0)
                m->qblock[d] = 1;
        m->walk = list_next(m, ji);
        m->job[ji].blocker = 1;
        m->blocker_seen = 1;
        for (i = 0; i < m->nmsg; i++)
            m->job[i].eligible = 0;
        if (m->stats)
            m->stats->blockers++;
        break;
    case QS_T_UNBLOCK:
        /* S-PRE-12: released by a destination that carries the blocker
         * tag and can take a delivery again, or (document profile) that
         * has just been declared dead */
        d = dest_of(r->dest);
        if (d < 0 || !(release_due(m, d) ||
                       (m->profile == QS_PROFILE_DOCUMENT &&
                        m->died_tagged && m->last_dead_dest == d)))
            mon_flag(m, P_ORDER, "blockers released by %s, which %s",
                     r->dest ? r->dest : "-",
                     d >= 0 && m->qblock[d] ? "cannot take a delivery" :
                                              "caused no blocker");
        shadow_release(m, d);
        m->unblocked = 1;
        break;
    case QS_T_RETIRE:
        ji = job_of(r->msg);
        if (ji < 0 || ji >= m->nmsg)
            break;
        /* S-PRE-2: a job leaves the list when all its entries are selected
         * (right after its last delivery, or met by the walk stalled) */
        if (m->ev != L_SELECT)
            mon_flag(m, P_ORDER, "%s retired outside a select", r->msg);
        else if (m->delivered) {
            if (ji != m->cur || todo_total(&m->job[ji]) > 0 ||
                m->job[ji].unread > 0 || m->job[ji].end_unseen)
                mon_flag(m, P_ORDER, "%s retired after the delivery of "
                         "M%d", r->msg, m->cur + 1);
        } else if (ji != walk_skip(m, m->walk) ||
                   todo_total(&m->job[ji]) > 0) {
            mon_flag(m, P_ORDER, "%s retired as stalled; the walk is at "
                     "%s%d with %d pending", r->msg,
                     m->walk >= 0 ? "M" : "the end",
                     walk_skip(m, m->walk) + 1, todo_total(&m->job[ji]));
        } else {
            m->walk = list_next(m, ji);
        }
        shadow_unlink(m, ji);
        on_leave_lists(m, ji);
        break;
    case QS_T_IDLE:
        if (m->ev == L_SELECT && m->sel_active) {
            int w = walk_skip(m, m->walk);
            if (w >= 0 && !m->delivered)
                mon_flag(m, P_ORDER, "idle, but the walk reaches M%d, which "
                         "is no blocker", w + 1);
            /* Postfix has no current job when the walk finds
             * nothing; the document's stays the job selected last */
            if (walk_start(m))
                m->cur = -1;
        }
        break;
    case QS_T_READ:
        on_read(m, r);
        break;
    case QS_T_RELINK:
        ji = job_of(r->msg);
        if (ji < 0 || ji >= m->nmsg)
            break;
        if (!m->job[ji].expect_relink || m->job[ji].level >= 0)
            mon_flag(m, P_ACCT, "unexpected relink of %s", r->msg);
        m->job[ji].expect_relink = 0;
        m->job[ji].level = 0;
        m->job[ji].parent = -1;
        break;
    case QS_T_LEAVE:
        ji = job_of(r->msg);
        if (ji < 0 || ji >= m->nmsg)
            break;
        if (m->job[ji].level >= 0) {
            shadow_unlink(m, ji);
            on_leave_lists(m, ji);
        }
        if (r->a + r->b != m->job[ji].E || has_work(&m->job[ji]))
            mon_flag(m, P_ACCT, "%s left with %lld delivered + %lld "
                     "deferred, %d entries", r->msg, (long long)r->a,
                     (long long)r->b, m->job[ji].E);
        m->job[ji].live = 0;
        break;
    case QS_T_DEFER:
        on_defer(m, r);
        break;
    case QS_T_WINDOW:
        d = dest_of(r->dest);
        if (d < 0)
            break;
        if (r->a != m->dest[d].window)
            mon_flag(m, P_ACCT, "window %s from %lld, shadow %d", r->dest,
                     (long long)r->a, m->dest[d].window);
        if (m->ev < L_DONE0 || m->ev >= L_ARRIVE0 || m->ev_dest != d)
            mon_flag(m, P_WINDOW, "window %s changed outside a completion "
                     "there", r->dest);
        else if ((r->b > r->a) == m->ev_fail)
            mon_flag(m, P_WINDOW, "window %s %s after a %s", r->dest,
                     r->b > r->a ? "grew" : "shrank",
                     m->ev_fail ? "failure" : "success");
        m->dest[d].window = (int)r->b;
        break;
    case QS_T_DEAD:
        d = dest_of(r->dest);
        if (d < 0)
            break;
        if (m->ev < L_DONE0 || m->ev >= L_ARRIVE0 || m->ev_dest != d ||
            !m->expect_dead)
            mon_flag(m, P_DEAD, "%s declared dead; fail_cohorts = %lld/%d, "
                     "the cohort rule (%s limit %d) says alive", r->dest,
                     m->dest[d].fc_num, BMC_FC_DEN,
                     m->profile == QS_PROFILE_POSTFIX ? ">=" : ">",
                     m->mix->cohort_limit);
        m->saw_dead = 1;
        m->last_dead_dest = d;
        /* S-CON-9: every entry pending there is deferred now */
        for (ji = 0; ji < m->nmsg; ji++)
            if (m->job[ji].live)
                m->job[ji].death_due[d] = m->job[ji].todo[d];
        m->died_tagged = m->qblock[d];
        m->dest[d].dead = 1;
        m->dest[d].revive_at = m->now + m->mix->backoff;
        if (m->stats)
            m->stats->deaths++;
        break;
    case QS_T_REVIVE: {
        int want;
        d = dest_of(r->dest);
        if (d < 0)
            break;
        if (!m->dest[d].dead)
            mon_flag(m, P_DEAD, "%s revived while alive", r->dest);
        if (m->ev == L_TICK) {
            if (!(m->revive_expect_mask & (1 << d)))
                mon_flag(m, P_DEAD, "%s revived at %lld before its backoff "
                         "(due %lld)", r->dest, m->now,
                         m->dest[d].revive_at);
            m->revive_expect_mask &= ~(1 << d);
        } else if (!(m->expect_revive && m->ev_dest == d))
            mon_flag(m, P_DEAD, "%s revived outside a tick%s", r->dest,
                     m->profile == QS_PROFILE_POSTFIX ?
                     " or a success on it" : "");
        /* S-CON-10 document: initial window; S-PFX-4: in flight, else
         * initial (a success counts its own delivery, S-PFX-6) */
        want = m->init_eff;
        if (m->profile == QS_PROFILE_POSTFIX) {
            int busy = m->ev == L_TICK ? m->dest[d].inflight
                                       : m->ev_busy_incl;
            if (busy > 0)
                want = busy;
        }
        if (r->a != want)
            mon_flag(m, P_DEAD, "%s revived with window %lld, want %d",
                     r->dest, (long long)r->a, want);
        m->saw_revive = 1;
        m->dest[d].dead = 0;
        m->dest[d].window = (int)r->a;
        m->dest[d].fc_num = 0;
        /* qs_advance: each revival is followed by a blocker update */
        if (m->ev == L_TICK)
            tag_update(m, d);
        if (m->stats)
            m->stats->revivals++;
        break;
    }
    default:
        break;
    }
}

/* ---- after the event: compare with the core, state properties ---- */

static int enc_job_index(const enc_state *st, int enc_msg_index)
{
    if (enc_msg_index < 0 || enc_msg_index >= st->nmsg)
        return -1;
    return job_of(st->msg[enc_msg_index].id);
}

static void compare_job(monitor *m, const enc_state *st, const enc_job *e,
                        int on_list)
{
    int ji = enc_job_index(st, e->msg);
    mjob *j;
    int ep;
    if (ji < 0 || ji >= m->nmsg || !m->job[ji].live) {
        mon_flag(m, P_ACCT, "core has a job the shadow does not know");
        return;
    }
    j = &m->job[ji];
    ep = e->parent >= 0 ? enc_job_index(st, e->parent) : -1;
    if (on_list && (j->level != e->level || j->parent != ep))
        mon_flag(m, P_ACCT, "M%d level %d parent %d in the core, shadow "
                 "level %d parent %d", ji + 1, e->level, ep + 1, j->level,
                 j->parent + 1);
    if (!on_list && j->level != -1)
        mon_flag(m, P_ACCT, "M%d retired in the core, shadow level %d",
                 ji + 1, j->level);
    if (on_list && e->blocker != j->blocker)
        mon_flag(m, P_ACCT, "M%d blocker %d in the core, shadow %d", ji + 1,
                 e->blocker, j->blocker);
    if (e->a != j->counter || e->u != j->used)
        mon_flag(m, P_ACCT, "M%d counter/used %lld/%lld in the core, shadow "
                 "%lld/%lld", ji + 1, e->a, e->u, j->counter, j->used);
    if (e->s != j->selected + j->de || e->r != j->cursor - j->dr ||
        e->c != j->cursor - j->dr - j->de - j->completed)
        mon_flag(m, P_ACCT, "M%d selected/read/in-core %lld/%lld/%lld, "
                 "shadow %d/%d/%d", ji + 1, e->s, e->r, e->c,
                 j->selected + j->de, j->cursor - j->dr,
                 j->cursor - j->dr - j->de - j->completed);
}

void mon_after_event(monitor *m, const enc_state *post)
{
    const bmc_mix *x = m->mix;
    int d, i;
    /* the cohort rule's verdict must have happened */
    if (m->ev >= L_DONE0 && m->ev < L_ARRIVE0) {
        if (m->expect_dead && !m->saw_dead)
            mon_flag(m, P_DEAD, "u@%c: fail_cohorts %lld/%d, the cohort "
                     "rule (%s limit %d) says dead, the core kept it alive",
                     'a' + m->ev_dest, m->dest[m->ev_dest].fc_num,
                     BMC_FC_DEN,
                     m->profile == QS_PROFILE_POSTFIX ? ">=" : ">",
                     x->cohort_limit);
        if (m->expect_revive && !m->saw_revive)
            mon_flag(m, P_DEAD, "u@%c: a success on a dead destination did "
                     "not revive it (S-PFX-8)", 'a' + m->ev_dest);
    }
    if (m->ev == L_TICK && m->revive_expect_mask)
        mon_flag(m, P_DEAD, "a destination past its backoff stayed dead");
    if (m->ev == L_SELECT && m->cand_expected && !m->saw_candidate)
        mon_flag(m, P_CAND, "no candidate considered, M%d was valid",
                 m->cand_msg + 1);
    /* S-PRE-12 after a completion: the blocker update of its destination
     * (the document profile's death releases at once) */
    if (m->ev >= L_DONE0 && m->ev < L_ARRIVE0) {
        d = m->ev_dest;
        if (m->died_tagged && m->profile == QS_PROFILE_DOCUMENT &&
            !m->unblocked)
            mon_flag(m, P_ORDER, "u@%c died carrying the blocker tag and "
                     "released nothing", 'a' + d);
        if (!m->unblocked && !m->read_seen && release_due(m, d))
            mon_flag(m, P_ORDER, "u@%c can take a delivery again and "
                     "carries the blocker tag: no release", 'a' + d);
        tag_update(m, d);
    }
    /* a live destination with nothing pending and nothing in flight is
     * discarded; a new one starts from scratch */
    for (d = 0; d < BMC_NDEST; d++) {
        mdest *q = &m->dest[d];
        q->exists = q->dead || q->todo > 0 || q->inflight > 0;
        if (!q->exists) {
            q->window = m->init_eff;
            q->fc_num = 0;
            m->qblock[d] = 0;
            qorder_remove(m, d);
        }
    }
    for (i = 0; i < m->nmsg; i++) {
        mjob *j = &m->job[i];
        if (!j->live)
            continue;
        check_bounds(m, i);
        for (d = 0; d < BMC_NDEST; d++)
            if (j->pend_dr[d])
                mon_flag(m, P_DEAD, "M%d: %d recipients read for dead u@%c "
                         "were not deferred", i + 1, j->pend_dr[d], 'a' + d);
        if (j->expect_relink)
            mon_flag(m, P_ACCT, "M%d got entries but was not relinked",
                     i + 1);
        j->expect_relink = 0;
    }
    for (i = 0; i < m->nmsg; i++) {
        if (m->job[i].live)
            peer_gc(m, i);
        for (d = 0; d < BMC_NDEST; d++) {
            if (m->job[i].death_due[d])
                mon_flag(m, P_ACCT, "M%d: %d entries for %c pending at "
                         "the death were not deferred", i + 1,
                         m->job[i].death_due[d], 'a' + d);
            m->job[i].death_due[d] = 0;
        }
    }
    m->last_dead_dest = -1;
    m->saw_candidate = 0;
    m->cand_expected = 0;
    m->delivered = 0;
    m->sel_active = 0;
    m->walk = -1;
    m->unblocked = m->died_tagged = m->read_seen = 0;
    if (!post || !m->live)
        return;
    /* ---- P_ORDER: the core's order against the shadow's ---- */
    {
        int ok = post->nj == m->nlist;
        for (i = 0; ok && i < post->nj; i++)
            ok = enc_job_index(post, post->j[i].msg) == m->list[i];
        if (!ok) {
            char a[64] = "", b[64] = "";
            for (i = 0; i < post->nj && strlen(a) < 50; i++)
                snprintf(a + strlen(a), sizeof a - strlen(a), " M%d",
                         enc_job_index(post, post->j[i].msg) + 1);
            for (i = 0; i < m->nlist && strlen(b) < 50; i++)
                snprintf(b + strlen(b), sizeof b - strlen(b), " M%d",
                         m->list[i] + 1);
            mon_flag(m, P_ORDER, "job list%s in the core,%s by the rules", a,
                     b);
        }
        if ((post->cur >= 0 ? enc_job_index(post, post->cur) : -1) != m->cur)
            mon_flag(m, P_ORDER, "current job %s%d in the core, %s%d by the "
                     "rules", post->cur >= 0 ? "M" : "none ",
                     post->cur >= 0 ? enc_job_index(post, post->cur) + 1 : 0,
                     m->cur >= 0 ? "M" : "none ", m->cur + 1);
        for (i = 0; i < post->nj; i++) {
            int ji = enc_job_index(post, post->j[i].msg), k, same;
            if (ji < 0)
                continue;
            same = post->j[i].npeers == m->job[ji].npeer;
            for (k = 0; same && k < post->j[i].npeers; k++)
                same = post->j[i].peers[k] == m->job[ji].peer[k];
            if (!same)
                mon_flag(m, P_ORDER, "M%d peer order differs from the "
                         "round robin's", ji + 1);
        }
        for (i = 0; i < post->nq; i++) {
            int di = enc_dest_index(post->q[i].name);
            if (di >= 0 && post->q[i].b != m->qblock[di])
                mon_flag(m, P_ORDER, "%s blocker tag %d in the core, %d by "
                         "the rules", post->q[i].name, post->q[i].b,
                         m->qblock[di]);
        }
    }
    /* ---- the core against the shadow ---- */
    {
        int seen[BMC_NDEST] = {0};
        for (i = 0; i < post->nq; i++) {
            const enc_queue *eq = &post->q[i];
            int di = enc_dest_index(eq->name);
            mdest *q = &m->dest[di];
            seen[di] = 1;
            if (!q->exists)
                mon_flag(m, P_ACCT, "core keeps %s, the shadow discarded it",
                         eq->name);
            if (eq->dead != q->dead)
                mon_flag(m, P_DEAD, "%s dead=%d in the core, %d by the "
                         "cohort rule", eq->name, eq->dead, q->dead);
            if (!eq->dead) {
                if (eq->w != q->window)
                    mon_flag(m, P_ACCT, "%s window %d, shadow %d", eq->name,
                             eq->w, q->window);
                /* S-CON-5, S-INV-6: 1 <= window <= limit (0: no limit) */
                if (eq->w < 1 || (x->limit > 0 && eq->w > x->limit))
                    mon_flag(m, P_WINDOW, "%s window %d outside [1, %d]",
                             eq->name, eq->w, x->limit);
            } else if (eq->r != q->revive_at) {
                mon_flag(m, P_DEAD, "%s revives at %lld, shadow %lld",
                         eq->name, eq->r, q->revive_at);
            }
            if (eq->fc * BMC_FC_DEN < (double)q->fc_num - 1e-6 ||
                eq->fc * BMC_FC_DEN > (double)q->fc_num + 1e-6)
                mon_flag(m, P_DEAD, "%s fail_cohorts %s in the core, %lld/%d "
                         "recomputed", eq->name, eq->c_raw, q->fc_num,
                         BMC_FC_DEN);
            if (eq->ntodo != q->todo || eq->nbusy != q->inflight)
                mon_flag(m, P_ACCT, "%s pending/in flight %d/%d, shadow "
                         "%d/%d", eq->name, eq->ntodo, eq->nbusy, q->todo,
                         q->inflight);
        }
        for (d = 0; d < BMC_NDEST; d++)
            if (m->dest[d].exists && !seen[d])
                mon_flag(m, P_ACCT, "u@%c missing in the core", 'a' + d);
    }
    {
        int on[BMC_MAX_MSG] = {0};
        for (i = 0; i < post->nj; i++) {
            int ji = enc_job_index(post, post->j[i].msg);
            compare_job(m, post, &post->j[i], 1);
            if (ji >= 0)
                on[ji] = 1;
        }
        for (i = 0; i < post->nret; i++)
            compare_job(m, post, &post->ret[i], 0);
        for (i = 0; i < m->nmsg; i++)
            if (m->job[i].live && m->job[i].level >= 0 && !on[i])
                mon_flag(m, P_ACCT, "M%d on the shadow's job list, not in "
                         "the core's", i + 1);
    }
    {
        int live = 0;
        for (i = 0; i < m->nmsg; i++)
            live += m->job[i].live;
        if (live != post->nmsg + post->nwait)
            mon_flag(m, P_ACCT, "%d messages in the core, %d in the shadow",
                     post->nmsg + post->nwait, live);
    }
}

/* The path history the state key needs beyond the core state: per live
 * message (in the core's rank order) its shape, its inflation bookkeeping
 * (handles relative to the next handle), its original parent and the
 * counter after its last preemption; plus the path-wide blocker flag and
 * how much of the alphabet is left (arrivals, ticks). */
size_t mon_history(const monitor *m, const enc_state *st, char *buf,
                   size_t cap)
{
    long long w[16 + 12 * BMC_MAX_MSG];
    size_t n = 0, bytes;
    int i;
    w[n++] = m->blocker_seen;
    w[n++] = m->nmsg;
    w[n++] = m->ticks;
    for (i = 0; i < st->nmsg; i++) {
        int ji = job_of(st->msg[i].id), k, op = -1;
        const mjob *j;
        if (ji < 0)
            continue;
        j = &m->job[ji];
        for (k = 0; k < st->nmsg; k++)
            if (j->orig_parent >= 0 &&
                job_of(st->msg[k].id) == j->orig_parent)
                op = k;
        w[n++] = -200 - i;
        w[n++] = j->entries[0];
        w[n++] = j->entries[1];
        w[n++] = op;
        w[n++] = j->de * 1000 + j->dr;
        if (j->first_h && !j->finished) {
            w[n++] = j->first_h - st->H;
            w[n++] = j->last_h - st->H;
            w[n++] = j->eligible * 2 + j->rec;
        } else {
            w[n++] = 1; /* never a relative handle: those are < 0 */
        }
        if (j->has_pre) {
            w[n++] = j->after_pre;
            w[n++] = j->acc_since;
        } else {
            w[n++] = -300;
        }
    }
    bytes = n * sizeof w[0];
    if (bytes <= cap)
        memcpy(buf, w, bytes);
    return bytes;
}
