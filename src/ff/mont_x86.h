/*
 * mont_x86.h - Montgomery multiplication with mulx/adcx/adox (internal).
 *
 * x86-64 only (BMI2 + ADX), written as GCC extended inline assembly so the
 * compiler picks the registers and can inline it. fp_x86.h and fr_x86.h
 * instantiate it for 6 and 4 limbs; the run-time choice between this and
 * the portable code of mont.h is in field_impl.h.
 *
 * Algorithm: CIOS with the "no carry" shortcut. Both moduli have a top limb
 * below 2^62, so the running sum T < 2m + 2^-64 a b fits n limbs between
 * rows and needs one extra register only inside a row. Each of the n rows
 *   T += a * b[i]           (mulx; low halves on the OF chain, high halves
 *                            on the CF chain, so both adds run in parallel)
 *   q  = T[0] * minv        (mulx, which leaves the flags alone)
 *   T  = (T + q m) / 2^64   (same two chains; T[0] becomes 0)
 * keeps T in n + 1 registers; the register that was T[0] is zero after the
 * reduction, so the rows rotate the names instead of moving words, and it
 * is the fresh top word of the next row. Both chains end with a carry out of
 * the top word that is provably 0, so the flags are clear between rows and
 * no xor is needed. A final subtraction of m (sub/sbb, then cmovc back when
 * it borrows) gives the canonical result.
 *
 * Inputs may be any value below 2^(64n) / 4 for the fields here, not only
 * canonical ones: with a, b < 2m the result is still < m (T < 1.5m before
 * the last subtraction), which fp2.c uses for unreduced sums.
 */
#ifndef CUZK_FF_MONT_X86_H
#define CUZK_FF_MONT_X86_H

#if defined(__x86_64__) && defined(__GNUC__)
#define CUZK_FF_HAVE_X86 1

#include <stdint.h>

/* Set once at start-up from cpuid (BMI2 and ADX), or by cuzk_ff_set_adx. */
extern int cuzk_ff_adx;

/* Operand-name helpers: "%[t3]" from t3. */
#define MX_R(x) "%[" #x "]"

/* One step of T += a * rdx: limb j of a into T[j] (OF chain) and T[j+1] (CF chain). */
#define MX_MULADD(off, src, tj, tj1)                                                               \
    "mulx " #off "(" MX_R(src) "), " MX_R(lo) ", " MX_R(                                           \
        hi) "\n\t"                                                                                 \
            "adox " MX_R(lo) ", " MX_R(tj) "\n\t"                                                  \
                                           "adcx " MX_R(hi) ", " MX_R(tj1) "\n\t"

/* Same with the modulus as the multiplicand. */
#define MX_REDADD(off, tj, tj1)                                                                    \
    "mulx " #off "(" MX_R(m) "), " MX_R(lo) ", " MX_R(                                             \
        hi) "\n\t"                                                                                 \
            "adox " MX_R(lo) ", " MX_R(tj) "\n\t"                                                  \
                                           "adcx " MX_R(hi) ", " MX_R(tj1) "\n\t"

/* Close the OF chain into the top word; the CF chain already ended there with no
 * carry out, and neither chain can carry out of the top word. */
#define MX_CLOSE(top)                                                                              \
    "mov $0, " MX_R(lo) "\n\t"                                                                     \
                        "adox " MX_R(lo) ", " MX_R(top) "\n\t"

/* rdx = q = T[0] * minv mod 2^64 (imul: 3 cycles), then clear CF and OF with a
 * zero idiom so the reduction chains do not wait for the product chains. */
#define MX_Q(t0, moff)                                                                             \
    "mov " MX_R(t0) ", %%rdx\n\t"                                                                  \
                    "imul " #moff "(" MX_R(m) "), %%rdx\n\t"                                       \
                                              "xor %k[lo], %k[lo]\n\t"

/* One row for 6 limbs: T(t0..t5, top t6) += a b[i], then the reduction. */
#define MX_ROW6(i, t0, t1, t2, t3, t4, t5, t6)                                                     \
    "mov " #i "*8(" MX_R(b) "), %%rdx\n\txor %k[lo], %k[lo]\n\t" MX_MULADD(0, a, t0, t1)           \
        MX_MULADD(8, a, t1, t2) MX_MULADD(16, a, t2, t3) MX_MULADD(24, a, t3, t4)                  \
            MX_MULADD(32, a, t4, t5) MX_MULADD(40, a, t5, t6) MX_CLOSE(t6) MX_Q(t0, 48)            \
                MX_REDADD(0, t0, t1) MX_REDADD(8, t1, t2) MX_REDADD(16, t2, t3)                    \
                    MX_REDADD(24, t3, t4) MX_REDADD(32, t4, t5) MX_REDADD(40, t5, t6) MX_CLOSE(t6)

/* One row for 4 limbs. */
#define MX_ROW4(i, t0, t1, t2, t3, t4)                                                             \
    "mov " #i "*8(" MX_R(b) "), %%rdx\n\txor %k[lo], %k[lo]\n\t" MX_MULADD(0, a, t0, t1)           \
        MX_MULADD(8, a, t1, t2) MX_MULADD(16, a, t2, t3) MX_MULADD(24, a, t3, t4) MX_CLOSE(t4)     \
            MX_Q(t0, 32) MX_REDADD(0, t0, t1) MX_REDADD(8, t1, t2) MX_REDADD(16, t2, t3)           \
                MX_REDADD(24, t3, t4) MX_CLOSE(t4)

/* d = t - m limb by limb (sub/sbb), then d = t where it borrowed (t < m). */
#define MX_SUBM(off, sbb, d, t)                                                                    \
    "mov " MX_R(t) ", " MX_R(d) "\n\t" sbb " " #off "(" MX_R(m) "), " MX_R(d) "\n\t"
#define MX_KEEP(d, t) "cmovc " MX_R(t) ", " MX_R(d) "\n\t"

/*
 * r = a b / 2^384 mod m for 6 limbs; m[0..5] is the modulus and
 * m[6] = -m^-1 mod 2^64 (kept in one array to spare a register).
 */
static inline __attribute__((always_inline)) void
mont_mul6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t m[7])
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, d;
    uint64_t pa = (uint64_t)a, pb = (uint64_t)b;
    __asm__("xor %k[t0], %k[t0]\n\t"
            "xor %k[t1], %k[t1]\n\t"
            "xor %k[t2], %k[t2]\n\t"
            "xor %k[t3], %k[t3]\n\t"
            "xor %k[t4], %k[t4]\n\t"
            "xor %k[t5], %k[t5]\n\t"
            "xor %k[t6], %k[t6]\n\t" /* also clears CF and OF */
            MX_ROW6(0, t0, t1, t2, t3, t4, t5, t6) MX_ROW6(1, t1, t2, t3, t4, t5, t6, t0)
                MX_ROW6(2, t2, t3, t4, t5, t6, t0, t1) MX_ROW6(3, t3, t4, t5, t6, t0, t1, t2)
                    MX_ROW6(4, t4, t5, t6, t0, t1, t2, t3) MX_ROW6(5, t5, t6, t0, t1, t2, t3, t4)
            /* T = (t6, t0, t1, t2, t3, t4); t5 is free. Results land in lo hi d t5 a b. */
            MX_SUBM(0, "sub", lo, t6) MX_SUBM(8, "sbb", hi, t0) MX_SUBM(16, "sbb", d, t1)
                MX_SUBM(24, "sbb", t5, t2) MX_SUBM(32, "sbb", a, t3) MX_SUBM(40, "sbb", b, t4)
                    MX_KEEP(lo, t6) MX_KEEP(hi, t0) MX_KEEP(d, t1) MX_KEEP(t5, t2) MX_KEEP(a, t3)
                        MX_KEEP(b, t4)
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
    __asm__("xor %k[t0], %k[t0]\n\t"
            "xor %k[t1], %k[t1]\n\t"
            "xor %k[t2], %k[t2]\n\t"
            "xor %k[t3], %k[t3]\n\t"
            "xor %k[t4], %k[t4]\n\t" MX_ROW4(0, t0, t1, t2, t3, t4) MX_ROW4(1, t1, t2, t3, t4, t0)
                MX_ROW4(2, t2, t3, t4, t0, t1) MX_ROW4(3, t3, t4, t0, t1, t2)
            /* T = (t4, t0, t1, t2); t3 is free. Results land in lo hi d t3. */
            MX_SUBM(0, "sub", lo, t4) MX_SUBM(8, "sbb", hi, t0) MX_SUBM(16, "sbb", d, t1)
                MX_SUBM(24, "sbb", t3, t2) MX_KEEP(lo, t4) MX_KEEP(hi, t0) MX_KEEP(d, t1)
                    MX_KEEP(t3, t2)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), [d] "=&d"(d)
            : [a] "r"(a), [b] "r"(b), [m] "r"(m)
            : "cc", "memory");
    r[0] = lo, r[1] = hi, r[2] = d, r[3] = t3;
}

#endif
#endif
