/*
 * devices.h - cuzk-daemon's check of its GPUs at start (devices.c).
 */
#ifndef CUZK_DAEMON_DEVICES_H
#define CUZK_DAEMON_DEVICES_H

#include <stdint.h>

#include "cuzk/engine.h"

/* Logs, for each GPU of e, the device memory the prover may use there
 * (what is free, at most device_memory when set) against what a 32 GiB
 * and a 64 GiB PoRep partition need at least: a device too small is a
 * warning saying by how much (its partitions of that size are proved on
 * the CPU), one that fits says its plan. Nothing for the CPU backend. */
void daemon_check_devices(engine_t *e, uint64_t device_memory);

#endif
