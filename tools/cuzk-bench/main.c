/*
 * main.c - cuzk-bench: the command-line client of cuzk-daemon, a gRPC
 * client on the grpc core C API with the commands and output formats of
 * Curio's cuzk-bench (reference/cuzk-api.md):
 *
 *   cuzk-bench [-a ADDR] single -t KIND (--c1 FILE | --vanilla FILE) [-o PROOF] [...]
 *   cuzk-bench [-a ADDR] batch  -t KIND (--c1 FILE | --vanilla FILE) -c N -j J
 *   cuzk-bench [-a ADDR] status | metrics | preload -c ID | evict -c ID | cancel JOB
 *   cuzk-bench gen-vanilla porep|winning-post|window-post|snap-prove
 *              --sector-size SIZE [--seed N] [--sparse] [...] -o FILE   (gen_vanilla.c)
 *   cuzk-bench gen-vanilla test --constraints N [--partitions P] [--seed S]
 *              [--bad-partition K] -o FILE
 *   cuzk-bench timeline LOG      (GPU busy fraction from the TIMELINE lines)
 *   cuzk-bench plan --sector-size SIZE [--device-memory M] [--batch] [--lane-log N]
 *                   [--chunk-log N]  (plan.c)
 *
 * ADDR is unix:///path, host:port or http://host:port (default
 * 127.0.0.1:9820). The input file is sent as the request's vanilla_proof
 * (a c1.json for PoRep, a bincode blob for PoSt / Snap, or a test record
 * from gen-vanilla test); a JSON array of base64 blobs (gen-vanilla's PoSt
 * and Snap files) is sent as vanilla_proofs, one blob each. Exit status: 0 success, 1 a failed
 * proof or call, 2 a usage error.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: cuzk-bench [-a ADDR] COMMAND [ARGS]\n"
    "\n"
    "  -a, --addr ADDR   unix:///path or host:port (default 127.0.0.1:9820)\n"
    "\n"
    "commands:\n"
    "  single -t porep|snap|wpost|winning (--c1 FILE | --vanilla FILE) [--sector-num N]\n"
    "         [--miner-id N] [--partition N] [--randomness HEX] [--comm-r-old HEX]\n"
    "         [--comm-r-new HEX] [--comm-d-new HEX] [--registered-proof N]\n"
    "         [--sector-size SIZE] [--priority low|normal|high|critical]\n"
    "         [-o/--output FILE]  (single: write the proof's bytes to FILE)\n"
    "  batch  (the same) -c/--count N -j/--concurrency J\n"
    "         (batch -o DIR: proof i of the batch to DIR/proof-i.bin)\n"
    "  status               queues, SRS, devices, counters\n"
    "  metrics              Prometheus text\n"
    "  preload -c ID        load a circuit's parameters (e.g. porep-32g); read ahead of a\n"
    "    [--priority P --hold S]  deadline: ranked as a job of priority P (1 LOW..4 CRITICAL)\n"
    "                       until S seconds after the call\n"
    "  evict -c ID          free a circuit's parameters\n"
    "  cancel JOB_ID        cancel a job\n"
    "  gen-vanilla porep|winning-post|window-post|snap-prove --sector-size 2KiB|8MiB|512MiB\n"
    "         [--seed N] [--sector-id N] [--miner N] [--data FILE] [--sectors N]\n"
    "         [--sealed DIR]  (PoSt / snap: the sector cuzk-seal sealed into DIR)\n"
    "         [--registered-proof V1_1|V1|V1_2|...] -o FILE\n"
    "                       real vanilla proofs of test sectors sealed from the seed\n"
    "                       (porep: c1.json; others: JSON array of base64 blobs, the\n"
    "                       request's other values printed on stdout)\n"
    "  gen-vanilla porep --sector-size 32GiB|64GiB [--sparse] [--seed N] [--sector-id N]\n"
    "         [--miner N] [--registered-proof V1_1|V1] -o FILE\n"
    "                       TEST DATA: the c1.json of a sparse committed-capacity sector\n"
    "                       (all-zero data), in seconds at any size (the default above\n"
    "                       512MiB; --sparse forces it below). comm_d, replica_id and\n"
    "                       the challenges are those of sealing that sector; only the\n"
    "                       challenged labels follow the SDR rule, every label and tree\n"
    "                       node nothing opens is pseudo-random, so the C1 proves and\n"
    "                       verifies but no sector exists behind it. V1 and V1_1 only:\n"
    "                       Synthetic and NI challenges come from comm_r, which only a\n"
    "                       sealed sector can answer (they are refused sparse)\n"
    "  gen-vanilla winning-post|window-post --sector-size 32GiB|64GiB [--sparse] [--seed N]\n"
    "         [--sector-id N] [--sectors N] [--registered-proof V1|V1_2] -o FILE\n"
    "                       TEST DATA: PoSt proofs of sparse committed-capacity sectors,\n"
    "                       in seconds at any size (the default above 512MiB; --sparse\n"
    "                       forces it below); Window PoSt a full partition (2349 sectors\n"
    "                       at 32GiB and 64GiB) unless --sectors says otherwise. The\n"
    "                       challenges are those of sealed sectors with the same ids;\n"
    "                       only the challenged tree-R paths are computed, every other\n"
    "                       node is pseudo-random, so the proofs prove and verify but\n"
    "                       no sector exists behind them\n"
    "  gen-vanilla snap-prove --sector-size 32GiB|64GiB [--sparse] [--seed N] -o FILE\n"
    "                       TEST DATA: a SnapDeals update of a structured test sector,\n"
    "                       every partition proved, in under a CPU-second at any\n"
    "                       size (the default above 512MiB; --sparse forces it below):\n"
    "                       old replica and new data pseudo-random from the seed with a\n"
    "                       period of 64 nodes, every tree and opening real, the\n"
    "                       encoding and challenges exact, so it proves and verifies as\n"
    "                       an update; no sealed sector is behind it\n"
    "  gen-vanilla test --constraints N [--partitions P] [--seed S] [--bad-partition K] -o FILE\n"
    "                       a synthetic test-circuit request (daemon --test-circuits)\n"
    "  timeline LOG         stage times and GPU busy fraction from a daemon log\n"
    "  plan --sector-size SIZE [--device-memory M] [--batch] [--lane-log N] [--chunk-log N]\n"
    "       [--witness-kept tight|first|off]\n"
    "                       the GPU memory plan of a PoRep partition (no device needed):\n"
    "                       the least device memory, and what stays resident, streams,\n"
    "                       and the H step's rows on M (default: common cards' sizes);\n"
    "                       M is what the daemon may use there (free memory or\n"
    "                       gpus.device_memory), less a small-circuit lane for 2^N\n"
    "                       (default 19, the daemon's; 0: none) where it gets one;\n"
    "                       --batch: a start of several partitions (every daemon\n"
    "                       proof), its L/A/B passes shared by groups where they stream;\n"
    "                       --chunk-log N: as the daemon with gpus.stream_chunk_log = N;\n"
    "                       --witness-kept tight|first|off: as with gpus.witness_kept\n";

int bench_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "cuzk-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage);
    return BENCH_USAGE;
}

int bench_help(void)
{
    fputs(usage, stdout);
    return BENCH_OK;
}

int main(int argc, char **argv)
{
    const char *addr = "127.0.0.1:9820";
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return bench_help();
        if ((strcmp(argv[i], "-a") && strcmp(argv[i], "--addr")) || i + 1 >= argc)
            return bench_usage("unknown option or missing value: %s", argv[i]);
        addr = argv[++i];
    }
    if (i >= argc) return bench_usage("%s", "no command");
    const char *cmd = argv[i];
    int sub_argc = argc - i;
    char **sub_argv = argv + i;
    if (!strcmp(cmd, "single")) return bench_single(addr, sub_argc, sub_argv);
    if (!strcmp(cmd, "batch")) return bench_batch(addr, sub_argc, sub_argv);
    if (!strcmp(cmd, "status")) return bench_status(addr);
    if (!strcmp(cmd, "metrics")) return bench_metrics(addr);
    if (!strcmp(cmd, "preload") || !strcmp(cmd, "evict"))
        return bench_srs(addr, !strcmp(cmd, "evict"), sub_argc, sub_argv);
    if (!strcmp(cmd, "cancel")) return bench_cancel(addr, sub_argc, sub_argv);
    if (!strcmp(cmd, "gen-vanilla")) return bench_gen_vanilla(sub_argc, sub_argv);
    if (!strcmp(cmd, "timeline")) return bench_timeline(sub_argc, sub_argv);
    if (!strcmp(cmd, "plan")) return bench_plan(sub_argc, sub_argv);
    return bench_usage("unknown command '%s'", cmd);
}
