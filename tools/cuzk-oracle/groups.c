/*
 * groups.c - the cuzk-oracle requests for G1 and G2 (group_ops.h,
 * instantiated twice): scalar multiplication, the group law by each
 * coordinate system, equality, batch conversion and the encodings.
 */
#include "oracle.h"

#include "cuzk/ec.h"

/* p as (X, Y, Z) = (x z^2, y z^3, z) and (X, Y, ZZ, ZZZ) = (x z^2, y z^3, z^2, z^3). */
static void g1_oracle_lift(g1_jac_t *j, g1_xyzz_t *x, const g1_affine_t *p, uint64_t k)
{
    if (g1_affine_is_inf(p)) {
        g1_jac_set_inf(j);
        g1_xyzz_set_inf(x);
        return;
    }
    fp_from_u64(&j->z, k + 2);
    fp_sqr(&x->zz, &j->z);
    fp_mul(&x->zzz, &x->zz, &j->z);
    fp_mul(&j->x, &p->x, &x->zz);
    fp_mul(&j->y, &p->y, &x->zzz);
    x->x = j->x;
    x->y = j->y;
}

/* The same over Fp2 with z = (k + 2) + (k + 3) u. */
static void g2_oracle_lift(g2_jac_t *j, g2_xyzz_t *x, const g2_affine_t *p, uint64_t k)
{
    if (g2_affine_is_inf(p)) {
        g2_jac_set_inf(j);
        g2_xyzz_set_inf(x);
        return;
    }
    fp_from_u64(&j->z.c0, k + 2);
    fp_from_u64(&j->z.c1, k + 3);
    fp2_sqr(&x->zz, &j->z);
    fp2_mul(&x->zzz, &x->zz, &j->z);
    fp2_mul(&j->x, &p->x, &x->zz);
    fp2_mul(&j->y, &p->y, &x->zzz);
    x->x = j->x;
    x->y = j->y;
}

#define G(x)           g1_##x
#define G_AFF          g1_affine_t
#define G_JAC          g1_jac_t
#define G_XYZZ         g1_xyzz_t
#define G_COMPRESSED   G1_COMPRESSED_BYTES
#define G_UNCOMPRESSED G1_UNCOMPRESSED_BYTES
#define G_NAME         "g1"
#define G_LIFT         g1_oracle_lift
#include "group_ops.h"
#undef G
#undef G_AFF
#undef G_JAC
#undef G_XYZZ
#undef G_COMPRESSED
#undef G_UNCOMPRESSED
#undef G_NAME
#undef G_LIFT

#define G(x)           g2_##x
#define G_AFF          g2_affine_t
#define G_JAC          g2_jac_t
#define G_XYZZ         g2_xyzz_t
#define G_COMPRESSED   G2_COMPRESSED_BYTES
#define G_UNCOMPRESSED G2_UNCOMPRESSED_BYTES
#define G_NAME         "g2"
#define G_LIFT         g2_oracle_lift
#include "group_ops.h"
