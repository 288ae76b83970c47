/*
 * vanilla_verify.c - the native check of a PoRep C1 output
 * (vanilla_verify.h), following what porep_circuit.c enforces.
 *
 * Once: comm_c and comm_r_last are the tree-C and tree-R roots of
 * partition 0's first proof (the circuit takes each partition's first
 * proof's roots), and comm_r must be Poseidon-2 of them. Then per
 * challenge (partition k, challenge i, node c), in this order:
 *
 *   1. c is the challenge the public inputs derive (porep_circuit_shape.c:
 *      interactive from replica_id and seed, synthetic PoRep's selection,
 *      NI from replica_id and comm_r), and every part of the proof is for
 *      c: the tree-D and tree-R paths, the challenged column and its path,
 *      the labeling proofs (layers 1..L) and the encoding proof (layer L);
 *   2. the 6 DRG and 8 expander parent columns and their tree-C paths are
 *      at the graph's parents of c (graph.h);
 *   3. the data leaf's tree-D path (binary SHA-256) hashes to comm_d;
 *   4. each of the 15 columns (c's, then its parents') hashes, Poseidon
 *      over its rows and then up its tree-C path, to comm_c;
 *   5. per layer, the labeling proof lists the 37 parent labels the
 *      columns give (DRG parents' rows of this layer, expander parents'
 *      of the previous one, repeated as the labeling repeats them), and
 *      their label (sdr.h fc_label_from_parents) is c's row of that layer; the
 *      encoding proof lists the last layer's parents again;
 *   6. the replica leaf's tree-R path hashes to comm_r_last, and that leaf
 *      is the last layer's label plus the data leaf in Fr.
 *
 * Paths are authenticated (3, 4, 6) before relations between their values
 * are checked (5, 6), so an altered value is reported where it was altered
 * (a changed row fails its column's tree-C path, not the label it feeds).
 * The proofs' own root and leaf fields must also name the commitments and
 * the hashed leaves, though the circuit does not read them.
 *
 * Challenges run in parallel (OpenMP, dynamic schedule), every one in
 * full whatever fails, each keeping its first failure; the reported one
 * is the first in (partition, challenge) order, so the message does not
 * depend on the thread count. Poseidon is nearly all the work: a 32GiB C1
 * has 180 x 16 tree-C and tree-R paths of 10 arity-8 levels and 2,700
 * column hashes (arity 11). A challenge's 15 column hashes are one
 * poseidon_hash_batch and its 16 paths go up together through
 * path_roots.h (lanes of eight hashes; a per-thread memo of both trees'
 * top levels, where a real C1's paths meet: by count it skips about
 * 10,000 of a 32GiB C1's 28,800 path hashes).
 */
#include "cuzk/filecoin/vanilla_verify.h"

#include <inttypes.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/graph.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/tree.h"
#include "cuzk/fr.h"
#include "cuzk/poseidon.h"
#include "path_roots.h"
#include "vanilla_internal.h"

#define N_COLUMNS (1 + VANILLA_DRG_PARENTS + VANILLA_EXP_PARENTS) /* c_x, then the parents */
#define NB        FC_NODE_BYTES

_Static_assert(sizeof(vanilla_node) == NB, "vanilla nodes are hashed as 32-byte arrays");

/* What every challenge reads. */
typedef struct verify_ctx {
    const vanilla_c1 *c1;
    fc_graph graph;
    const char *derived; /* how they are derived, for messages */
    const vanilla_node *comm_c, *comm_r_last;
} verify_ctx;

/* Levels of tree-C and tree-R with at most this many nodes are memoized
 * (32GiB: 1 + 8 + 64 + 512 nodes a tree, 340 KB a thread). */
#define MEMO_NODES 512

/* Tree numbers in the memo. */
enum { TREE_C, TREE_R };

/* One challenge's check and its first failure (err.code 0 while none). */
typedef struct challenge_check {
    const verify_ctx *v;
    const vanilla_porep_proof *p;
    size_t k, i;
    uint64_t node;                       /* the derived challenge */
    vanilla_node column_leaf[N_COLUMNS]; /* each column's hash, when hashed[j] */
    bool hashed[N_COLUMNS];              /* false: a row is not a field element */
    path_job column_path[N_COLUMNS];     /* tree-C paths (ok false where not hashed) */
    path_job replica_path;               /* the tree-R path */
    cuzk_err err;
} challenge_check;

__attribute__((format(printf, 2, 3))) static void fail(challenge_check *c, const char *fmt, ...)
{
    if (c->err.code) return;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    cuzk_errf(&c->err, CUZK_EVERIFY, "C1 partition %zu, challenge %zu (node %" PRIu64 "): %s", c->k,
              c->i, c->node, what);
}

static bool node_eq(const vanilla_node *a, const vanilla_node *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* Column j of p: 0 the challenged node's, 1..6 the DRG parents', 7..14 the expander parents'. */
static const vanilla_column *column_of(const vanilla_porep_proof *p, unsigned j)
{
    if (j == 0) return &p->c_x;
    return j <= VANILLA_DRG_PARENTS ? &p->drg[j - 1] : &p->exp[j - 1 - VANILLA_DRG_PARENTS];
}

static const char *column_name(char buf[32], unsigned j)
{
    if (j == 0) return "the challenged column";
    if (j <= VANILLA_DRG_PARENTS)
        snprintf(buf, 32, "DRG parent %u", j - 1);
    else
        snprintf(buf, 32, "expander parent %u", j - 1 - VANILLA_DRG_PARENTS);
    return buf;
}

/* ---- hashing ---- */

/* The children of level l of m's path, cur in its place, into block;
 * false when a sibling is not a field element. */
static bool level_children(uint8_t *block, const vanilla_merkle *m, const vanilla_tree *t,
                           unsigned l, const uint8_t cur[NB])
{
    unsigned at;
    const vanilla_node *sib = vanilla_merkle_level(m, t, l, &at);
    for (unsigned j = 0, s = 0; j < t->arity[l]; j++) {
        if (j != at && !vanilla_node_canonical(&sib[s])) return false;
        memcpy(block + j * NB, j == at ? cur : sib[s++].b, NB);
    }
    return true;
}

/* The root that leaf and m's path hash to in tree-D (binary SHA-256,
 * byte 31 &= 0x3f); false when the leaf or a sibling is not a field
 * element (the circuit allocates each as one). */
static bool sha_root(vanilla_node *root, const vanilla_merkle *m, const vanilla_tree *t,
                     const vanilla_node *leaf)
{
    uint8_t cur[NB], block[2 * NB];
    if (!vanilla_node_canonical(leaf)) return false;
    memcpy(cur, leaf->b, NB);
    for (unsigned l = 0; l < t->levels; l++) {
        if (!level_children(block, m, t, l, cur)) return false;
        fc_tree_hash_node(cur, FC_TREE_SHA256, block, 2);
    }
    memcpy(root->b, cur, NB);
    return true;
}

/* Each column's hash (Poseidon over its rows, arity = layers; one batch),
 * then the 15 tree-C paths and the tree-R path, all through memo. */
static void hash_paths(challenge_check *c, path_memo *memo)
{
    const vanilla_c1 *c1 = c->v->c1;
    unsigned layers = c1->shape->layers;
    fr_t rows[N_COLUMNS * POSEIDON_MAX_ARITY], out[N_COLUMNS];
    unsigned which[N_COLUMNS], n = 0;
    for (unsigned j = 0; j < N_COLUMNS; j++) {
        const vanilla_column *col = column_of(c->p, j);
        c->hashed[j] = true;
        for (unsigned l = 0; l < layers && c->hashed[j]; l++)
            c->hashed[j] = fr_from_bytes_le(&rows[n * layers + l], col->rows[l].b);
        if (c->hashed[j]) which[n++] = j;
    }
    poseidon_hash_batch(out, poseidon_std(layers), rows, n);
    path_job jobs[N_COLUMNS + 1];
    for (unsigned k = 0; k < n; k++) {
        unsigned j = which[k];
        fr_to_bytes_le(c->column_leaf[j].b, &out[k]);
        jobs[k] =
            (path_job){.m = &column_of(c->p, j)->proof, .leaf = &c->column_leaf[j], .tree = TREE_C};
    }
    const vanilla_merkle *r = &c->p->comm_r_last;
    jobs[n] = (path_job){.m = r, .leaf = &r->leaf, .tree = TREE_R};
    path_roots(jobs, n + 1, &c1->tree_r, memo);
    for (unsigned j = 0; j < N_COLUMNS; j++) c->column_path[j].ok = false;
    for (unsigned k = 0; k < n; k++) c->column_path[which[k]] = jobs[k];
    c->replica_path = jobs[n];
}

/* ---- the steps of one challenge ---- */

static void check_index(challenge_check *c, uint64_t got, const char *what)
{
    if (got != c->node)
        fail(c, "%s is for node %" PRIu64 ", not the challenge %s", what, got, c->v->derived);
}

/* 1: every part of the proof is for the derived challenge. */
static void check_nodes(challenge_check *c)
{
    const vanilla_porep_proof *p = c->p;
    unsigned layers = c->v->c1->shape->layers;
    check_index(c, p->comm_d.index, "the tree-D path");
    check_index(c, p->comm_r_last.index, "the tree-R path");
    check_index(c, p->c_x.index, "the challenged column");
    check_index(c, p->c_x.proof.index, "the challenged column's tree-C path");
    for (unsigned l = 0; l < layers; l++) {
        char what[48];
        snprintf(what, sizeof what, "the labeling proof of layer %u", l + 1);
        if (p->labels[l].layer != l + 1)
            fail(c, "the labeling proof of layer %u is marked layer %" PRIu32, l + 1,
                 p->labels[l].layer);
        check_index(c, p->labels[l].node, what);
    }
    if (p->encoding.layer != layers)
        fail(c, "the encoding proof is for layer %" PRIu32 ", not the last (%u)", p->encoding.layer,
             layers);
    check_index(c, p->encoding.node, "the encoding proof");
}

/* 2: the parent columns are the graph's parents of the challenge. */
static void check_parents(challenge_check *c)
{
    uint32_t parents[FC_DEGREE];
    fc_graph_parents(&c->v->graph, (uint32_t)c->node, parents);
    for (unsigned j = 1; j < N_COLUMNS; j++) {
        const vanilla_column *col = column_of(c->p, j);
        uint32_t want = parents[j - 1];
        char name[32];
        if (col->index != want)
            fail(c, "%s is node %" PRIu32 ", the graph's is %" PRIu32, column_name(name, j),
                 col->index, want);
        if (col->proof.index != want)
            fail(c, "the tree-C path of %s is for node %" PRIu64 ", the graph's parent is %" PRIu32,
                 column_name(name, j), col->proof.index, want);
    }
}

/* 3: the data leaf is in tree-D under comm_d. */
static void check_tree_d(challenge_check *c)
{
    const vanilla_c1 *c1 = c->v->c1;
    vanilla_node root;
    if (!sha_root(&root, &c->p->comm_d, &c1->tree_d, &c->p->comm_d.leaf))
        fail(c, "the data leaf or its tree-D path holds a value that is not a field element");
    else if (!node_eq(&root, &c1->comm_d))
        fail(c, "the tree-D path does not hash to comm_d");
    if (!node_eq(&c->p->comm_d.root, &c1->comm_d)) fail(c, "the tree-D proof's root is not comm_d");
}

/* 4: every column is in tree-C under comm_c. */
static void check_columns(challenge_check *c)
{
    for (unsigned j = 0; j < N_COLUMNS; j++) {
        const vanilla_column *col = column_of(c->p, j);
        const path_job *path = &c->column_path[j];
        char name[32];
        if (!path->ok)
            fail(c, "%s or its tree-C path holds a value that is not a field element",
                 column_name(name, j));
        else if (!node_eq(&path->root, c->v->comm_c))
            fail(c, "the tree-C path of %s does not hash to comm_c", column_name(name, j));
        if (c->hashed[j] && !node_eq(&col->proof.leaf, &c->column_leaf[j]))
            fail(c, "the tree-C proof of %s has a leaf that is not its column's hash",
                 column_name(name, j));
        if (!node_eq(&col->proof.root, c->v->comm_c))
            fail(c, "the tree-C proof of %s names a root other than comm_c", column_name(name, j));
    }
}

/* The 37 parent labels of layer (1-based) as the columns give them. */
static void expected_parents(const vanilla_node *out[VANILLA_TOTAL_PARENTS], unsigned col[],
                             const vanilla_porep_proof *p, unsigned layer)
{
    unsigned degree = layer == 1 ? VANILLA_DRG_PARENTS : VANILLA_DRG_PARENTS + VANILLA_EXP_PARENTS;
    for (unsigned j = 0; j < VANILLA_TOTAL_PARENTS; j++) {
        unsigned s = j % degree;
        col[j] = 1 + s;
        out[j] = s < VANILLA_DRG_PARENTS ? &p->drg[s].rows[layer - 1]
                                         : &p->exp[s - VANILLA_DRG_PARENTS].rows[layer - 2];
    }
}

/* A labeling (or the encoding) proof's parents against the columns. */
static void check_listed(challenge_check *c, const vanilla_label *lp, const char *proof,
                         unsigned layer, const vanilla_node *want[], const unsigned col[])
{
    for (unsigned j = 0; j < VANILLA_TOTAL_PARENTS; j++)
        if (!node_eq(&lp->parents[j], want[j])) {
            char name[32];
            unsigned from = col[j] <= VANILLA_DRG_PARENTS ? layer : layer - 1;
            fail(c, "%s: parent %u is not the layer %u label of %s", proof, j, from,
                 column_name(name, col[j]));
            return;
        }
}

/* 5: every layer's label is the hash of its parents' labels. */
static void check_labels(challenge_check *c)
{
    const vanilla_c1 *c1 = c->v->c1;
    unsigned layers = c1->shape->layers;
    for (unsigned l = 1; l <= layers; l++) {
        const vanilla_node *want[VANILLA_TOTAL_PARENTS];
        unsigned col[VANILLA_TOTAL_PARENTS];
        uint8_t flat[VANILLA_TOTAL_PARENTS * NB], label[NB];
        char proof[48];
        expected_parents(want, col, c->p, l);
        snprintf(proof, sizeof proof, "the labeling proof of layer %u", l);
        check_listed(c, &c->p->labels[l - 1], proof, l, want, col);
        if (l == layers) check_listed(c, &c->p->encoding, "the encoding proof", l, want, col);
        for (unsigned j = 0; j < VANILLA_TOTAL_PARENTS; j++) memcpy(flat + j * NB, want[j]->b, NB);
        fc_label_from_parents(label, c1->replica_id.b, l, c->node, flat);
        if (memcmp(label, c->p->c_x.rows[l - 1].b, NB))
            fail(c, "the layer %u label does not match its parents", l);
    }
}

/* 6: the replica leaf is in tree-R under comm_r_last and encodes the data. */
static void check_encoding(challenge_check *c)
{
    const vanilla_c1 *c1 = c->v->c1;
    const vanilla_merkle *r = &c->p->comm_r_last;
    if (!c->replica_path.ok)
        fail(c, "the replica leaf or its tree-R path holds a value that is not a field element");
    else if (!node_eq(&c->replica_path.root, c->v->comm_r_last))
        fail(c, "the tree-R path does not hash to comm_r_last");
    if (!node_eq(&r->root, c->v->comm_r_last))
        fail(c, "the tree-R proof's root is not comm_r_last");
    unsigned last = c1->shape->layers;
    fr_t key, data;
    if (!fr_from_bytes_le(&key, c->p->c_x.rows[last - 1].b) ||
        !fr_from_bytes_le(&data, c->p->comm_d.leaf.b))
        return; /* failed already: the challenged column's or the data leaf's path */
    fr_add(&key, &key, &data);
    uint8_t replica[NB];
    fr_to_bytes_le(replica, &key);
    if (memcmp(replica, r->leaf.b, NB))
        fail(c, "the replica leaf is not the layer %u label plus the data leaf (the encoding)",
             last);
}

static void check_challenge(challenge_check *c, path_memo *memo)
{
    hash_paths(c, memo);
    check_nodes(c);
    check_parents(c);
    check_tree_d(c);
    check_columns(c);
    check_labels(c);
    check_encoding(c);
}

/* ---- the whole C1 ---- */

/* The challenges of every partition, as porep_public_inputs derives them. */
static int derive_challenges(verify_ctx *v, uint64_t **out, cuzk_err *err)
{
    const vanilla_c1 *c1 = v->c1;
    const fc_porep_config *cfg = fc_porep_config_get((uint64_t)c1->registered_proof);
    int rc = fc_graph_for(&v->graph, cfg, err);
    if (rc) return rc;
    size_t n = c1->partitions * c1->challenges;
    uint64_t *ch = malloc(n * sizeof *ch);
    if (!ch) return cuzk_errf(err, CUZK_ENOMEM, "C1 check: out of memory");
    unsigned per = (unsigned)c1->challenges;
    const uint8_t *rid = c1->replica_id.b;
    for (unsigned k = 0; k < c1->partitions; k++) {
        uint64_t *o = ch + (size_t)k * per;
        if (cfg->kind == FC_POREP_NI)
            fc_challenges_ni(o, per, k, cfg->nodes, rid, c1->comm_r.b);
        else if (cfg->kind == FC_POREP_SYNTHETIC)
            fc_challenges_synthetic(o, per, k, cfg->nodes, 0, rid, c1->comm_r.b, c1->seed.b);
        else
            fc_challenges_interactive(o, per, k, cfg->nodes, rid, c1->seed.b);
    }
    v->derived = cfg->kind == FC_POREP_NI ? "from replica_id and comm_r"
                 : cfg->kind == FC_POREP_SYNTHETIC
                     ? "the seed selects among the synthetic ones of replica_id and comm_r"
                     : "from replica_id and seed";
    *out = ch;
    return CUZK_OK;
}

/* comm_c and comm_r_last from partition 0's first proof, and comm_r from them. */
static int check_comm_r(verify_ctx *v, cuzk_err *err)
{
    const vanilla_porep_proof *first = &v->c1->part[0][0];
    v->comm_c = &first->c_x.proof.root;
    v->comm_r_last = &first->comm_r_last.root;
    if (!vanilla_node_canonical(v->comm_c) || !vanilla_node_canonical(v->comm_r_last))
        return cuzk_errf(err, CUZK_EVERIFY,
                         "C1 partition 0, challenge 0: a tree-C or tree-R root (comm_c, "
                         "comm_r_last) is not a field element");
    if (!vanilla_comm_r_matches(&v->c1->comm_r, v->comm_c, v->comm_r_last))
        return cuzk_errf(err, CUZK_EVERIFY,
                         "C1 comm_r is not Poseidon(comm_c, comm_r_last) of the tree-C and tree-R "
                         "roots of partition 0, challenge 0");
    return CUZK_OK;
}

int fc_porep_c1_verify(const vanilla_c1 *c1, cuzk_err *err)
{
    int rc = vanilla_c1_check_shape(c1, err);
    if (rc) return rc;
    verify_ctx v = {.c1 = c1};
    uint64_t *challenges = NULL;
    if ((rc = check_comm_r(&v, err)) || (rc = derive_challenges(&v, &challenges, err))) return rc;
    size_t n = c1->partitions * c1->challenges, first = n;
    cuzk_err first_err = {0};
#pragma omp parallel
    {
        path_memo *memo = path_memo_new(&c1->tree_r, c1->shape->nodes, 2, MEMO_NODES);
#pragma omp for schedule(dynamic)
        for (size_t t = 0; t < n; t++) {
            size_t k = t / c1->challenges, i = t % c1->challenges;
            challenge_check c = {
                .v = &v, .p = &c1->part[k][i], .k = k, .i = i, .node = challenges[t]};
            check_challenge(&c, memo);
            if (c.err.code) {
#pragma omp critical(fc_porep_c1_verify)
                if (t < first) {
                    first = t;
                    first_err = c.err;
                }
            }
        }
        path_memo_free(memo);
    }
    free(challenges);
    if (first == n) return CUZK_OK;
    if (err) *err = first_err;
    return first_err.code;
}
