/*
 * fp2.h - Fp2 = Fp[u] / (u^2 + 1), the field of G2 coordinates.
 * c0 + c1 u; all operations accept aliased arguments.
 */
#ifndef CUZK_FP2_H
#define CUZK_FP2_H

#include "cuzk/fp.h"

typedef struct fp2_t {
    fp_t c0, c1;
} fp2_t;

extern const fp2_t FP2_ZERO;
extern const fp2_t FP2_ONE;

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_dbl(fp2_t *r, const fp2_t *a);
void fp2_neg(fp2_t *r, const fp2_t *a);
void fp2_conj(fp2_t *r, const fp2_t *a);                  /* c0 - c1 u, also the Frobenius map */
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b);   /* Karatsuba, 3M */
void fp2_sqr(fp2_t *r, const fp2_t *a);                   /* complex squaring, 2M */
void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b); /* by a base-field element */
void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a);     /* by (u + 1) */
void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *e, size_t n);
bool fp2_inv(fp2_t *r, const fp2_t *a); /* false (r = 0) for a = 0 */
void fp2_batch_inv(fp2_t *out, const fp2_t *in, size_t n);
bool fp2_sqrt(fp2_t *r, const fp2_t *a); /* false for a non-residue */

bool fp2_is_zero(const fp2_t *a);
bool fp2_is_one(const fp2_t *a);
bool fp2_eq(const fp2_t *a, const fp2_t *b);
/* ZCash sign: c1 is lexicographically largest, or c1 = 0 and c0 is. */
bool fp2_is_lexicographically_largest(const fp2_t *a);
void fp2_random(fp2_t *r, cuzk_rng *g);

#endif
