/*
 * proofs/wp/select.c - the WP harness of src/select.c.
 *
 * Owns nothing but the two includes: the kernels with their contracts,
 * then the select scheduler itself, in one translation unit, so that
 * WP proves the helpers of select.c as they are compiled into qsched
 * (not a copy) against the kernels' contracts.  Which functions are proved
 * and with which provers: proofs/run.sh.
 */
#include "harness.h"
#include "../../src/kernels.c"
#include "../../src/select.c"
