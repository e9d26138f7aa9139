/*
 * cli.h - entry points of the qsched command line, around the core.
 *
 * Owns: the sub-commands (run, verify, gen) and their option parsing.
 */
#ifndef QSCHED_CLI_H
#define QSCHED_CLI_H

int qs_cli_main(int argc, char **argv);
/* qsched verify EVENTS TRACE (src/verify.c) */
int qs_verify_main(int argc, char **argv);
/* qsched gen --seed N [--profile P] [--size S] (src/gen.c) */
int qs_gen_main(int argc, char **argv);
/* qsched sim [OPTIONS] SCENARIO (src/sim.c) */
int qs_sim_main(int argc, char **argv);

#endif
