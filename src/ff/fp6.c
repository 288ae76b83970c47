/*
 * fp6.c - arithmetic in Fp6 = Fp2[v] / (v^3 - xi), xi = u + 1.
 *
 * Multiplication is Karatsuba over the three Fp2 coefficients (6 Fp2
 * products instead of 9); squaring is Chung and Hasan's SQR2 ("Asymmetric
 * squaring formulae", 2007). Reducing v^3 to xi costs one
 * fp2_mul_by_nonresidue (two additions). The sparse products are the ones
 * a Miller-loop line needs (see fp12_mul_by_014). Inversion goes through the
 * norm to Fp2 (one Fp2 inversion).
 */
#include "cuzk/fp12.h"

const fp6_t FP6_ZERO = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
const fp6_t FP6_ONE = {{{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                          0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                        {{0}}},
                       {{{0}}, {{0}}},
                       {{{0}}, {{0}}}};

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2_add(&r->c0, &a->c0, &b->c0);
    fp2_add(&r->c1, &a->c1, &b->c1);
    fp2_add(&r->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2_sub(&r->c0, &a->c0, &b->c0);
    fp2_sub(&r->c1, &a->c1, &b->c1);
    fp2_sub(&r->c2, &a->c2, &b->c2);
}

void fp6_dbl(fp6_t *r, const fp6_t *a)
{
    fp2_dbl(&r->c0, &a->c0);
    fp2_dbl(&r->c1, &a->c1);
    fp2_dbl(&r->c2, &a->c2);
}

void fp6_neg(fp6_t *r, const fp6_t *a)
{
    fp2_neg(&r->c0, &a->c0);
    fp2_neg(&r->c1, &a->c1);
    fp2_neg(&r->c2, &a->c2);
}

/*
 * t_i = a_i b_i;
 * c0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2)
 * c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2
 * c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1
 */
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2_t t0, t1, t2, s, u, c0, c1, c2;
    fp2_mul(&t0, &a->c0, &b->c0);
    fp2_mul(&t1, &a->c1, &b->c1);
    fp2_mul(&t2, &a->c2, &b->c2);

    fp2_add(&s, &a->c1, &a->c2);
    fp2_add(&u, &b->c1, &b->c2);
    fp2_mul(&c0, &s, &u);
    fp2_sub(&c0, &c0, &t1);
    fp2_sub(&c0, &c0, &t2);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_add(&c0, &c0, &t0);

    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&u, &b->c0, &b->c1);
    fp2_mul(&c1, &s, &u);
    fp2_sub(&c1, &c1, &t0);
    fp2_sub(&c1, &c1, &t1);
    fp2_mul_by_nonresidue(&s, &t2);
    fp2_add(&c1, &c1, &s);

    fp2_add(&s, &a->c0, &a->c2);
    fp2_add(&u, &b->c0, &b->c2);
    fp2_mul(&c2, &s, &u);
    fp2_sub(&c2, &c2, &t0);
    fp2_sub(&c2, &c2, &t2);
    fp2_add(&r->c2, &c2, &t1);
    r->c0 = c0;
    r->c1 = c1;
}

/*
 * SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2,
 * s4 = a2^2; c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4.
 */
void fp6_sqr(fp6_t *r, const fp6_t *a)
{
    fp2_t s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    fp2_dbl(&s1, &s1);
    fp2_sub(&s2, &a->c0, &a->c1);
    fp2_add(&s2, &s2, &a->c2);
    fp2_sqr(&s2, &s2);
    fp2_mul(&s3, &a->c1, &a->c2);
    fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);

    fp2_add(&r->c2, &s1, &s2);
    fp2_add(&r->c2, &r->c2, &s3);
    fp2_sub(&r->c2, &r->c2, &s0);
    fp2_sub(&r->c2, &r->c2, &s4);
    fp2_mul_by_nonresidue(&t, &s3);
    fp2_add(&r->c0, &s0, &t);
    fp2_mul_by_nonresidue(&t, &s4);
    fp2_add(&r->c1, &s1, &t);
}

/*
 * 1/a = (A + B v + C v^2) / N with A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1,
 * C = a1^2 - a0 a2 and N = a0 A + xi (a2 B + a1 C), which lies in Fp2.
 */
bool fp6_inv(fp6_t *r, const fp6_t *a)
{
    fp2_t A, B, C, n, t;
    fp2_sqr(&A, &a->c0);
    fp2_mul(&t, &a->c1, &a->c2);
    fp2_mul_by_nonresidue(&t, &t);
    fp2_sub(&A, &A, &t);
    fp2_sqr(&B, &a->c2);
    fp2_mul_by_nonresidue(&B, &B);
    fp2_mul(&t, &a->c0, &a->c1);
    fp2_sub(&B, &B, &t);
    fp2_sqr(&C, &a->c1);
    fp2_mul(&t, &a->c0, &a->c2);
    fp2_sub(&C, &C, &t);

    fp2_mul(&n, &a->c2, &B);
    fp2_mul(&t, &a->c1, &C);
    fp2_add(&n, &n, &t);
    fp2_mul_by_nonresidue(&n, &n);
    fp2_mul(&t, &a->c0, &A);
    fp2_add(&n, &n, &t);
    if (!fp2_inv(&n, &n)) {
        *r = FP6_ZERO;
        return false;
    }
    fp2_mul(&r->c0, &A, &n);
    fp2_mul(&r->c1, &B, &n);
    fp2_mul(&r->c2, &C, &n);
    return true;
}

/* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a)
{
    fp2_t t;
    fp2_mul_by_nonresidue(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void fp6_mul_by_fp2(fp6_t *r, const fp6_t *a, const fp2_t *b)
{
    fp2_mul(&r->c0, &a->c0, b);
    fp2_mul(&r->c1, &a->c1, b);
    fp2_mul(&r->c2, &a->c2, b);
}

/*
 * a (b0 + b1 v), Karatsuba with t0 = a0 b0, t1 = a1 b1:
 * c0 = t0 + xi a2 b1 = t0 + xi ((a1 + a2) b1 - t1)
 * c1 = a0 b1 + a1 b0 = (a0 + a1)(b0 + b1) - t0 - t1
 * c2 = a2 b0 + a1 b1 = (a0 + a2) b0 - t0 + t1
 */
void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
    fp2_t t0, t1, s, u, c0, c1;
    fp2_mul(&t0, &a->c0, b0);
    fp2_mul(&t1, &a->c1, b1);

    fp2_add(&s, &a->c1, &a->c2);
    fp2_mul(&c0, &s, b1);
    fp2_sub(&c0, &c0, &t1);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_add(&c0, &c0, &t0);

    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&u, b0, b1);
    fp2_mul(&c1, &s, &u);
    fp2_sub(&c1, &c1, &t0);
    fp2_sub(&c1, &c1, &t1);

    fp2_add(&s, &a->c0, &a->c2);
    fp2_mul(&s, &s, b0);
    fp2_sub(&s, &s, &t0);
    fp2_add(&r->c2, &s, &t1);
    r->c0 = c0;
    r->c1 = c1;
}

/* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1)
{
    fp2_t t0, t1, t2;
    fp2_mul(&t0, &a->c2, b1);
    fp2_mul_by_nonresidue(&t0, &t0);
    fp2_mul(&t1, &a->c0, b1);
    fp2_mul(&t2, &a->c1, b1);
    r->c0 = t0;
    r->c1 = t1;
    r->c2 = t2;
}

/*
 * v^(p^k) = v xi^((p^k - 1)/3), so the Frobenius conjugates each
 * coefficient k times (u^p = -u) and scales c1 by xi^((p^k - 1)/3), c2 by
 * xi^(2(p^k - 1)/3). Values below in Montgomery form, canonical value in
 * the comment (computed with Python big integers):
 */
static const fp2_t FROB6_C1[3] = {
    /* k = 1: xi^((p-1)/3) = 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b
       409427eb4f49fffd8bfd00000000aaac u */
    {{{0}},
     {{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e,
       0x03f97d6e83d050d2, 0x18f0206554638741}}},
    /* k = 2: xi^((p^2-1)/3) = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a0002
       2e01fffffffefffe */
    {{{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b,
       0x3636b76660701c6e, 0x051ba4ab241b6160}},
     {{0}}},
    /* k = 3: xi^((p^3-1)/3) = u */
    {{{0}},
     {{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745,
       0x5c071a97a256ec6d, 0x15f65ec3fa80e493}}},
};
static const fp2_t FROB6_C2[3] = {
    /* k = 1: xi^(2(p-1)/3) = 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b
       409427eb4f49fffd8bfd00000000aaad */
    {{{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, 0xa20d1b8c7e881024,
       0x14e4f04fe2db9068, 0x14e56d3f1564853a}},
     {{0}}},
    /* k = 2: xi^(2(p^2-1)/3) = 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b
       409427eb4f49fffd8bfd00000000aaac */
    {{{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e,
       0x03f97d6e83d050d2, 0x18f0206554638741}},
     {{0}}},
    /* k = 3: xi^(2(p^3-1)/3) = p - 1 */
    {{{0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69, 0xeca8f3318332bb7a,
       0xef148d1ea0f4c069, 0x040ab3263eff0206}},
     {{0}}},
};

void fp6_frobenius(fp6_t *r, const fp6_t *a, int k)
{
    fp6_t t = *a;
    if (k & 1) {
        fp2_conj(&t.c0, &t.c0);
        fp2_conj(&t.c1, &t.c1);
        fp2_conj(&t.c2, &t.c2);
    }
    r->c0 = t.c0;
    fp2_mul(&r->c1, &t.c1, &FROB6_C1[k - 1]);
    fp2_mul(&r->c2, &t.c2, &FROB6_C2[k - 1]);
}

bool fp6_is_zero(const fp6_t *a)
{
    return fp2_is_zero(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

bool fp6_is_one(const fp6_t *a)
{
    return fp2_is_one(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

bool fp6_eq(const fp6_t *a, const fp6_t *b)
{
    return fp2_eq(&a->c0, &b->c0) && fp2_eq(&a->c1, &b->c1) && fp2_eq(&a->c2, &b->c2);
}

void fp6_random(fp6_t *r, cuzk_rng *g)
{
    fp2_random(&r->c0, g);
    fp2_random(&r->c1, g);
    fp2_random(&r->c2, g);
}
