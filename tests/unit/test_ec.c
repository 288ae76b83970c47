/*
 * test_ec.c - G1 and G2: group laws on random points, agreement of the
 * affine, Jacobian and XYZZ formulas, every special case of addition,
 * scalar multiplication identities, batch conversion, the fast subgroup
 * checks against the naive [r]P = 0, the batch subgroup test (random subset
 * sums) against points off the subgroup, torsion points and parts outside
 * the subgroup that cancel in a plain sum, the endomorphism constants, known
 * generator encodings and multiples (from an independent implementation),
 * round trips, and every decoder error path.
 *
 * The G1 and G2 tests are one source (EC_TESTS) instantiated twice, as the
 * code under test is.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/ec.h"

/* Fewer rounds in the sanitizer build (CUZK_TEST_QUICK=1). */
static int rounds(int full)
{
    return getenv("CUZK_TEST_QUICK") ? (full + 3) / 4 : full;
}

/* |x| of the BLS parameter x = -0xd201000000010000 */
static const uint64_t ABS_X = 0xd201000000010000;

/* Cofactors: #E1 = h1 r, h1 = (x - 1)^2 / 3; #E2 = h2 r (twist order). */
static const uint64_t H1[2] = {0x8c00aaab0000aaab, 0x396c8c005555e156};
static const uint64_t H2[8] = {0xcf1c38e31c7238e5, 0x1616ec6e786f0c70, 0x21537e293a6691ae,
                               0xa628f1cb4d9e82ef, 0xa68a205b2e5a7ddf, 0xcd91de4547085aba,
                               0x091d50792876a202, 0x05d543a95414e7f1};

/*
 * Scalars at the edges of the endomorphism splits (mu = x^2 - 1 for G1,
 * base |x| digits for G2), checked against the plain sliding window.
 */
static const uint64_t EDGE_SCALARS[][4] = {
    {0, 0, 0, 0},
    {1, 0, 0, 0},
    {0xffffffff00000000, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}, /* r-1 */
    {0xfffffffeffffffff, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}, /* r-2 */
    {0x00000000fffffffe, 0xac45a4010001a402, 0, 0},                                   /* mu-1 */
    {0x00000000ffffffff, 0xac45a4010001a402, 0, 0},                                   /* mu */
    {0x0000000100000000, 0xac45a4010001a402, 0, 0},                                   /* mu+1 */
    {0xfffffffe00000001, 0xa7780001fffcb7fc, 0x3339d80809a1d804, 0x73eda753299d7d48}, /* mu^2 */
    {0xd20100000000ffff, 0, 0, 0},                                                    /* |x|-1 */
    {0xd201000000010000, 0, 0, 0},                                                    /* |x| */
    {0x0000000100000001, 0xac45a4010001a402, 0, 0},                                   /* x^2+1 */
    {0x0000ffffffffffff, 0xec03000276030000, 0x8d51ccce760304d0, 0},                  /* |x|^3-1 */
    {0x0001000000000000, 0xec03000276030000, 0x8d51ccce760304d0, 0},                  /* |x|^3 */
    {~0ull, ~0ull, 0, 0},                                                             /* 2^128-1 */
    {0, 0, 0, 0x4000000000000000},                                                    /* 2^254 */
    {0x7fffffff80000000, 0xa9ded2017fff2dff, 0x199cec0404d0ec02, 0x39f6d3a994cebea4}, /* (r-1)/2 */
};

static void fp_curve_b(fp_t *b)
{
    fp_from_u64(b, 4);
}
static void fp2_curve_b(fp2_t *b)
{
    fp_from_u64(&b->c0, 4);
    b->c1 = b->c0;
}

/* p as 48 big-endian bytes */
static void modulus_be(uint8_t out[FP_BYTES])
{
    for (int i = 0; i < FP_LIMBS; i++)
        for (int k = 0; k < 8; k++)
            out[8 * (FP_LIMBS - 1 - i) + k] = (uint8_t)(FP_MODULUS[i] >> (56 - 8 * k));
}

static void check_code(int rc, const cuzk_err *e, int want)
{
    assert_int_equal(rc, want);
    assert_int_equal(e->code, want);
    assert_true(strlen(e->msg) > 10);
}

#define EC_TESTS(G, F, NU, NC, COFACTOR, C_BYTES)                                                  \
    static void G##_random_jac(G##_jac_t *r, cuzk_rng *g)                                          \
    {                                                                                              \
        fr_t k;                                                                                    \
        fr_random(&k, g);                                                                          \
        G##_jac_t gen;                                                                             \
        G##_jac_from_affine(&gen, &G##_GENERATOR);                                                 \
        G##_jac_mul(r, &gen, &k);                                                                  \
    }                                                                                              \
    /* A random point of the whole curve (almost surely outside the subgroup). */                  \
    static void G##_random_curve_point(G##_affine_t *r, cuzk_rng *g)                               \
    {                                                                                              \
        F##_t b, rhs;                                                                              \
        F##_curve_b(&b);                                                                           \
        do {                                                                                       \
            F##_random(&r->x, g);                                                                  \
            F##_sqr(&rhs, &r->x);                                                                  \
            F##_mul(&rhs, &rhs, &r->x);                                                            \
            F##_add(&rhs, &rhs, &b);                                                               \
        } while (!F##_sqrt(&r->y, &rhs));                                                          \
    }                                                                                              \
    static bool G##_naive_in_subgroup(const G##_affine_t *p)                                       \
    {                                                                                              \
        G##_jac_t q;                                                                               \
        G##_jac_from_affine(&q, p);                                                                \
        G##_jac_mul_limbs(&q, &q, FR_MODULUS, FR_LIMBS);                                           \
        return G##_jac_is_inf(&q);                                                                 \
    }                                                                                              \
    static void G##_xyzz_from_jac(G##_xyzz_t *r, const G##_jac_t *p)                               \
    {                                                                                              \
        G##_affine_t a;                                                                            \
        G##_jac_to_affine(&a, p);                                                                  \
        G##_xyzz_set_inf(r);                                                                       \
        G##_xyzz_add_affine(r, r, &a);                                                             \
    }                                                                                              \
    static void G##_assert_xyzz_is(const G##_xyzz_t *x, const G##_jac_t *want)                     \
    {                                                                                              \
        G##_jac_t j;                                                                               \
        G##_xyzz_to_jac(&j, x);                                                                    \
        assert_true(G##_jac_on_curve(&j));                                                         \
        assert_true(G##_jac_eq(&j, want));                                                         \
    }                                                                                              \
    static void G##_generator(void **state)                                                        \
    {                                                                                              \
        (void)state;                                                                               \
        assert_true(G##_affine_on_curve(&G##_GENERATOR));                                          \
        assert_true(G##_affine_in_subgroup(&G##_GENERATOR));                                       \
        assert_true(G##_naive_in_subgroup(&G##_GENERATOR));                                        \
        assert_false(G##_affine_is_inf(&G##_GENERATOR));                                           \
    }                                                                                              \
    static void G##_group_laws(void **state)                                                       \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        for (int i = 0, n = rounds(NU); i < n; i++) {                                              \
            G##_jac_t a, b, c, s, t, inf;                                                          \
            G##_random_jac(&a, &g);                                                                \
            G##_random_jac(&b, &g);                                                                \
            G##_random_jac(&c, &g);                                                                \
            G##_jac_set_inf(&inf);                                                                 \
            assert_true(G##_jac_on_curve(&a));                                                     \
            G##_jac_add(&s, &a, &b); /* commutativity */                                           \
            G##_jac_add(&t, &b, &a);                                                               \
            assert_true(G##_jac_on_curve(&s));                                                     \
            assert_true(G##_jac_eq(&s, &t));                                                       \
            G##_jac_add(&s, &s, &c); /* associativity */                                           \
            G##_jac_add(&t, &b, &c);                                                               \
            G##_jac_add(&t, &a, &t);                                                               \
            assert_true(G##_jac_eq(&s, &t));                                                       \
            G##_jac_add(&s, &a, &a); /* P + P = 2P */                                              \
            G##_jac_dbl(&t, &a);                                                                   \
            assert_true(G##_jac_on_curve(&t));                                                     \
            assert_true(G##_jac_eq(&s, &t));                                                       \
            G##_jac_neg(&t, &a); /* P + (-P) = 0 */                                                \
            G##_jac_add(&s, &a, &t);                                                               \
            assert_true(G##_jac_is_inf(&s));                                                       \
            G##_jac_add(&s, &a, &inf); /* P + 0 = 0 + P = P */                                     \
            assert_true(G##_jac_eq(&s, &a));                                                       \
            G##_jac_add(&s, &inf, &a);                                                             \
            assert_true(G##_jac_eq(&s, &a));                                                       \
            G##_jac_dbl(&s, &inf);                                                                 \
            assert_true(G##_jac_is_inf(&s));                                                       \
            assert_false(G##_jac_eq(&a, &inf));                                                    \
            assert_false(G##_jac_eq(&a, &b));                                                      \
        }                                                                                          \
    }                                                                                              \
    /* Mixed addition and XYZZ against the Jacobian law, special cases included. */                \
    static void G##_coordinates_agree(void **state)                                                \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        for (int i = 0, n = rounds(NU); i < n; i++) {                                              \
            G##_jac_t a, b, sum, dbl, out, inf;                                                    \
            G##_affine_t aa, ba, na, ia = {0};                                                     \
            G##_random_jac(&a, &g);                                                                \
            G##_random_jac(&b, &g);                                                                \
            G##_jac_set_inf(&inf);                                                                 \
            G##_jac_to_affine(&aa, &a);                                                            \
            G##_jac_to_affine(&ba, &b);                                                            \
            G##_affine_neg(&na, &aa);                                                              \
            assert_true(G##_affine_on_curve(&aa) && G##_affine_on_curve(&na));                     \
            G##_jac_add(&sum, &a, &b);                                                             \
            G##_jac_dbl(&dbl, &a);                                                                 \
            G##_jac_add_affine(&out, &a, &ba);                                                     \
            assert_true(G##_jac_eq(&out, &sum));                                                   \
            G##_jac_add_affine(&out, &a, &aa);                                                     \
            assert_true(G##_jac_eq(&out, &dbl));                                                   \
            G##_jac_add_affine(&out, &a, &na);                                                     \
            assert_true(G##_jac_is_inf(&out));                                                     \
            G##_jac_add_affine(&out, &a, &ia);                                                     \
            assert_true(G##_jac_eq(&out, &a));                                                     \
            G##_jac_add_affine(&out, &inf, &ba);                                                   \
            assert_true(G##_jac_eq(&out, &b));                                                     \
            G##_xyzz_t xa, xb, xs, xinf;                                                           \
            G##_xyzz_set_inf(&xinf);                                                               \
            assert_true(G##_xyzz_is_inf(&xinf));                                                   \
            G##_xyzz_from_jac(&xa, &a);                                                            \
            G##_xyzz_from_jac(&xb, &b);                                                            \
            G##_xyzz_dbl(&xb, &xb); /* a non-trivial ZZ, ZZZ */                                    \
            G##_jac_dbl(&b, &b);                                                                   \
            G##_jac_add(&sum, &a, &b);                                                             \
            G##_xyzz_add(&xs, &xa, &xb);                                                           \
            G##_assert_xyzz_is(&xs, &sum);                                                         \
            G##_xyzz_add(&xs, &xb, &xa);                                                           \
            G##_assert_xyzz_is(&xs, &sum);                                                         \
            G##_xyzz_add_affine(&xs, &xb, &aa);                                                    \
            G##_assert_xyzz_is(&xs, &sum);                                                         \
            G##_xyzz_dbl(&xs, &xa);                                                                \
            G##_assert_xyzz_is(&xs, &dbl);                                                         \
            G##_xyzz_add(&xs, &xa, &xa);                                                           \
            G##_assert_xyzz_is(&xs, &dbl);                                                         \
            G##_xyzz_add_affine(&xs, &xa, &aa);                                                    \
            G##_assert_xyzz_is(&xs, &dbl);                                                         \
            G##_xyzz_add_affine(&xs, &xa, &na);                                                    \
            assert_true(G##_xyzz_is_inf(&xs));                                                     \
            G##_xyzz_t xn;                                                                         \
            G##_xyzz_from_jac(&xn, &a);                                                            \
            G##_xyzz_dbl(&xn, &xn);                                                                \
            G##_jac_dbl(&out, &a);                                                                 \
            G##_jac_neg(&out, &out);                                                               \
            G##_xyzz_from_jac(&xs, &out); /* -2a in XYZZ, added to 2a */                           \
            G##_xyzz_add(&xs, &xn, &xs);                                                           \
            assert_true(G##_xyzz_is_inf(&xs));                                                     \
            G##_xyzz_add(&xs, &xinf, &xb);                                                         \
            G##_assert_xyzz_is(&xs, &b);                                                           \
            G##_xyzz_add(&xs, &xb, &xinf);                                                         \
            G##_assert_xyzz_is(&xs, &b);                                                           \
            G##_xyzz_add_affine(&xs, &xb, &ia);                                                    \
            G##_assert_xyzz_is(&xs, &b);                                                           \
            G##_xyzz_dbl(&xs, &xinf);                                                              \
            assert_true(G##_xyzz_is_inf(&xs));                                                     \
            G##_xyzz_to_jac(&out, &xinf);                                                          \
            assert_true(G##_jac_is_inf(&out));                                                     \
        }                                                                                          \
    }                                                                                              \
    static void G##_scalar_mul(void **state)                                                       \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        G##_jac_t p, q, s, t, acc;                                                                 \
        G##_random_jac(&p, &g);                                                                    \
        G##_jac_set_inf(&acc); /* k P against k additions, k = 0 .. 40 */                          \
        for (uint64_t k = 0; k <= 40; k++) {                                                       \
            G##_jac_mul_limbs(&q, &p, &k, 1);                                                      \
            assert_true(G##_jac_eq(&q, &acc));                                                     \
            fr_t kf;                                                                               \
            fr_from_u64(&kf, k);                                                                   \
            G##_jac_mul(&q, &p, &kf);                                                              \
            assert_true(G##_jac_eq(&q, &acc));                                                     \
            G##_jac_add(&acc, &acc, &p);                                                           \
        }                                                                                          \
        for (int i = 0, n = rounds(NU / 2); i < n; i++) {                                          \
            fr_t a, b, c;                                                                          \
            G##_random_jac(&p, &g);                                                                \
            fr_random(&a, &g);                                                                     \
            fr_random(&b, &g);                                                                     \
            fr_add(&c, &a, &b); /* (a + b) P = a P + b P */                                        \
            G##_jac_mul(&s, &p, &c);                                                               \
            G##_jac_mul(&q, &p, &a);                                                               \
            G##_jac_mul(&t, &p, &b);                                                               \
            G##_jac_add(&t, &q, &t);                                                               \
            assert_true(G##_jac_eq(&s, &t));                                                       \
            fr_mul(&c, &a, &b); /* (a b) P = a (b P) */                                            \
            G##_jac_mul(&s, &p, &c);                                                               \
            G##_jac_mul(&t, &p, &b);                                                               \
            G##_jac_mul(&t, &t, &a);                                                               \
            assert_true(G##_jac_eq(&s, &t));                                                       \
            fr_neg(&c, &a); /* (-a) P = -(a P) */                                                  \
            G##_jac_mul(&s, &p, &c);                                                               \
            G##_jac_neg(&s, &s);                                                                   \
            assert_true(G##_jac_eq(&s, &q));                                                       \
            uint64_t l[8] = {0}; /* a + r 2^256, as 8 limbs, gives a P again */                    \
            fr_to_canonical(l, &a);                                                                \
            memcpy(l + 4, FR_MODULUS, sizeof(FR_MODULUS));                                         \
            G##_jac_mul_limbs(&s, &p, l, 8);                                                       \
            assert_true(G##_jac_eq(&s, &q));                                                       \
            G##_jac_mul_limbs(&s, &p, FR_MODULUS, FR_LIMBS); /* r P = 0 */                         \
            assert_true(G##_jac_is_inf(&s));                                                       \
            G##_jac_set_inf(&s);                                                                   \
            G##_jac_mul(&s, &s, &a);                                                               \
            assert_true(G##_jac_is_inf(&s));                                                       \
        }                                                                                          \
    }                                                                                              \
    static void G##_mul_edge_scalars(void **state)                                                 \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        G##_jac_t p, q, s;                                                                         \
        G##_random_jac(&p, &g);                                                                    \
        for (size_t i = 0; i < sizeof(EDGE_SCALARS) / sizeof(EDGE_SCALARS[0]); i++) {              \
            fr_t k;                                                                                \
            assert_true(fr_from_canonical(&k, EDGE_SCALARS[i]));                                   \
            G##_jac_mul(&q, &p, &k);                                                               \
            G##_jac_mul_limbs(&s, &p, EDGE_SCALARS[i], 4);                                         \
            assert_true(G##_jac_eq(&q, &s));                                                       \
            assert_true(G##_jac_on_curve(&q));                                                     \
        }                                                                                          \
    }                                                                                              \
    static void G##_batch_to_affine(void **state)                                                  \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        enum { N = 17 };                                                                           \
        G##_jac_t p[N];                                                                            \
        G##_affine_t a[N], b;                                                                      \
        for (int i = 0; i < N; i++) {                                                              \
            if (i % 5 == 0)                                                                        \
                G##_jac_set_inf(&p[i]);                                                            \
            else                                                                                   \
                G##_random_jac(&p[i], &g);                                                         \
        }                                                                                          \
        G##_jac_batch_to_affine(a, p, N);                                                          \
        for (int i = 0; i < N; i++) {                                                              \
            G##_jac_to_affine(&b, &p[i]);                                                          \
            assert_true(G##_affine_eq(&a[i], &b));                                                 \
            assert_int_equal(G##_affine_is_inf(&a[i]), i % 5 == 0);                                \
            assert_true(G##_affine_on_curve(&a[i]));                                               \
            G##_jac_t back;                                                                        \
            G##_jac_from_affine(&back, &a[i]);                                                     \
            assert_true(G##_jac_eq(&back, &p[i]));                                                 \
        }                                                                                          \
        G##_jac_batch_to_affine(a, p, 0);                                                          \
        G##_jac_set_inf(&p[0]);                                                                    \
        G##_jac_batch_to_affine(a, p, 1);                                                          \
        assert_true(G##_affine_is_inf(&a[0]));                                                     \
    }                                                                                              \
    /* The fast check against [r]P = 0 on subgroup and whole-curve points. */                      \
    static void G##_subgroup_check(void **state)                                                   \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        G##_affine_t inf = {0};                                                                    \
        assert_true(G##_affine_in_subgroup(&inf));                                                 \
        for (int i = 0, n = rounds(NC); i < n; i++) {                                              \
            G##_jac_t j;                                                                           \
            G##_affine_t a;                                                                        \
            G##_random_jac(&j, &g);                                                                \
            G##_jac_to_affine(&a, &j);                                                             \
            assert_true(G##_affine_in_subgroup(&a));                                               \
            G##_random_curve_point(&a, &g);                                                        \
            assert_true(G##_affine_on_curve(&a));                                                  \
            assert_false(G##_affine_in_subgroup(&a));                                              \
            assert_false(G##_naive_in_subgroup(&a));                                               \
            G##_jac_from_affine(&j, &a); /* clearing the cofactor lands in G */                    \
            G##_jac_mul_limbs(&j, &j, COFACTOR, sizeof(COFACTOR) / 8);                             \
            G##_jac_to_affine(&a, &j);                                                             \
            assert_true(G##_naive_in_subgroup(&a));                                                \
            assert_true(G##_affine_in_subgroup(&a));                                               \
        }                                                                                          \
    }                                                                                              \
    /* The batch test (random subset sums) over more points than its exact */                      \
    /* fallback takes: every point in G passes, infinity included; a point off */                  \
    /* G, a pure torsion point T = [r] R, and T with -T or P + T with Q - T, */                    \
    /* whose parts outside G cancel in the sum of all points, are all caught. */                   \
    static void G##_all_in_subgroup_batch(void **state)                                            \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        enum { N = 4200 }; /* three chunks: bucket sets of several threads merged */               \
        G##_affine_t *p = malloc(N * sizeof *p);                                                   \
        G##_jac_t *js = malloc(N * sizeof *js), j, step, t;                                        \
        G##_random_jac(&j, &g);                                                                    \
        G##_random_jac(&step, &g);                                                                 \
        for (int i = 0; i < N; i++) js[i] = j, G##_jac_add(&j, &j, &step);                         \
        G##_jac_batch_to_affine(p, js, N);                                                         \
        memset(&p[7], 0, sizeof p[7]);                                                             \
        assert_true(G##_affine_all_in_subgroup(p, N));                                             \
        bool nested = false; /* from inside a parallel region: a team of one */                    \
        _Pragma("omp parallel num_threads(2)") _Pragma("omp single") nested =                      \
            G##_affine_all_in_subgroup(p, N);                                                      \
        assert_true(nested);                                                                       \
        G##_affine_t off, tor, neg_tor, keep[2];                                                   \
        G##_random_curve_point(&off, &g);                                                          \
        G##_jac_from_affine(&t, &off);                                                             \
        G##_jac_mul_limbs(&t, &t, FR_MODULUS, FR_LIMBS);                                           \
        G##_jac_to_affine(&tor, &t);                                                               \
        assert_false(G##_affine_is_inf(&tor) || G##_affine_in_subgroup(&tor));                     \
        G##_affine_neg(&neg_tor, &tor);                                                            \
        size_t a = cuzk_rng_u64(&g) % N, b = (a + 1 + cuzk_rng_u64(&g) % (N - 1)) % N;             \
        keep[0] = p[a], keep[1] = p[b];                                                            \
        p[a] = off;                                                                                \
        assert_false(G##_affine_all_in_subgroup(p, N));                                            \
        assert_false(G##_affine_all_in_subgroup(p + a, 1)); /* the exact path */                   \
        p[a] = tor;                                                                                \
        assert_false(G##_affine_all_in_subgroup(p, N));                                            \
        p[b] = neg_tor;                                                                            \
        assert_false(G##_affine_all_in_subgroup(p, N));                                            \
        G##_jac_from_affine(&t, &keep[0]);                                                         \
        G##_jac_add_affine(&t, &t, &tor);                                                          \
        G##_jac_to_affine(&p[a], &t);                                                              \
        G##_jac_from_affine(&t, &keep[1]);                                                         \
        G##_jac_add_affine(&t, &t, &neg_tor);                                                      \
        G##_jac_to_affine(&p[b], &t);                                                              \
        assert_false(G##_affine_all_in_subgroup(p, N));                                            \
        p[a] = keep[0], p[b] = keep[1];                                                            \
        assert_true(G##_affine_all_in_subgroup(p, N));                                             \
        free(js);                                                                                  \
        free(p);                                                                                   \
    }                                                                                              \
    static void G##_encoding_round_trips(void **state)                                             \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        enum { U = 2 * C_BYTES, C = C_BYTES };                                                     \
        for (int i = 0, n = rounds(NC); i <= n; i++) {                                             \
            G##_affine_t a = {0}, b, c;                                                            \
            if (i < n) { /* the last round is infinity */                                          \
                G##_jac_t j;                                                                       \
                G##_random_jac(&j, &g);                                                            \
                G##_jac_to_affine(&a, &j);                                                         \
            }                                                                                      \
            uint8_t u[U], cb[C], u2[U], c2[C];                                                     \
            cuzk_err e = {0};                                                                      \
            G##_affine_serialize(u, &a);                                                           \
            G##_affine_compress(cb, &a);                                                           \
            assert_int_equal(G##_affine_deserialize(&b, u, U, &e), CUZK_OK);                       \
            assert_int_equal(G##_affine_uncompress(&c, cb, C, &e), CUZK_OK);                       \
            assert_true(G##_affine_eq(&a, &b) && G##_affine_eq(&a, &c));                           \
            assert_int_equal(G##_affine_deserialize_unchecked(&b, u, U, &e), CUZK_OK);             \
            assert_true(G##_affine_eq(&a, &b));                                                    \
            G##_affine_serialize(u2, &b);                                                          \
            G##_affine_compress(c2, &c);                                                           \
            assert_memory_equal(u, u2, U);                                                         \
            assert_memory_equal(cb, c2, C);                                                        \
            assert_int_equal(cb[0] & 0xc0, i < n ? 0x80 : 0xc0);                                   \
            assert_int_equal(u[0] & 0xe0, i < n ? 0x00 : 0x40);                                    \
        }                                                                                          \
    }                                                                                              \
    /* Every rule of the decoders, each with its own code. */                                      \
    static void G##_decoder_errors(void **state)                                                   \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        enum { U = 2 * C_BYTES, C = C_BYTES };                                                     \
        uint8_t u[U], cb[C], bad[U], pbytes[FP_BYTES];                                             \
        G##_affine_t a, r;                                                                         \
        cuzk_err e;                                                                                \
        modulus_be(pbytes);                                                                        \
        G##_affine_serialize(u, &G##_GENERATOR);                                                   \
        G##_affine_compress(cb, &G##_GENERATOR);                                                   \
        /* wrong lengths */                                                                        \
        check_code(G##_affine_deserialize(&r, u, U - 1, &e), &e, CUZK_ELENGTH);                    \
        check_code(G##_affine_deserialize_unchecked(&r, u, C, &e), &e, CUZK_ELENGTH);              \
        check_code(G##_affine_uncompress(&r, cb, C + 1, &e), &e, CUZK_ELENGTH);                    \
        /* flags of the uncompressed form */                                                       \
        memcpy(bad, u, U), bad[0] |= 0x80;                                                         \
        check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_EFLAGS);                       \
        check_code(G##_affine_deserialize_unchecked(&r, bad, U, &e), &e, CUZK_EFLAGS);             \
        memcpy(bad, u, U), bad[0] |= 0x20;                                                         \
        check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_EFLAGS);                       \
        memset(bad, 0, U), bad[0] = 0x40, bad[U - 1] = 1;                                          \
        check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_EFLAGS);                       \
        memset(bad, 0, U), bad[0] = 0x41;                                                          \
        check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_EFLAGS);                       \
        memset(bad, 0, U), bad[0] = 0x60;                                                          \
        check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_EFLAGS);                       \
        /* flags of the compressed form */                                                         \
        memcpy(bad, cb, C), bad[0] &= 0x7f;                                                        \
        check_code(G##_affine_uncompress(&r, bad, C, &e), &e, CUZK_EFLAGS);                        \
        memset(bad, 0, C), bad[0] = 0xe0;                                                          \
        check_code(G##_affine_uncompress(&r, bad, C, &e), &e, CUZK_EFLAGS);                        \
        memset(bad, 0, C), bad[0] = 0xc0, bad[C - 1] = 1;                                          \
        check_code(G##_affine_uncompress(&r, bad, C, &e), &e, CUZK_EFLAGS);                        \
        memset(bad, 0, C), bad[0] = 0x40;                                                          \
        check_code(G##_affine_uncompress(&r, bad, C, &e), &e, CUZK_EFLAGS);                        \
        /* coordinates >= p: every Fp component of x and y in turn */                              \
        for (int at = 0; at < U; at += FP_BYTES) {                                                 \
            memcpy(bad, u, U);                                                                     \
            memcpy(bad + at, pbytes, FP_BYTES);                                                    \
            check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_ENONCANONICAL);            \
            check_code(G##_affine_deserialize_unchecked(&r, bad, U, &e), &e, CUZK_ENONCANONICAL);  \
            if (at >= C) continue;                                                                 \
            memcpy(bad, cb, C);                                                                    \
            memcpy(bad + at, pbytes, FP_BYTES);                                                    \
            bad[0] |= 0x80;                                                                        \
            check_code(G##_affine_uncompress(&r, bad, C, &e), &e, CUZK_ENONCANONICAL);             \
        }                                                                                          \
        /* (0, 0) without the infinity flag; y changed off the curve */                            \
        memset(bad, 0, U);                                                                         \
        check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_ENOTONCURVE);                  \
        check_code(G##_affine_deserialize_unchecked(&r, bad, U, &e), &e, CUZK_ENOTONCURVE);        \
        a = G##_GENERATOR;                                                                         \
        F##_add(&a.y, &a.y, &a.x);                                                                 \
        G##_affine_serialize(bad, &a);                                                             \
        check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_ENOTONCURVE);                  \
        assert_int_equal(G##_affine_deserialize_unchecked(&r, bad, U, &e), CUZK_OK);               \
        assert_true(G##_affine_eq(&r, &a));                                                        \
        /* an x with no y: x^3 + b a non-residue */                                                \
        F##_t b, rhs, y;                                                                           \
        F##_curve_b(&b);                                                                           \
        do {                                                                                       \
            F##_random(&a.x, &g);                                                                  \
            F##_sqr(&rhs, &a.x);                                                                   \
            F##_mul(&rhs, &rhs, &a.x);                                                             \
            F##_add(&rhs, &rhs, &b);                                                               \
        } while (F##_sqrt(&y, &rhs));                                                              \
        a.y = FP2_ONE_OR_FP_ONE_##F;                                                               \
        G##_affine_compress(bad, &a);                                                              \
        check_code(G##_affine_uncompress(&r, bad, C, &e), &e, CUZK_ENOSQRT);                       \
        /* a curve point outside the subgroup */                                                   \
        G##_random_curve_point(&a, &g);                                                            \
        G##_affine_serialize(bad, &a);                                                             \
        check_code(G##_affine_deserialize(&r, bad, U, &e), &e, CUZK_ENOTINSUBGROUP);               \
        assert_int_equal(G##_affine_deserialize_unchecked(&r, bad, U, &e), CUZK_OK);               \
        G##_affine_compress(bad, &a);                                                              \
        check_code(G##_affine_uncompress(&r, bad, C, &e), &e, CUZK_ENOTINSUBGROUP);                \
        /* a NULL error is allowed */                                                              \
        assert_int_equal(G##_affine_uncompress(&r, bad, C, NULL), CUZK_ENOTINSUBGROUP);            \
    }

#define FP2_ONE_OR_FP_ONE_fp  FP_ONE
#define FP2_ONE_OR_FP_ONE_fp2 FP2_ONE

EC_TESTS(g1, fp, 60, 20, H1, G1_COMPRESSED_BYTES)
EC_TESTS(g2, fp2, 16, 6, H2, G2_COMPRESSED_BYTES)

/* ZCash test vectors: the generators' compressed encodings. */
static void known_encodings(void **state)
{
    (void)state;
    uint8_t want[G2_COMPRESSED_BYTES], got[G2_UNCOMPRESSED_BYTES];
    size_t n = test_hex(want, sizeof(want),
                        "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff"
                        "97a1aeffb3af00adb22c6bb");
    assert_int_equal(n, G1_COMPRESSED_BYTES);
    g1_affine_compress(got, &g1_GENERATOR);
    assert_memory_equal(got, want, n);
    n = test_hex(want, sizeof(want),
                 "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57"
                 "e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d177"
                 "0bac0326a805bbefd48056c8c121bdb8");
    assert_int_equal(n, G2_COMPRESSED_BYTES);
    g2_affine_compress(got, &g2_GENERATOR);
    assert_memory_equal(got, want, n);
    /* uncompressed: x without flags, then y */
    uint8_t y1[48];
    test_hex(y1, sizeof(y1),
             "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa2"
             "32946c5e7e1");
    g1_affine_serialize(got, &g1_GENERATOR);
    assert_int_equal(got[0], 0x17);
    assert_memory_equal(got + 48, y1, 48);
}

/*
 * k G1 and k G2 for one fixed k, and 2 G1, as computed by an independent
 * affine implementation (Python big integers, textbook chord-and-tangent).
 */
static void known_multiples(void **state)
{
    (void)state;
    uint8_t kb[FR_BYTES], want[G2_COMPRESSED_BYTES], got[G2_COMPRESSED_BYTES];
    test_hex(kb, sizeof(kb), "02a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081");
    fr_t k, two;
    assert_true(fr_from_bytes_be(&k, kb));
    fr_from_u64(&two, 2);
    g1_jac_t p;
    g1_affine_t a;
    g1_jac_from_affine(&p, &g1_GENERATOR);
    g1_jac_mul(&p, &p, &k);
    g1_jac_to_affine(&a, &p);
    g1_affine_compress(got, &a);
    test_hex(
        want, sizeof(want),
        "ae1965b8fe26b45124863076c12be19e918a4abc97d382b9971124338812571dc865628815fb2eea850d86"
        "364bc9dedd");
    assert_memory_equal(got, want, G1_COMPRESSED_BYTES);
    g1_jac_from_affine(&p, &g1_GENERATOR);
    g1_jac_mul(&p, &p, &two);
    g1_jac_to_affine(&a, &p);
    g1_affine_compress(got, &a);
    test_hex(
        want, sizeof(want),
        "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c"
        "5529bf0f4e");
    assert_memory_equal(got, want, G1_COMPRESSED_BYTES);
    g2_jac_t q;
    g2_affine_t b;
    g2_jac_from_affine(&q, &g2_GENERATOR);
    g2_jac_mul(&q, &q, &k);
    g2_jac_to_affine(&b, &q);
    g2_affine_compress(got, &b);
    test_hex(
        want, sizeof(want),
        "85ec5da7e4392368038afebc77cab822cfaa139271525ef55dda77ddb4a6b4b8ced9b9699f7045794c5a49"
        "cafb80ac0d042c24c421e25028a2aa1270f7d315c6a7f7240b6e3e995cffb12a8c7371377054586ba780a4"
        "fa18392dc1870120ff91");
    assert_memory_equal(got, want, G2_COMPRESSED_BYTES);
}

/*
 * The G1 endomorphism: beta = 2^((p-1)/3) is a primitive cube root of unity
 * with phi(P) = [-x^2] P on G1, and beta^2 gives [x^2 - 1] P instead. This
 * fixes the sign and the root g1.c relies on.
 */
static void g1_endomorphism(void **state)
{
    (void)state;
    uint64_t e[FP_LIMBS];
    memcpy(e, FP_MODULUS, sizeof(e));
    e[0] -= 1; /* p - 1, divided by 3 below */
    uint64_t rem = 0;
    for (int i = FP_LIMBS; i-- > 0;) {
        unsigned __int128 cur = ((unsigned __int128)rem << 64) | e[i];
        e[i] = (uint64_t)(cur / 3);
        rem = (uint64_t)(cur % 3);
    }
    assert_int_equal(rem, 0);
    fp_t two, beta, beta2, t;
    fp_from_u64(&two, 2);
    fp_pow(&beta, &two, e, FP_LIMBS);
    fp_sqr(&beta2, &beta);
    fp_mul(&t, &beta2, &beta);
    assert_true(fp_is_one(&t) && !fp_is_one(&beta));
    g1_jac_t gen, x2, x2m1, phi;
    g1_jac_from_affine(&gen, &g1_GENERATOR);
    g1_jac_mul_limbs(&x2, &gen, &ABS_X, 1);
    g1_jac_mul_limbs(&x2, &x2, &ABS_X, 1); /* x^2 G */
    g1_jac_neg(&gen, &gen);
    g1_jac_add(&x2m1, &x2, &gen); /* (x^2 - 1) G */
    g1_jac_neg(&x2, &x2);         /* -x^2 G */
    g1_jac_from_affine(&phi, &g1_GENERATOR);
    fp_mul(&phi.x, &phi.x, &beta);
    assert_true(g1_jac_eq(&phi, &x2));
    g1_jac_from_affine(&phi, &g1_GENERATOR);
    fp_mul(&phi.x, &phi.x, &beta2);
    assert_true(g1_jac_eq(&phi, &x2m1));
    assert_false(g1_jac_eq(&phi, &x2));
}

/* psi(P) = [x] P on G2, with psi built from the Frobenius and the twist. */
static void g2_endomorphism(void **state)
{
    (void)state;
    uint64_t e[FP_LIMBS];
    memcpy(e, FP_MODULUS, sizeof(e));
    e[0] -= 1;
    uint64_t rem = 0, e2[FP_LIMBS]; /* (p - 1) / 2, then e = (p - 1) / 3 */
    for (int i = 0; i < FP_LIMBS; i++)
        e2[i] = (e[i] >> 1) | (i + 1 < FP_LIMBS ? e[i + 1] << 63 : 0);
    for (int i = FP_LIMBS; i-- > 0;) {
        unsigned __int128 cur = ((unsigned __int128)rem << 64) | e[i];
        e[i] = (uint64_t)(cur / 3);
        rem = (uint64_t)(cur % 3);
    }
    fp2_t w, cx, cy;
    w = FP2_ONE;
    w.c1 = FP_ONE; /* u + 1 */
    fp2_pow(&cx, &w, e, FP_LIMBS);
    fp2_inv(&cx, &cx);
    fp2_pow(&cy, &w, e2, FP_LIMBS);
    fp2_inv(&cy, &cy);
    g2_jac_t gen, xg, psi;
    g2_jac_from_affine(&gen, &g2_GENERATOR);
    g2_jac_mul_limbs(&xg, &gen, &ABS_X, 1);
    g2_jac_neg(&xg, &xg);
    g2_affine_t a = g2_GENERATOR;
    fp2_conj(&a.x, &a.x);
    fp2_mul(&a.x, &a.x, &cx);
    fp2_conj(&a.y, &a.y);
    fp2_mul(&a.y, &a.y, &cy);
    g2_jac_from_affine(&psi, &a);
    assert_true(g2_affine_on_curve(&a));
    assert_true(g2_jac_eq(&psi, &xg));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(g1_generator),
        cmocka_unit_test(g2_generator),
        cmocka_unit_test(g1_group_laws),
        cmocka_unit_test(g2_group_laws),
        cmocka_unit_test(g1_coordinates_agree),
        cmocka_unit_test(g2_coordinates_agree),
        cmocka_unit_test(g1_scalar_mul),
        cmocka_unit_test(g2_scalar_mul),
        cmocka_unit_test(g1_mul_edge_scalars),
        cmocka_unit_test(g2_mul_edge_scalars),
        cmocka_unit_test(g1_batch_to_affine),
        cmocka_unit_test(g2_batch_to_affine),
        cmocka_unit_test(g1_endomorphism),
        cmocka_unit_test(g2_endomorphism),
        cmocka_unit_test(g1_subgroup_check),
        cmocka_unit_test(g2_subgroup_check),
        cmocka_unit_test(g1_all_in_subgroup_batch),
        cmocka_unit_test(g2_all_in_subgroup_batch),
        cmocka_unit_test(known_encodings),
        cmocka_unit_test(known_multiples),
        cmocka_unit_test(g1_encoding_round_trips),
        cmocka_unit_test(g2_encoding_round_trips),
        cmocka_unit_test(g1_decoder_errors),
        cmocka_unit_test(g2_decoder_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
