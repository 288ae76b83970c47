/*
 * fr_x86.h - the x86-64 arithmetic for Fr (internal): mont_x86.h at 4
 * limbs (mulx/adx multiplication with r and -r^-1 mod 2^64 in one array,
 * addition, subtraction). Absent off x86-64, where field_impl.h uses the
 * portable code only.
 */
#ifndef CUZK_FF_FR_X86_H
#define CUZK_FF_FR_X86_H

#include "ff/mont_x86.h"

#ifdef CUZK_FF_HAVE_X86
#define F_MUL_ADX(r, a, b) mont_mul4_adx(r, a, b, FR_MOD_MINV)
#define F_ADD_X86          mont_add4_x86
#define F_SUB_X86          mont_sub4_x86
#endif

#endif
