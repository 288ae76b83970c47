/*
 * engine_proofs.h - the engine tests' independent check of a test-family
 * result (test_engine_pipeline, test_engine_multigpu): every partition
 * proof verified here against the verifying key read back from the
 * development parameters in the param cache, with public inputs of the
 * synthetic circuit synthesized again.
 */
#ifndef CUZK_TEST_ENGINE_PROOFS_H
#define CUZK_TEST_ENGINE_PROOFS_H

#include <stdio.h>

#include "cuzk/engine.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"
#include "cuzk/r1cs.h"
#include "testutil.h"

/* r: a completed job of `parts` partitions of n constraints from seed,
 * with its parameters in dir. */
static inline void check_test_proofs(const char *dir, uint32_t n, const engine_result *r,
                                     uint32_t parts, uint32_t seed)
{
    assert_int_equal(r->status, ENGINE_COMPLETED);
    assert_int_equal(r->proof_len, parts * GROTH16_PROOF_BYTES);
    char path[128];
    snprintf(path, sizeof path, "%s/cuzk-test-%u-dev.params", dir, n);
    groth16_vk vk;
    groth16_pvk pvk;
    assert_int_equal(groth16_vk_read_from_params(&vk, path, PARAMS_CHECKED, NULL), 0);
    assert_int_equal(groth16_prepare_vk(&pvk, &vk, NULL), 0);
    for (uint32_t p = 0; p < parts; p++) {
        cs_synthetic shape = {n, seed + p};
        cs_witness w;
        assert_int_equal(cs_synthesize_witness(&w, cs_synthetic_circuit(&shape), NULL), 0);
        groth16_proof proof;
        assert_int_equal(groth16_proof_decode(&proof, r->proof + p * GROTH16_PROOF_BYTES,
                                              GROTH16_PROOF_BYTES, NULL),
                         0);
        assert_int_equal(groth16_verify(&pvk, &proof, &w.input_assignment[1], 1, NULL), 0);
        cs_witness_free(&w);
    }
    groth16_pvk_free(&pvk);
    groth16_vk_free(&vk);
}

#endif
