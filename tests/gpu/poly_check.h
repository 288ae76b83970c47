/*
 * poly_check.h - the polynomial facts the GPU tests (test_gpu.c, and
 * test_gpu_emu.cu on the host) check the NTT and the H step against, on
 * the CPU's fr.h: the domain's root of unity, evaluation of coefficients
 * (Horner) and of evaluations (barycentric Lagrange form), and the
 * quotient's identity h(t) Z(t) = A(t) B(t) - C(t) at a point.
 */
#ifndef CUZK_TESTS_GPU_POLY_CHECK_H
#define CUZK_TESTS_GPU_POLY_CHECK_H

#include <stdbool.h>
#include <stdlib.h>

/* w = ROOT_OF_UNITY^(2^(32 - log_n)), of order 2^log_n (groth16.md) */
static inline void root_of(fr_t *w, unsigned log_n)
{
    static const uint64_t root[4] = {0x3829971f439f0d2b, 0xb63683508c2280b9, 0xd09b681922c813b4,
                                     0x16a2a19edfe81f20};
    fr_from_canonical(w, root);
    for (unsigned i = log_n; i < 32; i++) fr_sqr(w, w);
}

/* sum_i x[i] t^i (Horner) */
static inline void poly_eval(fr_t *r, const fr_t *x, size_t n, const fr_t *t)
{
    fr_t acc = FR_ZERO;
    for (size_t i = n; i-- > 0;) {
        fr_mul(&acc, &acc, t);
        fr_add(&acc, &acc, &x[i]);
    }
    *r = acc;
}

/* sum_i x[i] L_i(t) on the domain of n = 2^lg points:
 * (t^n - 1) / n sum_i x[i] w^i / (t - w^i) */
static inline void lagrange_eval(fr_t *r, const fr_t *x, size_t n, unsigned lg, const fr_t *t)
{
    fr_t *d = (fr_t *)malloc(n * sizeof *d), w, wi = FR_ONE, zn = *t, ninv, acc = FR_ZERO;
    if (!d) abort();
    root_of(&w, lg);
    for (size_t i = 0; i < n; i++, fr_mul(&wi, &wi, &w)) fr_sub(&d[i], t, &wi);
    fr_batch_inv(d, d, n);
    wi = FR_ONE;
    for (size_t i = 0; i < n; i++, fr_mul(&wi, &wi, &w)) {
        fr_t term;
        fr_mul(&term, &wi, &d[i]);
        fr_mul(&term, &term, &x[i]);
        fr_add(&acc, &acc, &term);
    }
    for (unsigned i = 0; i < lg; i++) fr_sqr(&zn, &zn);
    fr_sub(&zn, &zn, &FR_ONE);
    fr_from_u64(&ninv, n);
    fr_inv(&ninv, &ninv);
    fr_mul(&acc, &acc, &zn);
    fr_mul(r, &acc, &ninv);
    free(d);
}

/* h(t) (t^n - 1) == A(t) B(t) - C(t) for the n coefficients of h and the
 * n = 2^lg evaluations a, b, c on the domain. */
static inline bool h_identity_at(const fr_t *a, const fr_t *b, const fr_t *c, const fr_t *h,
                                 unsigned lg, const fr_t *t)
{
    size_t n = (size_t)1 << lg;
    fr_t va, vb, vc, vh, zt = *t, lhs, rhs;
    lagrange_eval(&va, a, n, lg, t);
    lagrange_eval(&vb, b, n, lg, t);
    lagrange_eval(&vc, c, n, lg, t);
    poly_eval(&vh, h, n, t);
    for (unsigned i = 0; i < lg; i++) fr_sqr(&zt, &zt);
    fr_sub(&zt, &zt, &FR_ONE);
    fr_mul(&lhs, &vh, &zt);
    fr_mul(&rhs, &va, &vb);
    fr_sub(&rhs, &rhs, &vc);
    return fr_eq(&lhs, &rhs);
}

#endif
