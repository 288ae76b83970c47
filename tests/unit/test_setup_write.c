/*
 * test_setup_write.c - the QAP backend and the streaming development setup:
 * the columns cs_qap_eval accumulates against cs_keygen's matrices through
 * groth16_qap_columns (a circuit of nested parallel units whose terms reach
 * ONE, an input, variables allocated before the units and the enclosing
 * unit's own; the synthetic circuit; the blank 2KiB PoRep partition), and
 * the files of groth16_setup_dev_write against groth16_setup_dev followed
 * by groth16_params_write and groth16_vk_write, byte for byte, also with
 * chunks of a few points; and the errors: a circuit whose second synthesis
 * differs from its count, an output directory that does not exist.
 */
#include "testutil.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"
#include "cuzk/r1cs.h"
#include "groth16/setup_internal.h"

static bool quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

/* ---- a circuit of nested units ---- */

typedef struct units_ctx {
    size_t units;
    cs_var x, s;       /* an input and an aux allocated before the units */
    cs_var a, b;       /* the enclosing unit's (inner units read them) */
    size_t extra_once; /* a constraint more on the next synthesis, then 0 */
} units_ctx;

static void term(cs_lc *lc, cs_var v, uint64_t c)
{
    fr_t f;
    fr_from_u64(&f, c);
    lc_add_term(lc, v, &f);
}

static int inner_unit(cs_t *cs, size_t k, void *vctx)
{
    units_ctx *c = vctx;
    cs_var d = cs_alloc(cs, &FR_ONE);
    cs_lc l = {0}, r = {0}, o = {0};
    lc_add_var(&l, d);
    lc_add_var(&r, c->a), lc_add_var(&r, cs_one());
    lc_add_var(&o, c->b), term(&o, c->x, k + 5), lc_sub_var(&o, c->s);
    cs_enforce(cs, &l, &r, &o);
    lc_free(&l), lc_free(&r), lc_free(&o);
    return cs_status(cs);
}

static int outer_unit(cs_t *cs, size_t k, void *vctx)
{
    units_ctx c = *(units_ctx *)vctx; /* a copy per unit: a and b are its own */
    c.a = cs_alloc(cs, &FR_ONE);
    c.b = cs_alloc(cs, &FR_ONE);
    cs_lc l = {0}, r = {0}, o = {0};
    fr_t zero = FR_ZERO;
    lc_add_var(&l, c.a), term(&l, c.s, 3), lc_add_term(&l, c.x, &zero);
    lc_add_var(&r, cs_one()), lc_sub_var(&r, c.b);
    term(&o, c.x, 7 * k + 2);
    cs_enforce(cs, &l, &r, &o);
    lc_clear(&l), lc_clear(&r), lc_clear(&o);
    term(&l, c.a, 2), lc_add_var(&r, c.b), lc_sub_var(&o, c.s);
    cs_enforce(cs, &l, &r, &o);
    lc_free(&l), lc_free(&r), lc_free(&o);
    static const char key[] = "test_setup_write inner";
    return cs_run_units_auto(cs, 3, key, sizeof(key), inner_unit, &c, &c);
}

static int units_synthesize(cs_t *cs, void *vctx)
{
    units_ctx *c = vctx;
    c->x = cs_alloc_input(cs, &FR_ONE);
    c->s = cs_alloc(cs, &FR_ONE);
    cs_lc l = {0}, r = {0}, o = {0};
    lc_add_var(&l, c->x), lc_add_var(&r, c->s), lc_add_var(&o, c->s);
    cs_enforce(cs, &l, &r, &o);
    static const char key[] = "test_setup_write outer";
    cs_run_units_auto(cs, c->units, key, sizeof(key), outer_unit, c, c);
    for (size_t i = 0; i <= c->extra_once; i++) {
        lc_clear(&l), lc_clear(&r), lc_clear(&o);
        term(&l, cs_one(), 9), lc_add_var(&r, c->x), term(&o, c->x, 9);
        cs_enforce(cs, &l, &r, &o);
    }
    c->extra_once = 0;
    lc_free(&l), lc_free(&r), lc_free(&o);
    return cs_status(cs);
}

/* ---- QAP columns against the keygen matrices ---- */

static void check_qap(cs_circuit circ, cuzk_rng *g)
{
    cuzk_err err = {0};
    cs_r1cs r;
    cs_qap q;
    assert_int_equal(cs_keygen(&r, circ, &err), CUZK_OK);
    assert_int_equal(cs_qap_count(&q, circ, &err), CUZK_OK);
    assert_int_equal(q.num_constraints, r.num_constraints);
    assert_int_equal(q.num_inputs, r.num_inputs);
    assert_int_equal(q.num_aux, r.num_aux);
    fr_t *lag = malloc(sizeof(fr_t) * r.num_constraints);
    size_t nv = r.num_inputs + r.num_aux;
    fr_t *u = malloc(sizeof(fr_t) * nv), *v = malloc(sizeof(fr_t) * nv),
         *w = malloc(sizeof(fr_t) * nv);
    assert_non_null(lag), assert_non_null(u), assert_non_null(v), assert_non_null(w);
    for (size_t j = 0; j < r.num_constraints; j++) fr_random(&lag[j], g);
    groth16_qap_columns(&r, lag, u, v, w);
    assert_int_equal(cs_qap_eval(&q, circ, lag, &err), CUZK_OK);
    assert_memory_equal(q.u, u, sizeof(fr_t) * nv);
    assert_memory_equal(q.v, v, sizeof(fr_t) * nv);
    assert_memory_equal(q.w, w, sizeof(fr_t) * nv);
    cs_qap_free(&q);
    cs_r1cs_free(&r);
    free(lag), free(u), free(v), free(w);
}

static void test_qap_units(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    omp_set_num_threads(4); /* forks even on a 2-core machine */
    units_ctx c = {.units = 13};
    check_qap((cs_circuit){units_synthesize, &c}, &g);
    cs_synthetic syn = {3000, 11};
    check_qap(cs_synthetic_circuit(&syn), &g);
}

static void test_qap_porep_2kib(void **state)
{
    (void)state;
    if (quick()) return;
    cuzk_rng g;
    test_rng(&g);
    porep_shape s;
    porep_circuit pc;
    assert_int_equal(porep_shape_for_size(&s, 2048, NULL), CUZK_OK);
    porep_circuit_blank(&pc, &s);
    check_qap(porep_circuit_get(&pc), &g);
}

/* ---- files ---- */

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len ? *len : 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

static void assert_same_file(const char *a, const char *b)
{
    size_t la, lb;
    uint8_t *x = slurp(a, &la), *y = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x), free(y);
}

static void check_files(cs_circuit circ, const groth16_setup_backend *be, uint64_t seed)
{
    char dir[] = "/tmp/cuzk_setup_write_XXXXXX", p1[256], v1[256], p2[256], v2[256];
    assert_non_null(mkdtemp(dir));
    snprintf(p1, sizeof p1, "%s/ref.params", dir), snprintf(v1, sizeof v1, "%s/ref.vk", dir);
    snprintf(p2, sizeof p2, "%s/new.params", dir), snprintf(v2, sizeof v2, "%s/new.vk", dir);
    cuzk_err err = {0};
    groth16_params p;
    assert_int_equal(groth16_setup_dev(&p, circ, seed, &err), CUZK_OK);
    assert_int_equal(groth16_params_write(p1, &p, &err), CUZK_OK);
    assert_int_equal(groth16_vk_write(v1, &p.vk, &err), CUZK_OK);
    groth16_params_free(&p);
    int rc = groth16_setup_dev_write(p2, v2, circ, seed, be, NULL, &err);
    if (rc) print_error("%s\n", err.msg);
    assert_int_equal(rc, CUZK_OK);
    assert_same_file(p1, p2);
    assert_same_file(v1, v2);
    unlink(p1), unlink(v1), unlink(p2), unlink(v2), rmdir(dir);
}

static void test_setup_files(void **state)
{
    (void)state;
    omp_set_num_threads(4);
    groth16_setup_backend small = groth16_setup_cpu;
    small.chunk = 5; /* many chunks, the last one short */
    units_ctx c = {.units = 9};
    check_files((cs_circuit){units_synthesize, &c}, &small, 3);
    check_files((cs_circuit){units_synthesize, &c}, &groth16_setup_cpu, 4);
    cs_synthetic syn = {1500, 5};
    check_files(cs_synthetic_circuit(&syn), &small, 1);
}

static void test_setup_errors(void **state)
{
    (void)state;
    cuzk_err err = {0};
    cs_qap q;
    units_ctx c = {.units = 4};
    cs_circuit circ = {units_synthesize, &c};
    assert_int_equal(cs_qap_count(&q, circ, &err), CUZK_OK);
    fr_t *lag = calloc(q.num_constraints + 1, sizeof(fr_t));
    c.extra_once = 1;
    assert_int_equal(cs_qap_eval(&q, circ, lag, &err), CUZK_EINVAL);
    assert_null(q.u);
    free(lag);

    char dir[] = "/tmp/cuzk_setup_write_XXXXXX", p[256], v[256];
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/no/such/dir/x.params", dir);
    snprintf(v, sizeof v, "%s/x.vk", dir);
    assert_int_equal(groth16_setup_dev_write(p, v, circ, 1, &groth16_setup_cpu, NULL, &err),
                     CUZK_EIO);
    assert_non_null(strstr(err.msg, "x.params.tmp: cannot create"));
    assert_int_equal(access(v, F_OK), -1);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qap_units),
        cmocka_unit_test(test_qap_porep_2kib),
        cmocka_unit_test(test_setup_files),
        cmocka_unit_test(test_setup_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
