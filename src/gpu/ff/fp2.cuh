/*
 * fp2.cuh - Fp2 = Fp[u]/(u^2 + 1) on the device, with the operators of
 * mont_t so that the curve code (ec/xyzz.cuh) is written once for G1 over
 * fp_d and G2 over fp2_d. Layout c0 then c1, as the CPU fp2_t.
 *
 * The product keeps its three Karatsuba products unreduced and reduces
 * twice (mont_t::mul_wide_full / redc_wide): 5 x 144 wide products
 * instead of 6 x 144, 2405 SASS instructions instead of 2926 for three
 * reduced products; like the Fp product it is a __noinline__ call unless
 * CUZK_GPU_FP_INLINE.
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

    /* Karatsuba with two reductions instead of three: the products
     * A = a0 b0, B = a1 b1 and C = (a0 + a1)(b0 + b1) stay unreduced (2N
     * limbs; the sums are < 2p and C < 4p^2 < 2^768), then
     * c0 = REDC(A - B, plus p R when negative) (in [0, p R)) and
     * c1 = REDC(C - (A + B)) (= a0 b1 + a1 b0 < 2p^2 < p R). c0 is reduced
     * before C is formed, so at most three wide values are live. */
    HD static fp2_d mul_inline(const fp2_d &a, const fp2_d &b)
    {
        constexpr int N = fp_d::N;
        uint32_t A[2 * N], B[2 * N], S[2 * N], cc = 0;
        fp_d::mul_wide_full(A, a.c0.v, b.c0.v);
        fp_d::mul_wide_full(B, a.c1.v, b.c1.v);
        S[0] = add_cc(A[0], B[0], cc);
#pragma unroll
        for (int i = 1; i < 2 * N; i++) S[i] = addc_cc(A[i], B[i], cc);
        uint32_t mask = sub_wide(A, B);
        A[N] = add_cc(A[N], fp_params::mod(0) & mask, cc);
#pragma unroll
        for (int i = 1; i < N; i++) A[N + i] = addc_cc(A[N + i], fp_params::mod(i) & mask, cc);
        fp2_d r;
        r.c0 = fp_d::redc_wide(A);
        uint32_t sa[N], sb[N];
        sa[0] = add_cc(a.c0.v[0], a.c1.v[0], cc);
#pragma unroll
        for (int i = 1; i < N; i++) sa[i] = addc_cc(a.c0.v[i], a.c1.v[i], cc);
        sb[0] = add_cc(b.c0.v[0], b.c1.v[0], cc);
#pragma unroll
        for (int i = 1; i < N; i++) sb[i] = addc_cc(b.c0.v[i], b.c1.v[i], cc);
        fp_d::mul_wide_full(B, sa, sb);
        sub_wide(B, S);
        r.c1 = fp_d::redc_wide(B);
        return r;
    }
    /* x -= y over 2N limbs; all ones when it borrowed, else 0 */
    HD static uint32_t sub_wide(uint32_t * x, const uint32_t *y)
    {
        constexpr int M = 2 * fp_d::N;
        uint32_t cc = 0;
        x[0] = sub_cc(x[0], y[0], cc);
#pragma unroll
        for (int i = 1; i < M; i++) x[i] = subc_cc(x[i], y[i], cc);
        return subc(0, 0, cc);
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
