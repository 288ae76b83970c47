/*
 * param_names.c - the official v28 parameter file names per circuit and
 * sector size (see param_names.h).
 *
 * Source: the parameters.json Lotus ships (build/proof-params), which lists
 * every v28 file with its sector size. For PoSt, each size has two files;
 * the Winning one is told from the Window one by its verifying key: Winning
 * PoSt has 133 public inputs (a ~13 KiB .vk), Window PoSt a different count
 * (for example 3 KiB at 8MiB, 2.4 MiB at 32GiB), and Curio's cuzk names
 * 559e581f... Winning and 0377ded6... Window for 32GiB.
 */
#include "cuzk/filecoin/param_names.h"

#include <stddef.h>
#include <string.h>

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

static const uint64_t sizes[] = {2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB, 64 * GIB};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

#define POREP(tree, hash)                                                                          \
    "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-" tree "-sha256_hasher-" hash
#define POST(tree, hash)   "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-" tree "-" hash
#define UPDATE(tree, hash) "v28-empty-sector-update-merkletree-poseidon_hasher-" tree "-" hash

/* [kind][size index] */
static const char *const names[FC_CIRCUIT_KINDS][N_SIZES] = {
    {
        POREP("8-0-0", "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f"),
        POREP("8-0-0", "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb"),
        POREP("8-0-0", "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472"),
        POREP("8-8-0", "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"),
        POREP("8-8-2", "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"),
    },
    {
        POST("8-0-0", "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e"),
        POST("8-0-0", "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331"),
        POST("8-0-0", "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9"),
        POST("8-8-0", "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e"),
        POST("8-8-2", "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c"),
    },
    {
        POST("8-0-0", "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0"),
        POST("8-0-0", "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9"),
        POST("8-0-0", "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781"),
        POST("8-8-0", "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc"),
        POST("8-8-2", "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def"),
    },
    {
        UPDATE("8-0-0", "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194"),
        UPDATE("8-0-0", "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63"),
        UPDATE("8-0-0", "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c"),
        UPDATE("8-8-0", "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"),
        UPDATE("8-8-2", "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7"),
    },
};

static int size_index(uint64_t sector_size)
{
    for (size_t i = 0; i < N_SIZES; i++)
        if (sizes[i] == sector_size) return (int)i;
    return -1;
}

const char *fc_param_name(fc_circuit_kind kind, uint64_t sector_size)
{
    int i = size_index(sector_size);
    return (unsigned)kind < FC_CIRCUIT_KINDS && i >= 0 ? names[kind][i] : NULL;
}

const char *fc_circuit_id(fc_circuit_kind kind, uint64_t sector_size)
{
    static const char *const ids[FC_CIRCUIT_KINDS][N_SIZES] = {
        {"porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g"},
        {"winning-2k", "winning-8m", "winning-512m", "winning-32g", "winning-64g"},
        {"wpost-2k", "wpost-8m", "wpost-512m", "wpost-32g", "wpost-64g"},
        {"snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g"},
    };
    int i = size_index(sector_size);
    return (unsigned)kind < FC_CIRCUIT_KINDS && i >= 0 ? ids[kind][i] : NULL;
}

uint64_t fc_sector_size_at(size_t i)
{
    return i < N_SIZES ? sizes[i] : 0;
}

int fc_circuit_parse(const char *id, fc_circuit_kind *kind, uint64_t *sector_size)
{
    for (int k = 0; k < FC_CIRCUIT_KINDS; k++)
        for (size_t i = 0; i < N_SIZES; i++)
            if (!strcmp(id, fc_circuit_id((fc_circuit_kind)k, sizes[i]))) {
                *kind = (fc_circuit_kind)k;
                *sector_size = sizes[i];
                return 0;
            }
    return -1;
}
