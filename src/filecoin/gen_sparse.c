/*
 * gen_sparse.c - the commit-phase-1 output of a committed-capacity test
 * sector of any size, computed without sealing it (gen.h fc_sparse_c1).
 *
 * A C2 prover, like any verifier, sees only what the challenges open: per
 * challenge the tree-D path of its data node, the tree-R-last path of its
 * replica node, the columns (one label per layer) of the node and of its
 * 14 parents with their tree-C paths, and the 37 parent labels hashed into
 * each of its labels. So only those are computed:
 *
 * - the data is all zero (CC): tree-D is the zero tree (a level-h node is
 *   the hash of two level h - 1 zero nodes), comm_d its root; replica_id
 *   and the interactive challenges follow from it as in sealing (sdr.c);
 * - a challenged node's label in every layer follows the SDR rule from its
 *   parents' labels (DRG parents in the same layer, expander parents in
 *   the previous one), computed layer after layer and, in a layer, node
 *   after node upwards: a DRG parent is a smaller node, so a challenged
 *   parent's label is ready first. Every other label is PRF(layer, node);
 * - tree-C (leaves: Poseidon column hashes) and tree-R-last (leaves: the
 *   last layer's labels, the data being zero) are sparse trees: the opened
 *   leaves and every node above them, hashed bottom-up from its children,
 *   a child off every opened path being PRF(level, index). Level h + 1's
 *   node i hashes level h's nodes [a i, a i + a) for that level's arity a
 *   (vanilla_tree_r's 8-ary base levels, then sub and top levels), which is
 *   the layout of the paths and of merkletree's compound trees.
 *
 * PRF(tag, a, b) = SHA256(key || tag || a || b), each a u64 little-endian,
 * top two bits cleared (a field element, as labels are), with key =
 * SHA256("cuzk sparse cc sector" || replica_id || seed u64 LE): the same
 * sector ids give the same C1. The memo of computed values is a sorted
 * array per kind (challenged nodes' labels, each tree level's opened
 * nodes), searched by bisection. Memory is O(challenges x parents x tree
 * levels): 32GiB opens 180 challenges and at most 2,700 columns.
 *
 * What this cannot do: Synthetic and NI PoRep draw their challenges from
 * comm_r, which commits to every node, so the nodes they open are not
 * known before the trees are; answering them needs the whole sector.
 */
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/tree.h"
#include "cuzk/fr.h"
#include "cuzk/poseidon.h"
#include "vanilla_internal.h"

#define NB      FC_NODE_BYTES
#define KEY_TAG "cuzk sparse cc sector"
#define NOT_SET SIZE_MAX

enum { PRF_LABEL = 1, PRF_TREE_C = 2, PRF_TREE_R = 3 };

/* A sparse tree: per level, the nodes on opened paths (sorted) and their values. */
typedef struct sparse_tree {
    const vanilla_tree *shape;
    uint64_t tag; /* PRF domain of the nodes off the opened paths */
    size_t n[VANILLA_MAX_LEVELS + 1];
    uint64_t *index[VANILLA_MAX_LEVELS + 1];
    vanilla_node *value[VANILLA_MAX_LEVELS + 1];
} sparse_tree;

typedef struct sparse {
    const fc_porep_config *cfg;
    fc_graph graph;
    uint8_t replica_id[32], key[32];
    size_t n_chal;
    uint64_t *chal;       /* the distinct challenged nodes, increasing */
    vanilla_node *labels; /* [(layer - 1) * n_chal + i]: chal[i]'s SDR label */
    sparse_tree tree_c, tree_r;
    vanilla_node zero[VANILLA_MAX_LEVELS + 1]; /* tree-D: zero[h] is any level-h node */
} sparse;

static void prf(const sparse *s, uint64_t tag, uint64_t a, uint64_t b, vanilla_node *out)
{
    uint8_t msg[32 + 24];
    memcpy(msg, s->key, 32);
    const uint64_t words[3] = {tag, a, b};
    for (int w = 0; w < 3; w++)
        for (int i = 0; i < 8; i++) msg[32 + 8 * w + i] = (uint8_t)(words[w] >> (8 * i));
    SHA256(msg, sizeof msg, out->b);
    out->b[31] &= 0x3f;
}

static size_t find(const uint64_t *a, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo] == v ? lo : NOT_SET;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Sorts a and drops repeats; returns the count left. */
static size_t sort_unique(uint64_t *a, size_t n)
{
    qsort(a, n, sizeof(*a), cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || a[m - 1] != a[i]) a[m++] = a[i];
    return m;
}

/* node's label in layer (1-based): the SDR one if node is challenged, else the PRF's. */
static void label(const sparse *s, unsigned layer, uint64_t node, vanilla_node *out)
{
    size_t i = find(s->chal, s->n_chal, node);
    if (i == NOT_SET)
        prf(s, PRF_LABEL, layer, node, out);
    else
        *out = s->labels[(size_t)(layer - 1) * s->n_chal + i];
}

/* The 37 parent labels of a label in layer, parents in cache order. */
static void label_parents(const sparse *s, unsigned layer, const uint32_t parents[FC_DEGREE],
                          vanilla_node out[FC_LABEL_PARENTS])
{
    unsigned degree = layer == 1 ? FC_BASE_DEGREE : FC_DEGREE;
    for (unsigned k = 0; k < degree; k++)
        label(s, k < FC_BASE_DEGREE ? layer : layer - 1, parents[k], &out[k]);
    fc_label_parents_repeat((uint8_t *)out, layer);
}

static void sdr_labels(sparse *s)
{
    vanilla_node parent_labels[FC_LABEL_PARENTS];
    uint32_t parents[FC_DEGREE];
    for (unsigned l = 1; l <= s->cfg->layers; l++)
        for (size_t i = 0; i < s->n_chal; i++) {
            fc_graph_parents(&s->graph, (uint32_t)s->chal[i], parents);
            label_parents(s, l, parents, parent_labels);
            fc_label_from_parents(s->labels[(size_t)(l - 1) * s->n_chal + i].b, s->replica_id, l,
                                  s->chal[i], (const uint8_t *)parent_labels);
        }
}

static void column_hash(const sparse *s, uint64_t node, vanilla_node *out)
{
    vanilla_node rows[POSEIDON_MAX_ARITY];
    for (unsigned l = 1; l <= s->cfg->layers; l++) label(s, l, node, &rows[l - 1]);
    fc_column_hash(out->b, (const uint8_t *)rows, 1, s->cfg->layers, 0);
}

/* Node i of level h: computed if on an opened path, else the PRF's. */
static void tree_node(const sparse *s, const sparse_tree *t, unsigned h, uint64_t i,
                      vanilla_node *out)
{
    size_t at = find(t->index[h], t->n[h], i);
    if (at == NOT_SET)
        prf(s, t->tag, h, i, out);
    else
        *out = t->value[h][at];
}

/* Level h + 1 of t from level h: every parent of an opened node. */
static int tree_level(const sparse *s, sparse_tree *t, unsigned h)
{
    unsigned a = t->shape->arity[h];
    size_t n = 0;
    uint64_t *idx = malloc(t->n[h] * sizeof(*idx));
    vanilla_node *val = malloc(t->n[h] * sizeof(*val));
    if (!idx || !val) {
        free(idx), free(val);
        return CUZK_ENOMEM;
    }
    for (size_t j = 0; j < t->n[h]; j++)
        if (!n || idx[n - 1] != t->index[h][j] / a) idx[n++] = t->index[h][j] / a;
#pragma omp parallel for schedule(dynamic, 2)
    for (size_t j = 0; j < n; j += 8) { /* eight a poseidon_hash_batch */
        vanilla_node children[8 * 16];  /* below 2^254: canonical */
        size_t b = n - j < 8 ? n - j : 8;
        for (size_t p = 0; p < b; p++)
            for (unsigned k = 0; k < a; k++)
                tree_node(s, t, h, idx[j + p] * a + k, &children[p * a + k]);
        fc_tree_hash_nodes(val[j].b, children[0].b, a, b);
    }
    t->n[h + 1] = n;
    t->index[h + 1] = idx;
    t->value[h + 1] = val;
    return CUZK_OK;
}

/* Builds t over the opened leaves (index, value: n of them, sorted; t owns them). */
static int tree_build(const sparse *s, sparse_tree *t, uint64_t *index, vanilla_node *value,
                      size_t n)
{
    t->n[0] = n;
    t->index[0] = index;
    t->value[0] = value;
    int rc = CUZK_OK;
    for (unsigned h = 0; !rc && h < t->shape->levels; h++) rc = tree_level(s, t, h);
    return rc;
}

static void tree_free(sparse_tree *t)
{
    for (unsigned h = 0; h <= VANILLA_MAX_LEVELS; h++) free(t->index[h]), free(t->value[h]);
}

static const vanilla_node *tree_root(const sparse_tree *t)
{
    return &t->value[t->shape->levels][0];
}

static void tree_proof(const sparse *s, const sparse_tree *t, uint64_t leaf, vanilla_merkle *m)
{
    m->index = leaf;
    m->root = *tree_root(t);
    tree_node(s, t, 0, leaf, &m->leaf);
    size_t off = 0;
    for (unsigned h = 0; h < t->shape->levels; h++) {
        unsigned a = t->shape->arity[h];
        uint64_t first = leaf / a * a;
        for (unsigned k = 0; k < a; k++)
            if (first + k != leaf) tree_node(s, t, h, first + k, &m->hashes[off++]);
        leaf /= a;
    }
}

/* tree-D of an all-zero sector: every sibling on every path is a zero node. */
static void zero_proof(const sparse *s, const vanilla_tree *d, uint64_t leaf, vanilla_merkle *m)
{
    m->index = leaf;
    m->root = s->zero[d->levels];
    m->leaf = s->zero[0];
    for (unsigned h = 0; h < d->levels; h++) m->hashes[h] = s->zero[h];
}

static void zero_tree(sparse *s, unsigned levels)
{
    memset(&s->zero[0], 0, NB);
    for (unsigned h = 0; h < levels; h++) {
        vanilla_node pair[2] = {s->zero[h], s->zero[h]};
        fc_tree_hash_node(s->zero[h + 1].b, FC_TREE_SHA256, pair[0].b, 2);
    }
}

/* The challenges of every partition, in C1 order (partition k's at k x C). */
static void challenges(const sparse *s, uint64_t *out, size_t partitions, size_t per,
                       const uint8_t seed[32])
{
    for (size_t k = 0; k < partitions; k++)
        fc_challenges_interactive(out + k * per, (unsigned)per, (unsigned)k, s->cfg->nodes,
                                  s->replica_id, seed);
}

/* tree-C over the columns of the challenged nodes and their parents. */
static int columns_tree(sparse *s)
{
    size_t n = s->n_chal * (1 + FC_DEGREE);
    uint64_t *cols = malloc(n * sizeof(*cols));
    vanilla_node *hashes = malloc(n * sizeof(*hashes));
    if (!cols || !hashes) {
        free(cols), free(hashes);
        return CUZK_ENOMEM;
    }
    for (size_t i = 0; i < s->n_chal; i++) {
        uint32_t parents[FC_DEGREE];
        fc_graph_parents(&s->graph, (uint32_t)s->chal[i], parents);
        cols[i * (1 + FC_DEGREE)] = s->chal[i];
        for (int k = 0; k < FC_DEGREE; k++) cols[i * (1 + FC_DEGREE) + 1 + k] = parents[k];
    }
    n = sort_unique(cols, n);
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t i = 0; i < n; i++) column_hash(s, cols[i], &hashes[i]);
    return tree_build(s, &s->tree_c, cols, hashes, n);
}

/* tree-R-last over the challenged nodes: data zero, so each replica node is its last label. */
static int replica_tree(sparse *s)
{
    uint64_t *idx = malloc(s->n_chal * sizeof(*idx));
    vanilla_node *val = malloc(s->n_chal * sizeof(*val));
    if (!idx || !val) {
        free(idx), free(val);
        return CUZK_ENOMEM;
    }
    memcpy(idx, s->chal, s->n_chal * sizeof(*idx));
    memcpy(val, s->labels + (size_t)(s->cfg->layers - 1) * s->n_chal, s->n_chal * sizeof(*val));
    return tree_build(s, &s->tree_r, idx, val, s->n_chal);
}

static void fill_column(const sparse *s, vanilla_column *c, uint32_t node)
{
    c->index = node;
    for (unsigned l = 1; l <= s->cfg->layers; l++) label(s, l, node, &c->rows[l - 1]);
    tree_proof(s, &s->tree_c, node, &c->proof);
}

static void fill_label(const sparse *s, vanilla_label *lp, unsigned layer, uint64_t node,
                       const uint32_t parents[FC_DEGREE])
{
    lp->layer = layer;
    lp->node = node;
    label_parents(s, layer, parents, lp->parents);
}

static void fill_proof(const sparse *s, const vanilla_c1 *c1, vanilla_porep_proof *p, uint64_t c)
{
    uint32_t parents[FC_DEGREE];
    fc_graph_parents(&s->graph, (uint32_t)c, parents);
    zero_proof(s, &c1->tree_d, c, &p->comm_d);
    tree_proof(s, &s->tree_r, c, &p->comm_r_last);
    fill_column(s, &p->c_x, (uint32_t)c);
    for (int j = 0; j < FC_BASE_DEGREE; j++) fill_column(s, &p->drg[j], parents[j]);
    for (int j = 0; j < FC_EXP_DEGREE; j++) fill_column(s, &p->exp[j], parents[FC_BASE_DEGREE + j]);
    for (unsigned l = 1; l <= s->cfg->layers; l++) fill_label(s, &p->labels[l - 1], l, c, parents);
    fill_label(s, &p->encoding, s->cfg->layers, c, parents);
}

/* t's ids, comm_d (the zero tree's root), replica_id and the PRF key, into s and c1. */
static void sector_ids(sparse *s, vanilla_c1 *c1, const fc_test_sector *t)
{
    uint8_t prover_id[32], porep_id[FC_POREP_ID_BYTES];
    c1->wrapped = true;
    c1->sector_num = t->sector_id;
    fc_test_sector_ids(t, prover_id, c1->ticket.b, c1->seed.b);
    zero_tree(s, c1->tree_d.levels);
    c1->comm_d = s->zero[c1->tree_d.levels];
    fc_porep_id(porep_id, t->cfg->id);
    fc_replica_id(s->replica_id, prover_id, t->sector_id, c1->ticket.b, c1->comm_d.b, porep_id);
    memcpy(c1->replica_id.b, s->replica_id, NB);
    uint8_t msg[sizeof KEY_TAG - 1 + 32 + 8];
    memcpy(msg, KEY_TAG, sizeof KEY_TAG - 1);
    memcpy(msg + sizeof KEY_TAG - 1, s->replica_id, 32);
    for (int i = 0; i < 8; i++) msg[sizeof KEY_TAG - 1 + 32 + i] = (uint8_t)(t->seed >> (8 * i));
    SHA256(msg, sizeof msg, s->key);
}

/* all = every challenge in C1 order; the labels and trees they open, into s. */
static int open_challenges(sparse *s, const vanilla_c1 *c1, uint64_t *all, size_t total,
                           cuzk_err *err)
{
    s->chal = malloc(total * sizeof(*s->chal));
    s->labels = malloc((size_t)s->cfg->layers * total * sizeof(*s->labels));
    if (!s->chal || !s->labels)
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory for %zu challenges", total);
    challenges(s, all, c1->partitions, c1->challenges, c1->seed.b);
    memcpy(s->chal, all, total * sizeof(*all));
    s->n_chal = sort_unique(s->chal, total);
    sdr_labels(s);
    s->tree_c = (sparse_tree){.shape = &c1->tree_r, .tag = PRF_TREE_C};
    s->tree_r = (sparse_tree){.shape = &c1->tree_r, .tag = PRF_TREE_R};
    int rc = columns_tree(s);
    if (!rc) rc = replica_tree(s);
    return rc ? cuzk_errf(err, rc, "out of memory for the sparse trees") : CUZK_OK;
}

/* Everything from the ids to the filled proofs; s and c1 are freed by the caller. */
static int sparse_steps(sparse *s, vanilla_c1 *c1, const fc_test_sector *t, cuzk_err *err)
{
    int rc = fc_graph_for(&s->graph, t->cfg, err);
    if (!rc) rc = vanilla_c1_alloc(c1, (int)t->cfg->id, err);
    if (rc) return rc;
    sector_ids(s, c1, t);
    size_t total = c1->partitions * c1->challenges;
    uint64_t *all = malloc(total * sizeof(*all));
    rc = all ? open_challenges(s, c1, all, total, err)
             : cuzk_errf(err, CUZK_ENOMEM, "out of memory for %zu challenges", total);
    if (!rc) {
        vanilla_comm_r(&c1->comm_r, tree_root(&s->tree_c), tree_root(&s->tree_r));
#pragma omp parallel for schedule(dynamic, 1)
        for (size_t j = 0; j < total; j++)
            fill_proof(s, c1, &c1->part[j / c1->challenges][j % c1->challenges], all[j]);
    }
    free(all);
    return rc ? rc : vanilla_c1_check(c1, err);
}

int fc_sparse_c1(vanilla_c1 *c1, const fc_test_sector *t, cuzk_err *err)
{
    memset(c1, 0, sizeof(*c1));
    const fc_porep_config *cfg = t->cfg;
    if (cfg->kind == FC_POREP_SYNTHETIC || cfg->kind == FC_POREP_NI)
        return cuzk_errf(err, CUZK_EUNSUPPORTED,
                         "sparse sector: %s draws its challenges from comm_r, which commits to "
                         "every node; only a sealed sector answers them (V1 and V1_1 are "
                         "interactive and work sparse)",
                         cfg->name);
    if (t->data_path)
        return cuzk_errf(err, CUZK_EINVAL,
                         "sparse sector: data file %s given, but a sparse sector is committed "
                         "capacity (all-zero data)",
                         t->data_path);
    sparse s = {.cfg = cfg};
    int rc = sparse_steps(&s, c1, t, err);
    tree_free(&s.tree_c);
    tree_free(&s.tree_r);
    free(s.chal);
    free(s.labels);
    if (rc) {
        cuzk_err_prefix(err, "sparse %s: ", cfg->name);
        vanilla_c1_free(c1);
    }
    return rc;
}
