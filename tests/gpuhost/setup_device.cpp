/*
 * setup_device.cpp - the device side of the GPU setup (gpu_setup.h) on the
 * stand-in runtime (cuda_runtime.h here): the fixed-base launchers run
 * the kernels' own per-thread items (fixed_base.cuh) in a loop on the
 * CPU, over the stand-in's "device" memory, and the inverse NTT is the
 * CPU's. So test_gpu_setup_host checks src/gpu/setup's host code and its
 * items without a GPU; the kernels themselves are checked by test_gpu.
 */
#include "gpu/setup/fixed_base.cuh"

extern "C" {
#include "cuzk/groth16.h"
}

/* The calling thread's current stand-in device's limit and use. */
extern "C" void host_setup_limit(long long bytes)
{
    host_device_limit[host_current_device] = bytes < 0 ? 1LL << 40 : bytes;
}

extern "C" long long host_setup_used(void)
{
    return host_device_used[host_current_device].load();
}

template <class F>
static int mul_all(const fr_d *scalars, const affine_d<F> *tab, xyzz_d<F> *acc, size_t n)
{
    for (size_t i = 0; i < n; i++) fb_mul_item<F>(i, scalars, tab, acc);
    return CUZK_OK;
}

template <class F> static int affine_all(const xyzz_d<F> *acc, F *scratch, uint32_t *out, size_t n)
{
    for (size_t t = 0; t * FB_GROUP < n; t++) fb_affine_item<F>(t, acc, scratch, out, n);
    return CUZK_OK;
}

int fb_launch_mul_g1(const fr_d *scalars, const affine_d<fp_d> *tab, xyzz_d<fp_d> *acc, size_t n,
                     cuzk_err *)
{
    return mul_all<fp_d>(scalars, tab, acc, n);
}

int fb_launch_mul_g2(const fr_d *scalars, const affine_d<fp2_d> *tab, xyzz_d<fp2_d> *acc, size_t n,
                     cuzk_err *)
{
    return mul_all<fp2_d>(scalars, tab, acc, n);
}

int fb_launch_affine_g1(const xyzz_d<fp_d> *acc, fp_d *scratch, uint32_t *out, size_t n, cuzk_err *)
{
    return affine_all<fp_d>(acc, scratch, out, n);
}

int fb_launch_affine_g2(const xyzz_d<fp2_d> *acc, fp2_d *scratch, uint32_t *out, size_t n,
                        cuzk_err *)
{
    return affine_all<fp2_d>(acc, scratch, out, n);
}

extern "C" int gpu_ntt(fr_t *data, unsigned log_n, enum gpu_ntt_kind kind, cuzk_err *err)
{
    if (kind != GPU_NTT_INVERSE)
        return cuzk_errf(err, CUZK_EINVAL, "stand-in gpu_ntt: only the inverse NTT");
    return groth16_setup_cpu.ntt_inverse(NULL, data, log_n, err);
}
