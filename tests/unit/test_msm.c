/*
 * test_msm.c - the CPU MSM (msm.h) against independent computations.
 *
 * Two oracles. Bases built with known discrete logs (P_i = a_i G, a_i an
 * arithmetic progression from random a_0 and step q) give
 * sum k_i P_i = (sum k_i a_i) G: one scalar multiplication, whatever n.
 * For small n the naive sum of G_jac_mul(k_i, P_i) is checked too. Inputs
 * cover sizes 0 .. thousands, every window size, all-zero scalars, r - 1,
 * repeated and opposite bases, infinity bases, bit-only scalars, both
 * groups, several thread counts; and the bitmap batch addition, the split
 * MSM and fixed-base multiplication. CUZK_TEST_QUICK shrinks the sizes.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "ec/msm_internal.h"

static int quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

/* r - 1 in Montgomery form */
static fr_t fr_minus_one(void)
{
    fr_t m;
    fr_neg(&m, &FR_ONE);
    return m;
}

/* dot = sum k_i a_i */
static void fr_dot(fr_t *dot, const fr_t *k, const fr_t *a, size_t n)
{
    *dot = FR_ZERO;
    for (size_t i = 0; i < n; i++) {
        fr_t t;
        fr_mul(&t, &k[i], &a[i]);
        fr_add(dot, dot, &t);
    }
}

/* a_i = a_0 + i q for random a_0, q */
static void dlogs(fr_t *a, size_t n, cuzk_rng *g)
{
    fr_t q;
    fr_random(&q, g);
    if (n) fr_random(&a[0], g);
    for (size_t i = 1; i < n; i++) fr_add(&a[i], &a[i - 1], &q);
}

/*
 * The same helpers for both groups:
 *   G_bases(P, a, n)       P_i = a_i G by chained additions
 *   G_expect(r, k, a, n)   (sum k_i a_i) G
 *   G_naive(r, P, k, n)    sum G_jac_mul(k_i, P_i)
 */
#define GROUP_HELPERS(G)                                                                           \
    static void G##_bases(G##_affine_t *p, const fr_t *a, size_t n)                                \
    {                                                                                              \
        if (n == 0) return;                                                                        \
        G##_jac_t gen, acc, *jac = malloc(n * sizeof(G##_jac_t));                                  \
        G##_affine_t step;                                                                         \
        fr_t q;                                                                                    \
        assert_non_null(jac);                                                                      \
        G##_jac_from_affine(&gen, &G##_GENERATOR);                                                 \
        G##_jac_mul(&acc, &gen, &a[0]);                                                            \
        fr_sub(&q, n > 1 ? &a[1] : &a[0], &a[0]);                                                  \
        G##_jac_mul(&gen, &gen, &q);                                                               \
        G##_jac_to_affine(&step, &gen);                                                            \
        for (size_t i = 0; i < n; i++) {                                                           \
            jac[i] = acc;                                                                          \
            G##_jac_add_affine(&acc, &acc, &step);                                                 \
        }                                                                                          \
        G##_jac_batch_to_affine(p, jac, n);                                                        \
        free(jac);                                                                                 \
    }                                                                                              \
    static void G##_expect(G##_jac_t *r, const fr_t *k, const fr_t *a, size_t n)                   \
    {                                                                                              \
        fr_t dot;                                                                                  \
        fr_dot(&dot, k, a, n);                                                                     \
        G##_jac_from_affine(r, &G##_GENERATOR);                                                    \
        G##_jac_mul(r, r, &dot);                                                                   \
    }                                                                                              \
    static void G##_naive(G##_jac_t *r, const G##_affine_t *p, const fr_t *k, size_t n)            \
    {                                                                                              \
        G##_jac_set_inf(r);                                                                        \
        for (size_t i = 0; i < n; i++) {                                                           \
            G##_jac_t t;                                                                           \
            G##_jac_from_affine(&t, &p[i]);                                                        \
            G##_jac_mul(&t, &t, &k[i]);                                                            \
            G##_jac_add(r, r, &t);                                                                 \
        }                                                                                          \
    }

GROUP_HELPERS(g1)
GROUP_HELPERS(g2)

static void random_scalars(fr_t *k, size_t n, cuzk_rng *g)
{
    for (size_t i = 0; i < n; i++) fr_random(&k[i], g);
}

/* Mostly 0 and 1 with a few random scalars: bit i of `tail_every` decides. */
static void bit_scalars(fr_t *k, size_t n, size_t tail_every, cuzk_rng *g)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = cuzk_rng_u64(g);
        if (tail_every && x % tail_every == 0)
            fr_random(&k[i], g);
        else
            k[i] = (x >> 32) & 1 ? FR_ONE : FR_ZERO;
    }
}

/* ---- G1 MSM ------------------------------------------------------------ */

/* g1_msm and its naive sum on bases with known logs, for one size. */
static void g1_check_size(size_t n, int threads, cuzk_rng *g)
{
    fr_t *a = malloc((n + 1) * sizeof(fr_t)), *k = malloc((n + 1) * sizeof(fr_t));
    g1_affine_t *p = malloc((n + 1) * sizeof(g1_affine_t));
    assert_true(a && k && p);
    dlogs(a, n, g);
    g1_bases(p, a, n);
    random_scalars(k, n, g);
    g1_jac_t r, e;
    assert_int_equal(g1_msm(&r, p, k, n, threads, NULL), CUZK_OK);
    g1_expect(&e, k, a, n);
    assert_true(g1_jac_eq(&r, &e));
    if (n <= 17) {
        g1_naive(&e, p, k, n);
        assert_true(g1_jac_eq(&r, &e));
    }
    free(a), free(k), free(p);
}

static void test_g1_msm_sizes(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    static const size_t sizes[] = {0, 1, 2, 3, 5, 12, 13, 17, 31, 64, 100, 255, 1000, 3001, 8191};
    size_t count = sizeof(sizes) / sizeof(sizes[0]) - (quick() ? 3 : 0);
    for (size_t i = 0; i < count; i++) g1_check_size(sizes[i], 0, &g);
}

/* Every window size that the plan can pick, and a few more, on 1 and 3 threads. */
static void test_g1_msm_windows(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t n = quick() ? 40 : 300;
    fr_t a[300], k[300];
    g1_affine_t p[300];
    dlogs(a, n, &g);
    g1_bases(p, a, n);
    bit_scalars(k, n / 2, 3, &g);
    random_scalars(k + n / 2, n - n / 2, &g);
    g1_jac_t r, e;
    g1_expect(&e, k, a, n);
    for (unsigned c = 1; c <= 16; c += (quick() && c > 4 ? 4 : 1))
        for (int t = 1; t <= 3; t += 2) {
            assert_int_equal(g1_msm_window(&r, p, k, n, t, c, NULL), CUZK_OK);
            assert_true(g1_jac_eq(&r, &e));
        }
    for (size_t m = 1; m <= 3; m++) /* tiny inputs through Pippenger too */
        for (unsigned c = 1; c <= 16; c += 5) {
            g1_expect(&e, k, a, m);
            assert_int_equal(g1_msm_window(&r, p, k, m, 2, c, NULL), CUZK_OK);
            assert_true(g1_jac_eq(&r, &e));
        }
    assert_int_equal(g1_msm_window(&r, p, k, n, 1, 0, NULL), CUZK_EINVAL);
}

/* All zero scalars, r - 1, the fold boundary (r +- 1) / 2, and 1. */
static void test_g1_msm_edge_scalars(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    enum { N = 200 };
    fr_t a[N], k[N], half, two_inv;
    g1_affine_t p[N];
    g1_jac_t r, e;
    dlogs(a, N, &g);
    g1_bases(p, a, N);
    for (size_t i = 0; i < N; i++) k[i] = FR_ZERO;
    assert_int_equal(g1_msm(&r, p, k, N, 0, NULL), CUZK_OK);
    assert_true(g1_jac_is_inf(&r));
    for (size_t i = 0; i < N; i++) k[i] = fr_minus_one();
    assert_int_equal(g1_msm(&r, p, k, N, 0, NULL), CUZK_OK);
    g1_expect(&e, k, a, N);
    assert_true(g1_jac_eq(&r, &e));
    fr_from_u64(&two_inv, 2);
    fr_inv(&two_inv, &two_inv);
    fr_sub(&half, &two_inv, &FR_ONE); /* (r - 1) / 2 = 1/2 - 1 */
    for (size_t i = 0; i < N; i++) {
        static const int kinds = 5;
        switch (i % kinds) {
        case 0:
            k[i] = half;
            break;
        case 1:
            k[i] = two_inv;
            break; /* (r + 1) / 2 */
        case 2:
            k[i] = FR_ONE;
            break;
        case 3:
            k[i] = fr_minus_one();
            break;
        default:
            fr_random(&k[i], &g);
        }
    }
    assert_int_equal(g1_msm(&r, p, k, N, 0, NULL), CUZK_OK);
    g1_expect(&e, k, a, N);
    assert_true(g1_jac_eq(&r, &e));
}

/*
 * Repeated bases (the same point in one bucket many times: doublings),
 * opposite bases (cancellation to infinity) and infinity bases.
 */
static void test_g1_msm_special_bases(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t n = quick() ? 300 : 2000;
    fr_t *a = malloc(n * sizeof(fr_t)), *k = malloc(n * sizeof(fr_t));
    g1_affine_t *p = malloc(n * sizeof(g1_affine_t));
    assert_true(a && k && p);
    for (int variant = 0; variant < 3; variant++) {
        fr_t base;
        fr_random(&base, &g);
        for (size_t i = 0; i < n; i++) {
            a[i] = base; /* variant 0: all the same point */
            if (variant == 1 && i % 2) fr_neg(&a[i], &base);
            if (variant == 2 && i % 3 == 0) a[i] = FR_ZERO; /* infinity */
        }
        g1_affine_t pos, neg;
        g1_bases(&pos, &base, 1);
        g1_affine_neg(&neg, &pos);
        for (size_t i = 0; i < n; i++) {
            if (fr_is_zero(&a[i]))
                memset(&p[i], 0, sizeof(p[i]));
            else
                p[i] = fr_eq(&a[i], &base) ? pos : neg;
        }
        if (variant == 0)
            bit_scalars(k, n, 5, &g);
        else if (variant == 1) /* k P + k (-P): every pair cancels */
            for (size_t i = 0; i < n; i++) i % 2 ? (void)(k[i] = k[i - 1]) : fr_random(&k[i], &g);
        else
            random_scalars(k, n, &g);
        g1_jac_t r, e;
        assert_int_equal(g1_msm(&r, p, k, n, 0, NULL), CUZK_OK);
        g1_expect(&e, k, a, n);
        assert_true(g1_jac_eq(&r, &e));
        if (variant == 1) assert_true(g1_jac_is_inf(&r) == (n % 2 == 0));
    }
    free(a), free(k), free(p);
}

/* Bit-only scalars (every point in the same bucket of window 0), and the
 * same input on 1, 2, 3 and 4 threads. */
static void test_g1_msm_bits_threads(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t n = quick() ? 500 : 5000;
    fr_t *a = malloc(n * sizeof(fr_t)), *k = malloc(n * sizeof(fr_t));
    g1_affine_t *p = malloc(n * sizeof(g1_affine_t));
    assert_true(a && k && p);
    dlogs(a, n, &g);
    g1_bases(p, a, n);
    for (int round = 0; round < 2; round++) {
        if (round == 0)
            bit_scalars(k, n, 0, &g);
        else
            random_scalars(k, n, &g);
        g1_jac_t r1, r, e;
        g1_expect(&e, k, a, n);
        assert_int_equal(g1_msm(&r1, p, k, n, 1, NULL), CUZK_OK);
        assert_true(g1_jac_eq(&r1, &e));
        for (int t = 2; t <= 4; t++) {
            assert_int_equal(g1_msm(&r, p, k, n, t, NULL), CUZK_OK);
            assert_true(g1_jac_eq(&r, &r1));
        }
    }
    free(a), free(k), free(p);
}

/* ---- G2 MSM ------------------------------------------------------------ */

static void test_g2_msm(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    static const size_t sizes[] = {0, 1, 2, 3, 9, 33, 130, 1025};
    size_t count = sizeof(sizes) / sizeof(sizes[0]) - (quick() ? 1 : 0);
    fr_t *a = malloc(1025 * sizeof(fr_t)), *k = malloc(1025 * sizeof(fr_t));
    g2_affine_t *p = malloc(1025 * sizeof(g2_affine_t));
    assert_true(a && k && p);
    for (size_t s = 0; s < count; s++) {
        size_t n = sizes[s];
        dlogs(a, n, &g);
        g2_bases(p, a, n);
        if (s % 2)
            bit_scalars(k, n, 4, &g);
        else
            random_scalars(k, n, &g);
        if (n > 2) { /* r - 1, a repeated base, an infinity base */
            k[2] = fr_minus_one();
            p[1] = p[0];
            a[1] = a[0];
            memset(&p[n - 1], 0, sizeof(p[0]));
            a[n - 1] = FR_ZERO;
        }
        g2_jac_t r, e;
        assert_int_equal(g2_msm(&r, p, k, n, 0, NULL), CUZK_OK);
        g2_expect(&e, k, a, n);
        assert_true(g2_jac_eq(&r, &e));
        if (n <= 9) {
            g2_naive(&e, p, k, n);
            assert_true(g2_jac_eq(&r, &e));
        }
        for (unsigned c = 3; n == 130 && c <= 13; c += 5) {
            assert_int_equal(g2_msm_window(&r, p, k, n, 2, c, NULL), CUZK_OK);
            assert_true(g2_jac_eq(&r, &e));
        }
    }
    free(a), free(k), free(p);
}

/* ---- batch addition, split MSM, helpers --------------------------------- */

/* Bitmaps: random, empty, full, a partial last word; bases with repeats,
 * negatives and infinity. */
static void test_batch_add_bitmap(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t n = quick() ? 700 : 20000, words = (n + 63) / 64;
    fr_t *a = malloc(n * sizeof(fr_t)), *k = malloc(n * sizeof(fr_t));
    g1_affine_t *p = malloc(n * sizeof(g1_affine_t));
    uint64_t *bits = malloc(words * sizeof(uint64_t));
    assert_true(a && k && p && bits);
    g2_affine_t q[100];
    dlogs(a, n, &g);
    g1_bases(p, a, n);
    g2_bases(q, a, 100);
    p[5] = p[4], q[5] = q[4], a[5] = a[4];                                          /* repeated */
    g1_affine_neg(&p[7], &p[6]), g2_affine_neg(&q[7], &q[6]), fr_neg(&a[7], &a[6]); /* opposite */
    memset(&p[9], 0, sizeof(p[9])), memset(&q[9], 0, sizeof(q[9])), a[9] = FR_ZERO; /* infinity */
    for (int round = 0; round < 4; round++) {
        for (size_t w = 0; w < words; w++)
            bits[w] = round == 0 ? 0 : round == 1 ? ~0ull : cuzk_rng_u64(&g);
        size_t m = round == 3 ? n - 13 : n;
        for (size_t i = 0; i < n; i++)
            k[i] = i < m && (bits[i / 64] >> (i % 64) & 1) ? FR_ONE : FR_ZERO;
        g1_jac_t r, e;
        assert_int_equal(g1_batch_add_bitmap(&r, p, bits, m, 0, NULL), CUZK_OK);
        g1_expect(&e, k, a, n);
        assert_true(g1_jac_eq(&r, &e));
        g2_jac_t r2, e2;
        assert_int_equal(g2_batch_add_bitmap(&r2, q, bits, 100, 2, NULL), CUZK_OK);
        g2_expect(&e2, k, a, 100);
        assert_true(g2_jac_eq(&r2, &e2));
    }
    free(a), free(k), free(p), free(bits);
}

/* The split MSM equals the plain one, on both sides of the decision. */
static void test_msm_split(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t n = quick() ? 600 : 6000;
    fr_t *a = malloc(n * sizeof(fr_t)), *k = malloc(n * sizeof(fr_t));
    g1_affine_t *p = malloc(n * sizeof(g1_affine_t));
    g2_affine_t *q = malloc(n * sizeof(g2_affine_t));
    assert_true(a && k && p && q);
    dlogs(a, n, &g);
    g1_bases(p, a, n);
    g2_bases(q, a, n);
    static const size_t tail_every[] = {0, 1, 3, 10}; /* 1: all random, no split */
    for (size_t v = 0; v < 4; v++) {
        bit_scalars(k, n, tail_every[v], &g);
        size_t n1, nt;
        msm_classify(k, n, NULL, &n1, &nt, 0);
        assert_true(msm_split_worthwhile(nt, n) == (v != 1));
        g1_jac_t r, e;
        assert_int_equal(g1_msm_split(&r, p, k, n, 0, NULL), CUZK_OK);
        assert_int_equal(g1_msm(&e, p, k, n, 0, NULL), CUZK_OK);
        assert_true(g1_jac_eq(&r, &e));
        g1_expect(&e, k, a, n);
        assert_true(g1_jac_eq(&r, &e));
        size_t m = n / 8; /* G2 on a prefix */
        g2_jac_t r2, e2;
        assert_int_equal(g2_msm_split(&r2, q, k, m, 2, NULL), CUZK_OK);
        g2_expect(&e2, k, a, m);
        assert_true(g2_jac_eq(&r2, &e2));
    }
    free(a), free(k), free(p), free(q);
}

static void test_classify_and_rule(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    enum { N = 1000 };
    fr_t k[N];
    uint64_t bits[(N + 63) / 64];
    bit_scalars(k, N, 7, &g);
    size_t n1, nt, e1 = 0, et = 0;
    msm_classify(k, N, bits, &n1, &nt, 2);
    for (size_t i = 0; i < N; i++) {
        bool one = fr_is_one(&k[i]);
        e1 += one;
        et += !one && !fr_is_zero(&k[i]);
        assert_int_equal((bits[i / 64] >> (i % 64)) & 1, one);
    }
    assert_int_equal(n1, e1);
    assert_int_equal(nt, et);
    assert_true(msm_split_worthwhile(50, 100));
    assert_false(msm_split_worthwhile(51, 100));
    assert_true(msm_split_worthwhile(0, 0));
    uint32_t idx[N];
    msm_bitmap_indices(idx, bits, N - 5, 2);
    for (size_t i = 0, j = 0; i < N - 5; i++)
        if (fr_is_one(&k[i])) assert_int_equal(idx[j++], i);
}

/* sum_w d_w 2^(cw) = k, |d_w| <= 2^(c-1), for folded random and edge scalars. */
static void test_booth_digits(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    enum { N = 64 };
    fr_t k[N];
    msm_scalar sc[N];
    random_scalars(k, N, &g);
    k[0] = FR_ZERO, k[1] = FR_ONE, k[2] = fr_minus_one();
    msm_scalars_fold(sc, k, NULL, N, 1);
    for (unsigned c = 1; c <= MSM_MAX_WINDOW; c++)
        for (size_t i = 0; i < N; i++) {
            fr_t sum = FR_ZERO, pow2, step;
            fr_from_u64(&step, 1ull << c);
            pow2 = FR_ONE;
            for (unsigned w = 0; w < msm_windows(c); w++) {
                int32_t d = msm_digit(&sc[i], w, c);
                assert_true(d <= (1 << (c - 1)) && d >= -(1 << (c - 1)));
                fr_t t;
                fr_from_u64(&t, (uint64_t)(d < 0 ? -d : d));
                if (d < 0) fr_neg(&t, &t);
                fr_mul(&t, &t, &pow2);
                fr_add(&sum, &sum, &t);
                fr_mul(&pow2, &pow2, &step);
            }
            assert_true(fr_eq(&sum, &k[i]));
        }
}

/* ---- fixed base ---------------------------------------------------------- */

static void test_fixed_base(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t n = quick() ? 150 : 1500, n2 = n / 10;
    fr_t *k = malloc(n * sizeof(fr_t));
    g1_affine_t *out = malloc(n * sizeof(g1_affine_t)), base;
    g2_affine_t *out2 = malloc(n2 * sizeof(g2_affine_t)), base2;
    assert_true(k && out && out2);
    random_scalars(k, n, &g);
    k[0] = FR_ZERO, k[1] = FR_ONE, k[2] = fr_minus_one(), k[3] = k[4];
    fr_t a;
    fr_random(&a, &g);
    g1_bases(&base, &a, 1);
    g2_bases(&base2, &a, 1);
    assert_int_equal(g1_fixed_base_mul(out, &base, k, n, 0, NULL), CUZK_OK);
    assert_int_equal(g2_fixed_base_mul(out2, &base2, k, n2, 0, NULL), CUZK_OK);
    g1_jac_t b, e;
    g1_jac_from_affine(&b, &base);
    for (size_t i = 0; i < n; i++) {
        g1_affine_t ea;
        g1_jac_mul(&e, &b, &k[i]);
        g1_jac_to_affine(&ea, &e);
        assert_true(g1_affine_eq(&out[i], &ea));
    }
    g2_jac_t b2, e2;
    g2_jac_from_affine(&b2, &base2);
    for (size_t i = 0; i < n2; i++) {
        g2_affine_t ea;
        g2_jac_mul(&e2, &b2, &k[i]);
        g2_jac_to_affine(&ea, &e2);
        assert_true(g2_affine_eq(&out2[i], &ea));
    }
    memset(&base, 0, sizeof(base)); /* infinity times anything */
    assert_int_equal(g1_fixed_base_mul(out, &base, k, 10, 1, NULL), CUZK_OK);
    for (size_t i = 0; i < 10; i++) assert_true(g1_affine_is_inf(&out[i]));
    free(k), free(out), free(out2);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    cuzk_err err;
    g1_jac_t r;
    assert_int_equal(g1_msm(&r, NULL, NULL, SIZE_MAX / 8, 1, &err), CUZK_ENOMEM);
    assert_non_null(strstr(err.msg, "out of memory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_booth_digits),
        cmocka_unit_test(test_g1_msm_sizes),
        cmocka_unit_test(test_g1_msm_windows),
        cmocka_unit_test(test_g1_msm_edge_scalars),
        cmocka_unit_test(test_g1_msm_special_bases),
        cmocka_unit_test(test_g1_msm_bits_threads),
        cmocka_unit_test(test_g2_msm),
        cmocka_unit_test(test_batch_add_bitmap),
        cmocka_unit_test(test_msm_split),
        cmocka_unit_test(test_classify_and_rule),
        cmocka_unit_test(test_fixed_base),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
