/*
 * config.h - the daemon configuration (TOML, the keys of cuzk:
 * reference/cuzk-api.md "Daemon config"), its defaults, and the one size
 * parser of the project ("14GiB", "512MiB", "4096").
 *
 * The parser reads the TOML subset the config needs: [tables], key =
 * value with strings, integers, booleans and arrays of integers, and
 * # comments. It is strict: an unknown table or key, a value of the wrong
 * type or a malformed line is an error naming the file and the line.
 */
#ifndef CUZK_CONFIG_H
#define CUZK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/err.h"

#define CONFIG_MAX_DEVICES 16
#define CONFIG_MAX_PRELOAD 16
#define CONFIG_ID_MAX      64

typedef struct cuzk_config {
    /* [daemon] */
    char listen[256];        /* unix:///path or host:port */
    char status_listen[256]; /* host:port of the HTTP status page, "" = off */
    uint64_t shutdown_grace_s;
    /* [srs] */
    char param_cache[512];
    /* Each id list's count follows its array (config.c parses both alike). */
    char preload[CONFIG_MAX_PRELOAD][CONFIG_ID_MAX]; /* circuit ids loaded at start */
    size_t n_preload;
    char pinned[CONFIG_MAX_PRELOAD][CONFIG_ID_MAX]; /* loaded at start, never evicted */
    size_t n_pinned;
    uint64_t srs_swap_after_s; /* a load drains a set of its own priority after this wait */
    uint64_t srs_keep_rank_s;  /* a set keeps its last job's priority this long after it */
    /* [memory] */
    uint64_t total_budget; /* 0 = "auto": physical memory - safety_margin */
    uint64_t safety_margin;
    uint64_t eviction_min_idle_s;
    /* synthesized partitions' storage kept for the next synthesis (pool.h) */
    bool reuse_partitions;
    /* [gpus] */
    int devices[CONFIG_MAX_DEVICES];
    size_t n_devices; /* 0 = every device of the backend */
    uint32_t gpu_threads, gpu_workers_per_device;
    char backend[16];             /* "auto" (CUDA when usable, else CPU), "cuda" or "cpu" */
    uint64_t device_memory;       /* per device the GPU prover plans with; 0 = what is free */
    uint32_t small_lane_max_log;  /* the small-circuit lane's largest domain; 0 = no lane */
    uint32_t stream_chunk_log;    /* the streamed plan's MSM chunk goal (rule 4); 0 = 21 */
    char witness_kept[8];         /* "first" (default), "tight" or "off" (rule 4) */
    uint64_t small_lane_params;   /* device bytes of parameters the lane keeps */
    uint32_t small_lane_pause_ms; /* the big prover's longest pause for a lane proof; 0 = none */
    /* [scheduler] */
    uint32_t max_batch_size;
    uint64_t max_batch_wait_ms;
    uint64_t result_ttl_s;
    /* [synthesis] */
    uint32_t synthesis_threads; /* per partition; 0 = every core, on the witness-only path
                                   the cores shared by the synthesis workers */
    uint32_t synthesis_nice;    /* added to the ordinary synthesis workers' nice (0 .. 19) */
    /* per partition only the witness; a, b, c evaluated from the circuit's
     * shape recorded once (cs_shape), on the device with the CUDA backend */
    bool witness_only;
    /* [pipeline] */
    bool pipeline_enabled;
    uint32_t synthesis_concurrency, max_parallel_synthesis, max_gpu_queue_depth;
    uint32_t partitions_per_start; /* queued partitions of one circuit a device takes at once */
    uint32_t priority_synthesis;   /* synthesis workers for HIGH and CRITICAL only (dispatch.h) */
    uint64_t aging_ms;             /* LOW counts as NORMAL after this wait; 0: never */
    /* [logging] */
    char log_level[16]; /* error, warn, info, debug */
} cuzk_config;

void cuzk_config_default(cuzk_config *c);
/* Reads path over the defaults already in c. */
int cuzk_config_load(cuzk_config *c, const char *path, cuzk_err *err);
/* Parses TOML text (name is used in messages). */
int cuzk_config_parse(cuzk_config *c, const char *text, const char *name, cuzk_err *err);
/* The default configuration as a commented TOML file. */
void cuzk_config_print_default(FILE *out);
/* The memory budget in bytes: total_budget, or for "auto" the physical
 * memory less safety_margin. */
uint64_t cuzk_config_budget(const cuzk_config *c);

/* "14GiB", "512 MiB", "4096", "2KiB", "1GB": bytes (binary units KiB..TiB,
 * decimal KB..TB, B or none). Overflow and unknown units are errors. */
int cuzk_parse_size(const char *s, uint64_t *out, cuzk_err *err);

#endif
