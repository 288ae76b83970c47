/*
 * msm_g1.c - the MSM, batch addition and fixed-base multiplication of G1:
 * the generic sources (batch_add_impl.h, msm_impl.h, fixed_base_impl.h)
 * instantiated over Fp.
 */
#include "cuzk/msm.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "msm_internal.h"

typedef g1_affine_t G_AFF;
typedef g1_jac_t G_JAC;
typedef g1_xyzz_t G_XYZZ;

#define G(x)      g1_##x
#define F_T       fp_t
#define F_ADD     fp_add
#define F_SUB     fp_sub
#define F_DBL     fp_dbl
#define F_NEG     fp_neg
#define F_MUL     fp_mul
#define F_SQR     fp_sqr
#define F_INV     fp_inv
#define F_IS_ZERO fp_is_zero
#define F_EQ      fp_eq
#define F_ONE     FP_ONE
/* Points per chunk (2 x 3 MiB of level buffers); 2^14 .. 2^16 measured alike
 * at 2^20 points, c = 16. */
#define MSM_CHUNK (1u << 15)
/* A window costs a few inversions (about 70 multiplications each with
 * safegcd) and 2^(c-1) bucket reductions, a scalar multiplication about 300
 * doublings and additions: below about 12 points the naive sum wins. */
#define MSM_NAIVE_MAX 12

#include "batch_add_impl.h"
#include "fixed_base_impl.h"
#include "msm_impl.h"
