/*
 * candidates.c - the candidate index: the preemption candidate of
 * SCHEDULER_README "How the preemption works" found without walking the
 * job list.
 *
 * Owns: one search tree per transport (that preempts at all: slot cost >=
 * 2, S-PRE-3) over the jobs of its scheduler's job list, and the query
 * qsi_cix_candidate.  Exists for speed only (issue 16): the document's
 * candidate (S-PRE-5, S-PRE-6) is "the job after the current one, not
 * preempted, not a blocker, whose remaining entries fit in max_slots, with
 * the best score delay/total" - a walk of the job list, which costs O(jobs)
 * per selection whenever the walk cannot stop early (equal enqueue times,
 * totals > 1, nothing that fits).  The index gives exactly the same job:
 * the same candidates, the same strict comparison of exact scores
 * (kernels.c), the same tie rule (the first in list order wins).
 * QSCHED_CROSSCHECK builds (fuzzing, tests/identity.sh) compare every answer
 * with the walk (preempt.c).  May not: decide anything itself; every test
 * is the kernels' or the walk's.
 *
 * The structure.  A treap (a binary search tree balanced by random
 * priorities; here the priority is a hash of the job's serial number, so it
 * is deterministic) whose in-order sequence IS the scheduler's job list:
 * jobs.c and preempt.c insert, remove and move jobs in the tree wherever
 * they do it in the list.  Every node carries, for the jobs of its subtree
 * that could ever fit (needed = total - selected >= 1):
 *   cix_min_needed  the fewest remaining entries      (the fit test)
 *   cix_min_queued  the earliest enqueue time         (the largest delay)
 *   cix_min_total   the fewest entries in total       (the denominator)
 * so that for a whole subtree the query knows (a) whether any job in it can
 * fit (min_needed <= max_slots) and (b) an upper bound of every score in
 * it: delay <= now - min_queued + 1 and total >= min_total.  The query
 * walks the tree in list order from the current job (its suffix: "Only
 * jobs after the current one") and skips every subtree in which nothing
 * fits or nothing can beat the best score found so far (a later job must
 * be strictly better, S-PRE-6, so "bound <= best" skips).  Blockers and
 * preempted jobs are left out at the node (they are few after the current
 * job, and keeping them out of the aggregates would need a hook at every
 * blocker release).
 *
 * Cost.  Insert, remove, move: O(log n) expected (height of a treap).
 * Changing a job's counters (an entry selected or deferred, a batch read)
 * re-aggregates its path upward and stops as soon as a node is unchanged.
 * A query visits O(log n) nodes when the bounds prune (no fit: one node;
 * equal enqueue times: the nodes on the way to each new best total), in
 * the worst case (bounds that never prune) every node, like the walk.
 * The measured costs are in docs/performance.md.
 */
#include <stdint.h>
#if defined(QS_CONTRACT_CHECKS) || defined(QSCHED_CROSSCHECK)
#include <stdio.h> /* checking builds only: cix_bound_may_beat's abort */
#include <stdlib.h>
#endif
#include "sched_int.h"
#include "kernels.h"

/* CIX_NONE is the aggregate of "no job": larger than every real count or
 * time, so a subtree without a fitting job never passes the fit test
 * (cix_min_needed > max_slots) and min64 ignores it. */
#define CIX_NONE INT64_MAX

/* The treap priority: a fixed hash (splitmix64's finaliser) of the job's
 * serial, so that the shape of the tree, like every decision, depends on
 * the input only. */
static uint64_t cix_priority(uint64_t serial)
{
    uint64_t z = serial + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The minimum of two aggregates; CIX_NONE is its neutral element. */
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Recomputes x's aggregates from its own counters and its children's
 * aggregates; returns 1 if they changed. */
/* Why these three minima are enough (the argument of the whole file): for
 * every job J in the subtree, needed(J) >= cix_min_needed, so if even the
 * minimum exceeds max_slots no job fits (S-PRE-5); and score(J) =
 * delay(J)/total(J) <= (now - cix_min_queued + 1) / cix_min_total, because
 * delay grows as the enqueue time falls and the score falls as the total
 * grows.  The two minima may come from different jobs: the bound is then
 * loose, never wrong.  Blockers and preempted jobs are counted here too
 * (a superset), which also only loosens the bound.  cix_min_free is for
 * job_link, not for the query (see qsi_cix_time_marker).  The return
 * value lets cix_pull_path stop early. */
static int cix_pull(qs_job *x)
{
    int64_t total = QS_MAX_ENTRIES(x);
    int64_t needed = total - x->selected_entries;
    int64_t mn = CIX_NONE, mq = CIX_NONE, mt = CIX_NONE, size = 1;
    int64_t mf = x->parent ? CIX_NONE : x->message->queued_time;
    const qs_job *c;
    int changed;
    if (needed > 0) {
        /* S-PRE-5: only a job with remaining entries can ever fit */
        mn = needed;
        mq = x->message->queued_time;
        mt = total;
    }
    /* fold in the children's minima, which are up to date: every caller
     * pulls bottom-up */
    if ((c = x->cix_left) != NULL) {
        mn = min64(mn, c->cix_min_needed);
        mq = min64(mq, c->cix_min_queued);
        mt = min64(mt, c->cix_min_total);
        mf = min64(mf, c->cix_min_free);
        size += c->cix_size;
    }
    if ((c = x->cix_right) != NULL) {
        mn = min64(mn, c->cix_min_needed);
        mq = min64(mq, c->cix_min_queued);
        mt = min64(mt, c->cix_min_total);
        mf = min64(mf, c->cix_min_free);
        size += c->cix_size;
    }
    /* "changed" compares all five fields: if none moved, no ancestor's
     * minimum can move either, so the upward repair may stop here */
    changed = mn != x->cix_min_needed || mq != x->cix_min_queued ||
              mt != x->cix_min_total || mf != x->cix_min_free ||
              size != x->cix_size;
    x->cix_min_needed = mn;
    x->cix_min_queued = mq;
    x->cix_min_total = mt;
    x->cix_min_free = mf;
    x->cix_size = size;
    return changed;
}

/* x takes its parent's place (one rotation); the in-order sequence, i.e.
 * the job list, is unchanged. */
/* Rotations are how the treap keeps its heap order on priorities (and so
 * its expected O(log n) height) without ever reordering the list: x's
 * inner subtree changes parent, nothing changes in-order position.  Were
 * the order to change, "the jobs after the current one" and the tie rule
 * (the earlier job wins) would both be answered for a different list. */
static void cix_rotate_up(qs_transport *t, qs_job *x)
{
    qs_job *p = x->cix_up, *g = p->cix_up;
    if (p->cix_left == x) {
        p->cix_left = x->cix_right;
        if (x->cix_right)
            x->cix_right->cix_up = p;
        x->cix_right = p;
    } else {
        p->cix_right = x->cix_left;
        if (x->cix_left)
            x->cix_left->cix_up = p;
        x->cix_left = p;
    }
    p->cix_up = x;
    x->cix_up = g;
    if (!g)
        t->cix_root = x;
    else if (g->cix_left == p)
        g->cix_left = x;
    else
        g->cix_right = x;
    /* p is now x's child: pull it first, x's minima are built from it */
    cix_pull(p);
    cix_pull(x);
}

/* Re-aggregates x and its ancestors, up to the first that does not
 * change (above it nothing can: every other node is up to date). */
/* Sound because a node's aggregates depend only on itself and its two
 * children: an ancestor above an unchanged node sees the same inputs. */
static void cix_pull_path(qs_job *x)
{
    for (; x; x = x->cix_up)
        if (!cix_pull(x))
            break;
}

/* The job's place in the list is where jobs.c or preempt.c just linked it
 * (its lprev); put it at the same place in the tree. */
/* Inserting at the in-order successor position of lprev is what keeps the
 * invariant "in-order sequence = job list" (S-PRE-13 places the job in the
 * list; we only mirror it).  Descending by a key is impossible here: the
 * list order is not a function of any field (preemption moves jobs in
 * front of the current one, S-PRE-8), so the position comes from the
 * list neighbour itself. */
void qsi_cix_insert(qs_transport *t, qs_job *job)
{
    qs_job *prev = job->lprev, *at;
    if (!t->cix_on)
        return;
    /* (index off, a short list: preempt.c walks it, nothing to keep.)
     * Start as a leaf with empty aggregates; cix_pull fills them below */
    job->cix_left = job->cix_right = NULL;
    job->cix_prio = cix_priority(job->serial);
    job->cix_min_needed = job->cix_min_queued = job->cix_min_total = CIX_NONE;
    job->cix_min_free = CIX_NONE;
    job->cix_size = 0;
    if (!t->cix_root) {
        job->cix_up = NULL;
        t->cix_root = job;
    } else if (!prev) {
        /* first in the list: left of the leftmost node */
        for (at = t->cix_root; at->cix_left; at = at->cix_left)
            ;
        at->cix_left = job;
        job->cix_up = at;
    } else if (!prev->cix_right) {
        prev->cix_right = job;
        job->cix_up = prev;
    } else {
        /* left of prev's in-order successor (which has no left child) */
        for (at = prev->cix_right; at->cix_left; at = at->cix_left)
            ;
        at->cix_left = job;
        job->cix_up = at;
    }
    /* the new leaf first gets its own aggregates, then climbs while its
     * priority beats its parent's (heap order), then the path above the
     * final place is repaired, since its minima may now include this job */
    /* A job that has never selected anything enters with its full total
     * as "needed"; a job relinked by a later batch enters with what is
     * left. */
    cix_pull(job);
    while (job->cix_up && job->cix_prio > job->cix_up->cix_prio)
        cix_rotate_up(t, job);
    cix_pull_path(job->cix_up);
    job->cix_in = 1;
}

/* Removal mirrors jobs.c / preempt.c unlinking a job from the list
 * (retired, or about to be relinked elsewhere).  A job left in the tree
 * would stay a "candidate" the walk can no longer see: the index would
 * then name a job that is not on the list. */
void qsi_cix_remove(qs_transport *t, qs_job *job)
{
    qs_job *p;
    if (!job->cix_in)
        return;
    /* rotate it down to a leaf, keeping the heap order of the others */
    while (job->cix_left || job->cix_right) {
        qs_job *c = !job->cix_left ? job->cix_right
                    : !job->cix_right ? job->cix_left
                    : job->cix_left->cix_prio > job->cix_right->cix_prio
                        ? job->cix_left : job->cix_right;
        cix_rotate_up(t, c);
    }
    /* now a leaf: unhook it and repair the minima on its former path,
     * which no longer include it */
    p = job->cix_up;
    if (!p)
        t->cix_root = NULL;
    else if (p->cix_left == job)
        p->cix_left = NULL;
    else
        p->cix_right = NULL;
    job->cix_up = NULL;
    job->cix_in = 0;
    cix_pull_path(p);
}

/* The job's counters changed (selected_entries, read_entries, or its
 * message's unread recipients), or it got or lost a stack parent. */
/* This is the hook that keeps the bounds honest.  A counter change that
 * is not followed by an update leaves a stale minimum: too high, and the
 * query may prune a subtree holding the real candidate (a different
 * preemption than S-PRE-6 prescribes); too low only costs time.  The
 * crosscheck builds would report the first kind at once. */
void qsi_cix_update(qs_job *job)
{
    if (job->cix_in)
        cix_pull_path(job);
}

/* The index pays off on long job lists only: a short walk costs less than
 * keeping the tree.  It is built when the list grows past CIX_BUILD jobs
 * and dropped when it shrinks below CIX_DROP (apart, so that a list
 * hovering around one size does not rebuild it again and again); in
 * between preempt.c walks the list as the document says. */
/* The thresholds are a cost choice, not a rule: the answer is the same
 * on both sides of them (tests/identity.sh runs streams across them). */
#define CIX_BUILD 64
#define CIX_DROP 32

/* Building inserts jobs in list order, so each job's lprev is in the tree
 * already and qsi_cix_insert finds its place; the by-time tree is built
 * after because it reuses cix_prio, which the first loop sets.  Dropping
 * just forgets the roots and clears cix_in (shared by both trees, so the
 * remove functions become no-ops); the stale fields are reset on the next
 * build. */
void qsi_cix_resize(qs_transport *t)
{
    qs_job *j;
    if (!t->cix_on && t->njobs > CIX_BUILD) {
        t->cix_on = 1;
        for (j = t->jhead; j; j = j->lnext)
            qsi_cix_insert(t, j); /* in list order: j->lprev is in */
        for (j = t->thead; j; j = j->tnext)
            qsi_tix_insert(t, j);
    } else if (t->cix_on && t->njobs < CIX_DROP) {
        t->cix_on = 0;
        t->cix_root = t->tix_root = NULL;
        for (j = t->jhead; j; j = j->lnext)
            j->cix_in = 0;
    }
}

/* ---- where job_link puts a job (S-PRE-13, S-MEM-10) ----
 *
 * jobs.c links a job after the last job, walking from the tail, that has
 * no stack parent and an enqueue time <= the new job's, on the scheduler's
 * list; after the last job with an enqueue time <= the new job's on the
 * by-time list.  A new message's job stops both walks at the tail at
 * once; a job relinked by a later batch of an old message (a bulk message
 * refilled) walks back over every younger job - O(jobs) per refill in
 * Postfix too.  With the indexes the same jobs are found in O(log n): the
 * last node in list order whose subtree has such a job (cix_min_free),
 * and, on the by-time list, which is in enqueue-time order, a search by
 * time.  Whether the walk would have passed the current job (or the first
 * unread one) is a comparison of list positions (subtree sizes). */

/* The last job in list order with no stack parent and an enqueue time <=
 * queued_time, or NULL: where job_link's walk from the tail stops.
 * cix_min_free of a subtree is the earliest enqueue time among its
 * parentless jobs, so "cix_min_free <= queued_time" says the subtree holds
 * such a job.  Preferring the right subtree, then the node, then the left
 * finds the last one in list order, as the walk from the tail does. */
qs_job *qsi_cix_time_marker(const qs_transport *t, int64_t queued_time)
{
    qs_job *x = t->cix_root;
    if (!x || x->cix_min_free > queued_time)
        return NULL;
    for (;;) {
        if (x->cix_right && x->cix_right->cix_min_free <= queued_time)
            x = x->cix_right;
        /* no such job to the right (later): this node if it qualifies */
        else if (!x->parent && x->message->queued_time <= queued_time)
            return x;
        else
            x = x->cix_left; /* the marker is there (cix_min_free) */
    }
}

/* List position of x (0-based) in its tree; left/right/up/size are the
 * tree's fields. */
/* How: the jobs before x are those in its left subtree, plus, at every
 * step up where x's side is the right one, the ancestor itself and that
 * ancestor's left subtree.  A macro because the two trees use different
 * link fields on the same struct. */
#define TREE_RANK(x, left, right, up, size, out)                             \
    do {                                                                     \
        const qs_job *n_ = (x);                                              \
        int64_t r_ = n_->left ? n_->left->size : 0;                          \
        for (; n_->up; n_ = n_->up)                                          \
            if (n_->up->right == n_)                                         \
                r_ += 1 + (n_->up->left ? n_->up->left->size : 0);           \
        (out) = r_;                                                          \
    } while (0)

/* a comes after b on the scheduler's list (both on it, indexes on). */
/* Used where the walk's answer depends on whether it passed the current
 * job: comparing ranks answers that in O(log n) instead of a scan. */
int qsi_cix_after(const qs_job *a, const qs_job *b)
{
    int64_t ra, rb;
    TREE_RANK(a, cix_left, cix_right, cix_up, cix_size, ra);
    TREE_RANK(b, cix_left, cix_right, cix_up, cix_size, rb);
    return ra > rb;
}

/* ---- the by-time list's tree ----
 * The same treap shape over the by-time list (same priorities), with
 * subtree sizes only: the list is in enqueue-time order (S-INV-2), so it
 * is searched by time. */

/* The by-time tree needs no minima: its list is sorted by enqueue time
 * (S-INV-2), so a plain search by time finds the marker; sizes give ranks
 * for qsi_tix_after.  Sharing cix_prio keeps its shape deterministic. */
static void tix_pull(qs_job *x)
{
    x->tix_size = 1 + (x->tix_left ? x->tix_left->tix_size : 0) +
                  (x->tix_right ? x->tix_right->tix_size : 0);
}

/* Same rotation as cix_rotate_up, on the tix_* links: order unchanged. */
static void tix_rotate_up(qs_transport *t, qs_job *x)
{
    qs_job *p = x->tix_up, *g = p->tix_up;
    if (p->tix_left == x) {
        p->tix_left = x->tix_right;
        if (x->tix_right)
            x->tix_right->tix_up = p;
        x->tix_right = p;
    } else {
        p->tix_right = x->tix_left;
        if (x->tix_left)
            x->tix_left->tix_up = p;
        x->tix_left = p;
    }
    p->tix_up = x;
    x->tix_up = g;
    if (!g)
        t->tix_root = x;
    else if (g->tix_left == p)
        g->tix_left = x;
    else
        g->tix_right = x;
    tix_pull(p);
    tix_pull(x);
}

/* After its tprev, as jobs.c just linked it (cix_prio is set: the job is
 * in the scheduler list's tree already). */
/* As qsi_cix_insert, positioned from the list neighbour tprev; sizes on
 * the whole path are recomputed (no early stop: every ancestor's size
 * grows by one). */
void qsi_tix_insert(qs_transport *t, qs_job *job)
{
    qs_job *prev = job->tprev, *at;
    if (!t->cix_on)
        return;
    job->tix_left = job->tix_right = NULL;
    if (!t->tix_root) {
        job->tix_up = NULL;
        t->tix_root = job;
    } else if (!prev) {
        for (at = t->tix_root; at->tix_left; at = at->tix_left)
            ;
        at->tix_left = job;
        job->tix_up = at;
    } else if (!prev->tix_right) {
        prev->tix_right = job;
        job->tix_up = prev;
    } else {
        for (at = prev->tix_right; at->tix_left; at = at->tix_left)
            ;
        at->tix_left = job;
        job->tix_up = at;
    }
    tix_pull(job);
    while (job->tix_up && job->cix_prio > job->tix_up->cix_prio)
        tix_rotate_up(t, job);
    for (at = job->tix_up; at; at = at->tix_up)
        tix_pull(at);
}

/* As qsi_cix_remove; cix_in tells whether the job is indexed at all. */
void qsi_tix_remove(qs_transport *t, qs_job *job)
{
    qs_job *p;
    if (!job->cix_in)
        return;
    while (job->tix_left || job->tix_right) {
        qs_job *c = !job->tix_left ? job->tix_right
                    : !job->tix_right ? job->tix_left
                    : job->tix_left->cix_prio > job->tix_right->cix_prio
                        ? job->tix_left : job->tix_right;
        tix_rotate_up(t, c);
    }
    p = job->tix_up;
    if (!p)
        t->tix_root = NULL;
    else if (p->tix_left == job)
        p->tix_left = NULL;
    else
        p->tix_right = NULL;
    job->tix_up = NULL;
    for (; p; p = p->tix_up)
        tix_pull(p);
}

/* The last job on the by-time list with an enqueue time <= queued_time,
 * or NULL (the list is sorted by time; equal times in link order). */
qs_job *qsi_tix_time_marker(const qs_transport *t, int64_t queued_time)
{
    qs_job *x = t->tix_root, *found = NULL;
    while (x) {
        if (x->message->queued_time <= queued_time) {
            found = x;
            x = x->tix_right;
        } else {
            x = x->tix_left;
        }
    }
    return found;
}

/* a comes after b on the by-time list (both on it, indexes on). */
int qsi_tix_after(const qs_job *a, const qs_job *b)
{
    int64_t ra, rb;
    TREE_RANK(a, tix_left, tix_right, tix_up, tix_size, ra);
    TREE_RANK(b, tix_left, tix_right, tix_up, tix_size, rb);
    return ra > rb;
}

/* ---- the query ---- */

/* The state of one query (cix_best: the best job so far and its exact
 * score) and the contract of cix_consider: candidates_contracts.h. */
#include "candidates_contracts.h"
#ifdef QS_CONTRACT_CHECKS   /* every call checks its contract (candidates_rtc.h, generated) */
#include "candidates_rtc.h"
#endif

/* S-PRE-5, S-PRE-6 at one job: the walk's test, verbatim (preempt.c). */
static void (cix_consider)(cix_best *b, qs_job *job)
{
    int64_t total, needed, delay;
    /* S-PRE-5: a preempted job (it has a child) and a blocker (S-PRE-11)
     * are not candidates.  They are filtered here, not in the aggregates:
     * a job becomes or stops being a blocker without its counters
     * changing, and an aggregate kept exact for that would need a hook at
     * every blocker release (S-PRE-12) */
    if (job->child_head || QS_IS_BLOCKER(job))
        return;
    total = QS_MAX_ENTRIES(job);
    needed = total - job->selected_entries;
    delay = b->s->now - job->message->queued_time + 1;
    /* S-PRE-6: replace only on a strictly better score; since jobs are
     * considered in list order, a tie keeps the earlier job */
    if (qs_candidate_fits(needed, b->max_slots) &&
        (!b->job || qs_score_better(delay, total, b->delay, b->total))) {
        b->job = job;
        b->delay = delay;
        b->total = total;
    }
}

/* QS_DELAY_SAFE of kernels.h's ACSL (the largest delay whose exact score
 * products fit in 64 bits), as a C constant for the guard below; WP checks
 * the two agree where it matters: the guard must imply the kernel's
 * precondition at the call (proofs/mutants/cix-bound-delay-off-by-one). */
#define CIX_DELAY_SAFE 9223372036LL

/* S-PRE-6 on a whole subtree: may a job in it beat the best so far?
 * min_queued, min_total: the subtree's aggregates (cix_min_queued,
 * cix_min_total), so its scores are all <= (now - min_queued + 1) /
 * min_total.  Returns 0 only when that bound does not beat the best (the
 * subtree can be skipped), 1 otherwise (it must be visited). */
/* Why a guard, why its fallback (visit) is safe, why checking builds
 * abort: candidates_contracts.h, at the contract. */
static int (cix_bound_may_beat)(const cix_best *b, int64_t min_queued,
                                int64_t min_total)
{
    int64_t now = b->s->now;
    if (!b->job)
        return 1; /* no best yet: anything that fits beats it */
    /* the ranges, computed without overflow: delay = now - min_queued + 1
     * must be in [1, CIX_DELAY_SAFE], i.e. min_queued <= now and
     * now - min_queued <= CIX_DELAY_SAFE - 1 (for now >= 0 written as a
     * lower bound on min_queued; for now < 0 the difference is at most
     * -1 - INT64_MIN = INT64_MAX) */
    if (min_total < 1 || min_total > QS_COUNT_MAX || min_queued > now ||
        (now >= 0 ? min_queued < now - (CIX_DELAY_SAFE - 1)
                 : now - min_queued > CIX_DELAY_SAFE - 1)) {
#if defined(QS_CONTRACT_CHECKS) || defined(QSCHED_CROSSCHECK)
        /* checking builds: a corrupt index is a defect, stop at once */
        fprintf(stderr, "qsched: candidate index corrupt: subtree aggregate "
                "min_queued=%lld min_total=%lld at now=%lld\n",
                (long long)min_queued, (long long)min_total, (long long)now);
        abort();
#endif
        return 1; /* S-PRE-6 by the walk: visit, the per-job test decides */
    }
    /* S-PRE-6: the bound's score beats the best only if strictly better */
    return qs_score_better(now - min_queued + 1, min_total, b->delay,
                           b->total);
}

/* A subtree in list order, skipping what cannot fit or cannot be better. */
/* The visit order is left subtree, node, right subtree: list order, which
 * is what makes the strict comparison in cix_consider reproduce the
 * document's tie rule.  Why pruning cannot lose the document's answer:
 * a subtree is skipped only when no job in it fits, or when its score
 * bound is <= the best so far.  In the second case each skipped job is at
 * most as good as that best; the best only improves later, and on a tie
 * the holder was found earlier in list order, so the walk would not have
 * taken the skipped job either.  The walk's own early stop (S-PRE-6, at a
 * level-0 job) is not needed: the bounds do the same work and more. */
static void cix_visit(cix_best *b, qs_job *x)
{
    while (x) {
        if (x->cix_min_needed > b->max_slots)
            return; /* nothing here fits (also: no job could ever fit) */
        if (!cix_bound_may_beat(b, x->cix_min_queued, x->cix_min_total))
            return; /* no score here beats the best: later ones must */
        /* recursion on the left, a loop on the right: the stack depth is
         * bounded by the tree height, not by the list length */
        cix_visit(b, x->cix_left);
        cix_consider(b, x);
        x = x->cix_right;
    }
}

/* S-PRE-5, S-PRE-6: the best candidate after `current` in the job list,
 * or NULL; max_slots > 0. */
/* The entry point preempt.c calls instead of its walk when the index is
 * on.  max_slots is S-PRE-5's limit ((unselected in-core + counter)/k),
 * computed by the caller; the result, delay and total feed S-PRE-7. */
qs_job *qsi_cix_candidate(qs_sched *s, qs_job *current, int64_t max_slots,
                          int64_t *delay, int64_t *total)
{
    cix_best b;
    qs_job *x;
    b.s = s;
    b.max_slots = max_slots;
    b.job = NULL;
    b.delay = 0;
    /* the initial pair is never compared: b.job == NULL means "no best" */
    b.total = 1;
    /* the jobs after current: its right subtree, then each ancestor that
     * has it on the left, followed by that ancestor's right subtree */
    /* This is S-PRE-5's "only jobs after the current one" without a walk:
     * the in-order successors of current are exactly its right subtree
     * followed, for every ancestor reached from its left side, by that
     * ancestor and its right subtree, nearest ancestor first - the same
     * jobs in the same order as the walk from current->lnext.  Ancestors
     * reached from the right side come before current and are skipped. */
    cix_visit(&b, current->cix_right);
    for (x = current; x->cix_up; x = x->cix_up) {
        qs_job *p = x->cix_up;
            /* p follows everything below x: consider it, then its right
             * subtree, keeping list order for the tie rule */
        if (p->cix_left == x) {
            cix_consider(&b, p);
            cix_visit(&b, p->cix_right);
        }
    }
    /* with no candidate the caller sees NULL and does not preempt */
    *delay = b.delay;
    *total = b.total;
    return b.job;
}
