/*
 * sim_internal.h - the simulation's shared state (sim.h): the model
 * sim_configure copied, read by the provider and the backend, and the
 * clock's scaling.
 */
#ifndef CUZK_SIM_INTERNAL_H
#define CUZK_SIM_INTERNAL_H

#include "cuzk/sim.h"

typedef struct sim_state {
    sim_kind kinds[SIM_KINDS];
    sim_device device;
    double speed;
} sim_state;

extern sim_state sim_model;

/* Modeled seconds as real milliseconds (divided by the speed). */
uint64_t sim_real_ms(double model_s);
/* Sleeps until real time t_ms (srs_now_ms's clock). */
void sim_sleep_until(uint64_t t_ms);
/* The stand-in test circuit's constraint count of kind k ("test-<n>"). */
uint32_t sim_stand_in(int k);
/* The backend's device and counters back to empty (sim_configure). */
void sim_backend_reset(void);
/* The kind whose circuit id is id, or -1. */
int sim_kind_of_id(const char *id);

#endif
