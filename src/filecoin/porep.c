/*
 * porep.c - the registered seal proof table (porep.h).
 *
 * Values from filecoin-proofs constants.rs: POREP_PARTITIONS (1 below
 * 32GiB, 10 from it), LAYERS (2 / 11), interactive minimum challenges
 * (2 / 176, so ceil(176 / 10) = 18 per partition), non-interactive
 * partitions (13 / 126, challenges 26 / 2253 -> 2 / 18 per partition), and
 * the tree shapes SectorShape2KiB..64GiB (8-0-0 up to 512MiB, 8-8-0 for
 * 32GiB, 8-8-2 for 64GiB). API versions from filecoin-proofs-api
 * registry.rs: V1 -> V1_0_0, V1_1 -> V1_1_0, Synthetic and NI -> V1_2_0.
 */
#include "cuzk/filecoin/porep.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

/* One size's row of a group: layers, partitions, challenges per partition
 * and tree shape; NI replaces the partition count. */
#define SMALL(id, sz, label, kind, api, parts)                                                     \
    {                                                                                              \
        id, "StackedDrg" label, kind, api, sz, (sz) / FC_NODE_BYTES, 2, parts, 2, 8, 0, 0          \
    }
#define LARGE(id, sz, label, kind, api, parts, top)                                                \
    {                                                                                              \
        id, "StackedDrg" label, kind, api, sz, (sz) / FC_NODE_BYTES, 11, parts, 18, 8, 8, top      \
    }
#define GROUP(kind, suffix, api, small_parts, large_parts)                                         \
    SMALL(5 * kind + 0, 2 * KIB, "2KiB" suffix, kind, api, small_parts),                           \
        SMALL(5 * kind + 1, 8 * MIB, "8MiB" suffix, kind, api, small_parts),                       \
        SMALL(5 * kind + 2, 512 * MIB, "512MiB" suffix, kind, api, small_parts),                   \
        LARGE(5 * kind + 3, 32 * GIB, "32GiB" suffix, kind, api, large_parts, 0),                  \
        LARGE(5 * kind + 4, 64 * GIB, "64GiB" suffix, kind, api, large_parts, 2)

/* Indexed by registered proof id (5 * kind + size index). */
static const fc_porep_config TABLE[20] = {
    GROUP(FC_POREP_V1, "V1", FC_API_V1_0, 1, 10),
    GROUP(FC_POREP_V1_1, "V1_1", FC_API_V1_1, 1, 10),
    GROUP(FC_POREP_SYNTHETIC, "V1_1_Feat_SyntheticPoRep", FC_API_V1_2, 1, 10),
    GROUP(FC_POREP_NI, "V1_2_Feat_NonInteractivePoRep", FC_API_V1_2, 13, 126),
};

static const char *const KIND_SUFFIX[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                           "V1_2_Feat_NonInteractivePoRep"};

const fc_porep_config *fc_porep_config_get(uint64_t id)
{
    return id < 20 ? &TABLE[id] : NULL;
}

const fc_porep_config *fc_porep_config_find(uint64_t sector_size, int kind, cuzk_err *err)
{
    for (uint64_t s = 0; s < 5; s++)
        if (TABLE[s].sector_size == sector_size && kind >= 0 && kind < 4)
            return fc_porep_config_get((uint64_t)(5 * kind) + s);
    cuzk_errf(err, CUZK_EUNSUPPORTED,
              "porep: no registered proof for sector size %llu (kind %d); sizes are 2KiB, 8MiB, "
              "512MiB, 32GiB, 64GiB",
              (unsigned long long)sector_size, kind);
    return NULL;
}

int fc_porep_kind_parse(const char *s, int *kind, cuzk_err *err)
{
    static const char *const SHORT[4] = {"V1", "V1_1", "Synthetic", "NI"};
    for (int k = 0; k < 4; k++)
        if (!strcasecmp(s, SHORT[k]) || !strcasecmp(s, KIND_SUFFIX[k])) {
            *kind = k;
            return CUZK_OK;
        }
    return cuzk_errf(err, CUZK_EINVAL,
                     "porep: unknown proof version '%s' (V1, V1_1, Synthetic or NI)", s);
}

void fc_porep_id(uint8_t out[FC_POREP_ID_BYTES], uint64_t id)
{
    memset(out, 0, FC_POREP_ID_BYTES);
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(id >> (8 * i));
}
