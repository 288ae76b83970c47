/*
 * rng.h - a small deterministic generator (xoshiro256**) for tests,
 * benchmarks and development setups, and the OS CSPRNG for proof
 * randomness. The deterministic one is never used where secrecy matters.
 */
#ifndef CUZK_RNG_H
#define CUZK_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct cuzk_rng {
    uint64_t s[4];
} cuzk_rng;

void cuzk_rng_seed(cuzk_rng *g, uint64_t seed);
uint64_t cuzk_rng_u64(cuzk_rng *g);
void cuzk_rng_bytes(cuzk_rng *g, void *out, size_t n);

/* Fills out with n bytes from the OS CSPRNG (getrandom); returns 0 or CUZK_EIO. */
int cuzk_os_random(void *out, size_t n);

#endif
