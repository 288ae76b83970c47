/*
 * test_r1cs_shape.c - the shape backend (cs_shape_*, r1cs.h) against the
 * prover backend and the plain recorder.
 *
 * For the synthetic circuit, PoRep 2KiB of every registered kind (sealed
 * sectors), Winning and Window PoSt 2KiB and SnapDeals 2KiB (real
 * vanilla proofs), the shape recorded from the circuit (forked over two
 * threads, and on one thread for PoRep V1_1: the same fingerprint and
 * size) must give the prover's a, b, c byte for byte through
 * cs_shape_eval, its three density bitmaps through cs_shape_densities
 * (into fresh words and into poisoned words of the prover's own storage),
 * cs_count's fingerprint and counts. An aux value altered makes eval fail
 * with the first unsatisfied constraint, which the plain recorder's
 * matrices (cs_record, cs_r1cs_eval) find independently. A hand-made
 * circuit covers coefficients that are not +-2^k (the escape table),
 * large powers of both signs, terms that merge to zero, empty rows and a
 * long row; a row of 65536 terms is refused, naming the constraint. Every
 * allocation of recording (and of the densities) failing in turn gives
 * CUZK_ENOMEM with nothing left allocated (failalloc.h, not under ASan).
 */
#include "testutil.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"
#include "cuzk/filecoin/update_circuit.h"
#include "cuzk/r1cs.h"
#include "failalloc.h"
#include "update_gen.h"

static bool quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

static int record_on(cs_shape **s, cs_circuit c, int threads)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    cuzk_err e = {0};
    int rc = cs_shape_record(s, c, &e);
    if (rc) print_message("%s\n", e.msg);
    omp_set_num_threads(saved);
    return rc;
}

static void assert_same_words(const cs_bitmap *x, const cs_bitmap *y, size_t words)
{
    assert_int_equal(x->nbits, y->nbits);
    assert_memory_equal(x->words, y->words, words * sizeof(uint64_t));
}

/* The densities into fresh words and into p's own, poisoned first. */
static void check_densities(const cs_shape *s, cs_prover *p)
{
    cs_prover q = {.num_inputs = p->num_inputs, .num_aux = p->num_aux};
    assert_int_equal(cs_shape_densities(s, &q, NULL), 0);
    size_t in_w = (p->num_inputs + 63) / 64, aux_w = (p->num_aux + 63) / 64;
    assert_same_words(&q.a_aux_density, &p->a_aux_density, aux_w);
    assert_same_words(&q.b_input_density, &p->b_input_density, in_w);
    assert_same_words(&q.b_aux_density, &p->b_aux_density, aux_w);
    cs_prover_free(&q);
    size_t cap_in = (p->cap_inputs + 63) / 64, cap_aux = (p->cap_aux + 63) / 64;
    uint64_t *want = malloc((cap_in + 2 * cap_aux) * sizeof(uint64_t));
    assert_non_null(want);
    memcpy(want, p->a_aux_density.words, cap_aux * sizeof(uint64_t));
    memcpy(want + cap_aux, p->b_aux_density.words, cap_aux * sizeof(uint64_t));
    memcpy(want + 2 * cap_aux, p->b_input_density.words, cap_in * sizeof(uint64_t));
    uint64_t *words[3] = {p->a_aux_density.words, p->b_aux_density.words, p->b_input_density.words};
    memset(words[0], 0xa5, cap_aux * sizeof(uint64_t));
    memset(words[1], 0xa5, cap_aux * sizeof(uint64_t));
    memset(words[2], 0xa5, cap_in * sizeof(uint64_t));
    assert_int_equal(cs_shape_densities(s, p, NULL), 0);
    assert_ptr_equal(p->a_aux_density.words, words[0]); /* reused */
    assert_memory_equal(p->a_aux_density.words, want, cap_aux * sizeof(uint64_t));
    assert_memory_equal(p->b_aux_density.words, want + cap_aux, cap_aux * sizeof(uint64_t));
    assert_memory_equal(p->b_input_density.words, want + 2 * cap_aux, cap_in * sizeof(uint64_t));
    free(want);
    cs_prover wrong = {.num_inputs = p->num_inputs, .num_aux = p->num_aux + 1};
    cuzk_err e = {0};
    assert_int_equal(cs_shape_densities(s, &wrong, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "aux"));
}

/* The first constraint the recorder's matrices find unsatisfied on the
 * assignment, or n. */
static size_t first_unsatisfied(const cs_r1cs *r, const fr_t *input, const fr_t *aux)
{
    size_t n = r->num_constraints;
    fr_t *abc = malloc(3 * n * sizeof(fr_t));
    assert_non_null(abc);
    assert_int_equal(cs_r1cs_eval(r, input, aux, abc, abc + n, abc + 2 * n), 0);
    size_t j = 0;
    for (fr_t ab; j < n; j++) {
        fr_mul(&ab, &abc[j], &abc[n + j]);
        if (!fr_eq(&ab, &abc[2 * n + j])) break;
    }
    free(abc);
    return j;
}

/* Aux values altered one at a time: eval names the first constraint the
 * recorder's matrices find unsatisfied (skipping values nothing reads). */
static void check_altered(const cs_shape *s, cs_circuit c, const cs_prover *p, cuzk_rng *g)
{
    cs_r1cs r;
    assert_int_equal(cs_record(&r, c, NULL), 0);
    size_t n = p->num_constraints, failed = 0;
    fr_t *aux = malloc(p->num_aux * sizeof(fr_t)), *abc = malloc(3 * n * sizeof(fr_t));
    assert_non_null(aux), assert_non_null(abc);
    memcpy(aux, p->aux_assignment, p->num_aux * sizeof(fr_t));
    for (int tries = 0; tries < 8 && failed < 2; tries++) {
        size_t j = cuzk_rng_u64(g) % p->num_aux;
        fr_t saved = aux[j];
        fr_add(&aux[j], &aux[j], &FR_ONE);
        size_t want = first_unsatisfied(&r, p->input_assignment, aux);
        cuzk_err e = {0};
        int rc = cs_shape_eval(s, p->input_assignment, aux, abc, abc + n, abc + 2 * n, &e);
        if (want < n) {
            char msg[64];
            snprintf(msg, sizeof msg, "constraint %zu is not satisfied", want);
            assert_int_equal(rc, CUZK_EINVAL);
            assert_string_equal(e.msg, msg);
            failed++;
        } else {
            assert_int_equal(rc, 0);
        }
        aux[j] = saved;
    }
    assert_true(failed > 0);
    free(aux), free(abc);
    cs_r1cs_free(&r);
}

/* The shape of c against the prover and the counter; satisfied: whether
 * c's witness satisfies it. */
static void check_circuit(cs_circuit c, bool satisfied, bool altered)
{
    cs_prover p;
    assert_int_equal(cs_synthesize_prover(&p, c, NULL, NULL), 0);
    cs_shape *s;
    assert_int_equal(record_on(&s, c, 2), 0);
    cs_counts k;
    assert_int_equal(cs_count(&k, c, NULL), 0);
    assert_int_equal(cs_shape_num_constraints(s), p.num_constraints);
    assert_int_equal(cs_shape_num_inputs(s), p.num_inputs);
    assert_int_equal(cs_shape_num_aux(s), p.num_aux);
    uint8_t fp[32];
    cs_shape_fingerprint(s, fp);
    assert_memory_equal(fp, k.fingerprint, 32);
    assert_true(cs_shape_bytes(s) > p.num_constraints * 6);
    size_t n = p.num_constraints;
    fr_t *abc = malloc(3 * n * sizeof(fr_t));
    assert_non_null(abc);
    cuzk_err e = {0};
    int rc = cs_shape_eval(s, p.input_assignment, p.aux_assignment, abc, abc + n, abc + 2 * n, &e);
    if (satisfied) {
        if (rc) print_message("%s\n", e.msg);
        assert_int_equal(rc, 0);
    }
    assert_memory_equal(abc, p.a, n * sizeof(fr_t));
    assert_memory_equal(abc + n, p.b, n * sizeof(fr_t));
    assert_memory_equal(abc + 2 * n, p.c, n * sizeof(fr_t));
    free(abc);
    check_densities(s, &p);
    if (altered) {
        cuzk_rng g;
        test_rng(&g);
        check_altered(s, c, &p, &g);
    }
    cs_shape_free(s);
    cs_prover_free(&p);
}

/* ---- the synthetic circuit ---- */

static void synthetic(void **state)
{
    (void)state;
    cs_synthetic params = {quick() ? 5000 : 100000, 7};
    check_circuit(cs_synthetic_circuit(&params), true, true);
}

/* ---- Filecoin circuits ---- */

/* A 2KiB sector of registered proof id sealed from random data. */
static void sealed_c1(vanilla_c1 *c1, uint64_t id, cuzk_rng *g)
{
    const fc_porep_config *cfg = fc_porep_config_get(id);
    uint8_t *data = malloc(cfg->nodes * 32), seed[32];
    assert_non_null(data);
    fc_seal_random_data(data, cfg->nodes, cuzk_rng_u64(g));
    fc_seal_input in = {.cfg = cfg, .sector_id = 42, .data = data};
    fc_prover_id_from_miner(in.prover_id, 1000);
    cuzk_rng_bytes(g, in.ticket, 32);
    cuzk_rng_bytes(g, seed, 32);
    fc_sealed sealed;
    assert_int_equal(fc_seal(&sealed, &in, NULL, NULL, NULL), CUZK_OK);
    assert_int_equal(fc_sealed_c1(c1, &sealed, seed, NULL), CUZK_OK);
    fc_sealed_free(&sealed);
    free(data);
}

static void porep_2kib(void **state)
{
    (void)state;
    static const uint64_t ids[] = {0, 5, 10, 15}; /* V1, V1_1, Synthetic, NI: 2KiB */
    cuzk_rng g;
    test_rng(&g);
    for (size_t i = 0; i < (quick() ? 1 : 4); i++) {
        uint64_t id = quick() ? 5 : ids[i];
        vanilla_c1 c1;
        sealed_c1(&c1, id, &g);
        porep_circuit pc;
        assert_int_equal(porep_circuit_init(&pc, &c1, 0, NULL), 0);
        cs_circuit c = porep_circuit_get(&pc);
        check_circuit(c, true, id == 5);
        if (id == 5) { /* one thread: the same shape as on forks */
            cs_shape *one, *two;
            assert_int_equal(record_on(&one, c, 1), 0);
            assert_int_equal(record_on(&two, c, 2), 0);
            uint8_t f1[32], f2[32];
            cs_shape_fingerprint(one, f1), cs_shape_fingerprint(two, f2);
            assert_memory_equal(f1, f2, 32);
            assert_int_equal(cs_shape_bytes(one), cs_shape_bytes(two));
            cs_shape_free(one), cs_shape_free(two);
        }
        vanilla_c1_free(&c1);
    }
}

static void post_sector(vanilla_post_sector *v, int kind, const post_shape *s,
                        const uint8_t rnd[32], uint64_t index, cuzk_rng *g)
{
    fr_t *leaves = malloc(s->nodes * sizeof(fr_t));
    assert_non_null(leaves);
    for (size_t i = 0; i < s->nodes; i++) fr_random(&leaves[i], g);
    fc_ptree t;
    assert_int_equal(fc_ptree_build(&t, &s->tree, leaves, s->nodes, "tree-r", NULL, NULL, NULL), 0);
    fc_post_replica r = {.sector_id = 1234 + index, .tree_r = &t};
    cuzk_rng_bytes(g, r.comm_c.b, 32);
    r.comm_c.b[31] &= 0x3f;
    assert_int_equal(fc_gen_post_sector(v, kind, s, FC_API_V1_1, rnd, &r, index, NULL), 0);
    fc_ptree_free(&t);
    free(leaves);
}

static void post_2kib(int kind, size_t sectors)
{
    cuzk_rng g;
    test_rng(&g);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, kind, 2048, NULL), 0);
    uint8_t rnd[32];
    cuzk_rng_bytes(&g, rnd, 32);
    rnd[31] &= 0x3f;
    vanilla_post_sector v[2];
    for (size_t i = 0; i < sectors; i++) post_sector(&v[i], kind, &s, rnd, i, &g);
    post_circuit pc;
    assert_int_equal(post_circuit_init(&pc, kind, &s, v, sectors, NULL), 0);
    check_circuit(post_circuit_get(&pc), true, false);
    for (size_t i = 0; i < sectors; i++) vanilla_post_sector_free(&v[i]);
}

static void winning_post_2kib(void **state)
{
    (void)state;
    post_2kib(VANILLA_POST_WINNING, 1);
}

static void window_post_2kib(void **state)
{
    (void)state;
    post_2kib(VANILLA_POST_WINDOW, 2);
}

static void snap_2kib(void **state)
{
    (void)state;
    if (quick()) return;
    cuzk_rng g;
    test_rng(&g);
    update_gen t;
    check_circuit(update_gen_2kib(&t, &g), true, false);
    update_gen_free(&t);
}

/* ---- a hand-made circuit ---- */

/* Values of the hand-made circuit's variables. */
static fr_t val(uint64_t i)
{
    fr_t x;
    fr_from_u64(&x, 1000 + 17 * i);
    return x;
}

static int hand_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    fr_t v[40], big, three, minus_five, zero = FR_ZERO;
    for (int i = 0; i < 40; i++) v[i] = val((uint64_t)i);
    cs_var in = cs_alloc_input(cs, &v[0]), x[40];
    for (int i = 1; i < 40; i++) x[i] = cs_alloc(cs, &v[i]);
    fr_from_u64(&three, 3);
    fr_from_u64(&minus_five, 5), fr_neg(&minus_five, &minus_five);
    big = FR_ONE;
    for (int i = 0; i < 200; i++) fr_dbl(&big, &big); /* 2^200 */
    cs_lc a = {0}, b = {0}, c = {0};
    /* (3 x1 - 5 x2 + 2^200 in) * (x3 - 2^200 x4) = 0: escapes, large powers */
    lc_add_term(&a, x[1], &three);
    lc_add_term(&a, x[2], &minus_five);
    lc_add_term(&a, in, &big);
    lc_add_var(&b, x[3]);
    lc_sub_term(&b, x[4], &big);
    lc_add_var(&b, x[5]);
    lc_sub_var(&b, x[5]); /* merged to zero: skipped everywhere */
    cs_enforce(cs, &a, &b, &c);
    lc_clear(&a), lc_clear(&b), lc_clear(&c);
    cs_enforce(cs, &a, &b, &c);    /* empty rows */
    for (int i = 1; i < 40; i++) { /* a long row, coefficients +-2^i and 0 */
        fr_t k = FR_ONE;
        for (int j = 0; j < i * 6; j++) fr_dbl(&k, &k);
        if (i % 3 == 0) fr_neg(&k, &k);
        lc_add_term(&c, x[i], i % 7 == 0 ? &zero : &k);
    }
    lc_add_term(&b, x[6], &three);
    cs_enforce(cs, &a, &b, &c);
    lc_free(&a), lc_free(&b), lc_free(&c);
    return cs_status(cs);
}

static void hand_made(void **state)
{
    (void)state;
    check_circuit((cs_circuit){hand_synth, NULL}, false, false);
}

/* A row of 65536 non-zero terms is refused. */
static int long_row_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    cs_lc a = {0}, b = {0};
    cs_var one = cs_one();
    lc_add_var(&b, one);
    for (int i = 0; i < 65536; i++) lc_add_var(&a, cs_alloc(cs, NULL));
    cs_enforce(cs, &b, &b, &b);
    cs_enforce(cs, &a, &b, &b);
    lc_free(&a), lc_free(&b);
    return cs_status(cs);
}

static void long_row_refused(void **state)
{
    (void)state;
    cs_shape *s = (cs_shape *)1;
    cuzk_err e = {0};
    assert_int_equal(cs_shape_record(&s, (cs_circuit){long_row_synth, NULL}, &e),
                     CUZK_EUNSUPPORTED);
    assert_null(s);
    assert_non_null(strstr(e.msg, "constraint 1: A has 65536 terms"));
}

/* ---- allocation failures ---- */

#if FAILALLOC_AVAILABLE
/* Records the hand-made circuit and the synthetic one and takes the
 * densities of the latter; everything freed. */
static int record_all(void *arg)
{
    (void)arg;
    cs_synthetic params = {300, 3};
    cs_circuit circuits[2] = {{hand_synth, NULL}, cs_synthetic_circuit(&params)};
    for (int i = 0; i < 2; i++) {
        cs_shape *s;
        int rc = cs_shape_record(&s, circuits[i], NULL);
        if (rc) return rc;
        cs_prover q = {.num_inputs = cs_shape_num_inputs(s), .num_aux = cs_shape_num_aux(s)};
        rc = cs_shape_densities(s, &q, NULL);
        cs_prover_free(&q);
        cs_shape_free(s);
        if (rc) return rc;
    }
    return 0;
}

static void allocation_failures(void **state)
{
    (void)state;
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);                /* failalloc counts on one thread */
    assert_int_equal(record_all(NULL), 0); /* OpenMP's team resized outside the count */
    failalloc_every(record_all, NULL);
    omp_set_num_threads(saved);
}
#else
/* AddressSanitizer owns malloc in sanitizer builds. */
static void allocation_failures(void **state)
{
    (void)state;
    skip();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synthetic),         cmocka_unit_test(hand_made),
        cmocka_unit_test(long_row_refused),  cmocka_unit_test(porep_2kib),
        cmocka_unit_test(winning_post_2kib), cmocka_unit_test(window_post_2kib),
        cmocka_unit_test(snap_2kib),         cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
