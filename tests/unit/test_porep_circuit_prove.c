/*
 * test_porep_circuit_prove.c - PoRep 2KiB end to end on the CPU: a sector
 * sealed natively (fc_seal), its commit-phase-1 output (fc_sealed_c1),
 * development parameters for the blank circuit (groth16_setup_dev), a
 * proof of the circuit with values, verified against the public inputs
 * computed natively (porep_public_inputs); the same proof is rejected
 * for other public inputs (comm_r, a challenge, a parent index changed)
 * and survives its 192-byte encoding.
 *
 * Setup over a 2^22 domain (2.7M constraints) takes minutes on two cores,
 * so the test runs only with CUZK_TEST_SLOW=1 (it passes trivially
 * otherwise) and prints its phase timings.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"
#include "cuzk/groth16.h"

static bool slow(void)
{
    const char *v = getenv("CUZK_TEST_SLOW");
    return v && *v && strcmp(v, "0");
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A sealed 2KiB V1_1 sector's C1 for a random seed. */
static void sealed_c1(vanilla_c1 *c1, cuzk_rng *g)
{
    const fc_porep_config *cfg = fc_porep_config_get(5); /* StackedDrg2KiBV1_1 */
    uint8_t *data = malloc(cfg->nodes * 32), seed[32];
    assert_non_null(data);
    fc_seal_random_data(data, cfg->nodes, cuzk_rng_u64(g));
    fc_seal_input in = {.cfg = cfg, .sector_id = 7, .data = data};
    fc_prover_id_from_miner(in.prover_id, 1234);
    cuzk_rng_bytes(g, in.ticket, 32);
    cuzk_rng_bytes(g, seed, 32);
    fc_sealed s;
    cuzk_err err;
    assert_int_equal(fc_seal(&s, &in, NULL, NULL, &err), CUZK_OK);
    assert_int_equal(fc_sealed_c1(c1, &s, seed, &err), CUZK_OK);
    fc_sealed_free(&s);
    free(data);
}

/* The proof is rejected when input i is changed by one. */
static void rejected_with(const groth16_pvk *pvk, const groth16_proof *proof, const fr_t *inputs,
                          size_t n, size_t i)
{
    fr_t *bad = malloc(n * sizeof(fr_t));
    assert_non_null(bad);
    memcpy(bad, inputs, n * sizeof(fr_t));
    fr_add(&bad[i], &bad[i], &FR_ONE);
    assert_int_equal(groth16_verify(pvk, proof, bad, n, NULL), CUZK_EVERIFY);
    free(bad);
}

static void prove_and_verify(const vanilla_c1 *c1, cuzk_rng *g)
{
    cuzk_err err;
    porep_circuit pc, blank;
    assert_int_equal(porep_circuit_init(&pc, c1, 0, &err), CUZK_OK);
    porep_circuit_blank(&blank, &pc.shape);
    double t0 = now();
    groth16_params pk;
    int rc = groth16_setup_dev(&pk, porep_circuit_get(&blank), cuzk_rng_u64(g), &err);
    if (rc) print_message("setup: %s\n", err.msg);
    assert_int_equal(rc, CUZK_OK);
    double t1 = now();
    cs_prover p;
    assert_int_equal(cs_synthesize_prover(&p, porep_circuit_get(&pc), NULL, &err), CUZK_OK);
    double t2 = now();
    groth16_proof proof;
    groth16_timings tm;
    assert_int_equal(groth16_prove(&proof, &pk, &p, 1, NULL, &tm, &err), CUZK_OK);
    double t3 = now();
    print_message("2KiB PoRep: setup %.1f s, synthesis %.1f s, prove %.1f s\n", t1 - t0, t2 - t1,
                  t3 - t2);

    size_t n = porep_num_public_inputs(&pc.shape);
    fr_t *inputs = malloc(n * sizeof(fr_t));
    assert_non_null(inputs);
    porep_public pub;
    assert_int_equal(porep_public_from_c1(&pub, c1, &err), CUZK_OK);
    assert_int_equal(porep_public_inputs(inputs, &pub, 0, &err), CUZK_OK);
    groth16_pvk pvk;
    assert_int_equal(groth16_prepare_vk(&pvk, &pk.vk, &err), CUZK_OK);
    assert_int_equal(groth16_verify(&pvk, &proof, inputs, n, &err), CUZK_OK);

    uint8_t enc[GROTH16_PROOF_BYTES];
    groth16_proof back;
    groth16_proof_encode(enc, &proof);
    assert_int_equal(groth16_proof_decode(&back, enc, sizeof enc, &err), CUZK_OK);
    assert_int_equal(groth16_verify(&pvk, &back, inputs, n, &err), CUZK_OK);
    rejected_with(&pvk, &proof, inputs, n, 2);                           /* comm_r */
    rejected_with(&pvk, &proof, inputs, n, POREP_INPUTS_FIXED + 18 + 3); /* a DRG parent */
    rejected_with(&pvk, &proof, inputs, n, POREP_INPUTS_FIXED + 15);     /* challenge u64 */

    free(inputs);
    groth16_pvk_free(&pvk);
    cs_prover_free(&p);
    groth16_params_free(&pk);
}

static void test_porep_2kib_prove_verify(void **state)
{
    (void)state;
    if (!slow()) {
        print_message("skipped: set CUZK_TEST_SLOW=1 (setup at 2^22 takes minutes)\n");
        return;
    }
    cuzk_rng g;
    test_rng(&g);
    vanilla_c1 c1;
    sealed_c1(&c1, &g);
    prove_and_verify(&c1, &g);
    vanilla_c1_free(&c1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_porep_2kib_prove_verify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
