/*
 * round_constants.c - Poseidon's round numbers and round constants, as
 * neptune v11 derives them (round_numbers.rs, round_constants.rs).
 *
 * Round numbers: the smallest-cost (t RF + RP) pair satisfying the paper's
 * security inequalities for a 256-bit prime and 128-bit security, with
 * neptune's margin (RF + 2, RP * 1.075 rounded up). The arithmetic is f32,
 * as in neptune, so the rounding at the boundaries is the same.
 *
 * Round constants: the Grain LFSR of the Poseidon paper. The 80-bit state
 * starts as field = 1 (2 bits), S-box = 1 (x^5, 4 bits), n = 255 (12), t
 * (12), RF (10), RP (10), then 30 ones, each field most significant bit
 * first; b[i+80] = b[i+62] ^ b[i+51] ^ b[i+38] ^ b[i+23] ^ b[i+13] ^ b[i];
 * the first 160 bits are discarded; output bits are self-shrunk (pairs:
 * when the first bit is 1 the second is output, else both are dropped).
 * Each candidate is 255 output bits read as a big-endian integer (7 bits
 * then 31 bytes), rejected when >= r.
 */
#include "cuzk/poseidon.h"

#include <math.h>
#include <stdint.h>

/* ---- round numbers ---- */

#define PRIME_BITLEN  256 /* neptune rounds the 255-bit field up */
#define SECURITY_BITS 128

static bool rounds_are_secure(unsigned t, unsigned rf, unsigned rp)
{
    float frp = (float)rp, ft = (float)t, n = PRIME_BITLEN, m = SECURITY_BITS;
    float rf_stat = m <= (n - 3.0f) * (ft + 1.0f) ? 6.0f : 10.0f;
    float rf_interp = 0.43f * m + log2f(ft) - frp;
    float rf_grob_1 = 0.21f * n - frp;
    float rf_grob_2 = (0.14f * n - 1.0f - frp) / (ft - 1.0f);
    float bounds[4] = {rf_stat, rf_interp, rf_grob_1, rf_grob_2};
    long rf_max = 0;
    for (int i = 0; i < 4; i++) {
        /* Rust's `f32 as usize` saturates negative values to 0. */
        float c = ceilf(bounds[i]);
        long v = c > 0 ? (long)c : 0;
        if (v > rf_max) rf_max = v;
    }
    return (long)rf >= rf_max;
}

/* neptune's calc_round_numbers(t, security_margin = true). */
static void calc_round_numbers(unsigned t, unsigned *rf_out, unsigned *rp_out)
{
    unsigned rf = 0, rp = 0;
    unsigned long best = (unsigned long)-1;
    for (unsigned rf_test = 2; rf_test <= 1000; rf_test += 2)
        for (unsigned rp_test = 4; rp_test < 200; rp_test++) {
            if (!rounds_are_secure(t, rf_test, rp_test)) continue;
            unsigned rf_m = rf_test + 2;
            unsigned rp_m = (unsigned)ceilf(1.075f * (float)rp_test);
            unsigned long cost = (unsigned long)t * rf_m + rp_m;
            if (cost < best || (cost == best && rf_m < rf)) {
                rf = rf_m;
                rp = rp_m;
                best = cost;
            }
        }
    *rf_out = rf;
    *rp_out = rp;
}

int poseidon_round_numbers(unsigned width, int strength, unsigned *rf, unsigned *rp)
{
    if (width < 2 || width > POSEIDON_MAX_WIDTH) return CUZK_EINVAL;
    if (strength != POSEIDON_STANDARD && strength != POSEIDON_STRENGTHENED) return CUZK_EINVAL;
    calc_round_numbers(width, rf, rp);
    if (strength == POSEIDON_STRENGTHENED) *rp = (unsigned)ceil((double)*rp * 1.25);
    return 0;
}

/* ---- Grain LFSR ---- */

typedef struct grain {
    uint8_t bits[80]; /* ring buffer: bit i of the window is bits[(head + i) % 80] */
    unsigned head;
} grain;

static bool grain_step(grain *g)
{
    static const unsigned taps[6] = {62, 51, 38, 23, 13, 0};
    uint8_t b = 0;
    for (int k = 0; k < 6; k++) b ^= g->bits[(g->head + taps[k]) % 80];
    g->bits[g->head] = b; /* the oldest bit leaves, the new one enters last */
    g->head = (g->head + 1) % 80;
    return b;
}

/* Self-shrinking output bit. */
static bool grain_next(grain *g)
{
    while (!grain_step(g)) grain_step(g);
    return grain_step(g);
}

static void grain_push_bits(grain *g, unsigned *pos, unsigned nbits, uint64_t v)
{
    for (unsigned i = nbits; i-- > 0;) g->bits[(*pos)++] = (v >> i) & 1;
}

static void grain_init(grain *g, unsigned width, unsigned rf, unsigned rp)
{
    unsigned pos = 0;
    grain_push_bits(g, &pos, 2, 1);    /* field: GF(p) */
    grain_push_bits(g, &pos, 4, 1);    /* S-box: x^5 */
    grain_push_bits(g, &pos, 12, 255); /* field size n */
    grain_push_bits(g, &pos, 12, width);
    grain_push_bits(g, &pos, 10, rf);
    grain_push_bits(g, &pos, 10, rp);
    grain_push_bits(g, &pos, 30, (1u << 30) - 1);
    g->head = 0;
    for (int i = 0; i < 160; i++) grain_step(g);
}

static uint8_t grain_byte(grain *g, unsigned nbits)
{
    uint8_t acc = 0;
    for (unsigned i = 0; i < nbits; i++) acc = (uint8_t)(acc << 1 | grain_next(g));
    return acc;
}

void poseidon_grain_constants(fr_t *out, size_t n, unsigned width, unsigned rf, unsigned rp)
{
    grain g;
    grain_init(&g, width, rf, rp);
    for (size_t k = 0; k < n;) {
        uint8_t be[32];
        be[0] = grain_byte(&g, 255 % 8); /* the partial byte comes first */
        for (int i = 1; i < 32; i++) be[i] = grain_byte(&g, 8);
        if (fr_from_bytes_be(&out[k], be)) k++;
    }
}
