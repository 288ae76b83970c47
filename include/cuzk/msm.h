/*
 * msm.h - multi-scalar multiplication on the CPU (G1 and G2), the hot spot
 * of the Groth16 prover, and the helpers around it.
 *
 *   G_msm               sum scalars[i] * bases[i] (Pippenger, signed-digit
 *                       windows, batch-affine buckets, OpenMP threads)
 *   G_batch_add_bitmap  sum of the bases whose bit is set
 *   G_msm_split         the same sum as G_msm, computed as a bitmap batch
 *                       addition over the scalars equal to 1 plus a tail MSM
 *                       over the other non-zero scalars, when that pays
 *   G_fixed_base_mul    out[i] = scalars[i] * base (parameter generation)
 *
 * Bases are affine arrays (infinity = all-zero coordinates, allowed
 * anywhere); scalars are Fr elements in Montgomery form (fr_t); sums come
 * back in Jacobian coordinates. threads <= 0 means all OpenMP threads.
 * Every function returns CUZK_OK or CUZK_ENOMEM (with a message in err).
 * The scalars are public: nothing here is constant time.
 */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec.h"
#include "cuzk/err.h"
#include "cuzk/fr.h"

/*
 * The split decision of reference/groth16.md, shared by the CPU and GPU
 * provers: split when the tail (scalars neither 0 nor 1) is at most half of
 * the n points.
 */
bool msm_split_worthwhile(size_t n_tail, size_t n);

/*
 * Sorts scalars into zeros, ones and the tail: *n_ones and *n_tail get the
 * counts; ones_bitmap (optional, (n + 63) / 64 words) gets bit i set iff
 * scalars[i] == 1.
 */
void msm_classify(const fr_t *scalars, size_t n, uint64_t *ones_bitmap, size_t *n_ones,
                  size_t *n_tail, int threads);
/* msm_classify, also marking the tail (neither 0 nor 1) in tail_bitmap
 * (optional, (n + 63) / 64 words). */
void msm_classify_bits(const fr_t *scalars, size_t n, uint64_t *ones_bitmap, uint64_t *tail_bitmap,
                       size_t *n_ones, size_t *n_tail, int threads);

#define MSM_API(G)                                                                                 \
    int G##_msm(G##_jac_t *r, const G##_affine_t *bases, const fr_t *scalars, size_t n,            \
                int threads, cuzk_err *err);                                                       \
    /* r = sum of bases[i] over the i < n with bit i of bitmap set */                              \
    int G##_batch_add_bitmap(G##_jac_t *r, const G##_affine_t *bases, const uint64_t *bitmap,      \
                             size_t n, int threads, cuzk_err *err);                                \
    /* same result as G##_msm; splits when msm_split_worthwhile says so */                         \
    int G##_msm_split(G##_jac_t *r, const G##_affine_t *bases, const fr_t *scalars, size_t n,      \
                      int threads, cuzk_err *err);                                                 \
    int G##_fixed_base_mul(G##_affine_t *out, const G##_affine_t *base, const fr_t *scalars,       \
                           size_t n, int threads, cuzk_err *err);

MSM_API(g1)
MSM_API(g2)

#endif
