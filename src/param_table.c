/*
 * param_table.c - every parameter qsched understands: its Postfix name,
 * what SCHEDULER_README says it controls, its default and why.
 *
 * Owns: qp_defs (one row per parameter, in the order `qsched -d` prints)
 * and qp_builtin (the defaults Postfix gives the local transport, S-EV-3).
 * The defaults are those of ../shared/reference/postconf-scheduler-
 * params.txt; the rules that read each value are named at its row.
 *
 * Implements: the parameter half of the event language (S-EV-2, S-EV-3);
 * the document's table "Concurrency configuration parameters", and the
 * parameters its preemption chapter ("How the queue manager schedules
 * deliveries", k, loan, discount, minimum slots) and its memory chapter
 * (recipient limits, extra pool, refill) name in passing.  Why a file of
 * its own: a reader who wants to know what a knob does, and why Postfix
 * ships the value it does, should find the answer at the row, not spread
 * over the scheduler.  May not: parse, store or resolve values (params.c)
 * or decide what a value means at run time (the rule files do).
 *
 * How to read a row: {global name, per-transport suffix or NULL, syntax,
 * default text, min, max}.  The global name is what main.cf calls the
 * default for every transport; TRANSPORT_suffix overrides it for one
 * transport (S-EV-2).  The default is kept as text and parsed by the same
 * code as a user's value (qs_params_new), so that `qsched -d` prints
 * exactly what the scheduler uses and a default outside its own range is
 * caught at once.
 *
 * Ranges.  Postfix accepts any integer and trusts the administrator; qsched
 * must also keep its arithmetic exact.  Every bound below is wide enough
 * for any real configuration and narrow enough that every product the
 * kernels form (counter x 100, needed x discount, minimum x active limit)
 * stays inside 64 bits; proofs/README.md, "Preconditions", proves the
 * kernels under exactly these bounds, so widening one means redoing that
 * table.  Per-transport rows come first (QP_NUM_TRANSPORT_PARAMS marks the
 * end), then the global-only ones.
 */
#include "param_table.h"

const struct qp_def qp_defs[QP_NUM_PARAMS] = {
    /* ---- The preemption knobs (S-PRE-3 .. S-PRE-7) ----
     * The document's theory: a job that has had k entries selected has
     * "earned" one delivery slot, and a job needing no more slots than the
     * current one has earned may go first.  Since the preempting job pays
     * with slots the preempted one accumulated, the long job is delayed by
     * at most a factor (k+1)/k without recursion, k/(k-1) with it.
     *
     * delivery_slot_cost, k.  Default 5: the document's compromise.  k = 2
     * gives small mail the fastest service but may stretch a mailing list
     * by up to twice its time; with 5 the worst case is about 20-25%
     * longer, which the reference judges an acceptable price for response
     * time.  0 switches preemption off; 1 would mean "every entry earns a
     * slot", an unbounded inflation (k/(k-1) divides by zero), so it is
     * treated as off too (S-PRE-3).  Max 1000: far beyond the "no sense
     * above 50" of the reference, small enough for the kernels. */
    [QP_SLOT_COST] = {"default_delivery_slot_cost", "delivery_slot_cost",
                      T_INT, "5", 0, 1000},
    /* delivery_slot_loan: slots a candidate is credited with in advance
     * when the preemption test of S-PRE-7 is made.  The preempting job
     * still pays the full price from the same counter, so the counter goes
     * negative, and the preempted job cannot be preempted again until it
     * has earned the loan back: the loan brings small mail forward without
     * weakening the bound.  Default 3, the document's value: in its worked
     * example (a ten-recipient mail before two two-recipient ones) it is
     * what lets the small ones in early without visibly delaying the big
     * one. */
    [QP_SLOT_LOAN] = {"default_delivery_slot_loan", "delivery_slot_loan",
                      T_INT, "3", 0, 1000000},
    /* delivery_slot_discount: the percentage of a candidate's need that
     * may still be missing when it preempts (S-PRE-7).  Default 50: "wait
     * only for half of the slots, promise the other half later", the
     * document's illustration turned into the shipped value.  Max 100
     * (everything on credit); a percentage above it would make the test's
     * required share negative. */
    [QP_SLOT_DISCOUNT] = {"default_delivery_slot_discount",
                          "delivery_slot_discount", T_INT, "50", 0, 100},
    /* minimum_delivery_slots: a job whose entries could never earn this
     * many slots (its maximum entries below minimum x k) is not preempted
     * at all (the gate of S-PRE-3).  Why: the candidate search walks the
     * job list; for a job that will finish after a handful of entries the
     * search would cost more than any gain.  Default 3, as the document
     * says ("defaults to 3"): with k = 5 only jobs of 15 entries or more
     * can be preempted. */
    [QP_MIN_SLOTS] = {"default_minimum_delivery_slots",
                      "minimum_delivery_slots", T_INT, "3", 0, 1000000},

    /* ---- The concurrency window (S-CON-1 .. S-CON-10) ----
     * destination_concurrency_limit: the window's ceiling, the most
     * deliveries in parallel to one destination (a domain, or a recipient
     * when the recipient limit is 1).  The window grows with positive
     * feedback and is clamped here, which is what stops the overshoot of
     * S-CON-5.  Default 20, Postfix's value for smtp-like agents: enough
     * parallelism for a large site, while bounding the load one sender
     * puts on one remote server.
     * 0 means "no limit", which only the postfix profile accepts (S-EV-5):
     * the document's window has no meaning without a ceiling. */
    [QP_DEST_CONC_LIMIT] = {"default_destination_concurrency_limit",
                            "destination_concurrency_limit", T_INT, "20", 0,
                            1000000},
    /* destination_recipient_limit: the most recipients in one entry, i.e.
     * in one delivery (S-PRE-1).  1 changes what a destination is: each
     * recipient becomes a destination of its own, so the concurrency
     * limit above then limits deliveries to one recipient (S-EV-4).
     * Default 50: batches large enough to save most of the per-delivery
     * cost of a long list, well under the 100 recipients per transaction
     * that every SMTP server must accept.  0 means no limit. */
    [QP_DEST_RCPT_LIMIT] = {"default_destination_recipient_limit",
                            "destination_recipient_limit", T_INT, "50", 0,
                            1000000},

    /* ---- Recipients in memory (S-MEM-3 .. S-MEM-7) ----
     * recipient_limit: the transport's pool of recipient slots (S-MEM-5).
     * Once a message's recipients are assigned to transports, it is these
     * pools, not the global limit, that decide how many more each job may
     * read.  Default 20000, the same as the global limit: one transport
     * alone may fill memory as far as the whole queue manager may. */
    [QP_RCPT_LIMIT] = {"default_recipient_limit", "recipient_limit", T_INT,
                       "20000", 1, 100000000},
    /* extra_recipient_limit: a second pool, used only when a job that is
     * not yet fully read preempts (S-MEM-6).  Without it, a preempting
     * job that finds the normal pool empty could read only the minimum
     * (10) recipients per batch, and the preemption meant to speed it up
     * would crawl.  Default 1000: small against the 20000 of the normal
     * pool, so a transport's term of the S-MEM-9 bound grows by 5%, yet
     * enough for several preemptions in a row (each takes half of what
     * is left). */
    [QP_EXTRA_RCPT_LIMIT] = {"default_extra_recipient_limit",
                             "extra_recipient_limit", T_INT, "1000", 0,
                             100000000},
    /* recipient_refill_limit and recipient_refill_delay: when a message
     * with room reads its next batch (S-MEM-7).  Reading costs a pass
     * over the queue file, so it is done when at least refill_limit
     * recipients fit (default 100: batches big enough to be worth a
     * read), or, so that a slow transport is not starved while its room
     * grows slowly, when some fit and refill_delay has passed since the
     * last read (default 5s, in virtual seconds here). */
    [QP_REFILL_LIMIT] = {"default_recipient_refill_limit",
                         "recipient_refill_limit", T_INT, "100", 1,
                         100000000},
    [QP_REFILL_DELAY] = {"default_recipient_refill_delay",
                         "recipient_refill_delay", T_TIME, "5s", 1,
                         1000000000},

    /* ---- Feedback and dead destinations (S-CON-1 .. S-CON-10) ----
     * initial_destination_concurrency: the window of a new or revived
     * destination (S-CON-1, S-CON-10), and the slack of the safety rule
     * (S-CON-3), which never lets the window drop below what was proved
     * to work.  Default 5: enough to get a healthy destination going,
     * small enough that a broken one does little harm before feedback
     * lowers it; the reference warns that 1 lets one bad message block a
     * whole site.  Its global name has no default_ prefix, as in Postfix,
     * which is why qs_params_set looks up global names first. */
    [QP_INIT_CONC] = {"initial_destination_concurrency",
                      "initial_destination_concurrency", T_INT, "5", 1,
                      1000000},
    /* destination_concurrency_failed_cohort_limit: how many failed
     * pseudo-cohorts (a window's worth of failed deliveries) a destination
     * may suffer before it is declared dead (S-CON-8).  Default 1, the
     * old scheduler's behaviour, in which one bad cohort throttled a site
     * to zero; 0 disables death altogether (with zero negative feedback,
     * the scheduler then ignores connection failures). */
    [QP_COHORT_LIMIT] = {"default_destination_concurrency_failed_cohort_limit",
                         "destination_concurrency_failed_cohort_limit", T_INT,
                         "1", 0, 1000000},
    /* positive and negative feedback: g(N) and f(N) of S-CON-2, how much
     * one delivery's outcome moves the window.  The range [0,1] is
     * enforced by the syntax (qs_feedback_parse), hence min = max = 0
     * here.  Default 1, again the pre-2.5 behaviour: +1 per success
     * doubles the window after a successful cohort, -1 per failure empties
     * it after a failed one; 1/concurrency instead moves the window by
     * one per cohort. */
    [QP_POS_FEEDBACK] = {"default_destination_concurrency_positive_feedback",
                         "destination_concurrency_positive_feedback",
                         T_FEEDBACK, "1", 0, 0},
    [QP_NEG_FEEDBACK] = {"default_destination_concurrency_negative_feedback",
                         "destination_concurrency_negative_feedback",
                         T_FEEDBACK, "1", 0, 0},

    /* ---- Processes and rates ----
     * process_limit: delivery agents of the transport, i.e. deliveries in
     * flight on it at once (S-PRE-14: the round robin skips a transport at
     * its limit).  Default 100, Postfix's master.cf default, so that one
     * busy transport cannot starve the machine. */
    [QP_PROCESS_LIMIT] = {"default_process_limit", "process_limit", T_INT,
                          "100", 1, 1000000},
    /* The rate delays, a third scheduler of Postfix that the document
     * does not describe: accepted only as 0, their default, so that a
     * main.cf that sets them says so rather than being silently ignored. */
    [QP_XPORT_RATE_DELAY] = {"default_transport_rate_delay",
                             "transport_rate_delay", T_TIME, "0s", 0, 0},
    [QP_DEST_RATE_DELAY] = {"default_destination_rate_delay",
                            "destination_rate_delay", T_TIME, "0s", 0, 0},

    /* ---- Global only ----
     * qmgr_message_active_limit: messages in the active queue (S-MEM-2);
     * further arrivals wait in the incoming queue, first come first
     * served.  Default 20000: the active queue is the queue manager's
     * memory, and this bounds it by messages as the next two bound it by
     * recipients. */
    [QP_ACTIVE_LIMIT] = {"qmgr_message_active_limit", NULL, T_INT, "20000",
                         1, 10000000},
    /* qmgr_message_recipient_limit: the global budget of first batches
     * (S-MEM-3): a new message reads what is left of it, before any
     * transport pool applies.  Default 20000, equal to a transport's pool,
     * so that neither is the bottleneck for a single big message. */
    [QP_MSG_RCPT_LIMIT] = {"qmgr_message_recipient_limit", NULL, T_INT,
                           "20000", 1, 100000000},
    /* qmgr_message_recipient_minimum: what every message may read "no
     * matter what" (S-MEM-3, S-MEM-4).  It guarantees progress: without
     * it a message arriving when memory is full could read nothing and
     * never be scheduled.  Default 10, small because it is multiplied by
     * the active limit in the memory bound (S-MEM-9); min 1 for the same
     * reason of progress. */
    [QP_MSG_RCPT_MINIMUM] = {"qmgr_message_recipient_minimum", NULL, T_INT,
                             "10", 1, 100000000},
    /* minimal_backoff_time: how long a dead destination stays dead before
     * it is tried again (S-CON-10).  Default 300s, equal to the default
     * queue_run_delay, as the reference asks (the backoff no shorter than
     * the interval between deferred-queue scans). */
    [QP_MIN_BACKOFF] = {"minimal_backoff_time", NULL, T_TIME, "300s", 1,
                        1000000000},
    /* The last three are accepted so that main.cf fragments paste in, and
     * change nothing: qsched has no deferred queue to scan or back off,
     * and writes no log for the feedback debug switch to enlarge. */
    [QP_MAX_BACKOFF] = {"maximal_backoff_time", NULL, T_TIME, "4000s", 1,
                        1000000000},
    [QP_QUEUE_RUN_DELAY] = {"queue_run_delay", NULL, T_TIME, "300s", 1,
                            1000000000},
    [QP_FEEDBACK_DEBUG] = {"destination_concurrency_feedback_debug", NULL,
                           T_BOOL, "no", 0, 1},
};

/* Built-in per-transport defaults (S-EV-3).  In Postfix the local
 * transport's recipient and concurrency limits are parameters of their
 * own (local_destination_recipient_limit = 1, local_destination_
 * concurrency_limit = 2): local(8) delivers to one mailbox at a time, so
 * a destination of local is one recipient, and at most 2 deliveries to the
 * same mailbox run together, since a mailbox is written under a lock and
 * more would only wait for it.  They sit between a TRANSPORT_suffix
 * override and the global default (qs_param_int). */
const struct qp_builtin_def qp_builtin[] = {
    {"local", QP_DEST_RCPT_LIMIT, 1},
    {"local", QP_DEST_CONC_LIMIT, 2},
};
const size_t qp_nbuiltin = sizeof qp_builtin / sizeof qp_builtin[0];
