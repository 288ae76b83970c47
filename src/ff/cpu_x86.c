/*
 * cpu_x86.c - run-time choice of the field arithmetic (x86 or portable).
 *
 * A constructor reads cpuid once: leaf 7 (sub-leaf 0) EBX bit 8 is BMI2
 * (mulx), bit 19 is ADX (adcx/adox). The result is the global flag
 * cuzk_ff_adx that fp_mul, fp_add, ... test with __builtin_expect, which costs
 * one predictable branch and no indirect call. Tests and benchmarks switch
 * it with cuzk_ff_use_adx to exercise both paths. On other architectures
 * the portable code is the only path.
 */
#include "cuzk/fp.h"

#include "ff/mont_x86.h"

#ifdef CUZK_FF_HAVE_X86
#include <cpuid.h>

int cuzk_ff_adx;

static bool detect_adx(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7) return false;
    __cpuid_count(7, 0, a, b, c, d);
    (void)a, (void)c, (void)d;
    return ((b >> 8) & 1) && ((b >> 19) & 1);
}

__attribute__((constructor)) static void init_adx(void)
{
    cuzk_ff_adx = detect_adx();
}

bool cuzk_cpu_has_adx(void)
{
    return detect_adx();
}

bool cuzk_ff_use_adx(bool on)
{
    cuzk_ff_adx = on && detect_adx();
    return cuzk_ff_adx;
}

#else

bool cuzk_cpu_has_adx(void)
{
    return false;
}

bool cuzk_ff_use_adx(bool on)
{
    (void)on;
    return false;
}

#endif
