/*
 * pfh-msg.c - Postfix's logging (msg.h), seen by the harness.
 *
 * Owns: msg_info, msg_warn, msg_error, msg_fatal, msg_panic and their v*
 * forms.  Replaces: util/msg.c with its syslog/postlog back ends.
 *
 * Why faithful: logging decides nothing.  Two log records are used as
 * observations: the harness turns on Postfix's own concurrency feedback
 * debugging (destination_concurrency_feedback_debug = yes), and every
 * change of a destination's window is then logged by qmgr_queue.c itself
 * ("qmgr_queue_throttle: queue NAME: limit L window W ..." and the same
 * for qmgr_queue_unthrottle).  Those records become the `window`, `dead`
 * and `revive` trace lines (pfh_observe_window).  A fatal error or a
 * panic inside Postfix ends the run with exit status 5: it means the
 * harness drove Postfix into a state it refuses, which is a harness bug
 * until shown otherwise.
 */
#include <stdarg.h>
#include <stdlib.h>
#include "pfh.h"

int msg_verbose;
int pfh_debug;
int pfh_abort_on_fatal;

/* "qmgr_queue_unthrottle: queue NAME: limit L window W success ..." */
static void observe(const char *text)
{
    static const char *who[] = {"qmgr_queue_unthrottle: queue ",
                                "qmgr_queue_throttle: queue "};
    size_t i;
    for (i = 0; i < sizeof who / sizeof who[0]; i++) {
        size_t n = strlen(who[i]);
        const char *name, *end, *w;
        char buf[1024];
        if (strncmp(text, who[i], n) != 0)
            continue;
        name = text + n;
        end = strstr(name, ": limit ");
        w = end ? strstr(end, " window ") : 0;
        if (!end || !w)
            continue;   /* another record of these functions (verbose) */
        if ((size_t)(end - name) >= sizeof buf)
            pfh_internal_error("cannot parse Postfix's window log: %s", text);
        memcpy(buf, name, (size_t)(end - name));
        buf[end - name] = 0;
        pfh_observe_window(i == 0 ? "unthrottle" : "throttle", buf,
                           atoi(w + 8));
    }
}

void vmsg_info(const char *fmt, va_list ap)
{
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    if (pfh_debug)
        fprintf(stderr, "postfix: %s\n", text);
    observe(text);
}

void msg_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg_info(fmt, ap);
    va_end(ap);
}

void vmsg_warn(const char *fmt, va_list ap)
{
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    if (pfh_debug)
        fprintf(stderr, "postfix: warning: %s\n", text);
}

void msg_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg_warn(fmt, ap);
    va_end(ap);
}

void vmsg_error(const char *fmt, va_list ap)
{
    vmsg_warn(fmt, ap);
}

void msg_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg_error(fmt, ap);
    va_end(ap);
}

static NORETURN die(const char *what, const char *fmt, va_list ap)
{
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    fflush(stdout);
    fprintf(stderr, "pfqmgr: postfix %s: %s\n", what, text);
    if (pfh_abort_on_fatal)
        abort();
    exit(PFH_EXIT_POSTFIX);
}

void vmsg_fatal(const char *fmt, va_list ap)
{
    die("fatal", fmt, ap);
}

void vmsg_fatal_status(int status, const char *fmt, va_list ap)
{
    (void)status;
    die("fatal", fmt, ap);
}

void vmsg_panic(const char *fmt, va_list ap)
{
    die("panic", fmt, ap);
}

void msg_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    die("fatal", fmt, ap);
}

void msg_fatal_status(int status, const char *fmt, ...)
{
    va_list ap;
    (void)status;
    va_start(ap, fmt);
    die("fatal", fmt, ap);
}

void msg_panic(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    die("panic", fmt, ap);
}
