/*
 * test_post_circuit.c - the Fallback PoSt circuit against rust-fil-proofs.
 *
 * Counts (counter backend; constraints without bellperson's appended
 * input constraints, as TestConstraintSystem and BenchCS count them):
 * reference/filecoin.md's Winning PoSt 2KiB and 32GiB (90,750 / 370,590,
 * 133 inputs), every shape of storage-proofs-post/tests/fallback_circuit.rs
 * (64 leaves per base tree, 5 challenges) and its 32GiB BenchCS shape of
 * 5 sectors x 10 challenges (266,665); with CUZK_TEST_LARGE, Window PoSt
 * 32GiB (125,279,217 constraints, 25,840 inputs).
 *
 * Witness (Winning 2KiB, and Window on the 8-4-2 test shape with a padded
 * partition): sectors over random tree-R leaves and their vanilla proofs
 * from the library's generator (gen.h: fc_gen_post_sector), which derives
 * the challenges on its own; every constraint holds, the circuit's public
 * inputs equal post_public_inputs' (derived independently), and a wrong
 * leaf breaks it.
 */
#include "gadget_check.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/groth16.h"
#include "cuzk/poseidon.h"

static post_shape make_shape(uint64_t nodes, unsigned base, unsigned sub, unsigned top,
                             size_t sectors, size_t challenges)
{
    post_shape s;
    cuzk_err e;
    int rc = post_shape_make(&s, nodes, base, sub, top, sectors, challenges, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    return s;
}

static cs_counts count_blank(const post_shape *s)
{
    post_circuit pc;
    post_circuit_blank(&pc, s);
    return count_circuit(post_circuit_get(&pc));
}

/* ---- native sectors ---- */

static void random_bytes(uint8_t out[32], cuzk_rng *g)
{
    fr_t r;
    fr_random(&r, g);
    fr_to_bytes_le(out, &r);
}

/* A sector over random tree-R leaves and its vanilla proof, made by the
 * library's generator (gen.h) for the sector at `index` of the set. */
static void sector_make(vanilla_post_sector *v, int kind, const post_shape *s,
                        const uint8_t rnd[32], uint64_t id, uint64_t index, cuzk_rng *g)
{
    fr_t *leaves = malloc(s->nodes * sizeof(fr_t));
    assert_non_null(leaves);
    for (size_t i = 0; i < s->nodes; i++) fr_random(&leaves[i], g);
    fc_ptree t;
    assert_int_equal(fc_ptree_build(&t, &s->tree, leaves, s->nodes, "tree-r", NULL, NULL, NULL), 0);
    fc_post_replica r = {.sector_id = id, .tree_r = &t};
    random_bytes(r.comm_c.b, g);
    cuzk_err e;
    int rc = fc_gen_post_sector(v, kind, s, FC_API_V1_1, rnd, &r, index, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    fc_ptree_free(&t);
    free(leaves);
}

/* Proves pc, asserts every constraint holds and the inputs are want[],
 * and that its R1CS is the blank circuit's (same fingerprint). */
static void prove_with_inputs(post_circuit *pc, const fr_t *want)
{
    post_circuit blank;
    post_circuit_blank(&blank, &pc->shape);
    cs_counts kb = count_circuit(post_circuit_get(&blank)),
              kv = count_circuit(post_circuit_get(pc));
    assert_memory_equal(kb.fingerprint, kv.fingerprint, 32);
    cs_prover p;
    prove_satisfied(&p, post_circuit_get(pc));
    size_t n = post_num_public_inputs(&pc->shape);
    assert_int_equal(p.num_inputs, n + 1);
    for (size_t i = 0; i < n; i++) assert_true(fr_eq(&p.input_assignment[1 + i], &want[i]));
    cs_prover_free(&p);
}

static size_t unsatisfied(post_circuit *pc)
{
    cs_prover p;
    assert_int_equal(cs_synthesize_prover(&p, post_circuit_get(pc), NULL, NULL), 0);
    size_t bad = count_unsatisfied(p.num_constraints, p.a, p.b, p.c);
    cs_prover_free(&p);
    return bad;
}

/* Winning PoSt 2KiB: one sector, its 66 proofs at the leaves
 * generate_winning_post_with_vanilla's public inputs challenge. */
static void test_winning_witness(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINNING, 2048, NULL), 0);
    vanilla_post_sector v;
    uint8_t rnd[32];
    random_bytes(rnd, &g);
    sector_make(&v, VANILLA_POST_WINNING, &s, rnd, 1234, 0, &g);
    post_public_sector pub = {v.sector_id, v.comm_r};
    fr_t *want = malloc(post_num_public_inputs(&s) * sizeof(fr_t));
    assert_non_null(want);
    assert_int_equal(post_winning_public_inputs(want, &s, FC_API_V1_1, rnd, &pub, NULL), 0);
    post_circuit pc;
    cuzk_err e;
    int rc = post_circuit_init(&pc, VANILLA_POST_WINNING, &s, &v, 1, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    prove_with_inputs(&pc, want);
    /* The same sector through its bincode blob, as Curio sends it. */
    void *blob;
    size_t len;
    vanilla_post_sector parsed;
    assert_int_equal(vanilla_post_sector_encode(&blob, &len, &v, NULL), 0);
    assert_int_equal(vanilla_post_sector_parse(&parsed, VANILLA_POST_WINNING, 2048, blob, len, &e),
                     0);
    post_circuit from_blob;
    assert_int_equal(post_circuit_init(&from_blob, VANILLA_POST_WINNING, &s, &parsed, 1, &e), 0);
    prove_with_inputs(&from_blob, want);
    vanilla_post_sector_free(&parsed);
    free(blob);
    v.proofs[7].leaf.b[0] ^= 1; /* a wrong leaf */
    assert_true(unsatisfied(&pc) > 0);
    v.proofs[7].leaf.b[0] ^= 1;
    v.comm_c.b[3] ^= 1; /* comm_r no longer H(comm_c, comm_r_last) */
    assert_true(unsatisfied(&pc) > 0);
    free(want);
    vanilla_post_sector_free(&v);
}

/* Window PoSt on fallback_circuit.rs' 8-4-2 shape: 5 sectors in
 * partitions of 3, the second partition padded with its last sector. */
static void test_window_witness(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    post_shape s = make_shape(512, 8, 4, 2, 3, 5);
    enum { TOTAL = 5 };
    vanilla_post_sector v[TOTAL];
    post_public_sector pub[TOTAL];
    uint8_t rnd[32];
    random_bytes(rnd, &g);
    for (size_t i = 0; i < TOTAL; i++) {
        sector_make(&v[i], VANILLA_POST_WINDOW, &s, rnd, 100 + 7 * i, i, &g);
        pub[i] = (post_public_sector){v[i].sector_id, v[i].comm_r};
    }
    fr_t want[3 * 6], v2[3 * 6];
    /* FC_API_V1_2: the challenge index no longer depends on the sector. */
    assert_int_equal(post_public_inputs(v2, &s, FC_API_V1_2, rnd, pub, TOTAL, 0, NULL), 0);
    for (size_t i = 0; i < 3; i++)
        for (size_t n = 0; n < s.challenges; n++) {
            fr_t c;
            fr_from_u64(&c, post_leaf_challenge(rnd, pub[i].id, n, s.nodes));
            assert_true(fr_eq(&v2[i * 6 + 1 + n], &c));
        }
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(post_public_inputs(want, &s, FC_API_V1_1, rnd, pub, TOTAL, k, NULL), 0);
        post_circuit pc;
        size_t n = k ? TOTAL - 3 : 3;
        assert_int_equal(post_circuit_init(&pc, VANILLA_POST_WINDOW, &s, &v[3 * k], n, NULL), 0);
        prove_with_inputs(&pc, want);
    }
    assert_int_equal(post_public_inputs(want, &s, FC_API_V1_1, rnd, pub, TOTAL, 2, NULL),
                     CUZK_EINVAL);
    post_circuit pc;
    assert_int_equal(post_circuit_init(&pc, VANILLA_POST_WINDOW, &s, v, 4, NULL), CUZK_EINVAL);
    assert_int_equal(post_circuit_init(&pc, VANILLA_POST_WINNING, &s, v, 1, NULL), CUZK_EINVAL);
    for (size_t i = 0; i < TOTAL; i++) vanilla_post_sector_free(&v[i]);
}

/* Winning PoSt 2KiB end to end with a development setup: the proof of a
 * native sector verifies against post_winning_public_inputs and fails for
 * another randomness. Skipped under CUZK_TEST_QUICK (the sanitizer build). */
static void test_winning_groth16(void **state)
{
    (void)state;
    if (quick()) return;
    cuzk_rng g;
    test_rng(&g);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINNING, 2048, NULL), 0);
    vanilla_post_sector v;
    uint8_t rnd[32];
    random_bytes(rnd, &g);
    sector_make(&v, VANILLA_POST_WINNING, &s, rnd, 77, 0, &g);
    post_circuit blank, pc;
    post_circuit_blank(&blank, &s);
    assert_int_equal(post_circuit_init(&pc, VANILLA_POST_WINNING, &s, &v, 1, NULL), 0);
    groth16_params pk;
    groth16_pvk pvk;
    cs_prover w;
    groth16_proof proof;
    cuzk_err e;
    assert_int_equal(groth16_setup_dev(&pk, post_circuit_get(&blank), 7, &e), 0);
    assert_int_equal(groth16_prepare_vk(&pvk, &pk.vk, &e), 0);
    assert_int_equal(cs_synthesize_prover(&w, post_circuit_get(&pc), NULL, &e), 0);
    assert_int_equal(groth16_prove(&proof, &pk, &w, 1, NULL, NULL, &e), 0);
    size_t n = post_num_public_inputs(&s);
    fr_t *in = malloc(n * sizeof(fr_t));
    assert_non_null(in);
    post_public_sector pub = {v.sector_id, v.comm_r};
    assert_int_equal(post_winning_public_inputs(in, &s, FC_API_V1_1, rnd, &pub, NULL), 0);
    assert_int_equal(groth16_verify(&pvk, &proof, in, n, &e), 0);
    rnd[0] ^= 1;
    assert_int_equal(post_winning_public_inputs(in, &s, FC_API_V1_1, rnd, &pub, NULL), 0);
    assert_int_equal(groth16_verify(&pvk, &proof, in, n, &e), CUZK_EVERIFY);
    free(in);
    cs_prover_free(&w);
    groth16_pvk_free(&pvk);
    groth16_params_free(&pk);
    vanilla_post_sector_free(&v);
}

static void test_winning_counts(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        size_t constraints;
    } cases[] = {{2048, 90750}, {32ull << 30, 370590}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        post_shape s;
        assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINNING, cases[i].size, NULL), 0);
        assert_int_equal(s.sectors, 66);
        assert_int_equal(s.challenges, 1);
        cs_counts k = count_blank(&s);
        assert_int_equal(k.num_constraints, cases[i].constraints);
        assert_int_equal(k.num_inputs, 133);
        assert_int_equal(post_num_public_inputs(&s) + 1, 133);
    }
}

/* fallback_circuit.rs: (sector_count, arities, inputs, constraints). */
static void test_rust_shapes(void **state)
{
    (void)state;
    static const struct {
        size_t sectors;
        unsigned sub, top;
        size_t inputs, constraints;
    } cases[] = {
        {3, 0, 0, 19, 16869}, /* single_partition_base_8 (and smaller / two partitions) */
        {3, 4, 0, 19, 22674}, /* single_partition_sub_8_4 */
        {3, 4, 2, 19, 27384}, /* single_partition_top_8_4_2 */
        {2, 0, 0, 13, 11246}, /* two_partitions_base_8 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t leaves =
            64 * (cases[i].sub ? cases[i].sub : 1) * (cases[i].top ? cases[i].top : 1);
        post_shape s = make_shape(leaves, 8, cases[i].sub, cases[i].top, cases[i].sectors, 5);
        cs_counts k = count_blank(&s);
        assert_int_equal(k.num_inputs, cases[i].inputs);
        assert_int_equal(k.num_constraints, cases[i].constraints);
    }
    /* test_fallback_post_circuit_poseidon_base_8_bench_cs: 32GiB, 8-0-0. */
    post_shape s = make_shape(1ull << 30, 8, 0, 0, 5, 10);
    assert_int_equal(count_blank(&s).num_constraints, 266665);
}

/* Window PoSt 32GiB (125M constraints) only when asked. */
static void test_window_32gib_count(void **state)
{
    (void)state;
    if (!getenv("CUZK_TEST_LARGE")) {
        print_message("Window PoSt 32GiB count skipped (set CUZK_TEST_LARGE)\n");
        return;
    }
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, 32ull << 30, NULL), 0);
    cs_counts k = count_blank(&s);
    assert_int_equal(k.num_constraints, 125279217);
    assert_int_equal(k.num_inputs, 25840);
}

static void test_shape_errors(void **state)
{
    (void)state;
    post_shape s;
    assert_int_equal(post_shape_make(&s, 100, 8, 0, 0, 1, 1, NULL), CUZK_EINVAL);
    assert_int_equal(post_shape_make(&s, 128, 8, 0, 0, 1, 1, NULL), CUZK_EINVAL);
    assert_int_equal(post_shape_make(&s, 64, 8, 0, 2, 1, 1, NULL), CUZK_EINVAL);
    assert_int_equal(post_shape_make(&s, 64, 8, 0, 0, 0, 1, NULL), CUZK_EINVAL);
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, 4096, NULL), CUZK_EINVAL);
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, 32ull << 30, NULL), 0);
    assert_int_equal(s.sectors, 2349);
    assert_int_equal(post_num_public_inputs(&s) + 1, 25840);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_winning_counts),     cmocka_unit_test(test_rust_shapes),
        cmocka_unit_test(test_window_32gib_count), cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_winning_witness),    cmocka_unit_test(test_window_witness),
        cmocka_unit_test(test_winning_groth16),
    };
    /* CUZK_TEST_FILTER=pattern runs only the matching tests (e.g. one large one). */
    if (getenv("CUZK_TEST_FILTER")) cmocka_set_test_filter(getenv("CUZK_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
