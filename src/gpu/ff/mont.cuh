/*
 * mont.cuh - Montgomery arithmetic modulo a BLS12-381 prime on the device.
 *
 * mont_t<P> is one field element of N 32-bit limbs (P from params.cuh):
 * fp_d (N = 12, the base field) and fr_d (N = 8, the scalar field). Limbs
 * are 32 bits because the integer multiplier of the GPU is 32 bits wide.
 *
 * Multiplication is CIOS (mul_inline) with the running sum split into
 * two arrays, the even and the odd limbs of a's products, so that each
 * row of each array is one carry chain of 64-bit multiply-adds into
 * disjoint limb pairs: ptxas fuses every mad.lo.cc / madc.hi.cc pair of
 * such a chain into one IMAD.WIDE.U32.X (32 x 32 product plus a 64-bit
 * accumulator, carry in and out). Measured on the H200: Fp 26.8 G
 * products/s, Fr 60.7 G/s (sppark's products, the same idea: 27.5 / 61.0),
 * against 18.3 / 42.9 for the previous rows of IMAD.WIDE plus two IADD3
 * per product (Fr: with M0 from constant memory, see params.cuh). Squares
 * (sqr_inline) take the cross products once and reduce separately.
 * mul2 computes two independent products with their rows interleaved
 * (one call for both where products are calls); xyzz.cuh says where it
 * pays.
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
 * The Fp product is a __noinline__ call by default (compile time and
 * registers of the curve kernels, which hold dozens of them; inlining it
 * in the MSM's hot loop was measured slower, 206 vs 169 ms at 2^24);
 * CUZK_GPU_FP_INLINE = 1 inlines it everywhere.
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
        uint32_t m = e[0] * P::row_m0(); /* not P::M0: params.cuh */
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

    /* After the last row (run with the roles swapped: T = o + 2^32 e,
     * o[0] = 0): the result T / 2^32 = e + (o >> 32) < 2p, reduced. */
    HD static mont_t split_result(uint32_t * e, const uint32_t *o)
    {
        uint32_t cc = 0;
        e[0] = add_cc(e[0], o[1], cc);
#pragma unroll
        for (int j = 1; j < N - 1; j++) e[j] = addc_cc(e[j], o[j + 1], cc);
        e[N - 1] = addc(e[N - 1], 0, cc);
        mont_t r;
        reduce_once(r.v, e);
        return r;
    }

    HD static mont_t mul_inline(const mont_t &a, const mont_t &b)
    {
        uint32_t e[N], o[N];
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            split_row(e, o, a.v, b.v[i], i == 0);
            split_row(o, e, a.v, b.v[i + 1], false);
        }
        return split_result(e, o);
    }

    /* Two independent products with their rows interleaved, so that the
     * scheduler has four carry chains to overlap instead of two: the
     * curve formulas pair their independent products (xyzz.cuh), which
     * inside one call could not overlap at all. */
    HD static void mul2_inline(mont_t & r0, const mont_t &a0, const mont_t &b0, mont_t &r1,
                               const mont_t &a1, const mont_t &b1)
    {
        uint32_t e0[N], o0[N], e1[N], o1[N];
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            split_row(e0, o0, a0.v, b0.v[i], i == 0);
            split_row(e1, o1, a1.v, b1.v[i], i == 0);
            split_row(o0, e0, a0.v, b0.v[i + 1], false);
            split_row(o1, e1, a1.v, b1.v[i + 1], false);
        }
        r0 = split_result(e0, o0);
        r1 = split_result(e1, o1);
    }
    /* by value: the operands travel in registers, not through the stack */
    __host__ __device__ __noinline__ static mont_t mul_call(mont_t a, mont_t b)
    {
        return mul_inline(a, b);
    }
    /* Fp products (about 400 instructions each) are calls unless
     * CUZK_GPU_FP_INLINE: the curve kernels hold dozens of
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

    struct pair {
        mont_t a, b;
    };
    __host__ __device__ __noinline__ static pair mul2_call(mont_t a0, mont_t b0, mont_t a1,
                                                           mont_t b1)
    {
        pair r;
        mul2_inline(r.a, a0, b0, r.b, a1, b1);
        return r;
    }
    /* r0 = a0 b0, r1 = a1 b1 (one call for both where products are calls) */
    HD static void mul2(mont_t & r0, const mont_t &a0, const mont_t &b0, mont_t &r1,
                        const mont_t &a1, const mont_t &b1)
    {
        if constexpr (CALLS) {
            pair r = mul2_call(a0, b0, a1, b1);
            r0 = r.a, r1 = r.b;
        } else {
            mul2_inline(r0, a0, b0, r1, a1, b1);
        }
    }

    /*
     * a^2 for a < p with 3/4 of a product's multiply-adds: the double-width
     * square from the N (N - 1) / 2 cross products a_i a_j (i < j),
     * doubled, plus the N squares a_i^2; then, with R = 2^(32N) and
     * a^2 = lo + R hi, a^2 / R = hi + lo / R (mod p): lo goes through N
     * Montgomery rows alone (redc) and hi < p^2 / R < p / 8 is added, so
     * one subtraction finishes (lo / R comes out <= p). Every chain goes
     * into disjoint limb pairs of one array, as in split_row, so that
     * ptxas fuses its multiply-adds: row i's cross products land at limb
     * i + j, into e when that is even and into o when it is odd, one chain
     * each; the redc rows have one chain for the even and one for the odd
     * limbs of p. A chain's last carry goes into a limb that so far holds
     * at most one earlier row's carry (every product of row i' reaches
     * only limbs <= i' + N), so it never carries further.
     */
    HD static void cross_chain(uint32_t * acc, const uint32_t *a, int i, int j0)
    {
        uint32_t cc = 0;
        mad_wide_cc(a[i], a[j0], acc[i + j0], acc[i + j0 + 1], acc[i + j0], acc[i + j0 + 1], cc);
        int j = j0 + 2;
#pragma unroll
        for (; j < N; j += 2)
            madc_wide_cc(a[i], a[j], acc[i + j], acc[i + j + 1], acc[i + j], acc[i + j + 1], cc);
        acc[i + j] = addc(acc[i + j], 0, cc);
    }

    /* t (N + 2 limbs, t[N + 1] = 0) = t / R mod p, at most p: N rows of
     * t = (t + m p) / 2^32 with m = t_0 M0. */
    HD static void redc(uint32_t * t)
    {
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint32_t m = t[0] * P::row_m0(), cc = 0;
            mad_wide_cc(P::mod(0), m, t[0], t[1], t[0], t[1], cc);
#pragma unroll
            for (int j = 2; j < N; j += 2)
                madc_wide_cc(P::mod(j), m, t[j], t[j + 1], t[j], t[j + 1], cc);
            t[N] = addc(t[N], 0, cc);
            mad_wide_cc(P::mod(1), m, t[1], t[2], t[1], t[2], cc);
#pragma unroll
            for (int j = 3; j < N; j += 2)
                madc_wide_cc(P::mod(j), m, t[j], t[j + 1], t[j], t[j + 1], cc);
            t[N + 1] = addc(t[N + 1], 0, cc);
#pragma unroll
            for (int k = 0; k <= N; k++) t[k] = t[k + 1];
            t[N + 1] = 0;
        }
    }

    HD static mont_t sqr_inline(const mont_t &a)
    {
        uint32_t e[2 * N], o[2 * N], s[2 * N], cc = 0;
#pragma unroll
        for (int k = 0; k < 2 * N; k++) e[k] = o[k] = 0;
#pragma unroll
        for (int i = 0; i < N - 1; i++) {
            cross_chain(o, a.v, i, i + 1);
            if (i + 2 < N) cross_chain(e, a.v, i, i + 2);
        }
        /* s = 2 (e + o) + sum_i a_i^2 2^(64 i) < p^2 */
        s[0] = add_cc(e[0], o[0], cc);
#pragma unroll
        for (int k = 1; k < 2 * N; k++) s[k] = addc_cc(e[k], o[k], cc);
        s[0] = add_cc(s[0], s[0], cc);
#pragma unroll
        for (int k = 1; k < 2 * N; k++) s[k] = addc_cc(s[k], s[k], cc);
        mad_wide_cc(a.v[0], a.v[0], s[0], s[1], s[0], s[1], cc);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            madc_wide_cc(a.v[i], a.v[i], s[2 * i], s[2 * i + 1], s[2 * i], s[2 * i + 1], cc);
        madc_wide(a.v[N - 1], a.v[N - 1], s[2 * N - 2], s[2 * N - 1], s[2 * N - 2], s[2 * N - 1],
                  cc);
        uint32_t t[N + 2];
#pragma unroll
        for (int k = 0; k < N; k++) t[k] = s[k];
        t[N] = t[N + 1] = 0;
        redc(t);
        /* hi + lo / R < p / 8 + p + 1 < 2p */
        t[0] = add_cc(t[0], s[N], cc);
#pragma unroll
        for (int k = 1; k < N - 1; k++) t[k] = addc_cc(t[k], s[N + k], cc);
        t[N - 1] = addc(t[N - 1], s[2 * N - 1], cc);
        mont_t r;
        reduce_once(r.v, t);
        return r;
    }
    __host__ __device__ __noinline__ static mont_t sqr_call(mont_t a)
    {
        return sqr_inline(a);
    }
    /* a^2 (a < p) */
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
typedef mont_t<fr_params> fr_d;

#endif
