/*
 * test_gen_vanilla.c - the vanilla proof generators (gen.h) on real
 * sealed 2KiB sectors.
 *
 * The Poseidon tree of a sealed sector's replica has tree-R-last's root
 * (fc_tree, built by sealing); the test sector of a seed is the same each
 * time; the directory fc_sealed_write makes reads back as the same
 * replica, and one whose seal.json does not match its replica is refused. Winning and Window PoSt
 * proofs of sealed sectors satisfy the PoSt circuit with the public inputs post_public_inputs
 * derives on its own from (sector id, comm_r) and the randomness, comm_r being the sealed sector's;
 * they survive their bincode blobs. The SnapDeals update of a sealed sector has comm_r_old = the
 * sector's comm_r, its partition proof satisfies the update circuit with update_public_inputs'
 * inputs, and an update from other data has other commitments. Arguments the generators refuse are
 * refused with messages.
 */
#include "gadget_check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/file.h"
#include "cuzk/filecoin/gen.h"

static void seal_2kib(fc_sealed *s, uint64_t seed, uint64_t sector_id)
{
    cuzk_err e;
    fc_test_sector t = {.cfg = fc_porep_config_find(2048, FC_POREP_V1_1, NULL),
                        .seed = seed,
                        .sector_id = sector_id,
                        .miner = 1000};
    assert_non_null(t.cfg);
    int rc = fc_seal_test_sector(s, &t, NULL, NULL, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
}

static void replica_of(fc_replica *r, const fc_sealed *s)
{
    cuzk_err e;
    int rc = fc_replica_from_sealed(r, s, NULL, NULL, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
}

static void test_sealed_tree(void **state)
{
    (void)state;
    fc_sealed a, b;
    seal_2kib(&a, 5, 1);
    seal_2kib(&b, 5, 1);
    assert_memory_equal(a.comm_r, b.comm_r, 32);
    fc_replica r;
    replica_of(&r, &a);
    uint8_t root[32];
    fr_to_bytes_le(root, fc_ptree_root(&r.tree_r));
    assert_memory_equal(root, a.comm_r_last, 32);
    fc_replica_free(&r);
    fc_sealed_free(&a);
    fc_sealed_free(&b);
}

/* The directory cuzk-seal writes reads back as the same replica; a
 * seal.json whose comm_c does not match the replica, or is not 64 hex
 * digits, is refused. */
static void test_replica_dir(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_gen_vanilla_XXXXXX";
    assert_non_null(mkdtemp(dir));
    fc_sealed s;
    seal_2kib(&s, 9, 77);
    assert_int_equal(fc_sealed_write(&s, dir, NULL), 0);
    fc_replica r;
    cuzk_err e;
    int rc = fc_replica_read(&r, dir, NULL, NULL, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(r.sector_id, 77);
    assert_int_equal(r.sector_size, 2048);
    assert_memory_equal(r.comm_c.b, s.comm_c, 32);
    assert_memory_equal(r.comm_r.b, s.comm_r, 32);
    fc_replica_free(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/seal.json", dir);
    uint8_t *text;
    size_t len;
    assert_int_equal(cuzk_read_file(path, &text, &len, 1 << 16, NULL), 0);
    char *c = strstr((char *)text, "\"comm_c\": \"");
    assert_non_null(c);
    c[12] = c[12] == '0' ? '1' : '0';
    assert_int_equal(cuzk_write_file(path, text, len, NULL), 0);
    assert_int_equal(fc_replica_read(&r, dir, NULL, NULL, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "comm_r is not Poseidon"));
    for (int i = 0; i < 32; i++) memcpy(c + 11 + 2 * i, "+1", 2); /* sscanf's %2x took these */
    assert_int_equal(cuzk_write_file(path, text, len, NULL), 0);
    assert_int_equal(fc_replica_read(&r, dir, NULL, NULL, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "64-hex-digit \"comm_c\""));
    free(text);
    const char *files[] = {"sc-02-data-tree-d.dat",
                           "sc-02-data-layer-1.dat",
                           "sc-02-data-layer-2.dat",
                           "sc-02-data-tree-c.dat",
                           "sc-02-data-tree-r-last.dat",
                           "unsealed.dat",
                           "sealed.dat",
                           "seal.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(fc_replica_read(&r, dir, NULL, NULL, &e), CUZK_EIO);
    fc_sealed_free(&s);
}

/* The circuit over v is satisfied with inputs want[]. */
static void post_satisfied(int kind, const post_shape *s, const vanilla_post_sector *v, size_t n,
                           const fr_t *want)
{
    post_circuit pc;
    cuzk_err e;
    int rc = post_circuit_init(&pc, kind, s, v, n, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    cs_prover p;
    prove_satisfied(&p, post_circuit_get(&pc));
    for (size_t i = 0; i < post_num_public_inputs(s); i++)
        assert_true(fr_eq(&p.input_assignment[1 + i], &want[i]));
    cs_prover_free(&p);
}

static void test_winning(void **state)
{
    (void)state;
    fc_sealed sec;
    seal_2kib(&sec, 21, 7);
    fc_replica rep;
    replica_of(&rep, &sec);
    fc_post_replica r = fc_replica_post(&rep);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINNING, 2048, NULL), 0);
    uint8_t rnd[32];
    fc_test_bytes(rnd, 21, 0x72);
    vanilla_post_sector v, parsed;
    assert_int_equal(
        fc_gen_post_sector(&v, VANILLA_POST_WINNING, &s, FC_API_V1_1, rnd, &r, 0, NULL), 0);
    assert_memory_equal(v.comm_r.b, sec.comm_r, 32);
    /* Through bincode, as Curio sends it. */
    void *blob;
    size_t len;
    assert_int_equal(vanilla_post_sector_encode(&blob, &len, &v, NULL), 0);
    assert_int_equal(
        vanilla_post_sector_parse(&parsed, VANILLA_POST_WINNING, 2048, blob, len, NULL), 0);
    post_public_sector pub = {.id = sec.sector_id};
    memcpy(pub.comm_r.b, sec.comm_r, 32);
    fr_t *want = malloc(post_num_public_inputs(&s) * sizeof(fr_t));
    assert_non_null(want);
    assert_int_equal(post_winning_public_inputs(want, &s, FC_API_V1_1, rnd, &pub, NULL), 0);
    post_satisfied(VANILLA_POST_WINNING, &s, &parsed, 1, want);
    free(want), free(blob);
    vanilla_post_sector_free(&parsed);
    vanilla_post_sector_free(&v);
    fc_replica_free(&rep);
    fc_sealed_free(&sec);
}

/* Window PoSt 2KiB: three sealed sectors over two partitions (two sectors
 * each, the second padded), V1_1 and V1_2 challenge indexes. */
static void test_window(void **state)
{
    (void)state;
    enum { N = 3 };
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, 2048, NULL), 0);
    assert_int_equal(s.sectors, 2);
    fc_sealed sec[N];
    fc_replica rep[N];
    fc_post_replica r[N];
    post_public_sector pub[N];
    for (size_t i = 0; i < N; i++) {
        seal_2kib(&sec[i], 30 + i, 100 + i);
        replica_of(&rep[i], &sec[i]);
        r[i] = fc_replica_post(&rep[i]);
        pub[i].id = sec[i].sector_id;
        memcpy(pub[i].comm_r.b, sec[i].comm_r, 32);
    }
    uint8_t rnd[32];
    fc_test_bytes(rnd, 30, 0x72);
    fr_t want[2 * (1 + POST_WINDOW_CHALLENGES)];
    const int apis[] = {FC_API_V1_1, FC_API_V1_2};
    for (size_t a = 0; a < 2; a++) {
        vanilla_post_sector v[N];
        for (size_t i = 0; i < N; i++)
            assert_int_equal(
                fc_gen_post_sector(&v[i], VANILLA_POST_WINDOW, &s, apis[a], rnd, &r[i], i, NULL),
                0);
        for (size_t k = 0; k < 2; k++) {
            assert_int_equal(post_public_inputs(want, &s, apis[a], rnd, pub, N, k, NULL), 0);
            post_satisfied(VANILLA_POST_WINDOW, &s, &v[2 * k], k ? 1 : 2, want);
        }
        for (size_t i = 0; i < N; i++) vanilla_post_sector_free(&v[i]);
    }
    for (size_t i = 0; i < N; i++) fc_replica_free(&rep[i]), fc_sealed_free(&sec[i]);
}

/* The update of a sealed sector with new data drawn from seed. */
static void update_of(fc_update *u, const fc_sealed *sec, uint64_t seed)
{
    update_shape s;
    assert_int_equal(update_shape_for_size(&s, 2048, NULL), 0);
    uint64_t n = s.nodes;
    uint8_t *bytes = malloc(n * 32);
    fr_t *data = malloc(n * sizeof(fr_t));
    assert_true(bytes && data);
    fc_seal_random_data(bytes, n, seed);
    assert_int_equal(fc_nodes_to_fr(data, bytes, n, "data", NULL), 0);
    fc_replica r;
    replica_of(&r, sec);
    cuzk_err e;
    int rc = fc_gen_update(u, &s, s.hs[3], r.nodes, &r.comm_c, data, NULL, NULL, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    fc_replica_free(&r);
    free(bytes), free(data);
}

static void test_update(void **state)
{
    (void)state;
    fc_sealed sec;
    seal_2kib(&sec, 41, 3);
    fc_update u, other;
    update_of(&u, &sec, 1);
    update_of(&other, &sec, 2);
    assert_int_equal(u.n_partitions, 1);
    assert_memory_equal(u.comm_r_old.b, sec.comm_r, 32);
    assert_memory_equal(other.comm_r_old.b, sec.comm_r, 32);
    assert_memory_not_equal(u.comm_d_new.b, other.comm_d_new.b, 32);
    assert_memory_not_equal(u.comm_r_new.b, other.comm_r_new.b, 32);
    if (!quick()) {
        update_public pub = fc_update_public(&u, 0);
        update_circuit c;
        cuzk_err e;
        int rc = update_circuit_init(&c, &u.shape, &u.parts[0], &pub, &e);
        if (rc) print_message("%s\n", e.msg);
        assert_int_equal(rc, 0);
        cs_prover p;
        prove_satisfied(&p, update_circuit_get(&c));
        for (int i = 0; i < UPDATE_PUBLIC_INPUTS; i++)
            assert_true(fr_eq(&p.input_assignment[1 + i], &c.inputs[i]));
        cs_prover_free(&p);
    }
    fc_update_free(&other);
    fc_update_free(&u);
    fc_sealed_free(&sec);
}

static void test_refusals(void **state)
{
    (void)state;
    post_shape s, w;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINNING, 2048, NULL), 0);
    assert_int_equal(post_shape_make(&w, 512, 8, 4, 2, 1, 5, NULL), 0);
    fr_t leaves[64] = {{{0}}};
    fc_ptree t;
    cuzk_err e;
    assert_int_equal(fc_ptree_build(&t, &s.tree, leaves, 63, "t", NULL, NULL, &e), CUZK_EINVAL);
    assert_int_equal(fc_ptree_build(&t, &s.tree, leaves, 64, "t", NULL, NULL, &e), 0);
    fc_post_replica r = {.sector_id = 1, .tree_r = &t};
    vanilla_post_sector v;
    uint8_t rnd[32] = {0};
    assert_int_equal(fc_gen_post_sector(&v, 7, &s, FC_API_V1_1, rnd, &r, 0, &e), CUZK_EINVAL);
    assert_int_equal(fc_gen_post_sector(&v, VANILLA_POST_WINDOW, &w, FC_API_V1_1, rnd, &r, 0, &e),
                     CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "tree-R"));
    memset(r.comm_c.b, 0xff, 32);
    assert_int_equal(fc_gen_post_sector(&v, VANILLA_POST_WINNING, &s, FC_API_V1_1, rnd, &r, 0, &e),
                     CUZK_ENONCANONICAL);
    update_shape us;
    assert_int_equal(update_shape_for_size(&us, 2048, NULL), 0);
    fc_update u;
    assert_int_equal(fc_gen_update(&u, &us, 5, leaves, &r.comm_c, leaves, NULL, NULL, &e),
                     CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "h = 5"));
    fc_ptree_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sealed_tree), cmocka_unit_test(test_replica_dir),
        cmocka_unit_test(test_winning),     cmocka_unit_test(test_window),
        cmocka_unit_test(test_update),      cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
