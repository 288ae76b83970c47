/*
 * ec.h - the BLS12-381 groups G1 (over Fp) and G2 (over Fp2).
 *
 * E1: y^2 = x^3 + 4, E2: y^2 = x^3 + 4(u + 1). The group law is written
 * once (src/ec/ec_impl.h) and instantiated for both groups; this header
 * declares the same API for each through EC_API(g1, fp_t) and
 * EC_API(g2, fp2_t), so every g1_ function below has a g2_ twin.
 *
 * Coordinates:
 *   affine  (x, y); the point at infinity is x = y = 0 (not on the curve).
 *   jac     Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3; Z = 0 is infinity.
 *   xyzz    (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; ZZ = 0 is
 *           infinity. Cheapest for accumulating affine points (MSM buckets).
 * Scalars are Fr elements in Montgomery form (fr_t) or canonical
 * little-endian 64-bit limbs. Every operation accepts r aliasing an input
 * of the same type, except where noted.
 *
 * Encodings follow ZCash / blst (reference/groth16.md): uncompressed 96 /
 * 192 bytes, compressed 48 / 96 bytes, big-endian coordinates, G2 imaginary
 * part first, flag bits 0x80 compressed, 0x40 infinity, 0x20 sign.
 */
#ifndef CUZK_EC_H
#define CUZK_EC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fp2.h"
#include "cuzk/fr.h"

#define EC_TYPES(G, F)                                                                             \
    typedef struct G##_affine_t {                                                                  \
        F x, y;                                                                                    \
    } G##_affine_t;                                                                                \
    typedef struct G##_jac_t {                                                                     \
        F x, y, z;                                                                                 \
    } G##_jac_t;                                                                                   \
    typedef struct G##_xyzz_t {                                                                    \
        F x, y, zz, zzz;                                                                           \
    } G##_xyzz_t;

EC_TYPES(g1, fp_t)
EC_TYPES(g2, fp2_t)

#define G1_UNCOMPRESSED_BYTES 96
#define G1_COMPRESSED_BYTES   48
#define G2_UNCOMPRESSED_BYTES 192
#define G2_COMPRESSED_BYTES   96

#define EC_API(G, F)                                                                               \
    extern const G##_affine_t G##_GENERATOR;                                                       \
    /* affine */                                                                                   \
    bool G##_affine_is_inf(const G##_affine_t *p);                                                 \
    bool G##_affine_on_curve(const G##_affine_t *p); /* infinity counts as on the curve */         \
    /* endomorphism-based check (Scott 2021); p must be on the curve */                            \
    bool G##_affine_in_subgroup(const G##_affine_t *p);                                            \
    /* all n points (each on the curve) in the subgroup: 128 random subset sums */                 \
    /* tested exactly, so a point outside passes with probability <= 2^-128; */                    \
    /* parallel, about 1/8 of one exact test per point (src/ec/subgroup_impl.h) */                 \
    bool G##_affine_all_in_subgroup(const G##_affine_t *p, size_t n);                              \
    bool G##_affine_eq(const G##_affine_t *a, const G##_affine_t *b);                              \
    void G##_affine_neg(G##_affine_t *r, const G##_affine_t *p);                                   \
    /* Jacobian */                                                                                 \
    void G##_jac_set_inf(G##_jac_t *r);                                                            \
    bool G##_jac_is_inf(const G##_jac_t *p);                                                       \
    bool G##_jac_eq(const G##_jac_t *a, const G##_jac_t *b);                                       \
    bool G##_jac_on_curve(const G##_jac_t *p);                                                     \
    void G##_jac_from_affine(G##_jac_t *r, const G##_affine_t *p);                                 \
    void G##_jac_to_affine(G##_affine_t *r, const G##_jac_t *p);                                   \
    /* one inversion for all n (Montgomery's trick); r must not overlap p */                       \
    void G##_jac_batch_to_affine(G##_affine_t *r, const G##_jac_t *p, size_t n);                   \
    void G##_jac_neg(G##_jac_t *r, const G##_jac_t *p);                                            \
    void G##_jac_dbl(G##_jac_t *r, const G##_jac_t *p);                                            \
    void G##_jac_add(G##_jac_t *r, const G##_jac_t *a, const G##_jac_t *b);                        \
    void G##_jac_add_affine(G##_jac_t *r, const G##_jac_t *a, const G##_affine_t *b);              \
    /* p in the subgroup: GLV / GLS split over the endomorphism, w-NAF; variable time */           \
    /* (for public data, not secret scalars) */                                                    \
    void G##_jac_mul(G##_jac_t *r, const G##_jac_t *p, const fr_t *k);                             \
    /* any point of the curve; k as n canonical little-endian limbs (any size, e.g. */             \
    /* cofactors); sliding window, variable time */                                                \
    void G##_jac_mul_limbs(G##_jac_t *r, const G##_jac_t *p, const uint64_t *k, size_t n);         \
    /* XYZZ */                                                                                     \
    void G##_xyzz_set_inf(G##_xyzz_t *r);                                                          \
    bool G##_xyzz_is_inf(const G##_xyzz_t *p);                                                     \
    void G##_xyzz_dbl(G##_xyzz_t *r, const G##_xyzz_t *p);                                         \
    void G##_xyzz_add(G##_xyzz_t *r, const G##_xyzz_t *a, const G##_xyzz_t *b);                    \
    void G##_xyzz_add_affine(G##_xyzz_t *r, const G##_xyzz_t *a, const G##_affine_t *b);           \
    void G##_xyzz_to_jac(G##_jac_t *r, const G##_xyzz_t *p);                                       \
    /* encodings; decoders return CUZK_OK or the specific CUZK_E* code, with a message */          \
    void G##_affine_serialize(uint8_t *out, const G##_affine_t *p);                                \
    void G##_affine_compress(uint8_t *out, const G##_affine_t *p);                                 \
    /* checked: canonical, on curve, in subgroup (infinity allowed) */                             \
    int G##_affine_deserialize(G##_affine_t *r, const uint8_t *in, size_t len, cuzk_err *err);     \
    int G##_affine_uncompress(G##_affine_t *r, const uint8_t *in, size_t len, cuzk_err *err);      \
    /* for trusted local files: canonical and flags only, no curve or subgroup check */            \
    int G##_affine_deserialize_unchecked(G##_affine_t *r, const uint8_t *in, size_t len,           \
                                         cuzk_err *err);

EC_API(g1, fp_t)
EC_API(g2, fp2_t)

#endif
