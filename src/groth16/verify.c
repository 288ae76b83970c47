/*
 * verify.c - the Groth16 verifier with a prepared verifying key.
 *
 * One proof: e(A, B) e(acc, -gamma) e(C, -delta) == e(alpha, beta) with
 * acc = IC_0 + sum x_i IC_{i+1}: three Miller loops, one final
 * exponentiation, compared with the precomputed e(alpha, beta).
 * Many proofs: a random linear combination with 128-bit weights z_i from
 * the OS, checked as one product of n + 3 pairings:
 *   prod e(z_i A_i, B_i) e(sum z_i acc_i, -gamma) e(sum z_i C_i, -delta)
 *   e(-(sum z_i) alpha, beta) == 1.
 */
#include "cuzk/groth16.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "cuzk/pairing.h"

int groth16_prepare_vk(groth16_pvk *out, const groth16_vk *vk, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    if (vk->n_ic == 0) return cuzk_errf(err, CUZK_EINVAL, "verifying key has no IC points");
    out->ic = malloc(sizeof(g1_affine_t) * vk->n_ic);
    if (!out->ic) return cuzk_errf(err, CUZK_ENOMEM, "verifying key: out of memory");
    memcpy(out->ic, vk->ic, sizeof(g1_affine_t) * vk->n_ic);
    out->n_ic = vk->n_ic;
    out->alpha_g1 = vk->alpha_g1;
    out->beta_g2 = vk->beta_g2;
    pairing(&out->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
    g2_affine_neg(&out->neg_gamma_g2, &vk->gamma_g2);
    g2_affine_neg(&out->neg_delta_g2, &vk->delta_g2);
    return CUZK_OK;
}

void groth16_pvk_free(groth16_pvk *pvk)
{
    free(pvk->ic);
    memset(pvk, 0, sizeof(*pvk));
}

/* acc = IC_0 + sum inputs[i] IC_{i+1} */
static int input_acc(g1_jac_t *acc, const groth16_pvk *pvk, const fr_t *inputs, size_t n,
                     cuzk_err *err)
{
    if (n + 1 != pvk->n_ic)
        return cuzk_errf(err, CUZK_EINVAL, "verify: %zu public inputs given, the key takes %zu", n,
                         pvk->n_ic - 1);
    int rc = g1_msm(acc, pvk->ic + 1, inputs, n, 1, err);
    if (!rc) g1_jac_add_affine(acc, acc, &pvk->ic[0]);
    return rc;
}

int groth16_verify(const groth16_pvk *pvk, const groth16_proof *proof, const fr_t *inputs,
                   size_t n_inputs, cuzk_err *err)
{
    g1_jac_t acc;
    int rc = input_acc(&acc, pvk, inputs, n_inputs, err);
    if (rc) return rc;
    g1_affine_t p[3];
    g2_affine_t q[3] = {proof->b, pvk->neg_gamma_g2, pvk->neg_delta_g2};
    p[0] = proof->a;
    g1_jac_to_affine(&p[1], &acc);
    p[2] = proof->c;
    fp12_t f;
    miller_loop_n(&f, p, q, 3);
    final_exp(&f, &f);
    if (!fp12_eq(&f, &pvk->alpha_beta))
        return cuzk_errf(err, CUZK_EVERIFY, "verify: the pairing check failed");
    return CUZK_OK;
}

static int random_weights(fr_t *z, size_t n, cuzk_err *err)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b[FR_BYTES] = {0};
        if (cuzk_os_random(b, 16)) return cuzk_errf(err, CUZK_EIO, "verify: no OS randomness");
        b[0] |= 1; /* never zero */
        fr_from_bytes_le(&z[i], b);
    }
    return CUZK_OK;
}

int groth16_verify_batch(const groth16_pvk *pvk, const groth16_proof *proofs, size_t n,
                         const fr_t *inputs, size_t n_inputs, cuzk_err *err)
{
    if (n == 0) return CUZK_OK;
    fr_t *z = malloc(sizeof(fr_t) * n);
    g1_affine_t *p = malloc(sizeof(g1_affine_t) * (n + 3));
    g2_affine_t *q = malloc(sizeof(g2_affine_t) * (n + 3));
    int rc = z && p && q ? random_weights(z, n, err)
                         : cuzk_errf(err, CUZK_ENOMEM, "verify: out of memory");
    g1_jac_t acc_sum, c_sum, t;
    fr_t z_sum = FR_ZERO;
    g1_jac_set_inf(&acc_sum);
    g1_jac_set_inf(&c_sum);
    for (size_t i = 0; !rc && i < n; i++) {
        g1_jac_t acc;
        rc = input_acc(&acc, pvk, inputs + i * n_inputs, n_inputs, err);
        if (rc) break;
        g1_jac_mul(&t, &acc, &z[i]);
        g1_jac_add(&acc_sum, &acc_sum, &t);
        g1_jac_from_affine(&t, &proofs[i].c);
        g1_jac_mul(&t, &t, &z[i]);
        g1_jac_add(&c_sum, &c_sum, &t);
        g1_jac_from_affine(&t, &proofs[i].a);
        g1_jac_mul(&t, &t, &z[i]);
        g1_jac_to_affine(&p[i], &t);
        q[i] = proofs[i].b;
        fr_add(&z_sum, &z_sum, &z[i]);
    }
    if (!rc) {
        g1_jac_from_affine(&t, &pvk->alpha_g1);
        g1_jac_mul(&t, &t, &z_sum);
        g1_jac_neg(&t, &t);
        g1_jac_to_affine(&p[n], &acc_sum);
        g1_jac_to_affine(&p[n + 1], &c_sum);
        g1_jac_to_affine(&p[n + 2], &t);
        q[n] = pvk->neg_gamma_g2;
        q[n + 1] = pvk->neg_delta_g2;
        q[n + 2] = pvk->beta_g2;
        if (!pairing_product_is_one(p, q, n + 3))
            rc = cuzk_errf(err, CUZK_EVERIFY, "verify: the batch of %zu proofs failed", n);
    }
    free(z), free(p), free(q);
    return rc;
}
