/*
 * arrive.h - qs_arrive for a caller that has already measured the names.
 *
 * Owns one internal declaration, shared by the core (messages.c, which
 * defines it) and the event parser (events.c, its only caller).  Why it
 * exists: the parser's one pass over an arrive line checks every name
 * with exactly the core's character classes and length limits (S-EV-7)
 * and so knows each name's length; qs_arrive would scan every name again
 * to check and measure it (issue 16: 1.7% of a replay).  With the lengths
 * given, the core skips those scans and nothing else: the message id, the
 * counts, the duplicate and the queue limits are checked as always.
 * tests/unit/test_arrive_lengths.c shows, byte value by byte value and at
 * the length limits, that a line the parser passes this way is accepted
 * exactly when qs_arrive accepts the same groups.
 */
#ifndef QSCHED_ARRIVE_H
#define QSCHED_ARRIVE_H

#include "qsched.h"

/* lens[i]: the lengths of group i's transport, local part (any value
 * without one) and next-hop, each valid and within its limit (64, 64,
 * 200) by the classes of S-EV-7; NULL: measure them (qs_arrive). */
int qsi_arrive_measured(qs_sched *s, const char *msgid,
                        const qs_group *groups, size_t ngroups,
                        const unsigned char (*lens)[3], char *err,
                        size_t errlen);

#endif
