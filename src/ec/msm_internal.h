/*
 * msm_internal.h - what the G1 and G2 instantiations of the MSM share
 * (scalar recoding, window choice), and entry points with a forced window
 * size for the tests and the tuning benchmark.
 *
 * Scalars enter Pippenger as msm_scalar: the canonical value k, replaced by
 * r - k when k > (r - 1) / 2 (then the point is negated instead, flagged in
 * bit 63 of the top limb), so every value is below 2^254. Signed windows of
 * c bits then use Booth recoding: digit w is read from bits
 * [wc - 1, wc + c) alone,
 *   d_w = bits[wc, wc + c) + bit(wc - 1) - 2^c bit(wc + c - 1),
 * which lies in [-2^(c-1), 2^(c-1)] and telescopes to sum d_w 2^(wc) = k as
 * long as bit (W c - 1) is zero: W = ceil(255 / c) windows suffice.
 */
#ifndef CUZK_MSM_INTERNAL_H
#define CUZK_MSM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/msm.h"

#define MSM_SCALAR_NEG (1ull << 63)
/* scalars are below 2^254 after the r - k fold, so 255 bits cover digits and carry */
#define MSM_SCALAR_BITS 255
#define MSM_MAX_WINDOW  20

typedef struct msm_scalar {
    uint64_t l[4];
} msm_scalar;

/* out[i] = the folded canonical form of scalars[idx ? idx[i] : i], i < n. */
void msm_scalars_fold(msm_scalar *out, const fr_t *scalars, const uint32_t *idx, size_t n,
                      int threads);

static inline unsigned msm_windows(unsigned c)
{
    return (MSM_SCALAR_BITS + c - 1) / c;
}

/* Booth digit w of window size c (c <= MSM_MAX_WINDOW), sign folded in. */
static inline int32_t msm_digit(const msm_scalar *s, unsigned w, unsigned c)
{
    uint64_t l[5] = {s->l[0], s->l[1], s->l[2], s->l[3] & ~MSM_SCALAR_NEG, 0};
    unsigned pos = w * c; /* the window's low bit; the bit below it is the carry */
    uint64_t raw;
    if (pos == 0) {
        raw = l[0] << 1;
    } else {
        pos--;
        unsigned limb = pos >> 6, sh = pos & 63;
        raw = l[limb] >> sh;
        if (sh + c + 1 > 64) raw |= l[limb + 1] << (64 - sh);
    }
    raw &= (2ull << c) - 1;
    int32_t d = (int32_t)(raw >> 1) + (int32_t)(raw & 1) - (int32_t)((raw >> c) << c);
    return (s->l[3] & MSM_SCALAR_NEG) ? -d : d;
}

/*
 * The Pippenger plan for n points on `threads` threads: the window size c,
 * and for a given c the number of point ranges each window is split into,
 * so that windows x ranges tasks balance over the threads.
 */
unsigned msm_plan_window(size_t n, int threads);
unsigned msm_plan_parts(size_t n, int threads, unsigned c);

/* The table window of G_fixed_base_mul for n scalars. */
unsigned msm_fixed_window(size_t n);

/* idx[] = the positions of the set bits among the first n of bitmap, in order. */
void msm_bitmap_indices(uint32_t *idx, const uint64_t *bitmap, size_t n, int threads);

/* threads <= 0: all OpenMP threads. */
int msm_threads(int threads);

/* G_msm with the window size c (1 .. MSM_MAX_WINDOW) forced and no
 * small-size shortcut; for tests and tuning. */
int g1_msm_window(g1_jac_t *r, const g1_affine_t *bases, const fr_t *scalars, size_t n, int threads,
                  unsigned c, cuzk_err *err);
int g2_msm_window(g2_jac_t *r, const g2_affine_t *bases, const fr_t *scalars, size_t n, int threads,
                  unsigned c, cuzk_err *err);

#endif
