/*
 * ntt_internal.h - the twiddle tables behind an ntt_domain and the shape of
 * the transform (internal to src/poly; the tests use the split hook).
 *
 * A domain of n = 2^log_n points is either one in-cache block (log_col = 0:
 * a radix-2 transform over the whole array) or an n2 x n1 matrix, n1 =
 * 2^log_row the row length and n2 = 2^log_col the column length, transformed
 * by the four-step method of ntt.c: columns, twiddles, rows.
 */
#ifndef CUZK_POLY_NTT_INTERNAL_H
#define CUZK_POLY_NTT_INTERNAL_H

#include <stdint.h>

#include "cuzk/ntt.h"

/* Largest array transformed in one radix-2 block: 2^12 x 32 B = 128 KiB,
 * well inside the 2 MiB L2 of the 2-core Xeon this was tuned on. */
#define NTT_BLOCK_LOG 12

enum { NTT_FWD = 0, NTT_INV = 1 };

struct ntt_tables {
    unsigned log_row, log_col; /* log_row + log_col = log_n */
    /* stage[dir][h + j] = w_2h^j for h = 1, 2, 4, .. < 2^max(log_row, log_col)
     * and 0 <= j < h, where w_2h is the primitive 2h-th root of unity of the
     * domain family (inverted for NTT_INV); entry 0 is unused. */
    fr_t *stage[2];
    /* col_root[dir][c] = omega^c (omega^-c for NTT_INV), c < n1; four-step only. */
    fr_t *col_root[2];
    /* brev_col[i] = i bit-reversed over log_col bits, i < n2; four-step only. */
    uint32_t *brev_col;
};

/* ntt_domain_init with an explicit shape: log_col = 0 for one radix-2 block,
 * otherwise 1 <= log_col < log_n column bits. */
int ntt_domain_init_split(ntt_domain *d, unsigned log_n, unsigned log_col, cuzk_err *err);

/*
 * The transform behind the ntt_* entry points: direction dir (NTT_FWD
 * uses omega, NTT_INV omega^-1, without the 1/n), orders in -> out, and
 * optional scalings (NULL = 1): every output is multiplied by u, input
 * index j by beta_in^j and output index j by beta_out^j.
 */
int ntt_transform(const ntt_domain *d, fr_t *x, int dir, ntt_order in, ntt_order out, const fr_t *u,
                  const fr_t *beta_in, const fr_t *beta_out, cuzk_err *err);

/* x bit-reversed over bits bits (bits <= 32). */
static inline uint32_t ntt_brev(uint32_t x, unsigned bits)
{
    if (bits == 0) return 0;
    x = (x >> 16) | (x << 16);
    x = ((x & 0xff00ff00u) >> 8) | ((x & 0x00ff00ffu) << 8);
    x = ((x & 0xf0f0f0f0u) >> 4) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x & 0xccccccccu) >> 2) | ((x & 0x33333333u) << 2);
    x = ((x & 0xaaaaaaaau) >> 1) | ((x & 0x55555555u) << 1);
    return x >> (32 - bits);
}

#endif
