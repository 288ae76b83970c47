/*
 * provider_post.c - the Winning and Window PoSt providers of providers.h.
 *
 * Winning PoSt, for WINNING_POST requests as Curio sends them:
 * vanilla_proofs holds one bincode FallbackPoStSectorProof (the challenged
 * sector: its id, comm_r and 66 tree-R inclusion proofs; vanilla_proof is
 * accepted instead when vanilla_proofs is empty), randomness the 32-byte
 * challenge seed (a canonical field element, as filecoin-proofs
 * requires), registered_proof the RegisteredPoStProof
 * (StackedDrgWinning<size>V1: 0..4) and / or sector_size the size.
 * miner_id (the prover id) enters no public input. One partition: the
 * sector's proof unrolled into 66 circuit sectors of one challenge
 * (post_circuit.h); its public inputs are post_winning_public_inputs of
 * (sector id, comm_r) under the randomness.
 *
 * Window PoSt, for WINDOW_POST_PARTITION requests as Curio sends them:
 * one partition per request, partition_index k, vanilla_proofs one
 * FallbackPoStSectorProof per sector of that partition (at most the
 * shape's sector count: 2349 at 32GiB), the randomness, and
 * registered_proof StackedDrgWindow<size>V1 (5..9: challenge index
 * (k x sectors + i) x 10 + n) or V1_1 (10..14: n, FIP-0061), or 0 with
 * sector_size (V1_1). The public inputs are post_public_inputs' for
 * partition k, the sector index offset by k x sectors since the request
 * carries only this partition's sectors.
 *
 * Before any circuit is built, the sector proofs go through the native
 * check (post_verify.h, as cuzk verify-vanilla does): every challenge's
 * leaf against the randomness and sector id, every path against
 * comm_r_last, comm_r against comm_c and comm_r_last; a bad request is
 * answered at once with the first fault (sector, challenge, what). The
 * blobs are read unchecked (VANILLA_POST_UNCHECKED) so that the check
 * names every such fault its way.
 *
 * Partition sizes are counted once per sector size on the blank circuit
 * (90,750 constraints at 2KiB, 370,590 at 32GiB: a fraction of a second)
 * and kept for the process.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/post_verify.h"
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

/* The randomness and, for Winning PoSt (single), the one vanilla proof. */
static int read_inputs(const engine_request *req, engine_bytes *blob, vanilla_node *rnd,
                       bool single, cuzk_err *err)
{
    if (single && req->n_vanilla_proofs > 1)
        return cuzk_errf(err, CUZK_EINVAL,
                         "%zu vanilla proofs: Winning PoSt proves one challenged sector",
                         req->n_vanilla_proofs);
    *blob = req->n_vanilla_proofs ? req->vanilla_proofs[0] : req->vanilla_proof;
    if (!blob->len) return cuzk_errf(err, CUZK_EINVAL, "no PoSt vanilla proof");
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

/* The one sector proof, read and checked natively (post_verify.h). */
static int winning_sector(vanilla_post_sector *v, size_t index, const engine_bytes *blob,
                          const vanilla_node *rnd, cuzk_err *err)
{
    post_shape shape;
    int rc = vanilla_post_sector_parse(v, VANILLA_POST_WINNING | VANILLA_POST_UNCHECKED,
                                       fcp_sizes[index], blob->data, blob->len, err);
    if (rc) return rc;
    fc_post_request q = {.kind = VANILLA_POST_WINNING, .shape = &shape, .randomness = rnd->b};
    if (!(rc = post_shape_for_size(&shape, VANILLA_POST_WINNING, fcp_sizes[index], err)))
        rc = fc_post_vanilla_verify(&q, v, 1, err);
    if (rc) vanilla_post_sector_free(v);
    return rc;
}

static int winning_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    size_t index = 0;
    engine_bytes blob = {0};
    vanilla_node rnd = {{0}};
    int rc = fcp_request_size(req, "Winning PoSt", &index, err);
    if (!rc) rc = read_inputs(req, &blob, &rnd, true, err);
    if (rc) return rc;
    winning_state *s = calloc(1, sizeof *s);
    if (!s) return cuzk_errf(err, CUZK_ENOMEM, "winning PoSt: out of memory");
    rc = winning_sector(&s->sector, index, &blob, &rnd, err);
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

/* ---- Window PoSt ---- */

/* RegisteredPoStProof ids as Go's abi numbers them: StackedDrgWindow<size>V1
 * 5..9 (proofs-api ApiVersion V1_0_0, which indexes challenges as V1_1
 * does), V1_1 10..14 (proofs-api StackedDrgWindow<size>V1_2, V1_2_0). */
#define WINDOW_V1    5
#define WINDOW_V1_1  10
#define WINDOW_AFTER 15

typedef struct window_state {
    size_t n;
    vanilla_post_sector *sectors;
    post_circuit circuit;
} window_state;

static bool window_claims(const engine_request *req)
{
    return req->kind == ENGINE_WINDOW_POST;
}

static void window_release(engine_circuits *c)
{
    window_state *s = c->state;
    for (size_t i = 0; s && i < s->n; i++) vanilla_post_sector_free(&s->sectors[i]);
    if (s) free(s->sectors);
    free(s);
    free(c->partitions);
    free(c->inputs);
    memset(c, 0, sizeof *c);
}

/* The sector size index and api version of a window request. */
static int window_proof(const engine_request *req, size_t *index, int *api, cuzk_err *err)
{
    uint64_t id = req->registered_proof;
    if (id && (id < WINDOW_V1 || id >= WINDOW_AFTER))
        return cuzk_errf(err, CUZK_EINVAL,
                         "registered_proof %" PRIu64 " is not a Window PoSt proof (5..14)", id);
    engine_request sized = *req;
    sized.registered_proof = id ? (id - WINDOW_V1) % FCP_SIZES : 0;
    if (!id && !req->sector_size)
        return cuzk_errf(err, CUZK_EINVAL, "Window PoSt: neither registered_proof nor sector_size");
    *api = id && id < WINDOW_V1_1 ? FC_API_V1_1 : FC_API_V1_2;
    return fcp_request_size(&sized, "Window PoSt", index, err);
}

/* post_public_inputs for partition k when the request holds only its sectors. */
static void window_inputs(fr_t *out, const post_shape *sh, int api, const uint8_t rnd[32],
                          const window_state *s, uint64_t k)
{
    size_t per = 1 + sh->challenges;
    for (size_t i = 0; i < s->n; i++) {
        const vanilla_post_sector *v = &s->sectors[i];
        fr_t *o = out + i * per;
        fr_from_bytes_le(&o[0], v->comm_r.b); /* canonical: checked by the reader */
        for (size_t c = 0; c < sh->challenges; c++) {
            uint64_t ci = api == FC_API_V1_2 ? c : (k * sh->sectors + i) * sh->challenges + c;
            fr_from_u64(&o[1 + c], post_leaf_challenge(rnd, v->sector_id, ci, sh->nodes));
        }
    }
    for (size_t i = s->n; i < sh->sectors; i++)
        memcpy(out + i * per, out + (s->n - 1) * per, per * sizeof(fr_t));
}

static int window_build(engine_circuits *out, const engine_request *req, size_t index, int api,
                        const vanilla_node *rnd, cuzk_err *err)
{
    post_shape sh;
    int rc = post_shape_for_size(&sh, VANILLA_POST_WINDOW, fcp_sizes[index], err);
    if (rc) return rc;
    if (!req->n_vanilla_proofs || req->n_vanilla_proofs > sh.sectors)
        return cuzk_errf(err, CUZK_EINVAL, "%zu sector proofs, a partition holds 1..%zu",
                         req->n_vanilla_proofs, sh.sectors);
    window_state *s = calloc(1, sizeof *s);
    out->state = s;
    out->release = window_release;
    if (!s || !(s->sectors = calloc(req->n_vanilla_proofs, sizeof *s->sectors)))
        return cuzk_errf(err, CUZK_ENOMEM, "window PoSt: out of memory");
    for (size_t i = 0; i < req->n_vanilla_proofs; i++, s->n++)
        if ((rc = vanilla_post_sector_parse(
                 &s->sectors[i], VANILLA_POST_WINDOW | VANILLA_POST_UNCHECKED, fcp_sizes[index],
                 req->vanilla_proofs[i].data, req->vanilla_proofs[i].len, err)))
            return cuzk_err_prefix(err, "sector proof %zu: ", i), rc;
    fc_post_request q = {.kind = VANILLA_POST_WINDOW,
                         .shape = &sh,
                         .api_version = api,
                         .randomness = rnd->b,
                         .first_sector = req->partition_index * sh.sectors};
    if ((rc = fc_post_vanilla_verify(&q, s->sectors, s->n, err))) return rc;
    if ((rc = post_circuit_init(&s->circuit, VANILLA_POST_WINDOW, &sh, s->sectors, s->n, err)))
        return rc;
    out->n_partitions = 1;
    out->n_inputs = post_num_public_inputs(&sh);
    out->partitions = calloc(1, sizeof *out->partitions);
    out->inputs = calloc(out->n_inputs, sizeof *out->inputs);
    if (!out->partitions || !out->inputs)
        return cuzk_errf(err, CUZK_ENOMEM, "window PoSt: out of memory");
    out->partitions[0] = post_circuit_get(&s->circuit);
    window_inputs(out->inputs, &sh, api, rnd->b, s, req->partition_index);
    return fcp_partition_size(FC_CIRCUIT_WINDOW_POST, index, &out->size, err);
}

static int window_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    size_t index = 0;
    int api = FC_API_V1_2;
    engine_bytes blob = {0};
    vanilla_node rnd = {{0}};
    int rc = window_proof(req, &index, &api, err);
    if (!rc) rc = read_inputs(req, &blob, &rnd, false, err);
    if (!rc) rc = fcp_name_circuit(&out->info, FC_CIRCUIT_WINDOW_POST, fcp_sizes[index], err);
    if (!rc && (rc = window_build(out, req, index, api, &rnd, err)) && out->release)
        out->release(out);
    return rc;
}

static bool window_lookup(const char *circuit_id, engine_circuit_info *info)
{
    return fcp_lookup(FC_CIRCUIT_WINDOW_POST, circuit_id, info);
}

static void window_ids(char *buf, size_t cap)
{
    fcp_ids(FC_CIRCUIT_WINDOW_POST, buf, cap);
}

static int window_setup_dev(const char *circuit_id, const char *params_path,
                            const groth16_setup_backend *be, cuzk_err *err)
{
    return fcp_setup_dev(FC_CIRCUIT_WINDOW_POST, circuit_id, params_path, be, err);
}

static const engine_provider window_provider = {
    .name = "window-post",
    .claims = window_claims,
    .prepare = window_prepare,
    .lookup = window_lookup,
    .ids = window_ids,
    .blank = fcp_blank,
    .blank_free = free,
};

static const engine_provider window_provider_dev = {
    .name = "window-post (development parameters)",
    .claims = window_claims,
    .prepare = window_prepare,
    .lookup = window_lookup,
    .ids = window_ids,
    .blank = fcp_blank,
    .blank_free = free,
    .setup_dev = window_setup_dev,
};

const engine_provider *fc_window_post_provider(const char *dev_params_dir)
{
    if (!dev_params_dir) return &window_provider;
    fcp_set_dev_dir(dev_params_dir);
    return &window_provider_dev;
}

/* ---- Winning PoSt registration ---- */

static bool winning_lookup(const char *circuit_id, engine_circuit_info *info)
{
    return fcp_lookup(FC_CIRCUIT_WINNING_POST, circuit_id, info);
}

static void winning_ids(char *buf, size_t cap)
{
    fcp_ids(FC_CIRCUIT_WINNING_POST, buf, cap);
}

static int winning_setup_dev(const char *circuit_id, const char *params_path,
                             const groth16_setup_backend *be, cuzk_err *err)
{
    return fcp_setup_dev(FC_CIRCUIT_WINNING_POST, circuit_id, params_path, be, err);
}

static const engine_provider winning_provider = {
    .name = "winning-post",
    .claims = winning_claims,
    .prepare = winning_prepare,
    .lookup = winning_lookup,
    .ids = winning_ids,
    .blank = fcp_blank,
    .blank_free = free,
};

static const engine_provider winning_provider_dev = {
    .name = "winning-post (development parameters)",
    .claims = winning_claims,
    .prepare = winning_prepare,
    .lookup = winning_lookup,
    .ids = winning_ids,
    .blank = fcp_blank,
    .blank_free = free,
    .setup_dev = winning_setup_dev,
};

const engine_provider *fc_winning_post_provider(const char *dev_params_dir)
{
    if (!dev_params_dir) return &winning_provider;
    fcp_set_dev_dir(dev_params_dir);
    return &winning_provider_dev;
}
