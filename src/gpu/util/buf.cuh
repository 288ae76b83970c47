/*
 * buf.cuh - the device buffer behind the opaque gpu_buf of gpu.h.
 */
#ifndef CUZK_GPU_UTIL_BUF_CUH
#define CUZK_GPU_UTIL_BUF_CUH

#include <stddef.h>

struct gpu_buf {
    void *ptr;    /* device memory from cudaMalloc */
    size_t bytes; /* its size */
};

#endif
