/*
 * fp_x86.h - what the x86-64 arithmetic of Fp needs (internal): mont_x86.h
 * and the modulus with -p^-1 mod 2^64 in the one array it reads. fp.c
 * instantiates it at 6 limbs; fp2.c and field_inline.h use it too. Absent
 * off x86-64, where only the portable code exists.
 */
#ifndef CUZK_FF_FP_X86_H
#define CUZK_FF_FP_X86_H

#include "ff/mont_x86.h"

#ifdef CUZK_FF_HAVE_X86
/* p followed by -p^-1 mod 2^64 (defined in fp.c). */
extern const uint64_t fp_mod_minv[7];
#endif

#endif
