/*
 * graph.c - DRG and expander parents of the StackedDRG graph and the parent
 * cache (graph.h).
 *
 * DRG parents (drgraph.rs BucketGraph::parents): for node v >= 2, with
 * m' = 5 and the metagraph node u = 5 v, each of 5 parents draws
 * bucket = rng % ceil(log2 u) + 1, then a distance in [max(2, hi / 2), hi]
 * with hi = min(u, 2^bucket), and maps (u - distance) / 5 back to the DRG
 * (v itself becomes v - 1). Rust computes ceil(log2 u) through f64; for
 * u < 2^54 (checked by BucketGraph::new) that is exactly the bit length of
 * u - 1, which is used here.
 *
 * Expander parents (graph.rs correspondent): the Feistel network of
 * crypto/feistel.rs on an even number of bits, 2 log4(next power of 4
 * >= 8 n), cycle-walked until the result is below 8 n. The table builders
 * tabulate the round function once per graph (feistel_table_new), which
 * leaves ChaCha8 as the main cost of a parent cache.
 */
#include "cuzk/filecoin/graph.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/blake2b.h"
#include "filecoin/chacha.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the parent cache is written as host-order u32: little-endian hosts only");

#define FEISTEL_ROUNDS 3 /* crypto/feistel.rs FEISTEL_ROUNDS */
#define DRG_M_PRIME    (FC_BASE_DEGREE - 1)

static void domain_seed(uint8_t out[32], const char *tag, const uint8_t porep_id[32])
{
    uint8_t buf[64];
    size_t n = strlen(tag);
    memcpy(buf, tag, n);
    memcpy(buf + n, porep_id, FC_POREP_ID_BYTES);
    SHA256(buf, n + FC_POREP_ID_BYTES, out);
}

int fc_graph_init(fc_graph *g, uint64_t nodes, const uint8_t porep_id[FC_POREP_ID_BYTES],
                  int api_version, cuzk_err *err)
{
    if (nodes < 2 || nodes > (1ULL << 31) || (nodes & (nodes - 1)))
        return cuzk_errf(err, CUZK_EINVAL, "graph: %llu nodes is not a power of two in [2, 2^31]",
                         (unsigned long long)nodes);
    if (api_version < FC_API_V1_0 || api_version > FC_API_V1_2)
        return cuzk_errf(err, CUZK_EINVAL, "graph: unknown api version %d", api_version);
    memset(g, 0, sizeof *g);
    g->nodes = nodes;
    g->api_version = api_version;
    uint8_t seed[32];
    domain_seed(seed, "Filecoin_DRSample", porep_id);
    memcpy(g->drg_seed, seed, sizeof g->drg_seed);
    domain_seed(seed, "Filecoin_Feistel", porep_id);
    for (int k = 0; k < 4; k++) {
        uint64_t w = 0;
        for (int i = 7; i >= 0; i--) w = w << 8 | seed[8 * k + i];
        g->feistel_keys[k] = w;
    }
    /* feistel::precompute(8 n): the smallest 4^b >= 8 n, halves of b bits. */
    uint64_t pow4 = 4, log4 = 1;
    while (pow4 < nodes * FC_EXP_DEGREE) {
        pow4 *= 4;
        log4++;
    }
    g->feistel_right_mask = (1ULL << log4) - 1;
    g->feistel_left_mask = g->feistel_right_mask << log4;
    g->feistel_half_bits = log4;
    return CUZK_OK;
}

int fc_graph_for(fc_graph *g, const fc_porep_config *cfg, cuzk_err *err)
{
    uint8_t porep_id[FC_POREP_ID_BYTES];
    fc_porep_id(porep_id, cfg->id);
    return fc_graph_init(g, cfg->nodes, porep_id, cfg->api_version, err);
}

void fc_graph_base_parents(const fc_graph *g, uint32_t node, uint32_t out[FC_BASE_DEGREE])
{
    if (node < 2) {
        memset(out, 0, FC_BASE_DEGREE * sizeof(uint32_t));
        return;
    }
    uint8_t seed[32];
    memcpy(seed, g->drg_seed, 28);
    for (int i = 0; i < 4; i++) seed[28 + i] = (uint8_t)(node >> (8 * i));
    fc_chacha rng;
    fc_chacha_init(&rng, seed, 8);

    uint64_t meta = (uint64_t)node * DRG_M_PRIME;
    uint64_t n_buckets = 64 - (uint64_t)__builtin_clzll(meta - 1); /* ceil(log2(meta)) */
    int legacy = g->api_version == FC_API_V1_0;
    uint32_t *drawn = legacy ? out : out + 1;
    for (int k = 0; k < DRG_M_PRIME; k++) {
        uint64_t bucket = fc_chacha_u64(&rng) % n_buckets + 1;
        uint64_t hi = 1ULL << bucket;
        if (hi > meta) hi = meta;
        uint64_t lo = hi >> 1 > 2 ? hi >> 1 : 2;
        uint64_t distance = lo + fc_chacha_u64(&rng) % (hi - lo + 1);
        uint32_t parent = (uint32_t)((meta - distance) / DRG_M_PRIME);
        drawn[k] = parent == node ? node - 1 : parent;
    }
    out[legacy ? DRG_M_PRIME : 0] = node - 1;
}

/* F(right, key): the first 8 bytes, big-endian, of blake2b(right BE || key BE). */
static uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t right_mask)
{
    uint64_t h0 = fc_blake2b_16_word0(__builtin_bswap64(right), __builtin_bswap64(key));
    return __builtin_bswap64(h0) & right_mask;
}

/*
 * The round function depends only on (round, right half): the table holds
 * F for every right half, FEISTEL_ROUNDS << half_bits entries (3 x 2^17 for
 * 64GiB). Building it costs 3 x 2^half_bits hashes instead of ~6 per
 * expander parent (8MiB: 6,144 instead of 12.6M). NULL hashes each round.
 */
static uint32_t *feistel_table_new(const fc_graph *g)
{
    uint64_t size = 1ULL << g->feistel_half_bits;
    uint32_t *t = malloc(FEISTEL_ROUNDS * size * sizeof(uint32_t));
    if (!t) return NULL;
    for (int k = 0; k < FEISTEL_ROUNDS; k++) {
#pragma omp parallel for schedule(static)
        for (uint64_t r = 0; r < size; r++)
            t[k * size + r] = (uint32_t)feistel_round(r, g->feistel_keys[k], g->feistel_right_mask);
    }
    return t;
}

static uint64_t feistel_encode(const fc_graph *g, const uint32_t *table, uint64_t index)
{
    uint64_t left = (index & g->feistel_left_mask) >> g->feistel_half_bits;
    uint64_t right = index & g->feistel_right_mask;
    for (int k = 0; k < FEISTEL_ROUNDS; k++) {
        uint64_t f = table ? table[((uint64_t)k << g->feistel_half_bits) | right]
                           : feistel_round(right, g->feistel_keys[k], g->feistel_right_mask);
        uint64_t next = left ^ f;
        left = right;
        right = next;
    }
    return left << g->feistel_half_bits | right;
}

static uint64_t feistel_permute(const fc_graph *g, const uint32_t *table, uint64_t n,
                                uint64_t index)
{
    uint64_t u = feistel_encode(g, table, index);
    while (u >= n) u = feistel_encode(g, table, u);
    return u;
}

uint64_t fc_feistel_permute(const fc_graph *g, uint64_t n, uint64_t index)
{
    return feistel_permute(g, NULL, n, index);
}

static void exp_parents(const fc_graph *g, const uint32_t *table, uint32_t node,
                        uint32_t out[FC_EXP_DEGREE])
{
    uint64_t n = g->nodes * FC_EXP_DEGREE;
    for (int i = 0; i < FC_EXP_DEGREE; i++) {
        uint64_t t = feistel_permute(g, table, n, (uint64_t)node * FC_EXP_DEGREE + (uint64_t)i);
        out[i] = g->api_version == FC_API_V1_0 ? (uint32_t)t / FC_EXP_DEGREE
                                               : (uint32_t)(t / FC_EXP_DEGREE);
    }
}

void fc_graph_exp_parents(const fc_graph *g, uint32_t node, uint32_t out[FC_EXP_DEGREE])
{
    exp_parents(g, NULL, node, out);
}

/* Parents of nodes [start, end) into out, in parallel. */
static void parents_range(const fc_graph *g, const uint32_t *table, uint64_t start, uint64_t end,
                          uint32_t *out)
{
#pragma omp parallel for schedule(dynamic, 256)
    for (uint64_t v = start; v < end; v++) {
        uint32_t *p = out + (v - start) * FC_DEGREE;
        fc_graph_base_parents(g, (uint32_t)v, p);
        exp_parents(g, table, (uint32_t)v, p + FC_BASE_DEGREE);
    }
}

void fc_graph_parents(const fc_graph *g, uint32_t node, uint32_t out[FC_DEGREE])
{
    fc_graph_base_parents(g, node, out);
    fc_graph_exp_parents(g, node, out + FC_BASE_DEGREE);
}

int fc_parent_cache_build(const fc_graph *g, uint32_t **out, fc_progress_fn progress,
                          void *progress_ctx, cuzk_err *err)
{
    /* Chunks of 2^14 nodes: progress between them, parallel inside. */
    const uint64_t chunk = 1ULL << 14;
    uint32_t *cache = malloc(g->nodes * FC_DEGREE * sizeof(uint32_t));
    uint32_t *table = feistel_table_new(g);
    if (!cache || !table) {
        free(cache);
        free(table);
        return cuzk_errf(err, CUZK_ENOMEM, "parent cache: %llu nodes do not fit in memory",
                         (unsigned long long)g->nodes);
    }
    for (uint64_t start = 0; start < g->nodes; start += chunk) {
        uint64_t end = start + chunk < g->nodes ? start + chunk : g->nodes;
        parents_range(g, table, start, end, cache + start * FC_DEGREE);
        if (progress) progress(progress_ctx, "parents", end, g->nodes);
    }
    free(table);
    *out = cache;
    return CUZK_OK;
}

int fc_parent_cache_stream(const fc_graph *g, const char *path, uint8_t digest[32],
                           fc_progress_fn progress, void *progress_ctx, cuzk_err *err)
{
    const uint64_t chunk = 1ULL << 16; /* nodes per write: 3.5 MiB of table */
    uint32_t *buf = malloc(chunk * FC_DEGREE * sizeof(uint32_t));
    uint32_t *table = feistel_table_new(g);
    EVP_MD_CTX *sha = EVP_MD_CTX_new();
    FILE *f = fopen(path, "wb");
    int rc = CUZK_OK;
    if (!buf || !table || !sha || !EVP_DigestInit_ex(sha, EVP_sha256(), NULL))
        rc = cuzk_errf(err, CUZK_ENOMEM, "parent cache %s: out of memory", path);
    else if (!f)
        rc = cuzk_errf(err, CUZK_EIO, "parent cache %s: cannot create", path);
    for (uint64_t start = 0; !rc && start < g->nodes; start += chunk) {
        uint64_t end = start + chunk < g->nodes ? start + chunk : g->nodes;
        parents_range(g, table, start, end, buf);
        size_t words = (size_t)(end - start) * FC_DEGREE;
        EVP_DigestUpdate(sha, buf, words * sizeof(uint32_t));
        if (fwrite(buf, sizeof(uint32_t), words, f) != words)
            rc = cuzk_errf(err, CUZK_EIO, "parent cache %s: write failed", path);
        else if (progress)
            progress(progress_ctx, "parents", end, g->nodes);
    }
    unsigned len;
    if (!rc && !EVP_DigestFinal_ex(sha, digest, &len))
        rc = cuzk_errf(err, CUZK_ENOMEM, "parent cache %s: SHA-256 failed", path);
    if (f && fclose(f) && !rc) rc = cuzk_errf(err, CUZK_EIO, "parent cache %s: write failed", path);
    EVP_MD_CTX_free(sha);
    free(table);
    free(buf);
    return rc;
}

/*
 * storage-proofs-porep/parent_cache.json (v28): the digest of each
 * registered proof's table, V1 ids 0..4 then V1_1 ids 5..9 (the graphs of
 * ids 10..19 are not listed there). Which id each entry belongs to was
 * established from the file's keys (cache.rs cache_path, recomputed in
 * test_filecoin_graph).
 */
static const char *const KNOWN_DIGESTS[10] = {
    "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d", /* 2KiB V1 */
    "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce", /* 8MiB V1 */
    "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5", /* 512MiB V1 */
    "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6", /* 32GiB V1 */
    "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c", /* 64GiB V1 */
    "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97", /* 2KiB V1_1 */
    "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab", /* 8MiB V1_1 */
    "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a", /* 512MiB V1_1 */
    "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da", /* 32GiB V1_1 */
    "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03", /* 64GiB V1_1 */
};

const char *fc_parent_cache_known_digest(uint64_t nodes, const uint8_t porep_id[FC_POREP_ID_BYTES])
{
    uint64_t id = 0;
    for (int i = 0; i < 8; i++) id |= (uint64_t)porep_id[i] << (8 * i);
    for (int i = 8; i < FC_POREP_ID_BYTES; i++)
        if (porep_id[i]) return NULL;
    const fc_porep_config *cfg = id < 10 ? fc_porep_config_get(id) : NULL;
    return cfg && cfg->nodes == nodes ? KNOWN_DIGESTS[id] : NULL;
}

void fc_parent_cache_digest(uint8_t out[32], const uint32_t *cache, uint64_t nodes)
{
    SHA256((const uint8_t *)cache, nodes * FC_DEGREE * sizeof(uint32_t), out);
}

int fc_parent_cache_write(const char *path, const uint32_t *cache, uint64_t nodes, cuzk_err *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cuzk_errf(err, CUZK_EIO, "parent cache %s: cannot create", path);
    size_t n = (size_t)nodes * FC_DEGREE;
    int bad = fwrite(cache, sizeof(uint32_t), n, f) != n;
    bad |= fclose(f) != 0;
    if (bad) return cuzk_errf(err, CUZK_EIO, "parent cache %s: write failed", path);
    return CUZK_OK;
}
