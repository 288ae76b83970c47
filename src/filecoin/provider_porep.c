/*
 * provider_porep.c - the PoRep (SealCommit phase 2) provider of
 * providers.h: a C1 output in, one porep_circuit per partition out.
 *
 * prepare parses the vanilla proof with the streaming C1 reader (wrapper
 * or bare JSON), checks the request's sector_size and registered_proof
 * against it, checks natively everything the circuit will enforce
 * (vanilla_verify.h: a C1 no proof can be made from fails here, in
 * milliseconds, with its first fault named by partition, challenge and
 * node), wires one circuit per partition to the parsed C1 (kept in
 * the job's state until release) and computes every partition's public
 * inputs natively (porep_public_inputs), so the engine verifies each proof
 * against inputs the prover did not produce. The reservation size of a
 * partition is the circuit's known count (reference/filecoin.md, pinned by
 * test_porep_circuit), so no counting pass runs per request.
 *
 * setup_dev (only with --dev-params) is provider_common.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/providers.h"
#include "cuzk/filecoin/vanilla_verify.h"
#include "provider_internal.h"

/* One partition's size (constraints before the input constraints, aux),
 * from reference/filecoin.md's table; inputs come from the shape. */
static const struct {
    uint64_t sector_size;
    size_t constraints, aux;
} POREP_SIZES[] = {
    {2048ull, 2687921, 2685673},         {8ull << 20, 3844929, 3842449},
    {512ull << 20, 4423433, 4420837},    {32ull << 30, 130278541, 130169893},
    {64ull << 30, 131185849, 131076643},
};

typedef struct porep_state {
    vanilla_c1 c1;
    porep_circuit *circuits; /* one per partition, reading c1 */
} porep_state;

static bool porep_claims(const engine_request *req)
{
    return req->kind == ENGINE_POREP;
}

static void porep_release(engine_circuits *c)
{
    porep_state *s = c->state;
    if (s) {
        vanilla_c1_free(&s->c1);
        free(s->circuits);
        free(s);
    }
    free(c->partitions);
    free(c->inputs);
    memset(c, 0, sizeof *c);
}

/* The request's sector_size and registered_proof against the C1's. */
static int check_request(const engine_request *req, const vanilla_c1 *c1, cuzk_err *err)
{
    const char *have = vanilla_seal_proof_name(c1->registered_proof);
    if (req->sector_size && req->sector_size != c1->shape->sector_size)
        return cuzk_errf(err, CUZK_EINVAL,
                         "request sector_size %" PRIu64 " but the C1 output is for a %s sector "
                         "(%" PRIu64 " bytes, %s)",
                         req->sector_size, c1->shape->name, c1->shape->sector_size, have);
    if (req->registered_proof && req->registered_proof != (uint64_t)c1->registered_proof) {
        const char *want = req->registered_proof < VANILLA_SEAL_COUNT
                               ? vanilla_seal_proof_name((int)req->registered_proof)
                               : NULL;
        return cuzk_errf(err, CUZK_EINVAL,
                         "request registered_proof %" PRIu64 " (%s) but the C1 output is %s (%d)",
                         req->registered_proof, want ? want : "not a seal proof", have,
                         c1->registered_proof);
    }
    return CUZK_OK;
}

static int shape_size(cs_capacity *size, const vanilla_c1 *c1, size_t n_inputs, cuzk_err *err)
{
    for (size_t i = 0; i < sizeof POREP_SIZES / sizeof POREP_SIZES[0]; i++)
        if (POREP_SIZES[i].sector_size == c1->shape->sector_size) {
            *size = (cs_capacity){POREP_SIZES[i].constraints, n_inputs + 1, POREP_SIZES[i].aux};
            return CUZK_OK;
        }
    return cuzk_errf(err, CUZK_EINVAL, "porep: no circuit for a %s sector", c1->shape->name);
}

/* Circuits and public inputs of every partition of s->c1. */
static int build(engine_circuits *out, porep_state *s, cuzk_err *err)
{
    const vanilla_c1 *c1 = &s->c1;
    size_t n = c1->partitions;
    porep_public pub;
    int rc = porep_public_from_c1(&pub, c1, err);
    if (rc) return rc;
    s->circuits = calloc(n, sizeof *s->circuits);
    out->partitions = calloc(n, sizeof *out->partitions);
    if (!s->circuits || !out->partitions)
        return cuzk_errf(err, CUZK_ENOMEM, "porep: out of memory");
    for (size_t p = 0; p < n; p++) {
        if ((rc = porep_circuit_init(&s->circuits[p], c1, p, err))) return rc;
        out->partitions[p] = porep_circuit_get(&s->circuits[p]);
    }
    out->n_partitions = n;
    out->n_inputs = porep_num_public_inputs(&s->circuits[0].shape);
    if (!(out->inputs = calloc(n * out->n_inputs, sizeof *out->inputs)))
        return cuzk_errf(err, CUZK_ENOMEM, "porep: out of memory");
    for (size_t p = 0; p < n; p++)
        if ((rc = porep_public_inputs(out->inputs + p * out->n_inputs, &pub, p, err))) return rc;
    return shape_size(&out->size, c1, out->n_inputs, err);
}

static int porep_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    porep_state *s = calloc(1, sizeof *s);
    if (!s) return cuzk_errf(err, CUZK_ENOMEM, "porep: out of memory");
    out->state = s;
    out->release = porep_release;
    int rc = vanilla_c1_parse(&s->c1, req->vanilla_proof.data, req->vanilla_proof.len,
                              VANILLA_C1_AUTO | VANILLA_C1_UNCHECKED, err);
    if (rc) {
        free(s);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->batchable = true;
    if ((rc = check_request(req, &s->c1, err)) || (rc = fc_porep_c1_verify(&s->c1, err)) ||
        (rc = fcp_name_circuit(&out->info, FC_CIRCUIT_POREP, s->c1.shape->sector_size, err)) ||
        (rc = build(out, s, err)))
        porep_release(out);
    return rc;
}

static bool porep_lookup(const char *circuit_id, engine_circuit_info *info)
{
    return fcp_lookup(FC_CIRCUIT_POREP, circuit_id, info);
}

static void porep_ids(char *buf, size_t cap)
{
    fcp_ids(FC_CIRCUIT_POREP, buf, cap);
}

static int porep_setup_dev(const char *circuit_id, const char *params_path,
                           const groth16_setup_backend *be, cuzk_err *err)
{
    return fcp_setup_dev(FC_CIRCUIT_POREP, circuit_id, params_path, be, err);
}

static const engine_provider porep_provider = {
    .name = "porep",
    .claims = porep_claims,
    .prepare = porep_prepare,
    .lookup = porep_lookup,
    .ids = porep_ids,
    .blank = fcp_blank,
    .blank_free = free,
};

static const engine_provider porep_provider_dev = {
    .name = "porep (development parameters)",
    .claims = porep_claims,
    .prepare = porep_prepare,
    .lookup = porep_lookup,
    .ids = porep_ids,
    .blank = fcp_blank,
    .blank_free = free,
    .setup_dev = porep_setup_dev,
};

const engine_provider *fc_porep_provider(const char *dev_params_dir)
{
    if (!dev_params_dir) return &porep_provider;
    fcp_set_dev_dir(dev_params_dir);
    return &porep_provider_dev;
}
