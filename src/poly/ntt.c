/*
 * ntt.c - the radix-2 and four-step NTT over Fr behind ntt.h.
 *
 * Two algorithms, one the transpose of the other:
 *   DIF (decimation in frequency): natural order in, bit-reversed order out;
 *   DIT (decimation in time): bit-reversed order in, natural order out.
 * Small arrays (one block, log_col = 0) run the radix-2 loops directly. A
 * larger array of n = n1 n2 points is an n2 x n1 matrix (entry c + n1 i in
 * column c, row i) and DIF runs in two passes over memory (four-step):
 *   1. each column (stride n1) is gathered, TILE columns at a time so whole
 *      cache lines are read, transformed by a radix-2 DIF of size n2, and
 *      multiplied by the twiddles omega^(c q), where position i holds the
 *      column's output q = brev(i); then scattered back;
 *   2. each row (contiguous) gets a radix-2 DIF of size n1.
 * Position c + n1 i then holds output brev_n2(i) + n2 brev_n1(c), which is
 * exactly the bit reversal of c + n1 i over log_n bits: the whole result is
 * in bit-reversed order with no permutation. DIT does the transposed steps
 * in reverse: rows (DIT), twiddles, columns (DIT).
 *
 * Scalings ride along for free or for one multiplication per element: the
 * transform may scale the element of natural index j on the natural side by
 * u beta_n^j and the element of index j on the bit-reversed side by beta_r^j
 * (1/n, the coset powers 7^j and 7^-j). For the matrix shape, u beta_n^c and
 * beta_r^brev(i) are constant along a column or a row, commute with that
 * transform, and fold into the start and ratio of the column's twiddle
 * progression; the rest is one table multiplication per element (pn along a
 * column, qr along a row).
 *
 * Each column and row is independent, so OpenMP splits them statically over
 * the threads and the result is bit-identical for any thread count. The
 * arithmetic is fr_mul plus an inline add/sub pair (x86-64 assembly, the
 * ff/mont.h loops elsewhere). The bit reversal for the other order pairs
 * swaps 16 x 16 tiles so it reads and writes whole cache lines.
 *
 * Cost at 2^24 (2^12 x 2^12): 24 x 2^23 butterflies, of which about 1/6 need
 * no product (j = 0), plus 2 products per element for the twiddles; so about
 * one Fr product per butterfly, and two passes over memory.
 */
#include "poly/ntt_internal.h"

#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ff/mont.h"

/* Columns gathered at once: 8 x 32 B = 256 B, four full cache lines per row. */
#define TILE 8
/* Smaller transforms (under a millisecond) stay on the calling thread: the
 * fork and join would cost more than they save. */
#define PARALLEL_MIN ((size_t)1 << 12)

/* The transform of one call: direction and the scalings described above. */
typedef struct plan {
    const struct ntt_tables *t;
    int dir;
    fr_t u, beta_n, beta_r;
    bool scale_u, scale_n, scale_r;
    fr_t *pn; /* pn[i] = (beta_n^n1)^i, i < n2 (matrix shape, scale_n) */
    fr_t *bn; /* bn[c] = u beta_n^c, c < n1 (matrix shape, scale_n) */
    fr_t *qr; /* qr[c] = (beta_r^n2)^brev(c), c < n1 (matrix shape, scale_r) */
} plan;

#if defined(__x86_64__)
/* Fr addition and subtraction as two straight carry chains in registers.
 * The generic loops of ff/mont.h spill their 128-bit temporaries and the
 * _addcarry_u64 intrinsics go through memory with gcc 12, which made the
 * additions of a butterfly cost as much as its multiplication. */
static const uint64_t R[4] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                              0x73eda753299d7d48}; /* r, as FR_MODULUS */

/* s = a + b, d = a - b (mod r); s and d may alias a and b. */
static inline void addsub_fr(fr_t *s, fr_t *d, const fr_t *a, const fr_t *b)
{
    uint64_t s0 = a->l[0], s1 = a->l[1], s2 = a->l[2], s3 = a->l[3], t0, t1, t2, t3;
    uint64_t d0 = s0, d1 = s1, d2 = s2, d3 = s3, m, q0, q1, q2, q3;
    /* s = a + b (< 2r < 2^256); t = s - r; s = t unless that borrowed */
    __asm__("add %[b0], %[s0]\n\tadc %[b1], %[s1]\n\tadc %[b2], %[s2]\n\tadc %[b3], %[s3]\n\t"
            "mov %[s0], %[t0]\n\tmov %[s1], %[t1]\n\tmov %[s2], %[t2]\n\tmov %[s3], %[t3]\n\t"
            "sub %[r0], %[t0]\n\tsbb %[r1], %[t1]\n\tsbb %[r2], %[t2]\n\tsbb %[r3], %[t3]\n\t"
            "cmovnc %[t0], %[s0]\n\tcmovnc %[t1], %[s1]\n\tcmovnc %[t2], %[s2]\n\t"
            "cmovnc %[t3], %[s3]"
            : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3), [t0] "=&r"(t0),
              [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]),
              [r0] "m"(R[0]), [r1] "m"(R[1]), [r2] "m"(R[2]), [r3] "m"(R[3])
            : "cc");
    /* d = a - b; m = all ones on borrow; d += r & m */
    __asm__("sub %[b0], %[d0]\n\tsbb %[b1], %[d1]\n\tsbb %[b2], %[d2]\n\tsbb %[b3], %[d3]\n\t"
            "sbb %[m], %[m]\n\t"
            "mov %[r0], %[q0]\n\tmov %[r1], %[q1]\n\tmov %[r2], %[q2]\n\tmov %[r3], %[q3]\n\t"
            "and %[m], %[q0]\n\tand %[m], %[q1]\n\tand %[m], %[q2]\n\tand %[m], %[q3]\n\t"
            "add %[q0], %[d0]\n\tadc %[q1], %[d1]\n\tadc %[q2], %[d2]\n\tadc %[q3], %[d3]"
            : [d0] "+&r"(d0), [d1] "+&r"(d1), [d2] "+&r"(d2), [d3] "+&r"(d3), [m] "=&r"(m),
              [q0] "=&r"(q0), [q1] "=&r"(q1), [q2] "=&r"(q2), [q3] "=&r"(q3)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]),
              [r0] "m"(R[0]), [r1] "m"(R[1]), [r2] "m"(R[2]), [r3] "m"(R[3])
            : "cc");
    s->l[0] = s0, s->l[1] = s1, s->l[2] = s2, s->l[3] = s3;
    d->l[0] = d0, d->l[1] = d1, d->l[2] = d2, d->l[3] = d3;
}
#else
static inline void addsub_fr(fr_t *s, fr_t *d, const fr_t *a, const fr_t *b)
{
    fr_t t;
    mont_sub(t.l, a->l, b->l, FR_MODULUS, FR_LIMBS);
    mont_add(s->l, a->l, b->l, FR_MODULUS, FR_LIMBS);
    *d = t;
}
#endif

/* (a, b) <- (a + b, a - b) */
static inline void bfly(fr_t *a, fr_t *b)
{
    addsub_fr(a, b, a, b);
}

/* (a, b) <- (a + b, (a - b) w) */
static inline void bfly_dif(fr_t *a, fr_t *b, const fr_t *w)
{
    addsub_fr(a, b, a, b);
    fr_mul(b, b, w);
}

/* (a, b) <- (a + b w, a - b w) */
static inline void bfly_dit(fr_t *a, fr_t *b, const fr_t *w)
{
    fr_t t;
    fr_mul(&t, b, w);
    addsub_fr(a, b, a, &t);
}

/* Radix-2 DIF over 2^log_m elements, natural in, bit-reversed out; the half
 * length h stage uses stage[h + j] = w_2h^j (j = 0 needs no product). */
static void block_dif(fr_t *x, unsigned log_m, const fr_t *stage)
{
    size_t m = (size_t)1 << log_m;
    for (size_t h = m >> 1; h >= 1; h >>= 1)
        for (fr_t *blk = x; blk < x + m; blk += 2 * h) {
            bfly(blk, blk + h);
            for (size_t j = 1; j < h; j++) bfly_dif(blk + j, blk + j + h, stage + h + j);
        }
}

/* Radix-2 DIT over 2^log_m elements, bit-reversed in, natural out. */
static void block_dit(fr_t *x, unsigned log_m, const fr_t *stage)
{
    size_t m = (size_t)1 << log_m;
    for (size_t h = 1; h < m; h <<= 1)
        for (fr_t *blk = x; blk < x + m; blk += 2 * h) {
            bfly(blk, blk + h);
            for (size_t j = 1; j < h; j++) bfly_dit(blk + j, blk + j + h, stage + h + j);
        }
}

static void mul_table(fr_t *x, const fr_t *table, size_t m)
{
    for (size_t i = 0; i < m; i++) fr_mul(&x[i], &x[i], &table[i]);
}

/* x[j] *= s beta^j for j < m. */
static void scale_natural(fr_t *x, size_t m, fr_t s, const fr_t *beta)
{
    for (size_t j = 0; j < m; j++) {
        fr_mul(&x[j], &x[j], &s);
        fr_mul(&s, &s, beta);
    }
}

/* x[brev(q)] *= s rho^q for q < 2^bits, brev given by table or computed. */
static void scale_bitrev(fr_t *x, unsigned bits, const uint32_t *brev, fr_t s, const fr_t *rho)
{
    for (uint32_t q = 0; q < ((uint32_t)1 << bits); q++) {
        uint32_t i = brev ? brev[q] : ntt_brev(q, bits);
        fr_mul(&x[i], &x[i], &s);
        fr_mul(&s, &s, rho);
    }
}

/* One radix-2 block for the whole array, with the scalings as separate passes. */
static void run_block(const plan *p, fr_t *x, bool dif)
{
    unsigned log_n = p->t->log_row;
    size_t n = (size_t)1 << log_n;
    bool natural = p->scale_u || p->scale_n;
    if (dif) {
        if (natural) scale_natural(x, n, p->u, p->scale_n ? &p->beta_n : &FR_ONE);
        block_dif(x, log_n, p->t->stage[p->dir]);
        if (p->scale_r) scale_bitrev(x, log_n, NULL, FR_ONE, &p->beta_r);
    } else {
        if (p->scale_r) scale_bitrev(x, log_n, NULL, FR_ONE, &p->beta_r);
        block_dit(x, log_n, p->t->stage[p->dir]);
        if (natural) scale_natural(x, n, p->u, p->scale_n ? &p->beta_n : &FR_ONE);
    }
}

/* Column c (gathered, contiguous): its transform and twiddles. */
static void column_one(const plan *p, fr_t *col, size_t c, bool dif)
{
    const struct ntt_tables *t = p->t;
    size_t n2 = (size_t)1 << t->log_col;
    fr_t s = p->bn ? p->bn[c] : p->u, rho = t->col_root[p->dir][c];
    if (p->scale_r) fr_mul(&rho, &rho, &p->beta_r);
    if (dif) {
        if (p->pn) mul_table(col, p->pn, n2);
        block_dif(col, t->log_col, t->stage[p->dir]);
        scale_bitrev(col, t->log_col, t->brev_col, s, &rho);
    } else {
        scale_bitrev(col, t->log_col, t->brev_col, s, &rho);
        block_dit(col, t->log_col, t->stage[p->dir]);
        if (p->pn) mul_table(col, p->pn, n2);
    }
}

/* Columns c0 .. c0 + w - 1 <-> buf (column after column). */
static void gather(fr_t *buf, const fr_t *x, size_t c0, size_t w, size_t n1, size_t n2)
{
    for (size_t i = 0; i < n2; i++)
        for (size_t k = 0; k < w; k++) buf[k * n2 + i] = x[c0 + k + n1 * i];
}

static void scatter(fr_t *x, const fr_t *buf, size_t c0, size_t w, size_t n1, size_t n2)
{
    for (size_t i = 0; i < n2; i++)
        for (size_t k = 0; k < w; k++) x[c0 + k + n1 * i] = buf[k * n2 + i];
}

static int column_pass(const plan *p, fr_t *x, bool dif)
{
    size_t n1 = (size_t)1 << p->t->log_row, n2 = (size_t)1 << p->t->log_col;
    size_t w = n1 < TILE ? n1 : TILE;
    int threads = omp_get_max_threads();
    fr_t *scratch = malloc((size_t)threads * w * n2 * sizeof(fr_t));
    if (!scratch) return -1;
#pragma omp parallel num_threads(threads) if (n1 * n2 >= PARALLEL_MIN)
    {
        fr_t *buf = scratch + (size_t)omp_get_thread_num() * w * n2;
#pragma omp for schedule(static)
        for (size_t c0 = 0; c0 < n1; c0 += w) {
            gather(buf, x, c0, w, n1, n2);
            for (size_t k = 0; k < w; k++) column_one(p, buf + k * n2, c0 + k, dif);
            scatter(x, buf, c0, w, n1, n2);
        }
    }
    free(scratch);
    return 0;
}

static void row_pass(const plan *p, fr_t *x, bool dif)
{
    const struct ntt_tables *t = p->t;
    size_t n1 = (size_t)1 << t->log_row, n2 = (size_t)1 << t->log_col;
#pragma omp parallel for schedule(static) if (n1 * n2 >= PARALLEL_MIN)
    for (size_t i = 0; i < n2; i++) {
        fr_t *row = x + i * n1;
        if (dif) {
            block_dif(row, t->log_row, t->stage[p->dir]);
            if (p->qr) mul_table(row, p->qr, n1);
        } else {
            if (p->qr) mul_table(row, p->qr, n1);
            block_dit(row, t->log_row, t->stage[p->dir]);
        }
    }
}

/* out[i] = s base^i for i < m. */
static void fill_powers(fr_t *out, size_t m, fr_t s, const fr_t *base)
{
    for (size_t i = 0; i < m; i++) {
        out[i] = s;
        fr_mul(&s, &s, base);
    }
}

/* base^(2^k) */
static fr_t pow2k(fr_t base, unsigned k)
{
    while (k--) fr_sqr(&base, &base);
    return base;
}

/* The per-call tables pn, bn, qr of the matrix shape (n1 + n2 + n1 entries). */
static int plan_tables(plan *p)
{
    const struct ntt_tables *t = p->t;
    size_t n1 = (size_t)1 << t->log_row, n2 = (size_t)1 << t->log_col;
    if (p->scale_n) {
        p->pn = malloc(n2 * sizeof(fr_t));
        p->bn = malloc(n1 * sizeof(fr_t));
        if (!p->pn || !p->bn) return -1;
        fr_t step = pow2k(p->beta_n, t->log_row);
        fill_powers(p->pn, n2, FR_ONE, &step);
        fill_powers(p->bn, n1, p->u, &p->beta_n);
    }
    if (p->scale_r) {
        if (!(p->qr = malloc(n1 * sizeof(fr_t)))) return -1;
        fr_t step = pow2k(p->beta_r, t->log_col);
        fill_powers(p->qr, n1, FR_ONE, &step);
        ntt_bit_reverse(p->qr, t->log_row);
    }
    return 0;
}

static int run_matrix(plan *p, fr_t *x, bool dif)
{
    int rc = plan_tables(p);
    if (rc == 0 && dif) {
        rc = column_pass(p, x, true);
        if (rc == 0) row_pass(p, x, true);
    } else if (rc == 0) {
        row_pass(p, x, false);
        rc = column_pass(p, x, false);
    }
    free(p->pn);
    free(p->bn);
    free(p->qr);
    return rc;
}

int ntt_transform(const ntt_domain *d, fr_t *x, int dir, ntt_order in, ntt_order out, const fr_t *u,
                  const fr_t *beta_in, const fr_t *beta_out, cuzk_err *err)
{
    bool dif = in == NTT_NATURAL;
    const fr_t *beta_n = dif ? beta_in : beta_out, *beta_r = dif ? beta_out : beta_in;
    plan p = {.t = d->tables, .dir = dir, .u = u ? *u : FR_ONE};
    p.beta_n = beta_n ? *beta_n : FR_ONE;
    p.beta_r = beta_r ? *beta_r : FR_ONE;
    p.scale_u = !fr_is_one(&p.u);
    p.scale_n = !fr_is_one(&p.beta_n);
    p.scale_r = !fr_is_one(&p.beta_r);
    if (p.t->log_col == 0)
        run_block(&p, x, dif);
    else if (run_matrix(&p, x, dif))
        return cuzk_errf(err, CUZK_ENOMEM, "ntt 2^%u: out of memory for scratch", d->log_n);
    if ((out == NTT_BITREV) != dif) ntt_bit_reverse(x, d->log_n);
    return CUZK_OK;
}

int ntt_forward(const ntt_domain *d, fr_t *x, ntt_order in, ntt_order out, cuzk_err *err)
{
    return ntt_transform(d, x, NTT_FWD, in, out, NULL, NULL, NULL, err);
}

int ntt_inverse(const ntt_domain *d, fr_t *x, ntt_order in, ntt_order out, cuzk_err *err)
{
    return ntt_transform(d, x, NTT_INV, in, out, &d->n_inv, NULL, NULL, err);
}

int ntt_coset_forward(const ntt_domain *d, fr_t *x, ntt_order in, ntt_order out, cuzk_err *err)
{
    return ntt_transform(d, x, NTT_FWD, in, out, NULL, &d->shift, NULL, err);
}

int ntt_coset_inverse(const ntt_domain *d, fr_t *x, ntt_order in, ntt_order out, cuzk_err *err)
{
    return ntt_transform(d, x, NTT_INV, in, out, &d->n_inv, NULL, &d->shift_inv, err);
}

/* Bit reversal by tiles: with p = (hi, mid, lo), hi and lo of TILE_BITS bits,
 * brev(p) = (brev lo, brev mid, brev hi), so the 2^TILE_BITS rows of tile
 * mid (each 2^TILE_BITS contiguous elements, 512 B) land transposed in tile
 * brev(mid). Each pair of tiles is swapped through two 8 KiB buffers, which
 * reads and writes whole cache lines instead of one element per line. */
#define TILE_BITS 4
#define TILE_SIDE (1u << TILE_BITS)

static void tile_load(fr_t *buf, const fr_t *x, size_t mid, unsigned log_n)
{
    for (size_t hi = 0; hi < TILE_SIDE; hi++)
        memcpy(buf + hi * TILE_SIDE, x + (hi << (log_n - TILE_BITS) | mid << TILE_BITS),
               TILE_SIDE * sizeof(fr_t));
}

/* Stores buf (tile (hi, lo) of some mid) into tile mid2 at (brev lo, brev hi). */
static void tile_store_reversed(fr_t *x, const fr_t *buf, size_t mid2, unsigned log_n)
{
    for (uint32_t hi = 0; hi < TILE_SIDE; hi++) {
        fr_t *row =
            x + ((size_t)ntt_brev(hi, TILE_BITS) << (log_n - TILE_BITS) | mid2 << TILE_BITS);
        for (uint32_t lo = 0; lo < TILE_SIDE; lo++)
            row[ntt_brev(lo, TILE_BITS)] = buf[lo * TILE_SIDE + hi];
    }
}

static void bit_reverse_tiled(fr_t *x, unsigned log_n)
{
    unsigned mid_bits = log_n - 2 * TILE_BITS;
#pragma omp parallel
    {
        fr_t a[TILE_SIDE * TILE_SIDE], b[TILE_SIDE * TILE_SIDE];
#pragma omp for schedule(static)
        for (size_t mid = 0; mid < ((size_t)1 << mid_bits); mid++) {
            size_t mid2 = ntt_brev((uint32_t)mid, mid_bits);
            if (mid2 < mid) continue;
            tile_load(a, x, mid, log_n);
            if (mid2 != mid) tile_load(b, x, mid2, log_n);
            tile_store_reversed(x, a, mid2, log_n);
            if (mid2 != mid) tile_store_reversed(x, b, mid, log_n);
        }
    }
}

void ntt_bit_reverse(fr_t *x, unsigned log_n)
{
    if (log_n >= 2 * TILE_BITS + 4) {
        bit_reverse_tiled(x, log_n);
        return;
    }
    for (size_t i = 0; i < ((size_t)1 << log_n); i++) {
        size_t j = ntt_brev((uint32_t)i, log_n);
        if (i < j) {
            fr_t tmp = x[i];
            x[i] = x[j];
            x[j] = tmp;
        }
    }
}
