/*
 * test_vanilla_bincode.c - Fallback PoSt and SnapDeals vanilla proofs in
 * bincode (vanilla_bincode.c).
 *
 * Round trips of synthetic proofs for every sector size (Winning, Window,
 * SnapDeals). The byte layout checked independently: blob lengths against
 * sizes derived by hand from the serde layout (u64 lengths, u32 variant,
 * 32-byte nodes), and fields at known offsets. Then every validation error
 * with its message and byte offset, truncations, trailing bytes, wrong
 * sector sizes and random mutations.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/vanilla.h"

#define KIB2  2048ull
#define GIB32 (32ull << 30)
static const uint64_t SIZES[] = {KIB2, 8ull << 20, 512ull << 20, GIB32, 64ull << 30};

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* bincode size of one MerkleProof: variant, root + leaf, and per path section
 * a u64 count, per level a u64 hash count, the hashes and a u64 index. */
static size_t merkle_size(unsigned levels_8ary, unsigned sub, unsigned top, unsigned binary)
{
    size_t level8 = 8 + 7 * 32 + 8, n = 4 + 64 + 8 + levels_8ary * level8 + binary * (8 + 32 + 8);
    if (sub) n += 8 + 8 + (sub - 1) * 32 + 8;
    if (top) n += 8 + 8 + (top - 1) * 32 + 8;
    return n;
}

static void expect(int rc, int code, const cuzk_err *e, const char *part)
{
    if (rc != code) fail_msg("status %d, expected %d (%s)", rc, code, e->msg);
    if (!strstr(e->msg, part)) fail_msg("message \"%s\" lacks \"%s\"", e->msg, part);
}

/* ---- PoSt ---- */

static void make_post(vanilla_post_sector *p, uint8_t **blob, size_t *len, int kind, uint64_t size)
{
    cuzk_rng g;
    test_rng(&g);
    cuzk_err e;
    assert_int_equal(vanilla_post_sector_synthetic(p, kind, size, &g, &e), CUZK_OK);
    assert_int_equal(vanilla_post_sector_encode((void **)blob, len, p, &e), CUZK_OK);
}

static int parse_post(const uint8_t *blob, size_t len, uint64_t size, cuzk_err *e)
{
    vanilla_post_sector q;
    memset(e, 0, sizeof(*e));
    int rc = vanilla_post_sector_parse(&q, VANILLA_POST_WINNING, size, blob, len, e);
    if (!rc)
        vanilla_post_sector_free(&q);
    else
        assert_true(e->msg[0] != 0);
    return rc;
}

static void test_post_round_trip(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++)
        for (size_t s = 0; s < 5; s++) {
            vanilla_post_sector p, q;
            uint8_t *blob;
            size_t len;
            cuzk_err e;
            make_post(&p, &blob, &len, kind, SIZES[s]);
            if (vanilla_post_sector_parse(&q, kind, SIZES[s], blob, len, &e)) fail_msg("%s", e.msg);
            assert_int_equal(q.n_proofs, kind == VANILLA_POST_WINNING ? 66 : 10);
            assert_int_equal(q.sector_id, p.sector_id);
            assert_memory_equal(&q.comm_r, &p.comm_r, 32);
            assert_memory_equal(&q.comm_c, &p.comm_c, 32);
            assert_memory_equal(&q.comm_r_last, &p.comm_r_last, 32);
            assert_memory_equal(q.nodes, p.nodes, p.n_proofs * p.tree.hashes * 32);
            for (size_t i = 0; i < p.n_proofs; i++) {
                assert_int_equal(q.proofs[i].index, p.proofs[i].index);
                assert_memory_equal(&q.proofs[i].leaf, &p.proofs[i].leaf, 32);
            }
            vanilla_post_sector_free(&p);
            vanilla_post_sector_free(&q);
            free(blob);
        }
}

static void test_post_layout(void **state)
{
    (void)state;
    vanilla_post_sector p;
    uint8_t *blob;
    size_t len;
    make_post(&p, &blob, &len, VANILLA_POST_WINNING, KIB2); /* tree-R 8-0-0, 2 levels */
    assert_int_equal(len, 8 + 32 + 8 + 8 + 66 * merkle_size(2, 0, 0, 0) + 64);
    assert_int_equal(le64(blob), p.sector_id);
    assert_memory_equal(blob + 8, &p.comm_r, 32);
    assert_int_equal(le64(blob + 40), 1);          /* vanilla_proof.sectors */
    assert_int_equal(le64(blob + 48), 66);         /* its inclusion_proofs */
    assert_memory_equal(blob + 56, "\0\0\0\0", 4); /* Single */
    assert_memory_equal(blob + 60, &p.proofs[0].root, 32);
    assert_memory_equal(blob + 92, &p.proofs[0].leaf, 32);
    assert_int_equal(le64(blob + 124), 2); /* path elements */
    assert_int_equal(le64(blob + 132), 7); /* hashes of level 0 */
    assert_int_equal(le64(blob + 140 + 224), p.proofs[0].index % 8);
    assert_memory_equal(blob + len - 32, &p.comm_r_last, 32);
    vanilla_post_sector_free(&p);
    free(blob);
    make_post(&p, &blob, &len, VANILLA_POST_WINDOW, GIB32); /* 8-8-0: Sub, 9 base levels */
    assert_int_equal(len, 8 + 32 + 8 + 8 + 10 * merkle_size(9, 8, 0, 0) + 64);
    assert_memory_equal(blob + 56, "\1\0\0\0", 4);
    assert_int_equal(le64(blob + 60), 9); /* base_proof elements */
    vanilla_post_sector_free(&p);
    free(blob);
    make_post(&p, &blob, &len, VANILLA_POST_WINDOW, 64ull << 30); /* 8-8-2: Top */
    assert_int_equal(len, 8 + 32 + 8 + 8 + 10 * merkle_size(9, 8, 2, 0) + 64);
    assert_memory_equal(blob + 56, "\2\0\0\0", 4);
    vanilla_post_sector_free(&p);
    free(blob);
}

static void test_post_errors(void **state)
{
    (void)state;
    vanilla_post_sector p;
    uint8_t *blob, *m;
    size_t len;
    cuzk_err e;
    make_post(&p, &blob, &len, VANILLA_POST_WINNING, KIB2);
    m = malloc(len + 1);
#define EDIT(stmt, code, msg)                                                                      \
    do {                                                                                           \
        memcpy(m, blob, len);                                                                      \
        stmt;                                                                                      \
        expect(parse_post(m, len, KIB2, &e), code, &e, msg);                                       \
    } while (0)
    EDIT(m[40] = 2, CUZK_ELENGTH,
         "PoSt sector proof vanilla_proof.sectors: length 2, expected 1 (byte 40)");
    EDIT(m[48] = 65, CUZK_ELENGTH,
         "PoSt sector proof vanilla_proof.sectors[0].inclusion_proofs: length 65, expected 66 "
         "(byte 48)");
    EDIT(m[56] = 1, CUZK_EINVAL,
         "vanilla_proof.sectors[0].inclusion_proofs[0].data: variant 1, expected 0 (Single, "
         "tree-R of 2KiB sectors) (byte 56)");
    EDIT(memset(m + 8, 0xff, 32), CUZK_ENONCANONICAL,
         "comm_r: not a canonical field element (>= r) (byte 8)");
    EDIT(m[132] = 6, CUZK_ELENGTH,
         "vanilla_proof.sectors[0].inclusion_proofs[0].data.Single.path.path[0].hashes: length 6, "
         "expected 7 (byte 132)");
    EDIT(put64(m + 140 + 224, 8), CUZK_EINVAL,
         "inclusion_proofs[0].data.Single.path.path[0].index: 8 is not below the level's arity 8 "
         "(byte 364)");
    EDIT(memset(m + 140 + 31, 0xff, 1), CUZK_ENONCANONICAL,
         "inclusion_proofs[0].data.Single.path.path[0].hashes[0]: not a canonical");
    EDIT(memset(m + len - 64, 0, 32), CUZK_EINVAL,
         "PoSt sector proof vanilla_proof.sectors[0].comm_c: all zero");
    EDIT(m[8] ^= 1, CUZK_EINVAL, "PoSt sector proof comm_r: not Poseidon(comm_c, comm_r_last)");
    size_t second = 56 + merkle_size(2, 0, 0, 0);
    EDIT(m[second + 4] ^= 1, CUZK_EINVAL,
         "PoSt sector proof vanilla_proof.sectors[0].inclusion_proofs[1]: root is not "
         "comm_r_last");
    m[len] = 0;
    memcpy(m, blob, len);
    expect(parse_post(m, len + 1, KIB2, &e), CUZK_ELENGTH, &e, "1 bytes after the proof");
    expect(parse_post(blob, len, 8ull << 20, &e), CUZK_ELENGTH, &e,
           "inclusion_proofs[0].data.Single.path.path: length 2, expected 6"); /* 8MiB: 6 levels */
    expect(parse_post(blob, len, 4096, &e), CUZK_EINVAL, &e, "unsupported sector size 4096");
    vanilla_post_sector q;
    expect(vanilla_post_sector_parse(&q, VANILLA_POST_WINDOW, KIB2, blob, len, &e), CUZK_ELENGTH,
           &e, "vanilla_proof.sectors[0].inclusion_proofs: length 66, expected 10 (byte 48)");
    for (size_t n = 0; n < len; n += n < 600 || n > len - 600 ? 1 : 97)
        assert_int_not_equal(parse_post(blob, n, KIB2, &e), CUZK_OK);
#undef EDIT
    free(m);
    free(blob);
    vanilla_post_sector_free(&p);
}

/* ---- SnapDeals ---- */

static void make_update(vanilla_update_partition *p, uint8_t **blob, size_t *len, uint64_t size)
{
    cuzk_rng g;
    test_rng(&g);
    cuzk_err e;
    assert_int_equal(vanilla_update_synthetic(p, size, &g, &e), CUZK_OK);
    assert_int_equal(vanilla_update_encode((void **)blob, len, p, &e), CUZK_OK);
}

static int parse_update(const uint8_t *blob, size_t len, uint64_t size, cuzk_err *e)
{
    vanilla_update_partition q;
    memset(e, 0, sizeof(*e));
    int rc = vanilla_update_parse(&q, size, blob, len, e);
    if (!rc)
        vanilla_update_free(&q);
    else
        assert_true(e->msg[0] != 0);
    return rc;
}

static void test_update_round_trip(void **state)
{
    (void)state;
    const unsigned challenges[5] = {10, 10, 86, 86, 86}, apex[5] = {8, 128, 128, 128, 128};
    for (size_t s = 0; s < 5; s++) {
        vanilla_update_partition p, q;
        uint8_t *blob;
        size_t len;
        cuzk_err e;
        make_update(&p, &blob, &len, SIZES[s]);
        if (vanilla_update_parse(&q, SIZES[s], blob, len, &e)) fail_msg("%s", e.msg);
        assert_int_equal(q.n_challenges, challenges[s]);
        assert_int_equal(q.n_apex, apex[s]);
        size_t per = 2 * p.tree_r.hashes + p.tree_d.hashes;
        assert_memory_equal(q.nodes, p.nodes, (p.n_apex + p.n_challenges * per) * 32);
        assert_memory_equal(&q.comm_c, &p.comm_c, 32);
        for (size_t i = 0; i < p.n_challenges; i++) {
            assert_int_equal(q.challenges[i].d_new.index, p.challenges[i].d_new.index);
            assert_memory_equal(&q.challenges[i].r_new.root, &p.challenges[i].r_new.root, 32);
        }
        vanilla_update_free(&p);
        vanilla_update_free(&q);
        free(blob);
    }
}

static void test_update_layout_and_errors(void **state)
{
    (void)state;
    vanilla_update_partition p;
    uint8_t *blob, *m;
    size_t len;
    cuzk_err e;
    make_update(&p, &blob, &len, KIB2); /* 8 apex leafs, 10 challenges, tree-D 6 levels */
    size_t ch = 2 * merkle_size(2, 0, 0, 0) + merkle_size(0, 0, 0, 6);
    assert_int_equal(len, 32 + 8 + 8 * 32 + 8 + 10 * ch);
    assert_memory_equal(blob, &p.comm_c, 32);
    assert_int_equal(le64(blob + 32), 8);
    assert_int_equal(le64(blob + 32 + 8 + 256), 10);
    size_t c0 = 32 + 8 + 256 + 8, d0 = c0 + merkle_size(2, 0, 0, 0);
    assert_int_equal(le64(blob + d0 + 68), 6); /* proof_d_new: 6 binary levels */
    m = malloc(len);
#define EDIT(stmt, code, msg)                                                                      \
    do {                                                                                           \
        memcpy(m, blob, len);                                                                      \
        stmt;                                                                                      \
        expect(parse_update(m, len, KIB2, &e), code, &e, msg);                                     \
    } while (0)
    EDIT(m[32] = 7, CUZK_ELENGTH, "SnapDeals partition proof apex_leafs: length 7, expected 8");
    EDIT(m[d0] = 1, CUZK_EINVAL,
         "challenge_proofs[0].proof_d_new.data: variant 1, expected 0 (Single, tree-D of 2KiB");
    EDIT(memset(m, 0, 32), CUZK_EINVAL, "comm_c: all zero");
    EDIT(m[c0 + ch + d0 - c0 + 4] ^= 1, CUZK_EINVAL,
         "challenge_proofs[1].proof_d_new: root differs from challenge_proofs[0]'s");
    /* challenge 0's proof_d_new level-0 index: flip it */
    size_t idx0 = d0 + 68 + 8 + 8 + 32;
    EDIT(m[idx0] ^= 1, CUZK_EINVAL, "challenge_proofs[0].proof_r_old: leaf position");
    for (size_t n = 0; n < len; n += n < 400 || n > len - 400 ? 1 : 101)
        assert_int_not_equal(parse_update(blob, n, KIB2, &e), CUZK_OK);
#undef EDIT
    free(m);
    free(blob);
    vanilla_update_free(&p);
}

/* Random byte changes: any outcome but a crash; most are rejected. */
static void test_mutated(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    vanilla_post_sector p;
    vanilla_update_partition u;
    uint8_t *pb, *ub;
    size_t pl, ul;
    make_post(&p, &pb, &pl, VANILLA_POST_WINNING, KIB2);
    make_update(&u, &ub, &ul, KIB2);
    uint8_t *m = malloc(pl > ul ? pl : ul);
    cuzk_err e;
    int rejected = 0, rounds = 200;
    for (int i = 0; i < rounds; i++) {
        memcpy(m, pb, pl);
        m[cuzk_rng_u64(&g) % pl] = (uint8_t)cuzk_rng_u64(&g);
        rejected += parse_post(m, pl, KIB2, &e) != CUZK_OK;
        memcpy(m, ub, ul);
        m[cuzk_rng_u64(&g) % ul] = (uint8_t)cuzk_rng_u64(&g);
        rejected += parse_update(m, ul, KIB2, &e) != CUZK_OK;
    }
    assert_true(rejected > rounds / 4);
    free(m);
    free(pb);
    free(ub);
    vanilla_post_sector_free(&p);
    vanilla_update_free(&u);
}

/* ---- blob lists ---- */

static int parse_blobs(const char *s, vanilla_blobs *b, cuzk_err *e)
{
    memset(e, 0, sizeof(*e));
    int rc = vanilla_blobs_parse(b, s, strlen(s), e);
    if (rc) assert_true(e->msg[0] != 0);
    return rc;
}

/* A gen-vanilla file of real PoSt blobs round-trips; malformed lists are named. */
static void test_blobs(void **state)
{
    (void)state;
    vanilla_blobs b = {0}, back;
    cuzk_err e;
    for (int i = 0; i < 3; i++) {
        vanilla_post_sector p;
        uint8_t *blob;
        size_t len;
        make_post(&p, &blob, &len, VANILLA_POST_WINDOW, KIB2);
        assert_int_equal(vanilla_blobs_add(&b, blob, len, &e), CUZK_OK);
        vanilla_post_sector_free(&p);
        free(blob);
    }
    char *text = NULL;
    size_t n;
    FILE *f = open_memstream(&text, &n);
    assert_int_equal(vanilla_blobs_write(f, &b, &e), CUZK_OK);
    fclose(f);
    assert_int_equal(parse_blobs(text, &back, &e), CUZK_OK);
    assert_int_equal(back.n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(back.len[i], b.len[i]);
        assert_memory_equal(back.data[i], b.data[i], b.len[i]);
        vanilla_post_sector q;
        assert_int_equal(
            vanilla_post_sector_parse(&q, VANILLA_POST_WINDOW, KIB2, back.data[i], back.len[i], &e),
            CUZK_OK);
        vanilla_post_sector_free(&q);
    }
    free(text);
    vanilla_blobs_free(&b);
    vanilla_blobs_free(&back);
    assert_int_equal(parse_blobs("[\"aGVsbG8=\", \"\"]", &back, &e), CUZK_OK);
    assert_int_equal(back.n, 2);
    assert_int_equal(back.len[0], 5);
    assert_memory_equal(back.data[0], "hello", 5);
    assert_int_equal(back.len[1], 0);
    vanilla_blobs_free(&back);
    expect(parse_blobs("[\"aGVsbG8=\",\"aGV*\"]", &back, &e), CUZK_EINVAL, &e,
           "vanilla blobs [1]: bad base64: '*' at character 3");
    expect(parse_blobs("[\"aGVsbG8\"]", &back, &e), CUZK_EINVAL, &e,
           "vanilla blobs [0]: bad base64: ends inside a 4-character group");
    expect(parse_blobs("[1]", &back, &e), CUZK_EINVAL, &e, "[0]: expected a base64 string");
    expect(parse_blobs("[[\"\"]]", &back, &e), CUZK_EINVAL, &e, "found an array");
    expect(parse_blobs("{}", &back, &e), CUZK_EINVAL, &e, "found an object");
    expect(parse_blobs("[\"\"", &back, &e), CUZK_EINVAL, &e, "vanilla blobs: ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_post_round_trip),
        cmocka_unit_test(test_post_layout),
        cmocka_unit_test(test_post_errors),
        cmocka_unit_test(test_update_round_trip),
        cmocka_unit_test(test_update_layout_and_errors),
        cmocka_unit_test(test_mutated),
        cmocka_unit_test(test_blobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
