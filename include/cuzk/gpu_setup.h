/*
 * gpu_setup.h - the development setup's heavy steps on a CUDA device
 * (src/gpu/setup): fixed-base multiplication by the generators of G1 and
 * G2 straight into the .params encoding, and the inverse NTT of the
 * Lagrange basis, as a groth16_setup_backend for groth16_setup_dev_write.
 * Results are the CPU's bit for bit (test_gpu checks the points and whole
 * files). Available when built with CUDA (CUZK_HAVE_CUDA, library
 * cuzk_gpu); errors come back as cuzk_err with the CUDA text.
 */
#ifndef CUZK_GPU_SETUP_H
#define CUZK_GPU_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_fixed_base gpu_fixed_base;

/* Device buffers for up to max_n scalars per call, on the current device;
 * each group's table (32 x 255 affine points) is made on first use. */
int gpu_fixed_base_new(gpu_fixed_base **out, size_t max_n, cuzk_err *err);
/* out[96 i ..] (group 1) or out[192 i ..] (group 2) := the uncompressed
 * encoding of scalars[i] G, G the group's generator, for i < n <= max_n:
 * the bytes of g1_affine_serialize / g2_affine_serialize of
 * g1_fixed_base_mul / g2_fixed_base_mul. */
int gpu_fixed_base_encode(gpu_fixed_base *f, int group, uint8_t *out, const fr_t *scalars, size_t n,
                          cuzk_err *err);
void gpu_fixed_base_free(gpu_fixed_base *f);

/* The CUDA setup backend: chunks of `chunk` points (0: 2^22), the inverse
 * NTT on the device from 2^10 to 2^28 (the CPU's below). Release with
 * gpu_setup_backend_free. */
int gpu_setup_backend(groth16_setup_backend *out, size_t chunk, cuzk_err *err);
void gpu_setup_backend_free(groth16_setup_backend *be);

#ifdef __cplusplus
}
#endif

#endif
