/*
 * carry.cuh - 32-bit add / subtract / multiply-add with carry, the
 * building blocks of the field arithmetic (mont.cuh).
 *
 * On the device each function is one PTX instruction (a pair for the
 * multiply-adds) that reads or writes the hardware carry flag (add.cc,
 * addc, madc.lo.cc / madc.hi.cc, ...). The
 * statements are `asm volatile` so that the compiler keeps them in program
 * order: the carry flag is invisible to it, and a non-volatile statement
 * without inputs (addc %0, 0, 0) may be merged with another or moved.
 * On the host the same functions compute with an explicit carry `cc`
 * (0 or 1), so the field code built on them runs, and is tested, on the
 * CPU too (tests/gpu/test_gpu_emu.cu). On the device `cc` is unused.
 * mul_wide is plain C on both sides: nvcc turns it into mul.wide.u32 and
 * ptxas into one IMAD.WIDE.U32 (lo32 / hi32 name the halves of a register
 * pair, no instruction).
 */
#ifndef CUZK_GPU_FF_CARRY_CUH
#define CUZK_GPU_FF_CARRY_CUH

#include <stdint.h>

#define HD __host__ __device__ __forceinline__

#ifdef __CUDA_ARCH__
#define CARRY_ASM(op, d, ...) asm volatile(op : "=r"(d) : __VA_ARGS__)
#endif

/* d = a + b, sets the carry */
HD uint32_t add_cc(uint32_t a, uint32_t b, uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    uint32_t d;
    CARRY_ASM("add.cc.u32 %0, %1, %2;", d, "r"(a), "r"(b));
    return d;
#else
    uint64_t s = (uint64_t)a + b;
    cc = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

/* d = a + b + carry, sets the carry */
HD uint32_t addc_cc(uint32_t a, uint32_t b, uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    uint32_t d;
    CARRY_ASM("addc.cc.u32 %0, %1, %2;", d, "r"(a), "r"(b));
    return d;
#else
    uint64_t s = (uint64_t)a + b + cc;
    cc = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

/* d = a + b + carry */
HD uint32_t addc(uint32_t a, uint32_t b, uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    uint32_t d;
    CARRY_ASM("addc.u32 %0, %1, %2;", d, "r"(a), "r"(b));
    return d;
#else
    return a + b + cc;
#endif
}

/* d = a - b, sets the borrow */
HD uint32_t sub_cc(uint32_t a, uint32_t b, uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    uint32_t d;
    CARRY_ASM("sub.cc.u32 %0, %1, %2;", d, "r"(a), "r"(b));
    return d;
#else
    uint64_t s = (uint64_t)a - b;
    cc = (uint32_t)(s >> 63);
    return (uint32_t)s;
#endif
}

/* d = a - b - borrow, sets the borrow */
HD uint32_t subc_cc(uint32_t a, uint32_t b, uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    uint32_t d;
    CARRY_ASM("subc.cc.u32 %0, %1, %2;", d, "r"(a), "r"(b));
    return d;
#else
    uint64_t s = (uint64_t)a - b - cc;
    cc = (uint32_t)(s >> 63);
    return (uint32_t)s;
#endif
}

/* d = a - b - borrow */
HD uint32_t subc(uint32_t a, uint32_t b, uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    uint32_t d;
    CARRY_ASM("subc.u32 %0, %1, %2;", d, "r"(a), "r"(b));
    return d;
#else
    return a - b - cc;
#endif
}

/*
 * (dhi:dlo) = a b + (chi:clo) [+ carry]: both halves of one product added
 * into a limb pair in one carry chain. ptxas fuses such a mad.lo.cc /
 * madc.hi.cc pair into one IMAD.WIDE.U32.X (64-bit multiply-add with
 * carry in and out) when consecutive pairs of a chain go to disjoint limb
 * pairs; mont.cuh's products are arranged so that they do.
 */
#ifdef __CUDA_ARCH__
#define WIDE_ASM(lo_op, hi_op)                                                                     \
    asm volatile(lo_op " %0, %2, %3, %4; " hi_op " %1, %2, %3, %5;"                                \
                 : "=r"(dlo), "=r"(dhi)                                                            \
                 : "r"(a), "r"(b), "r"(clo), "r"(chi))
#else
/* a b <= 2^64 - 2^33 + 1, so a b + c + carry overflows 64 bits at most once */
HD void wide_host(uint32_t a, uint32_t b, uint32_t clo, uint32_t chi, uint32_t &dlo, uint32_t &dhi,
                  uint32_t cin, uint32_t &cc)
{
    uint64_t p = (uint64_t)a * b, s = p + ((uint64_t)chi << 32 | clo), t = s + cin;
    cc = (s < p) + (t < s);
    dlo = (uint32_t)t;
    dhi = (uint32_t)(t >> 32);
}
#endif

/* no carry in, sets the carry */
HD void mad_wide_cc(uint32_t a, uint32_t b, uint32_t clo, uint32_t chi, uint32_t &dlo,
                    uint32_t &dhi, uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    WIDE_ASM("mad.lo.cc.u32", "madc.hi.cc.u32");
#else
    wide_host(a, b, clo, chi, dlo, dhi, 0, cc);
#endif
}

/* carry in, sets the carry */
HD void madc_wide_cc(uint32_t a, uint32_t b, uint32_t clo, uint32_t chi, uint32_t &dlo,
                     uint32_t &dhi, uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    WIDE_ASM("madc.lo.cc.u32", "madc.hi.cc.u32");
#else
    wide_host(a, b, clo, chi, dlo, dhi, cc, cc);
#endif
}

/* carry in, none out (the caller knows the sum fits) */
HD void madc_wide(uint32_t a, uint32_t b, uint32_t clo, uint32_t chi, uint32_t &dlo, uint32_t &dhi,
                  uint32_t &cc)
{
#ifdef __CUDA_ARCH__
    WIDE_ASM("madc.lo.cc.u32", "madc.hi.u32");
#else
    uint32_t unused;
    wide_host(a, b, clo, chi, dlo, dhi, cc, unused);
#endif
}

/* the full 64-bit product a b, and its two 32-bit halves */
HD uint64_t mul_wide(uint32_t a, uint32_t b)
{
    return (uint64_t)a * b;
}
HD uint32_t lo32(uint64_t x)
{
    return (uint32_t)x;
}
HD uint32_t hi32(uint64_t x)
{
    return (uint32_t)(x >> 32);
}

#endif
