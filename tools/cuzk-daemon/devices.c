/*
 * devices.c - cuzk-daemon's check of its GPUs at start: before the first
 * proof, so that a device too small for the largest partitions is named
 * with the memory it lacks when the daemon starts, not when its first
 * 32 GiB job falls back to the CPU. The needs come from the GPU prover's
 * own plan arithmetic (gpu_prove_plan_for, gpu_prove_min_device_memory)
 * over the partitions' sizes (porep_sizes.h); the memory from the
 * engine's status of each device (free now), capped by gpus.device_memory.
 */
#include "devices.h"

#include <stdio.h>

#include "cuzk/engine_log.h"
#include "cuzk/filecoin/porep_sizes.h"
#include "cuzk/gpu_prove.h"

#define GIB (1024.0 * 1024 * 1024)

#ifdef CUZK_HAVE_CUDA
/* One device against one sector size's partitions. */
static void check_one(const engine_device_status *d, uint64_t usable, uint64_t sector)
{
    const porep_sizes *s = porep_sizes_find(sector);
    if (!s) return;
    unsigned lg = porep_sizes_domain_log(s);
    size_t wit = porep_sizes_witness_bytes(s);
    size_t need = gpu_prove_min_device_memory(lg, wit, s->shape_bytes);
    unsigned gib = (unsigned)(sector >> 30);
    if (usable < need) {
        engine_log(LOG_WARN,
                   "device %u (%s): too small for %uGiB PoRep partitions by %.2f GiB: %.2f GiB "
                   "usable, %.2f GiB needed at least; they are proved on the CPU",
                   d->ordinal, d->name, gib, (need - usable) / GIB, usable / GIB, need / GIB);
        return;
    }
    groth16_params pk;
    porep_sizes_params(s, &pk);
    gpu_prove_plan_info pl;
    char line[512];
    gpu_prove_plan_for(&pl, &pk, lg, wit, porep_sizes_witness_kept_bytes(s), s->shape_bytes, NULL,
                       true, (size_t)usable, NULL);
    gpu_prove_format_plan(line, sizeof line, &pl);
    engine_log(LOG_INFO, "device %u (%s): %.2f GiB usable, %uGiB PoRep partitions: %s", d->ordinal,
               d->name, usable / GIB, gib, line);
}
#endif

void daemon_check_devices(engine_t *e, uint64_t device_memory)
{
#ifdef CUZK_HAVE_CUDA
    engine_status_t st;
    cuzk_err err = {0};
    if (engine_status(e, &st, &err)) {
        engine_log(LOG_WARN, "device check: %s", err.msg);
        return;
    }
    for (size_t i = 0; i < st.n_devices; i++) {
        const engine_device_status *d = &st.devices[i];
        if (!d->vram_total) continue; /* the CPU backend's */
        uint64_t usable = d->vram_free;
        if (device_memory && device_memory < usable) usable = device_memory;
        check_one(d, usable, 32ull << 30);
        check_one(d, usable, 64ull << 30);
    }
    engine_status_free(&st);
#else
    (void)e, (void)device_memory;
#endif
}
