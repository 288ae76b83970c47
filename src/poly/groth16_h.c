/*
 * groth16_h.c - the Groth16 quotient h = (A B - C) / (X^n - 1) from the
 * evaluations a, b, c of the constraint system on the domain
 * (reference/groth16.md, "Prover" steps 1-3).
 *
 * For each of a, b, c: an inverse NTT (natural in, bit-reversed out) whose
 * output is scaled by 7^j / n, which gives the coefficients of P(7X) in
 * bit-reversed order, then a forward NTT (bit-reversed in, natural out): the
 * evaluations of A, B, C on the coset 7 <omega>, where t = X^n - 1 is the
 * constant 7^n - 1. There a := (a b - c) / (7^n - 1), and an inverse coset
 * NTT (natural in, bit-reversed out, scaled by 7^-j / n) plus one bit
 * reversal gives h in natural order. The DIF/DIT pairing means only that
 * final permutation is spent on reordering. The first two transforms are
 * ntt_shift_evaluations, also public for other shifts.
 */
#include "poly/ntt_internal.h"

#include <string.h>

/* a[i] = (a[i] b[i] - c[i]) z */
static void combine(fr_t *a, const fr_t *b, const fr_t *c, size_t n, const fr_t *z)
{
#pragma omp parallel for schedule(static) if (n >= 4096)
    for (size_t i = 0; i < n; i++) {
        fr_t t;
        fr_mul(&t, &a[i], &b[i]);
        fr_sub(&t, &t, &c[i]);
        fr_mul(&a[i], &t, z);
    }
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

int ntt_groth16_h(const ntt_domain *d, fr_t *a, fr_t *b, fr_t *c, size_t len, cuzk_err *err)
{
    if (len > d->n)
        return cuzk_errf(err, CUZK_ELENGTH, "groth16 h: %zu constraints exceed the domain of 2^%u",
                         len, d->log_n);
    fr_t *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        memset(v[k] + len, 0, (d->n - len) * sizeof(fr_t));
        int rc = ntt_shift_evaluations(d, v[k], &d->shift, err);
        if (rc) return failed(err, rc);
    }
    combine(a, b, c, d->n, &d->t_coset_inv);
    int rc =
        ntt_transform(d, a, NTT_INV, NTT_NATURAL, NTT_BITREV, &d->n_inv, NULL, &d->shift_inv, err);
    if (rc) return failed(err, rc);
    ntt_bit_reverse(a, d->log_n);
    return CUZK_OK;
}
