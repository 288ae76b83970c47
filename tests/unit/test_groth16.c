/*
 * test_groth16.c - development setup, CPU prover and verifier end to end on
 * a small bit-heavy circuit: x^3 + x + 5 = y with y public, x decomposed
 * into bits (so the split MSMs meet scalars equal to 1), and a second
 * public input z = x * k. Proofs verify, wrong inputs and tampered proofs
 * are rejected, deterministic r, s reproduce the same bytes, batches
 * verify, and a witness of another shape is refused.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"

typedef struct cubic {
    uint64_t x, k;
    int nbits;
} cubic;

static void cubic_outputs(const cubic *c, fr_t *y, fr_t *z)
{
    fr_t x, t, five, k;
    fr_from_u64(&x, c->x);
    fr_from_u64(&five, 5);
    fr_from_u64(&k, c->k);
    fr_sqr(&t, &x);
    fr_mul(&t, &t, &x);
    fr_add(&t, &t, &x);
    fr_add(y, &t, &five);
    fr_mul(z, &x, &k);
}

static cs_var alloc_value(cs_t *cs, const fr_t *v, bool input)
{
    return input ? cs_alloc_input(cs, cs_needs_values(cs) ? v : NULL)
                 : cs_alloc(cs, cs_needs_values(cs) ? v : NULL);
}

static int cubic_synthesize(cs_t *cs, void *vctx)
{
    const cubic *c = vctx;
    fr_t x, x2, x3, y, z, k;
    fr_from_u64(&x, c->x);
    fr_from_u64(&k, c->k);
    fr_sqr(&x2, &x);
    fr_mul(&x3, &x2, &x);
    cubic_outputs(c, &y, &z);
    cs_var vy = alloc_value(cs, &y, true), vz = alloc_value(cs, &z, true);
    cs_var vx = alloc_value(cs, &x, false), vx2 = alloc_value(cs, &x2, false);
    cs_var vx3 = alloc_value(cs, &x3, false);
    cs_lc a = {0}, b = {0}, o = {0};
    lc_add_var(&a, vx), lc_add_var(&b, vx), lc_add_var(&o, vx2); /* x * x = x2 */
    cs_enforce(cs, &a, &b, &o);
    lc_clear(&a), lc_clear(&o);
    lc_add_var(&a, vx2), lc_add_var(&o, vx3); /* x2 * x = x3 */
    cs_enforce(cs, &a, &b, &o);
    fr_t five;
    fr_from_u64(&five, 5);
    lc_clear(&a), lc_clear(&b), lc_clear(&o);
    lc_add_var(&a, vx3), lc_add_var(&a, vx), lc_add_term(&a, cs_one(), &five);
    lc_add_var(&b, cs_one()), lc_add_var(&o, vy); /* (x3 + x + 5) * 1 = y */
    cs_enforce(cs, &a, &b, &o);
    lc_clear(&a), lc_clear(&o);
    lc_add_term(&a, vx, &k), lc_add_var(&o, vz); /* k x * 1 = z */
    cs_enforce(cs, &a, &b, &o);
    cs_lc pack = {0};
    fr_t pow2 = FR_ONE;
    for (int i = 0; i < c->nbits; i++) { /* b_i * b_i = b_i, sum 2^i b_i = x */
        fr_t bit = (c->x >> i) & 1 ? FR_ONE : FR_ZERO;
        cs_var vb = alloc_value(cs, &bit, false);
        lc_clear(&a), lc_clear(&b), lc_clear(&o);
        lc_add_var(&a, vb), lc_add_var(&b, vb), lc_add_var(&o, vb);
        cs_enforce(cs, &a, &b, &o);
        lc_add_term(&pack, vb, &pow2);
        fr_dbl(&pow2, &pow2);
    }
    lc_clear(&b), lc_clear(&o);
    lc_add_var(&b, cs_one()), lc_add_var(&o, vx);
    cs_enforce(cs, &pack, &b, &o);
    lc_free(&a), lc_free(&b), lc_free(&o), lc_free(&pack);
    return cs_status(cs);
}

typedef struct fixture {
    cubic c;
    groth16_params pk;
    groth16_pvk pvk;
    cs_prover w;
    fr_t inputs[2];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    cuzk_err err;
    f->c = (cubic){.x = 0x9e3779b97f4a7c15ull, .k = 12345, .nbits = 64};
    cs_circuit circ = {cubic_synthesize, &f->c};
    assert_int_equal(groth16_setup_dev(&f->pk, circ, 42, &err), CUZK_OK);
    assert_int_equal(groth16_prepare_vk(&f->pvk, &f->pk.vk, &err), CUZK_OK);
    assert_int_equal(cs_synthesize_prover(&f->w, circ, NULL, &err), CUZK_OK);
    cubic_outputs(&f->c, &f->inputs[0], &f->inputs[1]);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    groth16_params_free(&f->pk);
    groth16_pvk_free(&f->pvk);
    cs_prover_free(&f->w);
    free(f);
    return 0;
}

static void param_shapes(void **state)
{
    fixture *f = *state;
    /* 4 + 64 + 1 constraints + 3 input constraints = 72 -> m = 128 */
    assert_int_equal(f->pk.n_h, 127);
    assert_int_equal(f->pk.vk.n_ic, 3);
    assert_int_equal(f->pk.n_l, 3 + 64);
    assert_int_equal(f->w.num_constraints, 72);
    assert_int_equal(f->pk.n_a, 3 + cs_bitmap_popcount(&f->w.a_aux_density));
    assert_int_equal(f->pk.n_b_g1, cs_bitmap_popcount(&f->w.b_input_density) +
                                       cs_bitmap_popcount(&f->w.b_aux_density));
}

static void prove_and_verify(void **state)
{
    fixture *f = *state;
    cuzk_err err;
    groth16_proof proof;
    groth16_timings t;
    assert_int_equal(groth16_prove(&proof, &f->pk, &f->w, 1, NULL, &t, &err), CUZK_OK);
    assert_true(t.total_ms >= 0);
    assert_int_equal(groth16_verify(&f->pvk, &proof, f->inputs, 2, &err), CUZK_OK);
    fr_t wrong[2] = {f->inputs[0], f->inputs[1]};
    fr_add(&wrong[1], &wrong[1], &FR_ONE);
    assert_int_equal(groth16_verify(&f->pvk, &proof, wrong, 2, &err), CUZK_EVERIFY);
    assert_int_equal(groth16_verify(&f->pvk, &proof, wrong, 1, &err), CUZK_EINVAL);
    groth16_proof swapped = proof; /* C replaced by A */
    swapped.c = proof.a;
    assert_int_equal(groth16_verify(&f->pvk, &swapped, f->inputs, 2, &err), CUZK_EVERIFY);
}

static void deterministic_rs(void **state)
{
    fixture *f = *state;
    cuzk_err err;
    cuzk_rng g;
    test_rng(&g);
    fr_t rs[4];
    for (int i = 0; i < 4; i++) fr_random(&rs[i], &g);
    groth16_proof p[3];
    assert_int_equal(groth16_prove(&p[0], &f->pk, &f->w, 1, rs, NULL, &err), CUZK_OK);
    assert_int_equal(groth16_prove(&p[1], &f->pk, &f->w, 1, rs, NULL, &err), CUZK_OK);
    assert_int_equal(groth16_prove(&p[2], &f->pk, &f->w, 1, rs + 2, NULL, &err), CUZK_OK);
    uint8_t e[3][GROTH16_PROOF_BYTES];
    for (int i = 0; i < 3; i++) groth16_proof_encode(e[i], &p[i]);
    assert_memory_equal(e[0], e[1], GROTH16_PROOF_BYTES);
    assert_memory_not_equal(e[0], e[2], GROTH16_PROOF_BYTES);
    assert_int_equal(groth16_verify(&f->pvk, &p[2], f->inputs, 2, &err), CUZK_OK);
}

static void encoding(void **state)
{
    fixture *f = *state;
    cuzk_err err;
    groth16_proof p, q;
    assert_int_equal(groth16_prove(&p, &f->pk, &f->w, 1, NULL, NULL, &err), CUZK_OK);
    uint8_t e[GROTH16_PROOF_BYTES], e2[GROTH16_PROOF_BYTES];
    groth16_proof_encode(e, &p);
    assert_int_equal(groth16_proof_decode(&q, e, sizeof(e), &err), CUZK_OK);
    groth16_proof_encode(e2, &q);
    assert_memory_equal(e, e2, sizeof(e));
    assert_int_equal(groth16_verify(&f->pvk, &q, f->inputs, 2, &err), CUZK_OK);
    assert_int_equal(groth16_proof_decode(&q, e, sizeof(e) - 1, &err), CUZK_ELENGTH);
    uint8_t inf[GROTH16_PROOF_BYTES];
    memcpy(inf, e, sizeof(e));
    memset(inf, 0, 48);
    inf[0] = 0xc0; /* A = compressed infinity */
    assert_int_equal(groth16_proof_decode(&q, inf, sizeof(inf), &err), CUZK_EIDENTITY);
    /* flipping bits of C gives a decode error or a failing proof, never a pass */
    for (int bit = 0; bit < 48 * 8; bit += 37) {
        memcpy(inf, e, sizeof(e));
        inf[144 + bit / 8] ^= (uint8_t)(1 << (bit % 8));
        if (groth16_proof_decode(&q, inf, sizeof(inf), &err) == CUZK_OK)
            assert_int_equal(groth16_verify(&f->pvk, &q, f->inputs, 2, &err), CUZK_EVERIFY);
    }
}

static void batch(void **state)
{
    fixture *f = *state;
    cuzk_err err;
    cs_prover w3[3] = {f->w, f->w, f->w}; /* shallow copies: read-only use */
    groth16_proof p[3];
    groth16_timings t[3];
    assert_int_equal(groth16_prove(p, &f->pk, w3, 3, NULL, t, &err), CUZK_OK);
    fr_t inputs[6];
    for (int i = 0; i < 3; i++) memcpy(&inputs[2 * i], f->inputs, sizeof(f->inputs));
    assert_int_equal(groth16_verify_batch(&f->pvk, p, 3, inputs, 2, &err), CUZK_OK);
    fr_add(&inputs[2], &inputs[2], &FR_ONE);
    assert_int_equal(groth16_verify_batch(&f->pvk, p, 3, inputs, 2, &err), CUZK_EVERIFY);
}

static void wrong_shape(void **state)
{
    fixture *f = *state;
    cuzk_err err;
    cubic other = f->c;
    other.nbits = 63; /* one bit fewer: other aux count */
    other.x &= (1ull << 63) - 1;
    cs_prover w;
    cs_circuit circ = {cubic_synthesize, &other};
    assert_int_equal(cs_synthesize_prover(&w, circ, NULL, &err), CUZK_OK);
    groth16_proof p;
    assert_int_equal(groth16_prove(&p, &f->pk, &w, 1, NULL, NULL, &err), CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "does not match"));
    cs_prover_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(param_shapes),
        cmocka_unit_test(prove_and_verify),
        cmocka_unit_test(deterministic_rs),
        cmocka_unit_test(encoding),
        cmocka_unit_test(batch),
        cmocka_unit_test(wrong_shape),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
