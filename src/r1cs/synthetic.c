/*
 * synthetic.c - the synthetic bit-heavy circuit of r1cs.h: what a Filecoin
 * circuit mostly is (boolean constraints, bit packing, XOR), sized freely,
 * for the synthesis and prover benchmarks and for tests that need a large
 * valid witness. Values are always supplied (they cost little here).
 */
#include "cuzk/r1cs.h"

#include "cuzk/rng.h"

#define WORD_BITS 64
/* 64 boolean constraints + 1 packing + 64 XOR constraints. */
#define CONSTRAINTS_PER_WORD (2 * WORD_BITS + 1)

static const fr_t *bit_value(uint64_t w, int i)
{
    return (w >> i) & 1 ? &FR_ONE : &FR_ZERO;
}

/* Allocates the 64 bits of w with their boolean constraints; returns the
 * packed combination sum 2^i b_i in pack. */
static void alloc_bits(cs_t *cs, uint64_t w, cs_var bits[WORD_BITS], cs_lc *pack)
{
    cs_lc a = {0}, b = {0}, zero = {0};
    fr_t coeff = FR_ONE;
    lc_clear(pack);
    for (int i = 0; i < WORD_BITS; i++) {
        bits[i] = cs_alloc(cs, bit_value(w, i));
        lc_clear(&a), lc_clear(&b);
        lc_add_var(&a, bits[i]);
        lc_add_var(&b, cs_one());
        lc_sub_var(&b, bits[i]);
        cs_enforce(cs, &a, &b, &zero);
        lc_add_term(pack, bits[i], &coeff);
        fr_dbl(&coeff, &coeff);
    }
}

/* c_i = a_i XOR b_i: (2 a) * b = a + b - c; `wrong` flips c_0's value. */
static void xor_bits(cs_t *cs, const cs_var *x, uint64_t xv, const cs_var *y, uint64_t yv,
                     bool wrong)
{
    cs_lc a = {0}, b = {0}, c = {0};
    fr_t two;
    fr_dbl(&two, &FR_ONE);
    for (int i = 0; i < WORD_BITS; i++) {
        cs_var z = cs_alloc(cs, bit_value(xv ^ yv ^ (uint64_t)wrong, i));
        lc_clear(&a), lc_clear(&b), lc_clear(&c);
        lc_add_term(&a, x[i], &two);
        lc_add_var(&b, y[i]);
        lc_add_var(&c, x[i]);
        lc_add_var(&c, y[i]);
        lc_sub_var(&c, z);
        cs_enforce(cs, &a, &b, &c);
    }
}

static int synthesize_core(cs_t *cs, const cs_synthetic *p, bool unsatisfied)
{
    size_t words = p->constraints / CONSTRAINTS_PER_WORD;
    cuzk_rng g;
    cuzk_rng_seed(&g, p->seed);
    cs_var bits[2][WORD_BITS];
    cs_lc pack = {0}, one = {0}, word = {0};
    lc_add_var(&one, cs_one());
    uint64_t prev = 0;
    for (size_t k = 0; k < (words ? words : 1) && !cs_status(cs); k++) {
        uint64_t w = cuzk_rng_u64(&g);
        fr_t wv;
        fr_from_u64(&wv, w);
        cs_var packed = k == 0 ? cs_alloc_input(cs, &wv) : cs_alloc(cs, &wv);
        alloc_bits(cs, w, bits[k & 1], &pack);
        lc_clear(&word);
        lc_add_var(&word, packed);
        cs_enforce(cs, &pack, &one, &word);
        if (k > 0) xor_bits(cs, bits[(k - 1) & 1], prev, bits[k & 1], w, k == 1 && unsatisfied);
        prev = w;
    }
    lc_free(&pack);
    return cs_status(cs);
}

static int synthesize(cs_t *cs, void *ctx)
{
    return synthesize_core(cs, ctx, false);
}

static int synthesize_unsatisfied(cs_t *cs, void *ctx)
{
    return synthesize_core(cs, ctx, true);
}

cs_circuit cs_synthetic_circuit(const cs_synthetic *params)
{
    return (cs_circuit){synthesize, (void *)params};
}

cs_circuit cs_synthetic_circuit_unsatisfied(const cs_synthetic *params)
{
    return (cs_circuit){synthesize_unsatisfied, (void *)params};
}
