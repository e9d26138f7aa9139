/*
 * pfh-config.c - main.cf for the queue manager, and its start-up.
 *
 * Owns: the configuration dictionary (mail_conf_lookup, mail_conf_eval,
 * mail_conf_update and friends: global/mail_conf.c's interface to the
 * dict layer), the few global parameters of global/mail_params.c that the
 * compiled files read, and trigger_server_main (master/trigger_server.c,
 * the daemon skeleton the queue manager runs under).
 *
 * Why faithful:
 *  - The dictionary holds exactly the stream's `NAME = VALUE` lines, as a
 *    main.cf holding those lines would.  Postfix's own parameter code
 *    (global/mail_conf_int.c, _str.c, _time.c, _bool.c, compiled
 *    unchanged) converts and range-checks the values, registers the
 *    defaults of unset parameters in the dictionary, and answers the
 *    per-transport lookups (TRANSPORT_suffix) of qmgr_transport.c.
 *  - The queue manager's main() (src/qmgr/qmgr.c, compiled unchanged with
 *    main renamed) runs as in Postfix: it hands its parameter tables to the
 *    skeleton, which processes them in order, then calls qmgr_pre_init and
 *    qmgr_post_init (whose sanity adjustments, such as raising
 *    qmgr_message_recipient_limit to qmgr_message_active_limit, are
 *    Postfix's).  Instead of entering the daemon loop, the skeleton
 *    returns to the driver, which plays the part of the loop.
 *  - Only one value is forced: destination_concurrency_feedback_debug =
 *    yes, so that Postfix logs every window change (pfh-msg.c).  It only
 *    adds log records.
 *  - Parameters outside the queue manager: the delivery watchdogs
 *    (daemon_timeout) are set beyond any virtual time a delivery can last,
 *    because qsched's delivery agents always answer; recipient_delimiter is
 *    Postfix's default (empty), so no address extension is stripped.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <limits.h>
#include <setjmp.h>
#include "pfh.h"
#include <mail_params.h>
#include <mail_server.h>
#include <flush_clnt.h>
#include <dict.h>
#include <mail_flow.h>

/* ---- the dictionary ---- */

static HTABLE *conf;

static HTABLE *dict(void)
{
    if (!conf)
        conf = htable_create(100);
    return conf;
}

void pfh_config_set(const char *name, const char *value)
{
    HTABLE_INFO *ht = htable_locate(dict(), name);
    if (ht) {
        myfree(ht->value);
        ht->value = mystrdup(value);
    } else {
        htable_enter(dict(), name, mystrdup(value));
    }
}

const char *pfh_config_get(const char *name)
{
    return (const char *)htable_find(dict(), name);
}

const char *mail_conf_lookup(const char *name)
{
    return pfh_config_get(name);
}

/* Values come from qsched streams, which have no $name macros. */
const char *mail_conf_eval(const char *string)
{
    return string;
}

const char *mail_conf_eval_once(const char *string)
{
    return string;
}

const char *mail_conf_lookup_eval(const char *name)
{
    return pfh_config_get(name);
}

void mail_conf_update(const char *name, const char *value)
{
    pfh_config_set(name, value);
}

/* ---- global parameters read by the compiled files (mail_params.c) ---- */

char *var_procname = "qmgr";
char *var_config_dir = "/nonexistent-pfh/etc";
char *var_myhostname = "harness.invalid";
char *var_double_bounce_sender = "double-bounce";
char *var_rcpt_delim = "";
int var_smtputf8_enable = 0;
bool var_helpful_warnings = 1;
int var_daemon_timeout = INT_MAX;
int var_ipc_timeout = INT_MAX;
int var_use_limit;
int var_idle_limit;
int var_in_flow_delay;
int var_proc_limit = 100;
int var_ownreq_special = DEF_OWNREQ_SPECIAL;
char *var_verp_filter = DEF_VERP_FILTER;

/* Referenced by qmgr.c's main loop and its pre-accept hook, which the
 * harness does not run (the driver plays the loop). */
const char *dict_changed_name(void)
{
    return 0;
}

ssize_t mail_flow_count(void)
{
    return 0;
}

ssize_t mail_flow_get(ssize_t count)
{
    return count;
}

ssize_t mail_flow_put(ssize_t count)
{
    return count;
}

/* ---- the daemon skeleton ---- */

static jmp_buf started;
static int starting;

NORETURN trigger_server_main(int argc, char **argv, TRIGGER_SERVER_FN service,
                             ...)
{
    va_list ap;
    int key;
    MAIL_SERVER_INIT_FN pre_init = 0, post_init = 0;
    char *name = (char *)"qmgr";
    char *no_args[] = {0};

    (void)argc;
    (void)argv;
    (void)service;
    if (!starting)
        pfh_internal_error("trigger_server_main called twice");
    va_start(ap, service);
    while ((key = va_arg(ap, int)) != 0) {
        switch (key) {
        case MAIL_SERVER_INT_TABLE:
            get_mail_conf_int_table(va_arg(ap, CONFIG_INT_TABLE *));
            break;
        case MAIL_SERVER_LONG_TABLE:
            get_mail_conf_long_table(va_arg(ap, CONFIG_LONG_TABLE *));
            break;
        case MAIL_SERVER_STR_TABLE:
            get_mail_conf_str_table(va_arg(ap, CONFIG_STR_TABLE *));
            break;
        case MAIL_SERVER_BOOL_TABLE:
            get_mail_conf_bool_table(va_arg(ap, CONFIG_BOOL_TABLE *));
            break;
        case MAIL_SERVER_TIME_TABLE:
            get_mail_conf_time_table(va_arg(ap, CONFIG_TIME_TABLE *));
            break;
        case MAIL_SERVER_PRE_INIT:
            pre_init = va_arg(ap, MAIL_SERVER_INIT_FN);
            break;
        case MAIL_SERVER_POST_INIT:
            post_init = va_arg(ap, MAIL_SERVER_INIT_FN);
            break;
        case MAIL_SERVER_LOOP:
            (void)va_arg(ap, MAIL_SERVER_LOOP_FN);
            break;
        case MAIL_SERVER_EXIT:
            (void)va_arg(ap, MAIL_SERVER_EXIT_FN);
            break;
        case MAIL_SERVER_PRE_ACCEPT:
            (void)va_arg(ap, MAIL_SERVER_ACCEPT_FN);
            break;
        case MAIL_SERVER_WATCHDOG:
            (void)va_arg(ap, int *);
            break;
        case MAIL_SERVER_SOLITARY:
        case MAIL_SERVER_UNLIMITED:
        case MAIL_SERVER_PRIVILEGED:
        case MAIL_SERVER_IN_FLOW_DELAY:
        case MAIL_SERVER_RETIRE_ME:
            break;
        default:
            pfh_internal_error("trigger_server_main: unexpected key %d", key);
        }
    }
    va_end(ap);
    if (pre_init)
        pre_init(name, no_args);
    if (post_init)
        post_init(name, no_args);
    longjmp(started, 1);
}

/* qmgr_pre_init's only work: the fast-flush client (not used by qmgr). */
void flush_init(void)
{
}

extern int pfh_postfix_qmgr_main(int, char **);

void pfh_qmgr_start(void)
{
    static char *argv[] = {(char *)"qmgr", 0};
    /* Postfix's own debugging record of every window change (see top) */
    pfh_config_set(VAR_CONC_FDBACK_DEBUG, "yes");
    starting = 1;
    if (setjmp(started) == 0)
        pfh_postfix_qmgr_main(1, argv);
    starting = 0;
}
