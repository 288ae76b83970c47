/*
 * test_fc_public_rules.c - the PoSt and SnapDeals public-input rules pinned
 * by vectors computed outside this code base.
 *
 * PoSt (storage-proofs-post fallback): the leaf challenge is
 * SHA-256(randomness || sector id u64 LE || challenge index u64 LE), its
 * first 8 bytes as a u64 LE, modulo the sector's nodes
 * (generate_leaf_challenge_inner); the challenge index is get_challenge_index
 * (utils.rs): sector index x challenge_count + n for ApiVersion V1_0 / V1_1,
 * n for V1_2, the sector index counted over the whole sector list
 * (k x sector_count + i, compound.rs generate_public_inputs). Winning PoSt
 * (winning_post_setup_params: 66 circuit sectors of 1 challenge, the sector
 * repeated 66 times by verify_winning_post, always ApiVersion V1_0)
 * therefore challenges index j in circuit sector j. The expected leaves
 * were computed with Python's hashlib from randomness = bytes 0x00..0x1f.
 *
 * SnapDeals (storage-proofs-update): h = hs(nodes)[3] (h_default), the
 * first input k | h_select << partition_bits with h_select = 2^(first
 * index of h in hs) (h_select, circuit.rs PublicInputs::new), so h = 1 at
 * 32KiB and below selects index 0; then comm_r_old, comm_d_new,
 * comm_r_new. The challenges equal rust-fil-proofs' hardcoded vectors of
 * challenges.rs test_challenges_against_hardcoded, whose comm_r_new is
 * TreeRDomain::random(XorShiftRng::from_seed(TEST_SEED)): four next_u64
 * words (each two xorshift128 next_u32, low first), the top bit cleared,
 * below r (blstrs' rejection sampling at the time), computed in Python.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/update_circuit.h"
#include "cuzk/filecoin/vanilla.h"
#include "testutil.h"

static void randomness(uint8_t rnd[32])
{
    for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)i;
}

static void assert_fr_u64(const fr_t *a, uint64_t v)
{
    fr_t b;
    fr_from_u64(&b, v);
    assert_true(fr_eq(a, &b));
}

static void leaf_vectors(void **state)
{
    (void)state;
    static const struct {
        uint64_t id, index, nodes, leaf;
    } V[] = {
        {0, 0, 64, 47},
        {1, 0, 1ull << 30, 1071472686},
        {123456789, 34, 1ull << 30, 588997733},
        {7, 65, 1ull << 31, 102939289},
        {UINT64_MAX, 1ull << 40, 1ull << 24, 6397822},
    };
    uint8_t rnd[32];
    randomness(rnd);
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++)
        assert_int_equal(post_leaf_challenge(rnd, V[i].id, V[i].index, V[i].nodes), V[i].leaf);
}

static post_shape window_shape(uint64_t sector_size)
{
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, sector_size, NULL), 0);
    return s;
}

/* n public sectors with ids id0.. and comm_r = id (canonical). */
static post_public_sector *sectors(size_t n, uint64_t id0)
{
    post_public_sector *p = calloc(n, sizeof *p);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        p[i].id = id0 + i;
        memcpy(p[i].comm_r.b, &p[i].id, sizeof p[i].id);
    }
    return p;
}

/* 2KiB Window (2 sectors of 10 challenges, 64 nodes), 5 sectors (ids
 * 100..104), so 3 partitions. Partition 1 sector 1 is sector 3
 * (index 34 for n = 4 under V1_1); partition 2 holds sector 4 alone (index
 * 49 for n = 9) and repeats it. */
static void window_indexes_2k(void **state)
{
    (void)state;
    post_shape s = window_shape(2048);
    assert_true(s.sectors == 2 && s.challenges == 10 && s.nodes == 64);
    uint8_t rnd[32];
    randomness(rnd);
    post_public_sector *pub = sectors(5, 100);
    size_t per = 1 + s.challenges;
    fr_t *in = calloc(post_num_public_inputs(&s), sizeof *in);
    assert_non_null(in);
    assert_int_equal(post_public_inputs(in, &s, FC_API_V1_1, rnd, pub, 5, 1, NULL), 0);
    assert_fr_u64(&in[per + 1 + 4], 23);
    assert_int_equal(post_public_inputs(in, &s, FC_API_V1_2, rnd, pub, 5, 1, NULL), 0);
    assert_fr_u64(&in[per + 1 + 4], 45);
    assert_int_equal(post_public_inputs(in, &s, FC_API_V1_1, rnd, pub, 5, 2, NULL), 0);
    assert_fr_u64(&in[0], 104);
    assert_fr_u64(&in[1 + 9], 38);
    assert_true(!memcmp(&in[per], &in[0], per * sizeof *in));
    assert_int_equal(post_public_inputs(in, &s, FC_API_V1_2, rnd, pub, 5, 2, NULL), 0);
    assert_fr_u64(&in[1 + 9], 2);
    free(in);
    free(pub);
}

/* 32GiB Window: 2349 sectors per partition; partition 1's sector 5 is
 * sector 2354 (index 23547 for n = 7 under V1_1). */
static void window_indexes_32g(void **state)
{
    (void)state;
    post_shape s = window_shape(32ull << 30);
    assert_true(s.sectors == 2349 && s.challenges == 10 && s.nodes == 1ull << 30);
    uint8_t rnd[32];
    randomness(rnd);
    size_t n = s.sectors + 6, per = 1 + s.challenges;
    post_public_sector *pub = sectors(n, 1000);
    pub[s.sectors + 5].id = 555;
    fr_t *in = calloc(post_num_public_inputs(&s), sizeof *in);
    assert_non_null(in);
    assert_int_equal(post_public_inputs(in, &s, FC_API_V1_1, rnd, pub, n, 1, NULL), 0);
    assert_fr_u64(&in[5 * per + 1 + 7], 384021385);
    assert_int_equal(post_public_inputs(in, &s, FC_API_V1_2, rnd, pub, n, 1, NULL), 0);
    assert_fr_u64(&in[5 * per + 1 + 7], 1045617540);
    free(in);
    free(pub);
}

/* Winning: circuit sector j challenges index j of sector 77. */
static void winning_indexes(void **state)
{
    (void)state;
    static const struct {
        uint64_t size, leaf[3];
    } V[] = {{2048, {45, 5, 30}}, {32ull << 30, {273811181, 156782725, 122103198}}};
    static const size_t J[3] = {0, 1, 65};
    uint8_t rnd[32];
    randomness(rnd);
    post_public_sector *pub = sectors(1, 77);
    for (size_t v = 0; v < 2; v++) {
        post_shape s;
        assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINNING, V[v].size, NULL), 0);
        assert_true(s.sectors == 66 && s.challenges == 1);
        fr_t in[66 * 2];
        assert_int_equal(post_num_public_inputs(&s), 66 * 2);
        assert_int_equal(post_winning_public_inputs(in, &s, FC_API_V1_1, rnd, pub, NULL), 0);
        for (size_t j = 0; j < 3; j++) {
            assert_fr_u64(&in[2 * J[j]], 77);
            assert_fr_u64(&in[2 * J[j] + 1], V[v].leaf[j]);
        }
    }
    free(pub);
}

/* k_and_h_select for h = hs[3] and others, and the input order. */
static void update_k_and_h_select(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        bool poseidon;
        uint64_t k;
        int h_index; /* -1: hs[3], the production h */
        uint64_t want;
    } V[] = {
        {2048, false, 0, -1, 1},           /* hs = [1; 6]: h = 1 is index 0 */
        {32768, false, 1, -1, 1 | 1 << 1}, /* 2 partitions: 1 bit of k */
        {16ull << 20, false, 3, -1, 3 | 8 << 2},
        {32ull << 30, false, 15, -1, 15 | 8 << 4},
        {64ull << 30, false, 0, 5, 32 << 4}, /* h = 12 */
        {32ull << 30, true, 0, -1, 8},       /* Poseidon: h_select alone */
    };
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
        update_shape s;
        int rc = V[i].poseidon ? update_shape_for_size_poseidon(&s, V[i].size, NULL)
                               : update_shape_for_size(&s, V[i].size, NULL);
        assert_int_equal(rc, 0);
        assert_int_equal(s.hs[3], V[i].size <= 32768 ? 1 : 10);
        update_public pub = {.k = V[i].k, .h = s.hs[V[i].h_index < 0 ? 3 : V[i].h_index]};
        pub.comm_r_old.b[0] = 1, pub.comm_d_new.b[0] = 2, pub.comm_r_new.b[0] = 3;
        fr_t in[UPDATE_PUBLIC_INPUTS];
        assert_int_equal(update_public_inputs(in, &s, &pub, NULL), 0);
        assert_fr_u64(&in[0], V[i].want);
        for (uint64_t j = 1; j < UPDATE_PUBLIC_INPUTS; j++) assert_fr_u64(&in[j], j);
    }
}

/* challenges.rs test_challenges_against_hardcoded (first 5 challenges). */
static void update_challenge_vectors(void **state)
{
    (void)state;
    static const struct {
        uint64_t size, k;
        uint32_t c[5];
    } V[] = {
        {2048, 0, {53, 51, 56, 3, 0}},
        {8192, 0, {245, 140, 15, 128, 28}},
        {32768, 1, {542, 666, 955, 927, 911}},
        {8ull << 20, 1, {78878, 130797, 112892, 93994, 78379}},
        {512ull << 20, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
        {32ull << 30, 1, {109168525, 127316247, 80331041, 97065716, 72310052}},
        {32ull << 30, 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
        {64ull << 30, 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
    };
    uint8_t b[32];
    assert_int_equal(
        test_hex(b, 32, "101cbe4b9c42604f04c703c396f788c6cb2d6d7d58f45430b12eb2edd640076c"), 32);
    fr_t comm_r_new;
    assert_true(fr_from_bytes_le(&comm_r_new, b));
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
        update_shape s;
        assert_int_equal(update_shape_for_size(&s, V[i].size, NULL), 0);
        uint32_t *c = calloc(s.challenges, sizeof *c);
        assert_non_null(c);
        update_challenges(c, &s, &comm_r_new, V[i].k);
        for (int j = 0; j < 5; j++) assert_int_equal(c[j], V[i].c[j]);
        free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leaf_vectors),          cmocka_unit_test(window_indexes_2k),
        cmocka_unit_test(window_indexes_32g),    cmocka_unit_test(winning_indexes),
        cmocka_unit_test(update_k_and_h_select), cmocka_unit_test(update_challenge_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
