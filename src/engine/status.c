/*
 * status.c - what the engine reports: GetStatus (devices with their
 * state, the partitions they hold, busy time and partitions proved; SRS
 * tiers, queues per proof kind, counters), the Prometheus text of GetMetrics
 * (reference/cuzk-api.md metric names plus budget, SRS, per-device and
 * resident-memory gauges: the budget is what the engine reserves, VmRSS
 * what it holds) and the JSON of the HTTP GET /status page (pipeline
 * stages, every job with its partitions, devices, workers, memory). Each
 * is one snapshot under the engine lock.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* A growable text buffer; on allocation failure it stops growing and the
 * result is NULL. */
typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text;

static void __attribute__((format(printf, 2, 3))) put(text *t, const char *fmt, ...)
{
    for (int attempt = 0; attempt < 2 && !t->failed; attempt++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            t->failed = true;
        else if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        } else {
            size_t cap = 2 * (t->cap + (size_t)n + 1024);
            char *grown = realloc(t->s, cap);
            if (!grown)
                t->failed = true;
            else
                t->s = grown, t->cap = cap;
        }
    }
}

static char *text_done(text *t)
{
    if (!t->failed) return t->s;
    free(t->s);
    return NULL;
}

static void count_queues(engine_t *e, uint32_t *pending, uint32_t *running)
{
    memset(pending, 0, ENGINE_KINDS * sizeof *pending);
    memset(running, 0, ENGINE_KINDS * sizeof *running);
    for (const job *j = e->jobs; j; j = j->next) {
        if (j->kind <= 0 || j->kind >= ENGINE_KINDS) continue;
        if (j->state == JOB_QUEUED) pending[j->kind]++;
        if (j->state == JOB_RUNNING) running[j->kind]++;
    }
}

static uint64_t sum(const uint64_t *v)
{
    uint64_t s = 0;
    for (int k = 0; k < ENGINE_KINDS; k++) s += v[k];
    return s;
}

/* A device's state, queue and work (lock held). */
static void device_state(const device *dev, engine_device_status *d)
{
    snprintf(d->state, sizeof d->state, "%s", dev->failed ? "failed" : dev->held ? "busy" : "idle");
    snprintf(d->error, sizeof d->error, "%s", dev->error);
    d->queued = (uint32_t)dev->held;
    d->busy_ms = dev->busy_ms;
    d->partitions = dev->proved;
    d->lane = dev->lane;
    d->lane_busy_ms = dev->lane_busy_ms;
    d->lane_partitions = dev->lane_proved;
}

int engine_status(engine_t *e, engine_status_t *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    out->n_srs = srs_list(&e->srs, &out->srs);
    out->devices = calloc(e->n_devices, sizeof *out->devices);
    if (!out->devices || !out->srs) {
        engine_status_free(out);
        return cuzk_errf(err, CUZK_ENOMEM, "status: out of memory");
    }
    pthread_mutex_lock(&e->lock);
    out->n_devices = e->n_devices;
    for (size_t i = 0; i < e->n_devices; i++) {
        engine_device_status *d = &out->devices[i];
        d->ordinal = (uint32_t)e->devices[i].ordinal;
        snprintf(d->name, sizeof d->name, "%s", e->devices[i].name);
        d->vram_total = d->vram_free = e->devices[i].vram_total;
        if (e->backend->vram_free) e->backend->vram_free(d->ordinal, &d->vram_free);
        if (e->backend->plan) e->backend->plan(d->ordinal, d->plan, sizeof d->plan);
        snprintf(d->current_job, sizeof d->current_job, "%s", e->devices[i].current_job);
        snprintf(d->current_kind, sizeof d->current_kind, "%s",
                 d->current_job[0] ? engine_kind_name(e->devices[i].current_kind) : "");
        device_state(&e->devices[i], d);
    }
    count_queues(e, out->pending, out->in_progress);
    out->completed = sum(e->completed);
    out->failed = sum(e->failed);
    out->cancelled = sum(e->cancelled);
    out->uptime_s = (srs_now_ms() - e->t_created) / 1000;
    out->gpu_queue_depth = (uint32_t)e->gpuq_n;
    out->synthesizing = (uint32_t)e->synthesizing;
    pthread_mutex_unlock(&e->lock);
    pthread_mutex_lock(&e->host_mu);
    out->pinned_bytes = e->device_host_bytes;
    pthread_mutex_unlock(&e->host_mu);
    out->budget_total = e->budget.total;
    out->budget_used = budget_used(&e->budget);
    pool_stats ps = pool_get_stats(&e->pool);
    out->pool_bytes = ps.bytes;
    out->pool_reused = __atomic_load_n(&e->reused, __ATOMIC_RELAXED);
    out->pool_entries = (uint32_t)ps.entries;
    return CUZK_OK;
}

void engine_status_free(engine_status_t *s)
{
    free(s->devices);
    free(s->srs);
    memset(s, 0, sizeof *s);
}

static void metric(text *t, const char *name, const char *type, const char *help)
{
    put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The residency figures per parameter set (residency.h). */
static void srs_metrics(text *t, const engine_srs_status *srs, size_t n)
{
    static const char *const gauges[][2] = {
        {"cuzk_srs_pinned", "1 when the set is in srs.pinned (never evicted for memory)."},
        {"cuzk_srs_loading", "1 while the set is being loaded."},
        {"cuzk_srs_draining", "1 while the set takes no new partitions for another's load."},
    };
    for (int g = 0; g < 3; g++) {
        metric(t, gauges[g][0], "gauge", gauges[g][1]);
        for (size_t i = 0; i < n; i++)
            put(t, "%s{circuit=\"%s\"} %d\n", gauges[g][0], srs[i].circuit_id,
                g == 0   ? srs[i].pinned
                : g == 1 ? srs[i].loading
                         : srs[i].draining);
    }
    metric(t, "cuzk_srs_read_bytes", "gauge",
           "Bytes of the parameter file decoded so far by the load under way.");
    for (size_t i = 0; i < n; i++)
        put(t, "cuzk_srs_read_bytes{circuit=\"%s\"} %llu\n", srs[i].circuit_id,
            (unsigned long long)srs[i].read_bytes);
    metric(t, "cuzk_srs_loads_total", "counter", "Parameter loads finished per circuit.");
    for (size_t i = 0; i < n; i++)
        put(t, "cuzk_srs_loads_total{circuit=\"%s\"} %llu\n", srs[i].circuit_id,
            (unsigned long long)srs[i].loads);
    metric(t, "cuzk_srs_evictions_total", "counter", "Parameter evictions per circuit.");
    for (size_t i = 0; i < n; i++)
        put(t, "cuzk_srs_evictions_total{circuit=\"%s\"} %llu\n", srs[i].circuit_id,
            (unsigned long long)srs[i].evictions);
    metric(t, "cuzk_srs_load_seconds_total", "counter", "Time spent reading parameters.");
    for (size_t i = 0; i < n; i++)
        put(t, "cuzk_srs_load_seconds_total{circuit=\"%s\"} %.3f\n", srs[i].circuit_id,
            srs[i].load_seconds);
    metric(t, "cuzk_srs_loads_abandoned_total", "counter",
           "Loads abandoned for a higher-priority load's memory.");
    for (size_t i = 0; i < n; i++)
        put(t, "cuzk_srs_loads_abandoned_total{circuit=\"%s\"} %llu\n", srs[i].circuit_id,
            (unsigned long long)srs[i].abandoned);
    metric(t, "cuzk_srs_abandoned_bytes_total", "counter",
           "Bytes read by abandoned loads and thrown away.");
    for (size_t i = 0; i < n; i++)
        put(t, "cuzk_srs_abandoned_bytes_total{circuit=\"%s\"} %llu\n", srs[i].circuit_id,
            (unsigned long long)srs[i].abandoned_bytes);
}

static void per_kind(text *t, const char *name, const uint64_t *v)
{
    for (int k = 1; k < ENGINE_KINDS; k++)
        put(t, "%s{kind=\"%s\"} %llu\n", name, engine_kind_name(k), (unsigned long long)v[k]);
}

/* Per device, labelled by ordinal, from its status (device_state): each
 * metric's name, type and help, its value, and whether only a device with
 * a small-circuit lane has it. */
enum { DM_UP, DM_HELD, DM_BUSY, DM_PROVED, DM_LANE_PROVED, DM_LANE_BUSY, DM_N };
static const struct {
    const char *name, *type, *help;
    bool lane, seconds;
} dev_metric[DM_N] = {
    {"cuzk_gpu_up", "gauge", "1 while the device is in service, 0 once it failed.", false, false},
    {"cuzk_gpu_partitions_held", "gauge", "Partitions the device's provers hold.", false, false},
    {"cuzk_gpu_busy_seconds_total", "counter", "Time in the backend's start and finish.", false,
     true},
    {"cuzk_gpu_partitions_total", "counter", "Partitions proved on the device.", false, false},
    {"cuzk_gpu_lane_partitions_total", "counter",
     "Partitions proved on the device's small-circuit lane (dispatch rule 7).", true, false},
    {"cuzk_gpu_lane_busy_seconds_total", "counter",
     "Time in the small-circuit lane's start and finish.", true, true},
};

static uint64_t dev_metric_value(const engine_device_status *d, int m)
{
    switch (m) {
    case DM_UP:
        return strcmp(d->state, "failed") != 0;
    case DM_HELD:
        return d->queued;
    case DM_BUSY:
        return d->busy_ms;
    case DM_PROVED:
        return d->partitions;
    case DM_LANE_PROVED:
        return d->lane_partitions;
    default:
        return d->lane_busy_ms;
    }
}

/* (lock held) */
static void device_metrics(text *t, engine_t *e)
{
    engine_device_status d[ENGINE_MAX_DEVICES];
    for (size_t i = 0; i < e->n_devices; i++) device_state(&e->devices[i], &d[i]);
    for (int m = 0; m < DM_N; m++) {
        metric(t, dev_metric[m].name, dev_metric[m].type, dev_metric[m].help);
        for (size_t i = 0; i < e->n_devices; i++) {
            if (dev_metric[m].lane && !d[i].lane) continue;
            uint64_t v = dev_metric_value(&d[i], m);
            if (dev_metric[m].seconds)
                put(t, "%s{device=\"%d\"} %.3f\n", dev_metric[m].name, e->devices[i].ordinal,
                    (double)v / 1e3);
            else
                put(t, "%s{device=\"%d\"} %llu\n", dev_metric[m].name, e->devices[i].ordinal,
                    (unsigned long long)v);
        }
    }
}

/* The process's resident memory now and at its peak (VmRSS, VmHWM of
 * /proc/self/status), beside the budget's own account; 0 where unknown. */
static void process_memory(uint64_t *rss, uint64_t *peak)
{
    *rss = *peak = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[256];
    unsigned long long kib;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "VmRSS: %llu kB", &kib) == 1) *rss = kib << 10;
        if (sscanf(line, "VmHWM: %llu kB", &kib) == 1) *peak = kib << 10;
    }
    fclose(f);
}

char *engine_metrics(engine_t *e)
{
    text t = {0};
    uint32_t pending[ENGINE_KINDS], running[ENGINE_KINDS];
    uint64_t budget_in_use = budget_used(&e->budget);
    pthread_mutex_lock(&e->lock);
    count_queues(e, pending, running);
    uint32_t depth = 0;
    for (int k = 0; k < ENGINE_KINDS; k++) depth += pending[k];
    metric(&t, "cuzk_proofs_completed_total", "counter", "Proofs completed.");
    put(&t, "cuzk_proofs_completed_total %llu\n", (unsigned long long)sum(e->completed));
    metric(&t, "cuzk_proofs_failed_total", "counter", "Proofs failed.");
    put(&t, "cuzk_proofs_failed_total %llu\n", (unsigned long long)sum(e->failed));
    metric(&t, "cuzk_proofs_cancelled_total", "counter", "Proofs cancelled.");
    put(&t, "cuzk_proofs_cancelled_total %llu\n", (unsigned long long)sum(e->cancelled));
    metric(&t, "cuzk_uptime_seconds", "gauge", "Seconds since the engine started.");
    put(&t, "cuzk_uptime_seconds %llu\n", (unsigned long long)(srs_now_ms() - e->t_created) / 1000);
    metric(&t, "cuzk_queue_depth", "gauge", "Jobs waiting to start.");
    put(&t, "cuzk_queue_depth %u\n", depth);
    metric(&t, "cuzk_proofs_completed_by_kind_total", "counter", "Proofs completed per kind.");
    per_kind(&t, "cuzk_proofs_completed_by_kind_total", e->completed);
    metric(&t, "cuzk_proofs_failed_by_kind_total", "counter", "Proofs failed per kind.");
    per_kind(&t, "cuzk_proofs_failed_by_kind_total", e->failed);
    metric(&t, "cuzk_proof_duration_seconds", "summary", "Submission to result, per kind.");
    for (int k = 1; k < ENGINE_KINDS; k++)
        put(&t,
            "cuzk_proof_duration_seconds_sum{kind=\"%s\"} %.3f\n"
            "cuzk_proof_duration_seconds_count{kind=\"%s\"} %llu\n",
            engine_kind_name(k), e->duration_sum[k], engine_kind_name(k),
            (unsigned long long)(e->completed[k] + e->failed[k] + e->cancelled[k]));
    metric(&t, "cuzk_gpu_queue_depth", "gauge", "Synthesized partitions waiting for a prover.");
    put(&t, "cuzk_gpu_queue_depth %zu\n", e->gpuq_n);
    metric(&t, "cuzk_lane_queue_depth", "gauge",
           "Synthesized partitions waiting for a small-circuit lane.");
    put(&t, "cuzk_lane_queue_depth %zu\n", e->laneq_n);
    device_metrics(&t, e);
    pthread_mutex_unlock(&e->lock);
    metric(&t, "cuzk_memory_budget_bytes", "gauge", "The memory budget.");
    put(&t, "cuzk_memory_budget_bytes %llu\n", (unsigned long long)e->budget.total);
    metric(&t, "cuzk_memory_used_bytes", "gauge", "Bytes reserved in the budget.");
    put(&t, "cuzk_memory_used_bytes %llu\n", (unsigned long long)budget_in_use);
    metric(&t, "cuzk_memory_peak_bytes", "gauge", "The most the budget held so far.");
    put(&t, "cuzk_memory_peak_bytes %llu\n", (unsigned long long)budget_peak(&e->budget));
    metric(&t, "cuzk_memory_pool_bytes", "gauge",
           "Of the bytes reserved, synthesized partitions' storage kept for reuse.");
    pool_stats ps = pool_get_stats(&e->pool);
    put(&t, "cuzk_memory_pool_bytes %llu\n", (unsigned long long)ps.bytes);
    metric(&t, "cuzk_partitions_reused_storage_total", "counter",
           "Partitions synthesized into a kept partition's storage.");
    put(&t, "cuzk_partitions_reused_storage_total %llu\n",
        (unsigned long long)__atomic_load_n(&e->reused, __ATOMIC_RELAXED));
    uint64_t rss, rss_peak;
    process_memory(&rss, &rss_peak);
    metric(&t, "cuzk_process_resident_bytes", "gauge", "The daemon's resident memory (VmRSS).");
    put(&t, "cuzk_process_resident_bytes %llu\n", (unsigned long long)rss);
    metric(&t, "cuzk_process_resident_peak_bytes", "gauge", "Its peak so far (VmHWM).");
    put(&t, "cuzk_process_resident_peak_bytes %llu\n", (unsigned long long)rss_peak);
    engine_srs_status *srs;
    size_t n = srs_list(&e->srs, &srs);
    metric(&t, "cuzk_srs_loaded_bytes", "gauge", "Parameter bytes in memory per circuit.");
    for (size_t i = 0; i < n; i++)
        put(&t, "cuzk_srs_loaded_bytes{circuit=\"%s\"} %llu\n", srs[i].circuit_id,
            (unsigned long long)(srs[i].tier == 2 ? 0 : srs[i].size_bytes));
    srs_metrics(&t, srs, n);
    free(srs);
    return text_done(&t);
}

static const char *state_name(const job *j)
{
    static const char *const status[] = {"unknown", "completed", "failed", "cancelled", "timeout"};
    return j->state == JOB_QUEUED    ? "queued"
           : j->state == JOB_RUNNING ? "running"
                                     : status[j->status];
}

/* s escaped for a JSON string (control characters, quote, backslash). */
static void json_string(text *t, const char *s)
{
    for (const char *c = s; *c; c++)
        put(t, (unsigned char)*c < 0x20 || *c == '"' || *c == '\\' ? "\\u%04x" : "%c",
            (unsigned char)*c);
}

/* Jobs as JSON (lock held). Ids and circuit ids are printable ASCII we made;
 * request ids come from clients and are escaped. */
static void jobs_json(text *t, engine_t *e)
{
    put(t, "\"jobs\":[");
    for (const job *j = e->jobs; j; j = j->next) {
        put(t, "%s{\"id\":\"%s\",\"request_id\":\"", j == e->jobs ? "" : ",", j->id);
        json_string(t, j->request_id);
        put(t,
            "\",\"kind\":\"%s\",\"priority\":%d,\"circuit\":\"%s\",\"state\":\"%s\","
            "\"partitions\":%zu,\"partitions_done\":%zu,\"partitions_in_flight\":%zu}",
            engine_kind_name(j->kind), j->priority, j->circuit_id, state_name(j), j->n_partitions,
            j->parts_done, j->items_live);
    }
    put(t, "]");
}

char *engine_status_json(engine_t *e)
{
    text t = {0};
    engine_status_t s;
    if (engine_status(e, &s, NULL)) return NULL;
    put(&t, "{\"uptime_seconds\":%llu,\"backend\":\"%s\",", (unsigned long long)s.uptime_s,
        e->backend->name);
    uint64_t rss, rss_peak;
    process_memory(&rss, &rss_peak);
    put(&t,
        "\"memory\":{\"budget_bytes\":%llu,\"used_bytes\":%llu,\"peak_bytes\":%llu,"
        "\"pool_bytes\":%llu,\"pool_entries\":%u,\"rss_bytes\":%llu,\"rss_peak_bytes\":%llu},",
        (unsigned long long)s.budget_total, (unsigned long long)s.budget_used,
        (unsigned long long)budget_peak(&e->budget), (unsigned long long)s.pool_bytes,
        s.pool_entries, (unsigned long long)rss, (unsigned long long)rss_peak);
    put(&t, "\"srs\":[");
    for (size_t i = 0; i < s.n_srs; i++) {
        const engine_srs_status *r = &s.srs[i];
        put(&t,
            "%s{\"circuit_id\":\"%s\",\"tier\":\"%s\",\"size_bytes\":%llu,\"ref_count\":%u,"
            "\"pinned\":%s,\"preload\":%s,\"loading\":%s,\"draining\":%s,\"priority\":%d,"
            "\"loads\":%llu,\"evictions\":%llu,\"load_seconds\":%.3f,"
            "\"loads_abandoned\":%llu,\"abandoned_bytes\":%llu,\"read_bytes\":%llu}",
            i ? "," : "", r->circuit_id, (const char *[]){"HOT", "WARM", "COLD"}[r->tier],
            (unsigned long long)r->size_bytes, r->ref_count, r->pinned ? "true" : "false",
            r->preload ? "true" : "false", r->loading ? "true" : "false",
            r->draining ? "true" : "false", r->rank, (unsigned long long)r->loads,
            (unsigned long long)r->evictions, r->load_seconds, (unsigned long long)r->abandoned,
            (unsigned long long)r->abandoned_bytes, (unsigned long long)r->read_bytes);
    }
    put(&t, "],\"devices\":[");
    for (size_t i = 0; i < s.n_devices; i++) {
        const engine_device_status *d = &s.devices[i];
        put(&t,
            "%s{\"ordinal\":%u,\"name\":\"%s\",\"state\":\"%s\",\"current_job\":\"%s\","
            "\"queued\":%u,\"busy_ms\":%llu,\"partitions\":%llu,\"lane\":%s,"
            "\"lane_busy_ms\":%llu,\"lane_partitions\":%llu,\"error\":\"",
            i ? "," : "", d->ordinal, d->name, d->state, d->current_job, d->queued,
            (unsigned long long)d->busy_ms, (unsigned long long)d->partitions,
            d->lane ? "true" : "false", (unsigned long long)d->lane_busy_ms,
            (unsigned long long)d->lane_partitions);
        json_string(&t, d->error);
        put(&t, "\",\"plan\":\"");
        json_string(&t, d->plan);
        put(&t, "\"}");
    }
    pthread_mutex_lock(&e->lock);
    put(&t,
        "],\"pipeline\":{\"enabled\":%s,\"queued_partitions\":%zu,\"synthesizing\":%zu,"
        "\"gpu_queue\":%zu,\"proving\":%zu,\"batch_pending\":%zu},",
        e->cfg.pipeline_enabled ? "true" : "false", e->queue.n, e->synthesizing, e->gpuq_n,
        e->proving, e->batch.n);
    put(&t, "\"workers\":{\"synthesis\":%zu,\"prover\":%zu},", e->n_synth, e->n_gpu);
    put(&t, "\"proofs\":{\"completed\":%llu,\"failed\":%llu,\"cancelled\":%llu},",
        (unsigned long long)s.completed, (unsigned long long)s.failed,
        (unsigned long long)s.cancelled);
    jobs_json(&t, e);
    pthread_mutex_unlock(&e->lock);
    put(&t, "}\n");
    engine_status_free(&s);
    return text_done(&t);
}
