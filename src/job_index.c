/*
 * job_index.c - the job lists' search trees: their upkeep.
 *
 * Owns: the two treaps of each long job list (candidates.c's header
 * describes the structure and why it is exact): the scheduler's job list
 * with its subtree minima (cix_*), and the by-enqueue-time list, links
 * only (tix_*); inserting, removing and re-aggregating nodes
 * wherever jobs.c and preempt.c change the lists; building and dropping
 * them with the list's length and how often they are asked (a ski rental:
 * qsi_cix_resize); and the list-order questions jobs.c asks of
 * them (where job_link's walk stops, S-PRE-13 and S-MEM-10; which of two
 * jobs comes first).
 *
 * Implements no sentence of SCHEDULER_README by itself: it keeps, for
 * "How the preemption works" (the candidate, S-PRE-5, S-PRE-6, queried in
 * candidates.c) and for "the job is linked ... by its enqueue time"
 * (S-PRE-13, jobs.c), an index whose in-order sequence IS the list the
 * document walks, so that the answers are the walk's answers in O(log n).
 *
 * Exists because candidates.c grew past the core's 600 lines (issue 16):
 * the query, with its two WP-contracted functions (cix_consider,
 * cix_bound_may_beat), stays there; the maintenance, which no contract
 * covers and which only has to keep the trees equal to the lists and the
 * aggregates equal to their definitions, moved here unchanged.  The
 * QSCHED_CROSSCHECK builds compare every query answer with the walk
 * (preempt_scan.c), which also catches any tree that drifted from its
 * list.
 *
 * May not: decide anything; every list position is the one jobs.c or
 * preempt.c chose.
 */
#include <stdint.h>
#include "sched_int.h"

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
 * value lets cix_pull_path stop early.  present = 0: x is leaving the
 * tree (qsi_cix_remove): only its children's minima count. */
static inline int cix_pull_as(qs_job *x, int present)
{
    int64_t mn = CIX_NONE, mq = CIX_NONE, mt = CIX_NONE, mf = CIX_NONE;
    const qs_job *c;
    int changed;
    if (present) { /* its own part, kept by cix_own */
        mn = x->cix_own_needed;
        mq = x->cix_own_queued;
        mt = x->cix_own_total;
        mf = x->cix_own_free;
    }
    /* the children's minima are up to date: every caller pulls bottom-up */
    if ((c = x->cix_left) != NULL) {
        mn = min64(mn, c->cix_min_needed);
        mq = min64(mq, c->cix_min_queued);
        mt = min64(mt, c->cix_min_total);
        mf = min64(mf, c->cix_min_free);
    }
    if ((c = x->cix_right) != NULL) {
        mn = min64(mn, c->cix_min_needed);
        mq = min64(mq, c->cix_min_queued);
        mt = min64(mt, c->cix_min_total);
        mf = min64(mf, c->cix_min_free);
    }
    /* "changed" compares all four minima: if none moved, no ancestor's
     * can, and the upward repair may stop here.  (A subtree size, which
     * changes at every ancestor of an inserted or removed job, would make
     * every repair climb to the root: 11% of blockers, issue 16; sizes
     * are kept only while bix_on, TREE_AFTER compares without them.) */
    changed = mn != x->cix_min_needed || mq != x->cix_min_queued ||
              mt != x->cix_min_total || mf != x->cix_min_free;
    x->cix_min_needed = mn;
    x->cix_min_queued = mq;
    x->cix_min_total = mt;
    x->cix_min_free = mf;
    return changed;
}
static int cix_pull(qs_job *x) { return cix_pull_as(x, 1); }

/* x's own part of the minima, kept so that pulling an ancestor reads only
 * index fields (issue 16: perf had the repairs waiting on each ancestor's
 * counters and message); set wherever they change: qsi_cix_update and
 * qsi_cix_selected, which follow every change, and the insertion. */
static void cix_own(qs_job *x)
{
    int64_t total = QS_MAX_ENTRIES(x);
    int64_t needed = total - x->selected_entries;
    x->cix_own_free = x->parent ? CIX_NONE : x->message->queued_time;
    x->cix_own_needed = x->cix_own_queued = x->cix_own_total = CIX_NONE;
    if (needed > 0) {
        /* S-PRE-5: only a job with remaining entries can ever fit */
        x->cix_own_needed = needed;
        x->cix_own_queued = x->message->queued_time;
        x->cix_own_total = total;
    }
}

/* Subtree sizes (blocker_index.c's ranks): kept only while the
 * transport's blocker index is on, where every insertion and removal
 * then climbs to the root (a size changes at every ancestor); built when
 * it is switched on (qsi_cix_sizes). */
static int64_t cix_size_of(const qs_job *x) { return x ? x->cix_size : 0; }

static int64_t cix_size_build(qs_job *x)
{
    if (!x)
        return 0;
    x->cix_size = cix_size_build(x->cix_left) + cix_size_build(x->cix_right) + 1;
    return x->cix_size;
}

/* The subtree sizes of the transport's tree, from scratch. */
void qsi_cix_sizes(qs_transport *t)
{
    (void)cix_size_build(t->cix_root);
}

/* How many jobs come before x on the list (x NULL: all of them), from the
 * subtree sizes (bix_on): O(depth). */
int64_t qsi_cix_rank(const qs_transport *t, const qs_job *x)
{
    int64_t r;
    const qs_job *c;
    if (!x)
        return cix_size_of(t->cix_root);
    r = cix_size_of(x->cix_left);
    for (c = x; c->cix_up; c = c->cix_up)
        if (c == c->cix_up->cix_right)
            r += cix_size_of(c->cix_up->cix_left) + 1;
    return r;
}

/* x takes its parent's place (one rotation); the in-order sequence, i.e.
 * the job list, is unchanged. */
/* Rotations are how the treap keeps its heap order on priorities (and so
 * its expected O(log n) height) without ever reordering the list: x's
 * inner subtree changes parent, nothing changes in-order position.  Were
 * the order to change, "the jobs after the current one" and the tie rule
 * (the earlier job wins) would both be answered for a different list. */
/* The aggregates: x now roots exactly the jobs p rooted, so it takes p's
 * minima (and size) as they were, which must be exact; only p, whose
 * subtree lost x and x's outer subtree, is pulled again, from children
 * that are exact.  p_present = 0 when p is the job being removed (its
 * own counters no longer count).  Issue 16: one pull per rotation, not
 * two - the pulls of the rotations were 4.6% of the queue shape. */
static void cix_rotate_up(qs_transport *t, qs_job *x, int p_present)
{
    qs_job *p = x->cix_up, *g = p->cix_up;
    x->cix_min_needed = p->cix_min_needed;
    x->cix_min_queued = p->cix_min_queued;
    x->cix_min_total = p->cix_min_total;
    x->cix_min_free = p->cix_min_free;
    x->cix_size = p->cix_size; /* (kept only while bix_on) */
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
    cix_pull_as(p, p_present);
    if (t->bix_on)
        p->cix_size = cix_size_of(p->cix_left) + cix_size_of(p->cix_right) + 1;
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
void qsi_cix_insert(qs_transport *t, qs_job *job, int repair)
{
    qs_job *prev = job->lprev, *at;
    if (!t->cix_on)
        return;
    /* (index off, a short list: preempt.c walks it, nothing to keep.)
     * Start as a leaf with empty aggregates; cix_pull fills them below */
    job->cix_left = job->cix_right = NULL;
    job->cix_prio = cix_priority(job->serial);
    job->cix_min_needed = job->cix_min_queued = job->cix_min_total =
        job->cix_min_free = job->cix_own_needed = job->cix_own_queued =
            job->cix_own_total = job->cix_own_free = CIX_NONE;
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
    /* the new leaf gets its own aggregates and the path above it is
     * repaired (every subtree exact, as the rotations need); then it
     * climbs while its priority beats its parent's (heap order), each
     * rotation keeping every subtree above it exact */
    job->cix_size = 1;
    if (t->bix_on) {
        qs_job *a;
        for (a = job->cix_up; a; a = a->cix_up)
            a->cix_size++;
    }
    /* repair = 0 (job_link, for qsi_message_read): qsi_cix_update(job)
     * repairs the path later, before anything asks the tree, after the
     * read's new entries (repairing here too was 1.2..1.6% of the
     * many-transports and blockers shapes, issue 16).  Meanwhile the tree
     * is exact for every job but this one, whose own part and minima are
     * empty (CIX_NONE, above): a rotation hands it its parent's minima,
     * which lack only its own part, and re-pulls the parent from exact
     * children.  The later pull adds the missing part and climbs, as
     * always, to the first node that does not change. */
    if (repair) {
        cix_own(job);
        cix_pull(job);
        cix_pull_path(job->cix_up);
    }
    while (job->cix_up && job->cix_prio > job->cix_up->cix_prio)
        cix_rotate_up(t, job, 1);
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
    if (t->bix_on && job->bix_listed)
        qsi_bix_unlinked(job);
    /* first the job leaves the minima: its own counters stop counting
     * and the path above it is repaired (every subtree is then exact for
     * the jobs that stay), then it is rotated down to a leaf, keeping the
     * heap order of the others and every subtree exact */
    if (cix_pull_as(job, 0))
        cix_pull_path(job->cix_up);
    while (job->cix_left || job->cix_right) {
        qs_job *c = !job->cix_left ? job->cix_right
                    : !job->cix_right ? job->cix_left
                    : job->cix_left->cix_prio > job->cix_right->cix_prio
                        ? job->cix_left : job->cix_right;
        cix_rotate_up(t, c, 0);
    }
    /* now a leaf with no minimum of its own (all CIX_NONE, the neutral
     * element): unhooking it changes no aggregate above */
    p = job->cix_up;
    if (!p)
        t->cix_root = NULL;
    else if (p->cix_left == job)
        p->cix_left = NULL;
    else
        p->cix_right = NULL;
    job->cix_up = NULL;
    job->cix_in = 0;
    if (t->bix_on) {
        qs_job *a;
        for (a = p; a; a = a->cix_up)
            a->cix_size--;
    }
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
    if (job->cix_in) {
        cix_own(job);
        cix_pull_path(job);
    }
    /* blocker_index.c's stop flag reads the same counters */
    if (job->bix_listed)
        qsi_bix_flag_update(job);
}

/* One entry of the job was selected (select.c), or deferred and counted
 * as selected (R-12's default, qsi_entry_defer_todo: the entries of a
 * dying destination): of everything the aggregates read, only needed =
 * total - selected moved, down by one.
 * While the job still needs entries its place in the three minima stays
 * (queued time and total are counted exactly when needed > 0), and a
 * minimum over a set in which one value fell can only fall to that value:
 * so each ancestor whose cix_min_needed is larger takes it, and the first
 * that is not larger ends the repair (the levels above saw no change).
 * A job that needs nothing more leaves the minima: the full repair.
 * Issue 16: the full repair re-reads all four minima of both children at
 * every level; this is one comparison per level, on the selection path of
 * every long list. */
void qsi_cix_selected(qs_job *job)
{
    int64_t needed;
    qs_job *x;
    if (!job->cix_in)
        return;
    /* blocker_index.c's stop flag: its last pending entry may be gone
     * while more are unread (then needed stays above 0, no full pull) */
    if (job->bix_listed)
        qsi_bix_flag_update(job);
    needed = QS_MAX_ENTRIES(job) - job->selected_entries;
    if (needed <= 0) {
        cix_own(job);
        cix_pull_path(job);
        return;
    }
    job->cix_own_needed = needed; /* its only own part a selection moves */
    for (x = job; x && x->cix_min_needed > needed; x = x->cix_up)
        x->cix_min_needed = needed;
}

/* When the index is kept: on long lists (past CIX_BUILD jobs, gone below
 * CIX_DROP: apart, so that a list hovering around one size does not
 * rebuild it again and again), while it saves walks.  Its upkeep is paid
 * at every change of the list (a path repaired, 300..500 instructions);
 * its answers are wanted by three questions only: the preemption
 * candidate (candidates.c), where a job relinked late goes (job_link,
 * S-PRE-13), the blocker index's walks.  So a ski rental, on counts:
 *   off, list long: each question walks (preempt_scan.c, job_link) and
 *       pays the steps it took as rent (QSI_CIX_RENT); past what a build
 *       costs (CIX_BUY steps per listed job, up to CIX_OWN jobs: every
 *       job into two trees), the next change of the list builds it;
 *   on: each change kept up with is idle upkeep; an answer clears it
 *       (QSI_CIX_USED) while the walk tried beside one question in
 *       CIX_SAMPLE (qsi_job_candidate) was long within the last
 *       CIX_WORTH tries; past half the list's length (CIX_IDLE_PART 2: a
 *       repair costs about what a rebuild spends on two jobs) the index
 *       is dropped, unless the blocker index wants it (qsi_bix_wanted).
 * At most about twice the better choice in hindsight; decided by the
 * input alone, so runs stay deterministic.  Past CIX_OWN jobs a list
 * keeps its index for its length alone (built at once, dropped only when
 * the tried walks are short: cix_let_go then waits for rent), since
 * there a walk's step is a cache miss and a rebuild thousands of inserts
 * (rented on every list at 100k queued messages, queue cost 37% more
 * per selection: docs/performance.md, session 12; the transports
 * shape's lmtp list, short walks, paid 6% for its index: session 20).
 * The thresholds are a cost choice, not a rule: the answer is the same
 * on both sides of them (tests/identity.sh; tests/sh/blocker-index.sh's
 * rental build; tests/unit/test_index_rental.c holds the moments).
 * The thresholds: sched_int.h, beside QSI_CIX_RENT. */

/* In list order (each job's lprev is in already); by-time after (cix_prio) */
static void cix_build(qs_transport *t)
{
    qs_job *j;
    t->cix_on = 1;
    t->cix_idle = 0;
    t->cix_asked = 0; /* the first question tries the walk */
    t->cix_worth = CIX_WORTH;
    for (j = t->jhead; j; j = j->lnext)
        qsi_cix_insert(t, j, 1); /* in list order: j->lprev is in */
    for (j = t->thead; j; j = j->tnext)
        qsi_tix_insert(t, j);
    qsi_bix_resize(t);
}

/* Roots forgotten, cix_in cleared (removals: no-ops); rent restarts */
static void cix_drop(qs_transport *t)
{
    qs_job *j;
    t->cix_on = 0;
    t->cix_rent = 0;
    t->cix_root = t->tix_root = NULL;
    for (j = t->jhead; j; j = j->lnext)
        j->cix_in = 0;
    qsi_bix_resize(t);
}

/* After every link and unlink, and when walks turn hot (qsi_bix_adapt) */
void qsi_cix_resize(qs_transport *t)
{
    if (!t->cix_on) {
        if (t->njobs <= CIX_BUILD) {
            t->cix_rent = 0; /* rent counts on a long list only */
            t->cix_let_go = 0;
        } else if ((t->njobs > CIX_OWN && !t->cix_let_go) ||
                   t->cix_rent > CIX_BUY * (t->njobs < CIX_OWN ? t->njobs
                                                               : CIX_OWN) ||
                   qsi_bix_wanted(t)) {
            cix_build(t);
        }
        return;
    }
    t->cix_idle++; /* one more change kept up with */
    if (t->njobs < CIX_DROP ||
        (t->cix_idle > t->njobs / CIX_IDLE_PART &&
         (t->njobs <= CIX_OWN || t->cix_worth == 0) && !qsi_bix_wanted(t))) {
        t->cix_let_go = t->njobs > CIX_OWN;
        cix_drop(t);
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
 * unread one) is a comparison of list positions (TREE_AFTER). */

/* The last job in list order with no stack parent and an enqueue time <=
 * queued_time, or NULL: where job_link's walk from the tail stops.  A
 * subtree's cix_min_free is its parentless jobs' earliest enqueue time:
 * "<= queued_time" says it holds such a job.  The right subtree first,
 * then the node, then the left: the last one, as the walk finds it. */
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

/* Whether a comes after b in the tree's in-order sequence (its list);
 * left/right/up are the tree's link fields.  Without subtree sizes: climb
 * from the deeper of the two to the same depth, then both until they meet
 * at their lowest common ancestor L, remembering through which child each
 * arrived.  If b is L, a lies in one of b's subtrees and comes after b
 * exactly when that is the right one; if a is L, likewise with the roles
 * swapped; otherwise a comes after b exactly when a arrived from L's
 * right child (b from its left).  O(depth), as a rank would be, and no
 * aggregate to keep.  A macro: the two trees use different link fields. */
#define TREE_AFTER(a, b, left, right, up, out)                               \
    do {                                                                     \
        const qs_job *x_ = (a), *y_ = (b), *n_, *cx_ = NULL, *cy_ = NULL;    \
        int dx_ = 0, dy_ = 0;                                                \
        for (n_ = x_; n_->up; n_ = n_->up)                                   \
            dx_++;                                                           \
        for (n_ = y_; n_->up; n_ = n_->up)                                   \
            dy_++;                                                           \
        for (; dx_ > dy_; dx_--) {                                           \
            cx_ = x_;                                                        \
            x_ = x_->up;                                                     \
        }                                                                    \
        for (; dy_ > dx_; dy_--) {                                           \
            cy_ = y_;                                                        \
            y_ = y_->up;                                                     \
        }                                                                    \
        while (x_ != y_) {                                                   \
            cx_ = x_;                                                        \
            x_ = x_->up;                                                     \
            cy_ = y_;                                                        \
            y_ = y_->up;                                                     \
        }                                                                    \
        if (!cx_ && !cy_)                                                    \
            (out) = 0;                      /* a == b */                     \
        else if (!cx_)                                                       \
            (out) = cy_ == x_->left;        /* a is L, b below it */         \
        else                                                                 \
            (out) = cx_ == x_->right;       /* b is L, or a right of L */    \
    } while (0)

/* a comes after b on the scheduler's list (both on it, indexes on):
 * whether the walk passed the current job, in O(log n), not a scan. */
int qsi_cix_after(const qs_job *a, const qs_job *b)
{
    int after;
    TREE_AFTER(a, b, cix_left, cix_right, cix_up, after);
    return after;
}

/* ---- the by-time list's tree ----
 * The same treap shape over the by-time list (same priorities: sharing
 * cix_prio keeps its shape deterministic), with no aggregate at all: the
 * list is in enqueue-time order (S-INV-2), so a plain search by time finds
 * the marker, and TREE_AFTER compares positions. */

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
}

/* After its tprev, as jobs.c just linked it (cix_prio is set: the job is
 * in the scheduler list's tree already); as qsi_cix_insert, but with no
 * aggregate to repair, linking and the rotations are all there is. */
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
    while (job->tix_up && job->cix_prio > job->tix_up->cix_prio)
        tix_rotate_up(t, job);
}

/* As qsi_cix_remove (cix_in: whether the job is indexed at all). */
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

/* a comes after b on the by-time list (both on it, indexes on) */
int qsi_tix_after(const qs_job *a, const qs_job *b)
{
    int after;
    TREE_AFTER(a, b, tix_left, tix_right, tix_up, after);
    return after;
}
