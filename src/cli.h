/*
 * cli.h - entry points of the qsched command line, around the core.
 *
 * Owns: the executable's entry point and the sub-commands' entry points
 * that cli.c dispatches to (each takes its own argv, argv[0] being the
 * sub-command's name, and returns the process's exit status).  Nothing
 * below the command line includes this header.
 */
#ifndef QSCHED_CLI_H
#define QSCHED_CLI_H

/* qsched [OPTIONS] [FILE] and every sub-command (src/cli.c) */
int qs_cli_main(int argc, char **argv);
/* qsched verify EVENTS TRACE (src/verify.c) */
int qs_verify_main(int argc, char **argv);
/* qsched gen --seed N [--profile P] [--size S] (src/gen.c) */
int qs_gen_main(int argc, char **argv);

#endif
