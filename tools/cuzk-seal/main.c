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
#include "cuzk/filecoin/graph.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"
#include "cuzk/rng.h"

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

/* The bar: one line per stage, redrawn when the percentage moves. */
static void progress_bar(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    static char last_stage[32];
    static int last_pct = -1;
    (void)ctx;
    int pct = total ? (int)(done * 100 / total) : 100;
    if (strcmp(stage, last_stage)) {
        snprintf(last_stage, sizeof last_stage, "%s", stage);
        last_pct = -1;
    }
    if (pct == last_pct) return;
    last_pct = pct;
    char bar[41];
    int fill = pct * 40 / 100;
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(40 - fill));
    bar[40] = 0;
    fprintf(stderr, "\r%-12s [%s] %3d%%%s", stage, bar, pct, done >= total ? "\n" : "");
    fflush(stderr);
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
    if (!rc) rc = fc_parent_cache_stream(&g, o->out, digest, progress_bar, NULL, &err);
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

static int read_data(const char *path, uint8_t *data, uint64_t len, cuzk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_errf(err, CUZK_EIO, "data file %s: cannot open", path);
    size_t got = fread(data, 1, len, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != len || extra)
        return cuzk_errf(err, CUZK_ELENGTH, "data file %s: expected exactly %llu bytes", path,
                         (unsigned long long)len);
    return CUZK_OK;
}

/* The commit-phase-1 output, with the interactive seed drawn from --seed. */
static int write_c1(const opts *o, const fc_sealed *s, cuzk_err *err)
{
    uint8_t seed[32];
    cuzk_rng g;
    cuzk_rng_seed(&g, o->seed ^ 0x73656564ULL); /* "seed" */
    cuzk_rng_bytes(&g, seed, 32);
    seed[31] &= 0x3f;
    vanilla_c1 c1;
    int rc = fc_sealed_c1(&c1, s, seed, err);
    if (rc) return rc;
    rc = vanilla_c1_write_file(o->c1, &c1, err);
    vanilla_c1_free(&c1);
    if (!rc) printf("c1 %s\n", o->c1);
    return rc;
}

static int seal_with(const opts *o, const fc_porep_config *cfg, uint8_t *data, cuzk_err *err)
{
    fc_seal_input in = {.cfg = cfg, .sector_id = o->sector_id, .data = data};
    fc_prover_id_from_miner(in.prover_id, o->miner);
    cuzk_rng g;
    cuzk_rng_seed(&g, o->seed ^ 0x7469636b6574ULL); /* "ticket" */
    cuzk_rng_bytes(&g, in.ticket, 32);
    in.ticket[31] &= 0x3f;
    if (o->data) {
        int rc = read_data(o->data, data, cfg->sector_size, err);
        if (rc) return rc;
    } else {
        fc_seal_random_data(data, cfg->nodes, o->seed);
    }
    fc_sealed s;
    int rc = fc_seal(&s, &in, progress_bar, NULL, err);
    if (rc) return rc;
    rc = fc_sealed_write(&s, o->out, err);
    if (!rc && o->c1) rc = write_c1(o, &s, err);
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
    uint8_t *data = rc ? NULL : malloc(size);
    if (!rc && !data) rc = cuzk_errf(&err, CUZK_ENOMEM, "sector data: out of memory");
    if (!rc) rc = seal_with(o, cfg, data, &err);
    free(data);
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
