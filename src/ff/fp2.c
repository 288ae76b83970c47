/*
 * fp2.c - arithmetic in Fp2 = Fp[u] / (u^2 + 1).
 * Square root: Algorithm 9 of Adj and Rodriguez-Henriquez, "Square root
 * computation over even extension fields" (p = 3 mod 4).
 *
 * The Fp operations are the inlined ones of field_inline.h. With the x86
 * path selected (cuzk_ff_adx) the Karatsuba multiplication runs on
 * full 768-bit products, so its three products share two Montgomery
 * reductions instead of three. The portable Karatsuba leaves the sums
 * a0 + a1 unreduced (Montgomery products accept inputs below 2p).
 */
#include "cuzk/fp2.h"

#include <stdlib.h>
#include <string.h>

#include "ff/field_inline.h"
#include "ff/mont.h"

const fp2_t FP2_ZERO = {{{0}}, {{0}}};
const fp2_t FP2_ONE = {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                         0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                       {{0}}};

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_add_inline(&r->c0, &a->c0, &b->c0);
    fp_add_inline(&r->c1, &a->c1, &b->c1);
}

void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_sub_inline(&r->c0, &a->c0, &b->c0);
    fp_sub_inline(&r->c1, &a->c1, &b->c1);
}

void fp2_dbl(fp2_t *r, const fp2_t *a)
{
    fp_add_inline(&r->c0, &a->c0, &a->c0);
    fp_add_inline(&r->c1, &a->c1, &a->c1);
}

void fp2_neg(fp2_t *r, const fp2_t *a)
{
    fp_sub_inline(&r->c0, &FP_ZERO, &a->c0);
    fp_sub_inline(&r->c1, &FP_ZERO, &a->c1);
}

void fp2_conj(fp2_t *r, const fp2_t *a)
{
    r->c0 = a->c0;
    fp_sub_inline(&r->c1, &FP_ZERO, &a->c1);
}

/* (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u */
static void fp2_mul_karatsuba(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_t t0, t1, s0, s1;
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    mont_add_raw(s0.l, a->c0.l, a->c1.l, FP_LIMBS); /* < 2p: fp_mul accepts it */
    mont_add_raw(s1.l, b->c0.l, b->c1.l, FP_LIMBS);
    fp_mul(&s0, &s0, &s1);
    fp_sub(&s0, &s0, &t0);
    fp_sub(&r->c1, &s0, &t1);
    fp_sub(&r->c0, &t0, &t1);
}

#ifdef CUZK_FF_HAVE_X86
/*
 * The same on 12-limb products: c0 = redc(a0 b0 - a1 b1) and
 * c1 = redc((a0 + a1)(b0 + b1) - a0 b0 - a1 b1), the differences formed
 * inside the reductions (mont_x86.h). 3 x 36 + 2 x 36 mulx instead of
 * 3 x 72. The reduction of c0 (latency bound) comes before the product for
 * c1 (throughput bound) so the processor overlaps them.
 */
static void fp2_mul_adx(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    uint64_t sa[FP_LIMBS], sb[FP_LIMBS], t[38];
    mont_add_raw(sa, a->c0.l, a->c1.l, FP_LIMBS); /* exact sums: the identity is over Z */
    mont_add_raw(sb, b->c0.l, b->c1.l, FP_LIMBS);
    mont_mulwide6_adx(t, a->c0.l, b->c0.l);
    mont_mulwide6_adx(t + 12, a->c1.l, b->c1.l);
    mont_redc6_fp2c0_adx(r->c0.l, t, fp_mod_minv);
    mont_mulwide6_adx(t + 24, sa, sb);
    mont_redc6_fp2c1_adx(r->c1.l, t, fp_mod_minv);
}
#endif

void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
#ifdef CUZK_FF_HAVE_X86
    if (__builtin_expect(cuzk_ff_adx, 1)) {
        fp2_mul_adx(r, a, b);
        return;
    }
#endif
    fp2_mul_karatsuba(r, a, b);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
void fp2_sqr(fp2_t *r, const fp2_t *a)
{
    fp_t s, d, a0x2;
    fp_add_inline(&s, &a->c0, &a->c1);
    fp_sub_inline(&d, &a->c0, &a->c1);
    fp_add_inline(&a0x2, &a->c0, &a->c0);
    fp_mul_inline(&r->c1, &a0x2, &a->c1);
    fp_mul_inline(&r->c0, &s, &d);
}

void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b)
{
    fp_mul_inline(&r->c0, &a->c0, b);
    fp_mul_inline(&r->c1, &a->c1, b);
}

/* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a)
{
    fp_t t;
    fp_sub_inline(&t, &a->c0, &a->c1);
    fp_add_inline(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *e, size_t n)
{
    fp2_t acc = FP2_ONE, base = *a;
    for (size_t i = n; i-- > 0;)
        for (int b = 63; b >= 0; b--) {
            fp2_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) fp2_mul(&acc, &acc, &base);
        }
    *r = acc;
}

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
bool fp2_inv(fp2_t *r, const fp2_t *a)
{
    fp_t n, t;
    fp_sqr(&n, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&n, &n, &t);
    if (!fp_inv(&n, &n)) {
        *r = FP2_ZERO;
        return false;
    }
    fp_mul(&r->c0, &a->c0, &n);
    fp_mul(&t, &a->c1, &n);
    fp_neg(&r->c1, &t);
    return true;
}

void fp2_batch_inv(fp2_t *out, const fp2_t *in, size_t n)
{
    if (n == 0) return;
    if (out == in) { /* the forward pass stores prefixes in out: keep in */
        fp2_t *copy = malloc(n * sizeof(fp2_t));
        if (!copy) {
            for (size_t i = 0; i < n; i++) fp2_inv(&out[i], &in[i]);
            return;
        }
        memcpy(copy, in, n * sizeof(fp2_t));
        fp2_batch_inv(out, copy, n);
        free(copy);
        return;
    }
    fp2_t acc = FP2_ONE;
    for (size_t i = 0; i < n; i++) {
        fp2_t x = in[i];
        out[i] = acc;
        if (!fp2_is_zero(&x)) fp2_mul(&acc, &acc, &x);
    }
    fp2_inv(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        fp2_t x = in[i];
        if (fp2_is_zero(&x)) {
            out[i] = FP2_ZERO;
            continue;
        }
        fp2_t inv_i;
        fp2_mul(&inv_i, &acc, &out[i]);
        fp2_mul(&acc, &acc, &x);
        out[i] = inv_i;
    }
}

bool fp2_sqrt(fp2_t *r, const fp2_t *a)
{
    static const uint64_t p_minus_3_div_4[FP_LIMBS] = {0xee7fbfffffffeaaa, 0x07aaffffac54ffff,
                                                       0xd9cc34a83dac3d89, 0xd91dd2e13ce144af,
                                                       0x92c6e9ed90d2eb35, 0x0680447a8e5ff9a6};
    static const uint64_t p_minus_1_div_2[FP_LIMBS] = {0xdcff7fffffffd555, 0x0f55ffff58a9ffff,
                                                       0xb39869507b587b12, 0xb23ba5c279c2895f,
                                                       0x258dd3db21a5d66b, 0x0d0088f51cbff34d};
    if (fp2_is_zero(a)) {
        *r = FP2_ZERO;
        return true;
    }
    fp2_t a1, alpha, x0, x, minus_one;
    fp2_pow(&a1, a, p_minus_3_div_4, FP_LIMBS);
    fp2_sqr(&alpha, &a1);
    fp2_mul(&alpha, &alpha, a);
    fp2_mul(&x0, &a1, a);
    fp2_neg(&minus_one, &FP2_ONE);
    if (fp2_eq(&alpha, &minus_one)) {
        /* x = u x0 */
        fp_neg(&x.c0, &x0.c1);
        x.c1 = x0.c0;
    } else {
        fp2_t b;
        fp2_add(&b, &alpha, &FP2_ONE);
        fp2_pow(&b, &b, p_minus_1_div_2, FP_LIMBS);
        fp2_mul(&x, &b, &x0);
    }
    fp2_t check;
    fp2_sqr(&check, &x);
    if (!fp2_eq(&check, a)) return false;
    *r = x;
    return true;
}

bool fp2_is_zero(const fp2_t *a)
{
    return fp_is_zero(&a->c0) && fp_is_zero(&a->c1);
}
bool fp2_is_one(const fp2_t *a)
{
    return fp_is_one(&a->c0) && fp_is_zero(&a->c1);
}
bool fp2_eq(const fp2_t *a, const fp2_t *b)
{
    return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1);
}

bool fp2_is_lexicographically_largest(const fp2_t *a)
{
    if (!fp_is_zero(&a->c1)) return fp_is_lexicographically_largest(&a->c1);
    return fp_is_lexicographically_largest(&a->c0);
}

void fp2_random(fp2_t *r, cuzk_rng *g)
{
    fp_random(&r->c0, g);
    fp_random(&r->c1, g);
}
