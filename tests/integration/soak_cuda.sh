#!/bin/sh
# soak_cuda.sh BUILD_DIR SOURCE_DIR - CI's CUDA soak without a GPU:
# scripts/soak.sh -b cuda at 2KiB against cuzk-daemon-standin (the daemon
# with the CUDA backend's host code on the stand-in runtime, a 10 GiB
# stand-in device: the backend's prover and device locks, its hooks into
# the SRS manager, the small-circuit lane, the plans and the pinned pools
# held in the memory budget; the kernels run on the CPU). The H200's soak
# hung twice in such code (2026-12-04: the SRS manager calling the
# backend's shape hook under its lock; loads waiting for memory the
# devices hold), which the CPU backend's soak cannot reach. Skipped (77)
# when the build has no CUDA backend. The development parameters of
# BUILD_DIR/param-cache (integration_params' and the CPU soak's, which
# ctest runs first: the same bytes; made on the stand-in device they would
# take many minutes); about 3.5 minutes on 2 cores alone once they exist.
set -eu
daemon=$1/tests/gpuhost/cuzk-daemon-standin
[ -x "$daemon" ] || { echo "soak_cuda: no $daemon (no CUDA backend in this build): skipped"; exit 77; }
CUZK_STANDIN_DEVICE_MIB=10240 CUZK_DAEMON=$daemon CUZK_BUILD=$1 \
    exec sh "$2/scripts/soak.sh" -b cuda -d 90 --seed 19 --every-fault --stall 300
