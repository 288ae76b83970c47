/*
 * h_split.cu - the point-wise kernel of the transform-by-transform H
 * computation (h_split.cuh) and its launcher.
 */
#include <string.h>

#include "gpu/prove/h_split.cuh"

__global__ void h_pointwise_kernel(fr_d *a, const fr_d *__restrict__ b, const fr_d *__restrict__ c,
                                   fr_d zinv, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) h_pointwise_item(i, a, b, c, zinv);
}

int prove_h_pointwise(void *a, const void *b, const void *c, size_t n, const fr_t *zinv,
                      cuzk_err *err)
{
    fr_d z;
    memcpy(&z, zinv, sizeof z);
    h_pointwise_kernel<<<cu_blocks(n, 256), 256>>>((fr_d *)a, (const fr_d *)b, (const fr_d *)c, z,
                                                   n);
    CU_LAUNCH(err, "h_pointwise_kernel");
    return CUZK_OK;
}
