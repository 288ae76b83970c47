/*
 * test_tower.c - Fp6 and Fp12: field axioms on random elements, inverses,
 * the sparse products against the dense ones, Frobenius maps against
 * pow(a, p) (so their constants are checked), and the cyclotomic squaring
 * and exponentiation by x against plain squaring and pow on elements
 * brought into the cyclotomic subgroup by the easy part of the final
 * exponentiation.
 */
#include "testutil.h"

#include <stdlib.h>

#include "cuzk/fp12.h"

static int rounds(int full)
{
    return getenv("CUZK_TEST_QUICK") ? full / 4 : full;
}

static void fp6_axioms(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int i = 0; i < rounds(1000); i++) {
        fp6_t a, b, c, x, y, z;
        fp6_random(&a, &g), fp6_random(&b, &g), fp6_random(&c, &g);
        fp6_mul(&x, &a, &b); /* commutative, associative, distributive */
        fp6_mul(&y, &b, &a);
        assert_true(fp6_eq(&x, &y));
        fp6_mul(&x, &x, &c);
        fp6_mul(&y, &b, &c);
        fp6_mul(&y, &a, &y);
        assert_true(fp6_eq(&x, &y));
        fp6_add(&x, &a, &b);
        fp6_mul(&x, &x, &c);
        fp6_mul(&y, &a, &c);
        fp6_mul(&z, &b, &c);
        fp6_add(&y, &y, &z);
        assert_true(fp6_eq(&x, &y));
        fp6_sub(&x, &a, &b); /* a - b + b = a, a + (-a) = 0, 2a = a + a */
        fp6_add(&x, &x, &b);
        assert_true(fp6_eq(&x, &a));
        fp6_neg(&x, &a);
        fp6_add(&x, &x, &a);
        assert_true(fp6_is_zero(&x));
        fp6_dbl(&x, &a);
        fp6_add(&y, &a, &a);
        assert_true(fp6_eq(&x, &y));
        fp6_sqr(&x, &a);
        fp6_mul(&y, &a, &a);
        assert_true(fp6_eq(&x, &y));
        assert_true(fp6_inv(&x, &a));
        fp6_mul(&x, &x, &a);
        assert_true(fp6_is_one(&x));
    }
    fp6_t x;
    assert_false(fp6_inv(&x, &FP6_ZERO));
    assert_true(fp6_is_zero(&x));
}

/* v^3 = u + 1, and the special products agree with fp6_mul. */
static void fp6_special_products(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    fp6_t v = FP6_ZERO, x, y, s;
    v.c1 = FP2_ONE;
    fp6_mul(&x, &v, &v);
    fp6_mul(&x, &x, &v);
    assert_true(fp_is_one(&x.c0.c0) && fp_is_one(&x.c0.c1));
    assert_true(fp2_is_zero(&x.c1) && fp2_is_zero(&x.c2));
    for (int i = 0; i < rounds(100); i++) {
        fp6_t a;
        fp2_t b0, b1;
        fp6_random(&a, &g), fp2_random(&b0, &g), fp2_random(&b1, &g);
        fp6_mul_by_nonresidue(&x, &a);
        fp6_mul(&y, &a, &v);
        assert_true(fp6_eq(&x, &y));
        s = (fp6_t){b0, b1, FP2_ZERO};
        fp6_mul_by_01(&x, &a, &b0, &b1);
        fp6_mul(&y, &a, &s);
        assert_true(fp6_eq(&x, &y));
        s = (fp6_t){FP2_ZERO, b1, FP2_ZERO};
        fp6_mul_by_1(&x, &a, &b1);
        fp6_mul(&y, &a, &s);
        assert_true(fp6_eq(&x, &y));
        s = (fp6_t){b0, FP2_ZERO, FP2_ZERO};
        fp6_mul_by_fp2(&x, &a, &b0);
        fp6_mul(&y, &a, &s);
        assert_true(fp6_eq(&x, &y));
    }
}

static void fp12_axioms(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int i = 0; i < rounds(300); i++) {
        fp12_t a, b, c, x, y, z;
        fp12_random(&a, &g), fp12_random(&b, &g), fp12_random(&c, &g);
        fp12_mul(&x, &a, &b);
        fp12_mul(&y, &b, &a);
        assert_true(fp12_eq(&x, &y));
        fp12_mul(&x, &x, &c);
        fp12_mul(&y, &b, &c);
        fp12_mul(&y, &a, &y);
        assert_true(fp12_eq(&x, &y));
        fp12_add(&x, &a, &b);
        fp12_mul(&x, &x, &c);
        fp12_mul(&y, &a, &c);
        fp12_mul(&z, &b, &c);
        fp12_add(&y, &y, &z);
        assert_true(fp12_eq(&x, &y));
        fp12_sub(&x, &a, &b);
        fp12_add(&x, &x, &b);
        assert_true(fp12_eq(&x, &a));
        fp12_neg(&x, &a);
        fp12_add(&x, &x, &a);
        assert_true(fp12_is_zero(&x));
        fp12_sqr(&x, &a);
        fp12_mul(&y, &a, &a);
        assert_true(fp12_eq(&x, &y));
        assert_true(fp12_inv(&x, &a));
        fp12_mul(&x, &x, &a);
        assert_true(fp12_is_one(&x));
        fp12_conj(&x, &a); /* a conj(a) is the norm to Fp6 */
        fp12_mul(&x, &x, &a);
        assert_true(fp6_is_zero(&x.c1));
    }
    fp12_t x, w = FP12_ZERO;
    assert_false(fp12_inv(&x, &FP12_ZERO));
    w.c1.c0 = FP2_ONE; /* w^2 = v */
    fp12_sqr(&x, &w);
    assert_true(fp6_is_zero(&x.c1) && fp2_is_zero(&x.c0.c0) && fp2_is_one(&x.c0.c1));
}

static void fp12_sparse_line_product(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int i = 0; i < rounds(100); i++) {
        fp12_t a, l = FP12_ZERO, x, y;
        fp2_t c0, c1, c4;
        fp12_random(&a, &g), fp2_random(&c0, &g), fp2_random(&c1, &g), fp2_random(&c4, &g);
        l.c0.c0 = c0, l.c0.c1 = c1, l.c1.c1 = c4;
        fp12_mul_by_014(&x, &a, &c0, &c1, &c4);
        fp12_mul(&y, &a, &l);
        assert_true(fp12_eq(&x, &y));
        fp12_mul_by_014(&a, &a, &c0, &c1, &c4); /* aliased */
        assert_true(fp12_eq(&a, &y));
    }
}

/* The canonical limbs of p, for pow(a, p). */
static void fp6_pow_p(fp6_t *r, const fp6_t *a)
{
    fp6_t acc = FP6_ONE;
    for (int i = FP_LIMBS; i-- > 0;)
        for (int b = 63; b >= 0; b--) {
            fp6_sqr(&acc, &acc);
            if ((FP_MODULUS[i] >> b) & 1) fp6_mul(&acc, &acc, a);
        }
    *r = acc;
}

static void frobenius_is_pow_p(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int i = 0; i < 4; i++) {
        fp12_t a, x, y;
        fp6_t a6, x6, y6;
        fp12_random(&a, &g);
        a6 = a.c0;
        x = a, x6 = a6;
        for (int k = 1; k <= 3; k++) {
            fp12_pow(&x, &x, FP_MODULUS, FP_LIMBS);
            fp12_frobenius(&y, &a, k);
            assert_true(fp12_eq(&x, &y));
            fp6_pow_p(&x6, &x6);
            fp6_frobenius(&y6, &a6, k);
            assert_true(fp6_eq(&x6, &y6));
        }
        fp12_frobenius(&x, &a, 3); /* p^6 is the conjugation */
        fp12_frobenius(&x, &x, 3);
        fp12_conj(&y, &a);
        assert_true(fp12_eq(&x, &y));
    }
}

/* f^((p^6 - 1)(p^2 + 1)): the easy part, which lands in the cyclotomic subgroup. */
static void to_cyclotomic(fp12_t *r, const fp12_t *f)
{
    fp12_t t;
    fp12_inv(&t, f);
    fp12_conj(r, f);
    fp12_mul(r, r, &t);
    fp12_frobenius(&t, r, 2);
    fp12_mul(r, r, &t);
}

static void cyclotomic_operations(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    const uint64_t x_abs = 0xd201000000010000ull;
    for (int i = 0; i < rounds(50); i++) {
        fp12_t f, a, x, y;
        fp12_random(&f, &g);
        to_cyclotomic(&a, &f);
        fp12_cyclotomic_sqr(&x, &a);
        fp12_sqr(&y, &a);
        assert_true(fp12_eq(&x, &y));
        x = a; /* aliased */
        fp12_cyclotomic_sqr(&x, &x);
        assert_true(fp12_eq(&x, &y));
        fp12_conj(&x, &a); /* conj is the inverse there */
        fp12_mul(&x, &x, &a);
        assert_true(fp12_is_one(&x));
        fp12_cyclotomic_exp_x(&x, &a); /* a^x = 1 / a^|x| */
        fp12_pow(&y, &a, &x_abs, 1);
        fp12_inv(&y, &y);
        assert_true(fp12_eq(&x, &y));
    }
    fp12_t one; /* 1 takes the uncompressed fallback (its g2 is 0) */
    fp12_cyclotomic_exp_x(&one, &FP12_ONE);
    assert_true(fp12_is_one(&one));
    /* a random element is not cyclotomic: the fast squaring differs */
    fp12_t f, x, y;
    fp12_random(&f, &g);
    fp12_cyclotomic_sqr(&x, &f);
    fp12_sqr(&y, &f);
    assert_false(fp12_eq(&x, &y));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp6_axioms),         cmocka_unit_test(fp6_special_products),
        cmocka_unit_test(fp12_axioms),        cmocka_unit_test(fp12_sparse_line_product),
        cmocka_unit_test(frobenius_is_pow_p), cmocka_unit_test(cyclotomic_operations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
