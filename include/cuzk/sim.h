/*
 * sim.h - the simulated host (issue 24, section 3): the full 32 GiB mix of
 * Curio's kinds driven through the daemon's own engine (scheduler,
 * dispatch policy, budget, SRS manager and residency policy, pipeline),
 * with a backend and a provider that stand in for the H200 and the
 * Filecoin circuits. Each kind's parameters are charged to the budget at
 * their real size and take their load time; each partition is charged
 * its real host memory and takes its synthesis and GPU time; the device
 * keeps parameters in its memory (LRU) and uploads those it lacks. The
 * circuits synthesized and proved are small test circuits, one size per
 * kind, so every proof is real and verified. Time runs `speed` times
 * faster than on the H200: every modeled duration and the engine's time
 * settings are divided by it, the report's times multiplied back.
 *
 * What it does not model: the CPU the real synthesis takes from the
 * other workers, the shape recording beside a load (hidden under the
 * load on the H200), the partition pool (off), the device's streamed
 * mode. The state is global: one simulation per process.
 */
#ifndef CUZK_SIM_H
#define CUZK_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/engine.h"
#include "cuzk/engine_backend.h"
#include "cuzk/engine_provider.h"
#include "cuzk/r1cs.h"

enum sim_kind_index { SIM_POREP, SIM_SNAP, SIM_WPOST, SIM_WINNING, SIM_KINDS };

/* One proof kind as the simulation models it. */
typedef struct sim_kind {
    const char *name;      /* "porep", "snap", "wpost", "winning" */
    int kind, priority;    /* engine_kind; engine_priority as Curio sends it */
    uint32_t partitions;   /* per request */
    uint64_t param_bytes;  /* its parameter file */
    double load_s;         /* reading the parameters */
    double gpu_s, synth_s; /* per partition: on the device, on one synthesis worker */
    cs_capacity shape;     /* one partition's: the host memory it is charged */
    uint32_t words;        /* its stand-in: the test circuit "test-<129 x words>" */
    const char *basis;     /* which figures are measured, which estimated */
} sim_kind;

/* The 32 GiB kinds on the H200, indexed by sim_kind_index. */
extern const sim_kind sim_kinds_32g[SIM_KINDS];

typedef struct sim_device {
    uint64_t bytes;    /* its memory */
    uint64_t working;  /* kept for the partitions in flight, not for parameters */
    double upload_gbs; /* parameters, host to device (GB/s) */
    /* The small-circuit lane (gpu_lane.h; 0: none, the daemon's
     * gpus.small_lane_max_log = 0): a partition the engine gives it
     * (dispatch.h rule 7) takes its kind's GPU time times lane_slowdown,
     * beside whatever the device's start runs, and that start is slowed
     * by the partition's own GPU time (the SMs it took); the lane's
     * reservation, lane_bytes, is no room for parameters. */
    double lane_slowdown;
    uint64_t lane_bytes;
} sim_device;

/* What the simulated device did (sim_backend_stats). */
typedef struct sim_device_stats {
    uint64_t uploads, evictions; /* parameter sets put on / dropped from the device */
    double upload_s, busy_s;     /* modeled seconds */
    uint64_t partitions[SIM_KINDS];
    uint64_t lane_partitions[SIM_KINDS]; /* of which by the lane */
    double lane_busy_s;
} sim_device_stats;

/* The model sim_provider and sim_backend follow (copied), and the
 * counters reset. */
void sim_configure(const sim_kind *kinds, const sim_device *dev, double speed);
/* The provider of the simulated kinds: circuit ids "sim-<name>-32g". */
extern const engine_provider sim_provider;
/* The simulated device, named "sim-h200". */
extern const engine_backend sim_backend;
void sim_backend_stats(sim_device_stats *out);

#define SIM_RECORD_BYTES 24
/* A request of kind k (sim_kind_index) as Curio sends it, its vanilla
 * record written into rec: "CUZKSIM\0" | u32 kind index | u32 partitions
 * | u64 seed (little-endian); its partitions are the stand-in seeded seed + p. */
void sim_request(engine_request *req, uint8_t rec[SIM_RECORD_BYTES], int k, uint64_t seed);
/* The circuit id of kind k. */
void sim_circuit_id(int k, char out[ENGINE_ID_MAX]);

/* ---- the mix (sim_mix.c): mixed.sh's replay against the simulated host ---- */

typedef struct sim_mix {
    double seconds;      /* simulated time replayed (the tail after it waited for) */
    double speed;        /* simulated seconds per real second */
    uint64_t host_bytes; /* the host's memory; the budget is "auto"'s on it */
    sim_device device;
    uint32_t porep_inflight, snap_inflight;
    double deadline_first_s, deadline_every_s;
    uint32_t deadline_parts; /* Window PoSt partitions per deadline, sent at once */
    double winning_first_s, winning_every_s;
    const char *pinned, *preload; /* srs.pinned / srs.preload: comma lists of kind names */
    double swap_after_s;          /* srs.swap_after (0: the daemon's default) */
    /* > 0: each deadline's Window PoSt set read ahead this many seconds
     * before it (PreloadSRS at HIGH, held until 10 s after the deadline:
     * engine_preload_at), as Curio, which knows its deadlines, could */
    double readahead_s;
    const char *param_cache; /* the stand-ins' development parameters (made if absent) */
} sim_mix;

typedef struct sim_kind_report {
    uint32_t requests, failed;
    double p50_s, p99_s, max_s, per_min;
} sim_kind_report;

#define SIM_MAX_DEADLINES 256

typedef struct sim_report {
    sim_kind_report kinds[SIM_KINDS];
    uint32_t deadlines;
    double deadline_s[SIM_MAX_DEADLINES]; /* first request to last proof; < 0: one failed */
    double deadline_max_s;
    uint64_t loads[SIM_KINDS], evictions[SIM_KINDS];
    double load_s[SIM_KINDS];
    /* loads abandoned for a higher one (residency rule 7), bytes they read */
    uint64_t abandoned[SIM_KINDS], abandoned_bytes[SIM_KINDS];
    uint64_t budget, budget_peak;
    sim_device_stats device;
    double wall_s;               /* simulated, tail included */
    uint32_t verified, rejected; /* partition proofs checked here, after the engine's own check */
    char first_error[256];
} sim_report;

/* A sim_mix with the defaults of mixed.sh at 32 GiB: 2 PoRep and 1
 * SnapDeals requests in flight, a deadline of 4 partitions every 120 s
 * (the first at 20 s), a Winning PoSt every 30 s (the first at 5 s), the
 * PoSt sets pinned, a 128 GiB host, one 139 GiB device. */
void sim_mix_default(sim_mix *m);
int sim_mix_run(const sim_mix *m, sim_report *out, cuzk_err *err);
/* mixed.sh's report, marked SIMULATED. */
void sim_report_print(const sim_mix *m, const sim_report *r, FILE *out);

#endif
