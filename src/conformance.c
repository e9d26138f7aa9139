/*
 * conformance.c - `qsched conformance`: runs the conformance suite (the
 * vectors of tests/conformance/, installed under
 * $(PREFIX)/share/qsched/conformance) against any command, and reports in
 * text, TAP 13 or JUnit XML, with a summary per rule id.
 *
 * Owns: the adapter protocol (docs/implementers.md, section 2), finding
 * the suite, running one process per vector with a time limit, comparing
 * the default-level trace and the exit status, the first-divergence report
 * (by `qsched verify`, in this process), the per-rule summary and the three
 * output formats.  tests/conformance/run.sh and `make conformance` are thin
 * wrappers around this, so there is one copy of the logic.
 *
 * Why it exists: qsched is meant to be a regression oracle in other
 * projects' CI.  Such a CI installs qsched (a package, `make install`) and
 * needs one command that exits non-zero when their scheduler diverges and
 * writes a report their CI can show (JUnit XML, TAP); a shell script in a
 * source tree is not that.  The runner is not part of the core: it starts
 * other programs and reads the clock (for time limits and JUnit's times);
 * the core never does either.
 *
 * The protocol, for every vector NAME.events (with NAME.expected beside):
 *   --input stdin (default)  sh -c "CMD" < NAME.events
 *   --input path             sh -c 'CMD "$1"' - /path/to/NAME.events
 * stdout is the trace; only default-level lines count (deliver, idle,
 * window, dead, revive, defer: spec/trace.md), after removing CRs and
 * trailing blanks, so an adapter may print anything else besides.  They
 * must equal NAME.expected, and the exit status must be 0, or the one the
 * header line "# exit: N" names (2 for streams with an input error,
 * S-EV-10).  stderr is kept only to show it in a failure.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "conformance.h"
#include "events.h"
#include "reading_search.h"
#include "verify.h"

#define OUTPUT_MAX (64L << 20) /* more trace than this is a failure */
#define NAMES_SHOWN 6          /* failing vectors named per rule */

enum vstatus { V_PASS, V_FAIL, V_ERROR }; /* ERROR: timeout, signal */

/* One vector and what became of it. */
typedef struct vector {
    char *path;      /* as shown and opened (relative to cwd if inside) */
    char *name;      /* file name without .events */
    char *group;     /* its directory's name: hand, gen */
    char *rules;     /* the "# rules:" header, space-separated ids */
    char profile[16];/* the "# profile:" header (document if none) */
    int want_rc;     /* the "# exit:" header, else 0 */
    enum vstatus status;
    char *why;       /* one line, for FAIL and failure messages */
    char *detail;    /* the divergence report or the adapter's stderr */
    int with_readings; /* passed only as qsched under the declared readings */
    double secs;     /* wall time of the adapter (JUnit only) */
} vector;

/* The command line and the run's state. */
typedef struct runner {
    const char *impl;
    int input_path;       /* --input path */
    const char *profile;  /* --profile filter, or NULL */
    const char *junit;    /* --junit FILE, or NULL */
    int tap, quiet;
    double timeout;       /* seconds per vector */
    /* --readings "NAME=VALUE ...": the readings the implementation follows
     * (spec/readings.md): a trace equal to qsched's under them passes */
    char *declared[64];
    size_t ndeclared;
    char declared_text[4096]; /* the option's value, split in place */
    char tmp[256];        /* private temporary directory */
    vector *v;
    size_t n, cap;
} runner;

/* "qsched conformance: MSG: ARG" on stderr (ARG escaped, stdout flushed
 * first) and status 2: a bad command line or no suite to run. */
static int fail2(const char *msg, const char *arg)
{
    char esc[512];
    qs_escape(esc, sizeof esc, arg ? arg : "");
    fflush(stdout);
    fprintf(stderr, "qsched conformance: %s%s%s\n", msg, arg ? ": " : "",
            esc);
    return 2;
}

/* Out of memory in the runner itself (never in the adapter): there is no
 * way to go on and report, so say so and stop with 2. */
static void oom(void)
{
    fputs("qsched conformance: out of memory\n", stderr);
    exit(2);
}

/* strdup that cannot return NULL. */
static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        oom();
    return d;
}

/* Reads a whole file (at most max bytes) into a NUL-terminated buffer.
 * Returns NULL if it cannot be read or is bigger (*toobig set). */
static char *slurp(const char *path, long max, size_t *len, int *toobig)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    char *b;
    size_t n;
    if (toobig)
        *toobig = 0;
    if (!f)
        return NULL;
    if (fstat(fileno(f), &sb) != 0 || sb.st_size > max) {
        if (toobig)
            *toobig = 1;
        fclose(f);
        return NULL;
    }
    b = malloc((size_t)sb.st_size + 1);
    if (!b)
        oom();
    n = fread(b, 1, (size_t)sb.st_size, f);
    fclose(f);
    b[n] = 0;
    if (len)
        *len = n;
    return b;
}

/* --help: the options, the protocol in three lines, the exit codes. */
static void usage(FILE *f)
{
    fputs("usage: qsched conformance --impl CMD [--input stdin|path] "
          "[--profile P]\n"
          "           [--junit FILE] [--tap] [--suite DIR] [--timeout S] "
          "[-q] [VECTOR...]\n"
          "Runs CMD (a shell command) once per conformance vector: the "
          "stream on stdin\n"
          "(--input path: as the last argument), the trace on stdout.  "
          "Only default-level\n"
          "lines count (deliver idle window dead revive defer).  Prints "
          "PASS/FAIL per vector\n"
          "with the first divergence and the named readings that explain "
          "it, the rules\nwhose vectors failed, and \"N passed, N "
          "failed\".\n"
          "  --profile P   only the vectors of profile P (document, "
          "postfix)\n"
          "  --junit FILE  also write JUnit XML to FILE\n"
          "  --tap         print TAP version 13 instead of the text report\n"
          "  --suite DIR   the suite (default: installed with qsched, or "
          "the source tree's)\n"
          "  --timeout S   seconds per vector (default 20)\n"
          "  --readings \"NAME=VALUE ...\"  the readings CMD follows "
          "(spec/readings.md,\n"
          "                qsched -d): a trace equal to qsched's under them "
          "passes\n"
          "  -q            print only failures and the summary\n"
          "exit: 0 all passed, 1 a vector failed, 2 bad usage or no suite, "
          "4 cannot write a report\n", f);
}

/* ---- finding the suite and its vectors ---- */

/* 1 if p names a directory (following links). */
static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* A suite directory holds INDEX.md or a hand/ directory of vectors.  A
 * directory whose name leaves no room for those is none (a cut name
 * could name another file). */
static int is_suite(const char *dir)
{
    char p[4200];
    if ((size_t)snprintf(p, sizeof p, "%s/INDEX.md", dir) >= sizeof p)
        return 0;
    if (access(p, R_OK) == 0)
        return 1;
    if ((size_t)snprintf(p, sizeof p, "%s/hand", dir) >= sizeof p)
        return 0;
    return is_dir(p);
}

/* Where the suite is, in this order: --suite, $QSCHED_CONFORMANCE_SUITE,
 * then relative to the executable: BIN/../share/qsched/conformance (an
 * installed qsched, wherever PREFIX and DESTDIR put it), the source tree's
 * tests/conformance above the build directory (build/qsched,
 * build/asan/qsched), and last the PREFIX compiled in.  Relative to the
 * executable first, so that a staged or moved installation finds its own
 * suite and a build finds the sources it was built from. */
static int find_suite(const char *given, char *out, size_t outlen)
{
    static const char *const rel[] = {"../share/qsched/conformance",
                                      "../tests/conformance",
                                      "../../tests/conformance",
                                      "../../../tests/conformance"};
    char exe[4096], cand[4400], *slash;
    ssize_t n;
    size_t i;
    const char *env = getenv("QSCHED_CONFORMANCE_SUITE");
    if (!given && env && *env)
        given = env;
    if (given) {
        if (!is_suite(given))
            return -1;
        snprintf(out, outlen, "%s", given);
        return 0;
    }
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        if ((slash = strrchr(exe, '/')) != NULL)
            *slash = 0;
        for (i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]);
            if (is_suite(cand)) {
                snprintf(out, outlen, "%s", cand);
                return 0;
            }
        }
    }
    if (is_suite(QSCHED_CONFORMANCE_DIR)) {
        snprintf(out, outlen, "%s", QSCHED_CONFORMANCE_DIR);
        return 0;
    }
    return -1;
}

/* The path as shown and opened: canonical, and relative to the working
 * directory when it lies inside it (tests/conformance/hand/x.events). */
static char *display_path(const char *p)
{
    char *abs = realpath(p, NULL), cwd[4096];
    size_t n;
    char *r;
    if (!abs)
        return xstrdup(p);
    if (getcwd(cwd, sizeof cwd)) {
        n = strlen(cwd);
        if (strncmp(abs, cwd, n) == 0 && abs[n] == '/') {
            r = xstrdup(abs + n + 1);
            free(abs);
            return r;
        }
    }
    return abs;
}

/* Reads the header lines of a vector: "# rules:", "# profile:",
 * "# exit:" (in the first 40 lines, tests/conformance/INDEX.md). */
static void read_header(vector *v)
{
    FILE *f = fopen(v->path, "r");
    char line[2048];
    int no = 0;
    v->rules = NULL;
    snprintf(v->profile, sizeof v->profile, "document");
    v->want_rc = 0;
    if (!f)
        return;
    while (no++ < 40 && fgets(line, sizeof line, f)) {
        char *e = line + strcspn(line, "\r\n");
        *e = 0;
        if (strncmp(line, "# rules:", 8) == 0 && !v->rules)
            v->rules = xstrdup(line + 8 + strspn(line + 8, " \t"));
        else if (strncmp(line, "# profile:", 10) == 0)
            sscanf(line + 10, " %15s", v->profile);
        else if (strncmp(line, "# exit:", 7) == 0)
            v->want_rc = atoi(line + 7);
    }
    fclose(f);
}

/* Adds one vector file; its group is its directory's name. */
static void add_vector(runner *r, const char *path)
{
    vector *v;
    const char *base, *slash;
    char group[256];
    size_t len;
    if (r->n == r->cap) {
        size_t ncap = r->cap ? 2 * r->cap : 512;
        vector *nv = realloc(r->v, ncap * sizeof *nv);
        if (!nv)
            oom();
        r->v = nv;
        r->cap = ncap;
    }
    v = &r->v[r->n];
    memset(v, 0, sizeof *v);
    v->path = display_path(path);
    slash = strrchr(v->path, '/');
    base = slash ? slash + 1 : v->path;
    len = strlen(base);
    if (len > 7 && strcmp(base + len - 7, ".events") == 0)
        len -= 7;
    v->name = xstrdup(base);
    v->name[len] = 0;
    group[0] = 0;
    if (slash) {
        const char *s = slash;
        while (s > v->path && s[-1] != '/')
            s--;
        snprintf(group, sizeof group, "%.*s", (int)(slash - s), s);
    }
    v->group = xstrdup(group[0] ? group : "vectors");
    read_header(v);
    if (r->profile && strcmp(v->profile, r->profile) != 0) {
        free(v->path);
        free(v->name);
        free(v->group);
        free(v->rules);
        return; /* another profile's vector */
    }
    r->n++;
}

/* qsort order of file names: bytes, independent of the locale. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Directories in byte order, but hand/ first: the hand-written vectors
 * derive their traces from the document, and are the ones to fix first
 * (docs/implementers.md, section 3). */
static int cmp_dir(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    const char *bx = strrchr(x, '/'), *by = strrchr(y, '/');
    int hx = bx && strcmp(bx, "/hand") == 0;
    int hy = by && strcmp(by, "/hand") == 0;
    if (hx != hy)
        return hx ? -1 : 1;
    return strcmp(x, y);
}

/* Every NAME.events of the suite's subdirectories (hand/, then gen/), each
 * directory's files in byte order, so that every run lists the same
 * vectors in the same order. */
static int add_suite(runner *r, const char *suite)
{
    DIR *d = opendir(suite), *sd;
    struct dirent *e;
    char **dirs = NULL, **files, p[4800];
    size_t nd = 0, cd = 0, nf, cf, i, j;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", suite, e->d_name);
        if (!is_dir(p))
            continue;
        if (nd == cd) {
            char **nv = realloc(dirs, (cd = cd ? 2 * cd : 8) * sizeof *nv);
            if (!nv)
                oom();
            dirs = nv;
        }
        dirs[nd++] = xstrdup(p);
    }
    closedir(d);
    if (nd)
        qsort(dirs, nd, sizeof *dirs, cmp_dir);
    for (i = 0; i < nd; i++) {
        files = NULL;
        nf = cf = 0;
        if ((sd = opendir(dirs[i])) != NULL) {
            while ((e = readdir(sd)) != NULL) {
                size_t len = strlen(e->d_name);
                if (len <= 7 || strcmp(e->d_name + len - 7, ".events") != 0)
                    continue;
                if (nf == cf) {
                    char **nv = realloc(files,
                                        (cf = cf ? 2 * cf : 64) * sizeof *nv);
                    if (!nv)
                        oom();
                    files = nv;
                }
                snprintf(p, sizeof p, "%s/%s", dirs[i], e->d_name);
                files[nf++] = xstrdup(p);
            }
            closedir(sd);
        }
        if (nf)
            qsort(files, nf, sizeof *files, cmp_str);
        for (j = 0; j < nf; j++) {
            add_vector(r, files[j]);
            free(files[j]);
        }
        free(files);
        free(dirs[i]);
    }
    free(dirs);
    return 0;
}

/* ---- running one vector ---- */

/* The monotonic clock, for time limits and JUnit's times only: no
 * verdict depends on it except a time-out. */
static double now_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts the adapter on one vector, its stdout and stderr to files, in its
 * own process group (so that a time-out kills whatever it started), and
 * waits for it at most r->timeout seconds (SIGCHLD is blocked; it is
 * awaited with sigtimedwait, so nothing polls).  Returns the wait status,
 * or -1 if it timed out (the group is killed), -2 if it cannot start. */
static int run_adapter(const runner *r, const vector *v, const char *out,
                       const char *err, double *secs)
{
    sigset_t chld, old;
    pid_t pid;
    int status = 0;
    double start = now_secs(), left;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return -2;
    }
    if (pid == 0) {
        int in, o, e;
        char cmd[8192];
        sigprocmask(SIG_SETMASK, &old, NULL);
        setpgid(0, 0);
        in = open(r->input_path ? "/dev/null" : v->path, O_RDONLY);
        o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || o < 0 || e < 0)
            _exit(126);
        dup2(in, 0);
        dup2(o, 1);
        dup2(e, 2);
        close(in);
        close(o);
        close(e);
        if (r->input_path) {
            snprintf(cmd, sizeof cmd, "%s \"$1\"", r->impl);
            execl("/bin/sh", "sh", "-c", cmd, "qsched-conformance", v->path,
                  (char *)NULL);
        } else {
            execl("/bin/sh", "sh", "-c", r->impl, (char *)NULL);
        }
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with the child's own call */
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        struct timespec ts;
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            status = -2;
            break;
        }
        left = r->timeout - (now_secs() - start);
        if (left <= 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            status = -1;
            break;
        }
        if (left > 0.5)
            left = 0.5; /* a lost SIGCHLD costs at most this */
        ts.tv_sec = (time_t)left;
        ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
        sigtimedwait(&chld, NULL, &ts);
    }
    /* whatever the adapter left running in its group goes too */
    if (status != -2)
        kill(-pid, SIGKILL);
    sigprocmask(SIG_SETMASK, &old, NULL);
    *secs = now_secs() - start;
    return status;
}

/* Does a line of the adapter's output count (the default level)? */
static int counts(const char *s, size_t n)
{
    static const char *const verbs[] = {"deliver ", "window ", "dead ",
                                        "revive ", "defer "};
    size_t i;
    if (n == 4 && memcmp(s, "idle", 4) == 0)
        return 1;
    for (i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        size_t k = strlen(verbs[i]);
        if (n >= k && memcmp(s, verbs[i], k) == 0)
            return 1;
    }
    return 0;
}

/* The comparable trace of raw output, in place: CRs removed, trailing
 * blanks cut, only the lines that count, each ending with a newline.
 * Returns the new length. */
static size_t canonical_trace(char *b, size_t len)
{
    size_t i, o = 0;
    /* drop every CR (as `tr -d '\r'`), then filter line by line */
    for (i = 0; i < len; i++)
        if (b[i] != '\r')
            b[o++] = b[i];
    len = o;
    o = 0;
    for (i = 0; i < len;) {
        size_t e = i, n;
        while (e < len && b[e] != '\n')
            e++;
        n = e - i;
        while (n > 0 && (b[i + n - 1] == ' ' || b[i + n - 1] == '\t'))
            n--;
        if (counts(b + i, n)) {
            memmove(b + o, b + i, n);
            o += n;
            b[o++] = '\n';
        }
        i = e + 1;
    }
    return o;
}

/* Appends text to a growing string. */
static void append(char **s, size_t *len, const char *t, size_t n)
{
    char *ns = realloc(*s, *len + n + 1);
    if (!ns)
        oom();
    memcpy(ns + *len, t, n);
    *len += n;
    ns[*len] = 0;
    *s = ns;
}

/* The first-divergence report of `qsched verify VECTOR TRACE`, computed in
 * this process with its stdout sent to a file, with the temporary trace
 * file's name replaced by "trace". */
static char *divergence_report(const runner *r, const vector *v,
                               const char *got)
{
    char rep[300], *raw, *out = NULL, *argv[2 * 64 + 5];
    char tag[400];
    size_t olen = 0, glen = strlen(got);
    int saved, fd;
    const char *p;
    snprintf(rep, sizeof rep, "%s/report", r->tmp);
    fflush(stdout);
    saved = dup(1);
    fd = open(rep, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (saved < 0 || fd < 0) {
        if (saved >= 0)
            close(saved);
        if (fd >= 0)
            close(fd);
        return xstrdup("(no report: cannot write a temporary file)");
    }
    dup2(fd, 1);
    close(fd);
    /* qsched verify --readings [--reading NAME=VALUE]... VECTOR TRACE: the
     * report ends with the readings that explain the divergence */
    {
        size_t k, na = 0;
        argv[na++] = "verify";
        argv[na++] = "--readings";
        for (k = 0; k < r->ndeclared; k++) {
            argv[na++] = "--reading";
            argv[na++] = r->declared[k];
        }
        argv[na++] = v->path;
        argv[na++] = (char *)got;
        argv[na] = NULL;
        qs_verify_main((int)na, argv);
    }
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    raw = slurp(rep, OUTPUT_MAX, NULL, NULL);
    if (!raw)
        return xstrdup("(no report)");
    /* " (TMP/trace line N)" goes, "TMP/trace" becomes "trace" */
    snprintf(tag, sizeof tag, " (%s line ", got);
    for (p = raw; *p;) {
        if (strncmp(p, tag, strlen(tag)) == 0) {
            const char *q = strchr(p + strlen(tag), ')');
            if (q) {
                p = q + 1;
                continue;
            }
        }
        if (strncmp(p, got, glen) == 0) {
            append(&out, &olen, "trace", 5);
            p += glen;
            continue;
        }
        append(&out, &olen, p, 1);
        p++;
    }
    free(raw);
    while (olen && out[olen - 1] == '\n')
        out[--olen] = 0;
    return out ? out : xstrdup("");
}

/* The first lines of the adapter's stderr, "stderr: "-prefixed. */
static char *stderr_head(const char *errpath, int lines)
{
    char *raw = slurp(errpath, OUTPUT_MAX, NULL, NULL), *out = NULL;
    size_t olen = 0;
    const char *p = raw;
    int k;
    if (!raw)
        return NULL;
    for (k = 0; k < lines && p && *p; k++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (olen)
            append(&out, &olen, "\n", 1);
        append(&out, &olen, "stderr: ", 8);
        append(&out, &olen, p, n);
        p = nl ? nl + 1 : NULL;
    }
    free(raw);
    return out;
}

/* Runs one vector and fills in its status, why and detail. */
static void run_vector(const runner *r, vector *v)
{
    char out[300], err[300], got[300], expath[4400], why[200];
    char *raw, *exp;
    size_t rawlen = 0, explen = 0, glen;
    int toobig = 0, ws, rc = -1, sig = 0, differs;
    FILE *g;

    snprintf(out, sizeof out, "%s/out", r->tmp);
    snprintf(err, sizeof err, "%s/err", r->tmp);
    snprintf(got, sizeof got, "%s/trace", r->tmp);
    snprintf(expath, sizeof expath, "%.*s.expected",
             (int)(strlen(v->path) - 7), v->path);
    ws = run_adapter(r, v, out, err, &v->secs);
    if (ws == -2) {
        v->status = V_ERROR;
        v->why = xstrdup("cannot start the adapter (fork failed)");
        return;
    }
    if (ws == -1) {
        v->status = V_ERROR;
        snprintf(why, sizeof why, "timed out after %gs", r->timeout);
        v->why = xstrdup(why);
        v->detail = stderr_head(err, 3);
        return;
    }
    if (WIFEXITED(ws))
        rc = WEXITSTATUS(ws);
    else if (WIFSIGNALED(ws))
        sig = WTERMSIG(ws);
    /* sh reports a command killed by signal N as exit status 128 + N */
    if (rc > 128 && rc <= 128 + 64)
        sig = rc - 128;
    exp = slurp(expath, OUTPUT_MAX, &explen, NULL);
    if (!exp) {
        v->status = V_FAIL;
        snprintf(why, sizeof why, "missing %s.expected", v->name);
        v->why = xstrdup(why);
        return;
    }
    raw = slurp(out, OUTPUT_MAX, &rawlen, &toobig);
    if (!raw) {
        v->status = V_FAIL;
        v->why = xstrdup(toobig ? "more than 64 MiB of output"
                                : "cannot read the adapter's output");
        free(exp);
        return;
    }
    glen = canonical_trace(raw, rawlen);
    differs = glen != explen || memcmp(raw, exp, glen) != 0;
    if (differs && r->ndeclared > 0) {
        /* Declared readings: the trace qsched prints under them counts, and
         * so does its exit status (a generated stream's `done` lines follow
         * qsched's own choices; under other readings one may name a
         * delivery that is not in flight: an input error for qsched too). */
        char **lines = NULL;
        size_t nl = 0, k, len = 0;
        long bad = 0;
        if (qs_reading_trace(v->path, r->declared, r->ndeclared, &lines, &nl,
                             &bad) == 0) {
            char *want = NULL;
            for (k = 0; k < nl; k++) {
                append(&want, &len, lines[k], strlen(lines[k]));
                append(&want, &len, "\n", 1);
            }
            if (len == glen && (glen == 0 || memcmp(want, raw, glen) == 0)) {
                differs = 0;
                v->with_readings = 1;
                v->want_rc = bad > 0 ? 2 : 0;
            }
            free(want);
            qs_reading_lines_free(lines, nl);
        }
    }
    if (differs) {
        g = fopen(got, "wb");
        if (g) {
            fwrite(raw, 1, glen, g);
            fclose(g);
        }
        v->status = V_FAIL;
        v->why = xstrdup("trace differs");
        v->detail = divergence_report(r, v, got);
        if (glen == 0 || sig) {
            /* nothing came out, or it crashed: how it ended, and its
             * stderr, say why */
            char *h = stderr_head(err, 3);
            size_t dl = strlen(v->detail);
            if (sig)
                snprintf(why, sizeof why, "\n(killed by signal %d)", sig);
            else
                snprintf(why, sizeof why, "\n(the adapter printed no trace "
                         "line and exited with status %d%s)", rc,
                         h ? "" : ", stderr empty");
            append(&v->detail, &dl, why, strlen(why));
            if (h) {
                append(&v->detail, &dl, "\n", 1);
                append(&v->detail, &dl, h, strlen(h));
                free(h);
            }
        }
    } else if (sig) {
        v->status = V_ERROR;
        snprintf(why, sizeof why, "killed by signal %d%s", sig,
                 rc > 128 ? " (exit status 128 + signal, from the shell)"
                          : "");
        v->why = xstrdup(why);
        v->detail = stderr_head(err, 3);
    } else if (rc != v->want_rc) {
        v->status = V_FAIL;
        snprintf(why, sizeof why, "exit status %d, want %d", rc, v->want_rc);
        v->why = xstrdup(why);
        v->detail = stderr_head(err, 3);
    } else {
        v->status = V_PASS;
    }
    free(raw);
    free(exp);
}

/* ---- the per-rule summary ---- */

typedef struct rule {
    char *id;
    size_t total, failed;
    char *names;   /* the first NAMES_SHOWN failing vectors */
    size_t shown;
} rule;

/* Rule ids in their natural order: S-CON-2 before S-CON-10. */
static int cmp_rule(const void *a, const void *b)
{
    const char *x = ((const rule *)a)->id, *y = ((const rule *)b)->id;
    const char *dx = strrchr(x, '-'), *dy = strrchr(y, '-');
    size_t px = dx ? (size_t)(dx - x) : strlen(x);
    size_t py = dy ? (size_t)(dy - y) : strlen(y);
    int c;
    if (px != py || (c = strncmp(x, y, px)) != 0) {
        c = strncmp(x, y, px < py ? px : py);
        return c ? c : (px < py ? -1 : 1);
    }
    if (dx && dy && atol(dx + 1) != atol(dy + 1))
        return atol(dx + 1) < atol(dy + 1) ? -1 : 1;
    return strcmp(x, y);
}

/* Gathers, for every rule id named by a vector's header, how many of its
 * vectors ran and failed.  Returns the table, sorted. */
static rule *rule_table(const runner *r, size_t *count)
{
    rule *t = NULL;
    size_t n = 0, cap = 0, i, k;
    for (i = 0; i < r->n; i++) {
        char *copy, *tok, *save = NULL;
        if (!r->v[i].rules)
            continue;
        copy = xstrdup(r->v[i].rules);
        for (tok = strtok_r(copy, " \t,", &save); tok;
             tok = strtok_r(NULL, " \t,", &save)) {
            for (k = 0; k < n && strcmp(t[k].id, tok) != 0; k++)
                ;
            if (k == n) {
                if (n == cap) {
                    rule *nt = realloc(t, (cap = cap ? 2 * cap : 64) *
                                       sizeof *nt);
                    if (!nt)
                        oom();
                    t = nt;
                }
                memset(&t[n], 0, sizeof t[n]);
                t[n++].id = xstrdup(tok);
            }
            t[k].total++;
            if (r->v[i].status != V_PASS) {
                t[k].failed++;
                if (t[k].shown < NAMES_SHOWN) {
                    size_t len = t[k].names ? strlen(t[k].names) : 0;
                    if (len)
                        append(&t[k].names, &len, " ", 1);
                    append(&t[k].names, &len, r->v[i].name,
                           strlen(r->v[i].name));
                    t[k].shown++;
                }
            }
        }
        free(copy);
    }
    if (n)
        qsort(t, n, sizeof *t, cmp_rule);
    *count = n;
    return t;
}

/* Frees a rule_table result. */
static void rule_free(rule *t, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        free(t[i].id);
        free(t[i].names);
    }
    free(t);
}

/* Writes the per-rule summary lines, each after prefix. */
static void print_rules(FILE *f, const char *prefix, const rule *t, size_t n)
{
    size_t i, bad = 0;
    for (i = 0; i < n; i++)
        bad += t[i].failed > 0;
    if (!bad) {
        fprintf(f, "%srules: every vector of the %zu rules passed\n", prefix,
                n);
        return;
    }
    fprintf(f, "%srules with failing vectors: %zu of %zu\n", prefix, bad, n);
    for (i = 0; i < n; i++)
        if (t[i].failed)
            fprintf(f, "%s  %s: %zu of %zu failed (%s%s)\n", prefix, t[i].id,
                    t[i].failed, t[i].total, t[i].names,
                    t[i].failed > t[i].shown ? " ..." : "");
}

/* ---- the outputs ---- */

/* Text with every byte outside printable ASCII as \xNN (qs_escape), but
 * newlines kept: for TAP's YAML and the text report, which show what an
 * adapter printed. */
static void put_clean(FILE *f, const char *s, const char *indent)
{
    char line[4096], esc[4 * sizeof line];
    const char *p = s;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        qs_escape(esc, sizeof esc, line);
        fprintf(f, "%s%s\n", indent, esc);
        p = nl ? nl + 1 : NULL;
    }
}

/* The text report of one vector (the format of tests/conformance/run.sh
 * before it became a wrapper: "PASS NAME" / "FAIL NAME: why" + report). */
static void text_vector(const runner *r, const vector *v)
{
    if (v->status == V_PASS) {
        if (!r->quiet)
            printf("PASS %s%s\n", v->name,
                   v->with_readings ? " (with your readings)" : "");
        return;
    }
    printf("FAIL %s: %s\n", v->name, v->why);
    if (v->detail)
        put_clean(stdout, v->detail, "    ");
}

/* TAP version 13: one test point per vector, a YAML block under each
 * failure, the rule summary as comments. */
static void tap_vector(const vector *v, size_t i)
{
    if (v->status == V_PASS) {
        printf("ok %zu - %s/%s%s\n", i + 1, v->group, v->name,
               v->with_readings ? " # with your readings" : "");
        return;
    }
    printf("not ok %zu - %s/%s\n", i + 1, v->group, v->name);
    printf("  ---\n");
    printf("  message: \"%s\"\n", v->why);
    printf("  severity: %s\n", v->status == V_ERROR ? "error" : "fail");
    printf("  vector: \"%s\"\n", v->path);
    printf("  rules: \"%s\"\n", v->rules ? v->rules : "");
    if (v->detail) {
        printf("  report: |\n");
        put_clean(stdout, v->detail, "    ");
    }
    printf("  ...\n");
}

/* XML character data: markup characters as entities, newlines and tabs
 * kept, every other byte outside printable ASCII as the text \xNN (XML 1.0
 * forbids most control characters, and this keeps the file ASCII). */
static void xml(FILE *f, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    for (; *p; p++) {
        if (*p == '&')
            fputs("&amp;", f);
        else if (*p == '<')
            fputs("&lt;", f);
        else if (*p == '>')
            fputs("&gt;", f);
        else if (*p == '"')
            fputs("&quot;", f);
        else if (*p == '\n' || *p == '\t' || (*p >= 0x20 && *p < 0x7f))
            fputc(*p, f);
        else
            fprintf(f, "\\x%c%c", hex[*p >> 4], hex[*p & 15]);
    }
}

/* JUnit XML: one <testsuite> per group (hand, gen), one <testcase> per
 * vector; a trace or status difference is a <failure>, a time-out or a
 * crash an <error>; the rule ids of each vector in its <system-out>, and
 * the per-rule summary in each <testsuite>'s <system-out> (the root
 * element has none in the JUnit schema).  Returns 0 or -1. */
static int write_junit(const runner *r, const rule *t, size_t nt)
{
    FILE *f = fopen(r->junit, "w");
    size_t i, j, fails = 0, errs = 0;
    double total = 0;
    if (!f)
        return -1;
    for (i = 0; i < r->n; i++) {
        fails += r->v[i].status == V_FAIL;
        errs += r->v[i].status == V_ERROR;
        total += r->v[i].secs;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"qsched conformance\" tests=\"%zu\" "
            "failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n", r->n, fails,
            errs, total);
    for (i = 0; i < r->n; i = j) {
        size_t tests = 0, f2 = 0, e2 = 0;
        double secs = 0;
        for (j = i; j < r->n && strcmp(r->v[j].group, r->v[i].group) == 0;
             j++) {
            tests++;
            f2 += r->v[j].status == V_FAIL;
            e2 += r->v[j].status == V_ERROR;
            secs += r->v[j].secs;
        }
        fprintf(f, "  <testsuite name=\"");
        xml(f, r->v[i].group);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                "skipped=\"0\" time=\"%.3f\">\n", tests, f2, e2, secs);
        fprintf(f, "    <properties>\n      <property name=\"impl\" "
                "value=\"");
        xml(f, r->impl);
        fprintf(f, "\"/>\n    </properties>\n");
        for (j = i; j < r->n && strcmp(r->v[j].group, r->v[i].group) == 0;
             j++) {
            const vector *v = &r->v[j];
            fprintf(f, "    <testcase classname=\"qsched.conformance.");
            xml(f, v->group);
            fprintf(f, "\" name=\"");
            xml(f, v->name);
            fprintf(f, "\" file=\"");
            xml(f, v->path);
            fprintf(f, "\" time=\"%.3f\">\n", v->secs);
            if (v->status != V_PASS) {
                const char *tag = v->status == V_ERROR ? "error" : "failure";
                fprintf(f, "      <%s message=\"", tag);
                xml(f, v->why);
                fprintf(f, "\" type=\"%s\">", v->status == V_ERROR
                        ? "adapter" : "conformance");
                xml(f, v->detail);
                fprintf(f, "</%s>\n", tag);
            }
            fprintf(f, "      <system-out>rules: ");
            xml(f, v->rules);
            fprintf(f, "</system-out>\n    </testcase>\n");
        }
        fprintf(f, "    <system-out>");
        {
            /* the per-rule summary, as text */
            char *buf = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&buf, &len);
            if (m) {
                print_rules(m, "", t, nt);
                fclose(m);
                xml(f, buf);
                free(buf);
            }
        }
        fprintf(f, "</system-out>\n  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
    if (ferror(f)) {
        fclose(f);
        return -1;
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- the command ---- */

/* Removes the private temporary directory and what it holds. */
static void clean_tmp(const runner *r)
{
    static const char *const files[] = {"out", "err", "trace", "report"};
    char p[400];
    size_t i;
    if (!r->tmp[0])
        return;
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", r->tmp, files[i]);
        unlink(p);
    }
    rmdir(r->tmp);
}

/* `qsched conformance`: parse the options, collect the vectors (given,
 * or the suite's), run each once, report as asked, clean up.  The text or
 * TAP report is written as the vectors run, so a long run shows progress;
 * the JUnit file, which needs the totals first, at the end. */
int qs_conformance_main(int argc, char **argv)
{
    runner r;
    char suite[4400];
    const char *given = NULL, *tmpdir;
    rule *t;
    size_t nt, i, pass = 0, failed = 0;
    int a, first_vec = 0, rc;

    memset(&r, 0, sizeof r);
    r.timeout = 20;
    for (a = 1; a < argc; a++) {
        const char *o = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(o, "--tap") == 0) {
            r.tap = 1;
        } else if (strcmp(o, "-q") == 0 || strcmp(o, "--quiet") == 0) {
            r.quiet = 1;
        } else if (strcmp(o, "--impl") == 0 || strcmp(o, "--input") == 0 ||
                   strcmp(o, "--profile") == 0 || strcmp(o, "--junit") == 0
                   || strcmp(o, "--suite") == 0 ||
                   strcmp(o, "--timeout") == 0 ||
                   strcmp(o, "--readings") == 0) {
            if (!val)
                return fail2("option needs a value", o);
            a++;
            if (strcmp(o, "--impl") == 0)
                r.impl = val;
            else if (strcmp(o, "--junit") == 0)
                r.junit = val;
            else if (strcmp(o, "--suite") == 0)
                given = val;
            else if (strcmp(o, "--readings") == 0) {
                /* "NAME=VALUE NAME=VALUE", spaces or commas between */
                char *tok, *save = NULL, param[128];
                const char *word;
                if (strlen(val) >= sizeof r.declared_text)
                    return fail2("--readings: too long", NULL);
                strcpy(r.declared_text, val);
                r.ndeclared = 0;
                for (tok = strtok_r(r.declared_text, " ,\t", &save); tok;
                     tok = strtok_r(NULL, " ,\t", &save)) {
                    if (r.ndeclared == 64 ||
                        qs_reading_parse(tok, param, sizeof param, &word) < 0)
                        return fail2("--readings: not a reading", tok);
                    r.declared[r.ndeclared++] = tok;
                }
            }
            else if (strcmp(o, "--input") == 0) {
                if (strcmp(val, "path") == 0)
                    r.input_path = 1;
                else if (strcmp(val, "stdin") != 0)
                    return fail2("--input: want stdin or path, not", val);
            } else if (strcmp(o, "--profile") == 0) {
                if (strcmp(val, "document") != 0 &&
                    strcmp(val, "postfix") != 0)
                    return fail2("--profile: want document or postfix, not",
                                 val);
                r.profile = val;
            } else {
                char *end;
                r.timeout = strtod(val, &end);
                if (*end || !(r.timeout > 0) || r.timeout > 86400)
                    return fail2("--timeout: want seconds (0 < S <= 86400)",
                                 val);
            }
        } else if (o[0] == '-' && o[1]) {
            fail2("unknown option", o);
            usage(stderr);
            return 2;
        } else {
            first_vec = a;
            break;
        }
    }
    if (!r.impl || !*r.impl) {
        usage(stderr);
        return 2;
    }
    if (first_vec) {
        for (a = first_vec; a < argc; a++) {
            size_t len = strlen(argv[a]);
            if (len <= 7 || strcmp(argv[a] + len - 7, ".events") != 0 ||
                access(argv[a], R_OK) != 0)
                return fail2("not a readable NAME.events vector", argv[a]);
            add_vector(&r, argv[a]);
        }
    } else {
        if (find_suite(given, suite, sizeof suite) < 0)
            return fail2(given ? "not a conformance suite" :
                         "conformance suite not found (use --suite DIR)",
                         given);
        add_suite(&r, suite);
    }
    if (r.n == 0)
        return fail2("no vector to run", r.profile ? r.profile : NULL);

    tmpdir = getenv("TMPDIR");
    snprintf(r.tmp, sizeof r.tmp, "%s/qsched-conformance.XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(r.tmp)) {
        r.tmp[0] = 0;
        return fail2("cannot create a temporary directory", strerror(errno));
    }
    if (r.tap)
        printf("TAP version 13\n1..%zu\n", r.n);
    for (i = 0; i < r.n; i++) {
        run_vector(&r, &r.v[i]);
        if (r.v[i].status == V_PASS)
            pass++;
        else
            failed++;
        if (r.tap)
            tap_vector(&r.v[i], i);
        else
            text_vector(&r, &r.v[i]);
    }
    clean_tmp(&r);
    t = rule_table(&r, &nt);
    print_rules(stdout, r.tap ? "# " : "", t, nt);
    printf("%s%zu passed, %zu failed\n", r.tap ? "# " : "", pass, failed);
    rc = failed ? 1 : 0;
    if (r.junit && write_junit(&r, t, nt) < 0) {
        fflush(stdout);
        fprintf(stderr, "qsched conformance: cannot write %s: %s\n",
                r.junit, strerror(errno));
        rc = 4;
    }
    rule_free(t, nt);
    for (i = 0; i < r.n; i++) {
        free(r.v[i].path);
        free(r.v[i].name);
        free(r.v[i].group);
        free(r.v[i].rules);
        free(r.v[i].why);
        free(r.v[i].detail);
    }
    free(r.v);
    return rc;
}
