/*
 * gpu_prove_checks.h - the GPU prover's checks (gpu_prove_checks.c), run
 * by test_gpu after the kernel checks.
 */
#ifndef CUZK_TESTS_GPU_PROVE_CHECKS_H
#define CUZK_TESTS_GPU_PROVE_CHECKS_H

#include <stdint.h>

#include "cuzk/engine_provider.h"
#include "cuzk/rng.h"

/* Returns the number of failed checks; quick: small sizes only. */
int gpu_prove_checks(cuzk_rng *g, int quick);
/* With two devices or more: proofs on every device at once and the
 * engine over all of them (the number of failed checks; 0 and a note with
 * one device). */
int gpu_prove_device_checks(cuzk_rng *g);
/* A request of the engine's test family (engine_provider.h) for
 * `partitions` circuits of `constraints`, from seed, none of them bad
 * (also used by test_gpu_prove_host). */
void gpu_check_test_record(uint8_t rec[ENGINE_TEST_RECORD_BYTES], uint32_t constraints,
                           uint32_t partitions, uint32_t seed);

#endif
