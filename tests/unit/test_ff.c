/*
 * test_ff.c - Fp, Fr and Fp2: field axioms on random values, edge values,
 * byte round trips, inversion, square roots, and known constants of
 * reference/groth16.md. (The independent noble-curves oracle is in
 * tests/oracle.)
 */
#include "testutil.h"

#include <string.h>

#include "cuzk/fp.h"
#include "cuzk/fp2.h"
#include "cuzk/fr.h"

#define ROUNDS 2000

/* The same axiom checks for Fp and Fr, written once. */
#define FIELD_AXIOMS(F, T, NBYTES)                                                               \
    static void F##_axioms(void **state)                                                         \
    {                                                                                            \
        (void)state;                                                                             \
        cuzk_rng g;                                                                              \
        test_rng(&g);                                                                            \
        for (int i = 0; i < ROUNDS; i++) {                                                       \
            T a, b, c, x, y, z;                                                                  \
            F##_random(&a, &g);                                                                  \
            F##_random(&b, &g);                                                                  \
            F##_random(&c, &g);                                                                  \
            F##_mul(&x, &a, &b);                                                                 \
            F##_mul(&y, &b, &a);                                                                 \
            assert_true(F##_eq(&x, &y));                                                         \
            F##_mul(&x, &x, &c);                                                                 \
            F##_mul(&y, &b, &c);                                                                 \
            F##_mul(&y, &a, &y);                                                                 \
            assert_true(F##_eq(&x, &y));                                                         \
            F##_add(&x, &a, &b); /* (a + b) c = ac + bc */                                       \
            F##_mul(&x, &x, &c);                                                                 \
            F##_mul(&y, &a, &c);                                                                 \
            F##_mul(&z, &b, &c);                                                                 \
            F##_add(&y, &y, &z);                                                                 \
            assert_true(F##_eq(&x, &y));                                                         \
            F##_sub(&x, &a, &b); /* a - b + b = a, a + (-a) = 0 */                               \
            F##_add(&x, &x, &b);                                                                 \
            assert_true(F##_eq(&x, &a));                                                         \
            F##_neg(&x, &a);                                                                     \
            F##_add(&x, &x, &a);                                                                 \
            assert_true(F##_is_zero(&x));                                                        \
            F##_dbl(&x, &a);                                                                     \
            F##_add(&y, &a, &a);                                                                 \
            assert_true(F##_eq(&x, &y));                                                         \
            F##_sqr(&x, &a);                                                                     \
            F##_mul(&y, &a, &a);                                                                 \
            assert_true(F##_eq(&x, &y));                                                         \
            F##_mul_portable(&y, &a, &a);                                                        \
            assert_true(F##_eq(&x, &y));                                                         \
            if (i % 16 == 0) {                                                                   \
                assert_true(F##_inv(&y, &a)); /* a / a = 1 */                                    \
                F##_mul(&y, &y, &a);                                                             \
                assert_true(F##_is_one(&y));                                                     \
                assert_true(F##_sqrt(&y, &x)); /* sqrt(a^2) = +-a */                             \
                F##_neg(&z, &y);                                                                 \
                assert_true(F##_eq(&y, &a) || F##_eq(&z, &a));                                   \
                assert_int_equal(F##_legendre(&x), 1);                                           \
                int l = F##_legendre(&a);                                                        \
                assert_int_equal(F##_sqrt(&y, &a), l == 1);                                      \
            }                                                                                    \
            uint8_t be[NBYTES], le[NBYTES];                                                      \
            F##_to_bytes_be(be, &a);                                                             \
            F##_to_bytes_le(le, &a);                                                             \
            for (int k = 0; k < NBYTES; k++) assert_int_equal(be[k], le[NBYTES - 1 - k]);        \
            assert_true(F##_from_bytes_be(&x, be));                                              \
            assert_true(F##_from_bytes_le(&y, le));                                              \
            assert_true(F##_eq(&x, &a) && F##_eq(&y, &a));                                       \
        }                                                                                        \
    }                                                                                            \
    static void F##_edges(void **state)                                                          \
    {                                                                                            \
        (void)state;                                                                             \
        T zero = T##_ZERO_, one, m1, x;                                                          \
        F##_from_u64(&one, 1);                                                                   \
        assert_true(F##_is_one(&one));                                                           \
        F##_neg(&m1, &one);                                                                      \
        F##_sqr(&x, &m1); /* (-1)^2 = 1 */                                                       \
        assert_true(F##_is_one(&x));                                                             \
        F##_add(&x, &m1, &one);                                                                  \
        assert_true(F##_is_zero(&x));                                                            \
        F##_neg(&x, &zero);                                                                      \
        assert_true(F##_is_zero(&x));                                                            \
        assert_false(F##_inv(&x, &zero));                                                        \
        assert_int_equal(F##_legendre(&zero), 0);                                                \
        assert_int_equal(F##_legendre(&m1), F##_legendre_minus_one_expected);                    \
        uint64_t l[NBYTES / 8]; /* m1 is mod - 1 */                                              \
        F##_to_canonical(l, &m1);                                                                \
        assert_int_equal(l[0] + 1, F##_mod_low);                                                 \
        uint8_t be[NBYTES];                                                                      \
        F##_to_bytes_be(be, &m1); /* mod itself and all-ones are rejected */                     \
        be[NBYTES - 1]++;                                                                        \
        assert_false(F##_from_bytes_be(&x, be));                                                 \
        memset(be, 0xff, sizeof(be));                                                            \
        assert_false(F##_from_bytes_be(&x, be));                                                 \
        assert_true(F##_is_lexicographically_largest(&m1));                                      \
        assert_false(F##_is_lexicographically_largest(&one));                                    \
        assert_false(F##_is_lexicographically_largest(&zero));                                   \
    }

#define fp_t_ZERO_ FP_ZERO
#define fr_t_ZERO_ FR_ZERO
#define fp_legendre_minus_one_expected (-1) /* p = 3 mod 4 */
#define fr_legendre_minus_one_expected 1    /* r = 1 mod 4 */
#define fp_mod_low 0xb9feffffffffaaabull
#define fr_mod_low 0xffffffff00000001ull
FIELD_AXIOMS(fp, fp_t, 48)
FIELD_AXIOMS(fr, fr_t, 32)

static void batch_inverse(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    enum { N = 37 };
    fp_t in[N], out[N];
    for (int i = 0; i < N; i++) fp_random(&in[i], &g);
    in[0] = in[5] = in[N - 1] = FP_ZERO;
    fp_batch_inv(out, in, N);
    for (int i = 0; i < N; i++) {
        fp_t x;
        fp_inv(&x, &in[i]);
        assert_true(fp_eq(&x, &out[i]));
    }
    fp_batch_inv(in, in, N); /* in place */
    fp2_t in2[3] = {FP2_ONE, FP2_ZERO, FP2_ONE}, out2[3];
    fp2_batch_inv(out2, in2, 3);
    fp2_batch_inv(in2, in2, 3);
    assert_memory_equal(in2, out2, sizeof(in2));
    assert_true(fp2_is_one(&out2[0]) && fp2_is_zero(&out2[1]));
    assert_memory_equal(in, out, sizeof(in));
}

static void fr_root_of_unity(void **state)
{
    (void)state;
    uint8_t be[32];
    fr_t seven, root, expected, x;
    test_hex(be, 32, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
    assert_true(fr_from_bytes_be(&expected, be));
    fr_from_u64(&seven, 7);
    /* (r - 1) / 2^32 */
    const uint64_t t[4] = {0xfffe5bfeffffffff, 0x09a1d80553bda402, 0x299d7d483339d808,
                           0x0000000073eda753};
    fr_pow(&root, &seven, t, 4);
    assert_true(fr_eq(&root, &expected));
    x = root;
    for (int i = 0; i < 31; i++) fr_sqr(&x, &x);
    fr_t m1;
    fr_neg(&m1, &FR_ONE);
    assert_true(fr_eq(&x, &m1)); /* primitive: root^(2^31) = -1 */
    assert_int_equal(fr_legendre(&seven), -1);
}

static void fp2_axioms(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int i = 0; i < 300; i++) {
        fp2_t a, b, c, x, y, z;
        fp2_random(&a, &g);
        fp2_random(&b, &g);
        fp2_random(&c, &g);
        fp2_mul(&x, &a, &b);
        fp2_mul(&x, &x, &c);
        fp2_mul(&y, &b, &c);
        fp2_mul(&y, &y, &a);
        assert_true(fp2_eq(&x, &y));
        fp2_sqr(&x, &a);
        fp2_mul(&y, &a, &a);
        assert_true(fp2_eq(&x, &y));
        fp2_inv(&y, &a);
        fp2_mul(&y, &y, &a);
        assert_true(fp2_is_one(&y));
        assert_true(fp2_sqrt(&y, &x));
        fp2_neg(&z, &y);
        assert_true(fp2_eq(&y, &a) || fp2_eq(&z, &a));
        /* u^2 = -1, and the non-residue (1 + u) */
        fp2_t u = {FP_ZERO, FP_ONE}, nr = {FP_ONE, FP_ONE};
        fp2_sqr(&x, &u);
        fp2_add(&x, &x, &FP2_ONE);
        assert_true(fp2_is_zero(&x));
        fp2_mul_by_nonresidue(&x, &a);
        fp2_mul(&y, &a, &nr);
        assert_true(fp2_eq(&x, &y));
        /* Frobenius: a^p = conj(a) */
        fp2_pow(&x, &a, FP_MODULUS, FP_LIMBS);
        fp2_conj(&y, &a);
        assert_true(fp2_eq(&x, &y));
    }
    fp2_t nr = {FP_ONE, FP_ONE}, r;
    assert_false(fp2_sqrt(&r, &nr)); /* 1 + u is a non-residue */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp_axioms),      cmocka_unit_test(fp_edges),
        cmocka_unit_test(fr_axioms),      cmocka_unit_test(fr_edges),
        cmocka_unit_test(batch_inverse),  cmocka_unit_test(fr_root_of_unity),
        cmocka_unit_test(fp2_axioms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
