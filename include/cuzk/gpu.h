/*
 * gpu.h - the CUDA backend's kernels behind a plain C API (src/gpu).
 *
 * Available when the library was built with nvcc (CUZK_HAVE_CUDA, target
 * cuzk_gpu); every function works on the current CUDA device and returns
 * CUZK_OK or CUZK_EDEVICE / CUZK_EINVAL / CUZK_ENOMEM with a message that
 * carries the CUDA error text. Nothing aborts; with no usable device,
 * gpu_available() returns false and fills err.
 *
 * Data crosses in the CPU types: fr_t / fp_t / g1_affine_t bytes are the
 * device representation (same Montgomery form, same limb order), so
 * uploads are plain copies. Calls are synchronous: they return when the
 * result is ready, which is what the timings of the bench driver measure.
 *
 * Device buffers (gpu_buf) let callers keep data on the device between
 * calls: bases for repeated MSMs, a/b/c for the H computation.
 */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec.h"
#include "cuzk/err.h"
#include "cuzk/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* true when a CUDA device can be used; false (and err filled) otherwise. */
bool gpu_available(cuzk_err *err);
/* One line naming the device ("NVIDIA H200, sm_90, 132 SMs, 139.8 GiB"). */
int gpu_describe(char *out, size_t len, cuzk_err *err);
/* How host threads wait for the current device (the one the prover uses;
 * no other device is touched): blocking (true) parks them on an OS
 * primitive, so no core is spent spinning through a proof's kernels, for
 * a few microseconds more per wait; false leaves CUDA's default (spinning
 * while the host has cores to spare). */
int gpu_set_blocking_sync(bool blocking, cuzk_err *err);

/* Device memory. */
typedef struct gpu_buf gpu_buf;
int gpu_buf_new(gpu_buf **out, size_t bytes, cuzk_err *err);
void gpu_buf_free(gpu_buf *b);
int gpu_buf_upload(gpu_buf *b, size_t offset, const void *src, size_t bytes, cuzk_err *err);
int gpu_buf_download(void *dst, const gpu_buf *b, size_t offset, size_t bytes, cuzk_err *err);

/* Element-wise products on the device, exposed to test the device field
 * arithmetic against fp.h / fr.h / fp2.h. */
int gpu_fp_mul_vec(fp_t *out, const fp_t *a, const fp_t *b, size_t n, cuzk_err *err);
int gpu_fr_mul_vec(fr_t *out, const fr_t *a, const fr_t *b, size_t n, cuzk_err *err);
int gpu_fp2_mul_vec(fp2_t *out, const fp2_t *a, const fp2_t *b, size_t n, cuzk_err *err);
/* Throughput of the device Fp / Fr multiplication: `iters` dependent
 * products in each of `threads` threads; *ns_per_mul is wall time divided
 * by the product count. */
int gpu_field_mul_bench(int field_bits, size_t threads, unsigned iters, double *ns_per_mul,
                        cuzk_err *err);
/* The same for squares. */
int gpu_field_sqr_bench(int field_bits, size_t threads, unsigned iters, double *ns_per_sqr,
                        cuzk_err *err);

/* out[i] = k[i] * p[i] (double and add in XYZZ on the device). */
int gpu_g1_mul_vec(g1_jac_t *out, const g1_affine_t *p, const fr_t *k, size_t n, cuzk_err *err);
int gpu_g2_mul_vec(g2_jac_t *out, const g2_affine_t *p, const fr_t *k, size_t n, cuzk_err *err);

/* NTT over Fr of 2^log_n elements (10 <= log_n <= 28), natural order in
 * and out, omega = ROOT_OF_UNITY^(2^(32 - log_n)) as reference/groth16.md.
 *   GPU_NTT_FORWARD    evaluations from coefficients
 *   GPU_NTT_INVERSE    coefficients from evaluations (includes 1/n)
 *   GPU_NTT_COSET_FWD  evaluations on the coset 7 H
 *   GPU_NTT_COSET_INV  coefficients from evaluations on 7 H */
enum gpu_ntt_kind { GPU_NTT_FORWARD, GPU_NTT_INVERSE, GPU_NTT_COSET_FWD, GPU_NTT_COSET_INV };
int gpu_ntt(fr_t *data, unsigned log_n, enum gpu_ntt_kind kind, cuzk_err *err);
int gpu_ntt_dev(gpu_buf *data, unsigned log_n, enum gpu_ntt_kind kind, cuzk_err *err);
/* Threads per block of the NTT passes (256 default, 512, 1024): a tuning
 * knob for cuzk-gpu-bench; every setting computes the same result. */
int gpu_ntt_set_block(unsigned threads, cuzk_err *err);
/* The NTT pass kernel: 8 (default) keeps 8 elements and 3 stages at a time
 * in each thread's registers, 2 runs one butterfly at a time in shared
 * memory (its block size is gpu_ntt_set_block's); both give the same bytes. */
int gpu_ntt_set_radix(unsigned radix, cuzk_err *err);

/* The H computation of the prover (reference/groth16.md, Prover 1-3) on
 * a, b, c of 2^log_n evaluations each: six NTTs, as ntt_groth16_h (the
 * same rows and finish, the same field elements), a, b, c uploaded once.
 * The n coefficients of h land in a (the caller keeps the first n - 1);
 * b and c are clobbered. gpu_ntt_h_row_dev is ntt_groth16_h_row for one
 * row on the device (row 0, 1: a, b to the coset; row 2: c to the
 * coefficients of C / (7^n - 1), bit-reversed), gpu_ntt_h_finish_dev the
 * rest once all three are done; gpu_ntt_h_dev is the three rows then the
 * finish. */
int gpu_ntt_h_dev(gpu_buf *a, gpu_buf *b, gpu_buf *c, unsigned log_n, cuzk_err *err);
int gpu_ntt_h_row_dev(gpu_buf *x, unsigned log_n, int row, cuzk_err *err);
int gpu_ntt_h_finish_dev(gpu_buf *a, gpu_buf *b, gpu_buf *c, unsigned log_n, cuzk_err *err);
int gpu_ntt_h(fr_t *h, const fr_t *a, const fr_t *b, const fr_t *c, unsigned log_n, cuzk_err *err);
/* The finish in parts (ntt.h's ntt_groth16_h_mul / _product / _sub), for
 * the prover's H step on a device that cannot hold the three rows at
 * once: gpu_ntt_h_mul_dev makes x's first count elements a b / (7^n - 1)
 * (a's factor first; x holds a and y b, or, when x_is_b, the other way
 * round), gpu_ntt_h_product_dev takes the whole product row to its
 * bit-reversed coefficients, gpu_ntt_h_sub_dev subtracts count elements
 * of c's row, gpu_ntt_h_bitrev_dev puts the row in natural order, less c
 * when c is given whole (else NULL). Each returns with its kernels done.
 * mul over the row, product, bitrev less c: gpu_ntt_h_finish_dev. */
int gpu_ntt_h_mul_dev(gpu_buf *x, const gpu_buf *y, size_t count, bool x_is_b, unsigned log_n,
                      cuzk_err *err);
int gpu_ntt_h_product_dev(gpu_buf *a, unsigned log_n, cuzk_err *err);
int gpu_ntt_h_sub_dev(gpu_buf *x, const gpu_buf *c, size_t count, cuzk_err *err);
int gpu_ntt_h_bitrev_dev(gpu_buf *a, const gpu_buf *c, unsigned log_n, cuzk_err *err);

/* Device bytes the NTT's tables take for transforms of 2^log_n (its
 * twiddles, kept at the largest size used: 2 GiB at 2^27, and the scale
 * tables), and what they hold on the current device now. */
size_t gpu_ntt_tables_for(unsigned log_n);
size_t gpu_ntt_tables_bytes(void);
/* Frees the calling thread's tables (its device's, or its lane's:
 * src/gpu/util/lane.cuh); the next transform makes them again. */
void gpu_ntt_tables_free(void);
/* Makes the calling thread's twiddles for transforms of up to 2^log_n
 * now rather than at the first transform: the prover, once its plan has
 * counted them, so that nothing it grows into free memory before its
 * first transform takes their room (residency.cu rule 2). */
int gpu_ntt_tables_make(unsigned log_n, cuzk_err *err);

/* G1 multi-scalar multiplication: *out = sum scalars[i] * bases[i]
 * (Pippenger with signed windows of `window` bits; 0 picks by n).
 * Bases at infinity are allowed. The _dev form takes device buffers of
 * n g1_affine_t and n fr_t. */
int gpu_msm_g1(g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
               cuzk_err *err);
int gpu_msm_g1_dev(g1_jac_t *out, const gpu_buf *bases, const gpu_buf *scalars, size_t n,
                   unsigned window, cuzk_err *err);
/* The affine rounds of the bucket sums of group 1 or 2 (G1, G2): up to
 * `rounds` rounds (0 .. 8; 0: none) that halve every bucket by affine
 * additions, one inversion per thread of at least `min_pairs` additions
 * (1 .. 65536), run while that leaves at least `min_threads` threads
 * (1 .. 2^24). A tuning knob for cuzk-gpu-bench and the tests: every
 * setting gives the same sums. The defaults, from the H200 sweep
 * (docs/performance.md): none for G1 (the rounds move ~2.7x the bytes of
 * the XYZZ sums and saved nothing measurable), 3 for G2 (its products
 * cost 3x, so the saved ones outweigh the bytes). */
#define GPU_MSM_AFFINE_G1 1, 0, 256, 16384
#define GPU_MSM_AFFINE_G2 2, 3, 256, 16384
/* Device memory held by the MSM's working space (kept between calls and
 * grown to the largest MSM so far), in bytes. */
size_t gpu_msm_workspace_bytes(void);
/* The workspace an MSM of n points takes at the default window (G1, or
 * G2 when g2), in bytes; SIZE_MAX past the MSM's limits. */
size_t gpu_msm_workspace_for(size_t n, int g2);
/* Frees the current device's MSM workspace when it holds more than max
 * bytes (the next MSM makes what it needs). */
void gpu_msm_workspace_trim(size_t max);
/* Grows the current device's MSM workspace to at least `bytes` now (the
 * prover, to its plan's figure, as gpu_ntt_tables_make); the MSMs still
 * grow it on demand. */
int gpu_msm_workspace_reserve(size_t bytes, cuzk_err *err);
int gpu_msm_set_affine(unsigned group, unsigned rounds, unsigned min_pairs, unsigned min_threads,
                       cuzk_err *err);
/* Phase timing of the MSMs (cuzk-gpu-bench): when on, each MSM records
 * device events, and gpu_msm_last_phases gives the last one's phases in
 * ms: digits and sorts, the sweep (G1; 0 with affine rounds), the rest of
 * the bucket sums, the bucket reduction. */
int gpu_msm_set_timing(int on, cuzk_err *err);
void gpu_msm_last_phases(float ms[4]);
/* The same in G2 (bases of n g2_affine_t). */
int gpu_msm_g2(g2_jac_t *out, const g2_affine_t *bases, const fr_t *scalars, size_t n,
               cuzk_err *err);
int gpu_msm_g2_dev(g2_jac_t *out, const gpu_buf *bases, const gpu_buf *scalars, size_t n,
                   unsigned window, cuzk_err *err);
/* Fills a device buffer with n pseudo-random G1 points for benchmarks:
 * 2^16 multiples k_j G of random 64-bit k_j (from seed), repeated. */
int gpu_g1_bench_bases(gpu_buf *bases, size_t n, uint64_t seed, cuzk_err *err);
/* The same in G2: multiples k_j H of the G2 generator. */
int gpu_g2_bench_bases(gpu_buf *bases, size_t n, uint64_t seed, cuzk_err *err);

/* Fills a device buffer with n pseudo-random Fr elements (values below
 * 2^254, taken as Montgomery forms) from seed, for benchmarks. */
int gpu_fr_bench_random(gpu_buf *b, size_t n, uint64_t seed, cuzk_err *err);

#ifdef __cplusplus
}
#endif

#endif
