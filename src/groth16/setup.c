/*
 * setup.c - a development Groth16 setup, deterministic from a seed.
 *
 * NOT a trusted setup: tau, alpha, beta, gamma and delta are derived from
 * the seed, so anyone who knows it can forge proofs. It exists so tests and
 * benchmarks can prove real circuits without the official parameters.
 *
 * As bellperson's generate_parameters: the keygen backend gives the QAP
 * columns by variable; the Lagrange basis at tau comes from one inverse NTT
 * of the powers of tau (L_j(tau) = 1/m sum_k tau^k omega^-jk); then
 * u_i(tau), v_i(tau), w_i(tau) per variable, and every point by
 * multithreaded fixed-base multiplication.
 */
#include "cuzk/groth16.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "groth16/setup_internal.h"

void groth16_qap_columns(const cs_r1cs *r, const fr_t *lagrange, fr_t *u, fr_t *v, fr_t *w)
{
    const cs_matrix *mats[3] = {&r->a, &r->b, &r->c};
    fr_t *outs[3] = {u, v, w};
    size_t nv = r->num_inputs + r->num_aux;
    for (int k = 0; k < 3; k++) {
        const cs_matrix *m = mats[k];
#pragma omp parallel for schedule(dynamic, 1024)
        for (size_t i = 0; i < nv; i++) {
            fr_t acc = FR_ZERO, t;
            for (uint64_t e = m->ptr[i]; e < m->ptr[i + 1]; e++) {
                fr_mul(&t, &m->val[e], &lagrange[m->idx[e]]);
                fr_add(&acc, &acc, &t);
            }
            outs[k][i] = acc;
        }
    }
}

size_t groth16_compact_nonzero(fr_t *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!fr_is_zero(&s[i])) s[k++] = s[i];
    return k;
}

void groth16_powers_of_tau(fr_t *p, const fr_t *tau, size_t m)
{
    const size_t block = 1 << 16;
#pragma omp parallel for schedule(static)
    for (size_t lo = 0; lo < m; lo += block) {
        uint64_t e = lo;
        fr_pow(&p[lo], tau, &e, 1);
        for (size_t i = lo + 1; i < m && i < lo + block; i++) fr_mul(&p[i], &p[i - 1], tau);
    }
}

int groth16_dev_vk(groth16_vk *vk, const groth16_toxic *t, cuzk_err *err)
{
    fr_t s1[3] = {t->alpha, t->beta, t->delta}, s2[3] = {t->beta, t->gamma, t->delta};
    g1_affine_t o1[3];
    g2_affine_t o2[3];
    int rc = g1_fixed_base_mul(o1, &g1_GENERATOR, s1, 3, 0, err);
    if (!rc) rc = g2_fixed_base_mul(o2, &g2_GENERATOR, s2, 3, 0, err);
    if (rc) return rc;
    vk->alpha_g1 = o1[0], vk->beta_g1 = o1[1], vk->delta_g1 = o1[2];
    vk->beta_g2 = o2[0], vk->gamma_g2 = o2[1], vk->delta_g2 = o2[2];
    return CUZK_OK;
}

/* H[i] = tau^i t(tau) / delta, i < m - 1. */
static int h_points(groth16_params *p, const groth16_toxic *t, const fr_t *powers, size_t m,
                    cuzk_err *err)
{
    fr_t t_tau, dinv, k;
    fr_mul(&t_tau, &powers[m - 1], &t->tau); /* tau^m */
    fr_sub(&t_tau, &t_tau, &FR_ONE);
    fr_inv(&dinv, &t->delta);
    fr_mul(&k, &t_tau, &dinv);
    fr_t *s = malloc(sizeof(fr_t) * m);
    p->n_h = m - 1;
    p->h = malloc(sizeof(g1_affine_t) * m);
    if (!s || !p->h) {
        free(s);
        return cuzk_errf(err, CUZK_ENOMEM, "setup: out of memory for H (%zu points)", m - 1);
    }
    for (size_t i = 0; i + 1 < m; i++) fr_mul(&s[i], &powers[i], &k);
    int rc = g1_fixed_base_mul(p->h, &g1_GENERATOR, s, m - 1, 0, err);
    free(s);
    return rc;
}

/* IC (inputs, over gamma) and L (aux, over delta) from beta u + alpha v + w. */
static int ic_l_points(groth16_params *p, const groth16_toxic *t, const fr_t *u, const fr_t *v,
                       const fr_t *w, size_t ni, size_t na, cuzk_err *err)
{
    fr_t ginv, dinv;
    fr_inv(&ginv, &t->gamma);
    fr_inv(&dinv, &t->delta);
    fr_t *s = malloc(sizeof(fr_t) * (ni + na + 1));
    p->vk.ic = malloc(sizeof(g1_affine_t) * ni);
    p->l = malloc(sizeof(g1_affine_t) * (na + 1));
    if (!s || !p->vk.ic || !p->l) {
        free(s);
        return cuzk_errf(err, CUZK_ENOMEM, "setup: out of memory for IC and L");
    }
    p->vk.n_ic = ni;
    p->n_l = na;
#pragma omp parallel for
    for (size_t i = 0; i < ni + na; i++) {
        fr_t x, y;
        fr_mul(&x, &t->beta, &u[i]);
        fr_mul(&y, &t->alpha, &v[i]);
        fr_add(&x, &x, &y);
        fr_add(&x, &x, &w[i]);
        fr_mul(&s[i], &x, i < ni ? &ginv : &dinv);
    }
    int rc = g1_fixed_base_mul(p->vk.ic, &g1_GENERATOR, s, ni, 0, err);
    if (!rc) rc = g1_fixed_base_mul(p->l, &g1_GENERATOR, s + ni, na, 0, err);
    free(s);
    return rc;
}

/* A = u G1, B_G1 = v G1, B_G2 = v G2 over [inputs || aux], zeros dropped.
 * Consumes u and v. */
static int ab_points(groth16_params *p, fr_t *u, fr_t *v, size_t nv, cuzk_err *err)
{
    p->n_a = groth16_compact_nonzero(u, nv);
    p->n_b_g1 = p->n_b_g2 = groth16_compact_nonzero(v, nv);
    p->a = malloc(sizeof(g1_affine_t) * (p->n_a + 1));
    p->b_g1 = malloc(sizeof(g1_affine_t) * (p->n_b_g1 + 1));
    p->b_g2 = malloc(sizeof(g2_affine_t) * (p->n_b_g2 + 1));
    if (!p->a || !p->b_g1 || !p->b_g2)
        return cuzk_errf(err, CUZK_ENOMEM, "setup: out of memory for A and B");
    int rc = g1_fixed_base_mul(p->a, &g1_GENERATOR, u, p->n_a, 0, err);
    if (!rc) rc = g1_fixed_base_mul(p->b_g1, &g1_GENERATOR, v, p->n_b_g1, 0, err);
    if (!rc) rc = g2_fixed_base_mul(p->b_g2, &g2_GENERATOR, v, p->n_b_g2, 0, err);
    return rc;
}

void groth16_dev_toxic(groth16_toxic *t, uint64_t seed)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    fr_t *all[5] = {&t->tau, &t->alpha, &t->beta, &t->gamma, &t->delta};
    for (int i = 0; i < 5; i++) do
            fr_random(all[i], &g);
        while (fr_is_zero(all[i]));
}

static int setup_from_r1cs(groth16_params *out, const cs_r1cs *r, uint64_t seed, cuzk_err *err)
{
    unsigned log_m = 0;
    while (((size_t)1 << log_m) < r->num_constraints) log_m++;
    if (log_m < 1) log_m = 1;
    if (log_m > NTT_MAX_LOG)
        return cuzk_errf(err, CUZK_EUNSUPPORTED, "setup: %zu constraints exceed 2^%d",
                         r->num_constraints, NTT_MAX_LOG);
    size_t m = (size_t)1 << log_m, nv = r->num_inputs + r->num_aux;
    groth16_toxic t;
    groth16_dev_toxic(&t, seed);
    ntt_domain d;
    int rc = ntt_domain_init(&d, log_m, err);
    if (rc) return rc;
    fr_t *powers = malloc(sizeof(fr_t) * m), *lag = malloc(sizeof(fr_t) * m);
    fr_t *u = malloc(sizeof(fr_t) * (nv + 1)), *v = malloc(sizeof(fr_t) * (nv + 1)),
         *w = malloc(sizeof(fr_t) * (nv + 1));
    if (!powers || !lag || !u || !v || !w) rc = cuzk_errf(err, CUZK_ENOMEM, "setup: out of memory");
    if (!rc) {
        groth16_powers_of_tau(powers, &t.tau, m);
        memcpy(lag, powers, sizeof(fr_t) * m);
        rc = ntt_inverse(&d, lag, NTT_NATURAL, NTT_NATURAL, err);
    }
    if (!rc) {
        groth16_qap_columns(r, lag, u, v, w);
        rc = groth16_dev_vk(&out->vk, &t, err);
    }
    if (!rc) rc = h_points(out, &t, powers, m, err);
    if (!rc) rc = ic_l_points(out, &t, u, v, w, r->num_inputs, r->num_aux, err);
    if (!rc) rc = ab_points(out, u, v, nv, err);
    free(powers), free(lag), free(u), free(v), free(w);
    ntt_domain_free(&d);
    memset(&t, 0, sizeof(t));
    return rc;
}

int groth16_setup_dev(groth16_params *out, cs_circuit circuit, uint64_t seed, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    cs_r1cs r;
    int rc = cs_keygen(&r, circuit, err);
    if (rc) return rc;
    rc = setup_from_r1cs(out, &r, seed, err);
    cs_r1cs_free(&r);
    if (rc) groth16_params_free(out);
    return rc;
}
