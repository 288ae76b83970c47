/*
 * engine_provider.h - what the engine needs from a proof kind: a provider
 * turns a request into a circuit id, the partition circuits and their
 * public inputs, and knows which parameter file serves a circuit id.
 *
 * The Filecoin providers (PoRep, PoSt, SnapDeals) plug in here; until they
 * are registered, requests of those kinds fail with a message saying the
 * circuit is not available. engine_test_provider is a synthetic circuit
 * family for tests and benchmarks, registered only on request
 * (cuzk-daemon --test-circuits), never by default.
 */
#ifndef CUZK_ENGINE_PROVIDER_H
#define CUZK_ENGINE_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/engine.h"
#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"

/* What a provider knows about one circuit id. */
typedef struct engine_circuit_info {
    char circuit_id[ENGINE_ID_MAX]; /* "porep-32g", "test-4096" */
    char param_name[256];           /* file name in srs.param_cache, without .params */
    /* Read the file with every point checked, once per content (the digest
     * cache, check_cache.h): custom files. The official Filecoin files are
     * read unchecked, as bellperson does. */
    bool check_params;
    /* A simulated kind (src/sim): its stand-in file is charged to the
     * budget as sim_bytes, and its load takes at least sim_load_ms once
     * the memory is had. 0: the file's size, as long as the read takes. */
    uint64_t sim_bytes, sim_load_ms;
} engine_circuit_info;

/*
 * A prepared request. partitions[p] with its public inputs (ONE excluded)
 * at inputs[p * n_inputs]; size is one partition's shape (constraints
 * without the input ones, inputs with ONE, aux), from which the engine
 * reserves memory and by which it picks a kept partition's storage to
 * synthesize into (an over-estimate only makes reuse rarer). release frees
 * everything the provider allocated.
 */
typedef struct engine_circuits {
    engine_circuit_info info;
    size_t n_partitions;
    cs_circuit *partitions;
    fr_t *inputs;
    size_t n_inputs;
    cs_capacity size;
    /* A simulated kind (src/sim): the shape a partition is charged for in
     * the budget, where it differs from the stand-in circuit synthesized
     * (all zero: size). */
    cs_capacity charge;
    bool batchable; /* PoRep / Snap: same-circuit requests may batch */
    void *state;
    void (*release)(struct engine_circuits *c);
} engine_circuits;

/* Writes development parameters (NOT a trusted setup) for circuit_id to
 * params_path, whole or not at all (groth16_setup_dev_write), its heavy
 * steps on be; a provider may write companions beside it (the .vk). */
typedef int (*engine_setup_dev_fn)(const char *circuit_id, const char *params_path,
                                   const groth16_setup_backend *be, cuzk_err *err);

struct engine_provider {
    const char *name;
    /* Whether this provider serves the request. */
    bool (*claims)(const engine_request *req);
    /* Parses the request; on error the message says what is wrong (the job
     * fails with it). The request's bytes do not outlive the call. */
    int (*prepare)(const engine_request *req, engine_circuits *out, cuzk_err *err);
    /* Fills info for a circuit id this provider owns, else returns false. */
    bool (*lookup)(const char *circuit_id, engine_circuit_info *info);
    /* The circuit ids it owns, comma-separated, into buf (cap bytes, NUL
     * terminated): for the message naming an unknown id. */
    void (*ids)(char *buf, size_t cap);
    /* Optional: development parameters for a circuit whose file is absent,
     * written into the cache at the SRS manager's path and then read as any
     * other file. NULL: the file must exist. */
    engine_setup_dev_fn setup_dev;
    /* Optional: a blank circuit of circuit_id (no values; the R1CS of any
     * of its partitions) into *out, valid until blank_free(*ctx), so that
     * PreloadSRS records the circuit's shape before any proof asks.
     * NULL: the shape is recorded by the first proof. */
    int (*blank)(const char *circuit_id, cs_circuit *out, void **ctx, cuzk_err *err);
    void (*blank_free)(void *ctx);
};

/*
 * The synthetic test family "test-<constraints>": a request whose
 * vanilla_proof is the 32-byte record
 *   "CUZKTEST" | u32 constraints | u32 partitions | u64 seed |
 *   u32 bad_partition (0xffffffff: none) | u32 unsatisfied (0: none)
 * (little-endian), of any specified kind, proves `partitions` synthetic
 * circuits (r1cs.h) of that size seeded seed + p. bad_partition gets a
 * wrong public input, so its self-verification fails; partition
 * unsatisfied - 1 gets a witness that fails a constraint (cs_synthetic's
 * `unsatisfied`), which the witness-only path reports before proving and
 * the prover backend's path by the self-verification. PoRep and Snap
 * requests are batchable. Parameters: "cuzk-test-<constraints>-dev.params",
 * made by groth16_setup_dev_write when absent (NOT a trusted setup).
 */
extern const engine_provider engine_test_provider;

#define ENGINE_TEST_MAGIC        "CUZKTEST"
#define ENGINE_TEST_RECORD_BYTES 32

#endif
