/*
 * gen_update.c - the SnapDeals update of a sector and its vanilla
 * partition proofs (gen.h), as storage-proofs-update's EmptySectorUpdate
 * encode_into and prove_all_partitions make them: tree-D over the new
 * data, the new replica encoded with phi and rho, tree-R-new, and for each
 * partition k its apex leaves and, per challenge of update_challenges(k),
 * the inclusion proofs into tree-R-old, tree-D-new and tree-R-new.
 * Nodes are field elements throughout; tree-D (SHA-256) is built over
 * their little-endian bytes.
 */
#include "cuzk/filecoin/gen.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/tree.h"
#include "cuzk/poseidon.h"

int fc_update_partition_alloc(vanilla_update_partition *p, const update_shape *s, cuzk_err *err)
{
    memset(p, 0, sizeof(*p));
    vanilla_shape vs = {
        .nodes = s->nodes, .sub_arity = s->tree_r.sub_arity, .top_arity = s->tree_r.top_arity};
    vanilla_tree_r(&p->tree_r, &vs);
    if (s->poseidon)
        p->tree_d = p->tree_r;
    else
        vanilla_tree_d(&p->tree_d, &vs);
    p->n_apex = s->apex_leafs;
    p->n_challenges = s->challenges;
    return vanilla_update_layout(p, err);
}

/* tree-D-new: the binary SHA-256 tree, or (Poseidon variant) tree-R's shape. */
typedef struct dtree {
    fc_tree sha;
    fc_ptree pos;
    bool poseidon;
} dtree;

/* Where progress goes (fn may be NULL). */
typedef struct progress {
    fc_progress_fn fn;
    void *ctx;
} gen_progress;

static int dtree_build(dtree *d, const update_shape *s, const fr_t *data, const gen_progress *p,
                       cuzk_err *err)
{
    memset(d, 0, sizeof(*d));
    d->poseidon = s->poseidon;
    if (s->poseidon)
        return fc_ptree_build(&d->pos, &s->tree_r, data, s->nodes, "tree-d-new", p->fn, p->ctx,
                              err);
    uint8_t *bytes = malloc(s->nodes * 32);
    if (!bytes) return cuzk_errf(err, CUZK_ENOMEM, "SnapDeals tree-D: out of memory");
    for (uint64_t i = 0; i < s->nodes; i++) fr_to_bytes_le(bytes + 32 * i, &data[i]);
    int rc = fc_tree_build(&d->sha, FC_TREE_SHA256, 2, bytes, s->nodes, "tree-d-new", p->fn, p->ctx,
                           err);
    free(bytes);
    return rc;
}

static void dtree_free(dtree *d)
{
    if (d->poseidon)
        fc_ptree_free(&d->pos);
    else
        fc_tree_free(&d->sha);
}

static void dtree_root(vanilla_node *root, const dtree *d)
{
    if (d->poseidon)
        fr_to_bytes_le(root->b, fc_ptree_root(&d->pos));
    else
        memcpy(root->b, fc_tree_root(&d->sha), 32);
}

static void dtree_proof(const dtree *d, uint64_t leaf, vanilla_merkle *m)
{
    if (d->poseidon) {
        fc_ptree_proof(&d->pos, leaf, m);
        return;
    }
    m->index = leaf;
    memcpy(m->leaf.b, fc_tree_node(&d->sha, 0, leaf), 32);
    memcpy(m->root.b, fc_tree_root(&d->sha), 32);
    fc_tree_path(&d->sha, leaf, m->hashes[0].b, NULL);
}

static void comm_r_of(vanilla_node *out, const vanilla_node *comm_c, const fc_ptree *t)
{
    fr_t pre[2], h;
    fr_from_bytes_le(&pre[0], comm_c->b);
    pre[1] = *fc_ptree_root(t);
    poseidon_hash(&h, poseidon_std(2), pre);
    fr_to_bytes_le(out->b, &h);
}

/* replica_new[i] = replica_old[i] + data_new[i] x rho(i's high h bits). */
static void encode(fr_t *out, const fr_t *r_old, const fr_t *d_new, const update_shape *s,
                   const vanilla_node *comm_d, const vanilla_node *comm_r_old, unsigned h)
{
    fr_t phi, cd, cr;
    fr_from_bytes_le(&cd, comm_d->b);
    fr_from_bytes_le(&cr, comm_r_old->b);
    update_phi(&phi, &cd, &cr);
    unsigned shift = s->challenge_bits - h;
    uint64_t groups = s->nodes >> shift;
#pragma omp parallel for schedule(static) if (groups > 1)
    for (uint64_t g = 0; g < groups; g++) {
        fr_t rho;
        update_rho(&rho, &phi, g);
        for (uint64_t i = g << shift; i < (g + 1) << shift; i++) {
            fr_mul(&out[i], &d_new[i], &rho);
            fr_add(&out[i], &out[i], &r_old[i]);
        }
    }
}

static int prove_partition(vanilla_update_partition *v, const fc_update *u, uint64_t k,
                           const fc_ptree *r_old, const dtree *d, const fc_ptree *r_new,
                           cuzk_err *err)
{
    const update_shape *s = &u->shape;
    int rc = fc_update_partition_alloc(v, s, err);
    if (rc) return rc;
    v->comm_c = u->comm_c;
    unsigned apex_row = s->challenge_bits - s->partition_bits - s->apex_bits;
    for (size_t i = 0; !d->poseidon && i < v->n_apex; i++)
        memcpy(v->apex_leafs[i].b, fc_tree_node(&d->sha, apex_row, k * v->n_apex + i), 32);
    uint32_t *c = malloc(s->challenges * sizeof(uint32_t));
    if (!c) return cuzk_errf(err, CUZK_ENOMEM, "SnapDeals vanilla proof: out of memory");
    fr_t comm_r_new;
    fr_from_bytes_le(&comm_r_new, u->comm_r_new.b);
    update_challenges(c, s, &comm_r_new, k);
    for (size_t i = 0; i < v->n_challenges; i++) {
        fc_ptree_proof(r_old, c[i], &v->challenges[i].r_old);
        dtree_proof(d, c[i], &v->challenges[i].d_new);
        fc_ptree_proof(r_new, c[i], &v->challenges[i].r_new);
    }
    free(c);
    return CUZK_OK;
}

static int check_args(const update_shape *s, unsigned h, const vanilla_node *comm_c, cuzk_err *err)
{
    bool h_ok = false;
    for (int i = 0; i < UPDATE_HS; i++) h_ok |= s->hs[i] == h;
    if (!h_ok || h > s->challenge_bits)
        return cuzk_errf(err, CUZK_EINVAL, "SnapDeals update: h = %u is not one of the shape's", h);
    if (!vanilla_node_canonical(comm_c))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "SnapDeals update: comm_c is not below r");
    return CUZK_OK;
}

/* The trees and commitments; then every partition's proof. */
static int update_run(fc_update *u, const fr_t *replica_old, const fr_t *data_new, fc_ptree *r_old,
                      dtree *d, fc_ptree *r_new, const gen_progress *p, cuzk_err *err)
{
    const update_shape *s = &u->shape;
    int rc =
        fc_ptree_build(r_old, &s->tree_r, replica_old, s->nodes, "tree-r-old", p->fn, p->ctx, err);
    if (!rc) rc = dtree_build(d, s, data_new, p, err);
    if (rc) return rc;
    comm_r_of(&u->comm_r_old, &u->comm_c, r_old);
    dtree_root(&u->comm_d_new, d);
    if (!(u->replica_new = malloc(s->nodes * sizeof(fr_t))) ||
        !(u->parts = calloc(s->partitions, sizeof(*u->parts))))
        return cuzk_errf(err, CUZK_ENOMEM, "SnapDeals update: out of memory");
    encode(u->replica_new, replica_old, data_new, s, &u->comm_d_new, &u->comm_r_old, u->h);
    if (p->fn) p->fn(p->ctx, "encoding", 1, 1);
    if ((rc = fc_ptree_build(r_new, &s->tree_r, u->replica_new, s->nodes, "tree-r-new", p->fn,
                             p->ctx, err)))
        return rc;
    comm_r_of(&u->comm_r_new, &u->comm_c, r_new);
    for (uint64_t k = 0; !rc && k < s->partitions; k++, u->n_partitions++) {
        rc = prove_partition(&u->parts[k], u, k, r_old, d, r_new, err);
        if (p->fn) p->fn(p->ctx, "partitions", k + 1, s->partitions);
    }
    return rc;
}

int fc_gen_update(fc_update *u, const update_shape *s, unsigned h, const fr_t *replica_old,
                  const vanilla_node *comm_c, const fr_t *data_new, fc_progress_fn progress,
                  void *progress_ctx, cuzk_err *err)
{
    memset(u, 0, sizeof(*u));
    int rc = check_args(s, h, comm_c, err);
    if (rc) return rc;
    u->shape = *s;
    u->h = h;
    u->comm_c = *comm_c;
    fc_ptree r_old = {0}, r_new = {0};
    dtree d = {.poseidon = s->poseidon};
    gen_progress p = {progress, progress_ctx};
    rc = update_run(u, replica_old, data_new, &r_old, &d, &r_new, &p, err);
    fc_ptree_free(&r_old);
    fc_ptree_free(&r_new);
    dtree_free(&d);
    if (rc) fc_update_free(u);
    return rc;
}

void fc_update_free(fc_update *u)
{
    for (size_t k = 0; u->parts && k < u->shape.partitions; k++) vanilla_update_free(&u->parts[k]);
    free(u->parts);
    free(u->replica_new);
    memset(u, 0, sizeof(*u));
}

update_public fc_update_public(const fc_update *u, uint64_t k)
{
    return (update_public){.k = k,
                           .h = u->h,
                           .comm_r_old = u->comm_r_old,
                           .comm_d_new = u->comm_d_new,
                           .comm_r_new = u->comm_r_new};
}
