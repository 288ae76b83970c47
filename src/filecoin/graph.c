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
 * >= 8 n), cycle-walked until the result is below 8 n.
 */
#include "cuzk/filecoin/graph.h"

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

static uint64_t feistel_encode(const fc_graph *g, uint64_t index)
{
    uint64_t left = (index & g->feistel_left_mask) >> g->feistel_half_bits;
    uint64_t right = index & g->feistel_right_mask;
    for (int k = 0; k < FEISTEL_ROUNDS; k++) {
        uint64_t next = left ^ feistel_round(right, g->feistel_keys[k], g->feistel_right_mask);
        left = right;
        right = next;
    }
    return left << g->feistel_half_bits | right;
}

uint64_t fc_feistel_permute(const fc_graph *g, uint64_t n, uint64_t index)
{
    uint64_t u = feistel_encode(g, index);
    while (u >= n) u = feistel_encode(g, u);
    return u;
}

void fc_graph_exp_parents(const fc_graph *g, uint32_t node, uint32_t out[FC_EXP_DEGREE])
{
    uint64_t n = g->nodes * FC_EXP_DEGREE;
    for (int i = 0; i < FC_EXP_DEGREE; i++) {
        uint64_t t = fc_feistel_permute(g, n, (uint64_t)node * FC_EXP_DEGREE + (uint64_t)i);
        out[i] = g->api_version == FC_API_V1_0 ? (uint32_t)t / FC_EXP_DEGREE
                                               : (uint32_t)(t / FC_EXP_DEGREE);
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
    if (!cache)
        return cuzk_errf(err, CUZK_ENOMEM, "parent cache: %llu nodes do not fit in memory",
                         (unsigned long long)g->nodes);
    for (uint64_t start = 0; start < g->nodes; start += chunk) {
        uint64_t end = start + chunk < g->nodes ? start + chunk : g->nodes;
#pragma omp parallel for schedule(dynamic, 256)
        for (uint64_t v = start; v < end; v++)
            fc_graph_parents(g, (uint32_t)v, cache + v * FC_DEGREE);
        if (progress) progress(progress_ctx, "parents", end, g->nodes);
    }
    *out = cache;
    return CUZK_OK;
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
