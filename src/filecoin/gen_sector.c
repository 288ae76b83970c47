/*
 * gen_sector.c - the test sector of a seed (gen.h), one implementation for
 * cuzk-seal seal and cuzk-bench gen-vanilla: random fr32 data from the
 * seed (or a file, or all zero: committed capacity), the ticket from seed ^ "ticket", the
 * interactive PoRep seed from seed ^ "seed", the prover id from the miner id; sealed with fc_seal.
 * Also the stderr progress bar both tools draw.
 */
#include "cuzk/filecoin/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/sdr.h"
#include "cuzk/rng.h"

#define TAG_TICKET 0x7469636b6574ULL /* "ticket" */
#define TAG_SEED   0x73656564ULL     /* "seed" */

void fc_test_bytes(uint8_t out[32], uint64_t seed, uint64_t tag)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed ^ tag);
    cuzk_rng_bytes(&g, out, 32);
    out[31] &= 0x3f;
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

void fc_test_sector_ids(const fc_test_sector *t, uint8_t prover_id[32], uint8_t ticket[32],
                        uint8_t seed[32])
{
    fc_prover_id_from_miner(prover_id, t->miner);
    fc_test_bytes(ticket, t->seed, TAG_TICKET);
    fc_test_bytes(seed, t->seed, TAG_SEED);
}

int fc_seal_test_sector(fc_sealed *s, const fc_test_sector *t, fc_progress_fn progress,
                        void *progress_ctx, cuzk_err *err)
{
    memset(s, 0, sizeof(*s));
    const fc_porep_config *cfg = t->cfg;
    fc_seal_input in = {.cfg = cfg, .sector_id = t->sector_id};
    uint8_t seed[32];
    fc_test_sector_ids(t, in.prover_id, in.ticket, seed);
    if (t->cc && t->data_path)
        return cuzk_errf(err, CUZK_EINVAL,
                         "data file %s: a committed-capacity sector's data is all zero",
                         t->data_path);
    uint8_t *data = t->cc ? calloc(1, cfg->sector_size) : malloc(cfg->sector_size);
    if (!data) return cuzk_errf(err, CUZK_ENOMEM, "sector data: out of memory");
    int rc = CUZK_OK;
    if (t->data_path)
        rc = read_data(t->data_path, data, cfg->sector_size, err);
    else if (!t->cc)
        fc_seal_random_data(data, cfg->nodes, t->seed);
    in.data = data;
    if (!rc) rc = fc_seal(s, &in, progress, progress_ctx, err);
    free(data);
    return rc;
}

int fc_test_sector_c1(vanilla_c1 *c1, const fc_sealed *s, uint64_t seed, cuzk_err *err)
{
    uint8_t interactive[32];
    fc_test_bytes(interactive, seed, TAG_SEED);
    return fc_sealed_c1(c1, s, interactive, err);
}

/* One line per stage, redrawn when the percentage moves. */
void fc_progress_bar(void *ctx, const char *stage, uint64_t done, uint64_t total)
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
