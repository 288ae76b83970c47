/*
 * bench_gadgets.c - SHA-256 circuit synthesis throughput: a chain of
 * compressions over allocated 512-bit blocks (a long message hashed
 * without padding, as PoRep's labels and tree-D are), through the prover,
 * counter and witness backends on one thread, in constraints per second.
 * The witness backend ignores constraints, so its row is close to the
 * gadgets' own cost. 64 blocks (1.69M constraints); 4 with --quick.
 *
 * Anchor: as bench_r1cs.c, Curio's cuzk at ~0.25 M constraints/s per core
 * on SHA-256 / Poseidon circuits. Goal (issue 4): a 130M-constraint 32 GiB
 * PoRep partition in under 15 s on one core, 130e6 / 15 = 8.7 M/s.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuzk/gadgets/sha256.h"
#include "cuzk/r1cs.h"

#define ANCHOR_PER_CORE 0.25 /* M constraints/s per core, see bench_r1cs.c */
#define GOAL            "8.7 Mc/s (130M in 15 s)"

typedef struct chain_ctx {
    size_t blocks;
} chain_ctx;

static int chain_synth(cs_t *cs, void *p)
{
    const chain_ctx *x = p;
    u32_var state[8];
    bool_var block[512];
    uint64_t s = 0x9e3779b97f4a7c15u; /* splitmix-style bits, fixed */
    sha256_gadget_iv(state);
    for (size_t b = 0; b < x->blocks; b++) {
        for (int i = 0; i < 512; i++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            block[i] = bit_alloc(cs, s >> 63);
        }
        sha256_gadget_compress(cs, state, block, state);
    }
    return cs_status(cs);
}

typedef struct run_arg {
    cs_circuit circuit;
    int backend; /* 0 prover, 1 counter, 2 witness */
    size_t constraints;
} run_arg;

static void run_once(void *p)
{
    run_arg *a = p;
    cuzk_err e;
    int rc;
    if (a->backend == 1) {
        cs_counts k;
        rc = cs_count(&k, a->circuit, &e);
        a->constraints = k.num_constraints;
    } else if (a->backend == 2) { /* no count: a->constraints stays the prover's */
        cs_witness w;
        rc = cs_synthesize_witness(&w, a->circuit, &e);
        cs_witness_free(&w);
    } else {
        cs_prover out;
        rc = cs_synthesize_prover(&out, a->circuit, NULL, &e);
        a->constraints = out.num_constraints;
        cs_prover_free(&out);
    }
    if (rc) {
        fprintf(stderr, "bench_gadgets: %s\n", e.msg);
        abort();
    }
}

BENCH(70, gadgets_sha256)
{
    chain_ctx x = {ctx->quick ? 4 : 64};
    run_arg a = {.circuit = {chain_synth, &x}};
    static const char *names[3] = {"sha256 %zu blocks prover (1 thr)",
                                   "sha256 %zu blocks counter (1 thr)",
                                   "sha256 %zu blocks witness (1 thr)"};
    for (int b = 0; b < 3; b++) {
        a.backend = b;
        double t = bench_time(run_once, &a, ctx->quick ? 0.05 : 1.0);
        char figure[64];
        snprintf(figure, sizeof(figure), names[b], x.blocks);
        bench_report(figure, (double)a.constraints / t / 1e6, "Mc/s", ANCHOR_PER_CORE, "cuzk/core",
                     GOAL);
    }
}
