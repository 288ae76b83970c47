/*
 * fr_x86.h - the mulx/adx multiplication for Fr (internal): mont_x86.h at
 * 4 limbs with r and -r^-1 mod 2^64 in one array. Absent off x86-64, where
 * field_impl.h uses the portable code only.
 */
#ifndef CUZK_FF_FR_X86_H
#define CUZK_FF_FR_X86_H

#include "ff/mont_x86.h"

#ifdef CUZK_FF_HAVE_X86
#define F_MUL_ADX(r, a, b) mont_mul4_adx(r, a, b, FR_MOD_MINV)
#endif

#endif
