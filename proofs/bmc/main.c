/*
 * main.c - qsched-bmc, the bounded model checker's command line.
 *
 * Owns: the grid of parameter mixes (issue 7: k in {2,3,5} x discount in
 * {0,50,100} x loan in {0,1,3} x minimum slots in {0,3} x both profiles =
 * 108 mixes, each explored in two families, "tight" and "wide"), the
 * split of the groups over worker processes, and the report: per group
 * its depth, states and statistics; per property held / violated; the
 * inflation ratios against the document's claim; ok/FAIL lines for the
 * `make check` runner; exit status 1 on any real violation.
 *
 * Usage: qsched-bmc [--deep] [--jobs N] [--out DIR] [--only SUBSTR]
 *                   [--depth-tight N] [--depth-wide N] [--max-states N]
 *                   [--stop-first] [--verbose]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bmc.h"

static const int grid_k[] = {2, 3, 5};
static const int grid_discount[] = {0, 50, 100};
static const int grid_loan[] = {0, 1, 3};
static const int grid_min[] = {0, 3};
/* tight family: (limit, initial) rotates over the mixes so that each
 * concurrency configuration meets every value of every knob */
static const int tight_conc[3][2] = {{1, 1}, {2, 1}, {2, 2}};

typedef struct config {
    int deep;
    int depth_tight, depth_wide, wide_extra, depth_mixed;
    long long max_states;
    int jobs;
    const char *out, *only;
    int stop_first, verbose;
} config;

void bmc_mix_name(bmc_mix *m)
{
    snprintf(m->name, sizeof m->name, "%s-k%d-d%d-l%d-m%d-%s%d%d%s",
             m->profile == QS_PROFILE_POSTFIX ? "pfx" : "doc", m->k,
             m->discount, m->loan, m->min_slots,
             m->family == FAM_TIGHT ? "tight" :
             m->family == FAM_MIXED ? "mixed" : "wide",
             m->family != FAM_WIDE ? m->limit : 0,
             m->family != FAM_WIDE ? m->init : 0,
             m->mem == 2 ? "-mem1" : m->mem ? "-mem" : "");
}

/* The wide family's big message: big enough for the preemption gate
 * (max entries >= minimum slots * k) and for a candidate to fit
 * ((unselected + counter)/k >= 1, or >= 2 for a recursive stack when
 * k = 2). */
static int wide_big(int k, int min_slots)
{
    int b = k + 1;
    if (k == 2 && min_slots == 0)
        b = 4;
    if (min_slots * k > b)
        b = min_slots * k;
    return b;
}

/* The families as the liveness coverage line names them (the tight
 * family's recipient-limit variants apart: they reach different states). */
enum { LF_TIGHT, LF_MEM, LF_MEM1, LF_MIXED, LF_WIDE, LF_COUNT };
static const char *const lf_name[LF_COUNT] = {"tight", "tight-mem",
                                              "tight-mem1", "mixed", "wide"};

static int live_family(const bmc_mix *m)
{
    if (m->family == FAM_TIGHT)
        return m->mem == 2 ? LF_MEM1 : m->mem ? LF_MEM : LF_TIGHT;
    return m->family == FAM_MIXED ? LF_MIXED : LF_WIDE;
}

static void make_mix(bmc_mix *m, const config *c, int profile, int k,
                     int discount, int loan, int min_slots, int family,
                     int rot)
{
    int a, b, n = 0;
    memset(m, 0, sizeof *m);
    m->k = k;
    m->discount = discount;
    m->loan = loan;
    m->min_slots = min_slots;
    m->profile = profile;
    m->family = family;
    m->cohort_limit = 1;
    m->backoff = 2;
    /* the defaults: every message is read at once */
    m->active_limit = 20000;
    m->msg_rcpt_limit = 20000;
    m->msg_rcpt_min = 10;
    m->rcpt_limit = 20000;
    m->extra_rcpt_limit = 1000;
    m->refill_limit = 100;
    m->refill_delay = 5;
    if (family == FAM_TIGHT) {
        int R = 3;
        m->limit = tight_conc[rot % 3][0];
        m->init = tight_conc[rot % 3][1];
        if ((rot / 6) % 2) {
            /* small recipient limits: messages are read in batches, jobs
             * stall and come back, pools move (S-MEM-1 .. S-MEM-10) */
            m->mem = 1;
            /* S-PFX-15: Postfix raises qmgr_message_recipient_limit to
             * the active-queue limit: with the default (20000) the
             * postfix profile would read every message at once.  3 is
             * max_msgs, so the active queue never fills (S-MEM-2 is not
             * modelled by the monitor), and the postfix profile reads in
             * batches of up to 3 - in core (S-MEM-3) */
            m->active_limit = 3;
            m->msg_rcpt_limit = 2;
            m->msg_rcpt_min = 1;
            m->rcpt_limit = 2;
            m->extra_rcpt_limit = 1;
            m->refill_limit = 1;
            m->refill_delay = 1;
            if ((rot + rot / 12) % 2) {
                /* -mem1: a transport pool of one slot (half the -mem
                 * mixes, across k, profiles, windows and minimum slots).
                 * A message's limit is the minimum plus its job's slots
                 * (S-MEM-4): with a pool of 2 that is 3, every shape of at
                 * most 3 entries is in core once its job holds the pool, a
                 * lone message never stalls, and no job is relinked behind
                 * younger ones within the bound.  With one slot a 3-entry
                 * message reads 2, stalls with both in flight, retires on
                 * the next walk (S-PRE-2), and reads its third entry when
                 * both are done: its job is relinked by enqueue time in
                 * front of a younger message's job (S-PRE-13), at depth 8
                 * (arrive, at, arrive, 3 selects, 2 dones). */
                m->mem = 2;
                m->rcpt_limit = 1;
            }
        }
        m->max_msgs = 3;
        m->max_ticks = c->deep ? 3 : 2;
        m->allow_done = m->allow_fail = 1;
        m->depth = c->depth_tight;
        /* 1..R entries on u@a and/or u@b */
        for (a = 0; a <= R; a++)
            for (b = 0; a + b <= R; b++)
                if (a + b >= 1) {
                    m->shapes[n].n[0] = a;
                    m->shapes[n].n[1] = b;
                    n++;
                }
        m->max_needed = R;
    } else if (family == FAM_MIXED) {
        /* Tight windows with failures, deaths and blockers, and a message
         * big enough for the preemption gate (MAX >= minimum slots * k) at
         * every k, split over both destinations: preemption at k = 5 with
         * minimum slots 3, and (k = 2) recursive preemption, happen
         * beside failures, blockers and stalls. */
        int big = wide_big(k, min_slots);
        m->limit = tight_conc[1 + rot % 2][0];
        m->init = tight_conc[1 + rot % 2][1];
        m->max_msgs = 3;
        m->max_ticks = 2;
        m->allow_done = m->allow_fail = 1;
        m->depth = c->depth_mixed;
        m->shapes[n].n[0] = 1;
        m->shapes[n++].n[1] = 0;
        m->shapes[n].n[0] = 0;
        m->shapes[n++].n[1] = 1;
        m->shapes[n].n[0] = 1;
        m->shapes[n++].n[1] = 1;
        m->shapes[n].n[0] = (big + 1) / 2;
        m->shapes[n++].n[1] = big / 2;
        m->max_needed = big;
    } else {
        int big = wide_big(k, min_slots), x, j, sizes[5], ns = 0, i2, k2;
        /* windows never fill: no blocker, no completion needed; postfix
         * also exercises "limit 0 = no limit" */
        m->limit = profile == QS_PROFILE_POSTFIX ? 0 : 64;
        m->init = 64;
        m->max_msgs = 3;
        m->max_ticks = 2;
        m->allow_done = m->allow_fail = 0;
        if (!c->deep) {
            sizes[ns++] = 1;
            sizes[ns++] = 2;
            sizes[ns++] = big;
            m->depth = big + c->wide_extra;
        } else {
            /* a recursive stack needs a middle job X that can itself be
             * preempted (gate: X >= max(k, minimum slots * k)) and a
             * bottom job J whose cap admits X (J >= k * X), kept <= 25 */
            x = min_slots * k > k ? min_slots * k : k;
            j = k * x > 25 ? 25 : k * x;
            if (j < big)
                j = big;
            sizes[ns++] = 1;
            sizes[ns++] = 2;
            sizes[ns++] = 3;
            sizes[ns++] = x;
            sizes[ns++] = j;
            m->depth = j + x + c->wide_extra - 3;
            big = j;
        }
        /* sorted, without repeats */
        for (i2 = 0; i2 < ns; i2++) {
            int dup = 0;
            for (k2 = 0; k2 < n; k2++)
                dup |= m->shapes[k2].n[0] == sizes[i2];
            if (!dup)
                m->shapes[n++].n[0] = sizes[i2];
        }
        m->max_needed = big;
    }
    m->nshapes = n;
    bmc_mix_name(m);
}

static int build_grid(const config *c, bmc_mix *mixes, int cap)
{
    int n = 0, p, ki, di, li, mi, fam, rot = 0;
    for (fam = 0; fam < 2; fam++) {
        rot = 0;
        for (p = 0; p < 2; p++)
            for (ki = 0; ki < 3; ki++)
                for (di = 0; di < 3; di++)
                    for (li = 0; li < 3; li++)
                        for (mi = 0; mi < 2; mi++) {
                            bmc_mix m;
                            make_mix(&m, c, p ? QS_PROFILE_POSTFIX
                                              : QS_PROFILE_DOCUMENT,
                                     grid_k[ki], grid_discount[di],
                                     grid_loan[li], grid_min[mi], fam,
                                     rot++);
                            if (c->only && !strstr(m.name, c->only))
                                continue;
                            if (n < cap)
                                mixes[n++] = m;
                        }
    }
    /* the mixed family on a smaller grid: k 2 and 5, minimum slots 0 and 3,
     * loan/discount 3/100 (preemption as early as the gate allows) and
     * 1/50, both profiles */
    rot = 0;
    for (p = 0; p < 2; p++)
        for (ki = 0; ki < 3; ki += 2)
            for (li = 0; li < 2; li++)
                for (mi = 0; mi < 2; mi++) {
                    bmc_mix m;
                    make_mix(&m, c, p ? QS_PROFILE_POSTFIX : QS_PROFILE_DOCUMENT,
                             grid_k[ki], li ? 50 : 100, li ? 1 : 3,
                             grid_min[mi], FAM_MIXED, rot++);
                    if (c->only && !strstr(m.name, c->only))
                        continue;
                    if (n < cap)
                        mixes[n++] = m;
                }
    return n;
}

static void mkdirs(const char *base)
{
    char p[600];
    const char *sub[] = {"", "/cex", "/findings", "/witness", "/res"};
    size_t i;
    for (i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        snprintf(p, sizeof p, "%s%s", base, sub[i]);
        mkdir(p, 0777);
    }
}

static void res_path(char *buf, size_t n, const config *c, int g)
{
    snprintf(buf, n, "%s/res/%d.bin", c->out, g);
}

static void worker(const config *c, const bmc_mix *mixes, int n, int w)
{
    int g;
    bmc_opts o;
    memset(&o, 0, sizeof o);
    o.max_states = c->max_states;
    o.stop_first = c->stop_first;
    o.outdir = c->out;
    o.quiet = !c->verbose;
    for (g = w; g < n; g += c->jobs) {
        bmc_result *res = calloc(1, sizeof *res);
        char fn[700], stop[700];
        FILE *f;
        int p;
        if (!res)
            exit(4);
        /* --stop-first: once any group has a violation, the others are
         * skipped (the mutant runs only need one counterexample) */
        snprintf(stop, sizeof stop, "%s/stop", c->out);
        if (c->stop_first && access(stop, F_OK) == 0)
            res->skipped = 1;
        else
            bmc_explore(&mixes[g], &o, res, stderr);
        for (p = 0; p < P_COUNT; p++)
            if (c->stop_first && p != P_INFL && res->viol_count[p]) {
                f = fopen(stop, "w");
                if (f)
                    fclose(f);
            }
        res_path(fn, sizeof fn, c, g);
        f = fopen(fn, "wb");
        if (!f || fwrite(res, sizeof *res, 1, f) != 1) {
            fprintf(stderr, "bmc: cannot write %s\n", fn);
            exit(4);
        }
        fclose(f);
        if (c->verbose)
            fprintf(stderr, "bmc: %s done (%lld states)\n", mixes[g].name,
                    res->states);
        free(res);
    }
}

static void frac(char *buf, size_t n, long long s, long long d)
{
    if (d == 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%lld/%lld=%.3f", s, d, (double)s / (double)d);
}

/* s1/n1 > s2/n2; an empty ratio (n = 0) is never greater, and loses */
static int ratio_gt(long long s1, long long n1, long long s2, long long n2)
{
    if (n1 == 0)
        return 0;
    return n2 == 0 || s1 * n2 > s2 * n1;
}

static void print_path_stream(const bmc_mix *m, const bmc_path *p)
{
    bmc_write_stream(stdout, m, p->l, p->len);
}

int main(int argc, char **argv)
{
    config c;
    bmc_mix *mixes;
    bmc_result *res;
    int n, i, g, p, w, failed = 0, tool_errors = 0;
    long long total_states = 0, total_trans = 0, selftests = 0, drained = 0;
    /* per family: groups, groups whose last level was entered, states
     * drained for liveness */
    long long lf_groups[LF_COUNT] = {0}, lf_deep[LF_COUNT] = {0},
              lf_drained[LF_COUNT] = {0};
    long long selftest_fail = 0;
    int min_depth = 1 << 30, max_depth = 0, ncomplete = 0, ncapped = 0;
    int claim_applied = 0, claim_broken = 0, claim_vacuous = 0;
    int nskipped = 0;
    long long kw[3][6] = {{0}};
    int kwg[3][3] = {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}};
    long long prop_groups[P_COUNT] = {0};
    int prop_first[P_COUNT];
    int mixes_seen[2][3][3][3][2];

    memset(&c, 0, sizeof c);
    c.depth_tight = 7;
    c.wide_extra = 6;
    c.depth_mixed = 9;
    c.max_states = 400000;
    c.jobs = 2;
    c.out = "build/bmc/out";
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--deep") == 0) {
            c.deep = 1;
            c.depth_tight = 9;
            c.wide_extra = 9;
            c.depth_mixed = 11;
            c.max_states = 1500000;
        } else if (strcmp(a, "--jobs") == 0 && v) {
            c.jobs = atoi(v);
            i++;
        } else if (strcmp(a, "--out") == 0 && v) {
            c.out = v;
            i++;
        } else if (strcmp(a, "--only") == 0 && v) {
            c.only = v;
            i++;
        } else if (strcmp(a, "--depth-tight") == 0 && v) {
            c.depth_tight = atoi(v);
            i++;
        } else if (strcmp(a, "--depth-mixed") == 0 && v) {
            c.depth_mixed = atoi(v);
            i++;
        } else if (strcmp(a, "--depth-wide") == 0 && v) {
            c.depth_wide = atoi(v);
            i++;
        } else if (strcmp(a, "--max-states") == 0 && v) {
            c.max_states = atoll(v);
            i++;
        } else if (strcmp(a, "--stop-first") == 0) {
            c.stop_first = 1;
        } else if (strcmp(a, "--verbose") == 0) {
            c.verbose = 1;
        } else {
            fprintf(stderr, "usage: qsched-bmc [--deep] [--jobs N] [--out "
                    "DIR] [--only SUBSTR] [--depth-tight N] [--depth-mixed N] "
                    "[--depth-wide N] [--max-states N] [--stop-first] [--verbose]\n");
            return 2;
        }
    }
    if (c.jobs < 1)
        c.jobs = 1;
    mixes = calloc(512, sizeof *mixes);
    res = calloc(512, sizeof *res);
    if (!mixes || !res)
        return 4;
    n = build_grid(&c, mixes, 512);
    if (c.depth_wide > 0)
        for (g = 0; g < n; g++)
            if (mixes[g].family == FAM_WIDE)
                mixes[g].depth = c.depth_wide;
    mkdirs(c.out);
    {
        char stop[700];
        snprintf(stop, sizeof stop, "%s/stop", c.out);
        unlink(stop);
    }
    printf("bmc: %d mix groups, tight depth %d, mixed depth %d, wide depth "
           "big+%d, state cap %lld per group, %d workers%s\n", n,
           c.depth_tight, c.depth_mixed, c.wide_extra, c.max_states, c.jobs,
           c.deep ? " (deep)" : "");
    fflush(stdout);
    for (w = 0; w < c.jobs; w++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 4;
        }
        if (pid == 0) {
            worker(&c, mixes, n, w);
            _exit(0);
        }
    }
    for (w = 0; w < c.jobs; w++) {
        int status;
        if (wait(&status) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            fprintf(stderr, "bmc: a worker failed\n");
            tool_errors++;
        }
    }
    memset(mixes_seen, 0, sizeof mixes_seen);
    for (p = 0; p < P_COUNT; p++)
        prop_first[p] = -1;
    printf("%-30s %5s %8s %9s %7s %5s %6s %6s %6s %4s %5s %6s  %-12s %-12s "
           "%-12s %s\n", "group", "depth", "states", "trans", "preempt",
           "rec", "pops", "blk", "dead", "LB", "min c", "elig", "non-rec",
           "recursive", "any job", "claim");
    for (g = 0; g < n; g++) {
        char fn[700], a1[40], a2[40], a3[40];
        FILE *f;
        bmc_result *r = &res[g];
        const bmc_mix *m = &mixes[g];
        const char *claim;
        res_path(fn, sizeof fn, &c, g);
        f = fopen(fn, "rb");
        if (!f || fread(r, sizeof *r, 1, f) != 1) {
            printf("FAIL bmc/%s: no result (worker died)\n", m->name);
            tool_errors++;
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        if (r->skipped) {
            nskipped++;
            continue;
        }
        total_states += r->states;
        total_trans += r->transitions;
        selftests += r->selftests;
        drained += r->live_checked;
        lf_groups[live_family(m)]++;
        lf_deep[live_family(m)] += r->depth_reached >= m->depth - 1;
        lf_drained[live_family(m)] += r->live_checked;
        selftest_fail += r->selftest_fail;
        if (r->depth_reached < min_depth)
            min_depth = r->depth_reached;
        if (r->depth_reached > max_depth)
            max_depth = r->depth_reached;
        ncomplete += r->complete;
        ncapped += r->capped;
        {
            int pi = m->profile == QS_PROFILE_POSTFIX, ki, di, li, mi;
            for (ki = 0; ki < 3 && grid_k[ki] != m->k; ki++)
                ;
            for (di = 0; di < 3 && grid_discount[di] != m->discount; di++)
                ;
            for (li = 0; li < 3 && grid_loan[li] != m->loan; li++)
                ;
            mi = m->min_slots ? 1 : 0;
            mixes_seen[pi][ki][di][li][mi] = 1;
        }
        if (r->viol_count[P_INFL]) {
            claim = "VIOLATED";
            claim_broken++;
        } else if (r->stats.eligible_preempted == 0) {
            claim = "vacuous";
            claim_vacuous++;
        } else {
            claim = "held";
            claim_applied++;
        }
        frac(a1, sizeof a1, r->stats.w_nr_span, r->stats.w_nr_n);
        frac(a2, sizeof a2, r->stats.w_r_span, r->stats.w_r_n);
        frac(a3, sizeof a3, r->stats.w_any_span, r->stats.w_any_n);
        printf("%-30s %3d%s %8lld %9lld %7lld %5lld %6lld %6lld %6lld %4lld "
               "%5lld %6lld  %-12s %-12s %-12s %s\n", m->name,
               r->depth_reached,
               r->complete ? "c " : r->capped ? "+ " : "  ", r->states,
               r->transitions, r->stats.preemptions, r->stats.recursive,
               r->stats.pops_refund + r->stats.pops_norefund,
               r->stats.blockers, r->stats.deaths,
               bmc_counter_lb(m->k, m->loan, m->discount, m->max_needed),
               r->stats.min_counter, r->stats.eligible_checked, a1, a2, a3,
               claim);
        {
            /* per k: the worst ratios against the document's bounds */
            int ki = m->k == 2 ? 0 : m->k == 3 ? 1 : 2;
            if (ratio_gt(r->stats.w_nr_span, r->stats.w_nr_n, kw[ki][0],
                         kw[ki][1])) {
                kw[ki][0] = r->stats.w_nr_span;
                kw[ki][1] = r->stats.w_nr_n;
                kwg[ki][0] = g;
            }
            if (ratio_gt(r->stats.w_r_span, r->stats.w_r_n, kw[ki][2],
                         kw[ki][3])) {
                kw[ki][2] = r->stats.w_r_span;
                kw[ki][3] = r->stats.w_r_n;
                kwg[ki][1] = g;
            }
            if (ratio_gt(r->stats.w_any_span, r->stats.w_any_n, kw[ki][4],
                         kw[ki][5])) {
                kw[ki][4] = r->stats.w_any_span;
                kw[ki][5] = r->stats.w_any_n;
                kwg[ki][2] = g;
            }
        }
        for (p = 0; p < P_COUNT; p++)
            if (r->viol_count[p]) {
                prop_groups[p]++;
                if (prop_first[p] < 0)
                    prop_first[p] = g;
            }
    }
    printf("(depth: levels explored completely; c = state space exhausted "
           "before the bound, + = state cap reached inside the next level;\n"
           " LB: the counter bound loan and discount allow "
           "(docs/inflation.md), min c: lowest counter seen;\n"
           " ratios: delivery slots from first to last selection / entries; "
           "non-rec and recursive:\n the oldest job, no blocker (the "
           "claim's premises); any job: no premise, for information)\n");
    printf("\n== inflation per slot cost (worst over the groups explored)\n");
    for (i = 0; i < 3; i++) {
        int k = grid_k[i];
        char b1[40], b2[40], b3[40];
        frac(b1, sizeof b1, kw[i][0], kw[i][1]);
        frac(b2, sizeof b2, kw[i][2], kw[i][3]);
        frac(b3, sizeof b3, kw[i][4], kw[i][5]);
        printf("k=%d: non-recursive %s (claim (k+1)/k = %d/%d)%s%s; "
               "recursive %s (claim k/(k-1) = %d/%d)%s%s; any job %s%s%s\n",
               k, b1, k + 1, k, kwg[i][0] >= 0 ? " in " : "",
               kwg[i][0] >= 0 ? mixes[kwg[i][0]].name : "", b2, k, k - 1,
               kwg[i][1] >= 0 ? " in " : "",
               kwg[i][1] >= 0 ? mixes[kwg[i][1]].name : "", b3,
               kwg[i][2] >= 0 ? " in " : "",
               kwg[i][2] >= 0 ? mixes[kwg[i][2]].name : "");
    }

    /* counterexamples, in full */
    for (p = 0; p < P_COUNT; p++) {
        if (prop_first[p] < 0)
            continue;
        g = prop_first[p];
        printf("\n== %s %s in %s (%lld violating transitions): %s\n",
               p == P_INFL ? "finding:" : "COUNTEREXAMPLE:",
               bmc_prop_name[p], mixes[g].name, res[g].viol_count[p],
               res[g].cex_why[p]);
        printf("# written to %s/%s/%s.%s.events\n", c.out,
               p == P_INFL ? "findings" : "cex", mixes[g].name,
               bmc_prop_name[p]);
        print_path_stream(&mixes[g], &res[g].cex[p]);
    }
    for (g = 0; g < n; g++)
        if (res[g].tool_error) {
            printf("FAIL bmc/%s: tool error: %s\n", mixes[g].name,
                   res[g].tool_err);
            tool_errors++;
        }

    /* ok/FAIL lines: per mix group, then per property */
    printf("\n== results\n");
    for (g = 0; g < n; g++) {
        int bad = 0;
        char what[400] = "";
        if (res[g].skipped)
            continue;
        for (p = 0; p < P_COUNT; p++)
            if (p != P_INFL && res[g].viol_count[p]) {
                size_t l = strlen(what);
                snprintf(what + l, sizeof what - l, "%s%s", bad ? ", " : "",
                         bmc_prop_name[p]);
                bad = 1;
            }
        if (bad)
            printf("FAIL bmc/%s: %s violated\n", mixes[g].name, what);
        else
            printf("ok bmc/%s\n", mixes[g].name);
        failed += bad;
    }
    for (p = 0; p < P_COUNT; p++) {
        if (p == P_INFL)
            continue;
        if (prop_groups[p])
            printf("FAIL bmc/property/%s: violated in %lld groups (first %s;"
                   " stream in %s/cex/)\n", bmc_prop_name[p], prop_groups[p],
                   mixes[prop_first[p]].name, c.out);
        else
            printf("ok bmc/property/%s: held in %d groups\n",
                   bmc_prop_name[p], n);
    }
    printf("liveness: %lld states of the last levels drained under a fair "
           "continuation (one new state in %d)\n", drained, 4);
    /* Liveness is checked in every family, not only in total: a family
     * whose groups reached their last level must have drained states from
     * it (a capped run, as make check's, may stop short of it). */
    {
        int f, lf_bad = -1;
        printf("liveness per family:");
        for (f = 0; f < LF_COUNT; f++) {
            if (!lf_groups[f])
                continue;
            printf(" %s %lld (%lld groups, %lld at their last level)",
                   lf_name[f], lf_drained[f], lf_groups[f], lf_deep[f]);
            if (lf_deep[f] && !lf_drained[f] && lf_bad < 0)
                lf_bad = f;
        }
        printf("\n");
        if (lf_bad >= 0) {
            printf("FAIL bmc/liveness-coverage: family %s reached its last "
                   "level but drained no state\n", lf_name[lf_bad]);
            tool_errors++;
        } else
            printf("ok bmc/liveness-coverage: every family that reached its "
                   "last level drained states from it\n");
    }
    if (selftest_fail)
        printf("FAIL bmc/dedupe-selftest: %lld of %lld merged states diverged "
               "under the same continuation\n", selftest_fail, selftests);
    else
        printf("ok bmc/dedupe-selftest: %lld merged states re-checked under "
               "a random continuation, all agreed\n", selftests);
    if (claim_broken)
        printf("ok bmc/property/inflation-claim: claim violated (documented "
               "finding) in %d groups, see docs/inflation.md and %s/findings/"
               "\n", claim_broken, c.out);
    else
        printf("ok bmc/property/inflation-claim: held in %d groups (vacuous "
               "in %d: no eligible job was preempted within the bound)\n",
               claim_applied, claim_vacuous);
    {
        int covered = 0, nviol = 0, a, b2, d2, e, f2;
        for (a = 0; a < 2; a++)
            for (b2 = 0; b2 < 3; b2++)
                for (d2 = 0; d2 < 3; d2++)
                    for (e = 0; e < 3; e++)
                        for (f2 = 0; f2 < 2; f2++)
                            covered += mixes_seen[a][b2][d2][e][f2];
        for (p = 0; p < P_COUNT; p++)
            nviol += p != P_INFL && prop_groups[p] > 0;
        printf("\n== summary\ndepth reached: %d..%d (%d groups exhausted, %d "
               "capped)\nstates explored: %lld (transitions %lld)\nmixes "
               "covered: %d of 108, groups: %d (%d skipped)\nproperties: "
               "%d of %d violated\ninflation claim: %s\n",
               n ? min_depth : 0, max_depth, ncomplete, ncapped,
               total_states, total_trans, covered, n, nskipped, nviol,
               P_COUNT - 1,
               claim_broken ? "violated (documented finding)" : "held");
    }
    free(mixes);
    free(res);
    return failed || tool_errors ? 1 : 0;
}
