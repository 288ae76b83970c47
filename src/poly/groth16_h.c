/*
 * groth16_h.c - the Groth16 quotient h = (A B - C) / (X^n - 1) from the
 * evaluations a, b, c of the constraint system on the domain
 * (reference/groth16.md, "Prover" steps 1-3), in six transforms.
 *
 * a and b: an inverse NTT (natural in, bit-reversed out) whose output is
 * scaled by 7^j / n, which gives the coefficients of P(7X) in bit-reversed
 * order, then a forward NTT (bit-reversed in, natural out): the
 * evaluations of A and B on the coset 7 <omega>, where t = X^n - 1 is the
 * constant z = 7^n - 1. There a := a b / z, and an inverse coset NTT
 * (natural in, bit-reversed out, scaled by 7^-j / n) gives the
 * coefficients of the polynomial of degree < n equal to A B / z on the
 * coset. C needs no coset at all: the inverse coset NTT is linear and
 * returns any polynomial of degree < n from its coset evaluations, so the
 * (A B - C) / z of the seven-transform form is that polynomial minus C / z,
 * and C / z is one inverse NTT of c (scaled by 1 / (n z), bit-reversed out).
 * The subtraction in bit-reversed order and one bit reversal give h in
 * natural order: the same field elements as the seven transforms, for any
 * a, b, c. The first two transforms of a and b are ntt_shift_evaluations,
 * also public for other shifts.
 */
#include "poly/ntt_internal.h"

#include <string.h>

/* a[i] = a[i] b[i] z */
static void mul_scaled(fr_t *a, const fr_t *b, size_t n, const fr_t *z)
{
#pragma omp parallel for schedule(static) if (n >= 4096)
    for (size_t i = 0; i < n; i++) {
        fr_mul(&a[i], &a[i], &b[i]);
        fr_mul(&a[i], &a[i], z);
    }
}

/* a[i] -= c[i] */
static void sub_vec(fr_t *a, const fr_t *c, size_t n)
{
#pragma omp parallel for schedule(static) if (n >= 4096)
    for (size_t i = 0; i < n; i++) fr_sub(&a[i], &a[i], &c[i]);
}

int ntt_shift_evaluations(const ntt_domain *d, fr_t *x, const fr_t *shift, cuzk_err *err)
{
    int rc = ntt_transform(d, x, NTT_INV, NTT_NATURAL, NTT_BITREV, &d->n_inv, NULL, shift, err);
    if (rc) return rc;
    return ntt_transform(d, x, NTT_FWD, NTT_BITREV, NTT_NATURAL, NULL, NULL, NULL, err);
}

static int failed(cuzk_err *err, int rc)
{
    cuzk_err_prefix(err, "groth16 h: ");
    return rc;
}

int ntt_groth16_h_row(const ntt_domain *d, fr_t *x, size_t len, int row, cuzk_err *err)
{
    if (len > d->n)
        return cuzk_errf(err, CUZK_ELENGTH, "groth16 h: %zu constraints exceed the domain of 2^%u",
                         len, d->log_n);
    if (row < 0 || row > 2) return cuzk_errf(err, CUZK_EINVAL, "groth16 h: no row %d", row);
    memset(x + len, 0, (d->n - len) * sizeof(fr_t));
    int rc;
    if (row < 2) {
        rc = ntt_shift_evaluations(d, x, &d->shift, err);
    } else {
        fr_t u;
        fr_mul(&u, &d->n_inv, &d->t_coset_inv);
        rc = ntt_transform(d, x, NTT_INV, NTT_NATURAL, NTT_BITREV, &u, NULL, NULL, err);
    }
    return rc ? failed(err, rc) : CUZK_OK;
}

void ntt_groth16_h_mul(const ntt_domain *d, fr_t *x, const fr_t *y, size_t count, bool x_is_b)
{
    if (!x_is_b) {
        mul_scaled(x, y, count, &d->t_coset_inv);
        return;
    }
#pragma omp parallel for schedule(static) if (count >= 4096)
    for (size_t i = 0; i < count; i++) {
        fr_mul(&x[i], &y[i], &x[i]);
        fr_mul(&x[i], &x[i], &d->t_coset_inv);
    }
}

int ntt_groth16_h_product(const ntt_domain *d, fr_t *a, cuzk_err *err)
{
    int rc =
        ntt_transform(d, a, NTT_INV, NTT_NATURAL, NTT_BITREV, &d->n_inv, NULL, &d->shift_inv, err);
    return rc ? failed(err, rc) : CUZK_OK;
}

void ntt_groth16_h_sub(fr_t *x, const fr_t *c, size_t count)
{
    sub_vec(x, c, count);
}

int ntt_groth16_h_finish(const ntt_domain *d, fr_t *a, const fr_t *b, const fr_t *c, cuzk_err *err)
{
    ntt_groth16_h_mul(d, a, b, d->n, false);
    int rc = ntt_groth16_h_product(d, a, err);
    if (rc) return rc;
    sub_vec(a, c, d->n);
    ntt_bit_reverse(a, d->log_n);
    return CUZK_OK;
}

int ntt_groth16_h(const ntt_domain *d, fr_t *a, fr_t *b, fr_t *c, size_t len, cuzk_err *err)
{
    fr_t *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        int rc = ntt_groth16_h_row(d, v[k], len, k, err);
        if (rc) return rc;
    }
    return ntt_groth16_h_finish(d, a, b, c, err);
}
