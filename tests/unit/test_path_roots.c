/*
 * test_path_roots.c - the Poseidon roots of many paths (path_roots.h).
 *
 * On sparse Window PoSt sectors of 2KiB, 32GiB and 64GiB (real tree-R
 * paths to comm_r_last), with poseidon_hash_batch's lanes on and off and
 * with and without a memo: every root equals the one a plain walk
 * (fc_tree_hash_node level by level) gives, and comm_r_last. A path with
 * a forged sibling where the memo remembers the honest children (in the
 * same batch as the honest paths, and in a later call) gets the forged
 * root, never the remembered one; a leaf or a sibling that is not a field
 * element makes a job not ok.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/tree.h"
#include "cuzk/poseidon.h"
#include "filecoin/path_roots.h"
#include "filecoin/vanilla_internal.h"

#define SECTORS 4

typedef struct fixture {
    post_shape shape;
    vanilla_post_sector v[SECTORS];
    size_t n_jobs;
    path_job jobs[SECTORS * 10];
} fixture;

static void make(fixture *f, uint64_t size)
{
    uint8_t rnd[32];
    fc_test_bytes(rnd, size, 0x51);
    assert_int_equal(post_shape_for_size(&f->shape, VANILLA_POST_WINDOW, size, NULL), 0);
    fc_sparse_post g = {.kind = VANILLA_POST_WINDOW,
                        .shape = &f->shape,
                        .api_version = FC_API_V1_1,
                        .randomness = rnd,
                        .seed = 5,
                        .sector_id = 300};
    assert_int_equal(fc_sparse_post_sectors(f->v, SECTORS, &g, NULL), 0);
    f->n_jobs = 0;
    for (unsigned s = 0; s < SECTORS; s++)
        for (size_t c = 0; c < f->v[s].n_proofs; c++) {
            const vanilla_merkle *m = &f->v[s].proofs[c];
            f->jobs[f->n_jobs++] = (path_job){.m = m, .leaf = &m->leaf, .tree = s};
        }
}

static void unmake(fixture *f)
{
    for (unsigned s = 0; s < SECTORS; s++) vanilla_post_sector_free(&f->v[s]);
}

/* The root by a plain walk, one fc_tree_hash_node a level. */
static vanilla_node walk(const vanilla_merkle *m, const vanilla_tree *t)
{
    uint8_t cur[32], block[16 * 32];
    memcpy(cur, m->leaf.b, 32);
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned at;
        const vanilla_node *sib = vanilla_merkle_level(m, t, l, &at);
        for (unsigned j = 0, s = 0; j < t->arity[l]; j++)
            memcpy(block + j * 32, j == at ? cur : sib[s++].b, 32);
        fc_tree_hash_node(cur, FC_TREE_POSEIDON, block, t->arity[l]);
    }
    vanilla_node r;
    memcpy(r.b, cur, 32);
    return r;
}

/* A copy of m whose sibling h (of all its path's) is changed. */
static vanilla_merkle forged(const vanilla_merkle *m, const vanilla_tree *t, unsigned h)
{
    vanilla_merkle f = *m;
    f.hashes = malloc(t->hashes * sizeof *f.hashes);
    assert_non_null(f.hashes);
    memcpy(f.hashes, m->hashes, t->hashes * sizeof *f.hashes);
    f.hashes[h].b[0] ^= 1;
    return f;
}

static void test_roots_equal_walk(void **state)
{
    (void)state;
    const uint64_t sizes[] = {2048, 32ull << 30, 64ull << 30};
    for (size_t z = 0; z < 3; z++) {
        fixture *f = calloc(1, sizeof *f);
        assert_non_null(f);
        make(f, sizes[z]);
        const vanilla_tree *t = &f->v[0].tree;
        for (int lanes = 0; lanes <= 1; lanes++) {
            poseidon_use_lanes(lanes);
            for (int with_memo = 0; with_memo <= 1; with_memo++) {
                path_memo *memo = with_memo ? path_memo_new(t, f->shape.nodes, SECTORS, 64) : NULL;
                path_roots(f->jobs, f->n_jobs, t, memo);
                for (size_t j = 0; j < f->n_jobs; j++) {
                    const path_job *p = &f->jobs[j];
                    vanilla_node want = walk(p->m, t);
                    assert_true(p->ok);
                    assert_memory_equal(p->root.b, want.b, 32);
                    assert_memory_equal(p->root.b, f->v[p->tree].comm_r_last.b, 32);
                }
                path_memo_free(memo);
            }
        }
        poseidon_use_lanes(true);
        unmake(f);
        free(f);
    }
}

static void test_memo_takes_no_forgery(void **state)
{
    (void)state;
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    make(f, 32ull << 30);
    const vanilla_tree *t = &f->v[0].tree;
    unsigned top = t->hashes - 1, low = 0; /* a top-level sibling (memoized) and a leaf's */
    vanilla_merkle bad[2] = {forged(&f->v[1].proofs[3], t, top),
                             forged(&f->v[1].proofs[4], t, low)};
    path_memo *memo = path_memo_new(t, f->shape.nodes, SECTORS, 64);
    /* the forged paths in the same batch as the honest ones, after them */
    path_job jobs[SECTORS * 10 + 2];
    memcpy(jobs, f->jobs, f->n_jobs * sizeof *jobs);
    for (int k = 0; k < 2; k++)
        jobs[f->n_jobs + k] = (path_job){.m = &bad[k], .leaf = &bad[k].leaf, .tree = 1};
    for (int call = 0; call < 2; call++) { /* then alone, with the memo filled */
        path_job *j = call ? jobs + f->n_jobs : jobs;
        size_t n = call ? 2 : f->n_jobs + 2;
        path_roots(j, n, t, memo);
        for (int k = 0; k < 2; k++) {
            const path_job *p = &jobs[f->n_jobs + k];
            vanilla_node want = walk(&bad[k], t);
            assert_true(p->ok);
            assert_memory_equal(p->root.b, want.b, 32);
            assert_memory_not_equal(p->root.b, f->v[1].comm_r_last.b, 32);
        }
        for (size_t k = 0; k < f->n_jobs && !call; k++)
            assert_memory_equal(jobs[k].root.b, f->v[jobs[k].tree].comm_r_last.b, 32);
    }
    /* a sibling, then a leaf, that is not a field element */
    memset(bad[0].hashes[top].b, 0xff, 32);
    bad[1].leaf = bad[0].hashes[top];
    path_roots(jobs + f->n_jobs, 2, t, memo);
    assert_false(jobs[f->n_jobs].ok);
    assert_false(jobs[f->n_jobs + 1].ok);
    path_memo_free(memo);
    free(bad[0].hashes);
    free(bad[1].hashes);
    unmake(f);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roots_equal_walk),
        cmocka_unit_test(test_memo_takes_no_forgery),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
