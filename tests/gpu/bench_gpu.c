/*
 * bench_gpu.c - timings of the CUDA kernels (gpu.h), printed as one table.
 *
 * Every figure is the median of several runs after a warm-up, taken with
 * a monotonic host clock around a synchronous call whose data already
 * lives on the device (the "_dev" entry points): field products in a
 * dependent loop; NTT forward / inverse / coset and the whole H
 * computation (six NTTs) at 2^20 .. 2^27, at 2^24 also with the radix-2
 * passes (gpu_ntt_set_radix) and their block sizes; G1 MSM at 2^16 ..
 * 2^27 on random scalars and bench bases (gpu_g1_bench_bases), with the
 * window that gpu.h picks, plus a window sweep at 2^24. Sizes up to 2^max_log
 * (argv[1], default 24). Not in "all": `msm1`, the G1 MSM at 2^max_log
 * alone with its phases; `upload`, the staged host-to-device rates alone
 * and beside device and host load; `shape`, a, b, c of a synthetic
 * circuit of 2^max_log constraints from its recorded shape on the
 * CPU (cs_shape_eval, all cores) and on the device (gpu_shape_eval_dev:
 * the first call with the shape's upload, then the median of 5).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gpu_prove.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "gpu/util/buf.cuh"
#include "r1cs/shape.h"

static cuzk_rng rng;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void die(const char *what, const cuzk_err *e)
{
    printf("FAIL %s: %s\n", what, e->msg);
    exit(1);
}

static void random_fill(gpu_buf *b, size_t n)
{
    cuzk_err e = {0};
    if (gpu_fr_bench_random(b, n, cuzk_rng_u64(&rng), &e)) die("random fill", &e);
}

static void bench_fields(void)
{
    double ns;
    cuzk_err e = {0};
    const int bits[2] = {381, 255};
    for (int i = 0; i < 2; i++) {
        if (gpu_field_mul_bench(bits[i], (size_t)132 * 2048, 2000, &ns, &e)) die("field", &e);
        printf("| %s mul (throughput) | %.4f ns | %.2f G/s |\n", i ? "Fr" : "Fp", ns, 1 / ns);
        if (gpu_field_sqr_bench(bits[i], (size_t)132 * 2048, 2000, &ns, &e)) die("field", &e);
        printf("| %s sqr (throughput) | %.4f ns | %.2f G/s |\n", i ? "Fr" : "Fp", ns, 1 / ns);
    }
}

#define RUNS 5

/* Median of RUNS timed calls after a warm-up: gpu_ntt_dev of that kind,
 * or the H computation (kind < 0, which clobbers b and c). */
static double ntt_time(gpu_buf *a, gpu_buf *b, gpu_buf *c, unsigned lg, int kind)
{
    cuzk_err e = {0};
    double t[RUNS];
    for (int r = -1; r < RUNS; r++) {
        double t0 = now_ms();
        if (kind >= 0 ? gpu_ntt_dev(a, lg, (enum gpu_ntt_kind)kind, &e)
                      : gpu_ntt_h_dev(a, b, c, lg, &e))
            die("ntt", &e);
        if (r >= 0) t[r] = now_ms() - t0;
    }
    qsort(t, RUNS, sizeof *t, cmp_double);
    return t[RUNS / 2];
}

/* The default (radix-8) passes at every size; at 2^24 and 2^max_log the
 * radix-2 passes too (the A/B of gpu_ntt_set_radix) with the sweep of
 * their block size. */
static void bench_ntt(unsigned max_log)
{
    static const char *names[] = {"H (6 NTT + pointwise)", "NTT forward", "NTT inverse",
                                  "NTT coset fwd", "NTT coset inv"};
    cuzk_err e = {0};
    for (unsigned lg = 20; lg <= max_log; lg += (lg < 24 ? 2 : 1)) {
        size_t n = (size_t)1 << lg;
        gpu_buf *a, *b, *c;
        if (gpu_buf_new(&a, n * sizeof(fr_t), &e) || gpu_buf_new(&b, n * sizeof(fr_t), &e) ||
            gpu_buf_new(&c, n * sizeof(fr_t), &e))
            die("ntt alloc", &e);
        random_fill(a, n);
        random_fill(b, n);
        random_fill(c, n);
        for (int k = 0; k < 4; k++)
            printf("| %s 2^%u | %.3f ms |\n", names[k + 1], lg, ntt_time(a, b, c, lg, k));
        printf("| %s 2^%u | %.3f ms |\n", names[0], lg, ntt_time(a, b, c, lg, -1));
        if (lg == 24 || lg == max_log) {
            if (gpu_ntt_set_radix(2, &e)) die("ntt radix", &e);
            for (unsigned th = 256; th <= 1024; th *= 2) {
                if (gpu_ntt_set_block(th, &e)) die("ntt block", &e);
                for (int k = -1; k < (th == 256 ? 4 : 1); k++)
                    printf("| %s 2^%u, radix 2, %u threads per block | %.3f ms |\n", names[k + 1],
                           lg, th, ntt_time(a, b, c, lg, k));
            }
            if (gpu_ntt_set_block(256, &e) || gpu_ntt_set_radix(8, &e)) die("ntt radix", &e);
        }
        gpu_buf_free(a);
        gpu_buf_free(b);
        gpu_buf_free(c);
    }
}

static double msm_time(gpu_buf *bp, gpu_buf *bk, size_t n, unsigned window, int runs)
{
    cuzk_err e = {0};
    g1_jac_t r;
    double t[RUNS];
    if (gpu_msm_g1_dev(&r, bp, bk, n, window, &e)) die("msm", &e);
    for (int i = 0; i < runs; i++) {
        double t0 = now_ms();
        if (gpu_msm_g1_dev(&r, bp, bk, n, window, &e)) die("msm", &e);
        t[i] = now_ms() - t0;
    }
    qsort(t, runs, sizeof *t, cmp_double);
    return t[runs / 2];
}

/* One more MSM (G1, or G2 when g2) with phase timing on: where its time
 * goes. */
static void msm_phases(gpu_buf *bp, gpu_buf *bk, size_t n, bool g2)
{
    cuzk_err e = {0};
    g1_jac_t r1;
    g2_jac_t r2;
    float ms[4];
    if (gpu_msm_set_timing(1, &e)) die("msm timing", &e);
    int rc = g2 ? gpu_msm_g2_dev(&r2, bp, bk, n, 0, &e) : gpu_msm_g1_dev(&r1, bp, bk, n, 0, &e);
    if (rc) die("msm", &e);
    gpu_msm_last_phases(ms);
    if (gpu_msm_set_timing(0, &e)) die("msm timing", &e);
    printf("| %s MSM 2^%u phases: digits + sorts / sweep / other bucket sums / reduction | "
           "%.2f / %.2f / %.2f / %.2f ms | default window |\n",
           g2 ? "G2" : "G1", (unsigned)__builtin_ctzll(n), ms[0], ms[1], ms[2], ms[3]);
}

/* The sweep that tunes GPU_MSM_AFFINE_G1: rounds x fewest pairs. */
static void bench_msm_affine(gpu_buf *bp, gpu_buf *bk, unsigned lg, int runs)
{
    static const unsigned set[][2] = {{1, 256}, {2, 256}, {3, 256}, {2, 512}, {3, 512}};
    cuzk_err e = {0};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        if (gpu_msm_set_affine(1, set[i][0], set[i][1], 1024, &e)) die("msm affine", &e);
        printf("| G1 MSM 2^%u, %u affine rounds, >= %u pairs | %.2f ms | default window |\n", lg,
               set[i][0], set[i][1], msm_time(bp, bk, (size_t)1 << lg, 0, runs));
    }
    if (gpu_msm_set_affine(GPU_MSM_AFFINE_G1, &e)) die("msm affine", &e);
}

/* G1 MSM at 2^16 .. 2^max_log with the window sweeps, or (top) at
 * 2^max_log alone with its phases. */
static void bench_msm(unsigned max_log, bool top)
{
    cuzk_err e = {0};
    size_t nmax = (size_t)1 << max_log;
    gpu_buf *bp, *bk;
    if (gpu_buf_new(&bp, nmax * sizeof(g1_affine_t), &e) ||
        gpu_buf_new(&bk, nmax * sizeof(fr_t), &e))
        die("msm alloc", &e);
    if (gpu_g1_bench_bases(bp, nmax, cuzk_rng_u64(&rng), &e)) die("bench bases", &e);
    random_fill(bk, nmax);
    for (unsigned lg = top ? max_log : 16; lg <= max_log; lg += (lg < 24 ? 2 : 1)) {
        int runs = lg >= 26 ? 3 : RUNS;
        printf("| G1 MSM 2^%u | %.2f ms | default window |\n", lg,
               msm_time(bp, bk, (size_t)1 << lg, 0, runs));
        if (lg >= 24) msm_phases(bp, bk, (size_t)1 << lg, false);
        if (top) continue;
        /* the sweep that tunes msm_default_window: 2^lg points, c bits */
        if (lg == 24 || lg == max_log) bench_msm_affine(bp, bk, lg, runs);
        for (unsigned c = lg > 10 ? lg - 8 : 2; lg >= 20 && c <= lg - 2 && c <= 23;
             c += lg >= 26 && c >= 20 ? 1 : 2)
            printf("| G1 MSM 2^%u, window %u | %.2f ms | |\n", lg, c,
                   msm_time(bp, bk, (size_t)1 << lg, c, 3));
    }
    gpu_buf_free(bp);
    gpu_buf_free(bk);
}

/* G2 MSM at 2^20 .. 2^max_log (max 2^24), default window. */
static double msm_g2_time(gpu_buf *bp, gpu_buf *bk, size_t n)
{
    cuzk_err e = {0};
    g2_jac_t r;
    double t[3];
    for (int i = 0; i < 3; i++) {
        double t0 = now_ms();
        if (gpu_msm_g2_dev(&r, bp, bk, n, 0, &e)) die("msm g2", &e);
        t[i] = now_ms() - t0;
    }
    qsort(t, 3, sizeof *t, cmp_double);
    return t[1];
}

static void bench_msm_g2(unsigned max_log)
{
    cuzk_err e = {0};
    unsigned top = max_log < 24 ? max_log : 24;
    size_t nmax = (size_t)1 << top;
    gpu_buf *bp, *bk;
    if (gpu_buf_new(&bp, nmax * sizeof(g2_affine_t), &e) ||
        gpu_buf_new(&bk, nmax * sizeof(fr_t), &e))
        die("msm g2 alloc", &e);
    if (gpu_g2_bench_bases(bp, nmax, cuzk_rng_u64(&rng), &e)) die("bench bases g2", &e);
    random_fill(bk, nmax);
    for (unsigned lg = 20; lg <= top; lg += 2)
        printf("| G2 MSM 2^%u | %.2f ms | default window |\n", lg,
               msm_g2_time(bp, bk, nmax >> (top - lg)));
    msm_phases(bp, bk, nmax, true);
    /* the sweep that tunes GPU_MSM_AFFINE_G2 */
    for (unsigned rounds = 0; rounds <= 3; rounds++) {
        if (gpu_msm_set_affine(2, rounds, 256, 1024, &e)) die("msm affine", &e);
        printf("| G2 MSM 2^%u, %u affine rounds | %.2f ms | default window |\n", top, rounds,
               msm_g2_time(bp, bk, nmax));
    }
    if (gpu_msm_set_affine(GPU_MSM_AFFINE_G2, &e)) die("msm affine", &e);
    gpu_buf_free(bp);
    gpu_buf_free(bk);
}

/* The staged upload of a, b, c competes with the device's kernels (the
 * next circuit's upload runs under this one's MSM) and with the CPU's
 * prep: its rates alone, beside a G1 MSM loop of 2^lg points, and beside
 * 16 spinning host threads. */
static atomic_int busy_stop;
struct msm_loop_arg {
    gpu_buf *bp, *bk;
    size_t n;
};

static void *msm_loop(void *p)
{
    struct msm_loop_arg *a = p;
    cuzk_err e = {0};
    g1_jac_t r;
    while (!atomic_load(&busy_stop))
        if (gpu_msm_g1_dev(&r, a->bp, a->bk, a->n, 0, &e)) die("msm loop", &e);
    return NULL;
}

static void *spin_loop(void *p)
{
    volatile uint64_t x = 0;
    while (!atomic_load(&busy_stop)) x++;
    (void)p;
    return NULL;
}

static void upload_rates(const char *beside)
{
    double r[4];
    cuzk_err e = {0};
    if (gpu_prove_bench_upload((size_t)4 << 30, r, &e)) die("upload rates", &e);
    printf("| upload 4 GiB %s: staged | %.1f GB/s | pinned DMA %.1f, host copy %.1f, pageable "
           "cudaMemcpy %.1f |\n",
           beside, r[0], r[1], r[2], r[3]);
}

static void bench_upload(unsigned lg)
{
    cuzk_err e = {0};
    struct msm_loop_arg a = {NULL, NULL, (size_t)1 << lg};
    if (gpu_buf_new(&a.bp, a.n * sizeof(g1_affine_t), &e) ||
        gpu_buf_new(&a.bk, a.n * sizeof(fr_t), &e))
        die("upload bench alloc", &e);
    if (gpu_g1_bench_bases(a.bp, a.n, cuzk_rng_u64(&rng), &e)) die("bench bases", &e);
    random_fill(a.bk, a.n);
    upload_rates("alone");
    pthread_t t[16];
    atomic_store(&busy_stop, 0);
    if (pthread_create(&t[0], NULL, msm_loop, &a)) die("thread", &e);
    upload_rates("beside G1 MSMs on the device");
    atomic_store(&busy_stop, 1);
    pthread_join(t[0], NULL);
    atomic_store(&busy_stop, 0);
    for (int i = 0; i < 16; i++)
        if (pthread_create(&t[i], NULL, spin_loop, NULL)) die("thread", &e);
    upload_rates("beside 16 spinning host threads");
    atomic_store(&busy_stop, 1);
    for (int i = 0; i < 16; i++) pthread_join(t[i], NULL);
    gpu_buf_free(a.bp);
    gpu_buf_free(a.bk);
}

static void bench_shape(unsigned log)
{
    cs_synthetic syn = {(size_t)1 << log, 1};
    cs_circuit c = cs_synthetic_circuit(&syn);
    cuzk_err e = {0};
    cs_shape *s = NULL;
    cs_witness w = {0};
    double t0 = now_ms();
    int rc = cs_shape_record(&s, c, &e);
    double t1 = now_ms();
    if (!rc) rc = cs_synthesize_witness(&w, c, &e);
    if (rc) {
        printf("shape 2^%u: %s\n", log, e.msg);
        cs_shape_free(s);
        return;
    }
    size_t n = s->num_constraints, ni = w.num_inputs, na = w.num_aux;
    size_t nnz = s->m[0].nnz + s->m[1].nnz + s->m[2].nnz;
    fr_t *abc = malloc(3 * n * sizeof(fr_t));
    gpu_buf *wd = NULL, *abcd = NULL;
    if (!abc || gpu_buf_new(&wd, (ni + na) * sizeof(fr_t), &e) ||
        gpu_buf_new(&abcd, 3 * n * sizeof(fr_t), &e) ||
        gpu_buf_upload(wd, 0, w.input_assignment, ni * sizeof(fr_t), &e) ||
        gpu_buf_upload(wd, ni * sizeof(fr_t), w.aux_assignment, na * sizeof(fr_t), &e)) {
        printf("shape 2^%u: %s\n", log, abc ? e.msg : "out of host memory");
    } else {
        double t2 = now_ms();
        rc = cs_shape_eval(s, w.input_assignment, w.aux_assignment, abc, abc + n, abc + 2 * n, &e);
        double t3 = now_ms();
        fr_t *d = abcd->ptr;
        double ms[5], first = 0;
        for (int i = -1; !rc && i < 5; i++) {
            double a = now_ms();
            rc = gpu_shape_eval_dev(s, wd->ptr, d, d + n, d + 2 * n, &e);
            if (i < 0)
                first = now_ms() - a;
            else
                ms[i] = now_ms() - a;
        }
        if (rc) {
            printf("shape 2^%u: %s\n", log, e.msg);
        } else {
            qsort(ms, 5, sizeof ms[0], cmp_double);
            printf("shape 2^%u: %zu constraints, %zu entries, %.2f GB on the host (%.2f B an "
                   "entry); record %.1f s (1 thread); CPU eval %.0f ms; GPU first %.0f ms (with "
                   "the upload), eval %.2f ms (%.2f GB on the device)\n",
                   log, n, nnz, s->bytes / 1e9, (double)s->bytes / nnz, (t1 - t0) / 1e3, t3 - t2,
                   first, ms[2], gpu_shape_device_bytes(0) / 1e9);
        }
    }
    gpu_shape_forget(s);
    gpu_buf_free(wd), gpu_buf_free(abcd);
    free(abc);
    cs_witness_free(&w);
    cs_shape_free(s);
}

int main(int argc, char **argv)
{
    cuzk_err e = {0};
    setvbuf(stdout, NULL, _IOLBF, 0); /* logs survive a kill */
    if (!gpu_available(&e)) {
        printf("SKIP: %s\n", e.msg);
        return 77;
    }
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 24;
    const char *what = argc > 2 ? argv[2] : "all";
    char desc[256];
    if (gpu_describe(desc, sizeof desc, &e) == 0) printf("device: %s\n", desc);
    if (argc > 1 && !strcmp(argv[1], "prove")) return bench_gpu_prove(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "lane")) return bench_gpu_lane(argc - 1, argv + 1);
    cuzk_rng_seed(&rng, (uint64_t)time(NULL));
    printf("| operation | time | |\n|---|---|---|\n");
    if (!strcmp(what, "all") || !strcmp(what, "field")) bench_fields();
    if (!strcmp(what, "all") || !strcmp(what, "ntt")) bench_ntt(max_log);
    if (!strcmp(what, "all") || !strcmp(what, "msm")) bench_msm(max_log, false);
    if (!strcmp(what, "msm1")) bench_msm(max_log, true);
    if (!strcmp(what, "all") || !strcmp(what, "msm") || !strcmp(what, "g2")) bench_msm_g2(max_log);
    if (!strcmp(what, "upload")) bench_upload(max_log);
    if (!strcmp(what, "shape")) bench_shape(max_log);
    return 0;
}
