/*
 * fp_x86.h - the x86-64 arithmetic for Fp (internal): mont_x86.h at 6
 * limbs (mulx/adx multiplication with p and -p^-1 mod 2^64 in one array,
 * addition, subtraction). Absent off x86-64, where field_impl.h uses the
 * portable code only.
 */
#ifndef CUZK_FF_FP_X86_H
#define CUZK_FF_FP_X86_H

#include "ff/mont_x86.h"

#ifdef CUZK_FF_HAVE_X86
/* p followed by -p^-1 mod 2^64 (defined in fp.c; fp2.c uses it too). */
extern const uint64_t fp_mod_minv[7];
#define F_MUL_ADX(r, a, b) mont_mul6_adx(r, a, b, fp_mod_minv)
#define F_ADD_X86          mont_add6_x86
#define F_SUB_X86          mont_sub6_x86
#endif

#endif
