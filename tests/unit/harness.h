/*
 * harness.h - a small driver of the public API shared by the C unit tests
 * of the preemptive scheduler and the memory limits.
 *
 * Owns: arrive lines written as in the event language ("smtp:a.example*3
 * smtp:w@w.example"), select/done wrappers that log every delivery, and a
 * trace sink keeping the explain records the tests look at.  Everything
 * goes through src/qsched.h.  Included by exactly one .c file per binary.
 */
#ifndef QSCHED_TEST_HARNESS_H
#define QSCHED_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"

#define H_MAX_DELIV 4096
#define H_MAX_REC 8192

/* One kept trace record (strings copied: the core's may not outlive the
 * call). */
typedef struct h_rec {
    enum qs_trace_kind kind;
    char msg[32], msg2[32], dest[64];
    long long n, a, b, c, d, e, f;
} h_rec;

typedef struct harness {
    qs_sched *s;
    qs_params *p;
    char err[256];
    /* deliveries in selection order: message id and handle */
    char dmsg[H_MAX_DELIV][32];
    long long dhandle[H_MAX_DELIV];
    int ndeliv;
    h_rec rec[H_MAX_REC];
    int nrec;
    int errors; /* API calls that failed: a test harness bug */
} harness;

static void h_copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

static void h_sink(void *ctx, const qs_trace *r)
{
    harness *h = ctx;
    h_rec *k;
    if (r->kind == QS_T_DELIVER || h->nrec >= H_MAX_REC)
        return;
    k = &h->rec[h->nrec++];
    k->kind = r->kind;
    h_copy(k->msg, sizeof k->msg, r->msg);
    h_copy(k->msg2, sizeof k->msg2, r->msg2);
    h_copy(k->dest, sizeof k->dest, r->dest);
    k->n = r->n;
    k->a = r->a;
    k->b = r->b;
    k->c = r->c;
    k->d = r->d;
    k->e = r->e;
    k->f = r->f;
}

/* Parameters as NAME=VALUE pairs, NULL-terminated. */
static harness *h_new(enum qs_profile profile, const char *const *params)
{
    harness *h = calloc(1, sizeof *h);
    if (!h)
        abort();
    h->p = qs_params_new();
    for (; params && *params; params += 2)
        if (qs_params_set(h->p, params[0], params[1], h->err, sizeof h->err)) {
            printf("# harness: %s = %s: %s\n", params[0], params[1], h->err);
            h->errors++;
        }
    h->s = qs_sched_new(h->p, profile, h_sink, h, h->err, sizeof h->err);
    if (!h->s) {
        printf("# harness: qs_sched_new: %s\n", h->err);
        abort();
    }
    return h;
}

static void h_free(harness *h)
{
    qs_sched_free(h->s);
    qs_params_free(h->p);
    free(h);
}

/* "TRANSPORT:[LOCAL@]NEXTHOP[*COUNT] ..." as on an arrive line. */
static void h_arrive(harness *h, const char *id, const char *spec)
{
    char buf[4096], *save = NULL, *tok;
    qs_group g[64];
    size_t n = 0;
    h_copy(buf, sizeof buf, spec);
    for (tok = strtok_r(buf, " ", &save); tok && n < 64;
         tok = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(tok, ':'), *at, *star;
        g[n].transport = tok;
        *colon = 0;
        g[n].nexthop = colon + 1;
        g[n].local = NULL;
        g[n].count = 1;
        if ((star = strchr(colon + 1, '*')) != NULL) {
            *star = 0;
            g[n].count = atoll(star + 1);
        }
        if ((at = strchr(colon + 1, '@')) != NULL) {
            *at = 0;
            g[n].local = colon + 1;
            g[n].nexthop = at + 1;
        }
        n++;
    }
    if (qs_arrive(h->s, id, g, n, h->err, sizeof h->err)) {
        printf("# harness: arrive %s: %s\n", id, h->err);
        h->errors++;
    }
}

/* Returns the handle, 0 when idle. */
static long long h_select(harness *h, const char *transport)
{
    qs_delivery d;
    int rc = qs_select(h->s, transport, &d, h->err, sizeof h->err);
    if (rc < 0) {
        printf("# harness: select: %s\n", h->err);
        h->errors++;
        return 0;
    }
    if (rc == 0)
        return 0;
    if (h->ndeliv < H_MAX_DELIV) {
        h_copy(h->dmsg[h->ndeliv], sizeof h->dmsg[0], d.msg);
        h->dhandle[h->ndeliv] = d.handle;
        h->ndeliv++;
    }
    return d.handle;
}

static void h_done(harness *h, long long handle, enum qs_outcome o)
{
    if (qs_done(h->s, handle, o, h->err, sizeof h->err)) {
        printf("# harness: done D%lld: %s\n", handle, h->err);
        h->errors++;
    }
}

/* The last kept record of one kind, or NULL. */
static const h_rec *h_last(const harness *h, enum qs_trace_kind kind)
{
    int i;
    for (i = h->nrec - 1; i >= 0; i--)
        if (h->rec[i].kind == kind)
            return &h->rec[i];
    return NULL;
}

static int h_invariants(harness *h)
{
    if (qs_check_invariants(h->s, h->err, sizeof h->err)) {
        printf("# invariant: %s\n", h->err);
        return -1;
    }
    return 0;
}

#endif
