/*
 * msm_common.c - the group-independent parts of the MSM (msm_internal.h):
 * scalar folding, the window plan, the split decision and scalar
 * classification.
 */
#include "msm_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

int msm_threads(int threads)
{
    return threads > 0 ? threads : omp_get_max_threads();
}

bool msm_split_worthwhile(size_t n_tail, size_t n)
{
    return n_tail <= n / 2;
}

/* a > b as 4-limb little-endian integers */
static bool gt4(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i];
    return false;
}

/* r = a - b (a >= b) */
static void sub4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 t = (unsigned __int128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)t;
        borrow = (t >> 64) & 1;
    }
}

void msm_scalars_fold(msm_scalar *out, const fr_t *scalars, const uint32_t *idx, size_t n,
                      int threads)
{
    uint64_t half[4]; /* (r - 1) / 2 = r >> 1 since r is odd */
    for (int i = 0; i < 4; i++)
        half[i] = FR_MODULUS[i] >> 1 | (i < 3 ? FR_MODULUS[i + 1] << 63 : 0);
#pragma omp parallel for schedule(static) num_threads(msm_threads(threads))
    for (size_t i = 0; i < n; i++) {
        uint64_t k[4];
        fr_to_canonical(k, &scalars[idx ? idx[i] : i]);
        if (gt4(k, half)) {
            sub4(out[i].l, FR_MODULUS, k);
            out[i].l[3] |= MSM_SCALAR_NEG;
        } else {
            memcpy(out[i].l, k, sizeof(k));
        }
    }
}

/*
 * Relative costs for the plan: one batch-affine bucket addition (5M+1S plus
 * its share of the inversion) is the unit; reducing one bucket costs two
 * batch-affine additions (row and column sums) plus a little.
 */
#define PLAN_BUCKET_COST 2.2
#define PLAN_MAX_WINDOW  16

/* The makespan of c-bit windows split into `parts` point ranges. */
static double plan_cost(size_t n, unsigned t, unsigned c, unsigned parts)
{
    unsigned rounds = (msm_windows(c) * parts + t - 1) / t;
    return rounds * ((double)n / parts + PLAN_BUCKET_COST * (double)(1u << (c - 1)));
}

unsigned msm_plan_parts(size_t n, int threads, unsigned c)
{
    unsigned t = (unsigned)msm_threads(threads), best = 1;
    for (unsigned p = 2; p <= 2 * t; p++)
        if (plan_cost(n, t, c, p) < plan_cost(n, t, c, best)) best = p;
    return best;
}

unsigned msm_plan_window(size_t n, int threads)
{
    unsigned t = (unsigned)msm_threads(threads), best = 1;
    for (unsigned c = 2; c <= PLAN_MAX_WINDOW; c++)
        if (plan_cost(n, t, c, msm_plan_parts(n, threads, c)) <
            plan_cost(n, t, best, msm_plan_parts(n, threads, best)))
            best = c;
    return best;
}

/* Bits of the scalars of one 64-scalar word: ones, and the tail. */
static void classify_word(const fr_t *s, size_t n, uint64_t *ones, uint64_t *tail)
{
    *ones = *tail = 0;
    for (size_t j = 0; j < n; j++) {
        if (fr_is_zero(&s[j])) continue;
        if (fr_is_one(&s[j]))
            *ones |= 1ull << j;
        else
            *tail |= 1ull << j;
    }
}

void msm_classify_bits(const fr_t *scalars, size_t n, uint64_t *ones_bitmap, uint64_t *tail_bitmap,
                       size_t *n_ones, size_t *n_tail, int threads)
{
    size_t words = (n + 63) / 64, c1 = 0, ct = 0;
#pragma omp parallel for schedule(static) reduction(+ : c1, ct) num_threads(msm_threads(threads))
    for (size_t i = 0; i < words; i++) {
        uint64_t ones, tail;
        classify_word(scalars + 64 * i, n - 64 * i < 64 ? n - 64 * i : 64, &ones, &tail);
        if (ones_bitmap) ones_bitmap[i] = ones;
        if (tail_bitmap) tail_bitmap[i] = tail;
        c1 += (size_t)__builtin_popcountll(ones);
        ct += (size_t)__builtin_popcountll(tail);
    }
    *n_ones = c1;
    *n_tail = ct;
}

void msm_classify(const fr_t *scalars, size_t n, uint64_t *ones_bitmap, size_t *n_ones,
                  size_t *n_tail, int threads)
{
    msm_classify_bits(scalars, n, ones_bitmap, NULL, n_ones, n_tail, threads);
}

/* Words per block of msm_bitmap_indices: one prefix count per block. */
#define INDEX_BLOCK_WORDS 1024

/* Bits of word w among the first n. */
static uint64_t word_masked(const uint64_t *bitmap, size_t n, size_t w)
{
    return 64 * w + 64 > n ? bitmap[w] & ((1ull << (n % 64)) - 1) : bitmap[w];
}

static size_t block_count(const uint64_t *bitmap, size_t n, size_t w0, size_t w1)
{
    size_t c = 0;
    for (size_t w = w0; w < w1; w++) c += (size_t)__builtin_popcountll(word_masked(bitmap, n, w));
    return c;
}

static void block_fill(uint32_t *idx, const uint64_t *bitmap, size_t n, size_t w0, size_t w1)
{
    for (size_t w = w0; w < w1; w++)
        for (uint64_t bits = word_masked(bitmap, n, w); bits; bits &= bits - 1)
            *idx++ = (uint32_t)(64 * w + (size_t)__builtin_ctzll(bits));
}

void msm_bitmap_indices(uint32_t *idx, const uint64_t *bitmap, size_t n, int threads)
{
    size_t words = (n + 63) / 64, blocks = (words + INDEX_BLOCK_WORDS - 1) / INDEX_BLOCK_WORDS;
    size_t *off = malloc((blocks + 1) * sizeof(size_t));
    if (!off) { /* no room for the block offsets: one sequential pass */
        block_fill(idx, bitmap, n, 0, words);
        return;
    }
    off[0] = 0;
#pragma omp parallel for schedule(static) num_threads(msm_threads(threads))
    for (size_t b = 0; b < blocks; b++)
        off[b + 1] = block_count(bitmap, n, b * INDEX_BLOCK_WORDS,
                                 b + 1 == blocks ? words : (b + 1) * INDEX_BLOCK_WORDS);
    for (size_t b = 0; b < blocks; b++) off[b + 1] += off[b];
#pragma omp parallel for schedule(static) num_threads(msm_threads(threads))
    for (size_t b = 0; b < blocks; b++)
        block_fill(idx + off[b], bitmap, n, b * INDEX_BLOCK_WORDS,
                   b + 1 == blocks ? words : (b + 1) * INDEX_BLOCK_WORDS);
    free(off);
}

/*
 * Fixed-base window: n outputs cost W(w) batch-affine additions each; the
 * table costs W(w) 2^(w-1) Jacobian mixed additions (7M+4S) plus their
 * share of the affine conversion (about 6M), some 2.5 units each.
 */
#define FIXED_TABLE_COST 2.5
#define FIXED_MAX_WINDOW 16

unsigned msm_fixed_window(size_t n)
{
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned w = 1; w <= FIXED_MAX_WINDOW; w++) {
        double cost = msm_windows(w) * ((double)n + FIXED_TABLE_COST * (double)(1u << (w - 1)));
        if (w == 1 || cost < best_cost) best = w, best_cost = cost;
    }
    return best;
}
