/*
 * num.h - bellpepper's AllocatedNum (one field element in one variable) and
 * the equality / sum / difference helpers of storage-proofs-core's
 * gadgets/constraint.rs, constraint for constraint.
 *
 * A num_var may be an aux or an input variable. Value pointers may be NULL
 * when the backend does not read values (cs_needs_values() false); the
 * tracked value is then zero and derived values are meaningless but never
 * read.
 */
#ifndef CUZK_GADGETS_NUM_H
#define CUZK_GADGETS_NUM_H

#include "cuzk/gadgets/boolean.h"
#include "cuzk/r1cs.h"

typedef struct num_var {
    cs_var var;
    fr_t value;
} num_var;

num_var num_alloc(cs_t *cs, const fr_t *value);
num_var num_alloc_input(cs_t *cs, const fr_t *value);
/* A new input equal to a: input * ONE = a. */
void num_inputize(cs_t *cs, const num_var *a);
/* (a + b) * ONE = sum, a * b = ab, a * a = aa (the result allocated first). */
num_var num_add(cs_t *cs, const num_var *a, const num_var *b);
num_var num_mul(cs_t *cs, const num_var *a, const num_var *b);
num_var num_square(cs_t *cs, const num_var *a);
/* a * inv = ONE with an allocated inverse; fails (CUZK_EINVAL) on a zero value. */
int num_assert_nonzero(cs_t *cs, const num_var *a);
/* (c, d) = cond ? (b, a) : (a, b); two results, two constraints. */
void num_conditionally_reverse(cs_t *cs, num_var *c, num_var *d, const num_var *a, const num_var *b,
                               bool_var cond);
/* 255 allocated bits, least significant first, packed back onto a
 * (0 * 0 = sum 2^i bit_i - a); the strict form also proves the bits are
 * below r (bellpepper's runs-of-ones comparison with r - 1). */
void num_to_bits_le(cs_t *cs, bool_var out[FR_NUM_BITS], const num_var *a);
void num_to_bits_le_strict(cs_t *cs, bool_var out[FR_NUM_BITS], const num_var *a);

/* constraint.rs: a * ONE = b; (a + b) * ONE = sum; (diff + b) * ONE = a. */
void num_enforce_equal(cs_t *cs, const num_var *a, const num_var *b);
void num_enforce_sum(cs_t *cs, const num_var *a, const num_var *b, const num_var *sum);
void num_enforce_difference(cs_t *cs, const num_var *a, const num_var *b, const num_var *diff);
/* constraint.rs sub: a new a - b with the difference constraint. */
num_var num_sub(cs_t *cs, const num_var *a, const num_var *b);

#endif
