/*
 * post_verify.c - the native check of Fallback PoSt vanilla proofs
 * (post_verify.h), following what post_circuit.c enforces.
 *
 * The work is a list of tasks, per sector one for the sector itself
 * (proof count, geometry, comm_r = Poseidon-2(comm_c, comm_r_last)) and
 * one per challenge (the derived leaf, the proof's root, the path), run
 * in parallel by groups of GROUP_SECTORS sectors (OpenMP, dynamic
 * schedule): a group's paths are hashed together, then its tasks run in
 * order. Every task runs in full and keeps its first failure; groups after
 * the first failure found so far are skipped (a bad request is answered
 * once the groups before its fault are done), and the reported one is the
 * first in task order, so the message does not depend on the thread count.
 *
 * Poseidon is nearly all the work: a 32GiB Window PoSt partition opens
 * 2349 x 10 leaves on paths of 10 arity-8 levels. The paths of
 * GROUP_SECTORS sectors go up together through path_roots.h (lanes of
 * eight hashes, a memo of each sector tree's top levels, which saves about
 * an eighth of the hashes) before their tasks run.
 */
#include "cuzk/filecoin/post_verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/porep.h"
#include "path_roots.h"
#include "vanilla_internal.h"

#define NB            32
#define GROUP_SECTORS 4  /* Window PoSt: 40 paths a group, five full lane batches */
#define MEMO_NODES    64 /* 10 paths a tree meet in its top three levels */

/* One task's context and first failure (err.code 0 while none). */
typedef struct post_task {
    const fc_post_request *q;
    const vanilla_post_sector *p;
    size_t sector, challenge; /* challenge SIZE_MAX: the sector task */
    uint64_t leaf;            /* the derived challenge */
    const path_job *path;     /* the challenge's path and root */
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
    if (!t->path->ok)
        fail(t, "the opened leaf or its tree-R path holds a value that is not a field element");
    else if (memcmp(t->path->root.b, p->comm_r_last.b, NB))
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

/* The paths of p that are hashed and checked: none when they are not of the
 * sector size's tree (its sector task says so), at most the challenge count. */
static size_t checked_paths(const fc_post_request *q, const vanilla_post_sector *p)
{
    if (!same_geometry(&p->tree, &q->shape->tree)) return 0;
    size_t want = proofs_per_sector(q);
    return p->n_proofs < want ? p->n_proofs : want;
}

/* Task j of a sector: 0 the sector's own checks, 1 + c its challenge c. */
static void run_task(post_task *t, size_t j)
{
    if (!j) {
        check_sector(t);
    } else if (j - 1 < checked_paths(t->q, t->p)) {
        t->challenge = j - 1;
        t->path += j - 1;
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

/* What the sector groups share. */
typedef struct post_run {
    const fc_post_request *q;
    const vanilla_post_sector *sectors;
    size_t n, per; /* sectors; tasks per sector */
    vanilla_tree geometry;
    path_job *jobs; /* per - 1 for each sector */
    size_t first;   /* the first failed task so far; n * per: none */
    cuzk_err first_err;
} post_run;

/* Sector group g: its paths' roots, then its tasks in order. */
static void run_group(post_run *r, size_t g, path_memo *memo)
{
    size_t s0 = g * GROUP_SECTORS, s1 = s0 + GROUP_SECTORS < r->n ? s0 + GROUP_SECTORS : r->n;
    size_t seen;
#pragma omp atomic read
    seen = r->first;
    if (s0 * r->per > seen) return; /* a failure before this group is known */
    path_job *jobs = r->jobs + s0 * (r->per - 1);
    size_t nj = 0;
    for (size_t s = s0; s < s1; s++) {
        const vanilla_post_sector *p = &r->sectors[s];
        for (size_t c = 0, k = checked_paths(r->q, p); c < k; c++)
            jobs[nj++] = (path_job){
                .m = &p->proofs[c], .leaf = &p->proofs[c].leaf, .tree = (unsigned)(s - s0)};
    }
    path_roots(jobs, nj, &r->geometry, memo);
    for (size_t s = s0; s < s1; s++) {
        for (size_t j = 0; j < r->per; j++) {
            post_task t = {r->q, &r->sectors[s], s, SIZE_MAX, 0, jobs, {0}};
            run_task(&t, j);
            size_t k = s * r->per + j;
            if (t.err.code) {
#pragma omp critical(fc_post_vanilla_verify)
                if (k < r->first) {
#pragma omp atomic write
                    r->first = k;
                    r->first_err = t.err;
                }
            }
        }
        jobs += checked_paths(r->q, &r->sectors[s]);
    }
}

int fc_post_vanilla_verify(const fc_post_request *q, const vanilla_post_sector *sectors, size_t n,
                           cuzk_err *err)
{
    int rc = check_request(q, n, err);
    if (rc) return rc;
    post_run r = {q, sectors, n, 1 + proofs_per_sector(q), {0}, NULL, 0, {0}};
    r.first = n * r.per;
    shape_tree(&r.geometry, &q->shape->tree);
    if (!(r.jobs = malloc(n * (r.per - 1) * sizeof *r.jobs)))
        return cuzk_errf(err, CUZK_ENOMEM, "PoSt check: out of memory for %zu paths",
                         n * (r.per - 1));
    size_t groups = (n + GROUP_SECTORS - 1) / GROUP_SECTORS;
#pragma omp parallel
    {
        path_memo *memo = path_memo_new(&r.geometry, q->shape->nodes, GROUP_SECTORS, MEMO_NODES);
#pragma omp for schedule(dynamic, 1)
        for (size_t g = 0; g < groups; g++) run_group(&r, g, memo);
        path_memo_free(memo);
    }
    free(r.jobs);
    if (r.first == n * r.per) return CUZK_OK;
    if (err) *err = r.first_err;
    return r.first_err.code;
}
