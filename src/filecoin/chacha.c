/*
 * chacha.c - ChaCha block function and a word stream over it (chacha.h).
 *
 * The state is the djb layout rand_chacha uses: "expand 32-byte k", the
 * key, a 64-bit block counter and a 64-bit stream id. A double round is a
 * column round then a diagonal round; the output adds the input state.
 */
#include "filecoin/chacha.h"

#include <string.h>

/* "expand 32-byte k" as four little-endian words. */
static const uint32_t CHACHA_SIGMA[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

static inline uint32_t rotl32(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

#define QR(a, b, c, d)                                                                             \
    do {                                                                                           \
        a += b;                                                                                    \
        d = rotl32(d ^ a, 16);                                                                     \
        c += d;                                                                                    \
        b = rotl32(b ^ c, 12);                                                                     \
        a += b;                                                                                    \
        d = rotl32(d ^ a, 8);                                                                      \
        c += d;                                                                                    \
        b = rotl32(b ^ c, 7);                                                                      \
    } while (0)

void fc_chacha_block(uint32_t out[16], const uint32_t key[8], uint64_t counter, uint64_t stream,
                     unsigned rounds)
{
    uint32_t in[16], x[16];
    memcpy(in, CHACHA_SIGMA, sizeof CHACHA_SIGMA);
    memcpy(in + 4, key, 8 * sizeof(uint32_t));
    in[12] = (uint32_t)counter;
    in[13] = (uint32_t)(counter >> 32);
    in[14] = (uint32_t)stream;
    in[15] = (uint32_t)(stream >> 32);
    memcpy(x, in, sizeof x);
    for (unsigned r = 0; r < rounds; r += 2) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) out[i] = x[i] + in[i];
}

void fc_chacha_init(fc_chacha *c, const uint8_t seed[32], unsigned rounds)
{
    for (int i = 0; i < 8; i++)
        c->key[i] = (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 |
                    (uint32_t)seed[4 * i + 2] << 16 | (uint32_t)seed[4 * i + 3] << 24;
    c->counter = 0;
    c->stream = 0;
    c->rounds = rounds;
    c->pos = 16;
}

uint32_t fc_chacha_u32(fc_chacha *c)
{
    if (c->pos == 16) {
        fc_chacha_block(c->buf, c->key, c->counter++, c->stream, c->rounds);
        c->pos = 0;
    }
    return c->buf[c->pos++];
}

uint64_t fc_chacha_u64(fc_chacha *c)
{
    /* rand_chacha buffers 4 blocks (64 words); a u64 straddling the end of
     * the buffer takes the last word, then the first of the next buffer,
     * which is the same word order as reading the stream word by word. */
    uint64_t lo = fc_chacha_u32(c);
    uint64_t hi = fc_chacha_u32(c);
    return lo | hi << 32;
}
