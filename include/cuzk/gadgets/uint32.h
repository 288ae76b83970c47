/*
 * uint32.h - bellpepper's UInt32: 32 Booleans read as an unsigned integer,
 * least significant bit first, with the operations SHA-256 needs.
 *
 * rotr and shr only rewire bits (shr shifts in constant zeros); xor, ch and
 * maj work bit by bit through the Boolean gadgets (so constants fold);
 * addmany allocates the bits of the full sum (33..36 bits for 2..10
 * operands) and hands the equality sum(operands) = sum(result bits) to a
 * MultiEq, keeping the low 32 bits. The value is always tracked.
 */
#ifndef CUZK_GADGETS_UINT32_H
#define CUZK_GADGETS_UINT32_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/gadgets/boolean.h"
#include "cuzk/gadgets/multieq.h"

typedef struct u32_var {
    bool_var bits[32]; /* least significant first */
    uint32_t value;
} u32_var;

void u32_const(u32_var *r, uint32_t value);
/* 32 allocated bits, least significant first. */
void u32_alloc(cs_t *cs, u32_var *r, uint32_t value);
/* bits[0] is the most significant bit. */
void u32_from_bits_be(u32_var *r, const bool_var bits[32]);
void u32_into_bits_be(bool_var out[32], const u32_var *a);
/* bits[0] is the least significant bit. */
void u32_from_bits(u32_var *r, const bool_var bits[32]);
void u32_into_bits(bool_var out[32], const u32_var *a);

/* Pure rewiring; r may alias a. */
void u32_rotr(u32_var *r, const u32_var *a, unsigned by);
void u32_shr(u32_var *r, const u32_var *a, unsigned by);

/* Bitwise through Boolean::xor / sha256_ch / sha256_maj; r may alias inputs. */
void u32_xor(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b);
void u32_sha256_ch(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b, const u32_var *c);
void u32_sha256_maj(cs_t *cs, u32_var *r, const u32_var *a, const u32_var *b, const u32_var *c);

/* Modular sum of n (2..10) operands; a constant when all are constants.
 * Allocates through me->cs. r may alias an operand. */
#define U32_ADDMANY_MAX 10
void u32_addmany(multieq *me, u32_var *r, const u32_var *ops, size_t n);

#endif
