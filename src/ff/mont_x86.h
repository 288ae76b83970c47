/*
 * mont_x86.h - Montgomery arithmetic with mulx/adcx/adox (internal).
 *
 * x86-64 only (BMI2 + ADX), written as GCC extended inline assembly so the
 * compiler picks the registers and can inline it. fp_x86.h and fr_x86.h
 * instantiate the multiplication for 6 and 4 limbs; the run-time choice
 * between this and the portable code of mont.h is in field_impl.h; fp2.c
 * uses the wide product and the Fp2 reductions at the end.
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
 * Measured on the 3.1 GHz Xeon (Skylake-SP) of the build machine: 37 ns
 * (about 115 cycles) per 6-limb product, near the issue rate of its ~400
 * uops; the flag-clearing xors still pay (without them the chains of
 * consecutive rows serialise: 40 ns). There is no separate squaring: a wide
 * square plus a separate reduction is slower than this product (such a
 * reduction alone is about 80 cycles of latency).
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

/* Addition and subtraction (plain x86-64: add/adc, sub/sbb, cmov). */
#define MX_ADD(k, op, t) "mov " #k "*8(" MX_R(a) "), " MX_R(t) "\n\t" op " " #k "*8(" MX_R(b) "), " MX_R(t) "\n\t"
#define MX_CPY(k, op, d, t) "mov " MX_R(t) ", " MX_R(d) "\n\t" op " " #k "*8(" MX_R(m) "), " MX_R(d) "\n\t"
#define MX_CMOV(cc, d, t) "cmov" cc " " MX_R(d) ", " MX_R(t) "\n\t"

/*
 * r = a + b mod m for 6 limbs (a, b < m): t = a + b < 2m never carries out;
 * d = t - m, and t = d where that did not borrow.
 */
static inline __attribute__((always_inline)) void
mont_add6_x86(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t m[6])
{
    uint64_t t0, t1, t2, t3, t4, t5, d0, d1, d2, d3, pa = (uint64_t)a, pb = (uint64_t)b;
    __asm__(
        MX_ADD(0, "add", t0) MX_ADD(1, "adc", t1) MX_ADD(2, "adc", t2)
        MX_ADD(3, "adc", t3) MX_ADD(4, "adc", t4) MX_ADD(5, "adc", t5)
        MX_CPY(0, "sub", d0, t0) MX_CPY(1, "sbb", d1, t1) MX_CPY(2, "sbb", d2, t2)
        MX_CPY(3, "sbb", d3, t3) MX_CPY(4, "sbb", a, t4) MX_CPY(5, "sbb", b, t5)
        MX_CMOV("nc", d0, t0) MX_CMOV("nc", d1, t1) MX_CMOV("nc", d2, t2)
        MX_CMOV("nc", d3, t3) MX_CMOV("nc", a, t4) MX_CMOV("nc", b, t5)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3),
          [a] "+&r"(pa), [b] "+&r"(pb)
        : [m] "r"(m)
        : "cc", "memory");
    r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3, r[4] = t4, r[5] = t5;
}

/*
 * r = a - b mod m for 6 limbs: t = a - b, d = t + m, and t = d where the
 * subtraction borrowed, which is exactly when t + m carries out (a - b > -m).
 */
static inline __attribute__((always_inline)) void
mont_sub6_x86(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t m[6])
{
    uint64_t t0, t1, t2, t3, t4, t5, d0, d1, d2, d3, pa = (uint64_t)a, pb = (uint64_t)b;
    __asm__(
        MX_ADD(0, "sub", t0) MX_ADD(1, "sbb", t1) MX_ADD(2, "sbb", t2)
        MX_ADD(3, "sbb", t3) MX_ADD(4, "sbb", t4) MX_ADD(5, "sbb", t5)
        MX_CPY(0, "add", d0, t0) MX_CPY(1, "adc", d1, t1) MX_CPY(2, "adc", d2, t2)
        MX_CPY(3, "adc", d3, t3) MX_CPY(4, "adc", a, t4) MX_CPY(5, "adc", b, t5)
        MX_CMOV("c", d0, t0) MX_CMOV("c", d1, t1) MX_CMOV("c", d2, t2)
        MX_CMOV("c", d3, t3) MX_CMOV("c", a, t4) MX_CMOV("c", b, t5)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3),
          [a] "+&r"(pa), [b] "+&r"(pb)
        : [m] "r"(m)
        : "cc", "memory");
    r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3, r[4] = t4, r[5] = t5;
}

/* The same for 4 limbs. */
static inline __attribute__((always_inline)) void
mont_add4_x86(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t m[4])
{
    uint64_t t0, t1, t2, t3, d0, d1, d2, d3;
    __asm__(
        MX_ADD(0, "add", t0) MX_ADD(1, "adc", t1) MX_ADD(2, "adc", t2) MX_ADD(3, "adc", t3)
        MX_CPY(0, "sub", d0, t0) MX_CPY(1, "sbb", d1, t1) MX_CPY(2, "sbb", d2, t2)
        MX_CPY(3, "sbb", d3, t3)
        MX_CMOV("nc", d0, t0) MX_CMOV("nc", d1, t1) MX_CMOV("nc", d2, t2) MX_CMOV("nc", d3, t3)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [d0] "=&r"(d0),
          [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3)
        : [a] "r"(a), [b] "r"(b), [m] "r"(m)
        : "cc", "memory");
    r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3;
}

static inline __attribute__((always_inline)) void
mont_sub4_x86(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t m[4])
{
    uint64_t t0, t1, t2, t3, d0, d1, d2, d3;
    __asm__(
        MX_ADD(0, "sub", t0) MX_ADD(1, "sbb", t1) MX_ADD(2, "sbb", t2) MX_ADD(3, "sbb", t3)
        MX_CPY(0, "add", d0, t0) MX_CPY(1, "adc", d1, t1) MX_CPY(2, "adc", d2, t2)
        MX_CPY(3, "adc", d3, t3)
        MX_CMOV("c", d0, t0) MX_CMOV("c", d1, t1) MX_CMOV("c", d2, t2) MX_CMOV("c", d3, t3)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [d0] "=&r"(d0),
          [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3)
        : [a] "r"(a), [b] "r"(b), [m] "r"(m)
        : "cc", "memory");
    r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3;
}

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
 * Fp2 reductions (fp2.c). t holds three 12-limb products back to back:
 * t0 = a0 b0 at t[0], t1 = a1 b1 at t[12], t2 = (a0 + a1)(b0 + b1) at t[24],
 * and two spare words at t[36]. The Karatsuba combinations
 *   c0 = t0 - t1             (may be negative)
 *   c1 = t2 - t0 - t1        (= a0 b1 + a1 b0 >= 0)
 * are formed inside the reduction instead of as 12-limb arrays: their low
 * halves are subtracted into the window registers (borrows kept aside),
 * reduced by six rows to U <= p (U = (c_lo + Q p) / 2^384, the rows of the
 * multiplication without the products), and the high halves are added last,
 * V = U + c_hi. For c1, V is in [0, 2p). For c0, V is in [-p, 2p) and the
 * borrow out of the chain says V < 0: then p is added (cmovc of each limb
 * of p on the OF chain with adox, while CF keeps the condition). One final
 * subtraction makes either canonical.
 */
#define MX_LOW(k, op, w, off) "mov " #k "*8+" #off "(" MX_R(t) "), " MX_R(w) "\n\t"                \
    op " " #k "*8+96(" MX_R(t) "), " MX_R(w) "\n\t"
#define MX_SUBLO(k, op, w, off) op " " #k "*8+" #off "(" MX_R(t) "), " MX_R(w) "\n\t"
#define MX_HI6(op0, op, off, u0, u1, u2, u3, u4, u5)                                               \
    op0 " 0+" #off "(" MX_R(t) "), " MX_R(u0) "\n\t" op " 8+" #off "(" MX_R(t) "), " MX_R(u1) "\n\t"  \
    op " 16+" #off "(" MX_R(t) "), " MX_R(u2) "\n\t" op " 24+" #off "(" MX_R(t) "), " MX_R(u3) "\n\t" \
    op " 32+" #off "(" MX_R(t) "), " MX_R(u4) "\n\t" op " 40+" #off "(" MX_R(t) "), " MX_R(u5) "\n\t"
#define MX_REDC_ROWS6                                                                              \
    MX_ZERO(t6)                                                                                    \
    MX_RED6(t0, t1, t2, t3, t4, t5, t6) MX_RED6(t1, t2, t3, t4, t5, t6, t0)                        \
    MX_RED6(t2, t3, t4, t5, t6, t0, t1) MX_RED6(t3, t4, t5, t6, t0, t1, t2)                        \
    MX_RED6(t4, t5, t6, t0, t1, t2, t3) MX_RED6(t5, t6, t0, t1, t2, t3, t4)
/* U = (t6, t0, t1, t2, t3, t4) after the rows; lo = p[k] when CF else 0, added on OF. */
#define MX_ADDP_IF_CF(k, u) "mov $0, " MX_R(lo) "\n\t" "cmovc " #k "*8(" MX_R(m) "), " MX_R(lo) "\n\t" \
    "adox " MX_R(lo) ", " MX_R(u) "\n\t"
#define MX_REDC_OUT                                                                                \
    : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),              \
      [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [d] "=&d"(d),                \
      [t] "+&r"(pt), [x] "=&r"(x)                                                                  \
    : [m] "r"(m)                                                                                   \
    : "cc", "memory"

/* r = redc(t0 - t1, plus p 2^384 when negative). */
static inline __attribute__((always_inline)) void
mont_redc6_fp2c0_adx(uint64_t r[6], uint64_t t[38], const uint64_t m[7])
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, d, x, pt = (uint64_t)t;
    __asm__(
        MX_LOW(0, "sub", t0, 0) MX_LOW(1, "sbb", t1, 0) MX_LOW(2, "sbb", t2, 0)
        MX_LOW(3, "sbb", t3, 0) MX_LOW(4, "sbb", t4, 0) MX_LOW(5, "sbb", t5, 0)
        "sbb %[x], %[x]\n\t"                                     /* x = -borrow */
        MX_REDC_ROWS6
        MX_HI6("add", "adc", 48, t6, t0, t1, t2, t3, t4)         /* + t0_hi */
        "add %[x], %[x]\n\t"                                     /* CF = borrow */
        MX_HI6("sbb", "sbb", 144, t6, t0, t1, t2, t3, t4)        /* - t1_hi - borrow */
        "sbb %[x], %[x]\n\t"                                     /* keeps CF = (V < 0), OF = 0 */
        MX_ADDP_IF_CF(0, t6) MX_ADDP_IF_CF(1, t0) MX_ADDP_IF_CF(2, t1)
        MX_ADDP_IF_CF(3, t2) MX_ADDP_IF_CF(4, t3) MX_ADDP_IF_CF(5, t4)
        MX_FINAL6(t6, t0, t1, t2, t3, t4, lo, hi, d, t5, t, x)
        MX_REDC_OUT);
    r[0] = lo, r[1] = hi, r[2] = d, r[3] = t5, r[4] = pt, r[5] = x;
}

/* r = redc(t2 - t0 - t1). */
static inline __attribute__((always_inline)) void
mont_redc6_fp2c1_adx(uint64_t r[6], uint64_t t[38], const uint64_t m[7])
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, d, x, pt = (uint64_t)t;
    __asm__(
        "mov 192(%[t]), %[t0]\n\t" MX_SUBLO(0, "sub", t0, 0)
        "mov 200(%[t]), %[t1]\n\t" MX_SUBLO(1, "sbb", t1, 0)
        "mov 208(%[t]), %[t2]\n\t" MX_SUBLO(2, "sbb", t2, 0)
        "mov 216(%[t]), %[t3]\n\t" MX_SUBLO(3, "sbb", t3, 0)
        "mov 224(%[t]), %[t4]\n\t" MX_SUBLO(4, "sbb", t4, 0)
        "mov 232(%[t]), %[t5]\n\t" MX_SUBLO(5, "sbb", t5, 0)
        "sbb %[x], %[x]\n\t"                                     /* x = -borrow of t2 - t0 */
        MX_SUBLO(0, "sub", t0, 96) MX_SUBLO(1, "sbb", t1, 96) MX_SUBLO(2, "sbb", t2, 96)
        MX_SUBLO(3, "sbb", t3, 96) MX_SUBLO(4, "sbb", t4, 96) MX_SUBLO(5, "sbb", t5, 96)
        "sbb %[lo], %[lo]\n\t"
        "mov %[lo], 288(%[t])\n\t"                               /* t[36] = -borrow of ... - t1 */
        MX_REDC_ROWS6
        MX_HI6("add", "adc", 240, t6, t0, t1, t2, t3, t4)        /* + t2_hi */
        "add %[x], %[x]\n\t"
        MX_HI6("sbb", "sbb", 48, t6, t0, t1, t2, t3, t4)         /* - t0_hi - borrow */
        "mov 288(%[t]), %[x]\n\t"
        "add %[x], %[x]\n\t"
        MX_HI6("sbb", "sbb", 144, t6, t0, t1, t2, t3, t4)        /* - t1_hi - borrow */
        MX_FINAL6(t6, t0, t1, t2, t3, t4, lo, hi, d, t5, t, x)
        MX_REDC_OUT);
    r[0] = lo, r[1] = hi, r[2] = d, r[3] = t5, r[4] = pt, r[5] = x;
}

/* clang-format on */

#endif
#endif
