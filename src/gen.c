/*
 * gen.c - `qsched gen`: placeholder until the generator lands (issue 9).
 */
#include <stdio.h>
#include "cli.h"

int qs_gen_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("qsched gen: not available yet\n", stderr);
    return 2;
}
