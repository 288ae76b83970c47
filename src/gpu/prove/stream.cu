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
 * kernels timed there too. The step serves the pass's jobs (at most
 * PROVE_PASS_JOBS: residency.cu rule 9 gives a group of a batch's
 * circuits one pass over each array their L/A/B step streams), one after
 * the other,
 * so a chunk crosses once for all of them:
 *   whole  sum of scal[i] P[i]: one MSM per chunk, the sums added;
 *   split  the batch addition over the chunk's bitmap words (chunks are
 *          multiples of 64 points; with several chunks its block sums
 *          accumulate on the device, one accumulator a job, read once at
 *          the pass's end: batch_add.cu), and the tail entries whose index
 *          falls in the chunk (a run of the ascending tail indexes, found
 *          on a host copy of them) gathered from the chunk. With one
 *          chunk they are summed at once by one MSM over their tail
 *          scalars (the jobs share the gather buffer: one job's MSM ends
 *          before the next job gathers), in slices of what the plan's
 *          gather buffer holds when there are more (residency.cu rule 3
 *          bounds it: a dense circuit's tails would nearly fill the
 *          array). With several, each job gathers
 *          into a region of its own of the buffer (the plan's tb_limit
 *          bytes shared by the jobs), chunk after chunk, and one MSM sums
 *          the region when the next chunk's tails would not fit, and at
 *          the pass's end (a chunk with more tails than the region: in
 *          slices of it). A PoRep witness is 98.7% zeros and ones, so a
 *          chunk of 2^22 points holds ~55K tails a job, and an MSM call
 *          costs a few milliseconds whatever its size: per chunk, the
 *          tails of a 32 GiB partition's L, A, B_G1 and B_G2 were ~100
 *          calls a job (0.39 s of G1 tails and 0.9 s of B_G2 a partition
 *          on the H200 at 24 GiB, against 0.05 and 0.08 s resident).
 * With one chunk (the whole array resident and the MSM workspace there)
 * this is exactly the one batch addition, gather and MSM of before (a
 * job whose tails fit the gather buffer). The
 * sums are group elements, so any split into chunks or MSM calls gives
 * the same proof bytes.
 */
#include <stdlib.h>

#include <algorithm>
#include <atomic>

#include "gpu/prove/batch_add.cuh"
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
    void *acc; /* the jobs' batch-addition accumulators (PROVE_PASS_JOBS) */
    size_t acc_cap;
};
static stream_ring rings[CU_MAX_SLOTS]; /* under the device's prover lock */

typedef int (*chunk_step)(void *ctx, const void *pts, size_t lo, size_t len, cuzk_err *err);

/* The ring grown to two halves of `half` bytes. */
static int ring_ready(stream_ring *r, size_t half, const groth16_params *keep, cuzk_err *err)
{
    if (!r->st) {
        CU(cu_stream_new(&r->st), err, "stream (copy stream)");
        for (int k = 0; k < 2; k++) CU(cu_event_new(&r->ev[k], false), err, "stream event");
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
static int batch_add_acc(void *acc, const prove_g1_aff *b, const uint64_t *bits, size_t n,
                         cuzk_err *err)
{
    return prove_batch_add_acc(acc, b, bits, n, err);
}
static int batch_add_acc(void *acc, const prove_g2_aff *b, const uint64_t *bits, size_t n,
                         cuzk_err *err)
{
    return prove_batch_add_acc_g2(acc, b, bits, n, err);
}
static int acc_sum(g1_jac_t *o, const void *acc, size_t entries, cuzk_err *err)
{
    return prove_ba_acc_sum(o, acc, entries, err);
}
static int acc_sum(g2_jac_t *o, const void *acc, size_t entries, cuzk_err *err)
{
    return prove_ba_acc_sum_g2(o, acc, entries, err);
}

/* gpu_prove_set_batch_add_per: words a thread at most in a whole batch
 * addition (0: one wave; batch_add.cu); the accumulated passes of
 * streamed chunks keep one wave (their chunks are small enough that a
 * thread's run is short). Here, host code, so that the stand-in runtime's
 * batch addition (tests/gpuhost) reads the same knob. */
static std::atomic<size_t> ba_per_max{0};

extern "C" void gpu_prove_set_batch_add_per(unsigned words)
{
    ba_per_max.store(words);
}

size_t prove_batch_add_per(void)
{
    return ba_per_max.load();
}

size_t prove_ba_acc_entries(size_t chunk)
{
    size_t words = (chunk + 63) / 64, blocks = (words + BA_THREADS - 1) / BA_THREADS;
    return blocks < BA_BLOCKS ? (blocks ? blocks : 1) : BA_BLOCKS;
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

/* One job of a pass: its sums so far (ones: the batch additions; sum:
 * the tail's or the whole job's MSM), its data (hidx: a host copy of the
 * tail indexes, NULL with one chunk), with several chunks its batch
 * addition's accumulator (acc) and its region of the gather buffer (reg,
 * reg_n points: tails f0 .. f0 + filled - 1 gathered there and not yet
 * summed), its times. */
template <typename Aff, typename Jac> struct job_ctx {
    Jac ones, sum;
    prove_job j;
    const uint32_t *hidx;
    void *acc;
    Aff *reg;
    size_t reg_n, f0, filled;
    prove_pass_stat st;
};

/* A pass's jobs and the gathered tail bases' buffer they share (one job's
 * gather and MSM end before the next job's gather); defer: a job's
 * kernels may read the chunk after its step returns (an accumulated batch
 * addition, a gather into its region), so the step waits for them. */
template <typename Aff, typename Jac> struct pass_ctx {
    job_ctx<Aff, Jac> jobs[PROVE_PASS_JOBS];
    size_t k, entries; /* entries: of each accumulator */
    Aff *tb;
    size_t tb_n; /* the points of a slice of tails summed at once (tail_slice) */
    bool defer;
};

/* The tails job s gathered into its region and has not summed yet:
 * summed by one MSM. */
template <typename Aff, typename Jac> static int tails_flush(job_ctx<Aff, Jac> *s, cuzk_err *err)
{
    s->st.calls++;
    int rc = msm_add(&s->sum, s->reg, s->j.scal + s->f0, s->filled, err);
    s->f0 += s->filled, s->filled = 0;
    return rc;
}

/* Job s's tails t0 .. t1 - 1, in the chunk at lo (pts), gathered into
 * buf and summed by one MSM, in slices of at most buf_n points. */
template <typename Aff, typename Jac>
static int tails_sliced(job_ctx<Aff, Jac> *s, Aff *buf, size_t buf_n, const Aff *pts, size_t lo,
                        size_t t0, size_t t1, cuzk_err *err)
{
    int rc = CUZK_OK;
    for (size_t t = t0; !rc && t < t1; t += buf_n) {
        size_t piece = std::min(buf_n, t1 - t);
        rc = gather(buf, pts, s->j.idx + t, piece, lo, err);
        s->st.calls++;
        if (!rc) rc = msm_add(&s->sum, buf, s->j.scal + t, piece, err);
    }
    return rc;
}

/* Job s's tails t0 .. t1 - 1, in the chunk at lo (pts): gathered after
 * those in its region, the region summed first when they would not fit;
 * more than the region holds: gathered and summed in slices of it. */
template <typename Aff, typename Jac>
static int tails_defer(job_ctx<Aff, Jac> *s, const Aff *pts, size_t lo, size_t t0, size_t t1,
                       cuzk_err *err)
{
    size_t m = t1 - t0;
    int rc = s->filled && s->filled + m > s->reg_n ? tails_flush(s, err) : CUZK_OK;
    if (!rc && m > s->reg_n) {
        rc = tails_sliced(s, s->reg, s->reg_n, pts, lo, t0, t1, err);
        s->f0 = t1;
        return rc;
    }
    if (!rc) rc = gather(s->reg + s->filled, pts, s->j.idx + t0, m, lo, err);
    s->filled += rc ? 0 : m;
    return rc;
}

/* Job s over chunk [lo, lo + len) of the points (device memory): a whole
 * job's MSM over it; a split job's batch addition over the chunk's bitmap
 * words, then the tail entries whose index falls in the chunk (a run of
 * the ascending indexes, found on their host copy) gathered and summed
 * (into its region, or the gather buffer tb in slices of tb_n points). */
template <typename Aff, typename Jac>
static int job_step(job_ctx<Aff, Jac> *s, Aff *tb, size_t tb_n, const Aff *pts, size_t lo,
                    size_t len, cuzk_err *err)
{
    double m0 = groth16_now_ms();
    if (!s->j.bits) {
        s->st.calls++;
        int rc = msm_add(&s->sum, pts, s->j.scal + lo, len, err);
        s->st.tail_ms += groth16_now_ms() - m0;
        return rc;
    }
    Jac part;
    int rc = s->acc ? batch_add_acc(s->acc, pts, s->j.bits + lo / 64, len, err)
                    : batch_add(&part, pts, s->j.bits + lo / 64, len, err);
    double m1 = groth16_now_ms();
    s->st.ba_ms += m1 - m0;
    if (rc) return rc;
    if (!s->acc) jac_add(&s->ones, &part);
    size_t t0 = 0, t1 = s->j.nt;
    if (s->hidx) {
        t0 = (size_t)(std::lower_bound(s->hidx, s->hidx + s->j.nt, (uint32_t)lo) - s->hidx);
        t1 = (size_t)(std::lower_bound(s->hidx + t0, s->hidx + s->j.nt, (uint64_t)(lo + len)) -
                      s->hidx);
    }
    if (t1 == t0) return CUZK_OK;
    if (s->reg)
        rc = tails_defer(s, pts, lo, t0, t1, err);
    else
        rc = tails_sliced(s, tb, tb_n, pts, lo, t0, t1, err);
    s->st.tail_ms += groth16_now_ms() - m1;
    return rc;
}

template <typename Aff, typename Jac>
static int pass_step(void *ctx, const void *p, size_t lo, size_t len, cuzk_err *err)
{
    pass_ctx<Aff, Jac> *c = (pass_ctx<Aff, Jac> *)ctx;
    int rc = CUZK_OK;
    for (size_t q = 0; !rc && q < c->k; q++)
        rc = job_step(&c->jobs[q], c->tb, c->tb_n, (const Aff *)p, lo, len, err);
    /* kernels left running read the chunk: done before its ring half
     * takes the chunk after next (the wait counted as the jobs' batch
     * additions, which it mostly is) */
    if (!rc && c->defer) {
        double w0 = groth16_now_ms();
        CU_WAIT(err, "stream chunk's batch additions");
        double each = (groth16_now_ms() - w0) / (double)c->k;
        for (size_t q = 0; q < c->k; q++) c->jobs[q].st.ba_ms += each;
    }
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

/* What a pass over n points in chunks of `chunk` asks of its jobs: at
 * most PROVE_PASS_JOBS, all over n points, chunks of whole bitmap words
 * when a split job spans several. */
static int pass_jobs_ok(const prove_job *jobs, size_t k, size_t chunk, cuzk_err *err)
{
    if (k == 0 || k > PROVE_PASS_JOBS)
        return cuzk_errf(err, CUZK_EINVAL, "gpu prove: a pass of %zu jobs", k);
    for (size_t q = 0; q < k; q++) {
        if (jobs[q].n != jobs[0].n)
            return cuzk_errf(err, CUZK_EINVAL,
                             "gpu prove: jobs of one pass over %zu and %zu points", jobs[0].n,
                             jobs[q].n);
        if (jobs[q].bits && jobs[q].n > chunk && chunk % 64)
            return cuzk_errf(err, CUZK_EINVAL, "gpu prove: chunk of %zu points", chunk);
    }
    return CUZK_OK;
}

static std::atomic<size_t> region_cap; /* gpu_prove_set_tail_region */

extern "C" void gpu_prove_set_tail_region(size_t points)
{
    region_cap.store(points);
}

/* With several chunks (of at most `chunk` points), each split job of c
 * its batch addition's accumulator on the device (the slot's, kept),
 * cleared; c->defer then. */
template <typename Aff, typename Jac>
static int accumulators(pass_ctx<Aff, Jac> *c, size_t chunk, const groth16_params *keep,
                        cuzk_err *err)
{
    int dev;
    int rc = cu_slot(&dev, err);
    stream_ring *r = rc ? NULL : &rings[dev];
    c->entries = prove_ba_acc_entries(chunk);
    size_t each = c->entries * sizeof(prove_g2_xyzz);
    if (!rc) rc = prove_dev_grow(&r->acc, &r->acc_cap, PROVE_BA_ACC_BYTES(chunk), keep, err);
    for (size_t q = 0; !rc && q < c->k; q++) {
        job_ctx<Aff, Jac> *s = &c->jobs[q];
        if (!s->j.bits) continue;
        s->acc = (char *)r->acc + q * each;
        rc = prove_ba_acc_clear(s->acc, c->entries, sizeof(Aff) == sizeof(g2_affine_t), err);
        c->defer = true;
    }
    return rc;
}

/* The points of a slice of a job's tails gathered and summed at once
 * outside a region: what the plan's gather buffer (tb_limit bytes; 0: no
 * limit) holds, at most the tests' cap (gpu_prove_set_tail_region). The
 * plan bounds the buffer (residency.cu rule 3: a dense circuit's tails in
 * one call of 2^27 points would need 12.9 GB), so a job with more tails
 * sums them in several MSM calls. */
template <typename Aff> static size_t tail_slice(size_t tb_limit)
{
    size_t n = tb_limit ? std::max<size_t>(tb_limit / sizeof(Aff), 1) : SIZE_MAX;
    size_t cap = region_cap.load();
    return cap ? std::min(n, cap) : n;
}

/* The points of each split job's region of the gather buffer (0: tails
 * summed chunk by chunk): with several chunks (n > chunk), tb_limit bytes
 * (the plan's gather buffer) shared by the jobs with tails, a job's at
 * most its tails and a chunk (the MSM calls the plan's workspace is
 * for); none when a region would hold fewer tails than a chunk holds on
 * average (the calls would not become fewer), unless the tests set a
 * cap (gpu_prove_set_tail_region). */
template <typename Aff>
static size_t region_points(const prove_job *jobs, size_t k, size_t n, size_t chunk,
                            size_t tb_limit)
{
    size_t with = 0, nt = 0;
    for (size_t q = 0; q < k; q++)
        if (jobs[q].bits && jobs[q].nt) with++, nt = std::max(nt, jobs[q].nt);
    if (n <= chunk || !with) return 0;
    size_t reg = std::min(std::min(nt, chunk), tb_limit / sizeof(Aff) / with);
    size_t nc = (n + chunk - 1) / chunk, cap = region_cap.load();
    if (cap) return std::min(reg, cap);
    return reg > nt / nc ? reg : 0;
}

template <typename Aff, typename Jac>
static int stream_jobs(Jac *out, const stream_src *pts, const prove_job *jobs, size_t k,
                       size_t chunk, void **tb, size_t *tb_cap, size_t tb_limit,
                       const groth16_params *keep, prove_pass_stat *st, cuzk_err *err)
{
    int rc = pass_jobs_ok(jobs, k, chunk, err);
    if (rc) return rc;
    pass_ctx<Aff, Jac> c;
    c.k = k;
    size_t n = jobs[0].n, most = 0, reg = tb ? region_points<Aff>(jobs, k, n, chunk, tb_limit) : 0;
    c.tb_n = tail_slice<Aff>(tb_limit);
    for (size_t q = 0; q < k; q++) {
        job_ctx<Aff, Jac> *s = &c.jobs[q];
        jac_inf(&s->ones);
        jac_inf(&s->sum);
        s->j = jobs[q], s->hidx = NULL, s->acc = NULL, s->reg = NULL;
        s->reg_n = s->f0 = s->filled = 0;
        s->st = prove_pass_stat{0, 0, 0};
        if (!s->j.bits) continue;
        most = std::max(most, std::min(std::min(s->j.nt, chunk), c.tb_n));
        if (!rc && n > chunk && s->j.nt) {
            uint32_t *h = NULL;
            rc = host_indexes(&h, s->j.idx, s->j.nt, err);
            s->hidx = h;
        }
    }
    size_t regions = 0; /* the jobs with a region, in order */
    for (size_t q = 0; reg && q < k; q++) regions += c.jobs[q].hidx != NULL;
    size_t want = std::max(most, regions * reg) * sizeof(Aff);
    if (!rc && want) rc = prove_dev_grow(tb, tb_cap, want, keep, err);
    c.tb = tb ? (Aff *)*tb : NULL;
    for (size_t q = 0, r = 0; !rc && reg && q < k; q++)
        if (c.jobs[q].hidx) c.jobs[q].reg = c.tb + r++ * reg, c.jobs[q].reg_n = reg;
    c.defer = false;
    if (!rc && n > chunk) rc = accumulators(&c, chunk, keep, err);
    if (!rc && n) rc = stream_pass(pts, n, chunk, keep, pass_step<Aff, Jac>, &c, err);
    for (size_t q = 0; q < k; q++) {
        job_ctx<Aff, Jac> *s = &c.jobs[q];
        if (!rc && s->filled) {
            double t0 = groth16_now_ms();
            rc = xfer_kernels([&] { return tails_flush(s, err); });
            s->st.tail_ms += groth16_now_ms() - t0;
        }
        if (!rc && s->acc) {
            double t0 = groth16_now_ms();
            Jac part;
            rc = acc_sum(&part, s->acc, c.entries, err);
            if (!rc) jac_add(&s->ones, &part);
            s->st.ba_ms += groth16_now_ms() - t0;
        }
        free((void *)s->hidx);
        out[q] = s->ones;
        jac_add(&out[q], &s->sum);
        st[q].ba_ms += s->st.ba_ms, st[q].tail_ms += s->st.tail_ms, st[q].calls += s->st.calls;
    }
    return rc;
}

int prove_stream_jobs(g1_jac_t *out, const prove_points *pts, const prove_job *jobs, size_t k,
                      size_t chunk, void **tb, size_t *tb_cap, size_t tb_limit,
                      const groth16_params *keep, prove_pass_stat *st, cuzk_err *err)
{
    stream_src src = src_of(pts);
    return stream_jobs<prove_g1_aff>(out, &src, jobs, k, chunk, tb, tb_cap, tb_limit, keep, st,
                                     err);
}

int prove_stream_jobs_g2(g2_jac_t *out, const prove_points_g2 *pts, const prove_job *jobs, size_t k,
                         size_t chunk, void **tb, size_t *tb_cap, size_t tb_limit,
                         const groth16_params *keep, prove_pass_stat *st, cuzk_err *err)
{
    stream_src src = src_of(pts);
    return stream_jobs<prove_g2_aff>(out, &src, jobs, k, chunk, tb, tb_cap, tb_limit, keep, st,
                                     err);
}

int prove_stream_msm(g1_jac_t *out, const prove_points *pts, const fr_t *scal, size_t n,
                     size_t chunk, const groth16_params *keep, cuzk_err *err)
{
    prove_job j = {NULL, scal, NULL, n, 0};
    prove_pass_stat st = {0, 0, 0};
    return prove_stream_jobs(out, pts, &j, 1, chunk, NULL, NULL, 0, keep, &st, err);
}

void prove_stream_release(int dev)
{
    cu_free(rings[dev].mem);
    cu_free(rings[dev].acc);
    rings[dev].mem = rings[dev].acc = NULL;
    rings[dev].cap = rings[dev].acc_cap = 0;
}

size_t prove_stream_bytes(int dev)
{
    return rings[dev].cap + rings[dev].acc_cap;
}
