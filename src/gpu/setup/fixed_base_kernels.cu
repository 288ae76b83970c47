/*
 * fixed_base_kernels.cu - the kernels of the setup's fixed-base
 * multiplication (fixed_base.cuh): one thread per scalar for the table
 * sums, one per FB_GROUP points for the affine conversion and encoding.
 */
#include "gpu/setup/fixed_base.cuh"
#include "gpu/util/check.cuh"

#define FB_THREADS 128

template <class F>
__global__ void fb_mul_kernel(const fr_d *__restrict__ scalars, const affine_d<F> *__restrict__ tab,
                              xyzz_d<F> *acc, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) fb_mul_item<F>(i, scalars, tab, acc);
}

template <class F>
__global__ void fb_affine_kernel(const xyzz_d<F> *__restrict__ acc, F *scratch, uint32_t *out,
                                 size_t n)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t * FB_GROUP < n) fb_affine_item<F>(t, acc, scratch, out, n);
}

template <class F>
static int launch_mul(const fr_d *scalars, const affine_d<F> *tab, xyzz_d<F> *acc, size_t n,
                      cuzk_err *err)
{
    if (!n) return CUZK_OK;
    fb_mul_kernel<F><<<cu_blocks(n, FB_THREADS), FB_THREADS>>>(scalars, tab, acc, n);
    CU_LAUNCH(err, "fb_mul_kernel");
    return CUZK_OK;
}

template <class F>
static int launch_affine(const xyzz_d<F> *acc, F *scratch, uint32_t *out, size_t n, cuzk_err *err)
{
    size_t threads = (n + FB_GROUP - 1) / FB_GROUP;
    if (!threads) return CUZK_OK;
    fb_affine_kernel<F><<<cu_blocks(threads, FB_THREADS), FB_THREADS>>>(acc, scratch, out, n);
    CU_LAUNCH(err, "fb_affine_kernel");
    return CUZK_OK;
}

int fb_launch_mul_g1(const fr_d *scalars, const affine_d<fp_d> *tab, xyzz_d<fp_d> *acc, size_t n,
                     cuzk_err *err)
{
    return launch_mul<fp_d>(scalars, tab, acc, n, err);
}

int fb_launch_mul_g2(const fr_d *scalars, const affine_d<fp2_d> *tab, xyzz_d<fp2_d> *acc, size_t n,
                     cuzk_err *err)
{
    return launch_mul<fp2_d>(scalars, tab, acc, n, err);
}

int fb_launch_affine_g1(const xyzz_d<fp_d> *acc, fp_d *scratch, uint32_t *out, size_t n,
                        cuzk_err *err)
{
    return launch_affine<fp_d>(acc, scratch, out, n, err);
}

int fb_launch_affine_g2(const xyzz_d<fp2_d> *acc, fp2_d *scratch, uint32_t *out, size_t n,
                        cuzk_err *err)
{
    return launch_affine<fp2_d>(acc, scratch, out, n, err);
}
