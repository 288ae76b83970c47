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
 *
 * On the witness backend the word operations allocate their bits in one
 * cs_alloc_bits call instead of one gadget call per bit: xor for every bit
 * pair without a constant (constants fold without allocating), ch and maj
 * when no operand bit is constant (else bit by bit), with the order and
 * values of the bit gadgets' arms (test_witness compares them).
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
    bool_alloc_bits(cs, r->bits, value, 32);
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

/* ---- bitwise operations ---- */

/* The value of the allocated bit under a non-constant Boolean. */
static bool bit_value(bool_var b)
{
    return b.value ^ (b.kind == BOOL_NOT);
}

static bool no_constant(const u32_var *a)
{
    for (int i = 0; i < 32; i++)
        if (bool_is_const(a->bits[i])) return false;
    return true;
}

/* Boolean::xor of two non-constant bits on the witness path: the bit
 * bit_xor allocates holds bit_value(a) ^ bit_value(b), viewed negated when
 * exactly one operand is (bool_xor's arms). The bits are allocated together
 * after the loop; constant operands fold without allocating. */
static void xor_counted(cs_t *cs, u32_var *t, const u32_var *a, const u32_var *b)
{
    uint64_t values = 0;
    unsigned n = 0;
    uint8_t at[32];
    for (int i = 0; i < 32; i++) {
        bool_var x = a->bits[i], y = b->bits[i];
        if (bool_is_const(x) || bool_is_const(y)) {
            t->bits[i] = bool_xor(cs, x, y);
            continue;
        }
        values |= (uint64_t)(bit_value(x) ^ bit_value(y)) << n;
        at[n++] = (uint8_t)i;
        t->bits[i] = (bool_var){0, x.kind == y.kind ? BOOL_IS : BOOL_NOT, x.value ^ y.value};
    }
    if (!n) return;
    uint32_t first = cs_alloc_bits(cs, values, n, n).index;
    for (unsigned k = 0; k < n; k++) t->bits[at[k]].var = first + k;
}

void u32_xor(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b)
{
    u32_var t;
    if (!cs_needs_constraints(cs))
        xor_counted(cs, &t, a, b);
    else
        for (int i = 0; i < 32; i++) t.bits[i] = bool_xor(cs, a->bits[i], b->bits[i]);
    t.value = a->value ^ b->value;
    *r = t;
}

/* Whether ch / maj of these words allocate as on the witness path below:
 * no operand bit is constant (bool_sha256_ch / _maj then take their
 * general arm for every bit). */
static bool counted(cs_t *cs, const u32_var *a, const u32_var *b, const u32_var *c)
{
    return !cs_needs_constraints(cs) && no_constant(a) && no_constant(b) && no_constant(c);
}

void u32_sha256_ch(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b, const u32_var *c)
{
    u32_var t;
    t.value = (a->value & b->value) ^ (~a->value & c->value);
    if (counted(cs, a, b, c)) { /* one bit per bit: ch */
        bool_alloc_bits(cs, t.bits, t.value, 32);
    } else {
        for (int i = 0; i < 32; i++)
            t.bits[i] = bool_sha256_ch(cs, a->bits[i], b->bits[i], c->bits[i]);
    }
    *r = t;
}

void u32_sha256_maj(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b, const u32_var *c)
{
    u32_var t;
    t.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    if (counted(cs, a, b, c)) {
        /* two bits per bit, two constraints: maj, then b and c (bool_and
         * of non-constant bits allocates their conjunction in every arm) */
        uint32_t bc = b->value & c->value;
        for (int half = 0; half < 2; half++) {
            uint64_t values = 0;
            for (int i = 0; i < 16; i++) {
                int j = 16 * half + i;
                values |= (uint64_t)((t.value >> j) & 1) << (2 * i);
                values |= (uint64_t)((bc >> j) & 1) << (2 * i + 1);
            }
            uint32_t first = cs_alloc_bits(cs, values, 32, 32).index;
            for (int i = 0; i < 16; i++)
                t.bits[16 * half + i] =
                    (bool_var){first + 2 * i, BOOL_IS, (uint8_t)((t.value >> (16 * half + i)) & 1)};
        }
    } else {
        for (int i = 0; i < 32; i++)
            t.bits[i] = bool_sha256_maj(cs, a->bits[i], b->bits[i], c->bits[i]);
    }
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
    unsigned nbits = 0;
    for (uint64_t max = n * (uint64_t)UINT32_MAX; max; max >>= 1) nbits++;
    bool_alloc_bits(cs, bits, sum, nbits);
    size_t shift = multieq_begin(me, nbits);
    if (!me->count_only) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < 32; j++) multieq_lhs_bool(me, ops[i].bits[j], shift + j);
        for (size_t j = 0; j < nbits; j++) multieq_rhs_bit(me, bits[j], shift + j);
    }
    memcpy(r->bits, bits, sizeof(r->bits));
    r->value = (uint32_t)sum;
}
