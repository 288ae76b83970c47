/*
 * test_gpu_prove_host.c - the GPU prover's host code (src/gpu/prove) on
 * the stand-in CUDA runtime of this folder, so without a GPU: the checks
 * test_gpu runs on a device (gpu_prove_checks.c, quick sizes: GPU proof
 * bytes == CPU proof bytes and verifying, batches, snarkjs, a refused
 * shape, the engine on the CUDA backend), then the device-memory policy:
 * with room for one circuit's parameters only, proofs alternating between
 * two parameter sets evict each other and stay correct; with room for
 * none, proving fails with an out-of-memory error instead of aborting;
 * the residency plan under caps and a small device (every parameter
 * array resident, all streamed in chunks, some of each, page-locked once
 * per array or staged: the same proof bytes; too small: an error);
 * a slow link, under which the H step overlaps the upload; and two
 * devices (the stand-in checks that every copy and kernel gets memory of
 * its own device): proofs on both at once, each device's parameter copy
 * and memory budget its own, a lost or faulted device failing its proofs
 * with a device error while the other proves on, and the engine on the
 * CUDA backend taking a faulted device out of service and proving its
 * partitions on the other. Circuit shapes (shape_cache.cu): a, b, c of the
 * synthetic circuit through gpu_shape_eval_dev (the kernels' per-entry
 * code on the CPU) equal cs_shape_eval's, an altered witness fails in the
 * same constraint, the shape is cached once and forgotten. The witness-
 * only path with no room for B_G2's points on the device: the B job the
 * device made comes back to the host for the CPU's B_G2, the same bytes;
 * and each device allocation of a batch refused in turn: the proofs the
 * CPU's, the CPU's prep standing in where the device prep's buffers are
 * refused and the start tried again with a smaller plan where another
 * allocation is, nothing left on the device.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/engine_backend.h"
#include "cuzk/engine_log.h"
#include "cuzk/engine_provider.h"
#include "cuzk/gpu_lane.h"
#include "cuzk/gpu_prove.h"
#include "bench_gpu_prove.h"
#include "gpu_lane_checks.h"
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
    if (rc != CUZK_ENOMEM || !strstr(err.msg, "out of memory"))
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

/* The plan of the last start on device 0, checked against the mode
 * expected: every G1 array resident; H and L (the largest) streamed in
 * chunks, B_G2 too; some of each. Returns the arrays streamed (B_G2
 * included: their host copies are page-locked). */
enum { ALL_KEPT, STREAMED, MIXED };
static int check_mode(const char *what, int mode, size_t n_h)
{
    gpu_prove_plan_info pl;
    gpu_prove_device_plan(0, &pl);
    int kept = 0;
    for (int k = 0; k < 4; k++) kept += pl.resident[k];
    bool ok = pl.made && (mode == ALL_KEPT   ? kept == 4 && pl.streamed == 0
                          : mode == STREAMED ? !pl.resident[0] && !pl.resident[1] &&
                                                   pl.chunk < n_h && pl.b_g2_streamed
                                             : kept > 0 && kept < 4 && pl.streamed > 0);
    char line[512];
    gpu_prove_format_plan(line, sizeof line, &pl);
    if (!ok) failures++;
    printf("%s%s: %s\n", ok ? "" : "FAIL ", what, line);
    return 4 - kept + pl.b_g2_streamed;
}

/* Rule 5's prefix under a streamed plan: the room left keeps the first
 * points of the largest streamed G1 array (H here), whole chunks, and the
 * plan streams the rest of it (prove_cmp then holds the copies to that). */
static void check_prefix(const gpu_prove_plan_info *pl, const groth16_params *p)
{
    size_t n[4] = {p->n_h, p->n_l, p->n_a, p->n_b_g1}, streamed = 0, prefix = 0;
    for (int k = 0; k < 4; k++)
        if (!pl->resident[k]) streamed += n[k] * 96, prefix += pl->prefix[k];
    if (pl->b_g2_streamed) streamed += p->n_b_g2 * 192;
    if (!pl->prefix[0] || pl->prefix[0] % (pl->chunk * 96) || pl->prefix[0] >= p->n_h * 96 ||
        pl->streamed != streamed - prefix)
        failures++, printf("FAIL prefix: H's %zu bytes (chunk %zu points), %zu streamed of %zu\n",
                           pl->prefix[0], pl->chunk, pl->streamed, streamed);
}

/* One proof of w (r = s = 1) with its timings: B_G2 ran on the device
 * (a CPU B_G2 adds to total_ms only) and the proof is the CPU's. */
static void check_b2_on_device(const char *what, const groth16_params *p, const cs_prover *w)
{
    fr_t rs[2] = {FR_ONE, FR_ONE};
    groth16_proof g, c;
    groth16_timings t = {0};
    cuzk_err err = {0};
    if (gpu_groth16_prove(&g, p, w, 1, rs, &t, &err) || groth16_prove(&c, p, w, 1, rs, NULL, &err))
        return (void)(failures++, printf("FAIL %s: %s\n", what, err.msg));
    if (memcmp(&g, &c, sizeof g)) failures++, printf("FAIL %s: GPU proof != CPU proof\n", what);
    if (t.total_ms != t.gpu_total_ms)
        failures++, printf("FAIL %s: B_G2 on the CPU (total %.3f ms, GPU %.3f ms)\n", what,
                           t.total_ms, t.gpu_total_ms);
}

/* Proves w[0..n) on the GPU and the CPU (r = s = 1): byte-identical;
 * each circuit's transfers those of the plan, every byte the stand-in
 * copied counted (gpu_check_xfer). */
static void prove_cmp(const char *what, const groth16_params *p, const cs_prover *w, size_t n)
{
    fr_t rs[8] = {FR_ONE, FR_ONE, FR_ONE, FR_ONE, FR_ONE, FR_ONE, FR_ONE, FR_ONE};
    groth16_proof g[4], c[4];
    groth16_timings t[4];
    long long c0[2];
    cuzk_err err = {0};
    gpu_check_copied_now(c0);
    if (gpu_groth16_prove(g, p, w, n, rs, t, &err))
        return (void)(failures++, printf("FAIL %s: %s\n", what, err.msg));
    gpu_prove_plan_info pl;
    gpu_prove_device_plan(0, &pl);
    failures += gpu_check_xfer(what, &pl, p, w, 0, t, n, c0);
    if (groth16_prove(c, p, w, n, rs, NULL, &err))
        return (void)(failures++, printf("FAIL cpu: %s\n", err.msg));
    if (memcmp(g, c, n * sizeof *g)) failures++, printf("FAIL %s: GPU proof != CPU proof\n", what);
}

/* Standard error from now into a temporary file (the descriptor it had
 * in *saved), and back (stderr_text: what was written, NUL-ended, at
 * most len - 1 bytes). */
static FILE *stderr_capture(int *saved)
{
    fflush(stderr);
    FILE *f = tmpfile();
    *saved = f ? dup(2) : -1;
    if (*saved >= 0) dup2(fileno(f), 2);
    return f;
}

static void stderr_text(FILE *f, int saved, char *out, size_t len)
{
    fflush(stderr);
    if (saved >= 0) dup2(saved, 2), close(saved);
    out[0] = 0;
    if (!f) return;
    rewind(f);
    out[fread(out, 1, len - 1, f)] = 0;
    fclose(f);
}

/* The residency plan (residency.cu) under caps (gpus.device_memory) and a
 * small device: every array resident; every array streamed in chunks
 * (double-buffered from page-locked host memory, and staged when the
 * memory cannot be locked, with a warning naming the limit); some of
 * each; a batch with one a/b/c buffer: all byte-identical to the CPU. The host copy is page-locked
 * once per array, not per proof, and let go with the parameters; a cap below what even streaming
 * needs is an out-of-memory error naming the device. */
static void check_residency(void)
{
    size_t n = 3000;
    cs_circuit c = {chain, &n};
    groth16_params p;
    cs_prover w[3];
    cuzk_err err = {0};
    if (groth16_setup_dev(&p, c, 5, &err) || cs_synthesize_prover(&w[0], c, NULL, &err))
        return (void)(failures++, printf("FAIL setup: %s\n", err.msg));
    w[1] = w[2] = w[0];
    size_t need = gpu_prove_min_device_memory(12, 0, 0),
           g1 = (p.n_h + p.n_l + p.n_a + p.n_b_g1) * 96;
    gpu_prove_release();
    prove_cmp("resident", &p, w, 1);
    check_mode("resident (no cap)", ALL_KEPT, p.n_h);
    long long pins0 = host_pin_count();
    gpu_prove_set_device_memory(need + need / 8);
    for (int k = 0; k < 3; k++) prove_cmp("streamed", &p, w, 1);
    int streamed = check_mode("streamed (cap just above the least)", STREAMED, p.n_h);
    long long pins = host_pin_count() - pins0;
    if (pins != streamed || host_pins_held() != streamed)
        failures++, printf("FAIL: %lld page locks over 3 streamed proofs, %lld held (want %d)\n",
                           pins, host_pins_held(), streamed);
    check_b2_on_device("streamed (B_G2 from page-locked memory)", &p, &w[0]);
    gpu_prove_plan_info pl;
    gpu_prove_device_plan(0, &pl);
    check_prefix(&pl, &p);
    prove_cmp("streamed batch", &p, w, 3);
    gpu_prove_device_plan(0, &pl);
    if (pl.abc_buffers != 1)
        failures++, printf("FAIL: %u a/b/c buffers at the least\n", pl.abc_buffers);
    gpu_prove_set_device_memory(need + g1 / 2 + need / 4);
    prove_cmp("mixed", &p, w, 3);
    check_mode("mixed (cap with room for some arrays)", MIXED, p.n_h);
    gpu_prove_params_free(&p);
    if (host_pins_held() != 0)
        failures++,
            printf("FAIL: %lld page locks left after the parameters went\n", host_pins_held());
    host_pin_refuse(true);
    gpu_prove_set_device_memory(need + need / 8);
    int saved;
    engine_log_set_level("warn");
    FILE *log = stderr_capture(&saved);
    prove_cmp("streamed, staged (memory that cannot be locked)", &p, w, 1);
    char said[4096];
    stderr_text(log, saved, said, sizeof said);
    engine_log_set_level("error"); /* as the engine checks before left it */
    if (!strstr(said, "cannot page-lock") || !strstr(said, "LimitMEMLOCK"))
        failures++,
            printf("FAIL: no warning for parameters that cannot be page-locked: %s\n", said);
    else
        printf("residency: staged, the log said: %.*s", (int)strcspn(said, "\n") + 1, said);
    check_mode("streamed, staged", STREAMED, p.n_h);
    check_b2_on_device("streamed, staged (B_G2 too)", &p, &w[0]);
    host_pin_refuse(false);
    gpu_prove_set_device_memory(need / 2);
    int rc = gpu_groth16_prove((groth16_proof[1]){0}, &p, w, 1, NULL, NULL, &err);
    if (rc != CUZK_ENOMEM || !strstr(err.msg, "device 0 too small"))
        failures++, printf("FAIL: under the least gave rc %d (%s)\n", rc, err.msg);
    else
        printf("residency: below the least: %s\n", err.msg);
    gpu_prove_set_device_memory(0);
    gpu_prove_release();
    host_budget_allow((long long)(need + need / 4));
    prove_cmp("streamed on a small device (no cap)", &p, w, 1);
    check_mode("small device", STREAMED, p.n_h);
    host_budget_allow(1LL << 40);
    gpu_prove_params_free(&p);
    groth16_params_free(&p);
    cs_prover_free(&w[0]);
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
    printf("staging: uploads of 1 byte .. 300 MiB arrive intact and counted (pieces, chunks, slot "
           "reuse), "
           "also two at once through one pool\n");
    /* packed field elements: a piece (2^17), a chunk (2^20), past four slots, partial pieces,
     * dense pieces among them (as they are), all dense */
    const size_t P = (size_t)1 << 17;
    const size_t ns[][2] = {{1, 1},         {P - 1, 1},         {P + 65, 1},
                            {8 * P + 3, 3}, {40 * P + 100, 37}, {40 * P, 0},
                            {33 * P + 1, 9}};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int delay = 0; delay <= 2000; delay += 2000) {
            long long bad = host_upload_fr_check(ns[i][0], ns[i][1], (unsigned)i + 7, delay);
            long long kept = host_upload_kept_check(ns[i][0], ns[i][1], (unsigned)i + 7, delay);
            if (bad)
                failures++, printf("FAIL packed upload of %zu elements (dense from piece %zu, "
                                   "delay %d us): %lld\n",
                                   ns[i][0], ns[i][1], delay, bad);
            if (kept)
                failures++, printf("FAIL kept upload of %zu elements (dense from piece %zu, "
                                   "delay %d us): %lld\n",
                                   ns[i][0], ns[i][1], delay, kept);
        }
    printf("staging: packed uploads of field elements (zeros and ones packed, dense pieces as they "
           "are) arrive intact, counted as packed; kept packed on the device they read back "
           "through wit_get (pieces packed and as they are, over chunks and slots; a byte less "
           "room says it does not fit)\n");
}

/* One proof of w on a device (r = s = 1), compared with the CPU's. */
typedef struct dev_proof {
    int device;
    const groth16_params *p;
    const cs_prover *w;
    int rc;
    cuzk_err err;
    groth16_proof proof;
} dev_proof;

static void *prove_on(void *arg)
{
    dev_proof *d = arg;
    fr_t rs[2] = {FR_ONE, FR_ONE};
    gpu_prove_pending *pend;
    d->rc = gpu_prove_start(&pend, d->device, d->p, d->w, 1, rs, &d->err);
    if (!d->rc) d->rc = gpu_prove_finish(pend, &d->proof, NULL, &d->err);
    return NULL;
}

/* Proves on devices 0 and 1 at once; returns how many of the two failed
 * (their errors in d[k].err), counting a proof unlike the CPU's as a
 * failure of the test. */
static int prove_pair(dev_proof d[2], const groth16_proof *cpu)
{
    pthread_t t;
    bool threaded = pthread_create(&t, NULL, prove_on, &d[1]) == 0;
    if (!threaded) prove_on(&d[1]);
    prove_on(&d[0]);
    if (threaded) pthread_join(t, NULL);
    int failed = 0;
    for (int k = 0; k < 2; k++) {
        failed += d[k].rc != 0;
        if (!d[k].rc && memcmp(&d[k].proof, cpu, sizeof *cpu))
            failures++, printf("FAIL: device %d's proof != CPU proof\n", d[k].device);
    }
    return failed;
}

/* Two stand-in devices: the same parameters proved on both at once, each
 * holding its own copy; device 1 with no room fails out of memory while
 * device 0 proves; device 1 lost, or faulting in the middle of a proof,
 * fails with a device error while device 0 proves; releasing frees both,
 * the failed one too. */
static void check_two_devices(void)
{
    size_t n = 3000;
    cs_circuit c = {chain, &n};
    groth16_params p;
    cs_prover w;
    cuzk_err err = {0};
    if (groth16_setup_dev(&p, c, 4, &err) || cs_synthesize_prover(&w, c, NULL, &err))
        return (void)(failures++, printf("FAIL setup: %s\n", err.msg));
    fr_t rs[2] = {FR_ONE, FR_ONE};
    groth16_proof cpu;
    if (groth16_prove(&cpu, &p, &w, 1, rs, NULL, &err))
        failures++, printf("FAIL cpu: %s\n", err.msg);
    gpu_prove_release();
    host_devices(2);
    dev_proof d[2] = {{.device = 0, .p = &p, .w = &w}, {.device = 1, .p = &p, .w = &w}};
    for (int round = 0; round < 2; round++)
        if (prove_pair(d, &cpu))
            failures++, printf("FAIL two devices at once: %s / %s\n", d[0].err.msg, d[1].err.msg);
    size_t b0 = gpu_prove_device_params_bytes(0), b1 = gpu_prove_device_params_bytes(1);
    if (b0 == 0 || b0 != b1 || host_device_bytes(1) < (long long)b1)
        failures++, printf("FAIL: parameter copies of %zu and %zu bytes, device 1 holds %lld\n", b0,
                           b1, host_device_bytes(1));
    printf("two devices: proofs on both at once == CPU, %zu bytes of parameters on each\n", b0);

    gpu_prove_release();
    host_use_device(1);
    host_budget_allow(100000);
    host_use_device(0);
    if (prove_pair(d, &cpu) != 1 || d[1].rc != CUZK_ENOMEM || !strstr(d[1].err.msg, "device 1"))
        failures++, printf("FAIL: device 1 without room: rc %d (%s), device 0: %s\n", d[1].rc,
                           d[1].err.msg, d[0].err.msg);
    if (gpu_prove_device_params_bytes(1) != 0 || gpu_prove_device_params_bytes(0) == 0)
        failures++, printf("FAIL: device 1 without room holds parameters\n");
    printf("two devices: device 1 without room: %s; device 0 proves\n", d[1].err.msg);
    host_use_device(1);
    host_budget_allow(1LL << 40);
    host_use_device(0);

    const struct {
        long long after;
        bool lost;
        const char *says;
    } faults[] = {{0, true, "unavailable"}, {40, false, "launch failure"}};
    for (int k = 0; k < 2; k++) {
        host_device_fail(1, faults[k].after, faults[k].lost);
        if (prove_pair(d, &cpu) != 1 || d[1].rc != CUZK_EDEVICE ||
            !strstr(d[1].err.msg, faults[k].says))
            failures++,
                printf("FAIL: device 1 %s: rc %d (%s), device 0: %s\n",
                       faults[k].lost ? "lost" : "faulted", d[1].rc, d[1].err.msg, d[0].err.msg);
        printf("two devices: device 1 %s: %s; device 0 proves\n",
               faults[k].lost ? "lost" : "faulting mid-proof", d[1].err.msg);
        gpu_prove_release();
        if (host_device_bytes(1) != 0)
            failures++, printf("FAIL: %lld bytes left on the failed device after release\n",
                               host_device_bytes(1));
        host_devices(2);
    }
    host_devices(1);
    gpu_prove_params_free(&p);
    groth16_params_free(&p);
    cs_prover_free(&w);
}

/* The engine on the CUDA backend over two stand-in devices, device 1
 * faulting a few calls into its first proof: a job of four partitions
 * completes (every partition self-verified), device 1 out of service and
 * device 0 with all four; evicting the SRS drops every device's copy. */
static void check_engine_two_devices(void)
{
    char dir[64];
    cuzk_err err = {0};
    gpu_prove_release();
    host_devices(2);
    host_device_fail(1, 10, false);
    engine_t *e = gpu_check_engine(dir, "cuzk-gpuhost-engine", &err);
    if (!e) {
        failures++, printf("FAIL engine: %s\n", err.msg);
        return;
    }
    engine_result res = {0};
    int rc = gpu_check_engine_job(e, 4, 9, &res, &err);
    if (rc || res.status != ENGINE_COMPLETED || res.proof_len != 4 * GROTH16_PROOF_BYTES)
        failures++, printf("FAIL engine on two devices: rc %d status %d: %s %s\n", rc,
                           (int)res.status, err.msg, res.error);
    engine_status_t st;
    if (!engine_status(e, &st, &err)) {
        if (st.n_devices != 2 || strcmp(st.devices[1].state, "failed") ||
            !strstr(st.devices[1].error, "launch failure") || st.devices[0].partitions != 4 ||
            !strstr(st.devices[1].name, "cuda:1"))
            failures++, printf("FAIL engine status: %zu devices, device 1 %s (%s), device 0 "
                               "proved %llu\n",
                               st.n_devices, st.n_devices > 1 ? st.devices[1].state : "-",
                               st.n_devices > 1 ? st.devices[1].error : "-",
                               (unsigned long long)st.devices[0].partitions);
        printf("engine: two devices, device 1 faulted in its first proof (%s): 4 partitions "
               "proved on device 0 and self-verified\n",
               st.n_devices > 1 ? st.devices[1].error : "-");
        engine_status_free(&st);
    }
    bool was = false;
    uint64_t freed = 0;
    rc = engine_evict(e, "test-3000", &was, &freed, &err);
    if (rc || !was || gpu_prove_params_bytes() != 0)
        failures++, printf("FAIL engine evict: rc %d (%s), %zu bytes of device points left\n", rc,
                           err.msg, gpu_prove_params_bytes());
    engine_result_free(&res);
    gpu_check_engine_done(e, dir);
    gpu_prove_release();
    host_devices(1);
}

/* The device's a, b, c of s on w (ni + na values) against the CPU's:
 * the same status and message and the same values; returns the status. */
static int shape_both(const cs_shape *s, const fr_t *in, const fr_t *aux)
{
    size_t n = cs_shape_num_constraints(s), ni = cs_shape_num_inputs(s), na = cs_shape_num_aux(s);
    fr_t *w = host_device_alloc((ni + na) * sizeof(fr_t)), *d = host_device_alloc(3 * n * 32);
    fr_t *cpu = malloc(3 * n * sizeof(fr_t));
    if (!w || !d || !cpu) return failures++, printf("FAIL shape: out of memory\n"), CUZK_ENOMEM;
    memcpy(w, in, ni * sizeof(fr_t));
    memcpy(w + ni, aux, na * sizeof(fr_t));
    cuzk_err ce = {0}, ge = {0};
    int crc = cs_shape_eval(s, in, aux, cpu, cpu + n, cpu + 2 * n, &ce);
    int grc = gpu_shape_eval_dev(s, w, d, d + n, d + 2 * n, &ge);
    if (crc != grc || strcmp(ce.msg, ge.msg))
        failures++, printf("FAIL shape: CPU %d '%s', device %d '%s'\n", crc, ce.msg, grc, ge.msg);
    if (memcmp(cpu, d, 3 * n * sizeof(fr_t))) failures++, printf("FAIL shape: a, b, c differ\n");
    host_device_free(w), host_device_free(d);
    free(cpu);
    return grc;
}

static void check_shapes(cuzk_rng *g)
{
    cs_synthetic syn = {4000, cuzk_rng_u64(g)};
    cs_circuit c = cs_synthetic_circuit(&syn);
    cs_prover p;
    cs_shape *s;
    cuzk_err err = {0};
    if (cs_synthesize_prover(&p, c, NULL, &err) || cs_shape_record(&s, c, &err))
        return (void)(failures++, printf("FAIL shape: %s\n", err.msg));
    if (shape_both(s, p.input_assignment, p.aux_assignment))
        failures++, printf("FAIL shape: the witness is not satisfied\n");
    size_t cached = gpu_shape_device_bytes(0);
    size_t j = cuzk_rng_u64(g) % p.num_aux;
    fr_add(&p.aux_assignment[j], &p.aux_assignment[j], &FR_ONE);
    if (shape_both(s, p.input_assignment, p.aux_assignment) != CUZK_EINVAL)
        failures++, printf("FAIL shape: aux %zu altered but satisfied\n", j);
    if (!cached || gpu_shape_device_bytes(0) != cached)
        failures++,
            printf("FAIL shape: cached %zu bytes, then %zu\n", cached, gpu_shape_device_bytes(0));
    gpu_shape_forget(s);
    if (gpu_shape_device_bytes(0)) failures++, printf("FAIL shape: kept after forget\n");
    printf("shapes: a, b, c of %zu constraints equal cs_shape_eval's, %zu bytes cached\n",
           p.num_constraints, cached);
    cs_shape_free(s);
    cs_prover_free(&p);
}

/* The witness-only circuit of gpu_check_witness_circuit, its parameters
 * and shape, and its CPU proof (r = s = 1): what the B_G2 checks below
 * prove on the stand-in device and compare with. */
typedef struct witness_case {
    groth16_params pk;
    cs_shape *shape;
    cs_prover w;
    groth16_proof cpu;
} witness_case;

static int witness_case_make(witness_case *c, cuzk_rng *g, cuzk_err *err)
{
    fr_t rs[2] = {FR_ONE, FR_ONE};
    int rc = gpu_check_witness_circuit(g, true, &c->pk, &c->shape, &c->w, err);
    return rc ? rc : groth16_prove(&c->cpu, &c->pk, &c->w, 1, rs, NULL, err);
}

/* The same over gpu_check_dense_circuit's dense witness. */
static int dense_case_make(witness_case *c, cuzk_rng *g, cuzk_err *err)
{
    fr_t rs[2] = {FR_ONE, FR_ONE};
    int rc = gpu_check_dense_circuit(g, &c->pk, &c->shape, &c->w, err);
    return rc ? rc : groth16_prove(&c->cpu, &c->pk, &c->w, 1, rs, NULL, err);
}

static void witness_case_free(witness_case *c)
{
    gpu_check_witness_circuit_free(&c->pk, c->shape, &c->w, 1);
}

/* B_G2 under caps stepping down from a 64 MiB device's plan's use to the
 * least a proof needs, on the
 * witness-only path (the B job made on the device): each proof equals the
 * CPU's; along the way the plan must keep B_G2 on the device in MSM calls
 * of fewer points than it has (rule 3 of residency.cu), then with the G1
 * MSM calls shrunk below the largest array to keep it, then, with the G1
 * arrays still resident, stream it from host memory; wherever the plan
 * has B_G2 on the device (kept or streamed) it runs there (timings:
 * nothing after the GPU's part), and where it leaves it to the CPU (a
 * cap too small even for its stream), the CPU gets the device's B job
 * back. */
static void check_witness_b2_host(cuzk_rng *g)
{
    witness_case wc;
    cuzk_err err = {0};
    int rc = witness_case_make(&wc, g, &err);
    const groth16_params *pk = &wc.pk;
    fr_t rs[2] = {FR_ONE, FR_ONE};
    groth16_proof pg, pc = wc.cpu;
    groth16_timings t = {0};
    gpu_prove_plan_info pl;
    if (!rc) { /* a 64 MiB device: the walk starts from its plan's use */
        gpu_prove_release();
        gpu_prove_set_device_memory(64 << 20);
        rc = gpu_groth16_prove(&pg, pk, &wc.w, 1, rs, &t, &err);
    }
    gpu_prove_device_plan(0, &pl);
    char line[512];
    gpu_prove_format_plan(line, sizeof line, &pl);
    printf("witness path, 64 MiB: %s (B_G2 %zu points)\n", line, pk->n_b_g2);
    size_t use = pl.use, step = (pl.use - pl.need) / 48 + 1; /* down to the least */
    bool chunked = false, shrunk = false, streamed = false;
    size_t max_n = pk->n_h > pk->n_l ? pk->n_h : pk->n_l;
    if (pk->n_a > max_n) max_n = pk->n_a;
    if (pk->n_b_g1 > max_n) max_n = pk->n_b_g1;
    for (size_t k = 1; !rc && k <= 48 && step * k < use; k++) {
        gpu_prove_set_device_memory(use - k * step);
        t = (groth16_timings){0};
        if ((rc = gpu_groth16_prove(&pg, pk, &wc.w, 1, rs, &t, &err))) break;
        gpu_prove_device_plan(0, &pl);
        if (memcmp(&pg, &pc, sizeof pg)) {
            failures++, printf("FAIL b2 (cap %zu): GPU proof != CPU proof\n", use - k * step);
            break;
        }
        if (getenv("CUZK_TEST_VERBOSE")) {
            gpu_prove_format_plan(line, sizeof line, &pl);
            printf("  cap %zu: %s\n", use - k * step, line);
        }
        if (!pl.resident[0]) break; /* H streamed: past what this checks */
        bool on_cpu = t.total_ms > t.gpu_total_ms, on_dev = pl.resident[4] || pl.b_g2_streamed;
        if (on_dev == on_cpu)
            failures++, printf("FAIL b2: the plan %s B_G2, the CPU %s it\n",
                               pl.resident[4] ? "kept"
                               : on_dev       ? "streamed"
                                              : "left",
                               on_cpu ? "ran" : "did not run");
        if (pl.resident[4] && pl.chunk_g2 < pk->n_b_g2 && !chunked) {
            chunked = true;
            printf("witness path, B_G2 kept in MSM calls of %zu of %zu points: == CPU\n",
                   pl.chunk_g2, pk->n_b_g2);
        }
        if (pl.resident[4] && pl.chunk < max_n && !shrunk) {
            shrunk = true;
            printf("witness path, B_G2 kept, G1 MSM calls shrunk to %zu of %zu points: == CPU\n",
                   pl.chunk, max_n);
        }
        if (pl.b_g2_streamed && !streamed) {
            streamed = true;
            printf("witness path, G1 resident, B_G2 streamed in chunks of %zu points on the "
                   "device: == CPU\n",
                   pl.chunk_g2);
        }
        if (!on_dev && !pl.b_g2_streamed)
            printf("witness path, G1 resident, B_G2 on the CPU from the device's B job (cap %zu "
                   "too small for its stream): == CPU\n",
                   use - k * step);
    }
    gpu_prove_set_device_memory(0);
    if (rc) failures++, printf("FAIL b2: %s\n", err.msg);
    if (!rc && (!chunked || !shrunk || !streamed))
        failures++, printf("FAIL b2: caps down from %zu never %s\n", use,
                           !chunked  ? "kept B_G2 in smaller calls"
                           : !shrunk ? "shrank the G1 MSM calls to keep B_G2"
                                     : "streamed B_G2 with the G1 arrays resident");
    witness_case_free(&wc);
}

/* Devices of exactly the memory a plan may use (the stand-in's limit set
 * to it and the staging scratch a start makes before it plans, nothing
 * held by the prover, no cap): from the 64 MiB plan's use down to the
 * least a proof needs, the plan made from what is free must fit, so no
 * allocation of the start is refused for memory (a refusal is a start
 * planned with less than it takes, which proves only by trying again
 * with a smaller plan: the first 32 GiB Window PoSt partition's twiddle
 * table on an H100, session 26, and its dense jobs, 2026-12-06); every
 * proof the CPU's. The bit-heavy synthetic circuit, whose jobs are
 * bitmaps and small tails, and the dense product circuit, whose jobs are
 * their scalars whole (residency.cu rule 2). */
static void check_exact_devices(cuzk_rng *g, bool dense)
{
    witness_case wc;
    cuzk_err err = {0};
    int rc = dense ? dense_case_make(&wc, g, &err) : witness_case_make(&wc, g, &err);
    const char *what = dense ? "dense " : "";
    fr_t rs[2] = {FR_ONE, FR_ONE};
    groth16_proof pg;
    gpu_prove_plan_info pl;
    if (!rc) {
        gpu_prove_release();
        gpu_prove_set_device_memory(64 << 20);
        rc = gpu_groth16_prove(&pg, &wc.pk, &wc.w, 1, rs, NULL, &err);
    }
    gpu_prove_device_plan(0, &pl);
    gpu_prove_set_device_memory(0);
    size_t scratch = host_stage_scratch(0);
    size_t use = pl.use, step = (pl.use - pl.need) / 24 + 1;
    int refused = 0, tried = 0;
    for (size_t k = 0; !rc && k <= 24 && step * k < use; k++) {
        size_t cap = use - k * step;
        gpu_prove_release();
        long long before = host_limit_refusals(0);
        host_budget_allow((long long)(cap + scratch));
        rc = gpu_groth16_prove(&pg, &wc.pk, &wc.w, 1, rs, NULL, &err);
        host_budget_allow(1LL << 40);
        tried++;
        if (host_limit_refusals(0) != before) {
            refused++;
            gpu_prove_device_plan(0, &pl);
            char line[512];
            gpu_prove_format_plan(line, sizeof line, &pl);
            printf("FAIL %sexact device of %zu bytes: %lld allocation(s) refused under the plan "
                   "%s\n",
                   what, cap, host_limit_refusals(0) - before, line);
        }
        if (!rc && memcmp(&pg, &wc.cpu, sizeof pg))
            failures++,
                printf("FAIL %sexact device of %zu bytes: GPU proof != CPU proof\n", what, cap);
        if (rc && (rc == CUZK_ENOMEM && k > 0)) { /* below the least: the walk ends */
            rc = 0;
            break;
        }
    }
    if (rc) failures++, printf("FAIL %sexact devices: %s\n", what, err.msg);
    failures += refused;
    printf("%sexact devices: %d sizes from %zu bytes down, %d with an allocation refused\n", what,
           tried, use, refused);
    gpu_prove_release();
    witness_case_free(&wc);
}

/* The plan keeps B_G2 on the device but its upload finds no room (what
 * the H200 showed on a 2^27 Window PoSt, the plan having undercounted the
 * device memory of the G1 tails): with each allocation refused once in
 * turn, one of them B_G2's upload, B_G2 streams from host memory instead
 * and runs on the device (timings); with every allocation from one on
 * refused, B_G2's upload included, the stream cannot be set up either and
 * the CPU does B_G2 from the device's B job. Every proof the CPU's. */
static void check_b2_upload_short(cuzk_rng *g)
{
    witness_case wc;
    cuzk_err err = {0};
    int rc = witness_case_make(&wc, g, &err);
    groth16_params *pk = &wc.pk;
    fr_t rs[2] = {FR_ONE, FR_ONE};
    groth16_proof pc = wc.cpu, pg;
    size_t g1 = (pk->n_h + pk->n_l + pk->n_a + pk->n_b_g1) * 96;
    bool streamed = false, cpu = false, more = true;
    for (long long k = 1; !rc && more && !(streamed && cpu) && k < 1000; k++) {
        for (int from = 0; from < 2; from++) {
            gpu_prove_release();
            gpu_prove_params_free(pk);
            groth16_timings t = {0};
            if (from)
                host_alloc_refuse_from(0, k);
            else
                host_alloc_refuse(0, k);
            int r = gpu_groth16_prove(&pg, pk, &wc.w, 1, rs, &t, &err);
            bool hit = host_alloc_refuse_pending(0) <= 0;
            host_alloc_refuse(0, 0);
            gpu_prove_plan_info pl;
            gpu_prove_device_plan(0, &pl);
            bool kept = gpu_prove_device_params_bytes(0) > g1, on_cpu = t.total_ms > t.gpu_total_ms;
            if (!from && !hit) more = false; /* past the last allocation */
            if (r && (r != CUZK_ENOMEM || !strstr(err.msg, "memory")))
                failures++, printf("FAIL b2 short (alloc %lld%s refused): rc %d (%s)\n", k,
                                   from ? " on" : "", r, err.msg);
            if (r || !hit) continue;
            if (memcmp(&pg, &pc, sizeof pg))
                failures++, printf("FAIL b2 short (alloc %lld%s refused): GPU proof != CPU proof\n",
                                   k, from ? " on" : "");
            if (!pl.resident[4] || kept) continue;
            streamed |= !from && !on_cpu;
            cpu |= from && on_cpu;
        }
    }
    gpu_prove_release();
    gpu_prove_params_free(pk);
    if (rc) failures++, printf("FAIL b2 short: %s\n", err.msg);
    if (!rc && (!streamed || !cpu))
        failures++, printf("FAIL b2 short: B_G2 kept by the plan, its upload refused, never %s\n",
                           !streamed ? "streamed" : "left to the CPU");
    else if (!rc)
        printf("witness path, B_G2 kept by the plan but its upload refused: streamed on the device "
               "== CPU; with the stream refused too, the CPU's from the device's B job == CPU\n");
    witness_case_free(&wc);
}

/* The witness-only path with each device allocation of a batch of two
 * proofs refused in turn (the prover's buffers and parameters released
 * before each try, so every allocation is made again): every try proves
 * both circuits as the CPU does: where the device prep's buffers are
 * refused the CPU's prep makes that circuit's jobs, where another
 * allocation is the start runs out of memory and tries again with a
 * smaller plan (residency.cu rule 1); nothing is left on the device once
 * released. */
static void check_witness_alloc_refused(cuzk_rng *g)
{
    groth16_params pk;
    cs_shape *shape;
    cs_prover w[2];
    cuzk_err err = {0};
    int rc = gpu_check_witness_circuit(g, true, &pk, &shape, &w[0], &err);
    w[1] = w[0]; /* the same circuit twice, read only */
    fr_t rs[4] = {FR_ONE, FR_ONE, FR_ONE, FR_ONE};
    groth16_proof pc[2], pg[2];
    if (!rc) rc = groth16_prove(pc, &pk, w, 2, rs, NULL, &err);
    if (rc) failures++, printf("FAIL alloc refused: %s\n", err.msg);
    int proved = 0, cpu_prep = 0, refused = 0;
    long long k = 1;
    for (; !rc; k++) {
        gpu_prove_release();
        gpu_prove_params_free(&pk);
        long long base = host_device_bytes(0), preps = host_prep_scatters();
        host_alloc_refuse(0, k);
        int r = gpu_groth16_prove(pg, &pk, w, 2, rs, NULL, &err);
        bool all_made = host_alloc_refuse_pending(0) > 0;
        host_alloc_refuse(0, 0);
        if (r == CUZK_OK && memcmp(pg, pc, sizeof pg))
            failures++, printf("FAIL alloc %lld refused: GPU proofs != CPU proofs\n", k);
        else if (r == CUZK_OK)
            proved++, cpu_prep += host_prep_scatters() - preps < 2;
        else if (r == CUZK_ENOMEM && strstr(err.msg, "memory"))
            refused++;
        else
            failures++, printf("FAIL alloc %lld refused: rc %d (%s)\n", k, r, err.msg);
        gpu_prove_release();
        gpu_prove_params_free(&pk);
        if (host_device_bytes(0) != base)
            failures++, printf("FAIL alloc %lld refused: %lld bytes left on the device\n", k,
                               host_device_bytes(0) - base);
        if (all_made) break;
    }
    if (!rc && !(cpu_prep && !refused && proved == k && proved > cpu_prep))
        failures++, printf("FAIL alloc refused: of %lld tries %d proved (%d with the CPU's prep), "
                           "%d out of memory\n",
                           k, proved, cpu_prep, refused);
    else if (!rc)
        printf("witness path, each of %lld device allocations refused in turn: %d batches "
               "proved == CPU (%d with the CPU's prep for a circuit, the others after trying "
               "again with a smaller plan where needed)\n",
               k - 1, proved, cpu_prep);
    gpu_check_witness_circuit_free(&pk, shape, &w[0], 1);
}

/* The stand-in's copies on device 0 (gpu_check_copied). */
static long long copied_on_0(bool to_host)
{
    return host_copied_bytes(0, to_host);
}

/* Proof of w by device 0's lane (lane) or its big prover, r = s = 1;
 * its transfers' account into *x when x is not NULL. */
static int lane_or_big(bool lane, const groth16_params *pk, const cs_prover *w, groth16_xfer *x,
                       cuzk_err *err)
{
    fr_t rs[2] = {FR_ONE, FR_ONE};
    gpu_prove_pending *p = NULL;
    groth16_proof proof;
    groth16_timings t;
    int rc =
        lane ? gpu_lane_start(&p, 0, pk, w, 1, rs, err) : gpu_prove_start(&p, 0, pk, w, 1, rs, err);
    if (!rc) rc = gpu_prove_finish(p, &proof, &t, err);
    if (!rc && x) *x = t.xfer;
    return rc;
}

/* The lane on the stand-in, where its calls are counted: its proofs (the
 * first, parameters and shape uploaded, and the next) make no call on
 * the default stream and no cudaMalloc / cudaFree, and the device's
 * memory stays what the setup left (the big prover's proof, for
 * contrast, is on the default stream); its plan keeps every array
 * resident; under a cap (gpus.device_memory) a big start plans with the
 * cap less the lane's reservation (residency.cu rule 7); a device with
 * no room for the reservation is refused with an error naming it. A lane
 * proof's transfers are counted in bytes only, untimed (xfer_stats.cuh),
 * the big prover's timed. */
static void check_lane_calls(cuzk_rng *g)
{
    groth16_params pk;
    cs_shape *shape = NULL;
    cs_prover w;
    cuzk_err err = {0};
    int rc = gpu_check_witness_circuit(g, true, &pk, &shape, &w, &err);
    if (!rc) rc = gpu_lane_setup(0, 12, (size_t)8 << 20, &err);
    if (rc) failures++, printf("FAIL lane: %s\n", err.msg);
    long long held = host_device_bytes(0), calls[2] = {0, 0}, allocs[2] = {0, 0};
    groth16_xfer xl = {0}, xb = {0};
    for (int k = 0; !rc && k < 2; k++) {
        host_calls_reset();
        rc = lane_or_big(true, &pk, &w, &xl, &err);
        calls[k] = host_stream0_count(), allocs[k] = host_malloc_count();
    }
    if (rc || calls[0] || calls[1] || allocs[0] || allocs[1] || host_device_bytes(0) != held)
        failures++, printf("FAIL lane: rc %d (%s), default-stream calls %lld + %lld, "
                           "cudaMalloc/cudaFree %lld + %lld, device bytes %lld then %lld\n",
                           rc, err.msg, calls[0], calls[1], allocs[0], allocs[1], held,
                           host_device_bytes(0));
    gpu_prove_plan_info pl;
    gpu_lane_plan(0, &pl);
    bool all = pl.made && pl.streamed == 0 && pl.resident[GPU_PLAN_ARRAYS - 1];
    for (int k = 0; k < GPU_PLAN_ARRAYS; k++) all &= pl.resident[k];
    if (!all) failures++, printf("FAIL lane: its plan streams an array\n");
    if (!rc && (xl.timed || xl.h2d == 0 || xl.copy_ms != 0 || xl.kernel_ms != 0))
        failures++, printf("FAIL lane: its account timed %d, %llu bytes up, copies %.3f ms, "
                           "kernels %.3f ms (bytes only, untimed wanted)\n",
                           xl.timed, (unsigned long long)xl.h2d, xl.copy_ms, xl.kernel_ms);
    host_calls_reset();
    if (!rc) rc = lane_or_big(false, &pk, &w, &xb, &err);
    if (!rc && (!xb.timed || xb.h2d == 0))
        failures++, printf("FAIL lane: the big prover's account timed %d, %llu bytes up\n",
                           xb.timed, (unsigned long long)xb.h2d);
    long long big_calls = host_stream0_count();
    if (rc || big_calls == 0)
        failures++, printf("FAIL lane: the big prover: rc %d (%s), %lld default-stream calls\n", rc,
                           err.msg, big_calls);
    size_t lane = gpu_lane_reserved(0), cap = lane + ((size_t)32 << 20);
    gpu_prove_set_device_memory(cap);
    gpu_prove_release();
    if (!rc) rc = lane_or_big(false, &pk, &w, NULL, &err);
    gpu_prove_device_plan(0, &pl);
    if (rc || pl.budget > cap - lane)
        failures++, printf("FAIL lane: under a cap of %zu: rc %d (%s), budget %zu\n", cap, rc,
                           err.msg, pl.budget);
    gpu_prove_set_device_memory(0);
    gpu_lane_release(0);
    gpu_prove_release();
    host_budget_allow((long long)lane / 2);
    int r2 = gpu_lane_setup(0, 12, (size_t)8 << 20, &err);
    if (r2 != CUZK_ENOMEM || !strstr(err.msg, "device 0 has no"))
        failures++, printf("FAIL lane: no room for it: rc %d (%s)\n", r2, err.msg);
    /* room for the reservation, but it would take more than 1/8 of what
     * the big starts may use (rule 7's share: a 16 GiB card); 9x is
     * enough (a lane sized for 2^20 fits an H200, not a 16 GiB card) */
    cuzk_err e2 = {0};
    host_budget_allow((long long)lane * 4);
    int r3 = gpu_lane_setup(0, 12, (size_t)8 << 20, &e2);
    bool r3_lane = gpu_lane_reserved(0) != 0;
    gpu_lane_release(0);
    host_budget_allow((long long)lane * 9);
    int r4 = gpu_lane_setup(0, 12, (size_t)8 << 20, &err);
    bool r4_lane = gpu_lane_reserved(0) != 0;
    gpu_lane_release(0);
    if (r3 != CUZK_ENOMEM || r3_lane || !strstr(e2.msg, "1/8") || r4 || !r4_lane)
        failures++,
            printf("FAIL lane: its share of the device: at 4x rc %d (%s), at 9x rc %d (%s)\n", r3,
                   e2.msg, r4, err.msg);
    /* the arithmetic cuzk-bench plan shows is the same rule */
    size_t b = gpu_lane_bytes_for(12, (size_t)8 << 20);
    if (gpu_lane_bytes_on(8 * b, 12, (size_t)8 << 20) != b ||
        gpu_lane_bytes_on(8 * b - 8, 12, (size_t)8 << 20) != 0)
        failures++, printf("FAIL lane: gpu_lane_bytes_on at 8x %zu bytes\n", b);
    host_budget_allow(1LL << 40);
    if (!rc)
        printf("lane: %lld default-stream calls and %lld allocations in its proofs (the big "
               "prover's: %lld calls); a cap leaves big starts cap - %zu; no room: %s\n",
               calls[0] + calls[1], allocs[0] + allocs[1], big_calls, lane, err.msg);
    gpu_check_witness_circuit_free(&pk, shape, &w, 1);
}

/* `cuzk-gpu-bench lane` (bench_gpu_prove.c) on the stand-in, small: its
 * load thread, lane proofs and byte checks run through (a pause and the
 * batch addition capped at a word a thread in its second phase) and it
 * exits 0. */
int yield_checks(void); /* yield_checks.cpp */

static void check_lane_bench(void)
{
    char *argv[] = {"lane", "14", "12", "1", "50", "0,100/1", NULL};
    int rc = bench_gpu_lane(6, argv);
    if (rc) failures++, printf("FAIL lane bench: exit %d\n", rc);
    gpu_prove_release();
}

int main(int argc, char **argv)
{
    cuzk_rng g;
    gpu_check_copied = copied_on_0;
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    printf("seed: %llu\n", (unsigned long long)seed);
    cuzk_rng_seed(&g, seed);
    failures += gpu_prove_checks(&g, 1);
    check_memory_policy();
    check_residency();
    check_slow_link();
    check_upload();
    check_shapes(&g);
    check_witness_b2_host(&g);
    check_exact_devices(&g, false);
    check_exact_devices(&g, true);
    check_b2_upload_short(&g);
    check_witness_alloc_refused(&g);
    failures += gpu_lane_checks(&g);
    check_lane_calls(&g);
    failures += yield_checks();
    check_lane_bench();
    check_two_devices();
    host_devices(2);
    failures += gpu_prove_device_checks(&g);
    host_devices(1);
    check_engine_two_devices();
    long long spins = host_spin_wait_count(); /* every check's waits, the streamed modes' too */
    if (spins) failures++;
    printf("%s host waits on events: %lld spinning (made without cudaEventBlockingSync)\n",
           spins ? "FAIL" : "ok", spins);
    printf(failures ? "test_gpu_prove_host: %d FAILURES\n" : "test_gpu_prove_host: all passed\n",
           failures);
    return failures != 0;
}
