/*
 * inv.h - modular inversion by Bernstein-Yang divsteps (internal).
 *
 * VARIABLE TIME: the number of iterations and every branch depend on the
 * input. That suits the prover, whose bucket MSMs are variable time in the
 * scalars anyway; where the timing of one inversion must not depend on its
 * input, use Fermat's a^(m-2) with fp_pow / fr_pow (their branches depend
 * on the public exponent only).
 *
 * Algorithm (Bernstein and Yang, "Fast constant-time gcd computation and
 * modular inversion", 2019, with the variable-time batching described in
 * the libsecp256k1 safegcd notes): f = m, g = x, and the invariants
 * f = d x, g = e x (mod m). Each round takes the low 62 bits of f and g,
 * runs 62 divsteps on them alone to get a 2x2 matrix T (entries scaled by
 * 2^62, |u| + |v| <= 2^62 and |q| + |r| <= 2^62), then applies
 *   (f, g) <- T (f, g) / 2^62          (exact)
 *   (d, e) <- T (d, e) / 2^62 mod m    (adding k m, k = -(T (d, e)) / m mod 2^62)
 * to the full numbers. When g reaches 0, f = +-1 and x^-1 = +-d.
 * Inside a round the divsteps go several at a time: trailing zeros of g are
 * shifted out at once, and while eta stays >= 0 up to 6 "g += f" steps
 * collapse into g += w f with w = -g / f mod 2^6.
 *
 * Numbers are signed, base 2^62: limbs 0..n-2 in [0, 2^62), the top limb
 * signed. 7 limbs hold Fp values (434 bits), 5 hold Fr (310 bits). d and e
 * are kept in [0, m): after an update they lie in (-m, 2m) and one add or
 * subtract of m brings them back.
 */
#ifndef CUZK_FF_INV_H
#define CUZK_FF_INV_H

#include <stdbool.h>
#include <stdint.h>

#define S62_MAX  7
#define S62_MASK ((1ull << 62) - 1)

typedef __int128 i128;

/* The 2x2 transition matrix of one round, scaled by 2^62. */
typedef struct s62_matrix {
    int64_t u, v, q, r;
} s62_matrix;

/*
 * 62 divsteps on the low bits of f and g (f odd). Returns the new eta.
 * Arithmetic on the matrix is mod 2^64 (unsigned, so wrapping is defined);
 * the bounds above make the final values exact as signed numbers.
 */
static inline int64_t s62_divsteps(int64_t eta, uint64_t f, uint64_t g, s62_matrix *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    int i = 62;
    for (;;) {
        /* Shift out the zeros of g, at most i (the mask stops the count there). */
        int zeros = __builtin_ctzll(g | (~0ull << i));
        g >>= zeros, u <<= zeros, v <<= zeros;
        eta -= zeros, i -= zeros;
        if (i == 0) break;
        /* g is odd: with eta < 0 swap (f, g) <- (g, -f), then g += w f. */
        if (eta < 0) {
            uint64_t s;
            eta = -eta;
            s = f, f = g, g = -s;
            s = u, u = q, q = -s;
            s = v, v = r, r = -s;
        }
        int limit = eta + 1 < i ? (int)eta + 1 : i;
        limit = limit < 6 ? limit : 6;
        /* f (2 - f^2) = 1/f mod 2^6 (f^2 = 1 mod 8, one Newton step), so w = -g/f. */
        uint64_t w = (f * g * (f * f - 2)) & ((1ull << limit) - 1);
        g += w * f, q += w * u, r += w * v;
    }
    t->u = (int64_t)u, t->v = (int64_t)v, t->q = (int64_t)q, t->r = (int64_t)r;
    return eta;
}

/* x (nw 64-bit limbs, non-negative) -> n signed-62 limbs. */
static inline void s62_from_u64(int64_t *out, const uint64_t *x, int nw, int n)
{
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) {
        int bit = 62 * i, w = bit / 64, s = bit % 64;
        uint64_t lo = w < nw ? x[w] >> s : 0;
        uint64_t hi = (s > 2 && w + 1 < nw) ? x[w + 1] << (64 - s) : 0;
        out[i] = (int64_t)((lo | hi) & S62_MASK);
    }
}

/* n signed-62 limbs (a value in [0, 2^(64 nw))) -> nw 64-bit limbs. */
static inline void s62_to_u64(uint64_t *out, const int64_t *x, int nw, int n)
{
#pragma GCC unroll 8
    for (int w = 0; w < nw; w++) out[w] = 0;
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) {
        int bit = 62 * i, w = bit / 64, s = bit % 64;
        uint64_t l = (uint64_t)x[i];
        if (w < nw) out[w] |= l << s;
        if (s > 2 && w + 1 < nw) out[w + 1] |= l >> (64 - s);
    }
}

static inline bool s62_is_zero(const int64_t *x, int n)
{
    int64_t acc = 0;
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) acc |= x[i];
    return acc == 0;
}

/* x += sign m (sign +1 or -1), renormalising the limbs. */
static inline void s62_add_signed(int64_t *x, const int64_t *m, int sign, int n)
{
    int64_t c = 0;
#pragma GCC unroll 8
    for (int i = 0; i < n - 1; i++) {
        c += x[i] + sign * m[i];
        x[i] = c & (int64_t)S62_MASK;
        c >>= 62;
    }
    x[n - 1] += c + sign * m[n - 1];
}

/* true when x >= m, for x >= 0 with normalised limbs. */
static inline bool s62_geq(const int64_t *x, const int64_t *m, int n)
{
#pragma GCC unroll 8
    for (int i = n - 1; i >= 0; i--)
        if (x[i] != m[i]) return x[i] > m[i];
    return true;
}

/* (f, g) <- T (f, g) / 2^62; the low 62 bits of both sums are zero. */
static inline void s62_update_fg(int64_t *f, int64_t *g, const s62_matrix *t, int n)
{
    i128 cf = (i128)t->u * f[0] + (i128)t->v * g[0];
    i128 cg = (i128)t->q * f[0] + (i128)t->r * g[0];
    cf >>= 62, cg >>= 62;
#pragma GCC unroll 8
    for (int i = 1; i < n; i++) {
        cf += (i128)t->u * f[i] + (i128)t->v * g[i];
        cg += (i128)t->q * f[i] + (i128)t->r * g[i];
        f[i - 1] = (int64_t)cf & (int64_t)S62_MASK;
        g[i - 1] = (int64_t)cg & (int64_t)S62_MASK;
        cf >>= 62, cg >>= 62;
    }
    f[n - 1] = (int64_t)cf, g[n - 1] = (int64_t)cg;
}

/*
 * x <- (c + k m) / 2^62 back in [0, m), where c = tu d + tv e and the
 * caller has formed its low limb (the full sums run limb by limb here).
 */
static inline void s62_finish_de(int64_t *x, i128 c, int64_t tu, int64_t tv, const int64_t *d,
                                 const int64_t *e, uint64_t k, const int64_t *m, int n)
{
    c += (i128)k * m[0];
    c >>= 62;
#pragma GCC unroll 8
    for (int i = 1; i < n; i++) {
        c += (i128)tu * d[i] + (i128)tv * e[i] + (i128)k * m[i];
        x[i - 1] = (int64_t)c & (int64_t)S62_MASK;
        c >>= 62;
    }
    x[n - 1] = (int64_t)c;
    if (x[n - 1] < 0)
        s62_add_signed(x, m, 1, n);
    else if (s62_geq(x, m, n))
        s62_add_signed(x, m, -1, n);
}

/* (d, e) <- T (d, e) / 2^62 mod m, with mneg = -m^-1 mod 2^64. */
static inline void s62_update_de(int64_t *d, int64_t *e, const s62_matrix *t, const int64_t *m,
                                 uint64_t mneg, int n)
{
    int64_t d_in[S62_MAX], e_in[S62_MAX];
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) d_in[i] = d[i], e_in[i] = e[i];
    i128 cd = (i128)t->u * d[0] + (i128)t->v * e[0];
    i128 ce = (i128)t->q * d[0] + (i128)t->r * e[0];
    /* k = -c / m mod 2^62 makes c + k m divisible by 2^62. */
    uint64_t kd = ((uint64_t)cd * mneg) & S62_MASK;
    uint64_t ke = ((uint64_t)ce * mneg) & S62_MASK;
    s62_finish_de(d, cd, t->u, t->v, d_in, e_in, kd, m, n);
    s62_finish_de(e, ce, t->q, t->r, d_in, e_in, ke, m, n);
}

/*
 * out = x^-1 mod m for 0 < x < m, m odd and prime; nw 64-bit limbs, n
 * signed-62 limbs (62 n > 64 nw + 2), mneg = -m^-1 mod 2^64.
 */
static inline void s62_inverse(uint64_t *out, const uint64_t *x, const uint64_t *m64, uint64_t mneg,
                               int nw, int n)
{
    int64_t f[S62_MAX], g[S62_MAX], d[S62_MAX] = {0}, e[S62_MAX] = {1}, m[S62_MAX];
    s62_from_u64(m, m64, nw, n);
    s62_from_u64(g, x, nw, n);
#pragma GCC unroll 8
    for (int i = 0; i < n; i++) f[i] = m[i];
    int64_t eta = -1;
    while (!s62_is_zero(g, n)) {
        s62_matrix t;
        eta = s62_divsteps(eta, (uint64_t)f[0], (uint64_t)g[0], &t);
        s62_update_fg(f, g, &t, n);
        s62_update_de(d, e, &t, m, mneg, n);
    }
    /* f = +-1; d is in (0, m) */
    if (f[n - 1] < 0) {
#pragma GCC unroll 8
        for (int i = 0; i < n; i++) d[i] = -d[i];
        s62_add_signed(d, m, 1, n);
    }
    s62_to_u64(out, d, nw, n);
}

#endif
