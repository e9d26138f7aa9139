/*
 * test_readings.c - the table of named readings (src/readings.c) and how a
 * scheduler resolves them (spec/readings.md, issue 20).
 *
 * Owns: the checks that the table says what spec/readings.md says (names,
 * values, qsched's choice per profile: the postfix profile's own defaults
 * are the rules S-PFX-4, -5, -6, -8, -10, -13, -21), that qsched_reading_NAME
 * parameters are parsed and refused as documented, and that a scheduler
 * runs with the stream's value or else its profile's default.  The
 * behaviour of each reading is shown by tests/golden/rd-*.
 */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "params.h"
#include "readings.h"

static void test_table(void)
{
    static const struct {
        const char *name, *doc, *pfx;
        size_t nvalues;
    } want[] = {
        {"idle_window", "discard", "discard", 2},
        {"transport_rr", "last", "rotate", 3},
        {"candidate_fit", "no_more_than", "no_more_than", 2},
        {"min_slots_gate", "at_least", "at_least", 2},
        {"preempt_credit", "required", "required", 2},
        {"safety_cohort_reset", "skipped", "done", 2},
        {"current_when_gone", "next", "next", 3},
        {"score_wait_plus_one", "yes", "yes", 2},
        {"slot_division", "integer", "integer", 2},
        {"pop_refund", "yes", "yes", 2},
        {"preempted_candidates", "excluded", "excluded", 2},
        {"deferred_entries", "selected", "selected", 2},
        {"blocker_release", "pending", "all", 3},
        {"current_job", "last_selected", "walk_start", 2},
        {"dead_success", "ignored", "revives", 2},
        {"revival_window", "initial", "in_flight", 2},
        {"feedback_busy", "after", "before", 2},
        {"death_release", "yes", "no", 2},
        {"score_entries", "total", "total", 2},
    };
    size_t i;
    char label[128];
    CHECK_EQ_LL("R-* count", qs_reading_count(), sizeof want / sizeof want[0]);
    for (i = 0; i < sizeof want / sizeof want[0] && i < qs_reading_count();
         i++) {
        const qs_reading_def *d = qs_reading(i);
        char param[96], entry[16];
        snprintf(param, sizeof param, "qsched_reading_%s", want[i].name);
        snprintf(entry, sizeof entry, "R-%zu", i + 1);
        snprintf(label, sizeof label, "%s name", entry);
        CHECK_EQ_STR(label, d->name, want[i].name);
        snprintf(label, sizeof label, "%s parameter", entry);
        CHECK_EQ_STR(label, d->param, param);
        snprintf(label, sizeof label, "%s entry", entry);
        CHECK_EQ_STR(label, d->entry, entry);
        snprintf(label, sizeof label, "%s values", entry);
        CHECK_EQ_LL(label, qs_reading_nvalues(i), want[i].nvalues);
        snprintf(label, sizeof label, "%s document default", entry);
        CHECK_EQ_STR(label, d->values[qs_reading_default(i, 0)], want[i].doc);
        snprintf(label, sizeof label, "%s postfix default", entry);
        CHECK_EQ_STR(label, d->values[qs_reading_default(i, 1)], want[i].pfx);
        snprintf(label, sizeof label, "%s document default is value 0",
                 entry);
        CHECK_EQ_LL(label, qs_reading_default(i, 0), 0);
        snprintf(label, sizeof label, "%s found by name and parameter",
                 entry);
        CHECK(label, qs_reading_find(want[i].name) == (int)i &&
                         qs_reading_find(param) == (int)i);
        snprintf(label, sizeof label, "%s rule ids", entry);
        CHECK(label, strncmp(d->rules, "S-", 2) == 0 && d->question[0]);
    }
    CHECK("R-* unknown name", qs_reading_find("no_such_reading") == -1);
    CHECK("R-* unknown value", qs_reading_value_find(QR_IDLE_WINDOW,
                                                     "maybe") == -1);
    CHECK("R-* out of range", qs_reading(QR_COUNT) == NULL);
}

static void test_params(void)
{
    qs_params *p = qs_params_new();
    char err[256];
    size_t i, n_rd = 0;
    int found_last = 0;
    err[0] = 0;
    CHECK("params: readings unset at first",
          qs_param_reading(p, QR_IDLE_WINDOW) == -1 &&
              qs_param_reading(p, QR_CURRENT_JOB) == -1);
    CHECK("params: set a reading",
          qs_params_set(p, "qsched_reading_idle_window", "keep", err,
                        sizeof err) == 0 &&
              qs_param_reading(p, QR_IDLE_WINDOW) == QRV_IDLE_KEEP);
    CHECK("params: bad value refused with the values",
          qs_params_set(p, "qsched_reading_idle_window", "maybe", err,
                        sizeof err) == -1 &&
              strstr(err, "want discard|keep") != NULL &&
              qs_param_reading(p, QR_IDLE_WINDOW) == QRV_IDLE_KEEP);
    CHECK("params: unknown reading refused",
          qs_params_set(p, "qsched_reading_bogus", "yes", err,
                        sizeof err) == -1 &&
              strstr(err, "unknown reading") != NULL);
    /* qsched -d: every reading after the parameters, document default */
    for (i = 0; i < qs_params_count(); i++) {
        const char *name = qs_params_name(i);
        if (strncmp(name, "qsched_reading_", 15) == 0) {
            int r = qs_reading_find(name);
            n_rd++;
            if (r == QR_CURRENT_JOB)
                found_last = strcmp(qs_params_default(i), "last_selected") == 0;
        }
    }
    CHECK_EQ_LL("params: -d lists every reading", n_rd, QR_COUNT);
    CHECK("params: -d shows the document default", found_last);
    qs_params_free(p);
}

/* What a scheduler runs with: the stream's value, else its profile's. */
static void test_in_force(void)
{
    qs_params *p = qs_params_new();
    qs_sched *d, *x;
    char err[256];
    size_t r;
    int all_doc = 1, all_pfx = 1;
    qs_params_set(p, "qsched_reading_transport_rr", "next", err, sizeof err);
    d = qs_sched_new(p, QS_PROFILE_DOCUMENT, NULL, NULL, err, sizeof err);
    x = qs_sched_new(p, QS_PROFILE_POSTFIX, NULL, NULL, err, sizeof err);
    if (!d || !x) {
        CHECK("in force: schedulers", 0);
        return;
    }
    for (r = 0; r < qs_reading_count(); r++) {
        if (r == QR_TRANSPORT_RR)
            continue;
        all_doc &= qs_reading_in_force(d, r) == qs_reading_default(r, 0);
        all_pfx &= qs_reading_in_force(x, r) == qs_reading_default(r, 1);
    }
    CHECK("in force: document defaults", all_doc);
    CHECK("in force: postfix defaults", all_pfx);
    CHECK("in force: the stream's value wins in both profiles",
          qs_reading_in_force(d, QR_TRANSPORT_RR) == QRV_RR_NEXT &&
              qs_reading_in_force(x, QR_TRANSPORT_RR) == QRV_RR_NEXT);
    CHECK("in force: postfix feedback with the delivery in busy (S-PFX-6)",
          qs_reading_in_force(x, QR_FEEDBACK_BUSY) == QRV_FEEDBACK_BEFORE &&
              qs_reading_in_force(d, QR_FEEDBACK_BUSY) == QRV_FEEDBACK_AFTER);
    CHECK("in force: postfix blocker release is all (S-PFX-21)",
          qs_reading_in_force(x, QR_BLOCKER_RELEASE) == QRV_RELEASE_ALL &&
              qs_reading_in_force(x, QR_CURRENT_JOB) ==
                  QRV_CURRENT_WALK_START);
    qs_sched_free(d);
    qs_sched_free(x);
    qs_params_free(p);
}

int main(void)
{
    test_table();
    test_params();
    test_in_force();
    return CHECK_DONE();
}
