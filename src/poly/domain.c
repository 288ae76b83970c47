/*
 * domain.c - NTT domains over Fr: the roots of unity, 1/n, the coset shift
 * and the twiddle tables ntt.c reads.
 *
 * Every root is a power of ROOT_OF_UNITY, a primitive 2^32-th root (r - 1 =
 * 2^32 t, t odd), so the roots of all domain sizes agree: the 2^k-th root is
 * ROOT_OF_UNITY^(2^(32-k)) and its square is the 2^(k-1)-th root. The tables
 * are small (2^14 entries at most for 2^28 points): radix-2 stage twiddles
 * for the in-cache blocks, and for the four-step shape the powers of omega
 * that seed each column's twiddles, plus a bit-reversal table over a column.
 */
#include "poly/ntt_internal.h"

#include <stdlib.h>

/* ROOT_OF_UNITY = 7^((r-1)/2^32), canonical little-endian limbs
 * (0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b,
 * reference/groth16.md). */
static const uint64_t ROOT_OF_UNITY[FR_LIMBS] = {0x3829971f439f0d2b, 0xb63683508c2280b9,
                                                 0xd09b681922c813b4, 0x16a2a19edfe81f20};
#define TWO_ADICITY 32
#define COSET_SHIFT 7 /* the multiplicative generator of Fr */

/* roots[k] = the primitive 2^k-th root of unity (inverted when inv), k <= 32. */
static void roots_of_unity(fr_t roots[TWO_ADICITY + 1], int inv)
{
    fr_from_canonical(&roots[TWO_ADICITY], ROOT_OF_UNITY);
    if (inv) fr_inv(&roots[TWO_ADICITY], &roots[TWO_ADICITY]);
    for (int k = TWO_ADICITY; k > 0; k--) fr_sqr(&roots[k - 1], &roots[k]);
}

/* out[i] = base^i for i < count. */
static void powers(fr_t *out, const fr_t *base, size_t count)
{
    fr_t cur = FR_ONE;
    for (size_t i = 0; i < count; i++) {
        out[i] = cur;
        fr_mul(&cur, &cur, base);
    }
}

static void fill_stage(fr_t *stage, unsigned max_log, const fr_t roots[TWO_ADICITY + 1])
{
    stage[0] = FR_ONE;
    for (unsigned s = 0; s < max_log; s++) /* h = 2^s, w_2h = roots[s + 1] */
        powers(stage + ((size_t)1 << s), &roots[s + 1], (size_t)1 << s);
}

static int alloc_tables(struct ntt_tables *t)
{
    unsigned max_log = t->log_row > t->log_col ? t->log_row : t->log_col;
    size_t n1 = (size_t)1 << t->log_row, n2 = (size_t)1 << t->log_col;
    for (int dir = 0; dir < 2; dir++) {
        t->stage[dir] = malloc(((size_t)1 << max_log) * sizeof(fr_t));
        if (!t->stage[dir]) return -1;
        if (t->log_col == 0) continue;
        t->col_root[dir] = malloc(n1 * sizeof(fr_t));
        if (!t->col_root[dir]) return -1;
    }
    if (t->log_col && !(t->brev_col = malloc(n2 * sizeof(uint32_t)))) return -1;
    return 0;
}

static void free_tables(struct ntt_tables *t)
{
    if (!t) return;
    for (int dir = 0; dir < 2; dir++) {
        free(t->stage[dir]);
        free(t->col_root[dir]);
    }
    free(t->brev_col);
    free(t);
}

static void fill_tables(struct ntt_tables *t, const ntt_domain *d)
{
    unsigned max_log = t->log_row > t->log_col ? t->log_row : t->log_col;
    for (int dir = 0; dir < 2; dir++) {
        fr_t roots[TWO_ADICITY + 1];
        roots_of_unity(roots, dir == NTT_INV);
        fill_stage(t->stage[dir], max_log, roots);
        if (t->log_col)
            powers(t->col_root[dir], dir == NTT_INV ? &d->omega_inv : &d->omega,
                   (size_t)1 << t->log_row);
    }
    for (uint32_t i = 0; t->log_col && i < ((uint32_t)1 << t->log_col); i++)
        t->brev_col[i] = ntt_brev(i, t->log_col);
}

static void domain_constants(ntt_domain *d, unsigned log_n)
{
    fr_t roots[TWO_ADICITY + 1], one = FR_ONE, gn;
    roots_of_unity(roots, 0);
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    d->omega = roots[log_n];
    fr_inv(&d->omega_inv, &d->omega);
    fr_from_u64(&d->n_inv, (uint64_t)d->n);
    fr_inv(&d->n_inv, &d->n_inv);
    fr_from_u64(&d->shift, COSET_SHIFT);
    fr_inv(&d->shift_inv, &d->shift);
    gn = d->shift; /* g^n by log_n squarings; g^n != 1 since g is a non-residue */
    for (unsigned k = 0; k < log_n; k++) fr_sqr(&gn, &gn);
    fr_sub(&gn, &gn, &one);
    fr_inv(&d->t_coset_inv, &gn);
}

int ntt_domain_init_split(ntt_domain *d, unsigned log_n, unsigned log_col, cuzk_err *err)
{
    d->tables = NULL;
    if (log_n > NTT_MAX_LOG || (log_col && log_col >= log_n))
        return cuzk_errf(err, CUZK_EINVAL, "ntt domain 2^%u (columns 2^%u): unsupported size",
                         log_n, log_col);
    struct ntt_tables *t = calloc(1, sizeof(*t));
    if (t) {
        t->log_row = log_n - log_col;
        t->log_col = log_col;
    }
    if (!t || alloc_tables(t)) {
        free_tables(t);
        return cuzk_errf(err, CUZK_ENOMEM, "ntt domain 2^%u: out of memory for twiddle tables",
                         log_n);
    }
    domain_constants(d, log_n);
    fill_tables(t, d);
    d->tables = t;
    return CUZK_OK;
}

int ntt_domain_init(ntt_domain *d, unsigned log_n, cuzk_err *err)
{
    /* One radix-2 block while the array fits in cache, else rows of
     * 2^ceil(log_n/2) and columns of 2^floor(log_n/2) (2^14 x 2^14 at most). */
    return ntt_domain_init_split(d, log_n, log_n <= NTT_BLOCK_LOG ? 0 : log_n / 2, err);
}

void ntt_domain_free(ntt_domain *d)
{
    free_tables(d->tables);
    d->tables = NULL;
}
