/*
 * bench_poseidon.c - Poseidon out of circuit, in kH/s (thousand hashes
 * per second): one thread for arities 2 / 8 / 11 (tree-C and comm_r,
 * tree-R, column hashes), and arity 8 batched over all threads
 * (poseidon_hash_many, 64Ki hashes). Then neptune's legacy circuit
 * synthesized through the counter and the prover backends, in Mc/s
 * (million constraints per second, one thread) over a chain of arity-8
 * hashes, each feeding the next: 2000 hashes = 1M constraints (200 with
 * --quick).
 *
 * Anchor for the circuit rows: Curio's cuzk synthesizes 32 GiB PoRep at
 * about 0.25 M constraints/s per core (see bench_r1cs.c); goal: a 130M
 * constraint partition in under 15 s per core, 8.7 M constraints/s.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuzk/gadgets/poseidon.h"
#include "cuzk/poseidon.h"
#include "cuzk/r1cs.h"

#define SYNTH_ANCHOR 0.25 /* M constraints/s per core */
#define SYNTH_GOAL   ">= 8.7 M/s (130M in 15 s)"

typedef struct hash_arg {
    const poseidon_constants *c;
    fr_t state[POSEIDON_MAX_ARITY];
} hash_arg;

/* 100 chained hashes, so the work cannot be hoisted. */
static void hash_100(void *p)
{
    hash_arg *a = p;
    for (int i = 0; i < 100; i++) poseidon_hash(&a->state[i % a->c->arity], a->c, a->state);
}

static void bench_native(const bench_ctx *ctx, unsigned arity, const char *figure)
{
    hash_arg a = {.c = poseidon_std(arity)};
    for (unsigned i = 0; i < arity; i++) fr_from_u64(&a.state[i], i + 1);
    double s = bench_time(hash_100, &a, ctx->quick ? 0.2 : 1.0) / 100;
    bench_report(figure, 1e-3 / s, "kH/s", 0, "", "");
}

BENCH(75, poseidon_native_2)
{
    bench_native(ctx, 2, "Poseidon arity 2 (1 thread)");
}

typedef struct many_arg {
    const poseidon_constants *c;
    fr_t *in, *out;
    size_t n;
} many_arg;

static void hash_many(void *p)
{
    many_arg *a = p;
    poseidon_hash_many(a->out, a->c, a->in, a->n);
}

BENCH(76, poseidon_native_8)
{
    bench_native(ctx, 8, "Poseidon arity 8 (1 thread)");
    many_arg a = {.c = poseidon_std(8), .n = ctx->quick ? 4096 : 65536};
    a.in = calloc(a.n * 8, sizeof(fr_t));
    a.out = malloc(a.n * sizeof(fr_t));
    if (!a.in || !a.out) abort();
    double s = bench_time(hash_many, &a, ctx->quick ? 0.2 : 1.0);
    char figure[64];
    snprintf(figure, sizeof(figure), "Poseidon arity 8 (%d threads)", ctx->threads);
    bench_report(figure, a.n / s * 1e-3, "kH/s", 0, "", "");
    free(a.in);
    free(a.out);
}

/* 8 x 100 chained hashes through poseidon_hash_batch, 8 at a time. */
static void batch_800(void *p)
{
    hash_arg *a = p;
    fr_t in[8 * 8], out[8];
    for (unsigned i = 0; i < 8 * 8; i++) in[i] = a->state[i % 8];
    for (int r = 0; r < 100; r++) {
        poseidon_hash_batch(out, a->c, in, 8);
        for (unsigned k = 0; k < 8; k++) in[k * 8 + r % 8] = out[k];
    }
    a->state[0] = out[0];
}

/* fn (800 arity-8 hashes or traces) with the lanes (AVX-512 IFMA) and
 * without, reported as "Poseidon arity 8 <what>, ...". */
static void lanes_and_not(const bench_ctx *ctx, void (*fn)(void *), const char *what)
{
    hash_arg a = {.c = poseidon_std(8)};
    for (unsigned i = 0; i < 8; i++) fr_from_u64(&a.state[i], i + 1);
    for (int lanes = 1; lanes >= 0; lanes--) {
        if (poseidon_use_lanes(lanes) != lanes) continue; /* no IFMA here */
        double s = bench_time(fn, &a, ctx->quick ? 0.2 : 1.0) / 800;
        char figure[64];
        snprintf(figure, sizeof figure, "Poseidon arity 8 %s, %s (1 thread)", what,
                 lanes ? "IFMA lanes" : "one by one");
        bench_report(figure, 1e-3 / s, "kH/s", 0, "", "");
    }
    poseidon_use_lanes(true);
}

/* poseidon_hash_batch of arity 8 with its lanes and without. */
BENCH(76, poseidon_batch_8)
{
    lanes_and_not(ctx, batch_800, "batch");
}

/* 8 x 100 chained traces (the circuit's values: poseidon_trace_batch). */
static void trace_800(void *p)
{
    hash_arg *a = p;
    size_t len = poseidon_trace_len(a->c);
    fr_t in[8 * 8], *out = malloc(8 * len * sizeof(fr_t));
    if (!out) abort();
    for (unsigned i = 0; i < 8 * 8; i++) in[i] = a->state[i % 8];
    for (int r = 0; r < 100; r++) {
        poseidon_trace_batch(out, a->c, in, 8);
        for (unsigned k = 0; k < 8; k++) in[k * 8 + r % 8] = out[k * len + len - 1];
    }
    a->state[0] = out[len - 1];
    free(out);
}

/* poseidon_trace_batch of arity 8 with its lanes and without: a Window
 * PoSt witness is these traces (por.h por_ahead_paths). */
BENCH(76, poseidon_trace_8)
{
    lanes_and_not(ctx, trace_800, "trace");
}

BENCH(77, poseidon_native_11)
{
    bench_native(ctx, 11, "Poseidon arity 11 (1 thread)");
}

/* ---- circuit ---- */

typedef struct chain {
    size_t hashes;
    size_t constraints; /* filled by the run */
    int backend;        /* 0 counter, 1 prover */
} chain;

static int chain_synth(cs_t *cs, void *p)
{
    const chain *x = p;
    const poseidon_constants *c = poseidon_std(8);
    num_var in[8];
    for (unsigned i = 0; i < 8; i++) {
        fr_t v;
        fr_from_u64(&v, i);
        in[i] = num_alloc(cs, &v);
    }
    for (size_t h = 0; h < x->hashes && !cs_status(cs); h++)
        in[h % 8] = poseidon_gadget_hash(cs, c, in);
    return cs_status(cs);
}

static void chain_run(void *p)
{
    chain *x = p;
    cuzk_err e;
    int rc;
    if (x->backend == 0) {
        cs_counts k;
        rc = cs_count(&k, (cs_circuit){chain_synth, x}, &e);
        x->constraints = k.num_constraints;
    } else {
        cs_prover out;
        rc = cs_synthesize_prover(&out, (cs_circuit){chain_synth, x}, NULL, &e);
        x->constraints = out.num_constraints;
        cs_prover_free(&out);
    }
    if (rc) {
        fprintf(stderr, "bench_poseidon: %s\n", e.msg);
        abort();
    }
}

static void bench_gadget(const bench_ctx *ctx, int backend, const char *figure)
{
    chain x = {.hashes = ctx->quick ? 200 : 2000, .backend = backend};
    double s = bench_time(chain_run, &x, ctx->quick ? 0.2 : 1.0);
    bench_report(figure, x.constraints / s * 1e-6, "Mc/s", SYNTH_ANCHOR, "Curio per core",
                 SYNTH_GOAL);
}

BENCH(78, poseidon_gadget_count)
{
    bench_gadget(ctx, 0, "Poseidon-8 circuit, counter (1 thread)");
}

BENCH(79, poseidon_gadget_prove)
{
    bench_gadget(ctx, 1, "Poseidon-8 circuit, prover (1 thread)");
}
