/*
 * provider_post.c - the Winning PoSt provider of providers.h, for
 * WINNING_POST requests as Curio sends them: vanilla_proofs holds one
 * bincode FallbackPoStSectorProof (the challenged sector: its id, comm_r
 * and 66 tree-R inclusion proofs; vanilla_proof is accepted instead when
 * vanilla_proofs is empty), randomness the 32-byte challenge seed (a
 * canonical field element, as filecoin-proofs requires), registered_proof
 * the RegisteredPoStProof (StackedDrgWinning<size>V1: 0..4) and / or
 * sector_size the size. miner_id (the prover id) enters no public input.
 *
 * One partition: the sector's proof unrolled into 66 circuit sectors of
 * one challenge (post_circuit.h); its public inputs are
 * post_winning_public_inputs of (sector id, comm_r) under the randomness.
 * Partition sizes are counted once per sector size on the blank circuit
 * (90,750 constraints at 2KiB, 370,590 at 32GiB: a fraction of a second)
 * and kept for the process.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/providers.h"
#include "provider_internal.h"

typedef struct winning_state {
    vanilla_post_sector sector;
    post_circuit circuit;
} winning_state;

static bool winning_claims(const engine_request *req)
{
    return req->kind == ENGINE_WINNING_POST;
}

static void winning_release(engine_circuits *c)
{
    winning_state *s = c->state;
    if (s) vanilla_post_sector_free(&s->sector);
    free(s);
    free(c->partitions);
    free(c->inputs);
    memset(c, 0, sizeof *c);
}

static int read_inputs(const engine_request *req, engine_bytes *blob, vanilla_node *rnd,
                       cuzk_err *err)
{
    if (req->n_vanilla_proofs > 1)
        return cuzk_errf(err, CUZK_EINVAL,
                         "%zu vanilla proofs: Winning PoSt proves one challenged sector",
                         req->n_vanilla_proofs);
    *blob = req->n_vanilla_proofs ? req->vanilla_proofs[0] : req->vanilla_proof;
    if (!blob->len) return cuzk_errf(err, CUZK_EINVAL, "no Winning PoSt vanilla proof");
    if (req->randomness.len != 32)
        return cuzk_errf(err, CUZK_EINVAL, "randomness: %zu bytes, expected 32",
                         req->randomness.len);
    memcpy(rnd->b, req->randomness.data, 32);
    if (!vanilla_node_canonical(rnd))
        return cuzk_errf(err, CUZK_EINVAL, "randomness is not a canonical field element");
    return CUZK_OK;
}

static int build(engine_circuits *out, winning_state *s, size_t index, const vanilla_node *rnd,
                 cuzk_err *err)
{
    post_shape shape;
    int rc = post_shape_for_size(&shape, VANILLA_POST_WINNING, fcp_sizes[index], err);
    if (!rc) rc = post_circuit_init(&s->circuit, VANILLA_POST_WINNING, &shape, &s->sector, 1, err);
    if (rc) return rc;
    out->n_partitions = 1;
    out->n_inputs = post_num_public_inputs(&shape);
    out->partitions = calloc(1, sizeof *out->partitions);
    out->inputs = calloc(out->n_inputs, sizeof *out->inputs);
    if (!out->partitions || !out->inputs)
        return cuzk_errf(err, CUZK_ENOMEM, "winning PoSt: out of memory");
    out->partitions[0] = post_circuit_get(&s->circuit);
    post_public_sector pub = {s->sector.sector_id, s->sector.comm_r};
    rc = post_winning_public_inputs(out->inputs, &shape, FC_API_V1_1, rnd->b, &pub, err);
    return rc ? rc : fcp_partition_size(FC_CIRCUIT_WINNING_POST, index, &out->size, err);
}

static int winning_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    size_t index = 0;
    engine_bytes blob = {0};
    vanilla_node rnd = {{0}};
    int rc = fcp_request_size(req, "Winning PoSt", &index, err);
    if (!rc) rc = read_inputs(req, &blob, &rnd, err);
    if (rc) return rc;
    winning_state *s = calloc(1, sizeof *s);
    if (!s) return cuzk_errf(err, CUZK_ENOMEM, "winning PoSt: out of memory");
    rc = vanilla_post_sector_parse(&s->sector, VANILLA_POST_WINNING, fcp_sizes[index], blob.data,
                                   blob.len, err);
    if (rc) {
        free(s);
        return rc;
    }
    out->state = s;
    out->release = winning_release;
    if ((rc = fcp_name_circuit(&out->info, FC_CIRCUIT_WINNING_POST, fcp_sizes[index], err)) ||
        (rc = build(out, s, index, &rnd, err)))
        winning_release(out);
    return rc;
}

static bool winning_lookup(const char *circuit_id, engine_circuit_info *info)
{
    return fcp_lookup(FC_CIRCUIT_WINNING_POST, circuit_id, info);
}

static int winning_setup_dev(const char *circuit_id, groth16_params *out, cuzk_err *err)
{
    return fcp_setup_dev(FC_CIRCUIT_WINNING_POST, circuit_id, out, err);
}

static const engine_provider winning_provider = {
    .name = "winning-post",
    .claims = winning_claims,
    .prepare = winning_prepare,
    .lookup = winning_lookup,
};

static const engine_provider winning_provider_dev = {
    .name = "winning-post (development parameters)",
    .claims = winning_claims,
    .prepare = winning_prepare,
    .lookup = winning_lookup,
    .setup_dev = winning_setup_dev,
};

const engine_provider *fc_winning_post_provider(const char *dev_params_dir)
{
    if (!dev_params_dir) return &winning_provider;
    fcp_set_dev_dir(dev_params_dir);
    return &winning_provider_dev;
}
