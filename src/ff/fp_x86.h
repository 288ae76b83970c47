/*
 * fp_x86.h - selection of the Fp multiplication (internal).
 * The portable CIOS multiplication is used until the mulx/adx path exists.
 */
#ifndef CUZK_FF_FP_X86_H
#define CUZK_FF_FP_X86_H
#define fp_mul_fast fp_mul_portable
#endif
