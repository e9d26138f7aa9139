/*
 * test_params.c - unit tests of the parameter store for the concurrency
 * scheduler's parameters (src/params.c through qsched.h's qs_params_* and
 * params.h's qs_feedback_parse / qs_param_int / qs_param_feedback).
 *
 * Owns: the accepted syntax of the four feedback forms and their range
 * (S-CON-2: a number in [0,1], number/number, number/concurrency,
 * number/sqrt_concurrency; anything else is an input error, never a silent
 * default), integer ranges, time units, unknown names, TRANSPORT_suffix
 * overrides and the built-in `local` defaults (S-EV-2, S-EV-3), and the
 * profile-dependent check of a concurrency limit of 0 (S-EV-5).  Expected
 * values come from postconf-scheduler-params.txt and the issue text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kernels.h"
#include "params.h"
#include "qsched.h"

/* ------------------------------------------------------------------ */
/* qs_feedback_parse: every accepted form                             */
/* ------------------------------------------------------------------ */

static const struct {
    const char *text;
    int form;
    double base;
    int sqrt_requested;
} fb_ok[] = {
    {"1", QS_FB_CONST, 1.0, 0},
    {"0", QS_FB_CONST, 0.0, 0},
    {"0.25", QS_FB_CONST, 0.25, 0},
    {".5", QS_FB_CONST, 0.5, 0},
    {"1.0", QS_FB_CONST, 1.0, 0},
    {"1.", QS_FB_CONST, 1.0, 0},
    {"1/4", QS_FB_CONST, 0.25, 0},       /* number/number folds: 1/4 */
    {"2/8", QS_FB_CONST, 0.25, 0},       /* 2/8 = .25 */
    {"3/5", QS_FB_CONST, 0.6, 0},        /* 3/5 = .6 */
    {"0/7", QS_FB_CONST, 0.0, 0},
    {"3/3", QS_FB_CONST, 1.0, 0},        /* exactly 1: in range */
    {"1/2.5", QS_FB_CONST, 0.4, 0},      /* 1/2.5 = .4 */
    {"0.5/0.5", QS_FB_CONST, 1.0, 0},
    {"1/concurrency", QS_FB_CONC, 1.0, 0},
    {"0.5/concurrency", QS_FB_CONC, 0.5, 0},
    {"0/concurrency", QS_FB_CONC, 0.0, 0},
    {"1/sqrt_concurrency", QS_FB_SQRT, 1.0, 1},
    {".25/sqrt_concurrency", QS_FB_SQRT, 0.25, 1},
};

/* Out of range: an error naming the range, exit 2 in a stream. */
static const char *fb_range[] = {
    "1.5", "2", "1.0000001", "2/1", "5/4", "2/concurrency",
    "1.01/sqrt_concurrency", "10/sqrt_concurrency",
};

/* Malformed: an error naming the accepted forms. */
static const char *fb_malformed[] = {
    "", "abc", "-1", "-0.5", "+1", "1/", "/2", "1/2/3", "1/Concurrency",
    "1/concurrency2", "concurrency", "1/sqrt", "1 / 2", " 1", "1e-1",
    "1..2", ".", "0x1", "inf", "nan", "1/-2", "x/concurrency",
    "/concurrency", "1/sqrt_concurrency/2",
};

static void test_feedback_parse(void)
{
    size_t i;
    char name[160], err[256];
    qs_feedback fb;
    for (i = 0; i < sizeof fb_ok / sizeof fb_ok[0]; i++) {
        int rc;
        memset(&fb, 0xff, sizeof fb);
        rc = qs_feedback_parse(fb_ok[i].text, &fb, err, sizeof err);
        snprintf(name, sizeof name, "S-CON-2 feedback \"%s\" accepted",
                 fb_ok[i].text);
        CHECK(name, rc == 0 && fb.form == fb_ok[i].form &&
                        fabs(fb.base - fb_ok[i].base) < 1e-15 &&
                        fb.sqrt_requested == fb_ok[i].sqrt_requested);
    }
    for (i = 0; i < sizeof fb_range / sizeof fb_range[0]; i++) {
        err[0] = 0;
        snprintf(name, sizeof name, "S-CON-2 feedback \"%s\" out of range",
                 fb_range[i]);
        CHECK(name, qs_feedback_parse(fb_range[i], &fb, err, sizeof err) ==
                            -1 &&
                        strstr(err, "out of range") != NULL);
    }
    for (i = 0; i < sizeof fb_malformed / sizeof fb_malformed[0]; i++) {
        err[0] = 0;
        snprintf(name, sizeof name, "S-CON-2 feedback \"%s\" malformed",
                 fb_malformed[i]);
        CHECK(name, qs_feedback_parse(fb_malformed[i], &fb, err,
                                      sizeof err) == -1 &&
                        strstr(err, "malformed") != NULL);
    }
    /* number/0 is neither a number in [0,1] nor malformed text */
    err[0] = 0;
    CHECK("S-CON-2 feedback \"1/0\" refused",
          qs_feedback_parse("1/0", &fb, err, sizeof err) == -1 &&
              strstr(err, "division by zero") != NULL);
    err[0] = 0;
    CHECK("S-CON-2 feedback \"0/0\" refused",
          qs_feedback_parse("0/0", &fb, err, sizeof err) == -1 && err[0]);
    /* a NULL error buffer is allowed */
    CHECK("S-CON-2 feedback error without buffer",
          qs_feedback_parse("7", &fb, NULL, 0) == -1);
}

/* ------------------------------------------------------------------ */
/* defaults (postconf -d), postconf-scheduler-params.txt              */
/* ------------------------------------------------------------------ */

static const char *default_of(const char *name)
{
    size_t i;
    for (i = 0; i < qs_params_count(); i++)
        if (strcmp(qs_params_name(i), name) == 0)
            return qs_params_default(i);
    return NULL;
}

static void test_defaults(void)
{
    qs_params *p = qs_params_new();
    qs_feedback fb;
    if (!p) {
        CHECK("params_new", 0);
        return;
    }
    CHECK_EQ_STR("S-EV-2 default initial_destination_concurrency",
                 default_of("initial_destination_concurrency"), "5");
    CHECK_EQ_STR("S-EV-2 default default_destination_concurrency_limit",
                 default_of("default_destination_concurrency_limit"), "20");
    CHECK_EQ_STR("S-EV-2 default cohort limit",
                 default_of("default_destination_concurrency_failed_cohort_"
                            "limit"), "1");
    CHECK_EQ_STR("S-EV-2 default positive feedback",
                 default_of("default_destination_concurrency_positive_"
                            "feedback"), "1");
    CHECK_EQ_STR("S-EV-2 default negative feedback",
                 default_of("default_destination_concurrency_negative_"
                            "feedback"), "1");
    CHECK_EQ_STR("S-EV-2 default minimal_backoff_time",
                 default_of("minimal_backoff_time"), "300s");
    CHECK_EQ_STR("S-EV-2 default feedback debug",
                 default_of("destination_concurrency_feedback_debug"), "no");

    CHECK_EQ_LL("S-CON-1 init 5", qs_param_int(p, NULL, QP_INIT_CONC), 5);
    CHECK_EQ_LL("S-CON-5 limit 20", qs_param_int(p, NULL, QP_DEST_CONC_LIMIT),
                20);
    CHECK_EQ_LL("S-CON-8 cohort limit 1",
                qs_param_int(p, NULL, QP_COHORT_LIMIT), 1);
    CHECK_EQ_LL("S-CON-10 backoff 300", qs_param_int(p, NULL, QP_MIN_BACKOFF),
                300);
    /* any transport without an override sees the global default */
    CHECK_EQ_LL("S-EV-2 smtp init 5", qs_param_int(p, "smtp", QP_INIT_CONC),
                5);
    fb = qs_param_feedback(p, "smtp", QP_POS_FEEDBACK);
    CHECK("S-CON-2 default positive feedback is constant 1",
          fb.form == QS_FB_CONST && fb.base == 1.0 && !fb.sqrt_requested);
    fb = qs_param_feedback(p, NULL, QP_NEG_FEEDBACK);
    CHECK("S-CON-2 default negative feedback is constant 1",
          fb.form == QS_FB_CONST && fb.base == 1.0);
    qs_params_free(p);
}

/* ------------------------------------------------------------------ */
/* qs_params_set: values, ranges, units, names                        */
/* ------------------------------------------------------------------ */

static int set(qs_params *p, const char *name, const char *value, char *err,
               size_t errlen)
{
    err[0] = 0;
    return qs_params_set(p, name, value, err, errlen);
}

static const struct {
    const char *name, *value;
    int id;
    long long want;
} int_ok[] = {
    {"initial_destination_concurrency", "1", QP_INIT_CONC, 1},
    {"initial_destination_concurrency", "1000000", QP_INIT_CONC, 1000000},
    {"default_destination_concurrency_limit", "0", QP_DEST_CONC_LIMIT, 0},
    {"default_destination_concurrency_limit", "3", QP_DEST_CONC_LIMIT, 3},
    {"default_destination_concurrency_failed_cohort_limit", "0",
     QP_COHORT_LIMIT, 0},
    {"default_destination_concurrency_failed_cohort_limit", "4",
     QP_COHORT_LIMIT, 4},
    /* time units: s m h d w, default s */
    {"minimal_backoff_time", "10", QP_MIN_BACKOFF, 10},
    {"minimal_backoff_time", "10s", QP_MIN_BACKOFF, 10},
    {"minimal_backoff_time", "5m", QP_MIN_BACKOFF, 300},       /* 5*60 */
    {"minimal_backoff_time", "2h", QP_MIN_BACKOFF, 7200},      /* 2*3600 */
    {"minimal_backoff_time", "1d", QP_MIN_BACKOFF, 86400},     /* 24*3600 */
    {"minimal_backoff_time", "1w", QP_MIN_BACKOFF, 604800},    /* 7*86400 */
    {"minimal_backoff_time", "1000000000", QP_MIN_BACKOFF, 1000000000},
    {"minimal_backoff_time", "16666666m", QP_MIN_BACKOFF, 999999960},
};

static const struct {
    const char *name, *value, *why;
} set_bad[] = {
    /* ranges */
    {"initial_destination_concurrency", "0", "out of range"},
    {"initial_destination_concurrency", "1000001", "out of range"},
    {"default_destination_concurrency_limit", "1000001", "out of range"},
    {"default_destination_concurrency_failed_cohort_limit", "1000001",
     "out of range"},
    {"minimal_backoff_time", "0", "out of range"},
    {"minimal_backoff_time", "0s", "out of range"},
    /* 16666667 * 60 = 1000000020 > 10^9 */
    {"minimal_backoff_time", "16666667m", "is out of range [1, 1000000000]"},
    {"minimal_backoff_time", "1000000001", "is out of range [1, 1000000000]"},
    /* syntax */
    {"initial_destination_concurrency", "-1", "bad number"},
    {"initial_destination_concurrency", "2.5", "bad number"},
    {"initial_destination_concurrency", "five", "bad number"},
    {"initial_destination_concurrency", "5s", "bad number"},
    {"default_destination_concurrency_limit", "", "bad number"},
    {"minimal_backoff_time", "5x", "bad time"},
    {"minimal_backoff_time", "m", "bad time"},
    {"minimal_backoff_time", "-5", "bad time"},
    {"minimal_backoff_time", "5 m", "bad time"},
    {"minimal_backoff_time", "5M", "bad time"},
    {"destination_concurrency_feedback_debug", "maybe", "bad boolean"},
    /* feedback, global and per transport */
    {"default_destination_concurrency_positive_feedback", "2", "out of range"},
    {"default_destination_concurrency_negative_feedback", "1/x", "malformed"},
    {"smtp_destination_concurrency_positive_feedback", "3/concurrency",
     "out of range"},
    {"smtp_destination_concurrency_negative_feedback", "-1", "malformed"},
    {"smtp_destination_concurrency_limit", "1000001", "out of range"},
    {"smtp_initial_destination_concurrency", "0", "out of range"},
    /* unknown names */
    {"foo", "1", "unknown parameter"},
    {"smtp_foo", "1", "unknown parameter"},
    {"default_foo", "1", "unknown parameter"},
    {"SMTP_destination_concurrency_limit", "3", "unknown parameter"},
    {"_destination_concurrency_limit", "3", "unknown parameter"},
    {"default_initial_destination_concurrency", "3", "unknown parameter"},
    {"destination_concurrency_limit", "3", "unknown parameter"},
    {"smtp_destination_concurrency_limits", "3", "unknown parameter"},
    {"smtp_minimal_backoff_time", "3", "unknown parameter"},
    {"concurrency_positive_feedback", "1", "unknown parameter"},
};

static void test_set(void)
{
    qs_params *p = qs_params_new();
    size_t i;
    char name[200], err[256];
    qs_feedback fb;
    if (!p) {
        CHECK("params_new", 0);
        return;
    }
    for (i = 0; i < sizeof int_ok / sizeof int_ok[0]; i++) {
        snprintf(name, sizeof name, "S-EV-2 %s = %s", int_ok[i].name,
                 int_ok[i].value);
        CHECK(name, set(p, int_ok[i].name, int_ok[i].value, err,
                        sizeof err) == 0 &&
                        qs_param_int(p, NULL, int_ok[i].id) ==
                            int_ok[i].want);
    }
    for (i = 0; i < sizeof set_bad / sizeof set_bad[0]; i++) {
        snprintf(name, sizeof name, "S-EV-2 %s = \"%s\" refused (%s)",
                 set_bad[i].name, set_bad[i].value, set_bad[i].why);
        CHECK(name, set(p, set_bad[i].name, set_bad[i].value, err,
                        sizeof err) == -1 &&
                        strstr(err, set_bad[i].why) != NULL);
    }
    /* a failed call changes nothing (qsched.h) */
    set(p, "default_destination_concurrency_limit", "7", err, sizeof err);
    set(p, "default_destination_concurrency_limit", "x", err, sizeof err);
    CHECK_EQ_LL("S-EV-2 failed set keeps the old value",
                qs_param_int(p, NULL, QP_DEST_CONC_LIMIT), 7);
    set(p, "default_destination_concurrency_positive_feedback",
        "1/concurrency", err, sizeof err);
    set(p, "default_destination_concurrency_positive_feedback", "1.5", err,
        sizeof err);
    fb = qs_param_feedback(p, NULL, QP_POS_FEEDBACK);
    CHECK("S-CON-2 failed feedback set keeps the old form",
          fb.form == QS_FB_CONC && fb.base == 1.0);
    /* every feedback form through the global names */
    CHECK("S-CON-2 global negative 1/sqrt_concurrency",
          set(p, "default_destination_concurrency_negative_feedback",
              "1/sqrt_concurrency", err, sizeof err) == 0 &&
              qs_param_feedback(p, NULL, QP_NEG_FEEDBACK).form ==
                  QS_FB_SQRT &&
              qs_param_feedback(p, NULL, QP_NEG_FEEDBACK).sqrt_requested);
    CHECK("S-CON-2 global positive 1/4",
          set(p, "default_destination_concurrency_positive_feedback", "1/4",
              err, sizeof err) == 0 &&
              qs_param_feedback(p, NULL, QP_POS_FEEDBACK).form ==
                  QS_FB_CONST &&
              qs_param_feedback(p, NULL, QP_POS_FEEDBACK).base == 0.25);
    CHECK("S-EV-2 feedback debug yes",
          set(p, "destination_concurrency_feedback_debug", "yes", err,
              sizeof err) == 0 &&
              qs_param_int(p, NULL, QP_FEEDBACK_DEBUG) == 1);
    qs_params_free(p);
}

/* ------------------------------------------------------------------ */
/* TRANSPORT_suffix overrides and the built-in local defaults         */
/* ------------------------------------------------------------------ */

static void test_overrides(void)
{
    qs_params *p = qs_params_new(), *c;
    char err[256];
    qs_feedback fb;
    const char *tn;
    int id;
    if (!p) {
        CHECK("params_new", 0);
        return;
    }
    CHECK("S-EV-2 smtp limit override accepted",
          set(p, "smtp_destination_concurrency_limit", "7", err,
              sizeof err) == 0);
    CHECK_EQ_LL("S-EV-2 smtp limit 7",
                qs_param_int(p, "smtp", QP_DEST_CONC_LIMIT), 7);
    CHECK_EQ_LL("S-EV-2 relay limit stays 20",
                qs_param_int(p, "relay", QP_DEST_CONC_LIMIT), 20);
    CHECK_EQ_LL("S-EV-2 global limit stays 20",
                qs_param_int(p, NULL, QP_DEST_CONC_LIMIT), 20);
    /* a later global change does not hide the override */
    set(p, "default_destination_concurrency_limit", "9", err, sizeof err);
    CHECK_EQ_LL("S-EV-2 override wins over default",
                qs_param_int(p, "smtp", QP_DEST_CONC_LIMIT), 7);
    CHECK_EQ_LL("S-EV-2 relay follows default",
                qs_param_int(p, "relay", QP_DEST_CONC_LIMIT), 9);
    /* the last setting wins, and is one override, not two */
    set(p, "smtp_destination_concurrency_limit", "8", err, sizeof err);
    CHECK_EQ_LL("S-EV-2 smtp limit reset to 8",
                qs_param_int(p, "smtp", QP_DEST_CONC_LIMIT), 8);
    CHECK_EQ_LL("S-EV-2 one override entry", qs_param_override_count(p), 1);
    qs_param_override(p, 0, &tn, &id);
    CHECK("S-EV-2 override iterator names smtp",
          strcmp(tn, "smtp") == 0 && id == QP_DEST_CONC_LIMIT);

    /* the initial concurrency override is TRANSPORT_initial_destination_
     * concurrency */
    CHECK("S-CON-1 smtp initial override",
          set(p, "smtp_initial_destination_concurrency", "3", err,
              sizeof err) == 0 &&
              qs_param_int(p, "smtp", QP_INIT_CONC) == 3 &&
              qs_param_int(p, "relay", QP_INIT_CONC) == 5);
    CHECK("S-CON-8 smtp cohort limit override",
          set(p, "smtp_destination_concurrency_failed_cohort_limit", "0",
              err, sizeof err) == 0 &&
              qs_param_int(p, "smtp", QP_COHORT_LIMIT) == 0 &&
              qs_param_int(p, "relay", QP_COHORT_LIMIT) == 1);
    /* feedback overrides, every form */
    CHECK("S-CON-2 smtp positive 1/concurrency",
          set(p, "smtp_destination_concurrency_positive_feedback",
              "1/concurrency", err, sizeof err) == 0);
    fb = qs_param_feedback(p, "smtp", QP_POS_FEEDBACK);
    CHECK("S-CON-2 smtp positive is x/N", fb.form == QS_FB_CONC &&
                                              fb.base == 1.0);
    fb = qs_param_feedback(p, "relay", QP_POS_FEEDBACK);
    CHECK("S-CON-2 relay positive stays 1", fb.form == QS_FB_CONST &&
                                                fb.base == 1.0);
    CHECK("S-CON-2 smtp negative 0.5/sqrt_concurrency",
          set(p, "smtp_destination_concurrency_negative_feedback",
              "0.5/sqrt_concurrency", err, sizeof err) == 0);
    fb = qs_param_feedback(p, "smtp", QP_NEG_FEEDBACK);
    CHECK("S-CON-2 smtp negative is x/sqrtN",
          fb.form == QS_FB_SQRT && fb.base == 0.5 && fb.sqrt_requested);
    CHECK("S-CON-2 relay negative 2/5",
          set(p, "relay_destination_concurrency_negative_feedback", "2/5",
              err, sizeof err) == 0);
    fb = qs_param_feedback(p, "relay", QP_NEG_FEEDBACK);
    CHECK("S-CON-2 relay negative is .4", fb.form == QS_FB_CONST &&
                                              fabs(fb.base - 0.4) < 1e-15);
    /* transport names: lower-case letters, digits and '-' */
    CHECK("S-EV-2 transport name with digit and dash",
          set(p, "smtp-2_destination_concurrency_limit", "4", err,
              sizeof err) == 0 &&
              qs_param_int(p, "smtp-2", QP_DEST_CONC_LIMIT) == 4);

    /* S-EV-3: built-in local defaults (recipient limit 1, concurrency
     * limit 2), which the global default does not change ... */
    CHECK_EQ_LL("S-EV-3 local recipient limit 1",
                qs_param_int(p, "local", QP_DEST_RCPT_LIMIT), 1);
    CHECK_EQ_LL("S-EV-3 local concurrency limit 2 (default is 9)",
                qs_param_int(p, "local", QP_DEST_CONC_LIMIT), 2);
    CHECK_EQ_LL("S-EV-3 local init follows the global",
                qs_param_int(p, "local", QP_INIT_CONC), 5);
    /* ... but an explicit local_ override does */
    set(p, "local_destination_concurrency_limit", "6", err, sizeof err);
    CHECK_EQ_LL("S-EV-3 local override wins over built-in",
                qs_param_int(p, "local", QP_DEST_CONC_LIMIT), 6);
    CHECK_EQ_LL("S-EV-3 built-ins are per transport",
                qs_param_int(p, "locals", QP_DEST_RCPT_LIMIT), 50);

    /* a clone carries every override and is independent */
    c = qs_params_clone(p);
    CHECK("S-EV-2 clone keeps overrides",
          c && qs_param_int(c, "smtp", QP_DEST_CONC_LIMIT) == 8 &&
              qs_param_feedback(c, "smtp", QP_POS_FEEDBACK).form ==
                  QS_FB_CONC);
    if (c) {
        set(c, "smtp_destination_concurrency_limit", "11", err, sizeof err);
        CHECK("S-EV-2 clone is independent",
              qs_param_int(p, "smtp", QP_DEST_CONC_LIMIT) == 8 &&
                  qs_param_int(c, "smtp", QP_DEST_CONC_LIMIT) == 11);
    }
    qs_params_free(c);
    qs_params_free(p);
}

/* ------------------------------------------------------------------ */
/* S-EV-5: a limit of 0 ("no limit") exists only in the postfix profile */
/* ------------------------------------------------------------------ */

static int sched_ok(const qs_params *p, enum qs_profile prof, char *err,
                    size_t errlen)
{
    qs_sched *s = qs_sched_new(p, prof, NULL, NULL, err, errlen);
    qs_sched_free(s);
    return s != NULL;
}

static void test_profile_limits(void)
{
    qs_params *p = qs_params_new();
    char err[256];
    if (!p) {
        CHECK("params_new", 0);
        return;
    }
    set(p, "default_destination_concurrency_limit", "0", err, sizeof err);
    err[0] = 0;
    CHECK("S-EV-5 document refuses global limit 0",
          !sched_ok(p, QS_PROFILE_DOCUMENT, err, sizeof err) &&
              strstr(err, "postfix profile") != NULL);
    CHECK("S-EV-5 postfix accepts global limit 0",
          sched_ok(p, QS_PROFILE_POSTFIX, err, sizeof err));
    set(p, "default_destination_concurrency_limit", "20", err, sizeof err);
    set(p, "relay_destination_concurrency_limit", "0", err, sizeof err);
    err[0] = 0;
    CHECK("S-EV-5 document refuses transport limit 0",
          !sched_ok(p, QS_PROFILE_DOCUMENT, err, sizeof err) &&
              strstr(err, "postfix profile") != NULL);
    CHECK("S-EV-5 postfix accepts transport limit 0",
          sched_ok(p, QS_PROFILE_POSTFIX, err, sizeof err));
    /* a cohort limit of 0 is valid in both profiles */
    set(p, "relay_destination_concurrency_limit", "5", err, sizeof err);
    set(p, "default_destination_concurrency_failed_cohort_limit", "0", err,
        sizeof err);
    CHECK("S-EV-5 document accepts cohort limit 0",
          sched_ok(p, QS_PROFILE_DOCUMENT, err, sizeof err));
    qs_params_free(p);
}

int main(void)
{
    test_feedback_parse();
    test_defaults();
    test_set();
    test_overrides();
    test_profile_limits();
    return CHECK_DONE();
}
