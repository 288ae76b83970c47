/*
 * msm.c - the cuzk-oracle requests for the CPU multi-scalar multiplication
 * of G1 and G2 (msm_ops.h, instantiated twice): Pippenger on one and on
 * several threads, the split MSM, bitmap batch addition and fixed-base
 * multiplication, each answered as compressed points.
 */
#include "oracle.h"

#include <stdlib.h>

#include "cuzk/msm.h"

#define G(x)         g1_##x
#define G_AFF        g1_affine_t
#define G_JAC        g1_jac_t
#define G_COMPRESSED G1_COMPRESSED_BYTES
#define G_NAME       "g1"
#include "msm_ops.h"
#undef G
#undef G_AFF
#undef G_JAC
#undef G_COMPRESSED
#undef G_NAME

#define G(x)         g2_##x
#define G_AFF        g2_affine_t
#define G_JAC        g2_jac_t
#define G_COMPRESSED G2_COMPRESSED_BYTES
#define G_NAME       "g2"
#include "msm_ops.h"
