/*
 * h_split.cuh - the point-wise step of the H computation when the prover
 * runs it transform by transform (prove_gpu.cu: while a, b, c are still
 * coming up): on the coset 7 H, where the vanishing polynomial X^m - 1 is
 * the constant 7^m - 1, a := (a b - c) / (7^m - 1). Host-compilable, so
 * that the host build of the prover's tests runs the same code.
 */
#ifndef CUZK_GPU_PROVE_H_SPLIT_CUH
#define CUZK_GPU_PROVE_H_SPLIT_CUH

#include "gpu/prove/prove_gpu.cuh"

/* zinv = 1 / (7^m - 1). */
HD void h_pointwise_item(size_t i, fr_d *a, const fr_d *b, const fr_d *c, fr_d zinv)
{
    a[i] = (a[i] * b[i] - c[i]) * zinv;
}

#endif
