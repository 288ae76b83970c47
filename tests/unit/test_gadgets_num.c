/*
 * test_gadgets_num.c - AllocatedNum, multipack and storage-proofs-core's
 * select / insert, against the tests of bellpepper and insertion.rs:
 * arithmetic with tampered results, conditional reversal, the non-zero
 * assertion, field elements to 255 bits (plain and strict, whose extra
 * ANDs follow the runs of ones of r - 1), packing bits into inputs equal
 * to compute_multipacking for 0..n bits, and select (2^k - 1 constraints)
 * and insert (2, 8, 22, s (s - 1) constraints) at every index.
 */
#include "gadget_check.h"

#include "cuzk/gadgets/multipack.h"
#include "cuzk/gadgets/num.h"
#include "cuzk/gadgets/select.h"

/* ---- arithmetic ---- */

typedef struct arith_ctx {
    fr_t a, b;
    int cond; /* -1 allocated true, 0/1 constant */
    num_var sum, prod, sq, diff, c, d;
} arith_ctx;

static int arith_synth(cs_t *cs, void *p)
{
    arith_ctx *x = p;
    num_var a = num_alloc(cs, &x->a), b = num_alloc(cs, &x->b);
    x->sum = num_add(cs, &a, &b);
    x->prod = num_mul(cs, &a, &b);
    x->sq = num_square(cs, &a);
    x->diff = num_sub(cs, &a, &b);
    num_enforce_equal(cs, &a, &a);
    num_enforce_sum(cs, &a, &b, &x->sum);
    num_enforce_difference(cs, &a, &b, &x->diff);
    bool_var cond = x->cond < 0 ? bit_alloc(cs, 1) : bool_const(x->cond);
    num_conditionally_reverse(cs, &x->c, &x->d, &a, &b, cond);
    num_assert_nonzero(cs, &a);
    num_inputize(cs, &x->prod);
    return cs_status(cs);
}

static void test_arithmetic(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int cond = -1; cond <= 1; cond++) {
        arith_ctx x = {.cond = cond};
        fr_random(&x.a, &g), fr_random(&x.b, &g);
        cs_prover p;
        prove_satisfied(&p, (cs_circuit){arith_synth, &x});
        fr_t want;
        fr_add(&want, &x.a, &x.b);
        assert_true(fr_eq(&p.aux_assignment[x.sum.var.index], &want));
        fr_mul(&want, &x.a, &x.b);
        assert_true(fr_eq(&p.aux_assignment[x.prod.var.index], &want));
        assert_true(fr_eq(&p.input_assignment[1], &want));
        fr_sqr(&want, &x.a);
        assert_true(fr_eq(&p.aux_assignment[x.sq.var.index], &want));
        fr_sub(&want, &x.a, &x.b);
        assert_true(fr_eq(&p.aux_assignment[x.diff.var.index], &want));
        bool swap = cond != 0;
        assert_true(fr_eq(&p.aux_assignment[x.c.var.index], swap ? &x.b : &x.a));
        assert_true(fr_eq(&p.aux_assignment[x.d.var.index], swap ? &x.a : &x.b));
        /* 4 results, 3 helpers, 2 reversals, nonzero, inputize (+ the bit) */
        assert_int_equal(p.num_constraints - p.num_inputs, 4 + 3 + 2 + 1 + 1 + (cond < 0));
        size_t idx[] = {x.sum.var.index, x.prod.var.index, x.sq.var.index, x.diff.var.index,
                        x.c.var.index,   x.d.var.index,    p.num_aux - 1};
        tamper_breaks(&p, (cs_circuit){arith_synth, &x}, idx, 7);
        cs_prover_free(&p);
    }
}

static void test_nonzero_fails_on_zero(void **state)
{
    (void)state;
    arith_ctx x = {.cond = 0};
    fr_from_u64(&x.b, 3);
    cs_prover p;
    cuzk_err e;
    assert_int_equal(cs_synthesize_prover(&p, (cs_circuit){arith_synth, &x}, NULL, &e),
                     CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "zero"));
}

/* ---- bits ---- */

typedef struct tobits_ctx {
    fr_t v;
    bool strict;
    bool_var bits[FR_NUM_BITS];
} tobits_ctx;

static int tobits_synth(cs_t *cs, void *p)
{
    tobits_ctx *x = p;
    num_var n = num_alloc(cs, &x->v);
    if (x->strict)
        num_to_bits_le_strict(cs, x->bits, &n);
    else
        num_to_bits_le(cs, x->bits, &n);
    return cs_status(cs);
}

/* The strict form's ANDs: for each run of ones of r - 1 (from the top)
 * that ends at a zero, the run's length minus one, plus one for chaining
 * the previous run's result. */
static size_t strict_ands(void)
{
    uint64_t rm1[FR_LIMBS];
    memcpy(rm1, FR_MODULUS, sizeof(rm1));
    rm1[0] -= 1;
    size_t ands = 0, run = 0, runs = 0;
    for (int i = 254; i >= 0; i--) {
        if ((rm1[i / 64] >> (i % 64)) & 1) {
            run++;
        } else if (run) {
            ands += run - 1 + (runs > 0);
            runs++, run = 0;
        }
    }
    return ands;
}

static void test_to_bits(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int i = 0; i < (quick() ? 6 : 60); i++) {
        tobits_ctx x = {.strict = i % 2};
        fr_random(&x.v, &g);
        if (i < 2) fr_neg(&x.v, &FR_ONE);
        cs_prover p;
        prove_satisfied(&p, (cs_circuit){tobits_synth, &x});
        uint64_t limbs[FR_LIMBS];
        fr_to_canonical(limbs, &x.v);
        for (int j = 0; j < FR_NUM_BITS; j++)
            assert_int_equal(witness_bool(&p, x.bits[j]), (limbs[j / 64] >> (j % 64)) & 1);
        assert_int_equal(p.num_constraints - p.num_inputs,
                         255 + 1 + (x.strict ? strict_ands() : 0));
        if (i < 4) {
            size_t idx[] = {0, x.bits[0].var, x.bits[254].var, p.num_aux - 1};
            tamper_breaks(&p, (cs_circuit){tobits_synth, &x}, idx, 4);
        }
        cs_prover_free(&p);
    }
}

/* ---- multipack ---- */

typedef struct pack_ctx {
    const bool *bits;
    size_t n;
    num_var packed;
} pack_ctx;

static int pack_synth(cs_t *cs, void *p)
{
    pack_ctx *x = p;
    bool_var *b = malloc(x->n * sizeof(bool_var) + 1);
    for (size_t i = 0; i < x->n; i++) {
        /* constants and negated bits too: they bring ONE terms */
        bool v = x->bits[i];
        b[i] = i % 7 == 3   ? bool_const(v)
               : i % 5 == 1 ? bool_not(bit_alloc(cs, !v))
                            : bit_alloc(cs, v);
    }
    multipack_pack_into_inputs(cs, b, x->n);
    x->packed = multipack_pack_bits(cs, b, x->n);
    free(b);
    return cs_status(cs);
}

static void test_multipacking(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    bool bits[1500];
    fr_t want[MULTIPACK_LEN(1500)];
    for (size_t n = 0; n < 1500; n += quick() ? 97 : 7) {
        for (size_t i = 0; i < n; i++) bits[i] = cuzk_rng_u64(&g) & 1;
        size_t m = multipack_compute(want, bits, n);
        assert_int_equal(m, (n + 253) / 254);
        pack_ctx x = {.bits = bits, .n = n};
        cs_prover p;
        prove_satisfied(&p, (cs_circuit){pack_synth, &x});
        assert_int_equal(p.num_inputs, 1 + m);
        for (size_t i = 0; i < m; i++) assert_true(fr_eq(&p.input_assignment[1 + i], &want[i]));
        fr_t first = m ? want[0] : FR_ZERO;
        assert_true(fr_eq(&p.aux_assignment[x.packed.var.index], &first));
        cs_prover_free(&p);
    }
    uint8_t bytes[2] = {0x81, 0x06};
    bool be[16], le[16];
    multipack_bytes_to_bits(be, bytes, 2), multipack_bytes_to_bits_le(le, bytes, 2);
    const bool want_be[16] = {1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0};
    const bool want_le[16] = {1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0};
    assert_memory_equal(be, want_be, sizeof(be));
    assert_memory_equal(le, want_le, sizeof(le));
}

/* ---- select / insert ---- */

typedef struct sel_ctx {
    size_t log, index;
    bool insert;
    fr_t values[16];
    num_var out[16];
    size_t before;
} sel_ctx;

static int sel_synth(cs_t *cs, void *p)
{
    sel_ctx *x = p;
    size_t size = (size_t)1 << x->log, n = x->insert ? size - 1 : size;
    num_var el[16], elem;
    for (size_t i = 0; i < n; i++) el[i] = num_alloc(cs, &x->values[i]);
    if (x->insert) elem = num_alloc(cs, &x->values[15]);
    bool_var bits[4];
    for (size_t i = 0; i < x->log; i++) bits[i] = bit_alloc(cs, (x->index >> i) & 1);
    x->before = cs_num_constraints(cs);
    if (x->insert) return num_insert(cs, x->out, &elem, bits, x->log, el);
    x->out[0] = num_select(cs, el, bits, x->log);
    return cs_status(cs);
}

static void test_select_insert(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int insert = 0; insert <= 1; insert++) {
        for (size_t log = 1; log <= 4; log++) {
            size_t size = (size_t)1 << log;
            for (size_t index = 0; index < size; index++) {
                sel_ctx x = {.log = log, .index = index, .insert = insert};
                for (int i = 0; i < 16; i++) fr_random(&x.values[i], &g);
                cs_prover p;
                prove_satisfied(&p, (cs_circuit){sel_synth, &x});
                size_t cost = p.num_constraints - p.num_inputs - x.before;
                size_t want_cost = !insert     ? size - 1
                                   : size == 8 ? 22
                                   : size == 4 ? 8
                                               : size * (size - 1);
                assert_int_equal(cost, want_cost);
                for (size_t i = 0; i < (insert ? size : 1); i++) {
                    const fr_t *want = !insert      ? &x.values[index]
                                       : i < index  ? &x.values[i]
                                       : i == index ? &x.values[15]
                                                    : &x.values[i - 1];
                    assert_true(fr_eq(&p.aux_assignment[x.out[i].var.index], want));
                }
                cs_prover_free(&p);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arithmetic),    cmocka_unit_test(test_nonzero_fails_on_zero),
        cmocka_unit_test(test_to_bits),       cmocka_unit_test(test_multipacking),
        cmocka_unit_test(test_select_insert),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
