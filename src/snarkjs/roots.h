/*
 * roots.h - snarkjs' roots of unity against ours (internal).
 *
 * ffjavascript takes its 2^32-th root of unity from 5 (the first
 * non-residue), we and bellperson from 7. For a domain of 2^log_n points,
 * omega7 = omega5^K for one odd K, so snarkjs' point omega5^j is our
 * omega7^(j K^-1 mod n): snarkjs_root_map gives that K^-1.
 */
#ifndef CUZK_SNARKJS_ROOTS_H
#define CUZK_SNARKJS_ROOTS_H

#include <stddef.h>
#include <stdint.h>

/* K^-1 mod 2^log_n (1 <= log_n <= 32). */
uint64_t snarkjs_root_map(unsigned log_n);
/* The smallest l with 2^l >= n. */
unsigned snarkjs_log2(size_t n);

#endif
