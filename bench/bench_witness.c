/*
 * bench_witness.c - what one PoRep partition's synthesis costs the host
 * through the witness path (cs_synthesize_witness_into: aux values only,
 * the constraints counted, not built; a, b, c then come from the recorded
 * matrices on the GPU) against the prover backend
 * (cs_synthesize_prover_into: a, b, c, assignments, densities), on 1 and
 * on all OpenMP threads.
 *
 * Each figure is one synthesis into the storage an earlier one of the same
 * circuit left (as the engine's partition pool reuses it), so neither side
 * pays for fresh pages; the untimed first run, on all threads, also
 * measures the units' sizes (once per shape and process, as in a daemon).
 * Rows give the process's user and system CPU-seconds (getrusage; the
 * 1-thread row includes a few ms of the idle OpenMP threads spinning) and
 * the wall clock. Shapes: a 32GiB partition of a synthetic C1 cut to 2 of its 18
 * challenges (~14.5M constraints; 2KiB with --quick); with
 * CUZK_BENCH_LARGE=1 the whole 32GiB partition (130.3M constraints) through
 * the witness path (~4.2 GB), and through the prover backend too (~17 GB)
 * only with CUZK_BENCH_LARGE_PROVER=1.
 *
 * Also: the share of the witness's values that are 0 or 1, what a
 * witness with those as two bits each would weigh (the lever left on the
 * bytes synthesis writes and the prover copies and uploads), and the GPU
 * loader's packed upload of it (prove_upload_fr) against the plain copy.
 *
 * Goal (issue 15): the witness of a whole 32GiB partition in <= ~2
 * CPU-seconds on one thread of a fast core.
 */
#include "bench.h"

#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/rng.h"
#include "gpu/prove/fr_pack.cuh"

typedef struct cost {
    double user, sys, wall;
} cost;

static cost cost_now(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (cost){(double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec,
                  (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec, bench_now()};
}

static void die(const char *what, const cuzk_err *e)
{
    fprintf(stderr, "bench_witness: %s: %s\n", what, e->msg);
    abort();
}

/* One synthesis of c into *kept on `threads` threads (witness path or
 * prover backend); returns its cost. */
static cost synth(cs_prover *kept, cs_circuit c, bool witness, int threads)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    cuzk_err e;
    cost t0 = cost_now();
    int rc = witness ? cs_synthesize_witness_into(kept, c, NULL, &e)
                     : cs_synthesize_prover_into(kept, c, NULL, &e);
    cost t1 = cost_now();
    omp_set_num_threads(saved);
    if (rc) die(witness ? "witness" : "prover", &e);
    return (cost){t1.user - t0.user, t1.sys - t0.sys, t1.wall - t0.wall};
}

static void report(const char *name, const char *path, int threads, const cost *t, const char *goal)
{
    static const char *const what[3] = {"user", "sys", "wall"};
    const double v[3] = {t->user, t->sys, t->wall};
    for (int i = 0; i < 3; i++) {
        char fig[128];
        snprintf(fig, sizeof fig, "porep %s %s, %d thr (%s)", name, path, threads, what[i]);
        bench_report(fig, v[i], "s", 0, NULL, i == 0 && threads == 1 ? goal : "report");
    }
}

/* The GPU loader's upload of the witness's aux values on one thread
 * (staging.cu): pieces of 4 MiB packed (fr_pack.cuh; a piece taking more
 * than a quarter of its bytes copied as it is) into a ring of 32 MiB, as
 * prove_upload_fr's copy threads do into the pinned chunks, against the
 * plain copy of every piece that prove_upload made; the bytes that cross.
 * Both after one untimed copy: the first pass over a just-synthesized
 * witness costs ~0.2 s more on this VM whichever it is (either order
 * measured: the first one always paid it), and the loader's is the first
 * pass in both cases. */
static void upload(const char *name, const cs_prover *w)
{
    const size_t piece = (size_t)4 << 20, per = piece / sizeof(fr_t), ring = (size_t)32 << 20;
    char *r = malloc(ring);
    if (!r) return;
    memset(r, 0, ring);
    size_t n = w->num_aux, crossed = 0;
    const fr_t *v = w->aux_assignment;
    for (size_t i = 0, k = 0; i < n; i += per, k++) {
        size_t nv = n - i < per ? n - i : per;
        memcpy(r + k * piece % ring, v + i, nv * sizeof(fr_t));
    }
    cost t0 = cost_now();
    for (size_t i = 0, k = 0; i < n; i += per, k++) {
        size_t nv = n - i < per ? n - i : per, at = k * piece % ring;
        size_t b = fr_pack(r + at, nv * sizeof(fr_t) / 4, v + i, nv);
        if (!b) memcpy(r + at, v + i, b = nv * sizeof(fr_t));
        crossed += b;
    }
    cost t1 = cost_now();
    for (size_t i = 0, k = 0; i < n; i += per, k++) {
        size_t nv = n - i < per ? n - i : per;
        memcpy(r + k * piece % ring, v + i, nv * sizeof(fr_t));
    }
    cost t2 = cost_now();
    free(r);
    char fig[128];
    snprintf(fig, sizeof fig, "porep %s witness: bytes crossing, packed (of 32 B each)", name);
    bench_report(fig, 100.0 * (double)crossed / (32.0 * (double)n), "%", 0, NULL, "report");
    snprintf(fig, sizeof fig, "porep %s witness: packed for upload, 1 thr (user)", name);
    bench_report(fig, t1.user - t0.user, "s", 0, NULL, "report");
    snprintf(fig, sizeof fig, "porep %s witness: copied for upload, 1 thr (user)", name);
    bench_report(fig, t2.user - t1.user, "s", 0, NULL, "report");
}

/* What the witness is made of: the share of its values that are 0 or 1
 * (one bit each would do), and the bytes a witness would take with those
 * as two bits a variable and the others as 32 bytes each, against the 32
 * bytes a variable written, copied and uploaded today. */
static void composition(const char *name, const cs_prover *w)
{
    size_t n = w->num_inputs + w->num_aux, bits = 0;
    for (size_t i = 0; i < n; i++) {
        const fr_t *v =
            i < w->num_inputs ? &w->input_assignment[i] : &w->aux_assignment[i - w->num_inputs];
        bits += fr_is_zero(v) || fr_is_one(v);
    }
    char fig[128];
    snprintf(fig, sizeof fig, "porep %s witness: values 0 or 1", name);
    bench_report(fig, 100.0 * (double)bits / (double)n, "%", 0, NULL, "report");
    double today = 32.0 * (double)n, compact = (double)n / 4 + 32.0 * (double)(n - bits);
    snprintf(fig, sizeof fig, "porep %s witness: bytes, 2 bits a 0/1 value (of 32 B each)", name);
    bench_report(fig, 100.0 * compact / today, "%", 0, NULL, "report");
    upload(name, w);
}

/* Both paths, each on 1 thread and on all, into its own kept storage. */
static void run(const vanilla_c1 *c1, const char *name, int threads, bool prover, const char *goal)
{
    porep_circuit pc;
    cuzk_err e;
    if (porep_circuit_init(&pc, c1, 0, &e)) die(name, &e);
    cs_circuit c = porep_circuit_get(&pc);
    for (int side = 0; side < (prover ? 2 : 1); side++) {
        bool witness = side == 0;
        cs_prover kept;
        memset(&kept, 0, sizeof(kept));
        synth(&kept, c, witness, threads); /* storage, and the unit sizes */
        if (witness) composition(name, &kept);
        const int counts[2] = {1, threads};
        for (int i = 0; i < (threads > 1 ? 2 : 1); i++) {
            cost k = synth(&kept, c, witness, counts[i]);
            report(name, witness ? "witness" : "prover", counts[i], &k, witness ? goal : "report");
        }
        cs_prover_free(&kept);
    }
}

static void shape(int registered_proof, const char *name, size_t challenges, int threads,
                  bool prover, const char *goal)
{
    vanilla_c1 c1;
    cuzk_rng g;
    cuzk_err e;
    cuzk_rng_seed(&g, 42);
    if (vanilla_c1_synthetic(&c1, registered_proof, &g, &e)) die("C1", &e);
    size_t all = c1.challenges;
    if (challenges) c1.challenges = challenges;
    run(&c1, name, threads, prover, goal);
    c1.challenges = all;
    vanilla_c1_free(&c1);
}

BENCH(74, synth_witness)
{
    /* registered proofs V1_1: 5 2KiB, 8 32GiB */
    if (ctx->quick) {
        shape(5, "2KiB", 0, ctx->threads, true, "report");
        return;
    }
    shape(8, "32GiB (2 of 18 ch.)", 2, ctx->threads, true, "report");
    if (getenv("CUZK_BENCH_LARGE"))
        shape(8, "32GiB", 0, ctx->threads, getenv("CUZK_BENCH_LARGE_PROVER") != NULL,
              "<= ~2 CPU-s (fast core)");
}
