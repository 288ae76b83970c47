/* bench_ff.c - field multiplication latency, next to blst on this machine type. */
#include "bench.h"

#include "cuzk/fp2.h"
#include "cuzk/fr.h"

/* A dependent chain x = x * y, so the figure is latency per multiplication. */
#define CHAIN 10000

static void fp_chain(void *arg)
{
    fp_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fp_mul(&v[0], &v[0], &v[1]);
}
static void fr_chain(void *arg)
{
    fr_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fr_mul(&v[0], &v[0], &v[1]);
}
static void fp2_chain(void *arg)
{
    fp2_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fp2_mul(&v[0], &v[0], &v[1]);
}

BENCH(10, field_mul)
{
    double t = ctx->quick ? 0.05 : 0.5;
    cuzk_rng g;
    cuzk_rng_seed(&g, 1);
    fp_t a[2];
    fr_t b[2];
    fp2_t c[2];
    fp_random(&a[0], &g), fp_random(&a[1], &g);
    fr_random(&b[0], &g), fr_random(&b[1], &g);
    fp2_random(&c[0], &g), fp2_random(&c[1], &g);
    bench_report("Fp mul", bench_time(fp_chain, a, t) / CHAIN * 1e9, "ns", 48, "blst", "<= 1.0x blst");
    bench_report("Fr mul", bench_time(fr_chain, b, t) / CHAIN * 1e9, "ns", 26, "blst", "<= 1.0x blst");
    bench_report("Fp2 mul", bench_time(fp2_chain, c, t) / CHAIN * 1e9, "ns", 147, "blst",
                 "<= 1.0x blst");
}
