/*
 * bench_ec.c - G1 / G2 point operations: additions (as a dependent chain,
 * so the figure is latency per addition), scalar multiplication by a random
 * Fr scalar, the subgroup checks and G1 decompression. blst's figures on
 * this machine type are the anchors (reference/anchors.md).
 */
#include "bench.h"

#include "cuzk/ec.h"

#define CHAIN 1000

typedef struct {
    g1_jac_t a, b;
    g1_affine_t c;
    g1_xyzz_t x;
} g1_state;

typedef struct {
    g2_jac_t a, b;
    g2_affine_t c;
    fr_t k;
} g2_state;

static void g1_setup(g1_state *s, fr_t *k)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, 1);
    g1_jac_t gen;
    g1_jac_from_affine(&gen, &g1_GENERATOR);
    fr_random(k, &g);
    g1_jac_mul(&s->a, &gen, k);
    fr_random(k, &g);
    g1_jac_mul(&s->b, &gen, k);
    g1_jac_to_affine(&s->c, &s->b);
    g1_jac_dbl(&s->b, &s->b); /* Z != 1 */
    g1_xyzz_set_inf(&s->x);
    g1_xyzz_add_affine(&s->x, &s->x, &s->c);
    g1_xyzz_dbl(&s->x, &s->x);
    fr_random(k, &g);
}

static void g1_add_chain(void *arg)
{
    g1_state *s = arg;
    for (int i = 0; i < CHAIN; i++) g1_jac_add(&s->a, &s->a, &s->b);
}
static void g1_madd_chain(void *arg)
{
    g1_state *s = arg;
    for (int i = 0; i < CHAIN; i++) g1_jac_add_affine(&s->a, &s->a, &s->c);
}
static void g1_dbl_chain(void *arg)
{
    g1_state *s = arg;
    for (int i = 0; i < CHAIN; i++) g1_jac_dbl(&s->a, &s->a);
}
static void g1_xyzz_madd_chain(void *arg)
{
    g1_state *s = arg;
    for (int i = 0; i < CHAIN; i++) g1_xyzz_add_affine(&s->x, &s->x, &s->c);
}

BENCH(20, g1_additions)
{
    double t = ctx->quick ? 0.05 : 0.5;
    g1_state s;
    fr_t k;
    g1_setup(&s, &k);
    bench_report("G1 add (Jacobian)", bench_time(g1_add_chain, &s, t) / CHAIN * 1e6, "us", 1.03,
                 "blst", "<= 1.0x blst");
    bench_report("G1 mixed add", bench_time(g1_madd_chain, &s, t) / CHAIN * 1e6, "us", 0.70, "blst",
                 "<= 1.0x blst");
    bench_report("G1 double (Jacobian)", bench_time(g1_dbl_chain, &s, t) / CHAIN * 1e6, "us", 0,
                 NULL, "report");
    bench_report("G1 XYZZ mixed add", bench_time(g1_xyzz_madd_chain, &s, t) / CHAIN * 1e6, "us", 0,
                 NULL, "report");
}

static void g2_add_chain(void *arg)
{
    g2_state *s = arg;
    for (int i = 0; i < CHAIN; i++) g2_jac_add(&s->a, &s->a, &s->b);
}
static void g2_madd_chain(void *arg)
{
    g2_state *s = arg;
    for (int i = 0; i < CHAIN; i++) g2_jac_add_affine(&s->a, &s->a, &s->c);
}

static void g2_setup(g2_state *s)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, 2);
    g2_jac_t gen;
    g2_jac_from_affine(&gen, &g2_GENERATOR);
    fr_random(&s->k, &g);
    g2_jac_mul(&s->a, &gen, &s->k);
    fr_random(&s->k, &g);
    g2_jac_mul(&s->b, &gen, &s->k);
    g2_jac_to_affine(&s->c, &s->b);
    g2_jac_dbl(&s->b, &s->b);
    fr_random(&s->k, &g);
}

BENCH(22, g2_additions)
{
    double t = ctx->quick ? 0.05 : 0.5;
    g2_state s;
    g2_setup(&s);
    bench_report("G2 add (Jacobian)", bench_time(g2_add_chain, &s, t) / CHAIN * 1e6, "us", 0, NULL,
                 "report");
    bench_report("G2 mixed add", bench_time(g2_madd_chain, &s, t) / CHAIN * 1e6, "us", 0, NULL,
                 "report");
}

typedef struct {
    g1_state s1;
    g2_state s2;
    fr_t k;
    g1_affine_t p1;
    g2_affine_t p2;
    uint8_t c1[G1_COMPRESSED_BYTES];
    int ok;
} op_state;

static void g1_mul_once(void *arg)
{
    op_state *o = arg;
    g1_jac_mul(&o->s1.a, &o->s1.b, &o->k);
}
static void g2_mul_once(void *arg)
{
    op_state *o = arg;
    g2_jac_mul(&o->s2.a, &o->s2.b, &o->s2.k);
}
static void g1_subgroup_once(void *arg)
{
    op_state *o = arg;
    o->ok += g1_affine_in_subgroup(&o->p1);
}
static void g2_subgroup_once(void *arg)
{
    op_state *o = arg;
    o->ok += g2_affine_in_subgroup(&o->p2);
}
static void g1_decompress_once(void *arg)
{
    op_state *o = arg;
    o->ok += g1_affine_uncompress(&o->p1, o->c1, sizeof(o->c1), NULL) == CUZK_OK;
}

BENCH(24, ec_scalar_ops)
{
    double t = ctx->quick ? 0.05 : 0.5;
    op_state o = {0};
    g1_setup(&o.s1, &o.k);
    g2_setup(&o.s2);
    g1_jac_to_affine(&o.p1, &o.s1.a);
    g2_jac_to_affine(&o.p2, &o.s2.a);
    g1_affine_compress(o.c1, &o.p1);
    bench_report("G1 scalar mul", bench_time(g1_mul_once, &o, t) * 1e6, "us", 0, NULL, "report");
    bench_report("G2 scalar mul", bench_time(g2_mul_once, &o, t) * 1e6, "us", 0, NULL, "report");
    bench_report("G1 subgroup check", bench_time(g1_subgroup_once, &o, t) * 1e6, "us", 0, NULL,
                 "report");
    bench_report("G2 subgroup check", bench_time(g2_subgroup_once, &o, t) * 1e6, "us", 0, NULL,
                 "report");
    bench_report("G1 decompress (checked)", bench_time(g1_decompress_once, &o, t) * 1e6, "us", 0,
                 NULL, "report");
}
