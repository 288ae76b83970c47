/*
 * pairing.c - the pairing and the product check built from the Miller loop
 * (miller_loop.c) and the final exponentiation (final_exp.c).
 *
 * The product check shares everything that can be shared: one Miller loop
 * over all pairs (one squaring of f per step) and one final
 * exponentiation, so checking prod e(P_i, Q_i) == 1 for Groth16 costs
 * about one pairing plus a Miller-loop body per extra pair.
 */
#include "cuzk/pairing.h"

void pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q)
{
    fp12_t f;
    miller_loop_n(&f, p, q, 1);
    final_exp(r, &f);
}

bool pairing_product_is_one(const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
    fp12_t f;
    miller_loop_n(&f, p, q, n);
    final_exp(&f, &f);
    return fp12_is_one(&f);
}
