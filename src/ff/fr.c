/*
 * fr.c - the scalar field Fr of BLS12-381: constants, the generic field code
 * of field_impl.h instantiated for 4 limbs, and Tonelli-Shanks square root
 * (r - 1 = 2^32 t with t odd).
 */
#include "cuzk/fr.h"

#include "ff/fr_x86.h"
#include "ff/inv.h"
#include "ff/mont.h"

/* r, little-endian 64-bit limbs */
#define R_LIMBS 0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48

const uint64_t FR_MODULUS[FR_LIMBS] = {R_LIMBS};
/* r followed by -r^-1 mod 2^64: the layout mont_x86.h reads (field_inline.h too). */
const uint64_t fr_mod_minv[FR_LIMBS + 1] = {R_LIMBS, 0xfffffffeffffffff};
const fr_t FR_ZERO = {{0}};
/* 2^256 mod r */
const fr_t FR_ONE = {
    {0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5, 0x1824b159acc5056f}};
/* 2^512 mod r */
static const fr_t FR_R2 = {
    {0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f, 0x0748d9d99f59ff11}};
/* 2^768 mod r */
static const fr_t FR_R3 = {
    {0xc62c1807439b73af, 0x1b3e0d188cf06990, 0x73d13c71c7b5f418, 0x6e2a5bb9c8db33e9}};

#define F(x)    fr_##x
#define F_T     fr_t
#define F_N     FR_LIMBS
#define F_BYTES FR_BYTES
#define F_MOD   fr_mod_minv
#define F_MINV  fr_mod_minv[FR_LIMBS]
#define F_R2    FR_R2
#define F_R3    FR_R3
#define F_S62   5 /* 5 x 62 = 310 bits > 2r */
#define F_ZERO  FR_ZERO
#define F_ONE   FR_ONE
#ifdef CUZK_FF_HAVE_X86
#define F_MUL_ADX(r, a, b) mont_mul4_adx(r, a, b, fr_mod_minv)
#define F_ADD_X86          mont_add4_x86
#define F_SUB_X86          mont_sub4_x86
#endif
#include "ff/field_impl.h"

bool fr_sqrt(fr_t *r, const fr_t *a)
{
    /* (t - 1) / 2, with r - 1 = 2^32 t (t odd) */
    static const uint64_t t_minus_1_half[4] = {0x7fff2dff7fffffff, 0x04d0ec02a9ded201,
                                               0x94cebea4199cec04, 0x0000000039f6d3a9};
    /* 7^t, a primitive 2^32-th root of unity (Montgomery form) */
    static const fr_t root = {
        {0xb9b58d8c5f0e466a, 0x5b1b4c801819d7ec, 0x0af53ae352a31e64, 0x5bf3adda19e9b27b}};
    if (fr_is_zero(a)) {
        *r = FR_ZERO;
        return true;
    }
    /* one exponentiation: w = a^((t-1)/2), x = a^((t+1)/2) = w a, b = a^t = x w */
    fr_t w, x, b, z = root;
    fr_pow(&w, a, t_minus_1_half, 4);
    fr_mul(&x, &w, a);
    fr_mul(&b, &x, &w);
    int m = 32;
    while (!fr_is_one(&b)) {
        int i = 0;
        fr_t b2 = b;
        while (!fr_is_one(&b2) && i < m) {
            fr_sqr(&b2, &b2);
            i++;
        }
        if (i == m) return false;
        w = z;
        for (int k = 0; k < m - i - 1; k++) fr_sqr(&w, &w);
        fr_mul(&x, &x, &w);
        fr_sqr(&z, &w);
        fr_mul(&b, &b, &z);
        m = i;
    }
    *r = x;
    return true;
}
