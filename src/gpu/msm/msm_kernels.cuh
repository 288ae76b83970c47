/*
 * msm_kernels.cuh - the device side of the G1 Pippenger MSM (see msm.cu).
 *
 * Signed digits: scalar s (canonical, < r < 2^255) is cut into windows of
 * c and c - 1 bits (msm_windows: as few windows as c-bit ones would need,
 * W = ceil(256 / c), the first `wide` of c bits and the rest one bit
 * narrower, so that they cover exactly 256 bits where c divides badly:
 * c = 22 gives 4 x 22 + 8 x 21, twelve windows where c = 21 needs
 * thirteen). A window value d > 2^(b-1) (b its width) becomes d - 2^b with
 * a carry into the next window, so every digit is in [-2^(b-1), 2^(b-1)]
 * and only 2^(b-1) buckets per window are needed (digit |d| goes to bucket
 * |d| - 1, the sign flips the point's y). Since s < 2^255 and the windows
 * cover 256 bits, the top window absorbs the last carry. Every window owns
 * 2^(c-1) buckets (the narrow ones use the lower half).
 */
#ifndef CUZK_GPU_MSM_KERNELS_CUH
#define CUZK_GPU_MSM_KERNELS_CUH

#include "gpu/ec/xyzz.cuh"
#include "gpu/ff/fp2.cuh"

#define MSM_NEG_BIT 0x80000000u
/* Blocks of 128 threads per SM that the bucket-sum kernels must fit
 * (__launch_bounds__: 4 caps them at 128 registers). */
#ifndef CUZK_MSM_MIN_BLOCKS
#define CUZK_MSM_MIN_BLOCKS 1
#endif
/* threads of msm_reduce: 48 KiB of shared points (256 G1, 128 G2) */
#define MSM_RED_THREADS(F) (256 / (sizeof(F) / sizeof(fp_d)))

/* The windows for c-bit digits: nwin of them, the first `wide` of c bits,
 * the others of c - 1, at least 256 bits in all. */
struct msm_windows {
    uint32_t c, nwin, wide;
};

HD msm_windows msm_windows_for(uint32_t c)
{
    uint32_t nwin = (256 + c - 1) / c, narrow = nwin * c - 256;
    if (narrow > nwin - 1) narrow = nwin - 1;
    return msm_windows{c, nwin, nwin - narrow};
}

/* First bit and width of window w. */
HD uint32_t msm_win_bit(const msm_windows &m, uint32_t w)
{
    return w <= m.wide ? w * m.c : m.wide * m.c + (w - m.wide) * (m.c - 1);
}

HD uint32_t msm_win_bits(const msm_windows &m, uint32_t w)
{
    return w < m.wide ? m.c : m.c - 1;
}

/* keys[w n + i] = bucket of digit w of scalar i (2^(c-1) for digit 0, which
 * sorts last and is skipped), vals[w n + i] = i | sign. */
HD void msm_digits_item(uint32_t i, const fr_d *scalars, uint32_t n, msm_windows m, uint32_t *keys,
                        uint32_t *vals)
{
    fr_d s = scalars[i].from_mont();
    const uint32_t zero = 1u << (m.c - 1);
    uint32_t carry = 0;
    for (uint32_t w = 0; w < m.nwin; w++) {
        uint32_t bits = msm_win_bits(m, w), bit = msm_win_bit(m, w), limb = bit / 32, sh = bit % 32;
        uint32_t d = 0;
        if (limb < 8) {
            uint64_t two = s.v[limb] | (limb + 1 < 8 ? (uint64_t)s.v[limb + 1] << 32 : 0);
            d = (uint32_t)(two >> sh) & ((1u << bits) - 1);
        }
        d += carry;
        uint32_t neg = 0;
        carry = 0;
        if (d > (1u << (bits - 1))) {
            d = (1u << bits) - d;
            neg = MSM_NEG_BIT;
            carry = 1;
        }
        size_t o = (size_t)w * n + i;
        keys[o] = d ? d - 1 : zero;
        vals[o] = i | neg;
    }
}

__global__ void msm_digits(const fr_d *__restrict__ scalars, uint32_t n, msm_windows m,
                           uint32_t *keys, uint32_t *vals)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) msm_digits_item(i, scalars, n, m, keys, vals);
}

/* For sorted keys of window w (entries o .. o + n - 1 of the pair arrays):
 * [start, end) of each bucket's run, as positions in the whole array. */
HD void msm_bounds_item(uint32_t t, const uint32_t *keys, uint32_t n, uint32_t half, size_t o,
                        uint32_t *start, uint32_t *end)
{
    uint32_t k = keys[t];
    if (k >= half) return;
    if (t == 0 || keys[t - 1] != k) start[k] = (uint32_t)(o + t);
    if (t == n - 1 || keys[t + 1] != k) end[k] = (uint32_t)(o + t + 1);
}

__global__ void msm_bounds(const uint32_t *__restrict__ keys, uint32_t n, uint32_t half, size_t o,
                           uint32_t *start, uint32_t *end)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) msm_bounds_item(t, keys, n, half, o, start, end);
}

/*
 * Bucket sums in tasks. A bucket's run [start, end) is cut into tasks of
 * at most K entries, one thread each, so that a crowded bucket (the short
 * top window, repeated scalars) is shared among many threads instead of
 * serialising one. A round writes one partial sum per task; while some
 * bucket had more than one task, the next round sums each bucket's
 * partials the same way (runs [off, off + ntask) of the partial array).
 * The task arrays: ntask[b] per bucket, off[b] its exclusive prefix sum
 * (CUB scan), task_bucket[i] the bucket of task i.
 */
HD uint32_t msm_task_count_item(uint32_t b, const uint32_t *start, const uint32_t *end, uint32_t k,
                                uint32_t *ntask)
{
    uint32_t t = (end[b] - start[b] + k - 1) / k;
    ntask[b] = t;
    return t;
}

__global__ void msm_task_count(const uint32_t *__restrict__ start, const uint32_t *__restrict__ end,
                               uint32_t k, uint32_t total, uint32_t *ntask, uint32_t *max_tasks)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= total) return;
    uint32_t t = msm_task_count_item(b, start, end, k, ntask);
    if (t > 1) atomicMax(max_tasks, t);
}

/* counters[1] = the round's tasks (off and ntask of the last bucket), so
 * that the host reads both counters after one wait. */
__global__ void msm_task_total(const uint32_t *__restrict__ off, const uint32_t *__restrict__ ntask,
                               uint32_t total, uint32_t *counters)
{
    counters[1] = off[total - 1] + ntask[total - 1];
}

HD void msm_task_map_item(uint32_t b, const uint32_t *off, const uint32_t *ntask,
                          uint32_t *task_bucket)
{
    for (uint32_t j = 0; j < ntask[b]; j++) task_bucket[off[b] + j] = b;
}

__global__ void msm_task_map(const uint32_t *__restrict__ off, const uint32_t *__restrict__ ntask,
                             uint32_t total, uint32_t *task_bucket)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < total) msm_task_map_item(b, off, ntask, task_bucket);
}

/* Round 0: task i adds its signed affine points bases[vals[t]] (vals
 * NULL: the points bases[t] of the affine rounds' output). */
template <class F>
HD void msm_task_sum_item(uint32_t i, const uint32_t *task_bucket, const uint32_t *off,
                          const uint32_t *start, const uint32_t *end, uint32_t k,
                          const affine_d<F> *bases, const uint32_t *vals, xyzz_d<F> *partial)
{
    uint32_t b = task_bucket[i], s = start[b] + (i - off[b]) * k;
    uint32_t e = end[b] - s < k ? end[b] : s + k;
    xyzz_d<F> acc = xyzz_d<F>::inf();
    for (uint32_t t = s; t < e; t++) {
        uint32_t x = vals ? vals[t] : t;
        affine_d<F> p = bases[x & ~MSM_NEG_BIT];
        if (x & MSM_NEG_BIT) p.y = p.y.neg();
        acc.add_affine(p);
    }
    partial[i] = acc;
}

template <class F>
__global__ void __launch_bounds__(128, CUZK_MSM_MIN_BLOCKS)
    msm_task_sum(const uint32_t *__restrict__ task_bucket, const uint32_t *__restrict__ off,
                 const uint32_t *__restrict__ start, const uint32_t *__restrict__ end, uint32_t k,
                 const affine_d<F> *__restrict__ bases, const uint32_t *__restrict__ vals,
                 uint32_t tasks, xyzz_d<F> *partial)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < tasks) msm_task_sum_item(i, task_bucket, off, start, end, k, bases, vals, partial);
}

/*
 * Round 0 by sweep (G1's path): thread t adds the signed points at sorted
 * positions [t K, (t + 1) K) of all windows in a row, so every lane of a
 * warp does the same K additions (tasks per bucket made a warp wait for
 * its longest bucket, Poisson-distributed around the mean). Leaving bucket
 * b's run, a thread writes its partial sum to slot t + rank(b) + 1, where
 * rank(b) counts the non-empty buckets before b: slot(i) = floor(i / K) +
 * (bucket starts at or before i) numbers every (thread start, bucket
 * start) event in position order, so each segment of positions has its
 * own slot and bucket b's slots are one run [slot(start_b),
 * slot(end_b - 1)] for the task rounds to add up. A thread start that is
 * also a bucket start leaves one slot between two runs unused.
 */
#define MSM_NO_BUCKET 0xffffffffu /* bucket of a position with digit 0 */

/* Bucket of sorted position i of the windows' concatenated pairs. */
HD uint32_t msm_pos_bucket(const uint32_t *keys, uint32_t i, uint32_t n, uint32_t half)
{
    uint32_t k = keys[i];
    return k < half ? (i / n) * half + k : MSM_NO_BUCKET;
}

template <class F>
HD void msm_sweep_item(uint32_t t, uint32_t k, uint32_t total, const uint32_t *keys,
                       const uint32_t *vals, uint32_t n, uint32_t half, const uint32_t *rank,
                       const affine_d<F> *bases, xyzz_d<F> *slots)
{
    const uint32_t none = MSM_NO_BUCKET;
    uint32_t lo = t * k, hi = total - lo < k ? total : lo + k, cur = none;
    xyzz_d<F> acc = xyzz_d<F>::inf();
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t b = msm_pos_bucket(keys, i, n, half);
        if (b != cur) {
            if (cur != none) slots[t + rank[cur] + 1] = acc;
            cur = b;
            acc = xyzz_d<F>::inf();
        }
        if (b == none) continue;
        uint32_t x = vals[i];
        affine_d<F> p = bases[x & ~MSM_NEG_BIT];
        if (i + 1 < hi) affine_prefetch(&bases[vals[i + 1] & ~MSM_NEG_BIT]);
        if (x & MSM_NEG_BIT) p.y = p.y.neg();
        acc.add_affine(p);
    }
    if (cur != none) slots[t + rank[cur] + 1] = acc;
}

/* The chunk of a block's threads a sweep block takes: the next one of
 * *claim, or MSM_NO_CHUNK while the bail flag is up (yield.cu rule 5: a
 * lane proof runs; the launcher's second launch, without a flag, takes
 * the chunks left). Chunks are taken in order, so after a launch the
 * chunks [0, *claim) are swept and the rest untouched. */
#define MSM_NO_CHUNK 0xffffffffu
HD uint32_t msm_sweep_claim(uint32_t *claim, const volatile int *bail)
{
    if (bail && *bail) return MSM_NO_CHUNK;
#ifdef __CUDA_ARCH__
    return atomicAdd(claim, 1u);
#else
    return (*claim)++;
#endif
}

template <class F>
__global__ void __launch_bounds__(128, CUZK_MSM_MIN_BLOCKS)
    msm_sweep(uint32_t k, uint32_t total, const uint32_t *__restrict__ keys,
              const uint32_t *__restrict__ vals, uint32_t n, uint32_t half,
              const uint32_t *__restrict__ rank, const affine_d<F> *__restrict__ bases,
              uint32_t threads, xyzz_d<F> *slots, uint32_t *claim, const int *bail)
{
    __shared__ uint32_t chunk;
    if (threadIdx.x == 0) chunk = msm_sweep_claim(claim, bail);
    __syncthreads();
    if (chunk == MSM_NO_CHUNK) return;
    uint64_t t = (uint64_t)chunk * blockDim.x + threadIdx.x;
    if (t < threads) msm_sweep_item((uint32_t)t, k, total, keys, vals, n, half, rank, bases, slots);
}

/* 1 for a non-empty bucket (its rank is the exclusive scan of these) */
__global__ void msm_nonempty(const uint32_t *__restrict__ start, const uint32_t *__restrict__ end,
                             uint32_t nb, uint32_t *flag)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nb) flag[b] = end[b] > start[b];
}

/* Bucket b's run of slots, in place of its run of positions. */
HD void msm_sweep_bounds_item(uint32_t b, const uint32_t *rank, uint32_t k, uint32_t *start,
                              uint32_t *end)
{
    if (end[b] == start[b]) {
        start[b] = end[b] = 0;
        return;
    }
    uint32_t s = start[b] / k + rank[b] + 1, e = (end[b] - 1) / k + rank[b] + 2;
    start[b] = s;
    end[b] = e;
}

__global__ void msm_sweep_bounds(const uint32_t *__restrict__ rank, uint32_t k, uint32_t nb,
                                 uint32_t *start, uint32_t *end)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nb) msm_sweep_bounds_item(b, rank, k, start, end);
}

/* Later rounds: task i adds its run of earlier partials. */
template <class F>
HD void msm_task_sum_xyzz_item(uint32_t i, const uint32_t *task_bucket, const uint32_t *off,
                               const uint32_t *start, const uint32_t *end, uint32_t k,
                               const xyzz_d<F> *in, xyzz_d<F> *partial)
{
    uint32_t b = task_bucket[i], s = start[b] + (i - off[b]) * k;
    uint32_t e = end[b] - s < k ? end[b] : s + k;
    xyzz_d<F> acc = in[s];
    for (uint32_t t = s + 1; t < e; t++) acc.add(in[t]);
    partial[i] = acc;
}

template <class F>
__global__ void
msm_task_sum_xyzz(const uint32_t *__restrict__ task_bucket, const uint32_t *__restrict__ off,
                  const uint32_t *__restrict__ start, const uint32_t *__restrict__ end, uint32_t k,
                  const xyzz_d<F> *__restrict__ in, uint32_t tasks, xyzz_d<F> *partial)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < tasks) msm_task_sum_xyzz_item(i, task_bucket, off, start, end, k, in, partial);
}

/* Run bounds from first positions and counts: [off, off + ntask). Between
 * task rounds bucket b's run becomes its partials; after the affine rounds
 * (st, cn) become the task sums' runs. */
HD void msm_task_next_item(uint32_t b, const uint32_t *off, const uint32_t *ntask, uint32_t *start,
                           uint32_t *end)
{
    start[b] = off[b];
    end[b] = off[b] + ntask[b];
}

__global__ void msm_task_next(const uint32_t *__restrict__ off, const uint32_t *__restrict__ ntask,
                              uint32_t total, uint32_t *start, uint32_t *end)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < total) msm_task_next_item(b, off, ntask, start, end);
}

/* After the last round every bucket has at most one partial. */
template <class F>
HD void msm_task_gather_item(uint32_t b, const uint32_t *off, const uint32_t *ntask,
                             const xyzz_d<F> *partial, xyzz_d<F> *buckets)
{
    buckets[b] = ntask[b] ? partial[off[b]] : xyzz_d<F>::inf();
}

template <class F>
__global__ void msm_task_gather(const uint32_t *__restrict__ off,
                                const uint32_t *__restrict__ ntask, uint32_t total,
                                const xyzz_d<F> *__restrict__ partial, xyzz_d<F> *buckets)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < total) msm_task_gather_item(b, off, ntask, partial, buckets);
}

/* Thread t of window w, over buckets v in [t S, (t+1) S) (bucket v holds
 * digit v + 1): running sums from the top leave T_t = sum_j (j + 1)
 * B_(tS+j) at partial[2t] and R_t = sum_j B_(tS+j) at partial[2t + 1].
 * The window's sum_v (v + 1) B_v is then sum_t T_t + S sum_t t R_t
 * (msm_reduce_item), with no scalar multiple per segment. */
template <class F>
HD void msm_segment_item(uint32_t t, const xyzz_d<F> *buckets, uint32_t buckets_per_win,
                         uint32_t seg, xyzz_d<F> *partial)
{
    uint32_t per_win = buckets_per_win / seg, w = t / per_win, s = t % per_win;
    const xyzz_d<F> *bk = buckets + (size_t)w * buckets_per_win + (size_t)s * seg;
    xyzz_d<F> run = xyzz_d<F>::inf(), sum = xyzz_d<F>::inf();
    for (int j = (int)seg - 1; j >= 0; j--) {
        run.add(bk[j]);
        sum.add(run);
    }
    partial[2 * (size_t)t] = sum;
    partial[2 * (size_t)t + 1] = run;
}

template <class F>
__global__ void msm_segments(const xyzz_d<F> *__restrict__ buckets, uint32_t buckets_per_win,
                             uint32_t seg, uint32_t total_threads, xyzz_d<F> *partial)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total_threads) msm_segment_item(t, buckets, buckets_per_win, seg, partial);
}

/* Thread r of `threads` over one window's segments [a, a + q) (p: the
 * window's 2 per_win partials of msm_segment_item): sum_s T_s + S sum_s
 * s R_s over them. Running sums from the top give sum_s (s - a) R_s and
 * sum_s R_s, and a times the second completes sum_s s R_s. */
template <class F>
HD xyzz_d<F> msm_reduce_item(uint32_t r, uint32_t threads, const xyzz_d<F> *p, uint32_t per_win,
                             uint32_t seg)
{
    uint32_t q = (per_win + threads - 1) / threads, a = r * q;
    xyzz_d<F> t = xyzz_d<F>::inf(), run = xyzz_d<F>::inf(), sum = xyzz_d<F>::inf();
    if (a >= per_win) return t;
    uint32_t e = per_win - a < q ? per_win : a + q;
    for (uint32_t s = e - 1; s > a; s--) {
        t.add(p[2 * (size_t)s]);
        run.add(p[2 * (size_t)s + 1]);
        sum.add(run);
    }
    t.add(p[2 * (size_t)a]);
    run.add(p[2 * (size_t)a + 1]);
    sum.add(run.mul_small(a));
    t.add(sum.mul_small(seg));
    return t;
}

/* Blocks of msm_reduce per window: about MSM_RED_PER_THREAD segments per
 * thread, so that no thread runs a long chain of dependent additions. */
#define MSM_RED_PER_THREAD 16
template <class F> HD uint32_t msm_reduce_slices(uint32_t per_win)
{
    uint32_t x = per_win / (MSM_RED_THREADS(F) * MSM_RED_PER_THREAD);
    return x ? x : 1;
}

/* Block b sums slice b % x of window b / x (x = msm_reduce_slices):
 * msm_reduce_item per thread, then a tree; out[b]. */
template <class F>
__global__ void __launch_bounds__(MSM_RED_THREADS(F))
    msm_reduce(const xyzz_d<F> *__restrict__ partial, uint32_t per_win, uint32_t seg, uint32_t x,
               xyzz_d<F> *out)
{
    __shared__ xyzz_d<F> sm[MSM_RED_THREADS(F)];
    uint32_t w = blockIdx.x / x, r = (blockIdx.x % x) * MSM_RED_THREADS(F) + threadIdx.x;
    xyzz_d<F> acc = msm_reduce_item<F>(r, x * MSM_RED_THREADS(F), partial + 2 * (size_t)w * per_win,
                                       per_win, seg);
    sm[threadIdx.x] = acc;
    for (uint32_t h = MSM_RED_THREADS(F) / 2; h > 0; h /= 2) {
        __syncthreads();
        if (threadIdx.x < h) {
            acc.add(sm[threadIdx.x + h]);
            sm[threadIdx.x] = acc;
        }
    }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

/* Thread w: the sum of window w's x slices. */
template <class F>
__global__ void msm_reduce_slices_sum(const xyzz_d<F> *__restrict__ slices, uint32_t nwin,
                                      uint32_t x, xyzz_d<F> *out)
{
    uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nwin) return;
    xyzz_d<F> acc = xyzz_d<F>::inf();
    for (uint32_t i = 0; i < x; i++) acc.add(slices[(size_t)w * x + i]);
    out[w] = acc;
}

#endif
