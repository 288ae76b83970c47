/*
 * gpu_setup_checks.h - the GPU setup's checks (gpu_setup_checks.c), run by
 * test_gpu on a device and by test_gpu_setup_host on the stand-in runtime.
 */
#ifndef CUZK_TESTS_GPU_SETUP_CHECKS_H
#define CUZK_TESTS_GPU_SETUP_CHECKS_H

#include "cuzk/rng.h"

/* Returns the number of failed checks; quick: small sizes only. */
int gpu_setup_checks(cuzk_rng *g, int quick);

#endif
