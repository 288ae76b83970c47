/*
 * mont.h - generic Montgomery arithmetic over n 64-bit limbs (internal).
 *
 * One source for both fields: fp.c instantiates it with the 6 limbs of p,
 * fr.c with the 4 limbs of r. Every function takes the limb count as a
 * compile-time constant from its caller and the loops carry
 * "#pragma GCC unroll", so they unroll fully (at -O2 they would not).
 * Portable C with unsigned __int128; the x86-64 assembly of mont_x86.h
 * is the fast path where the CPU allows and is tested against this code.
 *
 * Both moduli leave spare top bits (381 of 384, 255 of 256), so a+b never
 * overflows n limbs and the CIOS accumulator needs no extra word.
 */
#ifndef CUZK_FF_MONT_H
#define CUZK_FF_MONT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

#define MONT_MAX_LIMBS 8

/* r = a - b over n limbs, returns the borrow (0 or 1). */
static inline uint64_t mont_sub_raw(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t borrow = 0;
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) {
        u128 d = (u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

/* r = a + b over n limbs, returns the carry. */
static inline uint64_t mont_add_raw(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t carry = 0;
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) {
        u128 s = (u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    return carry;
}

/* r = t if t < m else t - m (t < 2m). */
static inline void mont_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *m, int n)
{
    uint64_t d[MONT_MAX_LIMBS];
    uint64_t borrow = mont_sub_raw(d, t, m, n);
    uint64_t mask = borrow - 1; /* all ones when t >= m */
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) r[i] = (d[i] & mask) | (t[i] & ~mask);
}

static inline void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            int n)
{
    uint64_t t[MONT_MAX_LIMBS];
    mont_add_raw(t, a, b, n);
    mont_reduce_once(r, t, m, n);
}

static inline void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            int n)
{
    uint64_t t[MONT_MAX_LIMBS], mm[MONT_MAX_LIMBS];
    uint64_t mask = 0 - mont_sub_raw(t, a, b, n);
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) mm[i] = m[i] & mask;
    mont_add_raw(r, t, mm, n);
}

/*
 * Montgomery product r = a b / 2^(64n) mod m (CIOS, n^2 + n multiplications).
 * minv = -m^-1 mod 2^64. r may alias a or b. The "no carry" form: after
 * each row T < T/2^64 + a + m, so for a, b < m the running sum stays below
 * 2m < 2^(64n) (both moduli have a spare top bit) and the carries A
 * (product) and C (reduction) of a row add into the top limb without
 * overflow. For p (381 bits) inputs below 2p are accepted too: T < 3p <
 * 2^384 and the result before the last subtraction is < 1.5p; fp2.c passes
 * such unreduced sums. Not so for r (255 bits): Fr inputs must be canonical.
 * The result is canonical.
 */
static inline void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            uint64_t minv, int n)
{
    uint64_t t[MONT_MAX_LIMBS] = {0};
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) {
        u128 c = (u128)a[0] * b[i] + t[0];
        uint64_t lo = (uint64_t)c, q = lo * minv;
        uint64_t A = (uint64_t)(c >> 64);
        uint64_t C = (uint64_t)(((u128)q * m[0] + lo) >> 64);
#pragma GCC unroll 8
        for (int j = 1; j < n; j++) {
            c = (u128)a[j] * b[i] + t[j] + A;
            A = (uint64_t)(c >> 64);
            u128 d = (u128)q * m[j] + (uint64_t)c + C;
            C = (uint64_t)(d >> 64);
            t[j - 1] = (uint64_t)d;
        }
        t[n - 1] = A + C;
    }
    mont_reduce_once(r, t, m, n);
}

static inline bool mont_is_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) acc |= a[i];
    return acc == 0;
}

/* true when a < m (a canonical representative). */
static inline bool mont_lt(const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t t[MONT_MAX_LIMBS];
    return mont_sub_raw(t, a, m, n) != 0;
}

static inline void mont_from_bytes_le(uint64_t *r, const uint8_t *in, int n)
{
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--) w = (w << 8) | in[8 * i + k];
        r[i] = w;
    }
}

static inline void mont_to_bytes_le(uint8_t *out, const uint64_t *a, int n)
{
#pragma GCC unroll 8
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) out[8 * i + k] = (uint8_t)(a[i] >> (8 * k));
}

static inline void mont_from_bytes_be(uint64_t *r, const uint8_t *in, int n)
{
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++) w = (w << 8) | in[8 * (n - 1 - i) + k];
        r[i] = w;
    }
}

static inline void mont_to_bytes_be(uint8_t *out, const uint64_t *a, int n)
{
#pragma GCC unroll 8
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) out[8 * (n - 1 - i) + k] = (uint8_t)(a[i] >> (56 - 8 * k));
}

#endif
