/*
 * params.c - the parameter store: values as set, overrides, readings, and
 * which of them a look-up gets.
 *
 * Owns: qs_params (global values plus TRANSPORT_suffix overrides, the
 * readings) and the resolution of a value: override, built-in default or
 * global value.  The main.cf value syntax qsched accepts (decimal
 * integers, times with a unit suffix s m h d w, yes/no, the four feedback
 * forms of S-CON-2) is param_syntax.c; the table of parameters itself -
 * names, defaults, ranges, and for each what the document says it
 * controls and why its default is what it is - is param_table.c; this
 * file stores and resolves values.  No I/O:
 * errors are returned as text, for the caller to print with its
 * FILE:LINE (events.c).
 *
 * Implements the parameter half of the event language (S-EV-2, S-EV-3)
 * and the feedback syntax of S-CON-2; SCHEDULER_README's tables of
 * "Concurrency configuration parameters" and the parameters named in the
 * preemption and memory sections are the rows of qp_defs (param_table.c).
 * Why it
 * is part of the core: the scheduler reads its parameters from here when
 * it creates a transport (sched.c), and the C API (qsched.h) lets any
 * embedder set them by their main.cf names.  May not: know the event
 * syntax (events.c parses "NAME = VALUE" lines and calls qs_params_set)
 * or check profile-dependent values (qs_sched_new, S-EV-5).
 *
 * Adding a parameter: a QP_ id in params.h (per-transport ids before
 * QP_NUM_TRANSPORT_PARAMS), a row of qp_defs (param_table.c) with its
 * Postfix name,
 * default and range, the spec's table in spec/events.md (S-EV-2); for a
 * per-transport one, a field of qs_transport resolved in
 * qsi_transport_obtain (sched.c), for a global one a field of qs_sched
 * set in qs_sched_new; then the rule that reads it, with its id.
 */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "params.h"
#include "param_table.h"
#include "readings.h"

/* One TRANSPORT_suffix setting.  Few are expected, so a list searched
 * linearly (and only when a transport is created) is enough.
 * transport: the master.cf name, owned (copied at qs_params_set);
 * id: which per-transport parameter (always < QP_NUM_TRANSPORT_PARAMS);
 * value or fb: the parsed value, fb only for the two feedback ids, as
 * in struct qs_params below. */
struct qp_override {
    char *transport;
    int id;
    long long value;
    qs_feedback fb;
};

/* Global values (as set, else the default) and the overrides.  A feedback
 * parameter keeps its parsed form in fb[], the others their value: two
 * arrays indexed by parameter id, so that a look-up is one index, and
 * every value is parsed once, when it is set, never at each use.
 * value[] holds times in seconds and yes/no as 1/0, so that readers need
 * not know a parameter's syntax.  ov, nov, cap: the override list, its
 * length and its allocated length (grown by doubling).  The store keeps
 * what was set, not what it means: which of override, built-in default
 * and global value wins is decided at each look-up (qs_param_int), so
 * the order in which lines set them does not matter. */
struct qs_params {
    long long value[QP_NUM_PARAMS];
    qs_feedback fb[QP_NUM_PARAMS];
    int reading[QR_COUNT];   /* value index, or -1: the profile's default */
    struct qp_override *ov;
    size_t nov, cap;
};

/* The transport part of TRANSPORT_suffix: the event language's
 * transport names (lower case, digits, '-'), which have no '_'.
 * That restriction is what makes TRANSPORT_suffix unambiguous: the first
 * '_' of the name ends the transport, so "smtp_delivery_slot_cost" can
 * only be the suffix delivery_slot_cost of smtp (S-EV-2, spec/events.md:
 * "the transport part is everything before the first _"). */
static int valid_transport_name(const char *s, size_t len)
{
    size_t i;
    if (len == 0)
        return 0;
    for (i = 0; i < len; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) ||
              s[i] == '-'))
            return 0;
    return 1;
}

/* Every parameter at its default (parsed from the table's text, so that
 * `qsched -d` prints exactly what is used).  No overrides yet: calloc
 * leaves the list empty.  NULL only when memory runs out. */
qs_params *qs_params_new(void)
{
    qs_params *p = calloc(1, sizeof *p);
    int id;
    if (!p)
        return NULL;
    for (id = 0; id < QP_NUM_PARAMS; id++)
        if (qp_parse_value(id, qp_defs[id].def, &p->value[id], &p->fb[id],
                           NULL, 0) < 0)
            abort(); /* the table above is wrong: a build defect (a
                      * default that its own syntax or range refuses),
                      * which every test would hit at once */
    /* No reading set: each takes its profile's default (readings.h). */
    for (id = 0; id < QR_COUNT; id++)
        p->reading[id] = -1;
    return p;
}

/* A deep copy: qs_sched_new keeps its own, so the caller's store may be
 * changed or freed afterwards without touching a running scheduler. */
qs_params *qs_params_clone(const qs_params *p)
{
    /* The values are copied by assignment, then the override list is
     * copied with its own transport names; a failure half-way frees what
     * was copied and gives NULL. */
    qs_params *c = malloc(sizeof *c);
    size_t i;
    if (!c)
        return NULL;
    *c = *p;
    c->ov = NULL;
    c->nov = c->cap = 0;
    if (p->nov) {
        c->ov = malloc(p->nov * sizeof *c->ov);
        if (!c->ov) {
            free(c);
            return NULL;
        }
        c->cap = c->nov = p->nov;
        for (i = 0; i < p->nov; i++) {
            c->ov[i] = p->ov[i];
            c->ov[i].transport = strdup(p->ov[i].transport);
            if (!c->ov[i].transport) {
                c->nov = i;
                qs_params_free(c);
                return NULL;
            }
        }
    }
    return c;
}

/* Frees the store and every override's transport name; NULL is a no-op,
 * as for free(), so error paths need not test. */
void qs_params_free(qs_params *p)
{
    size_t i;
    if (!p)
        return;
    for (i = 0; i < p->nov; i++)
        free(p->ov[i].transport);
    free(p->ov);
    free(p);
}

/* S-EV-2: NAME = VALUE.  NAME is a global name or TRANSPORT_suffix; a
 * second setting of the same name replaces the first.  Nothing changes
 * if the value is refused.  Examples: default_delivery_slot_cost = 2
 * sets the global value; smtp_delivery_slot_cost = 2 an override for the
 * transport smtp; default_smtp_x = 1 and smtp_x = 1 are unknown names. */
int qs_params_set(qs_params *p, const char *name, const char *value,
                  char *err, size_t errlen)
{
    int id;
    long long iv = 0;
    qs_feedback fb = {0, 0, 0};
    const char *us;
    size_t i;
    /* The search order is the whole resolution of names:
     *   1. a global name (qp_defs[].global_name), exactly;
     *   2. else TRANSPORT_suffix for a per-transport row, where TRANSPORT
     *      is a valid transport name and not "default";
     *   3. else an unknown parameter (an error, not ignored: a misspelt
     *      knob that silently did nothing would make a trace that looks
     *      right for the wrong reason).
     * Global names first: they win over a transport named "default" or
     * "initial".  initial_destination_concurrency would otherwise read as
     * the override "destination_concurrency" of a transport "initial".
     * Before all of them, qsched_reading_NAME: a named reading of the
     * document (spec/readings.md), one of its words. */
    if (strncmp(name, "qsched_reading_", 15) == 0) {
        int r = qs_reading_find(name), v;
        if (r < 0) {
            qp_set_err(err, errlen, "unknown reading \"%s\" (qsched -d lists "
                       "them)%s", name, "");
            return -1;
        }
        if ((v = qs_reading_value_find((size_t)r, value)) < 0) {
            char words[96] = "";
            size_t k;
            for (k = 0; k < qs_reading_nvalues((size_t)r); k++) {
                if (k)
                    strcat(words, "|");
                strcat(words, qs_reading((size_t)r)->values[k]);
            }
            qp_set_err(err, errlen, "bad value \"%s\" (want %s)", value,
                       words);
            return -1;
        }
        p->reading[r] = v;
        return 0;
    }
    for (id = 0; id < QP_NUM_PARAMS; id++) {
        if (strcmp(name, qp_defs[id].global_name) == 0) {
            if (qp_parse_value(id, value, &iv, &fb, err, errlen) < 0)
                return -1;
            p->value[id] = iv;
            p->fb[id] = fb;
            return 0;
        }
    }
    /* TRANSPORT_suffix: transport names have no underscore (S-EV-2).
     * "default_" is excluded although "default" is a valid transport
     * name: default_x that is not a global name is a misspelt global
     * parameter, and reporting it as unknown is the useful message.
     * Only per-transport rows (id < QP_NUM_TRANSPORT_PARAMS) have a
     * suffix; a global-only parameter cannot be overridden. */
    us = strchr(name, '_');
    if (us && valid_transport_name(name, (size_t)(us - name)) &&
        strncmp(name, "default_", 8) != 0) {
        for (id = 0; id < QP_NUM_TRANSPORT_PARAMS; id++) {
            if (strcmp(us + 1, qp_defs[id].suffix) == 0) {
                size_t tlen = (size_t)(us - name);
                if (qp_parse_value(id, value, &iv, &fb, err, errlen) < 0)
                    return -1;
                /* A second setting of the same override replaces it, as a
                 * later line of main.cf does. */
                for (i = 0; i < p->nov; i++) {
                    if (p->ov[i].id == id &&
                        strlen(p->ov[i].transport) == tlen &&
                        strncmp(p->ov[i].transport, name, tlen) == 0) {
                        p->ov[i].value = iv;
                        p->ov[i].fb = fb;
                        return 0;
                    }
                }
                /* A new override: grow the list by doubling if full.  On
                 * failure nothing is changed (the contract of this API). */
                if (p->nov == p->cap) {
                    size_t ncap = p->cap ? 2 * p->cap : 8;
                    struct qp_override *n =
                        realloc(p->ov, ncap * sizeof *n);
                    if (!n) {
                        qp_set_err(err, errlen, "out of memory%s%s", "", "");
                        return -1;
                    }
                    p->ov = n;
                    p->cap = ncap;
                }
                p->ov[p->nov].transport = strndup(name, tlen);
                if (!p->ov[p->nov].transport) {
                    qp_set_err(err, errlen, "out of memory%s%s", "", "");
                    return -1;
                }
                p->ov[p->nov].id = id;
                p->ov[p->nov].value = iv;
                p->ov[p->nov].fb = fb;
                p->nov++;
                return 0;
            }
        }
    }
    qp_set_err(err, errlen, "unknown parameter \"%s\"%s", name, "");
    return -1;
}

/* The table for `qsched -d` and the C API (qsched.h): the i-th
 * parameter's global name and default text, i < qs_params_count().
 * They expose the table, never the values set, so a listing is the same
 * for every stream. */
/* The named readings come after the parameters (document profile
 * defaults). */
size_t qs_params_count(void) { return QP_NUM_PARAMS + QR_COUNT; }

const char *qs_params_name(size_t i)
{
    if (i >= QP_NUM_PARAMS)
        return qs_reading(i - QP_NUM_PARAMS)->param;
    return qp_defs[i].global_name;
}

const char *qs_params_default(size_t i)
{
    if (i >= QP_NUM_PARAMS) {
        const qs_reading_def *d = qs_reading(i - QP_NUM_PARAMS);
        return d->values[d->def_document];
    }
    return qp_defs[i].def;
}

/* A named reading as the stream set it (value index), or -1. */
int qs_param_reading(const qs_params *p, int r)
{
    return r >= 0 && r < QR_COUNT ? p->reading[r] : -1;
}

/* The TRANSPORT_suffix setting of parameter id for transport, if any.
 * A linear search: it runs once per parameter when a transport is
 * created (qsi_transport_obtain copies the resolved values into the
 * transport), never per scheduling decision. */
static const struct qp_override *find_override(const qs_params *p,
                                               const char *transport, int id)
{
    size_t i;
    if (!transport)
        return NULL;
    for (i = 0; i < p->nov; i++)
        if (p->ov[i].id == id && strcmp(p->ov[i].transport, transport) == 0)
            return &p->ov[i];
    return NULL;
}

/* S-EV-2, S-EV-3: the value for transport (NULL: the global one):
 * its override, else the built-in default of that transport, else the
 * global value.  The built-in defaults sit between the two because in
 * Postfix local_destination_recipient_limit and
 * local_destination_concurrency_limit are parameters of their own, with
 * their own defaults: changing default_* does not change them. */
int64_t qs_param_int(const qs_params *p, const char *transport, int id)
{
    const struct qp_override *o = find_override(p, transport, id);
    size_t i;
    if (o)
        return o->value;
    if (transport)
        for (i = 0; i < qp_nbuiltin; i++)
            if (qp_builtin[i].id == id &&
                strcmp(qp_builtin[i].transport, transport) == 0)
                return qp_builtin[i].value;
    return p->value[id];
}

/* The same for a feedback parameter (no built-in defaults exist).
 * The result is the parsed form; what a sqrt form means in each profile
 * (S-PFX-7) is decided by the caller, which knows the profile. */
qs_feedback qs_param_feedback(const qs_params *p, const char *transport,
                              int id)
{
    const struct qp_override *o = find_override(p, transport, id);
    return o ? o->fb : p->fb[id];
}

/* The overrides in the order set, for qs_sched_new's profile checks.
 * Why an iterator: some values are legal only in one profile (a
 * concurrency limit of 0 exists only in the postfix profile, S-EV-5), and
 * the store does not know the profile; qs_sched_new walks every override
 * and refuses the stream if one is out of its profile's range, naming the
 * transport.  The order is the order set, so the first offender reported
 * is the first one written. */
size_t qs_param_override_count(const qs_params *p) { return p->nov; }

void qs_param_override(const qs_params *p, size_t i, const char **transport,
                       int *id)
{
    *transport = p->ov[i].transport;
    *id = p->ov[i].id;
}
