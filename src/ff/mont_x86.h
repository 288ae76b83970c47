/*
 * mont_x86.h - Montgomery arithmetic with mulx/adcx/adox (internal).
 *
 * x86-64 only (BMI2 + ADX), written as GCC extended inline assembly so the
 * compiler picks the registers and can inline it. fp_x86.h and fr_x86.h
 * instantiate the multiplication for 6 and 4 limbs; the run-time choice
 * between this and the portable code of mont.h is in field_impl.h; fp2.c
 * uses the wide product and the separate reduction.
 *
 * Multiplication: CIOS with the "no carry" shortcut (bounds in mont.h: the
 * running sum T fits n limbs between rows), so T needs one extra register
 * only inside a row. Each of the n rows does
 *   T += a * b[i]           (mulx; low halves on the OF chain, high halves
 *                            on the CF chain, so both adds run in parallel)
 *   q  = T[0] * minv        (imul)
 *   T  = (T + q m) / 2^64   (same two chains; T[0] becomes 0)
 * with T in n + 1 registers. The register that was T[0] is zero after the
 * reduction, so the rows rotate the names instead of moving words, and it
 * is the fresh top word of the next row. Each chain starts after a zero
 * idiom (xor) that clears CF and OF without waiting for the previous chain;
 * each ends with a carry out of the top word that is provably 0. The first
 * row, where T = 0, is a plain mulx/adc chain. A final subtraction of m
 * (sub/sbb, then cmovc back where it borrows) gives the canonical result.
 *
 * As in mont.h, the 6-limb product also accepts inputs below 2p (fp2.c
 * uses it for unreduced sums); the 4-limb one needs canonical inputs.
 *
 * Measured on the 3.1 GHz Xeon (Skylake-SP) of the build machine: about 110
 * cycles per 6-limb product, close to the rename limit of 4 uops a cycle;
 * so the code saves instructions (first row, rotation) rather than latency.
 */
#ifndef CUZK_FF_MONT_X86_H
#define CUZK_FF_MONT_X86_H

#if defined(__x86_64__) && defined(__GNUC__)
#define CUZK_FF_HAVE_X86 1

#include <stdint.h>

/* Set once at start-up from cpuid (BMI2 and ADX), or by cuzk_ff_use_adx. */
extern int cuzk_ff_adx;

/* clang-format off */

/* Operand-name helper: "%[t3]" from t3. */
#define MX_R(x) "%[" #x "]"
#define MX_ZERO(x) "xor %k[" #x "], %k[" #x "]\n\t"

/* One step of T += a * rdx: limb j of a into T[j] (OF chain) and T[j+1] (CF chain). */
#define MX_MULADD(off, tj, tj1)                                                                    \
    "mulx " #off "(" MX_R(a) "), " MX_R(lo) ", " MX_R(hi) "\n\t"                                   \
    "adox " MX_R(lo) ", " MX_R(tj) "\n\t"                                                          \
    "adcx " MX_R(hi) ", " MX_R(tj1) "\n\t"

/* Same with the modulus as the multiplicand. */
#define MX_REDADD(off, tj, tj1)                                                                    \
    "mulx " #off "(" MX_R(m) "), " MX_R(lo) ", " MX_R(hi) "\n\t"                                   \
    "adox " MX_R(lo) ", " MX_R(tj) "\n\t"                                                          \
    "adcx " MX_R(hi) ", " MX_R(tj1) "\n\t"

/* Close the OF chain into the top word; the CF chain already ended there. */
#define MX_CLOSE(top)                                                                              \
    "mov $0, " MX_R(lo) "\n\t"                                                                     \
    "adox " MX_R(lo) ", " MX_R(top) "\n\t"

/* rdx = b[i] and clear CF and OF with a zero idiom. */
#define MX_LOADB(i)                                                                                \
    "mov " #i "*8(" MX_R(b) "), %%rdx\n\t"                                                         \
    "xor %k[lo], %k[lo]\n\t"

/* First row, T = 0: T = a b[0] with one mulx/adc chain (t0..t6 need no zeroing). */
#define MX_FIRST_STEP(off, tj, tj1) "mulx " #off "(" MX_R(a) "), " MX_R(lo) ", " MX_R(tj1) "\n\t"  \
    "adc " MX_R(lo) ", " MX_R(tj) "\n\t"
#define MX_FIRST6(t0, t1, t2, t3, t4, t5, t6)                                                      \
    "mov 0(" MX_R(b) "), %%rdx\n\t"                                                                \
    "mulx 0(" MX_R(a) "), " MX_R(t0) ", " MX_R(t1) "\n\t"                                          \
    "mulx 8(" MX_R(a) "), " MX_R(lo) ", " MX_R(t2) "\n\t"                                          \
    "add " MX_R(lo) ", " MX_R(t1) "\n\t"                                                           \
    MX_FIRST_STEP(16, t2, t3) MX_FIRST_STEP(24, t3, t4) MX_FIRST_STEP(32, t4, t5)                  \
    MX_FIRST_STEP(40, t5, t6) "adc $0, " MX_R(t6) "\n\t"
#define MX_FIRST4(t0, t1, t2, t3, t4)                                                              \
    "mov 0(" MX_R(b) "), %%rdx\n\t"                                                                \
    "mulx 0(" MX_R(a) "), " MX_R(t0) ", " MX_R(t1) "\n\t"                                          \
    "mulx 8(" MX_R(a) "), " MX_R(lo) ", " MX_R(t2) "\n\t"                                          \
    "add " MX_R(lo) ", " MX_R(t1) "\n\t"                                                           \
    MX_FIRST_STEP(16, t2, t3) MX_FIRST_STEP(24, t3, t4) "adc $0, " MX_R(t4) "\n\t"

/* rdx = q = T[0] * minv mod 2^64 (imul: 3 cycles), then clear the flags. */
#define MX_Q(t0, moff)                                                                             \
    "mov " MX_R(t0) ", %%rdx\n\t"                                                                  \
    "imul " #moff "(" MX_R(m) "), %%rdx\n\t"                                                       \
    "xor %k[lo], %k[lo]\n\t"

/* 6 limbs: T(t0..t5, top t6) += a b[i] */
#define MX_PROD6(i, t0, t1, t2, t3, t4, t5, t6)                                                    \
    MX_LOADB(i) MX_MULADD(0, t0, t1) MX_MULADD(8, t1, t2) MX_MULADD(16, t2, t3)                    \
    MX_MULADD(24, t3, t4) MX_MULADD(32, t4, t5) MX_MULADD(40, t5, t6) MX_CLOSE(t6)

/* 6 limbs: T = (T + q m) / 2^64, leaving t0 = 0 */
#define MX_RED6(t0, t1, t2, t3, t4, t5, t6)                                                        \
    MX_Q(t0, 48) MX_REDADD(0, t0, t1) MX_REDADD(8, t1, t2) MX_REDADD(16, t2, t3)                   \
    MX_REDADD(24, t3, t4) MX_REDADD(32, t4, t5) MX_REDADD(40, t5, t6) MX_CLOSE(t6)

#define MX_ROW6(i, t0, t1, t2, t3, t4, t5, t6)                                                     \
    MX_PROD6(i, t0, t1, t2, t3, t4, t5, t6) MX_RED6(t0, t1, t2, t3, t4, t5, t6)

/* 4 limbs */
#define MX_RED4(t0, t1, t2, t3, t4)                                                                \
    MX_Q(t0, 32) MX_REDADD(0, t0, t1) MX_REDADD(8, t1, t2) MX_REDADD(16, t2, t3)                   \
    MX_REDADD(24, t3, t4) MX_CLOSE(t4)
#define MX_ROW4(i, t0, t1, t2, t3, t4)                                                             \
    MX_LOADB(i) MX_MULADD(0, t0, t1) MX_MULADD(8, t1, t2) MX_MULADD(16, t2, t3)                    \
    MX_MULADD(24, t3, t4) MX_CLOSE(t4) MX_RED4(t0, t1, t2, t3, t4)

/* d = t - m limb by limb (sub/sbb), then d = t where it borrowed (t < m). */
#define MX_SUBM(off, sbb, d, t)                                                                    \
    "mov " MX_R(t) ", " MX_R(d) "\n\t" sbb " " #off "(" MX_R(m) "), " MX_R(d) "\n\t"
#define MX_KEEP(d, t) "cmovc " MX_R(t) ", " MX_R(d) "\n\t"

/* Final subtraction for 6 limbs: T in t0..t5, result in d0..d5. */
#define MX_FINAL6(t0, t1, t2, t3, t4, t5, d0, d1, d2, d3, d4, d5)                                  \
    MX_SUBM(0, "sub", d0, t0) MX_SUBM(8, "sbb", d1, t1) MX_SUBM(16, "sbb", d2, t2)                 \
    MX_SUBM(24, "sbb", d3, t3) MX_SUBM(32, "sbb", d4, t4) MX_SUBM(40, "sbb", d5, t5)               \
    MX_KEEP(d0, t0) MX_KEEP(d1, t1) MX_KEEP(d2, t2) MX_KEEP(d3, t3) MX_KEEP(d4, t4) MX_KEEP(d5, t5)

/* Wide product: after row i, word i of the product is final; store it and
 * zero its register (the next row's top word; the xor also clears the flags). */
#define MX_STORE0(i, t0) "mov " MX_R(t0) ", " #i "*8(" MX_R(out) ")\n\t" MX_ZERO(t0)
#define MX_WROW6(i, t0, t1, t2, t3, t4, t5, t6)                                                    \
    "mov " #i "*8(" MX_R(b) "), %%rdx\n\t"                                                         \
    MX_MULADD(0, t0, t1) MX_MULADD(8, t1, t2) MX_MULADD(16, t2, t3)                                \
    MX_MULADD(24, t3, t4) MX_MULADD(32, t4, t5) MX_MULADD(40, t5, t6) MX_CLOSE(t6)                 \
    MX_STORE0(i, t0)

/*
 * r = a b / 2^384 mod m for 6 limbs; m[0..5] is the modulus and
 * m[6] = -m^-1 mod 2^64 (kept in one array to spare a register).
 */
static inline __attribute__((always_inline)) void
mont_mul6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t m[7])
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, d;
    uint64_t pa = (uint64_t)a, pb = (uint64_t)b;
    __asm__(
        MX_FIRST6(t0, t1, t2, t3, t4, t5, t6) MX_RED6(t0, t1, t2, t3, t4, t5, t6)
        MX_ROW6(1, t1, t2, t3, t4, t5, t6, t0) MX_ROW6(2, t2, t3, t4, t5, t6, t0, t1)
        MX_ROW6(3, t3, t4, t5, t6, t0, t1, t2) MX_ROW6(4, t4, t5, t6, t0, t1, t2, t3)
        MX_ROW6(5, t5, t6, t0, t1, t2, t3, t4)
        /* T = (t6, t0, t1, t2, t3, t4); t5 is free. Results land in lo hi d t5 a b. */
        MX_FINAL6(t6, t0, t1, t2, t3, t4, lo, hi, d, t5, a, b)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [d] "=&d"(d),
          [a] "+&r"(pa), [b] "+&r"(pb)
        : [m] "r"(m)
        : "cc", "memory");
    r[0] = lo, r[1] = hi, r[2] = d, r[3] = t5, r[4] = pa, r[5] = pb;
}

/* r = a b / 2^256 mod m for 4 limbs; m[4] = -m^-1 mod 2^64. */
static inline __attribute__((always_inline)) void
mont_mul4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t m[5])
{
    uint64_t t0, t1, t2, t3, t4, lo, hi, d;
    __asm__(
        MX_FIRST4(t0, t1, t2, t3, t4) MX_RED4(t0, t1, t2, t3, t4)
        MX_ROW4(1, t1, t2, t3, t4, t0) MX_ROW4(2, t2, t3, t4, t0, t1)
        MX_ROW4(3, t3, t4, t0, t1, t2)
        /* T = (t4, t0, t1, t2); t3 is free. Results land in lo hi d t3. */
        MX_SUBM(0, "sub", lo, t4) MX_SUBM(8, "sbb", hi, t0) MX_SUBM(16, "sbb", d, t1)
        MX_SUBM(24, "sbb", t3, t2) MX_KEEP(lo, t4) MX_KEEP(hi, t0) MX_KEEP(d, t1) MX_KEEP(t3, t2)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [lo] "=&r"(lo), [hi] "=&r"(hi), [d] "=&d"(d)
        : [a] "r"(a), [b] "r"(b), [m] "r"(m)
        : "cc", "memory");
    r[0] = lo, r[1] = hi, r[2] = d, r[3] = t3;
}

/* out = a b, the full 12-limb product (no reduction). volatile: its only
 * effect is the store to out. */
static inline __attribute__((always_inline)) void
mont_mulwide6_adx(uint64_t out[12], const uint64_t a[6], const uint64_t b[6])
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, d;
    __asm__ volatile(
        MX_FIRST6(t0, t1, t2, t3, t4, t5, t6) MX_STORE0(0, t0)
        MX_WROW6(1, t1, t2, t3, t4, t5, t6, t0) MX_WROW6(2, t2, t3, t4, t5, t6, t0, t1)
        MX_WROW6(3, t3, t4, t5, t6, t0, t1, t2) MX_WROW6(4, t4, t5, t6, t0, t1, t2, t3)
        MX_WROW6(5, t5, t6, t0, t1, t2, t3, t4)
        /* words 6..11 are (t6, t0, t1, t2, t3, t4) */
        "mov %[t6], 48(%[out])\n\t"
        "mov %[t0], 56(%[out])\n\t"
        "mov %[t1], 64(%[out])\n\t"
        "mov %[t2], 72(%[out])\n\t"
        "mov %[t3], 80(%[out])\n\t"
        "mov %[t4], 88(%[out])\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [d] "=&d"(d)
        : [a] "r"(a), [b] "r"(b), [out] "r"(out)
        : "cc", "memory");
}

/*
 * r = t / 2^384 mod m for a 12-limb t < m 2^384 (m as in mont_mul6_adx).
 * The low half is reduced by six rows (U = (t_lo + Q m) / 2^384 <= m), then
 * the high half (< m) is added and one subtraction makes the sum canonical.
 */
static inline __attribute__((always_inline)) void
mont_redc6_adx(uint64_t r[6], const uint64_t t[12], const uint64_t m[7])
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, d, x, pt = (uint64_t)t;
    __asm__(
        "mov 0(%[t]), %[t0]\n\t"
        "mov 8(%[t]), %[t1]\n\t"
        "mov 16(%[t]), %[t2]\n\t"
        "mov 24(%[t]), %[t3]\n\t"
        "mov 32(%[t]), %[t4]\n\t"
        "mov 40(%[t]), %[t5]\n\t"
        MX_ZERO(t6)
        MX_RED6(t0, t1, t2, t3, t4, t5, t6) MX_RED6(t1, t2, t3, t4, t5, t6, t0)
        MX_RED6(t2, t3, t4, t5, t6, t0, t1) MX_RED6(t3, t4, t5, t6, t0, t1, t2)
        MX_RED6(t4, t5, t6, t0, t1, t2, t3) MX_RED6(t5, t6, t0, t1, t2, t3, t4)
        /* U = (t6, t0, t1, t2, t3, t4); t5 is free */
        "add 48(%[t]), %[t6]\n\t"
        "adc 56(%[t]), %[t0]\n\t"
        "adc 64(%[t]), %[t1]\n\t"
        "adc 72(%[t]), %[t2]\n\t"
        "adc 80(%[t]), %[t3]\n\t"
        "adc 88(%[t]), %[t4]\n\t"
        MX_FINAL6(t6, t0, t1, t2, t3, t4, lo, hi, d, t5, t, x)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [d] "=&d"(d),
          [t] "+&r"(pt), [x] "=&r"(x)
        : [m] "r"(m)
        : "cc", "memory");
    r[0] = lo, r[1] = hi, r[2] = d, r[3] = t5, r[4] = pt, r[5] = x;
}

/* dst[k] = x[k] - y[k] with the borrow chain (sub for k = 0, then sbb). */
#define MX_SUBW(k, op, dst, x, y)                                                                  \
    "mov " #k "*8(" MX_R(x) "), " MX_R(w) "\n\t"                                                   \
    op " " #k "*8(" MX_R(y) "), " MX_R(w) "\n\t"                                                   \
    "mov " MX_R(w) ", " #k "*8(" MX_R(dst) ")\n\t"
#define MX_SUB12(dst, x, y)                                                                        \
    MX_SUBW(0, "sub", dst, x, y) MX_SUBW(1, "sbb", dst, x, y) MX_SUBW(2, "sbb", dst, x, y)         \
    MX_SUBW(3, "sbb", dst, x, y) MX_SUBW(4, "sbb", dst, x, y) MX_SUBW(5, "sbb", dst, x, y)         \
    MX_SUBW(6, "sbb", dst, x, y) MX_SUBW(7, "sbb", dst, x, y) MX_SUBW(8, "sbb", dst, x, y)         \
    MX_SUBW(9, "sbb", dst, x, y) MX_SUBW(10, "sbb", dst, x, y) MX_SUBW(11, "sbb", dst, x, y)
/* x = m[k] & mask, done before the carry chain since "and" clears CF. */
#define MX_MASKM(k, x)                                                                             \
    "mov " #k "*8(" MX_R(m) "), " MX_R(x) "\n\t"                                                   \
    "and " MX_R(mask) ", " MX_R(x) "\n\t"
#define MX_ADDC0(k, op, x) op " " MX_R(x) ", 48+" #k "*8(" MX_R(c0) ")\n\t"

/*
 * The middle of a Karatsuba Fp2 product on 12-limb products t0 = a0 b0,
 * t1 = a1 b1, t2 = (a0 + a1)(b0 + b1), in two steps so the first reduction
 * can start before t2 is computed:
 *   c0 = t0 - t1, plus m 2^384 when that is negative   (mont_fp2_c0)
 *   t2 <- t2 - t0 - t1 = a0 b1 + a1 b0, never negative  (mont_fp2_c1)
 * so both are in [0, m 2^384) for mont_redc6_adx.
 */
static inline __attribute__((always_inline)) void
mont_fp2_c0(uint64_t c0[12], const uint64_t t0[12], const uint64_t t1[12], const uint64_t m[7])
{
    uint64_t w, mask, x0, x1, x2, x3, x4;
    __asm__ volatile(
        MX_SUB12(c0, t0, t1)
        "sbb " MX_R(mask) ", " MX_R(mask) "\n\t"
        MX_MASKM(0, x0) MX_MASKM(1, x1) MX_MASKM(2, x2) MX_MASKM(3, x3) MX_MASKM(4, x4)
        MX_MASKM(5, w)
        MX_ADDC0(0, "add", x0) MX_ADDC0(1, "adc", x1) MX_ADDC0(2, "adc", x2)
        MX_ADDC0(3, "adc", x3) MX_ADDC0(4, "adc", x4) MX_ADDC0(5, "adc", w)
        : [w] "=&r"(w), [mask] "=&r"(mask), [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2),
          [x3] "=&r"(x3), [x4] "=&r"(x4)
        : [c0] "r"(c0), [t0] "r"(t0), [t1] "r"(t1), [m] "r"(m)
        : "cc", "memory");
}

static inline __attribute__((always_inline)) void
mont_fp2_c1(uint64_t t2[12], const uint64_t t0[12], const uint64_t t1[12])
{
    uint64_t w;
    __asm__ volatile(MX_SUB12(t2, t2, t0) MX_SUB12(t2, t2, t1)
                     : [w] "=&r"(w)
                     : [t0] "r"(t0), [t1] "r"(t1), [t2] "r"(t2)
                     : "cc", "memory");
}
/* clang-format on */

#endif
#endif
