/*
 * bench_gpu_prove.h - the `prove` mode of cuzk-gpu-bench
 * (bench_gpu_prove.c): a synthetic partition on the GPU and the CPU.
 */
#ifndef CUZK_TESTS_BENCH_GPU_PROVE_H
#define CUZK_TESTS_BENCH_GPU_PROVE_H

/* argv[0] = "prove", argv[1] = LOG, argv[2] = CPU_MAX_LOG, argv[3] = N. */
int bench_gpu_prove(int argc, char **argv);

#endif
