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
 * points, so the tree and the host sum are noise. The block sums' buffer
 * and the wave are kept per device (device.cuh).
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/prove/batch_add.cuh"

template <class F>
__global__ void __launch_bounds__(BA_THREADS)
    batch_add_kernel(const affine_d<F> *__restrict__ bases, const uint64_t *__restrict__ bits,
                     size_t n, size_t per, xyzz_d<F> *partial)
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
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

/* Per device (device.cuh; under its prover lock): BA_BLOCKS sums of the
 * larger group, kept. */
static void *ba_partial[CU_MAX_SLOTS];

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

/* The per-block sums of the batch addition into host memory (*blocks of
 * them, at most BA_BLOCKS). */
template <class F>
static int batch_add_blocks(xyzz_d<F> *sums, unsigned *blocks, const affine_d<F> *bases,
                            const uint64_t *bitmap, size_t n, cuzk_err *err)
{
    size_t per;
    int dev, device;
    int rc = cu_slot(&dev, err);
    if (!rc) rc = cu_device(&device, err);
    if (rc) return rc;
    batch_add_shape(n, batch_add_wave<F>(device), &per, blocks);
    if (!ba_partial[dev]) {
        rc = prove_dev_alloc(&ba_partial[dev], BA_BLOCKS * sizeof(prove_g2_xyzz), NULL, err);
        if (rc) return rc;
    }
    xyzz_d<F> *partial = (xyzz_d<F> *)ba_partial[dev];
    batch_add_kernel<F><<<*blocks, BA_THREADS, 0, cu_stream()>>>(bases, bitmap, n, per, partial);
    CU_LAUNCH(err, "batch_add_kernel");
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
    ba_partial[slot] = NULL;
}

int prove_batch_add(g1_jac_t *out, const prove_g1_aff *bases, const uint64_t *bitmap, size_t n,
                    cuzk_err *err)
{
    g1_jac_set_inf(out);
    if (n == 0) return CUZK_OK;
    prove_g1_xyzz sums[BA_BLOCKS];
    unsigned blocks;
    int rc = batch_add_blocks<fp_d>(sums, &blocks, bases, bitmap, n, err);
    if (rc) return rc;
    g1_xyzz_t acc, s;
    g1_xyzz_set_inf(&acc);
    for (unsigned b = 0; b < blocks; b++) {
        memcpy(&s, &sums[b], sizeof s);
        g1_xyzz_add(&acc, &acc, &s);
    }
    g1_xyzz_to_jac(out, &acc);
    return CUZK_OK;
}

int prove_batch_add_g2(g2_jac_t *out, const prove_g2_aff *bases, const uint64_t *bitmap, size_t n,
                       cuzk_err *err)
{
    g2_jac_set_inf(out);
    if (n == 0) return CUZK_OK;
    prove_g2_xyzz *sums = (prove_g2_xyzz *)malloc(BA_BLOCKS * sizeof *sums);
    if (!sums) return cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory (G2 sums)");
    unsigned blocks;
    int rc = batch_add_blocks<fp2_d>(sums, &blocks, bases, bitmap, n, err);
    g2_xyzz_t acc, s;
    g2_xyzz_set_inf(&acc);
    for (unsigned b = 0; !rc && b < blocks; b++) {
        memcpy(&s, &sums[b], sizeof s);
        g2_xyzz_add(&acc, &acc, &s);
    }
    if (!rc) g2_xyzz_to_jac(out, &acc);
    free(sums);
    return rc;
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
    gather_kernel<<<cu_blocks(n, 256), 256, 0, cu_stream()>>>(out, bases, idx, n, lo);
    CU_LAUNCH(err, "gather_kernel");
    return CUZK_OK;
}

int prove_gather_g2(prove_g2_aff *out, const prove_g2_aff *bases, const uint32_t *idx, size_t n,
                    size_t lo, cuzk_err *err)
{
    if (n == 0) return CUZK_OK;
    gather_kernel<<<cu_blocks(n, 256), 256, 0, cu_stream()>>>(out, bases, idx, n, lo);
    CU_LAUNCH(err, "gather_kernel (G2)");
    return CUZK_OK;
}
