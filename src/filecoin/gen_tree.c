/*
 * gen_tree.c - Poseidon trees of any tree-R shape for the vanilla proof
 * generators (gen.h): each row hashed from the one below in groups of that
 * level's arity (poseidon_std constants), so that base trees cover
 * contiguous leaf ranges and the sub and top levels hash consecutive base
 * roots, as merkletree builds compound trees. Rows are field elements;
 * proofs copy each level's siblings in order, skipping the node itself.
 */
#include "cuzk/filecoin/gen.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"

/* Parents hashed between progress reports. */
#define PROGRESS_CHUNK (1u << 14)

/* Row l + 1 of t from row l: n parents of arity a each. */
static void hash_row(fc_ptree *t, size_t l, unsigned a, uint64_t n, const char *stage,
                     fc_progress_fn progress, void *ctx, uint64_t *done, uint64_t total)
{
    const poseidon_constants *c = poseidon_std(a);
    fr_t *out = t->row[l + 1];
    const fr_t *in = t->row[l];
    for (uint64_t start = 0; start < n; start += PROGRESS_CHUNK) {
        uint64_t end = start + PROGRESS_CHUNK < n ? start + PROGRESS_CHUNK : n;
#pragma omp parallel for schedule(static) if (end - start >= 4096)
        for (uint64_t p = start; p < end; p++) poseidon_hash(&out[p], c, &in[p * a]);
        *done += end - start;
        if (progress) progress(ctx, stage, *done, total);
    }
}

int fc_ptree_build(fc_ptree *t, const por_shape *s, const fr_t *leaves, uint64_t n,
                   const char *stage, fc_progress_fn progress, void *progress_ctx, cuzk_err *err)
{
    memset(t, 0, sizeof(*t));
    t->shape = *s;
    t->levels = por_shape_levels(s);
    uint64_t want = 1;
    for (size_t l = 0; l < t->levels; l++) want *= por_shape_arity(s, l);
    if (!t->levels || want != n)
        return cuzk_errf(err, CUZK_EINVAL, "poseidon tree: %llu leaves do not fit arities %u-%u-%u",
                         (unsigned long long)n, s->base_arity, s->sub_arity, s->top_arity);
    if (!(t->row[0] = malloc(n * sizeof(fr_t))))
        return cuzk_errf(err, CUZK_ENOMEM, "poseidon tree of %llu leaves: out of memory",
                         (unsigned long long)n);
    memcpy(t->row[0], leaves, n * sizeof(fr_t));
    uint64_t total = 0, done = 0;
    for (size_t l = 0, m = n; l < t->levels; l++) total += m /= por_shape_arity(s, l);
    for (size_t l = 0; l < t->levels; l++) {
        unsigned a = por_shape_arity(s, l);
        n /= a;
        if (!(t->row[l + 1] = malloc(n * sizeof(fr_t)))) {
            fc_ptree_free(t);
            return cuzk_errf(err, CUZK_ENOMEM, "poseidon tree: out of memory");
        }
        hash_row(t, l, a, n, stage, progress, progress_ctx, &done, total);
    }
    return CUZK_OK;
}

void fc_ptree_free(fc_ptree *t)
{
    for (size_t l = 0; l <= POR_MAX_LEVELS; l++) free(t->row[l]);
    memset(t, 0, sizeof(*t));
}

const fr_t *fc_ptree_root(const fc_ptree *t)
{
    return &t->row[t->levels][0];
}

void fc_ptree_proof(const fc_ptree *t, uint64_t leaf, vanilla_merkle *m)
{
    m->index = leaf;
    fr_to_bytes_le(m->leaf.b, &t->row[0][leaf]);
    fr_to_bytes_le(m->root.b, fc_ptree_root(t));
    size_t off = 0;
    for (size_t l = 0; l < t->levels; l++) {
        unsigned a = por_shape_arity(&t->shape, l);
        uint64_t group = leaf / a * a;
        for (unsigned k = 0; k < a; k++)
            if (group + k != leaf) fr_to_bytes_le(m->hashes[off++].b, &t->row[l][group + k]);
        leaf /= a;
    }
}

int fc_nodes_to_fr(fr_t *out, const uint8_t *nodes, uint64_t n, const char *what, cuzk_err *err)
{
    for (uint64_t i = 0; i < n; i++)
        if (!fr_from_bytes_le(&out[i], nodes + 32 * i))
            return cuzk_errf(err, CUZK_ENONCANONICAL, "%s node %llu is not below r", what,
                             (unsigned long long)i);
    return CUZK_OK;
}
