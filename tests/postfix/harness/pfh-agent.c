/*
 * pfh-agent.c - delivery agents, as the queue manager sees them.
 *
 * Owns: the connection to a delivery agent (mail_connect), the agent's two
 * messages (the "ready" announcement and the final status), and the I/O
 * helpers the queue manager applies to the connection (peekfd,
 * non_blocking).  Replaces: global/mail_connect.c (a UNIX-domain socket to
 * the master's service), util/peekfd.c and util/non_blocking.c (ioctl and
 * fcntl on that socket), and the delivery agent processes themselves.
 *
 * Why faithful: the queue manager talks to an agent through a VSTREAM with
 * Postfix's attribute protocol.  Here the VSTREAM is real (util/vstream.c)
 * but its read and write functions are the harness's: what the queue
 * manager writes (the delivery request, attr_print of qmgr_deliver.c) is
 * accepted and dropped; what it reads is what a real agent writes,
 * produced with Postfix's own attr_print and dsn_print:
 *  - "ready": the protocol name, as deliver_request.c sends it;
 *  - the final status: a DSN and a status code, as deliver_request.c sends
 *    it.  `ok` is status 0 with an empty DSN; `defer` (recipients deferred
 *    without a problem with the site) is a non-zero status with an empty
 *    DSN; `fail` (connection or handshake failure, S-EV-9) is a non-zero
 *    status with a 4.4.1 DSN naming the site, which is what makes
 *    qmgr_deliver.c apply negative feedback.
 * File descriptors are numbers no real file can have; nothing is opened.
 */
#include <errno.h>
#include <fcntl.h>
#include "pfh.h"
#include <attr.h>
#include <iostuff.h>
#include <mail_proto.h>
#include <dsn_print.h>

#define PFH_FD_BASE (1 << 24)

struct PFH_CONN {
    int fd;
    VSTRING *in;        /* written by the agent, not yet read by qmgr */
    ssize_t in_pos;
    struct PFH_CONN *next;
};

static PFH_CONN *conns;
static int conn_seq;
PFH_CONN *pfh_conn_last;

static PFH_CONN *conn_find(int fd)
{
    PFH_CONN *c;
    for (c = conns; c; c = c->next)
        if (c->fd == fd)
            return c;
    return 0;
}

int pfh_conn_fd(const PFH_CONN *conn)
{
    return conn->fd;
}

static ssize_t conn_read(int fd, void *buf, size_t len, int timeout,
                         void *context)
{
    PFH_CONN *c = conn_find(fd);
    ssize_t avail;
    (void)timeout;
    (void)context;
    if (!c) {
        errno = EBADF;
        return -1;
    }
    avail = (ssize_t)VSTRING_LEN(c->in) - c->in_pos;
    if (avail <= 0)
        return 0;               /* the agent has nothing more to say */
    if ((size_t)avail > len)
        avail = (ssize_t)len;
    memcpy(buf, vstring_str(c->in) + c->in_pos, (size_t)avail);
    c->in_pos += avail;
    return avail;
}

/* The delivery request goes to the agent, which needs nothing from it. */
static ssize_t conn_write(int fd, void *buf, size_t len, int timeout,
                          void *context)
{
    (void)buf;
    (void)timeout;
    (void)context;
    if (!conn_find(fd)) {
        errno = EBADF;
        return -1;
    }
    return (ssize_t)len;
}

VSTREAM *mail_connect(const char *class, const char *name, int block_mode)
{
    PFH_CONN *c = (PFH_CONN *)mymalloc(sizeof *c);
    VSTREAM *stream;
    (void)class;
    (void)block_mode;
    c->fd = PFH_FD_BASE + ++conn_seq;
    c->in = vstring_alloc(100);
    c->in_pos = 0;
    c->next = conns;
    conns = c;
    stream = vstream_fdopen(c->fd, O_RDWR);
    vstream_control(stream, CA_VSTREAM_CTL_READ_FN(conn_read),
                    CA_VSTREAM_CTL_WRITE_FN(conn_write),
                    CA_VSTREAM_CTL_PATH(name), CA_VSTREAM_CTL_END);
    pfh_conn_last = c;
    return stream;
}

void pfh_conn_free(PFH_CONN *conn)
{
    PFH_CONN **pp;
    for (pp = &conns; *pp; pp = &(*pp)->next)
        if (*pp == conn) {
            *pp = conn->next;
            break;
        }
    vstring_free(conn->in);
    myfree((void *)conn);
}

ssize_t peekfd(int fd)
{
    PFH_CONN *c = conn_find(fd);
    if (!c) {
        errno = EBADF;
        return -1;
    }
    return (ssize_t)VSTRING_LEN(c->in) - c->in_pos;
}

int non_blocking(int fd, int on)
{
    (void)fd;
    (void)on;
    return 0;
}

/* ---- what the agent writes ---- */

static void agent_write(PFH_CONN *conn, VSTRING *msg)
{
    vstring_memcat(conn->in, vstring_str(msg), VSTRING_LEN(msg));
    VSTRING_TERMINATE(conn->in);
}

void pfh_agent_send_ready(PFH_CONN *conn)
{
    VSTRING *msg = vstring_alloc(100);
    VSTREAM *fp = vstream_memopen(msg, O_WRONLY);
    attr_print(fp, ATTR_FLAG_NONE,
               SEND_ATTR_STR(MAIL_ATTR_PROTO, MAIL_ATTR_PROTO_DELIVER),
               ATTR_TYPE_END);
    vstream_fclose(fp);
    agent_write(conn, msg);
    vstring_free(msg);
}

void pfh_agent_send_status(PFH_CONN *conn, enum pfh_outcome outcome,
                           const char *site)
{
    VSTRING *msg = vstring_alloc(100), *why = vstring_alloc(100);
    VSTREAM *fp = vstream_memopen(msg, O_WRONLY);
    DSN dsn;
    int status = outcome == PFH_OK ? 0 : 1;
    memset(&dsn, 0, sizeof dsn);
    dsn.status = dsn.action = dsn.reason = "";
    dsn.dtype = dsn.dtext = dsn.mtype = dsn.mname = "";
    if (outcome == PFH_FAIL) {
        vstring_sprintf(why, "connect to %s: Connection refused", site);
        dsn.status = "4.4.1";
        dsn.action = "delayed";
        dsn.reason = vstring_str(why);
    }
    attr_print(fp, ATTR_FLAG_NONE,
               SEND_ATTR_FUNC(dsn_print, (const void *)&dsn),
               SEND_ATTR_INT(MAIL_ATTR_STATUS, status), ATTR_TYPE_END);
    vstream_fclose(fp);
    agent_write(conn, msg);
    vstring_free(msg);
    vstring_free(why);
}
