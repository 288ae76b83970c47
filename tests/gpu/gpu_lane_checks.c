/*
 * gpu_lane_checks.c - the small-circuit lane of device 0 (gpu_lane.h):
 * proofs by the lane equal, byte for byte, those of the device's big
 * prover and of the CPU (r = s = 1), on the witness-only path and on the
 * prover backend's, and verify; a circuit over the lane's domain is
 * refused by gpu_lane_fits and gpu_lane_start; the lane proves while a
 * fed start of the big prover holds the device's prover lock (its feed
 * blocks, inside the start, until the lane's proof is done or
 * LANE_WAIT_S passed: a lane that waited for that lock would find it
 * only after the timeout, and the check fails); the reservation is
 * given back by gpu_lane_release.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cuzk/gpu_lane.h"
#include "cuzk/gpu_prove.h"
#include "gpu_check.h"
#include "gpu_lane_checks.h"
#include "gpu_prove_checks.h"

#define LANE_LOG    12        /* the test circuits: 3000 constraints, domain 2^12 */
#define LANE_PARAMS (8 << 20) /* their parameters: about 1 MB */
#define LANE_WAIT_S 60

/* Proof of w by the lane (lane) or the big prover of device 0, r = s = 1. */
static int prove_on(groth16_proof *out, bool lane, const groth16_params *pk, const cs_prover *w,
                    cuzk_err *err)
{
    fr_t rs[2] = {FR_ONE, FR_ONE};
    gpu_prove_pending *p = NULL;
    int rc =
        lane ? gpu_lane_start(&p, 0, pk, w, 1, rs, err) : gpu_prove_start(&p, 0, pk, w, 1, rs, err);
    return rc ? rc : gpu_prove_finish(p, out, NULL, err);
}

/* The lane's, the device's and the CPU's proofs of w: equal and valid. */
static void three_ways(const char *what, const groth16_params *pk, const cs_prover *w)
{
    fr_t rs[2] = {FR_ONE, FR_ONE};
    groth16_proof lane, dev, cpu;
    cuzk_err err = {0};
    int rc = prove_on(&lane, true, pk, w, &err);
    CHECK(rc == 0, "lane: %s: lane proof: %s", what, err.msg);
    if (!rc) rc = prove_on(&dev, false, pk, w, &err);
    CHECK(rc == 0, "lane: %s: device proof: %s", what, err.msg);
    if (!rc) rc = groth16_prove(&cpu, pk, w, 1, rs, NULL, &err);
    CHECK(rc == 0, "lane: %s: cpu proof: %s", what, err.msg);
    if (rc) return;
    CHECK(!memcmp(&lane, &dev, sizeof lane), "lane: %s: lane proof != device proof", what);
    CHECK(!memcmp(&lane, &cpu, sizeof lane), "lane: %s: lane proof != CPU proof", what);
    groth16_pvk pvk;
    rc = groth16_prepare_vk(&pvk, &pk->vk, &err);
    fr_t in[8];
    size_t n_in = w->num_inputs - 1 < 8 ? w->num_inputs - 1 : 8;
    memcpy(in, w->input_assignment + 1, n_in * sizeof *in);
    if (!rc) rc = groth16_verify(&pvk, &lane, in, n_in, &err);
    CHECK(rc == 0, "lane: %s: the lane's proof does not verify: %s", what, err.msg);
    groth16_pvk_free(&pvk);
}

/* A big start's feed that holds it (and the device's prover lock) until
 * the lane's proof is done. */
typedef struct holder {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool inside, lane_done, timed_out;
} holder;

static size_t hold_more(void *ctx, const cs_prover **circuits, size_t room)
{
    (void)circuits, (void)room;
    holder *h = ctx;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += LANE_WAIT_S;
    pthread_mutex_lock(&h->mu);
    h->inside = true;
    pthread_cond_broadcast(&h->cv);
    while (!h->lane_done && !h->timed_out)
        h->timed_out = pthread_cond_timedwait(&h->cv, &h->mu, &until) != 0;
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static void hold_consumed(void *ctx, size_t i)
{
    (void)ctx, (void)i;
}

typedef struct big_start {
    holder *h;
    const groth16_params *pk;
    const cs_prover *w;
    int rc;
    cuzk_err err;
} big_start;

static void *big_start_run(void *arg)
{
    big_start *b = arg;
    gpu_prove_feed feed = {b->h, 2, hold_more, hold_consumed};
    gpu_prove_pending *p = NULL;
    groth16_proof proof;
    b->rc = gpu_prove_start_fed(&p, 0, b->pk, b->w, 1, &feed, &b->err);
    if (!b->rc) b->rc = gpu_prove_finish(p, &proof, NULL, &b->err);
    return NULL;
}

/* The lane proves w while a fed start on device 0 holds its prover lock. */
static void check_beside_held_lock(const groth16_params *pk, const cs_prover *w)
{
    holder h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, false};
    big_start b = {&h, pk, w, 0, {0}};
    pthread_t t;
    if (pthread_create(&t, NULL, big_start_run, &b)) {
        CHECK(0, "lane: no thread");
        return;
    }
    pthread_mutex_lock(&h.mu);
    while (!h.inside && !h.timed_out) pthread_cond_wait(&h.cv, &h.mu);
    pthread_mutex_unlock(&h.mu);
    groth16_proof lane;
    cuzk_err err = {0};
    int rc = prove_on(&lane, true, pk, w, &err);
    pthread_mutex_lock(&h.mu);
    bool late = h.timed_out;
    h.lane_done = true;
    pthread_cond_broadcast(&h.cv);
    pthread_mutex_unlock(&h.mu);
    pthread_join(t, NULL);
    CHECK(rc == 0, "lane: beside a held prover lock: %s", err.msg);
    CHECK(!late, "lane: the lane's proof waited for the big start's prover lock (%d s)",
          LANE_WAIT_S);
    CHECK(b.rc == 0, "lane: the big start beside it: %s", b.err.msg);
    if (!rc && !late) printf("lane: proved while a big start held device 0's prover lock\n");
}

int gpu_lane_checks(cuzk_rng *g)
{
    failures = 0;
    cuzk_err err = {0};
    groth16_params pk;
    cs_shape *shape = NULL;
    cs_prover ww, wp;
    memset(&wp, 0, sizeof wp);
    gpu_lane_release(0); /* an engine of the earlier checks may have made one */
    int rc = gpu_check_witness_circuit(g, true, &pk, &shape, &ww, &err);
    cs_synthetic syn = {3000, cuzk_rng_u64(g)};
    if (!rc) rc = cs_synthesize_prover(&wp, cs_synthetic_circuit(&syn), NULL, &err);
    CHECK(rc == 0, "lane: circuits: %s", err.msg);
    if (!rc) rc = gpu_lane_setup(0, LANE_LOG, LANE_PARAMS, &err);
    CHECK(rc == 0, "lane: setup: %s", err.msg);
    if (!rc) {
        size_t reserved = gpu_lane_reserved(0);
        CHECK(reserved >= gpu_lane_bytes_for(LANE_LOG, LANE_PARAMS), "lane: reserved %zu bytes",
              reserved);
        CHECK(gpu_lane_fits(0, &pk, &ww) && !gpu_lane_fits(1, &pk, &ww),
              "lane: a 2^12 circuit fits device 0's lane only");
        three_ways("witness-only path", &pk, &ww);
        three_ways("prover backend", &pk, &wp);
        check_beside_held_lock(&pk, &ww);
        printf("lane: %zu bytes reserved, %zu held after its proofs; proofs == device == CPU\n",
               reserved, gpu_lane_used(0));
    }
    groth16_params big;
    cs_prover wb;
    memset(&wb, 0, sizeof wb);
    cs_synthetic bs = {5000, cuzk_rng_u64(g)}; /* domain 2^13 */
    if (!rc) rc = groth16_setup_dev(&big, cs_synthetic_circuit(&bs), cuzk_rng_u64(g), &err);
    if (!rc) {
        if (cs_synthesize_prover(&wb, cs_synthetic_circuit(&bs), NULL, &err) == 0) {
            gpu_prove_pending *p = NULL;
            CHECK(!gpu_lane_fits(0, &big, &wb), "lane: a 2^13 circuit fits a 2^12 lane");
            int r2 = gpu_lane_start(&p, 0, &big, &wb, 1, NULL, &err);
            CHECK(r2 == CUZK_EINVAL && strstr(err.msg, "no lane that circuit 0 fits"),
                  "lane: a 2^13 circuit: rc %d (%s)", r2, err.msg);
        }
        cs_prover_free(&wb);
        groth16_params_free(&big);
    }
    size_t left = gpu_lane_release(0);
    CHECK(left == 0, "lane: %zu bytes still held by its state at its release", left);
    CHECK(gpu_lane_reserved(0) == 0 && !gpu_lane_fits(0, &pk, &ww),
          "lane: still there after its release");
    gpu_check_witness_circuit_free(&pk, shape, &ww, 1);
    cs_prover_free(&wp);
    return failures;
}
