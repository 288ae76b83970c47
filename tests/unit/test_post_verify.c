/*
 * test_post_verify.c - the native PoSt vanilla check (post_verify.h).
 *
 * Winning and Window PoSt proofs of sealed 2KiB sectors (gen.h
 * fc_gen_post_sector) check, for V1 and V1_2 challenge indexing and for a
 * partition past the first; so do sparse ones (fc_sparse_post_sectors) at
 * 2KiB and 32GiB. Each alteration is refused with CUZK_EVERIFY and a
 * message naming the sector, the challenge and the fault: a path sibling,
 * a sibling that is not a field element, the opened leaf's index, the
 * proof's root, comm_r, another randomness, the other challenge indexing,
 * a proof count short; of two faults, or of faults in every sector, the
 * first in (sector, challenge) order is named. Requests the check cannot take are CUZK_EINVAL.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/post_verify.h"

#define N_WINDOW 3

typedef struct sealed_set {
    fc_sealed sec[N_WINDOW];
    fc_replica rep[N_WINDOW];
} sealed_set;

static sealed_set *g_set; /* sealed once for all tests */

static int setup(void **state)
{
    (void)state;
    g_set = calloc(1, sizeof *g_set);
    for (size_t i = 0; i < N_WINDOW; i++) {
        fc_test_sector t = {.cfg = fc_porep_config_find(2048, FC_POREP_V1_1, NULL),
                            .seed = 60 + i,
                            .sector_id = 200 + i,
                            .miner = 1000};
        if (fc_seal_test_sector(&g_set->sec[i], &t, NULL, NULL, NULL) ||
            fc_replica_from_sealed(&g_set->rep[i], &g_set->sec[i], NULL, NULL, NULL))
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_WINDOW; i++)
        fc_replica_free(&g_set->rep[i]), fc_sealed_free(&g_set->sec[i]);
    free(g_set);
    return 0;
}

static void randomness(uint8_t rnd[32], uint64_t seed)
{
    fc_test_bytes(rnd, seed, 0x72);
}

/* Sealed proofs of sectors [first, first + n) as proving-set indexes first.. */
static void sealed_proofs(vanilla_post_sector *v, int kind, const post_shape *s, int api,
                          const uint8_t rnd[32], size_t n, size_t first)
{
    for (size_t i = 0; i < n; i++) {
        fc_post_replica r = fc_replica_post(&g_set->rep[i]);
        assert_int_equal(fc_gen_post_sector(&v[i], kind, s, api, rnd, &r, first + i, NULL), 0);
    }
}

static void free_proofs(vanilla_post_sector *v, size_t n)
{
    for (size_t i = 0; i < n; i++) vanilla_post_sector_free(&v[i]);
}

/* Checks v and returns the code; msg (may be NULL) must be in the message. */
static int check(const fc_post_request *q, const vanilla_post_sector *v, size_t n, const char *msg)
{
    cuzk_err e = {0};
    int rc = fc_post_vanilla_verify(q, v, n, &e);
    if (msg && !strstr(e.msg, msg)) print_message("got '%s', expected '%s'\n", e.msg, msg);
    if (msg) assert_non_null(strstr(e.msg, msg));
    if (!msg && rc) print_message("%s\n", e.msg);
    return rc;
}

static void test_sealed_good(void **state)
{
    (void)state;
    uint8_t rnd[32];
    randomness(rnd, 1);
    post_shape win, win_s;
    assert_int_equal(post_shape_for_size(&win, VANILLA_POST_WINNING, 2048, NULL), 0);
    assert_int_equal(post_shape_for_size(&win_s, VANILLA_POST_WINDOW, 2048, NULL), 0);
    vanilla_post_sector v[N_WINDOW];
    sealed_proofs(v, VANILLA_POST_WINNING, &win, FC_API_V1_1, rnd, 1, 0);
    fc_post_request q = {.kind = VANILLA_POST_WINNING, .shape = &win, .randomness = rnd};
    assert_int_equal(check(&q, v, 1, NULL), CUZK_OK);
    free_proofs(v, 1);
    const int apis[] = {FC_API_V1_1, FC_API_V1_2};
    for (size_t a = 0; a < 2; a++) {
        /* Proving-set indexes 4.., as partition 2 of a 2KiB window (2 sectors each). */
        sealed_proofs(v, VANILLA_POST_WINDOW, &win_s, apis[a], rnd, N_WINDOW, 4);
        q = (fc_post_request){.kind = VANILLA_POST_WINDOW,
                              .shape = &win_s,
                              .api_version = apis[a],
                              .randomness = rnd,
                              .first_sector = 4};
        assert_int_equal(check(&q, v, N_WINDOW, NULL), CUZK_OK);
        q.first_sector = 0;
        int rc = check(&q, v, N_WINDOW, apis[a] == FC_API_V1_1 ? "PoSt sector 0 (id 200)" : NULL);
        assert_int_equal(rc, apis[a] == FC_API_V1_1 ? CUZK_EVERIFY : CUZK_OK);
        free_proofs(v, N_WINDOW);
    }
}

/* Sparse sectors: 2KiB and 32GiB, both kinds. */
static void test_sparse_good(void **state)
{
    (void)state;
    uint8_t rnd[32];
    randomness(rnd, 2);
    const uint64_t sizes[] = {2048, 32ull << 30, 64ull << 30};
    for (size_t z = 0; z < 3; z++)
        for (int kind = VANILLA_POST_WINNING; kind <= VANILLA_POST_WINDOW; kind++) {
            post_shape s;
            assert_int_equal(post_shape_for_size(&s, kind, sizes[z], NULL), 0);
            size_t n = kind == VANILLA_POST_WINNING ? 1 : 5;
            vanilla_post_sector v[5];
            fc_sparse_post g = {.kind = kind,
                                .shape = &s,
                                .api_version = FC_API_V1_1,
                                .randomness = rnd,
                                .seed = 9,
                                .sector_id = 1000,
                                .first_sector = 7};
            assert_int_equal(fc_sparse_post_sectors(v, n, &g, NULL), 0);
            fc_post_request q = {.kind = kind,
                                 .shape = &s,
                                 .api_version = FC_API_V1_1,
                                 .randomness = rnd,
                                 .first_sector = 7};
            assert_int_equal(check(&q, v, n, NULL), CUZK_OK);
            free_proofs(v, n);
        }
}

typedef struct alteration {
    const char *what;
    void (*alter)(vanilla_post_sector *v);
    const char *msg;
} alteration;

static void alter_sibling(vanilla_post_sector *v)
{
    v[1].proofs[3].hashes[2].b[0] ^= 1;
}
static void alter_noncanonical(vanilla_post_sector *v)
{
    memset(v[1].proofs[3].hashes[0].b, 0xff, 32);
}
static void alter_index(vanilla_post_sector *v)
{
    v[1].proofs[3].index ^= 1;
}
static void alter_root(vanilla_post_sector *v)
{
    v[1].proofs[3].root = v[1].comm_c;
}
static void alter_comm_r(vanilla_post_sector *v)
{
    v[1].comm_r = v[0].comm_r;
}
static void alter_count(vanilla_post_sector *v)
{
    v[1].n_proofs--;
}
static void alter_two(vanilla_post_sector *v)
{
    v[2].proofs[0].hashes[0].b[0] ^= 1;
    v[1].proofs[7].hashes[0].b[0] ^= 1;
}

static void alter_every(vanilla_post_sector *v)
{
    for (size_t i = 0; i < N_WINDOW; i++)
        for (size_t j = 2; j < v[i].n_proofs; j++) v[i].proofs[j].hashes[0].b[1] ^= 1;
}

static void test_alterations(void **state)
{
    (void)state;
    static const alteration cases[] = {
        {"sibling", alter_sibling, "sector 1 (id 201), challenge 3 (leaf "},
        {"sibling", alter_sibling, "): the tree-R path does not hash to comm_r_last"},
        {"non-canonical", alter_noncanonical, "holds a value that is not a field element"},
        {"index", alter_index, "not the challenge derived from the randomness and the sector id"},
        {"root", alter_root, "challenge 3 (leaf "},
        {"root", alter_root, "names a root other than comm_r_last"},
        {"comm_r", alter_comm_r, "PoSt sector 1 (id 201): comm_r is not Poseidon(comm_c, "},
        {"count", alter_count, "PoSt sector 1 (id 201): 9 inclusion proofs, Window PoSt "},
        {"first of two", alter_two, "sector 1 (id 201), challenge 7"},
        {"every sector", alter_every, "PoSt sector 0 (id 200), challenge 2 (leaf "},
    };
    uint8_t rnd[32];
    randomness(rnd, 3);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, 2048, NULL), 0);
    fc_post_request q = {
        .kind = VANILLA_POST_WINDOW, .shape = &s, .api_version = FC_API_V1_2, .randomness = rnd};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        vanilla_post_sector v[N_WINDOW];
        sealed_proofs(v, VANILLA_POST_WINDOW, &s, FC_API_V1_2, rnd, N_WINDOW, 0);
        assert_int_equal(check(&q, v, N_WINDOW, NULL), CUZK_OK);
        size_t n_proofs = v[1].n_proofs;
        cases[c].alter(v);
        print_message("%s\n", cases[c].what);
        assert_int_equal(check(&q, v, N_WINDOW, cases[c].msg), CUZK_EVERIFY);
        v[1].n_proofs = n_proofs;
        free_proofs(v, N_WINDOW);
    }
}

/* Other public values: another randomness, the other indexing. */
static void test_other_values(void **state)
{
    (void)state;
    uint8_t rnd[32], other[32];
    randomness(rnd, 4);
    randomness(other, 5);
    post_shape s, w;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, 2048, NULL), 0);
    assert_int_equal(post_shape_for_size(&w, VANILLA_POST_WINNING, 2048, NULL), 0);
    vanilla_post_sector v[N_WINDOW];
    sealed_proofs(v, VANILLA_POST_WINNING, &w, FC_API_V1_1, rnd, 1, 0);
    fc_post_request q = {.kind = VANILLA_POST_WINNING, .shape = &w, .randomness = other};
    assert_int_equal(check(&q, v, 1, "PoSt sector 0 (id 200), challenge 0 (leaf "), CUZK_EVERIFY);
    free_proofs(v, 1);
    sealed_proofs(v, VANILLA_POST_WINDOW, &s, FC_API_V1_2, rnd, N_WINDOW, 0);
    q = (fc_post_request){
        .kind = VANILLA_POST_WINDOW, .shape = &s, .api_version = FC_API_V1_1, .randomness = rnd};
    /* Sector 0's indexes agree under both (0 x 10 + n = n): sector 1 is the first to differ. */
    assert_int_equal(check(&q, v, N_WINDOW, "PoSt sector 1 (id 201), challenge 0"), CUZK_EVERIFY);
    free_proofs(v, N_WINDOW);
}

static void test_bad_requests(void **state)
{
    (void)state;
    uint8_t rnd[32];
    randomness(rnd, 6);
    post_shape w;
    assert_int_equal(post_shape_for_size(&w, VANILLA_POST_WINNING, 2048, NULL), 0);
    vanilla_post_sector v[2];
    sealed_proofs(v, VANILLA_POST_WINNING, &w, FC_API_V1_1, rnd, 2, 0);
    fc_post_request q = {.kind = VANILLA_POST_WINNING, .shape = &w, .randomness = rnd};
    assert_int_equal(check(&q, v, 2, "Winning PoSt proves one sector"), CUZK_EINVAL);
    assert_int_equal(check(&q, v, 0, "no sector proofs"), CUZK_EINVAL);
    q.kind = 7;
    assert_int_equal(check(&q, v, 1, "unknown kind 7"), CUZK_EINVAL);
    free_proofs(v, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sealed_good),  cmocka_unit_test(test_sparse_good),
        cmocka_unit_test(test_alterations),  cmocka_unit_test(test_other_values),
        cmocka_unit_test(test_bad_requests),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
