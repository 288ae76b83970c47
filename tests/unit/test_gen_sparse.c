/*
 * test_gen_sparse.c - sparse committed-capacity C1s (gen.h fc_sparse_c1)
 * against the real seal of the same all-zero sector and an independent
 * check of every opening.
 *
 * At 2KiB (V1 and V1_1 graphs) a sparse C1 has the comm_d, replica_id,
 * ticket, seed, challenges and opened columns (the graph's parents) of
 * fc_seal of an all-zero sector with the same ids; comm_d is Filecoin's
 * zero piece commitment of the size (2KiB, 32GiB, 64GiB: Lotus zerocomm).
 * check_c1 recomputes everything a verifier does: each challenge from
 * replica_id and seed, each column's parents from the graph, every path
 * to its root level by level (fc_tree_root_from_path: SHA-256 for tree-D,
 * Poseidon of each level's arity for tree-C and tree-R, so 64GiB's 8-8-2
 * top level too), each tree-C leaf as the Poseidon hash of its column,
 * each label (and the encoding) from the parents' column rows, and the
 * replica leaf as data + last label; it passes on a sealed sector's C1
 * (fc_sealed_c1) as well, which checks the checker. A sparse 2KiB C1
 * satisfies the PoRep circuit with the natively computed public inputs,
 * and a changed parent label breaks a constraint. The same ids give the
 * same C1, another seed another comm_r; 32GiB and 64GiB C1s pass check_c1
 * and read back through c1.json. Synthetic and NI kinds and data files are
 * refused.
 */
#include "gadget_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/tree.h"
#include "cuzk/poseidon.h"

/* Filecoin's zero piece commitments (the root of an all-zero tree-D). */
static const char ZERO_2KIB[] = "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833";
static const char ZERO_32GIB[] = "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e";
static const char ZERO_64GIB[] = "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02";

static fc_test_sector sector(uint64_t id, uint64_t seed)
{
    const fc_porep_config *cfg = fc_porep_config_get(id);
    assert_non_null(cfg);
    return (fc_test_sector){.cfg = cfg, .seed = seed, .sector_id = 9, .miner = 1000, .cc = true};
}

static void sparse_c1(vanilla_c1 *c1, const fc_test_sector *t)
{
    cuzk_err e;
    int rc = fc_sparse_c1(c1, t, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, CUZK_OK);
}

static void assert_hex(const vanilla_node *n, const char *hex)
{
    vanilla_node want;
    assert_true(vanilla_node_from_hex(&want, hex));
    assert_memory_equal(n->b, want.b, 32);
}

/* m hashes, level by level, to its root. */
static void check_path(const vanilla_merkle *m, const vanilla_tree *t, int hash)
{
    uint8_t cur[32];
    memcpy(cur, m->leaf.b, 32);
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned pos;
        const vanilla_node *sib = vanilla_merkle_level(m, t, l, &pos);
        uint32_t p = pos;
        assert_int_equal(fc_tree_root_from_path(cur, hash, t->arity[l], cur, sib->b, &p, 1),
                         CUZK_OK);
    }
    assert_memory_equal(cur, m->root.b, 32);
}

static void check_column(const vanilla_c1 *c1, const vanilla_column *c, uint32_t node)
{
    assert_int_equal(c->index, node);
    uint8_t h[32];
    fc_column_hash(h, c->rows->b, 1, c1->shape->layers, 0);
    assert_memory_equal(h, c->proof.leaf.b, 32);
    check_path(&c->proof, &c1->tree_r, FC_TREE_POSEIDON);
}

/* The 37 parent labels of p's label in layer, from its parents' columns. */
static void parents_from_columns(const vanilla_porep_proof *p, unsigned layer,
                                 vanilla_node out[FC_LABEL_PARENTS])
{
    unsigned degree = layer == 1 ? FC_BASE_DEGREE : FC_DEGREE;
    for (unsigned k = 0; k < degree; k++)
        out[k] = k < FC_BASE_DEGREE ? p->drg[k].rows[layer - 1]
                                    : p->exp[k - FC_BASE_DEGREE].rows[layer - 2];
    fc_label_parents_repeat((uint8_t *)out, layer);
}

static void check_labels(const vanilla_c1 *c1, const vanilla_porep_proof *p, uint64_t node)
{
    unsigned layers = c1->shape->layers;
    vanilla_node parents[FC_LABEL_PARENTS];
    uint8_t label[32];
    for (unsigned l = 1; l <= layers; l++) {
        parents_from_columns(p, l, parents);
        assert_memory_equal(parents, p->labels[l - 1].parents, sizeof parents);
        fc_label_from_parents(label, c1->replica_id.b, l, node, (const uint8_t *)parents);
        assert_memory_equal(label, p->c_x.rows[l - 1].b, 32);
    }
    assert_memory_equal(parents, p->encoding.parents, sizeof parents);
    fr_t data, key, replica;
    assert_true(fr_from_bytes_le(&data, p->comm_d.leaf.b));
    assert_true(fr_from_bytes_le(&key, p->c_x.rows[layers - 1].b));
    fr_add(&replica, &data, &key);
    fr_to_bytes_le(label, &replica);
    assert_memory_equal(label, p->comm_r_last.leaf.b, 32);
}

/* What a verifier checks of every opening (interactive challenges). */
static void check_c1(const vanilla_c1 *c1, const fc_graph *g)
{
    assert_int_equal(vanilla_c1_check(c1, NULL), CUZK_OK);
    uint64_t ch[64];
    for (size_t k = 0; k < c1->partitions; k++) {
        fc_challenges_interactive(ch, (unsigned)c1->challenges, (unsigned)k, c1->shape->nodes,
                                  c1->replica_id.b, c1->seed.b);
        for (size_t i = 0; i < c1->challenges; i++) {
            const vanilla_porep_proof *p = &c1->part[k][i];
            uint32_t parents[FC_DEGREE];
            assert_int_equal(p->c_x.index, ch[i]);
            fc_graph_parents(g, p->c_x.index, parents);
            check_path(&p->comm_d, &c1->tree_d, FC_TREE_SHA256);
            assert_memory_equal(p->comm_d.root.b, c1->comm_d.b, 32);
            check_path(&p->comm_r_last, &c1->tree_r, FC_TREE_POSEIDON);
            check_column(c1, &p->c_x, p->c_x.index);
            for (int j = 0; j < FC_BASE_DEGREE; j++) check_column(c1, &p->drg[j], parents[j]);
            for (int j = 0; j < FC_EXP_DEGREE; j++)
                check_column(c1, &p->exp[j], parents[FC_BASE_DEGREE + j]);
            check_labels(c1, p, ch[i]);
        }
    }
}

static void graph_of(fc_graph *g, const vanilla_c1 *c1)
{
    assert_int_equal(fc_graph_for(g, fc_porep_config_get((uint64_t)c1->registered_proof), NULL),
                     CUZK_OK);
}

/* The real seal of the same all-zero sector: same ids, challenges and
 * columns; both C1s pass check_c1. */
static void compare_with_seal(uint64_t id)
{
    fc_test_sector t = sector(id, 7);
    fc_sealed s;
    vanilla_c1 real, sp;
    cuzk_err e;
    int rc = fc_seal_test_sector(&s, &t, NULL, NULL, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, CUZK_OK);
    assert_int_equal(fc_test_sector_c1(&real, &s, t.seed, &e), CUZK_OK);
    sparse_c1(&sp, &t);
    assert_hex(&sp.comm_d, ZERO_2KIB);
    assert_memory_equal(sp.comm_d.b, real.comm_d.b, 32);
    assert_memory_equal(sp.replica_id.b, real.replica_id.b, 32);
    assert_memory_equal(sp.ticket.b, real.ticket.b, 32);
    assert_memory_equal(sp.seed.b, real.seed.b, 32);
    assert_int_equal(sp.sector_num, real.sector_num);
    assert_int_equal(sp.partitions, real.partitions);
    for (size_t k = 0; k < sp.partitions; k++)
        for (size_t i = 0; i < sp.challenges; i++) {
            const vanilla_porep_proof *a = &sp.part[k][i], *b = &real.part[k][i];
            assert_int_equal(a->c_x.index, b->c_x.index);
            assert_memory_equal(a->comm_d.leaf.b, b->comm_d.leaf.b, 32);
            for (int j = 0; j < FC_BASE_DEGREE; j++)
                assert_int_equal(a->drg[j].index, b->drg[j].index);
            for (int j = 0; j < FC_EXP_DEGREE; j++)
                assert_int_equal(a->exp[j].index, b->exp[j].index);
        }
    fc_graph g;
    graph_of(&g, &sp);
    check_c1(&real, &g);
    check_c1(&sp, &g);
    vanilla_c1_free(&sp);
    vanilla_c1_free(&real);
    fc_sealed_free(&s);
}

static void test_matches_seal_v1_1(void **state)
{
    (void)state;
    compare_with_seal(5); /* StackedDrg2KiBV1_1 */
}

static void test_matches_seal_v1(void **state)
{
    (void)state;
    compare_with_seal(0); /* StackedDrg2KiBV1: the legacy parent order */
}

/* c1 written as c1.json, in memory (malloc'd, *len bytes). */
static char *c1_json(const vanilla_c1 *c1, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    assert_int_equal(vanilla_c1_write(f, c1, NULL), CUZK_OK);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void test_deterministic(void **state)
{
    (void)state;
    fc_test_sector t = sector(5, 3), u = sector(5, 4);
    vanilla_c1 a, b, c;
    sparse_c1(&a, &t);
    sparse_c1(&b, &t);
    sparse_c1(&c, &u);
    size_t la, lb;
    char *ja = c1_json(&a, &la), *jb = c1_json(&b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ja, jb, la);
    assert_memory_not_equal(a.comm_r.b, c.comm_r.b, 32);
    assert_memory_not_equal(a.replica_id.b, c.replica_id.b, 32); /* another ticket */
    free(ja), free(jb);
    vanilla_c1_free(&a), vanilla_c1_free(&b), vanilla_c1_free(&c);
}

/* The circuit of a sparse 2KiB C1 is satisfied with the native public
 * inputs; one changed parent label (a column row) breaks it. */
static void test_circuit(void **state)
{
    (void)state;
    fc_test_sector t = sector(5, 11);
    vanilla_c1 c1;
    sparse_c1(&c1, &t);
    porep_circuit pc;
    cuzk_err e;
    assert_int_equal(porep_circuit_init(&pc, &c1, 0, &e), CUZK_OK);
    cs_prover p;
    prove_satisfied(&p, porep_circuit_get(&pc));
    porep_public pub;
    fr_t want[40];
    assert_int_equal(porep_public_from_c1(&pub, &c1, &e), CUZK_OK);
    assert_int_equal(porep_public_inputs(want, &pub, 0, &e), CUZK_OK);
    assert_int_equal(p.num_inputs, 40);
    for (size_t i = 0; i < 39; i++) assert_true(fr_eq(&p.input_assignment[i + 1], &want[i]));
    cs_prover_free(&p);
    c1.part[0][1].drg[2].rows[0].b[0] ^= 1;
    assert_int_equal(cs_synthesize_prover(&p, porep_circuit_get(&pc), NULL, &e), CUZK_OK);
    assert_true(count_unsatisfied(p.num_constraints, p.a, p.b, p.c) > 0);
    cs_prover_free(&p);
    vanilla_c1_free(&c1);
}

/* A production size: every opening checks and the C1 reads back from JSON. */
static void check_large(uint64_t id, const char *zero)
{
    fc_test_sector t = sector(id, 5);
    vanilla_c1 c1, back;
    sparse_c1(&c1, &t);
    assert_hex(&c1.comm_d, zero);
    assert_int_equal(c1.partitions, 10);
    assert_int_equal(c1.challenges, 18);
    fc_graph g;
    graph_of(&g, &c1);
    check_c1(&c1, &g);
    size_t len;
    char *json = c1_json(&c1, &len);
    cuzk_err e;
    int rc = vanilla_c1_parse(&back, json, len, VANILLA_C1_AUTO, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, CUZK_OK);
    assert_memory_equal(back.comm_r.b, c1.comm_r.b, 32);
    assert_memory_equal(back.part[9][17].exp[7].proof.hashes, c1.part[9][17].exp[7].proof.hashes,
                        c1.tree_r.hashes * sizeof(vanilla_node));
    free(json);
    vanilla_c1_free(&back);
    vanilla_c1_free(&c1);
}

static void test_32gib(void **state)
{
    (void)state;
    check_large(8, ZERO_32GIB); /* StackedDrg32GiBV1_1: 8-8-0 */
}

static void test_64gib(void **state)
{
    (void)state;
    check_large(9, ZERO_64GIB); /* StackedDrg64GiBV1_1: 8-8-2 */
}

static void test_refusals(void **state)
{
    (void)state;
    vanilla_c1 c1;
    cuzk_err e;
    const uint64_t refused[] = {13, 18}; /* 32GiB Synthetic, NI */
    for (size_t i = 0; i < 2; i++) {
        fc_test_sector t = sector(refused[i], 1);
        assert_int_equal(fc_sparse_c1(&c1, &t, &e), CUZK_EUNSUPPORTED);
        assert_non_null(strstr(e.msg, "comm_r"));
    }
    fc_test_sector t = sector(5, 1);
    t.data_path = "data.bin";
    assert_int_equal(fc_sparse_c1(&c1, &t, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "data.bin"));
    fc_sealed s;
    assert_int_equal(fc_seal_test_sector(&s, &t, NULL, NULL, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "all zero"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_seal_v1_1),
        cmocka_unit_test(test_matches_seal_v1),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_circuit),
        cmocka_unit_test(test_32gib),
        cmocka_unit_test(test_64gib),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
