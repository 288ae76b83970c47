/*
 * fp2.cuh - Fp2 = Fp[u]/(u^2 + 1) on the device, with the operators of
 * mont_t so that the curve code (ec/xyzz.cuh) is written once for G1 over
 * fp_d and G2 over fp2_d. Layout c0 then c1, as the CPU fp2_t.
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

    /* Karatsuba, 3M: (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u */
    HD friend fp2_d operator*(const fp2_d &a, const fp2_d &b)
    {
        fp_d t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
        fp_d t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
    }
    /* 2M: (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    HD fp2_d sqr() const
    {
        fp_d t = c0 * c1;
        return {(c0 + c1) * (c0 - c1), t.dbl()};
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
