/*
 * wasm-stubs.c - what the playground's WebAssembly build of qsched
 * (docs/playground/playground.mk) has instead of the parts of the command
 * that need an operating system it does not have.
 *
 * Owns: `qsched conformance`, which runs another implementation as a
 * child process (fork, exec, signals: src/conformance.c) - WASI has no
 * processes, so the WebAssembly build says so and exits 2.  Everything
 * else (the core, the parser, the printers, the viewer's data, verify,
 * gen, sim) is compiled from the same sources as build/qsched, and
 * tests/sh/teach-wasm.sh checks that it prints the same bytes.
 */
#include <stdio.h>
#include "conformance.h"

int qs_conformance_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("qsched: conformance needs child processes, which the "
          "WebAssembly build does not have; use the native qsched\n",
          stderr);
    return 2;
}
