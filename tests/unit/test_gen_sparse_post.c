/*
 * test_gen_sparse_post.c - PoSt proofs of sparse committed-capacity
 * sectors (gen.h fc_sparse_post_sectors).
 *
 * At 2KiB, sparse Winning and Window PoSt proofs satisfy the PoSt circuit
 * with the public inputs post_public_inputs derives on its own from each
 * sector's (id, comm_r) and the randomness, as a sealed sector's do; they
 * open exactly the leaves a sealed committed-capacity sector with the same
 * id opens under the same randomness (Winning, Window V1 from a later
 * partition, Window V1_2), with the same proof shapes; comm_r is
 * Poseidon-2(comm_c, root); the same seed gives the same bytes and
 * another seed another comm_r. At 32GiB and 64GiB a few sectors' paths hash
 * to their roots (post_verify.h's check). Bad requests are refused.
 */
#include "gadget_check.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/post_verify.h"
#include "cuzk/poseidon.h"

static void sparse(vanilla_post_sector *v, size_t n, int kind, const post_shape *s, int api,
                   const uint8_t rnd[32], uint64_t seed, uint64_t first)
{
    fc_sparse_post g = {.kind = kind,
                        .shape = s,
                        .api_version = api,
                        .randomness = rnd,
                        .seed = seed,
                        .sector_id = 300,
                        .first_sector = first};
    cuzk_err e;
    int rc = fc_sparse_post_sectors(v, n, &g, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
}

static void free_all(vanilla_post_sector *v, size_t n)
{
    for (size_t i = 0; i < n; i++) vanilla_post_sector_free(&v[i]);
}

/* The circuit over v (n sectors) is satisfied with post_public_inputs' inputs. */
static void satisfied(int kind, const post_shape *s, int api, const uint8_t rnd[32],
                      const vanilla_post_sector *v, size_t n)
{
    post_public_sector pub[4];
    for (size_t i = 0; i < n; i++) pub[i] = (post_public_sector){v[i].sector_id, v[i].comm_r};
    size_t ni = post_num_public_inputs(s);
    fr_t *want = malloc(ni * sizeof *want);
    assert_non_null(want);
    if (kind == VANILLA_POST_WINNING)
        assert_int_equal(post_winning_public_inputs(want, s, api, rnd, pub, NULL), 0);
    else
        assert_int_equal(post_public_inputs(want, s, api, rnd, pub, n, 0, NULL), 0);
    post_circuit pc;
    assert_int_equal(post_circuit_init(&pc, kind, s, v, n, NULL), 0);
    cs_prover p;
    prove_satisfied(&p, post_circuit_get(&pc));
    for (size_t i = 0; i < ni; i++) assert_true(fr_eq(&p.input_assignment[1 + i], &want[i]));
    cs_prover_free(&p);
    free(want);
}

static void test_satisfies_circuit(void **state)
{
    (void)state;
    uint8_t rnd[32];
    fc_test_bytes(rnd, 1, 0x72);
    for (int kind = VANILLA_POST_WINNING; kind <= VANILLA_POST_WINDOW; kind++) {
        post_shape s;
        assert_int_equal(post_shape_for_size(&s, kind, 2048, NULL), 0);
        size_t n = kind == VANILLA_POST_WINNING ? 1 : s.sectors;
        vanilla_post_sector v[2];
        sparse(v, n, kind, &s, FC_API_V1_2, rnd, 5, 0);
        for (size_t i = 0; i < n; i++) {
            fr_t pre[2], comm_r;
            fr_from_bytes_le(&pre[0], v[i].comm_c.b);
            fr_from_bytes_le(&pre[1], v[i].comm_r_last.b);
            poseidon_hash(&comm_r, poseidon_std(2), pre);
            uint8_t b[32];
            fr_to_bytes_le(b, &comm_r);
            assert_memory_equal(b, v[i].comm_r.b, 32);
        }
        satisfied(kind, &s, kind == VANILLA_POST_WINNING ? FC_API_V1_1 : FC_API_V1_2, rnd, v, n);
        free_all(v, n);
    }
}

/* The sealed committed-capacity 2KiB sector with id 300 + i. */
static void sealed_cc(fc_sealed *sec, fc_replica *rep, uint64_t i)
{
    fc_test_sector t = {.cfg = fc_porep_config_find(2048, FC_POREP_V1_1, NULL),
                        .seed = 80 + i,
                        .sector_id = 300 + i,
                        .miner = 1000,
                        .cc = true};
    cuzk_err e;
    int rc = fc_seal_test_sector(sec, &t, NULL, NULL, &e);
    if (!rc) rc = fc_replica_from_sealed(rep, sec, NULL, NULL, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
}

/* Same opened leaves, proof counts and path shapes as sealed CC sectors. */
static void test_same_challenges(void **state)
{
    (void)state;
    enum { N = 2 };
    fc_sealed sec[N];
    fc_replica rep[N];
    for (size_t i = 0; i < N; i++) sealed_cc(&sec[i], &rep[i], i);
    uint8_t rnd[32];
    fc_test_bytes(rnd, 2, 0x72);
    static const struct {
        int kind, api;
        uint64_t first;
    } cases[] = {{VANILLA_POST_WINNING, FC_API_V1_1, 0},
                 {VANILLA_POST_WINDOW, FC_API_V1_1, 6},
                 {VANILLA_POST_WINDOW, FC_API_V1_2, 6}};
    for (size_t c = 0; c < 3; c++) {
        post_shape s;
        assert_int_equal(post_shape_for_size(&s, cases[c].kind, 2048, NULL), 0);
        size_t n = cases[c].kind == VANILLA_POST_WINNING ? 1 : N;
        vanilla_post_sector sp[N], real[N];
        sparse(sp, n, cases[c].kind, &s, cases[c].api, rnd, 9, cases[c].first);
        for (size_t i = 0; i < n; i++) {
            fc_post_replica r = fc_replica_post(&rep[i]);
            assert_int_equal(fc_gen_post_sector(&real[i], cases[c].kind, &s, cases[c].api, rnd, &r,
                                                cases[c].first + i, NULL),
                             0);
            assert_int_equal(sp[i].sector_id, real[i].sector_id);
            assert_int_equal(sp[i].n_proofs, real[i].n_proofs);
            assert_int_equal(sp[i].tree.levels, real[i].tree.levels);
            assert_int_equal(sp[i].tree.hashes, real[i].tree.hashes);
            for (size_t j = 0; j < sp[i].n_proofs; j++)
                assert_int_equal(sp[i].proofs[j].index, real[i].proofs[j].index);
            /* Only a sealed sector's nodes give its commitment. */
            assert_memory_not_equal(sp[i].comm_r.b, real[i].comm_r.b, 32);
        }
        free_all(sp, n), free_all(real, n);
    }
    for (size_t i = 0; i < N; i++) fc_replica_free(&rep[i]), fc_sealed_free(&sec[i]);
}

static void test_seeded(void **state)
{
    (void)state;
    uint8_t rnd[32];
    fc_test_bytes(rnd, 3, 0x72);
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINDOW, 32ull << 30, NULL), 0);
    vanilla_post_sector a[2], b[2], c[2];
    sparse(a, 2, VANILLA_POST_WINDOW, &s, FC_API_V1_2, rnd, 4, 0);
    sparse(b, 2, VANILLA_POST_WINDOW, &s, FC_API_V1_2, rnd, 4, 0);
    sparse(c, 2, VANILLA_POST_WINDOW, &s, FC_API_V1_2, rnd, 5, 0);
    for (size_t i = 0; i < 2; i++) {
        void *ba, *bb;
        size_t la, lb;
        assert_int_equal(vanilla_post_sector_encode(&ba, &la, &a[i], NULL), 0);
        assert_int_equal(vanilla_post_sector_encode(&bb, &lb, &b[i], NULL), 0);
        assert_int_equal(la, lb);
        assert_memory_equal(ba, bb, la);
        assert_memory_not_equal(a[i].comm_r.b, c[i].comm_r.b, 32);
        free(ba), free(bb);
    }
    assert_memory_not_equal(a[0].comm_r.b, a[1].comm_r.b, 32);
    free_all(a, 2), free_all(b, 2), free_all(c, 2);
}

/* 32GiB and 64GiB: the paths hash to the roots (the native check). */
static void test_large(void **state)
{
    (void)state;
    uint8_t rnd[32];
    fc_test_bytes(rnd, 4, 0x72);
    const uint64_t sizes[] = {32ull << 30, 64ull << 30};
    for (size_t z = 0; z < 2; z++)
        for (int kind = VANILLA_POST_WINNING; kind <= VANILLA_POST_WINDOW; kind++) {
            post_shape s;
            assert_int_equal(post_shape_for_size(&s, kind, sizes[z], NULL), 0);
            size_t n = kind == VANILLA_POST_WINNING ? 1 : 4;
            vanilla_post_sector v[4];
            sparse(v, n, kind, &s, FC_API_V1_1, rnd, 6, 0);
            fc_post_request q = {
                .kind = kind, .shape = &s, .api_version = FC_API_V1_1, .randomness = rnd};
            cuzk_err e;
            int rc = fc_post_vanilla_verify(&q, v, n, &e);
            if (rc) print_message("%s\n", e.msg);
            assert_int_equal(rc, 0);
            /* The blob reads back as a sector proof of that size. */
            void *blob;
            size_t len;
            vanilla_post_sector back;
            assert_int_equal(vanilla_post_sector_encode(&blob, &len, &v[0], NULL), 0);
            assert_int_equal(vanilla_post_sector_parse(&back, kind, sizes[z], blob, len, NULL), 0);
            vanilla_post_sector_free(&back);
            free(blob);
            free_all(v, n);
        }
}

static void test_refusals(void **state)
{
    (void)state;
    uint8_t rnd[32] = {0};
    post_shape s;
    assert_int_equal(post_shape_for_size(&s, VANILLA_POST_WINNING, 2048, NULL), 0);
    vanilla_post_sector v[2];
    fc_sparse_post g = {.kind = VANILLA_POST_WINNING, .shape = &s, .randomness = rnd};
    cuzk_err e;
    assert_int_equal(fc_sparse_post_sectors(v, 2, &g, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "Winning PoSt proves one sector"));
    g.kind = 9;
    assert_int_equal(fc_sparse_post_sectors(v, 1, &g, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "unknown kind 9"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_satisfies_circuit),
        cmocka_unit_test(test_same_challenges),
        cmocka_unit_test(test_seeded),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
