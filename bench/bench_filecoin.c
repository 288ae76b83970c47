/*
 * bench_filecoin.c - native sealing figures (src/filecoin): parent cache
 * generation for 8MiB (2^18 nodes x 14 parents: two ChaCha8 blocks per
 * node for the DRG, table lookups for the Feistel expander), SDR
 * labelling throughput in MB of labels per second per layer (one SHA-256
 * over 1,248 bytes per 32-byte label, sequential), and a whole seal of 8MiB (512MiB when
 * CUZK_BENCH_LARGE is set). --quick uses 2^14 nodes and a 2KiB seal.
 *
 * No anchor in reference/anchors.md; for scale, rust-fil-proofs labels
 * about 35 MB/s per layer on one SHA-NI core (32GiB x 11 layers in ~3 h of
 * PC1). Goal (issue 4): report, with SHA-NI on the GPU machine.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuzk/filecoin/graph.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"

#define NODES_8MIB  (1ULL << 18)
#define NODES_QUICK (1ULL << 14)

static void graph_v1_1(fc_graph *g, uint64_t nodes)
{
    uint8_t porep_id[FC_POREP_ID_BYTES];
    fc_porep_id(porep_id, 6); /* StackedDrg8MiBV1_1 */
    if (fc_graph_init(g, nodes, porep_id, FC_API_V1_1, NULL)) abort();
}

BENCH(90, filecoin_parent_cache)
{
    uint64_t nodes = ctx->quick ? NODES_QUICK : NODES_8MIB;
    fc_graph g;
    uint32_t *cache;
    graph_v1_1(&g, nodes);
    double t = bench_now();
    if (fc_parent_cache_build(&g, &cache, NULL, NULL, NULL)) abort();
    t = bench_now() - t;
    free(cache);
    char fig[80];
    snprintf(fig, sizeof fig, "parent cache, %llu nodes, %d threads", (unsigned long long)nodes,
             ctx->threads);
    bench_report(fig, t, "s", 0, NULL, "report");
}

BENCH(91, filecoin_sdr_labels)
{
    uint64_t nodes = ctx->quick ? NODES_QUICK : NODES_8MIB;
    fc_graph g;
    uint32_t *cache;
    graph_v1_1(&g, nodes);
    if (fc_parent_cache_build(&g, &cache, NULL, NULL, NULL)) abort();
    uint8_t replica_id[32] = {9}, *labels = malloc(2 * nodes * FC_NODE_BYTES);
    if (!labels) abort();
    double t = bench_now();
    if (fc_sdr_labels(&g, cache, replica_id, 2, labels, NULL, NULL, NULL)) abort();
    t = (bench_now() - t) / 2;
    free(labels);
    free(cache);
    bench_report("SDR labelling, one layer (2 layers timed)", nodes * FC_NODE_BYTES / t / 1e6,
                 "MB/s", 0, NULL, "report (35 MB/s: PC1 scale)");
}

static void seal_once(const fc_porep_config *cfg)
{
    uint8_t *data = malloc(cfg->sector_size);
    if (!data) abort();
    fc_seal_random_data(data, cfg->nodes, 1);
    fc_seal_input in = {.cfg = cfg, .sector_id = 1, .data = data};
    fc_sealed s;
    double t = bench_now();
    if (fc_seal(&s, &in, NULL, NULL, NULL)) abort();
    t = bench_now() - t;
    fc_sealed_free(&s);
    free(data);
    char fig[80];
    snprintf(fig, sizeof fig, "seal %s end to end", cfg->name);
    bench_report(fig, t, "s", 0, NULL, "report");
}

BENCH(92, filecoin_seal)
{
    seal_once(fc_porep_config_get(ctx->quick ? 5 : 6));                /* 2KiB / 8MiB V1_1 */
    if (getenv("CUZK_BENCH_LARGE")) seal_once(fc_porep_config_get(7)); /* 512MiB V1_1 */
}
