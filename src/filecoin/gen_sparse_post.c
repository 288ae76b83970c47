/*
 * gen_sparse_post.c - Fallback PoSt vanilla proofs of sparse
 * committed-capacity test sectors of any size (gen.h fc_sparse_post_sectors):
 * TEST DATA, computed without a sector behind it.
 *
 * A PoSt verifier sees, per sector, only the challenged leaves of
 * tree-R-last and their paths, so only those are computed. The challenges
 * are derived exactly as for a sealed sector (post_leaf_challenge of the
 * randomness, the sector id and the challenge index: the indexing of
 * fc_gen_post_sector). The tree is sparse: level 0 holds the challenged
 * leaves, level h + 1 every parent of a node held at level h, hashed
 * (Poseidon of the level's arity) from its children, a child not held
 * being PRF(level, index); so the openings hash to the root, which is
 * comm_r_last, and comm_r = Poseidon-2(comm_c, comm_r_last) with comm_c
 * pseudo-random too. A leaf is pseudo-random as well: a CC sector's
 * replica node is its last layer's label, a hash of the whole sector.
 *
 * PRF(tag, a, b): four u64 words, word w = mix(key_w ^ mix(x + w)) with x =
 * mix(mix(mix(tag) ^ a) ^ b), mix splitmix64's finalizer, little-endian,
 * top two bits cleared (a field element); key_w the words of SHA256("cuzk
 * sparse post sector" || sector id || seed, u64 little-endian). Not a
 * cryptographic PRF (test data needs none): a SHA-256 per node cost a
 * fifth of the generation (9.5 -> 7.6 CPU-s for a 32GiB partition).
 *
 * Per sector the work is about 86 Poseidon hashes (32GiB Window PoSt: 10
 * paths of 10 arity-8 levels meeting near the root), nearly all of the
 * time, and its memory a few KiB; sectors run in parallel (OpenMP).
 */
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/tree.h"
#include "vanilla_internal.h"

#define NB       32
#define KEY_TAG  "cuzk sparse post sector"
#define MAX_OPEN (POST_WINNING_SECTORS * POST_WINNING_CHALLENGES) /* 66 >= Window's 10 */

enum { PRF_TREE_R = 3, PRF_COMM_C = 4 };

/* One sector's sparse tree-R-last: per level the held nodes, sorted. */
typedef struct sparse_sector {
    uint8_t key[32];
    const vanilla_tree *tree;
    size_t n[VANILLA_MAX_LEVELS + 1];
    uint64_t index[VANILLA_MAX_LEVELS + 1][MAX_OPEN];
    vanilla_node value[VANILLA_MAX_LEVELS + 1][MAX_OPEN];
} sparse_sector;

/* splitmix64's finalizer: a bijection of u64 that mixes every bit. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void prf(const sparse_sector *s, uint64_t tag, uint64_t a, uint64_t b, vanilla_node *out)
{
    uint64_t x = mix(mix(mix(tag) ^ a) ^ b);
    for (int w = 0; w < 4; w++) {
        uint64_t k = 0, v;
        for (int i = 0; i < 8; i++) k |= (uint64_t)s->key[8 * w + i] << (8 * i);
        v = mix(k ^ mix(x + (uint64_t)w));
        for (int i = 0; i < 8; i++) out->b[8 * w + i] = (uint8_t)(v >> (8 * i));
    }
    out->b[31] &= 0x3f;
}

static void sector_key(sparse_sector *s, uint64_t sector_id, uint64_t seed)
{
    uint8_t msg[sizeof KEY_TAG - 1 + 16];
    memcpy(msg, KEY_TAG, sizeof KEY_TAG - 1);
    for (int i = 0; i < 8; i++) {
        msg[sizeof KEY_TAG - 1 + i] = (uint8_t)(sector_id >> (8 * i));
        msg[sizeof KEY_TAG - 1 + 8 + i] = (uint8_t)(seed >> (8 * i));
    }
    SHA256(msg, sizeof msg, s->key);
}

/* Node i of level h: held, or the PRF's. */
static void node(const sparse_sector *s, unsigned h, uint64_t i, vanilla_node *out)
{
    for (size_t j = 0; j < s->n[h]; j++)
        if (s->index[h][j] == i) {
            *out = s->value[h][j];
            return;
        }
    prf(s, PRF_TREE_R, h, i, out);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

#define BUILD_BATCH 8

/* The tree over the n challenged leaves (any order, repeats allowed). */
static void build(sparse_sector *s, const uint64_t *leaves, size_t n)
{
    uint64_t *idx = s->index[0];
    memcpy(idx, leaves, n * sizeof *idx);
    qsort(idx, n, sizeof *idx, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || idx[m - 1] != idx[i]) idx[m++] = idx[i];
    s->n[0] = m;
    for (size_t j = 0; j < m; j++) prf(s, PRF_TREE_R, 0, idx[j], &s->value[0][j]);
    for (unsigned h = 0; h < s->tree->levels; h++) {
        unsigned a = s->tree->arity[h];
        size_t k = 0;
        for (size_t j = 0; j < s->n[h]; j++) {
            uint64_t parent = s->index[h][j] / a;
            if (!k || s->index[h + 1][k - 1] != parent) s->index[h + 1][k++] = parent;
        }
        s->n[h + 1] = k;
        for (size_t j = 0; j < k; j += BUILD_BATCH) { /* one poseidon_hash_batch a chunk */
            vanilla_node children[BUILD_BATCH * 16];
            size_t b = k - j < BUILD_BATCH ? k - j : BUILD_BATCH;
            for (size_t p = 0; p < b; p++)
                for (unsigned c = 0; c < a; c++)
                    node(s, h, s->index[h + 1][j + p] * a + c, &children[p * a + c]);
            fc_tree_hash_nodes(s->value[h + 1][j].b, children[0].b, a, b);
        }
    }
}

static void proof(const sparse_sector *s, uint64_t leaf, vanilla_merkle *m)
{
    m->index = leaf;
    m->root = s->value[s->tree->levels][0];
    node(s, 0, leaf, &m->leaf);
    size_t off = 0;
    for (unsigned h = 0; h < s->tree->levels; h++) {
        unsigned a = s->tree->arity[h];
        uint64_t first = leaf / a * a;
        for (unsigned k = 0; k < a; k++)
            if (first + k != leaf) node(s, h, first + k, &m->hashes[off++]);
        leaf /= a;
    }
}

/* Sector i of the set into out (shaped by the caller). */
static void sector(vanilla_post_sector *out, sparse_sector *s, const fc_sparse_post *g, size_t i)
{
    uint64_t id = g->sector_id + i, first = 0;
    if (g->kind == VANILLA_POST_WINDOW && g->api_version != FC_API_V1_2)
        first = (g->first_sector + i) * g->shape->challenges;
    uint64_t leaves[MAX_OPEN];
    for (size_t j = 0; j < out->n_proofs; j++)
        leaves[j] = post_leaf_challenge(g->randomness, id, first + j, g->shape->nodes);
    sector_key(s, id, g->seed + i);
    s->tree = &out->tree;
    build(s, leaves, out->n_proofs);
    out->sector_id = id;
    prf(s, PRF_COMM_C, 0, 0, &out->comm_c);
    out->comm_r_last = s->value[out->tree.levels][0];
    vanilla_comm_r(&out->comm_r, &out->comm_c, &out->comm_r_last);
    for (size_t j = 0; j < out->n_proofs; j++) proof(s, leaves[j], &out->proofs[j]);
}

int fc_sparse_post_sectors(vanilla_post_sector *out, size_t n, const fc_sparse_post *g,
                           cuzk_err *err)
{
    memset(out, 0, n * sizeof *out);
    bool win = g->kind == VANILLA_POST_WINNING;
    if (!win && g->kind != VANILLA_POST_WINDOW)
        return cuzk_errf(err, CUZK_EINVAL, "sparse PoSt: unknown kind %d", g->kind);
    if (win && n != 1)
        return cuzk_errf(err, CUZK_EINVAL, "sparse PoSt: Winning PoSt proves one sector, not %zu",
                         n);
    int rc = CUZK_OK;
    for (size_t i = 0; !rc && i < n; i++)
        rc = vanilla_post_sector_alloc(&out[i], g->kind, g->shape->nodes * NB, err);
    if (!rc && out[0].n_proofs > MAX_OPEN)
        rc = cuzk_errf(err, CUZK_EINVAL, "sparse PoSt: %zu challenges per sector", out[0].n_proofs);
    if (!rc) {
#pragma omp parallel
        {
            sparse_sector *s = malloc(sizeof *s);
#pragma omp for schedule(dynamic, 16)
            for (size_t i = 0; i < n; i++)
                if (s) sector(&out[i], s, g, i);
            if (!s) {
#pragma omp atomic write
                rc = CUZK_ENOMEM;
            }
            free(s);
        }
        if (rc) cuzk_errf(err, rc, "sparse PoSt: out of memory");
    }
    if (rc)
        for (size_t i = 0; i < n; i++) vanilla_post_sector_free(&out[i]);
    return rc;
}
