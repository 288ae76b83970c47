/*
 * fp12.h - the extension tower above Fp2 on which the BLS12-381 pairing lives:
 *
 *   Fp6  = Fp2[v] / (v^3 - (u + 1)),   c0 + c1 v + c2 v^2
 *   Fp12 = Fp6[w] / (w^2 - v),         c0 + c1 w
 *
 * so w^6 = u + 1 and an Fp12 element is also sum_i a_i w^i over Fp2, with
 * a_0 = c0.c0, a_1 = c1.c0, a_2 = c0.c1, a_3 = c1.c1, a_4 = c0.c2,
 * a_5 = c1.c2. All operations accept aliased arguments.
 *
 * The cyclotomic functions are only valid on elements of the cyclotomic
 * subgroup (norm 1 over Fp6 and over Fp4), which is where the easy part of
 * the final exponentiation lands; they compute the same value as the
 * general ones, faster.
 */
#ifndef CUZK_FP12_H
#define CUZK_FP12_H

#include "cuzk/fp2.h"

typedef struct fp6_t {
    fp2_t c0, c1, c2;
} fp6_t;

typedef struct fp12_t {
    fp6_t c0, c1;
} fp12_t;

extern const fp6_t FP6_ZERO;
extern const fp6_t FP6_ONE;
extern const fp12_t FP12_ZERO;
extern const fp12_t FP12_ONE;

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_dbl(fp6_t *r, const fp6_t *a);
void fp6_neg(fp6_t *r, const fp6_t *a);
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b); /* Karatsuba, 6 Fp2 mul */
void fp6_sqr(fp6_t *r, const fp6_t *a);                 /* Chung-Hasan SQR2, 2M + 3S */
bool fp6_inv(fp6_t *r, const fp6_t *a);                 /* false (r = 0) for a = 0 */
void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a);   /* by v */
void fp6_mul_by_fp2(fp6_t *r, const fp6_t *a, const fp2_t *b);
/* Sparse products: by b0 + b1 v (5 Fp2 mul) and by b1 v (3 Fp2 mul). */
void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1);
void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1);
/* r = a^(p^k) for k = 1, 2, 3. */
void fp6_frobenius(fp6_t *r, const fp6_t *a, int k);
bool fp6_is_zero(const fp6_t *a);
bool fp6_is_one(const fp6_t *a);
bool fp6_eq(const fp6_t *a, const fp6_t *b);
void fp6_random(fp6_t *r, cuzk_rng *g);

void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_neg(fp12_t *r, const fp12_t *a);
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b); /* Karatsuba, 3 Fp6 mul */
void fp12_sqr(fp12_t *r, const fp12_t *a);                  /* complex squaring, 2 Fp6 mul */
bool fp12_inv(fp12_t *r, const fp12_t *a);                  /* false (r = 0) for a = 0 */
/* c0 - c1 w = a^(p^6); the inverse on the cyclotomic subgroup. */
void fp12_conj(fp12_t *r, const fp12_t *a);
/* r = a (c0 + c1 v + c4 v w): the shape of a Miller-loop line (13 Fp2 mul). */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *c0, const fp2_t *c1, const fp2_t *c4);
/* r = a^(p^k) for k = 1, 2, 3. */
void fp12_frobenius(fp12_t *r, const fp12_t *a, int k);
/* r = a^e, e given as n little-endian 64-bit limbs (square and multiply). */
void fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t n);
/* Granger-Scott squaring in the cyclotomic subgroup (9 Fp2 squarings). */
void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a);
/* r = a^x, x = -0xd201000000010000 the BLS12-381 parameter (cyclotomic a):
 * 63 Karabina compressed squarings, one batched decompression, 5 products. */
void fp12_cyclotomic_exp_x(fp12_t *r, const fp12_t *a);
bool fp12_is_zero(const fp12_t *a);
bool fp12_is_one(const fp12_t *a);
bool fp12_eq(const fp12_t *a, const fp12_t *b);
void fp12_random(fp12_t *r, cuzk_rng *g);

#endif
