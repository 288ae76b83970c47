/*
 * host_budget.h - the stand-in device's memory budget and link speed
 * (host_device.cpp), from C.
 */
#ifndef CUZK_TESTS_GPUHOST_HOST_BUDGET_H
#define CUZK_TESTS_GPUHOST_HOST_BUDGET_H

#ifdef __cplusplus
extern "C" {
#endif

/* Lets the stand-in device give `more` bytes beyond what it holds now. */
void host_budget_allow(long long more);
/* Makes every asynchronous copy of 64 KiB or more take at least `us`
 * microseconds. */
void host_dma_delay(int us);

#ifdef __cplusplus
}
#endif

#endif
