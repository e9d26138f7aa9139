/*
 * proofs/wp/candidates.c - the WP harness of src/candidates.c.
 *
 * Owns nothing but the includes: the kernels with their contracts, then
 * the candidate index itself, in one translation unit, so that WP proves
 * cix_consider (contract in src/candidates_contracts.h) as it is compiled
 * into qsched, and with it the kernels' preconditions at its two calls.
 * Which functions are proved and with which provers: proofs/run.sh.
 */
#include "harness.h"
#include "../../src/kernels.c"
#include "../../src/candidates.c"
