/*
 * boolean.h - bellpepper's Boolean and AllocatedBit gadgets, allocation for
 * allocation and constraint for constraint.
 *
 * A bool_var is a constant, an allocated bit (aux variable constrained to
 * 0/1), or the negation of one. Negation is free (it flips the view), and
 * the Boolean operations fold constants exactly where bellpepper does, so
 * the R1CS (variables, constraints, their order and coefficients) equals
 * the one rust-fil-proofs builds. The bit_* functions are AllocatedBit's
 * operations: they take two allocated bits (kind BOOL_IS) and always
 * allocate one result bit and one constraint.
 *
 * Values are always computed (a bit operation is cheaper than a branch on
 * the backend); backends that do not read values ignore them. Misuse (an
 * operand of the wrong kind, contradicting constants) fails the cs with
 * CUZK_EINVAL, like the panics and Unsatisfiable errors of bellpepper.
 */
#ifndef CUZK_GADGETS_BOOLEAN_H
#define CUZK_GADGETS_BOOLEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/r1cs.h"

enum bool_kind {
    BOOL_CONST = 0, /* Boolean::Constant */
    BOOL_IS = 1,    /* Boolean::Is(bit) */
    BOOL_NOT = 2,   /* Boolean::Not(bit) */
};

typedef struct bool_var {
    uint32_t var;  /* aux index of the allocated bit (0 for constants) */
    uint8_t kind;  /* enum bool_kind */
    uint8_t value; /* the Boolean's own value (for BOOL_NOT: not the bit's) */
} bool_var;

static inline bool_var bool_const(bool v)
{
    return (bool_var){0, BOOL_CONST, v};
}
static inline bool bool_is_const(bool_var b)
{
    return b.kind == BOOL_CONST;
}
/* Boolean::not: the negated view (no constraint). */
static inline bool_var bool_not(bool_var b)
{
    static const uint8_t flip[3] = {BOOL_CONST, BOOL_NOT, BOOL_IS};
    return (bool_var){b.var, flip[b.kind], (uint8_t)!b.value};
}
/* The variable of an allocated bit. */
static inline cs_var bool_cs_var(bool_var b)
{
    return (cs_var){b.var, CS_AUX};
}

/* -1 and 2 in Fr (Montgomery form), the coefficients of the bit gadgets. */
extern const fr_t BOOL_FR_MINUS_ONE, BOOL_FR_TWO;

/* lc += coeff * b, lc -= coeff * b (Boolean::lc: a constant true is coeff * ONE,
 * Not(x) is coeff * ONE - coeff * x). */
void bool_lc_add(cs_lc *lc, bool_var b, const fr_t *coeff);
void bool_lc_sub(cs_lc *lc, bool_var b, const fr_t *coeff);

/* ---- AllocatedBit ---- */

/* A new bit with (1 - a) * a = 0. */
bool_var bit_alloc(cs_t *cs, bool value);
/* A new bit with (1 - must_be_false - a) * a = 0 (must_be_false: BOOL_IS). */
bool_var bit_alloc_conditionally(cs_t *cs, bool value, bool_var must_be_false);
/* (2a) * b = a + b - c */
bool_var bit_xor(cs_t *cs, bool_var a, bool_var b);
/* a * b = c */
bool_var bit_and(cs_t *cs, bool_var a, bool_var b);
/* a * (1 - b) = c */
bool_var bit_and_not(cs_t *cs, bool_var a, bool_var b);
/* (1 - a) * (1 - b) = c */
bool_var bit_nor(cs_t *cs, bool_var a, bool_var b);

/* ---- Boolean ---- */

bool_var bool_xor(cs_t *cs, bool_var a, bool_var b);
bool_var bool_and(cs_t *cs, bool_var a, bool_var b);
/* not(and(not a, not b)) */
bool_var bool_or(cs_t *cs, bool_var a, bool_var b);
/* (a and b) xor ((not a) and c); one bit and one constraint unless folded. */
bool_var bool_sha256_ch(cs_t *cs, bool_var a, bool_var b, bool_var c);
/* (a and b) xor (a and c) xor (b and c); two bits and two constraints unless folded. */
bool_var bool_sha256_maj(cs_t *cs, bool_var a, bool_var b, bool_var c);
/* Boolean::enforce_equal: 0 * 0 = a - b (constants folded); 0 or the cs status. */
int bool_enforce_equal(cs_t *cs, bool_var a, bool_var b);

/* n (<= 64) allocated bits (bit_alloc each), bit i of value
 * (values >> i) & 1; on the witness backend in one cs_alloc_bits call. */
void bool_alloc_bits(cs_t *cs, bool_var *out, uint64_t values, unsigned n);
/* u64_into_boolean_vec_le: 64 allocated bits, least significant first. */
void bool_alloc_u64_le(cs_t *cs, bool_var out[64], uint64_t value);
/* field_into_allocated_bits_le: 255 allocated bits of value (NULL: zeros),
 * least significant first. */
#define FR_NUM_BITS 255
void bool_alloc_fr_le(cs_t *cs, bool_var out[FR_NUM_BITS], const fr_t *value);

/* storage-proofs-core util.rs: bytes_into_boolean_vec (each byte least
 * significant bit first) and bytes_into_boolean_vec_be (most significant
 * first): 8 n allocated bits; bytes may be NULL (values unknown). */
void bool_alloc_bytes_le(cs_t *cs, bool_var *out, const uint8_t *bytes, size_t n);
void bool_alloc_bytes_be(cs_t *cs, bool_var *out, const uint8_t *bytes, size_t n);
/* reverse_bit_numbering: pads in[0..n) with constant false to whole bytes
 * and reverses the bits within each byte; out holds the padded length,
 * which is returned. out may not alias in. */
size_t bool_reverse_bit_numbering(bool_var *out, const bool_var *in, size_t n);

#endif
