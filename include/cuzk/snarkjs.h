/*
 * snarkjs.h - circom / snarkjs files for curve bls12381: .r1cs, .wtns and
 * Groth16 .zkey readers, proof.json / public.json writers and
 * verification_key.json / proof.json readers (formats in docs/formats.md).
 *
 * Readers are strict: a file for another curve, a section that is missing,
 * repeated, unknown or of the wrong size, a field element that is not
 * canonical, or a point off the curve or outside the subgroup is rejected
 * with a message naming the file, the section and the position.
 */
#ifndef CUZK_SNARKJS_H
#define CUZK_SNARKJS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec.h"
#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/groth16.h"

/* One linear combination term: coef * wire. */
typedef struct snarkjs_term {
    uint32_t wire;
    fr_t coef;
} snarkjs_term;

/* A circom R1CS: constraint j is A_j * B_j = C_j with the terms of A_j at
 * terms[off[3j] .. off[3j+1]), B_j next, C_j next. Wire 0 is the constant 1,
 * then outputs, public inputs, private inputs, internal wires. */
typedef struct snarkjs_r1cs {
    uint32_t n_wires, n_outputs, n_pub_inputs, n_prv_inputs, n_constraints;
    uint64_t n_labels;
    uint64_t *off; /* 3 n_constraints + 1 offsets */
    snarkjs_term *terms;
} snarkjs_r1cs;

int snarkjs_r1cs_read(snarkjs_r1cs *r, const char *path, cuzk_err *err);
void snarkjs_r1cs_free(snarkjs_r1cs *r);

/* A witness: values[0] = 1, then the wires in r1cs order. */
typedef struct snarkjs_wtns {
    uint32_t n;
    fr_t *values;
} snarkjs_wtns;

int snarkjs_wtns_read(snarkjs_wtns *w, const char *path, cuzk_err *err);
void snarkjs_wtns_free(snarkjs_wtns *w);

/* One entry of the zkey coefficient section: matrix 0 = A, 1 = B. */
typedef struct snarkjs_coef {
    uint32_t matrix, constraint, signal;
    fr_t value;
} snarkjs_coef;

/* A Groth16 zkey. Per-variable arrays keep points at infinity; c[] is
 * indexed by variable too (entries 0 .. n_public are infinity). h has
 * domain_size points in snarkjs' convention (Lagrange basis of the odd
 * roots of the 2 domain_size domain over delta, see groth16/import.c). */
typedef struct snarkjs_zkey {
    uint32_t n_vars, n_public, domain_size;
    g1_affine_t alpha1, beta1, delta1;
    g2_affine_t beta2, gamma2, delta2;
    g1_affine_t *ic; /* n_public + 1 */
    size_t n_coefs;
    snarkjs_coef *coefs;
    g1_affine_t *a, *b1, *c, *h;
    g2_affine_t *b2;
} snarkjs_zkey;

/* SNARKJS_CHECKED: every point on the curve and in the subgroup (in
 * parallel; a section's subgroup test for all its points at once, ec.h's
 * G_affine_all_in_subgroup); SNARKJS_TRUSTED: on the curve only, for local files (a point
 * outside the subgroup can only spoil the proofs made with it);
 * SNARKJS_CACHED: as CHECKED, except that a file whose bytes passed a full
 * check before (check_cache.h) is read as TRUSTED, and one that passes is
 * recorded (CHECKED leaves the cache alone). */
enum snarkjs_mode { SNARKJS_CHECKED = 0, SNARKJS_TRUSTED = 1, SNARKJS_CACHED = 2 };
int snarkjs_zkey_read(snarkjs_zkey *z, const char *path, int mode, cuzk_err *err);
void snarkjs_zkey_free(snarkjs_zkey *z);

/* JSON files (decimal strings; G1 [x, y, "1"], G2 [[x.c0, x.c1], [y.c0,
 * y.c1], ["1", "0"]]). Writers produce what snarkjs writes; readers accept
 * what snarkjs writes and reject non-canonical numbers, points off the
 * curve or outside the subgroup, and the identity in a proof. */
int snarkjs_proof_write(const char *path, const groth16_proof *proof, cuzk_err *err);
int snarkjs_public_write(const char *path, const fr_t *inputs, size_t n, cuzk_err *err);
int snarkjs_proof_read(groth16_proof *proof, const char *path, cuzk_err *err);
/* *inputs is malloc'd (n may be 0). */
int snarkjs_public_read(fr_t **inputs, size_t *n, const char *path, cuzk_err *err);
/* verification_key.json: alpha_1, beta_2, gamma_2, delta_2, IC. beta_g1 and
 * delta_g1 are not in the file and are left at infinity (not needed to
 * verify). */
int snarkjs_vk_read(groth16_vk *vk, const char *path, cuzk_err *err);

/* The zkey as parameters: H in snarkjs' basis (monomial_h false; enough to
 * prove) or converted to bellperson's (monomial_h true; what .params files
 * hold). */
int snarkjs_zkey_to_params(groth16_params *out, const snarkjs_zkey *z, bool monomial_h,
                           cuzk_err *err);
/* The prover's view of a snarkjs witness for the zkey: a, b from the zkey's
 * coefficients (C = A B on the domain), densities from its points. */
int snarkjs_witness_prover(cs_prover *out, const snarkjs_zkey *z, const snarkjs_wtns *w,
                           cuzk_err *err);

/*
 * A zkey fixes which domain point each constraint sits at, by snarkjs'
 * roots of unity (from 5) where ours come from 7: row j goes to the point
 * omega5^j, which is our omega7^(j K^-1). This moves the rows of a witness
 * (a, b, c) there, spreading them over the whole domain, so that a witness
 * synthesized in constraint order proves against imported parameters.
 * snarkjs_witness_prover does it already.
 */
int snarkjs_reorder_rows(cs_prover *w, size_t domain_size, cuzk_err *err);

/* A circom R1CS as a circuit for our constraint system (setup, proving with
 * a witness, counting). ctx holds the pointers and must outlive the
 * circuit; w may be NULL when no values are needed. */
typedef struct snarkjs_r1cs_ctx {
    const snarkjs_r1cs *r;
    const snarkjs_wtns *w;
} snarkjs_r1cs_ctx;
cs_circuit snarkjs_r1cs_circuit(snarkjs_r1cs_ctx *ctx, const snarkjs_r1cs *r,
                                const snarkjs_wtns *w);

/* Writes a DEVELOPMENT zkey for r (toxic values from seed: anyone who knows
 * the seed can forge proofs), laid out as snarkjs would, so snarkjs and cuzk
 * prove the same circuit from the same key (src/snarkjs/zkey_write.c). */
int snarkjs_zkey_write_dev(const char *path, const snarkjs_r1cs *r, uint64_t seed, cuzk_err *err);

#endif
