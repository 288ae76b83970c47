/*
 * bench_msm.c - CPU multi-scalar multiplication next to blst's
 * blst_p1s_mult_pippenger (one thread, this machine type,
 * reference/anchors.md), the two-thread speedup, G2, the bitmap batch
 * addition per point, the split MSM on a bit-heavy witness and fixed-base
 * multiplication. Random scalars; bases P_0 + i Q built by chained
 * additions and one batch conversion (random points one by one would take
 * longer than the MSMs). --quick runs small sizes only, without anchors.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuzk/msm.h"

/* Bases P_0 + i Q for random P_0, Q (as multiples of the generator). */
#define BASES(G)                                                                                   \
    static G##_affine_t *G##_bench_bases(size_t n, cuzk_rng *g)                                    \
    {                                                                                              \
        G##_affine_t *p = malloc(n * sizeof(*p)), q;                                               \
        G##_jac_t *jac = malloc(n * sizeof(*jac)), acc, t;                                         \
        fr_t k;                                                                                    \
        if (!p || !jac) abort();                                                                   \
        G##_jac_from_affine(&t, &G##_GENERATOR);                                                   \
        fr_random(&k, g);                                                                          \
        G##_jac_mul(&acc, &t, &k);                                                                 \
        fr_random(&k, g);                                                                          \
        G##_jac_mul(&t, &t, &k);                                                                   \
        G##_jac_to_affine(&q, &t);                                                                 \
        for (size_t i = 0; i < n; i++) {                                                           \
            jac[i] = acc;                                                                          \
            G##_jac_add_affine(&acc, &acc, &q);                                                    \
        }                                                                                          \
        G##_jac_batch_to_affine(p, jac, n);                                                        \
        free(jac);                                                                                 \
        return p;                                                                                  \
    }
BASES(g1)
BASES(g2)

static fr_t *bench_scalars(size_t n, cuzk_rng *g)
{
    fr_t *k = malloc(n * sizeof(*k));
    if (!k) abort();
    for (size_t i = 0; i < n; i++) fr_random(&k[i], g);
    return k;
}

/* Seconds of one g1_msm call (best of `reps`). */
static double time_g1_msm(const g1_affine_t *p, const fr_t *k, size_t n, int threads, int reps)
{
    double best = 0;
    for (int i = 0; i < reps; i++) {
        g1_jac_t r;
        double t0 = bench_now();
        if (g1_msm(&r, p, k, n, threads, NULL) != CUZK_OK) abort();
        double t = bench_now() - t0;
        if (i == 0 || t < best) best = t;
    }
    return best;
}

BENCH(50, msm_g1)
{
    static const struct {
        int log;
        double blst;
        const char *goal;
    } full[] = {{16, 0.59, "report"}, {18, 2.09, "report"}, {20, 7.56, "<= 0.7x blst"}},
      quick[] = {{12, 0, "report"}, {14, 0, "report"}};
    int rows = ctx->quick ? 2 : 3;
    size_t nmax = (size_t)1 << (ctx->quick ? 14 : 20);
    cuzk_rng g;
    cuzk_rng_seed(&g, 50);
    g1_affine_t *p = g1_bench_bases(nmax, &g);
    fr_t *k = bench_scalars(nmax, &g);
    double one = 0;
    char name[64];
    for (int i = 0; i < rows; i++) {
        int lg = ctx->quick ? quick[i].log : full[i].log;
        one = time_g1_msm(p, k, (size_t)1 << lg, 1, lg <= 16 ? 3 : 1);
        snprintf(name, sizeof(name), "G1 MSM 2^%d 1 thread", lg);
        bench_report(name, one, "s", ctx->quick ? 0 : full[i].blst, "blst",
                     ctx->quick ? "report" : full[i].goal);
    }
    int lg = ctx->quick ? 14 : 20;
    double two = time_g1_msm(p, k, nmax, 2, 1);
    snprintf(name, sizeof(name), "G1 MSM 2^%d 2 threads", lg);
    bench_report(name, two, "s", one, "ours, 1 thread", "<= 0.56x: >= 1.8x faster than 1 thread");
    free(p), free(k);
}

BENCH(54, msm_g2)
{
    int lg = ctx->quick ? 12 : 18;
    size_t n = (size_t)1 << lg;
    cuzk_rng g;
    cuzk_rng_seed(&g, 54);
    g2_affine_t *p = g2_bench_bases(n, &g);
    fr_t *k = bench_scalars(n, &g);
    g2_jac_t r;
    double t0 = bench_now();
    if (g2_msm(&r, p, k, n, 1, NULL) != CUZK_OK) abort();
    char name[64];
    snprintf(name, sizeof(name), "G2 MSM 2^%d 1 thread", lg);
    bench_report(name, bench_now() - t0, "s", 0, NULL, "report (G1 ratio should carry over)");
    free(p), free(k);
}

/*
 * The bitmap batch addition (half the bits set) per added point, next to
 * the blst mixed addition it replaces; and the split MSM on a Filecoin-like
 * witness (90% zeros and ones, 10% random) next to the plain MSM.
 */
BENCH(56, msm_batch_add_split)
{
    int lg = ctx->quick ? 14 : 20;
    size_t n = (size_t)1 << lg;
    cuzk_rng g;
    cuzk_rng_seed(&g, 56);
    g1_affine_t *p = g1_bench_bases(n, &g);
    fr_t *k = bench_scalars(n, &g);
    uint64_t *bits = malloc(n / 8);
    if (!bits) abort();
    size_t set = 0;
    for (size_t w = 0; w < n / 64; w++)
        set += (size_t)__builtin_popcountll(bits[w] = cuzk_rng_u64(&g));
    g1_jac_t r;
    double t0 = bench_now();
    if (g1_batch_add_bitmap(&r, p, bits, n, 1, NULL) != CUZK_OK) abort();
    bench_report("G1 batch addition, 1 thread", (bench_now() - t0) / (double)set * 1e9, "ns/pt",
                 700, "blst mixed add", "report");
    for (size_t i = 0; i < n; i++)
        if (cuzk_rng_u64(&g) % 10) k[i] = i % 2 ? FR_ONE : FR_ZERO;
    t0 = bench_now();
    if (g1_msm_split(&r, p, k, n, 1, NULL) != CUZK_OK) abort();
    double split = bench_now() - t0;
    char name[64];
    snprintf(name, sizeof(name), "G1 split MSM 2^%d 10%% tail 1 thr", lg);
    bench_report(name, split, "s", time_g1_msm(p, k, n, 1, 1), "ours, plain MSM", "report");
    free(p), free(k), free(bits);
}

BENCH(58, msm_fixed_base)
{
    size_t n = (size_t)1 << (ctx->quick ? 10 : 16);
    cuzk_rng g;
    cuzk_rng_seed(&g, 58);
    fr_t *k = bench_scalars(n, &g);
    g1_affine_t *out = malloc(n * sizeof(*out));
    if (!out) abort();
    double t0 = bench_now();
    if (g1_fixed_base_mul(out, &g1_GENERATOR, k, n, 1, NULL) != CUZK_OK) abort();
    char name[64];
    snprintf(name, sizeof(name), "G1 fixed-base mul, %zu scalars", n);
    bench_report(name, (bench_now() - t0) / (double)n * 1e6, "us/pt", 0, NULL, "report");
    free(k), free(out);
}
