/*
 * bench_groth16.c - the CPU Groth16 prover on the synthetic bit-heavy
 * circuit of r1cs.h (Filecoin-like: mostly booleans, so L, A and B take
 * the split MSM), with the per-phase timers of reference/groth16.md, and
 * the development setup. 2^20 constraints (2^12 with --quick); the 2^22
 * setup runs only with CUZK_BENCH_LARGE=1 (minutes on 2 cores).
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuzk/groth16.h"

/* Constraints for a domain of 2^log_m: the circuit's input constraint and
 * the slack of one word (129 constraints) stay inside. */
static size_t fill(unsigned log_m) { return ((size_t)1 << log_m) - 200; }

static int setup_for(groth16_params *pk, unsigned log_m, double *seconds)
{
    cs_synthetic s = {fill(log_m), 7};
    cuzk_err err;
    double t0 = bench_now();
    int rc = groth16_setup_dev(pk, cs_synthetic_circuit(&s), 1, &err);
    *seconds = bench_now() - t0;
    if (rc) fprintf(stderr, "bench: setup 2^%u: %s\n", log_m, err.msg);
    return rc;
}

static void report_setup(unsigned log_m, double seconds)
{
    char name[64];
    snprintf(name, sizeof(name), "Groth16 dev setup 2^%u", log_m);
    bench_report(name, seconds, "s", 0, NULL, "minutes, not hours");
}

BENCH(80, bench_groth16_prove)
{
    unsigned log_m = ctx->quick ? 12 : 20;
    groth16_params pk;
    double setup_s;
    if (setup_for(&pk, log_m, &setup_s)) return;
    report_setup(log_m, setup_s);
    cs_synthetic s = {fill(log_m), 7};
    cs_prover w;
    cuzk_err err;
    double t0 = bench_now();
    if (cs_synthesize_prover(&w, cs_synthetic_circuit(&s), NULL, &err)) {
        fprintf(stderr, "bench: synthesis: %s\n", err.msg);
        groth16_params_free(&pk);
        return;
    }
    double synth = bench_now() - t0;
    groth16_proof proof;
    groth16_timings t;
    if (groth16_prove(&proof, &pk, &w, 1, NULL, &t, &err) == CUZK_OK) {
        char name[64];
        const char *phase[] = {"prep_msm", "ntt_msm_h", "batch_add", "tail_msm", "b_g2_msm",
                               "total"};
        double ms[] = {t.prep_msm_ms, t.ntt_msm_h_ms, t.batch_add_ms, t.tail_msm_ms,
                       t.b_g2_msm_ms, t.total_ms};
        snprintf(name, sizeof(name), "prove 2^%u synthesis", log_m);
        bench_report(name, synth * 1e3, "ms", 0, NULL, "");
        for (int i = 0; i < 6; i++) {
            snprintf(name, sizeof(name), "prove 2^%u %s_ms (%d thr)", log_m, phase[i],
                     ctx->threads);
            bench_report(name, ms[i], "ms", 0, NULL, "");
        }
    } else
        fprintf(stderr, "bench: prove: %s\n", err.msg);
    cs_prover_free(&w);
    groth16_params_free(&pk);
}

BENCH(81, bench_groth16_setup_large)
{
    if (ctx->quick || !getenv("CUZK_BENCH_LARGE")) return;
    groth16_params pk;
    double seconds;
    if (setup_for(&pk, 22, &seconds)) return;
    report_setup(22, seconds);
    groth16_params_free(&pk);
}
