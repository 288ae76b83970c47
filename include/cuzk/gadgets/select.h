/*
 * select.h - storage-proofs-core's insertion gadgets (gadgets/insertion.rs):
 * pick one of two numbers by a Boolean, select the n-th of 2^k numbers by
 * k index bits (least significant first), and insert a number into a
 * sequence at the position given by index bits, as Merkle path
 * verification does to place the current hash among its siblings.
 *
 * Costs: pick 1 constraint; select 2^k - 1; insert into 2, 4, 8 slots 2,
 * 8, 22 constraints (the hand-optimised cases); other sizes s (s - 1).
 */
#ifndef CUZK_GADGETS_SELECT_H
#define CUZK_GADGETS_SELECT_H

#include <stddef.h>

#include "cuzk/gadgets/boolean.h"
#include "cuzk/gadgets/num.h"

/* cond ? a : b, with (b - a) * cond = (b - c). */
num_var num_pick(cs_t *cs, bool_var cond, const num_var *a, const num_var *b);
/* from[n], n = 2^nbits, by path_bits (least significant first). */
num_var num_select(cs_t *cs, const num_var *from, const bool_var *path_bits, size_t nbits);
/*
 * out[2^nbits] = elements[0..2^nbits - 1) with element inserted at the
 * position given by bits (least significant first). The 8-slot case needs
 * bits[0] and bits[1] allocated and not negated (else CUZK_EINVAL).
 * Returns 0 or the cs status.
 */
int num_insert(cs_t *cs, num_var *out, const num_var *element, const bool_var *bits, size_t nbits,
               const num_var *elements);

#endif
