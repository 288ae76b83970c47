/*
 * setup_internal.h - the pieces of the development setup that the snarkjs
 * zkey writer shares (internal).
 */
#ifndef CUZK_GROTH16_SETUP_INTERNAL_H
#define CUZK_GROTH16_SETUP_INTERNAL_H

#include "cuzk/groth16.h"

typedef struct groth16_toxic {
    fr_t tau, alpha, beta, gamma, delta;
} groth16_toxic;

/* The toxic values of a development setup, non-zero, from seed. */
void groth16_dev_toxic(groth16_toxic *t, uint64_t seed);

/* The six fixed points of the verifying key (alpha, beta, delta in G1;
 * beta, gamma, delta in G2); leaves vk's IC alone. */
int groth16_dev_vk(groth16_vk *vk, const groth16_toxic *t, cuzk_err *err);

/* Per variable of r (CS_BY_VARIABLE): u = A column at tau, v = B column,
 * w = C column, with lagrange[j] the Lagrange basis of constraint j at tau. */
void groth16_qap_columns(const cs_r1cs *r, const fr_t *lagrange, fr_t *u, fr_t *v, fr_t *w);

/* Keeps the non-zero entries of s (bellperson drops the points at
 * infinity of A and B); returns their count. */
size_t groth16_compact_nonzero(fr_t *s, size_t n);
/* p[i] = tau^i for i < m, in parallel (each block of 2^16 from tau^lo). */
void groth16_powers_of_tau(fr_t *p, const fr_t *tau, size_t m);

#endif
