/*
 * fr_x86.h - what the x86-64 arithmetic of Fr needs (internal): mont_x86.h
 * and the modulus with -r^-1 mod 2^64 in the one array it reads. fr.c
 * instantiates it at 4 limbs; field_inline.h uses it too. Absent
 * off x86-64, where only the portable code exists.
 */
#ifndef CUZK_FF_FR_X86_H
#define CUZK_FF_FR_X86_H

#include "ff/mont_x86.h"

#ifdef CUZK_FF_HAVE_X86
/* r followed by -r^-1 mod 2^64 (defined in fr.c). */
extern const uint64_t fr_mod_minv[5];
#endif

#endif
