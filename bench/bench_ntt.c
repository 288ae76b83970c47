/*
 * bench_ntt.c - the CPU NTT over Fr: forward transforms (natural in,
 * bit-reversed out, the order the Groth16 H computation uses) at 2^20 and
 * 2^24 points, with one thread and with two, and the cost per butterfly
 * (n/2 log2 n butterflies, one Fr multiplication each in the radix-2 count)
 * next to one Fr multiplication. --quick skips 2^24 (512 MiB) and reports
 * the per-butterfly figure at 2^20.
 */
#include "bench.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/ntt.h"

typedef struct ntt_arg {
    ntt_domain d;
    fr_t *x;
} ntt_arg;

static void run_forward(void *p)
{
    ntt_arg *a = p;
    if (ntt_forward(&a->d, a->x, NTT_NATURAL, NTT_BITREV, NULL)) abort();
}

/* A dependent chain, so the figure is the latency of one multiplication. */
#define CHAIN 10000
static void fr_chain(void *arg)
{
    fr_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fr_mul(&v[0], &v[0], &v[1]);
}

/* Seconds per forward NTT of 2^log_n with the given thread count. */
static double time_ntt(ntt_arg *a, int threads, double min_seconds)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    double t = bench_time(run_forward, a, min_seconds);
    omp_set_num_threads(saved);
    return t;
}

/* Reports "NTT 2^k (1 thread)" and "(2 threads)" rows; returns the 1-thread seconds. */
static double bench_size(unsigned log_n, const bench_ctx *ctx, double min_seconds)
{
    ntt_arg a;
    if (ntt_domain_init(&a.d, log_n, NULL)) abort();
    a.x = malloc(a.d.n * sizeof(fr_t));
    if (!a.x) abort();
    cuzk_rng g;
    cuzk_rng_seed(&g, log_n);
    for (size_t i = 0; i < a.d.n; i++) fr_random(&a.x[i], &g);
    char name[64];
    double one = time_ntt(&a, 1, min_seconds);
    snprintf(name, sizeof(name), "NTT 2^%u (1 thread)", log_n);
    bench_report(name, one * 1e3, "ms", 0, NULL, "report");
    if (ctx->threads >= 2) {
        double two = time_ntt(&a, 2, min_seconds);
        snprintf(name, sizeof(name), "NTT 2^%u (2 threads)", log_n);
        bench_report(name, two * 1e3, "ms", 0, NULL, ">= 1.8x faster than 1 thread");
    }
    free(a.x);
    ntt_domain_free(&a.d);
    return one;
}

BENCH(40, ntt)
{
    double t20 = bench_size(20, ctx, ctx->quick ? 0 : 1.0);
    unsigned log_n = 20;
    double t = t20;
    if (!ctx->quick) {
        log_n = 24;
        t = bench_size(24, ctx, 0);
    }
    fr_t v[2];
    cuzk_rng g;
    cuzk_rng_seed(&g, 2);
    fr_random(&v[0], &g), fr_random(&v[1], &g);
    double mul_ns = bench_time(fr_chain, v, ctx->quick ? 0.05 : 0.3) / CHAIN * 1e9;
    double butterflies = (double)((size_t)1 << (log_n - 1)) * log_n;
    char name[64];
    snprintf(name, sizeof(name), "NTT 2^%u ns/butterfly (1 thread)", log_n);
    bench_report(name, t / butterflies * 1e9, "ns", mul_ns, "Fr mul", "report next to Fr mul");
    bench_report("Fr mul (NTT row)", mul_ns, "ns", 0, NULL, "");
}
