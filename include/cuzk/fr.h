/*
 * fr.h - the BLS12-381 scalar field Fr (255-bit r, 4 x 64-bit limbs).
 *
 * Elements are kept in Montgomery form (a R mod r, R = 2^256). All
 * operations accept aliased arguments (r may be a or b). Byte conversions
 * use the canonical value (not Montgomery form); decoders reject values
 * >= r. fp.h has the same API for the base field.
 */
#ifndef CUZK_FR_H
#define CUZK_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/rng.h"

#define FR_LIMBS 4
#define FR_BYTES 32

typedef struct fr_t {
    uint64_t l[FR_LIMBS];
} fr_t;

extern const fr_t FR_ZERO;
extern const fr_t FR_ONE; /* Montgomery form of 1 */
extern const uint64_t FR_MODULUS[FR_LIMBS];

void fr_add(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sub(fr_t *r, const fr_t *a, const fr_t *b);
void fr_dbl(fr_t *r, const fr_t *a);
void fr_neg(fr_t *r, const fr_t *a);
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *r, const fr_t *a);
/* r = a^e, e given as n little-endian 64-bit limbs (variable time in e). */
void fr_pow(fr_t *r, const fr_t *a, const uint64_t *e, size_t n);
/* r = 1/a; returns false (and r = 0) when a = 0. Variable time in a
 * (binary GCD, src/ff/inv.h); fr_pow with r - 2 is the constant-time one. */
bool fr_inv(fr_t *r, const fr_t *a);
/* out[i] = 1/in[i] with one inversion (Montgomery's trick); zeros stay zero.
 * out may equal in. */
void fr_batch_inv(fr_t *out, const fr_t *in, size_t n);
/* r = a square root of a (either one); returns false if a is a non-residue. */
bool fr_sqrt(fr_t *r, const fr_t *a);
/* 1 for a non-zero square, -1 for a non-residue, 0 for zero. */
int fr_legendre(const fr_t *a);

bool fr_is_zero(const fr_t *a);
bool fr_is_one(const fr_t *a);
bool fr_eq(const fr_t *a, const fr_t *b);
/* true when the canonical value of a is > (r-1)/2 (the ZCash sign bit). */
bool fr_is_lexicographically_largest(const fr_t *a);

void fr_from_u64(fr_t *r, uint64_t v);
/* Canonical little-endian limbs <-> Montgomery form; from_ returns false if >= r. */
bool fr_from_canonical(fr_t *r, const uint64_t in[FR_LIMBS]);
void fr_to_canonical(uint64_t out[FR_LIMBS], const fr_t *a);
bool fr_from_bytes_be(fr_t *r, const uint8_t in[FR_BYTES]);
void fr_to_bytes_be(uint8_t out[FR_BYTES], const fr_t *a);
bool fr_from_bytes_le(fr_t *r, const uint8_t in[FR_BYTES]);
void fr_to_bytes_le(uint8_t out[FR_BYTES], const fr_t *a);
/* Uniformly random element (rejection sampling). */
void fr_random(fr_t *r, cuzk_rng *g);

/* The portable (__int128) multiplication, always available; fr_mul
 * dispatches to the mulx/adx one when the CPU has it. Exposed for tests. */
void fr_mul_portable(fr_t *r, const fr_t *a, const fr_t *b);

#if defined(__x86_64__) && defined(__GNUC__)
/* The mulx/adcx/adox multiplication (x86-64 builds only); call it only when
 * cuzk_cpu_has_adx(). Exposed for tests. */
void fr_mul_adx(fr_t *r, const fr_t *a, const fr_t *b);
#endif

#endif
