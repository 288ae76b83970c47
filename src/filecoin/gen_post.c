/*
 * gen_post.c - Fallback PoSt vanilla proofs of one sector (gen.h), as
 * storage-proofs-post FallbackPoSt::prove_all_partitions makes a
 * SectorProof and filecoin-proofs wraps it into a FallbackPoStSectorProof:
 * the leaf challenges of the sector (generate_leaf_challenges), an
 * inclusion proof into tree-R-last for each, comm_c and comm_r_last, and
 * comm_r = Poseidon-2(comm_c, comm_r_last).
 */
#include "cuzk/filecoin/gen.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/porep.h"
#include "cuzk/poseidon.h"

/* A sector proof shaped for s: n proofs, tree-R paths of s's geometry. */
static int post_alloc(vanilla_post_sector *p, const post_shape *s, size_t n, cuzk_err *err)
{
    memset(p, 0, sizeof(*p));
    vanilla_shape vs = {
        .nodes = s->nodes, .sub_arity = s->tree.sub_arity, .top_arity = s->tree.top_arity};
    vanilla_tree_r(&p->tree, &vs);
    p->n_proofs = n;
    return vanilla_post_sector_layout(p, err);
}

static int check_replica(const post_shape *s, const fc_post_replica *r, cuzk_err *err)
{
    const por_shape *a = &r->tree_r->shape, *b = &s->tree;
    if (r->tree_r->levels == 0 || a->base_arity != b->base_arity || a->sub_arity != b->sub_arity ||
        a->top_arity != b->top_arity || a->base_levels != b->base_levels)
        return cuzk_errf(
            err, CUZK_EINVAL, "PoSt vanilla proof: sector %llu: tree-R is not %u-%u-%u",
            (unsigned long long)r->sector_id, b->base_arity, b->sub_arity, b->top_arity);
    if (!vanilla_node_canonical(&r->comm_c))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "PoSt vanilla proof: comm_c is not below r");
    return CUZK_OK;
}

int fc_gen_post_sector(vanilla_post_sector *out, int kind, const post_shape *s, int api_version,
                       const uint8_t randomness[32], const fc_post_replica *r,
                       uint64_t sector_index, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    bool win = kind == VANILLA_POST_WINNING;
    if (!win && kind != VANILLA_POST_WINDOW)
        return cuzk_errf(err, CUZK_EINVAL, "PoSt vanilla proof: unknown kind %d", kind);
    /* generate_fallback_sector_challenges: Winning is sector 0 of a one-sector set. */
    size_t n = win ? (size_t)POST_WINNING_SECTORS * POST_WINNING_CHALLENGES : s->challenges;
    uint64_t first = win || api_version == FC_API_V1_2 ? 0 : sector_index * n;
    int rc = check_replica(s, r, err);
    if (!rc) rc = post_alloc(out, s, n, err);
    if (rc) return rc;
    out->sector_id = r->sector_id;
    out->comm_c = r->comm_c;
    fr_t pre[2], comm_r;
    fr_from_bytes_le(&pre[0], r->comm_c.b);
    pre[1] = *fc_ptree_root(r->tree_r);
    poseidon_hash(&comm_r, poseidon_std(2), pre);
    fr_to_bytes_le(out->comm_r_last.b, &pre[1]);
    fr_to_bytes_le(out->comm_r.b, &comm_r);
    for (size_t i = 0; i < n; i++)
        fc_ptree_proof(r->tree_r,
                       post_leaf_challenge(randomness, r->sector_id, first + i, s->nodes),
                       &out->proofs[i]);
    return CUZK_OK;
}
