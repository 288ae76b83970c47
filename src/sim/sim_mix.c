/*
 * sim_mix.c - mixed.sh's replay against the simulated host (sim.h): one
 * engine made as the daemon makes it (the daemon's defaults, the budget
 * "auto" gives on the host's memory, srs.pinned / srs.preload), on the
 * simulated device and kinds; for `seconds` of simulated time, PoRep and
 * SnapDeals streams (each slot a request after the other), a Window PoSt
 * deadline of several partitions sent at once every few minutes and a
 * Winning PoSt every 30 s, each request a thread submitting it and
 * awaiting its proof. The replay starts once the pinned and preloaded
 * sets are loaded (a daemon that has been up). Afterwards every partition
 * proof is verified again here, against the stand-in's verifying key
 * read from its file and its public input computed anew, and the report
 * gathered: latency per kind, throughput, deadlines, loads and evictions
 * per set, the budget's peak, the device's work.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine_log.h"
#include "cuzk/file.h"
#include "cuzk/params.h"
#include "engine/srs.h"
#include "sim_internal.h"

/* The lane as modeled (an estimate, not measured yet): a Winning PoSt's
 * kernels on the stream of greatest priority get SMs as the running
 * start's blocks end (a few ms each), but share them and the memory
 * bandwidth with that start: twice its idle GPU time. Its reservation:
 * gpu_lane_bytes_for(19, 512 MiB) at the defaults, 3,560 MiB (2.4 GiB of
 * it B_G2's MSM workspace at 2^19). */
#define SIM_LANE_SLOWDOWN 2.0
#define SIM_LANE_BYTES    (3560ull << 20)

void sim_mix_default(sim_mix *m)
{
    *m = (sim_mix){
        .seconds = 3600,
        .speed = 10,
        .host_bytes = 128ull << 30,
        .device = {139ull << 30, 32ull << 30, 25.0, SIM_LANE_SLOWDOWN, SIM_LANE_BYTES},
        .porep_inflight = 2,
        .snap_inflight = 1,
        .deadline_first_s = 20,
        .deadline_every_s = 120,
        .deadline_parts = 4,
        .winning_first_s = 5,
        .winning_every_s = 30,
        .pinned = "winning,wpost",
        .preload = "",
        .param_cache = "data/sim-params",
    };
}

/* One request: what it was, when (simulated seconds from the replay's
 * start), how it ended, its proof. */
typedef struct sim_req {
    int k;
    uint64_t seed;
    uint32_t deadline; /* Window PoSt: its deadline, from 1 */
    double t0, t1;
    int status;
    char error[160];
    uint8_t *proof;
    size_t proof_len;
    pthread_t thread;
} sim_req;

typedef struct sim_run {
    const sim_mix *m;
    engine_t *e;
    uint64_t start_ms, end_ms; /* real */
    pthread_mutex_t mu;
    sim_req **reqs;
    size_t n, cap;
    uint64_t next_seed;
} sim_run;

static double sim_now(const sim_run *r)
{
    return (double)(srs_now_ms() - r->start_ms) * r->m->speed / 1000.0;
}

/* A new request record of kind k (NULL when out of memory). */
static sim_req *new_req(sim_run *r, int k, uint32_t deadline)
{
    sim_req *q = calloc(1, sizeof *q);
    pthread_mutex_lock(&r->mu);
    if (q && r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        sim_req **grown = realloc(r->reqs, cap * sizeof *grown);
        if (grown) r->reqs = grown, r->cap = cap;
    }
    if (q && r->n < r->cap) {
        q->k = k, q->deadline = deadline;
        q->seed = r->next_seed, r->next_seed += 1000;
        r->reqs[r->n++] = q;
    } else {
        free(q), q = NULL;
    }
    pthread_mutex_unlock(&r->mu);
    return q;
}

/* Submits q and waits for its proof (the tail: at most ten simulated
 * minutes past the replay's end). */
static void run_req(sim_run *r, sim_req *q)
{
    uint8_t rec[SIM_RECORD_BYTES];
    engine_request req;
    sim_request(&req, rec, q->k, q->seed);
    char id[ENGINE_ID_MAX];
    cuzk_err err = {0};
    engine_result res = {0};
    q->t0 = sim_now(r);
    int rc = engine_submit(r->e, &req, id, NULL, &err);
    uint64_t tail = r->end_ms + sim_real_ms(600), now = srs_now_ms();
    if (!rc) rc = engine_await(r->e, id, tail > now ? tail - now : 1, &res, NULL, NULL, &err);
    q->t1 = sim_now(r);
    q->status = rc ? ENGINE_FAILED : res.status;
    snprintf(q->error, sizeof q->error, "%.150s", rc ? err.msg : res.error);
    q->proof = res.proof, q->proof_len = res.proof_len;
    res.proof = NULL;
}

typedef struct stream_arg {
    sim_run *r;
    int k;
} stream_arg;

/* A stream's slot: requests of one kind one after the other until the end. */
static void *stream_thread(void *arg)
{
    stream_arg *a = arg;
    sim_req *q;
    while (srs_now_ms() < a->r->end_ms && (q = new_req(a->r, a->k, 0))) run_req(a->r, q);
    return NULL;
}

static void *req_thread(void *arg)
{
    sim_run *r = ((void **)arg)[0];
    sim_req *q = ((void **)arg)[1];
    free(arg);
    run_req(r, q);
    return NULL;
}

/* Starts q on a thread of its own (joined by the report). */
static void launch(sim_run *r, sim_req *q)
{
    void **arg = malloc(2 * sizeof *arg);
    if (!arg) return;
    arg[0] = r, arg[1] = q;
    if (pthread_create(&q->thread, NULL, req_thread, arg)) {
        free(arg);
        q->status = ENGINE_FAILED;
        snprintf(q->error, sizeof q->error, "cannot start a thread");
    }
}

typedef struct every_arg {
    sim_run *r;
    int k;
    double first_s, every_s;
    uint32_t parts; /* requests sent at once */
} every_arg;

/* Sends `parts` requests at first_s and every every_s after, on time
 * whether or not the previous ones finished. */
static void *every_thread(void *arg)
{
    every_arg *a = arg;
    uint32_t n = 0;
    for (double t = a->first_s; t < a->r->m->seconds; t += a->every_s) {
        sim_sleep_until(a->r->start_ms + sim_real_ms(t));
        n++;
        for (uint32_t p = 0; p < a->parts; p++) {
            sim_req *q = new_req(a->r, a->k, a->k == SIM_WPOST ? n : 0);
            if (q) launch(a->r, q);
        }
    }
    return NULL;
}

/* The read-ahead (sim_mix.readahead_s): each deadline's set preloaded at
 * HIGH readahead_s before it, held until 10 s after it (the deadline's
 * own jobs rank it from then); a preload still under way delays the next. */
static void *readahead_thread(void *arg)
{
    sim_run *r = arg;
    const sim_mix *m = r->m;
    char id[ENGINE_ID_MAX];
    sim_circuit_id(SIM_WPOST, id);
    for (double t = m->deadline_first_s; t < m->seconds; t += m->deadline_every_s) {
        double at = t > m->readahead_s ? t - m->readahead_s : 0;
        sim_sleep_until(r->start_ms + sim_real_ms(at));
        bool was;
        uint64_t ms;
        cuzk_err err;
        if (engine_preload_at(r->e, id, ENGINE_PRIO_HIGH, sim_real_ms(t + 10 - at), &was, &ms,
                              &err))
            engine_log(LOG_WARN, "read-ahead of %s failed: %s", id, err.msg);
    }
    return NULL;
}

/* The circuit ids of a comma list of kind names into ids; false naming
 * an unknown one. */
static bool kinds_to_ids(const char *list, char ids[][CONFIG_ID_MAX], size_t *n, cuzk_err *err)
{
    *n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < SIM_KINDS && strcmp(sim_kinds_32g[k].name, t)) k++;
        if (k == SIM_KINDS || *n == CONFIG_MAX_PRELOAD) {
            cuzk_errf(err, CUZK_EINVAL,
                      "simulated mix: \"%s\" is no kind (porep, snap, wpost, "
                      "winning)",
                      t);
            return false;
        }
        char id[ENGINE_ID_MAX];
        sim_circuit_id(k, id);
        snprintf(ids[(*n)++], CONFIG_ID_MAX, "%s", id);
    }
    return true;
}

/* A policy time of the daemon's (whole seconds) in the replay's real
 * time at `speed`, at least 1 s (the config's unit). */
static uint64_t scaled_seconds(uint64_t seconds, double speed)
{
    double real = (double)seconds / speed;
    return real < 1 ? 1 : (uint64_t)real;
}

/* The daemon's defaults with the simulated host's budget and lists and
 * its time settings scaled by the speed. */
static int make_config(const sim_mix *m, cuzk_config *c, cuzk_err *err)
{
    cuzk_config_default(c);
    if (m->host_bytes <= c->safety_margin)
        return cuzk_errf(err, CUZK_EINVAL,
                         "simulated mix: a host of %llu MiB, not above the "
                         "safety margin (memory.safety_margin, %llu MiB)",
                         (unsigned long long)(m->host_bytes >> 20),
                         (unsigned long long)(c->safety_margin >> 20));
    snprintf(c->param_cache, sizeof c->param_cache, "%s", m->param_cache);
    c->total_budget = m->host_bytes - c->safety_margin; /* "auto" on that host */
    if (!kinds_to_ids(m->pinned, c->pinned, &c->n_pinned, err) ||
        !kinds_to_ids(m->preload, c->preload, &c->n_preload, err))
        return err->code;
    c->reuse_partitions = false; /* stand-in storage never fits a modeled shape */
    if (m->device.lane_slowdown <= 0) c->small_lane_max_log = 0;
    c->synthesis_concurrency = 4; /* pipeline.c's auto on a GPU backend */
    c->aging_ms = (uint64_t)((double)c->aging_ms / m->speed);
    c->max_batch_wait_ms = (uint64_t)((double)c->max_batch_wait_ms / m->speed);
    if (m->swap_after_s > 0) c->srs_swap_after_s = (uint64_t)m->swap_after_s;
    c->srs_keep_rank_s = scaled_seconds(c->srs_keep_rank_s, m->speed);
    c->srs_swap_after_s = scaled_seconds(c->srs_swap_after_s, m->speed);
    c->eviction_min_idle_s = scaled_seconds(c->eviction_min_idle_s, m->speed);
    return CUZK_OK;
}

/* Waits until no set loads and every pinned and preloaded one is in (at
 * most ten simulated minutes). */
static void wait_preloaded(engine_t *e, const cuzk_config *c, double speed)
{
    for (uint64_t until = srs_now_ms() + (uint64_t)(600000 / speed); srs_now_ms() < until;) {
        engine_status_t s;
        if (engine_status(e, &s, NULL)) return;
        size_t in = 0;
        bool loading = false;
        for (size_t i = 0; i < s.n_srs; i++) {
            loading |= s.srs[i].loading;
            in += (s.srs[i].pinned || s.srs[i].preload) && s.srs[i].tier != 2;
        }
        engine_status_free(&s);
        if (!loading && in >= c->n_pinned + c->n_preload) return;
        sim_sleep_until(srs_now_ms() + 20);
    }
}

/* Latency order for the percentiles. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* mixed.sh's row of kind k: requests, failures, p50 / p99 / max of the
 * completed ones (its percentile: element int((m - 1) q) of the sorted). */
static void kind_row(const sim_run *r, int k, double wall_s, sim_kind_report *out)
{
    double *l = calloc(r->n ? r->n : 1, sizeof *l);
    size_t m = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; l && i < r->n; i++) {
        const sim_req *q = r->reqs[i];
        if (q->k != k) continue;
        out->requests++;
        if (q->status != ENGINE_COMPLETED)
            out->failed++;
        else
            l[m++] = q->t1 - q->t0;
    }
    if (m) {
        qsort(l, m, sizeof *l, by_value);
        out->p50_s = l[(size_t)((double)(m - 1) * 0.50)];
        out->p99_s = l[(size_t)((double)(m - 1) * 0.99)];
        out->max_s = l[m - 1];
        out->per_min = (double)m * 60.0 / wall_s;
    }
    free(l);
}

/* Each deadline: its first request to its last proof; < 0 when one of its
 * partitions failed. */
static void deadlines(const sim_run *r, sim_report *out)
{
    double first[SIM_MAX_DEADLINES], last[SIM_MAX_DEADLINES];
    bool failed[SIM_MAX_DEADLINES] = {false};
    for (size_t i = 0; i < r->n; i++) {
        const sim_req *q = r->reqs[i];
        if (q->k != SIM_WPOST || !q->deadline || q->deadline > SIM_MAX_DEADLINES) continue;
        uint32_t d = q->deadline - 1;
        for (; out->deadlines < q->deadline; out->deadlines++)
            first[out->deadlines] = 1e300, last[out->deadlines] = 0;
        if (q->t0 < first[d]) first[d] = q->t0;
        if (q->t1 > last[d]) last[d] = q->t1;
        failed[d] |= q->status != ENGINE_COMPLETED;
    }
    for (uint32_t d = 0; d < out->deadlines; d++) {
        out->deadline_s[d] = failed[d] ? -1 : last[d] - first[d];
        if (out->deadline_s[d] > out->deadline_max_s) out->deadline_max_s = out->deadline_s[d];
    }
}

/* The stand-in's verifying key of kind k (read from its parameters). */
static int stand_in_vk(const sim_mix *m, int k, groth16_pvk *pvk, cuzk_err *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/cuzk-test-%u-dev.params", m->param_cache, sim_stand_in(k));
    groth16_vk vk;
    int rc = groth16_vk_read_from_params(&vk, path, PARAMS_CHECKED, err);
    if (!rc) rc = groth16_prepare_vk(pvk, &vk, err);
    if (!rc) groth16_vk_free(&vk);
    return rc;
}

/* Whether partition p of q's proof verifies against the stand-in's input. */
static bool partition_verifies(const sim_req *q, uint32_t p, const groth16_pvk *pvk)
{
    cs_synthetic shape = {sim_stand_in(q->k), q->seed + p};
    cs_witness w;
    groth16_proof proof;
    if (cs_synthesize_witness(&w, cs_synthetic_circuit(&shape), NULL)) return false;
    bool ok = !groth16_proof_decode(&proof, q->proof + (size_t)p * GROTH16_PROOF_BYTES,
                                    GROTH16_PROOF_BYTES, NULL) &&
              !groth16_verify(pvk, &proof, &w.input_assignment[1], 1, NULL);
    cs_witness_free(&w);
    return ok;
}

/* Every completed request's partition proofs verified here. */
static void verify_all(const sim_run *r, sim_report *out)
{
    groth16_pvk pvk[SIM_KINDS];
    bool have[SIM_KINDS] = {false};
    cuzk_err err;
    for (size_t i = 0; i < r->n; i++) {
        const sim_req *q = r->reqs[i];
        if (q->status != ENGINE_COMPLETED) continue;
        if (!have[q->k] && stand_in_vk(r->m, q->k, &pvk[q->k], &err)) {
            snprintf(out->first_error, sizeof out->first_error, "%.200s", err.msg);
            out->rejected += sim_model.kinds[q->k].partitions;
            continue;
        }
        have[q->k] = true;
        uint32_t parts = (uint32_t)(q->proof_len / GROTH16_PROOF_BYTES);
        for (uint32_t p = 0; p < parts; p++) {
            if (partition_verifies(q, p, &pvk[q->k]))
                out->verified++;
            else
                out->rejected++;
        }
    }
    for (int k = 0; k < SIM_KINDS; k++)
        if (have[k]) groth16_pvk_free(&pvk[k]);
}

/* The budget's peak from the metrics (the one place it is exported). */
static uint64_t budget_peak_of(engine_t *e)
{
    char *t = engine_metrics(e);
    const char *at = t ? strstr(t, "\ncuzk_memory_peak_bytes ") : NULL;
    uint64_t peak = at ? strtoull(at + 24, NULL, 10) : 0;
    free(t);
    return peak;
}

/* Loads, evictions, seconds loading and loads abandoned per set, the
 * budget. */
static void engine_figures(engine_t *e, const sim_mix *m, sim_report *out)
{
    engine_status_t s;
    if (engine_status(e, &s, NULL)) return;
    for (size_t i = 0; i < s.n_srs; i++) {
        int k = sim_kind_of_id(s.srs[i].circuit_id);
        if (k < 0) continue;
        out->loads[k] = s.srs[i].loads, out->evictions[k] = s.srs[i].evictions;
        out->load_s[k] = s.srs[i].load_seconds * m->speed;
        out->abandoned[k] = s.srs[i].abandoned, out->abandoned_bytes[k] = s.srs[i].abandoned_bytes;
    }
    out->budget = s.budget_total;
    engine_status_free(&s);
    out->budget_peak = budget_peak_of(e);
}

/* The first failed request's error, for the report. */
static void first_failure(const sim_run *r, sim_report *out)
{
    for (size_t i = 0; i < r->n && !out->first_error[0]; i++)
        if (r->reqs[i]->status != ENGINE_COMPLETED)
            snprintf(out->first_error, sizeof out->first_error, "%s request: %.200s",
                     sim_kinds_32g[r->reqs[i]->k].name, r->reqs[i]->error);
}

/* The replay's threads: the streams and the periodic senders. */
static void replay(sim_run *r)
{
    const sim_mix *m = r->m;
    size_t n_streams = m->porep_inflight + m->snap_inflight;
    pthread_t *streams = calloc(n_streams ? n_streams : 1, sizeof *streams);
    stream_arg *sa = calloc(n_streams ? n_streams : 1, sizeof *sa);
    size_t started = 0;
    for (size_t i = 0; streams && sa && i < n_streams; i++) {
        sa[i] = (stream_arg){r, i < m->porep_inflight ? SIM_POREP : SIM_SNAP};
        if (!pthread_create(&streams[started], NULL, stream_thread, &sa[i])) started++;
    }
    every_arg ea[2] = {{r, SIM_WPOST, m->deadline_first_s, m->deadline_every_s, m->deadline_parts},
                       {r, SIM_WINNING, m->winning_first_s, m->winning_every_s, 1}};
    pthread_t every[2];
    bool ran[2];
    for (int i = 0; i < 2; i++)
        ran[i] = ea[i].every_s > 0 && !pthread_create(&every[i], NULL, every_thread, &ea[i]);
    pthread_t ahead;
    bool reading_ahead = m->readahead_s > 0 && m->deadline_every_s > 0 &&
                         !pthread_create(&ahead, NULL, readahead_thread, r);
    for (int i = 0; i < 2; i++)
        if (ran[i]) pthread_join(every[i], NULL);
    if (reading_ahead) pthread_join(ahead, NULL);
    for (size_t i = 0; i < started; i++) pthread_join(streams[i], NULL);
    for (size_t i = 0; i < r->n; i++)
        if (r->reqs[i]->thread) pthread_join(r->reqs[i]->thread, NULL);
    free(streams), free(sa);
}

static void free_run(sim_run *r)
{
    for (size_t i = 0; i < r->n; i++) free(r->reqs[i]->proof), free(r->reqs[i]);
    free(r->reqs);
    pthread_mutex_destroy(&r->mu);
}

int sim_mix_run(const sim_mix *m, sim_report *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    if (m->speed <= 0 || m->seconds <= 0 || m->device.bytes <= m->device.working ||
        m->device.upload_gbs <= 0)
        return cuzk_errf(err, CUZK_EINVAL,
                         "simulated mix: speed, seconds and upload rate above 0, and the device "
                         "larger than its working memory");
    cuzk_config c;
    int rc = make_config(m, &c, err);
    if (!rc) rc = cuzk_make_dirs(m->param_cache, err);
    if (rc) return rc;
    sim_configure(sim_kinds_32g, &m->device, m->speed);
    engine_t *e = NULL;
    if ((rc = engine_create(&e, &c, &sim_backend, err))) return rc;
    if ((rc = engine_register_provider(e, &sim_provider, err)) ||
        (rc = engine_start_preload(e, err))) {
        engine_destroy(e);
        return rc;
    }
    wait_preloaded(e, &c, m->speed);
    sim_run r = {.m = m, .e = e, .next_seed = 1};
    pthread_mutex_init(&r.mu, NULL);
    r.start_ms = srs_now_ms();
    r.end_ms = r.start_ms + sim_real_ms(m->seconds);
    replay(&r);
    out->wall_s = sim_now(&r);
    engine_figures(e, m, out);
    sim_backend_stats(&out->device);
    engine_destroy(e);
    for (int k = 0; k < SIM_KINDS; k++) kind_row(&r, k, out->wall_s, &out->kinds[k]);
    deadlines(&r, out);
    first_failure(&r, out);
    verify_all(&r, out);
    free_run(&r);
    return CUZK_OK;
}

static const char *const kind_titles[SIM_KINDS] = {"porep", "snap", "wpost", "winning"};

/* The srs.swap_after the replay ran with (simulated seconds). */
static double swap_after_of(const sim_mix *m)
{
    cuzk_config c;
    cuzk_config_default(&c);
    return m->swap_after_s > 0 ? m->swap_after_s : (double)c.srs_swap_after_s;
}

void sim_report_print(const sim_mix *m, const sim_report *r, FILE *f)
{
    fprintf(f, "# SIMULATED: the 32 GiB mix on one host (cuzk-sim)\n\n");
    fprintf(f,
            "SIMULATED host: %.0f GiB of memory (budget %.1f GiB, \"auto\"), one %.0f GiB "
            "device (%.0f GiB kept for partitions, parameters uploaded at %.0f GB/s); the "
            "daemon's scheduler, dispatch, budget and residency code; time %.0fx.\n",
            (double)m->host_bytes / (1u << 30), (double)r->budget / (1u << 30),
            (double)m->device.bytes / (1u << 30), (double)m->device.working / (1u << 30),
            m->device.upload_gbs, m->speed);
    fprintf(f,
            "Mix: PoRep %u / SnapDeals %u in flight, a Window PoSt deadline of %u partitions "
            "every %.0f s (first at %.0f s), a Winning PoSt every %.0f s; %.0f s replayed "
            "(%.0f s with the tail); srs.pinned [%s], srs.preload [%s], srs.swap_after %.0f s",
            m->porep_inflight, m->snap_inflight, m->deadline_parts, m->deadline_every_s,
            m->deadline_first_s, m->winning_every_s, m->seconds, r->wall_s, m->pinned, m->preload,
            swap_after_of(m));
    if (m->readahead_s > 0)
        fprintf(f, "; the Window PoSt set read ahead %.0f s before each deadline (at HIGH)",
                m->readahead_s);
    fprintf(f, ".\n");
    fprintf(f, "Model (sim_model.c): ");
    for (int k = 0; k < SIM_KINDS; k++) {
        const sim_kind *s = &sim_kinds_32g[k];
        fprintf(f, "%s%s %.1f GB, load %.1f s, %u x %.2f s GPU, synthesis %.2f s (%s)",
                k ? "; " : "", s->name, (double)s->param_bytes / 1e9, s->load_s, s->partitions,
                s->gpu_s, s->synth_s, s->basis);
    }
    fprintf(f, ".\n\n| kind | requests | failed | p50 s | p99 s | max s | proofs/min |\n");
    fprintf(f, "|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < SIM_KINDS; k++) {
        const sim_kind_report *q = &r->kinds[k];
        fprintf(f, "| %s | %u | %u | %.2f | %.2f | %.2f | %.2f |\n", kind_titles[k], q->requests,
                q->failed, q->p50_s, q->p99_s, q->max_s, q->per_min);
    }
    fprintf(f, "\nWindow PoSt deadlines, first request to last proof (s):");
    for (uint32_t d = 0; d < r->deadlines; d++)
        r->deadline_s[d] < 0 ? fprintf(f, "%s failed", d ? "," : "")
                             : fprintf(f, "%s %.1f", d ? "," : "", r->deadline_s[d]);
    fprintf(f, "\nParameter loads / evictions / seconds loading:");
    for (int k = 0; k < SIM_KINDS; k++)
        fprintf(f, "%s %s %llu / %llu / %.1f", k ? "," : "", kind_titles[k],
                (unsigned long long)r->loads[k], (unsigned long long)r->evictions[k], r->load_s[k]);
    fprintf(f, "\nLoads abandoned for a higher one / GB read and thrown away:");
    for (int k = 0; k < SIM_KINDS; k++)
        fprintf(f, "%s %s %llu / %.1f", k ? "," : "", kind_titles[k],
                (unsigned long long)r->abandoned[k], (double)r->abandoned_bytes[k] / 1e9);
    fprintf(f, "\nBudget %.1f GiB, its peak %.1f GiB\n", (double)r->budget / (1u << 30),
            (double)r->budget_peak / (1u << 30));
    fprintf(f, "Device: busy %.0f%% of the run, %llu parameter uploads (%.1f s), %llu dropped\n",
            r->wall_s > 0 ? 100 * r->device.busy_s / r->wall_s : 0,
            (unsigned long long)r->device.uploads, r->device.upload_s,
            (unsigned long long)r->device.evictions);
    if (m->device.lane_slowdown > 0)
        fprintf(f,
                "Small-circuit lane (dispatch rule 7; its GPU time x%.1f, an estimate; %.1f GiB "
                "reserved): %llu Winning PoSt, %llu Window PoSt partitions, busy %.1f s\n",
                m->device.lane_slowdown, (double)m->device.lane_bytes / (1u << 30),
                (unsigned long long)r->device.lane_partitions[SIM_WINNING],
                (unsigned long long)r->device.lane_partitions[SIM_WPOST], r->device.lane_busy_s);
    else
        fprintf(f, "Small-circuit lane: none\n");
    fprintf(f,
            "Verification (here, after the engine's own): %u partition proofs accepted, %u "
            "rejected\n",
            r->verified, r->rejected);
    if (r->first_error[0]) fprintf(f, "First failure: %s\n", r->first_error);
}
