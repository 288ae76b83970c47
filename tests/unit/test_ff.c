/*
 * test_ff.c - Fp, Fr and Fp2: field axioms on random values, edge values,
 * byte round trips, inversion, square roots, and known constants of
 * reference/groth16.md. (The independent noble-curves oracle is in
 * tests/oracle.)
 *
 * Both paths are covered: the x86 multiplication, addition and subtraction
 * (when the CPU has BMI2/ADX) are compared with the portable ones on random
 * and edge limbs, and the axiom tests run once with each path selected
 * (cuzk_ff_use_adx).
 * Inversion (variable-time divsteps) is checked against Fermat's a^(m-2),
 * and the windowed pow against a bit-by-bit square and multiply.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/fp.h"
#include "cuzk/fp2.h"
#include "cuzk/fr.h"
#include "ff/field_inline.h"

#define ROUNDS 2000

/* The same axiom checks for Fp and Fr, written once. */
#define FIELD_AXIOMS(F, T, NBYTES)                                                                 \
    static void F##_axioms(void **state)                                                           \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        for (int i = 0; i < ROUNDS; i++) {                                                         \
            T a, b, c, x, y, z;                                                                    \
            F##_random(&a, &g);                                                                    \
            F##_random(&b, &g);                                                                    \
            F##_random(&c, &g);                                                                    \
            F##_mul(&x, &a, &b);                                                                   \
            F##_mul(&y, &b, &a);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_mul(&x, &x, &c);                                                                   \
            F##_mul(&y, &b, &c);                                                                   \
            F##_mul(&y, &a, &y);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_add(&x, &a, &b); /* (a + b) c = ac + bc */                                         \
            F##_mul(&x, &x, &c);                                                                   \
            F##_mul(&y, &a, &c);                                                                   \
            F##_mul(&z, &b, &c);                                                                   \
            F##_add(&y, &y, &z);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_sub(&x, &a, &b); /* a - b + b = a, a + (-a) = 0 */                                 \
            F##_add(&x, &x, &b);                                                                   \
            assert_true(F##_eq(&x, &a));                                                           \
            F##_neg(&x, &a);                                                                       \
            F##_add(&x, &x, &a);                                                                   \
            assert_true(F##_is_zero(&x));                                                          \
            F##_dbl(&x, &a);                                                                       \
            F##_add(&y, &a, &a);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_sqr(&x, &a);                                                                       \
            F##_mul(&y, &a, &a);                                                                   \
            assert_true(F##_eq(&x, &y));                                                           \
            F##_mul_portable(&y, &a, &a);                                                          \
            assert_true(F##_eq(&x, &y));                                                           \
            if (i % 16 == 0) {                                                                     \
                assert_true(F##_inv(&y, &a)); /* a / a = 1 */                                      \
                F##_mul(&y, &y, &a);                                                               \
                assert_true(F##_is_one(&y));                                                       \
                assert_true(F##_sqrt(&y, &x)); /* sqrt(a^2) = +-a */                               \
                F##_neg(&z, &y);                                                                   \
                assert_true(F##_eq(&y, &a) || F##_eq(&z, &a));                                     \
                assert_int_equal(F##_legendre(&x), 1);                                             \
                int l = F##_legendre(&a);                                                          \
                assert_int_equal(F##_sqrt(&y, &a), l == 1);                                        \
            }                                                                                      \
            uint8_t be[NBYTES], le[NBYTES];                                                        \
            F##_to_bytes_be(be, &a);                                                               \
            F##_to_bytes_le(le, &a);                                                               \
            for (int k = 0; k < NBYTES; k++) assert_int_equal(be[k], le[NBYTES - 1 - k]);          \
            assert_true(F##_from_bytes_be(&x, be));                                                \
            assert_true(F##_from_bytes_le(&y, le));                                                \
            assert_true(F##_eq(&x, &a) && F##_eq(&y, &a));                                         \
        }                                                                                          \
    }                                                                                              \
    static void F##_edges(void **state)                                                            \
    {                                                                                              \
        (void)state;                                                                               \
        T zero = T##_ZERO_, one, m1, x;                                                            \
        F##_from_u64(&one, 1);                                                                     \
        assert_true(F##_is_one(&one));                                                             \
        F##_neg(&m1, &one);                                                                        \
        F##_sqr(&x, &m1); /* (-1)^2 = 1 */                                                         \
        assert_true(F##_is_one(&x));                                                               \
        F##_add(&x, &m1, &one);                                                                    \
        assert_true(F##_is_zero(&x));                                                              \
        F##_neg(&x, &zero);                                                                        \
        assert_true(F##_is_zero(&x));                                                              \
        assert_false(F##_inv(&x, &zero));                                                          \
        assert_int_equal(F##_legendre(&zero), 0);                                                  \
        assert_int_equal(F##_legendre(&m1), F##_legendre_minus_one_expected);                      \
        uint64_t l[NBYTES / 8]; /* m1 is mod - 1 */                                                \
        F##_to_canonical(l, &m1);                                                                  \
        assert_int_equal(l[0] + 1, F##_mod_low);                                                   \
        uint8_t be[NBYTES];                                                                        \
        F##_to_bytes_be(be, &m1); /* mod itself and all-ones are rejected */                       \
        be[NBYTES - 1]++;                                                                          \
        assert_false(F##_from_bytes_be(&x, be));                                                   \
        memset(be, 0xff, sizeof(be));                                                              \
        assert_false(F##_from_bytes_be(&x, be));                                                   \
        assert_true(F##_is_lexicographically_largest(&m1));                                        \
        assert_false(F##_is_lexicographically_largest(&one));                                      \
        assert_false(F##_is_lexicographically_largest(&zero));                                     \
    }

#define fp_t_ZERO_                     FP_ZERO
#define fr_t_ZERO_                     FR_ZERO
#define fp_legendre_minus_one_expected (-1) /* p = 3 mod 4 */
#define fr_legendre_minus_one_expected 1    /* r = 1 mod 4 */
#define fp_mod_low                     0xb9feffffffffaaabull
#define fr_mod_low                     0xffffffff00000001ull
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

#if !(defined(__x86_64__) && defined(__GNUC__))
/* No mulx/adx build: cuzk_cpu_has_adx() is false and these are never called. */
#define fp_mul_adx fp_mul_portable
#define fr_mul_adx fr_mul_portable
#endif

/* Fewer rounds under the sanitizers (CUZK_TEST_QUICK=1). */
static int rounds(int full)
{
    const char *q = getenv("CUZK_TEST_QUICK");
    return q && *q == '1' ? full / 10 : full;
}

/* x >= m over n limbs (compared from the top). */
static bool limbs_geq(const uint64_t *x, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (x[i] != m[i]) return x[i] > m[i];
    return true;
}

/* out = (2^(64 n) - 1) mod m, all-ones limbs reduced, by repeated subtraction. */
static void all_ones_reduced(uint64_t *out, const uint64_t *m, int n)
{
    for (int i = 0; i < n; i++) out[i] = ~0ull;
    while (limbs_geq(out, m, n)) {
        unsigned __int128 borrow = 0;
        for (int i = 0; i < n; i++) {
            unsigned __int128 d = (unsigned __int128)out[i] - m[i] - borrow;
            out[i] = (uint64_t)d;
            borrow = (d >> 64) & 1;
        }
    }
}

/*
 * Edge limbs for the cross-checks: 0, 1, 2, m-1, m-2, m-2^64, all-ones
 * limbs under the top one of m, all-ones limbs reduced mod m, and powers of
 * two; all below m.
 */
static void edge_values(uint64_t *out, int k, const uint64_t *m, int n)
{
    memset(out, 0, sizeof(uint64_t) * (size_t)n);
    switch (k) {
    case 0:
        break;
    case 1:
        out[0] = 1;
        break;
    case 2:
        out[0] = 2;
        break;
    case 3:
        memcpy(out, m, sizeof(uint64_t) * (size_t)n), out[0] -= 1;
        break;
    case 4:
        memcpy(out, m, sizeof(uint64_t) * (size_t)n), out[0] -= 2;
        break;
    case 5:
        memcpy(out, m, sizeof(uint64_t) * (size_t)n), out[1] -= 1;
        break;
    case 6:
        for (int i = 0; i < n - 1; i++) out[i] = ~0ull;
        out[n - 1] = m[n - 1] - 1;
        break;
    case 7:
        all_ones_reduced(out, m, n);
        break;
    default: { /* 2^j, or m's top limb halved where 2^j would not be below m */
        int limb = (k - 8) / 64 % n;
        uint64_t v = 1ull << ((k - 8) % 64);
        out[limb] = limb == n - 1 && v >= m[n - 1] ? m[n - 1] / 2 : v;
        break;
    }
    }
}
#define N_EDGES (8 + 64 * 4)

/* r = a + m as raw limbs (< 2m, no reduction) when on, else a copy of a. */
#define unreduced(r, a, m, n, on)                                                                  \
    do {                                                                                           \
        if (on)                                                                                    \
            add_modulus((r)->l, (a)->l, m, n);                                                     \
        else                                                                                       \
            *(r) = *(a);                                                                           \
    } while (0)
static void add_modulus(uint64_t *r, const uint64_t *a, const uint64_t *m, int n)
{
    unsigned __int128 c = 0;
    for (int i = 0; i < n; i++) {
        c += (unsigned __int128)a[i] + m[i];
        r[i] = (uint64_t)c;
        c >>= 64;
    }
}

/*
 * mul_adx against mul_portable: random pairs, all pairs of edge values, and
 * (for Fp, UNRED = 1) unreduced inputs a + p, which fp2.c relies on, giving
 * the same canonical product. Without ADX only the portable path runs.
 */
#define MUL_PATHS(F, T, N, MOD, UNRED)                                                             \
    static void F##_mul_paths(void **state)                                                        \
    {                                                                                              \
        (void)state;                                                                               \
        bool adx = cuzk_cpu_has_adx();                                                             \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        T a, b, x, y, ua;                                                                          \
        for (int i = 0; i < rounds(20000); i++) {                                                  \
            F##_random(&a, &g);                                                                    \
            F##_random(&b, &g);                                                                    \
            F##_mul_portable(&x, &a, &b);                                                          \
            unreduced(&ua, &a, MOD, N, UNRED);                                                     \
            F##_mul_portable(&y, &ua, &b);                                                         \
            assert_memory_equal(&x, &y, sizeof(T));                                                \
            if (!adx) continue;                                                                    \
            F##_mul_adx(&y, &a, &b);                                                               \
            assert_memory_equal(&x, &y, sizeof(T));                                                \
            F##_mul_adx(&y, &ua, &b);                                                              \
            assert_memory_equal(&x, &y, sizeof(T));                                                \
            F##_mul_adx(&y, &a, &a);                                                               \
            F##_mul_portable(&x, &a, &a);                                                          \
            assert_memory_equal(&x, &y, sizeof(T));                                                \
        }                                                                                          \
        for (int i = 0; i < N_EDGES; i++)                                                          \
            for (int j = 0; j < N_EDGES; j += (j < 9 ? 1 : 13)) {                                  \
                edge_values(a.l, i, MOD, N);                                                       \
                edge_values(b.l, j, MOD, N);                                                       \
                F##_mul_portable(&x, &a, &b);                                                      \
                assert_true(F##_eq(&x, &x) && x.l[N - 1] <= MOD[N - 1]);                           \
                if (adx) {                                                                         \
                    F##_mul_adx(&y, &a, &b);                                                       \
                    assert_memory_equal(&x, &y, sizeof(T));                                        \
                }                                                                                  \
                unreduced(&ua, &a, MOD, N, UNRED);                                                 \
                F##_mul_portable(&y, &ua, &b);                                                     \
                assert_memory_equal(&x, &y, sizeof(T));                                            \
            }                                                                                      \
    }

/* add, sub, dbl, neg of a and b on the path selected now, into out[0..3]. */
#define ADDSUB_ALL(F, T)                                                                           \
    static void F##_addsub_all(T out[4], const T *a, const T *b)                                   \
    {                                                                                              \
        F##_add(&out[0], a, b);                                                                    \
        F##_sub(&out[1], a, b);                                                                    \
        F##_dbl(&out[2], a);                                                                       \
        F##_neg(&out[3], b);                                                                       \
    }

/* The x86 addition and subtraction against the portable ones: all pairs of
 * edge values and random pairs (without the x86 path both runs are portable). */
#define ADDSUB_PATHS(F, T, N, MOD)                                                                 \
    ADDSUB_ALL(F, T)                                                                               \
    static void F##_addsub_paths(void **state)                                                     \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        T a, b, x[4], y[4];                                                                        \
        for (int i = 0; i < N_EDGES + rounds(20000); i++)                                          \
            for (int j = 0; j < (i < N_EDGES ? N_EDGES : 1); j++) {                                \
                if (i < N_EDGES) {                                                                 \
                    edge_values(a.l, i, MOD, N);                                                   \
                    edge_values(b.l, j, MOD, N);                                                   \
                } else {                                                                           \
                    F##_random(&a, &g);                                                            \
                    F##_random(&b, &g);                                                            \
                }                                                                                  \
                cuzk_ff_use_adx(false);                                                            \
                F##_addsub_all(x, &a, &b);                                                         \
                cuzk_ff_use_adx(true);                                                             \
                F##_addsub_all(y, &a, &b);                                                         \
                assert_memory_equal(x, y, sizeof(x));                                              \
            }                                                                                      \
    }

/* a^e bit by bit, the reference for the windowed pow. */
#define POW_REF(F, T)                                                                              \
    static void F##_pow_ref(T *r, const T *a, const uint64_t *e, int n)                            \
    {                                                                                              \
        T acc = T##_ONE_;                                                                          \
        for (int i = n - 1; i >= 0; i--)                                                           \
            for (int b = 63; b >= 0; b--) {                                                        \
                F##_mul_portable(&acc, &acc, &acc);                                                \
                if ((e[i] >> b) & 1) F##_mul_portable(&acc, &acc, a);                              \
            }                                                                                      \
        *r = acc;                                                                                  \
    }

/*
 * Inversion against Fermat (a^(m-2) with the reference pow) on random and
 * edge values, and the windowed pow against the reference on random
 * exponents of 1 to N limbs (and e = 0, 1).
 */
#define INV_POW(F, T, N, MOD)                                                                      \
    POW_REF(F, T)                                                                                  \
    static void F##_inv_pow(void **state)                                                          \
    {                                                                                              \
        (void)state;                                                                               \
        cuzk_rng g;                                                                                \
        test_rng(&g);                                                                              \
        uint64_t e[N];                                                                             \
        memcpy(e, MOD, sizeof(e));                                                                 \
        e[0] -= 2;                                                                                 \
        T a, x, y;                                                                                 \
        for (int i = 0; i < rounds(200) + N_EDGES; i++) {                                          \
            if (i < N_EDGES)                                                                       \
                edge_values(a.l, i, MOD, N);                                                       \
            else                                                                                   \
                F##_random(&a, &g);                                                                \
            if (F##_is_zero(&a)) continue;                                                         \
            assert_true(F##_inv(&x, &a));                                                          \
            if (i % 4 == 0 || i < 8) {                                                             \
                F##_pow_ref(&y, &a, e, N);                                                         \
                assert_memory_equal(&x, &y, sizeof(T));                                            \
            }                                                                                      \
            F##_mul(&y, &x, &a);                                                                   \
            assert_true(F##_is_one(&y));                                                           \
        }                                                                                          \
        for (int i = 0; i < rounds(100); i++) {                                                    \
            uint64_t ex[N];                                                                        \
            int n = 1 + i % N;                                                                     \
            for (int k = 0; k < n; k++) ex[k] = cuzk_rng_u64(&g);                                  \
            if (i == 0) ex[0] = 0;                                                                 \
            if (i == 1) ex[0] = 1;                                                                 \
            F##_random(&a, &g);                                                                    \
            F##_pow(&x, &a, ex, (size_t)n);                                                        \
            F##_pow_ref(&y, &a, ex, n);                                                            \
            assert_memory_equal(&x, &y, sizeof(T));                                                \
        }                                                                                          \
    }

#define fp_t_ONE_ FP_ONE
#define fr_t_ONE_ FR_ONE
MUL_PATHS(fp, fp_t, FP_LIMBS, FP_MODULUS, 1)
MUL_PATHS(fr, fr_t, FR_LIMBS, FR_MODULUS, 0)
ADDSUB_PATHS(fp, fp_t, FP_LIMBS, FP_MODULUS)
ADDSUB_PATHS(fr, fr_t, FR_LIMBS, FR_MODULUS)
INV_POW(fp, fp_t, FP_LIMBS, FP_MODULUS)
INV_POW(fr, fr_t, FR_LIMBS, FR_MODULUS)

/* Fp2 products against the schoolbook formula on portable Fp products,
 * including components p - 1 (largest unreduced sums, negative a0 b0 - a1 b1). */
static void fp2_mul_schoolbook(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    fp_t m1;
    fp_neg(&m1, &FP_ONE);
    for (int i = 0; i < rounds(3000); i++) {
        fp2_t a, b, x, y;
        fp2_random(&a, &g);
        fp2_random(&b, &g);
        if (i % 5 == 1) a.c0 = m1, b.c1 = m1;
        if (i % 5 == 2) a.c1 = m1, b.c1 = m1, a.c0 = FP_ZERO;
        if (i % 5 == 3) a.c0 = a.c1 = b.c0 = b.c1 = m1;
        fp_t t0, t1;
        fp_mul_portable(&t0, &a.c0, &b.c0);
        fp_mul_portable(&t1, &a.c1, &b.c1);
        fp_sub(&y.c0, &t0, &t1);
        fp_mul_portable(&t0, &a.c0, &b.c1);
        fp_mul_portable(&t1, &a.c1, &b.c0);
        fp_add(&y.c1, &t0, &t1);
        fp2_mul(&x, &a, &b);
        assert_memory_equal(&x, &y, sizeof(x));
        fp2_mul(&a, &a, &b); /* aliased */
        assert_memory_equal(&a, &y, sizeof(x));
        fp2_sqr(&x, &b);
        fp2_mul(&y, &b, &b);
        assert_memory_equal(&x, &y, sizeof(x));
    }
}

/* The inline twins of field_inline.h give the public functions' results. */
#define INLINE_SAME(F, T)                                                                          \
    do {                                                                                           \
        T a, b, x, y, s;                                                                           \
        F##_random(&a, &g);                                                                        \
        F##_random(&b, &g);                                                                        \
        F##_sqr(&s, &a);                                                                           \
        F##_mul(&x, &a, &b), F##_mul_inline(&y, &a, &b);                                           \
        assert_memory_equal(&x, &y, sizeof(T));                                                    \
        F##_sqr(&x, &a), F##_sqr_inline(&y, &a);                                                   \
        assert_memory_equal(&x, &y, sizeof(T));                                                    \
        F##_add(&x, &a, &b), F##_add_inline(&y, &a, &b);                                           \
        assert_memory_equal(&x, &y, sizeof(T));                                                    \
        F##_sub(&x, &a, &b), F##_sub_inline(&y, &a, &b);                                           \
        assert_memory_equal(&x, &y, sizeof(T));                                                    \
        F##_neg(&x, &a), F##_neg_inline(&y, &a);                                                   \
        assert_memory_equal(&x, &y, sizeof(T));                                                    \
        F##_mul_inline(&a, &a, &a); /* aliased */                                                  \
        assert_memory_equal(&a, &s, sizeof(T));                                                    \
    } while (0)

static void inline_ops(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int i = 0; i < rounds(2000); i++) {
        INLINE_SAME(fp, fp_t);
        INLINE_SAME(fr, fr_t);
    }
}

/* The axiom tests again with the portable multiplication selected. */
static void portable_path(void **state)
{
    cuzk_ff_use_adx(false);
    fp_axioms(state);
    fr_axioms(state);
    fp2_axioms(state);
    fp2_mul_schoolbook(state);
    fp_inv_pow(state);
    inline_ops(state);
    assert_int_equal(cuzk_ff_use_adx(true), cuzk_cpu_has_adx());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp_axioms),       cmocka_unit_test(fp_edges),
        cmocka_unit_test(fr_axioms),       cmocka_unit_test(fr_edges),
        cmocka_unit_test(batch_inverse),   cmocka_unit_test(fr_root_of_unity),
        cmocka_unit_test(fp2_axioms),      cmocka_unit_test(fp_mul_paths),
        cmocka_unit_test(fr_mul_paths),    cmocka_unit_test(fp_inv_pow),
        cmocka_unit_test(fr_inv_pow),      cmocka_unit_test(fp2_mul_schoolbook),
        cmocka_unit_test(fp_addsub_paths), cmocka_unit_test(fr_addsub_paths),
        cmocka_unit_test(inline_ops),      cmocka_unit_test(portable_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
