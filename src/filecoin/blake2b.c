/*
 * blake2b.c - BLAKE2b-512 without a key (blake2b.h), after RFC 7693:
 * 128-byte blocks, 12 rounds of the G mixing function over a 16-word
 * working vector, message schedule SIGMA, byte counter t and final flag f.
 */
#include "filecoin/blake2b.h"

#include <string.h>

/* The SHA-512 initial hash values (RFC 7693 section 2.6). */
static const uint64_t B2B_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

/* Message word permutations of rounds 0..9; rounds 10 and 11 reuse 0 and 1. */
static const uint8_t B2B_SIGMA[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

static inline uint64_t rotr64(uint64_t x, int n)
{
    return (x >> n) | (x << (64 - n));
}

static inline uint64_t load64_le(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#define B2B_G(a, b, c, d, x, y)                                                                    \
    do {                                                                                           \
        v[a] = v[a] + v[b] + (x);                                                                  \
        v[d] = rotr64(v[d] ^ v[a], 32);                                                            \
        v[c] = v[c] + v[d];                                                                        \
        v[b] = rotr64(v[b] ^ v[c], 24);                                                            \
        v[a] = v[a] + v[b] + (y);                                                                  \
        v[d] = rotr64(v[d] ^ v[a], 16);                                                            \
        v[c] = v[c] + v[d];                                                                        \
        v[b] = rotr64(v[b] ^ v[c], 63);                                                            \
    } while (0)

#define B2B_ROUND(r)                                                                               \
    do {                                                                                           \
        B2B_G(0, 4, 8, 12, m[B2B_SIGMA[r][0]], m[B2B_SIGMA[r][1]]);                                \
        B2B_G(1, 5, 9, 13, m[B2B_SIGMA[r][2]], m[B2B_SIGMA[r][3]]);                                \
        B2B_G(2, 6, 10, 14, m[B2B_SIGMA[r][4]], m[B2B_SIGMA[r][5]]);                               \
        B2B_G(3, 7, 11, 15, m[B2B_SIGMA[r][6]], m[B2B_SIGMA[r][7]]);                               \
        B2B_G(0, 5, 10, 15, m[B2B_SIGMA[r][8]], m[B2B_SIGMA[r][9]]);                               \
        B2B_G(1, 6, 11, 12, m[B2B_SIGMA[r][10]], m[B2B_SIGMA[r][11]]);                             \
        B2B_G(2, 7, 8, 13, m[B2B_SIGMA[r][12]], m[B2B_SIGMA[r][13]]);                              \
        B2B_G(3, 4, 9, 14, m[B2B_SIGMA[r][14]], m[B2B_SIGMA[r][15]]);                              \
    } while (0)

/* Fully unrolled, so that the schedule indexes are constants and, inlined
 * into fc_blake2b_16_word0, the zero message words fold away. */
static inline __attribute__((always_inline)) void b2b_compress(uint64_t h[8], const uint64_t m[16],
                                                               uint64_t t, int last)
{
    uint64_t v[16];
    memcpy(v, h, 8 * sizeof(uint64_t));
    memcpy(v + 8, B2B_IV, sizeof B2B_IV);
    v[12] ^= t; /* low word of the 128-bit counter; messages here stay under 2^64 bytes */
    if (last) v[14] = ~v[14];
    B2B_ROUND(0);
    B2B_ROUND(1);
    B2B_ROUND(2);
    B2B_ROUND(3);
    B2B_ROUND(4);
    B2B_ROUND(5);
    B2B_ROUND(6);
    B2B_ROUND(7);
    B2B_ROUND(8);
    B2B_ROUND(9);
    B2B_ROUND(0);
    B2B_ROUND(1);
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/* Parameter block: depth 1, fanout 1, key length, digest length. */
static void b2b_init(uint64_t h[8], size_t outlen, size_t keylen)
{
    memcpy(h, B2B_IV, 8 * sizeof(uint64_t));
    h[0] ^= 0x01010000ULL ^ (uint64_t)keylen << 8 ^ (uint64_t)outlen;
}

static void b2b_block(uint64_t h[8], const uint8_t *p, size_t len, uint64_t t, int last)
{
    uint64_t m[16] = {0};
    uint8_t block[128] = {0};
    if (len) memcpy(block, p, len);
    for (int i = 0; i < 16; i++) m[i] = load64_le(block + 8 * i);
    b2b_compress(h, m, t, last);
}

void fc_blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *in,
                size_t len)
{
    const uint8_t *p = in;
    uint64_t h[8], t = 0;
    b2b_init(h, outlen, keylen);
    if (keylen) {
        /* The key, zero-padded, is the first block; final only for an empty message. */
        t = 128;
        b2b_block(h, key, keylen, t, len == 0);
    }
    if (!keylen || len) {
        for (; len > 128; p += 128, len -= 128) b2b_block(h, p, 128, t += 128, 0);
        b2b_block(h, p, len, t + len, 1);
    }
    for (size_t i = 0; i < outlen; i++) out[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
}

void fc_blake2b_512(uint8_t out[FC_BLAKE2B_BYTES], const void *in, size_t len)
{
    fc_blake2b(out, FC_BLAKE2B_BYTES, NULL, 0, in, len);
}

uint64_t fc_blake2b_16_word0(uint64_t w0, uint64_t w1)
{
    const uint64_t m[16] = {w0, w1};
    uint64_t h[8];
    b2b_init(h, FC_BLAKE2B_BYTES, 0);
    b2b_compress(h, m, 16, 1);
    return h[0];
}
