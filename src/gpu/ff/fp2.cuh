/*
 * fp2.cuh - Fp2 = Fp[u]/(u^2 + 1) on the device, with the operators of
 * mont_t so that the curve code (ec/xyzz.cuh) is written once for G1 over
 * fp_d and G2 over fp2_d. Layout c0 then c1, as the CPU fp2_t.
 *
 * The product is Karatsuba over three Fp products; like the Fp product it
 * is a __noinline__ call unless CUZK_GPU_FP_INLINE.
 */
#ifndef CUZK_GPU_FF_FP2_CUH
#define CUZK_GPU_FF_FP2_CUH

#include "gpu/ff/mont.cuh"

struct __align__(16) fp2_d
{
    fp_d c0, c1;

    HD static fp2_d zero()
    {
        return {fp_d::zero(), fp_d::zero()};
    }
    HD static fp2_d one()
    {
        return {fp_d::one(), fp_d::zero()};
    }
    HD bool is_zero() const
    {
        return c0.is_zero() && c1.is_zero();
    }
    HD bool operator==(const fp2_d &b) const
    {
        return c0 == b.c0 && c1 == b.c1;
    }
    HD friend fp2_d operator+(const fp2_d &a, const fp2_d &b)
    {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    HD friend fp2_d operator-(const fp2_d &a, const fp2_d &b)
    {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    HD fp2_d dbl() const
    {
        return {c0.dbl(), c1.dbl()};
    }
    HD fp2_d neg() const
    {
        return {c0.neg(), c1.neg()};
    }

    /* Karatsuba: c0 = a0 b0 - a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1,
     * three Fp products (the sums are reduced, as a first factor must be).
     * With the fused multiply-adds of mont_t's product this beat the former
     * two reductions of unreduced wide products. */
    HD static fp2_d mul_inline(const fp2_d &a, const fp2_d &b)
    {
        fp_d A = fp_d::mul_inline(a.c0, b.c0), B = fp_d::mul_inline(a.c1, b.c1);
        fp_d C = fp_d::mul_inline(a.c0 + a.c1, b.c0 + b.c1);
        return {A - B, C - A - B};
    }
    /* by value, like the Fp product call */
    __host__ __device__ __noinline__ static fp2_d mul_call(fp2_d a, fp2_d b)
    {
        return mul_inline(a, b);
    }
    HD friend fp2_d operator*(const fp2_d &a, const fp2_d &b)
    {
        if constexpr (fp_d::CALLS)
            return mul_call(a, b);
        else
            return mul_inline(a, b);
    }
    /* r0 = a0 b0, r1 = a1 b1: an Fp2 product already overlaps its three
     * Fp products inside its call */
    HD static void mul2(fp2_d & r0, const fp2_d &a0, const fp2_d &b0, fp2_d &r1, const fp2_d &a1,
                        const fp2_d &b1)
    {
        r0 = a0 * b0;
        r1 = a1 * b1;
    }
    /* 2M: (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    HD fp2_d sqr() const
    {
        fp_d t = c0 * c1;
        return {(c0 + c1) * (c0 - c1), t.dbl()};
    }
    /* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2), as u^2 = -1: one Fp
     * inversion (0 for 0). */
    HD fp2_d inv() const
    {
        fp_d t = (c0.sqr() + c1.sqr()).inv();
        return {c0 * t, (c1 * t).neg()};
    }
    HD fp2_d &operator+=(const fp2_d &b)
    {
        return *this = *this + b;
    }
    HD fp2_d &operator-=(const fp2_d &b)
    {
        return *this = *this - b;
    }
    HD fp2_d &operator*=(const fp2_d &b)
    {
        return *this = *this * b;
    }
};

#endif
