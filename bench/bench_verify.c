/*
 * bench_verify.c - the native vanilla checks on one thread, in CPU
 * seconds (the daemon runs one before synthesis for every request): a
 * full 32GiB Window PoSt partition (2349 sparse sectors, gen.h
 * fc_sparse_post_sectors; 200 with --quick, scaled to the partition) and
 * a sparse 32GiB PoRep C1 (fc_sparse_c1; 2KiB with --quick). Each with
 * poseidon_hash_batch's AVX-512 IFMA lanes and without them (the path a
 * CPU without IFMA takes), where the CPU has them.
 *
 * Goal (issue 23): a 32GiB Window PoSt partition in at most 2 CPU-seconds.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/post_verify.h"
#include "cuzk/filecoin/vanilla_verify.h"
#include "cuzk/poseidon.h"

#define WINDOW_SECTORS 2349

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char *what, const cuzk_err *e)
{
    fprintf(stderr, "bench_verify: %s: %s\n", what, e->msg);
    abort();
}

/* Runs check(arg) with the lanes on, then off; reports CPU seconds scaled by scale. */
static void lanes_on_off(const char *figure, const char *goal, double scale, int (*check)(void *),
                         void *arg)
{
    for (int lanes = 1; lanes >= 0; lanes--) {
        if (poseidon_use_lanes(lanes) != lanes) continue; /* no IFMA on this CPU */
        double t0 = cpu_now();
        if (check(arg)) abort();
        char fig[128];
        snprintf(fig, sizeof fig, "%s, %s (1 thread)", figure,
                 lanes ? "IFMA lanes" : "one hash at a time");
        bench_report(fig, (cpu_now() - t0) * scale, "CPU-s", 0, NULL, goal);
    }
    poseidon_use_lanes(true);
}

typedef struct post_arg {
    fc_post_request q;
    vanilla_post_sector *v;
    size_t n;
} post_arg;

static int post_check(void *p)
{
    post_arg *a = p;
    cuzk_err e;
    int rc = fc_post_vanilla_verify(&a->q, a->v, a->n, &e);
    if (rc) die("PoSt check", &e);
    return rc;
}

BENCH(97, verify_window_post_32g)
{
    static post_shape s;
    cuzk_err e;
    if (post_shape_for_size(&s, VANILLA_POST_WINDOW, 32ull << 30, &e)) die("shape", &e);
    uint8_t rnd[32];
    fc_test_bytes(rnd, 97, 0x72);
    post_arg a = {.n = ctx->quick ? 200 : WINDOW_SECTORS};
    a.v = calloc(a.n, sizeof *a.v);
    if (!a.v) abort();
    fc_sparse_post g = {.kind = VANILLA_POST_WINDOW,
                        .shape = &s,
                        .api_version = FC_API_V1_1,
                        .randomness = rnd,
                        .seed = 97,
                        .sector_id = 1};
    if (fc_sparse_post_sectors(a.v, a.n, &g, &e)) die("sparse sectors", &e);
    a.q = (fc_post_request){
        .kind = VANILLA_POST_WINDOW, .shape = &s, .api_version = FC_API_V1_1, .randomness = rnd};
    lanes_on_off("PoSt check, 32GiB Window partition (2349 sectors)", "<= 2 CPU-s",
                 (double)WINDOW_SECTORS / a.n, post_check, &a);
    for (size_t i = 0; i < a.n; i++) vanilla_post_sector_free(&a.v[i]);
    free(a.v);
}

static int c1_check(void *p)
{
    cuzk_err e;
    int rc = fc_porep_c1_verify(p, &e);
    if (rc) die("C1 check", &e);
    return rc;
}

BENCH(98, verify_porep_c1_32g)
{
    uint64_t size = ctx->quick ? 2048 : 32ull << 30;
    fc_test_sector t = {.cfg = fc_porep_config_find(size, FC_POREP_V1_1, NULL), .seed = 98};
    vanilla_c1 c1;
    cuzk_err e;
    if (fc_sparse_c1(&c1, &t, &e)) die("sparse C1", &e);
    lanes_on_off(ctx->quick ? "PoRep C1 check, 2KiB" : "PoRep C1 check, 32GiB", "", 1, c1_check,
                 &c1);
    vanilla_c1_free(&c1);
}
