/*
 * sim_backend.c - the simulated device (sim.h): one H200 that proves
 * each partition in its kind's GPU time, keeps parameter sets in its
 * memory beside the partitions' working memory (least recently used
 * dropped first) and uploads a set it lacks before the start's first
 * partition. The proof itself is the CPU backend's proof of the stand-in
 * circuit (its kind found by the parameters' L length), made while the
 * modeled time runs and waited out after: real, and verified by the
 * engine. A fed start proves its circuits one after the other and asks
 * the feed for more after each, as the CUDA prover does while its
 * kernels run. The small-circuit lane (sim_device.lane_slowdown) proves
 * the partitions the engine gives it (dispatch.h rule 7: HIGH and
 * CRITICAL ones whose circuit has at most 2^gpus.small_lane_max_log
 * constraints and parameters within gpus.small_lane_params) at once, in
 * their GPU time times the slowdown, its parameters kept in its own
 * reservation (uploaded the first time); each such partition's own GPU
 * time is added to the running start's next partition (the SMs it took).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine/srs.h"
#include "sim_internal.h"

static struct {
    pthread_mutex_t mu;
    bool resident[SIM_KINDS];
    uint64_t last_used[SIM_KINDS], tick;
    sim_device_stats stats;
    unsigned lane_log;        /* the lane's largest domain (0: none) */
    uint64_t lane_params;     /* its room for parameters */
    bool lane_has[SIM_KINDS]; /* parameters in the lane's reservation */
    double lane_debt_s;       /* lane GPU time the running start has not paid yet */
} dev = {.mu = PTHREAD_MUTEX_INITIALIZER};

void sim_backend_reset(void)
{
    pthread_mutex_lock(&dev.mu);
    memset(dev.resident, 0, sizeof dev.resident);
    memset(dev.last_used, 0, sizeof dev.last_used);
    memset(&dev.stats, 0, sizeof dev.stats);
    memset(dev.lane_has, 0, sizeof dev.lane_has);
    dev.tick = 0, dev.lane_log = 0, dev.lane_params = 0, dev.lane_debt_s = 0;
    pthread_mutex_unlock(&dev.mu);
}

void sim_backend_stats(sim_device_stats *out)
{
    pthread_mutex_lock(&dev.mu);
    *out = dev.stats;
    pthread_mutex_unlock(&dev.mu);
}

static int sim_devices(size_t *n, char names[][128], uint64_t *vram_total, size_t max)
{
    if (max < 1) return CUZK_EINVAL;
    snprintf(names[0], 128, "sim-h200 (simulated, %.0f GiB)",
             (double)sim_model.device.bytes / (1u << 30));
    vram_total[0] = sim_model.device.bytes;
    *n = 1;
    return CUZK_OK;
}

/* The kind whose stand-in has pk's L length (aux variables: 129 words - 65). */
static int kind_of(const groth16_params *pk, cuzk_err *err)
{
    for (int k = 0; k < SIM_KINDS; k++)
        if (pk->n_l == 129 * (size_t)sim_model.kinds[k].words - 65) return k;
    cuzk_errf(err, CUZK_EINVAL, "sim-h200: parameters with %zu L points are no simulated kind's",
              pk->n_l);
    return -1;
}

/* The modeled seconds to put kind k's parameters on the device (0 when
 * they are there), dropping the least recently used sets that leave too
 * little room (dev.mu held). */
static double make_resident(int k)
{
    dev.last_used[k] = ++dev.tick;
    if (dev.resident[k]) return 0;
    uint64_t room = sim_model.device.bytes - sim_model.device.working, held = 0;
    if (dev.lane_log)
        room = room > sim_model.device.lane_bytes ? room - sim_model.device.lane_bytes : 0;
    for (int i = 0; i < SIM_KINDS; i++)
        held += dev.resident[i] ? sim_model.kinds[i].param_bytes : 0;
    while (held + sim_model.kinds[k].param_bytes > room) {
        int lru = -1;
        for (int i = 0; i < SIM_KINDS; i++)
            if (dev.resident[i] && (lru < 0 || dev.last_used[i] < dev.last_used[lru])) lru = i;
        if (lru < 0) break; /* larger than the room: streamed, at the upload's cost each start */
        dev.resident[lru] = false, held -= sim_model.kinds[lru].param_bytes;
        dev.stats.evictions++;
    }
    dev.resident[k] = held + sim_model.kinds[k].param_bytes <= room;
    double s = (double)sim_model.kinds[k].param_bytes / (sim_model.device.upload_gbs * 1e9);
    dev.stats.uploads++, dev.stats.upload_s += s;
    return s;
}

/* A start's proofs, up to the most circuits a fed start takes. */
typedef struct sim_handle {
    groth16_proof *proofs;
    size_t n;
} sim_handle;

/* Proves one circuit into h (the stand-in on the CPU) and waits out the
 * kind's GPU time from *t (advanced by it). */
static int prove_one(int k, const groth16_params *pk, const cs_prover *c, sim_handle *h,
                     uint64_t *t, cuzk_err *err)
{
    void *cpu = NULL;
    int rc = engine_cpu_backend.start(0, pk, c, 1, &cpu, err);
    if (!rc) rc = engine_cpu_backend.finish(cpu, &h->proofs[h->n], 1, err);
    if (rc) return rc;
    h->n++;
    pthread_mutex_lock(&dev.mu);
    double debt = dev.lane_debt_s;
    dev.lane_debt_s = 0;
    pthread_mutex_unlock(&dev.mu);
    *t += sim_real_ms(sim_model.kinds[k].gpu_s + debt);
    sim_sleep_until(*t);
    pthread_mutex_lock(&dev.mu);
    dev.stats.busy_s += sim_model.kinds[k].gpu_s;
    dev.stats.partitions[k]++;
    pthread_mutex_unlock(&dev.mu);
    return CUZK_OK;
}

/* The start's circuits: those given, then those its feed gives. */
typedef struct sim_list {
    const cs_prover **c;
    size_t n, max;
} sim_list;

/* Asks the feed for more (the CUDA prover asks as its last upload ends,
 * while that circuit's kernels run: here before the last is proved). */
static void ask_feed(const engine_feed *feed, sim_list *l)
{
    const cs_prover *more = NULL;
    size_t got = feed->more(feed->ctx, &more, l->max - l->n);
    for (size_t i = 0; i < got; i++) l->c[l->n++] = &more[i];
}

static int sim_start_fed(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                         const engine_feed *feed, void **handle, cuzk_err *err)
{
    (void)device;
    int k = kind_of(pk, err);
    if (k < 0) return err->code;
    sim_list l = {.n = n, .max = feed && feed->max > n ? feed->max : n};
    sim_handle *h = calloc(1, sizeof *h);
    if (!h || !(h->proofs = calloc(l.max, sizeof *h->proofs)) ||
        !(l.c = calloc(l.max, sizeof *l.c))) {
        if (h) free(h->proofs);
        free(h);
        return cuzk_errf(err, CUZK_ENOMEM, "sim-h200: out of memory");
    }
    for (size_t i = 0; i < n; i++) l.c[i] = &circuits[i];
    pthread_mutex_lock(&dev.mu);
    double upload = make_resident(k);
    dev.stats.busy_s += upload;
    pthread_mutex_unlock(&dev.mu);
    uint64_t t = srs_now_ms() + sim_real_ms(upload);
    int rc = CUZK_OK;
    for (size_t i = 0; !rc && i < l.n; i++) {
        if (feed && i + 1 == l.n && l.n < l.max) ask_feed(feed, &l);
        rc = prove_one(k, pk, l.c[i], h, &t, err);
        if (!rc && feed) feed->consumed(feed->ctx, i);
    }
    free(l.c);
    if (rc) {
        free(h->proofs), free(h);
        return rc;
    }
    *handle = h;
    return CUZK_OK;
}

static int sim_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                     void **handle, cuzk_err *err)
{
    return sim_start_fed(device, pk, circuits, n, NULL, handle, err);
}

static int sim_finish(void *handle, groth16_proof *proofs, size_t n, cuzk_err *err)
{
    sim_handle *h = handle;
    int rc = n == h->n ? CUZK_OK
                       : cuzk_errf(err, CUZK_EINVAL, "sim-h200: %zu proofs asked of a start of %zu",
                                   n, h->n);
    if (!rc) memcpy(proofs, h->proofs, n * sizeof *proofs);
    free(h->proofs), free(h);
    return rc;
}

static int sim_lane_setup(int device, unsigned max_log, uint64_t params_bytes, unsigned pause_ms,
                          cuzk_err *err)
{
    (void)device, (void)pause_ms; /* the model's lane_slowdown stands for the device's sharing */
    if (sim_model.device.lane_slowdown <= 0)
        return cuzk_errf(err, CUZK_EINVAL, "sim-h200: no small-circuit lane modeled");
    pthread_mutex_lock(&dev.mu);
    dev.lane_log = max_log, dev.lane_params = params_bytes;
    pthread_mutex_unlock(&dev.mu);
    return CUZK_OK;
}

static bool sim_lane_fits(int device, const groth16_params *pk, const cs_prover *c)
{
    (void)device, (void)c;
    int k = kind_of(pk, NULL);
    pthread_mutex_lock(&dev.mu);
    bool fits = k >= 0 && dev.lane_log &&
                sim_model.kinds[k].shape.constraints <= ((size_t)1 << dev.lane_log) &&
                sim_model.kinds[k].param_bytes <= dev.lane_params;
    pthread_mutex_unlock(&dev.mu);
    return fits;
}

/* The lane's start: the stand-in proved on the CPU, the kind's GPU time
 * times the slowdown waited out (its parameters' upload first, once). */
static int sim_lane_start(int device, const groth16_params *pk, const cs_prover *circuits, size_t n,
                          void **handle, cuzk_err *err)
{
    (void)device;
    int k = kind_of(pk, err);
    if (k < 0) return err->code;
    sim_handle *h = calloc(1, sizeof *h);
    if (!h || !(h->proofs = calloc(n ? n : 1, sizeof *h->proofs))) {
        free(h);
        return cuzk_errf(err, CUZK_ENOMEM, "sim-h200: out of memory");
    }
    pthread_mutex_lock(&dev.mu);
    double upload = dev.lane_has[k] ? 0
                                    : (double)sim_model.kinds[k].param_bytes /
                                          (sim_model.device.upload_gbs * 1e9);
    dev.lane_has[k] = true;
    pthread_mutex_unlock(&dev.mu);
    uint64_t t = srs_now_ms() + sim_real_ms(upload);
    int rc = CUZK_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        void *cpu = NULL;
        rc = engine_cpu_backend.start(0, pk, &circuits[i], 1, &cpu, err);
        if (!rc) rc = engine_cpu_backend.finish(cpu, &h->proofs[h->n], 1, err);
        if (rc) break;
        h->n++;
        double s = sim_model.kinds[k].gpu_s * sim_model.device.lane_slowdown;
        t += sim_real_ms(s);
        sim_sleep_until(t);
        pthread_mutex_lock(&dev.mu);
        dev.stats.lane_busy_s += s;
        dev.stats.busy_s += sim_model.kinds[k].gpu_s;
        dev.stats.partitions[k]++, dev.stats.lane_partitions[k]++;
        dev.lane_debt_s += sim_model.kinds[k].gpu_s;
        pthread_mutex_unlock(&dev.mu);
    }
    if (rc) {
        free(h->proofs), free(h);
        return rc;
    }
    *handle = h;
    return CUZK_OK;
}

static void sim_lane_release(int device)
{
    (void)device;
    pthread_mutex_lock(&dev.mu);
    dev.lane_log = 0;
    memset(dev.lane_has, 0, sizeof dev.lane_has);
    pthread_mutex_unlock(&dev.mu);
}

const engine_backend sim_backend = {.name = "sim-h200",
                                    .devices = sim_devices,
                                    .start = sim_start,
                                    .finish = sim_finish,
                                    .start_fed = sim_start_fed,
                                    .lane_setup = sim_lane_setup,
                                    .lane_fits = sim_lane_fits,
                                    .lane_start = sim_lane_start,
                                    .lane_release = sim_lane_release};
