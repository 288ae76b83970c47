/*
 * residency.cuh - the device-memory plan of a start (residency.cu): which
 * of the parameters' arrays stay on the device and which are streamed
 * from host memory, how many points one MSM call and one streamed chunk
 * take, how many a/b/c buffers and rows of them the H step keeps. The prover asks it
 * once per start (prove_gpu.cu) and does what it says; the parameter
 * cache (srs_cache.cu) and the stream (stream.cu) take its figures.
 */
#ifndef CUZK_GPU_PROVE_RESIDENCY_CUH
#define CUZK_GPU_PROVE_RESIDENCY_CUH

#include <stdbool.h>
#include <stddef.h>

#include "gpu/util/capi.cuh"

/* The arrays of a parameter set, in the order of the plan's tables. */
enum { RES_H, RES_L, RES_A, RES_B_G1, RES_B_G2, RES_ARRAYS };

typedef struct prove_plan {
    size_t budget;             /* device bytes the start may use */
    size_t work;               /* a/b/c buffers, witness, headroom */
    size_t jobs_room;          /* of the headroom, what the jobs' buffers may take (rule 2) */
    unsigned jobs_slots;       /* circuits whose jobs that holds at once (1 .. lab_group + 1) */
    size_t bytes[RES_ARRAYS];  /* each array's size */
    bool resident[RES_ARRAYS]; /* kept on the device (else streamed; B_G2: g2_streamed) */
    bool g2_streamed;          /* B_G2 streamed from host (else, not resident: CPU) */
    unsigned abc_buffers;      /* 1 or 2 (the next circuit loads under this one) */
    unsigned abc_rows;         /* rows of a/b/c the H step keeps on the device: 3, 2, 1 */
    size_t piece;              /* rows per piece of the H step with fewer than 3 (else 0) */
    size_t park;               /* host bytes the H step parks rows in (1 row: 2 or 3 rows) */
    bool witness_shared;       /* the witness and the one row share device memory */
    bool witness_kept;         /* the witness kept packed on the device (wit_view.cuh) */
    bool shape_streamed;       /* the circuit shapes' slices streamed (rule 4) */
    size_t shape_ring;         /* device bytes their ring takes */
    size_t shape_up;           /* shape bytes up per partition (at most; rule 8) */
    size_t chunk;              /* points per MSM call and per streamed chunk */
    size_t chunk_g2;           /* points per B_G2 MSM call and chunk (B_G2 on the device) */
    size_t g2_room;            /* device bytes B_G2's MSM calls take beside its points */
    size_t machinery;          /* MSM workspace, stream ring and gather buffer at that chunk */
    size_t tb_bytes;           /* the gathered tail bases' buffer (G1, and B_G2's calls) */
    size_t ring_bytes;         /* the stream's ring (0: nothing streamed) */
    unsigned lab_group;        /* circuits one L/A/B pass serves (rule 9): 1 or 2 */
    size_t streamed;           /* bytes streamed per partition (a pair's share: rule 9) */
    size_t prefix[RES_B_G2];   /* points a streamed G1 array keeps at its start (rule 5) */
    size_t parked;             /* H-step bytes parked per partition, each way (rule 8) */
    size_t input;              /* the witness or a, b, c up per partition (at most) */
    size_t moved;              /* all three: streamed + 2 parked + input */
    size_t need;               /* the least budget a proof of this shape runs in */
    size_t use;                /* what the plan takes of the budget */
    bool too_small;            /* the budget is under need: no plan */
} prove_plan;

/* The device bytes of a witness kept packed (rule 4): `bytes`, or, with
 * `count` set, what count(ctx) gives the first time rule 4 weighs a mode
 * that keeps it (then in `bytes`, count cleared): counting is a pass over
 * the witness, which a start with room for the modes before never makes.
 * 0 with no count: not offered. */
typedef struct prove_kept {
    size_t bytes;
    size_t (*count)(void *ctx);
    void *ctx;
} prove_kept;

/* The device bytes of a circuit's MSM jobs (rule 2: gpu_prove.h's
 * gpu_prove_jobs). Zero: not known (the headroom alone). */
typedef gpu_prove_jobs prove_jobs;

/* The plan for proving circuits of pk with a domain of 2^lg, `witness`
 * device bytes per circuit (the witness-only path, else 0), *kept when
 * kept packed, `shapes` bytes of their shapes on the device and *jobs
 * (NULL: not known), a batch (more than one circuit: a second a/b/c
 * buffer pays) or not, within `budget` device bytes. CUZK_ENOMEM, naming
 * the device and the bytes needed and had, when even streaming everything
 * does not fit. */
int prove_plan_make(prove_plan *pl, const groth16_params *pk, unsigned lg, size_t witness,
                    prove_kept *kept, size_t shapes, const prove_jobs *jobs, bool batch,
                    size_t budget, int dev, cuzk_err *err);
/* The device bytes a start on device dev may use: what is free now plus
 * `held` (what the prover already holds there and may reuse), at most
 * the configured cap (gpu_prove_set_device_memory), less what earlier
 * starts found missing (prove_plan_short). */
int prove_plan_budget(size_t *budget, int dev, size_t held, cuzk_err *err);
/* Whether device dev has room for a small-circuit lane of `bytes`
 * (rule 7's share of rule 1's budget); CUZK_ENOMEM naming both when not. */
int prove_plan_lane_room(int dev, size_t bytes, cuzk_err *err);
/* A start on dev ran out of memory under a plan of `budget` bytes that
 * fit: later budgets there are 1/8 of it smaller (rule 1); forget: no
 * longer (gpu_prove_release). */
void prove_plan_short(int dev, size_t budget);
void prove_plan_forget(int dev);
/* The plan last made on device dev (zeroed before the first). */
void prove_plan_last(prove_plan *pl, int dev);
/* pl in one line, as gpu_prove_format_plan writes a device's. */
void prove_plan_format(char *out, size_t len, const prove_plan *pl);
void prove_plan_remember(const prove_plan *pl, int dev);

#endif
