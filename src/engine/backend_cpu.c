/*
 * backend_cpu.c - the CPU prover backend (engine_backend.h): one device
 * named after the machine's cores; start runs groth16_prove for the whole
 * batch (every core through OpenMP), finish hands the proofs over. It
 * keeps nothing of the circuits, so the engine frees them after start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/engine_backend.h"

static int cpu_devices(size_t *n, char names[][128], uint64_t *vram_total, size_t max)
{
    if (max < 1) return CUZK_EINVAL;
    snprintf(names[0], 128, "cpu (%ld cores)", sysconf(_SC_NPROCESSORS_ONLN));
    vram_total[0] = 0;
    *n = 1;
    return CUZK_OK;
}

static int cpu_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                     void **handle, cuzk_err *err)
{
    (void)device;
    groth16_proof *proofs = calloc(n, sizeof *proofs);
    if (!proofs) return cuzk_errf(err, CUZK_ENOMEM, "cpu backend: out of memory");
    int rc = groth16_prove(proofs, pk, circuits, n, NULL, NULL, err);
    if (rc) {
        free(proofs);
        return rc;
    }
    *handle = proofs;
    return CUZK_OK;
}

static int cpu_finish(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    (void)err;
    memcpy(proofs, handle, n * sizeof *proofs);
    free(handle);
    return CUZK_OK;
}

const engine_backend engine_cpu_backend = {
    .name = "cpu", .devices = cpu_devices, .start = cpu_start, .finish = cpu_finish};
