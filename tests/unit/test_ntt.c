/*
 * test_ntt.c - the NTT over Fr and the Groth16 quotient h:
 *   - domain constants against reference/groth16.md and against 7^((r-1)/n);
 *   - every transform, in every order pair, against a naive O(n^2) DFT at
 *     small sizes and for every shape (one radix-2 block and every
 *     four-step split), and at sampled outputs for the default shapes;
 *   - round trips at every size 2^0 .. 2^16 (and 2^20 outside quick mode);
 *   - bit-identical results for one and several threads;
 *   - h against naive polynomial arithmetic (h t = A B - C) at small sizes
 *     and at a random point (barycentric evaluation) at four-step sizes.
 */
#include "testutil.h"

#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/ntt.h"
#include "poly/ntt_internal.h"

static int quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

static fr_t *vec_new(size_t n)
{
    fr_t *v = malloc((n ? n : 1) * sizeof(fr_t));
    assert_non_null(v);
    return v;
}

static fr_t *vec_random(size_t n, cuzk_rng *g)
{
    fr_t *v = vec_new(n);
    for (size_t i = 0; i < n; i++) fr_random(&v[i], g);
    return v;
}

static void assert_vec_eq(const fr_t *a, const fr_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!fr_eq(&a[i], &b[i])) fail_msg("element %zu of %zu differs", i, n);
}

static fr_t fr_u64(uint64_t v)
{
    fr_t r;
    fr_from_u64(&r, v);
    return r;
}

static fr_t pow_u64(const fr_t *a, uint64_t e)
{
    fr_t r;
    fr_pow(&r, a, &e, 1);
    return r;
}

/* ---- naive references ---- */

/* The four transforms: out[k] = s_k sum_j in[j] shift^j w^(jk) (natural orders). */
enum { FWD, INV, COSET_FWD, COSET_INV, KINDS };

static void naive(fr_t *out, const fr_t *in, const ntt_domain *d, int kind)
{
    bool forward = kind == FWD || kind == COSET_FWD;
    const fr_t *w = forward ? &d->omega : &d->omega_inv;
    fr_t g = kind == COSET_FWD ? d->shift : FR_ONE;          /* input j scaled by g^j */
    fr_t s = forward ? FR_ONE : d->n_inv;                    /* output k scaled by s_k */
    fr_t s_step = kind == COSET_INV ? d->shift_inv : FR_ONE; /* s_k = s_0 s_step^k */
    fr_t wk = FR_ONE;                                        /* w^k */
    for (size_t k = 0; k < d->n; k++) {
        fr_t acc = FR_ZERO, term = FR_ONE, step; /* step = g w^k */
        fr_mul(&step, &g, &wk);
        for (size_t j = 0; j < d->n; j++) {
            fr_t t;
            fr_mul(&t, &in[j], &term);
            fr_add(&acc, &acc, &t);
            fr_mul(&term, &term, &step);
        }
        fr_mul(&out[k], &acc, &s);
        fr_mul(&s, &s, &s_step);
        fr_mul(&wk, &wk, w);
    }
}

static int run_kind(const ntt_domain *d, fr_t *x, int kind, ntt_order in, ntt_order out)
{
    switch (kind) {
    case FWD:
        return ntt_forward(d, x, in, out, NULL);
    case INV:
        return ntt_inverse(d, x, in, out, NULL);
    case COSET_FWD:
        return ntt_coset_forward(d, x, in, out, NULL);
    default:
        return ntt_coset_inverse(d, x, in, out, NULL);
    }
}

/* Runs kind on x (natural order) in the given orders and compares with want. */
static void check_orders(const ntt_domain *d, const fr_t *x, const fr_t *want, int kind)
{
    fr_t *v = vec_new(d->n), *w = vec_new(d->n);
    for (int in = 0; in < 2; in++)
        for (int out = 0; out < 2; out++) {
            memcpy(v, x, d->n * sizeof(fr_t));
            if (in == NTT_BITREV) ntt_bit_reverse(v, d->log_n);
            assert_int_equal(run_kind(d, v, kind, in, out), CUZK_OK);
            memcpy(w, want, d->n * sizeof(fr_t));
            if (out == NTT_BITREV) ntt_bit_reverse(w, d->log_n);
            assert_vec_eq(v, w, d->n);
        }
    free(v);
    free(w);
}

/* ---- constants ---- */

static void assert_fr_hex(const fr_t *a, const char *hex)
{
    uint8_t want[FR_BYTES], got[FR_BYTES];
    assert_int_equal(test_hex(want, sizeof(want), hex), FR_BYTES);
    fr_to_bytes_be(got, a);
    assert_memory_equal(got, want, FR_BYTES);
}

/* (r - 1) >> k as 4 limbs. */
static void r_minus_1_shifted(uint64_t e[FR_LIMBS], unsigned k)
{
    uint64_t m[FR_LIMBS];
    memcpy(m, FR_MODULUS, sizeof(m));
    m[0] -= 1;
    for (int i = 0; i < FR_LIMBS; i++) {
        uint64_t lo = m[i] >> k, hi = i + 1 < FR_LIMBS && k ? m[i + 1] << (64 - k) : 0;
        e[i] = lo | hi;
    }
}

static void test_check_values(void **state)
{
    (void)state;
    ntt_domain d;
    assert_int_equal(ntt_domain_init(&d, 27, NULL), CUZK_OK);
    assert_fr_hex(&d.omega, "0x23397a9300f8f98bece8ea224f31d25db94f1101b1d7a628e2d0a7869f0319ed");
    assert_fr_hex(&d.t_coset_inv,
                  "0x3cce2cbbce03d6bc82b2f0a62b7b100042289e15615b53f25f7d431bd40e5f31");
    fr_t seven = fr_u64(7), t;
    assert_true(fr_eq(&d.shift, &seven));
    fr_mul(&t, &d.shift, &d.shift_inv);
    assert_true(fr_is_one(&t));
    ntt_domain_free(&d);
    for (unsigned k = 0; k <= NTT_MAX_LOG; k++) {
        assert_int_equal(ntt_domain_init(&d, k, NULL), CUZK_OK);
        uint64_t e[FR_LIMBS]; /* omega_k = 7^((r-1)/2^k): primitive 2^k-th root */
        r_minus_1_shifted(e, k);
        fr_pow(&t, &seven, e, FR_LIMBS);
        assert_true(fr_eq(&t, &d.omega));
        t = d.omega;
        for (unsigned i = 0; i + 1 < k; i++) fr_sqr(&t, &t);
        fr_t minus_one;
        fr_neg(&minus_one, &FR_ONE);
        assert_true(k == 0 ? fr_is_one(&t) : fr_eq(&t, &minus_one));
        fr_mul(&t, &d.omega, &d.omega_inv);
        assert_true(fr_is_one(&t));
        fr_t n = fr_u64(d.n);
        fr_mul(&t, &n, &d.n_inv);
        assert_true(fr_is_one(&t));
        ntt_domain_free(&d);
    }
    cuzk_err err;
    assert_int_equal(ntt_domain_init(&d, NTT_MAX_LOG + 1, &err), CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "2^29"));
    assert_int_equal(ntt_domain_init_split(&d, 4, 4, NULL), CUZK_EINVAL);
    assert_null(d.tables);
}

static void test_bit_reverse(void **state)
{
    (void)state;
    assert_int_equal(ntt_brev(1, 1), 1);
    assert_int_equal(ntt_brev(1, 5), 16);
    assert_int_equal(ntt_brev(6, 4), 6);
    assert_int_equal(ntt_brev(0x12345, 20), 0xa2c48);
    for (unsigned log_n = 0; log_n <= 14; log_n++) {
        size_t n = (size_t)1 << log_n;
        fr_t *v = vec_new(n);
        for (size_t i = 0; i < n; i++) v[i] = fr_u64(i);
        ntt_bit_reverse(v, log_n);
        for (size_t i = 0; i < n; i++) {
            fr_t want = fr_u64(ntt_brev((uint32_t)i, log_n));
            assert_true(fr_eq(&v[i], &want));
        }
        free(v);
    }
}

/* ---- transforms against the naive DFT ---- */

static void test_naive_every_shape(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    unsigned max_log = quick() ? 6 : 8;
    for (unsigned log_n = 0; log_n <= max_log; log_n++) {
        size_t n = (size_t)1 << log_n;
        fr_t *x = vec_random(n, &g), *want[KINDS];
        ntt_domain d;
        assert_int_equal(ntt_domain_init(&d, log_n, NULL), CUZK_OK);
        for (int kind = 0; kind < KINDS; kind++) naive(want[kind] = vec_new(n), x, &d, kind);
        ntt_domain_free(&d);
        for (unsigned log_col = 0; log_col < (log_n ? log_n : 1); log_col++) {
            assert_int_equal(ntt_domain_init_split(&d, log_n, log_col, NULL), CUZK_OK);
            for (int kind = 0; kind < KINDS; kind++) check_orders(&d, x, want[kind], kind);
            ntt_domain_free(&d);
        }
        for (int kind = 0; kind < KINDS; kind++) free(want[kind]);
        free(x);
    }
}

/* Default shapes beyond one block: the naive sum at a few sampled outputs. */
static void test_naive_sampled(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (unsigned log_n = NTT_BLOCK_LOG - 1; log_n <= (quick() ? 14u : 16u); log_n++) {
        ntt_domain d;
        assert_int_equal(ntt_domain_init(&d, log_n, NULL), CUZK_OK);
        fr_t *x = vec_random(d.n, &g), *y = vec_new(d.n);
        for (int kind = 0; kind < KINDS; kind++) {
            memcpy(y, x, d.n * sizeof(fr_t));
            assert_int_equal(run_kind(&d, y, kind, NTT_NATURAL, NTT_NATURAL), CUZK_OK);
            for (int s = 0; s < 4; s++) {
                size_t k = cuzk_rng_u64(&g) % d.n;
                fr_t acc = FR_ZERO, term = FR_ONE, step, scale = FR_ONE, t;
                const fr_t *w = (kind == FWD || kind == COSET_FWD) ? &d.omega : &d.omega_inv;
                step = pow_u64(w, k);
                if (kind == COSET_FWD) fr_mul(&step, &step, &d.shift);
                if (kind == INV || kind == COSET_INV) scale = d.n_inv;
                if (kind == COSET_INV) {
                    t = pow_u64(&d.shift_inv, k);
                    fr_mul(&scale, &scale, &t);
                }
                for (size_t j = 0; j < d.n; j++) {
                    fr_mul(&t, &x[j], &term);
                    fr_add(&acc, &acc, &t);
                    fr_mul(&term, &term, &step);
                }
                fr_mul(&acc, &acc, &scale);
                assert_true(fr_eq(&acc, &y[k]));
            }
        }
        free(x);
        free(y);
        ntt_domain_free(&d);
    }
}

/* ---- round trips ---- */

static void round_trip(unsigned log_n, cuzk_rng *g)
{
    ntt_domain d;
    assert_int_equal(ntt_domain_init(&d, log_n, NULL), CUZK_OK);
    fr_t *x = vec_random(d.n, g), *y = vec_new(d.n);
    memcpy(y, x, d.n * sizeof(fr_t));
    assert_int_equal(ntt_forward(&d, y, NTT_NATURAL, NTT_BITREV, NULL), CUZK_OK);
    assert_int_equal(ntt_inverse(&d, y, NTT_BITREV, NTT_NATURAL, NULL), CUZK_OK);
    assert_vec_eq(x, y, d.n);
    assert_int_equal(ntt_coset_forward(&d, y, NTT_NATURAL, NTT_NATURAL, NULL), CUZK_OK);
    assert_int_equal(ntt_coset_inverse(&d, y, NTT_NATURAL, NTT_BITREV, NULL), CUZK_OK);
    ntt_bit_reverse(y, log_n);
    assert_vec_eq(x, y, d.n);
    free(x);
    free(y);
    ntt_domain_free(&d);
}

static void test_round_trips(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (unsigned log_n = 0; log_n <= 16; log_n++) round_trip(log_n, &g);
    if (!quick()) round_trip(20, &g);
}

/* ---- threads ---- */

static void test_threads_identical(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    int saved = omp_get_max_threads();
    unsigned log_n = quick() ? 13 : 15;
    ntt_domain d;
    assert_int_equal(ntt_domain_init(&d, log_n, NULL), CUZK_OK);
    fr_t *x = vec_random(d.n, &g), *one = vec_new(d.n), *many = vec_new(d.n);
    for (int kind = 0; kind < KINDS; kind++)
        for (int in = 0; in < 2; in++) {
            memcpy(one, x, d.n * sizeof(fr_t));
            memcpy(many, x, d.n * sizeof(fr_t));
            omp_set_num_threads(1);
            assert_int_equal(run_kind(&d, one, kind, in, !in), CUZK_OK);
            omp_set_num_threads(4);
            assert_int_equal(run_kind(&d, many, kind, in, !in), CUZK_OK);
            assert_memory_equal(one, many, d.n * sizeof(fr_t));
        }
    omp_set_num_threads(saved);
    free(x);
    free(one);
    free(many);
    ntt_domain_free(&d);
}

/* ---- moving evaluations to a coset ---- */

/* sum_j p[j] z^j */
static fr_t horner(const fr_t *p, size_t n, const fr_t *z)
{
    fr_t acc = FR_ZERO;
    for (size_t i = n; i-- > 0;) {
        fr_mul(&acc, &acc, z);
        fr_add(&acc, &acc, &p[i]);
    }
    return acc;
}

/* Random shift at small sizes against Horner at shift omega^k; shift 7 at a
 * four-step size against ntt_coset_forward. */
static void test_shift_evaluations(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (unsigned log_n = 0; log_n <= NTT_BLOCK_LOG + 2; log_n++) {
        ntt_domain d;
        assert_int_equal(ntt_domain_init(&d, log_n, NULL), CUZK_OK);
        fr_t *p = vec_random(d.n, &g), *ev = vec_new(d.n), *want = vec_new(d.n), s = d.shift;
        bool small = log_n <= 6;
        if (small) fr_random(&s, &g);
        memcpy(ev, p, d.n * sizeof(fr_t));
        assert_int_equal(ntt_forward(&d, ev, NTT_NATURAL, NTT_NATURAL, NULL), CUZK_OK);
        assert_int_equal(ntt_shift_evaluations(&d, ev, &s, NULL), CUZK_OK);
        memcpy(want, p, d.n * sizeof(fr_t));
        assert_int_equal(ntt_coset_forward(&d, want, NTT_NATURAL, NTT_NATURAL, NULL), CUZK_OK);
        for (size_t k = 0; small && k < d.n; k++) {
            fr_t at, wk = pow_u64(&d.omega, k);
            fr_mul(&at, &s, &wk);
            want[k] = horner(p, d.n, &at);
        }
        assert_vec_eq(ev, want, d.n);
        free(p);
        free(ev);
        free(want);
        ntt_domain_free(&d);
    }
}

/* ---- the Groth16 quotient ---- */

/* Random a, b with c = a b pointwise on the first len points (a satisfied
 * system); junk beyond len, which ntt_groth16_h must treat as zero. */
static void satisfied_abc(fr_t *abc[3], size_t len, size_t n, cuzk_rng *g)
{
    for (int k = 0; k < 3; k++) abc[k] = vec_random(n, g);
    for (size_t i = 0; i < len; i++) fr_mul(&abc[2][i], &abc[0][i], &abc[1][i]);
}

/* p = A B - C as coefficients (2n - 1 of them), from evaluations, naively. */
static fr_t *naive_abc_poly(fr_t *abc[3], size_t len, const ntt_domain *d)
{
    size_t n = d->n;
    fr_t *coef[3], *p = vec_new(2 * n);
    for (int k = 0; k < 3; k++) {
        fr_t *ev = vec_new(n);
        memset(ev, 0, n * sizeof(fr_t));
        memcpy(ev, abc[k], len * sizeof(fr_t));
        naive(coef[k] = vec_new(n), ev, d, INV);
        free(ev);
    }
    memset(p, 0, 2 * n * sizeof(fr_t));
    for (size_t i = 0; i < n; i++) {
        fr_sub(&p[i], &p[i], &coef[2][i]);
        for (size_t j = 0; j < n; j++) {
            fr_t t;
            fr_mul(&t, &coef[0][i], &coef[1][j]);
            fr_add(&p[i + j], &p[i + j], &t);
        }
    }
    for (int k = 0; k < 3; k++) free(coef[k]);
    return p;
}

/* satisfied: c = a b on the domain, so p = A B - C = h (X^n - 1); either
 * way h is the polynomial of degree < n equal to p / (7^n - 1) on the
 * coset 7 <omega>, p mod (X^n - 7^n) / (7^n - 1): h_k (7^n - 1) = p_k +
 * 7^n p_(k+n) (what the seven-transform form computed, for any c). */
static void check_h_naive(unsigned log_n, unsigned log_col, size_t len, bool satisfied, cuzk_rng *g)
{
    ntt_domain d;
    assert_int_equal(ntt_domain_init_split(&d, log_n, log_col, NULL), CUZK_OK);
    size_t n = d.n;
    fr_t *abc[3];
    satisfied_abc(abc, len, n, g);
    if (!satisfied)
        for (size_t i = 0; i < len; i++) fr_random(&abc[2][i], g);
    fr_t *p = naive_abc_poly(abc, len, &d);
    assert_int_equal(ntt_groth16_h(&d, abc[0], abc[1], abc[2], len, NULL), CUZK_OK);
    const fr_t *h = abc[0];
    if (satisfied) {
        assert_true(fr_is_zero(&h[n - 1]));
        for (size_t k = 0; k < 2 * n; k++) { /* p = h (X^n - 1): p_k = h_(k-n) - h_k */
            fr_t want = k >= n ? h[k - n] : FR_ZERO;
            if (k < n) fr_sub(&want, &want, &h[k]);
            assert_true(fr_eq(&p[k], &want));
        }
    }
    fr_t gn = pow_u64(&d.shift, n), z;
    fr_sub(&z, &gn, &FR_ONE);
    for (size_t k = 0; k < n; k++) {
        fr_t lhs, rhs;
        fr_mul(&lhs, &h[k], &z);
        fr_mul(&rhs, &p[k + n], &gn);
        fr_add(&rhs, &rhs, &p[k]);
        assert_true(fr_eq(&lhs, &rhs));
    }
    for (int k = 0; k < 3; k++) free(abc[k]);
    free(p);
    ntt_domain_free(&d);
}

static void test_h_naive(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (unsigned log_n = 0; log_n <= (quick() ? 5u : 6u); log_n++) {
        size_t n = (size_t)1 << log_n;
        for (unsigned log_col = 0; log_col < (log_n ? log_n : 1); log_col++) {
            check_h_naive(log_n, log_col, n, true, &g);
            check_h_naive(log_n, log_col, n - n / 3, true, &g);
            check_h_naive(log_n, log_col, n - n / 3, false, &g);
        }
    }
}

/* P(z) from evaluations on the domain (barycentric form):
 * P(z) = (z^n - 1)/n sum_k P(omega^k) omega^k / (z - omega^k). */
static fr_t eval_barycentric(const fr_t *ev, const ntt_domain *d, const fr_t *z)
{
    fr_t *den = vec_new(d->n), wk = FR_ONE, acc = FR_ZERO, t;
    for (size_t k = 0; k < d->n; k++) {
        fr_sub(&den[k], z, &wk);
        fr_mul(&wk, &wk, &d->omega);
    }
    fr_batch_inv(den, den, d->n);
    wk = FR_ONE;
    for (size_t k = 0; k < d->n; k++) {
        fr_mul(&t, &ev[k], &wk);
        fr_mul(&t, &t, &den[k]);
        fr_add(&acc, &acc, &t);
        fr_mul(&wk, &wk, &d->omega);
    }
    t = pow_u64(z, d->n);
    fr_sub(&t, &t, &FR_ONE);
    fr_mul(&t, &t, &d->n_inv);
    fr_mul(&acc, &acc, &t);
    free(den);
    return acc;
}

/* Four-step sizes: h(z) (z^n - 1) = A(z) B(z) - C(z) at a random z. */
static void test_h_random_point(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (unsigned log_n = NTT_BLOCK_LOG; log_n <= (quick() ? 13u : 15u); log_n++) {
        ntt_domain d;
        assert_int_equal(ntt_domain_init(&d, log_n, NULL), CUZK_OK);
        size_t len = d.n - 5;
        fr_t *abc[3], z, ev[3], lhs, rhs, t;
        satisfied_abc(abc, len, d.n, &g);
        for (int k = 0; k < 3; k++) memset(abc[k] + len, 0, 5 * sizeof(fr_t));
        fr_random(&z, &g);
        for (int k = 0; k < 3; k++) ev[k] = eval_barycentric(abc[k], &d, &z);
        assert_int_equal(ntt_groth16_h(&d, abc[0], abc[1], abc[2], len, NULL), CUZK_OK);
        lhs = horner(abc[0], d.n, &z);
        t = pow_u64(&z, d.n);
        fr_sub(&t, &t, &FR_ONE);
        fr_mul(&lhs, &lhs, &t);
        fr_mul(&rhs, &ev[0], &ev[1]);
        fr_sub(&rhs, &rhs, &ev[2]);
        assert_true(fr_eq(&lhs, &rhs));
        assert_true(fr_is_zero(&abc[0][d.n - 1]));
        for (int k = 0; k < 3; k++) free(abc[k]);
        ntt_domain_free(&d);
    }
}

static void test_h_errors(void **state)
{
    (void)state;
    ntt_domain d;
    cuzk_err err;
    fr_t a[4] = {0}, b[4] = {0}, c[4] = {0};
    assert_int_equal(ntt_domain_init(&d, 2, NULL), CUZK_OK);
    assert_int_equal(ntt_groth16_h(&d, a, b, c, 5, &err), CUZK_ELENGTH);
    assert_non_null(strstr(err.msg, "exceed"));
    ntt_domain_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_values),      cmocka_unit_test(test_bit_reverse),
        cmocka_unit_test(test_naive_every_shape), cmocka_unit_test(test_naive_sampled),
        cmocka_unit_test(test_round_trips),       cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_shift_evaluations), cmocka_unit_test(test_h_naive),
        cmocka_unit_test(test_h_random_point),    cmocka_unit_test(test_h_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
