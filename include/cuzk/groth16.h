/*
 * groth16.h - Groth16 over BLS12-381 as Filecoin's provers compute it
 * (reference/groth16.md): parameters, development setup, the CPU prover for
 * a batch of circuits sharing parameters, the verifier and the 192-byte
 * proof encoding.
 *
 * Parameter arrays follow bellperson: H has m - 1 points (m the domain);
 * L one point per aux variable; IC one per input (in the verifying key);
 * A, B_G1, B_G2 over [inputs || aux] with the points at infinity dropped,
 * so their lengths are the density popcounts of the circuit.
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/ec.h"
#include "cuzk/err.h"
#include "cuzk/fp12.h"
#include "cuzk/r1cs.h"

typedef struct groth16_vk {
    g1_affine_t alpha_g1, beta_g1, delta_g1;
    g2_affine_t beta_g2, gamma_g2, delta_g2;
    size_t n_ic;
    g1_affine_t *ic; /* one per input, ONE first */
} groth16_vk;

/* What the H points are. bellperson's (and every .params file's): H[i] =
 * tau^i t(tau) / delta for i < m - 1. snarkjs' zkeys: H[j] = L_{2j+1}(tau)
 * / delta for j < m, the Lagrange basis of the odd points of the 2m domain;
 * the prover then evaluates A B - C on the odd coset without dividing by t.
 * snarkjs/import.c converts the second into the first. */
enum groth16_h_basis { GROTH16_H_MONOMIAL = 0, GROTH16_H_ODD_LAGRANGE = 1 };

typedef struct groth16_params {
    groth16_vk vk;
    int h_basis; /* enum groth16_h_basis */
    size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
    g1_affine_t *h, *l, *a, *b_g1;
    g2_affine_t *b_g2;
} groth16_params;

typedef struct groth16_proof {
    g1_affine_t a;
    g2_affine_t b;
    g1_affine_t c;
} groth16_proof;

#define GROTH16_PROOF_BYTES 192

void groth16_vk_free(groth16_vk *vk);
void groth16_params_free(groth16_params *p);

/*
 * Development setup from the circuit's R1CS, deterministic from seed. NOT a
 * trusted setup: whoever knows the seed can forge proofs. For tests and
 * benchmarks only; production uses the official Filecoin parameters.
 */
int groth16_setup_dev(groth16_params *out, cs_circuit circuit, uint64_t seed, cuzk_err *err);

/*
 * What the streaming setup below runs its heavy steps on: the inverse NTT
 * of 2^log_m elements in natural order (ntt_inverse's result), and
 * fixed-base multiplications scalars[i] * G (G the generator of group 1 or
 * 2) written as the points' uncompressed encodings (96 / 192 bytes each,
 * g1_affine_serialize / g2_affine_serialize), at most `chunk` per call.
 * Any backend must give the CPU's bytes.
 */
typedef struct groth16_setup_backend {
    const char *name; /* "cpu", "cuda": for the progress lines */
    size_t chunk;
    int (*ntt_inverse)(void *ctx, fr_t *data, unsigned log_m, cuzk_err *err);
    int (*encode)(void *ctx, int group, uint8_t *out, const fr_t *scalars, size_t n, cuzk_err *err);
    void *ctx;
} groth16_setup_backend;

/* The CPU's (ntt.h, msm.h's fixed-base multiplication). */
extern const groth16_setup_backend groth16_setup_cpu;

/* The backend by the engine's rule for gpus.backend: "cpu", "cuda" (an
 * error when no device is usable), "auto" / NULL (the device when usable,
 * else the CPU). Release it with groth16_setup_backend_release. */
int groth16_setup_backend_choose(groth16_setup_backend *out, const char *want, cuzk_err *err);
void groth16_setup_backend_release(groth16_setup_backend *be);

/*
 * groth16_setup_dev then groth16_params_write(params_path) and
 * groth16_vk_write(vk_path) (none when vk_path is NULL): the same bytes, for circuits of any size.
 * The QAP columns come from the QAP backend (cs_qap: no matrices) and the
 * points are encoded by `be` a chunk at a time, written while the next is
 * made, so memory stays at ~96 bytes per variable and 64 per domain
 * element. Progress lines go to log (NULL: none). Files appear only
 * whole (written to PATH.tmp, renamed).
 */
int groth16_setup_dev_write(const char *params_path, const char *vk_path, cs_circuit circuit,
                            uint64_t seed, const groth16_setup_backend *be, FILE *log,
                            cuzk_err *err);

/* What one partition (circuit) of a GPU proof moved between host and
 * device, counted at the copy sites (src/gpu/util/xfer_stats.cuh), by
 * what the bytes carry: */
enum {
    GROTH16_XFER_POINTS,    /* G1 parameter points streamed (host to device) */
    GROTH16_XFER_POINTS_G2, /* B_G2 points streamed */
    GROTH16_XFER_PARAMS,    /* parameters, shapes, tables made resident (a cold start) */
    GROTH16_XFER_INPUT,     /* the witness, rows of a, b, c, H scalars */
    GROTH16_XFER_JOBS,      /* ones bitmaps, tail scalars and indexes, MSM scalars */
    GROTH16_XFER_UNPARK,    /* H-step rows and pieces brought back from the host */
    GROTH16_XFER_PARK,      /* H-step rows parked in host memory (device to host) */
    GROTH16_XFER_RESULTS,   /* sums, counts, jobs and indexes read back (device to host) */
    GROTH16_XFER_SHAPE,     /* slices of a streamed circuit shape (host to device) */
    GROTH16_XFER_KINDS
};
/* The bytes by kind and direction, and times from CUDA events: copy_ms
 * the time the link was busy with this partition's copies (the union of
 * their spans), kernel_ms that of its compute calls on the compute stream
 * (H step and MSMs), hidden_ms the part of copy_ms that ran under kernels
 * (of any partition of its start); timed false when events failed (the
 * bytes are still right). All 0 on the CPU. */
typedef struct groth16_xfer {
    uint64_t bytes[GROTH16_XFER_KINDS];
    uint64_t h2d, d2h, copies;
    double copy_ms, kernel_ms, hidden_ms;
    /* host CPU (user + system) of the prover's helper threads for this
     * circuit: its loader and prep threads, and the staging pool's copy
     * threads working for it (packing and copying its witness or a, b, c
     * and its jobs; in its steps, parameter chunks that could not be
     * page-locked, parked rows, shape slices); not the prover thread's */
    double cpu_ms;
    bool timed;
} groth16_xfer;

/* Per-proof timings (ms) with the names of reference/groth16.md;
 * gpu_total_ms is the device part of a GPU proof and upload_ms its a/b/c
 * transfer (overlapped with other work; both 0 on the CPU); xfer its
 * transfers (GPU only). */
typedef struct groth16_timings {
    double prep_msm_ms, ntt_msm_h_ms, batch_add_ms, tail_msm_ms, b_g2_msm_ms, total_ms;
    double gpu_total_ms, upload_ms;
    /* MSM calls the device made for L, A, B_G1 and B_G2 (tails, or whole
     * jobs; a pass's call serves one circuit): each costs a few ms fixed
     * (the CPU prover: 0) */
    uint64_t msm_calls;
    groth16_xfer xfer;
} groth16_timings;

/*
 * Proves n circuits (synthesized by the prover backend) against one set of
 * parameters. r and s come from the OS CSPRNG, or from rs[2i], rs[2i+1]
 * when rs is non-NULL (deterministic mode for tests). timings may be NULL.
 */
int groth16_prove(groth16_proof *proofs, const groth16_params *pk, const cs_prover *circuits,
                  size_t n, const fr_t *rs, groth16_timings *timings, cuzk_err *err);

/* A verifying key prepared for repeated verification. */
typedef struct groth16_pvk {
    fp12_t alpha_beta; /* e(alpha_g1, beta_g2) */
    g1_affine_t alpha_g1;
    g2_affine_t beta_g2, neg_gamma_g2, neg_delta_g2;
    size_t n_ic;
    g1_affine_t *ic;
} groth16_pvk;

int groth16_prepare_vk(groth16_pvk *out, const groth16_vk *vk, cuzk_err *err);
void groth16_pvk_free(groth16_pvk *pvk);

/* inputs excludes ONE: n_inputs = n_ic - 1. Returns CUZK_OK, CUZK_EVERIFY
 * for an invalid proof, or CUZK_EINVAL for a wrong number of inputs. */
int groth16_verify(const groth16_pvk *pvk, const groth16_proof *proof, const fr_t *inputs,
                   size_t n_inputs, cuzk_err *err);
/* n proofs at once (random linear combination, one multi-pairing); inputs
 * of proof i at inputs[i * n_inputs]. */
int groth16_verify_batch(const groth16_pvk *pvk, const groth16_proof *proofs, size_t n,
                         const fr_t *inputs, size_t n_inputs, cuzk_err *err);

/* A (G1 compressed) || B (G2 compressed) || C (G1 compressed). */
void groth16_proof_encode(uint8_t out[GROTH16_PROOF_BYTES], const groth16_proof *proof);
/* Rejects bad encodings, identity and non-subgroup points. */
int groth16_proof_decode(groth16_proof *proof, const uint8_t *in, size_t len, cuzk_err *err);

#endif
