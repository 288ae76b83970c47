/*
 * shape.h - the layout of a recorded circuit shape (cs_shape, r1cs.h), for
 * shape.c and for the GPU code that uploads it and evaluates it there
 * (src/gpu/prove/shape_*.cu). Plain C: the device copy uses the same
 * structs with device pointers.
 *
 * Each of A, B and C is a compressed-row matrix over the columns [inputs ||
 * aux] (input i is column i, aux j is num_inputs + j), entries of a row in
 * the order of its linear combination's terms, zero coefficients left out:
 * - an entry is a u32 column (bit 31 set: the coefficient is negative) and
 *   a u8 code: k <= 254 for a coefficient of magnitude 2^k (1, 2, the 2^k
 *   of bit packing and MultiEq), SHAPE_ESC for any other value (Poseidon's
 *   constants, merged constant terms), which then sits in the shape's table
 *   of distinct values: the escaped entries of a matrix, in entry order,
 *   have their table indexes in esc_val, and esc_start[b] counts those
 *   before row block b; five bytes an entry, four more for an escaped one;
 * - rows are grouped in blocks of SHAPE_BLOCK: start[b] is the position of
 *   block b's first entry (u64, so a matrix may hold any number of
 *   entries) and len[r] the entries of row r (u16: a row of more than
 *   SHAPE_MAX_LEN non-zero terms is refused when recording). A row's start
 *   is its block's start plus the lengths before it in the block, and its
 *   first escape index likewise: a warp gets them by prefix sums over its
 *   32 rows, a CPU loop by adding up.
 */
#ifndef CUZK_R1CS_SHAPE_H
#define CUZK_R1CS_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/fr.h"

#define SHAPE_BLOCK   32
#define SHAPE_MAX_LEN 65535
#define SHAPE_NEG     ((uint32_t)1 << 31) /* column bit: negative coefficient */
#define SHAPE_COL     (SHAPE_NEG - 1)     /* the column bits of an entry */
#define SHAPE_POWS    255                 /* codes 0 .. 254: 2^0 .. 2^254 (< r) */
#define SHAPE_ESC     255                 /* code of a coefficient from vals */

typedef struct shape_matrix {
    size_t nnz, n_esc;
    uint64_t *start;     /* blocks + 1 entries: start[blocks] = nnz */
    uint16_t *len;       /* one per row */
    uint32_t *col;       /* nnz: column | SHAPE_NEG when negative */
    uint8_t *code;       /* nnz */
    uint64_t *esc_start; /* blocks + 1: escaped entries before each block */
    uint32_t *esc_val;   /* n_esc, in entry order: indexes into vals */
} shape_matrix;

struct cs_shape {
    size_t num_constraints, num_inputs, num_aux;
    shape_matrix m[3]; /* A, B, C */
    fr_t *vals;        /* the distinct escaped coefficients */
    size_t n_vals;
    fr_t pow2[SHAPE_POWS]; /* 2^k in Montgomery form */
    /* the density bitmaps of cs_prover, (num_aux + 63) / 64 words etc. */
    uint64_t *a_aux, *b_input, *b_aux;
    size_t bytes; /* host memory of all the above */
    uint8_t fingerprint[32];
};

static inline size_t shape_blocks(size_t rows)
{
    return (rows + SHAPE_BLOCK - 1) / SHAPE_BLOCK;
}

#endif
