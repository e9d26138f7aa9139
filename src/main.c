/*
 * main.c - the qsched executable: hands the command line to cli.c.
 * Kept apart so that libqsched.a can be linked into other programs.
 */
#include "cli.h"

int main(int argc, char **argv)
{
    return qs_cli_main(argc, argv);
}
