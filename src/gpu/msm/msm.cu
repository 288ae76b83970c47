/*
 * msm.cu - G1 and G2 multi-scalar multiplication on the device (Pippenger),
 * one template over the coordinate field (fp_d for G1, fp2_d for G2).
 *
 * For n points and windows of at most c bits (W = ceil(256 / c) windows,
 * some of them c - 1 bits wide so that they cover 256 bits: msm_windows):
 *  1. msm_digits: each scalar leaves Montgomery form and is cut into W
 *     signed digits; per window, a (bucket, point | sign) pair per point.
 *  2. CUB radix sort of each window's pairs by bucket (c key bits), so
 *     each bucket's points form one run; msm_bounds finds the runs.
 *  3. Bucket sums: n W additions into XYZZ buckets (8M+2S per point,
 *     msm_kernels.cuh), the bulk of the work. G1 (no affine rounds): the
 *     sweep, every thread adds exactly K of the sorted points (K about
 *     twice the mean bucket), crossing bucket runs, into numbered slots
 *     (the next point prefetched into L2 during each addition);
 *     then task rounds add each bucket's slots, at most 32 per task, so a
 *     crowded bucket (the top window, repeated scalars) is spread over
 *     many threads. G2 (msm_aff, GPU_MSM_AFFINE_G2): first affine rounds
 *     (msm_affine.cuh), window group by window group, each halving every
 *     bucket by adding its points in pairs in affine coordinates with
 *     batched inversions (5M+1S per addition, worth it where products
 *     cost 3x), then tasks of at most K points per thread and further
 *     rounds for the buckets cut into several tasks.
 *  4. msm_segments + msm_reduce: per window sum_v v B_v by running sums
 *     over segments of buckets, then running sums over the segments'
 *     totals, then a tree.
 *  5. The host combines the W window sums by Horner (a window's width in
 *     doublings) with the CPU group law (ec.h): about 270 operations.
 * The working memory (8 W n bytes of pairs, twice, plus the buckets and
 * the affine rounds' points) is kept between calls and grown on demand,
 * one per device (device.cuh) under a lock of its own, so the MSMs of
 * several GPUs run at once.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu/msm/msm_affine.cuh"
#include "gpu/msm/msm_kernels.cuh"
#include "gpu/util/buf.cuh"
#include "gpu/util/check.cuh"
#include "gpu/util/xfer_stats.cuh"
#include "gpu/util/device.cuh"
#include "gpu/util/yield.cuh"

#define MSM_MAX_N    (1u << 31)
#define MSM_SEG_LOG  5  /* buckets per reduction thread: 32 */
#define MSM_K_MIN    8  /* the fewest points per task */
#define MSM_CLAIM_AT 16 /* the sweep's chunk counter: counters' 32-bit word 16 */
#define MSM_K_LATER  32 /* partial sums per task after the first round */
/* Affine rounds run on groups of windows of at most 2^26 positions (the
 * group's points, prefix products and output: ~150 bytes per position for
 * G1), with about 2^17 threads (a wave of the H200's 132 SMs) of at least
 * msm_aff_pairs pairs each, while that gives at least msm_aff_threads
 * threads (fewer leave the GPU idle; fewer pairs do not pay for the
 * inversion). */
#define MSM_AFF_GROUP_LOG   26
#define MSM_AFF_THREADS_LOG 17

/* The working memory of one device (device.cuh), under its own lock: the
 * MSMs of two devices run at once. */
struct msm_ws {
    std::mutex lock;
    void *mem;
    size_t bytes;
};
static msm_ws msm_work[CU_MAX_SLOTS];
/* msm_lock guards the tunings and the phase timing below. */
static pthread_mutex_t msm_lock = PTHREAD_MUTEX_INITIALIZER;
/* gpu_msm_set_affine, per group (G1, G2): rounds, the fewest pairs per
 * thread, the fewest threads of a round */
struct msm_aff_cfg {
    unsigned group, rounds, pairs, threads;
};
static msm_aff_cfg msm_aff[2] = {{GPU_MSM_AFFINE_G1}, {GPU_MSM_AFFINE_G2}};

/* Phase timing (gpu_msm_set_timing): events on stream 0 at the start, after
 * the digits and sorts, after the sweep (G1), after the bucket sums and
 * after the reduction; the last MSM's phases in ms. The events belong to
 * the device current at gpu_msm_set_timing (msm_timing_dev), and only the
 * MSMs on that device are timed (msm_timed: this thread's MSM is). */
#define MSM_MARKS 5
static int msm_timing_dev = -1;
static cudaEvent_t msm_ev[MSM_MARKS];
static float msm_phase[MSM_MARKS - 1];
static thread_local bool msm_timed;

static void msm_mark(int i)
{
    if (msm_timed) cudaEventRecord(msm_ev[i], cu_stream());
}

/* Window size by n, from the sweep of cuzk-gpu-bench on the H200 with the
 * sweep bucket sums (docs/performance.md, session 3): up to 2^22 points
 * lg - 4 bits capped at 16 (2^20 and 2^22: 16 best); 2^24: 20 (116 ms,
 * 18: 118, 16: 121, 22: 172); 2^25: 19; 2^26: 20; 2^27: 22 (twelve
 * windows of 22 and 21 bits, session 5; uniform 21 and 22 bits measured
 * 794 and 774 ms in session 3), where its ~7 GB more working memory than
 * 21 bits fits (msm_fitting_plan); 2^23 takes 18, between its neighbours.
 * G2 (affine rounds, then tasks) keeps the table of its own sweep: lg - 4
 * capped at 16 (2^24: 16 bits 321 ms, 20 bits 356 ms), 2^25 19 and 20
 * beyond. */
static unsigned msm_default_window(size_t n, bool g2)
{
    unsigned lg = 0;
    while (((size_t)1 << lg) < n) lg++;
    static const unsigned big[] = {18, 20, 19, 20, 22}; /* 2^23 .. 2^27 */
    if (g2 && lg >= 25) return lg == 25 ? 19 : 20;
    if (!g2 && lg >= 23) return big[lg >= 27 ? 4 : lg - 23];
    unsigned c = lg > 4 ? lg - 4 : 1;
    if (c < 8) c = 8;
    if (c > 16) c = 16;
    return c;
}

static int msm_ws_get(msm_ws *w, size_t bytes, void **out, cuzk_err *err)
{
    if (w->bytes < bytes) {
        cu_free(w->mem);
        w->mem = NULL;
        w->bytes = 0;
        CU(cu_malloc(&w->mem, bytes), err, "msm workspace alloc");
        w->bytes = bytes;
    }
    *out = w->mem;
    return CUZK_OK;
}

struct msm_plan {
    msm_windows win;
    uint32_t n, c, nwin, half, seg, per_win, k0, sweep_threads;
    size_t pairs, nb, max_tasks, sort_bytes, scan_bytes, bytes;
    /* affine rounds: rounds, windows per group, positions and buckets of a
     * group, pairs per thread in round 0 */
    const msm_aff_cfg *aff;
    uint32_t aff_rounds, gwin, gpos, gnb, aff_pairs;
    /* offsets into the workspace */
    size_t keys, vals, keys2, vals2, start, end, ntask, off, task_bucket, part_a, part_b, counters;
    size_t buckets, partial, slices, sums, sort_tmp, scan_tmp;
    size_t st[2], cn[2], pts[2], bkt[2], scratch;
};

/* Pairs per thread for a round of `total` positions; 0 when the round would
 * leave too few threads (it is not worth its inversions then). */
static uint32_t msm_aff_pairs_for(size_t total, const msm_aff_cfg *cfg)
{
    uint32_t min_pairs = cfg->pairs;
    size_t want = (total / 2 + (1u << MSM_AFF_THREADS_LOG) - 1) >> MSM_AFF_THREADS_LOG;
    size_t pairs = want > min_pairs ? want : min_pairs;
    return total / (2 * pairs) >= cfg->threads ? (uint32_t)pairs : 0;
}

/* The affine rounds' share of the plan (none for small MSMs). */
static void msm_plan_affine(msm_plan *p)
{
    p->gwin = (uint32_t)(((size_t)1 << MSM_AFF_GROUP_LOG) / p->n);
    if (p->gwin < 1) p->gwin = 1;
    if (p->gwin > p->nwin) p->gwin = p->nwin;
    p->gpos = p->gwin * p->n;
    p->gnb = p->gwin * p->half;
    p->aff_pairs = msm_aff_pairs_for(p->gpos, p->aff);
    p->aff_rounds = p->aff_pairs ? p->aff->rounds : 0;
}

/* CUB's temporaries for sorting n pairs by c-bit keys and scanning the
 * bucket counts. CUB asks the device; where there is none and the caller
 * only sizes (err NULL: gpu_msm_workspace_for, as cuzk-bench plan runs it
 * on a host without a GPU), an estimate instead: the sort's alternate
 * key and value buffers (8 bytes a pair) and 1 MiB of histograms, 1 MiB
 * for the scan. */
static int msm_cub_sizes(msm_plan *p, size_t n, unsigned c, cuzk_err *err)
{
    cudaError_t e =
        cub::DeviceRadixSort::SortPairs(NULL, p->sort_bytes, (uint32_t *)NULL, (uint32_t *)NULL,
                                        (uint32_t *)NULL, (uint32_t *)NULL, (int)n, 0, (int)c);
    if (e == cudaSuccess)
        e = cub::DeviceScan::ExclusiveSum(NULL, p->scan_bytes, (uint32_t *)NULL, (uint32_t *)NULL,
                                          (int)p->nb);
    if (e == cudaSuccess) return CUZK_OK;
    if (err) return cu_fail(e, err, "msm sort sizing", __FILE__, __LINE__);
    cudaGetLastError();
    p->sort_bytes = 8 * n + ((size_t)1 << 20);
    p->scan_bytes = (size_t)1 << 20;
    return CUZK_OK;
}

static int msm_make_plan(msm_plan *p, size_t n, unsigned c, size_t point, size_t affine,
                         const msm_aff_cfg *aff, cuzk_err *err)
{
    memset(p, 0, sizeof *p);
    p->aff = aff;
    p->n = (uint32_t)n;
    p->c = c;
    p->win = msm_windows_for(c);
    p->nwin = p->win.nwin;
    p->half = 1u << (c - 1);
    p->seg = p->half < (1u << MSM_SEG_LOG) ? p->half : 1u << MSM_SEG_LOG;
    p->per_win = p->half / p->seg;
    p->pairs = (size_t)p->nwin * n;
    p->nb = (size_t)p->nwin * p->half;
    size_t mean = (n + p->half - 1) / p->half;
    p->k0 = 2 * mean < MSM_K_MIN ? MSM_K_MIN : (uint32_t)(2 * mean);
    /* the sweep takes k0 points per thread, so its slots fit the bound below */
    p->sweep_threads = (uint32_t)((p->pairs + p->k0 - 1) / p->k0);
    /* sum over buckets of ceil(count / k0) <= buckets + pairs / k0; the
     * sweep's slots: one per thread and per non-empty bucket */
    p->max_tasks = p->nb + p->pairs / p->k0;
    if (p->max_tasks < p->nb + p->sweep_threads + 1) p->max_tasks = p->nb + p->sweep_threads + 1;
    if (p->pairs >= ((size_t)1 << 32))
        return cuzk_errf(err, CUZK_EINVAL, "gpu msm: %zu points x %u windows exceed 2^32 pairs", n,
                         p->nwin);
    int rc = msm_cub_sizes(p, n, c, err);
    if (rc) return rc;
    size_t o = 0, nb = p->nb, pt = p->max_tasks * point;
    p->keys = o, o += cu_align256(p->pairs * 4);
    p->vals = o, o += cu_align256(p->pairs * 4);
    p->keys2 = o, o += cu_align256(p->pairs * 4);
    p->vals2 = o, o += cu_align256(p->pairs * 4);
    p->start = o, o += cu_align256(nb * 4);
    p->end = o, o += cu_align256(nb * 4);
    p->ntask = o, o += cu_align256(nb * 4);
    p->off = o, o += cu_align256(nb * 4);
    p->task_bucket = o, o += cu_align256(p->max_tasks * 4);
    p->part_a = o, o += cu_align256(pt);
    p->part_b = o, o += cu_align256(pt);
    p->counters = o, o += 256;
    p->buckets = o, o += cu_align256(nb * point);
    p->partial = o, o += cu_align256(2 * (size_t)p->nwin * p->per_win * point);
    /* G2 blocks have half the threads of G1 blocks, so at least as many slices */
    p->slices = o, o += cu_align256((size_t)p->nwin * msm_reduce_slices<fp2_d>(p->per_win) * point);
    p->sums = o, o += cu_align256((size_t)p->nwin * point);
    p->sort_tmp = o, o += cu_align256(p->sort_bytes);
    p->scan_tmp = o, o += cu_align256(p->scan_bytes);
    msm_plan_affine(p);
    if (p->aff_rounds) {
        /* round r's output holds at most gpos / 2^(r+1) + gnb points;
         * the prefix products of a thread are at most its pairs */
        size_t g = p->gpos, nbk = p->gnb, elem = point / 4;
        for (int i = 0; i < 2; i++) {
            size_t cap = (g >> (i + 1)) + nbk;
            p->st[i] = o, o += cu_align256(nbk * 4);
            p->cn[i] = o, o += cu_align256(nbk * 4);
            p->pts[i] = o, o += cu_align256(cap * affine);
            p->bkt[i] = o, o += cu_align256(cap * 4);
        }
        p->scratch = o, o += cu_align256((g / 2 + p->aff_pairs) * elem);
    }
    p->bytes = o;
    return CUZK_OK;
}

/* count 32-bit counters from the device, once the queued kernels are done */
static int msm_read_u32(uint32_t *out, const uint32_t *dev, size_t count, cuzk_err *err)
{
    CU_WAIT(err, "msm counters");
    CU(xfer_copy(out, dev, count * sizeof *out, GROTH16_XFER_RESULTS), err, "msm counters");
    return CUZK_OK;
}

/* Task rounds over nb buckets with runs [start, end) of the points
 * bases[vals[i]] (signed; vals NULL: bases[i]), k0 points per task in the
 * first round, or (partials) of XYZZ partial sums already in part_a; the
 * sums land in buckets (msm_kernels.cuh). */
template <class F>
static int msm_task_rounds(const msm_plan *p, char *ws, uint32_t nb, uint32_t *start, uint32_t *end,
                           const affine_d<F> *bases, const uint32_t *vals, uint32_t k0,
                           bool partials, xyzz_d<F> *buckets, cuzk_err *err)
{
    uint32_t *ntask = (uint32_t *)(ws + p->ntask), *off = (uint32_t *)(ws + p->off);
    uint32_t *task_bucket = (uint32_t *)(ws + p->task_bucket),
             *cnt = (uint32_t *)(ws + p->counters);
    xyzz_d<F> *in = (xyzz_d<F> *)(ws + p->part_a), *out = (xyzz_d<F> *)(ws + p->part_b);
    uint32_t blocks = cu_blocks(nb, 256);
    for (unsigned round = 0;; round++) {
        uint32_t k = round || partials ? MSM_K_LATER : k0, host[2];
        size_t scan_bytes = p->scan_bytes;
        if (round) msm_task_next<<<blocks, 256, 0, cu_kstream()>>>(off, ntask, nb, start, end);
        CU(cudaMemsetAsync(cnt, 0, 4, cu_stream()), err, "msm memset");
        msm_task_count<<<blocks, 256, 0, cu_kstream()>>>(start, end, k, nb, ntask, cnt);
        CU_LAUNCH(err, "msm_task_count");
        CU(cub::DeviceScan::ExclusiveSum(ws + p->scan_tmp, scan_bytes, ntask, off, (int)nb,
                                         cu_kstream()),
           err, "msm scan");
        msm_task_total<<<1, 1, 0, cu_kstream()>>>(off, ntask, nb, cnt);
        CU_LAUNCH(err, "msm_task_total");
        int rc = msm_read_u32(host, cnt, 2, err);
        if (rc) return rc;
        uint32_t tasks = host[1];
        if (tasks > 0) {
            msm_task_map<<<blocks, 256, 0, cu_kstream()>>>(off, ntask, nb, task_bucket);
            if (round == 0 && !partials)
                msm_task_sum<F><<<cu_blocks(tasks, 128), 128, 0, cu_kstream()>>>(
                    task_bucket, off, start, end, k, bases, vals, tasks, out);
            else
                msm_task_sum_xyzz<F><<<cu_blocks(tasks, 128), 128, 0, cu_kstream()>>>(
                    task_bucket, off, start, end, k, in, tasks, out);
            CU_LAUNCH(err, "msm_task_sum");
        }
        xyzz_d<F> *t = in;
        in = out, out = t;
        if (host[0] <= 1) break; /* every bucket is down to one partial */
    }
    msm_task_gather<F><<<blocks, 256, 0, cu_kstream()>>>(off, ntask, nb, in, buckets);
    CU_LAUNCH(err, "msm_task_gather");
    return CUZK_OK;
}

/* The affine rounds of windows w0 .. w0 + g - 1 (msm_affine.cuh). On
 * return *done rounds ran (0: none was worth it) and the group's points
 * are at pts[(done - 1) & 1], bucket b at [st, st + cn) of index done & 1,
 * *total of them. */
template <class F>
static int msm_affine_group(const msm_plan *p, char *ws, uint32_t w0, uint32_t g,
                            const affine_d<F> *bases, unsigned *done, uint32_t *total,
                            cuzk_err *err)
{
    uint32_t nbk = g * p->half, blocks = cu_blocks(nbk, 256), *st[2], *cn[2];
    for (int i = 0; i < 2; i++)
        st[i] = (uint32_t *)(ws + p->st[i]), cn[i] = (uint32_t *)(ws + p->cn[i]);
    *done = 0;
    *total = g * p->n;
    for (unsigned r = 0; r < p->aff_rounds; r++) {
        uint32_t pairs = msm_aff_pairs_for(*total, p->aff), in = r & 1, out = in ^ 1, last;
        if (!pairs) break;
        if (r == 0)
            msm_aff_first<<<blocks, 256, 0, cu_kstream()>>>(
                (uint32_t *)(ws + p->start) + (size_t)w0 * p->half,
                (uint32_t *)(ws + p->end) + (size_t)w0 * p->half, w0 * p->n, nbk, st[0], cn[0],
                cn[1]);
        else
            msm_aff_halve<<<blocks, 256, 0, cu_kstream()>>>(cn[in], nbk, cn[out]);
        CU_LAUNCH(err, "msm_aff_counts");
        size_t scan_bytes = p->scan_bytes;
        CU(cub::DeviceScan::ExclusiveSum(ws + p->scan_tmp, scan_bytes, cn[out], st[out], (int)nbk,
                                         cu_kstream()),
           err, "msm scan");
        msm_aff_args<F> a;
        memset(&a, 0, sizeof a);
        a.pts = r ? (const affine_d<F> *)(ws + p->pts[in ^ 1]) : bases;
        a.vals = (const uint32_t *)(ws + p->vals2) + (size_t)w0 * p->n;
        a.keys = (const uint32_t *)(ws + p->keys2) + (size_t)w0 * p->n;
        a.bkt = (const uint32_t *)(ws + p->bkt[in ^ 1]);
        a.st = st[in], a.cn = cn[in], a.ost = st[out];
        a.total = *total, a.n = p->n, a.half = p->half;
        a.per = 2 * pairs, a.threads = (*total + a.per - 1) / a.per;
        a.scratch = (F *)(ws + p->scratch);
        a.out = (affine_d<F> *)(ws + p->pts[in]);
        a.obkt = (uint32_t *)(ws + p->bkt[in]);
        if (r == 0)
            msm_aff_round<F, true><<<cu_blocks(a.threads, 128), 128, 0, cu_kstream()>>>(a);
        else
            msm_aff_round<F, false><<<cu_blocks(a.threads, 128), 128, 0, cu_kstream()>>>(a);
        CU_LAUNCH(err, "msm_aff_round");
        int rc = msm_read_u32(total, st[out] + nbk - 1, 1, err);
        if (!rc) rc = msm_read_u32(&last, cn[out] + nbk - 1, 1, err);
        if (rc) return rc;
        *total += last;
        *done = r + 1;
    }
    return CUZK_OK;
}

/* The sweep's launch; bail (yield.cu rule 5) NULL: every chunk left. */
template <class F>
static int msm_sweep_launch(const msm_plan *p, char *ws, const affine_d<F> *bases,
                            const uint32_t *rank, uint32_t *claim, const int *bail, cuzk_err *err)
{
    msm_sweep<F><<<cu_blocks(p->sweep_threads, 128), 128, 0, cu_kstream()>>>(
        p->k0, (uint32_t)p->pairs, (const uint32_t *)(ws + p->keys2),
        (const uint32_t *)(ws + p->vals2), p->n, p->half, rank, bases, p->sweep_threads,
        (xyzz_d<F> *)(ws + p->part_a), claim, bail);
    CU_LAUNCH(err, "msm_sweep");
    return CUZK_OK;
}

/* Step 3 without affine rounds: the sweep over all sorted positions into
 * slots (msm_sweep), then task rounds over each bucket's slots. A big
 * prover's sweep bails while a lane proof runs (yield.cu rule 5): once
 * its launch is done, a second one without the flag, after rule 2's
 * wait, sweeps the chunks left (none, its blocks end at once, when no
 * lane proof came). */
template <class F>
static int msm_sweep_rounds(const msm_plan *p, char *ws, const affine_d<F> *bases, cuzk_err *err)
{
    uint32_t *start = (uint32_t *)(ws + p->start), *end = (uint32_t *)(ws + p->end);
    uint32_t *flag = (uint32_t *)(ws + p->ntask), *rank = (uint32_t *)(ws + p->off);
    uint32_t *claim = (uint32_t *)(ws + p->counters) + MSM_CLAIM_AT;
    uint32_t nb = (uint32_t)p->nb, blocks = cu_blocks(nb, 256);
    size_t scan_bytes = p->scan_bytes;
    const int *bail = cu_yield_bail();
    msm_nonempty<<<blocks, 256, 0, cu_kstream()>>>(start, end, nb, flag);
    CU_LAUNCH(err, "msm_nonempty");
    CU(cub::DeviceScan::ExclusiveSum(ws + p->scan_tmp, scan_bytes, flag, rank, (int)nb,
                                     cu_kstream()),
       err, "msm scan");
    CU(cudaMemsetAsync(claim, 0, sizeof *claim, cu_stream()), err, "msm memset");
    int rc = msm_sweep_launch<F>(p, ws, bases, rank, claim, bail, err);
    if (!rc && bail) {
        CU_WAIT(err, "msm sweep");
        rc = msm_sweep_launch<F>(p, ws, bases, rank, claim, NULL, err);
    }
    if (rc) return rc;
    msm_mark(2);
    msm_sweep_bounds<<<blocks, 256, 0, cu_kstream()>>>(rank, p->k0, nb, start, end);
    CU_LAUNCH(err, "msm_sweep_bounds");
    return msm_task_rounds<F>(p, ws, nb, start, end, (const affine_d<F> *)NULL, NULL, 0, true,
                              (xyzz_d<F> *)(ws + p->buckets), err);
}

/* Step 3: the bucket sums: affine rounds then tasks per window group, or
 * the sweep. */
template <class F>
static int msm_buckets(const msm_plan *p, char *ws, const affine_d<F> *bases, cuzk_err *err)
{
    uint32_t *start = (uint32_t *)(ws + p->start), *end = (uint32_t *)(ws + p->end);
    const uint32_t *vals = (const uint32_t *)(ws + p->vals2);
    xyzz_d<F> *buckets = (xyzz_d<F> *)(ws + p->buckets);
    if (!p->aff_rounds) return msm_sweep_rounds<F>(p, ws, bases, err);
    msm_mark(2);
    for (uint32_t w0 = 0; w0 < p->nwin; w0 += p->gwin) {
        uint32_t g = p->nwin - w0 < p->gwin ? p->nwin - w0 : p->gwin, nbk = g * p->half, total;
        size_t b0 = (size_t)w0 * p->half;
        unsigned done;
        int rc = msm_affine_group<F>(p, ws, w0, g, bases, &done, &total, err);
        if (rc) return rc;
        if (!done) {
            rc = msm_task_rounds<F>(p, ws, nbk, start + b0, end + b0, bases, vals, p->k0, false,
                                    buckets + b0, err);
            if (rc) return rc;
            continue;
        }
        unsigned o = done & 1;
        msm_task_next<<<cu_blocks(nbk, 256), 256, 0, cu_kstream()>>>(
            (uint32_t *)(ws + p->st[o]), (uint32_t *)(ws + p->cn[o]), nbk, start + b0, end + b0);
        CU_LAUNCH(err, "msm run bounds");
        /* tasks of about twice the mean bucket, within the task arrays */
        size_t room = p->max_tasks > nbk ? p->max_tasks - nbk : 1;
        size_t k = 2 * (((size_t)total + nbk - 1) / nbk), fit = (total + room - 1) / room;
        if (k < fit) k = fit;
        if (k < MSM_K_MIN) k = MSM_K_MIN;
        rc = msm_task_rounds<F>(p, ws, nbk, start + b0, end + b0,
                                (const affine_d<F> *)(ws + p->pts[(done - 1) & 1]), NULL,
                                (uint32_t)k, false, buckets + b0, err);
        if (rc) return rc;
    }
    return CUZK_OK;
}

/* Steps 1-4: leaves the W window sums at ws + p->sums. */
template <class F>
static int msm_device(const msm_plan *p, char *ws, const affine_d<F> *bases, const fr_d *scalars,
                      cuzk_err *err)
{
    uint32_t *keys = (uint32_t *)(ws + p->keys), *vals = (uint32_t *)(ws + p->vals);
    uint32_t *keys2 = (uint32_t *)(ws + p->keys2), *vals2 = (uint32_t *)(ws + p->vals2);
    uint32_t *start = (uint32_t *)(ws + p->start), *end = (uint32_t *)(ws + p->end);
    xyzz_d<F> *buckets = (xyzz_d<F> *)(ws + p->buckets);
    xyzz_d<F> *partial = (xyzz_d<F> *)(ws + p->partial);

    msm_mark(0);
    msm_digits<<<cu_blocks(p->n, 256), 256, 0, cu_kstream()>>>(scalars, p->n, p->win, keys, vals);
    CU_LAUNCH(err, "msm_digits");
    CU(cudaMemsetAsync(start, 0, p->nb * 4, cu_stream()), err, "msm memset");
    CU(cudaMemsetAsync(end, 0, p->nb * 4, cu_stream()), err, "msm memset");
    for (uint32_t w = 0; w < p->nwin; w++) {
        size_t o = (size_t)w * p->n, tmp_bytes = p->sort_bytes;
        CU(cub::DeviceRadixSort::SortPairs(ws + p->sort_tmp, tmp_bytes, keys + o, keys2 + o,
                                           vals + o, vals2 + o, (int)p->n, 0, (int)p->c,
                                           cu_kstream()),
           err, "msm sort");
        msm_bounds<<<cu_blocks(p->n, 256), 256, 0, cu_kstream()>>>(
            keys2 + o, p->n, p->half, o, start + (size_t)w * p->half, end + (size_t)w * p->half);
        CU_LAUNCH(err, "msm_bounds");
    }
    msm_mark(1);
    int rc = msm_buckets<F>(p, ws, bases, err);
    if (rc) return rc;
    msm_mark(3);
    uint32_t threads = p->nwin * p->per_win;
    msm_segments<F><<<cu_blocks(threads, 128), 128, 0, cu_kstream()>>>(buckets, p->half, p->seg,
                                                                       threads, partial);
    CU_LAUNCH(err, "msm_segments");
    uint32_t x = msm_reduce_slices<F>(p->per_win);
    xyzz_d<F> *slices = (xyzz_d<F> *)(ws + p->slices);
    msm_reduce<F><<<p->nwin * x, MSM_RED_THREADS(F), 0, cu_kstream()>>>(partial, p->per_win, p->seg,
                                                                        x, slices);
    CU_LAUNCH(err, "msm_reduce");
    msm_reduce_slices_sum<F>
        <<<1, p->nwin, 0, cu_kstream()>>>(slices, p->nwin, x, (xyzz_d<F> *)(ws + p->sums));
    CU_LAUNCH(err, "msm_reduce_slices_sum");
    msm_mark(4);
    return CUZK_OK;
}

/* The CPU group law of each group, for step 5. */
template <class F> struct msm_host;
template <> struct msm_host<fp_d> {
    typedef g1_xyzz_t xyzz;
    typedef g1_jac_t jac;
    static void set_inf(xyzz *r) { g1_xyzz_set_inf(r); }
    static void dbl(xyzz *r) { g1_xyzz_dbl(r, r); }
    static void add(xyzz *r, const xyzz *a) { g1_xyzz_add(r, r, a); }
    static void to_jac(jac *r, const xyzz *a) { g1_xyzz_to_jac(r, a); }
};
template <> struct msm_host<fp2_d> {
    typedef g2_xyzz_t xyzz;
    typedef g2_jac_t jac;
    static void set_inf(xyzz *r) { g2_xyzz_set_inf(r); }
    static void dbl(xyzz *r) { g2_xyzz_dbl(r, r); }
    static void add(xyzz *r, const xyzz *a) { g2_xyzz_add(r, r, a); }
    static void to_jac(jac *r, const xyzz *a) { g2_xyzz_to_jac(r, a); }
};

/* Step 5: sum_w 2^(first bit of w) S_w by Horner on the host. */
template <class F>
static void msm_combine(typename msm_host<F>::jac *out, const typename msm_host<F>::xyzz *sums,
                        const msm_windows &m)
{
    typedef msm_host<F> H;
    typename H::xyzz acc;
    H::set_inf(&acc);
    for (int w = (int)m.nwin - 1; w >= 0; w--) {
        for (unsigned i = 0; i < msm_win_bits(m, w) && w < (int)m.nwin - 1; i++) H::dbl(&acc);
        H::add(&acc, &sums[w]);
    }
    H::to_jac(out, &acc);
}

/* Device memory the workspace may grow into, less a spare GiB. */
#define MSM_SPARE ((size_t)1 << 30)
static bool msm_ws_fits(const msm_ws *w, size_t bytes)
{
    size_t free_b = 0, total = 0;
    if (bytes <= w->bytes) return true;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) return false;
    return free_b + w->bytes >= bytes + MSM_SPARE;
}

/* The plan of `window` bits, or of the default window; when the default's
 * working memory does not fit on the device, the plan of one bit less if
 * that needs less (2^27: 21 bits, ~7 GB less than 22). */
template <class F>
static int msm_fitting_plan(msm_plan *p, const msm_ws *w, const msm_aff_cfg *aff, size_t n,
                            unsigned window, cuzk_err *err)
{
    const bool g2 = sizeof(F) != sizeof(fp_d);
    unsigned c = window ? window : msm_default_window(n, g2);
    int rc = msm_make_plan(p, n, c, sizeof(xyzz_d<F>), sizeof(affine_d<F>), aff, err);
    if (rc || window || c <= 8 || msm_ws_fits(w, p->bytes)) return rc;
    msm_plan q;
    if (!msm_make_plan(&q, n, c - 1, sizeof(xyzz_d<F>), sizeof(affine_d<F>), aff, NULL) &&
        q.bytes < p->bytes)
        *p = q;
    return CUZK_OK;
}

template <class F>
static int msm_run(typename msm_host<F>::jac *out, msm_ws *w, int dev, const affine_d<F> *bases,
                   const fr_d *scalars, size_t n, unsigned window, cuzk_err *err)
{
    msm_plan p;
    void *ws;
    pthread_mutex_lock(&msm_lock);
    const msm_aff_cfg aff = msm_aff[sizeof(F) != sizeof(fp_d)];
    msm_timed = msm_timing_dev == dev;
    pthread_mutex_unlock(&msm_lock);
    int rc = msm_fitting_plan<F>(&p, w, &aff, n, window, err);
    if (!rc) rc = msm_ws_get(w, p.bytes, &ws, err);
    if (!rc) rc = msm_device<F>(&p, (char *)ws, bases, scalars, err);
    if (rc) return rc;
    typename msm_host<F>::xyzz sums[256];
    CU_WAIT(err, "msm");
    pthread_mutex_lock(&msm_lock);
    cudaError_t e = cudaSuccess;
    for (int i = 0; msm_timed && e == cudaSuccess && i < MSM_MARKS - 1; i++)
        e = cudaEventElapsedTime(&msm_phase[i], msm_ev[i], msm_ev[i + 1]);
    pthread_mutex_unlock(&msm_lock);
    CU(e, err, "msm timing");
    CU(xfer_copy(sums, (char *)ws + p.sums, p.nwin * sizeof sums[0], GROTH16_XFER_RESULTS), err,
       "msm");
    msm_combine<F>(out, sums, p.win);
    return CUZK_OK;
}

static int msm_check(size_t n, unsigned window, cuzk_err *err)
{
    if (n == 0 || n >= MSM_MAX_N)
        return cuzk_errf(err, CUZK_EINVAL, "gpu msm: %zu points (1 .. 2^31 - 1 allowed)", n);
    if (window != 0 && (window < 2 || window > 24))
        return cuzk_errf(err, CUZK_EINVAL, "gpu msm: window of %u bits (2 .. 24 allowed)", window);
    return CUZK_OK;
}

template <class F>
static int msm_dev(typename msm_host<F>::jac *out, const gpu_buf *bases, const gpu_buf *scalars,
                   size_t n, unsigned window, cuzk_err *err)
{
    int rc = msm_check(n, window, err);
    if (rc) return rc;
    if (bases->bytes < n * sizeof(affine_d<F>) || scalars->bytes < n * sizeof(fr_t))
        return cuzk_errf(err, CUZK_EINVAL, "gpu msm: buffers smaller than %zu points", n);
    int dev;
    int slot;
    if ((rc = cu_device(&dev, err)) || (rc = cu_slot(&slot, err))) return rc;
    std::lock_guard<std::mutex> hold(msm_work[slot].lock);
    return msm_run<F>(out, &msm_work[slot], dev, (const affine_d<F> *)bases->ptr,
                      (const fr_d *)scalars->ptr, n, window, err);
}

template <class F>
static int msm_host_buffers(typename msm_host<F>::jac *out, const void *bases, const fr_t *scalars,
                            size_t n, cuzk_err *err)
{
    int rc = msm_check(n, 0, err);
    if (rc) return rc;
    gpu_buf *b = NULL, *s = NULL;
    rc = gpu_buf_new(&b, n * sizeof(affine_d<F>), err);
    if (!rc) rc = gpu_buf_new(&s, n * sizeof(fr_t), err);
    if (!rc) rc = gpu_buf_upload(b, 0, bases, n * sizeof(affine_d<F>), err);
    if (!rc) rc = gpu_buf_upload(s, 0, scalars, n * sizeof(fr_t), err);
    if (!rc) rc = msm_dev<F>(out, b, s, n, 0, err);
    gpu_buf_free(b);
    gpu_buf_free(s);
    return rc;
}

extern "C" void gpu_msm_workspace_trim(size_t max)
{
    int dev;
    if (cu_slot(&dev, NULL)) return;
    std::lock_guard<std::mutex> hold(msm_work[dev].lock);
    msm_ws *w = &msm_work[dev];
    if (w->bytes <= max) return;
    cu_free(w->mem);
    w->mem = NULL;
    w->bytes = 0;
}

extern "C" int gpu_msm_workspace_reserve(size_t bytes, cuzk_err *err)
{
    int dev;
    int rc = cu_slot(&dev, err);
    if (rc) return rc;
    std::lock_guard<std::mutex> hold(msm_work[dev].lock);
    void *p;
    return msm_ws_get(&msm_work[dev], bytes, &p, err);
}

extern "C" size_t gpu_msm_workspace_for(size_t n, int g2)
{
    msm_plan p;
    if (n == 0) return 0;
    if (n >= MSM_MAX_N) return SIZE_MAX;
    const msm_aff_cfg *aff = &msm_aff[g2 != 0];
    size_t point = g2 ? sizeof(xyzz_d<fp2_d>) : sizeof(xyzz_d<fp_d>);
    size_t affine = g2 ? sizeof(affine_d<fp2_d>) : sizeof(affine_d<fp_d>);
    unsigned c = msm_default_window(n, g2 != 0);
    pthread_mutex_lock(&msm_lock);
    msm_aff_cfg cfg = *aff;
    pthread_mutex_unlock(&msm_lock);
    if (msm_make_plan(&p, n, c, point, affine, &cfg, NULL)) return SIZE_MAX;
    return p.bytes;
}

extern "C" size_t gpu_msm_workspace_bytes(void)
{
    int dev;
    if (cu_slot(&dev, NULL)) return 0;
    std::lock_guard<std::mutex> hold(msm_work[dev].lock);
    return msm_work[dev].bytes;
}

extern "C" int gpu_msm_set_timing(int on, cuzk_err *err)
{
    pthread_mutex_lock(&msm_lock);
    int rc = CUZK_OK;
    for (int i = 0; on && i < MSM_MARKS && !rc; i++)
        if (!msm_ev[i]) {
            cudaError_t e = cu_event_new(&msm_ev[i], true);
            if (e != cudaSuccess) rc = cu_fail(e, err, "msm timing events", __FILE__, __LINE__);
        }
    int dev = -1;
    if (on && !rc) rc = cu_device(&dev, err);
    msm_timing_dev = on && !rc ? dev : -1;
    pthread_mutex_unlock(&msm_lock);
    return rc;
}

extern "C" void gpu_msm_last_phases(float ms[4])
{
    pthread_mutex_lock(&msm_lock);
    memcpy(ms, msm_phase, sizeof msm_phase);
    pthread_mutex_unlock(&msm_lock);
}

extern "C" int gpu_msm_set_affine(unsigned group, unsigned rounds, unsigned min_pairs,
                                  unsigned min_threads, cuzk_err *err)
{
    if (group < 1 || group > 2 || rounds > 8 || min_pairs < 1 || min_pairs > 65536 ||
        min_threads < 1 || min_threads > (1u << 24))
        return cuzk_errf(err, CUZK_EINVAL,
                         "gpu msm: G%u, %u affine rounds, at least %u pairs and %u threads (G1 or "
                         "G2, 0 .. 8 rounds, 1 .. 65536 pairs, 1 .. 2^24 threads allowed)",
                         group, rounds, min_pairs, min_threads);
    pthread_mutex_lock(&msm_lock);
    msm_aff[group - 1] = {group, rounds, min_pairs, min_threads};
    pthread_mutex_unlock(&msm_lock);
    return CUZK_OK;
}

extern "C" int gpu_msm_g1_dev(g1_jac_t *out, const gpu_buf *bases, const gpu_buf *scalars, size_t n,
                              unsigned window, cuzk_err *err)
{
    return msm_dev<fp_d>(out, bases, scalars, n, window, err);
}

extern "C" int gpu_msm_g2_dev(g2_jac_t *out, const gpu_buf *bases, const gpu_buf *scalars, size_t n,
                              unsigned window, cuzk_err *err)
{
    return msm_dev<fp2_d>(out, bases, scalars, n, window, err);
}

extern "C" int gpu_msm_g1(g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                          cuzk_err *err)
{
    return msm_host_buffers<fp_d>(out, bases, scalars, n, err);
}

extern "C" int gpu_msm_g2(g2_jac_t *out, const g2_affine_t *bases, const fr_t *scalars, size_t n,
                          cuzk_err *err)
{
    return msm_host_buffers<fp2_d>(out, bases, scalars, n, err);
}

#define MSM_BENCH_DISTINCT 65536

/* The multiples k_j G of the generator, the same for both groups. */
template <class F> struct msm_bench_group;
template <> struct msm_bench_group<fp_d> {
    typedef g1_affine_t aff;
    typedef g1_jac_t jac;
    static const aff *gen() { return &g1_GENERATOR; }
    static int mul(jac *j, const aff *p, const fr_t *k, size_t m, cuzk_err *err)
    {
        return gpu_g1_mul_vec(j, p, k, m, err);
    }
    static void to_affine(aff *p, const jac *j, size_t m) { g1_jac_batch_to_affine(p, j, m); }
};
template <> struct msm_bench_group<fp2_d> {
    typedef g2_affine_t aff;
    typedef g2_jac_t jac;
    static const aff *gen() { return &g2_GENERATOR; }
    static int mul(jac *j, const aff *p, const fr_t *k, size_t m, cuzk_err *err)
    {
        return gpu_g2_mul_vec(j, p, k, m, err);
    }
    static void to_affine(aff *p, const jac *j, size_t m) { g2_jac_batch_to_affine(p, j, m); }
};

template <class F>
static int msm_bench_bases(gpu_buf *bases, size_t n, uint64_t seed, cuzk_err *err)
{
    typedef msm_bench_group<F> G;
    size_t m = n < MSM_BENCH_DISTINCT ? n : MSM_BENCH_DISTINCT;
    if (bases->bytes < n * sizeof(typename G::aff))
        return cuzk_errf(err, CUZK_EINVAL, "gpu bench bases: buffer smaller than %zu points", n);
    typename G::aff *p = (typename G::aff *)malloc(m * sizeof *p);
    typename G::jac *j = (typename G::jac *)malloc(m * sizeof *j);
    fr_t *k = (fr_t *)malloc(m * sizeof *k);
    int rc = (p && j && k) ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "gpu bench bases");
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    for (size_t i = 0; !rc && i < m; i++) {
        uint64_t limbs[4] = {cuzk_rng_u64(&g), 0, 0, 0};
        fr_from_canonical(&k[i], limbs);
        p[i] = *G::gen();
    }
    if (!rc) rc = G::mul(j, p, k, m, err);
    if (!rc) {
        G::to_affine(p, j, m);
        rc = gpu_buf_upload(bases, 0, p, m * sizeof *p, err);
    }
    /* repeat the first m points, doubling the filled prefix each time */
    for (size_t done = m; !rc && done < n;) {
        size_t c = done < n - done ? done : n - done;
        char *base = (char *)bases->ptr;
        cudaError_t e =
            cudaMemcpy(base + done * sizeof *p, base, c * sizeof *p, cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess) rc = cu_fail(e, err, "gpu bench bases copy", __FILE__, __LINE__);
        done += c;
    }
    free(p);
    free(j);
    free(k);
    return rc;
}

extern "C" int gpu_g1_bench_bases(gpu_buf *bases, size_t n, uint64_t seed, cuzk_err *err)
{
    return msm_bench_bases<fp_d>(bases, n, seed, err);
}

extern "C" int gpu_g2_bench_bases(gpu_buf *bases, size_t n, uint64_t seed, cuzk_err *err)
{
    return msm_bench_bases<fp2_d>(bases, n, seed, err);
}
