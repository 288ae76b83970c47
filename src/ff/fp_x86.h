/*
 * fp_x86.h - the mulx/adx multiplication for Fp (internal): mont_x86.h at
 * 6 limbs with p and -p^-1 mod 2^64 in one array. Absent off x86-64, where
 * field_impl.h uses the portable code only.
 */
#ifndef CUZK_FF_FP_X86_H
#define CUZK_FF_FP_X86_H

#include "ff/mont_x86.h"

#ifdef CUZK_FF_HAVE_X86
/* p followed by -p^-1 mod 2^64 (defined in fp.c; fp2.c uses it too). */
extern const uint64_t fp_mod_minv[7];
#define F_MUL_ADX(r, a, b) mont_mul6_adx(r, a, b, fp_mod_minv)
#endif

#endif
