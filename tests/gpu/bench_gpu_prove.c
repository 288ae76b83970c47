/*
 * bench_gpu_prove.c - `cuzk-gpu-bench prove LOG [CPU_MAX_LOG] [CIRCUITS] [block]`:
 * one synthetic Filecoin-like partition of about 2^LOG constraints proved
 * on the GPU (gpu_prove.h) and, when LOG <= CPU_MAX_LOG (default 22), on
 * the CPU (groth16_prove), with the per-phase timings side by side.
 *
 * `cuzk-gpu-bench lane [BIG_LOG] [LANE_LOG] [SECONDS] [EVERY_MS] [PAUSES]`
 * (issue 24 without the daemon): device 0's small-circuit lane
 * (gpu_lane.h) proving a synthetic circuit of about 2^LANE_LOG
 * constraints (default 19, a Winning PoSt's domain) every EVERY_MS
 * (default 250) for SECONDS (default 60) while another thread keeps the
 * device's big prover busy with starts of two synthetic partitions of
 * about 2^BIG_LOG (default 26); that once for each of PAUSES, a comma
 * list of the big prover's pause for a lane proof in ms (gpu_lane_set_pause,
 * src/gpu/util/yield.cu; default "0,250": none, then the daemon's
 * default), each optionally "/W": a whole batch addition's run capped at W
 * bitmap words a thread (gpu_prove_set_batch_add_per; its blocks end
 * sooner). The big starts prove the same two circuits with the same r, s
 * throughout, so each start's proofs must be the first start's bytes
 * (checked). The lane's latency idle (10 proofs first) and under that
 * load, p50 / p99 / max, per pause with the big starts' mean time and
 * the pauses taken; every lane proof compared byte for byte with the
 * CPU's proof of the same circuit and r, s. Then one more big start,
 * alone, with its kernels traced (gpu_ktrace_begin / _end): the launch
 * sites whose kernels ran longest, which a lane proof's blocks can wait
 * for. Host threads block on their waits, as the daemon's. The prover
 * logs a start's setup steps when they take over 20 ms (prove_gpu.cu),
 * on stderr.
 *
 * `block` makes the host threads block on their waits for the
 * device (gpu_set_blocking_sync) instead of CUDA's default; the host CPU
 * time of the GPU runs is printed per circuit either way.
 *
 * SYNTHETIC, label the figures so: the circuit is r1cs.h's bit-heavy one
 * (64 booleans, a packing and 64 XORs per random word: nearly every aux
 * is 0 or 1, as in PoRep), and the parameters are NOT a setup but random
 * points of the right counts (4096 multiples k G repeated; one host array
 * serves H, L, A and B_G1, which the device still holds as four), so the
 * proofs do not verify; the CPU and GPU proofs, made with the same r and
 * s, must still be the same bytes, which is checked. The first GPU run
 * uploads the points to the device (reported apart); the figures are the
 * median of three further runs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_gpu_prove.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_lane.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/msm.h"
#include "groth16/prove_internal.h"

#define TABLE 4096 /* distinct random points per group */
#define RUNS  3

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* user + system CPU seconds of the process so far */
static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec +
           u.ru_stime.tv_usec / 1e6;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        printf("FAIL out of host memory (%zu x %zu bytes)\n", n, size);
        exit(1);
    }
    return p;
}

/* n points cycling through table from offset off. */
static g1_affine_t *g1_fill(const g1_affine_t *table, size_t n, size_t off)
{
    g1_affine_t *p = xcalloc(n, sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = table[(i + off) % TABLE];
    return p;
}

static size_t max4(size_t a, size_t b, size_t c, size_t d)
{
    size_t m = a > b ? a : b, n = c > d ? c : d;
    return m > n ? m : n;
}

/* Random-point parameters of the shape w needs (not a setup). */
static void timing_params(groth16_params *pk, const cs_prover *w, cuzk_rng *g)
{
    g1_affine_t *t1 = xcalloc(TABLE, sizeof *t1);
    g2_affine_t *t2 = xcalloc(TABLE, sizeof *t2);
    g1_jac_t *j1 = xcalloc(TABLE, sizeof *j1), gen1;
    g2_jac_t *j2 = xcalloc(TABLE, sizeof *j2), gen2;
    g1_jac_from_affine(&gen1, &g1_GENERATOR);
    g2_jac_from_affine(&gen2, &g2_GENERATOR);
    for (size_t i = 0; i < TABLE; i++) {
        fr_t k;
        fr_random(&k, g);
        g1_jac_mul(&j1[i], &gen1, &k);
        g2_jac_mul(&j2[i], &gen2, &k);
    }
    g1_jac_batch_to_affine(t1, j1, TABLE);
    g2_jac_batch_to_affine(t2, j2, TABLE);
    size_t m = 1;
    while (m < w->num_constraints) m *= 2;
    memset(pk, 0, sizeof *pk);
    pk->vk.alpha_g1 = t1[1], pk->vk.beta_g1 = t1[2], pk->vk.delta_g1 = t1[3];
    pk->vk.beta_g2 = t2[1], pk->vk.gamma_g2 = t2[2], pk->vk.delta_g2 = t2[3];
    pk->vk.n_ic = w->num_inputs;
    pk->vk.ic = g1_fill(t1, w->num_inputs, 7);
    pk->n_h = m - 1;
    pk->n_l = w->num_aux;
    pk->n_a = w->num_inputs + cs_bitmap_popcount(&w->a_aux_density);
    pk->n_b_g1 = pk->n_b_g2 =
        cs_bitmap_popcount(&w->b_input_density) + cs_bitmap_popcount(&w->b_aux_density);
    /* one host array serves H, L, A and B_G1 (read only; 13 GB at 2^27
     * instead of 52), freed by timing_params_free */
    pk->h = g1_fill(t1, max4(pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1), 11);
    pk->l = pk->a = pk->b_g1 = pk->h;
    pk->b_g2 = xcalloc(pk->n_b_g2, sizeof *pk->b_g2);
    for (size_t i = 0; i < pk->n_b_g2; i++) pk->b_g2[i] = t2[(i + 23) % TABLE];
    free(t1), free(t2), free(j1), free(j2);
}

static void timing_params_free(groth16_params *pk)
{
    pk->l = pk->a = pk->b_g1 = NULL;
    groth16_params_free(pk);
}

/* A job's classes as prep_msm left them (a split A or B job has no
 * gathered scalars, only its ones bitmap and its tail). */
static void describe_split(const char *name, const groth16_msm_job *j)
{
    size_t ones = 0;
    for (size_t x = 0; j->ones && x < (j->n + 63) / 64; x++)
        ones += (size_t)__builtin_popcountll(j->ones[x]);
    printf("| %s | %zu | %zu | %zu | %s |\n", name, j->n, ones, j->n_tail,
           j->split ? "split" : "plain");
}

/* The three G1 MSMs' scalars as the provers gather and split them
 * (groth16_jobs_prepare; B_G2 shares B_G1's). */
static void describe_splits(const groth16_params *pk, const cs_prover *w)
{
    groth16_jobs j;
    cuzk_err e = {0};
    if (groth16_jobs_prepare(&j, pk, w, &e)) {
        printf("MSM splits: %s\n", e.msg);
        return;
    }
    printf("\n| MSM | points | ones | tail | |\n|---|---|---|---|---|\n");
    describe_split("L", &j.l);
    describe_split("A", &j.a);
    describe_split("B_G1 / B_G2", &j.b);
    groth16_jobs_free(&j);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Field k of the timings struct, in declaration order. */
static double field(const groth16_timings *t, int k)
{
    const double v[] = {t->prep_msm_ms, t->ntt_msm_h_ms, t->batch_add_ms, t->tail_msm_ms,
                        t->b_g2_msm_ms, t->gpu_total_ms, t->total_ms,     t->upload_ms};
    return v[k];
}

/* The staging path's rates over 1 GiB (gpu_prove_bench_upload). */
static void print_upload_rates(void)
{
    double r[4];
    cuzk_err e = {0};
    if (gpu_prove_bench_upload((size_t)1 << 30, r, &e)) {
        printf("upload rates: %s\n", e.msg);
        return;
    }
    printf("host -> device, 1 GiB: staged %.1f GB/s (pinned DMA alone %.1f, host copy into "
           "the pool alone %.1f), plain cudaMemcpy from pageable %.1f\n",
           r[0], r[1], r[2], r[3]);
}

static void print_table(const groth16_timings *cpu, const groth16_timings gpu[RUNS], double wall)
{
    static const char *names[] = {"prep_msm_ms", "ntt_msm_h_ms", "batch_add_ms", "tail_msm_ms",
                                  "b_g2_msm_ms", "gpu_total_ms", "total_ms",     "upload_ms"};
    printf("\n| phase (synthetic) | CPU ms | GPU ms (median of %d) |\n|---|---|---|\n", RUNS);
    for (int k = 0; k < 8; k++) {
        double v[RUNS];
        for (int r = 0; r < RUNS; r++) v[r] = field(&gpu[r], k);
        qsort(v, RUNS, sizeof *v, cmp_double);
        if (cpu)
            printf("| %s | %.1f | %.1f |\n", names[k], field(cpu, k), v[RUNS / 2]);
        else
            printf("| %s | - | %.1f |\n", names[k], v[RUNS / 2]);
    }
    printf("| wall, start + finish (GPU) | | %.1f |\n", wall);
}

/* GPU runs (warm-up first), then the CPU when asked; 0 when bytes agree. */
static int run(const groth16_params *pk, const cs_prover *w, size_t n, bool cpu, cuzk_rng *g)
{
    cuzk_err e = {0};
    fr_t *rs = xcalloc(2 * n, sizeof *rs);
    groth16_proof *pg = xcalloc(n, sizeof *pg), *pc = xcalloc(n, sizeof *pc);
    groth16_timings *t = xcalloc(n, sizeof *t), gt[RUNS], ct;
    for (size_t i = 0; i < 2 * n; i++) fr_random(&rs[i], g);
    double t0 = now_ms(), walls[RUNS], cpu_s = 0;
    if (gpu_groth16_prove(pg, pk, w, n, rs, t, &e)) return printf("FAIL gpu: %s\n", e.msg), 1;
    printf("first GPU proof (uploads the points, %.2f GiB on the device; MSM working space "
           "%.2f GiB): %.1f ms\n",
           gpu_prove_params_bytes() / 1073741824.0, gpu_msm_workspace_bytes() / 1073741824.0,
           now_ms() - t0);
    for (int r = 0; r < RUNS; r++) {
        double t1 = now_ms(), c1 = cpu_seconds();
        if (gpu_groth16_prove(pg, pk, w, n, rs, t, &e)) return printf("FAIL gpu: %s\n", e.msg), 1;
        walls[r] = now_ms() - t1;
        cpu_s += cpu_seconds() - c1;
        gt[r] = t[0];
        char line[768];
        gpu_prove_format_timings(line, sizeof line, &t[0]);
        printf("GPU run %d: %s (wall %.1f ms for %zu circuit(s))\n", r + 1, line, walls[r], n);
    }
    for (size_t i = 0; n > 1 && i < n; i++) { /* the last run's circuits */
        char line[768];
        gpu_prove_format_timings(line, sizeof line, &t[i]);
        printf("  run %d circuit %zu: %s\n", RUNS, i, line);
    }
    printf("host CPU time of the GPU prover (prep, loader, waits): %.2f s per circuit\n",
           cpu_s / (RUNS * (double)n));
    qsort(walls, RUNS, sizeof *walls, cmp_double);
    int bad = 0;
    if (cpu) {
        if (groth16_prove(pc, pk, w, n, rs, t, &e)) return printf("FAIL cpu: %s\n", e.msg), 1;
        ct = t[0];
        for (size_t i = 0; i < n; i++) {
            uint8_t a[GROTH16_PROOF_BYTES], b[GROTH16_PROOF_BYTES];
            groth16_proof_encode(a, &pc[i]);
            groth16_proof_encode(b, &pg[i]);
            bad += memcmp(a, b, sizeof a) != 0;
        }
        printf(bad ? "FAIL: %d GPU proof(s) differ from the CPU's\n"
                   : "GPU proof bytes == CPU proof bytes (same r, s)\n",
               bad);
    }
    print_table(cpu ? &ct : NULL, gt, walls[RUNS / 2]);
    free(rs), free(pg), free(pc), free(t);
    return bad != 0;
}

/* One lane proof: its wall time, and the prover's timings of it. */
typedef struct lane_time {
    double ms;
    groth16_timings t;
} lane_time;

/* The load of `lane`: the big prover's starts until *stop. */
typedef struct big_load {
    const groth16_params *pk;
    const cs_prover *w; /* two circuits */
    volatile int stop;
    int proofs, failed; /* starts done; the first failure's code */
    int differ;         /* proofs not the bytes of the first start's */
    uint8_t first[2][GROTH16_PROOF_BYTES];
    double first_ms; /* the first start's wall time (its upload) */
    double total_ms; /* every start's wall time, summed */
    cuzk_err err;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} big_load;

/* One start of the load's two circuits, counted and checked into *b. */
static void big_start(big_load *b)
{
    fr_t rs[4] = {FR_ONE, FR_ONE, FR_ONE, FR_ONE};
    groth16_proof pf[2];
    double t0 = now_ms();
    int rc = gpu_groth16_prove(pf, b->pk, b->w, 2, rs, NULL, &b->err);
    uint8_t got[2][GROTH16_PROOF_BYTES];
    for (int i = 0; !rc && i < 2; i++) groth16_proof_encode(got[i], &pf[i]);
    pthread_mutex_lock(&b->mu);
    if (rc) b->failed = rc;
    if (!rc && b->proofs == 0) memcpy(b->first, got, sizeof got);
    if (!rc && memcmp(b->first, got, sizeof got)) b->differ++; /* same circuits, same r, s */
    if (!rc && b->proofs++ == 0) b->first_ms = now_ms() - t0;
    if (!rc) b->total_ms += now_ms() - t0;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void *big_loop(void *arg)
{
    big_load *b = arg;
    while (!b->stop && !b->failed) big_start(b);
    return NULL;
}

static int cmp_lane_time(const void *a, const void *b)
{
    double x = ((const lane_time *)a)->ms, y = ((const lane_time *)b)->ms;
    return x < y ? -1 : x > y;
}

/* p50 / p99 / max of v[0 .. n) (sorted here by wall time), printed as a
 * table row, and into *slow the slowest three's breakdown. */
static void latency_row(const char *what, lane_time *v, size_t n, char *slow, size_t len)
{
    if (slow) slow[0] = 0;
    if (!n) return (void)printf("| %s | 0 | | | |\n", what);
    qsort(v, n, sizeof *v, cmp_lane_time);
    size_t p99 = (size_t)((double)n * 0.99);
    printf("| %s | %zu | %.1f | %.1f | %.1f |\n", what, n, v[n / 2].ms, v[p99 < n ? p99 : n - 1].ms,
           v[n - 1].ms);
    for (size_t i = n; slow && i-- > 0 && i + 3 >= n;) { /* the last three */
        const groth16_timings *t = &v[i].t;
        size_t k = strlen(slow);
        snprintf(slow + k, len - k,
                 "  %.1f ms: prover %.1f (upload %.1f, H %.1f, tails %.1f, B_G2 %.1f), outside "
                 "it %.1f\n",
                 v[i].ms, t->gpu_total_ms, t->upload_ms, t->ntt_msm_h_ms, t->tail_msm_ms,
                 t->b_g2_msm_ms, v[i].ms - t->gpu_total_ms);
    }
}

/* One lane proof of w, its times into *lt; 0 when its bytes are ref's. */
static int lane_proof(const groth16_params *pk, const cs_prover *w, const uint8_t *ref,
                      lane_time *lt, cuzk_err *e)
{
    fr_t rs[2] = {FR_ONE, FR_ONE};
    gpu_prove_pending *p = NULL;
    groth16_proof pf;
    memset(&lt->t, 0, sizeof lt->t);
    double t0 = now_ms();
    int rc = gpu_lane_start(&p, 0, pk, w, 1, rs, e);
    if (!rc) rc = gpu_prove_finish(p, &pf, &lt->t, e);
    lt->ms = now_ms() - t0;
    if (rc) return rc;
    uint8_t b[GROTH16_PROOF_BYTES];
    groth16_proof_encode(b, &pf);
    return memcmp(b, ref, sizeof b) ? cuzk_errf(e, CUZK_EVERIFY, "lane proof != CPU proof") : 0;
}

/* A synthetic circuit of about 2^lg constraints, synthesized into *w:
 * under 2^lg with its input constraints (1/64 spare). */
static int synthetic(cs_prover *w, unsigned lg, cuzk_rng *g, cuzk_err *e)
{
    cs_synthetic shape = {((size_t)1 << lg) - ((size_t)1 << lg) / 64, cuzk_rng_u64(g)};
    return cs_synthesize_prover(w, cs_synthetic_circuit(&shape), NULL, e);
}

/* The lane's proofs every `every` ms for `secs` beside the load b, their
 * times into v (at most cap); their count, or -1 after a failed start
 * (its message printed). *bad counts proofs whose bytes differ. */
static long lane_beside(const groth16_params *pk, const cs_prover *w, const uint8_t *ref,
                        const big_load *b, double secs, double every, lane_time *v, size_t cap,
                        int *bad)
{
    size_t n = 0;
    double end = now_ms() + secs * 1000;
    cuzk_err e = {0};
    while (!b->failed && now_ms() < end && n < cap) {
        double next = now_ms() + every;
        if (lane_proof(pk, w, ref, &v[n], &e)) {
            (*bad)++;
            printf("FAIL lane proof %zu: %s\n", n, e.msg);
        }
        n++;
        while (now_ms() < next) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
    return (long)n;
}

int bench_gpu_lane(int argc, char **argv)
{
    unsigned big_lg = argc > 1 ? (unsigned)atoi(argv[1]) : 26;
    unsigned lane_lg = argc > 2 ? (unsigned)atoi(argv[2]) : 19;
    double secs = argc > 3 ? atof(argv[3]) : 60, every = argc > 4 ? atof(argv[4]) : 250;
    const char *list = argc > 5 ? argv[5] : "0,250"; /* pause ms[/batch-add words] each */
    unsigned pauses[8], words[8];
    size_t np = 0;
    for (const char *q = list;;) { /* ms[/words],...: np = 0 for anything else */
        char *endp;
        long v = strtol(q, &endp, 10), w = 0;
        if (endp != q && *endp == '/') {
            const char *wq = endp + 1;
            w = strtol(wq, &endp, 10);
            if (endp == wq || w < 1 || w > 4096) endp = (char *)q; /* refused below */
        }
        if (endp == q || v < 0 || v > 100000 || (*endp && *endp != ',') || np == 8) {
            np = 0;
            break;
        }
        pauses[np] = (unsigned)v, words[np++] = (unsigned)w;
        if (!*endp) break;
        q = endp + 1;
    }
    if (big_lg < 10 || big_lg > 27 || lane_lg < 10 || lane_lg > 22 || secs <= 0 || every < 0 ||
        np == 0)
        return printf("usage: lane [BIG_LOG(10..27)] [LANE_LOG(10..22)] [SECONDS] [EVERY_MS] "
                      "[PAUSES: ms[/words],... (at most 8)]\n"),
               2;
    cuzk_err e = {0};
    if (gpu_set_blocking_sync(true, &e)) return printf("FAIL: %s\n", e.msg), 1;
    cuzk_rng g;
    cuzk_rng_seed(&g, (uint64_t)time(NULL));
    cs_prover big[2], small;
    groth16_params bpk, spk;
    double t0 = now_ms();
    if (synthetic(&big[0], big_lg, &g, &e) || synthetic(&small, lane_lg, &g, &e))
        return printf("FAIL synthesis: %s\n", e.msg), 1;
    big[1] = big[0]; /* a shallow copy: read only */
    timing_params(&bpk, &big[0], &g);
    timing_params(&spk, &small, &g);
    printf("SYNTHETIC circuits (random-point parameters, not a setup): big %zu constraints (two "
           "a start), lane %zu; made in %.0f ms\n",
           big[0].num_constraints, small.num_constraints, now_ms() - t0);
    size_t room = (spk.n_h + spk.n_l + spk.n_a + spk.n_b_g1) * 96 + spk.n_b_g2 * 192;
    unsigned dom;
    if (groth16_h_domain(&dom, &spk, &small, &e) || gpu_lane_setup(0, dom, room, &e))
        return printf("FAIL lane setup: %s\n", e.msg), 1;
    fr_t rs[2] = {FR_ONE, FR_ONE};
    groth16_proof ref;
    uint8_t refb[GROTH16_PROOF_BYTES];
    if (groth16_prove(&ref, &spk, &small, 1, rs, NULL, &e))
        return printf("FAIL cpu: %s\n", e.msg), 1;
    groth16_proof_encode(refb, &ref);
    size_t cap = 16 + (size_t)(secs * 1000 / (every > 1 ? every : 1)) + 1;
    lane_time *idle = xcalloc(10, sizeof *idle), *loaded = xcalloc(np * cap, sizeof *loaded);
    char slow[8][512];
    long got[8] = {0};
    int bad = 0, starts[8] = {0};
    double start_ms[8] = {0}, pause_ms[8] = {0};
    uint64_t paused[8] = {0}, cut[8] = {0};
    for (int i = 0; i < 10; i++)
        if (lane_proof(&spk, &small, refb, &idle[i], &e))
            return printf("FAIL lane: %s\n", e.msg), 1;
    big_load b = {.pk = &bpk, .w = big};
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    pthread_t th;
    if (pthread_create(&th, NULL, big_loop, &b)) return printf("FAIL: no load thread\n"), 1;
    pthread_mutex_lock(&b.mu); /* the load's first start uploads its parameters */
    while (!b.proofs && !b.failed) pthread_cond_wait(&b.cv, &b.mu);
    pthread_mutex_unlock(&b.mu);
    for (size_t k = 0; k < np && !b.failed; k++) {
        uint64_t c0, x0, c1, x1;
        double m0, m1;
        gpu_lane_set_pause(pauses[k]);
        gpu_prove_set_batch_add_per(words[k]);
        gpu_lane_pauses(0, &c0, &m0, &x0);
        pthread_mutex_lock(&b.mu);
        int p0 = b.proofs;
        double s0 = b.total_ms;
        pthread_mutex_unlock(&b.mu);
        got[k] = lane_beside(&spk, &small, refb, &b, secs, every, loaded + k * cap, cap, &bad);
        pthread_mutex_lock(&b.mu);
        starts[k] = b.proofs - p0, start_ms[k] = b.total_ms - s0;
        pthread_mutex_unlock(&b.mu);
        gpu_lane_pauses(0, &c1, &m1, &x1);
        paused[k] = c1 - c0, pause_ms[k] = m1 - m0, cut[k] = x1 - x0;
    }
    b.stop = 1;
    pthread_join(th, NULL);
    gpu_lane_set_pause(GPU_LANE_PAUSE_MS);
    gpu_prove_set_batch_add_per(0);
    if (b.failed) return printf("FAIL big prover: %s\n", b.err.msg), 1;
    gpu_ktrace_row kr[12]; /* one more start, alone, its kernels traced by site */
    gpu_ktrace_begin();
    big_start(&b);
    size_t nk = gpu_ktrace_end(kr, 12);
    if (b.failed) return printf("FAIL traced big start: %s\n", b.err.msg), 1;
    if (b.differ) bad++, printf("FAIL: %d big starts' proofs differ from the first's\n", b.differ);
    printf("big prover: its first start of two took %.0f ms (the upload)\n", b.first_ms);
    printf("\n| lane proofs (2^%u domain), ms | n | p50 | p99 | max |\n|---|---|---|---|---|\n",
           dom);
    latency_row("idle", idle, 10, NULL, 0);
    for (size_t k = 0; k < np; k++) {
        char what[192], ba[32] = "one wave";
        if (words[k]) snprintf(ba, sizeof ba, "runs of %u words", words[k]);
        snprintf(what, sizeof what,
                 "beside the big starts, pause %u ms, batch addition %s (big starts %d, mean "
                 "%.0f ms; %llu pauses, %.0f ms, %llu cut)",
                 pauses[k], ba, starts[k], starts[k] ? start_ms[k] / starts[k] : 0.0,
                 (unsigned long long)paused[k], pause_ms[k], (unsigned long long)cut[k]);
        latency_row(what, loaded + k * cap, got[k] > 0 ? (size_t)got[k] : 0, slow[k],
                    sizeof slow[k]);
    }
    for (size_t k = 0; k < np; k++)
        printf("\nthe slowest lane proofs beside the big starts, pause %u ms, batch addition "
               "words %u (0: one wave) (the prover's timings; outside it: the start's setup and "
               "the finish):\n%s",
               pauses[k], words[k], slow[k]);
    printf("\nthe big prover's longest kernels, one start alone traced (from a launch to "
           "the next on its stream: an upper bound; gpu_ktrace_end):\n"
           "| launch site | launches | total ms | longest ms |\n|---|---|---|---|\n");
    for (size_t k = 0; k < nk; k++)
        printf("| %s | %u | %.1f | %.1f |\n", kr[k].site, kr[k].launches, kr[k].total_ms,
               kr[k].max_ms);
    printf(bad ? "FAIL: %d lane proof(s) or big starts differ\n"
               : "every lane proof == the CPU's proof, and every big start's proofs == the "
                 "first's, byte for byte\n",
           bad);
    gpu_lane_release(0);
    gpu_prove_params_free(&bpk);
    gpu_prove_params_free(&spk);
    timing_params_free(&bpk), timing_params_free(&spk);
    cs_prover_free(&big[0]), cs_prover_free(&small);
    free(idle), free(loaded);
    return bad != 0;
}

int bench_gpu_prove(int argc, char **argv)
{
    unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    unsigned cpu_max = argc > 2 ? (unsigned)atoi(argv[2]) : 22;
    size_t n = argc > 3 ? (size_t)atoi(argv[3]) : 1;
    bool blocking = argc > 4 && !strcmp(argv[4], "block");
    if (lg < 10 || lg > 28 || n < 1)
        return printf("usage: prove LOG(10..28) [CPU_MAX] [N] [block|spin]\n"), 2;
    cuzk_err se = {0};
    if (blocking && gpu_set_blocking_sync(true, &se)) return printf("FAIL: %s\n", se.msg), 1;
    printf("host threads wait for the device by %s\n", blocking ? "blocking" : "CUDA's default");
    cuzk_rng g;
    cuzk_rng_seed(&g, (uint64_t)time(NULL));
    cs_prover *w = xcalloc(n, sizeof *w);
    cuzk_err e = {0};
    double t0 = now_ms();
    if (synthetic(&w[0], lg, &g, &e)) return printf("FAIL synthesis: %s\n", e.msg), 1;
    for (size_t i = 1; i < n; i++) w[i] = w[0]; /* shallow copies: read-only */
    printf("SYNTHETIC partition (bit-heavy circuit, random-point parameters, not a setup): "
           "%zu constraints, %zu aux, synthesis %.0f ms\n",
           w[0].num_constraints, w[0].num_aux, now_ms() - t0);
    groth16_params pk;
    t0 = now_ms();
    timing_params(&pk, &w[0], &g);
    printf("parameters: H %zu, L %zu, A %zu, B %zu points (%.0f ms)\n", pk.n_h, pk.n_l, pk.n_a,
           pk.n_b_g1, now_ms() - t0);
    describe_splits(&pk, &w[0]);
    print_upload_rates();
    int rc = run(&pk, w, n, lg <= cpu_max, &g);
    gpu_prove_params_free(&pk);
    timing_params_free(&pk);
    cs_prover_free(&w[0]);
    free(w);
    return rc;
}
