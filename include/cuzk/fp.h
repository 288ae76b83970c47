/*
 * fp.h - the BLS12-381 base field Fp (381-bit p, 6 x 64-bit limbs).
 *
 * Elements are kept in Montgomery form (a R mod p, R = 2^384). All
 * operations accept aliased arguments (r may be a or b). Byte conversions
 * use the canonical value (not Montgomery form); decoders reject values
 * >= p. fr.h has the same API for the scalar field.
 */
#ifndef CUZK_FP_H
#define CUZK_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/rng.h"

#define FP_LIMBS 6
#define FP_BYTES 48

typedef struct fp_t {
    uint64_t l[FP_LIMBS];
} fp_t;

extern const fp_t FP_ZERO;
extern const fp_t FP_ONE; /* Montgomery form of 1 */
extern const uint64_t FP_MODULUS[FP_LIMBS];

void fp_add(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sub(fp_t *r, const fp_t *a, const fp_t *b);
void fp_dbl(fp_t *r, const fp_t *a);
void fp_neg(fp_t *r, const fp_t *a);
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *r, const fp_t *a);
/* r = a^e, e given as n little-endian 64-bit limbs (variable time in e). */
void fp_pow(fp_t *r, const fp_t *a, const uint64_t *e, size_t n);
/* r = 1/a; returns false (and r = 0) when a = 0. Variable time in a
 * (binary GCD, src/ff/inv.h); fp_pow with p - 2 is the constant-time one. */
bool fp_inv(fp_t *r, const fp_t *a);
/* out[i] = 1/in[i] with one inversion (Montgomery's trick); zeros stay zero.
 * out may equal in. */
void fp_batch_inv(fp_t *out, const fp_t *in, size_t n);
/* r = a square root of a (either one); returns false if a is a non-residue. */
bool fp_sqrt(fp_t *r, const fp_t *a);
/* 1 for a non-zero square, -1 for a non-residue, 0 for zero. */
int fp_legendre(const fp_t *a);

bool fp_is_zero(const fp_t *a);
bool fp_is_one(const fp_t *a);
bool fp_eq(const fp_t *a, const fp_t *b);
/* true when the canonical value of a is > (p-1)/2 (the ZCash sign bit). */
bool fp_is_lexicographically_largest(const fp_t *a);

void fp_from_u64(fp_t *r, uint64_t v);
/* Canonical little-endian limbs <-> Montgomery form; from_ returns false if >= p. */
bool fp_from_canonical(fp_t *r, const uint64_t in[FP_LIMBS]);
void fp_to_canonical(uint64_t out[FP_LIMBS], const fp_t *a);
bool fp_from_bytes_be(fp_t *r, const uint8_t in[FP_BYTES]);
void fp_to_bytes_be(uint8_t out[FP_BYTES], const fp_t *a);
bool fp_from_bytes_le(fp_t *r, const uint8_t in[FP_BYTES]);
void fp_to_bytes_le(uint8_t out[FP_BYTES], const fp_t *a);
/* Uniformly random element (rejection sampling). */
void fp_random(fp_t *r, cuzk_rng *g);

/* The portable (__int128) multiplication, always available; fp_mul
 * dispatches to the mulx/adx one when the CPU has it. Exposed for tests. */
void fp_mul_portable(fp_t *r, const fp_t *a, const fp_t *b);

#if defined(__x86_64__) && defined(__GNUC__)
/* The mulx/adcx/adox multiplication (x86-64 builds only); call it only when
 * cuzk_cpu_has_adx(). Exposed for tests. */
void fp_mul_adx(fp_t *r, const fp_t *a, const fp_t *b);
#endif

/* Whether this CPU has BMI2 and ADX, which fp_mul / fr_mul use when present. */
bool cuzk_cpu_has_adx(void);
/* Chooses the mulx/adx path (when the CPU has it) or the portable one for
 * all Fp / Fr multiplications; returns whether the fast path is now on. For
 * tests and benchmarks: do not call while other threads do field arithmetic. */
bool cuzk_ff_use_adx(bool on);

#endif
