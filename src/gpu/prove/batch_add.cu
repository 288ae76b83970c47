/*
 * batch_add.cu - the bitmap batch addition of the split MSM (the sum of
 * the bases whose scalar is 1) and the gather of the tail's bases.
 *
 * Batch addition: each thread sums its run of bitmap words
 * (batch_add.cuh); a block then sums its threads' accumulators by a tree
 * in shared memory, and the host adds the per-block sums (a few hundred)
 * with the CPU group law. The runs are sized so that the grid fills the
 * device about four blocks per SM; with half the bits of a 2^27 bitmap
 * set, each thread adds about a thousand points, so the tree and the host
 * sum are noise.
 */
#include <stdlib.h>

#include "gpu/prove/batch_add.cuh"

__global__ void __launch_bounds__(BA_THREADS)
    batch_add_kernel(const prove_g1_aff *__restrict__ bases, const uint64_t *__restrict__ bits,
                     size_t n, size_t per, prove_g1_xyzz *partial)
{
    __shared__ prove_g1_xyzz sm[BA_THREADS];
    prove_g1_xyzz acc =
        batch_add_thread((size_t)blockIdx.x * BA_THREADS + threadIdx.x, bases, bits, n, per);
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

static prove_g1_xyzz *ba_partial; /* BA_BLOCKS sums, kept */

int prove_batch_add(g1_jac_t *out, const prove_g1_aff *bases, const uint64_t *bitmap, size_t n,
                    cuzk_err *err)
{
    g1_jac_set_inf(out);
    if (n == 0) return CUZK_OK;
    size_t per;
    unsigned blocks;
    batch_add_shape(n, &per, &blocks);
    if (!ba_partial) {
        int rc = prove_dev_alloc((void **)&ba_partial, BA_BLOCKS * sizeof *ba_partial, NULL, err);
        if (rc) return rc;
    }
    batch_add_kernel<<<blocks, BA_THREADS>>>(bases, bitmap, n, per, ba_partial);
    CU_LAUNCH(err, "batch_add_kernel");
    g1_xyzz_t sums[BA_BLOCKS], acc;
    CU(cudaMemcpy(sums, ba_partial, blocks * sizeof *sums, cudaMemcpyDeviceToHost), err,
       "batch_add_kernel");
    g1_xyzz_set_inf(&acc);
    for (unsigned b = 0; b < blocks; b++) g1_xyzz_add(&acc, &acc, &sums[b]);
    g1_xyzz_to_jac(out, &acc);
    return CUZK_OK;
}

__global__ void gather_kernel(prove_g1_aff *out, const prove_g1_aff *__restrict__ bases,
                              const uint32_t *__restrict__ idx, size_t n)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = bases[idx[k]];
}

int prove_gather(prove_g1_aff *out, const prove_g1_aff *bases, const uint32_t *idx, size_t n,
                 cuzk_err *err)
{
    if (n == 0) return CUZK_OK;
    gather_kernel<<<cu_blocks(n, 256), 256>>>(out, bases, idx, n);
    CU_LAUNCH(err, "gather_kernel");
    return CUZK_OK;
}
