/*
 * pfh-queue.c - the mail queue on disk, held in memory; the resolver.
 *
 * Owns: queue files (writing them, mail_queue_open, mail_queue_rename,
 * mail_queue_remove, mail_queue_path, mail_open_ok, myflock), queue
 * directory scans (scan_dir_open, mail_scan_dir_next, scan_dir_close) and
 * the address resolver client (resolve_clnt_*, rewrite_clnt_internal).
 * Replaces: global/mail_queue.c, global/mail_open_ok.c, util/myflock.c,
 * util/scan_dir.c, global/mail_scan_dir.c, global/resolve_clnt.c,
 * global/rewrite_clnt.c (which talk to the file system and to the
 * trivial-rewrite daemon).
 *
 * Why faithful:
 *  - A queue file is written as the cleanup daemon writes one: a size
 *    record (data size, data offset, recipient count, flags 0, content
 *    length), the arrival time, the sender, one RCPT record per recipient
 *    in the order the `arrive` line names them (S-EV-7), the message
 *    content, the extracted segment and the end record.  It is written and
 *    read with Postfix's own record routines (global/record.c), and the
 *    queue manager reads it from a memory VSTREAM with its own code
 *    (qmgr_message.c: batching, the 5000 cap, sorting, resolving,
 *    assigning), exactly as it reads a file.
 *  - The incoming queue is a FIFO: a queue scan returns the files that are
 *    in the queue when it starts, oldest first.  (Postfix's directory order
 *    is the file system's; qsched's model is a FIFO, S-MEM-2.)
 *  - Renaming a file into the deferred (or corrupt) queue takes it out of
 *    the model, as qsched's deferred recipients leave it.
 *  - The resolver answers each address with the transport and next-hop the
 *    stream gave it, and the address itself as the recipient.  An address
 *    is resolved the same way wherever it appears in one message; a stream
 *    that gives one address two transports in one message has no Postfix
 *    counterpart and is refused by the driver as inexpressible.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <fcntl.h>
#include "pfh.h"
#include <mail_queue.h>
#include <mail_open_ok.h>
#include <record.h>
#include <rec_type.h>
#include <scan_dir.h>
#include <mail_scan_dir.h>
#include <resolve_clnt.h>
#include <rewrite_clnt.h>
#include <myflock.h>

typedef struct PFH_QFILE {
    char *id;
    char *queue;                /* incoming, active */
    VSTRING *data;
    time_t created;
    HTABLE *resolve;            /* address -> PFH_RCPT (transport, next-hop) */
    PFH_RCPT *rcpt;
    size_t nrcpt;
    long seq;                   /* creation order: the FIFO */
    struct PFH_QFILE *next;
} PFH_QFILE;

static PFH_QFILE *qfiles;
static long qfile_seq;
static PFH_QFILE *reading;      /* the file of the batch being read */
void (*pfh_on_batch_start)(void);

static PFH_QFILE *qfile_find(const char *queue, const char *id)
{
    PFH_QFILE *f;
    for (f = qfiles; f; f = f->next)
        if (strcmp(f->id, id) == 0 && (!queue || strcmp(f->queue, queue) == 0))
            return f;
    return 0;
}

static void qfile_free(PFH_QFILE *f)
{
    PFH_QFILE **pp;
    size_t i;
    for (pp = &qfiles; *pp; pp = &(*pp)->next)
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    if (reading == f)
        reading = 0;
    myfree(f->id);
    myfree(f->queue);
    vstring_free(f->data);
    htable_free(f->resolve, (void (*)(void *))0);
    for (i = 0; i < f->nrcpt; i++)
        myfree(f->rcpt[i].address);
    myfree((void *)f->rcpt);
    myfree((void *)f);
}

/* One pass of writing the file; offsets are known after the first pass
 * because every number in the size and message records has a fixed
 * width. */
static void qfile_write(PFH_QFILE *f, long data_size, long data_offset,
                        long *got_data_offset, long *got_xtra_offset)
{
    VSTREAM *fp;
    size_t i;
    static const char content[] = "Subject: qsched differential test";
    VSTRING_RESET(f->data);
    fp = vstream_memopen(f->data, O_WRONLY);
    rec_fprintf(fp, REC_TYPE_SIZE, REC_TYPE_SIZE_FORMAT, data_size,
                data_offset, (long)f->nrcpt, 0L, (long)sizeof content - 1,
                0L);
    rec_fprintf(fp, REC_TYPE_TIME, REC_TYPE_TIME_FORMAT, (long)f->created,
                0L);
    rec_fputs(fp, REC_TYPE_FROM, "sender@harness.invalid");
    for (i = 0; i < f->nrcpt; i++)
        rec_fputs(fp, REC_TYPE_RCPT, f->rcpt[i].address);
    rec_fputs(fp, REC_TYPE_MESG, "");
    *got_data_offset = vstream_ftell(fp);
    rec_fputs(fp, REC_TYPE_NORM, content);
    *got_xtra_offset = vstream_ftell(fp);
    rec_fputs(fp, REC_TYPE_XTRA, "");
    rec_fputs(fp, REC_TYPE_END, "");
    if (vstream_fclose(fp) != 0)
        pfh_internal_error("cannot write queue file %s", f->id);
}

int pfh_queue_file_create(const char *id, const PFH_RCPT *rcpt, size_t nrcpt)
{
    PFH_QFILE *f;
    size_t i;
    long doff, xoff, doff2, xoff2;
    if (qfile_find(0, id))
        return -1;
    f = (PFH_QFILE *)mymalloc(sizeof *f);
    f->id = mystrdup(id);
    f->queue = mystrdup(MAIL_QUEUE_INCOMING);
    f->data = vstring_alloc(100 + 30 * nrcpt);
    f->created = pfh_now;
    f->resolve = htable_create(nrcpt < 64 ? 64 : (ssize_t)nrcpt);
    f->rcpt = (PFH_RCPT *)mymalloc(sizeof *f->rcpt * (nrcpt ? nrcpt : 1));
    f->nrcpt = nrcpt;
    f->seq = ++qfile_seq;
    for (i = 0; i < nrcpt; i++) {
        f->rcpt[i] = rcpt[i];
        f->rcpt[i].address = mystrdup(rcpt[i].address);
        if (!htable_find(f->resolve, f->rcpt[i].address))
            htable_enter(f->resolve, f->rcpt[i].address, &f->rcpt[i]);
    }
    qfile_write(f, 0, 0, &doff, &xoff);
    qfile_write(f, xoff - doff, doff, &doff2, &xoff2);
    if (doff2 != doff || xoff2 != xoff)
        pfh_internal_error("queue file layout is not stable");
    f->next = qfiles;
    qfiles = f;
    return 0;
}

/* ---- mail_queue.h ---- */

VSTREAM *mail_queue_open(const char *queue, const char *id, int flags,
                         mode_t mode)
{
    PFH_QFILE *f = qfile_find(queue, id);
    (void)flags;
    (void)mode;
    if (!f) {
        errno = ENOENT;
        return 0;
    }
    reading = f;
    if (pfh_on_batch_start)
        pfh_on_batch_start();
    return vstream_memopen(f->data, O_RDONLY);
}

int mail_queue_rename(const char *id, const char *old_queue,
                      const char *new_queue)
{
    PFH_QFILE *f = qfile_find(old_queue, id);
    if (!f) {
        errno = ENOENT;
        return -1;
    }
    if (strcmp(new_queue, MAIL_QUEUE_INCOMING) == 0 ||
        strcmp(new_queue, MAIL_QUEUE_ACTIVE) == 0) {
        myfree(f->queue);
        f->queue = mystrdup(new_queue);
    } else {
        qfile_free(f);          /* deferred, corrupt: out of the model */
    }
    return 0;
}

int mail_queue_remove(const char *queue, const char *id)
{
    PFH_QFILE *f = qfile_find(queue, id);
    if (!f) {
        errno = ENOENT;
        return -1;
    }
    qfile_free(f);
    return 0;
}

/* A path where nothing exists: stat() and utime() on it fail with ENOENT,
 * which is what the queue manager expects of bounce and defer logs that
 * nobody wrote. */
const char *mail_queue_path(VSTRING *buf, const char *queue, const char *id)
{
    static VSTRING *own;
    if (!buf) {
        if (!own)
            own = vstring_alloc(100);
        buf = own;
    }
    vstring_sprintf(buf, "/nonexistent-pfh/%s/%s", queue, id);
    return vstring_str(buf);
}

int mail_queue_id_ok(const char *id)
{
    return *id != 0;
}

int mail_queue_name_ok(const char *name)
{
    return *name != 0;
}

int mail_open_ok(const char *queue, const char *id, struct stat *st,
                 const char **path)
{
    PFH_QFILE *f = qfile_find(queue, id);
    *path = mail_queue_path((VSTRING *)0, queue, id);
    if (!f)
        return MAIL_OPEN_NO;
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFREG | MAIL_QUEUE_STAT_READY;
    st->st_nlink = 1;
    st->st_mtime = st->st_ctime = st->st_atime = f->created;
    st->st_size = (off_t)VSTRING_LEN(f->data);
    return MAIL_OPEN_YES;
}

int myflock(int fd, int lock_style, int operation)
{
    (void)fd;
    (void)lock_style;
    (void)operation;
    return 0;
}

/* ---- queue scans ---- */

struct SCAN_DIR {
    char **ids;
    size_t n, next;
    char *queue;
};

static int by_seq(const void *a, const void *b)
{
    const PFH_QFILE *x = *(PFH_QFILE *const *)a, *y = *(PFH_QFILE *const *)b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

SCAN_DIR *scan_dir_open(const char *path)
{
    SCAN_DIR *s = (SCAN_DIR *)mymalloc(sizeof *s);
    PFH_QFILE *f, **v;
    size_t n = 0, i;
    for (f = qfiles; f; f = f->next)
        if (strcmp(f->queue, path) == 0)
            n++;
    v = (PFH_QFILE **)mymalloc(sizeof *v * (n ? n : 1));
    for (n = 0, f = qfiles; f; f = f->next)
        if (strcmp(f->queue, path) == 0)
            v[n++] = f;
    qsort(v, n, sizeof *v, by_seq);
    s->ids = (char **)mymalloc(sizeof *s->ids * (n ? n : 1));
    for (i = 0; i < n; i++)
        s->ids[i] = mystrdup(v[i]->id);
    myfree((void *)v);
    s->n = n;
    s->next = 0;
    s->queue = mystrdup(path);
    return s;
}

char *mail_scan_dir_next(SCAN_DIR *s)
{
    while (s->next < s->n) {
        char *id = s->ids[s->next++];
        if (qfile_find(s->queue, id))
            return id;
    }
    return 0;
}

SCAN_DIR *scan_dir_close(SCAN_DIR *s)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        myfree(s->ids[i]);
    myfree((void *)s->ids);
    myfree(s->queue);
    myfree((void *)s);
    return 0;
}

/* ---- the resolver ---- */

void resolve_clnt_init(RESOLVE_REPLY *reply)
{
    reply->transport = vstring_alloc(100);
    reply->nexthop = vstring_alloc(100);
    reply->recipient = vstring_alloc(100);
    reply->flags = 0;
}

void resolve_clnt_free(RESOLVE_REPLY *reply)
{
    vstring_free(reply->transport);
    vstring_free(reply->nexthop);
    vstring_free(reply->recipient);
}

void resolve_clnt(const char *class, const char *sender, const char *addr,
                  RESOLVE_REPLY *reply)
{
    PFH_RCPT *r;
    (void)class;
    (void)sender;
    if (!reading || (r = (PFH_RCPT *)htable_find(reading->resolve, addr)) == 0)
        pfh_internal_error("resolve: unknown address %s", addr);
    vstring_strcpy(reply->transport, r->transport);
    vstring_strcpy(reply->nexthop, r->nexthop);
    vstring_strcpy(reply->recipient, addr);
    reply->flags = RESOLVE_CLASS_DEFAULT;
}

VSTRING *rewrite_clnt_internal(const char *ruleset, const char *addr,
                               VSTRING *result)
{
    (void)ruleset;
    (void)result;
    pfh_internal_error("address rewriting requested for %s", addr);
}
