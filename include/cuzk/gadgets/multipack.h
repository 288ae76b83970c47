/*
 * multipack.h - bellpepper's multipack: bits packed little-endian into
 * field elements of at most 254 bits (Fr's capacity), natively and as
 * public inputs, and bytes unpacked into bits.
 */
#ifndef CUZK_GADGETS_MULTIPACK_H
#define CUZK_GADGETS_MULTIPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/gadgets/boolean.h"
#include "cuzk/gadgets/multieq.h"
#include "cuzk/gadgets/num.h"

/* Field elements needed for nbits bits. */
#define MULTIPACK_LEN(nbits) (((nbits) + FR_CAPACITY - 1) / FR_CAPACITY)

/* bytes_to_bits: each byte most significant bit first (8 n bits). */
void multipack_bytes_to_bits(bool *out, const uint8_t *bytes, size_t n);
/* bytes_to_bits_le: each byte least significant bit first. */
void multipack_bytes_to_bits_le(bool *out, const uint8_t *bytes, size_t n);
/* compute_multipacking: out[i] = sum_j 2^j bits[254 i + j]; returns the
 * number of elements, MULTIPACK_LEN(nbits). */
size_t multipack_compute(fr_t *out, const bool *bits, size_t nbits);
/* pack_into_inputs: per 254-bit chunk a new input with
 * (sum 2^j bit_j) * ONE = input. */
void multipack_pack_into_inputs(cs_t *cs, const bool_var *bits, size_t nbits);
/* pack_bits: the first (up to) 254 bits packed into a new aux number. */
num_var multipack_pack_bits(cs_t *cs, const bool_var *bits, size_t nbits);

#endif
