/*
 * fr_pack.cu - the device's side of the packed field elements of
 * fr_pack.cuh: a packed run expanded into its elements, a thread each, on
 * the uploading pool's stream (staging.cu's prove_upload_fr).
 */
#include "gpu/prove/fr_pack.cuh"
#include "gpu/prove/prove_gpu.cuh"

__global__ void unpack_kernel(uint64_t *out, const char *__restrict__ packed, size_t nv, fr_t one)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nv) return;
    uint64_t v[4];
    fr_pack_get(v, packed, nv, i, one.l);
    for (int k = 0; k < 4; k++) out[4 * i + k] = v[k];
}

int prove_unpack_fr(fr_t *out, const void *packed, size_t nv, cudaStream_t st, cuzk_err *err)
{
    if (nv == 0) return CUZK_OK;
    cu_yield_wait(); /* a kernel of the big prover's: yield.cu's rule 2 */
    unpack_kernel<<<cu_blocks(nv, 256), 256, 0, st>>>((uint64_t *)out, (const char *)packed, nv,
                                                      FR_ONE);
    CU_LAUNCH(err, "unpack_kernel");
    return CUZK_OK;
}
