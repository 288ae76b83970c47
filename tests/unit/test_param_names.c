/*
 * test_param_names.c - official parameter file names and circuit ids:
 * every circuit id round trips, names follow the v28 pattern with the tree
 * arities of the size, and the 2KiB / 32GiB names are the ones Lotus and
 * Curio's cuzk use.
 */
#include "testutil.h"

#include <string.h>

#include "cuzk/filecoin/param_names.h"

static void ids_round_trip(void **state)
{
    (void)state;
    const uint64_t sizes[] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    const char *arity[] = {"-8-0-0-", "-8-0-0-", "-8-0-0-", "-8-8-0-", "-8-8-2-"};
    for (int k = 0; k < FC_CIRCUIT_KINDS; k++)
        for (int i = 0; i < 5; i++) {
            const char *id = fc_circuit_id((fc_circuit_kind)k, sizes[i]);
            fc_circuit_kind kind;
            uint64_t size;
            assert_non_null(id);
            assert_int_equal(fc_circuit_parse(id, &kind, &size), 0);
            assert_int_equal(kind, k);
            assert_true(size == sizes[i]);
            const char *name = fc_param_name((fc_circuit_kind)k, sizes[i]);
            assert_non_null(name);
            assert_true(strncmp(name, "v28-", 4) == 0);
            assert_non_null(strstr(name, arity[i]));
            assert_int_equal(strlen(strrchr(name, '-') + 1), 64); /* the hash */
        }
    fc_circuit_kind kind;
    uint64_t size;
    assert_int_equal(fc_circuit_parse("porep-1k", &kind, &size), -1);
    assert_int_equal(fc_circuit_parse("porep", &kind, &size), -1);
    assert_null(fc_param_name(FC_CIRCUIT_POREP, 4096));
    assert_null(fc_circuit_id(FC_CIRCUIT_KINDS, 2048));
}

static void known_names(void **state)
{
    (void)state;
    assert_string_equal(
        fc_param_name(FC_CIRCUIT_POREP, 2048),
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-"
        "sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f");
    assert_string_equal(fc_param_name(FC_CIRCUIT_WINNING_POST, 32ull << 30),
                        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
                        "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e");
    assert_string_equal(fc_circuit_id(FC_CIRCUIT_WINDOW_POST, 32ull << 30), "wpost-32g");
    assert_string_equal(fc_circuit_id(FC_CIRCUIT_UPDATE, 64ull << 30), "snap-64g");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(ids_round_trip),
                                       cmocka_unit_test(known_names)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
