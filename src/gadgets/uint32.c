/*
 * uint32.c - bellpepper's UInt32 gadget.
 *
 * addmany follows bellpepper step for step: the operands' bits (2^j per
 * bit j, constants and negations folded into ONE) form the sum; unless all
 * bits are constants, one allocated bit per bit of n * (2^32 - 1) holds the
 * full sum, and only then is the equality given to the MultiEq, which may
 * emit its pending batch at that point. The carry bits stay allocated and
 * constrained but are dropped from the result. When the MultiEq only
 * counts (the witness backend) the sum's terms are not handed to it.
 */
#include "cuzk/gadgets/uint32.h"

#include <string.h>

static uint32_t value_of_bits(const bool_var bits[32])
{
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) v |= (uint32_t)bits[i].value << i;
    return v;
}

void u32_const(u32_var *r, uint32_t value)
{
    for (int i = 0; i < 32; i++) r->bits[i] = bool_const((value >> i) & 1);
    r->value = value;
}

void u32_alloc(cs_t *cs, u32_var *r, uint32_t value)
{
    for (int i = 0; i < 32; i++) r->bits[i] = bit_alloc(cs, (value >> i) & 1);
    r->value = value;
}

void u32_from_bits_be(u32_var *r, const bool_var bits[32])
{
    for (int i = 0; i < 32; i++) r->bits[i] = bits[31 - i];
    r->value = value_of_bits(r->bits);
}

void u32_into_bits_be(bool_var out[32], const u32_var *a)
{
    for (int i = 0; i < 32; i++) out[i] = a->bits[31 - i];
}

void u32_from_bits(u32_var *r, const bool_var bits[32])
{
    memmove(r->bits, bits, sizeof(r->bits));
    r->value = value_of_bits(r->bits);
}

void u32_into_bits(bool_var out[32], const u32_var *a)
{
    memmove(out, a->bits, sizeof(a->bits));
}

void u32_rotr(u32_var *r, const u32_var *a, unsigned by)
{
    u32_var t;
    by %= 32;
    for (unsigned i = 0; i < 32; i++) t.bits[i] = a->bits[(i + by) % 32];
    t.value = by ? a->value >> by | a->value << (32 - by) : a->value;
    *r = t;
}

void u32_shr(u32_var *r, const u32_var *a, unsigned by)
{
    u32_var t;
    by %= 32;
    for (unsigned i = 0; i < 32; i++) t.bits[i] = i + by < 32 ? a->bits[i + by] : bool_const(0);
    t.value = a->value >> by;
    *r = t;
}

void u32_xor(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b)
{
    u32_var t;
    for (int i = 0; i < 32; i++) t.bits[i] = bool_xor(cs, a->bits[i], b->bits[i]);
    t.value = a->value ^ b->value;
    *r = t;
}

void u32_sha256_ch(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b, const u32_var *c)
{
    u32_var t;
    for (int i = 0; i < 32; i++) t.bits[i] = bool_sha256_ch(cs, a->bits[i], b->bits[i], c->bits[i]);
    t.value = (a->value & b->value) ^ (~a->value & c->value);
    *r = t;
}

void u32_sha256_maj(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b, const u32_var *c)
{
    u32_var t;
    for (int i = 0; i < 32; i++)
        t.bits[i] = bool_sha256_maj(cs, a->bits[i], b->bits[i], c->bits[i]);
    t.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    *r = t;
}

static bool all_constant(const u32_var *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 32; j++)
            if (!bool_is_const(ops[i].bits[j])) return false;
    return true;
}

void u32_addmany(multieq *me, u32_var *r, const u32_var *ops, size_t n)
{
    cs_t *cs = me->cs;
    if (n < 2 || n > U32_ADDMANY_MAX) {
        cs_fail(cs, CUZK_EINVAL, "uint32 addmany: %zu operands (2..%d)", n, U32_ADDMANY_MAX);
        return;
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += ops[i].value;
    if (all_constant(ops, n)) {
        u32_const(r, (uint32_t)sum);
        return;
    }
    bool_var bits[36]; /* bit length of 10 * (2^32 - 1) */
    size_t nbits = 0;
    for (uint64_t max = n * (uint64_t)UINT32_MAX; max; max >>= 1, nbits++)
        bits[nbits] = bit_alloc(cs, (sum >> nbits) & 1);
    size_t shift = multieq_begin(me, nbits);
    if (!me->count_only) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < 32; j++) multieq_lhs_bool(me, ops[i].bits[j], shift + j);
        for (size_t j = 0; j < nbits; j++) multieq_rhs_bit(me, bits[j], shift + j);
    }
    memcpy(r->bits, bits, sizeof(r->bits));
    r->value = (uint32_t)sum;
}
