/*
 * test_pairing.c - the optimal ate pairing: a known value of e(G1, G2),
 * order r, non-degeneracy, bilinearity on random scalars, the multi-pair
 * Miller loop against single loops (across its chunk size), the product
 * check (accepting balanced products, rejecting perturbed ones) and the
 * handling of points at infinity.
 */
#include "testutil.h"

#include <stdlib.h>

#include "cuzk/pairing.h"

static int rounds(int full)
{
    return getenv("CUZK_TEST_QUICK") ? (full + 3) / 4 : full;
}

static void g1_mul(g1_affine_t *r, const g1_affine_t *p, const fr_t *k)
{
    g1_jac_t t;
    g1_jac_from_affine(&t, p);
    g1_jac_mul(&t, &t, k);
    g1_jac_to_affine(r, &t);
}

static void g2_mul(g2_affine_t *r, const g2_affine_t *q, const fr_t *k)
{
    g2_jac_t t;
    g2_jac_from_affine(&t, q);
    g2_jac_mul(&t, &t, k);
    g2_jac_to_affine(r, &t);
}

static void gt_pow(fp12_t *r, const fp12_t *a, const fr_t *k)
{
    uint64_t e[FR_LIMBS];
    fr_to_canonical(e, k);
    fp12_pow(r, a, e, FR_LIMBS);
}

static void fp_from_hex(fp_t *r, const char *hex)
{
    uint8_t be[FP_BYTES];
    assert_int_equal(test_hex(be, sizeof(be), hex), FP_BYTES);
    assert_true(fp_from_bytes_be(r, be));
}

/*
 * e(G1, G2) for the standard generators: Gt::generator() in zkcrypto's
 * bls12_381 crate (src/pairings.rs, the constant commented "pairing(&
 * G1Affine::generator(), &G2Affine::generator())"), converted from its
 * Montgomery limbs to canonical big-endian hex; coefficients in the order
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1. An independent Python
 * model of the pairing gives f^((p^12 - 1) / r) cubed for the same value.
 */
static const char *const GT_GENERATOR[12] = {
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789"
    "b6",
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa017"
    "0f",
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e"
    "87",
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c1993"
    "4f",
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aa"
    "a5",
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4"
    "b6",
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee8"
    "9d",
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab"
    "1a",
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba"
    "57",
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99"
    "a2",
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3"
    "ef",
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b6766"
    "31",
};

static void generator_pairing(void **state)
{
    (void)state;
    fp12_t e, expected, x;
    fp2_t *c[6] = {&expected.c0.c0, &expected.c0.c1, &expected.c0.c2,
                   &expected.c1.c0, &expected.c1.c1, &expected.c1.c2};
    for (int i = 0; i < 6; i++) {
        fp_from_hex(&c[i]->c0, GT_GENERATOR[2 * i]);
        fp_from_hex(&c[i]->c1, GT_GENERATOR[2 * i + 1]);
    }
    pairing(&e, &g1_GENERATOR, &g2_GENERATOR);
    assert_true(fp12_eq(&e, &expected));
    assert_false(fp12_is_one(&e));
    fp12_pow(&x, &e, FR_MODULUS, FR_LIMBS); /* e^r = 1 */
    assert_true(fp12_is_one(&x));
}

static void bilinearity(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    fp12_t base, x, y;
    pairing(&base, &g1_GENERATOR, &g2_GENERATOR);
    for (int i = 0; i < rounds(12); i++) {
        fr_t a, b, ab;
        g1_affine_t ap;
        g2_affine_t bq, aq;
        fr_random(&a, &g), fr_random(&b, &g);
        fr_mul(&ab, &a, &b);
        g1_mul(&ap, &g1_GENERATOR, &a);
        g2_mul(&bq, &g2_GENERATOR, &b);
        pairing(&x, &ap, &bq); /* e(aP, bQ) = e(P, Q)^(ab) */
        gt_pow(&y, &base, &ab);
        assert_true(fp12_eq(&x, &y));
        g2_mul(&aq, &g2_GENERATOR, &a); /* e(aP, Q) = e(P, aQ) */
        pairing(&x, &ap, &g2_GENERATOR);
        pairing(&y, &g1_GENERATOR, &aq);
        assert_true(fp12_eq(&x, &y));
    }
}

/* Random pairs (a_i G1, b_i G2) and their product of single Miller loops. */
static void random_pairs(g1_affine_t *p, g2_affine_t *q, size_t n, cuzk_rng *g)
{
    for (size_t i = 0; i < n; i++) {
        fr_t a, b;
        fr_random(&a, g), fr_random(&b, g);
        g1_mul(&p[i], &g1_GENERATOR, &a);
        g2_mul(&q[i], &g2_GENERATOR, &b);
    }
}

/* The shared-squaring loop is exactly the product of the single loops,
 * below, at and above its chunk of 8 pairs. */
static void multi_miller_loop(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    enum { N = 11 };
    g1_affine_t p[N];
    g2_affine_t q[N];
    random_pairs(p, q, N, &g);
    const size_t sizes[] = {2, 8, 9, N};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        fp12_t f, prod = FP12_ONE, fi;
        miller_loop_n(&f, p, q, sizes[k]);
        for (size_t i = 0; i < sizes[k]; i++) {
            miller_loop_n(&fi, &p[i], &q[i], 1);
            fp12_mul(&prod, &prod, &fi);
        }
        assert_true(fp12_eq(&f, &prod));
    }
    fp12_t f, e;
    miller_loop_n(&f, p, q, 1); /* pairing = final_exp(miller_loop) */
    final_exp(&f, &f);
    pairing(&e, p, q);
    assert_true(fp12_eq(&f, &e));
}

static void product_check(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    enum { N = 5 }; /* e(a_i P_i, Q_i) e(-P_i, a_i Q_i) for each i: 10 pairs */
    for (int r = 0; r < rounds(3); r++) {
        g1_affine_t p[2 * N];
        g2_affine_t q[2 * N];
        random_pairs(p, q, N, &g);
        for (size_t i = 0; i < N; i++) {
            fr_t a;
            fr_random(&a, &g);
            g1_affine_neg(&p[N + i], &p[i]);
            g2_mul(&q[N + i], &q[i], &a);
            g1_mul(&p[i], &p[i], &a);
        }
        assert_true(pairing_product_is_one(p, q, 2 * N));
        assert_false(pairing_product_is_one(p, q, 2));
        g1_affine_t pp[2 * N];
        g2_affine_t qq[2 * N];
        for (size_t i = 0; i < N; i++) { /* interleave so prefixes balance */
            pp[2 * i] = p[i], qq[2 * i] = q[i];
            pp[2 * i + 1] = p[N + i], qq[2 * i + 1] = q[N + i];
        }
        assert_true(pairing_product_is_one(pp, qq, 2));
        assert_true(pairing_product_is_one(pp, qq, 2 * N));
        assert_false(pairing_product_is_one(pp, qq, 2 * N - 1));
        g1_affine_t keep = pp[3]; /* perturb one point: P -> 2P */
        g1_jac_t t;
        g1_jac_from_affine(&t, &pp[3]);
        g1_jac_dbl(&t, &t);
        g1_jac_to_affine(&pp[3], &t);
        assert_false(pairing_product_is_one(pp, qq, 2 * N));
        pp[3] = keep;
        g2_affine_neg(&qq[6], &qq[6]); /* or negate one G2 point */
        assert_false(pairing_product_is_one(pp, qq, 2 * N));
    }
}

static void infinity(void **state)
{
    (void)state;
    const g1_affine_t p_inf = {FP_ZERO, FP_ZERO};
    const g2_affine_t q_inf = {FP2_ZERO, FP2_ZERO};
    fp12_t e;
    pairing(&e, &p_inf, &g2_GENERATOR);
    assert_true(fp12_is_one(&e));
    pairing(&e, &g1_GENERATOR, &q_inf);
    assert_true(fp12_is_one(&e));
    miller_loop_n(&e, &p_inf, &q_inf, 1);
    assert_true(fp12_is_one(&e));
    assert_true(pairing_product_is_one(NULL, NULL, 0));

    /* e(P, Q) e(-P, Q) = 1 with infinity pairs in between */
    g1_affine_t p[4] = {g1_GENERATOR, p_inf, g1_GENERATOR, g1_GENERATOR};
    g2_affine_t q[4] = {g2_GENERATOR, g2_GENERATOR, q_inf, g2_GENERATOR};
    g1_affine_neg(&p[3], &p[3]);
    assert_true(pairing_product_is_one(p, q, 4));
    assert_false(pairing_product_is_one(p, q, 3));
    fp12_t f, f1;
    miller_loop_n(&f, p, q, 3); /* the skipped pairs change nothing */
    miller_loop_n(&f1, p, q, 1);
    assert_true(fp12_eq(&f, &f1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generator_pairing), cmocka_unit_test(bilinearity),
        cmocka_unit_test(multi_miller_loop), cmocka_unit_test(product_check),
        cmocka_unit_test(infinity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
