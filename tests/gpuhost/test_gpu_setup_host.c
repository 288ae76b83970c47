/*
 * test_gpu_setup_host.c - the GPU setup's host code (src/gpu/setup) on the
 * stand-in CUDA runtime of this folder, so without a GPU: the checks
 * test_gpu runs on a device (gpu_setup_checks.c, quick sizes: encoded
 * points and whole .params / .vk files equal to the CPU's, refused
 * arguments), then the device-memory paths: with too little device memory
 * for a chunk, making the backend fails with an out-of-memory error that
 * says so, and every buffer is given back (the stand-in's count of device
 * bytes is zero after each free).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cuzk/gpu_setup.h"
#include "gpu_setup_checks.h"

/* The stand-in device's memory (setup_device.cpp): its limit in bytes
 * (negative: none) and what is allocated. */
void host_setup_limit(long long bytes);
long long host_setup_used(void);

static int failures;

static void check_memory(void)
{
    groth16_setup_backend be;
    cuzk_err err = {0};
    host_setup_limit(1 << 20);
    int rc = gpu_setup_backend(&be, 1 << 16, &err);
    if (rc != CUZK_ENOMEM || !strstr(err.msg, "no device memory for chunks of 65536 points"))
        failures++, printf("FAIL: 1 MiB of device memory: rc %d (%s)\n", rc, err.msg);
    if (host_setup_used() != 0)
        failures++,
            printf("FAIL: %lld device bytes kept after a failed start\n", host_setup_used());
    host_setup_limit(-1);
    if (gpu_setup_backend(&be, 1 << 10, &err))
        failures++, printf("FAIL: gpu_setup_backend: %s\n", err.msg);
    else
        gpu_setup_backend_free(&be);
    if (host_setup_used() != 0)
        failures++, printf("FAIL: %lld device bytes kept after the free\n", host_setup_used());
}

int main(void)
{
    cuzk_rng g;
    uint64_t seed = (uint64_t)time(NULL);
    printf("seed: %llu\n", (unsigned long long)seed);
    cuzk_rng_seed(&g, seed);
    failures += gpu_setup_checks(&g, 1);
    check_memory();
    printf(failures ? "test_gpu_setup_host: %d FAILURES\n" : "test_gpu_setup_host: all passed\n",
           failures);
    return failures ? 1 : 0;
}
