/*
 * bench_r1cs.c - synthesis throughput on the synthetic bit-heavy circuit of
 * r1cs.h (2^20 constraints; 2^16 with --quick): one circuit through the
 * prover, counter, recorder and witness backends on one thread, the
 * pre-compiled evaluator (witness synthesis, then the recorded matrices
 * times the witness over all threads), then a batch of circuits over all
 * threads with and without the capacity hint.
 *
 * Anchor: Curio's cuzk synthesizes 10 x 130M constraints (32 GiB PoRep) in
 * 54.7 s on ~96 cores, 1.3e9 / 54.7 / 96 = 0.25 M constraints/s per core.
 * Its circuits are SHA-256 and Poseidon, heavier per constraint than ours
 * (which is mostly booleans and packing), so the ratio flatters us.
 */
#include "bench.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/r1cs.h"

#define ANCHOR_PER_CORE 0.25 /* M constraints/s per core, see above */

typedef struct run_arg {
    cs_circuit circuit;
    int backend; /* 0 prover, 1 counter, 2 recorder, 3 witness */
    size_t constraints;
} run_arg;

static void run_once(void *p)
{
    run_arg *a = p;
    cuzk_err e;
    int rc;
    if (a->backend == 0) {
        cs_prover out;
        rc = cs_synthesize_prover(&out, a->circuit, NULL, &e);
        a->constraints = out.num_constraints;
        cs_prover_free(&out);
    } else if (a->backend == 1) {
        cs_counts out;
        rc = cs_count(&out, a->circuit, &e);
        a->constraints = out.num_constraints;
    } else if (a->backend == 2) {
        cs_r1cs out;
        rc = cs_record(&out, a->circuit, &e);
        a->constraints = out.num_constraints;
        cs_r1cs_free(&out);
    } else {
        cs_witness out;
        rc = cs_synthesize_witness(&out, a->circuit, &e);
        cs_witness_free(&out);
    }
    if (rc) {
        fprintf(stderr, "bench_r1cs: %s\n", e.msg);
        abort();
    }
}

BENCH(60, r1cs_synthesis)
{
    cs_synthetic syn = {.constraints = (size_t)1 << (ctx->quick ? 16 : 20), .seed = 1};
    static const char *names[4] = {
        "synthesis prover 2^%d (1 thr)", "synthesis counter 2^%d (1 thr)",
        "synthesis recorder 2^%d (1 thr)", "synthesis witness 2^%d (1 thr)"};
    run_arg a = {.circuit = cs_synthetic_circuit(&syn)};
    run_once(&a); /* the constraint count, for all backends */
    size_t n = a.constraints;
    for (int b = 0; b < 4; b++) {
        a.backend = b;
        double t = bench_time(run_once, &a, ctx->quick ? 0.05 : 0.5);
        char figure[64];
        snprintf(figure, sizeof(figure), names[b], ctx->quick ? 16 : 20);
        bench_report(figure, (double)n / t / 1e6, "Mc/s", ANCHOR_PER_CORE, "cuzk/core",
                     ">= 1x per core");
    }
}

typedef struct pce_arg {
    cs_circuit circuit;
    const cs_r1cs *r;
} pce_arg;

static void run_pce(void *p)
{
    pce_arg *a = p;
    cs_witness w;
    cs_prover out;
    cuzk_err e;
    if (cs_synthesize_witness(&w, a->circuit, &e) || cs_prover_from_witness(&out, a->r, &w, &e)) {
        fprintf(stderr, "bench_r1cs: %s\n", e.msg);
        abort();
    }
    cs_prover_free(&out);
}

BENCH(62, r1cs_pce)
{
    int log_n = ctx->quick ? 16 : 20;
    cs_synthetic syn = {.constraints = (size_t)1 << log_n, .seed = 1};
    cs_r1cs r;
    cuzk_err e;
    if (cs_record(&r, cs_synthetic_circuit(&syn), &e)) abort();
    pce_arg a = {cs_synthetic_circuit(&syn), &r};
    double t = bench_time(run_pce, &a, ctx->quick ? 0.05 : 0.5);
    char figure[64];
    snprintf(figure, sizeof(figure), "pre-compiled eval 2^%d, per thr", log_n);
    bench_report(figure, (double)r.num_constraints / t / 1e6 / ctx->threads, "Mc/s",
                 ANCHOR_PER_CORE, "cuzk/core", ">= 1x per core");
    cs_r1cs_free(&r);
}

/* Seconds for one batch of n circuits, with or without the hint. */
static double time_batch(const cs_circuit *circuits, size_t n, const cs_capacity *hint)
{
    cs_prover *out = calloc(n, sizeof(*out));
    cuzk_err e;
    double t0 = bench_now();
    int rc = hint ? cs_synthesize_batch_with_hint(out, circuits, n, hint, &e)
                  : cs_synthesize_batch(out, circuits, n, &e);
    double t = bench_now() - t0;
    if (rc) {
        fprintf(stderr, "bench_r1cs: %s\n", e.msg);
        abort();
    }
    for (size_t i = 0; i < n; i++) cs_prover_free(&out[i]);
    free(out);
    return t;
}

BENCH(61, r1cs_batch)
{
    int log_n = ctx->quick ? 16 : 20;
    size_t n = 2 * (size_t)ctx->threads, per = (size_t)1 << log_n;
    cs_synthetic *syn = calloc(n, sizeof(*syn));
    cs_circuit *circuits = calloc(n, sizeof(*circuits));
    for (size_t i = 0; i < n; i++) {
        syn[i] = (cs_synthetic){.constraints = per, .seed = i};
        circuits[i] = cs_synthetic_circuit(&syn[i]);
    }
    cs_capacity hint = {.constraints = per, .inputs = 2, .aux = per};
    double plain = 1e30, hinted = 1e30;
    for (int rep = 0; rep < (ctx->quick ? 1 : 2); rep++) { /* best of, alternating */
        double t = time_batch(circuits, n, NULL);
        plain = t < plain ? t : plain;
        t = time_batch(circuits, n, &hint);
        hinted = t < hinted ? t : hinted;
    }
    char figure[64];
    double total = (double)n * (double)per / 1e6;
    snprintf(figure, sizeof(figure), "batch %zu x 2^%d, per thread", n, log_n);
    bench_report(figure, total / plain / ctx->threads, "Mc/s", ANCHOR_PER_CORE, "cuzk/core",
                 ">= 1x per core");
    snprintf(figure, sizeof(figure), "batch %zu x 2^%d hinted, per thr", n, log_n);
    bench_report(figure, total / hinted / ctx->threads, "Mc/s", ANCHOR_PER_CORE, "cuzk/core",
                 "off by default");
    free(syn), free(circuits);
}
