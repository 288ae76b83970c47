/*
 * path_roots.c - the Poseidon roots of many Merkle paths (path_roots.h),
 * the work of every native vanilla check: PoRep's tree-C and tree-R paths,
 * PoSt's and SnapDeals' tree-R paths.
 *
 * The paths go up together, level by level, and each level's hashes are
 * one poseidon_hash_batch call, eight at a time in the lanes of AVX-512
 * IFMA where the CPU has them (src/poseidon/hash_lanes.c). Jobs are taken
 * PATH_BATCH at a time so the scratch space stays on the stack.
 *
 * The paths of one tree meet in its top levels. A memo (one per thread)
 * keeps, for each tree and each level with at most max_nodes nodes, the
 * last hash at each position with its exact children, and reuses it when
 * a later path brings the same children to the same place, so a forged
 * sibling is never taken for a remembered one. Paths of one batch that
 * reach the same place with the same children in the same level share one
 * hash; one with other children there is hashed on its own and not
 * remembered. The memo changes only the work, never a root.
 *
 * It does not check where a path's leaf or root should be; the callers
 * compare the roots with their commitments and report.
 */
#include "path_roots.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/fr.h"
#include "cuzk/poseidon.h"
#include "vanilla_internal.h"

#define NB         32
#define MAX_ARITY  16 /* tree-R/C arities are at most 8; 16 bounds a bad proof's */
#define PATH_BATCH 64

enum { EMPTY, SET, PENDING };

typedef struct memo_entry {
    uint8_t state;   /* EMPTY, SET, or PENDING in the level being hashed */
    uint8_t pending; /* its place in that level's batch, while PENDING */
    uint8_t children[8 * NB];
    uint8_t out[NB];
} memo_entry;

struct path_memo {
    uint64_t leaves; /* paths of other positions (a bad proof's) pass it by */
    unsigned trees;
    size_t first[VANILLA_MAX_LEVELS]; /* entry of level l's first parent; SIZE_MAX: none */
    size_t per_tree;
    memo_entry *e; /* tree 0's, then tree 1's, ... */
};

path_memo *path_memo_new(const vanilla_tree *t, uint64_t leaves, unsigned trees, size_t max_nodes)
{
    path_memo *m = malloc(sizeof *m);
    if (!m) return NULL;
    m->leaves = leaves;
    m->trees = trees;
    m->per_tree = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        uint64_t above = leaves / vanilla_level_weight(t, l + 1);
        bool memo = above <= max_nodes && t->arity[l] <= 8;
        m->first[l] = memo ? m->per_tree : SIZE_MAX;
        if (memo) m->per_tree += above;
    }
    if (!(m->e = calloc(trees * m->per_tree + 1, sizeof *m->e))) {
        free(m);
        return NULL;
    }
    return m;
}

void path_memo_free(path_memo *m)
{
    if (m) free(m->e);
    free(m);
}

/* Level l's children of job j's path, cur in its place, as field
 * elements; false when a sibling is not one (the job is then done). */
static bool gather(fr_t *elems, uint8_t *bytes, const path_job *j, const vanilla_tree *t,
                   unsigned l, const uint8_t cur[NB])
{
    unsigned at;
    const vanilla_node *sib = vanilla_merkle_level(j->m, t, l, &at);
    for (unsigned i = 0, s = 0; i < t->arity[l]; i++) {
        const uint8_t *b = i == at ? cur : sib[s++].b;
        if (!fr_from_bytes_le(&elems[i], b)) return false;
        memcpy(bytes + i * NB, b, NB);
    }
    return true;
}

static memo_entry *memo_slot(path_memo *memo, const path_job *j, const vanilla_tree *t, unsigned l)
{
    if (!memo || memo->first[l] == SIZE_MAX || j->m->index >= memo->leaves ||
        j->tree >= memo->trees)
        return NULL;
    return memo->e + j->tree * memo->per_tree + memo->first[l] +
           j->m->index / vanilla_level_weight(t, l + 1);
}

/* One level of up to PATH_BATCH jobs: cur[j] becomes the parent. */
static void level_up(path_job *jobs, size_t n, uint8_t (*cur)[NB], const vanilla_tree *t,
                     unsigned l, path_memo *memo)
{
    unsigned a = t->arity[l];
    const poseidon_constants *c = poseidon_std(a);
    fr_t in[PATH_BATCH * MAX_ARITY], out[PATH_BATCH];
    uint8_t bytes[MAX_ARITY * NB];
    size_t np = 0, from[PATH_BATCH]; /* from[j]: the batch place giving job j's parent */
    memo_entry *slot[PATH_BATCH];
    for (size_t j = 0; j < n; j++) {
        from[j] = SIZE_MAX;
        if (!jobs[j].ok) continue;
        if (!gather(&in[np * a], bytes, &jobs[j], t, l, cur[j])) {
            jobs[j].ok = false;
            continue;
        }
        memo_entry *e = memo_slot(memo, &jobs[j], t, l);
        bool same = e && e->state != EMPTY && !memcmp(e->children, bytes, a * NB);
        if (same && e->state == SET) {
            memcpy(cur[j], e->out, NB);
            continue;
        }
        if (same) { /* PENDING with these children: share that hash */
            from[j] = e->pending;
            continue;
        }
        slot[np] = e && e->state != PENDING ? e : NULL;
        if (slot[np]) {
            e->state = PENDING;
            e->pending = (uint8_t)np;
            memcpy(e->children, bytes, a * NB);
        }
        from[j] = np++;
    }
    poseidon_hash_batch(out, c, in, np);
    for (size_t q = 0; q < np; q++)
        if (slot[q]) {
            fr_to_bytes_le(slot[q]->out, &out[q]);
            slot[q]->state = SET;
        }
    for (size_t j = 0; j < n; j++)
        if (from[j] != SIZE_MAX) fr_to_bytes_le(cur[j], &out[from[j]]);
}

static void roots_batch(path_job *jobs, size_t n, const vanilla_tree *t, path_memo *memo)
{
    uint8_t cur[PATH_BATCH][NB];
    for (size_t j = 0; j < n; j++) {
        jobs[j].ok = vanilla_node_canonical(jobs[j].leaf);
        memcpy(cur[j], jobs[j].leaf->b, NB);
    }
    for (unsigned l = 0; l < t->levels; l++) level_up(jobs, n, cur, t, l, memo);
    for (size_t j = 0; j < n; j++) memcpy(jobs[j].root.b, cur[j], NB);
}

void path_roots(path_job *jobs, size_t n, const vanilla_tree *t, path_memo *memo)
{
    for (unsigned l = 0; l < t->levels; l++)
        if (t->arity[l] < 1 || t->arity[l] > MAX_ARITY) { /* not a tree of ours: no roots */
            for (size_t j = 0; j < n; j++) jobs[j].ok = false;
            return;
        }
    for (size_t s = 0; s < n; s += PATH_BATCH)
        roots_batch(jobs + s, n - s < PATH_BATCH ? n - s : PATH_BATCH, t, memo);
}
