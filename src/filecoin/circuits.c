/*
 * circuits.c - blank Filecoin circuits by kind and development parameters
 * under the official file names (see circuits.h).
 */
#include "cuzk/filecoin/circuits.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/filecoin/vanilla.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"

int fc_blank_circuit(fc_blank *b, fc_circuit_kind kind, uint64_t sector_size, cs_circuit *out,
                     cuzk_err *err)
{
    int rc = CUZK_OK;
    switch (kind) {
    case FC_CIRCUIT_POREP: {
        porep_shape s;
        if (!(rc = porep_shape_for_size(&s, sector_size, err))) {
            porep_circuit_blank(&b->u.porep, &s);
            *out = porep_circuit_get(&b->u.porep);
        }
        break;
    }
    case FC_CIRCUIT_WINNING_POST:
    case FC_CIRCUIT_WINDOW_POST: {
        post_shape s;
        int k = kind == FC_CIRCUIT_WINNING_POST ? VANILLA_POST_WINNING : VANILLA_POST_WINDOW;
        if (!(rc = post_shape_for_size(&s, k, sector_size, err))) {
            post_circuit_blank(&b->u.post, &s);
            b->u.post.kind = k;
            *out = post_circuit_get(&b->u.post);
        }
        break;
    }
    case FC_CIRCUIT_UPDATE: {
        update_shape s;
        if (!(rc = update_shape_for_size(&s, sector_size, err))) {
            update_circuit_blank(&b->u.update, &s);
            *out = update_circuit_get(&b->u.update);
        }
        break;
    }
    default:
        rc = cuzk_errf(err, CUZK_EINVAL, "unknown circuit kind %d", (int)kind);
    }
    return rc;
}

int fc_param_paths(char *params, char *vk, size_t cap, const char *dir, fc_circuit_kind kind,
                   uint64_t sector_size, cuzk_err *err)
{
    const char *name = fc_param_name(kind, sector_size);
    if (!name)
        return cuzk_errf(err, CUZK_EINVAL, "no Filecoin parameters for a %llu-byte sector",
                         (unsigned long long)sector_size);
    if ((size_t)snprintf(params, cap, "%s/%s.params", dir, name) >= cap ||
        (size_t)snprintf(vk, cap, "%s/%s.vk", dir, name) >= cap)
        return cuzk_errf(err, CUZK_EINVAL, "%s: parameter path too long", dir);
    return CUZK_OK;
}

int fc_dev_params(const char *dir, fc_circuit_kind kind, uint64_t sector_size, uint64_t seed,
                  const groth16_setup_backend *be, FILE *log, bool *created, cuzk_err *err)
{
    char params[4096], vk[4096];
    int rc = fc_param_paths(params, vk, sizeof(params), dir, kind, sector_size, err);
    if (rc) return rc;
    *created = false;
    if (access(params, R_OK) == 0 && access(vk, R_OK) == 0) return CUZK_OK;
    mkdir(dir, 0755);
    fc_blank b;
    cs_circuit c;
    if ((rc = fc_blank_circuit(&b, kind, sector_size, &c, err))) return rc;
    rc = groth16_setup_dev_write(params, vk, c, seed, be, log, err);
    *created = !rc;
    return rc;
}
