/*
 * bench_engine.c - the host CPU one partition costs in the engine, with
 * and without the partition pool (memory.reuse_partitions; issue 15).
 *
 * A sequence of PoRep partitions (a synthetic C1, vanilla_c1_synthetic; one
 * job per partition, partitions taken in turn, one job at a time, as a
 * stream of proofs of one sector size) goes through the engine: its
 * synthesis worker (synthesis.threads = 1) and a backend that proves
 * nothing but consumes the circuits (reads every entry of a, b, c and both
 * assignments, as a GPU prover's staging copy does). Rows: user and system
 * CPU-seconds of the process per partition, for the first partition of the
 * sequence ("1st": fresh memory either way) and the mean of the others
 * ("next"), with the pool off ("fresh": every partition's storage freed
 * once consumed, so fresh pages, faulted in and zeroed by the kernel,
 * every time) and on ("pool"), both by full synthesis
 * (synthesis.witness_only = false), and on the witness-only path with the
 * pool ("witness-only, pool": the backend reads the assignments alone, as
 * the GPU prover uploads them; the first partition records the shape).
 *
 * The backend's proofs are placeholders, so every job ends FAILED at
 * self-verification; the bench checks that this is the only failure. Its
 * parameters are development ones of a tiny circuit (the backend reads
 * none of them). Shapes: 512MiB (2KiB with --quick) and 32GiB cut to 2 of
 * its 18 challenges (~14.5M constraints); the whole 32GiB partition
 * (~17 GiB resident at once) only with CUZK_BENCH_LARGE=1.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/engine_backend.h"
#include "cuzk/engine_log.h"
#include "cuzk/engine_provider.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/rng.h"

#define CIRCUIT_ID "bench-porep"

/* ---- a backend that consumes the circuits ---- */

static volatile uint64_t sink;

static int consume_devices(size_t *n, char names[][128], uint64_t *vram_total, size_t max)
{
    if (max < 1) return CUZK_EINVAL;
    snprintf(names[0], 128, "consume");
    vram_total[0] = 0;
    *n = 1;
    return CUZK_OK;
}

static uint64_t fold(const fr_t *v, size_t n)
{
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) x ^= v[i].l[0] ^ v[i].l[3];
    return x;
}

static int consume_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                         void **handle, cuzk_err *err)
{
    (void)device;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        const cs_prover *c = &circuits[i];
        if (!c->shape) /* the witness-only path uploads the assignment alone */
            x ^= fold(c->a, c->num_constraints) ^ fold(c->b, c->num_constraints) ^
                 fold(c->c, c->num_constraints);
        x ^= fold(c->input_assignment, c->num_inputs) ^ fold(c->aux_assignment, c->num_aux);
    }
    sink = x;
    groth16_proof *proof = malloc(sizeof *proof);
    if (!proof) return cuzk_errf(err, CUZK_ENOMEM, "consume backend: out of memory");
    *proof = (groth16_proof){pk->vk.alpha_g1, pk->vk.beta_g2, pk->vk.alpha_g1};
    *handle = proof;
    return CUZK_OK;
}

static int consume_finish(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    (void)err;
    for (size_t i = 0; i < n; i++) proofs[i] = *(groth16_proof *)handle;
    free(handle);
    return CUZK_OK;
}

static const engine_backend consume_backend = {.name = "consume",
                                               .devices = consume_devices,
                                               .start = consume_start,
                                               .finish = consume_finish};

/* ---- a provider of the shape's partitions ---- */

/* The shape every request of the sequence reads (set before the engine
 * starts, read-only while it runs). */
static struct {
    vanilla_c1 c1;
    cs_capacity size;
} shape;

static bool bench_claims(const engine_request *req)
{
    return req->kind == ENGINE_POREP;
}

static bool bench_lookup(const char *circuit_id, engine_circuit_info *info)
{
    if (strcmp(circuit_id, CIRCUIT_ID)) return false;
    memset(info, 0, sizeof *info);
    snprintf(info->circuit_id, sizeof info->circuit_id, "%s", CIRCUIT_ID);
    snprintf(info->param_name, sizeof info->param_name, "cuzk-bench-engine-dev");
    return true;
}

static void bench_release(engine_circuits *c)
{
    free(c->state);
    free(c->partitions);
    free(c->inputs);
    memset(c, 0, sizeof *c);
}

/* The request's vanilla proof is the partition's index (one byte). */
static int bench_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    if (req->vanilla_proof.len != 1 || req->vanilla_proof.data[0] >= shape.c1.partitions)
        return cuzk_errf(err, CUZK_EINVAL, "bench provider: not a partition index");
    bench_lookup(CIRCUIT_ID, &out->info);
    porep_circuit *pc = malloc(sizeof *pc);
    out->state = pc;
    out->release = bench_release;
    out->partitions = calloc(1, sizeof *out->partitions);
    out->inputs = calloc(1, sizeof *out->inputs);
    if (!pc || !out->partitions || !out->inputs) {
        bench_release(out);
        return cuzk_errf(err, CUZK_ENOMEM, "bench provider: out of memory");
    }
    int rc = porep_circuit_init(pc, &shape.c1, req->vanilla_proof.data[0], err);
    if (rc) {
        bench_release(out);
        return rc;
    }
    out->partitions[0] = porep_circuit_get(pc);
    out->n_partitions = 1;
    out->n_inputs = 1;
    out->size = shape.size;
    return CUZK_OK;
}

static int bench_setup_dev(const char *circuit_id, const char *params_path,
                           const groth16_setup_backend *be, cuzk_err *err)
{
    (void)circuit_id;
    static const cs_synthetic tiny = {300, 1};
    return groth16_setup_dev_write(params_path, NULL, cs_synthetic_circuit(&tiny), 1, be, NULL,
                                   err);
}

static const engine_provider bench_provider = {.name = "bench",
                                               .claims = bench_claims,
                                               .prepare = bench_prepare,
                                               .lookup = bench_lookup,
                                               .setup_dev = bench_setup_dev};

/* ---- the sequence ---- */

static double seconds(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

static void die(const char *what, const cuzk_err *e)
{
    fprintf(stderr, "bench_engine: %s: %s\n", what, e ? e->msg : "failed");
    abort();
}

/* CPU-seconds (user, sys) of each of n partitions in a row (witness: the
 * witness-only path, whose first partition records the shape). */
static void sequence(const char *param_cache, bool reuse, bool witness, size_t n, double *user,
                     double *sys)
{
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    snprintf(cfg.param_cache, sizeof cfg.param_cache, "%s", param_cache);
    /* One partition at a time: the budget only has to admit the whole
     * 32GiB reservation (its NTT buffers included, which this backend
     * never allocates). */
    cfg.total_budget = (uint64_t)1 << 40;
    cfg.synthesis_threads = 1;
    cfg.gpu_threads = 1;
    cfg.pipeline_enabled = false;
    cfg.reuse_partitions = reuse;
    cfg.witness_only = witness;
    engine_t *e;
    cuzk_err err;
    bool loaded;
    uint64_t load_ms;
    if (engine_create(&e, &cfg, &consume_backend, &err) ||
        engine_register_provider(e, &bench_provider, &err) ||
        engine_preload(e, CIRCUIT_ID, &loaded, &load_ms, &err))
        die("engine", &err);
    for (size_t k = 0; k < n; k++) {
        uint8_t part = (uint8_t)(k % shape.c1.partitions);
        engine_request req = {
            .kind = ENGINE_POREP, .priority = ENGINE_PRIO_NORMAL, .vanilla_proof = {&part, 1}};
        char id[ENGINE_ID_MAX];
        engine_result r;
        struct rusage r0, r1;
        getrusage(RUSAGE_SELF, &r0);
        if (engine_submit(e, &req, id, NULL, &err) || engine_await(e, id, 0, &r, NULL, NULL, &err))
            die("job", &err);
        getrusage(RUSAGE_SELF, &r1);
        if (r.status != ENGINE_FAILED || !strstr(r.error, "self-verification"))
            die(r.error[0] ? r.error : "a job the consuming backend cannot complete completed",
                NULL);
        engine_result_free(&r);
        user[k] = seconds(r1.ru_utime) - seconds(r0.ru_utime);
        sys[k] = seconds(r1.ru_stime) - seconds(r0.ru_stime);
    }
    engine_destroy(e);
}

static void rows(const char *name, const char *mode, const double *user, const double *sys,
                 size_t n)
{
    double u = 0, s = 0;
    for (size_t k = 1; k < n; k++) u += user[k], s += sys[k];
    char fig[160];
    snprintf(fig, sizeof fig, "engine %s, %s: 1st user", name, mode);
    bench_report(fig, user[0], "CPU-s", 0, NULL, "report");
    snprintf(fig, sizeof fig, "engine %s, %s: 1st sys", name, mode);
    bench_report(fig, sys[0], "CPU-s", 0, NULL, "report");
    snprintf(fig, sizeof fig, "engine %s, %s: next %zu user", name, mode, n - 1);
    bench_report(fig, u / (double)(n - 1), "CPU-s", 0, NULL, "report");
    snprintf(fig, sizeof fig, "engine %s, %s: next %zu sys", name, mode, n - 1);
    bench_report(fig, s / (double)(n - 1), "CPU-s", 0, NULL, "report");
}

/* A shape's sequence of n partitions, pool off then on. */
static void run_shape(int registered_proof, const char *name, size_t challenges, size_t n)
{
    cuzk_rng g;
    cuzk_err e;
    cuzk_rng_seed(&g, 42);
    if (vanilla_c1_synthetic(&shape.c1, registered_proof, &g, &e)) die(name, &e);
    size_t all = shape.c1.challenges;
    if (challenges) shape.c1.challenges = challenges;
    porep_circuit pc;
    cs_counts counts;
    if (porep_circuit_init(&pc, &shape.c1, 0, &e) || cs_count(&counts, porep_circuit_get(&pc), &e))
        die(name, &e);
    shape.size = (cs_capacity){counts.num_constraints - counts.num_inputs, counts.num_inputs,
                               counts.num_aux};
    char dir[] = "/tmp/cuzk-bench-engine.XXXXXX";
    if (!mkdtemp(dir)) die("mkdtemp", NULL);
    double user[3][16], sys[3][16];
    for (int m = 0; m < 3; m++) sequence(dir, m > 0, m == 2, n, user[m], sys[m]);
    rows(name, "fresh", user[0], sys[0], n);
    rows(name, "pool", user[1], sys[1], n);
    rows(name, "witness-only, pool", user[2], sys[2], n);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "bench_engine: could not remove %s\n", dir);
    shape.c1.challenges = all;
    vanilla_c1_free(&shape.c1);
}

BENCH(74, engine_partitions)
{
    (void)ctx;
    engine_log_set_level("error");
    /* registered proofs V1_1: 5 2KiB, 7 512MiB, 8 32GiB */
    if (ctx->quick) {
        run_shape(5, "2KiB", 0, 3);
        return;
    }
    run_shape(7, "512MiB", 0, 4);
    run_shape(8, "32GiB 2/18 chal.", 2, 4);
    if (getenv("CUZK_BENCH_LARGE")) run_shape(8, "32GiB", 0, 3);
}
