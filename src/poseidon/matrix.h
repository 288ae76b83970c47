/*
 * matrix.h - the small dense matrix algebra over Fr that Poseidon's
 * preprocessing needs (neptune's matrix.rs): square matrices of side n,
 * row-major (m[i * n + j] is row i, column j), at most POSEIDON_MAX_WIDTH.
 * Internal to src/poseidon.
 */
#ifndef CUZK_POSEIDON_MATRIX_H
#define CUZK_POSEIDON_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/fr.h"

/* out = a b (out may not alias a or b). */
void pmat_mul(fr_t *out, const fr_t *a, const fr_t *b, size_t n);
/* out = a^-1 by Gauss-Jordan elimination; false when a is singular. out may
 * not alias a. Allocates n * n scratch elements; false also on ENOMEM
 * (*oom set). */
bool pmat_invert(fr_t *out, const fr_t *a, size_t n, bool *oom);
/* neptune's apply_matrix, the row vector times m: out[j] = sum_i m[i][j] v[i]
 * (out may not alias v). */
void pmat_apply(fr_t *out, const fr_t *m, const fr_t *v, size_t n);
/* The (n-1) x (n-1) minor without row 0 and column 0. */
void pmat_minor00(fr_t *out, const fr_t *a, size_t n);

#endif
