/*
 * test_vanilla_verify.c - the native C1 check (vanilla_verify.h).
 *
 * Accepted: the C1s of sealed 2KiB sectors of every API group (V1, V1_1,
 * Synthetic, NI; fc_seal_test_sector + fc_test_sector_c1), also after a
 * c1.json write and an unchecked read back, and (not under
 * CUZK_TEST_QUICK) of a sealed 8MiB sector. A C1 the reader's own check
 * refuses (a root altered) is read with VANILLA_C1_UNCHECKED and refused
 * here, the proof named.
 *
 * Rejected, each single-field alteration with its message naming the
 * partition, the challenge, its node and what is wrong: a label in the
 * challenged column and in a parent's column (their tree-C paths no longer
 * hash to comm_c), a tree-D, tree-R and tree-C path sibling, a proof's
 * root, a tree-C proof's leaf, a row that is not a field element, a
 * challenge index, a parent index, a labeling proof's parent, comm_r, the
 * seed (every challenge moves); the first failure reported in (partition,
 * challenge) order when two are altered. A sealer's mistakes that the trees
 * and comm_r agree with: a label that is not the hash of its parents, a
 * replica node that is not the encoding, sealed into trees rebuilt here
 * (tree-C over the column hashes, tree-R-last over data + last label).
 *
 * Sparse committed-capacity C1s (fc_sparse_c1: only the challenged nodes
 * computed) of 2KiB and 32GiB check; the 32GiB one (timed) is refused
 * for a label, a labeling proof's parent and a tree-R sibling altered.
 *
 * Random C1s of 32GiB and 64GiB shape (vanilla_c1_synthetic: well formed,
 * hashes that do not chain) are rejected at their first challenge index,
 * and once every index is made the derived challenge and the graph's
 * parents, at their first tree-D path; that run checks every challenge in
 * full and prints its time (the check's cost when no two paths meet). A
 * sparse 64GiB C1 (sub and top tree levels) checks (not under
 * CUZK_TEST_QUICK).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"
#include "cuzk/filecoin/vanilla_verify.h"
#include "cuzk/fr.h"
#include "cuzk/poseidon.h"

#define ID_2K_V1       0
#define ID_2K_V11      5
#define ID_2K_SYNTH    10
#define ID_2K_NI       15
#define ID_8M_V11      6
#define ID_32G_V11     8
#define ID_64G_V11     9
#define SECTOR_SEED    21
#define CHALLENGE_SEED 4

static bool quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

static void seal(fc_sealed *s, uint64_t id)
{
    fc_test_sector t = {
        .cfg = fc_porep_config_get(id), .seed = SECTOR_SEED, .sector_id = 7, .miner = 1000};
    cuzk_err err = {0};
    if (fc_seal_test_sector(s, &t, NULL, NULL, &err)) fail_msg("%s", err.msg);
}

static void sealed_c1(vanilla_c1 *c1, const fc_sealed *s)
{
    cuzk_err err = {0};
    if (fc_test_sector_c1(c1, s, CHALLENGE_SEED, &err)) fail_msg("%s", err.msg);
}

static void expect_ok(const vanilla_c1 *c1)
{
    cuzk_err err = {0};
    if (fc_porep_c1_verify(c1, &err)) fail_msg("a good C1 was refused: %s", err.msg);
}

/* Refused with CUZK_EVERIFY and exactly the message want. */
static void expect_msg(const vanilla_c1 *c1, const char *want)
{
    cuzk_err err = {0};
    assert_int_equal(fc_porep_c1_verify(c1, &err), CUZK_EVERIFY);
    assert_int_equal(err.code, CUZK_EVERIFY);
    if (strcmp(err.msg, want)) fail_msg("message\n  '%s', expected\n  '%s'", err.msg, want);
}

/* "C1 partition k, challenge i (node n): what" */
static const char *at(char *buf, size_t k, size_t i, const vanilla_c1 *c1, const char *what)
{
    snprintf(buf, 512, "C1 partition %zu, challenge %zu (node %u): %s", k, i,
             c1->part[k][i].c_x.index, what);
    return buf;
}

/* ---- accepted ---- */

static void test_sealed_accepted(void **state)
{
    (void)state;
    static const uint64_t ids[] = {ID_2K_V1, ID_2K_V11, ID_2K_SYNTH, ID_2K_NI};
    for (size_t j = 0; j < sizeof ids / sizeof ids[0]; j++) {
        fc_sealed s;
        vanilla_c1 c1, back;
        seal(&s, ids[j]);
        sealed_c1(&c1, &s);
        expect_ok(&c1);
        char path[] = "/tmp/test_vanilla_verify_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        cuzk_err err = {0};
        assert_int_equal(vanilla_c1_write_file(path, &c1, &err), CUZK_OK);
        if (vanilla_c1_read(&back, path, VANILLA_C1_AUTO | VANILLA_C1_UNCHECKED, &err))
            fail_msg("%s", err.msg);
        unlink(path);
        expect_ok(&back);
        vanilla_c1_free(&back);
        vanilla_c1_free(&c1);
        fc_sealed_free(&s);
    }
}

static void test_sealed_8mib_accepted(void **state)
{
    (void)state;
    if (quick()) skip();
    fc_sealed s;
    vanilla_c1 c1;
    seal(&s, ID_8M_V11);
    sealed_c1(&c1, &s);
    expect_ok(&c1);
    c1.part[0][1].exp[7].proof.hashes[c1.tree_r.hashes - 1].b[0] ^= 1; /* the top level */
    char want[512];
    expect_msg(&c1, at(want, 0, 1, &c1,
                       "the tree-C path of expander parent 7 does not hash to "
                       "comm_c"));
    vanilla_c1_free(&c1);
    fc_sealed_free(&s);
}

/* ---- single-field alterations ---- */

static void flip(vanilla_node *n)
{
    n->b[0] ^= 1; /* stays a field element: the values here are far from r */
}

static void test_alterations(void **state)
{
    (void)state;
    fc_sealed s;
    vanilla_c1 c1;
    seal(&s, ID_2K_V11);
    sealed_c1(&c1, &s);
    char want[512], what[256];
    vanilla_porep_proof *p0 = &c1.part[0][0], *p1 = &c1.part[0][1];

    flip(&p1->c_x.rows[0]);
    expect_msg(&c1, at(want, 0, 1, &c1,
                       "the tree-C path of the challenged column does not hash "
                       "to comm_c"));
    flip(&p1->c_x.rows[0]);
    flip(&p0->exp[3].rows[1]);
    expect_msg(&c1, at(want, 0, 0, &c1,
                       "the tree-C path of expander parent 3 does not hash to "
                       "comm_c"));
    flip(&p0->exp[3].rows[1]);

    flip(&p1->comm_d.hashes[2]);
    expect_msg(&c1, at(want, 0, 1, &c1, "the tree-D path does not hash to comm_d"));
    flip(&p1->comm_d.hashes[2]);
    flip(&p1->comm_r_last.hashes[5]);
    expect_msg(&c1, at(want, 0, 1, &c1, "the tree-R path does not hash to comm_r_last"));
    flip(&p1->comm_r_last.hashes[5]);
    flip(&p0->drg[2].proof.hashes[0]);
    expect_msg(&c1, at(want, 0, 0, &c1, "the tree-C path of DRG parent 2 does not hash to comm_c"));
    flip(&p0->drg[2].proof.hashes[0]);

    flip(&p0->exp[5].proof.leaf);
    expect_msg(&c1, at(want, 0, 0, &c1,
                       "the tree-C proof of expander parent 5 has a leaf that is "
                       "not its column's hash"));
    flip(&p0->exp[5].proof.leaf);
    vanilla_node row = p0->drg[0].rows[1];
    memset(p0->drg[0].rows[1].b, 0xff, 32); /* >= r: only an in-memory C1 can hold it */
    expect_msg(&c1, at(want, 0, 0, &c1,
                       "DRG parent 0 or its tree-C path holds a value that is "
                       "not a field element"));
    p0->drg[0].rows[1] = row;

    flip(&p1->c_x.proof.root);
    expect_msg(&c1, at(want, 0, 1, &c1,
                       "the tree-C proof of the challenged column names a root "
                       "other than comm_c"));
    flip(&p1->c_x.proof.root);
    flip(&p1->comm_d.root);
    expect_msg(&c1, at(want, 0, 1, &c1, "the tree-D proof's root is not comm_d"));
    flip(&p1->comm_d.root);

    uint64_t node = p1->comm_d.index;
    p1->comm_d.index = node ^ 1;
    snprintf(what, sizeof what,
             "the tree-D path is for node %llu, not the challenge from replica_id and seed",
             (unsigned long long)(node ^ 1));
    expect_msg(&c1, at(want, 0, 1, &c1, what));
    p1->comm_d.index = node;

    /* A path position past the tree's end (only an in-memory C1 can have one). */
    p1->c_x.proof.index = s.cfg->nodes + 5;
    snprintf(what, sizeof what,
             "the challenged column's tree-C path is for node %llu, not the challenge from "
             "replica_id and seed",
             (unsigned long long)(s.cfg->nodes + 5));
    expect_msg(&c1, at(want, 0, 1, &c1, what));
    p1->c_x.proof.index = node;

    uint32_t parent = p0->drg[2].index;
    p0->drg[2].index = parent + 1;
    snprintf(what, sizeof what, "DRG parent 2 is node %u, the graph's is %u", parent + 1, parent);
    expect_msg(&c1, at(want, 0, 0, &c1, what));
    p0->drg[2].index = parent;

    /* Layer 2 hashes the 14 parents twice, then the first 9: parent 20 is
     * parent 6 of 14, expander parent 0, whose layer 1 label it is. */
    flip(&p0->labels[1].parents[20]);
    expect_msg(&c1, at(want, 0, 0, &c1,
                       "the labeling proof of layer 2: parent 20 is not the "
                       "layer 1 label of expander parent 0"));
    flip(&p0->labels[1].parents[20]);
    flip(&p0->encoding.parents[3]);
    expect_msg(&c1, at(want, 0, 0, &c1,
                       "the encoding proof: parent 3 is not the layer 2 label "
                       "of DRG parent 3"));
    flip(&p0->encoding.parents[3]);

    flip(&c1.comm_r);
    expect_msg(&c1, "C1 comm_r is not Poseidon(comm_c, comm_r_last) of the tree-C and tree-R "
                    "roots of partition 0, challenge 0");
    flip(&c1.comm_r);

    /* Another seed: the challenges move, the first that moved is reported. */
    flip(&c1.seed);
    uint64_t moved[2];
    fc_challenges_interactive(moved, 2, 0, s.cfg->nodes, c1.replica_id.b, c1.seed.b);
    size_t i = moved[0] != p0->c_x.index ? 0 : 1;
    assert_int_not_equal(moved[i], c1.part[0][i].c_x.index);
    snprintf(want, sizeof want,
             "C1 partition 0, challenge %zu (node %llu): the tree-D path is for node %u, not the "
             "challenge from replica_id and seed",
             i, (unsigned long long)moved[i], c1.part[0][i].c_x.index);
    expect_msg(&c1, want);
    flip(&c1.seed);

    expect_ok(&c1);
    vanilla_c1_free(&c1);
    fc_sealed_free(&s);
}

/* A C1 the reader's own check refuses is read with VANILLA_C1_UNCHECKED
 * and refused by the native check, which names the proof. */
static void test_unchecked_read(void **state)
{
    (void)state;
    fc_sealed s;
    vanilla_c1 c1, back;
    seal(&s, ID_2K_V11);
    sealed_c1(&c1, &s);
    flip(&c1.part[0][1].comm_r_last.root);
    char path[] = "/tmp/test_vanilla_verify_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cuzk_err err = {0};
    assert_int_equal(vanilla_c1_write_file(path, &c1, &err), CUZK_OK);
    assert_int_equal(vanilla_c1_read(&back, path, VANILLA_C1_AUTO, &err), CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "root differs from the comm_r_last of the other proofs"));
    if (vanilla_c1_read(&back, path, VANILLA_C1_WRAPPED | VANILLA_C1_UNCHECKED, &err))
        fail_msg("%s", err.msg);
    unlink(path);
    char want[512];
    expect_msg(&back, at(want, 0, 1, &back, "the tree-R proof's root is not comm_r_last"));
    vanilla_c1_free(&back);
    vanilla_c1_free(&c1);
    fc_sealed_free(&s);
}

/* Two faults: the one of the earlier partition is reported, whatever the thread count. */
static void test_first_in_order(void **state)
{
    (void)state;
    fc_sealed s;
    vanilla_c1 c1;
    seal(&s, ID_2K_NI); /* 13 partitions of 2 challenges */
    sealed_c1(&c1, &s);
    expect_ok(&c1);
    flip(&c1.part[9][0].comm_r_last.hashes[0]);
    flip(&c1.part[4][1].exp[0].rows[0]);
    char want[512];
    expect_msg(&c1, at(want, 4, 1, &c1,
                       "the tree-C path of expander parent 0 does not hash to "
                       "comm_c"));
    /* The message names how NI derives its challenges. */
    flip(&c1.part[4][1].exp[0].rows[0]);
    uint64_t node = c1.part[2][0].c_x.index;
    c1.part[2][0].c_x.index = (uint32_t)(node + 1);
    char what[256];
    snprintf(what, sizeof what,
             "the challenged column is for node %llu, not the challenge from replica_id and comm_r",
             (unsigned long long)(node + 1));
    snprintf(want, sizeof want, "C1 partition 2, challenge 0 (node %llu): %s",
             (unsigned long long)node, what);
    expect_msg(&c1, want);
    vanilla_c1_free(&c1);
    fc_sealed_free(&s);
}

/* ---- a sealer's mistakes, consistent with the trees ---- */

/* Rebuilds tree-C and tree-R-last of s from its labels and data, with
 * replica node `bump` (if below nodes) off by one, and the commitments. */
static void rebuild_trees(fc_sealed *s, uint64_t bump)
{
    uint64_t n = s->cfg->nodes;
    unsigned layers = s->cfg->layers;
    uint8_t *buf = malloc(n * 32);
    assert_non_null(buf);
    cuzk_err err = {0};
    for (uint64_t v = 0; v < n; v++) fc_column_hash(buf + v * 32, s->labels, n, layers, v);
    fc_tree_free(&s->tree_c);
    assert_int_equal(
        fc_tree_build(&s->tree_c, FC_TREE_POSEIDON, 8, buf, n, "tree-c", NULL, NULL, &err),
        CUZK_OK);
    assert_int_equal(fc_encode(buf, fc_tree_node(&s->tree_d, 0, 0),
                               s->labels + (size_t)(layers - 1) * n * 32, n, &err),
                     CUZK_OK);
    if (bump < n) buf[bump * 32] ^= 1;
    fc_tree_free(&s->tree_r);
    assert_int_equal(
        fc_tree_build(&s->tree_r, FC_TREE_POSEIDON, 8, buf, n, "tree-r", NULL, NULL, &err),
        CUZK_OK);
    free(buf);
    memcpy(s->comm_c, fc_tree_root(&s->tree_c), 32);
    memcpy(s->comm_r_last, fc_tree_root(&s->tree_r), 32);
    fr_t in[2];
    assert_true(fr_from_bytes_le(&in[0], s->comm_c));
    assert_true(fr_from_bytes_le(&in[1], s->comm_r_last));
    poseidon_hash(&in[0], poseidon_std(2), in);
    fr_to_bytes_le(s->comm_r, &in[0]);
}

static void test_sealer_mistakes(void **state)
{
    (void)state;
    fc_sealed s;
    vanilla_c1 c1;
    seal(&s, ID_2K_V11);
    sealed_c1(&c1, &s); /* V1_1 challenges do not depend on comm_r: they stay */
    uint64_t v = c1.part[0][0].c_x.index, n = s.cfg->nodes;
    vanilla_c1_free(&c1);
    char want[512];

    /* v's last-layer label changed after labelling (not its parents' hash). */
    s.labels[(n + v) * 32] ^= 1;
    rebuild_trees(&s, n);
    sealed_c1(&c1, &s);
    assert_int_equal(c1.part[0][0].c_x.index, v);
    expect_msg(&c1, at(want, 0, 0, &c1, "the layer 2 label does not match its parents"));
    vanilla_c1_free(&c1);

    /* The labels right again, v's replica node one off its encoding. */
    s.labels[(n + v) * 32] ^= 1;
    rebuild_trees(&s, v);
    sealed_c1(&c1, &s);
    expect_msg(&c1, at(want, 0, 0, &c1,
                       "the replica leaf is not the layer 2 label plus the data "
                       "leaf (the encoding)"));
    vanilla_c1_free(&c1);

    rebuild_trees(&s, n);
    sealed_c1(&c1, &s);
    expect_ok(&c1);
    vanilla_c1_free(&c1);
    fc_sealed_free(&s);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- sparse committed-capacity sectors (gen.h fc_sparse_c1) ---- */

static void sparse_c1(vanilla_c1 *c1, uint64_t id)
{
    fc_test_sector t = {
        .cfg = fc_porep_config_get(id), .seed = SECTOR_SEED, .sector_id = 9, .miner = 1000};
    cuzk_err err = {0};
    if (fc_sparse_c1(c1, &t, &err)) fail_msg("%s", err.msg);
}

/* A sparse 2KiB V1 and 32GiB V1_1 C1 check; the 32GiB one, timed (its
 * paths meet in the trees' top levels as a sealed sector's do), is then
 * refused for a layer 7 label and a labeling proof parent altered. */
static void test_sparse_accepted(void **state)
{
    (void)state;
    vanilla_c1 c1;
    sparse_c1(&c1, ID_2K_V1);
    expect_ok(&c1);
    vanilla_c1_free(&c1);

    sparse_c1(&c1, ID_32G_V11);
    double t0 = now(), c0 = cpu_now();
    expect_ok(&c1);
    printf("     sparse 32GiB: %zu x %zu challenges check in %.3f s (%.3f CPU-s)\n", c1.partitions,
           c1.challenges, now() - t0, cpu_now() - c0);
    char want[512];
    vanilla_porep_proof *p = &c1.part[6][11];
    flip(&p->c_x.rows[6]);
    expect_msg(&c1, at(want, 6, 11, &c1,
                       "the tree-C path of the challenged column does not "
                       "hash to comm_c"));
    flip(&p->c_x.rows[6]);
    /* Layer 7: parent 30 is parent 2 of 14 (30 - 28), DRG parent 2. */
    flip(&p->labels[6].parents[30]);
    expect_msg(&c1, at(want, 6, 11, &c1,
                       "the labeling proof of layer 7: parent 30 is not the "
                       "layer 7 label of DRG parent 2"));
    flip(&p->labels[6].parents[30]);
    flip(&p->comm_r_last.hashes[c1.tree_r.hashes - 1]); /* the sub-tree level */
    expect_msg(&c1, at(want, 6, 11, &c1, "the tree-R path does not hash to comm_r_last"));
    flip(&p->comm_r_last.hashes[c1.tree_r.hashes - 1]);
    expect_ok(&c1);
    vanilla_c1_free(&c1);
}

/* ---- large shapes: random C1s ---- */

/* Every index of c1 made the derived challenge and the graph's parents. */
static void fix_indexes(vanilla_c1 *c1)
{
    const fc_porep_config *cfg = fc_porep_config_get((uint64_t)c1->registered_proof);
    fc_graph g;
    assert_int_equal(fc_graph_for(&g, cfg, NULL), CUZK_OK);
    for (size_t k = 0; k < c1->partitions; k++) {
        uint64_t ch[32];
        fc_challenges_interactive(ch, (unsigned)c1->challenges, (unsigned)k, cfg->nodes,
                                  c1->replica_id.b, c1->seed.b);
        for (size_t i = 0; i < c1->challenges; i++) {
            vanilla_porep_proof *p = &c1->part[k][i];
            uint32_t parents[FC_DEGREE];
            fc_graph_parents(&g, (uint32_t)ch[i], parents);
            p->comm_d.index = p->comm_r_last.index = p->c_x.index = p->c_x.proof.index = ch[i];
            for (unsigned l = 0; l < cfg->layers; l++) p->labels[l].node = ch[i];
            p->encoding.node = ch[i];
            for (int j = 0; j < FC_DEGREE; j++) {
                vanilla_column *col = j < FC_BASE_DEGREE ? &p->drg[j] : &p->exp[j - FC_BASE_DEGREE];
                col->index = parents[j];
                col->proof.index = parents[j];
            }
        }
    }
}

static void random_large(int id)
{
    cuzk_rng g;
    test_rng(&g);
    vanilla_c1 c1;
    assert_int_equal(vanilla_c1_synthetic(&c1, id, &g, NULL), CUZK_OK);
    cuzk_err err = {0};
    assert_int_equal(fc_porep_c1_verify(&c1, &err), CUZK_EVERIFY);
    if (!strstr(err.msg, "C1 partition 0, challenge 0 (node ") ||
        !strstr(err.msg, ", not the challenge from replica_id and seed"))
        fail_msg("%s", err.msg);
    fix_indexes(&c1);
    double t0 = now(), c0 = cpu_now();
    char want[512];
    expect_msg(&c1, at(want, 0, 0, &c1, "the tree-D path does not hash to comm_d"));
    printf("     %s: %zu x %zu challenges checked in %.3f s (%.3f CPU-s)\n", c1.shape->name,
           c1.partitions, c1.challenges, now() - t0, cpu_now() - c0);
    vanilla_c1_free(&c1);
}

static void test_random_32gib_refused(void **state)
{
    (void)state;
    random_large(ID_32G_V11);
}

static void test_64gib(void **state)
{
    (void)state;
    if (quick()) skip();
    random_large(ID_64G_V11);
    vanilla_c1 c1;
    sparse_c1(&c1, ID_64G_V11);
    expect_ok(&c1);
    vanilla_c1_free(&c1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sealed_accepted), cmocka_unit_test(test_sealed_8mib_accepted),
        cmocka_unit_test(test_alterations),     cmocka_unit_test(test_unchecked_read),
        cmocka_unit_test(test_first_in_order),  cmocka_unit_test(test_sealer_mistakes),
        cmocka_unit_test(test_sparse_accepted), cmocka_unit_test(test_random_32gib_refused),
        cmocka_unit_test(test_64gib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
