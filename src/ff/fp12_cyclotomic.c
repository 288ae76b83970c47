/*
 * fp12_cyclotomic.c - squaring and exponentiation by x in the cyclotomic
 * subgroup of Fp12, where the hard part of the final exponentiation runs.
 *
 * View Fp12 as Fp4[t] / (t^3 - s), Fp4 = Fp2[s] / (s^2 - xi), s = w^3,
 * t = w, so f = A + B t + C t^2 with A = g0 + g1 s, B = g2 + g3 s,
 * C = g4 + g5 s, where (g0, g2, g4, g1, g3, g5) are the coefficients of
 * w^0 .. w^5. On the cyclotomic subgroup Granger and Scott ("Faster
 * squaring in the cyclotomic subgroup of sixth degree extensions", PKC
 * 2010) give
 *   f^2 = (3 A^2 - 2 conj(A)) + (3 s C^2 + 2 conj(B)) t + (3 B^2 - 2 conj(C)) t^2
 * (conj negates the s part): three Fp4 squarings, 9 Fp2 squarings.
 *
 * The new B and C depend on B and C only, which Karabina ("Squaring in
 * cyclotomic subgroups", Math. Comp. 2013) exploits: squarings of the
 * compressed (g2, g3, g4, g5) cost 6 Fp2 squarings, and A is recovered when
 * needed from
 *   g1 = (xi g5^2 + 3 g4^2 - 2 g3) / (4 g2),
 *   g0 = xi (2 g1^2 + g2 g5 - 3 g3 g4) + 1      (valid when g2 != 0).
 * The exponentiation by |x| = 2^63 + 2^62 + 2^60 + 2^57 + 2^48 + 2^16
 * squares the compressed form 63 times, keeps the six powers it needs,
 * decompresses them with one batched inversion and multiplies them. If one
 * of them has g2 = 0 (the input 1 does; a random input with probability
 * about 2^-760) it falls back to Granger-Scott squarings.
 */
#include "cuzk/fp12.h"

/* |x| = 0xd201000000010000: bits 63, 62, 60, 57, 48 and 16. */
#define BLS_X_ABS 0xd201000000010000ull
#define X_BITS    6

/* (a + b s)^2 = a^2 + xi b^2 + ((a + b)^2 - a^2 - b^2) s, 3 Fp2 squarings. */
static void fp4_sqr(fp2_t *r0, fp2_t *r1, const fp2_t *a, const fp2_t *b)
{
    fp2_t t0, t1, t;
    fp2_sqr(&t0, a);
    fp2_sqr(&t1, b);
    fp2_add(&t, a, b);
    fp2_sqr(&t, &t);
    fp2_sub(&t, &t, &t0);
    fp2_sub(r1, &t, &t1);
    fp2_mul_by_nonresidue(&t1, &t1);
    fp2_add(r0, &t0, &t1);
}

/* r = 3 t - 2 z (sign -1) or 3 t + 2 z (sign +1), the Granger-Scott step. */
static void gs_combine(fp2_t *r, const fp2_t *t, const fp2_t *z, int sign)
{
    fp2_t d;
    if (sign < 0)
        fp2_sub(&d, t, z);
    else
        fp2_add(&d, t, z);
    fp2_dbl(&d, &d);
    fp2_add(r, &d, t);
}

/* The compressed element (g2, g3, g4, g5) = (B, C). */
typedef struct compressed {
    fp2_t g2, g3, g4, g5;
} compressed;

/* B' = 3 s C^2 + 2 conj(B), C' = 3 B^2 - 2 conj(C); aliasing allowed. */
static void compressed_sqr(compressed *r, const compressed *a)
{
    fp2_t b0, b1, c0, c1;
    fp4_sqr(&b0, &b1, &a->g2, &a->g3);
    fp4_sqr(&c0, &c1, &a->g4, &a->g5);
    fp2_mul_by_nonresidue(&c1, &c1); /* s C^2 = xi c1 + c0 s */
    gs_combine(&r->g2, &c1, &a->g2, +1);
    gs_combine(&r->g3, &c0, &a->g3, -1);
    gs_combine(&r->g4, &b0, &a->g4, -1);
    gs_combine(&r->g5, &b1, &a->g5, +1);
}

void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a)
{
    const compressed bc = {a->c1.c0, a->c0.c2, a->c0.c1, a->c1.c2};
    compressed sq;
    fp2_t a0, a1;
    fp4_sqr(&a0, &a1, &a->c0.c0, &a->c1.c1); /* A = g0 + g1 s */
    gs_combine(&r->c0.c0, &a0, &a->c0.c0, -1);
    gs_combine(&r->c1.c1, &a1, &a->c1.c1, +1);
    compressed_sqr(&sq, &bc);
    r->c1.c0 = sq.g2, r->c0.c2 = sq.g3, r->c0.c1 = sq.g4, r->c1.c2 = sq.g5;
}

/* out[i] = the full element of c[i]; false if some g2 is 0. */
static bool decompress(fp12_t *out, const compressed *c, int n)
{
    fp2_t den[X_BITS], inv[X_BITS], t, u;
    for (int i = 0; i < n; i++) {
        if (fp2_is_zero(&c[i].g2)) return false;
        fp2_dbl(&den[i], &c[i].g2);
        fp2_dbl(&den[i], &den[i]);
    }
    fp2_batch_inv(inv, den, (size_t)n);
    for (int i = 0; i < n; i++) {
        fp12_t *f = &out[i];
        fp2_t *g1 = &f->c1.c1, *g0 = &f->c0.c0;
        fp2_sqr(&t, &c[i].g5); /* g1 = (xi g5^2 + 3 g4^2 - 2 g3) / (4 g2) */
        fp2_mul_by_nonresidue(&t, &t);
        fp2_sqr(&u, &c[i].g4);
        gs_combine(g1, &u, &c[i].g3, -1);
        fp2_add(g1, g1, &t);
        fp2_mul(g1, g1, &inv[i]);
        fp2_mul(&t, &c[i].g3, &c[i].g4); /* g0 = xi (2 g1^2 + g2 g5 - 3 g3 g4) + 1 */
        fp2_dbl(&u, &t);
        fp2_add(&t, &t, &u);
        fp2_sqr(&u, g1);
        fp2_dbl(&u, &u);
        fp2_sub(&u, &u, &t);
        fp2_mul(&t, &c[i].g2, &c[i].g5);
        fp2_add(&u, &u, &t);
        fp2_mul_by_nonresidue(&u, &u);
        fp2_add(g0, &u, &FP2_ONE);
        f->c1.c0 = c[i].g2, f->c0.c2 = c[i].g3, f->c0.c1 = c[i].g4, f->c1.c2 = c[i].g5;
    }
    return true;
}

/* r = a^|x| with Granger-Scott squarings (the fallback). */
static void exp_x_abs_uncompressed(fp12_t *r, const fp12_t *a)
{
    fp12_t acc = *a;
    for (int b = 62; b >= 0; b--) {
        fp12_cyclotomic_sqr(&acc, &acc);
        if ((BLS_X_ABS >> b) & 1) fp12_mul(&acc, &acc, a);
    }
    *r = acc;
}

void fp12_cyclotomic_exp_x(fp12_t *r, const fp12_t *a)
{
    compressed c = {a->c1.c0, a->c0.c2, a->c0.c1, a->c1.c2}, keep[X_BITS];
    fp12_t pw[X_BITS];
    int n = 0;
    for (int k = 1; k <= 63; k++) {
        compressed_sqr(&c, &c);
        if ((BLS_X_ABS >> k) & 1) keep[n++] = c; /* c = a^(2^k) */
    }
    if (decompress(pw, keep, n)) {
        for (int i = 1; i < n; i++) fp12_mul(&pw[0], &pw[0], &pw[i]);
    } else {
        exp_x_abs_uncompressed(&pw[0], a);
    }
    fp12_conj(r, &pw[0]); /* x < 0, and conj is the inverse here */
}
