/*
 * host_runtime.cpp - the state of the stand-in CUDA runtime
 * (cuda_runtime.h): bytes allocated on the "device", the most it gives,
 * and the delay of asynchronous copies. One definition for every test
 * built on the stand-in.
 */
std::atomic<long long> host_device_used{0}, host_device_limit{1LL << 40};
std::atomic<int> host_dma_delay_us{0};
