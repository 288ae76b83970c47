/*
 * bench_synth.c - witness synthesis of one PoRep partition with the prover
 * backend (a, b, c, the assignment and the densities), on a synthetic but
 * well-formed C1 (vanilla_c1_synthetic): one thread, then all OpenMP
 * threads (the partition's challenges synthesized in parallel into one
 * system, porep_circuit.c). Shapes 8MiB and 512MiB (2KiB with --quick),
 * and a 32GiB partition cut to 2 of its 18 challenges (the 11-layer
 * challenge, ~14.5M constraints, ~1.9 GB); the whole 32GiB partition
 * (130,278,541 constraints, about 17 GiB of a, b, c and aux) only with
 * CUZK_BENCH_LARGE=1. Each row gives the wall-clock
 * rate and, since the machines are shared, the process CPU time per
 * constraint. An untimed run first measures the challenge size (once per
 * shape and process, as in a daemon: one challenge on a counting fork).
 *
 * Anchor: bellperson takes 30-50 s of one core per 130M-constraint
 * partition, 130e6 / 40 = 3.3 M constraints/s. Goal (issue 4): under 15 s
 * per partition per core, 130e6 / 15 = 8.7 M/s, and 16 cores under 2 s.
 */
#include "bench.h"

#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/rng.h"

#define ANCHOR_BELLPERSON 3.3 /* M constraints/s per core, 130e6 / 40 s */
#define GOAL_1T           "8.7 Mc/s (130M in 15 s)"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Synthesizes partition 0 of c1 on `threads` threads (and reports it). */
static void run(const vanilla_c1 *c1, const char *name, int threads, bool report)
{
    porep_circuit pc;
    cuzk_err e;
    cs_prover out;
    if (porep_circuit_init(&pc, c1, 0, &e)) goto fail;
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    double wall = bench_now(), cpu = cpu_now();
    int rc = cs_synthesize_prover(&out, porep_circuit_get(&pc), NULL, &e);
    wall = bench_now() - wall, cpu = cpu_now() - cpu;
    omp_set_num_threads(saved);
    if (rc) goto fail;
    double n = (double)out.num_constraints;
    cs_prover_free(&out);
    if (!report) return;
    char fig[128];
    snprintf(fig, sizeof fig, "porep %s prover synthesis, %d thr (wall)", name, threads);
    bench_report(fig, n / wall / 1e6, "Mc/s", threads == 1 ? ANCHOR_BELLPERSON : 0,
                 threads == 1 ? "bellperson/core" : NULL, threads == 1 ? GOAL_1T : "report");
    snprintf(fig, sizeof fig, "porep %s prover synthesis, %d thr (CPU)", name, threads);
    bench_report(fig, cpu / n * 1e9, "ns/c", 1e3 / ANCHOR_BELLPERSON, "bellperson",
                 "<= 115 ns/c (8.7 Mc/s)");
    return;
fail:
    fprintf(stderr, "bench_synth: %s: %s\n", name, e.msg);
    abort();
}

/* A shape's synthetic C1, its partitions cut to `challenges` (0: all). */
static void shape(int registered_proof, const char *name, int threads, size_t challenges)
{
    vanilla_c1 c1;
    cuzk_rng g;
    cuzk_err e;
    cuzk_rng_seed(&g, 42);
    if (vanilla_c1_synthetic(&c1, registered_proof, &g, &e)) {
        fprintf(stderr, "bench_synth: %s C1: %s\n", name, e.msg);
        abort();
    }
    size_t all = c1.challenges;
    if (challenges) c1.challenges = challenges;
    run(&c1, name, threads, false);
    run(&c1, name, 1, true);
    if (threads > 1) run(&c1, name, threads, true);
    c1.challenges = all;
    vanilla_c1_free(&c1);
}

BENCH(73, synth_porep)
{
    /* registered proofs V1_1: 5 2KiB, 6 8MiB, 7 512MiB, 8 32GiB */
    if (ctx->quick) {
        shape(5, "2KiB", ctx->threads, 0);
        return;
    }
    shape(6, "8MiB", ctx->threads, 0);
    shape(7, "512MiB", ctx->threads, 0);
    shape(8, "32GiB (2 of 18 challenges)", ctx->threads, 2);
    if (getenv("CUZK_BENCH_LARGE")) shape(8, "32GiB", ctx->threads, 0);
}
