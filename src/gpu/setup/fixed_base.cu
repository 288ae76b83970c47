/*
 * fixed_base.cu - the host side of the setup's work on the device
 * (gpu_setup.h): the generators' tables, the device buffers of one chunk,
 * and a chunk's round trip (scalars up, the two kernels of
 * fixed_base_kernels.cu, encoded points down); and the setup backend that
 * groth16_setup_dev_write drives, whose writer thread writes one chunk
 * while the device makes the next.
 *
 * The tables d 256^j G (fixed_base.cuh) are made on the host by the CPU's
 * fixed-base multiplication of the 8160 scalars d 256^j, once per group
 * and object, and uploaded.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/setup/fixed_base.cuh"
#include "gpu/util/buf.cuh"
#include "gpu/util/check.cuh"

extern "C" {
#include "cuzk/gpu_setup.h"
#include "cuzk/msm.h"
}

struct gpu_fixed_base {
    size_t cap;
    affine_d<fp_d> *tab1;  /* NULL until the first G1 call */
    affine_d<fp2_d> *tab2; /* likewise for G2 */
    fr_d *scalars;
    void *acc, *scratch; /* xyzz_d and F of cap points (sized for G2) */
    uint32_t *out;       /* cap encoded points (sized for G2) */
};

extern "C" void gpu_fixed_base_free(gpu_fixed_base *f)
{
    if (!f) return;
    cudaFree(f->tab1), cudaFree(f->tab2), cudaFree(f->scalars);
    cudaFree(f->acc), cudaFree(f->scratch), cudaFree(f->out);
    free(f);
}

extern "C" int gpu_fixed_base_new(gpu_fixed_base **out, size_t max_n, cuzk_err *err)
{
    *out = NULL;
    if (!max_n) return cuzk_errf(err, CUZK_EINVAL, "gpu fixed base: a chunk of 0 points");
    gpu_fixed_base *f = (gpu_fixed_base *)calloc(1, sizeof(*f));
    if (!f) return cuzk_errf(err, CUZK_ENOMEM, "gpu fixed base: out of memory");
    f->cap = max_n;
    cudaError_t e = cudaMalloc((void **)&f->scalars, max_n * sizeof(fr_d));
    if (e == cudaSuccess) e = cudaMalloc(&f->acc, max_n * sizeof(xyzz_d<fp2_d>));
    if (e == cudaSuccess) e = cudaMalloc(&f->scratch, max_n * sizeof(fp2_d));
    if (e == cudaSuccess) e = cudaMalloc((void **)&f->out, max_n * G2_UNCOMPRESSED_BYTES);
    if (e != cudaSuccess) {
        gpu_fixed_base_free(f);
        return cuzk_errf(err, CUZK_ENOMEM,
                         "gpu fixed base: no device memory for chunks of %zu points: %s", max_n,
                         cudaGetErrorString(e));
    }
    *out = f;
    return CUZK_OK;
}

/* The scalars d 256^j, d = 1 .. 255 within window j. */
static void table_scalars(fr_t *s)
{
    fr_t step, base = FR_ONE;
    fr_from_u64(&step, 256);
    for (int j = 0; j < FB_WINDOWS; j++) {
        for (int d = 1; d <= FB_DIGITS; d++) {
            fr_t k;
            fr_from_u64(&k, (uint64_t)d);
            fr_mul(&s[j * FB_DIGITS + d - 1], &k, &base);
        }
        fr_mul(&base, &base, &step);
    }
}

/* The group's table on the device, made on first use. */
static int table(gpu_fixed_base *f, int group, cuzk_err *err)
{
    if (group == 1 ? f->tab1 != NULL : f->tab2 != NULL) return CUZK_OK;
    size_t mem = group == 1 ? sizeof(g1_affine_t) : sizeof(g2_affine_t);
    fr_t *s = (fr_t *)malloc(FB_TABLE * sizeof(fr_t));
    void *pts = malloc(FB_TABLE * mem);
    int rc = s && pts ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "gpu fixed base: out of memory");
    if (!rc) {
        table_scalars(s);
        rc = group == 1 ? g1_fixed_base_mul((g1_affine_t *)pts, &g1_GENERATOR, s, FB_TABLE, 0, err)
                        : g2_fixed_base_mul((g2_affine_t *)pts, &g2_GENERATOR, s, FB_TABLE, 0, err);
    }
    void *d = NULL;
    cudaError_t e = cudaSuccess;
    if (!rc) e = cudaMalloc(&d, FB_TABLE * mem);
    if (!rc && e == cudaSuccess) e = cudaMemcpy(d, pts, FB_TABLE * mem, cudaMemcpyHostToDevice);
    free(s), free(pts);
    if (rc) return rc;
    if (e != cudaSuccess) {
        cudaFree(d);
        CU(e, err, "fixed-base table upload");
    }
    if (group == 1)
        f->tab1 = (affine_d<fp_d> *)d;
    else
        f->tab2 = (affine_d<fp2_d> *)d;
    return CUZK_OK;
}

extern "C" int gpu_fixed_base_encode(gpu_fixed_base *f, int group, uint8_t *out,
                                     const fr_t *scalars, size_t n, cuzk_err *err)
{
    if (group != 1 && group != 2)
        return cuzk_errf(err, CUZK_EINVAL, "gpu fixed base: no group %d (1 or 2)", group);
    if (n > f->cap)
        return cuzk_errf(err, CUZK_EINVAL, "gpu fixed base: %zu points, chunks hold %zu", n,
                         f->cap);
    if (!n) return CUZK_OK;
    int rc = table(f, group, err);
    if (rc) return rc;
    CU(cudaMemcpy(f->scalars, scalars, n * sizeof(fr_t), cudaMemcpyHostToDevice), err,
       "fixed-base scalars upload");
    if (group == 1) {
        rc = fb_launch_mul_g1(f->scalars, f->tab1, (xyzz_d<fp_d> *)f->acc, n, err);
        if (!rc)
            rc = fb_launch_affine_g1((const xyzz_d<fp_d> *)f->acc, (fp_d *)f->scratch, f->out, n,
                                     err);
    } else {
        rc = fb_launch_mul_g2(f->scalars, f->tab2, (xyzz_d<fp2_d> *)f->acc, n, err);
        if (!rc)
            rc = fb_launch_affine_g2((const xyzz_d<fp2_d> *)f->acc, (fp2_d *)f->scratch, f->out, n,
                                     err);
    }
    if (rc) return rc;
    CU(cudaStreamSynchronize(0), err, "fixed-base kernels"); /* setup: the default stream */
    size_t bytes = n * (group == 1 ? G1_UNCOMPRESSED_BYTES : G2_UNCOMPRESSED_BYTES);
    CU(cudaMemcpy(out, f->out, bytes, cudaMemcpyDeviceToHost), err, "fixed-base points download");
    return CUZK_OK;
}

/* ---- the setup backend ---- */

static int be_ntt_inverse(void *ctx, fr_t *data, unsigned log_m, cuzk_err *err)
{
    (void)ctx;
    if (log_m < 10 || log_m > 28) return groth16_setup_cpu.ntt_inverse(NULL, data, log_m, err);
    return gpu_ntt(data, log_m, GPU_NTT_INVERSE, err);
}

static int be_encode(void *ctx, int group, uint8_t *out, const fr_t *scalars, size_t n,
                     cuzk_err *err)
{
    return gpu_fixed_base_encode((gpu_fixed_base *)ctx, group, out, scalars, n, err);
}

extern "C" int gpu_setup_backend(groth16_setup_backend *out, size_t chunk, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    if (!chunk) chunk = (size_t)1 << 22;
    gpu_fixed_base *f;
    int rc = gpu_fixed_base_new(&f, chunk, err);
    if (rc) return rc;
    *out = (groth16_setup_backend){"cuda", chunk, be_ntt_inverse, be_encode, f};
    return CUZK_OK;
}

extern "C" void gpu_setup_backend_free(groth16_setup_backend *be)
{
    gpu_fixed_base_free((gpu_fixed_base *)be->ctx);
    memset(be, 0, sizeof(*be));
}
