/*
 * bench_gpu_prove.h - the `prove` and `lane` modes of cuzk-gpu-bench
 * (bench_gpu_prove.c): a synthetic partition on the GPU and the CPU; the
 * small-circuit lane's latency beside the big prover's starts.
 */
#ifndef CUZK_TESTS_BENCH_GPU_PROVE_H
#define CUZK_TESTS_BENCH_GPU_PROVE_H

/* argv[0] = "prove", argv[1] = LOG, argv[2] = CPU_MAX_LOG, argv[3] = N. */
int bench_gpu_prove(int argc, char **argv);
/* argv[0] = "lane", argv[1] = BIG_LOG, argv[2] = LANE_LOG, argv[3] = SECONDS,
 * argv[4] = EVERY_MS. */
int bench_gpu_lane(int argc, char **argv);

#endif
