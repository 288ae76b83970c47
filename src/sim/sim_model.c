/*
 * sim_model.c - the simulated kinds at 32 GiB (sim.h) and the model's
 * state. The figures, and where they come from (docs/performance.md):
 *
 * - PoRep: parameters 47.4 GB (the file), read in 36-40 s on the H200's
 *   host (38 s taken); 10 partitions of 130,278,541 constraints, 1.08-1.13 s
 *   each on the device (measured); synthesis 1.0 s per partition on one
 *   of four workers (estimate: 33-34 host CPU-s per proof measured, over
 *   16 cores shared by four workers).
 * - Window PoSt: parameters 60,780,374,232 bytes (the file); read in 52 s
 *   on the H200's host (measured 2026-12-03: 56.6 GiB; 60.9 s on an H100
 *   host); one partition per request of 125,305,057 constraints: 5.4 s
 *   on the device (measured on an H100 80GB, 5.40-5.45 s warm with 44.6
 *   GiB of its points streamed: full MSMs, the witness 99% other values
 *   than 0 and 1; resident on the H200 not measured), synthesis 0.4 s
 *   (measured warm on every core: 0.35-0.41 s).
 * - SnapDeals: parameters 34,453,501,368 bytes (the file), read in 27.7 s
 *   (measured on an H100 host: 32.1 GiB); 16 partitions of 81,049,504
 *   constraints, 1.2 s each on the device (measured on an H100 80GB, 1.195
 *   s median, resident), synthesis 0.6 s (estimate: 23 host CPU-s a proof
 *   measured there, 1.4 a partition, on a worker's four cores).
 * - Winning PoSt: parameters 192,050,232 bytes (the file), read in 0.16 s
 *   (measured cold on the H200's host); one partition of 370,723
 *   constraints, 45 ms on the device and synthesis 11 ms (measured warm
 *   on the H200, 2026-12-03).
 * A partition is charged the witness-only path's host memory of its
 * shape (aux of the kinds other than PoRep: estimated as the constraint
 * count). The device: 139 GiB, 32 GiB of it kept for the partitions in
 * flight (estimate), parameters uploaded at 25 GB/s (the staged upload's
 * 24.8-27.8 GB/s measured).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sim_internal.h"
#include "engine/srs.h"

const sim_kind sim_kinds_32g[SIM_KINDS] = {
    [SIM_POREP] = {"porep",
                   ENGINE_POREP,
                   ENGINE_PRIO_NORMAL,
                   10,
                   47400000000ull,
                   38.0,
                   1.10,
                   1.0,
                   {130278541, 328, 130169893},
                   8,
                   "parameters, load and device time measured; synthesis estimated"},
    [SIM_SNAP] = {"snap",
                  ENGINE_SNAP,
                  ENGINE_PRIO_NORMAL,
                  16,
                  34453501368ull,
                  27.7,
                  1.20,
                  0.6,
                  {81049504, 2, 81049504},
                  2,
                  "parameters, load and device time measured (an H100); synthesis estimated"},
    [SIM_WPOST] = {"wpost",
                   ENGINE_WINDOW_POST,
                   ENGINE_PRIO_HIGH,
                   1,
                   60780374232ull,
                   52.0,
                   5.40,
                   0.40,
                   {125305057, 25840, 125305057},
                   4,
                   "parameters, load and synthesis measured; device time measured on an H100"},
    [SIM_WINNING] = {"winning",
                     ENGINE_WINNING_POST,
                     ENGINE_PRIO_CRITICAL,
                     1,
                     192050232ull,
                     0.16,
                     0.045,
                     0.011,
                     {370723, 4, 370723},
                     1,
                     "parameters, load, device time and synthesis measured"},
};

sim_state sim_model;

void sim_configure(const sim_kind *kinds, const sim_device *dev, double speed)
{
    memcpy(sim_model.kinds, kinds, sizeof sim_model.kinds);
    sim_model.device = *dev;
    sim_model.speed = speed > 0 ? speed : 1;
    sim_backend_reset();
}

uint64_t sim_real_ms(double model_s)
{
    return (uint64_t)(model_s * 1000.0 / sim_model.speed + 0.5);
}

void sim_sleep_until(uint64_t t_ms)
{
    uint64_t now = srs_now_ms();
    if (now >= t_ms) return;
    uint64_t ms = t_ms - now;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts)) continue;
}

uint32_t sim_stand_in(int k)
{
    return 129 * sim_model.kinds[k].words;
}

void sim_circuit_id(int k, char out[ENGINE_ID_MAX])
{
    snprintf(out, ENGINE_ID_MAX, "sim-%s-32g", sim_kinds_32g[k].name);
}

int sim_kind_of_id(const char *id)
{
    char mine[ENGINE_ID_MAX];
    for (int k = 0; k < SIM_KINDS; k++) {
        sim_circuit_id(k, mine);
        if (!strcmp(mine, id)) return k;
    }
    return -1;
}
