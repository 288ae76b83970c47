/*
 * ntt.h - number-theoretic transforms over Fr on the CPU, and the Groth16
 * quotient polynomial h built from them.
 *
 * A domain of size n = 2^log_n (0 <= log_n <= 28) is the subgroup <omega>
 * with omega = ROOT_OF_UNITY^(2^(32 - log_n)), ROOT_OF_UNITY = 7^((r-1)/2^32);
 * its coset is 7 <omega>. The forward transform maps coefficients a_j to
 * evaluations A(omega^k) = sum_j a_j omega^(jk); the inverse maps them back
 * (scaled by 1/n). The coset variants evaluate at 7 omega^k and back.
 *
 * Orders: each transform reads and writes in natural or bit-reversed order.
 * NATURAL -> BITREV and BITREV -> NATURAL cost no permutation (they are the
 * decimation-in-frequency and decimation-in-time algorithms); the other two
 * add one bit-reversal pass. Entry k of a BITREV array sits at position
 * bitreverse(k) over log_n bits.
 *
 * All transforms run in place, multithreaded with OpenMP (the results do not
 * depend on the thread count), and return CUZK_OK or CUZK_ENOMEM (for their
 * per-call scratch: 8 columns per thread, 4 MiB per thread at 2^28 points,
 * and tables of 2^15 elements at most). A domain is read-only after
 * ntt_domain_init, so several threads may use one domain at once.
 */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"

#define NTT_MAX_LOG 28

typedef enum ntt_order { NTT_NATURAL = 0, NTT_BITREV = 1 } ntt_order;

struct ntt_tables; /* twiddle tables, internal to src/poly */

typedef struct ntt_domain {
    unsigned log_n;
    size_t n;
    fr_t omega;       /* primitive n-th root of unity */
    fr_t omega_inv;   /* 1/omega */
    fr_t n_inv;       /* 1/n */
    fr_t shift;       /* the coset shift g = 7 (Fr's multiplicative generator) */
    fr_t shift_inv;   /* 1/7 */
    fr_t t_coset_inv; /* 1/(g^n - 1): 1/t(x) for t = X^n - 1 anywhere on g <omega> */
    struct ntt_tables *tables;
} ntt_domain;

/* Fills d for a domain of 2^log_n points (tables of a few MiB at most). */
int ntt_domain_init(ntt_domain *d, unsigned log_n, cuzk_err *err);
void ntt_domain_free(ntt_domain *d);

/* x (d->n elements): coefficients -> evaluations on <omega>. */
int ntt_forward(const ntt_domain *d, fr_t *x, ntt_order in, ntt_order out, cuzk_err *err);
/* x: evaluations on <omega> -> coefficients (includes the factor 1/n). */
int ntt_inverse(const ntt_domain *d, fr_t *x, ntt_order in, ntt_order out, cuzk_err *err);
/* x: coefficients -> evaluations on 7 <omega> (a_j scaled by 7^j, then NTT). */
int ntt_coset_forward(const ntt_domain *d, fr_t *x, ntt_order in, ntt_order out, cuzk_err *err);
/* x: evaluations on 7 <omega> -> coefficients. */
int ntt_coset_inverse(const ntt_domain *d, fr_t *x, ntt_order in, ntt_order out, cuzk_err *err);

/*
 * x: the evaluations of a polynomial P (degree < n) on <omega>, natural
 * order -> the evaluations of P on shift <omega>, natural order. An inverse
 * NTT whose coefficients come out scaled by shift^j / n, then a forward NTT,
 * with no permutation. shift = d->shift gives the Groth16 coset; snarkjs's
 * convention uses the odd points of the 2n domain (shift = omega_2n).
 */
int ntt_shift_evaluations(const ntt_domain *d, fr_t *x, const fr_t *shift, cuzk_err *err);

/* Permutes x (2^log_n elements) to bit-reversed positions; an involution. */
void ntt_bit_reverse(fr_t *x, unsigned log_n);

/*
 * The Groth16 quotient h = (A B - C) / (X^n - 1) (reference/groth16.md,
 * "Prover" steps 1-3). a, b, c hold the evaluations of the constraints'
 * A, B, C combinations at omega^0 .. omega^(len-1), in natural order, with
 * room for d->n elements each; entries len .. n-1 are taken as zero (and
 * written so). On return a[0 .. n-2] holds the n-1 coefficients of h and
 * a[n-1] is zero whenever A B - C vanishes on the domain (a satisfied
 * system); b and c are overwritten. Six transforms (groth16_h.c), no extra
 * memory beyond the per-call scratch. It is ntt_groth16_h_row for rows
 * 0, 1, 2 (a, b, c), in any order, then ntt_groth16_h_finish.
 */
int ntt_groth16_h(const ntt_domain *d, fr_t *a, fr_t *b, fr_t *c, size_t len, cuzk_err *err);

/* Row 0 or 1 (a or b): its evaluations on the coset 7 <omega>, natural
 * order; row 2 (c): the coefficients of C / (7^n - 1), bit-reversed. */
int ntt_groth16_h_row(const ntt_domain *d, fr_t *x, size_t len, int row, cuzk_err *err);
/* After the three rows: h into a (b and c are left as they are). */
int ntt_groth16_h_finish(const ntt_domain *d, fr_t *a, const fr_t *b, const fr_t *c, cuzk_err *err);
/* The finish in parts, for a prover that cannot hold the three rows at
 * once (the GPU prover on a small device): ntt_groth16_h_mul makes
 * elements [0, count) of x the products a b / z of the rows' elements
 * (a's factor first): x holds a and y b, or, when x_is_b, the other way
 * round (y then points at the matching piece of a); ntt_groth16_h_product
 * takes the whole product row to its bit-reversed coefficients;
 * ntt_groth16_h_sub subtracts the matching piece of c's row; then
 * ntt_bit_reverse. The same field elements as ntt_groth16_h_finish. */
void ntt_groth16_h_mul(const ntt_domain *d, fr_t *x, const fr_t *y, size_t count, bool x_is_b);
int ntt_groth16_h_product(const ntt_domain *d, fr_t *a, cuzk_err *err);
void ntt_groth16_h_sub(fr_t *x, const fr_t *c, size_t count);

#endif
