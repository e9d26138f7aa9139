/*
 * proofs/wp/preempt.c - the WP harness of src/preempt.c.
 *
 * Owns nothing but the two includes: the kernels with their contracts,
 * then the preempt scheduler itself, in one translation unit, so that
 * WP proves the helpers of preempt.c as they are compiled into qsched
 * (not a copy) against the kernels' contracts.  Which functions are proved
 * and with which provers: proofs/run.sh.
 */
#include "harness.h"
#include "../../src/kernels.c"
#include "../../src/preempt.c"
