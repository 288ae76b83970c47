/*
 * uint64.h - storage-proofs-core's UInt64 (gadgets/uint64.rs): 64 Booleans
 * read as an unsigned integer, least significant bit first, allocated bit
 * by bit and packed into one public input (PoRep and PoSt expose their
 * challenges this way).
 */
#ifndef CUZK_GADGETS_UINT64_H
#define CUZK_GADGETS_UINT64_H

#include <stdint.h>

#include "cuzk/gadgets/boolean.h"

typedef struct u64_var {
    bool_var bits[64]; /* least significant first */
    uint64_t value;
} u64_var;

void u64_const(u64_var *r, uint64_t value);
/* 64 allocated bits, least significant first (64 constraints). */
void u64_alloc(cs_t *cs, u64_var *r, uint64_t value);
/* bits[0] is the most significant bit. */
void u64_from_bits_be(u64_var *r, const bool_var bits[64]);
void u64_into_bits_be(bool_var out[64], const u64_var *a);
/* bits[0] is the least significant bit. */
void u64_from_bits(u64_var *r, const bool_var bits[64]);
void u64_into_bits(bool_var out[64], const u64_var *a);
/* pack_into_input: one new input, (sum 2^i bit_i) * ONE = input. */
void u64_pack_into_input(cs_t *cs, const u64_var *a);

#endif
