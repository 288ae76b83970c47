/*
 * test_gpu_prove_host.c - the GPU prover's host code (src/gpu/prove) on
 * the stand-in CUDA runtime of this folder, so without a GPU: the checks
 * test_gpu runs on a device (gpu_prove_checks.c, quick sizes: GPU proof
 * bytes == CPU proof bytes and verifying, batches, snarkjs, a refused
 * shape, the engine on the CUDA backend), then the device-memory policy:
 * with room for one circuit's parameters only, proofs alternating between
 * two parameter sets evict each other and stay correct; with room for
 * none, proving fails with an out-of-memory error instead of aborting;
 * and a slow link, under which the H step overlaps the upload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/gpu_prove.h"
#include "gpu_prove_checks.h"
#include "host_budget.h"

static int failures;

/* x_0 = 1 public, then n constraints y_k * x_0 = y_{k+1} */
static int chain(cs_t *cs, void *ctx)
{
    size_t n = *(const size_t *)ctx;
    fr_t v = FR_ONE;
    cs_var x = cs_alloc_input(cs, &v), y = cs_alloc(cs, &v);
    cs_lc a = {0}, b = {0}, o = {0};
    for (size_t k = 0; k < n; k++) {
        cs_var z = cs_alloc(cs, &v);
        lc_clear(&a), lc_clear(&b), lc_clear(&o);
        lc_add_var(&a, y), lc_add_var(&b, x), lc_add_var(&o, z);
        cs_enforce(cs, &a, &b, &o);
        y = z;
    }
    lc_free(&a), lc_free(&b), lc_free(&o);
    return cs_status(cs);
}

/* The GPU and CPU proofs of w with r = s = 1 (a difference is a failure);
 * returns the GPU prover's status. */
static int prove_both(const groth16_params *p, const cs_prover *w, cuzk_err *err)
{
    fr_t rs[2] = {FR_ONE, FR_ONE};
    groth16_proof g, c;
    int rc = gpu_groth16_prove(&g, p, w, 1, rs, NULL, err);
    cuzk_err cerr = {0};
    if (groth16_prove(&c, p, w, 1, rs, NULL, &cerr)) failures++, printf("FAIL cpu: %s\n", cerr.msg);
    if (!rc && memcmp(&g, &c, sizeof g)) failures++, printf("FAIL: GPU proof != CPU proof\n");
    return rc;
}

static void check_memory_policy(void)
{
    size_t n[2] = {3000, 3100};
    groth16_params p[2];
    cs_prover w[2];
    cuzk_err err = {0};
    for (int k = 0; k < 2; k++) {
        cs_circuit c = {chain, &n[k]};
        if (groth16_setup_dev(&p[k], c, 1 + k, &err) || cs_synthesize_prover(&w[k], c, NULL, &err))
            return (void)(failures++, printf("FAIL setup: %s\n", err.msg));
    }
    /* with the working buffers there (the first proof makes them), one
     * parameter set (about 1 MB) fits, two do not */
    gpu_prove_release();
    if (prove_both(&p[0], &w[0], &err)) failures++, printf("FAIL prove: %s\n", err.msg);
    gpu_prove_params_free(&p[0]);
    host_budget_allow(1500000);
    const int order[] = {0, 1, 0, 1, 1, 0};
    for (int i = 0; i < 6; i++) {
        int k = order[i], rc = prove_both(&p[k], &w[k], &err);
        if (rc) failures++, printf("FAIL prove %d under a tight budget: %s\n", k, err.msg);
        if (gpu_prove_params_bytes() > 1000000)
            failures++, printf("FAIL: both parameter sets stayed on the device\n");
    }
    gpu_prove_release();
    host_budget_allow(100000);
    int rc = prove_both(&p[0], &w[0], &err);
    if (rc != CUZK_EDEVICE || !strstr(err.msg, "out of memory"))
        failures++, printf("FAIL: no room at all gave rc %d (%s)\n", rc, err.msg);
    host_budget_allow(1LL << 40);
    printf("memory: two parameter sets evict each other under a tight budget; none fits: %s\n",
           err.msg);
    for (int k = 0; k < 2; k++) {
        gpu_prove_params_free(&p[k]);
        groth16_params_free(&p[k]);
        cs_prover_free(&w[k]);
    }
}

/* A slow link: the H step starts while a, b, c are still coming up, so
 * it runs transform by transform as their rows land (prove_gpu.cu); one
 * circuit and a batch of three, both equal to the CPU's proofs. */
static void check_slow_link(void)
{
    size_t n = 3000;
    cs_circuit c = {chain, &n};
    groth16_params p;
    cs_prover w[3];
    cuzk_err err = {0};
    if (groth16_setup_dev(&p, c, 3, &err) || cs_synthesize_prover(&w[0], c, NULL, &err))
        return (void)(failures++, printf("FAIL setup: %s\n", err.msg));
    w[1] = w[2] = w[0];
    host_dma_delay(30000);
    fr_t rs[6] = {FR_ONE, FR_ONE, FR_ONE, FR_ONE, FR_ONE, FR_ONE};
    groth16_proof g[3], cpu[3];
    int rc = gpu_groth16_prove(g, &p, w, 3, rs, NULL, &err);
    host_dma_delay(0);
    if (rc) failures++, printf("FAIL slow link: %s\n", err.msg);
    if (groth16_prove(cpu, &p, w, 3, rs, NULL, &err)) failures++, printf("FAIL cpu: %s\n", err.msg);
    if (!rc && memcmp(g, cpu, sizeof g)) failures++, printf("FAIL slow link: GPU != CPU\n");
    printf("slow link (the H step overlapping the upload): 3 circuits == CPU\n");
    gpu_prove_params_free(&p);
    groth16_params_free(&p);
    cs_prover_free(&w[0]);
}

/* The staging pool's pieces, chunks and slots (prove_upload): sizes around
 * a piece (4 MiB), a chunk (32 MiB) and the four slots' reuse, with and
 * without a slow link, arrive byte for byte. */
static void check_upload(void)
{
    const size_t M = (size_t)1 << 20;
    const size_t sizes[] = {1, 4 * M - 1, 4 * M, 4 * M + 1, 32 * M + 12345, 128 * M, 300 * M + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int delay = 0; delay <= 2000; delay += 2000) {
            long long bad = host_upload_check(sizes[i], (unsigned)i + 1, delay);
            if (bad)
                failures++,
                    printf("FAIL upload of %zu bytes (delay %d us): %lld\n", sizes[i], delay, bad);
        }
    for (int delay = 0; delay <= 2000; delay += 2000) {
        long long bad = host_upload_pair_check(100 * M + 3, delay);
        if (bad)
            failures++,
                printf("FAIL two uploads through one pool (delay %d us): %lld\n", delay, bad);
    }
    printf("staging: uploads of 1 byte .. 300 MiB arrive intact (pieces, chunks, slot reuse), "
           "also two at once through one pool\n");
}

int main(int argc, char **argv)
{
    cuzk_rng g;
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    printf("seed: %llu\n", (unsigned long long)seed);
    cuzk_rng_seed(&g, seed);
    failures += gpu_prove_checks(&g, 1);
    check_memory_policy();
    check_slow_link();
    check_upload();
    printf(failures ? "test_gpu_prove_host: %d FAILURES\n" : "test_gpu_prove_host: all passed\n",
           failures);
    return failures != 0;
}
