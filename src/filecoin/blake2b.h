/*
 * blake2b.h - unkeyed BLAKE2b-512 (RFC 7693), the round function of
 * Filecoin's Feistel permutation (storage-proofs-core crypto/feistel.rs
 * hashes 16 bytes with blake2b_simd::blake2b, 64-byte output) and, keyed
 * with a 32-byte digest, of synthetic PoRep's challenge streams. Written out
 * here because one expander parent costs about six such hashes and going
 * through OpenSSL's EVP layer per call would dominate the parent cache.
 */
#ifndef CUZK_FILECOIN_BLAKE2B_H
#define CUZK_FILECOIN_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#define FC_BLAKE2B_BYTES 64

/* BLAKE2b with an outlen-byte digest (1..64) and an optional key (keylen
 * 0..64): the keyed BLAKE2b-256 of synthetic PoRep's challenge keys. */
void fc_blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *in,
                size_t len);
void fc_blake2b_512(uint8_t out[FC_BLAKE2B_BYTES], const void *in, size_t len);
/* The first 8 digest bytes (as a little-endian word) of BLAKE2b-512 over
 * the 16-byte message w0 LE || w1 LE: the Feistel round's only use. */
uint64_t fc_blake2b_16_word0(uint64_t w0, uint64_t w1);

#endif
