/*
 * cuzk-seal - Filecoin sealing of small test sectors and parent caches,
 * natively (src/filecoin), to make real inputs for the PoRep circuit.
 *
 *   cuzk-seal gen-parent-cache --sector-size SIZE --porep-id HEX -o FILE
 *       [--api-version 1.0|1.1]
 *     writes the StackedDRG parent table in rust-fil-proofs' cache layout
 *     (14 u32 LE per node, streamed: any size in bounded memory) and prints
 *     its SHA-256; for a registered V1 / V1_1 porep_id it also checks it
 *     against storage-proofs-porep's parent_cache.json (exit 1 if it
 *     differs). HEX is the 32-byte porep_id; for a registered proof's id the
 *     API version follows from it, otherwise it defaults to 1.1.
 *
 *   cuzk-seal seal --sector-size 2KiB|8MiB|512MiB [--seed N] [--data FILE]
 *       [--registered-proof V1|V1_1|Synthetic|NI] [--sector-id N]
 *       [--miner N] [--c1 FILE] -o DIR
 *     seals random data from the seed (or FILE, the unsealed fr32-padded
 *     sector) and writes DIR/seal.json (replica_id, comm_d, comm_c,
 *     comm_r_last, comm_r, ...), the labels of every layer and the trees
 *     (seal.h fc_sealed_write). The ticket and the interactive seed come
 *     from the seed. --c1 also writes the commit-phase-1 output (c1.json
 *     wrapper with every vanilla proof).
 *
 * Both draw a progress bar on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/config.h"
#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/graph.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"

typedef struct opts {
    const char *sector_size, *porep_id, *out, *data, *proof, *api, *c1;
    uint64_t seed, sector_id, miner;
} opts;

static int usage(void)
{
    fprintf(stderr, "usage:\n"
                    "  cuzk-seal gen-parent-cache --sector-size SIZE --porep-id HEX -o FILE "
                    "[--api-version 1.0|1.1]\n"
                    "  cuzk-seal seal --sector-size 2KiB|8MiB|512MiB [--seed N] [--data FILE]\n"
                    "      [--registered-proof V1|V1_1|Synthetic|NI] [--sector-id N] [--miner N]\n"
                    "      [--c1 FILE] -o DIR\n");
    return 2;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    *v = strtoull(s, &end, 0);
    return *s && !*end ? 0 : -1;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->miner = 1000;
    const struct flag {
        const char *name;
        const char **str; /* a string option, or */
        uint64_t *num;    /* a number */
    } flags[] = {
        {"--sector-size", &o->sector_size, NULL},
        {"--porep-id", &o->porep_id, NULL},
        {"-o", &o->out, NULL},
        {"--data", &o->data, NULL},
        {"--registered-proof", &o->proof, NULL},
        {"--api-version", &o->api, NULL},
        {"--c1", &o->c1, NULL},
        {"--seed", NULL, &o->seed},
        {"--sector-id", NULL, &o->sector_id},
        {"--miner", NULL, &o->miner},
    };
    for (int i = 2; i + 1 < argc; i += 2) {
        const struct flag *f = NULL;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (!strcmp(argv[i], flags[k].name)) f = &flags[k];
        if (!f) return -1;
        if (f->str)
            *f->str = argv[i + 1];
        else if (parse_u64(argv[i + 1], f->num))
            return -1;
    }
    return argc % 2 == 0 && o->sector_size && o->out ? 0 : -1;
}

static int parse_porep_id(const char *hex, uint8_t out[32])
{
    if (!strncmp(hex, "0x", 2)) hex += 2;
    if (strlen(hex) != 64) return -1;
    for (int i = 0; i < 32; i++) {
        unsigned b;
        if (sscanf(hex + 2 * i, "%2x", &b) != 1) return -1;
        out[i] = (uint8_t)b;
    }
    return 0;
}

/* A registered proof's api version, or the --api-version choice. */
static int api_version_for(const uint8_t porep_id[32], const char *api)
{
    if (api) return !strcmp(api, "1.0") ? FC_API_V1_0 : !strcmp(api, "1.1") ? FC_API_V1_1 : -1;
    uint64_t id = 0;
    int tail_zero = 1;
    for (int i = 0; i < 8; i++) id |= (uint64_t)porep_id[i] << (8 * i);
    for (int i = 8; i < 32; i++) tail_zero &= porep_id[i] == 0;
    const fc_porep_config *cfg = tail_zero ? fc_porep_config_get(id) : NULL;
    return cfg ? cfg->api_version : FC_API_V1_1;
}

static int cmd_gen_parent_cache(const opts *o)
{
    uint64_t size;
    uint8_t porep_id[32], digest[32];
    cuzk_err err = {0};
    if (!o->porep_id || parse_porep_id(o->porep_id, porep_id)) {
        fprintf(stderr, "cuzk-seal: --porep-id needs 64 hex digits (32 bytes)\n");
        return 2;
    }
    int api = api_version_for(porep_id, o->api);
    fc_graph g;
    int rc = cuzk_parse_size(o->sector_size, &size, &err);
    if (!rc && api < 0) rc = cuzk_errf(&err, CUZK_EINVAL, "--api-version is 1.0 or 1.1");
    if (!rc) rc = fc_graph_init(&g, size / FC_NODE_BYTES, porep_id, api, &err);
    if (!rc) rc = fc_parent_cache_stream(&g, o->out, digest, fc_progress_bar, NULL, &err);
    if (rc) {
        fprintf(stderr, "cuzk-seal: %s\n", err.msg);
        return 1;
    }
    char hex[65];
    for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", digest[i]);
    printf("%s  %s\n", hex, o->out);
    const char *known = fc_parent_cache_known_digest(g.nodes, porep_id);
    if (!known) return 0;
    int same = !strcmp(hex, known);
    fprintf(stderr, "parent_cache.json digest %s: %s\n", known, same ? "matches" : "MISMATCH");
    return same ? 0 : 1;
}

/* Seals the test sector of --seed (gen.h: one implementation with cuzk-bench
 * gen-vanilla) and writes it, and its C1 output with --c1. */
static int seal_with(const opts *o, const fc_porep_config *cfg, cuzk_err *err)
{
    fc_test_sector t = {.cfg = cfg,
                        .seed = o->seed,
                        .sector_id = o->sector_id,
                        .miner = o->miner,
                        .data_path = o->data};
    fc_sealed s;
    int rc = fc_seal_test_sector(&s, &t, fc_progress_bar, NULL, err);
    if (!rc) rc = fc_sealed_write(&s, o->out, err);
    vanilla_c1 c1;
    if (!rc && o->c1 && !(rc = fc_test_sector_c1(&c1, &s, o->seed, err))) {
        rc = vanilla_c1_write_file(o->c1, &c1, err);
        vanilla_c1_free(&c1);
        if (!rc) printf("c1 %s\n", o->c1);
    }
    if (!rc) {
        printf("%s sealed into %s\ncomm_d ", cfg->name, o->out);
        for (int i = 0; i < 32; i++) printf("%02x", s.comm_d[i]);
        printf("\ncomm_r ");
        for (int i = 0; i < 32; i++) printf("%02x", s.comm_r[i]);
        printf("\n");
    }
    fc_sealed_free(&s);
    return rc;
}

static int cmd_seal(const opts *o)
{
    uint64_t size;
    int kind = FC_POREP_V1_1;
    cuzk_err err = {0};
    const fc_porep_config *cfg = NULL;
    int rc = cuzk_parse_size(o->sector_size, &size, &err);
    if (!rc && o->proof) rc = fc_porep_kind_parse(o->proof, &kind, &err);
    if (!rc) cfg = fc_porep_config_find(size, kind, &err);
    rc = cfg ? rc : CUZK_EINVAL;
    if (!rc) rc = seal_with(o, cfg, &err);
    if (rc) {
        fprintf(stderr, "cuzk-seal: %s\n", err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts o;
    if (argc < 2 || parse_opts(argc, argv, &o)) return usage();
    if (!strcmp(argv[1], "gen-parent-cache")) return cmd_gen_parent_cache(&o);
    if (!strcmp(argv[1], "seal")) return cmd_seal(&o);
    return usage();
}
