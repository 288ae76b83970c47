/*
 * gpu.cu - device discovery, device buffers, and the small kernels that
 * expose the device arithmetic to tests and benchmarks (gpu.h): element-
 * wise field products, a multiplication throughput loop, and per-element
 * scalar multiplication in G1 and G2 written once over the curve template.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/ec/xyzz.cuh"
#include "gpu/util/buf.cuh"
#include "gpu/util/check.cuh"

extern "C" bool gpu_available(cuzk_err *err)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cu_fail(e, err, "cudaGetDeviceCount", __FILE__, __LINE__);
        return false;
    }
    if (count == 0) {
        cuzk_errf(err, CUZK_EDEVICE, "gpu: no CUDA device");
        return false;
    }
    return true;
}

extern "C" int gpu_describe(char *out, size_t len, cuzk_err *err)
{
    int dev;
    cudaDeviceProp p;
    CU(cudaGetDevice(&dev), err, "cudaGetDevice");
    CU(cudaGetDeviceProperties(&p, dev), err, "cudaGetDeviceProperties");
    snprintf(out, len, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB", p.name, p.major, p.minor,
             p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, p.l2CacheSize >> 20);
    return CUZK_OK;
}

extern "C" int gpu_set_blocking_sync(bool blocking, cuzk_err *err)
{
    CU(cudaSetDeviceFlags(blocking ? cudaDeviceScheduleBlockingSync : cudaDeviceScheduleAuto), err,
       "cudaSetDeviceFlags");
    return CUZK_OK;
}

extern "C" int gpu_buf_new(gpu_buf **out, size_t bytes, cuzk_err *err)
{
    *out = NULL;
    gpu_buf *b = (gpu_buf *)calloc(1, sizeof *b);
    if (!b) return cuzk_errf(err, CUZK_ENOMEM, "gpu buffer: host allocation");
    cudaError_t e = cudaMalloc(&b->ptr, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        free(b);
        return cuzk_errf(err, CUZK_EDEVICE, "gpu buffer of %zu bytes: %s", bytes,
                         cudaGetErrorString(e));
    }
    b->bytes = bytes;
    *out = b;
    return CUZK_OK;
}

extern "C" void gpu_buf_free(gpu_buf *b)
{
    if (!b) return;
    cudaFree(b->ptr);
    free(b);
}

extern "C" int gpu_buf_upload(gpu_buf *b, size_t offset, const void *src, size_t bytes,
                              cuzk_err *err)
{
    if (offset > b->bytes || bytes > b->bytes - offset)
        return cuzk_errf(err, CUZK_EINVAL, "gpu upload: %zu bytes at %zu past a %zu-byte buffer",
                         bytes, offset, b->bytes);
    CU(cudaMemcpy((char *)b->ptr + offset, src, bytes, cudaMemcpyHostToDevice), err, "gpu upload");
    return CUZK_OK;
}

extern "C" int gpu_buf_download(void *dst, const gpu_buf *b, size_t offset, size_t bytes,
                                cuzk_err *err)
{
    if (offset > b->bytes || bytes > b->bytes - offset)
        return cuzk_errf(err, CUZK_EINVAL, "gpu download: %zu bytes at %zu past a %zu-byte buffer",
                         bytes, offset, b->bytes);
    CU(cudaMemcpy(dst, (const char *)b->ptr + offset, bytes, cudaMemcpyDeviceToHost), err,
       "gpu download");
    return CUZK_OK;
}

template <class F> __global__ void mul_vec_kernel(F *out, const F *a, const F *b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * b[i];
}

/* Copies a and b in, runs kernel(out, a, b, n), copies out back. */
template <class F>
static int mul_vec(void *out, const void *a, const void *b, size_t n, cuzk_err *err)
{
    size_t bytes = n * sizeof(F);
    F *d = NULL;
    CU(cudaMalloc(&d, 3 * bytes + 1), err, "mul_vec alloc");
    cudaError_t e = cudaMemcpy(d + n, a, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(d + 2 * n, b, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && n) {
        mul_vec_kernel<F><<<cu_blocks(n, 128), 128>>>(d, d + n, d + 2 * n, n);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpy(out, d, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d);
    CU(e, err, "mul_vec");
    return CUZK_OK;
}

extern "C" int gpu_fp_mul_vec(fp_t *out, const fp_t *a, const fp_t *b, size_t n, cuzk_err *err)
{
    return mul_vec<fp_d>(out, a, b, n, err);
}

extern "C" int gpu_fr_mul_vec(fr_t *out, const fr_t *a, const fr_t *b, size_t n, cuzk_err *err)
{
    return mul_vec<fr_d>(out, a, b, n, err);
}

extern "C" int gpu_fp2_mul_vec(fp2_t *out, const fp2_t *a, const fp2_t *b, size_t n, cuzk_err *err)
{
    return mul_vec<fp2_d>(out, a, b, n, err);
}

/* Two independent dependency chains per thread keep the pipes busy
 * (products, or squares when SQR). */
template <class F, bool SQR> __global__ void mul_loop_kernel(F *out, unsigned iters)
{
    F a = F::one(), b = F::one();
    a.v[0] ^= threadIdx.x;
    b.v[1] ^= blockIdx.x;
    F c = b;
    for (unsigned i = 0; i < iters; i++) {
        if (SQR) {
            a = a.sqr();
            c = c.sqr();
        } else {
            a = a * b;
            c = c * a;
        }
    }
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = a + c;
}

template <class F, bool SQR>
static int mul_bench(size_t threads, unsigned iters, double *ns_per_mul, cuzk_err *err)
{
    F *d;
    cudaEvent_t t0, t1;
    CU(cudaMalloc(&d, threads * sizeof(F)), err, "mul_bench alloc");
    CU(cudaEventCreate(&t0), err, "event");
    CU(cudaEventCreate(&t1), err, "event");
    mul_loop_kernel<F, SQR><<<cu_blocks(threads, 256), 256>>>(d, 1);
    CU(cudaEventRecord(t0), err, "event");
    mul_loop_kernel<F, SQR><<<cu_blocks(threads, 256), 256>>>(d, iters);
    CU(cudaEventRecord(t1), err, "event");
    CU(cudaEventSynchronize(t1), err, "mul_loop_kernel");
    float ms;
    CU(cudaEventElapsedTime(&ms, t0, t1), err, "event");
    *ns_per_mul = ms * 1e6 / ((double)threads * iters * 2);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaFree(d);
    return CUZK_OK;
}

extern "C" int gpu_field_mul_bench(int field_bits, size_t threads, unsigned iters,
                                   double *ns_per_mul, cuzk_err *err)
{
    if (field_bits == 381) return mul_bench<fp_d, false>(threads, iters, ns_per_mul, err);
    if (field_bits == 255) return mul_bench<fr_d, false>(threads, iters, ns_per_mul, err);
    return cuzk_errf(err, CUZK_EINVAL, "gpu_field_mul_bench: field of %d bits", field_bits);
}

extern "C" int gpu_field_sqr_bench(int field_bits, size_t threads, unsigned iters,
                                   double *ns_per_sqr, cuzk_err *err)
{
    if (field_bits == 381) return mul_bench<fp_d, true>(threads, iters, ns_per_sqr, err);
    if (field_bits == 255) return mul_bench<fr_d, true>(threads, iters, ns_per_sqr, err);
    return cuzk_errf(err, CUZK_EINVAL, "gpu_field_sqr_bench: field of %d bits", field_bits);
}

/* out[i] = k[i] * p[i] as Jacobian, double and add over the canonical bits. */
template <class F>
__global__ void ec_mul_kernel(F *out, const affine_d<F> *p, const fr_d *k, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_d s = k[i].from_mont();
    affine_d<F> q = p[i];
    xyzz_d<F> acc = xyzz_d<F>::inf();
    for (int bit = 255; bit >= 0; bit--) {
        acc = acc.dbl();
        if ((s.v[bit / 32] >> (bit % 32)) & 1) acc.add_affine(q);
    }
    acc.to_jac(&out[3 * i], &out[3 * i + 1], &out[3 * i + 2]);
}

template <class F>
static int ec_mul_vec(void *out, const void *p, const fr_t *k, size_t n, cuzk_err *err)
{
    F *d_out = NULL;
    affine_d<F> *d_p = NULL;
    fr_d *d_k = NULL;
    cudaError_t e = cudaMalloc(&d_out, 3 * n * sizeof(F) + 1);
    if (e == cudaSuccess) e = cudaMalloc(&d_p, n * sizeof(affine_d<F>) + 1);
    if (e == cudaSuccess) e = cudaMalloc(&d_k, n * sizeof(fr_d) + 1);
    if (e == cudaSuccess) e = cudaMemcpy(d_p, p, n * sizeof(affine_d<F>), cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(d_k, k, n * sizeof(fr_d), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && n) {
        ec_mul_kernel<F><<<cu_blocks(n, 64), 64>>>(d_out, d_p, d_k, n);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpy(out, d_out, 3 * n * sizeof(F), cudaMemcpyDeviceToHost);
    cudaFree(d_out);
    cudaFree(d_p);
    cudaFree(d_k);
    CU(e, err, "ec_mul_vec");
    return CUZK_OK;
}

extern "C" int gpu_g1_mul_vec(g1_jac_t *out, const g1_affine_t *p, const fr_t *k, size_t n,
                              cuzk_err *err)
{
    return ec_mul_vec<fp_d>(out, p, k, n, err);
}

extern "C" int gpu_g2_mul_vec(g2_jac_t *out, const g2_affine_t *p, const fr_t *k, size_t n,
                              cuzk_err *err)
{
    return ec_mul_vec<fp2_d>(out, p, k, n, err);
}

/* splitmix64 of (seed, i, limb): a counter-based stream, one element per
 * thread, top two bits cleared so that the value is < 2^254 < r. */
__global__ void fr_random_kernel(uint64_t *out, size_t n, uint64_t seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int l = 0; l < 4; l++) {
        uint64_t z = seed + (4 * i + l + 1) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        out[4 * i + l] = l == 3 ? z >> 2 : z;
    }
}

extern "C" int gpu_fr_bench_random(gpu_buf *b, size_t n, uint64_t seed, cuzk_err *err)
{
    if (b->bytes < n * sizeof(fr_t))
        return cuzk_errf(err, CUZK_EINVAL, "gpu_fr_bench_random: buffer smaller than %zu", n);
    if (n == 0) return CUZK_OK;
    fr_random_kernel<<<cu_blocks(n, 256), 256>>>((uint64_t *)b->ptr, n, seed);
    CU_LAUNCH(err, "fr_random_kernel");
    CU(cudaDeviceSynchronize(), err, "fr_random_kernel");
    return CUZK_OK;
}
