/*
 * update_verify.c - the native check of a SnapDeals vanilla proof
 * (update_verify.h), following what update_circuit.c enforces.
 *
 * The work is split into items, per partition k one partition item (the
 * commitments over comm_c and the roots of challenge 0's paths, the apex
 * tree) and one item per challenge. A challenge item checks, in this
 * order, that its three paths are for the derived node, that each path
 * hashes from its leaf to its root (tree-R-old and tree-R-new to the roots
 * the partition item ties to comm_r_old and comm_r_new, tree-D-new to
 * comm_d_new, passing through the selected apex leaf), and only then that
 * the leaves encode: paths are authenticated before relations between
 * their values, so an altered value is reported where it was altered. The proofs' own
 * root fields must name the same roots, though the circuit does not read
 * them.
 *
 * Items run in parallel (OpenMP, dynamic schedule), each keeping its first
 * failure; the reported one is the first in item order (partition k's own
 * item before its challenges). Poseidon is nearly all the work: 32GiB has
 * 16 x 86 challenges of two 10-level arity-8 tree-R paths each. Before the
 * items, the Poseidon paths (tree-R-old, tree-R-new, and tree-D-new in the
 * Poseidon variant) go up CHUNK challenges at a time through path_roots.h
 * (lanes of eight hashes, a per-thread memo of each tree's top levels,
 * which every partition's paths share).
 */
#include "cuzk/filecoin/update_verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/tree.h"
#include "cuzk/poseidon.h"
#include "path_roots.h"

#define MSG        256
#define CHUNK      16  /* challenges whose paths go up together */
#define MEMO_NODES 512 /* 16 x 86 paths a tree meet in its top four levels */

/* The Poseidon paths of a challenge, and their trees in the memo. */
enum { R_OLD, R_NEW, D_NEW, PATHS };

typedef struct check {
    const update_shape *s;
    const update_public *pub;
    const vanilla_update_partition *parts;
    fr_t phi;
    uint32_t *chal;  /* [k * challenges + i] */
    path_job *paths; /* [(k * challenges + i) * PATHS + R_OLD..D_NEW] */
    char (*msg)[MSG];
} check;

typedef struct item {
    const check *c;
    size_t k, i; /* i: the challenge, or SIZE_MAX for the partition item */
    char *msg;   /* the first failure, "" while none */
} item;

static void fail(item *it, const char *fmt, ...)
{
    if (it->msg[0]) return;
    char what[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (it->i == SIZE_MAX)
        snprintf(it->msg, MSG, "update partition %zu: %s", it->k, what);
    else
        snprintf(it->msg, MSG, "update partition %zu, challenge %zu (node %" PRIu32 "): %s", it->k,
                 it->i, it->c->chal[it->k * it->c->s->challenges + it->i], what);
}

static bool same(const vanilla_node *a, const vanilla_node *b)
{
    return !memcmp(a->b, b->b, sizeof(a->b));
}

/*
 * The root that m's leaf and path hash to in tree-D-new (binary SHA-256),
 * the node of row `row` of the path into *at; false when the leaf or a
 * sibling is not a field element.
 */
static bool sha_root(vanilla_node *root, const vanilla_merkle *m, const vanilla_tree *t,
                     unsigned row, vanilla_node *at)
{
    vanilla_node block[16], cur = m->leaf;
    if (!vanilla_node_canonical(&cur)) return false;
    for (unsigned l = 0; l < t->levels; l++) {
        if (l == row) *at = cur;
        unsigned pos;
        const vanilla_node *sib = vanilla_merkle_level(m, t, l, &pos);
        for (unsigned j = 0, s = 0; j < t->arity[l]; j++) {
            if (j != pos && !vanilla_node_canonical(&sib[s])) return false;
            block[j] = j == pos ? cur : sib[s++];
        }
        fc_tree_hash_node(cur.b, FC_TREE_SHA256, block[0].b, t->arity[l]);
    }
    *root = cur;
    return true;
}

static bool poseidon2(vanilla_node *out, const vanilla_node *a, const vanilla_node *b)
{
    fr_t pre[2], h;
    if (!fr_from_bytes_le(&pre[0], a->b) || !fr_from_bytes_le(&pre[1], b->b)) return false;
    poseidon_hash(&h, poseidon_std(2), pre);
    fr_to_bytes_le(out->b, &h);
    return true;
}

/* ---- the partition item ---- */

static void check_comm_r(item *it, const vanilla_node *root, const vanilla_node *comm,
                         const char *tree, const char *name)
{
    vanilla_node want;
    if (!poseidon2(&want, &it->c->parts[it->k].comm_c, root))
        fail(it, "comm_c or the %s root (challenge 0's) is not a field element", tree);
    else if (!same(&want, comm))
        fail(it, "%s is not Poseidon(comm_c, the %s root of challenge 0's path)", name, tree);
}

/* The apex leaves as a binary SHA-256 tree, then up challenge 0's tree-D
 * path at partition k's position, to comm_d_new. */
static void check_apex(item *it)
{
    const update_shape *s = it->c->s;
    const vanilla_update_partition *p = &it->c->parts[it->k];
    vanilla_node row[256];
    for (size_t i = 0; i < p->n_apex; i++) {
        if (!vanilla_node_canonical(&p->apex_leafs[i])) {
            fail(it, "apex leaf %zu is not a field element", i);
            return;
        }
        row[i] = p->apex_leafs[i];
    }
    for (size_t n = p->n_apex; n > 1; n /= 2)
        for (size_t i = 0; i < n / 2; i++)
            fc_tree_hash_node(row[i].b, FC_TREE_SHA256, row[2 * i].b, 2);
    unsigned first = s->challenge_bits - s->partition_bits, pos;
    for (unsigned l = 0; l < s->partition_bits; l++) {
        const vanilla_node *sib =
            vanilla_merkle_level(&p->challenges[0].d_new, &p->tree_d, first + l, &pos);
        if (!vanilla_node_canonical(sib)) {
            fail(it, "challenge 0's tree-D-new path above the apex leaves has a node >= r");
            return;
        }
        vanilla_node pair[2] = {row[0], row[0]};
        pair[it->k >> l & 1 ? 0 : 1] = *sib;
        fc_tree_hash_node(row[0].b, FC_TREE_SHA256, pair[0].b, 2);
    }
    if (!same(&row[0], &it->c->pub->comm_d_new))
        fail(it, "the apex leaves do not hash to comm_d_new (through challenge 0's tree-D-new "
                 "path above them)");
}

static void check_partition(item *it)
{
    const vanilla_update_partition *p = &it->c->parts[it->k];
    const vanilla_update_challenge *c0 = &p->challenges[0];
    check_comm_r(it, &c0->r_old.root, &it->c->pub->comm_r_old, "tree-R-old", "comm_r_old");
    check_comm_r(it, &c0->r_new.root, &it->c->pub->comm_r_new, "tree-R-new", "comm_r_new");
    if (!it->c->s->poseidon) check_apex(it);
}

/* ---- a challenge item ---- */

/* Path p (R_OLD, R_NEW, D_NEW) of the item's challenge, hashed. */
static const path_job *hashed_path(const item *it, int p)
{
    return &it->c->paths[(it->k * it->c->s->challenges + it->i) * PATHS + p];
}

static void check_tree_r(item *it, const vanilla_merkle *m, const path_job *path,
                         const vanilla_node *root, const char *tree, const char *comm)
{
    if (!path->ok)
        fail(it, "the %s path has a leaf or sibling >= r", tree);
    else if (!same(&path->root, root))
        fail(it, "the %s path does not hash to the root in %s", tree, comm);
    else if (!same(&m->root, root))
        fail(it, "the %s proof names another root", tree);
}

/* The tree-D-new path: to comm_d_new through the selected apex leaf (above
 * the apex leaves it is then challenge 0's path, but for a collision). */
static void check_tree_d(item *it, const vanilla_merkle *m, uint32_t node)
{
    const update_shape *s = it->c->s;
    const vanilla_update_partition *p = &it->c->parts[it->k];
    unsigned to_apex = s->challenge_bits - s->partition_bits - s->apex_bits;
    vanilla_node got, apex;
    bool ok =
        s->poseidon ? hashed_path(it, D_NEW)->ok : sha_root(&got, m, &p->tree_d, to_apex, &apex);
    if (s->poseidon) got = hashed_path(it, D_NEW)->root;
    if (!ok) {
        fail(it, "the tree-D-new path has a leaf or sibling >= r");
        return;
    }
    if (!same(&got, &it->c->pub->comm_d_new)) {
        fail(it, "the tree-D-new path does not hash to comm_d_new");
        return;
    }
    if (!same(&m->root, &it->c->pub->comm_d_new)) {
        fail(it, "the tree-D-new proof names another root than comm_d_new");
        return;
    }
    if (s->poseidon) return;
    size_t a = node >> to_apex & (p->n_apex - 1);
    if (!same(&apex, &p->apex_leafs[a]))
        fail(it, "the tree-D-new path does not pass through apex leaf %zu", a);
}

static void check_encoding(item *it, const vanilla_update_challenge *ch, uint32_t node)
{
    fr_t old, data, rho, want, got;
    if (!fr_from_bytes_le(&old, ch->r_old.leaf.b) || !fr_from_bytes_le(&data, ch->d_new.leaf.b) ||
        !fr_from_bytes_le(&got, ch->r_new.leaf.b)) {
        fail(it, "a leaf is not a field element");
        return;
    }
    update_rho(&rho, &it->c->phi, node >> (it->c->s->challenge_bits - it->c->pub->h));
    fr_mul(&want, &data, &rho);
    fr_add(&want, &want, &old);
    if (!fr_eq(&want, &got))
        fail(it, "the new replica leaf is not the encoding old + new data x rho (h = %u)",
             it->c->pub->h);
}

static void check_challenge(item *it)
{
    const vanilla_update_partition *p = &it->c->parts[it->k];
    const vanilla_update_challenge *ch = &p->challenges[it->i];
    uint32_t node = it->c->chal[it->k * it->c->s->challenges + it->i];
    const vanilla_merkle *m[3] = {&ch->r_old, &ch->d_new, &ch->r_new};
    static const char *const names[3] = {"tree-R-old", "tree-D-new", "tree-R-new"};
    for (int t = 0; t < 3; t++)
        if (m[t]->index != node)
            fail(it, "the %s path is for node %" PRIu64 ", not the challenge", names[t],
                 m[t]->index);
    check_tree_r(it, &ch->r_old, hashed_path(it, R_OLD), &p->challenges[0].r_old.root, "tree-R-old",
                 "comm_r_old");
    check_tree_d(it, &ch->d_new, node);
    check_tree_r(it, &ch->r_new, hashed_path(it, R_NEW), &p->challenges[0].r_new.root, "tree-R-new",
                 "comm_r_new");
    if (!it->msg[0]) check_encoding(it, ch, node);
}

/* ---- the whole proof ---- */

static bool tree_fits(const vanilla_tree *t, const por_shape *s)
{
    size_t levels = por_shape_levels(s);
    if (t->levels != levels) return false;
    for (size_t l = 0; l < levels; l++)
        if (t->arity[l] != por_shape_arity(s, l)) return false;
    return true;
}

static int check_shape(const update_shape *s, const update_public *pub,
                       const vanilla_update_partition *parts, size_t n, cuzk_err *err)
{
    if (n != s->partitions)
        return cuzk_errf(err, CUZK_EINVAL, "update: %zu partition proofs, the sector has %u", n,
                         s->partitions);
    bool h_ok = false;
    for (int i = 0; i < UPDATE_HS; i++) h_ok |= s->hs[i] == pub->h;
    if (!h_ok) return cuzk_errf(err, CUZK_EINVAL, "update: h = %u is not the shape's", pub->h);
    if (!vanilla_node_canonical(&pub->comm_r_old) || !vanilla_node_canonical(&pub->comm_d_new) ||
        !vanilla_node_canonical(&pub->comm_r_new))
        return cuzk_errf(err, CUZK_EINVAL, "update: a commitment is not below r");
    por_shape tree_d = s->poseidon ? s->tree_r : (por_shape){2, 0, 0, s->challenge_bits};
    for (size_t k = 0; k < n; k++)
        if (parts[k].n_apex != s->apex_leafs || parts[k].n_challenges != s->challenges ||
            parts[k].n_apex > 256 || !tree_fits(&parts[k].tree_r, &s->tree_r) ||
            !tree_fits(&parts[k].tree_d, &tree_d))
            return cuzk_errf(err, CUZK_EINVAL,
                             "update partition %zu: %zu apex leaves, %zu challenges or its paths "
                             "do not fit the %llu-node shape",
                             k, parts[k].n_apex, parts[k].n_challenges,
                             (unsigned long long)s->nodes);
    return CUZK_OK;
}

/* Chunk q of the challenges (CHUNK of one partition): its Poseidon paths'
 * roots, tree-D-new's only in the Poseidon variant (where it has tree-R's
 * geometry; else it is SHA-256, checked in check_tree_d). */
static void hash_chunk(check *c, size_t q, path_memo *memo)
{
    const update_shape *s = c->s;
    size_t chunks = (s->challenges + CHUNK - 1) / CHUNK, k = q / chunks, i0 = q % chunks * CHUNK;
    size_t i1 = i0 + CHUNK < s->challenges ? i0 + CHUNK : s->challenges;
    const vanilla_update_partition *p = &c->parts[k];
    path_job jobs[CHUNK * PATHS];
    size_t n = 0, at[CHUNK * PATHS];
    for (size_t i = i0; i < i1; i++) {
        const vanilla_update_challenge *ch = &p->challenges[i];
        const vanilla_merkle *m[PATHS] = {&ch->r_old, &ch->r_new, &ch->d_new};
        for (unsigned t = 0; t < (s->poseidon ? PATHS : D_NEW); t++) {
            at[n] = (k * s->challenges + i) * PATHS + t;
            jobs[n++] = (path_job){.m = m[t], .leaf = &m[t]->leaf, .tree = t};
        }
    }
    path_roots(jobs, n, &p->tree_r, memo);
    for (size_t j = 0; j < n; j++) c->paths[at[j]] = jobs[j];
}

static void hash_paths(check *c, size_t n)
{
    size_t chunks = n * ((c->s->challenges + CHUNK - 1) / CHUNK);
#pragma omp parallel
    {
        path_memo *memo = path_memo_new(&c->parts[0].tree_r, c->s->nodes, PATHS, MEMO_NODES);
#pragma omp for schedule(dynamic, 1)
        for (size_t q = 0; q < chunks; q++) hash_chunk(c, q, memo);
        path_memo_free(memo);
    }
}

static int run(check *c, size_t n, cuzk_err *err)
{
    const update_shape *s = c->s;
    size_t per = 1 + (size_t)s->challenges, items = n * per;
    fr_t comm_r_new, cd, cr;
    fr_from_bytes_le(&comm_r_new, c->pub->comm_r_new.b);
    fr_from_bytes_le(&cd, c->pub->comm_d_new.b);
    fr_from_bytes_le(&cr, c->pub->comm_r_old.b);
    update_phi(&c->phi, &cd, &cr);
    for (size_t k = 0; k < n; k++)
        update_challenges(c->chal + k * s->challenges, s, &comm_r_new, k);
    hash_paths(c, n);
#pragma omp parallel for schedule(dynamic, 2)
    for (size_t j = 0; j < items; j++) {
        item it = {c, j / per, j % per ? j % per - 1 : SIZE_MAX, c->msg[j]};
        it.msg[0] = 0;
        if (it.i == SIZE_MAX)
            check_partition(&it);
        else
            check_challenge(&it);
    }
    for (size_t j = 0; j < items; j++)
        if (c->msg[j][0]) return cuzk_errf(err, CUZK_EVERIFY, "%s", c->msg[j]);
    return CUZK_OK;
}

int fc_update_verify(const update_shape *s, const update_public *pub,
                     const vanilla_update_partition *parts, size_t n, cuzk_err *err)
{
    int rc = check_shape(s, pub, parts, n, err);
    if (rc) return rc;
    check c = {.s = s, .pub = pub, .parts = parts};
    c.chal = malloc(n * s->challenges * sizeof(*c.chal));
    c.msg = malloc(n * (1 + (size_t)s->challenges) * sizeof(*c.msg));
    c.paths = malloc(n * s->challenges * PATHS * sizeof(*c.paths));
    rc = c.chal && c.msg && c.paths ? run(&c, n, err)
                                    : cuzk_errf(err, CUZK_ENOMEM, "update check: out of memory");
    free(c.paths);
    free(c.chal);
    free(c.msg);
    return rc;
}
