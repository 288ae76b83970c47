/* bench_pairing.c - pairing latency (Miller loop, final exponentiation, the
 * whole pairing) next to blst, and the 4-pair product check of Groth16. */
#include "bench.h"

#include "cuzk/pairing.h"

enum { PAIRS = 4 };

typedef struct pairing_state {
    g1_affine_t p[PAIRS];
    g2_affine_t q[PAIRS];
    fp12_t f;
    int ok;
} pairing_state;

/* PAIRS pairs whose pairings multiply to 1: (a_i P, Q), (-P, a_i Q) style. */
static void pairing_setup(pairing_state *s)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, 30);
    for (int i = 0; i < PAIRS; i += 2) {
        fr_t a;
        g1_jac_t t1;
        g2_jac_t t2;
        fr_random(&a, &g);
        g1_jac_from_affine(&t1, &g1_GENERATOR);
        g1_jac_mul(&t1, &t1, &a);
        g1_jac_to_affine(&s->p[i], &t1);
        s->q[i] = g2_GENERATOR;
        g1_affine_neg(&s->p[i + 1], &g1_GENERATOR);
        g2_jac_from_affine(&t2, &g2_GENERATOR);
        g2_jac_mul(&t2, &t2, &a);
        g2_jac_to_affine(&s->q[i + 1], &t2);
    }
    miller_loop_n(&s->f, s->p, s->q, 1);
}

static void miller_once(void *arg)
{
    pairing_state *s = arg;
    fp12_t f;
    miller_loop_n(&f, s->p, s->q, 1);
    s->ok += fp12_is_one(&f);
}
static void final_exp_once(void *arg)
{
    pairing_state *s = arg;
    fp12_t e;
    final_exp(&e, &s->f);
    s->ok += fp12_is_one(&e);
}
static void pairing_once(void *arg)
{
    pairing_state *s = arg;
    fp12_t e;
    pairing(&e, s->p, s->q);
    s->ok += fp12_is_one(&e);
}
static void product_once(void *arg)
{
    pairing_state *s = arg;
    s->ok += pairing_product_is_one(s->p, s->q, PAIRS);
}

BENCH(30, pairings)
{
    double t = ctx->quick ? 0.05 : 0.5;
    pairing_state s = {0};
    pairing_setup(&s);
    bench_report("pairing", bench_time(pairing_once, &s, t) * 1e3, "ms", 0.64, "blst",
                 "<= 1.1x blst");
    bench_report("pairing: Miller loop", bench_time(miller_once, &s, t) * 1e3, "ms", 0, NULL,
                 "report");
    bench_report("pairing: final exponentiation", bench_time(final_exp_once, &s, t) * 1e3, "ms", 0,
                 NULL, "report");
    bench_report("pairing product check, 4 pairs", bench_time(product_once, &s, t) * 1e3, "ms", 0,
                 NULL, "report");
}
