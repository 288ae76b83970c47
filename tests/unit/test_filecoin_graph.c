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
#include <unistd.h>

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
    uint8_t porep_id[32];
    fc_porep_id(porep_id, id);
    assert_string_equal(fc_parent_cache_known_digest(g.nodes, porep_id), digest);
    /* The builders' tabulated Feistel rounds against hashing every round. */
    for (uint32_t v = 0; v < g.nodes; v += 1 + (uint32_t)(g.nodes / 1024)) {
        uint32_t p[FC_DEGREE];
        fc_graph_parents(&g, v, p);
        assert_memory_equal(p, cache + (uint64_t)v * FC_DEGREE, sizeof p);
    }
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

/* OpenSSL's ChaCha20 keystream: iv = counter u32 LE || 12-byte nonce. */
static void openssl_chacha20(uint8_t *out, size_t len, const uint8_t key[32], const uint8_t iv[16])
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    uint8_t *zero = calloc(1, len);
    int n;
    assert_non_null(c);
    assert_non_null(zero);
    assert_int_equal(EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv), 1);
    assert_int_equal(EVP_EncryptUpdate(c, out, &n, zero, (int)len), 1);
    EVP_CIPHER_CTX_free(c);
    free(zero);
}

static void test_chacha_against_openssl(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    uint8_t key[32], iv[16], want[256];
    cuzk_rng_bytes(&g, key, 32);
    for (int trial = 0; trial < 2; trial++) {
        memset(iv, 0, sizeof iv);
        if (trial) cuzk_rng_bytes(&g, iv + 4, 12); /* a nonce exercises words 13..15 */
        openssl_chacha20(want, sizeof want, key, iv);
        fc_chacha c;
        fc_chacha_init(&c, key, 20);
        uint64_t w[3] = {0};
        for (int i = 0; i < 12; i++) w[i / 4] |= (uint64_t)iv[4 + i] << (8 * (i % 4));
        c.counter = w[0] << 32;
        c.stream = w[1] | w[2] << 32;
        for (int i = 0; i < 32; i++) {
            uint64_t v = fc_chacha_u64(&c), e = 0;
            for (int b = 7; b >= 0; b--) e = e << 8 | want[8 * i + b];
            assert_true(v == e);
        }
    }
}

static void test_blake2b_against_openssl(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    EVP_MD *md = EVP_MD_fetch(NULL, "BLAKE2B-512", NULL);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    assert_non_null(md);
    assert_non_null(ctx);
    uint8_t msg[300], got[64], want[64];
    cuzk_rng_bytes(&g, msg, sizeof msg);
    for (size_t len = 0; len <= sizeof msg; len += len < 20 ? 1 : 37) {
        unsigned n;
        fc_blake2b_512(got, msg, len);
        EVP_DigestInit_ex2(ctx, md, NULL);
        EVP_DigestUpdate(ctx, msg, len);
        EVP_DigestFinal_ex(ctx, want, &n);
        assert_memory_equal(got, want, 64);
    }
    uint64_t w0 = cuzk_rng_u64(&g), w1 = cuzk_rng_u64(&g), h0 = 0;
    for (int i = 0; i < 8; i++) {
        msg[i] = (uint8_t)(w0 >> (8 * i));
        msg[8 + i] = (uint8_t)(w1 >> (8 * i));
    }
    fc_blake2b_512(got, msg, 16);
    for (int i = 7; i >= 0; i--) h0 = h0 << 8 | got[i];
    assert_true(fc_blake2b_16_word0(w0, w1) == h0);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
}

/* drgraph.rs graph_bucket and graph.rs expectations, node by node. */
static void check_invariants(uint64_t nodes, uint64_t id_byte, int api)
{
    uint8_t porep_id[32] = {0};
    porep_id[0] = (uint8_t)id_byte;
    fc_graph g;
    assert_int_equal(fc_graph_init(&g, nodes, porep_id, api, NULL), CUZK_OK);
    uint32_t p[FC_DEGREE];
    for (uint32_t v = 0; v < nodes; v++) {
        fc_graph_parents(&g, v, p);
        for (int k = 0; k < FC_BASE_DEGREE; k++) {
            if (v < 2)
                assert_int_equal(p[k], 0);
            else
                assert_true(p[k] < v); /* DRG: earlier nodes only, never v */
        }
        if (v >= 2) assert_int_equal(p[api == FC_API_V1_0 ? FC_BASE_DEGREE - 1 : 0], v - 1);
        for (int k = FC_BASE_DEGREE; k < FC_DEGREE; k++) assert_true(p[k] < nodes);
    }
}

static void test_graph_invariants(void **state)
{
    (void)state;
    for (uint64_t nodes = 4; nodes <= 2048; nodes *= 4) {
        check_invariants(nodes, 0, FC_API_V1_0);
        check_invariants(nodes, 5, FC_API_V1_1);
    }
    cuzk_err err;
    fc_graph g;
    uint8_t id[32] = {0};
    assert_int_equal(fc_graph_init(&g, 96, id, FC_API_V1_1, &err), CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "96"));
}

/* graph.rs test_shuffle: 3-round Feistel over n * 8 with keys [1, 2, 3, 4]. */
static void test_feistel_bijection(void **state)
{
    (void)state;
    const uint64_t n = 1024, d = 8;
    uint8_t id[32] = {0};
    fc_graph g;
    assert_int_equal(fc_graph_init(&g, n, id, FC_API_V1_1, NULL), CUZK_OK);
    for (int k = 0; k < 4; k++) g.feistel_keys[k] = (uint64_t)k + 1;
    uint8_t *seen = calloc(n * d, 1);
    assert_non_null(seen);
    for (uint64_t i = 0; i < n * d; i++) {
        uint64_t p = fc_feistel_permute(&g, n * d, i);
        assert_true(p < n * d);
        assert_int_equal(seen[p], 0);
        seen[p] = 1;
    }
    free(seen);
}

/* graph.rs test_graph_distribution_pathology and test_high_parent_bits. */
static int has_high_parent(uint64_t nodes, uint64_t id, int api, uint64_t bound, uint32_t count)
{
    uint8_t porep_id[32];
    fc_porep_id(porep_id, id);
    fc_graph g;
    assert_int_equal(fc_graph_init(&g, nodes, porep_id, api, NULL), CUZK_OK);
    uint32_t p[FC_EXP_DEGREE];
    for (uint32_t v = 0; v < count; v++) {
        fc_graph_exp_parents(&g, v, p);
        for (int k = 0; k < FC_EXP_DEGREE; k++)
            if (p[k] >= bound) return 1;
    }
    return 0;
}

static void test_graph_pathology(void **state)
{
    (void)state;
    const uint64_t n32 = 1ULL << 30, n64 = 1ULL << 31;
    assert_false(has_high_parent(n32, 3, FC_API_V1_0, n32 / 2, 1000));
    assert_false(has_high_parent(n64, 4, FC_API_V1_0, n64 / 2, 1000));
    assert_true(has_high_parent(n32, 8, FC_API_V1_1, n32 / 2, 1000));
    assert_true(has_high_parent(n64, 9, FC_API_V1_2, n64 / 2, 1000));
    assert_true(has_high_parent(n64, 5, FC_API_V1_2, 1U << 29, 3));
}

static void test_porep_table(void **state)
{
    (void)state;
    const fc_porep_config *c = fc_porep_config_get(8);
    assert_string_equal(c->name, "StackedDrg32GiBV1_1");
    assert_true(c->nodes == 1ULL << 30 && c->layers == 11 && c->partitions == 10);
    assert_true(c->challenges == 18 && c->base_arity == 8 && c->sub_arity == 8 && !c->top_arity);
    assert_int_equal(c->api_version, FC_API_V1_1);
    c = fc_porep_config_get(19);
    assert_string_equal(c->name, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep");
    assert_true(c->partitions == 126 && c->top_arity == 2 && c->api_version == FC_API_V1_2);
    c = fc_porep_config_get(0);
    assert_true(c->nodes == 64 && c->layers == 2 && c->partitions == 1 && c->challenges == 2);
    assert_int_equal(c->api_version, FC_API_V1_0);
    assert_null(fc_porep_config_get(20));
    int kind;
    cuzk_err err;
    assert_int_equal(fc_porep_kind_parse("ni", &kind, &err), CUZK_OK);
    assert_int_equal(kind, FC_POREP_NI);
    assert_ptr_equal(fc_porep_config_find(8ULL << 20, kind, &err), fc_porep_config_get(16));
    assert_null(fc_porep_config_find(4096, FC_POREP_V1, &err));
    assert_int_equal(fc_porep_kind_parse("V2", &kind, &err), CUZK_EINVAL);
    uint8_t id[32], want[32] = {17};
    fc_porep_id(id, 17);
    assert_memory_equal(id, want, 32);
}

/* The streamed file equals the in-memory table, byte for byte. */
static void test_parent_cache_stream(void **state)
{
    (void)state;
    fc_graph g;
    uint32_t *cache;
    uint8_t digest[32], want[32], porep_id[32];
    assert_int_equal(fc_graph_for(&g, fc_porep_config_get(5), NULL), CUZK_OK);
    assert_int_equal(fc_parent_cache_build(&g, &cache, NULL, NULL, NULL), CUZK_OK);
    char path[] = "/tmp/test_filecoin_graph_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(fc_parent_cache_stream(&g, path, digest, NULL, NULL, NULL), CUZK_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint32_t *back = malloc(g.nodes * FC_DEGREE * 4 + 1);
    assert_non_null(back);
    assert_int_equal(fread(back, 1, g.nodes * FC_DEGREE * 4 + 1, f), g.nodes * FC_DEGREE * 4);
    fclose(f);
    unlink(path);
    assert_memory_equal(back, cache, g.nodes * FC_DEGREE * 4);
    fc_parent_cache_digest(want, cache, g.nodes);
    assert_memory_equal(digest, want, 32);
    fc_porep_id(porep_id, 10); /* synthetic: not in the manifest */
    assert_null(fc_parent_cache_known_digest(64, porep_id));
    fc_porep_id(porep_id, 5);
    assert_null(fc_parent_cache_known_digest(128, porep_id));
    cuzk_err err;
    assert_int_equal(fc_parent_cache_stream(&g, "/nonexistent/dir/x", digest, NULL, NULL, &err),
                     CUZK_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/dir/x"));
    free(back);
    free(cache);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chacha_against_openssl),
        cmocka_unit_test(test_blake2b_against_openssl),
        cmocka_unit_test(test_graph_invariants),
        cmocka_unit_test(test_feistel_bijection),
        cmocka_unit_test(test_graph_pathology),
        cmocka_unit_test(test_porep_table),
        cmocka_unit_test(test_parent_cache_2kib),
        cmocka_unit_test(test_parent_cache_8mib),
        cmocka_unit_test(test_parent_cache_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
