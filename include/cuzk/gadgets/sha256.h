/*
 * sha256.h - bellpepper's SHA-256 circuit (compression function, one block
 * without padding, full hash with padding) and the native hash.
 *
 * Bits are in bellpepper's order: a message is a sequence of bytes, each
 * most significant bit first; a block is 16 big-endian words; the digest
 * is 8 big-endian words (so the 256 output bits read as the usual digest
 * bytes, most significant bit first). One compression of a block whose
 * bits are all allocated costs 25,840 constraints; a padded 512-bit
 * message (2 blocks, the second all constants) 44,874.
 */
#ifndef CUZK_GADGETS_SHA256_H
#define CUZK_GADGETS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/gadgets/boolean.h"
#include "cuzk/gadgets/uint32.h"

/* The initial hash value as constants. */
void sha256_gadget_iv(u32_var iv[8]);
/* sha256_compression_function: out = compress(state, input); one MultiEq
 * per call, emitted at its end. out may alias state. */
void sha256_gadget_compress(cs_t *cs, u32_var out[8], const bool_var input[512],
                            const u32_var state[8]);
/* sha256_block_no_padding: the compression of one block from the IV. */
void sha256_gadget_block(cs_t *cs, bool_var out[256], const bool_var input[512]);
/* sha256: the padded hash of nbits (a multiple of 8) message bits; returns
 * 0 or the cs status. */
int sha256_gadget(cs_t *cs, bool_var out[256], const bool_var *input, size_t nbits);

/* The native hash (OpenSSL, SHA-NI where the CPU has it). */
void sha256_native(uint8_t out[32], const void *data, size_t len);

#endif
