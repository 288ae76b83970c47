/*
 * test_synth_units.c - parallel synthesis of independent units
 * (cs_run_units, cs_unit_size) against sequential synthesis.
 *
 * A small circuit of units (random bits XORed with a bit allocated before
 * the units, packed into an input, and a product with a general
 * coefficient, so values, both density trackers and the atomic edges of
 * odd-sized windows are exercised) is synthesized three ways: its units
 * called directly in order, through cs_run_units on one thread, and on
 * forks over three threads; the prover outputs (a, b, c, both
 * assignments, the three densities) must be equal byte for byte, and the
 * counter's fingerprint equal to the direct one; likewise units that run
 * units of their own (nested forks). A unit of the wrong size
 * and failing units are reported, naming the lowest failing unit, on both
 * paths; cs_unit_size caches by key. The values the bit gadgets give with
 * cs_enforce_known equal full evaluation (prover output with
 * cs_prover_known_values off), over every Boolean operation on bits,
 * negations and constants and (but under CUZK_TEST_QUICK) over the 2KiB
 * PoRep partition.
 *
 * Then the PoRep partition (synthetic C1s): 2KiB and 8MiB (2KiB only under
 * CUZK_TEST_QUICK) on one thread and on four, byte for byte; and a Window
 * PoSt 2KiB partition (its sectors are the units) on one thread and three.
 *
 * Reused storage (cs_synthesize_prover_into): one storage over circuits of
 * several shapes and sizes in a row, poisoned before each, equals fresh
 * synthesis byte for byte, and is written in place where it had room.
 */
#include "testutil.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/gadgets/boolean.h"
#include "cuzk/r1cs.h"
#include "r1cs/cs_internal.h"

static bool quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

/* ---- comparing two prover outputs ---- */

static bool same_bits(const cs_bitmap *x, const cs_bitmap *y)
{
    if (x->nbits != y->nbits) return false;
    for (size_t i = 0; i < x->nbits; i++)
        if (cs_bitmap_get(x, i) != cs_bitmap_get(y, i)) return false;
    return true;
}

static void assert_same(const cs_prover *x, const cs_prover *y)
{
    assert_int_equal(x->num_constraints, y->num_constraints);
    assert_int_equal(x->num_inputs, y->num_inputs);
    assert_int_equal(x->num_aux, y->num_aux);
    size_t n = x->num_constraints * sizeof(fr_t);
    assert_true(!memcmp(x->a, y->a, n));
    assert_true(!memcmp(x->b, y->b, n));
    assert_true(!memcmp(x->c, y->c, n));
    assert_true(!memcmp(x->input_assignment, y->input_assignment, x->num_inputs * sizeof(fr_t)));
    assert_true(!memcmp(x->aux_assignment, y->aux_assignment, x->num_aux * sizeof(fr_t)));
    assert_true(same_bits(&x->a_aux_density, &y->a_aux_density));
    assert_true(same_bits(&x->b_input_density, &y->b_input_density));
    assert_true(same_bits(&x->b_aux_density, &y->b_aux_density));
}

/* Synthesizes c on `threads` OpenMP threads. */
static int prove_on(cs_prover *out, cs_circuit c, int threads, cuzk_err *e)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    int rc = cs_synthesize_prover(out, c, NULL, e);
    omp_set_num_threads(saved);
    return rc;
}

/* ---- a circuit of units ---- */

#define BITS 13 /* per unit: odd sizes put window edges inside bitmap words */

typedef struct ucirc {
    size_t units;
    uint64_t seed;
    bool direct;        /* call the units in a loop, not through cs_run_units */
    size_t bad_unit;    /* this unit allocates one aux too many (SIZE_MAX: none) */
    uint64_t fail_mask; /* units that fail with cs_fail */
    /* shared by the units: */
    bool_var b0;
    cs_var x, p;
    fr_t xv, pv, coeff;
} ucirc;

static uint64_t unit_bits(const ucirc *u, size_t k)
{
    uint64_t z = u->seed + 0x9e3779b97f4a7c15 * (k + 1);
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9;
    return z ^ (z >> 29);
}

/* BITS bits XOR b0, their packing as an input, (coeff p + b0) * x = y. */
static int unit(cs_t *cs, size_t k, void *ctx)
{
    const ucirc *u = ctx;
    if (u->fail_mask >> k & 1) return cs_fail(cs, CUZK_EINVAL, "unit %zu refuses", k);
    uint64_t v = unit_bits(u, k), packed = 0;
    cs_lc lc = {0}, one = {0}, a = {0}, y = {0}, x = {0};
    for (int i = 0; i < BITS; i++) {
        bool_var b = bool_xor(cs, bit_alloc(cs, v >> i & 1), u->b0);
        packed |= (uint64_t)b.value << i;
        fr_t c;
        fr_from_u64(&c, (uint64_t)1 << i);
        lc_add_term(&lc, bool_cs_var(b), &c);
    }
    fr_t pv;
    fr_from_u64(&pv, packed);
    lc_add_var(&one, cs_one());
    lc_sub_var(&lc, cs_alloc_input(cs, &pv));
    cs_enforce(cs, &lc, &one, &(cs_lc){0});
    fr_t yv, b0v = u->b0.value ? FR_ONE : FR_ZERO;
    fr_mul(&yv, &u->coeff, &u->pv);
    fr_add(&yv, &yv, &b0v);
    fr_mul(&yv, &yv, &u->xv);
    lc_add_term(&a, u->p, &u->coeff);
    lc_add_var(&a, bool_cs_var(u->b0));
    lc_add_var(&x, u->x);
    lc_add_var(&y, cs_alloc(cs, &yv));
    cs_enforce(cs, &a, &x, &y);
    if (k == u->bad_unit) cs_alloc(cs, &FR_ONE);
    lc_free(&lc), lc_free(&a);
    return cs_status(cs);
}

static int ucirc_synth(cs_t *cs, void *ctx)
{
    ucirc *u = ctx;
    fr_from_u64(&u->xv, u->seed | 1);
    fr_from_u64(&u->pv, u->seed >> 7);
    fr_from_u64(&u->coeff, 0x1234567 + u->seed % 1000);
    u->x = cs_alloc_input(cs, &u->xv);
    u->p = cs_alloc(cs, &u->pv);
    u->b0 = bit_alloc(cs, u->seed & 1);
    if (u->direct) {
        for (size_t k = 0; k < u->units && !cs_status(cs); k++) unit(cs, k, u);
        return cs_status(cs);
    }
    cs_capacity size = {2 * BITS + 2, 1, 2 * BITS + 1};
    return cs_run_units(cs, u->units, &size, unit, u);
}

static ucirc make(cuzk_rng *g, size_t units)
{
    return (ucirc){.units = units, .seed = cuzk_rng_u64(g), .bad_unit = SIZE_MAX};
}

static void units_equal_sequential(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (size_t units = 1; units <= 9; units += 4) {
        ucirc u = make(&g, units);
        cs_prover direct, seq, par;
        u.direct = true;
        assert_int_equal(prove_on(&direct, (cs_circuit){ucirc_synth, &u}, 1, NULL), 0);
        u.direct = false;
        assert_int_equal(prove_on(&seq, (cs_circuit){ucirc_synth, &u}, 1, NULL), 0);
        assert_int_equal(prove_on(&par, (cs_circuit){ucirc_synth, &u}, 3, NULL), 0);
        assert_int_equal(direct.num_inputs, units + 2);
        assert_same(&direct, &seq);
        assert_same(&direct, &par);
        cs_prover_free(&direct), cs_prover_free(&seq), cs_prover_free(&par);
        cs_counts k1, k2;
        assert_int_equal(cs_count(&k1, (cs_circuit){ucirc_synth, &u}, NULL), 0);
        u.direct = true;
        assert_int_equal(cs_count(&k2, (cs_circuit){ucirc_synth, &u}, NULL), 0);
        assert_memory_equal(k1.fingerprint, k2.fingerprint, 32);
    }
}

/* Units of units: each outer unit allocates a bit u, runs SUBS sub-units
 * (SUB_BITS fresh bits XOR u each, the last XOR kept), then XORs the
 * sub-units' results together. */
#define SUBS     3
#define SUB_BITS 5

typedef struct nested {
    ucirc *u;
    bool_var bit, out[SUBS];
    size_t k;
} nested;

static int sub_unit(cs_t *cs, size_t j, void *ctx)
{
    nested *x = ctx;
    uint64_t v = unit_bits(x->u, x->k * SUBS + j);
    for (int i = 0; i < SUB_BITS; i++) x->out[j] = bool_xor(cs, bit_alloc(cs, v >> i & 1), x->bit);
    return cs_status(cs);
}

static int outer_unit(cs_t *cs, size_t k, void *ctx)
{
    nested x = {ctx, bit_alloc(cs, unit_bits(ctx, k) & 1), {{0}}, k};
    if (x.u->direct) {
        for (size_t j = 0; j < SUBS; j++) sub_unit(cs, j, &x);
    } else {
        cs_capacity size = {2 * SUB_BITS, 0, 2 * SUB_BITS};
        cs_run_units(cs, SUBS, &size, sub_unit, &x);
    }
    bool_var r = x.out[0];
    for (size_t j = 1; j < SUBS; j++) r = bool_xor(cs, r, x.out[j]);
    return cs_status(cs);
}

static int nested_synth(cs_t *cs, void *ctx)
{
    ucirc *u = ctx;
    bit_alloc(cs, u->seed & 1);
    if (u->direct) {
        for (size_t k = 0; k < u->units && !cs_status(cs); k++) outer_unit(cs, k, u);
        return cs_status(cs);
    }
    cs_capacity size = {1 + SUBS * 2 * SUB_BITS + SUBS - 1, 0, 1 + SUBS * 2 * SUB_BITS + SUBS - 1};
    return cs_run_units(cs, u->units, &size, outer_unit, u);
}

static void nested_units_equal_sequential(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    ucirc u = make(&g, 5);
    cs_prover direct, seq, par;
    u.direct = true;
    assert_int_equal(prove_on(&direct, (cs_circuit){nested_synth, &u}, 1, NULL), 0);
    u.direct = false;
    assert_int_equal(prove_on(&seq, (cs_circuit){nested_synth, &u}, 1, NULL), 0);
    assert_int_equal(prove_on(&par, (cs_circuit){nested_synth, &u}, 3, NULL), 0);
    assert_same(&direct, &seq);
    assert_same(&direct, &par);
    cs_prover_free(&direct), cs_prover_free(&seq), cs_prover_free(&par);
}

/* Synthesis fails on `threads` threads with a message containing want. */
static void expect_failure(ucirc *u, int threads, const char *want)
{
    cs_prover p;
    cuzk_err e = {0};
    assert_int_equal(prove_on(&p, (cs_circuit){ucirc_synth, u}, threads, &e), CUZK_EINVAL);
    if (!strstr(e.msg, want)) print_message("message: %s\n", e.msg);
    assert_non_null(strstr(e.msg, want));
    assert_null(p.a);
}

static void units_errors(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int threads = 1; threads <= 3; threads += 2) {
        ucirc u = make(&g, 6);
        u.bad_unit = 3;
        expect_failure(&u, threads, threads == 1 ? "unit 3 made" : "past the unit's window");
        u.bad_unit = SIZE_MAX;
        u.fail_mask = 1u << 2 | 1u << 4;
        expect_failure(&u, threads, "unit 2 refuses");
    }
}

/* cs_unit_size inside a circuit: measured, then served from the cache. */
static int measure_synth(cs_t *cs, void *ctx)
{
    ucirc *u = ctx;
    fr_from_u64(&u->xv, 3);
    u->x = cs_alloc_input(cs, &u->xv);
    u->p = cs_alloc(cs, &FR_ONE);
    u->b0 = bit_alloc(cs, true);
    uint64_t key[2] = {0x746573742d756e69, u->seed}; /* "test-uni", seed */
    cs_capacity a, b;
    assert_int_equal(cs_unit_size(cs, &a, key, sizeof(key), unit, 0, u), 0);
    assert_int_equal(a.aux, 2 * BITS + 1);
    assert_int_equal(a.inputs, 1);
    assert_int_equal(a.constraints, 2 * BITS + 2);
    u->fail_mask = 1; /* a second measurement would fail */
    assert_int_equal(cs_unit_size(cs, &b, key, sizeof(key), unit, 0, u), 0);
    assert_memory_equal(&a, &b, sizeof(a));
    assert_int_not_equal(cs_unit_size(cs, &b, NULL, 0, unit, 0, u), 0);
    assert_int_equal(cs_num_aux(cs), 2); /* measuring allocates nothing */
    return 0;
}

static void unit_size_cached(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    ucirc u = make(&g, 1);
    cs_counts k;
    cuzk_err e;
    assert_int_not_equal(cs_count(&k, (cs_circuit){measure_synth, &u}, &e), 0);
    assert_non_null(strstr(e.msg, "measuring unit 0"));
}

/* ---- known values (cs_enforce_known) against full evaluation ---- */

/* Every Boolean operation over a pool of bits, negations and constants. */
static int bool_pool_synth(cs_t *cs, void *ctx)
{
    uint64_t v = *(const uint64_t *)ctx;
    bool_var pool[12];
    for (int i = 0; i < 4; i++) {
        pool[i] = bit_alloc(cs, v >> i & 1);
        pool[4 + i] = bool_not(pool[i]);
    }
    pool[8] = bool_const(false), pool[9] = bool_const(true);
    pool[10] = bit_alloc_conditionally(cs, v >> 4 & 1 && !(v & 1), pool[0]);
    pool[11] = bool_not(pool[10]);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            bool_xor(cs, pool[i], pool[j]);
            bool_and(cs, pool[i], pool[j]);
            bool_or(cs, pool[i], pool[j]);
            bool_enforce_equal(cs, pool[i], pool[i]);
            if (pool[i].value == pool[j].value) bool_enforce_equal(cs, pool[i], pool[j]);
            for (int k = 0; k < 12; k += 5) {
                bool_sha256_ch(cs, pool[i], pool[j], pool[k]);
                bool_sha256_maj(cs, pool[i], pool[j], pool[k]);
            }
        }
    return cs_status(cs);
}

/* c proved with and without the known values: byte for byte equal. */
static void known_equals_evaluated(cs_circuit c, int threads)
{
    cs_prover known, full;
    assert_int_equal(prove_on(&known, c, threads, NULL), 0);
    cs_prover_known_values = false;
    int rc = prove_on(&full, c, threads, NULL);
    cs_prover_known_values = true;
    assert_int_equal(rc, 0);
    assert_same(&known, &full);
    cs_prover_free(&known), cs_prover_free(&full);
}

static void known_values_gadgets(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < 32; v++) known_equals_evaluated((cs_circuit){bool_pool_synth, &v}, 1);
}

/* ---- the PoRep partition ---- */

static void porep_parallel(int registered_proof)
{
    vanilla_c1 c1;
    cuzk_rng g;
    test_rng(&g);
    assert_int_equal(vanilla_c1_synthetic(&c1, registered_proof, &g, NULL), 0);
    porep_circuit pc;
    assert_int_equal(porep_circuit_init(&pc, &c1, 0, NULL), 0);
    cs_prover seq, par;
    assert_int_equal(prove_on(&seq, porep_circuit_get(&pc), 1, NULL), 0);
    assert_int_equal(prove_on(&par, porep_circuit_get(&pc), 4, NULL), 0);
    assert_same(&seq, &par);
    cs_prover_free(&seq), cs_prover_free(&par);
    if (registered_proof == 5 && !quick()) known_equals_evaluated(porep_circuit_get(&pc), 2);
    vanilla_c1_free(&c1);
}

static void porep_2kib_parallel(void **state)
{
    (void)state;
    porep_parallel(5); /* StackedDrg2KiBV1_1 */
}

static void porep_8mib_parallel(void **state)
{
    (void)state;
    if (!quick()) porep_parallel(6); /* StackedDrg8MiBV1_1 */
}

/* Window PoSt 2KiB (2 sectors per partition), synthetic sector proofs. */
static void window_post_parallel(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, 2048, NULL), 0);
    assert_true(s.sectors >= 2);
    vanilla_post_sector v[2];
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(vanilla_post_sector_synthetic(&v[i], VANILLA_POST_WINDOW, 2048, &g, NULL),
                         0);
    post_circuit pc;
    assert_int_equal(post_circuit_init(&pc, VANILLA_POST_WINDOW, &s, v, 2, NULL), 0);
    cs_prover seq, par;
    assert_int_equal(prove_on(&seq, post_circuit_get(&pc), 1, NULL), 0);
    assert_int_equal(prove_on(&par, post_circuit_get(&pc), 3, NULL), 0);
    assert_same(&seq, &par);
    cs_prover_free(&seq), cs_prover_free(&par);
    for (size_t i = 0; i < 2; i++) vanilla_post_sector_free(&v[i]);
}

/* ---- reused storage ---- */

/* Every byte of p's storage at its capacities overwritten: stale values
 * and set density bits that a reuse must not let through. */
static void poison(cs_prover *p)
{
    size_t con = p->cap_constraints * sizeof(fr_t), aux_w = (p->cap_aux + 63) / 64;
    if (p->a) memset(p->a, 0xa5, con), memset(p->b, 0x5a, con), memset(p->c, 0xc3, con);
    if (p->input_assignment) memset(p->input_assignment, 0x3c, p->cap_inputs * sizeof(fr_t));
    if (p->aux_assignment) memset(p->aux_assignment, 0x96, p->cap_aux * sizeof(fr_t));
    if (p->a_aux_density.words) memset(p->a_aux_density.words, 0xff, aux_w * 8);
    if (p->b_aux_density.words) memset(p->b_aux_density.words, 0xff, aux_w * 8);
    if (p->b_input_density.words)
        memset(p->b_input_density.words, 0xff, (p->cap_inputs + 63) / 64 * 8);
}

/* The density words themselves equal, the bits past nbits too. */
static void assert_same_words(const cs_bitmap *x, const cs_bitmap *y)
{
    assert_int_equal(x->nbits, y->nbits);
    assert_true(!memcmp(x->words, y->words, (x->nbits + 63) / 64 * sizeof(uint64_t)));
}

static int into_on(cs_prover *out, cs_circuit c, int threads, cuzk_err *e)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    int rc = cs_synthesize_prover_into(out, c, NULL, e);
    omp_set_num_threads(saved);
    return rc;
}

/*
 * One storage reused over circuits of different shapes and sizes in a row
 * (units on forks and not, synthetic, PoRep 2KiB; larger after smaller and
 * smaller after larger), poisoned before each: every result equals fresh
 * synthesis byte for byte, density words whole. Where the storage had
 * room, it was written in place (same arrays, same capacities); a failing
 * circuit leaves it freed and empty. Trimmed to its counts
 * (cs_prover_trim), it holds the same result and is reused as well.
 */
static void reuse_equals_fresh(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    ucirc u[4] = {make(&g, 5), make(&g, 40), make(&g, 3), make(&g, 60)}; /* fail_mask: < 64 */
    cs_synthetic syn[2] = {{3000, cuzk_rng_u64(&g)}, {600, cuzk_rng_u64(&g)}};
    vanilla_c1 c1;
    porep_circuit pc;
    assert_int_equal(vanilla_c1_synthetic(&c1, 5, &g, NULL), 0);
    assert_int_equal(porep_circuit_init(&pc, &c1, 0, NULL), 0);
    cs_circuit circuits[] = {
        {ucirc_synth, &u[0]}, cs_synthetic_circuit(&syn[0]), {ucirc_synth, &u[1]},
        {ucirc_synth, &u[2]}, porep_circuit_get(&pc),        cs_synthetic_circuit(&syn[1]),
        {ucirc_synth, &u[3]}, {ucirc_synth, &u[0]},
    };
    size_t n = sizeof circuits / sizeof *circuits, in_place = 0, grown = 0;
    cs_prover kept = {0};
    for (size_t i = 0; i < n; i++) {
        int threads = i % 2 ? 3 : 1;
        cs_prover fresh;
        assert_int_equal(prove_on(&fresh, circuits[i], threads, NULL), 0);
        cs_capacity size = {fresh.num_constraints - fresh.num_inputs, fresh.num_inputs,
                            fresh.num_aux};
        bool fits = cs_prover_fits(&kept, &size);
        cs_prover before = kept;
        poison(&kept);
        assert_int_equal(into_on(&kept, circuits[i], threads, NULL), 0);
        assert_same(&kept, &fresh);
        assert_same_words(&kept.a_aux_density, &fresh.a_aux_density);
        assert_same_words(&kept.b_input_density, &fresh.b_input_density);
        assert_same_words(&kept.b_aux_density, &fresh.b_aux_density);
        assert_true(cs_prover_fits(&kept, &size));
        assert_true(cs_prover_storage_bytes(&kept) >= cs_prover_storage_bytes(&before));
        if (fits) {
            in_place++;
            assert_ptr_equal(kept.a, before.a);
            assert_ptr_equal(kept.aux_assignment, before.aux_assignment);
            assert_ptr_equal(kept.b_aux_density.words, before.b_aux_density.words);
            assert_int_equal(kept.cap_constraints, before.cap_constraints);
            assert_int_equal(kept.cap_aux, before.cap_aux);
        } else {
            grown++;
        }
        if (i % 3 == 2) {
            /* trimmed to its counts (as the engine's pool does), unchanged */
            cs_prover_trim(&kept);
            assert_int_equal(kept.cap_constraints, kept.num_constraints);
            assert_int_equal(kept.cap_inputs, kept.num_inputs);
            assert_int_equal(kept.cap_aux, kept.num_aux);
            assert_same(&kept, &fresh);
            assert_same_words(&kept.a_aux_density, &fresh.a_aux_density);
            assert_same_words(&kept.b_input_density, &fresh.b_input_density);
            assert_same_words(&kept.b_aux_density, &fresh.b_aux_density);
            assert_true(cs_prover_fits(&kept, &size));
        }
        cs_prover_free(&fresh);
    }
    assert_true(in_place >= 3 && grown >= 2);
    ucirc bad = make(&g, 6);
    bad.fail_mask = 1u << 4;
    cuzk_err e;
    assert_int_not_equal(into_on(&kept, (cs_circuit){ucirc_synth, &bad}, 3, &e), 0);
    assert_non_null(strstr(e.msg, "unit 4 refuses"));
    assert_null(kept.a);
    assert_int_equal(cs_prover_storage_bytes(&kept), 0);
    vanilla_c1_free(&c1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(units_equal_sequential), cmocka_unit_test(nested_units_equal_sequential),
        cmocka_unit_test(units_errors),           cmocka_unit_test(unit_size_cached),
        cmocka_unit_test(known_values_gadgets),   cmocka_unit_test(porep_2kib_parallel),
        cmocka_unit_test(porep_8mib_parallel),    cmocka_unit_test(window_post_parallel),
        cmocka_unit_test(reuse_equals_fresh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
