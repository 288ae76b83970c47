/*
 * gpu_lane_checks.h - the small-circuit lane's checks (gpu_lane_checks.c),
 * run by test_gpu on a device and by test_gpu_prove_host on the stand-in.
 */
#ifndef CUZK_TESTS_GPU_LANE_CHECKS_H
#define CUZK_TESTS_GPU_LANE_CHECKS_H

#include "cuzk/rng.h"

/* Returns the number of failed checks. Device 0's lane is set up and
 * released again. */
int gpu_lane_checks(cuzk_rng *g);

#endif
