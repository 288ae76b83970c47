/*
 * test_points.h - points for the parameter-file tests (test_params,
 * test_check_cache, test_engine_srs): random multiples of the generators
 * and a point of E1(Fp) outside G1 (which only a subgroup check refuses).
 */
#ifndef CUZK_TEST_POINTS_H
#define CUZK_TEST_POINTS_H

#include "cuzk/ec.h"
#include "cuzk/rng.h"
#include "testutil.h"

static inline void random_g1(g1_affine_t *r, cuzk_rng *g)
{
    g1_jac_t j, base;
    fr_t k;
    fr_random(&k, g);
    g1_jac_from_affine(&base, &g1_GENERATOR);
    g1_jac_mul(&j, &base, &k);
    g1_jac_to_affine(r, &j);
}

static inline void random_g2(g2_affine_t *r, cuzk_rng *g)
{
    g2_jac_t j, base;
    fr_t k;
    fr_random(&k, g);
    g2_jac_from_affine(&base, &g2_GENERATOR);
    g2_jac_mul(&j, &base, &k);
    g2_jac_to_affine(r, &j);
}

/* A point of E1(Fp) outside G1: a random x whose x^3 + 4 is a square. */
static inline void off_subgroup_g1(g1_affine_t *r, cuzk_rng *g)
{
    fp_t rhs, four;
    fp_from_u64(&four, 4);
    do {
        fp_random(&r->x, g);
        fp_sqr(&rhs, &r->x);
        fp_mul(&rhs, &rhs, &r->x);
        fp_add(&rhs, &rhs, &four);
    } while (!fp_sqrt(&r->y, &rhs));
    assert_true(g1_affine_on_curve(r) && !g1_affine_in_subgroup(r));
}

#endif
