/*
 * msm_g2.c - the MSM, batch addition and fixed-base multiplication of G2:
 * the generic sources (batch_add_impl.h, msm_impl.h, fixed_base_impl.h)
 * instantiated over Fp2.
 */
#include "cuzk/msm.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "msm_internal.h"

typedef g2_affine_t G_AFF;
typedef g2_jac_t G_JAC;
typedef g2_xyzz_t G_XYZZ;

#define G(x)      g2_##x
#define F_T       fp2_t
#define F_ADD     fp2_add
#define F_SUB     fp2_sub
#define F_DBL     fp2_dbl
#define F_NEG     fp2_neg
#define F_MUL     fp2_mul
#define F_SQR     fp2_sqr
#define F_INV     fp2_inv
#define F_IS_ZERO fp2_is_zero
#define F_EQ      fp2_eq
#define F_ONE     FP2_ONE
/* Points per chunk: 2 x 3 MiB of level buffers, as for G1. */
#define MSM_CHUNK (1u << 14)
/* A window costs a few inversions (about 70 multiplications each with
 * safegcd) and 2^(c-1) bucket reductions, a scalar multiplication about 300
 * doublings and additions: below about 8 points the naive sum wins. */
#define MSM_NAIVE_MAX 8

#include "batch_add_impl.h"
#include "fixed_base_impl.h"
#include "msm_impl.h"
