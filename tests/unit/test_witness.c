/*
 * test_witness.c - the witness-only backend (cs_synthesize_witness,
 * cs_synthesize_witness_into) against the prover backend.
 *
 * On the witness backend the gadgets build no combination and only count
 * their constraints (cs_needs_constraints false, cs_enforce_skip), so each
 * circuit here is synthesized by the prover (the reference) and by the
 * witness path, fresh and into a kept storage filled with junk (an earlier
 * result of another circuit, larger or smaller), on one thread and on
 * three (units on forks): num_inputs, num_aux, num_constraints and both
 * assignments must equal the prover's byte for byte, and the counts the
 * counter's (cs_count, an independent backend), so a gadget that skipped
 * an allocation or miscounted a constraint fails here. The kept storage's
 * a, b, c, cap_constraints and density bitmaps must come back untouched.
 *
 * Circuits: every 2KiB PoRep kind (V1, V1_1, synthetic, non-interactive;
 * synthetic C1s; V1 and synthetic not under CUZK_TEST_QUICK), Winning and
 * Window PoSt 2KiB, SnapDeals 2KiB (generated, so its encoding checks
 * hold; it also walks the Poseidon circuit for its custom-tag hashes),
 * the synthetic circuit (whose combinations are still built and thrown
 * away), and the gadgets one by one: SHA-256 over constant, allocated and
 * mixed inputs, UInt32 addmany with constants and negations through
 * several MultiEq flushes, multieq_enforce_equal, Poseidon of every tree
 * arity (replayed and walked) and hash_md, Num's bit decompositions,
 * select / insert and multipack. Errors: cs_enforce_skip and
 * cs_alloc_bits on a backend that needs constraints (and more than 64
 * bits), a unit that counts past its window, and a
 * failing circuit through cs_synthesize_witness_into (assignments freed,
 * counts zero).
 */
#include "testutil.h"
#include "update_gen.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/update_circuit.h"
#include "cuzk/gadgets/multipack.h"
#include "cuzk/gadgets/num.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/gadgets/select.h"
#include "cuzk/gadgets/sha256.h"
#include "cuzk/gadgets/uint32.h"
#include "cuzk/poseidon.h"
#include "cuzk/r1cs.h"

/* ---- the comparison ---- */

/* Storage kept over all circuits, as the engine's pool keeps it. */
static cs_prover kept;

/* What the witness path must leave alone in kept: stand-ins for the
 * matrices' a, b, c and densities, with a known content. */
#define GUARD_WORDS 8
static uint64_t guard[6][GUARD_WORDS];

static void guard_set(cs_prover *p)
{
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < GUARD_WORDS; j++) guard[i][j] = 0x0123456789abcdefu * (i + 1) + j;
    p->a = (fr_t *)guard[0], p->b = (fr_t *)guard[1], p->c = (fr_t *)guard[2];
    p->cap_constraints = GUARD_WORDS / 4;
    p->a_aux_density = (cs_bitmap){guard[3], 17};
    p->b_input_density = (cs_bitmap){guard[4], 3};
    p->b_aux_density = (cs_bitmap){guard[5], 17};
}

static void guard_check(const cs_prover *p)
{
    assert_ptr_equal(p->a, guard[0]);
    assert_ptr_equal(p->b, guard[1]);
    assert_ptr_equal(p->c, guard[2]);
    assert_int_equal(p->cap_constraints, GUARD_WORDS / 4);
    assert_ptr_equal(p->a_aux_density.words, guard[3]);
    assert_int_equal(p->a_aux_density.nbits, 17);
    assert_ptr_equal(p->b_input_density.words, guard[4]);
    assert_ptr_equal(p->b_aux_density.words, guard[5]);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < GUARD_WORDS; j++)
            assert_true(guard[i][j] == 0x0123456789abcdefu * (i + 1) + j);
}

/* kept's own arrays (the assignments) and nothing of the guard. */
static void kept_free(void)
{
    free(kept.input_assignment), free(kept.aux_assignment);
    memset(&kept, 0, sizeof(kept));
}

static void junk(cs_prover *p)
{
    if (p->input_assignment) memset(p->input_assignment, 0x3c, p->cap_inputs * sizeof(fr_t));
    if (p->aux_assignment) memset(p->aux_assignment, 0x96, p->cap_aux * sizeof(fr_t));
}

static void assert_assignments(const fr_t *in, const fr_t *aux, const cs_prover *want)
{
    assert_memory_equal(in, want->input_assignment, want->num_inputs * sizeof(fr_t));
    assert_memory_equal(aux, want->aux_assignment, want->num_aux * sizeof(fr_t));
}

static void with_threads(int threads)
{
    omp_set_num_threads(threads);
}

/* The witness of c, fresh and into kept, on 1 and 3 threads, equals the
 * prover's; the counts equal the counter's. */
static void check_circuit(cs_circuit c)
{
    int saved = omp_get_max_threads();
    cuzk_err e = {0};
    cs_prover want;
    with_threads(1);
    if (cs_synthesize_prover(&want, c, NULL, &e)) fail_msg("prover: %s", e.msg);
    cs_counts k;
    if (cs_count(&k, c, &e)) fail_msg("counter: %s", e.msg);
    assert_int_equal(k.num_constraints, want.num_constraints);
    assert_int_equal(k.num_inputs, want.num_inputs);
    assert_int_equal(k.num_aux, want.num_aux);
    for (int threads = 1; threads <= 3; threads += 2) {
        with_threads(threads);
        cs_witness w;
        if (cs_synthesize_witness(&w, c, &e)) fail_msg("witness, %d thr: %s", threads, e.msg);
        assert_int_equal(w.num_inputs, want.num_inputs);
        assert_int_equal(w.num_aux, want.num_aux);
        assert_assignments(w.input_assignment, w.aux_assignment, &want);
        cs_witness_free(&w);

        cs_prover before = kept;
        bool fits = kept.cap_inputs >= want.num_inputs && kept.cap_aux >= want.num_aux;
        junk(&kept);
        guard_set(&kept);
        if (cs_synthesize_witness_into(&kept, c, NULL, &e))
            fail_msg("witness into, %d thr: %s", threads, e.msg);
        guard_check(&kept);
        assert_int_equal(kept.num_constraints, want.num_constraints);
        assert_int_equal(kept.num_inputs, want.num_inputs);
        assert_int_equal(kept.num_aux, want.num_aux);
        assert_true(kept.cap_inputs >= kept.num_inputs && kept.cap_aux >= kept.num_aux);
        assert_assignments(kept.input_assignment, kept.aux_assignment, &want);
        if (fits) { /* written in place */
            assert_ptr_equal(kept.aux_assignment, before.aux_assignment);
            assert_int_equal(kept.cap_aux, before.cap_aux);
        }
    }
    /* with a hint of the exact size, into storage too small for it */
    kept_free();
    cs_capacity hint = {want.num_constraints - want.num_inputs, want.num_inputs, want.num_aux};
    if (cs_synthesize_witness_into(&kept, c, &hint, &e)) fail_msg("witness hint: %s", e.msg);
    assert_int_equal(kept.cap_aux, want.num_aux);
    assert_assignments(kept.input_assignment, kept.aux_assignment, &want);
    cs_prover_free(&want);
    with_threads(saved);
}

/* ---- Filecoin circuits at 2KiB ---- */

static void porep_kinds(void **state)
{
    (void)state;
    /* 2KiB V1_1, non-interactive, V1, synthetic (the last two are V1_1's
     * circuit: not under CUZK_TEST_QUICK) */
    static const int ids[] = {5, 15, 0, 10};
    size_t n = getenv("CUZK_TEST_QUICK") ? 2 : sizeof ids / sizeof *ids;
    for (size_t i = 0; i < n; i++) {
        cuzk_rng g;
        test_rng(&g);
        vanilla_c1 c1;
        cuzk_err e;
        if (vanilla_c1_synthetic(&c1, ids[i], &g, &e)) fail_msg("C1 %d: %s", ids[i], e.msg);
        porep_circuit pc;
        if (porep_circuit_init(&pc, &c1, 0, &e)) fail_msg("porep %d: %s", ids[i], e.msg);
        check_circuit(porep_circuit_get(&pc));
        vanilla_c1_free(&c1);
    }
}

static void post_kind(int kind, size_t sectors)
{
    cuzk_rng g;
    test_rng(&g);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, kind, 2048, NULL), 0);
    assert_true(s.sectors >= sectors);
    vanilla_post_sector v[2];
    for (size_t i = 0; i < sectors; i++)
        assert_int_equal(vanilla_post_sector_synthetic(&v[i], kind, 2048, &g, NULL), 0);
    post_circuit pc;
    cuzk_err e;
    if (post_circuit_init(&pc, kind, &s, v, sectors, &e)) fail_msg("post: %s", e.msg);
    check_circuit(post_circuit_get(&pc));
    for (size_t i = 0; i < sectors; i++) vanilla_post_sector_free(&v[i]);
}

static void post_winning_window(void **state)
{
    (void)state;
    post_kind(VANILLA_POST_WINNING, 1);
    post_kind(VANILLA_POST_WINDOW, 2);
}

/* A 2KiB SnapDeals partition generated from random replica and data
 * (fc_gen_update), so the circuit's encoding checks hold. */
static void snapdeals(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    update_gen t;
    check_circuit(update_gen_2kib(&t, &g));
    update_gen_free(&t);
}

static void synthetic(void **state)
{
    (void)state;
    cs_synthetic syn = {5000, 77};
    check_circuit(cs_synthetic_circuit(&syn));
}

/* ---- gadgets ---- */

/* Bit i of a 1,000-bit message: constant, allocated, or by runs of both. */
enum { ALL_CONST, ALL_ALLOC, MIXED };

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9;
    return z ^ (z >> 29);
}

static int sha_synth(cs_t *cs, void *ctx)
{
    int mode = *(const int *)ctx;
    bool_var msg[1000], out[256];
    for (size_t i = 0; i < 1000; i++) {
        bool v = mix(i + 1) & 1, alloc = mode == ALL_ALLOC || (mode == MIXED && (i / 24) % 3 != 1);
        msg[i] = alloc ? bit_alloc(cs, v) : bool_const(v);
        if (alloc && mode == MIXED && i % 7 == 3) msg[i] = bool_not(msg[i]);
    }
    sha256_gadget(cs, out, msg, 1000);
    bool_var first[512];
    memcpy(first, msg, sizeof(first));
    sha256_gadget_block(cs, out, first);
    return cs_status(cs);
}

static void sha256_inputs(void **state)
{
    (void)state;
    for (int mode = ALL_CONST; mode <= MIXED; mode++) check_circuit((cs_circuit){sha_synth, &mode});
}

/* Additions of 2 .. 10 operands of allocated, negated and constant bits
 * (all-constant ones among them), far past one MultiEq batch, and generic
 * equalities in the same MultiEq. */
static int addmany_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    multieq me;
    multieq_init(&me, cs);
    u32_var ops[U32_ADDMANY_MAX], r;
    for (size_t round = 0; round < 40 && !cs_status(cs); round++) {
        size_t n = 2 + round % (U32_ADDMANY_MAX - 1);
        for (size_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)mix(round * 16 + i);
            int how = (int)((round + i) % 4);
            if (how == 0 || round % 9 == 4)
                u32_const(&ops[i], v);
            else
                u32_alloc(cs, &ops[i], v);
            if (how == 2) ops[i].bits[5] = bool_not(ops[i].bits[5]), ops[i].value ^= 32;
            if (how == 3) ops[i].bits[0] = bool_const(1), ops[i].value |= 1;
        }
        u32_addmany(&me, &r, ops, n);
        if (round % 5 == 0) {
            cs_lc lhs = {0}, rhs = {0};
            num_var a = num_alloc(cs, &FR_ONE);
            lc_add_var(&lhs, a.var);
            lc_add_var(&rhs, cs_one());
            multieq_enforce_equal(&me, 3, &lhs, &rhs);
            lc_free(&lhs), lc_free(&rhs);
        }
    }
    assert_true(me.ops >= 5);
    return multieq_finish(&me);
}

static void addmany_multieq(void **state)
{
    (void)state;
    check_circuit((cs_circuit){addmany_synth, NULL});
}

static int poseidon_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    static const unsigned arities[] = {2, 4, 8, 11, 16, 24, 36};
    num_var in[40];
    for (size_t i = 0; i < 40; i++) {
        fr_t v;
        fr_from_u64(&v, mix(i + 100));
        in[i] = num_alloc(cs, &v);
    }
    for (size_t i = 0; i < sizeof arities / sizeof *arities; i++) {
        const poseidon_constants *c = poseidon_std(arities[i]);
        poseidon_gadget_hash(cs, c, in);
        poseidon_gadget_hash_walk(cs, c, in + 1);
    }
    poseidon_gadget_hash_md(cs, in, 40);
    return cs_status(cs);
}

static void poseidon_arities(void **state)
{
    (void)state;
    check_circuit((cs_circuit){poseidon_synth, NULL});
}

/* Num (decompositions, arithmetic, reverse), select / insert, multipack. */
static int num_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    num_var x[16];
    bool_var bits[FR_NUM_BITS], path[4];
    for (int i = 0; i < 16; i++) {
        fr_t v;
        fr_from_u64(&v, mix((uint64_t)i + 7));
        x[i] = num_alloc(cs, &v);
    }
    num_to_bits_le(cs, bits, &x[0]);
    num_to_bits_le_strict(cs, bits, &x[1]);
    multipack_pack_into_inputs(cs, bits, FR_NUM_BITS);
    multipack_pack_bits(cs, bits + 3, 200);
    num_inputize(cs, &x[2]);
    num_var s = num_add(cs, &x[3], &x[4]), m = num_mul(cs, &s, &x[5]);
    num_var q = num_square(cs, &m), d = num_sub(cs, &q, &x[6]);
    num_assert_nonzero(cs, &d);
    num_var c, e, out[16];
    for (int i = 0; i < 4; i++) path[i] = bit_alloc(cs, (i * 5 + 1) & 1);
    num_conditionally_reverse(cs, &c, &e, &x[7], &x[8], path[0]);
    num_conditionally_reverse(cs, &c, &e, &x[7], &x[8], bool_not(path[1]));
    num_select(cs, x, path, 4);
    for (size_t nbits = 1; nbits <= 4; nbits++) num_insert(cs, out, &x[9], path, nbits, x + 1);
    num_enforce_equal(cs, &c, &c);
    return cs_status(cs);
}

static void num_select_multipack(void **state)
{
    (void)state;
    check_circuit((cs_circuit){num_synth, NULL});
}

/* ---- errors ---- */

static int skip_one(cs_t *cs, void *ctx)
{
    (void)ctx;
    return cs_enforce_skip(cs, 1);
}

static int alloc_bits(cs_t *cs, void *ctx)
{
    cs_alloc_bits(cs, 5, *(const unsigned *)ctx, 3);
    return cs_status(cs);
}

/* Units of 3 bits; unit 2 counts one constraint too many. */
static int unit_bits(cs_t *cs, size_t k, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 3; i++) bit_alloc(cs, (k >> i) & 1);
    if (k == 2) cs_enforce_skip(cs, 1);
    return cs_status(cs);
}

static int units_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    cs_capacity size = {3, 0, 3};
    return cs_run_units(cs, 4, &size, unit_bits, NULL);
}

static int failing_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    bit_alloc(cs, true);
    return cs_fail(cs, CUZK_EINVAL, "test circuit refuses at aux %zu", cs_num_aux(cs));
}

static void errors(void **state)
{
    (void)state;
    int saved = omp_get_max_threads();
    cuzk_err e = {0};
    cs_prover p;
    assert_int_equal(cs_synthesize_prover(&p, (cs_circuit){skip_one, NULL}, NULL, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "skipped on a backend that needs constraints"));
    unsigned n = 3;
    assert_int_equal(cs_synthesize_prover(&p, (cs_circuit){alloc_bits, &n}, NULL, &e), CUZK_EINVAL);
    assert_non_null(
        strstr(e.msg, "aux variable 0: 3 bits with 3 constraints counted on a backend"));
    n = 65;
    cs_witness w;
    assert_int_equal(cs_synthesize_witness(&w, (cs_circuit){alloc_bits, &n}, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "65 bits with 3 constraints counted (at most 64)"));
    for (int threads = 1; threads <= 2; threads++) {
        with_threads(threads);
        cs_witness w;
        assert_int_equal(cs_synthesize_witness(&w, (cs_circuit){units_synth, NULL}, &e),
                         CUZK_EINVAL);
        if (threads == 1)
            assert_non_null(strstr(e.msg, "unit 2 made 0 inputs, 3 aux, 4 constraints"));
        else
            assert_non_null(strstr(e.msg, "past the unit's window"));
        assert_null(w.aux_assignment);
    }
    with_threads(saved);
    guard_set(&kept);
    assert_int_equal(cs_synthesize_witness_into(&kept, (cs_circuit){failing_synth, NULL}, NULL, &e),
                     CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "test circuit refuses at aux 1"));
    guard_check(&kept);
    assert_null(kept.input_assignment);
    assert_null(kept.aux_assignment);
    assert_int_equal(kept.cap_inputs + kept.cap_aux, 0);
    assert_int_equal(kept.num_constraints + kept.num_inputs + kept.num_aux, 0);
    kept_free();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synthetic),
        cmocka_unit_test(sha256_inputs),
        cmocka_unit_test(addmany_multieq),
        cmocka_unit_test(poseidon_arities),
        cmocka_unit_test(num_select_multipack),
        cmocka_unit_test(porep_kinds),
        cmocka_unit_test(post_winning_window),
        cmocka_unit_test(snapdeals),
        cmocka_unit_test(errors),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    kept_free();
    return rc;
}
