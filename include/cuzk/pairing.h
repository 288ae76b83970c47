/*
 * pairing.h - the optimal ate pairing e: G1 x G2 -> GT of BLS12-381, and the
 * product check prod e(P_i, Q_i) == 1 that Groth16 verification needs.
 *
 * GT is the order-r subgroup of Fp12^* (fp12.h). The value computed is the
 * Miller function f_{x,Q}(P) raised to 3 (p^12 - 1) / r (the final
 * exponentiation of Hayashida, Hayasaka and Teruya computes that cube
 * cheaply); this is the same GT element as zkcrypto's bls12_381 and blst
 * return, and is as good a pairing since 3 does not divide r.
 *
 * Inputs are affine points that the caller has checked to be on the curve
 * and in the prime-order subgroup (the ec.h decoders do); the point at
 * infinity (all-zero coordinates) is accepted and contributes the factor 1.
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/ec.h"
#include "cuzk/fp12.h"

/* r = prod_i f_{x,Q_i}(P_i) (before the final exponentiation), one shared
 * squaring per loop step for all pairs; pairs with an infinity are skipped,
 * and r = 1 when none is left. */
void miller_loop_n(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q, size_t n);
/* r = f^(3 (p^12 - 1) / r); f must be non-zero (any Miller loop output is). */
void final_exp(fp12_t *r, const fp12_t *f);
/* r = e(p, q) = final_exp(miller_loop_n(p, q, 1)). */
void pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q);
/* prod_{i < n} e(p[i], q[i]) == 1, with one Miller loop and one final
 * exponentiation; true for n = 0. */
bool pairing_product_is_one(const g1_affine_t *p, const g2_affine_t *q, size_t n);

#endif
