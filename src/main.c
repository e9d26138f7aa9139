/*
 * main.c - the qsched executable: hands the command line to cli.c.
 *
 * Owns nothing else.  Kept apart so that libqsched.a and libqsched.so
 * (which hold the parser, the printers and the command line as well as the
 * core) can be linked into other programs, which bring their own main().
 */
#include "cli.h"

/* The process's exit status is the command's (see cli.c for the codes). */
int main(int argc, char **argv)
{
    return qs_cli_main(argc, argv);
}
