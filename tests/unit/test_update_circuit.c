/*
 * test_update_circuit.c - the Empty Sector Update circuit against
 * rust-fil-proofs.
 *
 * Counts (counter backend; constraints without bellperson's appended
 * input constraints, as TestConstraintSystem and BenchCS count them):
 * every size of storage-proofs-update/tests/circuit.rs (1KiB..32KiB;
 * 2KiB = reference/filecoin.md's 1,705,039) with 5 inputs; 16KiB,
 * 32KiB and the 32GiB count (81,049,499) run with CUZK_TEST_LARGE set.
 *
 * Shapes and public inputs: constants.rs' table, k_and_h_select packing
 * and its errors; the native challenges lie in partition k's range and
 * use the digest bits in order.
 */
#include "gadget_check.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/update_circuit.h"

static update_shape shape_of(uint64_t size)
{
    update_shape s;
    cuzk_err e;
    int rc = update_shape_for_size(&s, size, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    return s;
}

static cs_counts count_blank(uint64_t size)
{
    update_shape s = shape_of(size);
    update_circuit uc;
    update_circuit_blank(&uc, &s);
    return count_circuit(update_circuit_get(&uc));
}

/* tests/circuit.rs test_empty_sector_update_circuit_{1,2,4,8,16,32}kib. */
static void test_rust_counts(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        size_t constraints;
    } cases[] = {
        {1024, 1248389}, {2048, 1705039},  {4096, 2165109},
        {8192, 2620359}, {16384, 6300021}, {32768, 6760091},
    };
    /* 16KiB and 32KiB (13M constraints, mostly SHA-256) only when asked. */
    size_t n = quick() ? 2 : getenv("CUZK_TEST_LARGE") ? 6 : 4;
    for (size_t i = 0; i < n; i++) {
        cs_counts k = count_blank(cases[i].size);
        assert_int_equal(k.num_constraints, cases[i].constraints);
        assert_int_equal(k.num_inputs, 1 + UPDATE_PUBLIC_INPUTS);
    }
}

static void test_32gib_count(void **state)
{
    (void)state;
    if (!getenv("CUZK_TEST_LARGE")) {
        print_message("32GiB count skipped (set CUZK_TEST_LARGE)\n");
        return;
    }
    cs_counts k = count_blank(32ull << 30);
    assert_int_equal(k.num_constraints, 81049499);
    assert_int_equal(k.num_inputs, 5);
}

static void test_shapes(void **state)
{
    (void)state;
    update_shape s = shape_of(32ull << 30);
    assert_int_equal(s.partitions, 16);
    assert_int_equal(s.challenges, 86);
    assert_int_equal(s.apex_leafs, 128);
    assert_int_equal(s.hs[3], 10);
    assert_int_equal(por_shape_levels(&s.tree_r), 10);
    s = shape_of(1024);
    assert_int_equal(s.tree_r.base_levels, 1);
    assert_int_equal(s.tree_r.sub_arity, 4);
    assert_int_equal(update_shape_for_size(&s, 3000, NULL), CUZK_EINVAL);
    assert_int_equal(update_shape_for_size(&s, 64ull << 20, NULL), CUZK_EINVAL);
}

static void test_public_inputs(void **state)
{
    (void)state;
    update_shape s = shape_of(32ull << 30);
    update_public pub = {.k = 5, .h = 10};
    pub.comm_r_old.b[0] = 1;
    pub.comm_d_new.b[1] = 2;
    pub.comm_r_new.b[31] = 0x10;
    fr_t in[UPDATE_PUBLIC_INPUTS], want;
    assert_int_equal(update_public_inputs(in, &s, &pub, NULL), 0);
    fr_from_u64(&want, 5 | 8 << 4); /* h = hs[3]: h_select 2^3 above 4 partition bits */
    assert_true(fr_eq(&in[0], &want));
    fr_from_u64(&want, 1);
    assert_true(fr_eq(&in[1], &want));
    fr_from_u64(&want, 512);
    assert_true(fr_eq(&in[2], &want));
    pub.h = 6;
    assert_int_equal(update_public_inputs(in, &s, &pub, NULL), CUZK_EINVAL);
    pub.h = 10, pub.k = 16;
    assert_int_equal(update_public_inputs(in, &s, &pub, NULL), CUZK_EINVAL);
    pub.k = 0;
    memset(pub.comm_r_new.b, 0xff, 32);
    assert_int_equal(update_public_inputs(in, &s, &pub, NULL), CUZK_ENONCANONICAL);
}

static void test_challenges(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    update_shape s = shape_of(32ull << 30);
    fr_t comm_r_new;
    fr_random(&comm_r_new, &g);
    uint32_t c[86];
    for (uint64_t k = 0; k < s.partitions; k += 5) {
        update_challenges(c, &s, &comm_r_new, k);
        for (unsigned i = 0; i < s.challenges; i++) assert_int_equal(c[i] >> 26, k);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rust_counts), cmocka_unit_test(test_32gib_count),
        cmocka_unit_test(test_shapes),      cmocka_unit_test(test_public_inputs),
        cmocka_unit_test(test_challenges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
