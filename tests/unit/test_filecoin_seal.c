/*
 * test_filecoin_seal.c - native sealing against rust-fil-proofs' vectors
 * and invariants.
 *
 * Known vectors:
 * - SDR labels: storage-proofs-porep create_label/multi.rs
 *   test_create_labels (11 layers, replica_id [9; 32], porep_id [0; 32]
 *   with V1_0_0 and [123; 32] with V1_1_0, 64 and 128 nodes): the last
 *   label of the last layer, as Fr u64 limbs; the same with V1_2_0 in
 *   tests/stacked_vanilla.rs test_stacked_porep_generate_labels.
 * - synthetic PoRep challenges: challenges.rs
 *   test_synth_challenges_against_hardcoded.
 * - comm_d of an all-zero sector: filecoin-proofs tests/pieces.rs
 *   test_compute_comm_d_empty (2KiB and 128 bytes).
 * Cross-checks: replica_id and challenges against a plain recomputation
 * (incremental SHA-256, byte-wise modular reduction), challenge ranges and
 * partition consistency; a whole 2KiB seal: every label recomputed from
 * fc_label_node with parents from the graph, tree paths that hash back to
 * the roots, the encoding undone, comm_r = Poseidon2(comm_c, comm_r_last),
 * and a different ticket giving a different replica. The C1 of that seal
 * (fc_sealed_c1) verified natively as the vanilla verifier does: every
 * Merkle path hashes to its root, column leaves are Poseidon of the rows,
 * labeling proofs rebuild the labels, the encoding adds up; and it survives
 * a c1.json write and read (vanilla.h).
 */
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"
#include "cuzk/filecoin/tree.h"
#include "cuzk/fr.h"
#include "cuzk/poseidon.h"

static void limbs_to_bytes(uint8_t out[32], const uint64_t l[4])
{
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}

static void check_last_label(uint64_t nodes, uint8_t porep_byte, int api, const uint64_t exp[4])
{
    uint8_t porep_id[32], replica_id[32], want[32];
    memset(porep_id, porep_byte, 32);
    memset(replica_id, 9, 32);
    fc_graph g;
    uint32_t *parents;
    assert_int_equal(fc_graph_init(&g, nodes, porep_id, api, NULL), CUZK_OK);
    assert_int_equal(fc_parent_cache_build(&g, &parents, NULL, NULL, NULL), CUZK_OK);
    const unsigned layers = 11;
    uint8_t *labels = malloc(layers * nodes * 32);
    assert_non_null(labels);
    assert_int_equal(fc_sdr_labels(&g, parents, replica_id, layers, labels, NULL, NULL, NULL),
                     CUZK_OK);
    limbs_to_bytes(want, exp);
    assert_memory_equal(labels + (layers * nodes - 1) * 32, want, 32);
    free(labels);
    free(parents);
}

static void test_labels_multi_rs_vectors(void **state)
{
    (void)state;
    static const uint64_t v1_64[4] = {0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3,
                                      0x0462f4f4f1a68d37};
    static const uint64_t v1_128[4] = {0x7e191e52c4a8da86, 0x5ae8a1c9e6fac148, 0xce239f3b88a894b8,
                                       0x234c00d1dc1d53be};
    static const uint64_t v11_64[4] = {0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc,
                                       0x06021188c7a71cb5};
    static const uint64_t v11_128[4] = {0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23,
                                        0x0f777c18cc2c55bd};
    check_last_label(64, 0, FC_API_V1_0, v1_64);
    check_last_label(128, 0, FC_API_V1_0, v1_128);
    check_last_label(64, 123, FC_API_V1_1, v11_64);
    check_last_label(128, 123, FC_API_V1_1, v11_128);
    /* tests/stacked_vanilla.rs test_stacked_porep_generate_labels: V1_2 = V1_1 */
    check_last_label(64, 123, FC_API_V1_2, v11_64);
    check_last_label(128, 123, FC_API_V1_2, v11_128);
}

static void check_zero_comm_d(uint64_t nodes, const char *hex)
{
    uint8_t *zero = calloc(nodes, 32), want[32];
    assert_non_null(zero);
    fc_tree t;
    assert_int_equal(fc_tree_build(&t, FC_TREE_SHA256, 2, zero, nodes, "tree-d", NULL, NULL, NULL),
                     CUZK_OK);
    assert_int_equal(test_hex(want, 32, hex), 32);
    assert_memory_equal(fc_tree_root(&t), want, 32);
    fc_tree_free(&t);
    free(zero);
}

static void test_comm_d_zero(void **state)
{
    (void)state;
    /* [252, 126, 146, 130, ...] in pieces.rs, as hex */
    check_zero_comm_d(64, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
    check_zero_comm_d(4, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333");
}

static void test_replica_id(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    uint8_t prover[32], ticket[32], comm_d[32], porep_id[32], got[32], want[32];
    cuzk_rng_bytes(&g, prover, 32);
    cuzk_rng_bytes(&g, ticket, 32);
    cuzk_rng_bytes(&g, comm_d, 32);
    fc_porep_id(porep_id, 5);
    uint64_t sector_id = cuzk_rng_u64(&g);
    fc_replica_id(got, prover, sector_id, ticket, comm_d, porep_id);

    EVP_MD_CTX *c = EVP_MD_CTX_new();
    uint8_t be[8];
    for (int i = 0; i < 8; i++) be[7 - i] = (uint8_t)(sector_id >> (8 * i));
    unsigned len;
    EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    EVP_DigestUpdate(c, prover, 32);
    EVP_DigestUpdate(c, be, 8);
    EVP_DigestUpdate(c, ticket, 32);
    EVP_DigestUpdate(c, comm_d, 32);
    EVP_DigestUpdate(c, porep_id, 32);
    EVP_DigestFinal_ex(c, want, &len);
    EVP_MD_CTX_free(c);
    want[31] &= 0x3f;
    assert_memory_equal(got, want, 32);
    fr_t x;
    assert_true(fr_from_bytes_le(&x, got));

    /* Lotus prover id: f01000 -> LEB128 0xe8 0x07. */
    uint8_t pid[32] = {0}, exp[32] = {0xe8, 0x07};
    fc_prover_id_from_miner(pid, 1000);
    assert_memory_equal(pid, exp, 32);
}

/* h (256-bit LE) mod m, byte by byte from the top: an independent reduction. */
static uint64_t mod_bytes(const uint8_t h[32], uint64_t m)
{
    uint64_t r = 0;
    for (int i = 31; i >= 0; i--) r = (uint64_t)(((unsigned __int128)r * 256 + h[i]) % m);
    return r;
}

static void test_challenges(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    uint8_t rid[32], seed[32];
    cuzk_rng_bytes(&g, rid, 32);
    cuzk_rng_bytes(&g, seed, 32);
    rid[31] &= 0x3f;
    const uint64_t nodes = 1ULL << 30;
    uint64_t one[18 * 10], part[18];
    fc_challenges_interactive(one, 18 * 10, 0, nodes, rid, seed);
    for (unsigned k = 0; k < 10; k++) {
        fc_challenges_interactive(part, 18, k, nodes, rid, seed);
        assert_memory_equal(part, one + 18 * k, sizeof part);
    }
    for (unsigned j = 0; j < 18 * 10; j++) {
        uint8_t msg[68], h[32];
        memcpy(msg, rid, 32);
        memcpy(msg + 32, seed, 32);
        for (int b = 0; b < 4; b++) msg[64 + b] = (uint8_t)(j >> (8 * b));
        SHA256(msg, sizeof msg, h);
        assert_int_equal(one[j], mod_bytes(h, nodes - 1) + 1);
        assert_true(one[j] >= 1 && one[j] < nodes);
    }
    uint64_t small[2];
    fc_challenges_ni(small, 2, 12, 64, rid, seed);
    for (int i = 0; i < 2; i++) assert_true(small[i] >= 1 && small[i] < 64);
}

/* challenges.rs test_synth_challenges_against_hardcoded: nodes 2^10,
 * replica_id = Fr 55, comm_r = Fr 101, 21 synthetic challenges, 10 porep
 * challenges from rand [1; 32]. */
static void test_synthetic_challenges(void **state)
{
    (void)state;
    static const uint64_t synth[21] = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                       801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    uint8_t rid[32] = {55}, comm_r[32] = {101}, rand[32];
    memset(rand, 1, sizeof rand);
    for (uint64_t i = 0; i < 21; i++)
        assert_int_equal(fc_synth_challenge(rid, comm_r, 1024, i), synth[i]);
    uint64_t got[10], part[5];
    fc_challenges_synthetic(got, 10, 0, 1024, 21, rid, comm_r, rand);
    assert_memory_equal(got, porep, sizeof porep);
    fc_challenges_synthetic(part, 5, 1, 1024, 21, rid, comm_r, rand);
    assert_memory_equal(part, porep + 5, sizeof part);
}

static void seal_2kib_as(fc_sealed *s, uint64_t ticket_seed, uint64_t id)
{
    const fc_porep_config *cfg = fc_porep_config_get(id);
    uint8_t *data = malloc(cfg->nodes * 32);
    assert_non_null(data);
    fc_seal_random_data(data, cfg->nodes, 7);
    fc_seal_input in = {.cfg = cfg, .sector_id = 42, .data = data};
    fc_prover_id_from_miner(in.prover_id, 1000);
    cuzk_rng g;
    cuzk_rng_seed(&g, ticket_seed);
    cuzk_rng_bytes(&g, in.ticket, 32);
    in.ticket[31] &= 0x3f;
    cuzk_err err;
    assert_int_equal(fc_seal(s, &in, NULL, NULL, &err), CUZK_OK);
    assert_memory_equal(fc_tree_node(&s->tree_d, 0, 0), data, cfg->nodes * 32);
    free(data);
}

static void seal_2kib(fc_sealed *s, uint64_t ticket_seed)
{
    seal_2kib_as(s, ticket_seed, 5);
}

static void check_labels(const fc_sealed *s)
{
    uint64_t n = s->cfg->nodes;
    for (unsigned l = 1; l <= s->cfg->layers; l++) {
        const uint8_t *cur = s->labels + (l - 1) * n * 32;
        for (uint64_t v = 0; v < n; v++) {
            uint32_t p[FC_DEGREE];
            uint8_t lab[32];
            fc_graph_parents(&s->graph, (uint32_t)v, p);
            fc_label_node(lab, s->replica_id, l, v, p, cur, l > 1 ? cur - n * 32 : NULL);
            assert_memory_equal(lab, cur + v * 32, 32);
        }
    }
}

/* A label from its parts, as LabelingProof::verify does: SHA-256 over
 * replica_id, layer, node, padding and fc_label_parents' 37 labels. */
static void check_labeling_proof(const fc_sealed *s, unsigned layer, uint32_t v)
{
    uint64_t n = s->cfg->nodes;
    const uint8_t *cur = s->labels + (layer - 1) * n * 32;
    const uint8_t *prev = layer > 1 ? cur - n * 32 : NULL;
    uint32_t p[FC_DEGREE];
    uint8_t msg[64 + FC_LABEL_PARENTS * 32] = {0}, h[32];
    fc_graph_parents(&s->graph, v, p);
    fc_label_parents(msg + 64, layer, p, cur, prev);
    unsigned degree = layer == 1 ? FC_BASE_DEGREE : FC_DEGREE;
    for (unsigned k = 0; k < FC_LABEL_PARENTS; k++) {
        unsigned j = k % degree;
        const uint8_t *want = (j < FC_BASE_DEGREE ? cur : prev) + (size_t)p[j] * 32;
        assert_memory_equal(msg + 64 + 32 * k, want, 32);
    }
    memcpy(msg, s->replica_id, 32);
    msg[35] = (uint8_t)layer;
    msg[42] = (uint8_t)(v >> 8);
    msg[43] = (uint8_t)v;
    SHA256(msg, sizeof msg, h);
    h[31] &= 0x3f;
    assert_memory_equal(h, cur + (size_t)v * 32, 32);
}

static void check_path(const fc_tree *t, uint64_t leaf)
{
    uint8_t sib[FC_TREE_MAX_ROWS * 7 * 32], root[32];
    uint32_t pos[FC_TREE_MAX_ROWS];
    fc_tree_path(t, leaf, sib, pos);
    assert_int_equal(fc_tree_root_from_path(root, t->hash, t->arity, fc_tree_node(t, 0, leaf), sib,
                                            pos, t->rows - 1),
                     CUZK_OK);
    assert_memory_equal(root, fc_tree_root(t), 32);
    uint64_t i = leaf;
    for (unsigned r = 0; r + 1 < t->rows; r++, i /= t->arity)
        assert_int_equal(pos[r], i % t->arity);
}

static void test_seal_2kib(void **state)
{
    (void)state;
    fc_sealed s, other;
    seal_2kib(&s, 1);
    check_labels(&s);
    for (uint32_t v = 1; v < s.cfg->nodes; v += 9) {
        check_labeling_proof(&s, 1, v);
        check_labeling_proof(&s, 2, v);
    }
    uint64_t n = s.cfg->nodes;
    assert_int_equal(s.tree_d.rows, 7);
    assert_int_equal(s.tree_r.rows, 3);
    for (uint64_t i = 0; i < n; i++) {
        check_path(&s.tree_d, i);
        check_path(&s.tree_c, i);
        check_path(&s.tree_r, i);
        uint8_t col[32];
        fc_column_hash(col, s.labels, n, 2, i);
        assert_memory_equal(col, fc_tree_node(&s.tree_c, 0, i), 32);
        fr_t r, k, d, dd;
        fr_from_bytes_le(&r, fc_tree_node(&s.tree_r, 0, i));
        fr_from_bytes_le(&k, s.labels + (n + i) * 32);
        fr_from_bytes_le(&d, fc_tree_node(&s.tree_d, 0, i));
        fr_sub(&dd, &r, &k);
        assert_true(fr_eq(&dd, &d));
    }
    fr_t in[2], h;
    uint8_t comm_r[32];
    fr_from_bytes_le(&in[0], s.comm_c);
    fr_from_bytes_le(&in[1], s.comm_r_last);
    poseidon_hash_plain(&h, poseidon_std(2), in);
    fr_to_bytes_le(comm_r, &h);
    assert_memory_equal(comm_r, s.comm_r, 32);

    seal_2kib(&other, 2);
    assert_memory_equal(other.comm_d, s.comm_d, 32);
    assert_memory_not_equal(other.replica_id, s.replica_id, 32);
    assert_memory_not_equal(other.comm_r, s.comm_r, 32);
    fc_sealed_free(&other);
    fc_sealed_free(&s);
}

/* One inclusion proof hashes to its root along the path its index gives. */
static void check_merkle(const vanilla_merkle *m, int hash, unsigned arity, unsigned levels)
{
    uint32_t pos[FC_TREE_MAX_ROWS];
    uint64_t i = m->index;
    for (unsigned r = 0; r < levels; r++, i /= arity) pos[r] = (uint32_t)(i % arity);
    uint8_t root[32];
    assert_int_equal(fc_tree_root_from_path(root, hash, arity, m->leaf.b,
                                            (const uint8_t *)m->hashes, pos, levels),
                     CUZK_OK);
    assert_memory_equal(root, m->root.b, 32);
}

static void check_column_proof(const vanilla_column *c, unsigned layers, const uint8_t comm_c[32])
{
    fr_t rows[2], h;
    uint8_t leaf[32];
    for (unsigned l = 0; l < layers; l++) assert_true(fr_from_bytes_le(&rows[l], c->rows[l].b));
    poseidon_hash_plain(&h, poseidon_std(layers), rows);
    fr_to_bytes_le(leaf, &h);
    assert_memory_equal(leaf, c->proof.leaf.b, 32);
    assert_int_equal(c->proof.index, c->index);
    assert_memory_equal(c->proof.root.b, comm_c, 32);
    check_merkle(&c->proof, FC_TREE_POSEIDON, 8, 2);
}

/* LabelingProof::verify: the label from replica_id, layer, node and parents. */
static void check_label_proof(const vanilla_label *lp, const uint8_t replica_id[32],
                              const vanilla_node *want)
{
    uint8_t msg[64 + FC_LABEL_PARENTS * 32] = {0}, h[32];
    memcpy(msg, replica_id, 32);
    msg[35] = (uint8_t)lp->layer;
    for (int i = 0; i < 8; i++) msg[36 + i] = (uint8_t)(lp->node >> (56 - 8 * i));
    memcpy(msg + 64, lp->parents, FC_LABEL_PARENTS * 32);
    SHA256(msg, sizeof msg, h);
    h[31] &= 0x3f;
    assert_memory_equal(h, want->b, 32);
}

/* The whole C1 checked natively, as the vanilla verifier would. */
static void check_c1(const vanilla_c1 *c1, const fc_sealed *s, const uint8_t seed[32])
{
    uint64_t ch[2];
    if (s->cfg->kind == FC_POREP_SYNTHETIC)
        fc_challenges_synthetic(ch, 2, 0, s->cfg->nodes, 0, s->replica_id, s->comm_r, seed);
    else
        fc_challenges_interactive(ch, 2, 0, s->cfg->nodes, s->replica_id, seed);
    assert_int_equal(c1->partitions, 1);
    assert_int_equal(c1->challenges, 2);
    assert_memory_equal(c1->comm_r.b, s->comm_r, 32);
    for (size_t i = 0; i < c1->challenges; i++) {
        const vanilla_porep_proof *p = &c1->part[0][i];
        assert_int_equal(p->c_x.index, ch[i]);
        check_merkle(&p->comm_d, FC_TREE_SHA256, 2, 6);
        check_merkle(&p->comm_r_last, FC_TREE_POSEIDON, 8, 2);
        check_column_proof(&p->c_x, 2, s->comm_c);
        for (int j = 0; j < FC_BASE_DEGREE; j++) check_column_proof(&p->drg[j], 2, s->comm_c);
        for (int j = 0; j < FC_EXP_DEGREE; j++) check_column_proof(&p->exp[j], 2, s->comm_c);
        for (unsigned l = 0; l < 2; l++)
            check_label_proof(&p->labels[l], s->replica_id, &p->c_x.rows[l]);
        check_label_proof(&p->encoding, s->replica_id, &p->c_x.rows[1]);
        fr_t d, k, r;
        fr_from_bytes_le(&d, p->comm_d.leaf.b);
        fr_from_bytes_le(&k, p->c_x.rows[1].b);
        fr_add(&d, &d, &k);
        fr_from_bytes_le(&r, p->comm_r_last.leaf.b);
        assert_true(fr_eq(&d, &r));
    }
}

static void test_seal_c1(void **state)
{
    (void)state;
    fc_sealed s;
    seal_2kib(&s, 3);
    uint8_t seed[32];
    memset(seed, 0x5e, sizeof seed);
    vanilla_c1 c1, back;
    cuzk_err err;
    assert_int_equal(fc_sealed_c1(&c1, &s, seed, &err), CUZK_OK);
    check_c1(&c1, &s, seed);

    char path[] = "/tmp/test_filecoin_seal_c1_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(vanilla_c1_write_file(path, &c1, &err), CUZK_OK);
    assert_int_equal(vanilla_c1_read(&back, path, VANILLA_C1_AUTO, &err), CUZK_OK);
    unlink(path);
    check_c1(&back, &s, seed);
    assert_int_equal(back.sector_num, 42);
    assert_int_equal(back.registered_proof, 5);
    vanilla_c1_free(&back);
    vanilla_c1_free(&c1);
    fc_sealed_free(&s);

    seal_2kib_as(&s, 3, 10); /* StackedDrg2KiBV1_1_Feat_SyntheticPoRep */
    assert_int_equal(fc_sealed_c1(&c1, &s, seed, &err), CUZK_OK);
    check_c1(&c1, &s, seed);
    vanilla_c1_free(&c1);
    fc_sealed_free(&s);
}

static void test_seal_rejects(void **state)
{
    (void)state;
    fc_sealed s;
    cuzk_err err;
    uint8_t data[64] = {0};
    fc_seal_input in = {.cfg = fc_porep_config_get(8), .data = data};
    assert_int_equal(fc_seal(&s, &in, NULL, NULL, &err), CUZK_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "StackedDrg32GiBV1_1"));

    const fc_porep_config *cfg = fc_porep_config_get(5);
    uint8_t *bad = calloc(cfg->nodes, 32);
    assert_non_null(bad);
    bad[17 * 32 + 31] = 0xff; /* node 17 above the modulus */
    in.cfg = cfg;
    in.data = bad;
    assert_int_equal(fc_seal(&s, &in, NULL, NULL, &err), CUZK_ENONCANONICAL);
    assert_non_null(strstr(err.msg, "data node 17"));
    free(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labels_multi_rs_vectors),
        cmocka_unit_test(test_comm_d_zero),
        cmocka_unit_test(test_replica_id),
        cmocka_unit_test(test_challenges),
        cmocka_unit_test(test_synthetic_challenges),
        cmocka_unit_test(test_seal_2kib),
        cmocka_unit_test(test_seal_c1),
        cmocka_unit_test(test_seal_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
