/*
 * engine_backend.h - the prover backend the engine drives: start runs the
 * device part of a Groth16 proof for n synthesized circuits (on the CPU
 * backend: the whole groth16_prove), finish completes it (on a GPU: the
 * B_G2 MSM and assembly on the CPU) and yields the proofs. The engine holds
 * the device lock around start only and takes the circuits' storage back
 * the moment start returns (to synthesize the next partitions into), so a
 * backend copies what finish still needs. A backend with start_fed takes
 * more circuits while it proves (the queued partitions of the same
 * circuit, so its device loads the next under this one's kernels) and
 * gives each circuit's storage back as soon as it is done with it.
 */
#ifndef CUZK_ENGINE_BACKEND_H
#define CUZK_ENGINE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "cuzk/err.h"
#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"

/* gpus.witness_kept, for the backend's device_memory hook. */
enum { ENGINE_KEPT_OFF, ENGINE_KEPT_TIGHT, ENGINE_KEPT_FIRST };

/* More circuits for a start that runs (start_fed): as gpu_prove_feed
 * (gpu_prove.h). more() gives up to room circuits of the same parameters
 * (0: none now, not asked again); consumed(i): circuit i, in the order
 * given, is no longer read. */
typedef struct engine_feed {
    void *ctx;
    size_t max; /* the most circuits in all */
    size_t (*more)(void *ctx, const cs_prover **circuits, size_t room);
    void (*consumed)(void *ctx, size_t i);
} engine_feed;

struct engine_backend {
    const char *name;
    /* Devices this backend drives; names[i] describes device i. */
    int (*devices)(size_t *n, char names[][128], uint64_t *vram_total, size_t max);
    int (*start)(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                 void **handle, cuzk_err *err);
    /* Writes n proofs and frees the handle (also on error). */
    int (*finish)(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err);
    /* Optional: free device memory now (NULL: reported as vram_total). */
    int (*vram_free)(int device, uint64_t *free_bytes);
    /* Optional: the engine is about to free pk (an SRS eviction); drop any
     * copy of its points the backend keeps (NULL: it keeps none). */
    void (*params_unloaded)(const groth16_params *pk);
    /* Optional: host memory the backend holds now for each device it
     * proves on (the CUDA prover's pinned staging pools, and the rows its
     * H step parks in host memory, which a start may grow and a release
     * give back), reserved in the engine's budget at start and followed
     * after each start of the device (engine_track_device_host; NULL:
     * none). */
    uint64_t (*host_bytes)(int device);
    /* Optional: the engine is about to free a circuit's recorded shape
     * (with its parameters); drop any device copy (NULL: none kept). */
    void (*shape_unloaded)(const cs_shape *shape);
    /* Optional: start, taking more circuits from feed while it proves;
     * finish is then given the count in all (NULL: start alone). */
    int (*start_fed)(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                     const engine_feed *feed, void **handle, cuzk_err *err);
    /* Optional: caps the device memory the backend uses per device
     * (gpus.device_memory; 0: what is free), sets its streamed plans'
     * MSM chunk goal (gpus.stream_chunk_log; 0: its default) and when
     * they keep a witness packed (gpus.witness_kept: ENGINE_KEPT_*). */
    void (*device_memory)(uint64_t bytes, uint32_t chunk_log, int witness_kept);
    /* Optional: one line of the device's memory plan (what stays on the
     * device, what streams) for the status. */
    void (*plan)(int device, char *out, size_t len);
    /* Optional (all four or none): the device's small-circuit lane
     * (gpu_lane.h), a prover beside the running start with its own lock
     * and memory. lane_setup makes it for domains up to 2^max_log and
     * params_bytes of parameters, the big prover pausing its kernels for
     * at most pause_ms while a lane proof runs (gpu_lane.h; an error: the
     * device has none; called before host_bytes, which then counts the
     * lane's host memory too);
     * lane_fits: whether a proof of c under pk fits it; lane_start: the
     * start there, never waiting for the device lock (finish as start's);
     * lane_release gives its memory back (the engine is destroyed). */
    int (*lane_setup)(int device, unsigned max_log, uint64_t params_bytes, unsigned pause_ms,
                      cuzk_err *err);
    bool (*lane_fits)(int device, const groth16_params *pk, const cs_prover *c);
    int (*lane_start)(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                      void **handle, cuzk_err *err);
    void (*lane_release)(int device);
};

/* groth16_prove on the CPU, one "device". */
extern const engine_backend engine_cpu_backend;
/* The CUDA prover (gpu_prove.h); defined when built with CUDA. */
extern const engine_backend engine_cuda_backend;

/* The backend the config asks for (gpus.backend): "cpu"; "cuda" (an error
 * without a usable GPU); "auto" or "": CUDA when built with it and a GPU is
 * usable, else the CPU. NULL with err filled for an unknown name. */
const engine_backend *engine_backend_choose(const cuzk_config *cfg, cuzk_err *err);

#endif
