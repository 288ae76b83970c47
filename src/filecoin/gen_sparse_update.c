/*
 * gen_sparse_update.c - a SnapDeals update of any size, 32GiB and 64GiB
 * included, with every partition's proof, in under a CPU-second and 30
 * MB (gen.h fc_sparse_update). TEST DATA: no sealed sector behind it.
 *
 * Why not "pseudo-random wherever unopened", as fc_sparse_c1 does: the
 * update's values form a cycle. The challenges are derived from
 * comm_r_new, the root of tree-R-new, whose challenged leaves are
 * replica_old + data_new x rho, and rho = H(phi, high bits) with phi =
 * H(comm_d_new, comm_r_old) - roots of trees holding those very leaves.
 * A sparse tree (opened paths hashed, everything off them pseudo-random)
 * needs to know which leaves are opened before its root exists, and each
 * of the three roots here is needed before the opened leaves are known
 * (tree-R-new's leaves need rho, hence the other two roots; the opened
 * positions need tree-R-new's root). Nothing short of breaking Poseidon
 * or SHA-256 closes that cycle.
 *
 * So the sector is made whole instead, and cheap: a real sector whose
 * every node is defined, with every tree the true tree over its leaves,
 * structured so that its trees have few distinct nodes:
 *
 *   replica_old[i] = PRF(OLD, i mod P),  data_new[i] = PRF(DATA, i mod P),
 *   comm_c = PRF(COMM_C, 0), replica_new = the real encoding (gen.h),
 *
 * P = min(64, the size of rho's groups 2^(challenge_bits - h)). A node
 * covering leaves [jW, (j + 1)W) of tree-R-old or tree-D-new then depends
 * only on its level and j mod P/W (W < P), or on its level alone (W >= P);
 * one of tree-R-new also on rho's group while W is below the group size,
 * and above that on j itself (fewer than 2^h such nodes). Each level's
 * distinct nodes are computed once, bottom-up, keyed that way: at 32GiB
 * with h = 10 about 14,000 arity-8 Poseidon hashes. The roots, phi, rho, the
 * challenges update_challenges(comm_r_new, k), the apex leaves and every
 * opening are then exactly what fc_gen_update makes of that sector
 * (fc_sparse_update_sector gives it, and the tests compare at small
 * sizes): the update proves and verifies as a real one. What is not
 * random is the period: the old replica and new data take P values each,
 * pseudo-random, repeated along the sector.
 *
 * PRF(tag, i) = SHA256(key || tag u64 LE || i u64 LE), top two bits
 * cleared (a field element), key = SHA256("cuzk sparse update" || seed
 * u64 LE || nodes u64 LE).
 */
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/tree.h"
#include "cuzk/poseidon.h"

#define KEY_TAG    "cuzk sparse update"
#define MAX_PERIOD 64

enum { PRF_OLD = 1, PRF_DATA = 2, PRF_COMM_C = 3 };

typedef struct prf_key {
    uint8_t b[32];
} prf_key;

/* One tree's distinct nodes per level (see the header). */
typedef struct stree {
    por_shape shape;
    int hash; /* FC_TREE_SHA256 or FC_TREE_POSEIDON */
    size_t levels;
    uint64_t nodes, group, period;
    uint64_t width[POR_MAX_LEVELS + 1]; /* leaves under a node of the level */
    uint64_t count[POR_MAX_LEVELS + 1];
    vanilla_node *val[POR_MAX_LEVELS + 1];
} stree;

/* The sector's values (leaf functions of the three trees). */
typedef struct sector {
    prf_key key;
    uint64_t period;
    unsigned shift;                         /* challenge_bits - h: rho's group is i >> shift */
    fr_t *rho;                              /* per group */
    fr_t old[MAX_PERIOD], data[MAX_PERIOD]; /* one period of each */
    vanilla_node comm_c;
} sector;

static void prf(const prf_key *k, uint64_t tag, uint64_t i, vanilla_node *out)
{
    uint8_t msg[32 + 16];
    memcpy(msg, k->b, 32);
    for (int b = 0; b < 8; b++) {
        msg[32 + b] = (uint8_t)(tag >> (8 * b));
        msg[40 + b] = (uint8_t)(i >> (8 * b));
    }
    SHA256(msg, sizeof msg, out->b);
    out->b[31] &= 0x3f;
}

static void sector_init(sector *x, const update_shape *s, unsigned h, uint64_t seed)
{
    uint8_t msg[sizeof KEY_TAG - 1 + 16];
    memcpy(msg, KEY_TAG, sizeof KEY_TAG - 1);
    for (int b = 0; b < 8; b++) {
        msg[sizeof KEY_TAG - 1 + b] = (uint8_t)(seed >> (8 * b));
        msg[sizeof KEY_TAG - 1 + 8 + b] = (uint8_t)(s->nodes >> (8 * b));
    }
    SHA256(msg, sizeof msg, x->key.b);
    x->shift = s->challenge_bits - h;
    uint64_t group = 1ull << x->shift;
    x->period = group < MAX_PERIOD ? group : MAX_PERIOD;
    prf(&x->key, PRF_COMM_C, 0, &x->comm_c);
    for (uint64_t i = 0; i < x->period; i++) {
        vanilla_node n;
        prf(&x->key, PRF_OLD, i, &n);
        fr_from_bytes_le(&x->old[i], n.b);
        prf(&x->key, PRF_DATA, i, &n);
        fr_from_bytes_le(&x->data[i], n.b);
    }
}

static void leaf_old(const sector *x, uint64_t i, fr_t *out)
{
    *out = x->old[i % x->period];
}

static void leaf_data(const sector *x, uint64_t i, fr_t *out)
{
    *out = x->data[i % x->period];
}

/* ---- keyed levels ---- */

static uint64_t residues(const stree *t, size_t l)
{
    return t->width[l] >= t->period ? 1 : t->period / t->width[l];
}

/* Node j of level l's key: j itself once a node spans whole groups
 * (W >= group), else its group and j mod P/W (1 when W >= P). */
static uint64_t key_of(const stree *t, size_t l, uint64_t j)
{
    uint64_t w = t->width[l];
    if (w >= t->group) return j;
    uint64_t m = residues(t, l);
    return j / (t->group / w) * m + j % m;
}

/* A node of level l with the given key. */
static uint64_t rep_of(const stree *t, size_t l, uint64_t key)
{
    uint64_t w = t->width[l];
    if (w >= t->group) return key;
    uint64_t m = residues(t, l);
    return key / m * (t->group / w) + key % m;
}

static const vanilla_node *node(const stree *t, size_t l, uint64_t j)
{
    return &t->val[l][key_of(t, l, j)];
}

static void stree_shape(stree *t, const por_shape *shape, int hash, uint64_t nodes, uint64_t group,
                        uint64_t period)
{
    memset(t, 0, sizeof(*t));
    t->shape = *shape;
    t->hash = hash;
    t->levels = por_shape_levels(shape);
    t->nodes = nodes;
    t->group = group;
    t->period = period;
    t->width[0] = 1;
    for (size_t l = 0; l < t->levels; l++)
        t->width[l + 1] = t->width[l] * por_shape_arity(shape, l);
    for (size_t l = 0; l <= t->levels; l++)
        t->count[l] = t->width[l] >= group ? nodes / t->width[l] : nodes / group * residues(t, l);
}

static void stree_free(stree *t)
{
    for (size_t l = 0; l <= POR_MAX_LEVELS; l++) free(t->val[l]);
}

/* Level l + 1 from level l. */
static void stree_level(stree *t, size_t l)
{
    unsigned a = por_shape_arity(&t->shape, l);
    vanilla_node *out = t->val[l + 1];
    uint64_t n = t->count[l + 1];
#pragma omp parallel for schedule(static) if (n > 64)
    for (uint64_t k = 0; k < n; k += 8) { /* Poseidon: eight a poseidon_hash_batch */
        vanilla_node children[8 * POR_MAX_ARITY];
        uint64_t b = n - k < 8 ? n - k : 8;
        for (uint64_t p = 0; p < b; p++) {
            uint64_t j = rep_of(t, l + 1, k + p);
            for (unsigned c = 0; c < a; c++) children[p * a + c] = *node(t, l, j * a + c);
        }
        if (t->hash == FC_TREE_POSEIDON)
            fc_tree_hash_nodes(out[k].b, children[0].b, a, b);
        else
            for (uint64_t p = 0; p < b; p++)
                fc_tree_hash_node(out[k + p].b, t->hash, children[p * a].b, a);
    }
}

typedef void leaf_fn(const sector *x, uint64_t i, fr_t *out);

/* The leaves through fn (or, fn NULL, tree-R-new's: old + data x rho), then every level. */
static int stree_build(stree *t, const sector *x, leaf_fn *fn, cuzk_err *err)
{
    for (size_t l = 0; l <= t->levels; l++)
        if (!(t->val[l] = malloc(t->count[l] * sizeof(vanilla_node))))
            return cuzk_errf(err, CUZK_ENOMEM, "sparse update: out of memory for %llu nodes",
                             (unsigned long long)t->count[l]);
#pragma omp parallel for schedule(static) if (t->count[0] > 1024)
    for (uint64_t k = 0; k < t->count[0]; k++) {
        uint64_t i = rep_of(t, 0, k);
        fr_t v, d;
        if (fn) {
            fn(x, i, &v);
        } else {
            leaf_data(x, i, &d);
            fr_mul(&d, &d, &x->rho[i >> x->shift]);
            leaf_old(x, i, &v);
            fr_add(&v, &v, &d);
        }
        fr_to_bytes_le(t->val[0][k].b, &v);
    }
    for (size_t l = 0; l < t->levels; l++) stree_level(t, l);
    return CUZK_OK;
}

static const vanilla_node *stree_root(const stree *t)
{
    return &t->val[t->levels][0];
}

/* The inclusion proof of leaf (the vanilla_merkle layout: per level, the siblings in order). */
static void stree_proof(const stree *t, uint64_t leaf, vanilla_merkle *m)
{
    m->index = leaf;
    m->leaf = *node(t, 0, leaf);
    m->root = *stree_root(t);
    size_t off = 0;
    uint64_t j = leaf;
    for (size_t l = 0; l < t->levels; l++) {
        unsigned a = por_shape_arity(&t->shape, l);
        for (unsigned c = 0; c < a; c++)
            if (j / a * a + c != j) m->hashes[off++] = *node(t, l, j / a * a + c);
        j /= a;
    }
}

/* ---- the update ---- */

static void comm_r(vanilla_node *out, const vanilla_node *comm_c, const vanilla_node *root)
{
    fr_t pre[2], h;
    fr_from_bytes_le(&pre[0], comm_c->b);
    fr_from_bytes_le(&pre[1], root->b);
    poseidon_hash(&h, poseidon_std(2), pre);
    fr_to_bytes_le(out->b, &h);
}

static int rhos(sector *x, const update_shape *s, const fc_update *u, cuzk_err *err)
{
    uint64_t groups = s->nodes >> x->shift;
    if (!(x->rho = malloc(groups * sizeof(fr_t))))
        return cuzk_errf(err, CUZK_ENOMEM, "sparse update: out of memory for rho");
    fr_t phi, cd, cr;
    fr_from_bytes_le(&cd, u->comm_d_new.b);
    fr_from_bytes_le(&cr, u->comm_r_old.b);
    update_phi(&phi, &cd, &cr);
#pragma omp parallel for schedule(static) if (groups > 64)
    for (uint64_t g = 0; g < groups; g++) update_rho(&x->rho[g], &phi, g);
    return CUZK_OK;
}

typedef struct trees {
    stree r_old, d_new, r_new;
} trees;

static int partition(vanilla_update_partition *v, const fc_update *u, uint64_t k, const trees *t,
                     cuzk_err *err)
{
    const update_shape *s = &u->shape;
    int rc = fc_update_partition_alloc(v, s, err);
    if (rc) return rc;
    v->comm_c = u->comm_c;
    unsigned apex_row = s->challenge_bits - s->partition_bits - s->apex_bits;
    for (size_t i = 0; !s->poseidon && i < v->n_apex; i++)
        v->apex_leafs[i] = *node(&t->d_new, apex_row, k * v->n_apex + i);
    uint32_t *c = malloc(s->challenges * sizeof(uint32_t));
    if (!c) return cuzk_errf(err, CUZK_ENOMEM, "sparse update: out of memory");
    fr_t comm_r_new;
    fr_from_bytes_le(&comm_r_new, u->comm_r_new.b);
    update_challenges(c, s, &comm_r_new, k);
    for (size_t i = 0; i < v->n_challenges; i++) {
        stree_proof(&t->r_old, c[i], &v->challenges[i].r_old);
        stree_proof(&t->d_new, c[i], &v->challenges[i].d_new);
        stree_proof(&t->r_new, c[i], &v->challenges[i].r_new);
    }
    free(c);
    return CUZK_OK;
}

static int sparse_run(fc_update *u, sector *x, trees *t, cuzk_err *err)
{
    const update_shape *s = &u->shape;
    uint64_t n = s->nodes, group = 1ull << x->shift;
    por_shape d_shape = s->poseidon ? s->tree_r : (por_shape){2, 0, 0, s->challenge_bits};
    stree_shape(&t->r_old, &s->tree_r, FC_TREE_POSEIDON, n, n, x->period);
    stree_shape(&t->d_new, &d_shape, s->poseidon ? FC_TREE_POSEIDON : FC_TREE_SHA256, n, n,
                x->period);
    stree_shape(&t->r_new, &s->tree_r, FC_TREE_POSEIDON, n, group, x->period);
    int rc = stree_build(&t->r_old, x, leaf_old, err);
    if (!rc) rc = stree_build(&t->d_new, x, leaf_data, err);
    if (rc) return rc;
    u->comm_c = x->comm_c;
    comm_r(&u->comm_r_old, &u->comm_c, stree_root(&t->r_old));
    u->comm_d_new = *stree_root(&t->d_new);
    if ((rc = rhos(x, s, u, err)) || (rc = stree_build(&t->r_new, x, NULL, err))) return rc;
    comm_r(&u->comm_r_new, &u->comm_c, stree_root(&t->r_new));
    if (!(u->parts = calloc(s->partitions, sizeof(*u->parts))))
        return cuzk_errf(err, CUZK_ENOMEM, "sparse update: out of memory");
    for (uint64_t k = 0; !rc && k < s->partitions; k++, u->n_partitions++)
        rc = partition(&u->parts[k], u, k, t, err);
    return rc;
}

static int check_h(const update_shape *s, unsigned h, cuzk_err *err)
{
    for (int i = 0; i < UPDATE_HS; i++)
        if (s->hs[i] == h && h <= s->challenge_bits) return CUZK_OK;
    return cuzk_errf(err, CUZK_EINVAL, "sparse update: h = %u is not one of the shape's", h);
}

int fc_sparse_update(fc_update *u, const update_shape *s, unsigned h, uint64_t seed, cuzk_err *err)
{
    memset(u, 0, sizeof(*u));
    int rc = check_h(s, h, err);
    if (rc) return rc;
    u->shape = *s;
    u->h = h;
    sector x = {0};
    sector_init(&x, s, h, seed);
    trees t = {0};
    rc = sparse_run(u, &x, &t, err);
    stree_free(&t.r_old);
    stree_free(&t.d_new);
    stree_free(&t.r_new);
    free(x.rho);
    if (rc) fc_update_free(u);
    return rc;
}

int fc_sparse_update_sector(fr_t *replica_old, fr_t *data_new, vanilla_node *comm_c,
                            const update_shape *s, unsigned h, uint64_t seed, cuzk_err *err)
{
    int rc = check_h(s, h, err);
    if (rc) return rc;
    sector x = {0};
    sector_init(&x, s, h, seed);
    *comm_c = x.comm_c;
    for (uint64_t i = 0; i < s->nodes; i++) {
        leaf_old(&x, i, &replica_old[i]);
        leaf_data(&x, i, &data_new[i]);
    }
    return CUZK_OK;
}
