/*
 * multieq.h - bellpepper's MultiEq: many equalities lhs_i = rhs_i, each
 * known to fit in num_bits_i bits, packed into one constraint
 * (sum 2^s_i lhs_i) * ONE = (sum 2^s_i rhs_i), where s_i is the number of
 * bits used by the earlier equalities of the batch.
 *
 * A batch is emitted (as one constraint, at that point of the constraint
 * order) when the next equality would reach the field's capacity of 254
 * bits, and once more by multieq_finish, which plays the part of
 * bellpepper's Drop at the end of each SHA-256 compression.
 *
 * UInt32::addmany goes through multieq_begin / multieq_lhs_bool /
 * multieq_rhs_bit: the terms of its sums are all +-2^k times a bit or ONE,
 * so they are kept as packed 64-bit words, sorted (they arrive in runs)
 * and merged only when the batch is emitted, with coefficients read from a
 * table of powers of two. The resulting constraint is the one bellpepper
 * builds term by term.
 *
 * On a backend that does not read constraints (cs_needs_constraints
 * false) only the batching is kept: the bits used and where a batch is
 * emitted, as one counted constraint (cs_enforce_skip); no term is stored.
 */
#ifndef CUZK_GADGETS_MULTIEQ_H
#define CUZK_GADGETS_MULTIEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/gadgets/boolean.h"
#include "cuzk/r1cs.h"

/* Scalar::CAPACITY of BLS12-381's Fr: NUM_BITS - 1 = 254. */
#define FR_CAPACITY 254

typedef struct multieq {
    cs_t *cs;
    bool count_only;  /* !cs_needs_constraints: batches counted, no terms */
    size_t bits_used; /* bits of the pending batch */
    size_t ops;       /* batches emitted so far */
    uint64_t *terms;  /* pending lhs terms: aux + 1 << 32 | k << 1 | negative */
    uint64_t *tmp;    /* sort buffer, same capacity */
    uint32_t *runs;   /* run offsets for the sort, capacity + 1 */
    size_t len, cap;
    size_t shift;     /* of the current addmany equality */
    uint64_t one_cur; /* its ONE coefficient / 2^shift */
    fr_t one_sum;     /* the pending batch's ONE coefficient */
    bool has_one;     /* whether ONE is a term of the pending lhs */
    cs_lc lhs_extra;  /* lhs terms from multieq_enforce_equal */
    cs_lc lhs, rhs;   /* lhs built at emission; rhs kept merged */
} multieq;

void multieq_init(multieq *m, cs_t *cs);
/* MultiEq::enforce_equal for arbitrary combinations (lhs, rhs < 2^num_bits). */
int multieq_enforce_equal(multieq *m, size_t num_bits, const cs_lc *lhs, const cs_lc *rhs);
/* Emits the pending batch, if any, and frees m. Returns the cs status. */
int multieq_finish(multieq *m);

/*
 * The addmany path: call multieq_begin(num_bits) when bellpepper calls
 * enforce_equal (after the result bits are allocated); it may emit the
 * pending batch and returns the shift s. Then add lhs terms 2^(s+j) * bit
 * (j < 32) and rhs terms 2^(s+j) * result_bit_j.
 */
size_t multieq_begin(multieq *m, size_t num_bits);
void multieq_lhs_bool(multieq *m, bool_var b, size_t k);
void multieq_rhs_bit(multieq *m, bool_var bit, size_t k);

/* 2^k in Fr (Montgomery form), k < 256. */
const fr_t *fr_pow2(size_t k);

#endif
