/*
 * test_vanilla_check.c - every validation error of the C1 reader, with its
 * message. Each case starts from a valid synthetic 2KiB C1 and breaks one
 * thing, either in the struct before writing (the writer writes values and
 * shapes as given) or in the JSON text, then checks the status and that
 * the message names the JSON path and the reason. Then truncations (every
 * prefix near both ends and random ones in the middle), random byte
 * mutations and random garbage: always an error with a message (or, for a
 * mutation, possibly a valid parse), never a crash.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/filecoin/vanilla.h"
#include "filecoin/vanilla_internal.h"

#define PROOF0 "C1 vanilla_proofs.StackedDrg2KiBV1[0][0]."

static char *write_mem(const vanilla_c1 *c1, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    cuzk_err e = {0};
    assert_int_equal(vanilla_c1_write(f, c1, &e), CUZK_OK);
    fclose(f);
    return buf;
}

/* Parses s; returns the status, e holds the message. */
static int parse(const char *s, size_t n, cuzk_err *e)
{
    vanilla_c1 c1;
    memset(e, 0, sizeof(*e));
    int rc = vanilla_c1_parse(&c1, s, n, VANILLA_C1_AUTO, e);
    if (rc)
        assert_true(e->msg[0] != 0);
    else
        vanilla_c1_free(&c1);
    return rc;
}

static void expect(int rc, int code, const cuzk_err *e, const char *part)
{
    if (rc != code) fail_msg("status %d, expected %d (%s)", rc, code, e->msg);
    if (!strstr(e->msg, part)) fail_msg("message \"%s\" lacks \"%s\"", e->msg, part);
}

static void fresh(vanilla_c1 *c1, bool wrapped)
{
    cuzk_rng g;
    test_rng(&g);
    cuzk_err e;
    assert_int_equal(vanilla_c1_synthetic(c1, VANILLA_SEAL_V1_1, &g, &e), CUZK_OK);
    c1->wrapped = wrapped;
}

/* Writes c1 and expects the reader's error. */
static void expect_struct(const vanilla_c1 *c1, int code, const char *part)
{
    size_t len;
    char *buf = write_mem(c1, &len);
    cuzk_err e;
    expect(parse(buf, len, &e), code, &e, part);
    free(buf);
}

/* Replaces the first occurrence of from in a fresh C1's text and expects the error. */
static void expect_edit(bool wrapped, const char *from, const char *to, int code, const char *part)
{
    vanilla_c1 c1;
    fresh(&c1, wrapped);
    size_t len;
    char *buf = write_mem(&c1, &len);
    vanilla_c1_free(&c1);
    char *at = strstr(buf, from);
    if (!at) fail_msg("\"%s\" not in the file", from);
    size_t a = (size_t)(at - buf), nf = strlen(from), nt = strlen(to);
    char *out = malloc(len - nf + nt + 1);
    memcpy(out, buf, a);
    memcpy(out + a, to, nt);
    memcpy(out + a + nt, at + nf, len - a - nf);
    cuzk_err e;
    expect(parse(out, len - nf + nt, &e), code, &e, part);
    free(out);
    free(buf);
}

static void test_valid(void **state)
{
    (void)state;
    vanilla_c1 c1;
    fresh(&c1, false);
    size_t len;
    char *buf = write_mem(&c1, &len);
    cuzk_err e;
    assert_int_equal(parse(buf, len, &e), CUZK_OK);
    assert_int_equal(vanilla_c1_check(&c1, &e), CUZK_OK);
    free(buf);
    vanilla_c1_free(&c1);
}

static void test_shape_errors(void **state)
{
    (void)state;
    expect_edit(true, "\"SectorSize\":2048}", "\"SectorSize\":4096}", CUZK_EINVAL,
                "c1.json SectorSize: 4096, the proofs are for 2KiB sectors");
    expect_edit(false, "\"StackedDrg2KiBV1_1\"", "\"StackedDrg8MiBV1_1\"", CUZK_EINVAL,
                "C1 vanilla_proofs: variant StackedDrg2KiBV1 does not match registered_proof "
                "StackedDrg8MiBV1_1");
    expect_edit(false, "\"StackedDrg2KiBV1_1\"", "\"StackedDrg2KiBV7\"", CUZK_EINVAL,
                "C1 registered_proof: unknown registered proof \"StackedDrg2KiBV7\"");
    expect_edit(false, "{\"StackedDrg2KiBV1\":", "{\"StackedDrg4KiBV1\":", CUZK_EINVAL,
                "C1 vanilla_proofs: unknown proof variant \"StackedDrg4KiBV1\"");
    vanilla_c1 c1;
    cuzk_err e;
    fresh(&c1, false);
    assert_int_equal(vanilla_c1_add_partition(&c1, &e), CUZK_OK);
    expect_struct(&c1, CUZK_ELENGTH, "C1 vanilla_proofs.StackedDrg2KiBV1: more than 1 elements");
    vanilla_c1_free(&c1);
    fresh(&c1, false);
    c1.challenges = 1;
    expect_struct(&c1, CUZK_ELENGTH,
                  "C1 vanilla_proofs.StackedDrg2KiBV1[0]: 1 elements, expected 2");
    c1.challenges = 2;
    vanilla_shape one_layer = *c1.shape;
    one_layer.layers = 1;
    const vanilla_shape *real = c1.shape;
    c1.shape = &one_layer;
    expect_struct(&c1, CUZK_ELENGTH,
                  PROOF0 "replica_column_proofs.c_x.column.rows: 1 elements, expected 2");
    c1.shape = real;
    vanilla_c1_free(&c1);
}

static void test_path_errors(void **state)
{
    (void)state;
    vanilla_c1 c1;
    fresh(&c1, false);
    c1.tree_d.levels = c1.tree_d.base_levels = 5;
    expect_struct(&c1, CUZK_ELENGTH,
                  PROOF0 "comm_d_proofs.data.Single.path.path: 5 elements, expected 6");
    c1.tree_d.levels = c1.tree_d.base_levels = 6;
    c1.tree_r.arity[1] = 4;
    expect_struct(&c1, CUZK_ELENGTH,
                  PROOF0
                  "comm_r_last_proof.data.Single.path.path[1].hashes: 3 elements, expected 7");
    vanilla_c1_free(&c1);
    expect_edit(false, "\"comm_r_last_proof\":{\"data\":{\"Single\"",
                "\"comm_r_last_proof\":{\"data\":{\"Sub\"", CUZK_EINVAL,
                PROOF0
                "comm_r_last_proof.data: variant Sub, expected Single (tree-R/C of 2KiB sectors)");
    expect_edit(false, ",\"index\":1}", ",\"index\":2}", CUZK_EINVAL,
                "index: 2 is not below the level's arity 2");
    expect_edit(false, "\"data\":{\"Single\":{", "\"data\":{\"Single\":{},\"Top\":{", CUZK_EINVAL,
                PROOF0 "comm_d_proofs.data.Single: missing field \"root\"");
}

static void test_field_errors(void **state)
{
    (void)state;
    expect_edit(false, "\"layer_index\"", "\"layer_idx\"", CUZK_EINVAL,
                PROOF0 "labeling_proofs[0]: unknown field \"layer_idx\"");
    expect_edit(false, ",\"_h\":null", "", CUZK_EINVAL,
                PROOF0 "replica_column_proofs.c_x.column: missing field \"_h\"");
    expect_edit(false, "\"_h\":null", "\"_h\":null,\"_h\":null", CUZK_EINVAL,
                PROOF0 "replica_column_proofs.c_x.column: duplicate field \"_h\"");
    expect_edit(false, "\"_h\":null", "\"_h\":0", CUZK_EINVAL,
                PROOF0 "replica_column_proofs.c_x.column._h: expected null, found a number");
    expect_edit(false, "\"layer_index\":1", "\"layer_index\":-1", CUZK_EINVAL,
                PROOF0 "labeling_proofs[0].layer_index: -1 is not an unsigned integer");
    expect_edit(false, "\"layer_index\":1", "\"layer_index\":1.5", CUZK_EINVAL,
                "1.5 is not an unsigned integer");
    expect_edit(false, "\"layer_index\":1", "\"layer_index\":4294967297", CUZK_EINVAL,
                "4294967297 overflows u32");
    expect_edit(false, "\"node\":", "\"node\":99999999999999999999", CUZK_EINVAL, "overflows u64");
    expect_edit(false, "\"root\":[", "\"root\":[256,", CUZK_EINVAL,
                PROOF0 "comm_d_proofs.data.Single.root[0]: 256 is not a byte");
    expect_edit(false, "\"root\":[", "\"root\":[1,", CUZK_ELENGTH,
                PROOF0 "comm_d_proofs.data.Single.root: more than 32 elements");
    expect_edit(false, "\"root\":[", "\"root\":[\"1\",", CUZK_EINVAL,
                "root[0]: expected a number, found a string");
    expect_edit(false, "\"comm_r\":[", "\"comm_r\":{},\"x\":[", CUZK_EINVAL,
                "C1 comm_r: expected an array, found an object");
    expect_edit(false, "\"ticket\":[", "\"extra\":1,\"ticket\":[", CUZK_EINVAL,
                "C1: unknown field \"extra\"");
}

static void test_value_errors(void **state)
{
    (void)state;
    vanilla_c1 c1;
    fresh(&c1, false);
    vanilla_node saved = c1.comm_r;
    /* r itself, little-endian */
    test_hex(c1.comm_r.b, 32, "01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73");
    expect_struct(&c1, CUZK_ENONCANONICAL, "C1 comm_r: not a canonical field element (>= r)");
    c1.comm_r = saved;
    vanilla_node h = c1.part[0][1].comm_r_last.hashes[9];
    memset(c1.part[0][1].comm_r_last.hashes[9].b, 0xff, 32);
    expect_struct(&c1, CUZK_ENONCANONICAL,
                  "C1 vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r_last_proof.data.Single.path."
                  "path[1].hashes[2]: not a canonical field element");
    c1.part[0][1].comm_r_last.hashes[9] = h;
    memset(&c1.comm_d, 0, 32);
    expect_struct(&c1, CUZK_EINVAL, "C1 comm_d: all zero");
    vanilla_c1_free(&c1);
    fresh(&c1, false);
    memset(&c1.replica_id, 0, 32);
    expect_struct(&c1, CUZK_EINVAL, "C1 replica_id: all zero");
    vanilla_c1_free(&c1);
    fresh(&c1, false);
    memset(c1.seed.b, 0xff, 32); /* seed and ticket are bytes, not field elements */
    memset(c1.ticket.b, 0xff, 32);
    size_t len;
    char *buf = write_mem(&c1, &len);
    cuzk_err e;
    assert_int_equal(parse(buf, len, &e), CUZK_OK);
    free(buf);
    vanilla_c1_free(&c1);
}

static void test_consistency_errors(void **state)
{
    (void)state;
    vanilla_c1 c1;
    fresh(&c1, false);
    vanilla_porep_proof *p = &c1.part[0][1];
    uint64_t node = p->c_x.index;
    p->comm_d.index ^= 1;
    expect_struct(&c1, CUZK_EINVAL, "[0][1].comm_d_proofs: leaf position is");
    p->comm_d.index ^= 1;
    p->comm_d.root.b[0] ^= 1;
    expect_struct(&c1, CUZK_EINVAL, "[0][1].comm_d_proofs: root is not comm_d");
    p->comm_d.root.b[0] ^= 1;
    p->comm_r_last.root.b[0] ^= 1;
    expect_struct(
        &c1, CUZK_EINVAL,
        "[0][1].comm_r_last_proof: root differs from the comm_r_last of the other proofs");
    p->comm_r_last.root.b[0] ^= 1;
    p->exp[3].proof.root.b[5] ^= 1;
    expect_struct(&c1, CUZK_EINVAL, "[0][1].replica_column_proofs.exp_parents[3]: root differs");
    p->exp[3].proof.root.b[5] ^= 1;
    p->drg[2].index ^= 1;
    expect_struct(&c1, CUZK_EINVAL,
                  "[0][1].replica_column_proofs.drg_parents[2]: inclusion_proof leaf position is");
    p->drg[2].index ^= 1;
    p->labels[1].layer = 5;
    expect_struct(&c1, CUZK_EINVAL, "[0][1].labeling_proofs[1]: layer_index is 5, expected 2");
    p->labels[1].layer = 2;
    p->encoding.node = node + 1;
    expect_struct(&c1, CUZK_EINVAL, "[0][1].encoding_proof: node is");
    p->encoding.node = node;
    c1.comm_r.b[0] ^= 1;
    expect_struct(&c1, CUZK_EINVAL, "C1 comm_r: not Poseidon(comm_c, comm_r_last) of the proofs'");
    vanilla_c1_free(&c1);
}

/* comm_r of comm_c = 0, comm_r_last = 1 is neptune's arity-2 vector for [0, 1]. */
static void test_comm_r_vector(void **state)
{
    (void)state;
    vanilla_node c = {{0}}, r_last = {{1}}, out, want;
    uint8_t be[32];
    test_hex(be, 32, "396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff");
    for (int i = 0; i < 32; i++) want.b[i] = be[31 - i];
    vanilla_comm_r(&out, &c, &r_last);
    assert_memory_equal(&out, &want, 32);
}

static void test_wrapper_errors(void **state)
{
    (void)state;
    cuzk_err e;
    const char *cases[][2] = {
        {"[1]", "C1: expected an object, found an array"},
        {"{\"SectorNum\":1,\"Bogus\":2}", "unknown wrapper field"},
        {"{\"SectorNum\":1,\"SectorNum\":2}", "duplicate wrapper field"},
        {"{\"SectorNum\":01}", "leading zero"},
        {"{\"SectorNum\":-1}", "expected an unsigned integer"},
        {"{\"SectorNum\":99999999999999999999}", "overflows u64"},
        {"{\"SectorNum\":1,\"Phase1Out\":7}", "Phase1Out: expected a base64 string"},
        {"{\"SectorNum\":1 \"SectorSize\":2}", "expected ',' or '}'"},
        {"{\"SectorNum\":1,\"SectorSize\":2048}", "missing field Phase1Out"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"e30=\"", "C1: missing field \"registered_proof\""},
        {"{\"SectorNum\":1", "the wrapper object is not complete"},
        {"{}", "C1: missing field \"registered_proof\""},
        {"  ", "empty input"},
        {"", "empty input"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect(parse(cases[i][0], strlen(cases[i][0]), &e), CUZK_EINVAL, &e, cases[i][1]);
    expect_edit(true, "\"SectorSize\":2048}", "\"SectorSize\":2048} x", CUZK_EINVAL,
                "data after the wrapper object");
    expect_edit(true, "{\"SectorNum\"", " \n{ \"SectorNum\" ", CUZK_OK, "");
    vanilla_c1 c1;
    fresh(&c1, false);
    size_t len;
    char *buf = write_mem(&c1, &len);
    vanilla_c1_free(&c1);
    buf = realloc(buf, len + 2);
    memcpy(buf + len, " x", 2);
    expect(parse(buf, len + 2, &e), CUZK_EINVAL, &e, "trailing garbage");
    free(buf);
}

/* File errors name the file. */
static void test_file_errors(void **state)
{
    (void)state;
    vanilla_c1 c1;
    cuzk_err e;
    expect(vanilla_c1_read(&c1, "/nonexistent/c1.json", VANILLA_C1_AUTO, &e), CUZK_EIO, &e,
           "/nonexistent/c1.json: ");
    char path[64];
    snprintf(path, sizeof(path), "/tmp/cuzk-test-c1-bad-%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}", f);
    fclose(f);
    expect(vanilla_c1_read(&c1, path, VANILLA_C1_AUTO, &e), CUZK_EINVAL, &e,
           ": C1: missing field \"registered_proof\"");
    assert_non_null(strstr(e.msg, path));
    unlink(path);
}

/* Every prefix near both ends, random ones between: all are errors. */
static void test_truncated(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int w = 0; w < 2; w++) {
        vanilla_c1 c1;
        fresh(&c1, w);
        size_t len;
        char *buf = write_mem(&c1, &len);
        vanilla_c1_free(&c1);
        cuzk_err e;
        for (size_t n = 0; n < len; n++) {
            bool end = n < 300 || n > len - 300;
            if (!end && cuzk_rng_u64(&g) % 200) continue;
            assert_int_not_equal(parse(buf, n, &e), CUZK_OK);
        }
        free(buf);
    }
}

/* Random byte changes of a valid file and random bytes: any outcome but a crash. */
static void test_mutated(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    vanilla_c1 c1;
    fresh(&c1, false);
    size_t len;
    char *buf = write_mem(&c1, &len);
    vanilla_c1_free(&c1);
    char *m = malloc(len);
    cuzk_err e;
    int rounds = getenv("CUZK_TEST_QUICK") ? 60 : 300, rejected = 0;
    for (int i = 0; i < rounds; i++) {
        memcpy(m, buf, len);
        for (int k = 0; k < 1 + (int)(cuzk_rng_u64(&g) % 3); k++)
            m[cuzk_rng_u64(&g) % len] = (char)(cuzk_rng_u64(&g) & 0xff);
        rejected += parse(m, len, &e) != CUZK_OK;
        cuzk_rng_bytes(&g, m, 200);
        assert_int_not_equal(parse(m, 200, &e), CUZK_OK);
    }
    assert_true(rejected > rounds / 2);
    free(m);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),          cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_path_errors),    cmocka_unit_test(test_field_errors),
        cmocka_unit_test(test_value_errors),   cmocka_unit_test(test_consistency_errors),
        cmocka_unit_test(test_wrapper_errors), cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_mutated),        cmocka_unit_test(test_comm_r_vector),
        cmocka_unit_test(test_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
