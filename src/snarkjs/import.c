/*
 * import.c - snarkjs Groth16 zkeys as our parameters and witnesses.
 *
 * Variables: zkey signal 0 is ONE, 1 .. nPublic the public signals (our
 * inputs), the rest private (our aux), in order. A, B1, B2 become our
 * dense lists by dropping the points at infinity, and the densities of a
 * witness are read from the same points, so the two always line up. L is
 * the zkey's C section, IC its IC section.
 *
 * H: the zkey holds Z_j = L_{2j+1}(tau) / delta (j < m), the Lagrange basis
 * of the odd points of the 2m domain (w = omega_2m). Our parameter files
 * hold H_i = tau^i t(tau) / delta (i < m - 1). X^i t(X) has degree < 2m,
 * vanishes on the even points and is -2 w^((2j+1) i) at w^(2j+1), so
 *   H_i = -2 w^i sum_j omega_m^(ij) Z_j,
 * a forward DFT over G1 points followed by one scalar multiplication each.
 * The DFT runs as a radix-2 NTT whose butterflies multiply points by
 * twiddles: O(m log m) scalar multiplications, a one-time cost of the
 * import (about a minute at 2^14 on 2 cores).
 *
 * Roots of unity: snarkjs (ffjavascript) takes its 2^32-th root from 5,
 * the first non-residue, where we take it from 7. Both generate the same
 * groups, so the domains are the same sets in another order: with
 * omega7_2m = omega5_2m^K (K odd, found by Pohlig-Hellman), snarkjs' row j
 * (the point omega5_m^j) is our position j K^-1 mod m, and its odd point
 * omega5_2m^(2j+1) is our omega7_2m^(2i+1) with 2i + 1 = (2j+1) K^-1 mod 2m.
 * The import reorders H that way; witnesses are reordered per proof
 * (snarkjs_reorder_rows), since the zkey's A, B, L and IC points fix the
 * constraint-to-point assignment; from then on everything uses our roots.
 */
#include "cuzk/snarkjs.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/ntt.h"
#include "snarkjs/roots.h"

/* Keeps the non-infinity points of p[0..n); returns how many. */
#define COMPACT(G)                                                                                 \
    static G##_affine_t *G##_compact(const G##_affine_t *p, size_t n, size_t *kept)                \
    {                                                                                              \
        G##_affine_t *out = malloc(sizeof(G##_affine_t) * (n + 1));                                \
        size_t k = 0;                                                                              \
        for (size_t i = 0; out && i < n; i++)                                                      \
            if (!G##_affine_is_inf(&p[i])) out[k++] = p[i];                                        \
        *kept = k;                                                                                 \
        return out;                                                                                \
    }
COMPACT(g1)
COMPACT(g2)

/* H points reordered from snarkjs' odd points to ours (file comment). */
static int h_reorder(g1_affine_t **out, const g1_affine_t *z, size_t m, cuzk_err *err)
{
    unsigned log_m = snarkjs_log2(m);
    uint64_t kinv = snarkjs_root_map(log_m + 1), mask = 2 * (uint64_t)m - 1;
    if (!(*out = malloc(sizeof(g1_affine_t) * m)))
        return cuzk_errf(err, CUZK_ENOMEM, "import: out of memory for H");
    for (uint64_t j = 0; j < m; j++) (*out)[(((2 * j + 1) * kinv) & mask) / 2] = z[j];
    return CUZK_OK;
}

/* In-place forward DFT over G1: x_i := sum_j omega^(ij) x_j. */
static void g1_dft(g1_jac_t *x, const ntt_domain *d)
{
    size_t n = d->n;
    for (size_t i = 0, j = 0; i < n; i++) { /* bit reversal */
        if (i < j) {
            g1_jac_t t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        fr_t step = d->omega; /* omega^(n / len) */
        for (size_t k = len; k < n; k <<= 1) fr_sqr(&step, &step);
        size_t half = len / 2;
#pragma omp parallel for schedule(dynamic, 16)
        for (size_t blk = 0; blk < n / len * half; blk++) {
            size_t start = blk / half * len, k = blk % half;
            fr_t tw;
            fr_pow(&tw, &step, (uint64_t[]){k}, 1);
            g1_jac_t t;
            g1_jac_mul(&t, &x[start + k + half], &tw);
            g1_jac_t u = x[start + k];
            g1_jac_add(&x[start + k], &u, &t);
            g1_jac_neg(&t, &t);
            g1_jac_add(&x[start + k + half], &u, &t);
        }
    }
}

/* z in our odd-point order (h_reorder). */
static int h_to_monomial(groth16_params *p, const g1_affine_t *z, size_t m, cuzk_err *err)
{
    unsigned log_m = snarkjs_log2(m);
    ntt_domain d, d2;
    int rc = ntt_domain_init(&d, log_m, err);
    if (rc) return rc;
    if ((rc = ntt_domain_init(&d2, log_m + 1, err))) {
        ntt_domain_free(&d);
        return rc;
    }
    g1_jac_t *x = malloc(sizeof(g1_jac_t) * m);
    p->h = malloc(sizeof(g1_affine_t) * m);
    if (!x || !p->h) rc = cuzk_errf(err, CUZK_ENOMEM, "import: out of memory for H");
    if (!rc) {
        for (size_t j = 0; j < m; j++) g1_jac_from_affine(&x[j], &z[j]);
        g1_dft(x, &d);
        fr_t minus_two;
        fr_from_u64(&minus_two, 2);
        fr_neg(&minus_two, &minus_two);
#pragma omp parallel for schedule(dynamic, 64)
        for (size_t i = 0; i < m - 1; i++) {
            fr_t k;
            fr_pow(&k, &d2.omega, (uint64_t[]){i}, 1);
            fr_mul(&k, &k, &minus_two);
            g1_jac_mul(&x[i], &x[i], &k);
        }
        g1_jac_batch_to_affine(p->h, x, m - 1);
        p->n_h = m - 1;
        p->h_basis = GROTH16_H_MONOMIAL;
    }
    free(x);
    ntt_domain_free(&d);
    ntt_domain_free(&d2);
    return rc;
}

int snarkjs_zkey_to_params(groth16_params *p, const snarkjs_zkey *z, bool monomial_h, cuzk_err *err)
{
    memset(p, 0, sizeof(*p));
    size_t ni = (size_t)z->n_public + 1, nv = z->n_vars;
    p->vk.alpha_g1 = z->alpha1, p->vk.beta_g1 = z->beta1, p->vk.delta_g1 = z->delta1;
    p->vk.beta_g2 = z->beta2, p->vk.gamma_g2 = z->gamma2, p->vk.delta_g2 = z->delta2;
    p->vk.n_ic = ni;
    p->vk.ic = malloc(sizeof(g1_affine_t) * ni);
    p->n_l = nv - ni;
    p->l = malloc(sizeof(g1_affine_t) * (p->n_l + 1));
    p->a = g1_compact(z->a, nv, &p->n_a);
    p->b_g1 = g1_compact(z->b1, nv, &p->n_b_g1);
    p->b_g2 = g2_compact(z->b2, nv, &p->n_b_g2);
    int rc = CUZK_OK;
    if (!p->vk.ic || !p->l || !p->a || !p->b_g1 || !p->b_g2)
        rc = cuzk_errf(err, CUZK_ENOMEM, "import: out of memory");
    else if (p->n_b_g1 != p->n_b_g2)
        rc = cuzk_errf(err, CUZK_EINVAL, "import: B1 has %zu points, B2 %zu", p->n_b_g1, p->n_b_g2);
    if (!rc) {
        memcpy(p->vk.ic, z->ic, sizeof(g1_affine_t) * ni);
        memcpy(p->l, z->c + ni, sizeof(g1_affine_t) * p->n_l);
        g1_affine_t *h;
        rc = h_reorder(&h, z->h, z->domain_size, err);
        if (!rc && monomial_h) {
            rc = h_to_monomial(p, h, z->domain_size, err);
            free(h);
        } else if (!rc) {
            p->h = h;
            p->n_h = z->domain_size;
            p->h_basis = GROTH16_H_ODD_LAGRANGE;
        }
    }
    if (rc) groth16_params_free(p);
    return rc;
}

static int bitmap_new(cs_bitmap *m, size_t nbits)
{
    m->nbits = nbits;
    m->words = calloc(nbits / 64 + 1, sizeof(uint64_t));
    return m->words ? CUZK_OK : CUZK_ENOMEM;
}

/* Bit i of m set iff point first + i is not at infinity. */
static void g1_density(cs_bitmap *m, const g1_affine_t *p, size_t first)
{
    for (size_t i = 0; i < m->nbits; i++)
        if (!g1_affine_is_inf(&p[first + i])) m->words[i / 64] |= 1ull << (i % 64);
}

/* a_j, b_j from the zkey coefficients on the witness; c_j = a_j b_j. */
static void evaluate_rows(cs_prover *out, const snarkjs_zkey *z, const fr_t *wit)
{
    for (size_t k = 0; k < z->n_coefs; k++) {
        const snarkjs_coef *c = &z->coefs[k];
        fr_t *row = c->matrix == 0 ? &out->a[c->constraint] : &out->b[c->constraint];
        fr_t t;
        fr_mul(&t, &c->value, &wit[c->signal]);
        fr_add(row, row, &t);
    }
    for (size_t j = 0; j < out->num_constraints; j++) fr_mul(&out->c[j], &out->a[j], &out->b[j]);
}

/* v (rows entries) spread over m entries, row j at position j kinv mod m. */
static fr_t *spread(const fr_t *v, size_t rows, size_t m, uint64_t kinv)
{
    fr_t *out = calloc(m, sizeof(fr_t));
    for (size_t j = 0; out && j < rows; j++) out[(j * kinv) & (m - 1)] = v[j];
    return out;
}

int snarkjs_reorder_rows(cs_prover *w, size_t domain_size, cuzk_err *err)
{
    unsigned log_m = snarkjs_log2(domain_size);
    if (((size_t)1 << log_m) != domain_size || w->num_constraints > domain_size)
        return cuzk_errf(err, CUZK_EINVAL, "%zu constraints do not fit a domain of %zu",
                         w->num_constraints, domain_size);
    uint64_t kinv = snarkjs_root_map(log_m);
    fr_t *a = spread(w->a, w->num_constraints, domain_size, kinv);
    fr_t *b = spread(w->b, w->num_constraints, domain_size, kinv);
    fr_t *c = spread(w->c, w->num_constraints, domain_size, kinv);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory reordering %zu rows", domain_size);
    }
    free(w->a), free(w->b), free(w->c);
    w->a = a, w->b = b, w->c = c;
    w->num_constraints = domain_size;
    return CUZK_OK;
}

int snarkjs_witness_prover(cs_prover *out, const snarkjs_zkey *z, const snarkjs_wtns *w,
                           cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    if (w->n != z->n_vars)
        return cuzk_errf(err, CUZK_EINVAL, "witness has %u values, the zkey has %u signals", w->n,
                         z->n_vars);
    size_t rows = 0;
    for (size_t k = 0; k < z->n_coefs; k++)
        if (z->coefs[k].constraint + 1u > rows) rows = z->coefs[k].constraint + 1u;
    out->num_constraints = rows;
    out->num_inputs = (size_t)z->n_public + 1;
    out->num_aux = z->n_vars - out->num_inputs;
    out->a = calloc(rows + 1, sizeof(fr_t));
    out->b = calloc(rows + 1, sizeof(fr_t));
    out->c = calloc(rows + 1, sizeof(fr_t));
    out->input_assignment = malloc(sizeof(fr_t) * out->num_inputs);
    out->aux_assignment = malloc(sizeof(fr_t) * (out->num_aux + 1));
    int rc = out->a && out->b && out->c && out->input_assignment && out->aux_assignment
                 ? CUZK_OK
                 : CUZK_ENOMEM;
    if (!rc) rc = bitmap_new(&out->a_aux_density, out->num_aux);
    if (!rc) rc = bitmap_new(&out->b_input_density, out->num_inputs);
    if (!rc) rc = bitmap_new(&out->b_aux_density, out->num_aux);
    if (rc) {
        cs_prover_free(out);
        return cuzk_errf(err, rc, "witness: out of memory");
    }
    memcpy(out->input_assignment, w->values, sizeof(fr_t) * out->num_inputs);
    memcpy(out->aux_assignment, w->values + out->num_inputs, sizeof(fr_t) * out->num_aux);
    g1_density(&out->a_aux_density, z->a, out->num_inputs);
    g1_density(&out->b_input_density, z->b1, 0);
    g1_density(&out->b_aux_density, z->b1, out->num_inputs);
    evaluate_rows(out, z, w->values);
    rc = snarkjs_reorder_rows(out, z->domain_size, err);
    if (rc) cs_prover_free(out);
    return rc;
}
