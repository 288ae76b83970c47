/*
 * mont.cuh - Montgomery arithmetic modulo a BLS12-381 prime on the device.
 *
 * mont_t<P> is one field element of N 32-bit limbs (P from params.cuh):
 * fp_d (N = 12, the base field) and fr_d (N = 8, the scalar field). Limbs
 * are 32 bits because the integer multiplier of the GPU is 32 bits wide:
 * each 32 x 32 -> 64 product costs two instructions (mad.lo / mad.hi), and
 * carry chains (carry.cuh) keep the additions in the same instruction
 * stream.
 *
 * Multiplication is CIOS: for each limb b_i of b, the product a * b_i is
 * added into an (N + 2)-limb accumulator t as two carry chains (the low
 * halves at t[j], the high halves at t[j+1]), then m = t[0] * M0 and m * p
 * is added the same way so that t[0] becomes zero and t shifts down one
 * limb. 4N^2 multiply-adds in all (576 for Fp, 256 for Fr). Both moduli
 * leave a spare top bit (381 of 384, 255 of 256), so t < 2p fits and one
 * conditional subtraction finishes; a + b < 2p never overflows N limbs.
 * Every result is fully reduced (< p), so equality is limb equality.
 * Everything is __host__ __device__: the host build is the reference that
 * tests/gpu/test_gpu_emu.cu checks against fp.h / fr.h without a GPU.
 */
#ifndef CUZK_GPU_FF_MONT_CUH
#define CUZK_GPU_FF_MONT_CUH

#include <stdint.h>

#include "gpu/ff/carry.cuh"
#include "gpu/ff/params.cuh"

#define DEV __device__ __forceinline__

template <class P> struct __align__(16) mont_t
{
    static constexpr int N = P::N;
    uint32_t v[N];

    HD static mont_t zero()
    {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = 0;
        return r;
    }
    HD static mont_t one()
    {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = P::one(i);
        return r;
    }
    HD bool is_zero() const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i];
        return acc == 0;
    }
    HD bool operator==(const mont_t &b) const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i] ^ b.v[i];
        return acc == 0;
    }

    /* r = t - p if t >= p else t, for t < 2p. */
    HD static void reduce_once(uint32_t * r, const uint32_t *t)
    {
        uint32_t d[N], cc = 0;
        d[0] = sub_cc(t[0], P::mod(0), cc);
#pragma unroll
        for (int i = 1; i < N; i++) d[i] = subc_cc(t[i], P::mod(i), cc);
        uint32_t borrow = subc(0, 0, cc);
#pragma unroll
        for (int i = 0; i < N; i++) r[i] = borrow ? t[i] : d[i];
    }

    HD friend mont_t operator+(const mont_t &a, const mont_t &b)
    {
        uint32_t t[N], cc = 0;
        t[0] = add_cc(a.v[0], b.v[0], cc);
#pragma unroll
        for (int i = 1; i < N - 1; i++) t[i] = addc_cc(a.v[i], b.v[i], cc);
        t[N - 1] = addc(a.v[N - 1], b.v[N - 1], cc);
        mont_t r;
        reduce_once(r.v, t);
        return r;
    }

    HD friend mont_t operator-(const mont_t &a, const mont_t &b)
    {
        uint32_t t[N], cc = 0;
        t[0] = sub_cc(a.v[0], b.v[0], cc);
#pragma unroll
        for (int i = 1; i < N; i++) t[i] = subc_cc(a.v[i], b.v[i], cc);
        uint32_t mask = subc(0, 0, cc); /* all ones when a < b */
        mont_t r;
        r.v[0] = add_cc(t[0], P::mod(0) & mask, cc);
#pragma unroll
        for (int i = 1; i < N - 1; i++) r.v[i] = addc_cc(t[i], P::mod(i) & mask, cc);
        r.v[N - 1] = addc(t[N - 1], P::mod(N - 1) & mask, cc);
        return r;
    }

    HD mont_t dbl() const
    {
        return *this + *this;
    }
    HD mont_t neg() const
    {
        return zero() - *this;
    }

    /* t[0..N+1] += a * b (a: N limbs, b one limb; t[N+1] is 0 on entry). */
    HD static void mul_add_row(uint32_t * t, const uint32_t *a, uint32_t b)
    {
        uint32_t cc = 0;
        t[0] = mad_lo_cc(a[0], b, t[0], cc);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = madc_lo_cc(a[j], b, t[j], cc);
        t[N] = addc_cc(t[N], 0, cc);
        t[N + 1] = addc(0, 0, cc);
        t[1] = mad_hi_cc(a[0], b, t[1], cc);
#pragma unroll
        for (int j = 1; j < N; j++) t[j + 1] = madc_hi_cc(a[j], b, t[j + 1], cc);
        t[N + 1] = addc(t[N + 1], 0, cc);
    }

    /* t += m * p where m = t[0] * M0 (so t[0] becomes 0), then t >>= 32. */
    HD static void reduce_row(uint32_t * t)
    {
        uint32_t m = t[0] * P::M0, cc = 0;
        t[0] = mad_lo_cc(m, P::mod(0), t[0], cc);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = madc_lo_cc(m, P::mod(j), t[j], cc);
        t[N] = addc_cc(t[N], 0, cc);
        t[N + 1] = addc(t[N + 1], 0, cc);
        t[1] = mad_hi_cc(m, P::mod(0), t[1], cc);
#pragma unroll
        for (int j = 1; j < N; j++) t[j + 1] = madc_hi_cc(m, P::mod(j), t[j + 1], cc);
        t[N + 1] = addc(t[N + 1], 0, cc);
#pragma unroll
        for (int j = 0; j <= N; j++) t[j] = t[j + 1];
        t[N + 1] = 0;
    }

    HD static mont_t mul_inline(const mont_t &a, const mont_t &b)
    {
        uint32_t t[N + 2];
#pragma unroll
        for (int j = 0; j < N + 2; j++) t[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            mul_add_row(t, a.v, b.v[i]);
            reduce_row(t);
        }
        mont_t r;
        reduce_once(r.v, t);
        return r;
    }
    /* by value: the operands travel in registers, not through the stack */
    __host__ __device__ __noinline__ static mont_t mul_call(mont_t a, mont_t b)
    {
        return mul_inline(a, b);
    }
    /* Fp products (about 1200 instructions each) are calls: the curve
     * kernels inline dozens of them, which multiplied compile time and
     * registers; Fr products (the NTT butterflies) stay inline. */
    HD friend mont_t operator*(const mont_t &a, const mont_t &b)
    {
        if constexpr (N > 8)
            return mul_call(a, b);
        else
            return mul_inline(a, b);
    }

    HD mont_t sqr() const
    {
        return *this * *this;
    }
    HD mont_t &operator+=(const mont_t &b)
    {
        return *this = *this + b;
    }
    HD mont_t &operator-=(const mont_t &b)
    {
        return *this = *this - b;
    }
    HD mont_t &operator*=(const mont_t &b)
    {
        return *this = *this * b;
    }

    /* From Montgomery form to the canonical value: multiply by 1. */
    HD mont_t from_mont() const
    {
        uint32_t t[N + 2];
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = v[j];
        t[N] = t[N + 1] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) reduce_row(t);
        mont_t r;
        reduce_once(r.v, t);
        return r;
    }

    /* a^e for a 64-bit exponent (square and multiply, variable time). */
    HD mont_t pow(uint64_t e) const
    {
        mont_t r = one(), b = *this;
        while (e) {
            if (e & 1) r *= b;
            b = b.sqr();
            e >>= 1;
        }
        return r;
    }
};

typedef mont_t<fp_params> fp_d;
typedef mont_t<fr_params> fr_d;

#endif
