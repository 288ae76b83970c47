/*
 * vanilla_synthetic.c - well-formed random vanilla proofs of any shape,
 * for round-trip tests, fuzz seeds, the parse benchmark and synthesis
 * timing where real sealing would take hours. Every node is a random
 * canonical field element (the top two bits cleared, so < 2^254 < r);
 * challenge positions, layer numbers and the roots shared by all proofs of
 * a tree are set consistently, and comm_r is Poseidon(comm_c, comm_r_last),
 * so the readers' checks pass. The Merkle paths do not hash to their
 * roots: these prove nothing.
 */
#include "vanilla_internal.h"

#include <string.h>

static void random_nodes(vanilla_node *v, size_t n, cuzk_rng *g)
{
    cuzk_rng_bytes(g, v, n * sizeof(*v));
    for (size_t i = 0; i < n; i++) v[i].b[31] &= 0x3f;
}

static void random_node(vanilla_node *v, cuzk_rng *g)
{
    random_nodes(v, 1, g);
}

static void set_merkle(vanilla_merkle *m, const vanilla_node *root, uint64_t index, cuzk_rng *g)
{
    m->root = *root;
    m->index = index;
    random_node(&m->leaf, g);
}

static void set_column(vanilla_column *c, const vanilla_node *comm_c, uint64_t node, cuzk_rng *g)
{
    c->index = (uint32_t)node;
    set_merkle(&c->proof, comm_c, node, g);
}

static void set_proof(vanilla_porep_proof *p, const vanilla_c1 *c1, const vanilla_node *comm_c,
                      const vanilla_node *comm_r_last, cuzk_rng *g)
{
    uint64_t nodes = c1->shape->nodes, node = 1 + cuzk_rng_u64(g) % (nodes - 1);
    set_merkle(&p->comm_d, &c1->comm_d, node, g);
    set_merkle(&p->comm_r_last, comm_r_last, node, g);
    set_column(&p->c_x, comm_c, node, g);
    for (int j = 0; j < VANILLA_DRG_PARENTS; j++)
        set_column(&p->drg[j], comm_c, cuzk_rng_u64(g) % node, g);
    for (int j = 0; j < VANILLA_EXP_PARENTS; j++)
        set_column(&p->exp[j], comm_c, cuzk_rng_u64(g) % node, g);
    for (unsigned l = 0; l < c1->shape->layers; l++) {
        p->labels[l].layer = l + 1;
        p->labels[l].node = node;
    }
    p->encoding.layer = c1->shape->layers;
    p->encoding.node = node;
}

int vanilla_c1_synthetic(vanilla_c1 *c1, int registered_proof, cuzk_rng *g, cuzk_err *err)
{
    int rc = vanilla_c1_alloc(c1, registered_proof, err);
    if (rc) return rc;
    c1->wrapped = true;
    c1->sector_num = cuzk_rng_u64(g) % 1000000;
    vanilla_node comm_c, comm_r_last;
    random_node(&c1->comm_r, g);
    random_node(&c1->comm_d, g);
    random_node(&c1->replica_id, g);
    cuzk_rng_bytes(g, &c1->seed, sizeof(c1->seed)); /* raw bytes: need not be canonical */
    cuzk_rng_bytes(g, &c1->ticket, sizeof(c1->ticket));
    random_node(&comm_c, g);
    random_node(&comm_r_last, g);
    vanilla_comm_r(&c1->comm_r, &comm_c, &comm_r_last);
    size_t per = vanilla_porep_nodes_per_challenge(c1);
    for (size_t k = 0; k < c1->partitions; k++) {
        /* a partition's nodes are one run starting at its first proof's comm_d hashes */
        random_nodes(c1->part[k][0].comm_d.hashes, per * c1->challenges, g);
        for (size_t i = 0; i < c1->challenges; i++)
            set_proof(&c1->part[k][i], c1, &comm_c, &comm_r_last, g);
    }
    return CUZK_OK;
}

int vanilla_post_sector_synthetic(vanilla_post_sector *p, int kind, uint64_t sector_size,
                                  cuzk_rng *g, cuzk_err *err)
{
    int rc = vanilla_post_sector_alloc(p, kind, sector_size, err);
    if (rc) return rc;
    uint64_t nodes = vanilla_shape_for_size(sector_size)->nodes;
    p->sector_id = cuzk_rng_u64(g) % 100000;
    random_node(&p->comm_r, g);
    random_node(&p->comm_c, g);
    random_node(&p->comm_r_last, g);
    vanilla_comm_r(&p->comm_r, &p->comm_c, &p->comm_r_last);
    random_nodes(p->nodes, p->n_proofs * p->tree.hashes, g);
    for (size_t i = 0; i < p->n_proofs; i++)
        set_merkle(&p->proofs[i], &p->comm_r_last, cuzk_rng_u64(g) % nodes, g);
    return CUZK_OK;
}

int vanilla_update_synthetic(vanilla_update_partition *p, uint64_t sector_size, cuzk_rng *g,
                             cuzk_err *err)
{
    int rc = vanilla_update_alloc(p, sector_size, err);
    if (rc) return rc;
    uint64_t nodes = vanilla_shape_for_size(sector_size)->nodes;
    size_t per = 2 * p->tree_r.hashes + p->tree_d.hashes;
    vanilla_node roots[3];
    random_nodes(roots, 3, g);
    random_node(&p->comm_c, g);
    random_nodes(p->nodes, p->n_apex + p->n_challenges * per, g);
    for (size_t i = 0; i < p->n_challenges; i++) {
        uint64_t node = cuzk_rng_u64(g) % nodes;
        set_merkle(&p->challenges[i].r_old, &roots[0], node, g);
        set_merkle(&p->challenges[i].d_new, &roots[1], node, g);
        set_merkle(&p->challenges[i].r_new, &roots[2], node, g);
    }
    return CUZK_OK;
}
