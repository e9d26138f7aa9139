/*
 * test_name_scan.c - the parser's name scans (src/events.c skip_class,
 * SKIP_TRANSPORT and SKIP_NAME; issue 16: 16 bytes at a time where SSE2
 * is) against the grammar of spec/events.md, byte value by byte value.
 *
 * Owns: the promise that where a name ends does not depend on how it is
 * scanned.  A transport name is lower-case letters, digits and '-'; a
 * message id, a local part and a next-hop also allow upper case, '.',
 * '_' and '+' (S-EV-4, S-EV-7).  The expected verdicts come from those
 * words, written below as ranges, not from the parser's table.  For every
 * byte value 1..255 and every place 0..39 in a name 40 bytes long (the
 * scan's 16-byte steps: a byte in the first, second and third step, and
 * at the step's edges), an `arrive` line with that byte in that place of
 * the message id, the transport, the local part or the next-hop is fed to
 * a stream whose buffer already holds a longer line (so the one-pass
 * reader, arrive_parse, reads it; test_arrive_fast.c compares that reader
 * with the general path): the line must be accepted exactly when the
 * byte is of the name's class or is a separator that makes another valid
 * line of it, which the expectation below states for each case.  The
 * verdicts alone would not see every bug of the scan: a scan that stops
 * too early hands the line to the general path, which decides it right
 * (only slower).  So the scan is also called directly (scan_direct),
 * every byte value at every place, and must stop exactly where the
 * grammar's class ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qsched.h"
#include "events.h"
#include "check.h"

static int lower(int c) { return c >= 'a' && c <= 'z'; }
static int upper(int c) { return c >= 'A' && c <= 'Z'; }
static int digit(int c) { return c >= '0' && c <= '9'; }
/* the classes of spec/events.md */
static int in_transport(int c) { return lower(c) || digit(c) || c == '-'; }
static int blank(int c) { return c == ' ' || c == '\t'; }
static int in_name(int c)
{
    return in_transport(c) || upper(c) || c == '.' || c == '_' || c == '+';
}

static void sink(void *ctx, const qs_trace *r)
{
    (void)ctx;
    (void)r;
}

static qs_stream *st;
static long serial;

/* The verdict on one line: 1 accepted, 0 refused. */
static int accepted(const char *line, size_t len)
{
    char err[512];
    return qs_stream_line(st, line, len, err, sizeof err) == 0;
}

/* A fresh stream whose buffer holds a 400-byte comment: the lines below
 * are shorter, so the one-pass reader takes them. */
static void open_stream(void)
{
    char first[400];
    qs_stream_free(st);
    st = qs_stream_new("t", sink, NULL);
    memset(first, 'x', sizeof first);
    first[0] = '#';
    qs_stream_line(st, first, sizeof first, NULL, 0);
}

/* qsi_scan_class itself: for both classes, every byte value at every
 * place of a 40-byte name of the class (two bases: a lower-case letter,
 * and for the wide class an upper-case one), then its NUL and padding.
 * The scan must stop at the byte if it is not of the class, else at the
 * NUL.  Returns the number of wrong answers. */
static int scan_direct(void)
{
    char buf[40 + 1 + 16];
    int name, base, c, pos, wrong = 0;
    for (name = 0; name < 2; name++)
        for (base = 0; base <= name; base++)
            for (c = 1; c < 256; c++)
                for (pos = 0; pos < 40; pos++) {
                    int in = name ? in_name(c) : in_transport(c);
                    const char *end;
                    memset(buf, base ? 'Q' : 'q', 40);
                    memset(buf + 40, 0, 17);
                    buf[pos] = (char)c;
                    end = qsi_scan_class(buf, name);
                    if (end != buf + (in ? 40 : pos) && wrong++ < 3)
                        printf("# scan %s: byte 0x%02x at %d: stopped at "
                               "%d\n", name ? "name" : "transport", c, pos,
                               (int)(end - buf));
                }
    return wrong;
}

int main(void)
{
    enum { ID, TRANSPORT, LOCAL, NEXTHOP, PARTS };
    static const char *part_name[PARTS] = {"id", "transport", "local",
                                           "nexthop"};
    int part, c, pos, wrong[PARTS] = {0, 0, 0, 0}, lines = 0, ok_lines = 0;
    char name[48], line[256];
    CHECK_EQ_LL("name-scan/direct", scan_direct(), 0);
    open_stream();
    for (part = 0; part < PARTS; part++) {
        for (c = 1; c < 256; c++) {
            for (pos = 0; pos < 40; pos++) {
                int expect;
                size_t len;
                /* a valid name of 40 bytes of its class, then byte c at
                 * pos */
                memset(name, part == TRANSPORT ? 'q' : 'Q', 40);
                name[40] = 0;
                name[pos] = (char)c;
                switch (part) {
                case ID:
                    /* MSGID must be 1..64 name bytes then a blank: a blank
                     * (or a tab) inside it ends it early, leaving the rest
                     * a group without ':' (refused); at its start it is
                     * one more blank before it (accepted); '#' starts a
                     * comment, leaving no group (refused) */
                    len = (size_t)snprintf(line, sizeof line,
                                           "arrive %s%ld smtp:h.example",
                                           name, ++serial);
                    expect = in_name(c) || (blank(c) && pos == 0);
                    break;
                case TRANSPORT:
                    /* TRANSPORT:...: a ':' at pos > 0 ends the transport
                     * early and leaves a next-hop with a ':' (refused); a
                     * blank first is one more blank before the group
                     * (accepted), later it cuts the group (refused) */
                    len = (size_t)snprintf(line, sizeof line,
                                           "arrive M%ld %s:h.example",
                                           ++serial, name);
                    expect = in_transport(c) || (blank(c) && pos == 0);
                    break;
                case LOCAL:
                    /* LOCAL@NEXTHOP: an '@' inside the local part makes
                     * a next-hop with an '@' (refused); a '#' after its
                     * first byte starts a comment and leaves the group
                     * smtp:QQ.. (accepted) */
                    len = (size_t)snprintf(line, sizeof line,
                                           "arrive M%ld smtp:%s@h.example",
                                           ++serial, name);
                    expect = in_name(c) || (c == '#' && pos > 0);
                    break;
                default:
                    /* NEXTHOP[*COUNT]: '*' at pos > 0 starts a count
                     * ("*QQ..." is not one: refused); '@' at 1..38 makes
                     * a local part of the bytes before it and a next-hop
                     * of those after: accepted (both 1..64, 1..200); a
                     * '#' after the first byte ends the line, a blank
                     * last ends the group, and a CR last ends the line
                     * (CRLF: accepted) */
                    len = (size_t)snprintf(line, sizeof line,
                                           "arrive M%ld smtp:%s", ++serial,
                                           name);
                    expect = in_name(c) || (c == '@' && pos > 0 && pos < 39) ||
                             (c == '#' && pos > 0) ||
                             ((blank(c) || c == '\r') && pos == 39);
                    break;
                }
                /* a NUL byte in the line is refused whatever the part */
                lines++;
                if (accepted(line, len) != expect) {
                    if (wrong[part]++ < 3)
                        printf("# %s: byte 0x%02x at %d: %s\n",
                               part_name[part], c, pos,
                               expect ? "refused" : "accepted");
                } else if (expect) {
                    ok_lines++;
                }
                /* a refused line leaves the stream as it was; every 2,000
                 * lines a new one, so the scheduler stays small */
                if (serial % 2000 == 0)
                    open_stream();
            }
        }
    }
    CHECK_EQ_LL("name-scan/id", wrong[ID], 0);
    CHECK_EQ_LL("name-scan/transport", wrong[TRANSPORT], 0);
    CHECK_EQ_LL("name-scan/local", wrong[LOCAL], 0);
    CHECK_EQ_LL("name-scan/nexthop", wrong[NEXTHOP], 0);
    /* accepted lines: per place, the class's bytes (id, local, nexthop:
     * 26 + 26 + 10 + 4 = 66; transport: 26 + 10 + 1 = 37), and the
     * separators' cases above: a reader that refused everything, or
     * accepted everything, cannot pass */
    CHECK_EQ_LL("name-scan/accepted-count", ok_lines,
                40 * 66 + 2 +            /* id: blank, tab first */
                    40 * 37 + 2 +        /* transport: the same */
                    40 * 66 + 39 +       /* local: '#' at 1..39 */
                    40 * 66 + 38 + 39 + 3); /* next-hop: '@', '#', last */
    CHECK_EQ_LL("name-scan/lines", lines, 4 * 255 * 40);
    qs_stream_free(st);
    printf("# %d checks, %d failed\n", check_count, check_failures);
    return check_failures != 0;
}
