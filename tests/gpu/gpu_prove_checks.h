/*
 * gpu_prove_checks.h - the GPU prover's checks (gpu_prove_checks.c), run
 * by test_gpu after the kernel checks.
 */
#ifndef CUZK_TESTS_GPU_PROVE_CHECKS_H
#define CUZK_TESTS_GPU_PROVE_CHECKS_H

#include "cuzk/rng.h"

/* Returns the number of failed checks; quick: small sizes only. */
int gpu_prove_checks(cuzk_rng *g, int quick);
/* With two devices or more: proofs on every device at once and the
 * engine over all of them (the number of failed checks; 0 and a note with
 * one device). */
int gpu_prove_device_checks(cuzk_rng *g);

#endif
