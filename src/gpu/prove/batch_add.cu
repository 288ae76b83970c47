/*
 * batch_add.cu - the bitmap batch addition of the split MSM (the sum of
 * the bases whose scalar is 1) and the gather of the tail's bases.
 *
 * The gather reads a chunk of the bases (stream.cu): indexes relative to
 * the chunk's first point, lo.
 *
 * Batch addition, in G1 (L, A, B_G1) and G2 (B_G2, when its points fit
 * on the device): each thread sums its run of bitmap words
 * (batch_add.cuh); a block then sums its threads' accumulators by a tree
 * in shared memory, and the host adds the per-block sums (a few hundred)
 * with the CPU group law. The runs are sized so that the grid is one
 * wave of the blocks the device holds at once (a fixed 4 per SM, when
 * registers allowed 3, left a second wave of one block per SM); with half
 * the bits of a 2^27 bitmap set, each thread adds about a thousand
 * points, so the tree and the host sum are noise. gpu_prove_set_batch_add_per
 * caps a thread's run instead (more blocks, each ending sooner: the
 * lane's kernels find SMs), the host then adding that many block sums.
 * The block sums' buffer and the wave are kept per device (device.cuh).
 *
 * A pass over an array in chunks (stream.cu) adds each chunk's block sums
 * into an accumulator of its own on the device instead (block b's sum
 * into entry b, the launch not waited for), and the host reads and sums
 * the accumulator once at the pass's end: a chunk of 2^19 G2 points is
 * 64 blocks of one bitmap word a thread, whose wait and host sum cost
 * more than its kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/prove/batch_add.cuh"

template <class F>
__global__ void __launch_bounds__(BA_THREADS)
    batch_add_kernel(const affine_d<F> *__restrict__ bases, const uint64_t *__restrict__ bits,
                     size_t n, size_t per, xyzz_d<F> *partial, bool accumulate)
{
    __shared__ xyzz_d<F> sm[BA_THREADS];
    xyzz_d<F> acc =
        batch_add_thread<F>((size_t)blockIdx.x * BA_THREADS + threadIdx.x, bases, bits, n, per);
    sm[threadIdx.x] = acc;
    for (unsigned h = BA_THREADS / 2; h > 0; h /= 2) {
        __syncthreads();
        if (threadIdx.x < h) {
            acc.add(sm[threadIdx.x + h]);
            sm[threadIdx.x] = acc;
        }
    }
    if (threadIdx.x == 0) {
        if (accumulate) acc.add(partial[blockIdx.x]);
        partial[blockIdx.x] = acc;
    }
}

template <class F> __global__ void ba_acc_clear_kernel(xyzz_d<F> *acc, size_t entries)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < entries) acc[k] = xyzz_d<F>::inf();
}

/* Per device (device.cuh; under its prover lock): the block sums (room
 * for ba_partial_cap[slot] of the larger group, BA_BLOCKS at least), kept. */
static void *ba_partial[CU_MAX_SLOTS];
static size_t ba_partial_cap[CU_MAX_SLOTS];

/* Blocks of batch_add_kernel<F> resident on device dev (an ordinal) at once (per SM
 * times SMs; registers, not the 4 per SM that BA_BLOCKS allows, set it:
 * 3 at 166 registers a thread). 0 when the query fails (BA_BLOCKS). */
template <class F> static unsigned batch_add_wave(int dev)
{
    static unsigned wave[CU_MAX_SLOTS];
    int sms, per_sm;
    if (!wave[dev] &&
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, batch_add_kernel<F>, BA_THREADS,
                                                      0) == cudaSuccess)
        wave[dev] = (unsigned)(sms * per_sm);
    cudaGetLastError();
    return wave[dev];
}

/* The batch addition's launch: block b's sum into partial[b], or added
 * to it (accumulate); *blocks of them (batch_add_shape with per_max). */
template <class F>
static int batch_add_launch(xyzz_d<F> *partial, bool accumulate, size_t per_max, unsigned *blocks,
                            const affine_d<F> *bases, const uint64_t *bitmap, size_t n,
                            cuzk_err *err)
{
    size_t per;
    int device;
    int rc = cu_device(&device, err);
    if (rc) return rc;
    batch_add_shape(n, batch_add_wave<F>(device), per_max, &per, blocks);
    batch_add_kernel<F>
        <<<*blocks, BA_THREADS, 0, cu_kstream()>>>(bases, bitmap, n, per, partial, accumulate);
    CU_LAUNCH(err, "batch_add_kernel");
    return CUZK_OK;
}

/* The per-block sums of the batch addition into host memory (*blocks of
 * them, at most batch_add_blocks_max(n, per_max)). */
template <class F>
static int batch_add_blocks(xyzz_d<F> *sums, unsigned *blocks, size_t per_max,
                            const affine_d<F> *bases, const uint64_t *bitmap, size_t n,
                            cuzk_err *err)
{
    int dev;
    int rc = cu_slot(&dev, err);
    if (rc) return rc;
    size_t want = batch_add_blocks_max(n, per_max);
    if (ba_partial[dev] && ba_partial_cap[dev] < want)
        cu_free(ba_partial[dev]), ba_partial[dev] = NULL, ba_partial_cap[dev] = 0;
    if (!ba_partial[dev]) {
        rc = prove_dev_alloc(&ba_partial[dev], want * sizeof(prove_g2_xyzz), NULL, err);
        if (rc) return rc;
        ba_partial_cap[dev] = want;
    }
    xyzz_d<F> *partial = (xyzz_d<F> *)ba_partial[dev];
    rc = batch_add_launch<F>(partial, false, per_max, blocks, bases, bitmap, n, err);
    if (rc) return rc;
    CU_WAIT(err, "batch_add_kernel");
    CU(xfer_copy(sums, partial, *blocks * sizeof *sums, GROTH16_XFER_RESULTS), err,
       "batch_add_kernel");
    return CUZK_OK;
}

void prove_batch_add_release(void)
{
    int slot;
    if (cu_slot(&slot, NULL)) return;
    cu_free(ba_partial[slot]);
    ba_partial[slot] = NULL, ba_partial_cap[slot] = 0;
}

/* The host's sum of `blocks` block sums (the CPU group law). */
static void host_sum(g1_jac_t *out, const prove_g1_xyzz *sums, unsigned blocks)
{
    g1_xyzz_t acc, s;
    g1_xyzz_set_inf(&acc);
    for (unsigned b = 0; b < blocks; b++) {
        memcpy(&s, &sums[b], sizeof s);
        g1_xyzz_add(&acc, &acc, &s);
    }
    g1_xyzz_to_jac(out, &acc);
}

static void host_sum(g2_jac_t *out, const prove_g2_xyzz *sums, unsigned blocks)
{
    g2_xyzz_t acc, s;
    g2_xyzz_set_inf(&acc);
    for (unsigned b = 0; b < blocks; b++) {
        memcpy(&s, &sums[b], sizeof s);
        g2_xyzz_add(&acc, &acc, &s);
    }
    g2_xyzz_to_jac(out, &acc);
}

static void jac_inf(g1_jac_t *o)
{
    g1_jac_set_inf(o);
}
static void jac_inf(g2_jac_t *o)
{
    g2_jac_set_inf(o);
}

/* *out = the batch addition's sum (blocks summed on the host; Xyzz the
 * group's XYZZ sums, malloc'ed: G2's are 200 KB). */
template <class F, class Xyzz, class Jac, class Aff>
static int batch_add_sum(Jac *out, const Aff *bases, const uint64_t *bitmap, size_t n,
                         cuzk_err *err)
{
    jac_inf(out);
    if (n == 0) return CUZK_OK;
    size_t per_max = prove_batch_add_per(); /* the accumulated passes keep one wave */
    Xyzz *sums = (Xyzz *)malloc(batch_add_blocks_max(n, per_max) * sizeof *sums);
    if (!sums) return cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory (block sums)");
    unsigned blocks;
    int rc = batch_add_blocks<F>((xyzz_d<F> *)sums, &blocks, per_max, (const affine_d<F> *)bases,
                                 bitmap, n, err);
    if (!rc) host_sum(out, sums, blocks);
    free(sums);
    return rc;
}

int prove_batch_add(g1_jac_t *out, const prove_g1_aff *bases, const uint64_t *bitmap, size_t n,
                    cuzk_err *err)
{
    return batch_add_sum<fp_d, prove_g1_xyzz>(out, bases, bitmap, n, err);
}

int prove_batch_add_g2(g2_jac_t *out, const prove_g2_aff *bases, const uint64_t *bitmap, size_t n,
                       cuzk_err *err)
{
    return batch_add_sum<fp2_d, prove_g2_xyzz>(out, bases, bitmap, n, err);
}

int prove_ba_acc_clear(void *acc, size_t entries, bool g2, cuzk_err *err)
{
    unsigned t = 128, b = (unsigned)((entries + t - 1) / t);
    if (g2)
        ba_acc_clear_kernel<fp2_d><<<b, t, 0, cu_kstream()>>>((xyzz_d<fp2_d> *)acc, entries);
    else
        ba_acc_clear_kernel<fp_d><<<b, t, 0, cu_kstream()>>>((xyzz_d<fp_d> *)acc, entries);
    CU_LAUNCH(err, "ba_acc_clear_kernel");
    return CUZK_OK;
}

int prove_batch_add_acc(void *acc, const prove_g1_aff *bases, const uint64_t *bitmap, size_t n,
                        cuzk_err *err)
{
    unsigned blocks;
    return n ? batch_add_launch<fp_d>((xyzz_d<fp_d> *)acc, true, 0, &blocks, bases, bitmap, n, err)
             : CUZK_OK;
}

int prove_batch_add_acc_g2(void *acc, const prove_g2_aff *bases, const uint64_t *bitmap, size_t n,
                           cuzk_err *err)
{
    unsigned blocks;
    return n ? batch_add_launch<fp2_d>((xyzz_d<fp2_d> *)acc, true, 0, &blocks, bases, bitmap, n,
                                       err)
             : CUZK_OK;
}

/* *out = the sum of an accumulator's entries (its launches waited for,
 * read once, summed on the host). */
template <class Xyzz, class Jac>
static int ba_acc_sum(Jac *out, const void *acc, size_t entries, cuzk_err *err)
{
    Xyzz *sums = (Xyzz *)malloc(entries * sizeof *sums);
    if (!sums) return cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory (block sums)");
    cudaError_t e = cudaStreamSynchronize(cu_stream());
    if (e == cudaSuccess) e = xfer_copy(sums, acc, entries * sizeof *sums, GROTH16_XFER_RESULTS);
    if (e == cudaSuccess) host_sum(out, sums, (unsigned)entries);
    free(sums);
    return e == cudaSuccess ? CUZK_OK
                            : cu_fail(e, err, "batch addition's sums", __FILE__, __LINE__);
}

int prove_ba_acc_sum(g1_jac_t *out, const void *acc, size_t entries, cuzk_err *err)
{
    return ba_acc_sum<prove_g1_xyzz>(out, acc, entries, err);
}

int prove_ba_acc_sum_g2(g2_jac_t *out, const void *acc, size_t entries, cuzk_err *err)
{
    return ba_acc_sum<prove_g2_xyzz>(out, acc, entries, err);
}

template <class A>
__global__ void gather_kernel(A *out, const A *__restrict__ bases, const uint32_t *__restrict__ idx,
                              size_t n, size_t lo)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = bases[idx[k] - lo];
}

int prove_gather(prove_g1_aff *out, const prove_g1_aff *bases, const uint32_t *idx, size_t n,
                 size_t lo, cuzk_err *err)
{
    if (n == 0) return CUZK_OK;
    gather_kernel<<<cu_blocks(n, 256), 256, 0, cu_kstream()>>>(out, bases, idx, n, lo);
    CU_LAUNCH(err, "gather_kernel");
    return CUZK_OK;
}

int prove_gather_g2(prove_g2_aff *out, const prove_g2_aff *bases, const uint32_t *idx, size_t n,
                    size_t lo, cuzk_err *err)
{
    if (n == 0) return CUZK_OK;
    gather_kernel<<<cu_blocks(n, 256), 256, 0, cu_kstream()>>>(out, bases, idx, n, lo);
    CU_LAUNCH(err, "gather_kernel (G2)");
    return CUZK_OK;
}
