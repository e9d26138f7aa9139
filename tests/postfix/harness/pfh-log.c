/*
 * pfh-log.c - the clients of Postfix's logging services.
 *
 * Owns: defer_append, bounce_append, sent, opened, deliver_completed,
 * the asynchronous bounce/defer/trace flushes (abounce_*, adefer_*,
 * atrace_flush), info_log_addr_form_sender, and the retry/error transport
 * lookup of qmgr_error.c.  Replaces: global/defer.c, bounce.c, sent.c,
 * opened.c, deliver_completed.c, abounce.c, info_log_addr_form.c (clients
 * of the defer(8), bounce(8) and trace(8) daemons and of syslog), and
 * src/qmgr/qmgr_error.c.
 *
 * Why faithful:
 *  - These services record what happened to recipients; they decide
 *    nothing about scheduling.  defer_append is also an observation: each
 *    recipient Postfix defers because its destination is dead becomes part
 *    of a `defer` trace line (pfh_observe_defer).
 *  - The flushes run when a message leaves the active queue and no bounce
 *    or defer log exists for it, or when it has expired.  The stub answers
 *    at once with success, as the daemons would, so the message leaves at
 *    once, as in qsched (S-MEM-2).
 *  - qmgr_error.c finds the retry(8) transport to which Postfix hands the
 *    recipients of a dead destination for asynchronous deferral.  The
 *    retry and error delivery agents are outside qsched's model (spec/
 *    profiles.md, "Not modelled"): the stub answers "no retry transport",
 *    which is Postfix's own fallback (the retry transport is throttled):
 *    qmgr_defer_todo and qmgr_message_resolve then defer each recipient at
 *    once with defer_append and qmgr_entry_done, so the recipients leave
 *    the active queue at once, as they do in qsched (S-CON-9).
 */
#include "pfh.h"
#include <defer.h>
#include <bounce.h>
#include <sent.h>
#include <opened.h>
#include <deliver_completed.h>
#include <abounce.h>
#include <info_log_addr_form.h>

int defer_append(int flags, const char *id, MSG_STATS *stats, RECIPIENT *rcpt,
                 const char *relay, DSN *dsn)
{
    (void)flags;
    (void)stats;
    (void)relay;
    pfh_observe_defer(id, rcpt, dsn);
    return 0;
}

int bounce_append(int flags, const char *id, MSG_STATS *stats,
                  RECIPIENT *rcpt, const char *relay, DSN *dsn)
{
    (void)flags;
    (void)stats;
    (void)rcpt;
    (void)relay;
    (void)dsn;
    pfh_internal_error("%s: bounce_append: no recipient can bounce here", id);
}

int sent(int flags, const char *id, MSG_STATS *stats, RECIPIENT *rcpt,
         const char *relay, DSN *dsn)
{
    (void)flags;
    (void)stats;
    (void)relay;
    (void)dsn;
    pfh_internal_error("%s: sent(%s): the queue manager delivered nothing "
                       "itself", id, rcpt->address);
}

void opened(const char *id, const char *sender, long size, int nrcpt,
            const char *fmt, ...)
{
    (void)id;
    (void)sender;
    (void)size;
    (void)nrcpt;
    (void)fmt;
}

void deliver_completed(VSTREAM *fp, long offset)
{
    (void)fp;
    (void)offset;
}

static void answer(ABOUNCE_FN callback, void *context)
{
    callback(0, context);
}

void abounce_flush(int flags, const char *queue, const char *id,
                   const char *encoding, int smtputf8, const char *sender,
                   const char *envid, int ret, ABOUNCE_FN callback,
                   void *context)
{
    (void)flags; (void)queue; (void)id; (void)encoding; (void)smtputf8;
    (void)sender; (void)envid; (void)ret;
    answer(callback, context);
}

void adefer_flush(int flags, const char *queue, const char *id,
                  const char *encoding, int smtputf8, const char *sender,
                  const char *envid, int ret, ABOUNCE_FN callback,
                  void *context)
{
    (void)flags; (void)queue; (void)id; (void)encoding; (void)smtputf8;
    (void)sender; (void)envid; (void)ret;
    answer(callback, context);
}

void adefer_warn(int flags, const char *queue, const char *id,
                 const char *encoding, int smtputf8, const char *sender,
                 const char *envid, int ret, ABOUNCE_FN callback,
                 void *context)
{
    (void)flags; (void)queue; (void)id; (void)encoding; (void)smtputf8;
    (void)sender; (void)envid; (void)ret;
    answer(callback, context);
}

void atrace_flush(int flags, const char *queue, const char *id,
                  const char *encoding, int smtputf8, const char *sender,
                  const char *envid, int ret, ABOUNCE_FN callback,
                  void *context)
{
    (void)flags; (void)queue; (void)id; (void)encoding; (void)smtputf8;
    (void)sender; (void)envid; (void)ret;
    answer(callback, context);
}

void abounce_flush_verp(int flags, const char *queue, const char *id,
                        const char *encoding, int smtputf8,
                        const char *sender, const char *envid, int ret,
                        const char *verp, ABOUNCE_FN callback, void *context)
{
    (void)flags; (void)queue; (void)id; (void)encoding; (void)smtputf8;
    (void)sender; (void)envid; (void)ret; (void)verp;
    answer(callback, context);
}

void adefer_flush_verp(int flags, const char *queue, const char *id,
                       const char *encoding, int smtputf8,
                       const char *sender, const char *envid, int ret,
                       const char *verp, ABOUNCE_FN callback, void *context)
{
    (void)flags; (void)queue; (void)id; (void)encoding; (void)smtputf8;
    (void)sender; (void)envid; (void)ret; (void)verp;
    answer(callback, context);
}

const char *info_log_addr_form_sender(const char *addr)
{
    return addr;
}

const char *info_log_addr_form_recipient(const char *addr)
{
    return addr;
}

/* ---- qmgr_error.c: no retry or error transport ---- */

QMGR_TRANSPORT *qmgr_error_transport(const char *service)
{
    (void)service;
    return 0;
}

QMGR_QUEUE *qmgr_error_queue(const char *service, DSN *dsn)
{
    (void)service;
    (void)dsn;
    return 0;
}

char *qmgr_error_nexthop(DSN *dsn)
{
    (void)dsn;
    return mystrdup("");
}
