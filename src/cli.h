/*
 * cli.h - entry points of the qsched command line, around the core.
 *
 * Owns: the sub-commands (run, verify, gen) and their option parsing.
 */
#ifndef QSCHED_CLI_H
#define QSCHED_CLI_H

#include "gen.h"     /* qs_gen_main: qsched gen (src/gen.c) */
#include "verify.h"  /* qs_verify_main: qsched verify (src/verify.c) */

int qs_cli_main(int argc, char **argv);

#endif
