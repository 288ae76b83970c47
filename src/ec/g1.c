/*
 * g1.c - G1, the order-r subgroup of E1: y^2 = x^3 + 4 over Fp.
 *
 * The generic group law (ec_impl.h) and encodings (ec_encode_impl.h)
 * instantiated over Fp, the standard generator, and the subgroup check
 * through the GLV endomorphism phi (for many points at once:
 * subgroup_impl.h). Constants are in Montgomery form
 * (value * 2^384 mod p); the comment above each gives the value.
 */
#include "cuzk/ec.h"

#include <string.h>

/* b = 4 */
static const fp_t G1_B = {{0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f,
                           0xb1d37ebee6ba24d7, 0x8ec9733bbf78ab2f, 0x09d645513d83de7e}};

/*
 * The generator (ZCash / IETF pairing-friendly-curves draft):
 * x =
 * 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
 * y =
 * 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1
 */
const g1_affine_t g1_GENERATOR = {{{0x5cb38790fd530c16, 0x7817fc679976fff5, 0x154f95c7143ba1c1,
                                    0xf0ae6acdf3d0e747, 0xedce6ecc21dbf440, 0x120177419e0bfb75}},
                                  {{0xbaac93d50ce72271, 0x8c22631a7918fd8e, 0xdd595f13570725ce,
                                    0x51ac582950405194, 0x0e1c8c3fad0059c0, 0x0bbc3efc5008a26a}}};

#define G(x)          g1_##x
#define FIELD_T       fp_t
#define FIELD_ADD     fp_add
#define FIELD_SUB     fp_sub
#define FIELD_DBL     fp_dbl
#define FIELD_NEG     fp_neg
#define FIELD_MUL     fp_mul
#define FIELD_SQR     fp_sqr
#define FIELD_INV     fp_inv
#define FIELD_IS_ZERO fp_is_zero
#define FIELD_EQ      fp_eq
#define FIELD_ZERO    FP_ZERO
#define FIELD_ONE     FP_ONE
#define CURVE_B       G1_B
#include "ec/ec_impl.h"

#define G_NAME            "G1"
#define FIELD_BYTES       FP_BYTES
#define FIELD_TO_BE       fp_to_bytes_be
#define FIELD_FROM_BE     fp_from_bytes_be
#define FIELD_SQRT        fp_sqrt
#define FIELD_LEX_LARGEST fp_is_lexicographically_largest
#include "ec/ec_encode_impl.h"

/*
 * phi(x, y) = (beta x, y) is an endomorphism of E1 for a cube root of unity
 * beta; on G1 it acts as a multiplication by a cube root of unity mod r,
 * either -x^2 or x^2 - 1 (both roots of l^2 + l + 1 = 0 since
 * r = x^4 - x^2 + 1). beta = 2^((p-1)/3) mod p is the one paired with -x^2:
 *   beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe
 * (the other root, beta^2 = 0x1a01...aaac, pairs with x^2 - 1: beware of
 * texts that pair it with -x^2; tests/unit/test_ec.c checks both facts).
 * Scott ("A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves", 2021) shows that a point of E1 is in G1 iff
 * phi(P) = [-x^2] P.
 */
static const fp_t G1_BETA = {{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7,
                              0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160}};

/* |x| = 0xd201000000010000, the BLS parameter x = -|x| */
static const uint64_t G1_ABS_X = 0xd201000000010000;

/* Assumes p on the curve (the decoders check that first). */
bool g1_affine_in_subgroup(const g1_affine_t *p)
{
    if (g1_affine_is_inf(p)) return true;
    g1_jac_t q, phi;
    g1_jac_from_affine(&q, p);
    g1_jac_mul_binary(&q, &q, &G1_ABS_X, 1);
    g1_jac_mul_binary(&q, &q, &G1_ABS_X, 1);
    g1_jac_neg(&q, &q); /* -x^2 P */
    fp_mul(&phi.x, &p->x, &G1_BETA);
    phi.y = p->y;
    phi.z = FP_ONE;
    return g1_jac_eq(&phi, &q);
}

/*
 * GLV: phi2(x, y) = (beta^2 x, y) acts on G1 as mu = x^2 - 1, and
 * r = mu^2 + mu + 1, so any k < r splits as k = k0 + k1 mu with
 * k0 = k mod mu < 2^128 and k1 = k div mu <= mu + 1 < 2^128; then
 * k P = k0 P + k1 phi2(P), two 128-bit scalars sharing 128 doublings.
 *   mu     = 0xac45a4010001a40200000000ffffffff
 *   beta^2 =
 * 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac
 */
static const fp_t G1_BETA2 = {{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95,
                               0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2, 0x18f0206554638741}};
static const unsigned __int128 G1_MU = ((unsigned __int128)0xac45a4010001a402 << 64) | 0xffffffff;

/* k = k0 + k1 mu by binary long division (k < r, so k1 fits 128 bits). */
static void g1_glv_split(uint64_t out[4], const uint64_t k[FR_LIMBS])
{
    unsigned __int128 q = 0, rem = 0;
    for (int i = 64 * FR_LIMBS - 1; i >= 0; i--) {
        int carry = (int)(rem >> 127); /* 2 rem may pass 2^128 since mu > 2^127 */
        rem = (rem << 1) | ((k[i / 64] >> (i % 64)) & 1);
        q <<= 1;
        if (carry || rem >= G1_MU) {
            rem -= G1_MU;
            q |= 1;
        }
    }
    out[0] = (uint64_t)rem, out[1] = (uint64_t)(rem >> 64);
    out[2] = (uint64_t)q, out[3] = (uint64_t)(q >> 64);
}

void g1_jac_mul(g1_jac_t *r, const g1_jac_t *p, const fr_t *k)
{
    uint64_t l[FR_LIMBS], parts[4];
    fr_to_canonical(l, k);
    g1_glv_split(parts, l);
    g1_affine_t tbl[2 * EC_TBL];
    g1_jac_odd_multiples(tbl, p);
    for (int i = 0; i < EC_TBL; i++) { /* phi2 of each entry; infinity (0, 0) stays */
        fp_mul(&tbl[EC_TBL + i].x, &tbl[i].x, &G1_BETA2);
        tbl[EC_TBL + i].y = tbl[i].y;
    }
    g1_jac_mul_multi(r, tbl, parts, 2, 2);
}

#include "ec/subgroup_impl.h"
