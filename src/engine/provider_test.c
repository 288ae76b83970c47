/*
 * provider_test.c - the synthetic "test-<constraints>" circuit family of
 * engine_provider.h, for the engine's tests and benchmarks: the full
 * pipeline (SRS from the cache, synthesis, prover, self-verification) on a
 * circuit of any size, without the Filecoin circuits. Each partition is
 * the bit-heavy synthetic circuit of r1cs.h seeded seed + p; its one
 * public input (the first word) is computed here by a witness-only
 * synthesis, so the engine verifies against inputs it did not produce
 * while proving. Registered only when asked for (--test-circuits).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine_provider.h"

/* Sizes a test request may ask for: up to 2^20 constraints (a 2^20-point
 * domain, ~100 MiB of a/b/c) and 16 partitions. */
#define TEST_MAX_CONSTRAINTS (1u << 20)
#define TEST_MIN_CONSTRAINTS 129 /* one synthetic word */
#define TEST_MAX_PARTITIONS  16
#define TEST_NO_BAD          0xffffffffu
/* The seed of the development setup: fixed, so every daemon sharing a
 * param cache makes the same file. */
#define TEST_SETUP_SEED 0x7e57

typedef struct test_state {
    cs_synthetic *shapes; /* one per partition */
} test_state;

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool test_claims(const engine_request *req)
{
    return req->vanilla_proof.len >= 8 && !memcmp(req->vanilla_proof.data, ENGINE_TEST_MAGIC, 8);
}

static void name_circuit(engine_circuit_info *info, uint32_t constraints)
{
    memset(info, 0, sizeof *info);
    snprintf(info->circuit_id, sizeof info->circuit_id, "test-%" PRIu32, constraints);
    snprintf(info->param_name, sizeof info->param_name, "cuzk-test-%" PRIu32 "-dev", constraints);
    info->check_params = true;
}

static void test_release(engine_circuits *c)
{
    test_state *s = c->state;
    if (s) free(s->shapes);
    free(s);
    free(c->partitions);
    free(c->inputs);
    memset(c, 0, sizeof *c);
}

/* The public input of each partition (witness-only synthesis). */
static int compute_inputs(engine_circuits *c, uint32_t bad, cuzk_err *err)
{
    for (size_t p = 0; p < c->n_partitions; p++) {
        cs_witness w;
        int rc = cs_synthesize_witness(&w, c->partitions[p], err);
        if (rc) return rc;
        c->inputs[p] = w.input_assignment[1];
        cs_witness_free(&w);
        if (p == bad) fr_add(&c->inputs[p], &c->inputs[p], &FR_ONE);
    }
    return CUZK_OK;
}

static int parse_record(const engine_request *req, uint32_t *constraints, uint32_t *parts,
                        uint64_t *seed, uint32_t *bad, uint32_t *unsat, cuzk_err *err)
{
    const uint8_t *d = req->vanilla_proof.data;
    if (req->vanilla_proof.len != ENGINE_TEST_RECORD_BYTES)
        return cuzk_errf(err, CUZK_ELENGTH, "test vanilla proof: %zu bytes, expected %d",
                         req->vanilla_proof.len, ENGINE_TEST_RECORD_BYTES);
    *constraints = rd32(d + 8), *parts = rd32(d + 12), *bad = rd32(d + 24);
    *seed = rd32(d + 16) | (uint64_t)rd32(d + 20) << 32;
    if (*constraints < TEST_MIN_CONSTRAINTS || *constraints > TEST_MAX_CONSTRAINTS)
        return cuzk_errf(err, CUZK_EINVAL,
                         "test vanilla proof: %" PRIu32 " constraints, expected %d..%u",
                         *constraints, TEST_MIN_CONSTRAINTS, TEST_MAX_CONSTRAINTS);
    if (*parts < 1 || *parts > TEST_MAX_PARTITIONS)
        return cuzk_errf(err, CUZK_EINVAL,
                         "test vanilla proof: %" PRIu32 " partitions, expected 1..%d", *parts,
                         TEST_MAX_PARTITIONS);
    *unsat = rd32(d + 28);
    if (*unsat > *parts)
        return cuzk_errf(err, CUZK_EINVAL,
                         "test vanilla proof: unsatisfied partition %" PRIu32 " of %" PRIu32
                         " (p + 1, 0 for none)",
                         *unsat, *parts);
    return CUZK_OK;
}

static int test_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    uint32_t constraints = 0, parts = 0, bad = 0, unsat = 0;
    uint64_t seed = 0;
    memset(out, 0, sizeof *out);
    int rc = parse_record(req, &constraints, &parts, &seed, &bad, &unsat, err);
    if (rc) return rc;
    test_state *s = calloc(1, sizeof *s);
    out->state = s;
    out->release = test_release;
    out->partitions = calloc(parts, sizeof *out->partitions);
    out->inputs = calloc(parts, sizeof *out->inputs);
    if (!s || !(s->shapes = calloc(parts, sizeof *s->shapes)) || !out->partitions || !out->inputs) {
        test_release(out);
        return cuzk_errf(err, CUZK_ENOMEM, "test provider: out of memory");
    }
    name_circuit(&out->info, constraints);
    out->n_partitions = parts;
    out->n_inputs = 1;
    for (uint32_t p = 0; p < parts; p++) {
        s->shapes[p] = (cs_synthetic){constraints, seed + p};
        out->partitions[p] = unsat == p + 1 ? cs_synthetic_circuit_unsatisfied(&s->shapes[p])
                                            : cs_synthetic_circuit(&s->shapes[p]);
    }
    /* The exact shape (the partition pool matches storage to it): w =
     * max(1, constraints / 129) words of 64 booleans and their packing, 64
     * XOR constraints between neighbours, every word an aux but the first,
     * the public input; 2 inputs with ONE. */
    size_t words = constraints / 129 ? constraints / 129 : 1;
    out->size = (cs_capacity){129 * words - 64, 2, 129 * words - 65};
    out->batchable = req->kind == ENGINE_POREP || req->kind == ENGINE_SNAP;
    rc = compute_inputs(out, bad, err);
    if (rc) test_release(out);
    return rc;
}

static bool parse_id(const char *circuit_id, uint32_t *constraints)
{
    char tail;
    unsigned long v;
    if (sscanf(circuit_id, "test-%lu%c", &v, &tail) != 1) return false;
    if (v < TEST_MIN_CONSTRAINTS || v > TEST_MAX_CONSTRAINTS) return false;
    *constraints = (uint32_t)v;
    return true;
}

static bool test_lookup(const char *circuit_id, engine_circuit_info *info)
{
    uint32_t constraints;
    if (!parse_id(circuit_id, &constraints)) return false;
    name_circuit(info, constraints);
    return true;
}

static void test_ids(char *buf, size_t cap)
{
    snprintf(buf, cap, "test-N (N constraints, %d..%u)", TEST_MIN_CONSTRAINTS,
             TEST_MAX_CONSTRAINTS);
}

static int test_setup_dev(const char *circuit_id, const char *params_path,
                          const groth16_setup_backend *be, cuzk_err *err)
{
    uint32_t constraints;
    if (!parse_id(circuit_id, &constraints))
        return cuzk_errf(err, CUZK_EINVAL, "test provider: no circuit %s", circuit_id);
    cs_synthetic shape = {constraints, 0};
    return groth16_setup_dev_write(params_path, NULL, cs_synthetic_circuit(&shape), TEST_SETUP_SEED,
                                   be, NULL, err);
}

static int test_blank(const char *circuit_id, cs_circuit *out, void **ctx, cuzk_err *err)
{
    uint32_t constraints;
    *ctx = NULL;
    if (!parse_id(circuit_id, &constraints))
        return cuzk_errf(err, CUZK_EINVAL, "test provider: no circuit %s", circuit_id);
    cs_synthetic *syn = malloc(sizeof *syn);
    if (!syn) return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    *syn = (cs_synthetic){constraints, 0}; /* any seed: the same R1CS */
    *out = cs_synthetic_circuit(syn);
    *ctx = syn;
    return CUZK_OK;
}

const engine_provider engine_test_provider = {
    .name = "test",
    .claims = test_claims,
    .prepare = test_prepare,
    .lookup = test_lookup,
    .ids = test_ids,
    .setup_dev = test_setup_dev,
    .blank = test_blank,
    .blank_free = free,
};
