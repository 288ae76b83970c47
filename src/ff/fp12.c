/*
 * fp12.c - arithmetic in Fp12 = Fp6[w] / (w^2 - v), the pairing target field.
 *
 * Multiplication is Karatsuba over Fp6 (3 Fp6 products), squaring the
 * complex method (2 Fp6 products). fp12_mul_by_014 multiplies by the sparse
 * shape of a Miller-loop line. The Frobenius maps use w^(p^k) =
 * w xi^((p^k - 1)/6) on top of fp6_frobenius.
 *
 * The cyclotomic-subgroup operations are in fp12_cyclotomic.c.
 */
#include "cuzk/fp12.h"

const fp12_t FP12_ZERO = {{{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}},
                          {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};
const fp12_t FP12_ONE = {{{{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                             0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                           {{0}}},
                          {{{0}}, {{0}}},
                          {{{0}}, {{0}}}},
                         {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_add(&r->c0, &a->c0, &b->c0);
    fp6_add(&r->c1, &a->c1, &b->c1);
}

void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_sub(&r->c0, &a->c0, &b->c0);
    fp6_sub(&r->c1, &a->c1, &b->c1);
}

void fp12_neg(fp12_t *r, const fp12_t *a)
{
    fp6_neg(&r->c0, &a->c0);
    fp6_neg(&r->c1, &a->c1);
}

void fp12_conj(fp12_t *r, const fp12_t *a)
{
    r->c0 = a->c0;
    fp6_neg(&r->c1, &a->c1);
}

/* t0 = a0 b0, t1 = a1 b1; c0 = t0 + v t1, c1 = (a0 + a1)(b0 + b1) - t0 - t1 */
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_t t0, t1, s, u;
    fp6_mul(&t0, &a->c0, &b->c0);
    fp6_mul(&t1, &a->c1, &b->c1);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_add(&u, &b->c0, &b->c1);
    fp6_mul(&s, &s, &u);
    fp6_sub(&s, &s, &t0);
    fp6_sub(&r->c1, &s, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&r->c0, &t0, &t1);
}

/* m = a0 a1; c0 = (a0 + a1)(a0 + v a1) - m - v m, c1 = 2 m */
void fp12_sqr(fp12_t *r, const fp12_t *a)
{
    fp6_t m, s, t;
    fp6_mul(&m, &a->c0, &a->c1);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_mul_by_nonresidue(&t, &a->c1);
    fp6_add(&t, &t, &a->c0);
    fp6_mul(&s, &s, &t);
    fp6_sub(&s, &s, &m);
    fp6_mul_by_nonresidue(&t, &m);
    fp6_sub(&r->c0, &s, &t);
    fp6_dbl(&r->c1, &m);
}

/* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
bool fp12_inv(fp12_t *r, const fp12_t *a)
{
    fp6_t n, t;
    fp6_sqr(&n, &a->c0);
    fp6_sqr(&t, &a->c1);
    fp6_mul_by_nonresidue(&t, &t);
    fp6_sub(&n, &n, &t);
    if (!fp6_inv(&n, &n)) {
        *r = FP12_ZERO;
        return false;
    }
    fp6_mul(&r->c0, &a->c0, &n);
    fp6_mul(&r->c1, &a->c1, &n);
    fp6_neg(&r->c1, &r->c1);
    return true;
}

/*
 * The line l = L0 + L1 w with L0 = c0 + c1 v, L1 = c4 v; Karatsuba:
 * a l = a0 L0 + v a1 L1 + ((a0 + a1)(L0 + L1) - a0 L0 - a1 L1) w,
 * 5 + 3 + 5 Fp2 products.
 */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *c0, const fp2_t *c1, const fp2_t *c4)
{
    fp6_t t0, t1, s;
    fp2_t c14;
    fp6_mul_by_01(&t0, &a->c0, c0, c1);
    fp6_mul_by_1(&t1, &a->c1, c4);
    fp2_add(&c14, c1, c4);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_mul_by_01(&s, &s, c0, &c14);
    fp6_sub(&s, &s, &t0);
    fp6_sub(&r->c1, &s, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&r->c0, &t0, &t1);
}

/*
 * xi^((p^k - 1)/6) for k = 1, 2, 3, Montgomery form; canonical value in the
 * comment (computed with Python big integers). fp6_frobenius already
 * scales v = w^2 and v^2 = w^4; the odd powers w, w^3, w^5 of c1 need this
 * one extra factor since xi^((p^k-1)/6) xi^(i(p^k-1)/3) = xi^((2i+1)(p^k-1)/6).
 */
static const fp2_t FROB12_C1[3] = {
    /* k = 1: 0x1904d3bf02bb0667c231beb4202c0d1f0fd603fd3cbd5f4f7b2443d784bab9c4
                f67ea53d63e7813d8d0775ed92235fb8
            + 0x00fc3e2b36c4e03288e9e902231f9fb854a14787b6c7b36fec0c8ec971f63c5f
                282d5ac14d6c7ec22cf78a126ddc4af3 u */
    {{{0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f, 0xa35baecab2dc29ee,
       0x1ce393ea5daace4d, 0x08f2220fb0fb66eb}},
     {{0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394, 0xc11b9cba40a8e8d0,
       0x2e3813cbe5a0de89, 0x110eefda88847faf}}},
    /* k = 2: 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a0002
                2e01fffffffeffff */
    {{{0xecfb361b798dba3a, 0xc100ddb891865a2c, 0x0ec08ff1232bda8e, 0xd5c13cc6f1ca4721,
       0x47222a47bf7b5c04, 0x0110f184e51c5f59}},
     {{0}}},
    /* k = 3: 0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e
                304466cf3e67fa0af1ee7b04121bdea2
            + 0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5
                ee67992f72ec05f4c81084fbede3cc09 u */
    {{{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18,
       0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8}},
     {{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7,
       0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2}}},
};

void fp12_frobenius(fp12_t *r, const fp12_t *a, int k)
{
    fp6_frobenius(&r->c0, &a->c0, k);
    fp6_frobenius(&r->c1, &a->c1, k);
    fp6_mul_by_fp2(&r->c1, &r->c1, &FROB12_C1[k - 1]);
}

void fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t n)
{
    fp12_t acc = FP12_ONE, base = *a;
    for (size_t i = n; i-- > 0;)
        for (int b = 63; b >= 0; b--) {
            fp12_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) fp12_mul(&acc, &acc, &base);
        }
    *r = acc;
}

bool fp12_is_zero(const fp12_t *a)
{
    return fp6_is_zero(&a->c0) && fp6_is_zero(&a->c1);
}
bool fp12_is_one(const fp12_t *a)
{
    return fp6_is_one(&a->c0) && fp6_is_zero(&a->c1);
}
bool fp12_eq(const fp12_t *a, const fp12_t *b)
{
    return fp6_eq(&a->c0, &b->c0) && fp6_eq(&a->c1, &b->c1);
}

void fp12_random(fp12_t *r, cuzk_rng *g)
{
    fp6_random(&r->c0, g);
    fp6_random(&r->c1, g);
}
