/*
 * device.cuh - the calling thread's current CUDA device as an index into
 * per-device state.
 *
 * One process drives several GPUs at once (one prover per device, see
 * src/engine/pipeline.c), so whatever host code keeps on a device between
 * calls (the NTT tables, the MSM workspace, the prover's buffers,
 * parameter cache and staging pools) is kept once per device, in arrays
 * of CU_MAX_DEVICES, and picked by the device the calling thread selected
 * with cudaSetDevice, the way every function of gpu.h works on the
 * current device. Each device's entry has its own lock, so work on one
 * device never waits for another.
 */
#ifndef CUZK_GPU_UTIL_DEVICE_CUH
#define CUZK_GPU_UTIL_DEVICE_CUH

#include "gpu/util/check.cuh"

#define CU_MAX_DEVICES 16

/* *dev = the current device's ordinal; an error past CU_MAX_DEVICES. */
static inline int cu_device(int *dev, cuzk_err *err)
{
    int d = 0;
    CU(cudaGetDevice(&d), err, "cudaGetDevice");
    if (d < 0 || d >= CU_MAX_DEVICES)
        return cuzk_errf(err, CUZK_EDEVICE, "gpu: device %d (at most %d devices are driven)", d,
                         CU_MAX_DEVICES);
    *dev = d;
    return CUZK_OK;
}

#endif
