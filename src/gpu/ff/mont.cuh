/*
 * mont.cuh - Montgomery arithmetic modulo a BLS12-381 prime on the device.
 *
 * mont_t<P> is one field element of N 32-bit limbs (P from params.cuh):
 * fp_d (N = 12, the base field) and fr_d (N = 8, the scalar field). Limbs
 * are 32 bits because the integer multiplier of the GPU is 32 bits wide.
 *
 * Multiplication is CIOS with wide products. On sm_90 one IMAD.WIDE.U32
 * gives the whole 64-bit product a_j b_i (4 cycles of the multiply pipe,
 * the same as one IMAD.HI alone), and SASS has no multiply with carry-out,
 * so each PTX mad.lo.cc / madc.hi.cc costs an IMAD or IMAD.HI plus an
 * IADD3.X. Here every row is N wide products (mul_wide) whose low words
 * are added into the accumulator t in one carry chain and whose high words
 * (one limb up) in a second: per 32 x 32 product one IMAD.WIDE (4 cycles
 * of the multiply pipe) and two IADD3 (2 x 2 cycles of the integer pipe),
 * so the two pipes are evenly loaded instead of the multiply pipe carrying
 * 6 cycles per product. 2N^2 wide products in all (288 for Fp, 128 for
 * Fr; ptxas drops the products by Fr's limb p_0 = 1).
 *
 * Bounds that remove carry fix-ups: with a, b < p, after row i the
 * accumulator is t = (a (b mod 2^(32(i+1))) + M p) / 2^(32(i+1)) < a + p
 * < 2p < 2^(32N) (both moduli leave a spare top bit: 381 of 384, 255 of
 * 256), so t starts each row in N limbs, and t + a b_i, t + m p (with
 * m < 2^32) fit in N + 1: no (N + 2)-th limb and no carry out of the
 * top. One conditional subtraction finishes; a + b < 2p never overflows
 * N limbs. Every result is fully reduced (< p), so equality is limb
 * equality. Only the first factor of a * b must be reduced: b's limbs
 * only scale the rows, the bound t < a + p holds for any b < 2^(32N), and
 * the result is still < p (so a difference x - y + p, never corrected,
 * may be the second factor).
 *
 * The Fp product and square are __noinline__ calls by default (compile
 * time and registers of the curve kernels, which hold dozens of them):
 * fp_inline_d (same layout as fp_d) inlines them for the kernels that
 * instantiate it, CUZK_GPU_FP_INLINE = 1 everywhere (msm.cu then took
 * over 15 minutes to compile on a 2-core machine).
 * Everything is __host__ __device__: the host build is the reference that
 * tests/gpu/test_gpu_emu.cu and test_gpu_ff_emu.cu check against fp.h /
 * fr.h without a GPU.
 */
#ifndef CUZK_GPU_FF_MONT_CUH
#define CUZK_GPU_FF_MONT_CUH

#include <stdint.h>

#include "gpu/ff/carry.cuh"
#include "gpu/ff/params.cuh"

#define DEV __device__ __forceinline__

#ifndef CUZK_GPU_FP_INLINE
#define CUZK_GPU_FP_INLINE 0
#endif

template <class P> struct __align__(16) mont_t
{
    typedef P params;
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

    /* t[0..N] = a * b (t = 0 before): the low word of each wide product
     * at t[j], its high word at t[j+1], in one carry chain. */
    HD static void mul_row0(uint32_t * t, const uint32_t *a, uint32_t b)
    {
        uint64_t p[N];
#pragma unroll
        for (int j = 0; j < N; j++) p[j] = mul_wide(a[j], b);
        uint32_t cc = 0;
        t[0] = lo32(p[0]);
        t[1] = add_cc(lo32(p[1]), hi32(p[0]), cc);
#pragma unroll
        for (int j = 2; j < N; j++) t[j] = addc_cc(lo32(p[j]), hi32(p[j - 1]), cc);
        t[N] = addc(hi32(p[N - 1]), 0, cc);
    }

    /* t[0..N] = t[0..N-1] + p[0..N-1] as wide products at t[j]: the low
     * words in one carry chain, the high words (at t[j+1]) in a second. */
    HD static void add_row(uint32_t * t, const uint64_t *p)
    {
        uint32_t cc = 0;
        t[0] = add_cc(t[0], lo32(p[0]), cc);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = addc_cc(t[j], lo32(p[j]), cc);
        t[N] = addc(0, 0, cc);
        t[1] = add_cc(t[1], hi32(p[0]), cc);
#pragma unroll
        for (int j = 2; j < N; j++) t[j] = addc_cc(t[j], hi32(p[j - 1]), cc);
        t[N] = addc(t[N], hi32(p[N - 1]), cc);
    }

    /* t[0..N] += m p with m = t[0] M0, so that t[0] becomes 0; then t >>= 32
     * (t[0..N-1] is the result). */
    HD static void reduce_row(uint32_t * t)
    {
        uint32_t m = t[0] * P::M0, cc = 0;
        uint64_t p[N];
#pragma unroll
        for (int j = 0; j < N; j++) p[j] = mul_wide(m, P::mod(j));
        t[0] = add_cc(t[0], lo32(p[0]), cc);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = addc_cc(t[j], lo32(p[j]), cc);
        t[N] = addc(t[N], 0, cc);
        t[1] = add_cc(t[1], hi32(p[0]), cc);
#pragma unroll
        for (int j = 2; j < N; j++) t[j] = addc_cc(t[j], hi32(p[j - 1]), cc);
        t[N] = addc(t[N], hi32(p[N - 1]), cc);
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = t[j + 1];
    }

    /*
     * The product a b (CIOS) with the running sum split in two: T = e +
     * 2^32 o, where row i adds a_j b_i for even j to e (low half at limb
     * j, high half at j + 1) and for odd j to o (one limb down), and the
     * same for m p. Each array's share of a row is then one carry chain of
     * products into disjoint limb pairs, one IMAD.WIDE.U32.X each
     * (carry.cuh): N^2 + N^2 multiply-adds and few other instructions.
     * A row leaves e[0] = 0; the next row starts from T / 2^32 =
     * (o + e_1) + 2^32 (e >> 64), i.e. with the arrays' roles swapped: the
     * old o takes e_1 into its limb 0 (the carry goes to the new o's limb
     * 0, which sits one limb up), the old e shifted down two limbs becomes
     * the new o while the row's odd products go in (split_row).
     * Bounds as for the rows above: T < 2p after every row, so e and o fit
     * N limbs and the carries dropped at the tops of o's chains are 0.
     */
    HD static void split_row(uint32_t * e, uint32_t * o, const uint32_t *a, uint32_t bi, bool first)
    {
        uint32_t cc = 0;
        if (first) {
#pragma unroll
            for (int j = 0; j < N; j += 2) {
                uint64_t pe = mul_wide(a[j], bi), po = mul_wide(a[j + 1], bi);
                e[j] = lo32(pe), e[j + 1] = hi32(pe);
                o[j] = lo32(po), o[j + 1] = hi32(po);
            }
        } else {
            /* on entry T = o + 2^32 e with o[0] = 0 */
            e[0] = add_cc(e[0], o[1], cc);
#pragma unroll
            for (int j = 0; j < N - 2; j += 2)
                madc_wide_cc(a[j + 1], bi, o[j + 2], o[j + 3], o[j], o[j + 1], cc);
            madc_wide(a[N - 1], bi, 0, 0, o[N - 2], o[N - 1], cc);
            mad_wide_cc(a[0], bi, e[0], e[1], e[0], e[1], cc);
#pragma unroll
            for (int j = 2; j < N; j += 2)
                madc_wide_cc(a[j], bi, e[j], e[j + 1], e[j], e[j + 1], cc);
            o[N - 1] = addc(o[N - 1], 0, cc);
        }
        uint32_t m = e[0] * P::M0;
        mad_wide_cc(P::mod(1), m, o[0], o[1], o[0], o[1], cc);
#pragma unroll
        for (int j = 2; j < N; j += 2)
            madc_wide_cc(P::mod(j + 1), m, o[j], o[j + 1], o[j], o[j + 1], cc);
        mad_wide_cc(P::mod(0), m, e[0], e[1], e[0], e[1], cc);
#pragma unroll
        for (int j = 2; j < N; j += 2)
            madc_wide_cc(P::mod(j), m, e[j], e[j + 1], e[j], e[j + 1], cc);
        o[N - 1] = addc(o[N - 1], 0, cc);
    }

    HD static mont_t mul_inline(const mont_t &a, const mont_t &b)
    {
        uint32_t e[N], o[N], cc = 0;
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            split_row(e, o, a.v, b.v[i], i == 0);
            split_row(o, e, a.v, b.v[i + 1], false);
        }
        /* the last row ran with the roles swapped: T = o + 2^32 e, o[0] = 0,
         * and the result T / 2^32 = e + (o >> 32) < 2p */
        e[0] = add_cc(e[0], o[1], cc);
#pragma unroll
        for (int j = 1; j < N - 1; j++) e[j] = addc_cc(e[j], o[j + 1], cc);
        e[N - 1] = addc(e[N - 1], 0, cc);
        mont_t r;
        reduce_once(r.v, e);
        return r;
    }
    /* by value: the operands travel in registers, not through the stack */
    __host__ __device__ __noinline__ static mont_t mul_call(mont_t a, mont_t b)
    {
        return mul_inline(a, b);
    }
    /* Fp products (about 900 instructions each) are calls unless
     * fp_inline_d or CUZK_GPU_FP_INLINE: the curve kernels hold dozens of
     * them, which multiplied compile time and registers; Fr products (the
     * NTT butterflies) stay inline. */
    static constexpr bool CALLS = P::call_products && !CUZK_GPU_FP_INLINE;
    HD friend mont_t operator*(const mont_t &a, const mont_t &b)
    {
        if constexpr (CALLS)
            return mul_call(a, b);
        else
            return mul_inline(a, b);
    }

    /* t[1..2N-2] = sum of a_i a_j 2^(32(i+j)) over i < j: row i as in
     * mul_row0 (i = 0) / add_row, on N - 1 - i products. After row i the
     * sum is < (a mod 2^(32(i+1))) 2^(32N) < 2^(32(N+i+1)), so its new top
     * word t[i+N] takes every carry of the row; t[2N-1] is set to 0. */
    HD static void square_cross(uint32_t * t, const uint32_t *a)
    {
        uint32_t cc = 0;
        uint64_t q[N];
#pragma unroll
        for (int j = 1; j < N; j++) q[j] = mul_wide(a[0], a[j]);
        t[1] = lo32(q[1]);
        t[2] = add_cc(lo32(q[2]), hi32(q[1]), cc);
#pragma unroll
        for (int j = 3; j < N; j++) t[j] = addc_cc(lo32(q[j]), hi32(q[j - 1]), cc);
        t[N] = addc(hi32(q[N - 1]), 0, cc);
#pragma unroll
        for (int i = 1; i < N - 1; i++) {
#pragma unroll
            for (int j = i + 1; j < N; j++) q[j] = mul_wide(a[i], a[j]);
            t[2 * i + 1] = add_cc(t[2 * i + 1], lo32(q[i + 1]), cc);
#pragma unroll
            for (int j = i + 2; j < N; j++) t[i + j] = addc_cc(t[i + j], lo32(q[j]), cc);
            t[i + N] = addc(0, 0, cc);
            if (i + 1 == N - 1) {
                t[i + N] += hi32(q[N - 1]);
                continue;
            }
            t[2 * i + 2] = add_cc(t[2 * i + 2], hi32(q[i + 1]), cc);
#pragma unroll
            for (int j = i + 2; j < N - 1; j++)
                t[i + j + 1] = addc_cc(t[i + j + 1], hi32(q[j]), cc);
            t[i + N] = addc(t[i + N], hi32(q[N - 1]), cc);
        }
        t[2 * N - 1] = 0;
    }

    /* t[0..2N-1] = a^2 (SOS): the cross products once (square_cross),
     * doubled by a carry chain t + t, then the squares a_i^2 added in one
     * chain. N(N+1)/2 wide products instead of N^2, and about half the
     * additions of a product's first half. */
    HD static void square_wide(uint32_t * t, const uint32_t *a)
    {
        uint32_t cc = 0;
        square_cross(t, a);
        t[1] = add_cc(t[1], t[1], cc);
#pragma unroll
        for (int k = 2; k < 2 * N - 1; k++) t[k] = addc_cc(t[k], t[k], cc);
        t[2 * N - 1] = addc(0, 0, cc);
        uint64_t s0 = mul_wide(a[0], a[0]);
        t[0] = lo32(s0);
        t[1] = add_cc(t[1], hi32(s0), cc);
#pragma unroll
        for (int i = 1; i < N; i++) {
            uint64_t s = mul_wide(a[i], a[i]);
            t[2 * i] = addc_cc(t[2 * i], lo32(s), cc);
            if (i < N - 1)
                t[2 * i + 1] = addc_cc(t[2 * i + 1], hi32(s), cc);
            else
                t[2 * i + 1] = addc(t[2 * i + 1], hi32(s), cc);
        }
    }

    /* t[0..2N-1] = a b (SOS, no reduction) for a, b < 2^(32N): row i adds
     * a b_i at t[i] as in add_row; after row i the sum is
     * < 2^(32(N+i+1)), so the row's new top word t[i+N] takes its carries. */
    HD static void mul_wide_full(uint32_t * t, const uint32_t *a, const uint32_t *b)
    {
        mul_row0(t, a, b[0]);
#pragma unroll
        for (int i = 1; i < N; i++) {
            uint64_t p[N];
#pragma unroll
            for (int j = 0; j < N; j++) p[j] = mul_wide(a[j], b[i]);
            add_row(t + i, p);
        }
    }

    /* t R^-1 mod p for t < p R (2N limbs): the low half L Montgomery-reduced
     * alone (reduce_row N times: (L + M p) / R < 1 + p, so <= p) plus the
     * high half H (< p): the sum is < 2p, fits N limbs, and one
     * conditional subtraction finishes. */
    HD static mont_t redc_wide(const uint32_t *t)
    {
        uint32_t u[N + 1], cc = 0;
#pragma unroll
        for (int j = 0; j < N; j++) u[j] = t[j];
#pragma unroll
        for (int i = 0; i < N; i++) {
            u[N] = 0;
            reduce_row(u);
        }
        u[0] = add_cc(u[0], t[N], cc);
#pragma unroll
        for (int j = 1; j < N; j++) u[j] = addc_cc(u[j], t[N + j], cc);
        mont_t r;
        reduce_once(r.v, u);
        return r;
    }

    /* a^2: square_wide, then redc_wide (a^2 < p^2 < p R). */
    HD static mont_t sqr_inline(const mont_t &a)
    {
        uint32_t t[2 * N];
        square_wide(t, a.v);
        return redc_wide(t);
    }
    __host__ __device__ __noinline__ static mont_t sqr_call(mont_t a)
    {
        return sqr_inline(a);
    }
    /* Squares use square_wide (about 13% fewer instructions than a
     * product in both fields); Fp's is a call like its product. */
    HD mont_t sqr() const
    {
        if constexpr (CALLS)
            return sqr_call(*this);
        else
            return sqr_inline(*this);
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
        uint32_t t[N + 1];
#pragma unroll
        for (int j = 0; j < N; j++) t[j] = v[j];
        t[N] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            reduce_row(t);
            t[N] = 0;
        }
        mont_t r;
        reduce_once(r.v, t);
        return r;
    }

    /* a^-1 = a^(m-2) (Fermat; 0 for 0), left to right over the 4-bit
     * digits of m - 2 with a table of a^0 .. a^15: for Fp 380 squares and
     * 95 products, about 470 in all (the MSM's affine rounds spend one per
     * thread over hundreds of additions). Not unrolled: one copy of the
     * loop, the table in local memory. */
    HD mont_t inv() const
    {
        uint32_t e[N], cc = 0;
        e[0] = sub_cc(P::mod(0), 2, cc);
#pragma unroll
        for (int i = 1; i < N; i++) e[i] = subc_cc(P::mod(i), 0, cc);
        mont_t t[16];
        t[0] = one();
#pragma unroll 1
        for (int i = 1; i < 16; i++) t[i] = t[i - 1] * *this;
        mont_t r = one();
#pragma unroll 1
        for (int i = 8 * N - 1; i >= 0; i--) {
            r = r.sqr().sqr().sqr().sqr();
            r *= t[(e[i / 8] >> (4 * (i % 8))) & 15];
        }
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
typedef mont_t<fp_inline_params> fp_inline_d;
typedef mont_t<fr_params> fr_d;

#endif
