/*
 * field_inline.h - inlined Fp and Fr operations for hot loops (internal).
 *
 * The public fp_mul, fr_mul, ... are calls: each saves registers and tests
 * the dispatch flag. Code that does little else (Fp2 and the tower, curve
 * formulas, NTT butterflies) can use these static inline twins instead:
 * the same results, the x86 assembly of mont_x86.h inlined when it is
 * selected (cuzk_ff_adx), the public functions otherwise. They take the
 * same (r, a, b) arguments; r may alias a or b.
 */
#ifndef CUZK_FF_FIELD_INLINE_H
#define CUZK_FF_FIELD_INLINE_H

#include "cuzk/fp.h"
#include "cuzk/fr.h"
#include "ff/fp_x86.h"
#include "ff/fr_x86.h"

/* One inline operation: the assembly when selected, else the call. */
#ifdef CUZK_FF_HAVE_X86
#define FIELD_INLINE(name, T, x86, mod, call)                                                      \
    static inline void name(T *r, const T *a, const T *b)                                          \
    {                                                                                              \
        if (__builtin_expect(cuzk_ff_adx, 1))                                                      \
            x86(r->l, a->l, b->l, mod);                                                            \
        else                                                                                       \
            call(r, a, b);                                                                         \
    }
#else
#define FIELD_INLINE(name, T, x86, mod, call)                                                      \
    static inline void name(T *r, const T *a, const T *b)                                          \
    {                                                                                              \
        call(r, a, b);                                                                             \
    }
#endif

FIELD_INLINE(fp_mul_inline, fp_t, mont_mul6_adx, fp_mod_minv, fp_mul)
FIELD_INLINE(fp_add_inline, fp_t, mont_add6_x86, fp_mod_minv, fp_add)
FIELD_INLINE(fp_sub_inline, fp_t, mont_sub6_x86, fp_mod_minv, fp_sub)
FIELD_INLINE(fr_mul_inline, fr_t, mont_mul4_adx, fr_mod_minv, fr_mul)
FIELD_INLINE(fr_add_inline, fr_t, mont_add4_x86, fr_mod_minv, fr_add)
FIELD_INLINE(fr_sub_inline, fr_t, mont_sub4_x86, fr_mod_minv, fr_sub)

static inline void fp_sqr_inline(fp_t *r, const fp_t *a)
{
    fp_mul_inline(r, a, a);
}
static inline void fp_neg_inline(fp_t *r, const fp_t *a)
{
    fp_sub_inline(r, &FP_ZERO, a);
}
static inline void fr_sqr_inline(fr_t *r, const fr_t *a)
{
    fr_mul_inline(r, a, a);
}
static inline void fr_neg_inline(fr_t *r, const fr_t *a)
{
    fr_sub_inline(r, &FR_ZERO, a);
}

#endif
