/*
 * ntt.cu - the Fr NTT on the device and the H computation of the prover.
 *
 * A transform of 2^n elements runs as ceil(n / 10) passes, each doing up
 * to 10 radix-2 stages on tiles of 2^11 elements, so the data crosses
 * device memory 2-3 times for n = 20..27 instead of n times. The passes
 * are ntt_pass_r8 (ntt_kernels.cuh: 8 elements and 3 stages at a time in
 * each thread's registers) or, with gpu_ntt_set_radix(2), ntt_pass (one
 * butterfly at a time on the tile in shared memory); both give the same
 * bytes. Forward and inverse transforms run Gentleman-Sande (natural ->
 * bit-reversed); a bit-reversal kernel (ntt_bitrev_tiled: transposes of
 * 16 x 16 tiles through shared memory) restores natural order. Scalings
 * (1/n, the coset powers 7^i or 7^-i) multiply element i by
 * lo[e mod 2^14] * hi[e >> 14] (e = i or bitrev(i)), two small tables
 * built on the host (fr.h) per kind and size: on the loads of the first
 * radix-8 pass or the stores of the last, or (radix 2) as an
 * element-wise pass of their own.
 *
 * The H computation (six transforms, as the CPU's groth16_h.c) keeps the
 * bit-reversed order between transforms: a and b by inverse DIF (natural
 * -> reversed coefficients) scaled by 7^i / n at the reversed positions,
 * then forward Cooley-Tukey (reversed -> natural coset evaluations); c by
 * one inverse DIF scaled by 1 / (n (7^n - 1)) (its coefficients over Z,
 * reversed); a := a b / (7^n - 1), inverse DIF scaled by 7^-i / n, and one
 * tiled bit reversal that subtracts c on its loads. One permutation in
 * all, a, b, c on the device throughout.
 *
 * The twiddle table of the largest size used so far and the scale tables
 * are kept on the device: one set per device (device.cuh), each under a
 * mutex of its own, picked by the calling thread's current device, so
 * transforms on two GPUs never wait for each other.
 */
#include <string.h>
#include <stdlib.h>

#include <mutex>

#include "gpu/ntt/ntt_kernels.cuh"
#include "gpu/util/buf.cuh"
#include "gpu/util/check.cuh"
#include "gpu/util/device.cuh"
#include "gpu/util/xfer_stats.cuh"
#include "gpu/util/yield.cuh"

/* ROOT_OF_UNITY = 7^((r-1)/2^32), a primitive 2^32-th root (groth16.md). */
static const uint64_t NTT_ROOT[4] = {0x3829971f439f0d2b, 0xb63683508c2280b9, 0xd09b681922c813b4,
                                     0x16a2a19edfe81f20};
#define NTT_TWO_ADICITY 32
#define NTT_MIN_LOG     10
#define NTT_MAX_LOG     28

enum ntt_scale_kind {
    SCALE_G_OVER_N,
    SCALE_GINV_OVER_N,
    SCALE_G,
    SCALE_ONE_OVER_N,
    SCALE_ONE_OVER_NZ, /* 1 / (n (7^n - 1)) */
    SCALE_KINDS,
    SCALE_NONE = SCALE_KINDS
};

/* A scaling before or after the stages of a transform; bitrev: element i
 * takes the factor of index bitrev(i). */
struct ntt_scaling {
    enum ntt_scale_kind kind;
    bool bitrev;
};
static const ntt_scaling NO_SCALE = {SCALE_NONE, false};

/* The tables on one device (device.cuh: one per device, under its lock). */
struct ntt_dev {
    std::mutex lock;
    fr_d *tw;              /* w^k, k = 0 .. 2^(tw_log - 1) */
    unsigned tw_log;       /* log2 of the size whose root w is */
    fr_d *sc[SCALE_KINDS]; /* lo (2^14) then hi (2^14) tables */
    unsigned sc_log[SCALE_KINDS];
    int id; /* the device's ordinal */
};
static ntt_dev ntt_devs[CU_MAX_SLOTS];

/* The calling thread's tables (its slot's: lane.cuh), locked
 * (ntt_release unlocks). */
static int ntt_acquire(ntt_dev **out, cuzk_err *err)
{
    int dev, slot;
    int rc = cu_device(&dev, err);
    if (!rc) rc = cu_slot(&slot, err);
    if (rc) return rc;
    *out = &ntt_devs[slot];
    (*out)->lock.lock();
    (*out)->id = dev;
    return CUZK_OK;
}

static void ntt_release(ntt_dev *d)
{
    d->lock.unlock();
}

/* Twiddles for 2^n: w^k, k = 0 .. 2^(n - 1). */
static size_t ntt_twiddle_bytes(unsigned n)
{
    return n ? (((size_t)1 << (n - 1)) + 1) * sizeof(fr_d) : 0;
}

static int ntt_ensure_twiddles(ntt_dev *d, unsigned n, cuzk_err *err)
{
    if (d->tw && d->tw_log >= n) return CUZK_OK;
    if (d->tw) cu_free(d->tw);
    d->tw = NULL;
    fr_t w;
    fr_from_canonical(&w, NTT_ROOT);
    for (unsigned i = n; i < NTT_TWO_ADICITY; i++) fr_sqr(&w, &w);
    uint64_t count = ntt_twiddle_bytes(n) / sizeof(fr_d);
    CU(cu_malloc((void **)&d->tw, count * sizeof(fr_d)), err, "ntt twiddle table alloc");
    fr_d wd;
    memcpy(&wd, &w, sizeof wd);
    uint64_t threads = (count + NTT_TW_CHUNK - 1) / NTT_TW_CHUNK;
    ntt_twiddle_gen<<<cu_blocks(threads, 256), 256, 0, cu_kstream()>>>(d->tw, wd, count);
    CU_LAUNCH(err, "ntt_twiddle_gen");
    CU_WAIT(err, "ntt_twiddle_gen");
    d->tw_log = n;
    return CUZK_OK;
}

/* 1 / (7^(2^n) - 1): 1 / Z(x) anywhere on the coset 7 H. */
static void ntt_z_inv(fr_t *z, unsigned n)
{
    fr_from_u64(z, 7);
    for (unsigned i = 0; i < n; i++) fr_sqr(z, z);
    fr_sub(z, z, &FR_ONE);
    fr_inv(z, z);
}

/* Host tables of one scale kind: lo[i] = g^i, hi[h] = c g^(h 2^14). */
static void ntt_scale_tables(fr_t *t, enum ntt_scale_kind kind, unsigned n)
{
    const size_t half = (size_t)1 << NTT_SCALE_LO;
    fr_t g, c, big;
    fr_from_u64(&g, kind == SCALE_ONE_OVER_N || kind == SCALE_ONE_OVER_NZ ? 1 : 7);
    if (kind == SCALE_GINV_OVER_N) fr_inv(&g, &g);
    fr_from_u64(&c, (uint64_t)1 << n);
    if (kind == SCALE_G)
        c = FR_ONE;
    else
        fr_inv(&c, &c);
    if (kind == SCALE_ONE_OVER_NZ) {
        fr_t z;
        ntt_z_inv(&z, n);
        fr_mul(&c, &c, &z);
    }
    t[0] = FR_ONE;
    for (size_t i = 1; i < half; i++) fr_mul(&t[i], &t[i - 1], &g);
    fr_mul(&big, &t[half - 1], &g);
    t[half] = c;
    for (size_t i = 1; i < half; i++) fr_mul(&t[half + i], &t[half + i - 1], &big);
}

static int ntt_ensure_scale(ntt_dev *d, enum ntt_scale_kind kind, unsigned n, cuzk_err *err)
{
    const size_t count = (size_t)2 << NTT_SCALE_LO;
    if (d->sc[kind] && d->sc_log[kind] == n) return CUZK_OK;
    if (!d->sc[kind])
        CU(cu_malloc((void **)&d->sc[kind], count * sizeof(fr_d)), err, "ntt scale alloc");
    fr_t *t = (fr_t *)malloc(count * sizeof(fr_t));
    if (!t) return cuzk_errf(err, CUZK_ENOMEM, "gpu ntt: scale table of %zu elements", count);
    ntt_scale_tables(t, kind, n);
    cudaError_t e = xfer_copy(d->sc[kind], t, count * sizeof(fr_t), GROTH16_XFER_PARAMS);
    free(t);
    CU(e, err, "ntt scale table upload");
    d->sc_log[kind] = n;
    return CUZK_OK;
}

static unsigned ntt_block = NTT_THREADS; /* gpu_ntt_set_block (radix 2 only) */
static unsigned ntt_radix = 8;           /* gpu_ntt_set_radix */

extern "C" size_t gpu_ntt_tables_for(unsigned log_n)
{
    return ntt_twiddle_bytes(log_n) + (size_t)SCALE_KINDS * (2 << NTT_SCALE_LO) * sizeof(fr_d);
}

extern "C" size_t gpu_ntt_tables_bytes(void)
{
    ntt_dev *d;
    if (ntt_acquire(&d, NULL)) return 0;
    size_t b = d->tw ? ntt_twiddle_bytes(d->tw_log) : 0;
    for (int k = 0; k < SCALE_KINDS; k++)
        if (d->sc[k]) b += (2 << NTT_SCALE_LO) * sizeof(fr_d);
    ntt_release(d);
    return b;
}

extern "C" int gpu_ntt_tables_make(unsigned log_n, cuzk_err *err)
{
    ntt_dev *d;
    int rc = ntt_acquire(&d, err);
    if (rc) return rc;
    rc = ntt_ensure_twiddles(d, log_n, err);
    ntt_release(d);
    return rc;
}

extern "C" void gpu_ntt_tables_free(void)
{
    ntt_dev *d;
    if (ntt_acquire(&d, NULL)) return;
    cu_free(d->tw);
    d->tw = NULL, d->tw_log = 0;
    for (int k = 0; k < SCALE_KINDS; k++) cu_free(d->sc[k]), d->sc[k] = NULL, d->sc_log[k] = 0;
    ntt_release(d);
}

extern "C" int gpu_ntt_set_block(unsigned threads, cuzk_err *err)
{
    if (threads != 256 && threads != 512 && threads != 1024)
        return cuzk_errf(err, CUZK_EINVAL, "gpu ntt: %u threads per block (256, 512, 1024)",
                         threads);
    __atomic_store_n(&ntt_block, threads, __ATOMIC_RELAXED);
    return CUZK_OK;
}

extern "C" int gpu_ntt_set_radix(unsigned radix, cuzk_err *err)
{
    if (radix != 2 && radix != 8)
        return cuzk_errf(err, CUZK_EINVAL, "gpu ntt: radix %u (2: ntt_pass, 8: ntt_pass_r8)",
                         radix);
    __atomic_store_n(&ntt_radix, radix, __ATOMIC_RELAXED);
    return CUZK_OK;
}

static int ntt_scale_run(ntt_dev *d, fr_d *x, unsigned n, ntt_scaling s, cuzk_err *err)
{
    if (s.kind == SCALE_NONE) return CUZK_OK;
    int rc = ntt_ensure_scale(d, s.kind, n, err);
    if (rc) return rc;
    const fr_d *lo = d->sc[s.kind], *hi = lo + ((size_t)1 << NTT_SCALE_LO);
    ntt_scale<<<cu_blocks((size_t)1 << n, 256), 256, 0, cu_kstream()>>>(x, n, s.bitrev, lo, hi);
    CU_LAUNCH(err, "ntt_scale");
    return CUZK_OK;
}

template <bool DIF, bool INV, unsigned TH>
static int ntt_stages_th(ntt_dev *d, fr_d *x, const ntt_pass_t *ps, unsigned passes, unsigned n,
                         cuzk_err *err)
{
    static bool attr_set[CU_MAX_DEVICES]; /* a function attribute is per device */
    if (!attr_set[d->id]) {
        CU(cudaFuncSetAttribute(ntt_pass<DIF, INV, TH>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                32 << NTT_TILE_LOG),
           err, "ntt_pass shared memory limit");
        attr_set[d->id] = true;
    }
    for (unsigned i = 0; i < passes; i++) {
        unsigned blocks = 1u << (n - ps[i].m - ps[i].L);
        size_t smem = (size_t)32 << (ps[i].m + ps[i].L);
        ntt_pass<DIF, INV, TH><<<blocks, TH, smem, cu_kstream()>>>(x, d->tw, ps[i]);
        CU_LAUNCH(err, "ntt_pass");
    }
    return CUZK_OK;
}

/* The radix-2 passes, with the scalings as separate element-wise passes. */
template <bool DIF, bool INV>
static int ntt_stages_r2(ntt_dev *d, fr_d *x, const ntt_pass_t *ps, unsigned passes, unsigned n,
                         ntt_scaling in, ntt_scaling out, cuzk_err *err)
{
    int rc = ntt_scale_run(d, x, n, in, err);
    if (rc) return rc;
    unsigned block = __atomic_load_n(&ntt_block, __ATOMIC_RELAXED);
    if (block == 1024)
        rc = ntt_stages_th<DIF, INV, 1024>(d, x, ps, passes, n, err);
    else if (block == 512)
        rc = ntt_stages_th<DIF, INV, 512>(d, x, ps, passes, n, err);
    else
        rc = ntt_stages_th<DIF, INV, 256>(d, x, ps, passes, n, err);
    return rc ? rc : ntt_scale_run(d, x, n, out, err);
}

/* The kernel's form of a scaling (device tables of its kind and size). */
static int ntt_scale_args(ntt_dev *d, ntt_scale_t *sc, ntt_scaling s, unsigned n, cuzk_err *err)
{
    *sc = ntt_scale_t{NULL, NULL, s.bitrev};
    if (s.kind == SCALE_NONE) return CUZK_OK;
    int rc = ntt_ensure_scale(d, s.kind, n, err);
    if (rc) return rc;
    sc->lo = d->sc[s.kind];
    sc->hi = sc->lo + ((size_t)1 << NTT_SCALE_LO);
    return CUZK_OK;
}

template <bool DIF, bool INV, int SC, bool BOTTOM>
static int ntt_launch_r8_at(ntt_dev *d, fr_d *x, const ntt_pass_t &ps, ntt_scale_t sc,
                            cuzk_err *err)
{
    static bool attr_set[CU_MAX_DEVICES]; /* a function attribute is per device */
    if (!attr_set[d->id]) {
        CU(cudaFuncSetAttribute(ntt_pass_r8<DIF, INV, SC, BOTTOM>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, 32 << NTT_TILE_LOG),
           err, "ntt_pass_r8 shared memory limit");
        attr_set[d->id] = true;
    }
    unsigned log_t = ps.m + ps.L;
    ntt_pass_r8<DIF, INV, SC, BOTTOM>
        <<<1u << (ps.n - log_t), 1u << (log_t - 3), (size_t)32 << log_t, cu_kstream()>>>(x, d->tw,
                                                                                         ps, sc);
    CU_LAUNCH(err, "ntt_pass_r8");
    return CUZK_OK;
}

/* The kernel for the pass: with the twiddle-1 code for the pass with
 * b = 0 (BOTTOM), without it for the others. */
template <bool DIF, bool INV, int SC>
static int ntt_launch_r8(ntt_dev *d, fr_d *x, const ntt_pass_t &ps, ntt_scale_t sc, cuzk_err *err)
{
    if (ps.b == 0) return ntt_launch_r8_at<DIF, INV, SC, true>(d, x, ps, sc, err);
    return ntt_launch_r8_at<DIF, INV, SC, false>(d, x, ps, sc, err);
}

/* The register passes: T / 8 threads per tile of T elements. A DIF
 * forward transform folds its scaling in into the first pass, a DIF
 * inverse its scaling out into the last; any other scaling runs as a pass
 * of its own. */
template <bool DIF, bool INV>
static int ntt_stages_r8(ntt_dev *d, fr_d *x, const ntt_pass_t *ps, unsigned passes, unsigned n,
                         ntt_scaling in, ntt_scaling out, cuzk_err *err)
{
    constexpr bool FOLD_IN = DIF && !INV, FOLD_OUT = DIF && INV;
    ntt_scale_t si, so;
    int rc = ntt_scale_args(d, &si, FOLD_IN ? in : NO_SCALE, n, err);
    if (!rc) rc = ntt_scale_args(d, &so, FOLD_OUT ? out : NO_SCALE, n, err);
    if (!rc) rc = ntt_scale_run(d, x, n, FOLD_IN ? NO_SCALE : in, err);
    for (unsigned i = 0; !rc && i < passes; i++) {
        if constexpr (FOLD_IN)
            if (i == 0 && si.lo) {
                rc = ntt_launch_r8<DIF, INV, NTT_R8_SCALE_IN>(d, x, ps[i], si, err);
                continue;
            }
        if constexpr (FOLD_OUT) /* the last DIF pass has b = 0 */
            if (i + 1 == passes && so.lo) {
                rc = ntt_launch_r8_at<DIF, INV, NTT_R8_SCALE_OUT, true>(d, x, ps[i], so, err);
                continue;
            }
        rc = ntt_launch_r8<DIF, INV, NTT_R8_PLAIN>(d, x, ps[i], si, err);
    }
    return rc ? rc : ntt_scale_run(d, x, n, FOLD_OUT ? NO_SCALE : out, err);
}

/* Runs all stages (DIF from the top bits down, DIT from the bottom up)
 * between the scalings in and out (NO_SCALE: none). */
template <bool DIF, bool INV>
static int ntt_stages(ntt_dev *d, fr_d *x, unsigned n, ntt_scaling in, ntt_scaling out,
                      cuzk_err *err)
{
    ntt_pass_t ps[NTT_MAX_PASSES];
    unsigned passes = ntt_plan(ps, n, d->tw_log, DIF);
    if (__atomic_load_n(&ntt_radix, __ATOMIC_RELAXED) == 8)
        return ntt_stages_r8<DIF, INV>(d, x, ps, passes, n, in, out, err);
    return ntt_stages_r2<DIF, INV>(d, x, ps, passes, n, in, out, err);
}

/* x := bitrev(x - sub) (sub NULL: bitrev(x)). */
static int ntt_bitrev_run(fr_d *x, const fr_d *sub, unsigned n, cuzk_err *err)
{
    ntt_bitrev_tiled<<<1u << (n - 2 * NTT_BR_K), NTT_BR_THREADS, 0, cu_kstream()>>>(x, sub, n);
    CU_LAUNCH(err, "ntt_bitrev_tiled");
    return CUZK_OK;
}

static int ntt_check_args(const gpu_buf *buf, unsigned n, cuzk_err *err)
{
    if (n < NTT_MIN_LOG || n > NTT_MAX_LOG)
        return cuzk_errf(err, CUZK_EINVAL, "gpu ntt: log size %u outside %d..%d", n, NTT_MIN_LOG,
                         NTT_MAX_LOG);
    if (buf && buf->bytes < (sizeof(fr_d) << n))
        return cuzk_errf(err, CUZK_EINVAL, "gpu ntt: buffer of %zu bytes holds less than 2^%u",
                         buf->bytes, n);
    return CUZK_OK;
}

static int ntt_run(ntt_dev *d, fr_d *x, unsigned n, enum gpu_ntt_kind kind, cuzk_err *err)
{
    int rc = ntt_ensure_twiddles(d, n, err);
    if (rc) return rc;
    switch (kind) {
    case GPU_NTT_FORWARD:
        rc = ntt_stages<true, false>(d, x, n, NO_SCALE, NO_SCALE, err);
        break;
    case GPU_NTT_COSET_FWD:
        rc = ntt_stages<true, false>(d, x, n, {SCALE_G, false}, NO_SCALE, err);
        break;
    case GPU_NTT_INVERSE:
        rc = ntt_stages<true, true>(d, x, n, NO_SCALE, {SCALE_ONE_OVER_N, false}, err);
        break;
    case GPU_NTT_COSET_INV:
        rc = ntt_stages<true, true>(d, x, n, NO_SCALE, {SCALE_GINV_OVER_N, true}, err);
        break;
    default:
        return cuzk_errf(err, CUZK_EINVAL, "gpu ntt: unknown kind %d", (int)kind);
    }
    if (!rc) rc = ntt_bitrev_run(x, NULL, n, err);
    if (!rc) CU_WAIT(err, "ntt");
    return rc;
}

extern "C" int gpu_ntt_dev(gpu_buf *data, unsigned log_n, enum gpu_ntt_kind kind, cuzk_err *err)
{
    int rc = ntt_check_args(data, log_n, err);
    if (rc) return rc;
    ntt_dev *d;
    if ((rc = ntt_acquire(&d, err))) return rc;
    rc = ntt_run(d, (fr_d *)data->ptr, log_n, kind, err);
    ntt_release(d);
    return rc;
}

extern "C" int gpu_ntt(fr_t *data, unsigned log_n, enum gpu_ntt_kind kind, cuzk_err *err)
{
    int rc = ntt_check_args(NULL, log_n, err);
    if (rc) return rc;
    size_t bytes = sizeof(fr_t) << log_n;
    gpu_buf *b;
    if ((rc = gpu_buf_new(&b, bytes, err))) return rc;
    if (!(rc = gpu_buf_upload(b, 0, data, bytes, err)) && !(rc = gpu_ntt_dev(b, log_n, kind, err)))
        rc = gpu_buf_download(data, b, 0, bytes, err);
    gpu_buf_free(b);
    return rc;
}

/* Row 0, 1 (a, b): evaluations on H -> evaluations on 7 H, natural order;
 * row 2 (c): -> the coefficients of C / (7^n - 1), bit-reversed. */
static int ntt_h_row(ntt_dev *d, fr_d *x, unsigned n, int row, cuzk_err *err)
{
    int rc = ntt_ensure_twiddles(d, n, err);
    if (rc) return rc;
    if (row == 2) return ntt_stages<true, true>(d, x, n, NO_SCALE, {SCALE_ONE_OVER_NZ, false}, err);
    rc = ntt_stages<true, true>(d, x, n, NO_SCALE, {SCALE_G_OVER_N, true}, err);
    return rc ? rc : ntt_stages<false, false>(d, x, n, NO_SCALE, NO_SCALE, err);
}

/* x[0, count) := a b / z, a's factor first: x holds a and y b, or, when
 * x_is_b, the other way round. */
static int ntt_h_mul(fr_d *x, const fr_d *y, size_t count, bool x_is_b, unsigned n, cuzk_err *err)
{
    fr_t z;
    ntt_z_inv(&z, n);
    fr_d zd;
    memcpy(&zd, &z, sizeof zd);
    if (!count) return CUZK_OK;
    if (x_is_b)
        ntt_h_pointwise_b<<<cu_blocks(count, 256), 256, 0, cu_kstream()>>>(x, y, (uint32_t)count,
                                                                           zd);
    else
        ntt_h_pointwise<<<cu_blocks(count, 256), 256, 0, cu_kstream()>>>(x, y, (uint32_t)count, zd);
    CU_LAUNCH(err, "ntt_h_pointwise");
    return CUZK_OK;
}

/* a := a b / z on the coset, back to (bit-reversed) coefficients, less c's
 * row, then to natural order. */
static int ntt_h_finish(ntt_dev *d, fr_d *a, const fr_d *b, const fr_d *c, unsigned n,
                        cuzk_err *err)
{
    int rc = ntt_h_mul(a, b, (size_t)1 << n, false, n, err);
    if (!rc) rc = ntt_stages<true, true>(d, a, n, NO_SCALE, {SCALE_GINV_OVER_N, true}, err);
    if (!rc) rc = ntt_bitrev_run(a, c, n, err);
    if (!rc) CU_WAIT(err, "ntt h");
    return rc;
}

static int ntt_h_args(gpu_buf *const *v, int count, unsigned n, cuzk_err *err)
{
    int rc = CUZK_OK;
    for (int k = 0; k < count && !rc; k++) rc = ntt_check_args(v[k], n, err);
    return rc;
}

/* One row and its wait, for gpu_ntt_h_row_dev (under the device's lock). */
static int ntt_h_row_sync(ntt_dev *d, fr_d *x, unsigned n, int row, cuzk_err *err)
{
    int rc = ntt_h_row(d, x, n, row, err);
    if (!rc) CU_WAIT(err, "ntt h row");
    return rc;
}

extern "C" int gpu_ntt_h_row_dev(gpu_buf *x, unsigned log_n, int row, cuzk_err *err)
{
    int rc = ntt_h_args(&x, 1, log_n, err);
    if (rc) return rc;
    if (row < 0 || row > 2) return cuzk_errf(err, CUZK_EINVAL, "gpu ntt h: no row %d", row);
    ntt_dev *d;
    if ((rc = ntt_acquire(&d, err))) return rc;
    rc = ntt_h_row_sync(d, (fr_d *)x->ptr, log_n, row, err);
    ntt_release(d);
    return rc;
}

extern "C" int gpu_ntt_h_finish_dev(gpu_buf *a, gpu_buf *b, gpu_buf *c, unsigned log_n,
                                    cuzk_err *err)
{
    gpu_buf *v[3] = {a, b, c};
    int rc = ntt_h_args(v, 3, log_n, err);
    if (rc) return rc;
    ntt_dev *d;
    if ((rc = ntt_acquire(&d, err))) return rc;
    rc = ntt_ensure_twiddles(d, log_n, err);
    if (!rc)
        rc =
            ntt_h_finish(d, (fr_d *)a->ptr, (const fr_d *)b->ptr, (const fr_d *)c->ptr, log_n, err);
    ntt_release(d);
    return rc;
}

extern "C" int gpu_ntt_h_dev(gpu_buf *a, gpu_buf *b, gpu_buf *c, unsigned log_n, cuzk_err *err)
{
    gpu_buf *v[3] = {a, b, c};
    int rc = ntt_h_args(v, 3, log_n, err);
    if (rc) return rc;
    ntt_dev *d;
    if ((rc = ntt_acquire(&d, err))) return rc;
    for (int k = 0; k < 3 && !rc; k++) rc = ntt_h_row(d, (fr_d *)v[k]->ptr, log_n, k, err);
    if (!rc)
        rc =
            ntt_h_finish(d, (fr_d *)a->ptr, (const fr_d *)b->ptr, (const fr_d *)c->ptr, log_n, err);
    ntt_release(d);
    return rc;
}

static int ntt_h_piece_args(const gpu_buf *x, const gpu_buf *y, size_t count, unsigned n,
                            cuzk_err *err)
{
    int rc = ntt_check_args(NULL, n, err);
    if (!rc && (count > ((size_t)1 << n) || x->bytes < count * sizeof(fr_d) ||
                y->bytes < count * sizeof(fr_d)))
        rc = cuzk_errf(err, CUZK_EINVAL, "gpu ntt h: a piece of %zu elements past its buffers",
                       count);
    return rc;
}

extern "C" int gpu_ntt_h_mul_dev(gpu_buf *x, const gpu_buf *y, size_t count, bool x_is_b,
                                 unsigned log_n, cuzk_err *err)
{
    int rc = ntt_h_piece_args(x, y, count, log_n, err);
    if (!rc) rc = ntt_h_mul((fr_d *)x->ptr, (const fr_d *)y->ptr, count, x_is_b, log_n, err);
    if (!rc) CU_WAIT(err, "ntt h mul");
    return rc;
}

extern "C" int gpu_ntt_h_product_dev(gpu_buf *a, unsigned log_n, cuzk_err *err)
{
    int rc = ntt_check_args(a, log_n, err);
    if (rc) return rc;
    ntt_dev *d;
    if ((rc = ntt_acquire(&d, err))) return rc;
    rc = ntt_ensure_twiddles(d, log_n, err);
    if (!rc)
        rc = ntt_stages<true, true>(d, (fr_d *)a->ptr, log_n, NO_SCALE, {SCALE_GINV_OVER_N, true},
                                    err);
    if (!rc) CU_WAIT(err, "ntt h product");
    ntt_release(d);
    return rc;
}

extern "C" int gpu_ntt_h_sub_dev(gpu_buf *x, const gpu_buf *c, size_t count, cuzk_err *err)
{
    int rc = ntt_h_piece_args(x, c, count, NTT_MAX_LOG, err);
    if (rc || !count) return rc;
    ntt_h_sub<<<cu_blocks(count, 256), 256, 0, cu_kstream()>>>((fr_d *)x->ptr, (const fr_d *)c->ptr,
                                                               (uint32_t)count);
    CU_LAUNCH(err, "ntt_h_sub");
    CU_WAIT(err, "ntt h sub");
    return CUZK_OK;
}

extern "C" int gpu_ntt_h_bitrev_dev(gpu_buf *a, const gpu_buf *c, unsigned log_n, cuzk_err *err)
{
    int rc = ntt_check_args(a, log_n, err);
    if (!rc && c) rc = ntt_check_args(c, log_n, err);
    if (!rc) rc = ntt_bitrev_run((fr_d *)a->ptr, c ? (const fr_d *)c->ptr : NULL, log_n, err);
    if (!rc) CU_WAIT(err, "ntt h bitrev");
    return rc;
}

extern "C" int gpu_ntt_h(fr_t *h, const fr_t *a, const fr_t *b, const fr_t *c, unsigned log_n,
                         cuzk_err *err)
{
    int rc = ntt_check_args(NULL, log_n, err);
    if (rc) return rc;
    size_t bytes = sizeof(fr_t) << log_n;
    gpu_buf *bufs[3] = {NULL, NULL, NULL};
    const fr_t *src[3] = {a, b, c};
    for (int i = 0; i < 3 && !rc; i++) {
        rc = gpu_buf_new(&bufs[i], bytes, err);
        if (!rc) rc = gpu_buf_upload(bufs[i], 0, src[i], bytes, err);
    }
    if (!rc) rc = gpu_ntt_h_dev(bufs[0], bufs[1], bufs[2], log_n, err);
    if (!rc) rc = gpu_buf_download(h, bufs[0], 0, bytes, err);
    for (int i = 0; i < 3; i++) gpu_buf_free(bufs[i]);
    return rc;
}
