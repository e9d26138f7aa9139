/*
 * cli.h - entry points of the qsched command line, around the core.
 *
 * Owns: the executable's entry point and the sub-commands' entry points (run, verify, gen, conformance, sim)
 * that cli.c dispatches to (each takes its own argv, argv[0] being the
 * sub-command's name, and returns the process's exit status).  Nothing
 * below the command line includes this header.
 */
#ifndef QSCHED_CLI_H
#define QSCHED_CLI_H

#include "gen.h"     /* qs_gen_main: qsched gen (src/gen.c) */
#include "verify.h"  /* qs_verify_main: qsched verify (src/verify.c) */
#include "sim.h"     /* qs_sim_main: qsched sim (src/sim.c) */

/* qsched [OPTIONS] [FILE] and every sub-command (src/cli.c) */
int qs_cli_main(int argc, char **argv);

#endif
