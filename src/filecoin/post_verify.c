/*
 * post_verify.c - the native check of Fallback PoSt vanilla proofs
 * (post_verify.h), following what post_circuit.c enforces.
 *
 * The work is a list of tasks, per sector one for the sector itself
 * (proof count, geometry, comm_r = Poseidon-2(comm_c, comm_r_last)) and
 * one per challenge (the derived leaf, the proof's root, the path), run
 * in parallel (OpenMP, dynamic schedule in chunks of a sector's tasks, so
 * a thread mostly walks one sector's paths in a row). Every task runs in
 * full and keeps its first failure; tasks after the first failure found
 * so far are skipped (a bad request is answered once the tasks before its
 * fault are done), and the reported one is the first in task order, so
 * the message does not depend on the thread count.
 *
 * Poseidon is nearly all the work: a 32GiB Window PoSt partition opens
 * 2349 x 10 leaves on paths of 10 arity-8 levels. The paths of one sector
 * meet in its tree's top levels; a per-thread memo keyed by position
 * remembers, for the levels with at most MEMO_NODES nodes above, each
 * hash with its exact children and reuses it when a later path brings the
 * same children to the same place (so a forged sibling is never taken
 * for a remembered one), which saves about an eighth of the hashes.
 */
#include "cuzk/filecoin/post_verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/tree.h"
#include "vanilla_internal.h"

#define NB         32
#define MEMO_NODES 512
#define MAX_ARITY  16

typedef struct memo_entry {
    bool set;
    uint8_t children[8 * NB];
    uint8_t out[NB];
} memo_entry;

/* A thread's memo for one tree geometry. */
typedef struct path_memo {
    size_t first[VANILLA_MAX_LEVELS]; /* entry of level l's first parent; SIZE_MAX: none */
    memo_entry *e;
} path_memo;

/* One task's context and first failure (err.code 0 while none). */
typedef struct post_task {
    const fc_post_request *q;
    const vanilla_post_sector *p;
    size_t sector, challenge; /* challenge SIZE_MAX: the sector task */
    uint64_t leaf;            /* the derived challenge */
    path_memo *memo;
    cuzk_err err;
} post_task;

__attribute__((format(printf, 2, 3))) static void fail(post_task *t, const char *fmt, ...)
{
    if (t->err.code) return;
    char what[300], where[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int n = snprintf(where, sizeof where, "PoSt sector %zu (id %" PRIu64 ")", t->sector,
                     t->p->sector_id);
    if (t->challenge != SIZE_MAX)
        snprintf(where + n, sizeof where - (size_t)n, ", challenge %zu (leaf %" PRIu64 ")",
                 t->challenge, t->leaf);
    cuzk_errf(&t->err, CUZK_EVERIFY, "%s: %s", where, what);
}

static path_memo *memo_new(const vanilla_tree *t, uint64_t leaves)
{
    path_memo *m = malloc(sizeof *m);
    if (!m) return NULL;
    size_t n = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        uint64_t above = leaves / vanilla_level_weight(t, l + 1);
        bool memo = above <= MEMO_NODES && t->arity[l] <= 8;
        m->first[l] = memo ? n : SIZE_MAX;
        if (memo) n += above;
    }
    if (!(m->e = calloc(n ? n : 1, sizeof *m->e))) {
        free(m);
        return NULL;
    }
    return m;
}

static void memo_free(path_memo *m)
{
    if (m) free(m->e);
    free(m);
}

/* The root leaf and m's path hash to (Poseidon per level); false when the
 * leaf or a sibling is not a field element. */
static bool path_root(uint8_t root[NB], const vanilla_merkle *m, const vanilla_tree *t,
                      uint64_t leaves, path_memo *memo)
{
    uint8_t cur[NB], block[MAX_ARITY * NB];
    if (!vanilla_node_canonical(&m->leaf)) return false;
    memcpy(cur, m->leaf.b, NB);
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned at, a = t->arity[l];
        const vanilla_node *sib = vanilla_merkle_level(m, t, l, &at);
        for (unsigned j = 0, s = 0; j < a; j++) {
            if (j != at && !vanilla_node_canonical(&sib[s])) return false;
            memcpy(block + j * NB, j == at ? cur : sib[s++].b, NB);
        }
        memo_entry *e = NULL;
        if (memo && memo->first[l] != SIZE_MAX && m->index < leaves) {
            e = memo->e + memo->first[l] + m->index / vanilla_level_weight(t, l + 1);
            if (e->set && !memcmp(e->children, block, a * NB)) {
                memcpy(cur, e->out, NB);
                continue;
            }
        }
        fc_tree_hash_node(cur, FC_TREE_POSEIDON, block, a);
        if (e) {
            e->set = true;
            memcpy(e->children, block, a * NB);
            memcpy(e->out, cur, NB);
        }
    }
    memcpy(root, cur, NB);
    return true;
}

/* Inclusion proofs per sector proof: Winning's 66 circuit sectors of one, or Window's 10. */
static size_t proofs_per_sector(const fc_post_request *q)
{
    return q->kind == VANILLA_POST_WINNING ? q->shape->sectors * q->shape->challenges
                                           : q->shape->challenges;
}

/* The path geometry of a tree shape. */
static void shape_tree(vanilla_tree *t, const por_shape *s)
{
    memset(t, 0, sizeof *t);
    t->levels = (unsigned)por_shape_levels(s);
    for (unsigned l = 0; l < t->levels && l < VANILLA_MAX_LEVELS; l++)
        t->arity[l] = (uint8_t)por_shape_arity(s, l);
}

static bool same_geometry(const vanilla_tree *t, const por_shape *s)
{
    vanilla_tree want;
    shape_tree(&want, s);
    return t->levels == want.levels && !memcmp(t->arity, want.arity, t->levels);
}

static void check_sector(post_task *t)
{
    const vanilla_post_sector *p = t->p;
    size_t want = proofs_per_sector(t->q);
    if (p->n_proofs != want)
        fail(t, "%zu inclusion proofs, %s PoSt challenges %zu", p->n_proofs,
             t->q->kind == VANILLA_POST_WINNING ? "Winning" : "Window", want);
    if (!same_geometry(&p->tree, &t->q->shape->tree))
        fail(t, "its tree-R paths are not of the sector size's tree (%u-%u-%u)",
             t->q->shape->tree.base_arity, t->q->shape->tree.sub_arity,
             t->q->shape->tree.top_arity);
    if (!vanilla_node_canonical(&p->comm_c) || !vanilla_node_canonical(&p->comm_r_last))
        fail(t, "comm_c or comm_r_last is not a field element");
    else if (!vanilla_comm_r_matches(&p->comm_r, &p->comm_c, &p->comm_r_last))
        fail(t, "comm_r is not Poseidon(comm_c, comm_r_last)");
}

static void check_challenge(post_task *t)
{
    const vanilla_post_sector *p = t->p;
    const vanilla_merkle *m = &p->proofs[t->challenge];
    if (m->index != t->leaf)
        fail(t,
             "the inclusion proof opens leaf %" PRIu64 ", not the challenge derived from the "
             "randomness and the sector id",
             m->index);
    if (memcmp(&m->root, &p->comm_r_last, NB))
        fail(t, "the inclusion proof names a root other than comm_r_last");
    uint8_t root[NB];
    if (!path_root(root, m, &p->tree, t->q->shape->nodes, t->memo))
        fail(t, "the opened leaf or its tree-R path holds a value that is not a field element");
    else if (memcmp(root, p->comm_r_last.b, NB))
        fail(t, "the tree-R path does not hash to comm_r_last");
}

/* The leaf challenge j of sector i derives (post_public_inputs' indexing). */
static uint64_t derived_leaf(const fc_post_request *q, const vanilla_post_sector *p, size_t i,
                             size_t j)
{
    uint64_t index = j;
    if (q->kind == VANILLA_POST_WINDOW && q->api_version != FC_API_V1_2)
        index = (q->first_sector + i) * q->shape->challenges + j;
    return post_leaf_challenge(q->randomness, p->sector_id, index, q->shape->nodes);
}

/* Task j of a sector: 0 the sector's own checks, 1 + c its challenge c. */
static void run_task(post_task *t, size_t j)
{
    if (!j) {
        check_sector(t);
    } else if (j - 1 < t->p->n_proofs && same_geometry(&t->p->tree, &t->q->shape->tree)) {
        t->challenge = j - 1;
        t->leaf = derived_leaf(t->q, t->p, t->sector, j - 1);
        check_challenge(t);
    }
}

static int check_request(const fc_post_request *q, size_t n, cuzk_err *err)
{
    if (q->kind != VANILLA_POST_WINNING && q->kind != VANILLA_POST_WINDOW)
        return cuzk_errf(err, CUZK_EINVAL, "PoSt check: unknown kind %d", q->kind);
    if (!n) return cuzk_errf(err, CUZK_EINVAL, "PoSt check: no sector proofs");
    if (q->kind == VANILLA_POST_WINNING && n != 1)
        return cuzk_errf(err, CUZK_EINVAL,
                         "PoSt check: %zu sector proofs, Winning PoSt proves one sector", n);
    return CUZK_OK;
}

int fc_post_vanilla_verify(const fc_post_request *q, const vanilla_post_sector *sectors, size_t n,
                           cuzk_err *err)
{
    int rc = check_request(q, n, err);
    if (rc) return rc;
    size_t per = 1 + proofs_per_sector(q), tasks = n * per, first = tasks;
    cuzk_err first_err = {0};
    vanilla_tree geometry;
    shape_tree(&geometry, &q->shape->tree);
#pragma omp parallel
    {
        path_memo *memo = memo_new(&geometry, q->shape->nodes);
#pragma omp for schedule(dynamic, per)
        for (size_t k = 0; k < tasks; k++) {
            size_t seen;
#pragma omp atomic read
            seen = first;
            if (k > seen) continue; /* a failure before this one is known */
            post_task t = {q, &sectors[k / per], k / per, SIZE_MAX, 0, memo, {0}};
            run_task(&t, k % per);
            if (t.err.code) {
#pragma omp critical(fc_post_vanilla_verify)
                if (k < first) {
#pragma omp atomic write
                    first = k;
                    first_err = t.err;
                }
            }
        }
        memo_free(memo);
    }
    if (first == tasks) return CUZK_OK;
    if (err) *err = first_err;
    return first_err.code;
}
