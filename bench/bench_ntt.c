/*
 * bench_ntt.c - the CPU NTT over Fr: forward transforms (natural in,
 * bit-reversed out, the order the Groth16 H computation uses) at 2^20 and
 * 2^24 points with one thread and with two; the cost per butterfly (n/2
 * log2 n butterflies) next to one Fr multiplication; and the whole Groth16
 * H computation (six transforms) at 2^20. --quick skips 2^24 (512 MiB)
 * and reports the per-butterfly figure at 2^20. The 2^24 transform runs
 * once per thread count (seconds each); the smaller ones repeat.
 */
#include "bench.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/ntt.h"

typedef struct ntt_arg {
    ntt_domain d;
    fr_t *x, *y, *z;
} ntt_arg;

static fr_t *random_vec(size_t n, uint64_t seed)
{
    fr_t *v = malloc(n * sizeof(fr_t));
    if (!v) abort();
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    for (size_t i = 0; i < n; i++) fr_random(&v[i], &g);
    return v;
}

static void run_forward(void *p)
{
    ntt_arg *a = p;
    if (ntt_forward(&a->d, a->x, NTT_NATURAL, NTT_BITREV, NULL)) abort();
}

static void run_h(void *p)
{
    ntt_arg *a = p;
    if (ntt_groth16_h(&a->d, a->x, a->y, a->z, a->d.n, NULL)) abort();
}

/* A dependent chain, so the figure is the latency of one multiplication. */
#define CHAIN 10000
static void fr_chain(void *arg)
{
    fr_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fr_mul(&v[0], &v[0], &v[1]);
}

/* Seconds per call of fn with the given thread count; min_seconds < 0 means
 * a single call without warm-up (the input was just written, so its pages
 * are already mapped). */
static double time_threads(void (*fn)(void *), void *arg, int threads, double min_seconds)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    double t;
    if (min_seconds < 0) {
        double start = bench_now();
        fn(arg);
        t = bench_now() - start;
    } else {
        t = bench_time(fn, arg, min_seconds);
    }
    omp_set_num_threads(saved);
    return t;
}

/* Rows "<what> 2^k (1 thread)" and "(2 threads)"; returns the 1-thread seconds. */
static double report_threads(const char *what, void (*fn)(void *), ntt_arg *a, const bench_ctx *ctx,
                             double min_seconds)
{
    char name[64];
    double one = time_threads(fn, a, 1, min_seconds);
    snprintf(name, sizeof(name), "%s 2^%u (1 thread)", what, a->d.log_n);
    bench_report(name, one * 1e3, "ms", 0, NULL, "report");
    if (ctx->threads >= 2) {
        double two = time_threads(fn, a, 2, min_seconds);
        snprintf(name, sizeof(name), "%s 2^%u (2 threads)", what, a->d.log_n);
        bench_report(name, two * 1e3, "ms", one * 1e3, "1 thread", "<= 0.55x 1 thread");
    }
    return one;
}

static double bench_ntt_size(unsigned log_n, const bench_ctx *ctx, double min_seconds)
{
    ntt_arg a = {0};
    if (ntt_domain_init(&a.d, log_n, NULL)) abort();
    a.x = random_vec(a.d.n, log_n);
    double one = report_threads("NTT", run_forward, &a, ctx, min_seconds);
    free(a.x);
    ntt_domain_free(&a.d);
    return one;
}

BENCH(40, ntt)
{
    unsigned log_n = ctx->quick ? 20 : 24;
    double t = bench_ntt_size(20, ctx, ctx->quick ? 0 : 1.0);
    if (!ctx->quick) t = bench_ntt_size(24, ctx, -1);
    fr_t v[2];
    cuzk_rng g;
    cuzk_rng_seed(&g, 2);
    fr_random(&v[0], &g);
    fr_random(&v[1], &g);
    double mul_ns = bench_time(fr_chain, v, ctx->quick ? 0.05 : 0.3) / CHAIN * 1e9;
    double butterflies = (double)((size_t)1 << (log_n - 1)) * log_n;
    char name[64];
    snprintf(name, sizeof(name), "NTT 2^%u ns/butterfly", log_n);
    bench_report(name, t / butterflies * 1e9, "ns", mul_ns, "Fr mul", "1 thread, next to Fr mul");
    bench_report("Fr mul (latency, for the NTT row)", mul_ns, "ns", 0, NULL, "");
}

BENCH(41, groth16_h)
{
    ntt_arg a = {0};
    unsigned log_n = ctx->quick ? 16 : 20;
    if (ntt_domain_init(&a.d, log_n, NULL)) abort();
    a.x = random_vec(a.d.n, 1);
    a.y = random_vec(a.d.n, 2);
    a.z = random_vec(a.d.n, 3);
    report_threads("Groth16 H (6 NTTs)", run_h, &a, ctx, ctx->quick ? 0 : -1);
    free(a.x);
    free(a.y);
    free(a.z);
    ntt_domain_free(&a.d);
}
