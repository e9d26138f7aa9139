/*
 * pfh-main.c - the command line of pfqmgr: runs an event stream (a file
 * or stdin) through Postfix's queue manager and prints Postfix's
 * decisions as a qsched trace (tests/postfix/README.md).
 *
 * usage: pfqmgr [--debug|--verbose] [--state] [--version] [FILE]
 * --debug copies Postfix's log and the events to stderr; --verbose also
 * turns on Postfix's verbose logging (msg_verbose); --state prints
 * Postfix's accounting after every event as "# " lines, in the format of
 * tests/postfix/qstate.c.  Exit statuses: see pfh.h.
 */
#include <stdlib.h>
#include "pfh.h"
#include <mail_version.h>

#ifndef PFH_DEBIAN_VERSION
#define PFH_DEBIAN_VERSION "unknown"
#endif

int main(int argc, char **argv)
{
    FILE *in = stdin;
    char *buf = 0;
    size_t cap = 0;
    ssize_t n;
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--debug") == 0) {
            pfh_debug = 1;
        } else if (strcmp(argv[i], "--state") == 0) {
            pfh_set_state_mode(1);      /* see tests/postfix/qstate.c */
        } else if (strcmp(argv[i], "--verbose") == 0) {
            pfh_debug = 1;
            msg_verbose = 1;    /* Postfix's own verbose logging */
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("Postfix %s (Debian source package postfix %s), "
                   "src/qmgr compiled unchanged\n", DEF_MAIL_VERSION,
                   PFH_DEBIAN_VERSION);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "usage: pfqmgr [--debug|--verbose] [--state] "
                    "[--version] [FILE]\n");
            return PFH_EXIT_INPUT;
        } else {
            pfh_set_stream_name(argv[i]);
            if (strcmp(argv[i], "-") != 0 && (in = fopen(argv[i], "r")) == 0) {
                fprintf(stderr, "pfqmgr: cannot open %s\n", argv[i]);
                return PFH_EXIT_INPUT;
            }
        }
    }
    while ((n = getline(&buf, &cap, in)) >= 0) {
        if (n && buf[n - 1] == '\n')
            buf[n - 1] = 0;
        pfh_line(buf);
    }
    if (ferror(in)) {
        fprintf(stderr, "pfqmgr: read error\n");
        return PFH_EXIT_INPUT;
    }
    free(buf);
    pfh_end();
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pfqmgr: write error\n");
        return PFH_EXIT_INPUT;
    }
    return PFH_EXIT_OK;
}
