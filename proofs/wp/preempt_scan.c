/*
 * proofs/wp/preempt_scan.c - the WP harness of src/preempt_scan.c.
 *
 * Owns nothing but the two includes: the kernels with their contracts,
 * then the candidate scan itself, in one translation unit, so that WP
 * proves the helpers of preempt_scan.c as they are compiled into qsched
 * (not a copy) against the kernels' contracts.  Which functions are proved
 * and with which provers: proofs/run.sh.
 */
#include "harness.h"
#include "../../src/kernels.c"
#include "../../src/preempt_scan.c"
