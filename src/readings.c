/*
 * readings.c - the table of named readings (spec/readings.md).
 *
 * Owns: the name, values, defaults per profile, spec entry and rule of
 * every reading switch (see readings.h for what a reading is and why it
 * is a switch).  The order is the order of spec/readings.md and of
 * `qsched -d`.  Value 0 of every switch is qsched's choice in the document
 * profile; the postfix profile takes another default only where a rule of
 * spec/profiles.md says Postfix does otherwise (S-PFX-4, S-PFX-5,
 * S-PFX-6, S-PFX-8, S-PFX-10, S-PFX-13, S-PFX-21).  Part of the core: constant data and lookups, no I/O.
 */
#include <string.h>
#include "readings.h"
#include "sched_int.h"

static const qs_reading_def readings[QR_COUNT] = {
    [QR_IDLE_WINDOW] = {
        "idle_window", "qsched_reading_idle_window", "R-1", "S-CON-13",
        {"discard", "keep", NULL}, QRV_IDLE_DISCARD, QRV_IDLE_DISCARD,
        "does an alive destination with nothing pending or in flight keep "
        "its window"},
    [QR_TRANSPORT_RR] = {
        "transport_rr", "qsched_reading_transport_rr", "R-2", "S-PRE-14",
        {"last", "next", "rotate", NULL}, QRV_RR_LAST, QRV_RR_ROTATE,
        "round robin resumes after the last transport that delivered "
        "(last), at the transport that followed it then (next), or as "
        "Postfix's rotated transport list (rotate)"},
    [QR_CANDIDATE_FIT] = {
        "candidate_fit", "qsched_reading_candidate_fit", "R-3", "S-PRE-5",
        {"no_more_than", "less_than", NULL}, QRV_FIT_NO_MORE_THAN,
        QRV_FIT_NO_MORE_THAN,
        "a candidate needs no more than, or less than, the slots the "
        "current job may still accumulate"},
    [QR_MIN_SLOTS_GATE] = {
        "min_slots_gate", "qsched_reading_min_slots_gate", "R-4", "S-PRE-3",
        {"at_least", "more_than", NULL}, QRV_GATE_AT_LEAST,
        QRV_GATE_AT_LEAST,
        "preemption is attempted when the current job can accumulate at "
        "least, or more than, the minimum delivery slots"},
    [QR_PREEMPT_CREDIT] = {
        "preempt_credit", "qsched_reading_preempt_credit", "R-5", "S-PRE-3",
        {"required", "ignored", NULL}, QRV_CREDIT_REQUIRED,
        QRV_CREDIT_REQUIRED,
        "no preemption attempt while the current job's slot counter is "
        "<= 0 (required), or attempts anyway (ignored)"},
    [QR_SAFETY_COHORT_RESET] = {
        "safety_cohort_reset", "qsched_reading_safety_cohort_reset", "R-6",
        "S-CON-3", {"skipped", "done", NULL}, QRV_SAFETY_SKIPS_RESET,
        QRV_SAFETY_RESETS,
        "when the safety rule refuses positive feedback, is fail_cohorts = 0 "
        "skipped too"},
    [QR_CURRENT_WHEN_GONE] = {
        "current_when_gone", "qsched_reading_current_when_gone", "R-7",
        "S-PRE-2", {"next", "head", "none", NULL}, QRV_GONE_NEXT,
        QRV_GONE_NEXT,
        "which job is current once the current job leaves the job list"},
    [QR_SCORE_WAIT_PLUS_ONE] = {
        "score_wait_plus_one", "qsched_reading_score_wait_plus_one", "R-8",
        "S-PRE-6", {"yes", "no", NULL}, QRV_PLUS_ONE_YES, QRV_PLUS_ONE_YES,
        "is the waiting time of the candidate score now - enqueue + 1"},
    [QR_SLOT_DIVISION] = {
        "slot_division", "qsched_reading_slot_division", "R-9",
        "S-PRE-5 S-PRE-7", {"integer", "exact", NULL}, QRV_DIV_INTEGER,
        QRV_DIV_INTEGER,
        "is the slot counter divided by the slot cost in integers, or "
        "exactly"},
    [QR_POP_REFUND] = {
        "pop_refund", "qsched_reading_pop_refund", "R-10", "S-PRE-9",
        {"yes", "no", NULL}, QRV_REFUND_YES, QRV_REFUND_YES,
        "does a preempting job that leaves its stack give back the slots it "
        "was charged but did not use"},
    [QR_PREEMPTED_CANDIDATES] = {
        "preempted_candidates", "qsched_reading_preempted_candidates",
        "R-11", "S-PRE-5", {"excluded", "included", NULL},
        QRV_PREEMPTED_EXCLUDED, QRV_PREEMPTED_EXCLUDED,
        "may a job that is itself preempted be a candidate"},
    [QR_DEFERRED_ENTRIES] = {
        "deferred_entries", "qsched_reading_deferred_entries", "R-12",
        "S-CON-9", {"selected", "forgotten", NULL}, QRV_DEFERRED_SELECTED,
        QRV_DEFERRED_SELECTED,
        "do entries deferred by a dead destination count as selected, or "
        "leave the job's entry count"},
    [QR_BLOCKER_RELEASE] = {
        "blocker_release", "qsched_reading_blocker_release", "R-13",
        "S-PRE-12", {"pending", "peer", "all", NULL}, QRV_RELEASE_PENDING,
        QRV_RELEASE_ALL,
        "which blockers a freed destination releases: those with pending "
        "entries there, those with a peer there, or all"},
    [QR_CURRENT_JOB] = {
        "current_job", "qsched_reading_current_job", "R-14",
        "S-PRE-2 S-PRE-12", {"last_selected", "walk_start", NULL},
        QRV_CURRENT_LAST_SELECTED, QRV_CURRENT_WALK_START,
        "is the current job the last-selected job, or where selection "
        "restarts (the head after a release)"},
    [QR_DEAD_SUCCESS] = {
        "dead_success", "qsched_reading_dead_success", "R-15", "S-CON-11",
        {"ignored", "revives", NULL}, QRV_DEAD_SUCCESS_IGNORED,
        QRV_DEAD_SUCCESS_REVIVES,
        "does a success of a delivery to a dead destination revive it"},
    [QR_REVIVAL_WINDOW] = {
        "revival_window", "qsched_reading_revival_window", "R-16",
        "S-CON-10", {"initial", "in_flight", NULL}, QRV_REVIVAL_INITIAL,
        QRV_REVIVAL_IN_FLIGHT,
        "a revived destination's window: the initial concurrency, or its "
        "deliveries still in flight if any"},
    [QR_FEEDBACK_BUSY] = {
        "feedback_busy", "qsched_reading_feedback_busy", "R-17",
        "S-CON-3 S-CON-12", {"after", "before", NULL}, QRV_FEEDBACK_AFTER,
        QRV_FEEDBACK_BEFORE,
        "is a delivery's feedback taken after it left busy_refcount, or "
        "while it still counts"},
    [QR_DEATH_RELEASE] = {
        "death_release", "qsched_reading_death_release", "R-18",
        "S-CON-9 S-PRE-12", {"yes", "no", NULL}, QRV_DEATH_RELEASES,
        QRV_DEATH_KEEPS,
        "does a destination declared dead release the blockers that wait "
        "for it"},
    [QR_SCORE_ENTRIES] = {
        "score_entries", "qsched_reading_score_entries", "R-19", "S-PRE-6",
        {"total", "remaining", NULL}, QRV_SCORE_TOTAL, QRV_SCORE_TOTAL,
        "is the score's recipient_entry_count the job's total entries, or "
        "those still to deliver"},
};

size_t qs_reading_count(void) { return QR_COUNT; }

const qs_reading_def *qs_reading(size_t r)
{
    return r < QR_COUNT ? &readings[r] : NULL;
}

int qs_reading_find(const char *name)
{
    size_t r;
    for (r = 0; r < QR_COUNT; r++)
        if (strcmp(name, readings[r].name) == 0 ||
            strcmp(name, readings[r].param) == 0)
            return (int)r;
    return -1;
}

size_t qs_reading_nvalues(size_t r)
{
    size_t n = 0;
    while (r < QR_COUNT && readings[r].values[n])
        n++;
    return n;
}

int qs_reading_value_find(size_t r, const char *word)
{
    size_t v;
    for (v = 0; r < QR_COUNT && readings[r].values[v]; v++)
        if (strcmp(word, readings[r].values[v]) == 0)
            return (int)v;
    return -1;
}

int qs_reading_default(size_t r, int postfix)
{
    if (r >= QR_COUNT)
        return 0;
    return postfix ? readings[r].def_postfix : readings[r].def_document;
}

int qs_reading_in_force(const qs_sched *s, size_t r)
{
    return r < QR_COUNT ? QS_READING(s, r) : 0;
}
