/*
 * gadget_check.h - helpers shared by the test_gadgets_*.c tests: counting a
 * circuit (constraints without the appended input constraints, as
 * bellpepper's TestConstraintSystem counts them), proving it and checking
 * a_j * b_j = c_j for every constraint, reading a Boolean's value back from
 * the witness, and flipping one aux value of a recorded circuit to see a
 * constraint break.
 */
#ifndef CUZK_TEST_GADGET_CHECK_H
#define CUZK_TEST_GADGET_CHECK_H

#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets/boolean.h"
#include "cuzk/r1cs.h"

static inline bool quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

/* The counter's counts, with the num_inputs appended constraints removed. */
static inline cs_counts count_circuit(cs_circuit c)
{
    cs_counts k;
    cuzk_err e;
    int rc = cs_count(&k, c, &e);
    if (rc) print_message("count failed: %s\n", e.msg);
    assert_int_equal(rc, 0);
    k.num_constraints -= k.num_inputs;
    return k;
}

/* Number of constraints with a_j * b_j != c_j. */
static inline size_t count_unsatisfied(size_t n, const fr_t *a, const fr_t *b, const fr_t *c)
{
    size_t bad = 0;
    for (size_t j = 0; j < n; j++) {
        fr_t ab;
        fr_mul(&ab, &a[j], &b[j]);
        bad += !fr_eq(&ab, &c[j]);
    }
    return bad;
}

/* Proves c into *p and asserts every constraint holds. */
static inline void prove_satisfied(cs_prover *p, cs_circuit c)
{
    cuzk_err e;
    int rc = cs_synthesize_prover(p, c, NULL, &e);
    if (rc) print_message("prover failed: %s\n", e.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(count_unsatisfied(p->num_constraints, p->a, p->b, p->c), 0);
}

/* A Boolean's value as the witness says (constants as they are). */
static inline bool witness_bool(const cs_prover *p, bool_var b)
{
    if (b.kind == BOOL_CONST) return b.value;
    assert_true(b.var < p->num_aux);
    const fr_t *v = &p->aux_assignment[b.var];
    assert_true(fr_is_zero(v) || fr_is_one(v));
    return fr_is_one(v) != (b.kind == BOOL_NOT);
}

/* Records c and, for each aux index in idx[0..n), replaces that value v of
 * p's witness by 1 - v (a flipped bit) and asserts some constraint breaks. */
static inline void tamper_breaks(const cs_prover *p, cs_circuit c, const size_t *idx, size_t n)
{
    cs_r1cs r;
    assert_int_equal(cs_record(&r, c, NULL), 0);
    size_t m = r.num_constraints;
    fr_t *abc = malloc(3 * m * sizeof(fr_t));
    fr_t *aux = malloc(p->num_aux * sizeof(fr_t));
    assert_non_null(abc), assert_non_null(aux);
    memcpy(aux, p->aux_assignment, p->num_aux * sizeof(fr_t));
    assert_int_equal(cs_r1cs_eval(&r, p->input_assignment, aux, abc, abc + m, abc + 2 * m), 0);
    assert_int_equal(count_unsatisfied(m, abc, abc + m, abc + 2 * m), 0);
    for (size_t i = 0; i < n; i++) {
        fr_t saved = aux[idx[i]];
        fr_sub(&aux[idx[i]], &FR_ONE, &aux[idx[i]]);
        cs_r1cs_eval(&r, p->input_assignment, aux, abc, abc + m, abc + 2 * m);
        assert_true(count_unsatisfied(m, abc, abc + m, abc + 2 * m) > 0);
        aux[idx[i]] = saved;
    }
    free(abc), free(aux);
    cs_r1cs_free(&r);
}

#endif
