/*
 * gpu_prove_checks.h - the GPU prover's checks (gpu_prove_checks.c), run
 * by test_gpu after the kernel checks.
 */
#ifndef CUZK_TESTS_GPU_PROVE_CHECKS_H
#define CUZK_TESTS_GPU_PROVE_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "cuzk/engine_provider.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/rng.h"

/* Returns the number of failed checks; quick: small sizes only. */
int gpu_prove_checks(cuzk_rng *g, int quick);
/* With two devices or more: proofs on every device at once and the
 * engine over all of them (the number of failed checks; 0 and a note with
 * one device). */
int gpu_prove_device_checks(cuzk_rng *g);
/* The engine on the CUDA backend with the test family (engine_provider.h),
 * its parameters in a fresh /tmp/NAME.XXXXXX (written to dir); NULL with
 * err on failure. Also used by test_gpu_prove_host. */
engine_t *gpu_check_engine(char dir[64], const char *name, cuzk_err *err);
/* A test-family job of `partitions` circuits of 3000 constraints from
 * seed (none bad), submitted and awaited into *res. */
int gpu_check_engine_job(engine_t *e, uint32_t partitions, uint32_t seed, engine_result *res,
                         cuzk_err *err);
/* The synthetic circuit of 3000 constraints (from g): its development
 * parameters, recorded shape and witness on the witness-only path, the
 * witness failing constraint 130 unless satisfied. Whatever it returns,
 * each output can be freed (*pk zeroed when it could not be made, *shape
 * NULL when not recorded). */
int gpu_check_witness_circuit(cuzk_rng *g, bool satisfied, groth16_params *pk, cs_shape **shape,
                              cs_prover *w, cuzk_err *err);
/* Frees what gpu_check_witness_circuit, gpu_check_dense_circuit or a
 * batch of such witnesses made: the device's and the host's parameters,
 * the shape (forgotten by the device first) and the n witnesses. */
void gpu_check_witness_circuit_free(groth16_params *pk, cs_shape *shape, cs_prover *w, size_t n);
/* The same on a dense witness: the product circuit of 3000 constraints
 * over random values (every MSM job its scalars gathered whole, as a
 * Window PoSt partition's: residency.cu rule 2), satisfied. */
int gpu_check_dense_circuit(cuzk_rng *g, groth16_params *pk, cs_shape **shape, cs_prover *w,
                            cuzk_err *err);
/* The bytes the CUDA runtime under test copied so far, to the host or to
 * the device: the stand-in's own count (test_gpu_prove_host sets it, for
 * the cross-check of gpu_check_xfer); NULL on a real device. */
extern long long (*gpu_check_copied)(bool to_host);
/* The transfers of one start's n circuits of w (timings t, each with the
 * same constraints; witness bytes wit on the witness-only path, else 0)
 * against its plan pl (residency.cu rule 8): the points streamed are the
 * streamed arrays' bytes exactly (none in resident mode), the H step's
 * rows parked and brought back those of its mode, the input the witness
 * as its loader packs it (gpu_prove_witness_upload_bytes) or a, b, c's
 * constraint rows; and, with gpu_check_copied, every byte
 * the runtime copied since copied0 (before the start) counted. Returns
 * the failures (printed). */
int gpu_check_xfer(const char *what, const gpu_prove_plan_info *pl, const groth16_params *pk,
                   const cs_prover *w, size_t wit, const groth16_timings *t, size_t n,
                   const long long copied0[2]);
/* copied0 of gpu_check_xfer: the runtime's counts now (0 without one). */
void gpu_check_copied_now(long long out[2]);
/* Destroys e and removes dir. */
void gpu_check_engine_done(engine_t *e, const char *dir);

#endif
