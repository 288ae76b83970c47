/*
 * host_device.cpp - the device entry points that the GPU prover calls
 * (gpu.h's MSMs, NTT and H computation, gpu_available, the batch
 * addition and gathers of src/gpu/prove/batch_add.cu and the shape
 * evaluation of shape_eval.cu, the prep of prep_kernels.cu: their
 * per-thread parts are the kernels' own code, batch_add.cuh,
 * shape_eval.cuh and prep_dev.cuh; the H rows and finish
 * are the CPU's ntt_groth16_h_row / _finish), computed on the CPU over the
 * stand-in runtime's "device" memory (cuda_runtime.h here), so that the
 * prover's host code can be run without a GPU. The kernels themselves
 * are checked on a GPU by test_gpu and, where host-compilable, by
 * test_gpu_emu. Each checks, as a kernel launch would fail, that the
 * current device works and that its buffers are that device's memory.
 * Here too are the test's controls of the stand-in (host_budget.h).
 */
#include <atomic>
#include <thread>

#include "gpu/prove/batch_add.cuh"
#include "gpu/prove/fr_pack.cuh"
#include "gpu/prove/prep_dev.cuh"
#include "gpu/prove/prove_gpu.cuh"
#include "gpu/prove/shape_eval.cuh"

extern "C" {
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
}

/* The device memory a kernel reads of witness w (at most 3 ranges into
 * p, len; their count): dense, its n variables; kept packed, its inputs,
 * the pieces' table and the first byte of the pieces. */
static int wit_mem(const wit_view *w, const void **p, size_t *len)
{
    if (w->dense) {
        p[0] = w->dense, len[0] = w->n * sizeof(fr_t);
        return 1;
    }
    p[0] = w->in, len[0] = w->n_in * sizeof(fr_t);
    p[1] = w->at, len[1] = wit_pieces(w->n - w->n_in) * sizeof(uint64_t);
    p[2] = w->bytes, len[2] = 1;
    return 3;
}

/* A stand-in kernel's launch check: the current device works and each of
 * the count buffers [p, p + n) is its memory. */
static int kernel_check(const char *what, const void *const *p, const size_t *n, int count,
                        cuzk_err *err)
{
    int dev = host_current_device;
    if (!cu_kstream()) host_stream0_calls++; /* a launch: yield.cu rule 2 */
    for (int k = 0; k < count; k++) {
        cudaError_t e = host_mem_on(dev, p[k], n[k]);
        if (e != cudaSuccess)
            return cuzk_errf(err, CUZK_EDEVICE, "gpu: %s on device %d failed: %s (%s)", what, dev,
                             cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return CUZK_OK;
}

/* What the real MSM and NTT keep on the device per slot (ntt.cu's tables,
 * msm.cu's workspace), held here as stand-in device memory of the sizes
 * the plan counts (gpu_ntt_tables_for, gpu_msm_workspace_for), made when
 * first used and grown as they are: so that an allocation of the prover
 * that takes their room before they are made is refused as on a device,
 * and a release that leaves them is seen. */
struct held_dev {
    void *tw = NULL, *ws = NULL;
    size_t tw_bytes = 0, ws_bytes = 0;
};
static held_dev held_by_slot[CU_MAX_SLOTS];

static held_dev *held_of_caller(void)
{
    int slot;
    return cu_slot(&slot, NULL) ? NULL : &held_by_slot[slot];
}

/* *p of at least `bytes` (*cap grown), or a refusal as cudaMalloc's. */
static int held_grow(void **p, size_t *cap, size_t bytes, const char *what, cuzk_err *err)
{
    if (*cap >= bytes) return CUZK_OK;
    cu_free(*p);
    *p = NULL, *cap = 0;
    CU(cu_malloc(p, bytes), err, what);
    *cap = bytes;
    return CUZK_OK;
}

static int ntt_tables_ensure(unsigned log_n, cuzk_err *err)
{
    held_dev *h = held_of_caller();
    return h ? held_grow(&h->tw, &h->tw_bytes, gpu_ntt_tables_for(log_n), "ntt twiddle table alloc",
                         err)
             : CUZK_OK;
}

static int msm_workspace_ensure(size_t n, int g2, cuzk_err *err)
{
    held_dev *h = held_of_caller();
    return h ? held_grow(&h->ws, &h->ws_bytes, gpu_msm_workspace_for(n, g2), "msm workspace alloc",
                         err)
             : CUZK_OK;
}

extern "C" int gpu_ntt_tables_make(unsigned log_n, cuzk_err *err)
{
    return ntt_tables_ensure(log_n, err);
}

extern "C" int gpu_msm_workspace_reserve(size_t bytes, cuzk_err *err)
{
    held_dev *h = held_of_caller();
    return h ? held_grow(&h->ws, &h->ws_bytes, bytes, "msm workspace alloc", err) : CUZK_OK;
}

extern "C" bool gpu_available(cuzk_err *err)
{
    (void)err;
    return true;
}

extern "C" int gpu_set_blocking_sync(bool blocking, cuzk_err *err)
{
    (void)blocking, (void)err;
    return CUZK_OK;
}

extern "C" int gpu_msm_g1_dev(g1_jac_t *out, const gpu_buf *bases, const gpu_buf *scalars, size_t n,
                              unsigned window, cuzk_err *err)
{
    (void)window;
    if (bases->bytes < n * sizeof(g1_affine_t) || scalars->bytes < n * sizeof(fr_t))
        return cuzk_errf(err, CUZK_EINVAL, "gpu msm: buffers smaller than %zu points", n);
    const void *p[2] = {bases->ptr, scalars->ptr};
    size_t len[2] = {n * sizeof(g1_affine_t), n * sizeof(fr_t)};
    int rc = kernel_check("msm", p, len, 2, err);
    if (!rc) rc = msm_workspace_ensure(n, 0, err);
    if (rc) return rc;
    return g1_msm(out, (const g1_affine_t *)bases->ptr, (const fr_t *)scalars->ptr, n, 0, err);
}

/* The stand-in MSM holds a block of a model of the real one's workspace
 * (held_dev), the plan's figure (16 bytes of sort pairs per point and window of
 * about 16 bits, plus the buckets), so that its chunks shrink with the
 * budget as on a device. */
extern "C" size_t gpu_msm_workspace_for(size_t n, int g2)
{
    return n ? 16 * 16 * n + ((size_t)16 << (g2 ? 11 : 10)) : 0;
}

extern "C" void gpu_ntt_tables_free(void)
{
    held_dev *h = held_of_caller();
    if (h) cu_free(h->tw), h->tw = NULL, h->tw_bytes = 0;
}

void prove_batch_add_release(void) {}

extern "C" void gpu_msm_workspace_trim(size_t max)
{
    held_dev *h = held_of_caller();
    if (h && h->ws_bytes > max) cu_free(h->ws), h->ws = NULL, h->ws_bytes = 0;
}

extern "C" size_t gpu_msm_workspace_bytes(void)
{
    held_dev *h = held_of_caller();
    return h ? h->ws_bytes : 0;
}

extern "C" int gpu_msm_g2_dev(g2_jac_t *out, const gpu_buf *bases, const gpu_buf *scalars, size_t n,
                              unsigned window, cuzk_err *err)
{
    (void)window;
    if (bases->bytes < n * sizeof(g2_affine_t) || scalars->bytes < n * sizeof(fr_t))
        return cuzk_errf(err, CUZK_EINVAL, "gpu msm g2: buffers smaller than %zu points", n);
    const void *p[2] = {bases->ptr, scalars->ptr};
    size_t len[2] = {n * sizeof(g2_affine_t), n * sizeof(fr_t)};
    int rc = kernel_check("msm g2", p, len, 2, err);
    if (!rc) rc = msm_workspace_ensure(n, 1, err);
    if (rc) return rc;
    return g2_msm(out, (const g2_affine_t *)bases->ptr, (const fr_t *)scalars->ptr, n, 0, err);
}

static int h_buffers(gpu_buf *const *v, int count, unsigned log_n, cuzk_err *err)
{
    for (int k = 0; k < count; k++)
        if (v[k]->bytes < (sizeof(fr_t) << log_n))
            return cuzk_errf(err, CUZK_EINVAL, "gpu ntt: buffer holds less than 2^%u", log_n);
    return CUZK_OK;
}

/* rows < 0: the finish over v[0..2]; otherwise that row of v[0] */
static int h_host(gpu_buf *const *v, unsigned log_n, int row, cuzk_err *err)
{
    int rc = h_buffers(v, row < 0 ? 3 : 1, log_n, err);
    if (!rc) rc = ntt_tables_ensure(log_n, err);
    const void *p[3];
    size_t len[3];
    for (int k = 0; k < (row < 0 ? 3 : 1); k++) p[k] = v[k]->ptr, len[k] = sizeof(fr_t) << log_n;
    if (!rc) rc = kernel_check("ntt h", p, len, row < 0 ? 3 : 1, err);
    if (rc) return rc;
    ntt_domain d;
    if ((rc = ntt_domain_init(&d, log_n, err))) return rc;
    fr_t *x[3] = {(fr_t *)v[0]->ptr, NULL, NULL};
    if (row < 0) {
        x[1] = (fr_t *)v[1]->ptr, x[2] = (fr_t *)v[2]->ptr;
        rc = ntt_groth16_h_finish(&d, x[0], x[1], x[2], err);
    } else {
        rc = ntt_groth16_h_row(&d, x[0], d.n, row, err);
    }
    ntt_domain_free(&d);
    return rc;
}

extern "C" int gpu_ntt_h_row_dev(gpu_buf *x, unsigned log_n, int row, cuzk_err *err)
{
    if (row < 0 || row > 2) return cuzk_errf(err, CUZK_EINVAL, "gpu ntt h: no row %d", row);
    return h_host(&x, log_n, row, err);
}

extern "C" int gpu_ntt_h_finish_dev(gpu_buf *a, gpu_buf *b, gpu_buf *c, unsigned log_n,
                                    cuzk_err *err)
{
    gpu_buf *v[3] = {a, b, c};
    return h_host(v, log_n, -1, err);
}

extern "C" int gpu_ntt_h_dev(gpu_buf *a, gpu_buf *b, gpu_buf *c, unsigned log_n, cuzk_err *err)
{
    gpu_buf *v[3] = {a, b, c};
    int rc = h_buffers(v, 3, log_n, err);
    for (int k = 0; k < 3 && !rc; k++) rc = h_host(&v[k], log_n, k, err);
    return rc ? rc : h_host(v, log_n, -1, err);
}

/* The stand-in NTT (the CPU's) holds a block of the model of the real
 * one's tables (held_dev): its twiddles (ntt.cu's arithmetic), without
 * the 5 MiB of scale tables that would dwarf the small budgets of the
 * tests. */
extern "C" size_t gpu_ntt_tables_for(unsigned log_n)
{
    return log_n ? (((size_t)1 << (log_n - 1)) + 1) * sizeof(fr_t) : 0;
}

extern "C" size_t gpu_ntt_tables_bytes(void)
{
    held_dev *h = held_of_caller();
    return h ? h->tw_bytes : 0;
}

/* The finish in parts: ntt.h's, over stand-in device memory. */
static int h_piece_check(const char *what, const gpu_buf *x, const gpu_buf *y, size_t count,
                         cuzk_err *err)
{
    if (x->bytes < count * sizeof(fr_t) || (y && y->bytes < count * sizeof(fr_t)))
        return cuzk_errf(err, CUZK_EINVAL, "gpu ntt h: a piece of %zu elements past its buffers",
                         count);
    const void *p[2] = {x->ptr, y ? y->ptr : x->ptr};
    size_t len[2] = {count * sizeof(fr_t), count * sizeof(fr_t)};
    return count ? kernel_check(what, p, len, 2, err) : CUZK_OK;
}

extern "C" int gpu_ntt_h_mul_dev(gpu_buf *x, const gpu_buf *y, size_t count, bool x_is_b,
                                 unsigned log_n, cuzk_err *err)
{
    int rc = h_piece_check("ntt h mul", x, y, count, err);
    ntt_domain d;
    if (!rc) rc = ntt_domain_init(&d, log_n, err);
    if (rc) return rc;
    ntt_groth16_h_mul(&d, (fr_t *)x->ptr, (const fr_t *)y->ptr, count, x_is_b);
    ntt_domain_free(&d);
    return CUZK_OK;
}

extern "C" int gpu_ntt_h_product_dev(gpu_buf *a, unsigned log_n, cuzk_err *err)
{
    int rc = h_buffers(&a, 1, log_n, err);
    if (!rc) rc = h_piece_check("ntt h product", a, NULL, (size_t)1 << log_n, err);
    ntt_domain d;
    if (!rc) rc = ntt_domain_init(&d, log_n, err);
    if (rc) return rc;
    rc = ntt_groth16_h_product(&d, (fr_t *)a->ptr, err);
    ntt_domain_free(&d);
    return rc;
}

extern "C" int gpu_ntt_h_sub_dev(gpu_buf *x, const gpu_buf *c, size_t count, cuzk_err *err)
{
    int rc = h_piece_check("ntt h sub", x, c, count, err);
    if (!rc) ntt_groth16_h_sub((fr_t *)x->ptr, (const fr_t *)c->ptr, count);
    return rc;
}

extern "C" int gpu_ntt_h_bitrev_dev(gpu_buf *a, const gpu_buf *c, unsigned log_n, cuzk_err *err)
{
    size_t n = (size_t)1 << log_n;
    int rc = h_buffers(&a, 1, log_n, err);
    if (!rc && c) rc = h_buffers((gpu_buf *const *)&c, 1, log_n, err);
    if (!rc) rc = h_piece_check("ntt h bitrev", a, c, n, err);
    if (rc) return rc;
    if (c) ntt_groth16_h_sub((fr_t *)a->ptr, (const fr_t *)c->ptr, n);
    ntt_bit_reverse((fr_t *)a->ptr, log_n);
    return CUZK_OK;
}

/* The kernel's threads one after another (batch_add.cuh), their sums
 * added as the blocks and the host do; one template for G1 and G2, the
 * host's XYZZ type X and its conversion to Jacobian given. */
template <class XD, class X, class J, class A>
static void batch_add_host(J *out, const A *bases, const uint64_t *bitmap, size_t n,
                           void (*to_jac)(J *, const X *))
{
    size_t per;
    unsigned blocks;
    batch_add_shape(n, BA_BLOCKS, prove_batch_add_per(), &per, &blocks);
    XD acc = XD::inf();
    for (size_t t = 0; t < (size_t)blocks * BA_THREADS; t++)
        acc.add(batch_add_thread(t, bases, bitmap, n, per));
    X sum;
    memcpy(&sum, &acc, sizeof sum);
    to_jac(out, &sum);
}

/* The launch check of a batch addition or gather over n bases of `size`
 * bytes: the bases and the bitmap (bits) or the indexes and output. */
static int bases_check(const char *what, const void *bases, size_t size, const void *other,
                       size_t other_bytes, size_t n, cuzk_err *err)
{
    if (n == 0) return CUZK_OK;
    const void *p[2] = {bases, other};
    size_t len[2] = {size, other_bytes};
    return kernel_check(what, p, len, 2, err);
}

int prove_batch_add(g1_jac_t *out, const prove_g1_aff *bases, const uint64_t *bitmap, size_t n,
                    cuzk_err *err)
{
    int rc = bases_check("batch add", bases, n * sizeof *bases, bitmap, (n + 63) / 64 * 8, n, err);
    if (rc) return rc;
    g1_jac_set_inf(out);
    if (n) batch_add_host<prove_g1_xyzz, g1_xyzz_t>(out, bases, bitmap, n, g1_xyzz_to_jac);
    return CUZK_OK;
}

int prove_batch_add_g2(g2_jac_t *out, const prove_g2_aff *bases, const uint64_t *bitmap, size_t n,
                       cuzk_err *err)
{
    int rc =
        bases_check("batch add g2", bases, n * sizeof *bases, bitmap, (n + 63) / 64 * 8, n, err);
    if (rc) return rc;
    g2_jac_set_inf(out);
    if (n) batch_add_host<prove_g2_xyzz, g2_xyzz_t>(out, bases, bitmap, n, g2_xyzz_to_jac);
    return CUZK_OK;
}

/* The accumulator's launch check: its entries on the current device. */
static int acc_check(const char *what, const void *acc, size_t bytes, cuzk_err *err)
{
    const void *p[1] = {acc};
    size_t len[1] = {bytes};
    return kernel_check(what, p, len, 1, err);
}

int prove_ba_acc_clear(void *acc, size_t entries, bool g2, cuzk_err *err)
{
    int rc = acc_check("ba acc clear", acc,
                       entries * (g2 ? sizeof(prove_g2_xyzz) : sizeof(prove_g1_xyzz)), err);
    for (size_t b = 0; !rc && b < entries; b++) {
        if (g2)
            ((prove_g2_xyzz *)acc)[b] = prove_g2_xyzz::inf();
        else
            ((prove_g1_xyzz *)acc)[b] = prove_g1_xyzz::inf();
    }
    return rc;
}

/* The kernel's blocks one after another, block b's sum (its threads')
 * added into acc[b], as batch_add_kernel does with accumulate. */
template <class XD, class A>
static int batch_add_acc_host(const char *what, void *acc, const A *bases, const uint64_t *bitmap,
                              size_t n, cuzk_err *err)
{
    int rc = bases_check(what, bases, n * sizeof *bases, bitmap, (n + 63) / 64 * 8, n, err);
    if (rc || n == 0) return rc;
    size_t per;
    unsigned blocks;
    batch_add_shape(n, BA_BLOCKS, 0, &per, &blocks);     /* passes keep one wave */
    rc = acc_check(what, acc, blocks * sizeof(XD), err); /* the entries the launch writes */
    if (rc) return rc;
    XD *a = (XD *)acc;
    for (unsigned b = 0; b < blocks; b++) {
        XD s = XD::inf();
        for (size_t t = (size_t)b * BA_THREADS; t < (size_t)(b + 1) * BA_THREADS; t++)
            s.add(batch_add_thread(t, bases, bitmap, n, per));
        s.add(a[b]);
        a[b] = s;
    }
    return CUZK_OK;
}

int prove_batch_add_acc(void *acc, const prove_g1_aff *bases, const uint64_t *bitmap, size_t n,
                        cuzk_err *err)
{
    return batch_add_acc_host<prove_g1_xyzz>("batch add acc", acc, bases, bitmap, n, err);
}

int prove_batch_add_acc_g2(void *acc, const prove_g2_aff *bases, const uint64_t *bitmap, size_t n,
                           cuzk_err *err)
{
    return batch_add_acc_host<prove_g2_xyzz>("batch add acc g2", acc, bases, bitmap, n, err);
}

/* The accumulator's BA_BLOCKS sums added (on the host, as the real one
 * after reading them back). */
template <class XD, class X, class J>
static int ba_acc_sum_host(J *out, const void *acc, size_t entries, void (*to_jac)(J *, const X *),
                           cuzk_err *err)
{
    int rc = acc_check("ba acc sum", acc, entries * sizeof(XD), err);
    if (rc) return rc;
    XD s = XD::inf();
    for (size_t b = 0; b < entries; b++) s.add(((const XD *)acc)[b]);
    X sum;
    memcpy(&sum, &s, sizeof sum);
    to_jac(out, &sum);
    return CUZK_OK;
}

int prove_ba_acc_sum(g1_jac_t *out, const void *acc, size_t entries, cuzk_err *err)
{
    return ba_acc_sum_host<prove_g1_xyzz, g1_xyzz_t>(out, acc, entries, g1_xyzz_to_jac, err);
}

int prove_ba_acc_sum_g2(g2_jac_t *out, const void *acc, size_t entries, cuzk_err *err)
{
    return ba_acc_sum_host<prove_g2_xyzz, g2_xyzz_t>(out, acc, entries, g2_xyzz_to_jac, err);
}

/* out[k] = bases[idx[k] - lo], each index at least lo and its base on
 * the current device (a streamed chunk's: the ring's). */
template <typename Aff>
static int gather_on(const char *what, Aff *out, const Aff *bases, const uint32_t *idx, size_t n,
                     size_t lo, cuzk_err *err)
{
    int rc = bases_check(what, out, n * sizeof *out, idx, n * sizeof *idx, n, err);
    if (!rc && n && host_owner(bases, sizeof *bases) != host_current_device)
        rc = cuzk_errf(err, CUZK_EDEVICE, "gpu: gather from bases of another device");
    for (size_t k = 0; k < n && !rc; k++)
        if (idx[k] < lo || host_owner(&bases[idx[k] - lo], sizeof *bases) != host_current_device)
            rc = cuzk_errf(err, CUZK_EDEVICE, "gpu: gather index %u outside its chunk", idx[k]);
    for (size_t k = 0; k < n && !rc; k++) out[k] = bases[idx[k] - lo];
    return rc;
}

/* fr_pack.cu's expansion, element by element with the kernel's reader;
 * the packed run (its header and values) and out on the current device. */
int prove_unpack_fr(fr_t *out, const void *packed, size_t nv, cudaStream_t st, cuzk_err *err)
{
    (void)st;
    if (nv == 0) return CUZK_OK;
    int dev = host_current_device;
    size_t nb = (nv + 63) / 64, head = fr_pack_header(nv);
    cudaError_t e = host_mem_on(dev, packed, head);
    if (e == cudaSuccess) e = host_mem_on(dev, out, nv * sizeof(fr_t));
    if (e == cudaSuccess) {
        const uint64_t *other = (const uint64_t *)packed + nb;
        const uint32_t *before = (const uint32_t *)(other + nb);
        size_t k = before[nb - 1] + (size_t)__builtin_popcountll(other[nb - 1]);
        e = host_mem_on(dev, (const char *)packed + head, k * sizeof(fr_t));
    }
    if (e != cudaSuccess)
        return cuzk_errf(err, CUZK_EDEVICE, "gpu: unpack on device %d failed: %s (%s)", dev,
                         cudaGetErrorString(e), cudaGetErrorName(e));
    for (size_t i = 0; i < nv; i++) fr_pack_get(out[i].l, (const char *)packed, nv, i, FR_ONE.l);
    return CUZK_OK;
}

int prove_gather_g2(prove_g2_aff *out, const prove_g2_aff *bases, const uint32_t *idx, size_t n,
                    size_t lo, cuzk_err *err)
{
    return gather_on("gather g2", out, bases, idx, n, lo, err);
}

int prove_gather(prove_g1_aff *out, const prove_g1_aff *bases, const uint32_t *idx, size_t n,
                 size_t lo, cuzk_err *err)
{
    return gather_on("gather", out, bases, idx, n, lo, err);
}

int shape_launch_eval(const shape_view *v, const wit_view *w, int which, size_t lo, size_t end,
                      fr_t *out, cuzk_err *err)
{
    if (lo % SHAPE_BLOCK || end > v->rows || (end % SHAPE_BLOCK && end != v->rows))
        return cuzk_errf(err, CUZK_EINVAL, "shape eval: rows [%zu, %zu) not whole blocks", lo, end);
    if (lo >= end) return CUZK_OK;
    const void *p[4] = {out};
    size_t len[4] = {(end - lo) * sizeof(fr_t)};
    int rc = kernel_check("shape eval", p, len, 1 + wit_mem(w, p + 1, len + 1), err);
    if (rc) return rc;
    const shape_matrix &m = v->m[which];
    for (size_t blk = lo / SHAPE_BLOCK; blk < shape_blocks(end); blk++) {
        uint64_t e = m.start[blk], x = m.esc_start[blk];
        for (size_t r = blk * SHAPE_BLOCK; r < end && r < (blk + 1) * SHAPE_BLOCK; r++) {
            fr_d acc = fr_d::zero();
            for (uint64_t k = e; k < e + m.len[r]; k++) {
                shape_add_entry(acc, *v, m, *w, k, x);
                x += m.code[k] == SHAPE_ESC;
            }
            e += m.len[r];
            memcpy(&out[r - lo], &acc, sizeof acc);
        }
    }
    return CUZK_OK;
}

int shape_launch_check(const fr_t *a, const fr_t *b, const fr_t *c, size_t n, size_t lo,
                       unsigned long long *first, cuzk_err *err)
{
    const void *p[4] = {a, b, c, first};
    size_t len[4] = {n * sizeof(fr_t), n * sizeof(fr_t), n * sizeof(fr_t), sizeof *first};
    int rc = kernel_check("shape check", p, len, 4, err);
    for (size_t j = 0; !rc && j < n; j++) {
        fr_t ab;
        fr_mul(&ab, &a[j], &b[j]);
        if (!fr_eq(&ab, &c[j]) && lo + j < *first) *first = lo + j;
    }
    return rc;
}

/* The device memory a prep kernel reads: the witness and the densities. */
static int prep_check(const char *what, const prep_view *v, cuzk_err *err)
{
    const void *p[9];
    size_t len[9];
    int k = wit_mem(&v->w, p, len);
    for (int j = 0; j < PREP_JOBS; j++) {
        if (v->in_mode[j] == PREP_IN_BITS)
            p[k] = v->in_bits[j], len[k++] = (v->n_in + 63) / 64 * sizeof(uint64_t);
        if (v->aux_bits[j])
            p[k] = v->aux_bits[j], len[k++] = (v->n_aux + 63) / 64 * sizeof(uint64_t);
    }
    return kernel_check(what, p, len, k, err);
}

int prep_launch_count(const prep_view *v, uint32_t *counts, cuzk_err *err)
{
    size_t n = v->n_in + v->n_aux, blocks = (n + PREP_VARS - 1) / PREP_VARS;
    const void *p[1] = {counts};
    size_t len[1] = {blocks * PREP_COUNTS * sizeof(uint32_t)};
    int rc = prep_check("prep count", v, err);
    if (!rc) rc = kernel_check("prep count", p, len, 1, err);
    if (rc) return rc;
    memset(counts, 0, len[0]);
    for (size_t x = 0; x < n; x++) {
        prep_var c = prep_classify(*v, x);
        for (int j = 0; j < PREP_JOBS; j++) {
            counts[x / PREP_VARS * PREP_COUNTS + 2 * j] += c.kept >> j & 1;
            counts[x / PREP_VARS * PREP_COUNTS + 2 * j + 1] += (c.kept >> j & 1) && c.tail;
        }
    }
    return CUZK_OK;
}

static std::atomic<long long> prep_scatters;

extern "C" long long host_prep_scatters(void)
{
    return prep_scatters.load();
}

int prep_launch_scatter(const prep_view *v, const uint32_t *off, const prep_out *out, cuzk_err *err)
{
    size_t n = v->n_in + v->n_aux, blocks = (n + PREP_VARS - 1) / PREP_VARS;
    const void *p[1] = {off};
    size_t len[1] = {blocks * PREP_COUNTS * sizeof(uint32_t)};
    int rc = prep_check("prep scatter", v, err);
    if (!rc) rc = kernel_check("prep scatter", p, len, 1, err);
    if (rc) return rc;
    uint32_t at[PREP_COUNTS];
    for (size_t x = 0; x < n; x++) {
        if (x % PREP_VARS == 0) memcpy(at, off + x / PREP_VARS * PREP_COUNTS, sizeof at);
        prep_var c = prep_classify(*v, x);
        for (int j = 0; j < PREP_JOBS; j++) {
            if (!(c.kept >> j & 1)) continue;
            uint32_t pos = at[2 * j]++;
            if (c.one) out[j].ones[pos / 64] |= 1ull << (pos % 64);
            if (!out[j].split) {
                out[j].vals[pos] = wit_get(v->w, x);
            } else if (c.tail) {
                uint32_t t = at[2 * j + 1]++;
                out[j].vals[t] = wit_get(v->w, x);
                out[j].idx[t] = pos;
            }
        }
    }
    prep_scatters++;
    return CUZK_OK;
}

extern "C" void host_budget_allow(long long more)
{
    int dev = host_current_device;
    host_device_limit[dev] = host_device_used[dev].load() + more;
}

extern "C" void host_use_device(int dev)
{
    host_current_device = dev;
}

extern "C" void host_devices(int n)
{
    host_device_count = n;
    for (int d = 0; d < HOST_MAX_DEVICES; d++) {
        host_device_error[d] = cudaSuccess;
        host_device_calls_left[d] = 0;
        host_alloc_refuse_in[d] = 0;
        host_alloc_refuse_on[d] = false;
    }
}

extern "C" void host_device_fail(int dev, long long after_calls, bool lost)
{
    host_device_calls_left[dev] = after_calls;
    host_device_error[dev] = lost ? cudaErrorDevicesUnavailable : cudaErrorLaunchFailure;
}

extern "C" void host_alloc_refuse(int dev, long long k)
{
    host_alloc_refuse_on[dev] = false;
    host_alloc_refuse_in[dev] = k;
}

extern "C" void host_alloc_refuse_from(int dev, long long k)
{
    host_alloc_refuse_on[dev] = true;
    host_alloc_refuse_in[dev] = k;
}

extern "C" long long host_alloc_refuse_pending(int dev)
{
    return host_alloc_refuse_in[dev].load();
}

extern "C" long long host_device_bytes(int dev)
{
    return host_device_used[dev].load();
}

extern "C" long long host_limit_refusals(int dev)
{
    return host_limit_refused[dev].load();
}

extern "C" size_t host_stage_scratch(int dev)
{
    return prove_stage_scratch_bytes(dev);
}

extern "C" void *host_device_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}

extern "C" void host_device_free(void *p)
{
    cudaFree(p);
}

extern "C" void host_calls_reset(void)
{
    host_stream0_calls = 0, host_malloc_calls = 0, host_free_calls = 0;
}

extern "C" long long host_stream0_count(void)
{
    return host_stream0_calls.load();
}

extern "C" long long host_spin_wait_count(void)
{
    return host_spin_waits.load();
}

extern "C" long long host_malloc_count(void)
{
    return host_malloc_calls.load() + host_free_calls.load();
}

extern "C" void host_dma_delay(int us)
{
    host_dma_delay_us = us;
}

/* prove_upload of `bytes` pseudo-random bytes (seeded) through pool
 * `which`: 0 when they arrive intact and counted whole for the caller's
 * account (xfer_stats.cuh: the copy threads' chunks too), else the first
 * wrong offset + 1, -1 for a failed call, -2 for a wrong count. */
static long long upload_check(int which, size_t bytes, unsigned seed)
{
    char *src = (char *)malloc(bytes + 1), *dev = NULL;
    if (!src || cudaMalloc((void **)&dev, bytes + 1) != cudaSuccess) {
        free(src);
        return -1;
    }
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < bytes; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        src[i] = (char)x;
    }
    memset(dev, 0, bytes + 1);
    xfer_acct a;
    xfer_reset(&a);
    xfer_acct *was = xfer_bind(&a);
    int rc = prove_upload(which, GROTH16_XFER_INPUT, dev, src, bytes, NULL);
    xfer_bind(was);
    long long bad = rc ? -1 : a.bytes[GROTH16_XFER_INPUT] != bytes ? -2 : 0;
    xfer_reset(&a);
    for (size_t i = 0; !bad && i < bytes; i++)
        if (dev[i] != src[i]) bad = (long long)i + 1;
    if (!bad && dev[bytes] != 0) bad = (long long)bytes + 1; /* nothing beyond */
    cudaFree(dev);
    free(src);
    return bad;
}

/* n field elements (seeded, malloc'ed): pieces of dense values (x pieces
 * of 2^17 elements from piece `dense` on: they go as they are), the rest
 * zeros and ones (Montgomery) with one value in 64 another (among them a
 * raw 1, not the Montgomery one). */
static fr_t *fr_source(size_t n, size_t dense, unsigned seed)
{
    const size_t per = ((size_t)4 << 20) / sizeof(fr_t);
    fr_t *src = (fr_t *)malloc(n * sizeof(fr_t) + 1);
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; src && i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bool other = i / per >= dense || x % 64 == 0;
        for (int k = 0; k < 4; k++)
            src[i].l[k] = other ? (k == 3 ? x >> 8 : x * (k + 3)) : x & 2 ? FR_ONE.l[k] : 0;
        if (other && x % 5 == 0) src[i] = fr_t{{1, 0, 0, 0}}; /* 1, not Montgomery's */
    }
    return src;
}

/* prove_upload_fr of fr_source's n elements: 0 when they arrive intact,
 * counted as prove_upload_fr_bytes says and, with a sparse piece of 64 or
 * more (fewer go as they are: packing would not save a quarter), fewer
 * bytes than they are; else the first wrong element + 1, -1 a failed
 * call, -2 a wrong count, -3 nothing saved. */
static long long upload_fr_check(size_t n, size_t dense, unsigned seed)
{
    fr_t *src = fr_source(n, dense, seed), *dev = NULL;
    if (!src || cudaMalloc((void **)&dev, (n + 1) * sizeof(fr_t)) != cudaSuccess) {
        free(src);
        return -1;
    }
    memset(dev, 0x5a, (n + 1) * sizeof(fr_t));
    fr_t after = dev[n];
    prove_stage_scratch(STAGE_BG);
    xfer_acct a;
    xfer_reset(&a);
    xfer_acct *was = xfer_bind(&a);
    int rc = prove_upload_fr(STAGE_BG, GROTH16_XFER_INPUT, dev, src, n, NULL);
    xfer_bind(was);
    size_t want = prove_upload_fr_bytes(src, n);
    long long bad = rc                                                 ? -1
                    : a.bytes[GROTH16_XFER_INPUT] != want              ? -2
                    : dense > 0 && n >= 64 && want >= n * sizeof(fr_t) ? -3
                                                                       : 0;
    xfer_reset(&a);
    for (size_t i = 0; !bad && i < n; i++)
        if (memcmp(&dev[i], &src[i], sizeof(fr_t))) bad = (long long)i + 1;
    if (!bad && memcmp(&dev[n], &after, sizeof(fr_t))) bad = (long long)n + 1; /* nothing beyond */
    cudaFree(dev);
    free(src);
    return bad;
}

extern "C" long long host_upload_fr_check(size_t n, size_t dense, unsigned seed, int delay_us)
{
    host_dma_delay_us = delay_us;
    long long bad = upload_fr_check(n, dense, seed);
    host_dma_delay_us = 0;
    return bad;
}

/* prove_upload_fr_kept of fr_source's n elements into room for exactly
 * what they pack into (prove_upload_fr_bytes), read back element by
 * element through wit_view.cuh's reader (wit_get: the table, packed
 * pieces, pieces as they are); then into a byte less, which must say it
 * does not fit. 0 when every element reads back, the pieces took what
 * prove_upload_fr_bytes says, the count was that and the table, nothing
 * was written past the room, and a byte less did not fit; else the
 * first wrong element + 1, -1 a failed call, -2 a wrong size or count,
 * -3 a byte less fitted, -4 a write past the room. */
static long long upload_kept_check(size_t n, size_t dense, unsigned seed)
{
    fr_t *src = fr_source(n, dense, seed);
    size_t want = src ? prove_upload_fr_bytes(src, n) : 0, table = wit_table_bytes(n);
    char *dev = NULL;
    if (!src || cudaMalloc((void **)&dev, table + want + 64) != cudaSuccess) {
        free(src);
        return -1;
    }
    memset(dev, 0x5a, table + want + 64);
    xfer_acct a;
    xfer_reset(&a);
    xfer_acct *was = xfer_bind(&a);
    size_t used = 0, used2 = 0;
    bool fits = false, fits2 = true;
    int rc =
        prove_upload_fr_kept(STAGE_BG, GROTH16_XFER_INPUT, dev, want, src, n, &used, &fits, NULL);
    uint64_t counted = a.bytes[GROTH16_XFER_INPUT];
    long long bad = rc || !fits ? -1 : used != want || counted != want + wit_pieces(n) * 8 ? -2 : 0;
    for (size_t i = 0; i < 64 && !bad; i++)
        if (dev[table + want + i] != 0x5a) bad = -4;
    wit_view v = {NULL, NULL, (const uint64_t *)dev, dev + table, 0, n};
    for (size_t i = 0; !bad && i < n; i++) {
        fr_d x = wit_get(v, i);
        if (memcmp(&x, &src[i], sizeof(fr_t))) bad = (long long)i + 1;
    }
    if (!bad && n) {
        rc = prove_upload_fr_kept(STAGE_BG, GROTH16_XFER_INPUT, dev, want - 1, src, n, &used2,
                                  &fits2, NULL);
        bad = rc ? -1 : fits2 ? -3 : 0;
    }
    xfer_bind(was);
    xfer_reset(&a);
    cudaFree(dev);
    free(src);
    return bad;
}

extern "C" long long host_upload_kept_check(size_t n, size_t dense, unsigned seed, int delay_us)
{
    host_dma_delay_us = delay_us;
    long long bad = upload_kept_check(n, dense, seed);
    host_dma_delay_us = 0;
    return bad;
}

extern "C" long long host_upload_check(size_t bytes, unsigned seed, int delay_us)
{
    host_dma_delay_us = delay_us;
    long long bad = upload_check(STAGE_BG, bytes, seed);
    host_dma_delay_us = 0;
    return bad;
}

extern "C" long long host_upload_pair_check(size_t bytes, int delay_us)
{
    long long bad[2] = {0, 0};
    host_dma_delay_us = delay_us;
    std::thread t([&] { bad[1] = upload_check(STAGE_PREP, bytes, 2); });
    bad[0] = upload_check(STAGE_PREP, bytes, 1);
    t.join();
    host_dma_delay_us = 0;
    return bad[0] ? bad[0] : bad[1];
}

extern "C" long long host_copied_bytes(int dev, bool to_host)
{
    return host_copied[dev][to_host].load();
}

extern "C" long long host_pin_count(void)
{
    return host_pin_calls.load();
}

extern "C" long long host_pins_held(void)
{
    return host_pins_live.load();
}

extern "C" void host_pin_refuse(bool refuse)
{
    host_pin_fail = refuse;
}
