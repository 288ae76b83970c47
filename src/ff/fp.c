/*
 * fp.c - the base field Fp of BLS12-381: constants, the generic field code
 * of field_impl.h instantiated for 6 limbs, and the square root.
 */
#include "cuzk/fp.h"
#include "ff/inv.h"
#include "ff/mont.h"

/* p, little-endian 64-bit limbs */
#define P_LIMBS                                                                                    \
    0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624, 0x64774b84f38512bf,                \
        0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a

const uint64_t FP_MODULUS[FP_LIMBS] = {P_LIMBS};
/* p followed by -p^-1 mod 2^64: the layout mont_x86.h reads (fp2.c, field_inline.h too). */
const uint64_t fp_mod_minv[FP_LIMBS + 1] = {P_LIMBS, 0x89f3fffcfffcfffd};
const fp_t FP_ZERO = {{0}};
/* 2^384 mod p */
const fp_t FP_ONE = {{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                      0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}};
/* 2^768 mod p */
static const fp_t FP_R2 = {{0xf4df1f341c341746, 0x0a76e6a609d104f1, 0x8de5476c4c95b6d5,
                            0x67eb88a9939d83c0, 0x9a793e85b519952d, 0x11988fe592cae3aa}};
/* 2^1152 mod p */
static const fp_t FP_R3 = {{0xed48ac6bd94ca1e0, 0x315f831e03a7adf8, 0x9a53352a615e29dd,
                            0x34c04e5e921e1761, 0x2512d43565724728, 0x0aa6346091755d4d}};

#include "ff/fp_x86.h"

#define F(x)    fp_##x
#define F_T     fp_t
#define F_N     FP_LIMBS
#define F_BYTES FP_BYTES
#define F_MOD   fp_mod_minv
#define F_MINV  fp_mod_minv[FP_LIMBS]
#define F_R2    FP_R2
#define F_R3    FP_R3
#define F_S62   7 /* 7 x 62 = 434 bits > 2p */
#define F_ZERO  FP_ZERO
#define F_ONE   FP_ONE
#ifdef CUZK_FF_HAVE_X86
#define F_MUL_ADX(r, a, b) mont_mul6_adx(r, a, b, fp_mod_minv)
#define F_ADD_X86          mont_add6_x86
#define F_SUB_X86          mont_sub6_x86
#endif
#include "ff/field_impl.h"

/* p = 3 mod 4, so a^((p+1)/4) is a root whenever one exists. */
bool fp_sqrt(fp_t *r, const fp_t *a)
{
    static const uint64_t e[FP_LIMBS] = {0xee7fbfffffffeaab, 0x07aaffffac54ffff,
                                         0xd9cc34a83dac3d89, 0xd91dd2e13ce144af,
                                         0x92c6e9ed90d2eb35, 0x0680447a8e5ff9a6};
    fp_t x, check;
    fp_pow(&x, a, e, FP_LIMBS);
    fp_sqr(&check, &x);
    if (!fp_eq(&check, a)) return false;
    *r = x;
    return true;
}
