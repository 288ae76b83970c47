#!/bin/sh
# soak.sh BUILD_DIR SOURCE_DIR - CI's 2 minutes of scripts/soak.sh on the CPU
# backend at 2KiB: a mixed load of every kind from three clients while
# faults are injected (disconnects, cancels, deadlines, resubmitted ids,
# malformed requests, SIGKILL / SIGTERM restarts, corrupted parameter
# files, a full disk, too small memory budgets); passes only when no
# request was lost and nothing was wrong (every COMPLETED proof checked by
# `cuzk verify`, resources back after the load, no crash). Development
# parameters come from BUILD_DIR/param-cache (the Filecoin kinds' made by
# the integration_params fixture, the test circuits' by this soak's daemon
# on first use). About 3.5 minutes on 2 cores alone once they exist.
set -eu
CUZK_BUILD=$1 exec sh "$2/scripts/soak.sh" -d 120 --seed 25 --every-fault --stall 300
