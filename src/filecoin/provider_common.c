/*
 * provider_common.c - the parts of the Filecoin providers that do not
 * depend on the proof kind (provider_internal.h): circuit ids and official
 * parameter names from param_names.h, and development parameters made for
 * the blank circuit of an id, as `cuzk setup --kind` makes them (same
 * seed, so both tools write identical files).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/engine_log.h"
#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/providers.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"
#include "provider_internal.h"

/* Set once at registration, before any request (providers.h). */
static char dev_dir[512];

const uint64_t fcp_sizes[FCP_SIZES] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

/*
 * One partition's size, {constraints with the input ones, inputs with ONE,
 * aux}, of each kind at each of fcp_sizes, as `cuzk circuit-info --kind K
 * --sector-size S --json` counted them (constraints_with_inputs, inputs,
 * aux) on 2026-12-03 at f441cf2. Without it a daemon's first request of a
 * kind and size counted the blank circuit before its job was even queued:
 * 86 s for a 32 GiB Window PoSt partition on the H200's host. The size is
 * the engine's hint (storage reserved and charged to the memory budget;
 * the synthesis grows past it), so an entry that were wrong would cost
 * accounting, not proofs. test_fc_providers counts every kind up to
 * 512MiB and compares (the 32 and 64 GiB counts take minutes: same
 * command, same day). PoRep has its own (provider_porep.c). An entry of 0
 * is counted on first use.
 */
static const cs_capacity known_sizes[FC_CIRCUIT_KINDS][FCP_SIZES] = {
    [FC_CIRCUIT_WINNING_POST] = {{90883, 133, 91674},
                                 {230803, 133, 233442},
                                 {300763, 133, 304326},
                                 {370723, 133, 375210},
                                 {391447, 133, 396000}},
    [FC_CIRCUIT_WINDOW_POST] = {{21889, 23, 22128},
                                {64289, 23, 65088},
                                {85489, 23, 86568},
                                {125305057, 25840, 126902376},
                                {129913201, 25301, 131500200}},
    [FC_CIRCUIT_UPDATE] = {{1705044, 5, 1703569},
                           {10007508, 5, 9998039},
                           {57450484, 5, 57401314},
                           {81049504, 5, 80978488},
                           {85006106, 5, 84931220}},
};

/* Counted partition sizes (guarded by size_lock); constraints 0: not yet. */
static pthread_mutex_t size_lock = PTHREAD_MUTEX_INITIALIZER;
static cs_capacity sizes[FC_CIRCUIT_KINDS][FCP_SIZES];

int fcp_request_size(const engine_request *req, const char *what, size_t *index, cuzk_err *err)
{
    uint64_t id = req->registered_proof;
    if (id >= FCP_SIZES)
        return cuzk_errf(err, CUZK_EINVAL, "registered_proof %" PRIu64 " is not a %s proof (0..%d)",
                         id, what, FCP_SIZES - 1);
    uint64_t size = req->sector_size ? req->sector_size : fcp_sizes[id];
    for (size_t i = 0; i < FCP_SIZES; i++)
        if (fcp_sizes[i] == size) {
            if (id && id != i)
                return cuzk_errf(err, CUZK_EINVAL,
                                 "request sector_size %" PRIu64 " but %s registered_proof %" PRIu64
                                 " is for %" PRIu64 "-byte sectors",
                                 size, what, id, fcp_sizes[id]);
            *index = i;
            return CUZK_OK;
        }
    return cuzk_errf(err, CUZK_EINVAL, "no %s for a %" PRIu64 "-byte sector", what, size);
}

int fcp_partition_count(fc_circuit_kind kind, size_t index, cs_capacity *out, cuzk_err *err)
{
    fc_blank b;
    cs_circuit circ;
    cs_counts n;
    int rc = fc_blank_circuit(&b, kind, fcp_sizes[index], &circ, err);
    if (!rc) rc = cs_count(&n, circ, err);
    if (!rc) *out = (cs_capacity){n.num_constraints, n.num_inputs, n.num_aux};
    return rc;
}

int fcp_partition_size(fc_circuit_kind kind, size_t index, cs_capacity *out, cuzk_err *err)
{
    if (known_sizes[kind][index].constraints) {
        *out = known_sizes[kind][index];
        return CUZK_OK;
    }
    pthread_mutex_lock(&size_lock);
    int rc = CUZK_OK;
    cs_capacity *c = &sizes[kind][index];
    if (!c->constraints) rc = fcp_partition_count(kind, index, c, err);
    *out = *c;
    pthread_mutex_unlock(&size_lock);
    return rc;
}

int fcp_name_circuit(engine_circuit_info *info, fc_circuit_kind kind, uint64_t sector_size,
                     cuzk_err *err)
{
    const char *id = fc_circuit_id(kind, sector_size);
    const char *param = fc_param_name(kind, sector_size);
    if (!id || !param)
        return cuzk_errf(err, CUZK_EINVAL, "no Filecoin parameters for a %" PRIu64 "-byte sector",
                         sector_size);
    memset(info, 0, sizeof *info);
    snprintf(info->circuit_id, sizeof info->circuit_id, "%s", id);
    snprintf(info->param_name, sizeof info->param_name, "%s", param);
    info->check_params = false; /* official files: read unchecked */
    return CUZK_OK;
}

bool fcp_lookup(fc_circuit_kind kind, const char *circuit_id, engine_circuit_info *info)
{
    fc_circuit_kind k;
    uint64_t size;
    if (fc_circuit_parse(circuit_id, &k, &size) || k != kind) return false;
    return fcp_name_circuit(info, kind, size, NULL) == CUZK_OK;
}

void fcp_ids(fc_circuit_kind kind, char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = 0;
    for (size_t i = 0; fc_sector_size_at(i) && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", i ? ", " : "",
                                fc_circuit_id(kind, fc_sector_size_at(i)));
}

void fcp_set_dev_dir(const char *dir)
{
    snprintf(dev_dir, sizeof dev_dir, "%s", dir);
}

int fcp_blank(const char *circuit_id, cs_circuit *out, void **ctx, cuzk_err *err)
{
    fc_circuit_kind kind;
    uint64_t size;
    *ctx = NULL;
    if (fc_circuit_parse(circuit_id, &kind, &size))
        return cuzk_errf(err, CUZK_EINVAL, "no Filecoin circuit %s here", circuit_id);
    fc_blank *b = malloc(sizeof *b);
    if (!b) return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    int rc = fc_blank_circuit(b, kind, size, out, err);
    if (rc)
        free(b);
    else
        *ctx = b;
    return rc;
}

int fcp_setup_dev(fc_circuit_kind kind, const char *circuit_id, const char *params_path,
                  const groth16_setup_backend *be, cuzk_err *err)
{
    fc_circuit_kind k;
    uint64_t size;
    if (fc_circuit_parse(circuit_id, &k, &size) || k != kind)
        return cuzk_errf(err, CUZK_EINVAL, "no Filecoin circuit %s here", circuit_id);
    char params[1024], vk[1024];
    int rc = fc_param_paths(params, vk, sizeof params, dev_dir, kind, size, err);
    if (rc) return rc;
    engine_log(LOG_WARN,
               "circuit %s: %s missing; making DEVELOPMENT parameters (seed %d, "
               "NOT a trusted setup: --dev-params) on the %s",
               circuit_id, params_path, FC_DEV_SEED, be->name);
    fc_blank b;
    cs_circuit c;
    if ((rc = fc_blank_circuit(&b, kind, size, &c, err))) return rc;
    mkdir(dev_dir, 0755);
    return groth16_setup_dev_write(params_path, vk, c, FC_DEV_SEED, be, stderr, err);
}
