/*
 * gpu_prove.h - the Groth16 prover on a CUDA device (src/gpu/prove), for a
 * batch of circuits sharing one set of parameters; the proofs are byte for
 * byte those of groth16_prove (groth16.h) with the same r and s.
 *
 * gpu_prove_start runs the device part of every circuit: prep_msm on the
 * CPU (the CPU prover's own classification and split decisions), a, b, c
 * uploaded once through a pinned staging pool, H by the device NTT and the
 * H MSM, then for L, A and B_G1 the bitmap batch addition and the tail MSM
 * (or the plain MSM when the split does not pay) on the device, and
 * B_G2 the same way when its points fit in device memory. gpu_prove_finish
 * runs B_G2 on the CPU where the device did not (in parallel across
 * circuits) and the assembly with r and s. start keeps nothing of the circuits, so they
 * may be freed as soon as it returns.
 *
 * The parameters' G1 points (H, L, A, B_G1) are uploaded on first use and
 * stay on the device, keyed by the params and checked against their first
 * and last points, until gpu_prove_params_free or until device memory runs
 * short (least recently used first). Every device has its own working
 * buffers and parameter cache and its own lock: starts on different
 * devices run at once, each uploading the parameters it needs from the
 * one host copy. Available when built with CUDA (CUZK_HAVE_CUDA, library
 * cuzk_gpu). Errors come back as cuzk_err with the CUDA text: CUZK_ENOMEM
 * when device memory ran out (the device still works), CUZK_EDEVICE when
 * the device failed (a launch, a copy, a lost context).
 */
#ifndef CUZK_GPU_PROVE_H
#define CUZK_GPU_PROVE_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/err.h"
#include "cuzk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_prove_pending gpu_prove_pending;

/* The device part for n circuits on CUDA device `device`. rs as in
 * groth16_prove (NULL: drawn from the OS CSPRNG). */
int gpu_prove_start(gpu_prove_pending **out, int device, const groth16_params *pk,
                    const cs_prover *circuits, size_t n, const fr_t *rs, cuzk_err *err);
/*
 * More circuits for a start while it proves them (gpu_prove_start_fed), so
 * that the device loads the next one under this one's kernels however the
 * circuits arrive. more() gives up to `room` circuits of the same
 * parameters, domain and shape as the first (NULL shapes, or the first's),
 * valid until the start returns; 0: none now, and it is not asked again.
 * consumed(i): circuit i (in the order given, first the start's n) is done
 * on the device and its host data no longer read. Both are called from the
 * start's own threads, with no lock of the prover held but its device's.
 */
typedef struct gpu_prove_feed {
    void *ctx;
    size_t max; /* the most circuits in all, the start's n included */
    size_t (*more)(void *ctx, const cs_prover **circuits, size_t room);
    void (*consumed)(void *ctx, size_t i);
} gpu_prove_feed;
/* gpu_prove_start with r, s drawn from the OS CSPRNG, asking feed for more
 * circuits as the last one's upload ends; gpu_prove_count says how many
 * it proved in all (what finish writes). */
int gpu_prove_start_fed(gpu_prove_pending **out, int device, const groth16_params *pk,
                        const cs_prover *circuits, size_t n, const gpu_prove_feed *feed,
                        cuzk_err *err);
size_t gpu_prove_count(const gpu_prove_pending *p);
/* B_G2 and assembly: writes the n proofs and their timings (timings may be
 * NULL) and frees p, also on error. */
int gpu_prove_finish(gpu_prove_pending *p, groth16_proof *proofs, groth16_timings *timings,
                     cuzk_err *err);
/* Frees p without finishing. */
void gpu_prove_discard(gpu_prove_pending *p);

/* start then finish on device 0: the drop-in for groth16_prove. */
int gpu_groth16_prove(groth16_proof *proofs, const groth16_params *pk, const cs_prover *circuits,
                      size_t n, const fr_t *rs, groth16_timings *timings, cuzk_err *err);

/* Drops the device copies of pk's points, on every device (call before
 * freeing pk). */
void gpu_prove_params_free(const groth16_params *pk);
/* Device memory held by the parameter caches of all devices, in bytes. */
size_t gpu_prove_params_bytes(void);
/* The same on one device. */
size_t gpu_prove_device_params_bytes(int device);
/*
 * Circuit shapes on the device (src/gpu/prove/shape_cache.cu). On the
 * current CUDA device: s's matrices (uploaded on first use and cached per
 * device, keyed by the pointer and checked against its fingerprint;
 * released by gpu_shape_forget or when device memory runs short, least
 * recently used first), then a, b, c (num_constraints entries each, device
 * memory) := A, B, C times the device witness w ([inputs || aux], fr_t in
 * the device's Montgomery form = the host's bytes), then a_j b_j = c_j
 * checked on the device: CUZK_EINVAL "constraint J is not satisfied" with
 * the first failing J. Runs on the default stream and returns when the
 * results are ready. The cache is guarded by the device's prover lock:
 * call it from the prover (which holds it) or where no other thread
 * proves on the device.
 */
int gpu_shape_eval_dev(const cs_shape *s, const fr_t *w, fr_t *a, fr_t *b, fr_t *c, cuzk_err *err);
/* Drops s from the cache of every device (before s is freed). */
void gpu_shape_forget(const cs_shape *s);
/* Device memory held by the shapes cached on one device, in bytes. */
size_t gpu_shape_device_bytes(int device);
/* Frees the parameter caches and the prover's working buffers on every
 * device (the next proof makes them again). */
void gpu_prove_release(void);

/* Caps the device memory the prover plans with on every device (bytes;
 * 0: none, what is free): gpus.device_memory. */
void gpu_prove_set_device_memory(size_t bytes);
/* The residency plan of the last start on a device (src/gpu/prove/
 * residency.cu): which parameter arrays stay on the device (H, L, A,
 * B_G1, B_G2) and which stream from host memory, and the figures. */
enum { GPU_PLAN_ARRAYS = 5 };
typedef struct gpu_prove_plan_info {
    bool made;                      /* a start has planned on the device */
    bool too_small;                 /* it could not: the device has less than need */
    bool resident[GPU_PLAN_ARRAYS]; /* H, L, A, B_G1, B_G2 (else streamed; B_G2: see next) */
    bool b_g2_streamed;             /* B_G2 streamed from host (not resident, not: CPU) */
    size_t budget;                  /* device bytes it planned with */
    size_t use;                     /* of which the plan takes */
    size_t need;                    /* the least a proof of that shape runs in */
    size_t streamed;                /* bytes streamed per partition (a pair's share: lab_group) */
    unsigned lab_group;             /* circuits one pass of the L/A/B step serves (1, 2) */
    size_t prefix[GPU_PLAN_ARRAYS]; /* bytes a streamed G1 array keeps at its start */
    size_t parked;                  /* H-step bytes parked on the host and back, each way */
    size_t input;                   /* the witness or a, b, c up (at most: domain rows) */
    size_t moved;                   /* bytes over PCIe per partition: streamed + 2 parked + input */
    size_t chunk;                   /* points per MSM call / streamed chunk */
    size_t chunk_g2;                /* points per B_G2 MSM call / streamed chunk (on device) */
    unsigned abc_buffers;           /* a/b/c buffers (2: the next circuit loads early) */
    unsigned abc_rows;              /* rows of a, b, c on the device (3; 2, 1: H in pieces) */
    size_t park;                    /* host bytes the H step parks rows in (1 row) */
    bool witness_shared;            /* the witness shares the one row's device memory */
    bool witness_kept;              /* the witness kept packed on the device (rule 4) */
    bool shape_streamed;            /* the circuit shape's slices streamed (rule 4) */
    size_t shape_up;                /* of moved: shape bytes up per partition, at most */
    size_t jobs_room;               /* device bytes for the MSM jobs */
    unsigned jobs_slots;            /* circuits whose jobs that holds at once */
} gpu_prove_plan_info;
void gpu_prove_device_plan(int device, gpu_prove_plan_info *out);
/* One line: "resident=H,L,A,B_G1,B_G2 streamed=- streamed_per_partition=0 MiB ..." */
void gpu_prove_format_plan(char *out, size_t len, const gpu_prove_plan_info *p);
/* The device bytes of a circuit's MSM jobs L, A, B as the plan counts
 * them (residency.cu rule 2): `each`, the three made on the device in one
 * buffer beside the device prep's scratch; `least`, the largest alone
 * beside it (uploaded on the spot after the CPU's prep). */
typedef struct gpu_prove_jobs {
    size_t each, least;
    size_t circuits; /* the start's circuits when it plans (a fed start's more come later) */
} gpu_prove_jobs;
/* w's, counted (one pass over its witness). */
gpu_prove_jobs gpu_prove_jobs_bytes(const cs_prover *w);
/* The plan a start would make (residency.cu) for circuits of pk (only
 * its array lengths are read) with a domain of 2^lg, witness_bytes of
 * witness (the witness-only path, else 0), kept_bytes when kept packed
 * on the device (gpu_prove_witness_kept_bytes; 0: not offered),
 * shape_bytes of circuit shapes on the device (gpu_shape_upload_bytes)
 * and MSM jobs of *jobs (gpu_prove_jobs_bytes; NULL: not known, the
 * headroom alone), a batch or not, within budget device bytes: plan
 * arithmetic alone, no device touched. CUZK_ENOMEM naming what is needed
 * when even streaming everything does not fit (out->too_small then). */
int gpu_prove_plan_for(gpu_prove_plan_info *out, const groth16_params *pk, unsigned lg,
                       size_t witness_bytes, size_t kept_bytes, size_t shape_bytes,
                       const gpu_prove_jobs *jobs, bool batch, size_t budget, cuzk_err *err);
/* The chunk (points per MSM call) for which the plan of a streamed start
 * gives up rows of a, b, c on the device (residency.cu rule 4; 0: the
 * default, 2^21): a knob for the tests, whose small circuits reach every
 * mode with a small goal, and for tuning on a device (the daemon's
 * gpus.stream_chunk_log, cuzk-bench plan --chunk-log). */
void gpu_prove_set_chunk_goal(size_t points);
/* The ring a streamed circuit shape's slices go through (residency.cu
 * rule 4; 0: the default, 1/64 of the shape within 1 .. 64 MiB): a knob
 * for the tests, whose shapes are smaller than the default's least. */
void gpu_prove_set_shape_ring(size_t bytes);
/* When the plan keeps the witness packed on the device (residency.cu rule
 * 4): GPU_KEPT_FIRST (the default) before the mode with the same rows and
 * shape but the witness as it is, GPU_KEPT_TIGHT after it, GPU_KEPT_OFF
 * never (gpus.witness_kept; the tests reach the modes it outranks). */
enum { GPU_KEPT_OFF, GPU_KEPT_TIGHT, GPU_KEPT_FIRST };
void gpu_prove_set_witness_kept(int mode);
/* A whole (not streamed) batch addition's run per thread, at most `words`
 * bitmap words (0, the default: as many as one wave of blocks takes), so
 * that its blocks end sooner and a lane proof's kernels find SMs (a knob
 * for cuzk-gpu-bench lane's A/B; the block sums grow to match). */
void gpu_prove_set_batch_add_per(unsigned words);
/* A trace of the prover's kernels by launch site, for finding the long
 * ones (gpu/util/ktrace.cuh): begin starts it, end stops it and gives the
 * sites, at most max, longest launch first: each one's launches timed
 * and their total and longest ms (from the launch to the next on its
 * stream: an upper bound of the kernel's time). Every device; a
 * diagnostic of cuzk-gpu-bench lane, not for the daemon. */
typedef struct gpu_ktrace_row {
    char site[48]; /* file:line */
    unsigned launches;
    double total_ms, max_ms;
} gpu_ktrace_row;
void gpu_ktrace_begin(void);
size_t gpu_ktrace_end(gpu_ktrace_row *rows, size_t max);
/* At most `points` in each job's region of a pass's gather buffer, where
 * its tails of several chunks gather before one MSM, and in each slice of
 * tails a one-chunk pass gathers and sums at once (stream.cu; 0: no cap
 * but the buffer's): a knob for the tests, to reach the chunks with more
 * tails than the region or the buffer (summed in slices of it). */
void gpu_prove_set_tail_region(size_t points);
/* The bytes the witness-only path's loader moves up for w's assignment:
 * its pieces of mostly zeros and ones packed (staging.cu's
 * prove_upload_fr, fr_pack.cuh), the others as they are. */
size_t gpu_prove_witness_upload_bytes(const cs_prover *w);
/* The device bytes a start plans for w's witness kept packed there
 * (wit_view.cuh: its inputs, its pieces' table, the pieces that crossed
 * for its shape at most so far, or counted now, and a quarter more); 0
 * off the witness-only path. */
size_t gpu_prove_witness_kept_bytes(const cs_prover *w);
/* The device bytes a circuit shape takes there (one allocation). */
size_t gpu_shape_upload_bytes(const cs_shape *s);
/* The device memory a proof of domain 2^lg needs at least with every
 * parameter array streamed and the H step in its smallest mode, with
 * witness_bytes and shape_bytes for the witness-only path (else 0):
 * what the daemon compares with each device at start. */
size_t gpu_prove_min_device_memory(unsigned lg, size_t witness_bytes, size_t shape_bytes);
/* Pinned host memory the prover's staging pools take on each device it
 * proves on (allocated on its first proof there). */
size_t gpu_prove_pinned_bytes_per_device(void);
/* Host memory the prover holds now for device dev beyond those pools:
 * the rows its H step parks with one row on the device (8 GiB for a
 * 32 GiB PoRep), kept between proofs, given back by gpu_prove_release. */
size_t gpu_prove_parked_host_bytes(int dev);

/* Host-to-device rates (GB/s) over `bytes`, for tuning the staging:
 * [0] a pageable buffer through the staging pool (what a, b, c take),
 * [1] the pool's DMA alone (from pinned memory), [2] the pool's host copy
 * alone, [3] cudaMemcpy straight from the pageable buffer. */
int gpu_prove_bench_upload(size_t bytes, double gbps[4], cuzk_err *err);

/* One line of the per-partition timings with the names of
 * reference/groth16.md ("prep_msm_ms=... gpu_total_ms=..."), then its
 * transfers (groth16_xfer): "h2d_mib=... d2h_mib=... copies=N copy_ms=...
 * link_gbps=... kernel_ms=... hidden_ms=... timed=1 msm_calls=N
 * helper_cpu_ms=... xfer_mib=points:..,points_g2:..,params:..,input:..,
 * jobs:..,unpark:..,park:..,results:..,shape:.." (link_gbps: both
 * directions' bytes over copy_ms, in 10^9 bytes a second; helper_cpu_ms:
 * groth16_xfer's cpu_ms). */
void gpu_prove_format_timings(char *out, size_t len, const groth16_timings *t);

#ifdef __cplusplus
}
#endif

#endif
