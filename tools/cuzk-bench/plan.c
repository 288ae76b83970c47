/*
 * plan.c - cuzk-bench plan: the GPU prover's device-memory plan for one
 * PoRep partition (src/gpu/prove/residency.cu's arithmetic, through
 * gpu_prove_plan_for) with a given device memory, no device needed: the
 * arrays kept resident and streamed, the rows of a, b, c the H step keeps,
 * the MSM chunk, the host memory parked; or, without --device-memory, the
 * least memory a partition needs and the plan at the memory of common
 * cards (README's table). Each plan line is followed by the bytes a
 * partition moves over PCIe under it (residency.cu rule 8) and, from
 * them, an estimate of the copy time on a PCIe 4.0 x16 card (25 GB/s),
 * to hold against what the daemon measures (its per-partition log line:
 * h2d_mib, d2h_mib, copy_ms, kernel_ms). The device memory is what the
 * daemon may use there: the memory free at its first proof (or
 * gpus.device_memory), less than the card's size by the CUDA context and
 * whatever else runs there. A device that gets a small-circuit lane
 * (`--lane-log`, the daemon's default 2^19; 0: none) plans its big starts
 * in that memory less the lane's reservation (residency.cu rule 7: a lane
 * only when it is at most 1/8 of the device; each line says).
 * `--chunk-log N` plans as the daemon with gpus.stream_chunk_log = N,
 * `--witness-kept MODE` as with gpus.witness_kept = MODE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk/config.h"
#include "cuzk/filecoin/porep_sizes.h"
#include "cuzk/gpu_lane.h"
#include "cuzk/gpu_prove.h"

#define GIB       (1024.0 * 1024 * 1024)
#define PCIE4_X16 25e9 /* bytes a second a PCIe 4.0 x16 link moves, about */

#ifdef CUZK_HAVE_CUDA
/* One line: the plan of s's partitions within budget bytes, after a
 * small-circuit lane for domains up to 2^lane_log (0: none) with the
 * daemon's default room for parameters (cuzk_config_default), where
 * residency rule 7 gives the device one. */
static void plan_line(const porep_sizes *s, const char *size, uint64_t memory, unsigned lane_log,
                      int batch)
{
    cuzk_config def;
    cuzk_config_default(&def);
    size_t params = (size_t)def.small_lane_params;
    size_t lane = lane_log ? gpu_lane_bytes_on((size_t)memory, lane_log, params) : 0;
    uint64_t budget = memory - lane;
    if (lane_log && lane)
        printf("porep %s, %.1f GiB: small-circuit lane (2^%u) reserves %.0f MiB; the big starts "
               "plan in the rest\n",
               size, memory / GIB, lane_log, lane / 1048576.0);
    else if (lane_log)
        printf("porep %s, %.1f GiB: no small-circuit lane: 2^%u's %.0f MiB are more than 1/8 of "
               "the device (residency rule 7)\n",
               size, memory / GIB, lane_log, gpu_lane_bytes_for(lane_log, params) / 1048576.0);
    groth16_params pk;
    porep_sizes_params(s, &pk);
    gpu_prove_plan_info pl;
    cuzk_err err = {0};
    gpu_prove_plan_for(&pl, &pk, porep_sizes_domain_log(s), porep_sizes_witness_bytes(s),
                       porep_sizes_witness_kept_bytes(s), s->shape_bytes, NULL, batch,
                       (size_t)budget, &err);
    char line[512];
    gpu_prove_format_plan(line, sizeof line, &pl);
    printf("porep %s, %.1f GiB: %s\n", size, budget / GIB, line);
    if (pl.made && !pl.too_small)
        printf("  moved per partition: %.2f GiB (points %.2f, H rows parked %.2f each way, "
               "input %.2f, circuit shape at most %.2f); estimate at 25 GB/s (PCIe 4.0 x16): "
               "%.2f s of copies per partition\n",
               pl.moved / GIB, pl.streamed / GIB, pl.parked / GIB, pl.input / GIB,
               pl.shape_up / GIB, pl.moved / PCIE4_X16);
}

static int plan_print(const porep_sizes *s, const char *size, uint64_t memory, unsigned lane_log,
                      int batch)
{
    unsigned lg = porep_sizes_domain_log(s);
    size_t need = gpu_prove_min_device_memory(lg, porep_sizes_witness_bytes(s), s->shape_bytes);
    printf("porep %s: domain 2^%u, witness %.2f GiB (kept packed %.2f GiB, estimated), shape "
           "%.2f GiB%s on the device; least device memory %.2f GiB\n",
           size, lg, porep_sizes_witness_bytes(s) / GIB, porep_sizes_witness_kept_bytes(s) / GIB,
           s->shape_bytes / GIB, s->shape_estimated ? " (estimated)" : "", need / GIB);
    static const unsigned cards[] = {8, 12, 16, 24, 32, 48, 80, 139};
    if (memory) {
        plan_line(s, size, memory, lane_log, batch);
        return BENCH_OK;
    }
    for (size_t i = 0; i < sizeof cards / sizeof *cards; i++)
        plan_line(s, size, (uint64_t)cards[i] << 30, lane_log, batch);
    return BENCH_OK;
}
#endif

int bench_plan(int argc, char **argv)
{
    const char *size = NULL, *mem = NULL;
    int batch = 0;
    cuzk_config def;
    cuzk_config_default(&def);
    unsigned lane_log = def.small_lane_max_log; /* the daemon's default */
    unsigned chunk_log = def.stream_chunk_log;
    const char *kept = def.witness_kept;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--batch")) {
            batch = 1;
        } else if (!strcmp(argv[i], "--lane-log") && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || end == argv[i] || (v && (v < 10 || v > 24)))
                return bench_usage("plan: --lane-log %s: 0 (no lane) or 10 .. 24", argv[i]);
            lane_log = (unsigned)v;
        } else if (!strcmp(argv[i], "--chunk-log") && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || end == argv[i] || (v && (v < 10 || v > 27)))
                return bench_usage("plan: --chunk-log %s: 0 (the default, 21) or 10 .. 27",
                                   argv[i]);
            chunk_log = (unsigned)v;
        } else if (!strcmp(argv[i], "--witness-kept") && i + 1 < argc) {
            kept = argv[++i];
            if (strcmp(kept, "tight") && strcmp(kept, "first") && strcmp(kept, "off"))
                return bench_usage("plan: --witness-kept %s: tight, first or off", kept);
        } else if (!strcmp(argv[i], "--sector-size") && i + 1 < argc) {
            size = argv[++i];
        } else if (!strcmp(argv[i], "--device-memory") && i + 1 < argc) {
            mem = argv[++i];
        } else {
            return bench_usage("plan: unknown option or missing value: %s", argv[i]);
        }
    }
    uint64_t sector = 0, memory = 0;
    cuzk_err err = {0};
    if (!size) return bench_usage("%s", "plan needs --sector-size");
    if (cuzk_parse_size(size, &sector, &err) || (mem && cuzk_parse_size(mem, &memory, &err)))
        return bench_usage("plan: %s", err.msg);
    const porep_sizes *s = porep_sizes_find(sector);
    if (!s)
        return bench_usage("plan: no PoRep sector of %s (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)", size);
#ifdef CUZK_HAVE_CUDA
    gpu_prove_set_chunk_goal(chunk_log ? (size_t)1 << chunk_log : 0);
    gpu_prove_set_witness_kept(!strcmp(kept, "off")     ? GPU_KEPT_OFF
                               : !strcmp(kept, "first") ? GPU_KEPT_FIRST
                                                        : GPU_KEPT_TIGHT);
    return plan_print(s, size, memory, lane_log, batch);
#else
    (void)batch, (void)lane_log, (void)chunk_log, (void)kept;
    fprintf(stderr, "cuzk-bench plan: built without CUDA (no GPU prover to plan for)\n");
    return BENCH_FAILED;
#endif
}
