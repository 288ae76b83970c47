/*
 * seal_c1.c - the commit-phase-1 output (vanilla proofs) of a sealed
 * sector, as storage-proofs-porep stacked/vanilla/proof.rs prove_layers
 * builds it, into the vanilla_c1 structs of vanilla.h (whose writer makes
 * the c1.json).
 *
 * Per challenge: the tree-D inclusion proof of the data node, the
 * tree-R-last proof of the replica node, the columns (labels of every
 * layer, with tree-C proofs) of the challenged node, its 6 DRG parents and
 * 8 expander parents, one labeling proof per layer (the 37 parent labels)
 * and the encoding proof (the last layer's, again). Challenges are the
 * interactive ones from the seed (V1, V1_1), the synthetic ones selected
 * by the seed (Synthetic), or the non-interactive ones from comm_r (NI).
 */
#include <string.h>

#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"

#define NB FC_NODE_BYTES

_Static_assert(sizeof(vanilla_node) == NB, "vanilla nodes are read and written as 32-byte arrays");

static void merkle_from(vanilla_merkle *m, const fc_tree *t, uint64_t leaf)
{
    memcpy(m->root.b, fc_tree_root(t), NB);
    memcpy(m->leaf.b, fc_tree_node(t, 0, leaf), NB);
    m->index = leaf;
    fc_tree_path(t, leaf, (uint8_t *)m->hashes, NULL);
}

static void column_from(vanilla_column *c, const fc_sealed *s, uint32_t node)
{
    uint64_t n = s->cfg->nodes;
    c->index = node;
    for (unsigned l = 0; l < s->cfg->layers; l++)
        memcpy(c->rows[l].b, s->labels + ((size_t)l * n + node) * NB, NB);
    merkle_from(&c->proof, &s->tree_c, node);
}

static void label_from(vanilla_label *lp, const fc_sealed *s, unsigned layer, uint32_t node,
                       const uint32_t parents[FC_DEGREE])
{
    size_t layer_bytes = (size_t)s->cfg->nodes * NB;
    const uint8_t *cur = s->labels + (layer - 1) * layer_bytes;
    lp->layer = layer;
    lp->node = node;
    fc_label_parents((uint8_t *)lp->parents, layer, parents, cur,
                     layer > 1 ? cur - layer_bytes : NULL);
}

static void proof_from(vanilla_porep_proof *p, const fc_sealed *s, uint32_t challenge)
{
    uint32_t parents[FC_DEGREE];
    fc_graph_parents(&s->graph, challenge, parents);
    merkle_from(&p->comm_d, &s->tree_d, challenge);
    merkle_from(&p->comm_r_last, &s->tree_r, challenge);
    column_from(&p->c_x, s, challenge);
    for (int j = 0; j < FC_BASE_DEGREE; j++) column_from(&p->drg[j], s, parents[j]);
    for (int j = 0; j < FC_EXP_DEGREE; j++) column_from(&p->exp[j], s, parents[FC_BASE_DEGREE + j]);
    for (unsigned l = 1; l <= s->cfg->layers; l++)
        label_from(&p->labels[l - 1], s, l, challenge, parents);
    label_from(&p->encoding, s, s->cfg->layers, challenge, parents);
}

int fc_sealed_c1(vanilla_c1 *c1, const fc_sealed *s, const uint8_t seed[32], cuzk_err *err)
{
    const fc_porep_config *cfg = s->cfg;
    int rc = vanilla_c1_alloc(c1, (int)cfg->id, err);
    if (rc) return rc;
    c1->wrapped = true;
    c1->sector_num = s->sector_id;
    memcpy(c1->comm_r.b, s->comm_r, NB);
    memcpy(c1->comm_d.b, s->comm_d, NB);
    memcpy(c1->replica_id.b, s->replica_id, NB);
    memcpy(c1->seed.b, seed, NB);
    memcpy(c1->ticket.b, s->ticket, NB);
    uint64_t challenges[64];
    for (size_t k = 0; k < c1->partitions; k++) {
        if (cfg->kind == FC_POREP_NI)
            fc_challenges_ni(challenges, cfg->challenges, (unsigned)k, cfg->nodes, s->replica_id,
                             s->comm_r);
        else if (cfg->kind == FC_POREP_SYNTHETIC)
            fc_challenges_synthetic(challenges, cfg->challenges, (unsigned)k, cfg->nodes, 0,
                                    s->replica_id, s->comm_r, seed);
        else
            fc_challenges_interactive(challenges, cfg->challenges, (unsigned)k, cfg->nodes,
                                      s->replica_id, seed);
        for (size_t i = 0; i < c1->challenges; i++)
            proof_from(&c1->part[k][i], s, (uint32_t)challenges[i]);
    }
    rc = vanilla_c1_check(c1, err);
    if (rc) vanilla_c1_free(c1);
    return rc;
}
