/*
 * provider_common.c - the parts of the Filecoin providers that do not
 * depend on the proof kind (provider_internal.h): circuit ids and official
 * parameter names from param_names.h, and development parameters made for
 * the blank circuit of an id, as `cuzk setup --kind` makes them (same
 * seed, so both tools write identical files).
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cuzk/engine_log.h"
#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/providers.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"
#include "provider_internal.h"

/* Set once at registration, before any request (providers.h). */
static char dev_dir[512];

int fcp_name_circuit(engine_circuit_info *info, fc_circuit_kind kind, uint64_t sector_size,
                     cuzk_err *err)
{
    const char *id = fc_circuit_id(kind, sector_size);
    const char *param = fc_param_name(kind, sector_size);
    if (!id || !param)
        return cuzk_errf(err, CUZK_EINVAL, "no Filecoin parameters for a %" PRIu64 "-byte sector",
                         sector_size);
    snprintf(info->circuit_id, sizeof info->circuit_id, "%s", id);
    snprintf(info->param_name, sizeof info->param_name, "%s", param);
    return CUZK_OK;
}

bool fcp_lookup(fc_circuit_kind kind, const char *circuit_id, engine_circuit_info *info)
{
    fc_circuit_kind k;
    uint64_t size;
    if (fc_circuit_parse(circuit_id, &k, &size) || k != kind) return false;
    return fcp_name_circuit(info, kind, size, NULL) == CUZK_OK;
}

void fcp_set_dev_dir(const char *dir)
{
    snprintf(dev_dir, sizeof dev_dir, "%s", dir);
}

int fcp_setup_dev(fc_circuit_kind kind, const char *circuit_id, groth16_params *out, cuzk_err *err)
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
               "NOT a trusted "
               "setup: --dev-params)",
               circuit_id, params, FC_DEV_SEED);
    fc_blank b;
    cs_circuit c;
    if ((rc = fc_blank_circuit(&b, kind, size, &c, err)) ||
        (rc = groth16_setup_dev(out, c, FC_DEV_SEED, err)))
        return rc;
    mkdir(dev_dir, 0755);
    if ((rc = groth16_vk_write(vk, &out->vk, err))) groth16_params_free(out);
    return rc;
}
