/*
 * provider_update.c - the SnapDeals (Empty Sector Update) provider of
 * providers.h, for SNAP_DEALS_UPDATE requests as Curio sends them:
 * vanilla_proofs holds one bincode PartitionProof per partition (1 at
 * 2KiB .. 16 at 32GiB; vanilla_proof is accepted for a one-partition
 * sector), comm_r_old, comm_r_new and comm_d_new the three 32-byte
 * commitments (canonical field elements), registered_proof the
 * RegisteredUpdateProof (StackedDrg<size>V1: 0..4) and / or sector_size.
 *
 * Partition k's circuit is update_circuit_init over its partition proof
 * with the public inputs of (k, h, commitments), h being filecoin-proofs'
 * SectorUpdateConfig h = storage-proofs-update h_default(nodes) = hs[3]
 * (1 up to 32KiB, 10 above). Before any circuit, every partition proof
 * is checked natively (update_verify.h: openings, challenge indexes,
 * encoding), so a bad request fails in milliseconds with its fault named,
 * as PoRep's C1 check does. Same-circuit requests may batch.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/providers.h"
#include "cuzk/filecoin/update_verify.h"
#include "provider_internal.h"

/* SectorUpdateConfig::from_porep_config: h = h_default(nodes) = hs(nodes)[3]. */
#define UPDATE_H_INDEX 3

typedef struct update_state {
    size_t n;
    vanilla_update_partition *parts;
    update_circuit *circuits;
} update_state;

static bool update_claims(const engine_request *req)
{
    return req->kind == ENGINE_SNAP;
}

static void update_release(engine_circuits *c)
{
    update_state *s = c->state;
    for (size_t k = 0; s && k < s->n; k++) vanilla_update_free(&s->parts[k]);
    if (s) free(s->parts), free(s->circuits);
    free(s);
    free(c->partitions);
    free(c->inputs);
    memset(c, 0, sizeof *c);
}

static int commitment(vanilla_node *out, engine_bytes b, const char *name, cuzk_err *err)
{
    if (b.len != 32) return cuzk_errf(err, CUZK_EINVAL, "%s: %zu bytes, expected 32", name, b.len);
    memcpy(out->b, b.data, 32);
    if (!vanilla_node_canonical(out) || vanilla_node_is_zero(out))
        return cuzk_errf(err, CUZK_EINVAL, "%s is zero or not a canonical field element", name);
    return CUZK_OK;
}

/* The commitments, and the partition blobs (count checked against shape). */
static int read_request(const engine_request *req, const update_shape *shape, update_public *pub,
                        const engine_bytes **blobs, size_t *n, cuzk_err *err)
{
    int rc;
    if ((rc = commitment(&pub->comm_r_old, req->comm_r_old, "comm_r_old", err)) ||
        (rc = commitment(&pub->comm_r_new, req->comm_r_new, "comm_r_new", err)) ||
        (rc = commitment(&pub->comm_d_new, req->comm_d_new, "comm_d_new", err)))
        return rc;
    *blobs = req->n_vanilla_proofs ? req->vanilla_proofs : &req->vanilla_proof;
    *n = req->n_vanilla_proofs ? req->n_vanilla_proofs : 1;
    if (*n != shape->partitions)
        return cuzk_errf(err, CUZK_EINVAL, "%zu partition proofs, the sector has %u partitions", *n,
                         shape->partitions);
    pub->h = shape->hs[UPDATE_H_INDEX];
    return CUZK_OK;
}

static int alloc_state(engine_circuits *out, size_t n, size_t n_inputs, cuzk_err *err)
{
    update_state *s = calloc(1, sizeof *s);
    out->state = s;
    out->release = update_release;
    out->partitions = calloc(n, sizeof *out->partitions);
    out->inputs = calloc(n * n_inputs, sizeof *out->inputs);
    if (!s || !(s->parts = calloc(n, sizeof *s->parts)) ||
        !(s->circuits = calloc(n, sizeof *s->circuits)) || !out->partitions || !out->inputs)
        return cuzk_errf(err, CUZK_ENOMEM, "snap: out of memory");
    return CUZK_OK;
}

/* Every partition proof parsed, then checked natively (update_verify.h):
 * a proof no circuit can satisfy is refused here, its fault named. */
static int parse_all(update_state *s, const update_shape *shape, const update_public *pub,
                     const engine_bytes *blobs, size_t n, uint64_t sector_size, cuzk_err *err)
{
    for (size_t k = 0; k < n; k++, s->n++) {
        int rc = vanilla_update_parse(&s->parts[k], sector_size, blobs[k].data, blobs[k].len, err);
        if (rc) {
            cuzk_err_prefix(err, "partition %zu: ", k);
            return rc;
        }
    }
    return fc_update_verify(shape, pub, s->parts, n, err);
}

static int build(engine_circuits *out, const update_shape *shape, update_public *pub,
                 const engine_bytes *blobs, size_t n, uint64_t sector_size, cuzk_err *err)
{
    int rc = alloc_state(out, n, UPDATE_PUBLIC_INPUTS, err);
    update_state *s = out->state;
    if (!rc) rc = parse_all(s, shape, pub, blobs, n, sector_size, err);
    for (size_t k = 0; !rc && k < n; k++) {
        pub->k = k;
        if ((rc = update_circuit_init(&s->circuits[k], shape, &s->parts[k], pub, err))) break;
        out->partitions[k] = update_circuit_get(&s->circuits[k]);
        memcpy(out->inputs + k * UPDATE_PUBLIC_INPUTS, s->circuits[k].inputs,
               sizeof s->circuits[k].inputs);
    }
    out->n_partitions = n;
    out->n_inputs = UPDATE_PUBLIC_INPUTS;
    out->batchable = true;
    return rc;
}

static int update_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    size_t index = 0, n = 0;
    update_shape shape;
    update_public pub = {0};
    const engine_bytes *blobs = NULL;
    int rc = fcp_request_size(req, "SnapDeals update", &index, err);
    if (!rc) rc = update_shape_for_size(&shape, fcp_sizes[index], err);
    if (!rc) rc = read_request(req, &shape, &pub, &blobs, &n, err);
    if (rc) return rc;
    if ((rc = fcp_name_circuit(&out->info, FC_CIRCUIT_UPDATE, fcp_sizes[index], err)) ||
        (rc = build(out, &shape, &pub, blobs, n, fcp_sizes[index], err)) ||
        (rc = fcp_partition_size(FC_CIRCUIT_UPDATE, index, &out->size, err)))
        update_release(out);
    return rc;
}

static bool update_lookup(const char *circuit_id, engine_circuit_info *info)
{
    return fcp_lookup(FC_CIRCUIT_UPDATE, circuit_id, info);
}

static void update_ids(char *buf, size_t cap)
{
    fcp_ids(FC_CIRCUIT_UPDATE, buf, cap);
}

static int update_setup_dev(const char *circuit_id, const char *params_path,
                            const groth16_setup_backend *be, cuzk_err *err)
{
    return fcp_setup_dev(FC_CIRCUIT_UPDATE, circuit_id, params_path, be, err);
}

static const engine_provider update_provider = {
    .name = "snap",
    .claims = update_claims,
    .prepare = update_prepare,
    .lookup = update_lookup,
    .ids = update_ids,
    .blank = fcp_blank,
    .blank_free = free,
};

static const engine_provider update_provider_dev = {
    .name = "snap (development parameters)",
    .claims = update_claims,
    .prepare = update_prepare,
    .lookup = update_lookup,
    .ids = update_ids,
    .blank = fcp_blank,
    .blank_free = free,
    .setup_dev = update_setup_dev,
};

const engine_provider *fc_update_provider(const char *dev_params_dir)
{
    if (!dev_params_dir) return &update_provider;
    fcp_set_dev_dir(dev_params_dir);
    return &update_provider_dev;
}
