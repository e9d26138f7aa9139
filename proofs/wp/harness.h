/*
 * proofs/wp/harness.h - what every WP harness of proofs/wp/ includes first.
 *
 * Owns the two differences between the proved translation units and the
 * compiled ones: the size of qs_queue's flexible name member (below), and
 * the hooks of the incremental invariant checker
 * (check_changes.c, the QSI_CK_* macros of sched_int.h) are elided.  They
 * only note, for the checker run after the event, which objects the event
 * touched (an epoch and an index in the object, a pointer appended to a
 * list of the scheduler), and they are inert unless the checker is on
 * (s->ck_on); no scheduler decision reads what they write.  Their
 * realloc'ing lists are outside what WP can frame, so the proofs are of
 * the code with these calls removed, which is the code that runs when the
 * checker is off.  Everything else is the compiled source, included as is.
 * (One more hint is nothing here: QSI_PREFETCH, a cache hint that reads
 * and writes nothing, is empty whenever __FRAMAC__ is defined, by
 * sched_int.h itself.)
 */
#ifndef QSCHED_PROOF_HARNESS_H
#define QSCHED_PROOF_HARNESS_H
/* qs_queue's flexible name member gets a size: WP's typed memory model
 * cannot state \valid(q) of a struct with a flexible array member (it
 * warns "Undefined array-size" and every goal about a queue degenerates).
 * No proved function reads the name; layout is all it changes. */
#define QSI_NAME_FAM 1
#include "../../src/sched_int.h"
#undef QSI_CK_MSG
#undef QSI_CK_XPORT
#undef QSI_CK_JOB
#undef QSI_CK_QUEUE
#undef QSI_CK_ENTRY
#define QSI_CK_MSG(s, m) ((void)0)
#define QSI_CK_XPORT(s, t) ((void)0)
#define QSI_CK_JOB(s, j) ((void)0)
#define QSI_CK_QUEUE(s, q) ((void)0)
#define QSI_CK_ENTRY(s, e) ((void)0)
#endif
