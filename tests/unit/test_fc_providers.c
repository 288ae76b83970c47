/*
 * test_fc_providers.c - the Filecoin engine providers (providers.h).
 *
 * PoRep: the C1 of a sealed 2KiB sector (fc_seal_test_sector), written as
 * the c1.json wrapper and as bare JSON, is prepared into porep-2k with the
 * official parameter name, one circuit per partition and public inputs
 * equal to porep_public_inputs computed here; sector_size /
 * registered_proof mismatches and garbage are refused with messages naming
 * the fault, and so are a C1 with one tree-C path sibling altered (the
 * native check, vanilla_verify.h, names its partition, challenge and
 * node) and a random well-formed one (vanilla_c1_synthetic). The
 * provider's blank circuit of porep-2k (PreloadSRS records its shape) has
 * the shape of a prepared partition; an unknown id is refused.
 *
 * Winning PoSt: malformed requests are refused; and (not under
 * CUZK_TEST_QUICK) a native 2KiB sector, a Poseidon tree-R over random
 * leaves with the 66 inclusion proofs the randomness challenges (the
 * library's generator, gen.h, as for Window PoSt below), encoded
 * as bincode like Curio's vanilla proof, is proved through an engine with
 * development parameters: the proof verifies here with the .vk the
 * provider wrote and inputs from post_winning_public_inputs, and not for
 * the inputs of another randomness.
 *
 * Window PoSt: native sectors of partition k (V1 and V1_1 challenge
 * indexes) are prepared with the inputs post_public_inputs gives for the
 * same sectors as chunk k of a longer list; bad proof ids are refused.
 *
 * SnapDeals: a sparse 2KiB update's partition proof (gen.h
 * fc_sparse_update) is prepared into snap-2k with update_public_inputs'
 * inputs for h = hs[3] (not under CUZK_TEST_QUICK: the size count takes
 * seconds); wrong commitments, counts and proof ids are refused, and so,
 * by the native check (update_verify.h) with partition, challenge, node
 * and fault named, are another comm_r_new, an altered apex leaf, an
 * altered tree-R-new sibling and a random well-formed partition proof.
 *
 * Sizes: the table of partition sizes the providers use instead of a
 * count (provider_common.c) equals a count of the blank circuit for every
 * PoSt size up to 512MiB and the 2KiB (and, not under CUZK_TEST_QUICK,
 * 8MiB) SnapDeals update; a count that differed would fail it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/engine_log.h"
#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/providers.h"
#include "cuzk/filecoin/update_circuit.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"
#include "filecoin/provider_internal.h"
#include "testutil.h"

#define KIB2        2048ull
#define SEAL_2K_V11 5 /* StackedDrg2KiBV1_1 */

static bool quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

/* c1 as JSON (wrapper or bare) in a malloc'd buffer. */
static char *c1_json(vanilla_c1 *c1, bool wrapped, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    c1->wrapped = wrapped;
    assert_int_equal(vanilla_c1_write(f, c1, NULL), 0);
    fclose(f);
    return buf;
}

static int prepare(const engine_provider *p, const engine_request *req, engine_circuits *out,
                   cuzk_err *err)
{
    assert_true(p->claims(req));
    return p->prepare(req, out, err);
}

static void check_porep(const engine_circuits *c, const vanilla_c1 *c1)
{
    assert_string_equal(c->info.circuit_id, "porep-2k");
    assert_string_equal(c->info.param_name, fc_param_name(FC_CIRCUIT_POREP, KIB2));
    assert_int_equal(c->n_partitions, c1->partitions);
    assert_int_equal(c->n_inputs, POREP_INPUTS_FIXED + POREP_INPUTS_PER_CHALLENGE * c1->challenges);
    assert_true(c->batchable);
    /* reference/filecoin.md: 2,687,921 constraints, 2,685,673 aux. */
    assert_int_equal(c->size.constraints, 2687921);
    assert_int_equal(c->size.aux, 2685673);
    assert_int_equal(c->size.inputs, c->n_inputs + 1);
    porep_public pub;
    assert_int_equal(porep_public_from_c1(&pub, c1, NULL), 0);
    fr_t *want = calloc(c->n_inputs, sizeof *want);
    assert_non_null(want);
    for (size_t k = 0; k < c->n_partitions; k++) {
        assert_int_equal(porep_public_inputs(want, &pub, k, NULL), 0);
        assert_memory_equal(want, c->inputs + k * c->n_inputs, c->n_inputs * sizeof *want);
    }
    free(want);
}

static void expect_refused(const engine_provider *p, const engine_request *req, const char *what)
{
    engine_circuits c;
    cuzk_err err = {0};
    assert_int_not_equal(prepare(p, req, &c, &err), 0);
    if (!strstr(err.msg, what)) fail_msg("message '%s' lacks '%s'", err.msg, what);
}

/* The C1 of a sealed 2KiB V1_1 sector. */
static void sealed_c1(vanilla_c1 *c1)
{
    fc_test_sector t = {
        .cfg = fc_porep_config_get(SEAL_2K_V11), .seed = 5, .sector_id = 3, .miner = 1000};
    fc_sealed s;
    assert_int_equal(fc_seal_test_sector(&s, &t, NULL, NULL, NULL), 0);
    assert_int_equal(fc_test_sector_c1(c1, &s, 5, NULL), 0);
    fc_sealed_free(&s);
}

/* c1 as a request for its own sector size and proof, refused with what. */
static void expect_c1_refused(const engine_provider *p, vanilla_c1 *c1, const char *what)
{
    size_t len;
    char *json = c1_json(c1, true, &len);
    engine_request req = {.kind = ENGINE_POREP,
                          .sector_size = KIB2,
                          .registered_proof = SEAL_2K_V11,
                          .vanilla_proof = {(const uint8_t *)json, len}};
    expect_refused(p, &req, what);
    free(json);
}

/* The fingerprint of circuit's recorded shape. */
static void shape_print(cs_circuit circuit, uint8_t out[32])
{
    cs_shape *s;
    cuzk_err err = {0};
    if (cs_shape_record(&s, circuit, &err)) fail_msg("shape: %s", err.msg);
    cs_shape_fingerprint(s, out);
    cs_shape_free(s);
}

/* p's blank circuit of id (what PreloadSRS records) has the shape of
 * `partition`, a real partition of id; an unknown id is refused. */
static void check_blank(const engine_provider *p, const char *id, cs_circuit partition)
{
    cs_circuit blank;
    void *ctx;
    cuzk_err err = {0};
    if (p->blank(id, &blank, &ctx, &err)) fail_msg("blank %s: %s", id, err.msg);
    uint8_t want[32], got[32];
    shape_print(partition, want);
    shape_print(blank, got);
    p->blank_free(ctx);
    assert_memory_equal(want, got, 32);
    assert_int_not_equal(p->blank("porep-3k", &blank, &ctx, &err), 0);
    assert_non_null(strstr(err.msg, "porep-3k"));
}

static void test_known_sizes(void **state)
{
    (void)state;
    const struct {
        fc_circuit_kind kind;
        size_t upto; /* fcp_sizes index, inclusive */
    } cases[] = {{FC_CIRCUIT_WINNING_POST, FCP_SIZES - 1},
                 {FC_CIRCUIT_WINDOW_POST, 2},
                 {FC_CIRCUIT_UPDATE, quick() ? 0 : 1}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (size_t i = 0; i <= cases[k].upto; i++) {
            cs_capacity known, counted;
            cuzk_err err = {0};
            assert_int_equal(fcp_partition_size(cases[k].kind, i, &known, &err), 0);
            assert_int_equal(fcp_partition_count(cases[k].kind, i, &counted, &err), 0);
            if (memcmp(&known, &counted, sizeof known))
                fail_msg("kind %d size %zu: table {%zu, %zu, %zu}, counted {%zu, %zu, %zu}",
                         cases[k].kind, i, known.constraints, known.inputs, known.aux,
                         counted.constraints, counted.inputs, counted.aux);
        }
}

static void test_porep(void **state)
{
    (void)state;
    vanilla_c1 c1;
    sealed_c1(&c1);
    const engine_provider *p = fc_porep_provider(NULL);
    assert_null(p->setup_dev);
    for (int wrapped = 0; wrapped < 2; wrapped++) {
        size_t len;
        char *json = c1_json(&c1, wrapped, &len);
        engine_request req = {.kind = ENGINE_POREP,
                              .sector_size = KIB2,
                              .registered_proof = SEAL_2K_V11,
                              .vanilla_proof = {(const uint8_t *)json, len}};
        engine_circuits c;
        cuzk_err err = {0};
        if (prepare(p, &req, &c, &err)) fail_msg("%s", err.msg);
        check_porep(&c, &c1);
        if (!wrapped) check_blank(p, c.info.circuit_id, c.partitions[c.n_partitions - 1]);
        c.release(&c);
        req.sector_size = 32ull << 30;
        expect_refused(p, &req, "request sector_size 34359738368");
        req.sector_size = 0, req.registered_proof = 8;
        expect_refused(p, &req, "StackedDrg32GiBV1_1");
        req.registered_proof = 0, req.vanilla_proof.len = len / 2;
        expect_refused(p, &req, "byte");
        free(json);
    }
    vanilla_node *sibling = &c1.part[0][1].drg[4].proof.hashes[2];
    sibling->b[0] ^= 1;
    char want[160];
    snprintf(want, sizeof want,
             "C1 partition 0, challenge 1 (node %u): the tree-C path of DRG parent 4 does not "
             "hash to comm_c",
             c1.part[0][1].c_x.index);
    expect_c1_refused(p, &c1, want);
    vanilla_c1_free(&c1);

    cuzk_rng g;
    test_rng(&g);
    assert_int_equal(vanilla_c1_synthetic(&c1, SEAL_2K_V11, &g, NULL), 0);
    expect_c1_refused(p, &c1, "C1 partition 0, challenge 0 (node ");
    vanilla_c1_free(&c1);
}

static void test_porep_lookup(void **state)
{
    (void)state;
    const engine_provider *p = fc_porep_provider(NULL);
    engine_circuit_info info;
    memset(&info, 0xff, sizeof info);
    assert_true(p->lookup("porep-32g", &info));
    assert_string_equal(info.param_name, fc_param_name(FC_CIRCUIT_POREP, 32ull << 30));
    assert_false(info.check_params); /* the official file is read unchecked */
    assert_false(p->lookup("winning-2k", &info));
    assert_false(p->lookup("test-4096", &info));
    engine_request other = {.kind = ENGINE_WINNING_POST};
    assert_false(p->claims(&other));
}

/* ---- Winning PoSt ---- */

static void random_fr_bytes(uint8_t out[32], cuzk_rng *g)
{
    fr_t r;
    fr_random(&r, g);
    fr_to_bytes_le(out, &r);
}

/* A native 2KiB sector of a PoSt kind: tree-R over random leaves, its
 * vanilla proof under rnd made by the library's generator (gen.h) for the
 * sector at `index` of the proving set (challenge indexes of api). */
static void native_sector(vanilla_post_sector *v, int kind, uint64_t id, const uint8_t rnd[32],
                          int api, uint64_t index, cuzk_rng *g)
{
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, kind, KIB2, NULL), 0);
    fr_t *leaves = malloc(s.nodes * sizeof(fr_t));
    assert_non_null(leaves);
    for (uint64_t i = 0; i < s.nodes; i++) fr_random(&leaves[i], g);
    fc_ptree t;
    assert_int_equal(fc_ptree_build(&t, &s.tree, leaves, s.nodes, "tree-r", NULL, NULL, NULL), 0);
    fc_post_replica r = {.sector_id = id, .tree_r = &t};
    random_fr_bytes(r.comm_c.b, g);
    assert_int_equal(fc_gen_post_sector(v, kind, &s, api, rnd, &r, index, NULL), 0);
    fc_ptree_free(&t);
    free(leaves);
}

static void test_winning_refused(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    const engine_provider *p = fc_winning_post_provider(NULL);
    uint8_t rnd[32], blob[100] = {0};
    random_fr_bytes(rnd, &g);
    engine_bytes one = {blob, sizeof blob}, two[2] = {one, one};
    engine_request req = {.kind = ENGINE_WINNING_POST,
                          .registered_proof = 7,
                          .randomness = {rnd, 32},
                          .vanilla_proofs = &one,
                          .n_vanilla_proofs = 1};
    expect_refused(p, &req, "not a Winning PoSt proof");
    req.registered_proof = 3, req.sector_size = KIB2;
    expect_refused(p, &req, "is for 34359738368-byte sectors");
    req.registered_proof = 0, req.randomness.len = 31;
    expect_refused(p, &req, "randomness: 31 bytes");
    uint8_t big[32];
    memset(big, 0xff, sizeof big);
    req.randomness = (engine_bytes){big, 32};
    expect_refused(p, &req, "canonical");
    req.randomness = (engine_bytes){rnd, 32}, req.vanilla_proofs = two, req.n_vanilla_proofs = 2;
    expect_refused(p, &req, "2 vanilla proofs");
    req.n_vanilla_proofs = 1;
    engine_circuits c;
    assert_int_not_equal(prepare(p, &req, &c, NULL), 0); /* 100 zero bytes */
    engine_circuit_info info;
    assert_true(p->lookup("winning-32g", &info));
    assert_string_equal(info.param_name, fc_param_name(FC_CIRCUIT_WINNING_POST, 32ull << 30));
    assert_false(p->lookup("porep-2k", &info));
}

/* Proves req on e; returns the status, the proof in *proof (192 bytes). */
static int prove(engine_t *e, const engine_request *req, uint8_t proof[GROTH16_PROOF_BYTES])
{
    char id[ENGINE_ID_MAX];
    engine_result r;
    assert_int_equal(engine_submit(e, req, id, NULL, NULL), 0);
    assert_int_equal(engine_await(e, id, 0, &r, NULL, NULL, NULL), 0);
    int status = r.status;
    if (status == ENGINE_COMPLETED) {
        assert_int_equal(r.proof_len, GROTH16_PROOF_BYTES);
        memcpy(proof, r.proof, GROTH16_PROOF_BYTES);
    }
    engine_result_free(&r);
    return status;
}

/* Verifies the proof with the .vk in dir for the inputs of (rnd, v): 0 or CUZK_EVERIFY. */
static int verify_here(const char *dir, const uint8_t proof_bytes[GROTH16_PROOF_BYTES],
                       const uint8_t rnd[32], const vanilla_post_sector *v)
{
    char params[1024], vk_path[1024];
    assert_int_equal(
        fc_param_paths(params, vk_path, sizeof params, dir, FC_CIRCUIT_WINNING_POST, KIB2, NULL),
        0);
    groth16_vk vk;
    groth16_pvk pvk;
    groth16_proof proof;
    cuzk_err err;
    assert_int_equal(groth16_vk_read(&vk, vk_path, PARAMS_CHECKED, &err), 0);
    assert_int_equal(groth16_prepare_vk(&pvk, &vk, &err), 0);
    assert_int_equal(groth16_proof_decode(&proof, proof_bytes, GROTH16_PROOF_BYTES, &err), 0);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINNING, KIB2, NULL), 0);
    size_t n = post_num_public_inputs(&s);
    fr_t *in = calloc(n, sizeof *in);
    assert_non_null(in);
    post_public_sector pub = {v->sector_id, v->comm_r};
    assert_int_equal(post_winning_public_inputs(in, &s, FC_API_V1_1, rnd, &pub, NULL), 0);
    int rc = groth16_verify(&pvk, &proof, in, n, &err);
    free(in);
    groth16_pvk_free(&pvk);
    groth16_vk_free(&vk);
    return rc;
}

static void test_winning_prove(void **state)
{
    (void)state;
    if (quick()) return;
    cuzk_rng g;
    test_rng(&g);
    uint8_t rnd[32], other[32], proof[GROTH16_PROOF_BYTES];
    random_fr_bytes(rnd, &g);
    random_fr_bytes(other, &g);
    vanilla_post_sector v;
    native_sector(&v, VANILLA_POST_WINNING, 77, rnd, FC_API_V1_1, 0, &g);
    void *blob;
    size_t len;
    assert_int_equal(vanilla_post_sector_encode(&blob, &len, &v, NULL), 0);
    char dir[] = "/tmp/cuzk-test-fcprov.XXXXXX";
    assert_non_null(mkdtemp(dir));
    engine_log_set_level("error");
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    snprintf(cfg.param_cache, sizeof cfg.param_cache, "%s", dir);
    cfg.total_budget = 1ull << 30;
    engine_t *e;
    assert_int_equal(engine_create(&e, &cfg, NULL, NULL), 0);
    assert_int_equal(engine_register_provider(e, fc_winning_post_provider(dir), NULL), 0);
    engine_bytes b = {blob, len};
    engine_request req = {.kind = ENGINE_WINNING_POST,
                          .sector_size = KIB2,
                          .randomness = {rnd, 32},
                          .vanilla_proofs = &b,
                          .n_vanilla_proofs = 1};
    assert_int_equal(prove(e, &req, proof), ENGINE_COMPLETED);
    assert_int_equal(verify_here(dir, proof, rnd, &v), 0);
    assert_int_equal(verify_here(dir, proof, other, &v), CUZK_EVERIFY);
    engine_destroy(e);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    free(blob);
    vanilla_post_sector_free(&v);
}

/* ---- Window PoSt ---- */

/* Partition k of a 2KiB Window PoSt (api V1_1 for registered proof 5,
 * V1_2 for 10) with one sector fewer than the partition holds: the
 * provider's inputs equal post_public_inputs over a sector list in which
 * these sectors are chunk k. */
static void window_case(uint64_t registered_proof, size_t k, cuzk_rng *g)
{
    int api = registered_proof < 10 ? FC_API_V1_1 : FC_API_V1_2;
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, KIB2, NULL), 0);
    size_t n = s.sectors - 1, total = k * s.sectors + n;
    uint8_t rnd[32];
    random_fr_bytes(rnd, g);
    vanilla_post_sector *v = calloc(n, sizeof *v);
    engine_bytes *blobs = calloc(n, sizeof *blobs);
    post_public_sector *pub = calloc(total, sizeof *pub);
    assert_true(v && blobs && pub);
    for (size_t i = 0; i < n; i++) {
        native_sector(&v[i], VANILLA_POST_WINDOW, 100 + i, rnd, api, k * s.sectors + i, g);
        void *b;
        size_t len;
        assert_int_equal(vanilla_post_sector_encode(&b, &len, &v[i], NULL), 0);
        blobs[i] = (engine_bytes){b, len};
        pub[k * s.sectors + i] = (post_public_sector){v[i].sector_id, v[i].comm_r};
    }
    for (size_t i = 0; i < k * s.sectors; i++) pub[i] = pub[k * s.sectors];
    const engine_provider *p = fc_window_post_provider(NULL);
    engine_request req = {.kind = ENGINE_WINDOW_POST,
                          .registered_proof = registered_proof,
                          .partition_index = (uint32_t)k,
                          .randomness = {rnd, 32},
                          .vanilla_proofs = blobs,
                          .n_vanilla_proofs = n};
    engine_circuits c;
    cuzk_err err = {0};
    if (prepare(p, &req, &c, &err)) fail_msg("%s", err.msg);
    assert_string_equal(c.info.circuit_id, "wpost-2k");
    assert_int_equal(c.n_inputs, post_num_public_inputs(&s));
    fr_t *want = calloc(c.n_inputs, sizeof *want);
    assert_non_null(want);
    assert_int_equal(post_public_inputs(want, &s, api, rnd, pub, total, k, NULL), 0);
    assert_memory_equal(want, c.inputs, c.n_inputs * sizeof *want);
    c.release(&c);
    free(want);
    for (size_t i = 0; i < n; i++) vanilla_post_sector_free(&v[i]), free((void *)blobs[i].data);
    free(v), free(blobs), free(pub);
}

static void test_window(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, KIB2, NULL), 0);
    if (s.sectors < 2) skip();
    window_case(5, 1, &g);
    window_case(10, 2, &g);
    const engine_provider *p = fc_window_post_provider(NULL);
    uint8_t rnd[32] = {1}, blob[10] = {0};
    engine_bytes b = {blob, sizeof blob};
    engine_request req = {.kind = ENGINE_WINDOW_POST,
                          .registered_proof = 3,
                          .randomness = {rnd, 32},
                          .vanilla_proofs = &b,
                          .n_vanilla_proofs = 1};
    expect_refused(p, &req, "not a Window PoSt proof (5..14)");
    req.registered_proof = 0;
    expect_refused(p, &req, "neither registered_proof nor sector_size");
    req.registered_proof = 13, req.sector_size = KIB2;
    expect_refused(p, &req, "is for 34359738368-byte sectors");
    req.registered_proof = 10;
    expect_refused(p, &req, "sector proof 0");
    engine_circuit_info info;
    assert_true(p->lookup("wpost-32g", &info));
    assert_false(p->lookup("winning-32g", &info));
}

/* ---- SnapDeals ---- */

/* Partition 0 of u encoded, with one byte flipped at `flip` (none when SIZE_MAX). */
static void update_blob(void **blob, size_t *len, const fc_update *u, size_t flip)
{
    assert_int_equal(vanilla_update_encode(blob, len, &u->parts[0], NULL), 0);
    if (flip != SIZE_MAX) ((uint8_t *)*blob)[flip] ^= 1;
}

static void test_update(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    update_shape s;
    fc_update u;
    assert_int_equal(update_shape_for_size(&s, KIB2, NULL), 0);
    assert_int_equal(fc_sparse_update(&u, &s, s.hs[3], 7, NULL), 0);
    void *blob;
    size_t len;
    update_blob(&blob, &len, &u, SIZE_MAX);
    uint8_t big[32];
    memset(big, 0xff, sizeof big);
    const engine_provider *p = fc_update_provider(NULL);
    engine_bytes b[2] = {{blob, len}, {blob, len}};
    engine_request req = {.kind = ENGINE_SNAP,
                          .sector_size = KIB2,
                          .vanilla_proofs = b,
                          .n_vanilla_proofs = 1,
                          .comm_r_old = {u.comm_r_old.b, 32},
                          .comm_r_new = {u.comm_r_new.b, 32},
                          .comm_d_new = {u.comm_d_new.b, 32}};
    if (!quick()) {
        engine_circuits c;
        cuzk_err err = {0};
        if (prepare(p, &req, &c, &err)) fail_msg("%s", err.msg);
        assert_string_equal(c.info.circuit_id, "snap-2k");
        assert_int_equal(c.n_partitions, 1);
        assert_int_equal(c.n_inputs, UPDATE_PUBLIC_INPUTS);
        update_public pub = fc_update_public(&u, 0);
        fr_t want[UPDATE_PUBLIC_INPUTS];
        assert_int_equal(update_public_inputs(want, &s, &pub, NULL), 0);
        assert_memory_equal(want, c.inputs, sizeof want);
        assert_true(c.size.constraints >= 1705039); /* reference/filecoin.md */
        c.release(&c);
    }
    req.n_vanilla_proofs = 2;
    expect_refused(p, &req, "2 partition proofs");
    req.n_vanilla_proofs = 1, req.comm_d_new.data = big;
    expect_refused(p, &req, "comm_d_new is zero or not a canonical");
    req.comm_d_new.data = u.comm_d_new.b, req.comm_r_new.len = 31;
    expect_refused(p, &req, "comm_r_new: 31 bytes");
    req.comm_r_new.len = 32, req.registered_proof = 9;
    expect_refused(p, &req, "not a SnapDeals update proof");
    req.registered_proof = 0;
    /* the native check (update_verify.h) before any circuit: the fault named */
    req.comm_r_new.data = u.comm_r_old.b;
    expect_refused(p, &req, "update partition 0: comm_r_new is not Poseidon(comm_c");
    req.comm_r_new.data = u.comm_r_new.b;
    void *altered;
    size_t alen;
    update_blob(&altered, &alen, &u, 40 + 3 * 32); /* apex leaf 3 */
    b[0] = (engine_bytes){altered, alen};
    expect_refused(p, &req, "update partition 0: the apex leaves do not hash to comm_d_new");
    free(altered);
    u.parts[0].challenges[4].r_new.hashes[2].b[0] ^= 1;
    update_blob(&altered, &alen, &u, SIZE_MAX);
    b[0] = (engine_bytes){altered, alen};
    char want[128];
    snprintf(want, sizeof want,
             "update partition 0, challenge 4 (node %llu): the tree-R-new path does not hash",
             (unsigned long long)u.parts[0].challenges[4].r_new.index);
    expect_refused(p, &req, want);
    free(altered);
    vanilla_update_partition part; /* random, well formed: proves nothing */
    assert_int_equal(vanilla_update_synthetic(&part, KIB2, &g, NULL), 0);
    update_blob(&altered, &alen, &(fc_update){.parts = &part}, SIZE_MAX);
    b[0] = (engine_bytes){altered, alen};
    expect_refused(p, &req, "update partition 0: comm_r_old is not Poseidon(comm_c");
    free(altered);
    vanilla_update_free(&part);
    b[0] = (engine_bytes){blob, len - 1};
    engine_circuits c;
    assert_int_not_equal(prepare(p, &req, &c, NULL), 0);
    engine_circuit_info info;
    assert_true(p->lookup("snap-64g", &info));
    assert_false(p->lookup("porep-64g", &info));
    free(blob);
    fc_update_free(&u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_sizes),   cmocka_unit_test(test_porep),
        cmocka_unit_test(test_porep_lookup),  cmocka_unit_test(test_winning_refused),
        cmocka_unit_test(test_winning_prove), cmocka_unit_test(test_window),
        cmocka_unit_test(test_update),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
