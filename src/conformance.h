/*
 * conformance.h - `qsched conformance`: the conformance runner, around the
 * core (src/conformance.c; docs/implementers.md).
 *
 * Owns: the entry point of the sub-command and the places it looks for the
 * suite.  The runner is not part of the core: it starts other programs and
 * compares their output with the suite's expected traces.
 */
#ifndef QSCHED_CONFORMANCE_H
#define QSCHED_CONFORMANCE_H

/* Where `make install` puts the suite (set by the Makefile to
 * $(DATADIR)/qsched/conformance); only the last place looked at, after the
 * ones relative to the executable (see conformance.c, find_suite). */
#ifndef QSCHED_CONFORMANCE_DIR
#define QSCHED_CONFORMANCE_DIR "/usr/local/share/qsched/conformance"
#endif

/* qsched conformance --impl CMD [--input stdin|path] [--profile P]
 *   [--junit FILE] [--tap] [--suite DIR] [--timeout S] [-q] [VECTOR...]
 * Exit: 0 every vector passed, 1 some failed, 2 bad command line or no
 * suite, 4 a report could not be written. */
int qs_conformance_main(int argc, char **argv);

#endif
