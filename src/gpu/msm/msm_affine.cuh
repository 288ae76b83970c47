/*
 * msm_affine.cuh - the affine rounds of the MSM bucket sums (see msm.cu).
 *
 * A round halves every bucket: the points of a bucket's run, in order, are
 * taken in pairs (0, 1), (2, 3), ... and each pair is replaced by its sum;
 * an odd last point is copied. The sums are affine: with d = x2 - x1,
 * l = (y2 - y1) / d, x3 = l^2 - x1 - x2, y3 = l (x1 - x3) - y1, where the
 * inverses of all the d a thread handles come from one inversion
 * (Montgomery's trick: prefix products forward, one inversion, two
 * products per pair backward). Per addition that is 5 products and a
 * square, against 8 products and 2 squares to add an affine point to an
 * XYZZ bucket, plus one inversion (~470 products) shared by a few hundred
 * pairs. Pairs with equal x or a point at infinity (doubling, P + (-P))
 * take the slow path: their own inversion.
 *
 * Positions: a round's input is an array of points grouped by bucket,
 * bucket b at [st[b], st[b] + cn[b]); its output puts bucket b at
 * [ost[b], ost[b] + (cn[b] + 1) / 2) (ost: exclusive scan). Thread t owns
 * the input positions [t per, (t + 1) per) and every pair whose first
 * point lies there (at most per / 2; the second point may lie beyond).
 * The first round reads the sorted (key, point | sign) arrays of a group
 * of windows straight (IND: bases[vals[i]], bucket from keys[i]); later
 * rounds read the dense output of the previous one.
 */
#ifndef CUZK_GPU_MSM_AFFINE_CUH
#define CUZK_GPU_MSM_AFFINE_CUH

#include "gpu/msm/msm_kernels.cuh"

template <class F> struct msm_aff_args {
    const affine_d<F> *pts;  /* IND: the bases; else the round's points */
    const uint32_t *vals;    /* IND: point index | sign per position */
    const uint32_t *keys;    /* IND: bucket within its window (half: digit 0) */
    const uint32_t *bkt;     /* dense: bucket per position */
    const uint32_t *st, *cn; /* per bucket: first input position, count */
    const uint32_t *ost;     /* per bucket: first output position */
    uint32_t total;          /* input positions */
    uint32_t n, half;        /* IND: positions per window, buckets per window */
    uint32_t per, threads;   /* positions per thread, threads */
    F *scratch;              /* prefix products, [pair k][thread] */
    affine_d<F> *out;        /* output points */
    uint32_t *obkt;          /* output: bucket per position */
};

/* Round 0's per-bucket arrays from a group's run bounds (global positions
 * starting at pos0); cn_out = (cn + 1) / 2 for every round. */
HD void msm_aff_first_item(uint32_t b, const uint32_t *start, const uint32_t *end, uint32_t pos0,
                           uint32_t *st, uint32_t *cn, uint32_t *cn_out)
{
    uint32_t c = end[b] - start[b];
    st[b] = c ? start[b] - pos0 : 0;
    cn[b] = c;
    cn_out[b] = (c + 1) / 2;
}

__global__ void msm_aff_first(const uint32_t *__restrict__ start, const uint32_t *__restrict__ end,
                              uint32_t pos0, uint32_t nb, uint32_t *st, uint32_t *cn,
                              uint32_t *cn_out)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nb) msm_aff_first_item(b, start, end, pos0, st, cn, cn_out);
}

HD void msm_aff_halve_item(uint32_t b, const uint32_t *cn, uint32_t *cn_out)
{
    cn_out[b] = (cn[b] + 1) / 2;
}

__global__ void msm_aff_halve(const uint32_t *__restrict__ cn, uint32_t nb, uint32_t *cn_out)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nb) msm_aff_halve_item(b, cn, cn_out);
}

template <class F, bool IND> HD uint32_t msm_aff_bucket(const msm_aff_args<F> &a, uint32_t i)
{
    if (!IND) return a.bkt[i];
    return msm_pos_bucket(a.keys, i, a.n, a.half);
}

/* 2: position i starts a pair; 1: it is its bucket's odd last point;
 * 0: neither (second of a pair, or digit 0). */
template <class F, bool IND>
HD int msm_aff_role(const msm_aff_args<F> &a, uint32_t i, uint32_t *b, uint32_t *r)
{
    uint32_t bb = msm_aff_bucket<F, IND>(a, i);
    if (bb == MSM_NO_BUCKET) return 0;
    uint32_t rr = i - a.st[bb];
    if (rr & 1) return 0;
    *b = bb;
    *r = rr;
    return rr + 1 < a.cn[bb] ? 2 : 1;
}

template <class F, bool IND> HD affine_d<F> msm_aff_load(const msm_aff_args<F> &a, uint32_t i)
{
    if (!IND) return a.pts[i];
    uint32_t x = a.vals[i];
    affine_d<F> p = a.pts[x & ~MSM_NEG_BIT];
    if (x & MSM_NEG_BIT) p.y = p.y.neg();
    return p;
}

template <class F, bool IND> HD F msm_aff_load_x(const msm_aff_args<F> &a, uint32_t i)
{
    return IND ? a.pts[a.vals[i] & ~MSM_NEG_BIT].x : a.pts[i].x;
}

/* The fast path needs x1 != x2 and neither point at infinity; a point of
 * the prime-order group never has x = 0 (those have order 3), so x = 0
 * is treated as a possible infinity and sent to the slow path too. */
template <class F> HD bool msm_aff_special(const F &x1, const F &x2)
{
    return x1.is_zero() || x2.is_zero() || x1 == x2;
}

/* p + q for any two points (or infinity), with its own inversion. */
template <class F> HD affine_d<F> msm_aff_add_slow(const affine_d<F> &p, const affine_d<F> &q)
{
    if (p.is_inf()) return q;
    if (q.is_inf()) return p;
    F l;
    if (p.x == q.x) {
        if (!(p.y == q.y) || p.y.is_zero()) return {F::zero(), F::zero()};
        F xx = p.x.sqr();
        l = (xx.dbl() + xx) * p.y.dbl().inv();
    } else {
        l = (q.y - p.y) * (q.x - p.x).inv();
    }
    F x3 = l.sqr() - p.x - q.x;
    return {x3, l * (p.x - x3) - p.y};
}

/* Each loop turn handles one pair: the scans to the next pair are cheap
 * index work, so the lanes of a warp meet at the products instead of half
 * of them idling on the second points of pairs (measured: a loop over
 * positions made the rounds slower than the XYZZ sums they replace). */
template <class F, bool IND> HD void msm_aff_round_item(uint32_t t, const msm_aff_args<F> &a)
{
    uint32_t lo = t * a.per, hi = lo + a.per < a.total ? lo + a.per : a.total, b, r, k = 0;
    if (lo >= a.total) return;
    F acc = F::one();
    for (uint32_t i = lo;; i += 2) {
        while (i < hi && msm_aff_role<F, IND>(a, i, &b, &r) != 2) i++;
        if (i >= hi) break;
        F x1 = msm_aff_load_x<F, IND>(a, i), x2 = msm_aff_load_x<F, IND>(a, i + 1);
        a.scratch[(size_t)k++ * a.threads + t] = acc;
        if (!msm_aff_special(x1, x2)) acc *= x2 - x1;
    }
    F inv = acc.inv();
    for (uint32_t i = hi;;) {
        int role = 0;
        while (i > lo && !(role = msm_aff_role<F, IND>(a, --i, &b, &r))) {
        }
        if (!role) break;
        uint32_t o = a.ost[b] + r / 2;
        a.obkt[o] = b;
        affine_d<F> p = msm_aff_load<F, IND>(a, i);
        if (role == 1) {
            a.out[o] = p;
            continue;
        }
        affine_d<F> q = msm_aff_load<F, IND>(a, i + 1);
        k--;
        if (msm_aff_special(p.x, q.x)) {
            a.out[o] = msm_aff_add_slow(p, q);
            continue;
        }
        F inv_d = inv * a.scratch[(size_t)k * a.threads + t];
        inv *= q.x - p.x;
        F l = (q.y - p.y) * inv_d, x3 = l.sqr() - p.x - q.x;
        a.out[o] = {x3, l * (p.x - x3) - p.y};
    }
}

template <class F, bool IND>
__global__ void __launch_bounds__(128, CUZK_MSM_MIN_BLOCKS) msm_aff_round(msm_aff_args<F> a)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < a.threads) msm_aff_round_item<F, IND>(t, a);
}

#endif
