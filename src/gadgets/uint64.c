/*
 * uint64.c - storage-proofs-core's UInt64: bit vectors in both orders and
 * packing into one public input through bellpepper's multipack.
 */
#include "cuzk/gadgets/uint64.h"

#include <string.h>

#include "cuzk/gadgets/multipack.h"

static uint64_t value_of_bits(const bool_var bits[64])
{
    uint64_t v = 0;
    for (int i = 0; i < 64; i++) v |= (uint64_t)bits[i].value << i;
    return v;
}

void u64_const(u64_var *r, uint64_t value)
{
    for (int i = 0; i < 64; i++) r->bits[i] = bool_const((value >> i) & 1);
    r->value = value;
}

void u64_alloc(cs_t *cs, u64_var *r, uint64_t value)
{
    bool_alloc_u64_le(cs, r->bits, value);
    r->value = value;
}

void u64_from_bits_be(u64_var *r, const bool_var bits[64])
{
    for (int i = 0; i < 64; i++) r->bits[i] = bits[63 - i];
    r->value = value_of_bits(r->bits);
}

void u64_into_bits_be(bool_var out[64], const u64_var *a)
{
    for (int i = 0; i < 64; i++) out[i] = a->bits[63 - i];
}

void u64_from_bits(u64_var *r, const bool_var bits[64])
{
    memmove(r->bits, bits, sizeof(r->bits));
    r->value = value_of_bits(r->bits);
}

void u64_into_bits(bool_var out[64], const u64_var *a)
{
    memmove(out, a->bits, sizeof(a->bits));
}

void u64_pack_into_input(cs_t *cs, const u64_var *a)
{
    multipack_pack_into_inputs(cs, a->bits, 64);
}
