/*
 * fr_x86.h - selection of the Fr multiplication (internal).
 * The portable CIOS multiplication is used until the mulx/adx path exists.
 */
#ifndef CUZK_FF_FR_X86_H
#define CUZK_FF_FR_X86_H
#define fr_mul_fast fr_mul_portable
#endif
