/*
 * test_gpu.c - correctness of the CUDA kernels (gpu.h) against the CPU.
 *
 * Every check draws fresh random inputs (the seed is printed; pass one as
 * argv[1] to replay) and compares with an independent CPU computation:
 * field products with fp.h / fr.h / fp2.h; scalar multiples with ec.h;
 * NTTs with a naive DFT at 2^10 and, at larger sizes, with Horner
 * evaluations of the input at a few roots; the H computation with the
 * identity h(t) (t^n - 1) = A(t) B(t) - C(t) at a random t (A, B, C the
 * interpolants of a, b, c = a b, evaluated by the Lagrange formula); the
 * MSM with a sum of g1_jac_mul over the points, for several window sizes
 * and for edge-case scalars and bases; then the GPU prover
 * (gpu_prove_checks.c) and the development setup (gpu_setup_checks.c)
 * against the CPU's; a, b, c from circuit shapes on the device
 * (gpu_shape_eval_dev) against cs_shape_eval, byte for byte and in the
 * constraint a failing witness is reported at. Exit status: 0 pass, 1 failure,
 * 77 no GPU (ctest counts it as skipped). `test_gpu --probe` only checks
 * that the program loads; `test_gpu --setup [SEED]` runs the development
 * setup's checks alone (gpu_setup_checks.c), `test_gpu --shapes [SEED]`
 * the shapes' alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/ec.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "gpu/util/buf.cuh"
#include "gpu_check.h"
#include "gpu_lane_checks.h"
#include "gpu_prove_checks.h"
#include "gpu_setup_checks.h"
#include "poly_check.h"

static cuzk_rng rng;
static int quick; /* CUZK_TEST_QUICK: small sizes only (compute-sanitizer runs) */

#define OK(call)                                                                                   \
    do {                                                                                           \
        cuzk_err e_ = {0};                                                                         \
        int rc_ = (call);                                                                          \
        if (rc_) {                                                                                 \
            printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, e_.msg);                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
/* OK() passes &e_ through this name. */
#define E (&e_)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("FAIL out of host memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static void test_fields(void)
{
    enum { N = 4096 };
    fp_t *a = xmalloc(N * sizeof *a), *b = xmalloc(N * sizeof *b), *g = xmalloc(N * sizeof *g);
    for (int i = 0; i < N; i++) {
        fp_random(&a[i], &rng);
        fp_random(&b[i], &rng);
    }
    /* edge values: 0, 1, p - 1 */
    a[0] = FP_ZERO;
    a[1] = FP_ONE;
    fp_neg(&a[2], &FP_ONE);
    b[2] = a[2];
    OK(gpu_fp_mul_vec(g, a, b, N, E));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        fp_t c;
        fp_mul(&c, &a[i], &b[i]);
        bad += !fp_eq(&c, &g[i]);
    }
    CHECK(bad == 0, "fp mul: %d of %d differ", bad, N);

    fr_t *x = (fr_t *)a, *y = (fr_t *)b, *z = (fr_t *)g;
    for (int i = 0; i < N; i++) {
        fr_random(&x[i], &rng);
        fr_random(&y[i], &rng);
    }
    fr_neg(&x[0], &FR_ONE);
    y[0] = x[0];
    OK(gpu_fr_mul_vec(z, x, y, N, E));
    bad = 0;
    for (int i = 0; i < N; i++) {
        fr_t c;
        fr_mul(&c, &x[i], &y[i]);
        bad += !fr_eq(&c, &z[i]);
    }
    CHECK(bad == 0, "fr mul: %d of %d differ", bad, N);

    fp2_t *u = (fp2_t *)a, *v = (fp2_t *)b, *w = (fp2_t *)g;
    for (int i = 0; i < N / 2; i++) {
        fp_random(&u[i].c0, &rng);
        fp_random(&u[i].c1, &rng);
        fp_random(&v[i].c0, &rng);
        fp_random(&v[i].c1, &rng);
    }
    OK(gpu_fp2_mul_vec(w, u, v, N / 2, E));
    bad = 0;
    for (int i = 0; i < N / 2; i++) {
        fp2_t c;
        fp2_mul(&c, &u[i], &v[i]);
        bad += !fp2_eq(&c, &w[i]);
    }
    CHECK(bad == 0, "fp2 mul: %d of %d differ", bad, N / 2);
    printf("fields: fp, fr, fp2 products match the CPU on %d random pairs\n", N);
    free(a);
    free(b);
    free(g);
}

/* n random points k G (CPU) */
static void random_g1(g1_affine_t *p, size_t n)
{
    g1_jac_t *j = xmalloc(n * sizeof *j), gen;
    g1_jac_from_affine(&gen, &g1_GENERATOR);
    for (size_t i = 0; i < n; i++) {
        fr_t k;
        fr_random(&k, &rng);
        g1_jac_mul(&j[i], &gen, &k);
    }
    g1_jac_batch_to_affine(p, j, n);
    free(j);
}

static void test_curves(void)
{
    enum { N1 = 64, N2 = 8 };
    g1_affine_t p1[N1];
    g1_jac_t r1[N1];
    fr_t k[N1];
    random_g1(p1, N1);
    for (int i = 0; i < N1; i++) fr_random(&k[i], &rng);
    fr_from_u64(&k[0], 0);
    fr_neg(&k[1], &FR_ONE);
    OK(gpu_g1_mul_vec(r1, p1, k, N1, E));
    int bad = 0;
    for (int i = 0; i < N1; i++) {
        g1_jac_t j, c;
        g1_jac_from_affine(&j, &p1[i]);
        g1_jac_mul(&c, &j, &k[i]);
        bad += !g1_jac_eq(&c, &r1[i]);
    }
    CHECK(bad == 0, "g1 mul: %d of %d differ", bad, N1);

    g2_affine_t p2[N2];
    g2_jac_t r2[N2], j2[N2], gen2;
    g2_jac_from_affine(&gen2, &g2_GENERATOR);
    for (int i = 0; i < N2; i++) {
        fr_t s;
        fr_random(&s, &rng);
        g2_jac_mul(&j2[i], &gen2, &s);
        fr_random(&k[i], &rng);
    }
    g2_jac_batch_to_affine(p2, j2, N2);
    OK(gpu_g2_mul_vec(r2, p2, k, N2, E));
    bad = 0;
    for (int i = 0; i < N2; i++) {
        g2_jac_t j, c;
        g2_jac_from_affine(&j, &p2[i]);
        g2_jac_mul(&c, &j, &k[i]);
        bad += !g2_jac_eq(&c, &r2[i]);
    }
    CHECK(bad == 0, "g2 mul: %d of %d differ", bad, N2);
    printf("curves: G1 (%d) and G2 (%d) scalar multiples match ec.h\n", N1, N2);
}

/* omega for 2^log_n, from ROOT_OF_UNITY (groth16.md) */
static void random_vec(fr_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++) fr_random(&x[i], &rng);
}

/* Forward at 2^10 against the naive DFT, then the inverse of each kind
 * must give the input back. */
static void test_ntt_naive(void)
{
    const unsigned lg = 10;
    const size_t n = (size_t)1 << lg;
    fr_t *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y), w, wi, g;
    random_vec(x, n);
    root_of(&w, lg);
    fr_from_u64(&g, 7);
    for (int coset = 0; coset < 2; coset++) {
        memcpy(y, x, n * sizeof *x);
        OK(gpu_ntt(y, lg, coset ? GPU_NTT_COSET_FWD : GPU_NTT_FORWARD, E));
        int bad = 0;
        fr_t pt = FR_ONE;
        if (coset) pt = g;
        for (size_t j = 0; j < n; j++) {
            fr_t v;
            poly_eval(&v, x, n, &pt);
            bad += !fr_eq(&v, &y[j]);
            fr_mul(&pt, &pt, &w);
        }
        CHECK(bad == 0, "ntt 2^10 %s: %d of %zu differ from the DFT", coset ? "coset" : "forward",
              bad, n);
        OK(gpu_ntt(y, lg, coset ? GPU_NTT_COSET_INV : GPU_NTT_INVERSE, E));
        CHECK(memcmp(x, y, n * sizeof *x) == 0, "ntt 2^10 %s inverse is not the input",
              coset ? "coset" : "plain");
    }
    (void)wi;
    printf("ntt: 2^10 forward / coset match the naive DFT; inverses round-trip\n");
    free(x);
    free(y);
}

/* Larger sizes: evaluations at a few random indices, then round trips. */
static void test_ntt_sizes(void)
{
    const unsigned sizes[] = {11, 13, 16, 19, 20, 21, 23};
    for (size_t s = 0; s < (quick ? 2 : sizeof sizes / sizeof *sizes); s++) {
        unsigned lg = sizes[s];
        size_t n = (size_t)1 << lg;
        fr_t *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y), w, g;
        random_vec(x, n);
        root_of(&w, lg);
        fr_from_u64(&g, 7);
        for (int coset = 0; coset < 2; coset++) {
            memcpy(y, x, n * sizeof *x);
            OK(gpu_ntt(y, lg, coset ? GPU_NTT_COSET_FWD : GPU_NTT_FORWARD, E));
            int bad = 0;
            for (int t = 0; t < 3; t++) {
                uint64_t j = t == 0 ? n - 1 : cuzk_rng_u64(&rng) % n, jl[4] = {j, 0, 0, 0};
                fr_t pt, v;
                fr_pow(&pt, &w, jl, 1);
                if (coset) fr_mul(&pt, &pt, &g);
                poly_eval(&v, x, n, &pt);
                bad += !fr_eq(&v, &y[j]);
            }
            CHECK(bad == 0, "ntt 2^%u %s: %d of 3 sampled outputs wrong", lg,
                  coset ? "coset" : "forward", bad);
            OK(gpu_ntt(y, lg, coset ? GPU_NTT_COSET_INV : GPU_NTT_INVERSE, E));
            CHECK(memcmp(x, y, n * sizeof *x) == 0, "ntt 2^%u %s round trip", lg,
                  coset ? "coset" : "plain");
        }
        free(x);
        free(y);
    }
    printf("ntt: sampled outputs and round trips at 2^11 .. 2^23\n");
}

/* Both pass kernels (radix 8, the default, and radix 2 at each block
 * size) give the same bytes for every kind, at sizes of one, two and
 * three passes. */
static void test_ntt_blocks(void)
{
    const unsigned blocks[] = {512, 1024, 256}, sizes[] = {10, 13, 17, 20, 21};
    for (size_t s = 0; s < (quick ? 2 : sizeof sizes / sizeof *sizes); s++) {
        unsigned lg = sizes[s];
        size_t n = (size_t)1 << lg;
        fr_t *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y), *z = xmalloc(n * sizeof *z);
        random_vec(x, n);
        for (int k = 0; k < 4; k++) {
            enum gpu_ntt_kind kind = (enum gpu_ntt_kind)k;
            memcpy(y, x, n * sizeof *x);
            OK(gpu_ntt(y, lg, kind, E));
            OK(gpu_ntt_set_radix(2, E));
            for (int b = 0; b < 3; b++) {
                OK(gpu_ntt_set_block(blocks[b], E));
                memcpy(z, x, n * sizeof *x);
                OK(gpu_ntt(z, lg, kind, E));
                CHECK(memcmp(y, z, n * sizeof *y) == 0,
                      "ntt 2^%u kind %d: radix 2 with %u threads differs from radix 8", lg, k,
                      blocks[b]);
            }
            OK(gpu_ntt_set_radix(8, E));
        }
        free(x);
        free(y);
        free(z);
    }
    cuzk_err bad = {0};
    CHECK(gpu_ntt_set_block(300, &bad) == CUZK_EINVAL, "ntt: 300 threads per block accepted");
    CHECK(gpu_ntt_set_radix(4, &bad) == CUZK_EINVAL, "ntt: radix 4 accepted");
    printf("ntt: radix 8 and radix 2 at 256 / 512 / 1024 threads give the same bytes, all kinds, "
           "2^10 .. 2^21\n");
}

static void test_ntt_h(void)
{
    const unsigned sizes[] = {10, 16, 20};
    for (size_t s = 0; s < (quick ? 1 : sizeof sizes / sizeof *sizes); s++) {
        unsigned lg = sizes[s];
        size_t n = (size_t)1 << lg;
        fr_t *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b), *c = xmalloc(n * sizeof *c);
        fr_t *h = xmalloc(n * sizeof *h), t;
        random_vec(a, n);
        random_vec(b, n);
        for (size_t i = 0; i < n; i++) fr_mul(&c[i], &a[i], &b[i]);
        OK(gpu_ntt_h(h, a, b, c, lg, E));
        fr_random(&t, &rng);
        CHECK(h_identity_at(a, b, c, h, lg, &t), "ntt h 2^%u: h(t) Z(t) != A(t) B(t) - C(t)", lg);
        CHECK(fr_is_zero(&h[n - 1]), "ntt h 2^%u: top coefficient of h is not zero", lg);
        fr_t *h2 = xmalloc(n * sizeof *h2);
        OK(gpu_ntt_set_radix(2, E));
        OK(gpu_ntt_h(h2, a, b, c, lg, E));
        OK(gpu_ntt_set_radix(8, E));
        CHECK(memcmp(h, h2, n * sizeof *h) == 0, "ntt h 2^%u: radix 2 differs from radix 8", lg);
        free(h2);
        free(a);
        free(b);
        free(c);
        free(h);
    }
    printf("ntt h: h Z = A B - C at a random point, 2^10, 2^16, 2^20; radix 2 gives the same "
           "bytes\n");
}

static void msm_ref(g1_jac_t *r, const g1_affine_t *p, const fr_t *k, size_t n)
{
    g1_jac_set_inf(r);
    for (size_t i = 0; i < n; i++) {
        g1_jac_t j, m;
        g1_jac_from_affine(&j, &p[i]);
        g1_jac_mul(&m, &j, &k[i]);
        g1_jac_add(r, r, &m);
    }
}

/* Cases: random scalars; zeros and ones; r - 1; one repeated scalar;
 * bases at infinity. Each checked against msm_ref for several windows. */
static void test_msm(void)
{
    const size_t n = 1000;
    g1_affine_t *p = xmalloc(n * sizeof *p);
    fr_t *k = xmalloc(n * sizeof *k);
    gpu_buf *bp, *bk;
    random_g1(p, n);
    OK(gpu_buf_new(&bp, n * sizeof *p, E));
    OK(gpu_buf_new(&bk, n * sizeof *k, E));
    static const char *names[] = {"random",   "0/1 bits",  "r-1 and 2^k",
                                  "repeated", "inf bases", "7 bases, +-k"};
    /* affine rounds forced down to 1, 3 and 16 pairs per thread */
    static const unsigned affine[3][2] = {{3, 1}, {2, 3}, {8, 16}};
    for (int cs = 0; cs < 6; cs++) {
        fr_t rep;
        fr_random(&rep, &rng);
        for (size_t i = 0; i < n; i++) {
            fr_random(&k[i], &rng);
            if (cs == 1) fr_from_u64(&k[i], cuzk_rng_u64(&rng) & 1);
            if (cs == 2 && i % 2) fr_neg(&k[i], &FR_ONE);
            if (cs == 2 && i % 2 == 0) fr_from_u64(&k[i], (uint64_t)1 << (i % 64));
            if (cs == 3) k[i] = rep;
            if (cs == 5 && i % 2) fr_neg(&k[i], &rep);
            if (cs == 5 && i % 2 == 0) k[i] = rep;
        }
        g1_affine_t *q = p;
        if (cs >= 4) {
            q = xmalloc(n * sizeof *q);
            for (size_t i = 0; i < n; i++) q[i] = cs == 4 ? p[i] : p[i % 7];
            for (size_t i = 0; cs == 4 && i < n; i += 3) memset(&q[i], 0, sizeof q[i]);
        }
        g1_jac_t want, got;
        msm_ref(&want, q, k, n);
        OK(gpu_buf_upload(bp, 0, q, n * sizeof *q, E));
        OK(gpu_buf_upload(bk, 0, k, n * sizeof *k, E));
        const unsigned windows[] = {0, 3, 7, 11, 16};
        for (int w = 0; w < 5; w++) {
            OK(gpu_msm_g1_dev(&got, bp, bk, n, windows[w], E));
            CHECK(g1_jac_eq(&want, &got), "msm %zu %s, window %u: wrong sum", n, names[cs],
                  windows[w]);
        }
        for (int a = 0; a < 3; a++) {
            OK(gpu_msm_set_affine(1, affine[a][0], affine[a][1], 1, E));
            OK(gpu_msm_g1_dev(&got, bp, bk, n, 7, E));
            CHECK(g1_jac_eq(&want, &got), "msm %zu %s, %u affine rounds of %u pairs: wrong sum", n,
                  names[cs], affine[a][0], affine[a][1]);
        }
        OK(gpu_msm_set_affine(GPU_MSM_AFFINE_G1, E));
        OK(gpu_msm_g1(&got, q, k, n, E));
        CHECK(g1_jac_eq(&want, &got), "msm %zu %s (host buffers): wrong sum", n, names[cs]);
        if (q != p) free(q);
    }
    gpu_buf_free(bp);
    gpu_buf_free(bk);
    free(p);
    free(k);
    printf("msm: %zu points, 6 scalar / base patterns x 5 windows, and with forced affine rounds, "
           "match sum k_i P_i\n",
           n);
}

/* G2: random scalars, then one repeated scalar, against g2_jac_mul. */
static void test_msm_g2(void)
{
    const size_t n = 300;
    g2_affine_t *p = xmalloc(n * sizeof *p);
    g2_jac_t *j = xmalloc(n * sizeof *j);
    fr_t *k = xmalloc(n * sizeof *k), rep;
    g2_jac_t gen, want, got;
    g2_jac_from_affine(&gen, &g2_GENERATOR);
    for (size_t i = 0; i < n; i++) {
        fr_random(&k[i], &rng);
        g2_jac_mul(&j[i], &gen, &k[i]);
    }
    g2_jac_batch_to_affine(p, j, n);
    fr_random(&rep, &rng);
    for (int cs = 0; cs < 2; cs++) {
        g2_jac_set_inf(&want);
        for (size_t i = 0; i < n; i++) {
            if (cs == 1)
                k[i] = rep;
            else
                fr_random(&k[i], &rng);
            g2_jac_t a, m;
            g2_jac_from_affine(&a, &p[i]);
            g2_jac_mul(&m, &a, &k[i]);
            g2_jac_add(&want, &want, &m);
        }
        OK(gpu_msm_g2(&got, p, k, n, E));
        CHECK(g2_jac_eq(&want, &got), "msm g2 %zu %s: wrong sum", n, cs ? "repeated" : "random");
        OK(gpu_msm_set_affine(2, 3, 2, 1, E));
        OK(gpu_msm_g2(&got, p, k, n, E));
        OK(gpu_msm_set_affine(GPU_MSM_AFFINE_G2, E));
        CHECK(g2_jac_eq(&want, &got), "msm g2 %zu %s, affine rounds: wrong sum", n,
              cs ? "repeated" : "random");
    }
    free(p);
    free(j);
    free(k);
    printf("msm g2: %zu points, random and repeated scalars match sum k_i Q_i (also with affine "
           "rounds)\n",
           n);
}

/* 2^18 and 2^20 bench points: results for four windows (22: of two
 * widths, 4 x 22 + 8 x 21 bits) must agree. */
static void test_msm_windows(void)
{
    const size_t sizes[] = {(size_t)1 << 18, ((size_t)1 << 20) + 12345};
    for (int s = 0; s < (quick ? 0 : 2); s++) {
        size_t n = sizes[s];
        fr_t *k = xmalloc(n * sizeof *k);
        gpu_buf *bp, *bk;
        random_vec(k, n);
        OK(gpu_buf_new(&bp, n * sizeof(g1_affine_t), E));
        OK(gpu_buf_new(&bk, n * sizeof *k, E));
        OK(gpu_g1_bench_bases(bp, n, cuzk_rng_u64(&rng), E));
        OK(gpu_buf_upload(bk, 0, k, n * sizeof *k, E));
        g1_jac_t r[5];
        const unsigned windows[4] = {12, 16, 21, 22};
        OK(gpu_msm_set_affine(1, 0, 1, 1, E));
        for (int w = 0; w < 4; w++) OK(gpu_msm_g1_dev(&r[w], bp, bk, n, windows[w], E));
        OK(gpu_msm_set_affine(1, 4, 32, 1, E));
        OK(gpu_msm_g1_dev(&r[4], bp, bk, n, 16, E));
        OK(gpu_msm_set_affine(GPU_MSM_AFFINE_G1, E));
        CHECK(g1_jac_eq(&r[0], &r[1]) && g1_jac_eq(&r[0], &r[2]) && g1_jac_eq(&r[0], &r[3]) &&
                  !g1_jac_is_inf(&r[0]),
              "msm %zu: windows 12 / 16 / 21 / 22 disagree", n);
        CHECK(g1_jac_eq(&r[0], &r[4]), "msm %zu: affine rounds disagree", n);
        CHECK(g1_jac_on_curve(&r[0]), "msm %zu: result not on the curve", n);
        gpu_buf_free(bp);
        gpu_buf_free(bk);
        free(k);
    }
    printf("msm: 2^18 and 2^20+12345 agree across windows 12, 16, 21, 22 and affine rounds\n");
}

/* ---- circuit shapes ---- */

/* The device's and the CPU's evaluation of s on [input || aux]: the same
 * status, message and a, b, c. Returns the status. */
static int shape_compare(const cs_shape *s, const fr_t *input, const fr_t *aux, const char *what)
{
    size_t n = cs_shape_num_constraints(s), ni = cs_shape_num_inputs(s), na = cs_shape_num_aux(s);
    fr_t *cpu = xmalloc(3 * n * sizeof(fr_t)), *gpu = xmalloc(3 * n * sizeof(fr_t));
    cuzk_err ce = {0}, ge = {0};
    int crc = cs_shape_eval(s, input, aux, cpu, cpu + n, cpu + 2 * n, &ce);
    gpu_buf *w, *abc;
    OK(gpu_buf_new(&w, (ni + na) * sizeof(fr_t), E));
    OK(gpu_buf_new(&abc, 3 * n * sizeof(fr_t), E));
    OK(gpu_buf_upload(w, 0, input, ni * sizeof(fr_t), E));
    OK(gpu_buf_upload(w, ni * sizeof(fr_t), aux, na * sizeof(fr_t), E));
    fr_t *d = abc->ptr;
    int grc = gpu_shape_eval_dev(s, w->ptr, d, d + n, d + 2 * n, &ge);
    OK(gpu_buf_download(gpu, abc, 0, 3 * n * sizeof(fr_t), E));
    CHECK(crc == grc && !strcmp(ce.msg, ge.msg), "shape %s: CPU %d '%s', GPU %d '%s'", what, crc,
          ce.msg, grc, ge.msg);
    CHECK(!memcmp(cpu, gpu, 3 * n * sizeof(fr_t)), "shape %s: a, b, c differ", what);
    gpu_buf_free(w), gpu_buf_free(abc);
    free(cpu), free(gpu);
    return grc;
}

/* The shape of c against the CPU; with alter, aux values changed one at a
 * time must fail in the same constraint on both. */
static void shape_check(cs_circuit c, const char *what, bool alter)
{
    cs_prover p;
    cs_shape *s;
    OK(cs_synthesize_prover(&p, c, NULL, E));
    OK(cs_shape_record(&s, c, E));
    int dev = 0;
    shape_compare(s, p.input_assignment, p.aux_assignment, what);
    CHECK(gpu_shape_device_bytes(dev) > 0, "shape %s: not cached on device %d", what, dev);
    for (int k = 0; alter && k < 3; k++) {
        size_t j = cuzk_rng_u64(&rng) % p.num_aux;
        fr_t saved = p.aux_assignment[j];
        fr_add(&p.aux_assignment[j], &saved, &FR_ONE);
        int rc = shape_compare(s, p.input_assignment, p.aux_assignment, what);
        CHECK(rc == CUZK_EINVAL, "shape %s: aux %zu altered, status %d", what, j, rc);
        p.aux_assignment[j] = saved;
    }
    gpu_shape_forget(s);
    CHECK(gpu_shape_device_bytes(dev) == 0, "shape %s: still cached after forget", what);
    cs_shape_free(s);
    cs_prover_free(&p);
}

static void test_shapes(void)
{
    vanilla_c1 c1;
    porep_circuit pc;
    OK(vanilla_c1_synthetic(&c1, 5, &rng, E)); /* StackedDrg2KiBV1_1; its hashes do not chain */
    OK(porep_circuit_init(&pc, &c1, 0, E));
    shape_check(porep_circuit_get(&pc), "PoRep 2KiB", false);
    vanilla_c1_free(&c1);
    cs_synthetic syn = {quick ? (size_t)1 << 14 : (size_t)1 << 21, cuzk_rng_u64(&rng)};
    shape_check(cs_synthetic_circuit(&syn), "synthetic", true);
    printf("shapes: a, b, c of PoRep 2KiB and a synthetic 2^%d circuit equal cs_shape_eval's, "
           "altered witnesses fail in the same constraint\n",
           quick ? 14 : 21);
}

int main(int argc, char **argv)
{
    cuzk_err err = {0};
    setvbuf(stdout, NULL, _IOLBF, 0);                      /* logs survive a kill */
    if (argc > 1 && !strcmp(argv[1], "--probe")) return 0; /* the binary loads */
    if (!gpu_available(&err)) {
        printf("SKIP: %s\n", err.msg);
        return 77;
    }
    char desc[256];
    if (gpu_describe(desc, sizeof desc, &err) == 0) printf("device: %s\n", desc);
    int setup_only = argc > 1 && !strcmp(argv[1], "--setup");
    int shapes_only = argc > 1 && !strcmp(argv[1], "--shapes");
    if (setup_only || shapes_only) argc--, argv++;
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    printf("seed: %llu\n", (unsigned long long)seed);
    cuzk_rng_seed(&rng, seed);
    quick = getenv("CUZK_TEST_QUICK") != NULL;
    if (setup_only) {
        failures += gpu_setup_checks(&rng, quick);
        printf(failures ? "test_gpu --setup: %d FAILURES\n" : "test_gpu --setup: all passed\n",
               failures);
        return failures ? 1 : 0;
    }
    if (shapes_only) {
        test_shapes();
        printf(failures ? "test_gpu --shapes: %d FAILURES\n" : "test_gpu --shapes: all passed\n",
               failures);
        return failures ? 1 : 0;
    }
    test_fields();
    test_curves();
    test_ntt_naive();
    test_ntt_sizes();
    test_ntt_blocks();
    test_ntt_h();
    test_msm();
    test_msm_windows();
    test_msm_g2();
    test_shapes();
    failures += gpu_prove_checks(&rng, quick);
    failures += gpu_prove_device_checks(&rng);
    failures += gpu_lane_checks(&rng);
    failures += gpu_setup_checks(&rng, quick);
    printf(failures ? "test_gpu: %d FAILURES\n" : "test_gpu: all passed\n", failures);
    return failures ? 1 : 0;
}
