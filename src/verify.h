/*
 * verify.h - `qsched verify EVENTS TRACE` as a library call.
 *
 * Owns: the entry point of the trace comparison (src/verify.c), so that
 * the CLI dispatch (cli.c) can call it without verify.c depending on the
 * CLI: the include arrows run from the command line down to the tools,
 * never back up.
 */
#ifndef QSCHED_VERIFY_H
#define QSCHED_VERIFY_H

/* qsched verify EVENTS TRACE: exit status 0 equal, 1 different, 2 bad
 * input (usage, unreadable file, bad stream). */
int qs_verify_main(int argc, char **argv);

#endif
