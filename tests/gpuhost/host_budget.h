/*
 * host_budget.h - the stand-in device's memory budget (host_device.cpp),
 * from C.
 */
#ifndef CUZK_TESTS_GPUHOST_HOST_BUDGET_H
#define CUZK_TESTS_GPUHOST_HOST_BUDGET_H

#ifdef __cplusplus
extern "C" {
#endif

/* Lets the stand-in device give `more` bytes beyond what it holds now. */
void host_budget_allow(long long more);

#ifdef __cplusplus
}
#endif

#endif
