/*
 * blocker_index.c - where the selection walk must stop, found instead of
 * searched; the blockers in front of it held as a region, not as marks;
 * and the destinations' blocker marks that follow from the jobs' (issue
 * 16: a per-decision cost that does not grow with the blockers in front
 * of the walk's stop).
 *
 * Implements no sentence of SCHEDULER_README by itself.  It keeps, for
 * "How the entry selection works" (S-PRE-2, S-PRE-11, S-PRE-12) in the
 * postfix readings (R-13 blocker_release = all, R-14 current_job =
 * walk_start: S-PFX-21) and on long job lists with long walks (the list
 * index of job_index.c is on, and the walks marked at least 32 jobs a
 * selection: qsi_bix_adapt), what the walk of select.c would find by
 * looking at every job, and what it would write.
 *
 * The problem.  After a release of every blocker the walk starts at the
 * head and marks every job before its stop again; on a queue of 100k
 * messages that was 536 marks per selection, 53 instructions each, and
 * no explicit mark can be cheap enough: the marks themselves must go.
 *
 * 1. The stop.  The jobs the walk marks are exactly the jobs from
 *    job_walk up to the first job it must do more with: the first with a
 *    pending entry at a destination that can take one (peer_select finds
 *    it), or the first whose walk_stop flag is set (qsi_job_walk_stop: no
 *    entries - it retires - or unread recipients with room to read them -
 *    job_peer_select may read).  Each job in between has entries, all of
 *    them at destinations without room, and reads nothing (a message at
 *    its recipient limit reads nothing): job_mark_if_no_room's case.
 *    Three heaps find the stop:
 *      - per destination, its peers with pending entries, keyed by their
 *        job's place in the list: the first is the first job pending
 *        there;
 *      - per transport, its ready destinations (alive, window > busy,
 *        something pending), keyed by that first job: the first of them
 *        is the first job with a selectable peer;
 *      - per transport, its jobs with bix_stop, keyed by place; those the
 *        walk has passed (blockers until the next release) are set aside
 *        and come back at the release.
 *    List places are order-maintenance labels (job->bix_label: 64-bit,
 *    increasing along the list; a job linked between two labels too close
 *    relabels a window around it, keeping the order, so the heaps stay
 *    valid).  A job that preemption moves forward gets a smaller label:
 *    it leaves its heaps first and comes back with it.
 *
 * 2. The region.  Under walk_start every job before job_walk is a blocker
 *    (S-INV-2), and after a release of every blocker nothing else is:
 *    the release bumps the tag (no job's tag matches) and job_walk goes to
 *    the head.  From then on, as long as job_walk only moves forward by
 *    walking, the blockers are exactly the jobs before it (t->bix_region;
 *    qsi_is_blocker): a walk's marks are job_walk moved to the stop, and
 *    their number, for `--stats`, is the difference of the two places'
 *    ranks (job_index.c qsi_cix_rank: subtree sizes, kept while the index
 *    is on).  A stop the plain logic marks (it read and found nothing)
 *    gets a tag; it is behind job_walk when the walk ends.  When job_walk
 *    would move back without a release - a blocker gets entries
 *    (qsi_job_obtain), a job is linked in front of the walk other than
 *    right before it, a preemption elsewhere than at the walk's place -
 *    or the index is dropped, or the explain level wants the plain walk
 *    (it traces every mark), the region is written down as tags
 *    (qsi_bix_materialize, the cost of one plain walk) and the walks tag
 *    (walk_to_stop's loop, still only to the stop) until the next
 *    release.  The candidate scans test QS_IS_BLOCKER, the tag alone, on
 *    the jobs after the current job: under walk_start that is job_walk,
 *    so the region is never where they look (the crosscheck build checks
 *    current == job_walk), and their proofs are unchanged.
 *
 * 3. The destinations' marks.  The plain walk also tags every destination
 *    where a job it marks has a pending entry; qsi_blocker_update releases
 *    when such a destination gets room.  The fast walk writes no
 *    destination tag: a destination is marked if its tag says so or if
 *    the first job pending there is a blocker (qsi_queue_marked).  The two
 *    agree: a blocker pending at q was pending there when it was marked (a
 *    blocker that gets entries stops being one, jobs.c), and the plain
 *    mark is cleared only when q gets room (which releases, since
 *    something is pending) or dies (nothing pending then); and every job
 *    pending at q before a blocker is a blocker too, because the walk
 *    passed it first.  They could differ only when the first job pending
 *    at q stops being a blocker that is pending there - the first changes
 *    (an entry selected or deferred, a new first job, a job moved) or the
 *    first stops being a blocker without a release (qsi_job_obtain) - and
 *    at exactly those points the destination's tag is written
 *    (bix_first_changed, qsi_bix_job_untag).
 *
 * The invariant the stop needs (S-INV-2's companion): in these readings
 * no blocker has a pending entry at a ready destination - every change
 * that gives a destination room runs qsi_blocker_update, which releases
 * every blocker.  So the first job pending at a ready destination is
 * never a blocker.  The QSCHED_CROSSCHECK build (fuzzing, tests/identity.sh,
 * tests/sh/blocker-index.sh with thresholds that switch the index on and
 * off all the time) checks it before every fast walk, with the plain
 * walk's tests on every job passed, the count, the heaps' order, and the
 * inferred destination marks against a scan.
 *
 * Owns: the labels, the destinations' and ready destinations' heaps, the
 * hooks that keep them (qsi_queue_marked, the inferred mark, is inline in
 * sched_int.h); building and dropping the whole index with the list index
 * (job_index.c qsi_cix_resize) and the walks' length (qsi_bix_adapt).  The
 * stop flags' heap, the region and the fast walk: blocker_region.c.  May
 * not: mark, select or release anything.
 */
#include <stdlib.h>
#include <stdint.h>
#include "sched_int.h"

/* 1: the index whenever the list index is on, however short the walks
 * (tests/sh/blocker-index.sh's "always" build: the hand vectors' small
 * scenes, e.g. a blocker that gets entries, run with the index) */
#ifndef QSI_BIX_ALWAYS
#define QSI_BIX_ALWAYS 0
#endif

/* Labels: spacing of jobs appended at the tail, and the first label. */
#ifndef BIX_STEP /* (tests/sh/blocker-index.sh: smaller, to relabel often) */
#define BIX_STEP ((uint64_t)1 << 32)
#endif


/* ---- the two heaps (binary min-heaps; positions stored 1-based, 0 =
 * not in a heap) ---- */

static uint64_t peer_key(const qs_peer *p) { return p->job->bix_label; }

static uint64_t queue_key(const qs_queue *q)
{
    return q->bix_ph[0]->job->bix_label;
}

static void ph_set(qs_queue *q, size_t i, qs_peer *p)
{
    q->bix_ph[i] = p;
    p->bix_pos = (uint32_t)(i + 1);
}

static void ph_up(qs_queue *q, size_t i)
{
    qs_peer *p = q->bix_ph[i];
    uint64_t k = peer_key(p);
    while (i > 0 && peer_key(q->bix_ph[(i - 1) / 2]) > k) {
        ph_set(q, i, q->bix_ph[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    ph_set(q, i, p);
}

static void ph_down(qs_queue *q, size_t i)
{
    qs_peer *p = q->bix_ph[i];
    uint64_t k = peer_key(p);
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->bix_pn)
            break;
        if (c + 1 < q->bix_pn &&
            peer_key(q->bix_ph[c + 1]) < peer_key(q->bix_ph[c]))
            c++;
        if (peer_key(q->bix_ph[c]) >= k)
            break;
        ph_set(q, i, q->bix_ph[c]);
        i = c;
    }
    ph_set(q, i, p);
}

static void rh_set(qs_transport *t, size_t i, qs_queue *q)
{
    t->bix_rh[i] = q;
    q->bix_rpos = i + 1;
}

static void rh_up(qs_transport *t, size_t i)
{
    qs_queue *q = t->bix_rh[i];
    uint64_t k = queue_key(q);
    while (i > 0 && queue_key(t->bix_rh[(i - 1) / 2]) > k) {
        rh_set(t, i, t->bix_rh[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    rh_set(t, i, q);
}

static void rh_down(qs_transport *t, size_t i)
{
    qs_queue *q = t->bix_rh[i];
    uint64_t k = queue_key(q);
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= t->bix_rn)
            break;
        if (c + 1 < t->bix_rn &&
            queue_key(t->bix_rh[c + 1]) < queue_key(t->bix_rh[c]))
            c++;
        if (queue_key(t->bix_rh[c]) >= k)
            break;
        rh_set(t, i, t->bix_rh[c]);
        i = c;
    }
    rh_set(t, i, q);
}

/* The transport's ready heap holds q exactly when q is ready (then it
 * has a pending peer): after any change of q's readiness or of its first
 * pending job, q is inserted, removed or moved. */
static void rh_sync(qs_queue *q)
{
    qs_transport *t = q->transport;
    int want = q->ready && q->bix_pn > 0;
    size_t i;
    if (want && !q->bix_rpos) {
        qsi_grow_ptrs(&t->bix_rh, t->bix_rn, &t->bix_rcap, 16);
        rh_set(t, t->bix_rn++, q);
        rh_up(t, t->bix_rn - 1);
    } else if (!want && q->bix_rpos) {
        i = q->bix_rpos - 1;
        q->bix_rpos = 0;
        if (i != --t->bix_rn) {
            qs_queue *moved = t->bix_rh[t->bix_rn];
            rh_set(t, i, moved);
            rh_up(t, i);
            rh_down(t, moved->bix_rpos - 1);
        }
    } else if (want) {
        i = q->bix_rpos - 1;
        rh_up(t, i);
        rh_down(t, q->bix_rpos - 1);
    }
}

/* q's first pending job was `was` (NULL: none) and may be another now: a
 * blocker that stops being q's first leaves the mark it implied written
 * in q's tag (see the header), and the ready heap learns the new key. */
static void bix_first_changed(qs_queue *q, const qs_job *was)
{
    qs_transport *t = q->transport;
    if (was && qsi_is_blocker(was) &&
        (q->bix_pn == 0 || q->bix_ph[0]->job != was))
        q->blocker_tag = t->blocker_tag;
    rh_sync(q);
}

/* A peer got its first pending entry (jobs.c qsi_entry_create). */
void qsi_bix_peer_pending(qs_peer *p)
{
    qs_queue *q = p->queue;
    const qs_job *was = q->bix_pn ? q->bix_ph[0]->job : NULL;
    qsi_grow_ptrs(&q->bix_ph, q->bix_pn, &q->bix_pcap, 4);
    ph_set(q, q->bix_pn++, p);
    ph_up(q, q->bix_pn - 1);
    bix_first_changed(q, was);
}

/* A peer lost its last pending entry (selected or deferred). */
void qsi_bix_peer_idle(qs_peer *p)
{
    qs_queue *q = p->queue;
    const qs_job *was = q->bix_ph[0]->job;
    size_t i = p->bix_pos - 1;
    p->bix_pos = 0;
    if (i != --q->bix_pn) {
        qs_peer *moved = q->bix_ph[q->bix_pn];
        ph_set(q, i, moved);
        ph_up(q, i);
        ph_down(q, moved->bix_pos - 1);
    }
    bix_first_changed(q, was);
}

/* The queue's readiness flipped (qsi_queue_update_ready). */
void qsi_bix_queue_ready(qs_queue *q)
{
    rh_sync(q);
}

/* The job is about to lose its blocker tag without a release (it gets
 * entries, jobs.c qsi_job_obtain): where it is the first pending job, the
 * destination's mark it implied is written down. */
void qsi_bix_job_untag(qs_job *job)
{
    qs_peer *p;
    for (p = job->peer_head; p; p = p->next)
        if (p->bix_pos == 1)
            p->queue->blocker_tag = job->transport->blocker_tag;
}

/* The first job, in list order, with a pending entry at a ready
 * destination, or NULL. */
qs_job *qsi_bix_stop(const qs_transport *t)
{
    return t->bix_rn ? t->bix_rh[0]->bix_ph[0]->job : NULL;
}

/* ---- labels ---- */

/* Spreads the labels of the n jobs from `first` evenly over (lo, hi). */
static void relabel(qs_job *first, size_t n, uint64_t lo, uint64_t hi)
{
    uint64_t step = (hi - lo) / (n + 1);
    size_t i;
    qs_job *j = first;
    for (i = 1; i <= n; i++, j = j->lnext)
        j->bix_label = lo + step * i;
}

/* The job was just linked between its list neighbours: a label between
 * theirs.  Appended at the tail: the last label plus BIX_STEP.  With no
 * room between the neighbours, a window of 2^k jobs around it (k = 1,
 * 2, ...) is spread over the labels around the window, once they leave at
 * least 4 (n + 1)^2 between each other - amortised O(log^2 n) per link,
 * and the order of every other job kept. */
static void label_place(qs_job *job)
{
    uint64_t lo = job->lprev ? job->lprev->bix_label : 0;
    uint64_t hi;
    qs_job *a, *b;
    size_t n, want;
    if (!job->lnext) {
        if (UINT64_MAX - lo > BIX_STEP) {
            job->bix_label = lo + BIX_STEP;
            return;
        }
        hi = UINT64_MAX;
    } else {
        hi = job->lnext->bix_label;
        if (hi - lo >= 2) {
            job->bix_label = lo + (hi - lo) / 2;
            return;
        }
    }
    /* the window [a, b] grows both ways until its labels have room */
    a = b = job;
    n = 1;
    for (want = 2;; want *= 2) {
        while (n < want && (a->lprev || b->lnext)) {
            if (a->lprev) {
                a = a->lprev;
                n++;
            }
            if (n < want && b->lnext) {
                b = b->lnext;
                n++;
            }
        }
        lo = a->lprev ? a->lprev->bix_label : 0;
        hi = b->lnext ? b->lnext->bix_label : UINT64_MAX;
        if ((hi - lo) / 4 / (n + 1) >= n + 1 ||
            (!a->lprev && !b->lnext))
            break;
    }
    relabel(a, n, lo, hi);
}

/* job_index.c qsi_cix_remove: the job left the list (or is moving). */
void qsi_bix_unlinked(qs_job *job)
{
    job->bix_listed = 0;
    qsi_bix_flag_sync(job);
}

/* jobs.c job_link: the job is on the list. */
void qsi_bix_linked(qs_transport *t, qs_job *job)
{
    if (t->bix_on) {
        label_place(job);
        job->bix_listed = 1;
        qsi_bix_flag_sync(job);
    }
}

/* preempt.c: the job was moved forward (in front of the current job).
 * Its pending peers leave their heaps while it takes its new label - a
 * relabelled window keeps the order of the jobs on the list, which its
 * old label, from its old place, no longer belongs to - and come back
 * with the new one. */
void qsi_bix_moved(qs_transport *t, qs_job *job)
{
    qs_peer *p;
    if (!t->bix_on)
        return;
    for (p = job->peer_head; p; p = p->next)
        if (p->bix_pos)
            qsi_bix_peer_idle(p);
    label_place(job);
    job->bix_listed = 1;
    qsi_bix_flag_sync(job);
    for (p = job->peer_head; p; p = p->next)
        if (p->ehead)
            qsi_bix_peer_pending(p);
}

/* ---- building and dropping, with the list index ---- */

static int bix_wanted(const qs_sched *s)
{
    return QS_READING(s, QR_BLOCKER_RELEASE) == QRV_RELEASE_ALL &&
           QS_READING(s, QR_CURRENT_JOB) == QRV_CURRENT_WALK_START;
}

/* Whether the walks want the index: they were long (bix_hot), under the
 * readings where it applies.  The list index (job_index.c) is kept while
 * this holds, as this index needs it. */
int qsi_bix_wanted(const qs_transport *t)
{
    return (QSI_BIX_ALWAYS || t->bix_hot) && bix_wanted(t->sched);
}

/* The index is kept while the list index is (long lists) and the walks
 * are long (bix_hot): built or dropped when either changes.  Built:
 * labels along the list, every pending peer into its queue's heap, every
 * ready queue into the transport's.  Dropped: the marks the heaps implied
 * are written into the queues' tags first. */
void qsi_bix_resize(qs_transport *t)
{
    qs_sched *s = t->sched;
    qs_queue *q;
    qs_job *j;
    int want = t->cix_on && qsi_bix_wanted(t);
    if (want && !t->bix_on) {
        uint64_t label = 0;
        t->bix_on = 1;
        s->bix_on_count++;
        t->bix_region = 0; /* tags may exist: tagging walks until a release */
        qsi_cix_sizes(t);
        for (j = t->jhead; j; j = j->lnext) {
            j->bix_label = label += BIX_STEP;
            j->bix_listed = 1;
            /* kept only while the index is on: from scratch */
            j->bix_stop = qsi_job_walk_stop(j);
            qsi_bix_flag_sync(j);
        }
        for (q = t->qhead; q; q = q->next) {
            qs_entry *e;
            for (e = q->todo_head; e; e = e->qnext)
                if (!e->peer->bix_pos)
                    qsi_bix_peer_pending(e->peer);
            rh_sync(q);
        }
    } else if (!want && t->bix_on) {
        qsi_bix_materialize(t);
        for (j = t->jhead; j; j = j->lnext) {
            j->bix_listed = 0;
            qsi_bix_flag_sync(j); /* out of the heap, or set-aside ones */
        }
        t->bix_on = 0;
        s->bix_on_count--;
        for (q = t->qhead; q; q = q->next) {
            size_t i;
            if (qsi_queue_marked(q))
                q->blocker_tag = t->blocker_tag;
            for (i = 0; i < q->bix_pn; i++)
                q->bix_ph[i]->bix_pos = 0;
            q->bix_pn = 0;
            q->bix_rpos = 0;
        }
        t->bix_rn = 0;
    }
}

/* Are the transport's walks long?  The index pays for itself only when
 * the walk marks many jobs per selection (its upkeep runs at every change
 * of a pending peer, a ready destination and a job's place); on a short
 * walk the plain one is cheaper.  Without the index the marks are
 * counted (select.c job_mark_blocker) and, once they reach QSI_BIX_MARKS,
 * the selection asks here: if they came within QSI_BIX_WINDOW selections
 * (deliveries) - an average of at least BIX_HOT marks a selection - the
 * index is built.  With it, every QSI_BIX_WINDOW selections: below an
 * average of BIX_COLD it is dropped (apart, so a transport near one
 * length does not rebuild it again and again).  So a transport without
 * the index pays a counter per mark, nothing per selection.  A cost
 * choice, not a rule: both ways give the same decisions (the
 * QSCHED_CROSSCHECK build checks the index's walks against the plain
 * one's tests). */
#define BIX_HOT (QSI_BIX_MARKS / QSI_BIX_WINDOW)
#ifndef BIX_COLD
#define BIX_COLD 8
#endif
void qsi_bix_adapt(qs_transport *t)
{
    if (!t->bix_on)
        t->bix_hot = t->deliveries - t->bix_window_start <= QSI_BIX_WINDOW;
    else if (t->walk_marks / QSI_BIX_WINDOW < BIX_COLD)
        t->bix_hot = 0;
    t->walk_selects = t->walk_marks = 0;
    t->bix_window_start = t->deliveries;
    /* hot walks on a long list: the list index first (job_index.c: it
     * builds this one too) */
    if (!t->cix_on)
        qsi_cix_resize(t);
    qsi_bix_resize(t);
    t->bix_due = t->bix_on;
}

/* A queue leaves (parked or freed): its heap's memory goes. */
void qsi_bix_queue_gone(qs_queue *q)
{
    free(q->bix_ph);
    q->bix_ph = NULL;
    q->bix_pn = q->bix_pcap = 0;
}
