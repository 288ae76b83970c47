/*
 * chacha.h - the ChaCha stream cipher as a random number generator, the way
 * rand_chacha's ChaCha8Rng produces it: key = 32-byte seed, 64-bit block
 * counter from 0 (state words 12, 13), 64-bit stream id 0 (words 14, 15),
 * output words in state order, a u64 taken as two consecutive words, low
 * word first. Filecoin's DRG (drgraph.rs BucketGraph) draws its parents from
 * ChaCha8Rng::from_seed and rng.gen::<u64>(), which is exactly
 * fc_chacha_u64 below.
 *
 * The round count is a parameter: 8 for ChaCha8Rng, 20 for the RFC 7539
 * cipher (used only to test this code against OpenSSL's ChaCha20).
 */
#ifndef CUZK_FILECOIN_CHACHA_H
#define CUZK_FILECOIN_CHACHA_H

#include <stdint.h>

typedef struct fc_chacha {
    uint32_t key[8];
    uint64_t counter; /* next block */
    uint64_t stream;
    unsigned rounds; /* even */
    unsigned pos;    /* next unread word of buf; 16 = empty */
    uint32_t buf[16];
} fc_chacha;

/* One 64-byte block (16 words) of the keystream at block `counter`. */
void fc_chacha_block(uint32_t out[16], const uint32_t key[8], uint64_t counter, uint64_t stream,
                     unsigned rounds);

/* A generator keyed by seed (read as 8 little-endian words), counter 0, stream 0. */
void fc_chacha_init(fc_chacha *c, const uint8_t seed[32], unsigned rounds);
uint32_t fc_chacha_u32(fc_chacha *c);
/* rand_core's next_u64 over a block buffer: low word, then high word. */
uint64_t fc_chacha_u64(fc_chacha *c);

#endif
