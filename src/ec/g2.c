/*
 * g2.c - G2, the order-r subgroup of E2: y^2 = x^3 + 4(u + 1) over Fp2,
 * the M-type sextic twist of E1.
 *
 * The generic group law (ec_impl.h) and encodings (ec_encode_impl.h)
 * instantiated over Fp2 (encoded imaginary part first), the standard
 * generator, and the subgroup check through the endomorphism psi (for
 * many points at once: subgroup_impl.h). Constants are in Montgomery
 * form (value * 2^384 mod p per component); the comment above each gives
 * the value.
 */
#include "cuzk/ec.h"

#include <string.h>

#define FP_MONT_4                                                                                  \
    {                                                                                              \
        {                                                                                          \
            0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f, 0xb1d37ebee6ba24d7,        \
                0x8ec9733bbf78ab2f, 0x09d645513d83de7e                                             \
        }                                                                                          \
    }
/* b = 4(u + 1) = 4 + 4u */
static const fp2_t G2_B = {FP_MONT_4, FP_MONT_4};

/*
 * The generator (ZCash / IETF pairing-friendly-curves draft):
 * x.c0 =
 * 0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8
 * x.c1 =
 * 0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e
 * y.c0 =
 * 0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801
 * y.c1 =
 * 0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be
 */
const g2_affine_t g2_GENERATOR = {{{{0xf5f28fa202940a10, 0xb3f5fb2687b4961a, 0xa1a893b53e2ae580,
                                     0x9894999d1a3caee9, 0x6f67b7631863366b, 0x058191924350bcd7}},
                                   {{0xa5a9c0759e23f606, 0xaaa0c59dbccd60c3, 0x3bb17e18e2867806,
                                     0x1b1ab6cc8541b367, 0xc2b6ed0ef2158547, 0x11922a097360edf3}}},
                                  {{{0x4c730af860494c4a, 0x597cfa1f5e369c5a, 0xe7e6856caa0a635a,
                                     0xbbefb5e96e0d495f, 0x07d3a975f0ef25a2, 0x0083fd8e7e80dae5}},
                                   {{0xadc0fc92df64b05d, 0x18aa270a2b1461dc, 0x86adac6a3be4eba0,
                                     0x79495c4ec93da33a, 0xe7175850a43ccaed, 0x0b2bc2a163de1bf2}}}};

/* Fp2 as 96 big-endian bytes, c1 then c0 (the ZCash order). */
static void fp2_to_bytes_be_zcash(uint8_t out[2 * FP_BYTES], const fp2_t *a)
{
    fp_to_bytes_be(out, &a->c1);
    fp_to_bytes_be(out + FP_BYTES, &a->c0);
}

static bool fp2_from_bytes_be_zcash(fp2_t *r, const uint8_t in[2 * FP_BYTES])
{
    return fp_from_bytes_be(&r->c1, in) && fp_from_bytes_be(&r->c0, in + FP_BYTES);
}

#define G(x)          g2_##x
#define FIELD_T       fp2_t
#define FIELD_ADD     fp2_add
#define FIELD_SUB     fp2_sub
#define FIELD_DBL     fp2_dbl
#define FIELD_NEG     fp2_neg
#define FIELD_MUL     fp2_mul
#define FIELD_SQR     fp2_sqr
#define FIELD_INV     fp2_inv
#define FIELD_IS_ZERO fp2_is_zero
#define FIELD_EQ      fp2_eq
#define FIELD_ZERO    FP2_ZERO
#define FIELD_ONE     FP2_ONE
#define CURVE_B       G2_B
#include "ec/ec_impl.h"

#define G_NAME            "G2"
#define FIELD_BYTES       (2 * FP_BYTES)
#define FIELD_TO_BE       fp2_to_bytes_be_zcash
#define FIELD_FROM_BE     fp2_from_bytes_be_zcash
#define FIELD_SQRT        fp2_sqrt
#define FIELD_LEX_LARGEST fp2_is_lexicographically_largest
#include "ec/ec_encode_impl.h"

/*
 * psi = twist^-1 o Frobenius o twist, an endomorphism of E2:
 *   psi(x, y) = (conj(x) PSI_X, conj(y) PSI_Y),
 *   PSI_X = 1 / (u + 1)^((p-1)/3) =
 * 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad
 * u, PSI_Y = 1 / (u + 1)^((p-1)/2) =
 * 0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2
 *         +
 * 0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09
 * u. On G2 it acts as multiplication by x (the trace minus one, x = p mod r), and Scott (2021, as
 * for G1) shows a point of E2 is in G2 iff psi(P) = [x] P.
 */
static const fp2_t G2_PSI_X = {{{0}},
                               {{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c,
                                 0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a}}};
static const fp2_t G2_PSI_Y = {{{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732,
                                 0x92ad2afd19103e18, 0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8}},
                               {{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1,
                                 0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2}}};

/* |x| = 0xd201000000010000, the BLS parameter x = -|x| */
static const uint64_t G2_ABS_X = 0xd201000000010000;

/* psi on affine coordinates; infinity (0, 0) stays (0, 0). */
static void g2_affine_psi(g2_affine_t *r, const g2_affine_t *p)
{
    fp2_conj(&r->x, &p->x);
    fp2_mul(&r->x, &r->x, &G2_PSI_X);
    fp2_conj(&r->y, &p->y);
    fp2_mul(&r->y, &r->y, &G2_PSI_Y);
}

/* Assumes p on the curve (the decoders check that first). */
bool g2_affine_in_subgroup(const g2_affine_t *p)
{
    if (g2_affine_is_inf(p)) return true;
    g2_affine_t psi_a;
    g2_jac_t q, psi;
    g2_affine_psi(&psi_a, p);
    g2_jac_from_affine(&psi, &psi_a);
    g2_jac_from_affine(&q, p);
    g2_jac_mul_binary(&q, &q, &G2_ABS_X, 1);
    g2_jac_neg(&q, &q); /* [x] P */
    return g2_jac_eq(&psi, &q);
}

/*
 * GLS: psi acts on G2 as x, and r = x^4 - x^2 + 1 < |x|^4, so k < r has four
 * base-|x| digits d_i < 2^64 and, as |x|^i = (-x)^i,
 *   k P = d0 P - d1 psi(P) + d2 psi^2(P) - d3 psi^3(P):
 * four 64-bit scalars sharing 64 doublings.
 */
void g2_jac_mul(g2_jac_t *r, const g2_jac_t *p, const fr_t *k)
{
    uint64_t l[FR_LIMBS], digits[4];
    fr_to_canonical(l, k);
    for (int d = 0; d < 4; d++) { /* l = l div |x|, digit = l mod |x| */
        unsigned __int128 rem = 0;
        for (int i = FR_LIMBS - 1; i >= 0; i--) {
            unsigned __int128 cur = (rem << 64) | l[i];
            l[i] = (uint64_t)(cur / G2_ABS_X);
            rem = cur % G2_ABS_X;
        }
        digits[d] = (uint64_t)rem;
    }
    g2_affine_t tbl[4 * EC_TBL];
    g2_jac_odd_multiples(tbl, p);
    for (int i = EC_TBL; i < 4 * EC_TBL; i++) g2_affine_psi(&tbl[i], &tbl[i - EC_TBL]);
    for (int i = 0; i < EC_TBL; i++) { /* the signs (-1)^j of psi^j */
        g2_affine_neg(&tbl[EC_TBL + i], &tbl[EC_TBL + i]);
        g2_affine_neg(&tbl[3 * EC_TBL + i], &tbl[3 * EC_TBL + i]);
    }
    g2_jac_mul_multi(r, tbl, digits, 4, 1);
}

#include "ec/subgroup_impl.h"
