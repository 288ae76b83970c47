/*
 * stream.cu - the MSMs of the prover over a parameter array that is
 * either resident on the device or streamed from its host copy, in calls
 * of at most `chunk` points (the plan's, residency.cu): the G1 arrays and
 * B_G2 alike (one pass and one step per kind, templates over the point
 * type; a chunk's bytes are its points' size times its length).
 *
 * A pass (stream_pass) hands each chunk [lo, lo + len) of the array's
 * points, as device memory, to a step: a resident array's own points, or
 * a streamed array's copied into one half of a ring of two chunk buffers
 * (per device, kept between proofs). The copy of chunk k + 1 is issued
 * on the ring's own non-blocking stream before the step of chunk k runs
 * on the default stream, so the DMA runs under chunk k's kernels; each
 * step returns with its kernels done, so the half that chunk k + 2 will
 * fill is free by then. From page-locked host memory (host_pin.cu) the
 * copy is one cudaMemcpyAsync; from memory that could not be locked it
 * goes through the staging pool (prove_upload), before chunk k's step.
 * Each chunk's copy is counted and timed for the calling thread's
 * account (xfer_stats.cuh: points or B_G2 points), and each step's
 * kernels timed there too. The steps:
 *   msm    sum of scal[i] P[i]: one MSM per chunk, the sums added;
 *   split  a split job: the batch addition over the chunk's bitmap words
 *          (chunks are multiples of 64 points), and the tail entries whose
 *          index falls in the chunk (a run of the ascending tail indexes,
 *          found on a host copy of them) gathered from the chunk and
 *          summed by one MSM over their tail scalars.
 * With one chunk (the whole array resident and the MSM workspace there)
 * this is exactly the one batch addition, gather and MSM of before. The
 * sums are group elements, so any split into chunks gives the same proof
 * bytes.
 */
#include <stdlib.h>

#include <algorithm>

#include "gpu/prove/prove_gpu.cuh"

/* An array as a pass reads it: its first dev_n points on the device
 * (dev; SIZE_MAX: all), the rest from its host copy (host; pinned:
 * page-locked), points of `size` bytes. */
struct stream_src {
    const char *dev, *host;
    bool pinned;
    size_t size, dev_n;
};

static stream_src src_of(const prove_points *p)
{
    return {(const char *)p->dev, (const char *)p->host, p->pinned, sizeof(g1_affine_t),
            p->dev ? p->dev_n : 0};
}

static stream_src src_of(const prove_points_g2 *p) /* B_G2: all on the device or none */
{
    return {(const char *)p->dev, (const char *)p->host, p->pinned, sizeof(g2_affine_t),
            p->dev ? SIZE_MAX : 0};
}

struct stream_ring {
    void *mem;
    size_t cap;
    cudaStream_t st;
    cudaEvent_t ev[2];
};
static stream_ring rings[CU_MAX_SLOTS]; /* under the device's prover lock */

typedef int (*chunk_step)(void *ctx, const void *pts, size_t lo, size_t len, cuzk_err *err);

/* The ring grown to two halves of `half` bytes. */
static int ring_ready(stream_ring *r, size_t half, const groth16_params *keep, cuzk_err *err)
{
    if (!r->st) {
        CU(cu_stream_new(&r->st), err, "stream (copy stream)");
        for (int k = 0; k < 2; k++)
            CU(cudaEventCreateWithFlags(&r->ev[k], cudaEventDisableTiming), err, "stream event");
    }
    return prove_dev_grow(&r->mem, &r->cap, 2 * half, keep, err);
}

int prove_stream_scratch(void **p, size_t chunk, const groth16_params *keep, cuzk_err *err)
{
    int dev;
    int rc = cu_slot(&dev, err);
    if (!rc) rc = ring_ready(&rings[dev], chunk * sizeof(g1_affine_t), keep, err);
    *p = rc ? NULL : rings[dev].mem;
    return rc;
}

/* Chunk k of pts (n points) into ring half k % 2. */
static int issue(stream_ring *r, const stream_src *pts, size_t chunk, size_t k, size_t n,
                 cuzk_err *err)
{
    size_t lo = k * chunk, len = std::min(chunk, n - lo), bytes = len * pts->size;
    char *d = (char *)r->mem + (k % 2) * chunk * pts->size;
    const char *h = pts->host + lo * pts->size;
    int what = pts->size == sizeof(g2_affine_t) ? GROTH16_XFER_POINTS_G2 : GROTH16_XFER_POINTS;
    if (!pts->pinned) return prove_upload(STAGE_FG, what, d, h, bytes, err);
    CU(xfer_copy_async(d, h, bytes, what, r->st, NULL), err, "stream chunk copy");
    CU(cudaEventRecord(r->ev[k % 2], r->st), err, "stream chunk event");
    return CUZK_OK;
}

/* step(ctx, chunk's points, lo, len) for every chunk of the first n
 * points of pts: the chunks within its points on the device read there,
 * the rest streamed through the ring (the first streamed chunk's copy
 * issued before the device's chunks run, so it lands under them). */
static int stream_pass(const stream_src *pts, size_t n, size_t chunk, const groth16_params *keep,
                       chunk_step step, void *ctx, cuzk_err *err)
{
    size_t nc = (n + chunk - 1) / chunk, half = chunk * pts->size;
    size_t kd = pts->dev_n >= n ? nc : pts->dev_n / chunk; /* chunks on the device */
    int rc = CUZK_OK, dev;
    stream_ring *r = NULL;
    if (kd < nc) {
        rc = cu_slot(&dev, err);
        if (!rc) r = &rings[dev], rc = ring_ready(r, half, keep, err);
        if (!rc) rc = issue(r, pts, chunk, kd, n, err);
    }
    for (size_t k = 0; !rc && k < kd; k++)
        rc = xfer_kernels([&] {
            return step(ctx, pts->dev + k * half, k * chunk, std::min(chunk, n - k * chunk), err);
        });
    if (!r) return rc;
    for (size_t k = kd; !rc && k < nc; k++) {
        cudaError_t e = pts->pinned ? cudaEventSynchronize(r->ev[k % 2]) : cudaSuccess;
        if (e != cudaSuccess) rc = cu_fail(e, err, "stream chunk copy", __FILE__, __LINE__);
        if (!rc && k + 1 < nc) rc = issue(r, pts, chunk, k + 1, n, err);
        const char *p = (const char *)r->mem + (k % 2) * half;
        if (!rc)
            rc = xfer_kernels(
                [&] { return step(ctx, p, k * chunk, std::min(chunk, n - k * chunk), err); });
    }
    cudaError_t e = pts->pinned && r->st ? cudaStreamSynchronize(r->st) : cudaSuccess;
    if (e != cudaSuccess && !rc) rc = cu_fail(e, err, "stream chunk copy", __FILE__, __LINE__);
    return rc;
}

/* The kernels and group operations of each point type, for the steps. */
static int batch_add(g1_jac_t *o, const prove_g1_aff *b, const uint64_t *bits, size_t n,
                     cuzk_err *err)
{
    return prove_batch_add(o, b, bits, n, err);
}
static int batch_add(g2_jac_t *o, const prove_g2_aff *b, const uint64_t *bits, size_t n,
                     cuzk_err *err)
{
    return prove_batch_add_g2(o, b, bits, n, err);
}
static int gather(prove_g1_aff *o, const prove_g1_aff *b, const uint32_t *idx, size_t n, size_t lo,
                  cuzk_err *err)
{
    return prove_gather(o, b, idx, n, lo, err);
}
static int gather(prove_g2_aff *o, const prove_g2_aff *b, const uint32_t *idx, size_t n, size_t lo,
                  cuzk_err *err)
{
    return prove_gather_g2(o, b, idx, n, lo, err);
}
static int msm_dev(g1_jac_t *o, const gpu_buf *vb, const gpu_buf *vs, size_t n, cuzk_err *err)
{
    return gpu_msm_g1_dev(o, vb, vs, n, 0, err);
}
static int msm_dev(g2_jac_t *o, const gpu_buf *vb, const gpu_buf *vs, size_t n, cuzk_err *err)
{
    return gpu_msm_g2_dev(o, vb, vs, n, 0, err);
}
static void jac_add(g1_jac_t *o, const g1_jac_t *p)
{
    g1_jac_add(o, o, p);
}
static void jac_add(g2_jac_t *o, const g2_jac_t *p)
{
    g2_jac_add(o, o, p);
}
static void jac_inf(g1_jac_t *o)
{
    g1_jac_set_inf(o);
}
static void jac_inf(g2_jac_t *o)
{
    g2_jac_set_inf(o);
}

/* acc += sum of scal[k] pts[k], k < len (device memory). */
template <typename Aff, typename Jac>
static int msm_add(Jac *acc, const Aff *pts, const fr_t *scal, size_t len, cuzk_err *err)
{
    if (len == 0) return CUZK_OK;
    Jac part;
    gpu_buf vb = {(void *)pts, len * sizeof(Aff)}, vs = {(void *)scal, len * sizeof(fr_t)};
    int rc = msm_dev(&part, &vb, &vs, len, err);
    if (!rc) jac_add(acc, &part);
    return rc;
}

template <typename Jac> struct msm_ctx {
    Jac acc;
    const fr_t *scal;
};

template <typename Aff, typename Jac>
static int msm_step(void *ctx, const void *pts, size_t lo, size_t len, cuzk_err *err)
{
    msm_ctx<Jac> *m = (msm_ctx<Jac> *)ctx;
    return msm_add(&m->acc, (const Aff *)pts, m->scal + lo, len, err);
}

template <typename Aff, typename Jac>
static int stream_msm(Jac *out, const stream_src *pts, const fr_t *scal, size_t n, size_t chunk,
                      const groth16_params *keep, cuzk_err *err)
{
    msm_ctx<Jac> m;
    jac_inf(&m.acc);
    m.scal = scal;
    int rc = n ? stream_pass(pts, n, chunk, keep, msm_step<Aff, Jac>, &m, err) : CUZK_OK;
    *out = m.acc;
    return rc;
}

int prove_stream_msm(g1_jac_t *out, const prove_points *pts, const fr_t *scal, size_t n,
                     size_t chunk, const groth16_params *keep, cuzk_err *err)
{
    stream_src src = src_of(pts);
    return stream_msm<prove_g1_aff>(out, &src, scal, n, chunk, keep, err);
}

int prove_stream_msm_g2(g2_jac_t *out, const prove_points_g2 *pts, const fr_t *scal, size_t n,
                        size_t chunk, const groth16_params *keep, cuzk_err *err)
{
    stream_src src = src_of(pts);
    return stream_msm<prove_g2_aff>(out, &src, scal, n, chunk, keep, err);
}

template <typename Aff, typename Jac> struct split_ctx {
    Jac ones, tail;
    const uint64_t *bits;
    const fr_t *tscal;
    const uint32_t *tidx, *hidx; /* hidx: host copy (NULL: one chunk) */
    size_t nt;
    Aff *tb;
    double ba_ms, tail_ms;
};

template <typename Aff, typename Jac>
static int split_step(void *ctx, const void *p, size_t lo, size_t len, cuzk_err *err)
{
    split_ctx<Aff, Jac> *s = (split_ctx<Aff, Jac> *)ctx;
    const Aff *pts = (const Aff *)p;
    Jac part;
    double m0 = groth16_now_ms();
    int rc = batch_add(&part, pts, s->bits + lo / 64, len, err);
    double m1 = groth16_now_ms();
    s->ba_ms += m1 - m0;
    if (rc) return rc;
    jac_add(&s->ones, &part);
    size_t t0 = 0, t1 = s->nt;
    if (s->hidx) {
        t0 = (size_t)(std::lower_bound(s->hidx, s->hidx + s->nt, (uint32_t)lo) - s->hidx);
        t1 = (size_t)(std::lower_bound(s->hidx + t0, s->hidx + s->nt, (uint64_t)(lo + len)) -
                      s->hidx);
    }
    if (t1 == t0) return CUZK_OK;
    rc = gather(s->tb, pts, s->tidx + t0, t1 - t0, lo, err);
    if (!rc) rc = msm_add(&s->tail, s->tb, s->tscal + t0, t1 - t0, err);
    s->tail_ms += groth16_now_ms() - m1;
    return rc;
}

/* The host copy of n ascending device indexes (*out, malloc'ed). */
static int host_indexes(uint32_t **out, const uint32_t *d, size_t n, cuzk_err *err)
{
    *out = (uint32_t *)malloc(n * sizeof(uint32_t) + 1);
    if (!*out) return cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory (tail indexes)");
    CU(xfer_copy(*out, d, n * sizeof(uint32_t), GROTH16_XFER_RESULTS), err, "tail indexes");
    for (size_t k = 1; k < n; k++)
        if ((*out)[k] <= (*out)[k - 1])
            return cuzk_errf(err, CUZK_EINVAL, "gpu prove: tail index %zu (%u) not above the last",
                             k, (*out)[k]);
    return CUZK_OK;
}

template <typename Aff, typename Jac>
static int stream_split(Jac *ones, Jac *tail, const stream_src *pts, const prove_split *j,
                        size_t chunk, void **tb, size_t *tb_cap, const groth16_params *keep,
                        double *ba_ms, double *tail_ms, cuzk_err *err)
{
    split_ctx<Aff, Jac> s;
    s.ba_ms = s.tail_ms = 0;
    jac_inf(&s.ones);
    jac_inf(&s.tail);
    s.bits = j->bits, s.tscal = j->scal, s.tidx = j->idx, s.hidx = NULL, s.nt = j->nt;
    size_t nc = (j->n + chunk - 1) / chunk, most = std::min(j->nt, chunk);
    int rc = nc > 1 && chunk % 64
                 ? cuzk_errf(err, CUZK_EINVAL, "gpu prove: chunk of %zu points", chunk)
                 : CUZK_OK;
    uint32_t *hidx = NULL;
    if (!rc && nc > 1 && j->nt) rc = host_indexes(&hidx, j->idx, j->nt, err);
    s.hidx = hidx;
    if (!rc) rc = prove_dev_grow(tb, tb_cap, most * sizeof(Aff), keep, err);
    s.tb = (Aff *)*tb;
    if (!rc && j->n) rc = stream_pass(pts, j->n, chunk, keep, split_step<Aff, Jac>, &s, err);
    free(hidx);
    *ones = s.ones, *tail = s.tail;
    *ba_ms += s.ba_ms, *tail_ms += s.tail_ms;
    return rc;
}

int prove_stream_split(g1_jac_t *ones, g1_jac_t *tail, const prove_points *pts,
                       const prove_split *j, size_t chunk, void **tb, size_t *tb_cap,
                       const groth16_params *keep, double *ba_ms, double *tail_ms, cuzk_err *err)
{
    stream_src src = src_of(pts);
    return stream_split<prove_g1_aff>(ones, tail, &src, j, chunk, tb, tb_cap, keep, ba_ms, tail_ms,
                                      err);
}

int prove_stream_split_g2(g2_jac_t *ones, g2_jac_t *tail, const prove_points_g2 *pts,
                          const prove_split *j, size_t chunk, void **tb, size_t *tb_cap,
                          const groth16_params *keep, double *ba_ms, double *tail_ms, cuzk_err *err)
{
    stream_src src = src_of(pts);
    return stream_split<prove_g2_aff>(ones, tail, &src, j, chunk, tb, tb_cap, keep, ba_ms, tail_ms,
                                      err);
}

void prove_stream_release(int dev)
{
    cu_free(rings[dev].mem);
    rings[dev].mem = NULL;
    rings[dev].cap = 0;
}

size_t prove_stream_bytes(int dev)
{
    return rings[dev].cap;
}
