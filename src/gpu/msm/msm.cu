/*
 * msm.cu - G1 and G2 multi-scalar multiplication on the device (Pippenger),
 * one template over the coordinate field (fp_d for G1, fp2_d for G2).
 *
 * For n points and windows of c bits (W = ceil(256 / c) windows):
 *  1. msm_digits: each scalar leaves Montgomery form and is cut into W
 *     signed digits; per window, a (bucket, point | sign) pair per point.
 *  2. CUB radix sort of each window's pairs by bucket (c key bits), so
 *     each bucket's points form one run; msm_bounds finds the runs.
 *  3. Bucket sums (8M+2S per point in XYZZ): n W additions, the bulk of
 *     the work, in tasks of at most K points per thread (msm_kernels.cuh),
 *     K about twice the mean bucket size, so a crowded bucket (the top
 *     window, repeated scalars) is spread over many threads; buckets cut
 *     into several tasks have their partial sums added in further rounds.
 *  4. msm_segments + msm_reduce: per window sum_v v B_v by running sums
 *     over segments of buckets, then a tree over the segments.
 *  5. The host combines the W window sums by Horner (c doublings per
 *     window) with the CPU group law (ec.h): about 270 operations.
 * The working memory (8 W n bytes of pairs, twice, plus the buckets) is
 * kept between calls and grown on demand.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu/msm/msm_kernels.cuh"
#include "gpu/util/buf.cuh"
#include "gpu/util/check.cuh"

#define MSM_MAX_N   (1u << 31)
#define MSM_SEG_LOG 5  /* buckets per reduction thread: 32 */
#define MSM_K_MIN   8  /* the fewest points per task */
#define MSM_K_LATER 32 /* partial sums per task after the first round */

struct msm_ws {
    void *mem;
    size_t bytes;
};
static pthread_mutex_t msm_lock = PTHREAD_MUTEX_INITIALIZER;
static bool msm_inline; /* G1 bucket sums over fp_inline_d (gpu_msm_set_inline) */
static msm_ws msm_work;

/* Window size by n, from the sweep of cuzk-gpu-bench on the H200
 * (docs/performance.md, run 2): up to 2^24 points lg - 4 bits capped at
 * 16 (2^24: 16 beat 18, 20, 22); 2^25: 19; 2^26: 20; 2^27: 19 (the sort
 * and the bucket memory grow with the window faster than the additions
 * shrink). */
static unsigned msm_default_window(size_t n)
{
    unsigned lg = 0;
    while (((size_t)1 << lg) < n) lg++;
    if (lg >= 25) return lg == 26 ? 20 : 19;
    unsigned c = lg > 4 ? lg - 4 : 1;
    if (c < 8) c = 8;
    if (c > 16) c = 16;
    return c;
}

static int msm_ws_get(size_t bytes, void **out, cuzk_err *err)
{
    if (msm_work.bytes < bytes) {
        cudaFree(msm_work.mem);
        msm_work.mem = NULL;
        msm_work.bytes = 0;
        CU(cudaMalloc(&msm_work.mem, bytes), err, "msm workspace alloc");
        msm_work.bytes = bytes;
    }
    *out = msm_work.mem;
    return CUZK_OK;
}

struct msm_plan {
    uint32_t n, c, nwin, half, seg, per_win, k0;
    size_t pairs, nb, max_tasks, sort_bytes, scan_bytes, bytes;
    /* offsets into the workspace */
    size_t keys, vals, keys2, vals2, start, end, ntask, off, task_bucket, part_a, part_b, counters;
    size_t buckets, partial, sums, sort_tmp, scan_tmp;
};

static size_t align256(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

static int msm_make_plan(msm_plan *p, size_t n, unsigned c, size_t point, cuzk_err *err)
{
    memset(p, 0, sizeof *p);
    p->n = (uint32_t)n;
    p->c = c;
    p->nwin = (256 + c - 1) / c;
    p->half = 1u << (c - 1);
    p->seg = p->half < (1u << MSM_SEG_LOG) ? p->half : 1u << MSM_SEG_LOG;
    p->per_win = p->half / p->seg;
    p->pairs = (size_t)p->nwin * n;
    p->nb = (size_t)p->nwin * p->half;
    size_t mean = (n + p->half - 1) / p->half;
    p->k0 = 2 * mean < MSM_K_MIN ? MSM_K_MIN : (uint32_t)(2 * mean);
    /* sum over buckets of ceil(count / k0) <= buckets + pairs / k0 */
    p->max_tasks = p->nb + p->pairs / p->k0;
    if (p->pairs >= ((size_t)1 << 32))
        return cuzk_errf(err, CUZK_EINVAL, "gpu msm: %zu points x %u windows exceed 2^32 pairs", n,
                         p->nwin);
    CU(cub::DeviceRadixSort::SortPairs(NULL, p->sort_bytes, (uint32_t *)NULL, (uint32_t *)NULL,
                                       (uint32_t *)NULL, (uint32_t *)NULL, (int)n, 0, (int)c),
       err, "msm sort sizing");
    CU(cub::DeviceScan::ExclusiveSum(NULL, p->scan_bytes, (uint32_t *)NULL, (uint32_t *)NULL,
                                     (int)p->nb),
       err, "msm scan sizing");
    size_t o = 0, nb = p->nb, pt = p->max_tasks * point;
    p->keys = o, o += align256(p->pairs * 4);
    p->vals = o, o += align256(p->pairs * 4);
    p->keys2 = o, o += align256(p->pairs * 4);
    p->vals2 = o, o += align256(p->pairs * 4);
    p->start = o, o += align256(nb * 4);
    p->end = o, o += align256(nb * 4);
    p->ntask = o, o += align256(nb * 4);
    p->off = o, o += align256(nb * 4);
    p->task_bucket = o, o += align256(p->max_tasks * 4);
    p->part_a = o, o += align256(pt);
    p->part_b = o, o += align256(pt);
    p->counters = o, o += 256;
    p->buckets = o, o += align256(nb * point);
    p->partial = o, o += align256((size_t)p->nwin * p->per_win * point);
    p->sums = o, o += align256((size_t)p->nwin * point);
    p->sort_tmp = o, o += align256(p->sort_bytes);
    p->scan_tmp = o, o += align256(p->scan_bytes);
    p->bytes = o;
    return CUZK_OK;
}

/* The first round, the hot loop: for G1 optionally over fp_inline_d (the
 * same layout as fp_d, products inlined instead of called). */
template <class F>
static void msm_first_round(const uint32_t *task_bucket, const uint32_t *off, const uint32_t *start,
                            const uint32_t *end, uint32_t k, const affine_d<F> *bases,
                            const uint32_t *vals, uint32_t tasks, xyzz_d<F> *out)
{
    if (sizeof(F) == sizeof(fp_d) && msm_inline)
        msm_task_sum<fp_inline_d><<<cu_blocks(tasks, 128), 128>>>(
            task_bucket, off, start, end, k, (const affine_d<fp_inline_d> *)bases, vals, tasks,
            (xyzz_d<fp_inline_d> *)out);
    else
        msm_task_sum<F><<<cu_blocks(tasks, 128), 128>>>(task_bucket, off, start, end, k, bases,
                                                        vals, tasks, out);
}

/* Step 3: the bucket sums, in rounds of tasks (msm_kernels.cuh). */
template <class F>
static int msm_buckets(const msm_plan *p, char *ws, const affine_d<F> *bases, cuzk_err *err)
{
    uint32_t *start = (uint32_t *)(ws + p->start), *end = (uint32_t *)(ws + p->end);
    uint32_t *ntask = (uint32_t *)(ws + p->ntask), *off = (uint32_t *)(ws + p->off);
    uint32_t *task_bucket = (uint32_t *)(ws + p->task_bucket),
             *cnt = (uint32_t *)(ws + p->counters);
    const uint32_t *vals = (const uint32_t *)(ws + p->vals2);
    xyzz_d<F> *in = (xyzz_d<F> *)(ws + p->part_a), *out = (xyzz_d<F> *)(ws + p->part_b);
    uint32_t nb = (uint32_t)p->nb, blocks = cu_blocks(nb, 256);
    for (unsigned round = 0;; round++) {
        uint32_t k = round ? MSM_K_LATER : p->k0, host[3];
        size_t scan_bytes = p->scan_bytes;
        if (round) msm_task_next<<<blocks, 256>>>(off, ntask, nb, start, end);
        CU(cudaMemsetAsync(cnt, 0, 4), err, "msm memset");
        msm_task_count<<<blocks, 256>>>(start, end, k, nb, ntask, cnt);
        CU_LAUNCH(err, "msm_task_count");
        CU(cub::DeviceScan::ExclusiveSum(ws + p->scan_tmp, scan_bytes, ntask, off, (int)nb), err,
           "msm scan");
        CU(cudaMemcpy(&host[0], cnt, 4, cudaMemcpyDeviceToHost), err, "msm counters");
        CU(cudaMemcpy(&host[1], off + nb - 1, 4, cudaMemcpyDeviceToHost), err, "msm counters");
        CU(cudaMemcpy(&host[2], ntask + nb - 1, 4, cudaMemcpyDeviceToHost), err, "msm counters");
        uint32_t tasks = host[1] + host[2];
        if (tasks > 0) {
            msm_task_map<<<blocks, 256>>>(off, ntask, nb, task_bucket);
            if (round == 0)
                msm_first_round<F>(task_bucket, off, start, end, k, bases, vals, tasks, out);
            else
                msm_task_sum_xyzz<F><<<cu_blocks(tasks, 128), 128>>>(task_bucket, off, start, end,
                                                                     k, in, tasks, out);
            CU_LAUNCH(err, "msm_task_sum");
        }
        xyzz_d<F> *t = in;
        in = out, out = t;
        if (host[0] <= 1) break; /* every bucket is down to one partial */
    }
    msm_task_gather<F><<<blocks, 256>>>(off, ntask, nb, in, (xyzz_d<F> *)(ws + p->buckets));
    CU_LAUNCH(err, "msm_task_gather");
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

    msm_digits<<<cu_blocks(p->n, 256), 256>>>(scalars, p->n, p->c, p->nwin, keys, vals);
    CU_LAUNCH(err, "msm_digits");
    CU(cudaMemsetAsync(start, 0, p->nb * 4), err, "msm memset");
    CU(cudaMemsetAsync(end, 0, p->nb * 4), err, "msm memset");
    for (uint32_t w = 0; w < p->nwin; w++) {
        size_t o = (size_t)w * p->n, tmp_bytes = p->sort_bytes;
        CU(cub::DeviceRadixSort::SortPairs(ws + p->sort_tmp, tmp_bytes, keys + o, keys2 + o,
                                           vals + o, vals2 + o, (int)p->n, 0, (int)p->c),
           err, "msm sort");
        msm_bounds<<<cu_blocks(p->n, 256), 256>>>(
            keys2 + o, p->n, p->half, o, start + (size_t)w * p->half, end + (size_t)w * p->half);
        CU_LAUNCH(err, "msm_bounds");
    }
    int rc = msm_buckets<F>(p, ws, bases, err);
    if (rc) return rc;
    uint32_t threads = p->nwin * p->per_win;
    msm_segments<F><<<cu_blocks(threads, 128), 128>>>(buckets, p->half, p->seg, threads, partial);
    CU_LAUNCH(err, "msm_segments");
    msm_reduce<F>
        <<<p->nwin, MSM_RED_THREADS(F)>>>(partial, p->per_win, (xyzz_d<F> *)(ws + p->sums));
    CU_LAUNCH(err, "msm_reduce");
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

/* Step 5: sum_w 2^(c w) S_w by Horner on the host. */
template <class F>
static void msm_combine(typename msm_host<F>::jac *out, const typename msm_host<F>::xyzz *sums,
                        unsigned nwin, unsigned c)
{
    typedef msm_host<F> H;
    typename H::xyzz acc;
    H::set_inf(&acc);
    for (int w = (int)nwin - 1; w >= 0; w--) {
        for (unsigned i = 0; i < c && w < (int)nwin - 1; i++) H::dbl(&acc);
        H::add(&acc, &sums[w]);
    }
    H::to_jac(out, &acc);
}

template <class F>
static int msm_run(typename msm_host<F>::jac *out, const affine_d<F> *bases, const fr_d *scalars,
                   size_t n, unsigned window, cuzk_err *err)
{
    msm_plan p;
    void *ws;
    int rc = msm_make_plan(&p, n, window ? window : msm_default_window(n), sizeof(xyzz_d<F>), err);
    if (!rc) rc = msm_ws_get(p.bytes, &ws, err);
    if (!rc) rc = msm_device<F>(&p, (char *)ws, bases, scalars, err);
    if (rc) return rc;
    typename msm_host<F>::xyzz sums[256];
    CU(cudaMemcpy(sums, (char *)ws + p.sums, p.nwin * sizeof sums[0], cudaMemcpyDeviceToHost), err,
       "msm");
    msm_combine<F>(out, sums, p.nwin, p.c);
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
    pthread_mutex_lock(&msm_lock);
    rc = msm_run<F>(out, (const affine_d<F> *)bases->ptr, (const fr_d *)scalars->ptr, n, window,
                    err);
    pthread_mutex_unlock(&msm_lock);
    return rc;
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

extern "C" void gpu_msm_set_inline(bool on)
{
    pthread_mutex_lock(&msm_lock);
    msm_inline = on;
    pthread_mutex_unlock(&msm_lock);
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
