/*
 * bench_ff.c - field arithmetic latency, next to blst.
 *
 * Each figure is a dependent chain x = f(x, y), so it is the latency of one
 * operation. The machine is shared, so a figure is the fastest of many
 * short runs (about a millisecond each; interference only ever adds time). The anchors are blst on
 * an AMD EPYC of the reference machine type (reference/anchors.md); blst built on the machine at
 * hand is the comparison that counts (see the report). The portable rows force the __int128
 * fallback (cuzk_ff_use_adx(false)).
 */
#include "bench.h"

#include "cuzk/fp2.h"
#include "cuzk/fr.h"

#define CHAIN     10000 /* operations per timed call */
#define INV_CHAIN 100

static void fp_mul_chain(void *arg)
{
    fp_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fp_mul(&v[0], &v[0], &v[1]);
}
static void fp_sqr_chain(void *arg)
{
    fp_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fp_sqr(&v[0], &v[0]);
}
static void fp_add_chain(void *arg)
{
    fp_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fp_add(&v[0], &v[0], &v[1]);
}
static void fp2_sqr_chain(void *arg)
{
    fp2_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fp2_sqr(&v[0], &v[0]);
}
static void fr_mul_chain(void *arg)
{
    fr_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fr_mul(&v[0], &v[0], &v[1]);
}
static void fp2_mul_chain(void *arg)
{
    fp2_t *v = arg;
    for (int i = 0; i < CHAIN; i++) fp2_mul(&v[0], &v[0], &v[1]);
}
/* x = 1/x + y: the inversion is variable time, so the inputs must vary (x =
 * 1/x alone would alternate between two values the branch predictor learns). */
static void fp_inv_chain(void *arg)
{
    fp_t *v = arg;
    for (int i = 0; i < INV_CHAIN; i++) {
        fp_inv(&v[0], &v[0]);
        fp_add(&v[0], &v[0], &v[1]);
    }
}
static void fr_inv_chain(void *arg)
{
    fr_t *v = arg;
    for (int i = 0; i < INV_CHAIN; i++) {
        fr_inv(&v[0], &v[0]);
        fr_add(&v[0], &v[0], &v[1]);
    }
}

/* Nanoseconds per operation: the best of `reps` single calls of fn. */
static double ns_per_op(void (*fn)(void *), void *arg, int ops, int reps)
{
    double best = 0;
    for (int i = 0; i < reps; i++) {
        double s = bench_time(fn, arg, 0) / ops * 1e9;
        if (i == 0 || s < best) best = s;
    }
    return best;
}

BENCH(10, field_mul)
{
    int reps = ctx->quick ? 20 : 300;
    cuzk_rng g;
    cuzk_rng_seed(&g, 1);
    fp_t a[2];
    fr_t b[2];
    fp2_t c[2];
    fp_random(&a[0], &g), fp_random(&a[1], &g);
    fr_random(&b[0], &g), fr_random(&b[1], &g);
    fp2_random(&c[0], &g), fp2_random(&c[1], &g);
    const char *goal = "<= 1.0x blst";
    bench_report("Fp mul", ns_per_op(fp_mul_chain, a, CHAIN, reps), "ns", 48, "blst", goal);
    bench_report("Fr mul", ns_per_op(fr_mul_chain, b, CHAIN, reps), "ns", 26, "blst", goal);
    bench_report("Fp2 mul", ns_per_op(fp2_mul_chain, c, CHAIN, reps), "ns", 147, "blst", goal);
    bench_report("Fp sqr", ns_per_op(fp_sqr_chain, a, CHAIN, reps), "ns", 0, "", "");
    bench_report("Fp add", ns_per_op(fp_add_chain, a, CHAIN, reps), "ns", 0, "", "");
    bench_report("Fp2 sqr", ns_per_op(fp2_sqr_chain, c, CHAIN, reps), "ns", 0, "", "");
    bench_report("Fp inverse (vartime) + add", ns_per_op(fp_inv_chain, a, INV_CHAIN, reps), "ns", 0,
                 "", "");
    bench_report("Fr inverse (vartime) + add", ns_per_op(fr_inv_chain, b, INV_CHAIN, reps), "ns", 0,
                 "", "");
    if (!cuzk_cpu_has_adx()) return; /* no fast path: the rows above were portable */
    cuzk_ff_use_adx(false);
    bench_report("Fp mul (portable)", ns_per_op(fp_mul_chain, a, CHAIN, reps), "ns", 0, "", "");
    bench_report("Fr mul (portable)", ns_per_op(fr_mul_chain, b, CHAIN, reps), "ns", 0, "", "");
    bench_report("Fp2 mul (portable)", ns_per_op(fp2_mul_chain, c, CHAIN, reps), "ns", 0, "", "");
    cuzk_ff_use_adx(true);
}
