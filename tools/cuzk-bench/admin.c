/*
 * admin.c - cuzk-bench status, metrics, preload, evict and cancel: one
 * call each, the answer printed as text.
 */
#include <grpc/grpc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk/v1/proving.pb-c.h"

/* Administrative calls answer quickly; a minute covers a cold SRS load. */
#define ADMIN_TIMEOUT_MS (10 * 60 * 1000)

int bench_call(const char *addr, int method, const uint8_t *req, size_t len, rpc_reply *reply)
{
    grpc_init();
    grpc_channel *ch = rpc_connect(addr);
    cuzk_err err = {0};
    int rc = rpc_call(ch, method, req, len, ADMIN_TIMEOUT_MS, reply, &err);
    grpc_channel_destroy(ch);
    grpc_shutdown();
    if (rc) {
        fprintf(stderr, "cuzk-bench: %s\n", err.msg);
        return BENCH_FAILED;
    }
    if (reply->status != GRPC_STATUS_OK) {
        fprintf(stderr, "cuzk-bench: %s: gRPC status %d: %s\n", addr, reply->status,
                reply->details ? reply->details : "");
        return BENCH_FAILED;
    }
    return BENCH_OK;
}

/* Packs a message into a buffer (malloc'd) for bench_call. */
static uint8_t *pack(const ProtobufCMessage *m, size_t *len)
{
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(*len ? *len : 1);
    if (buf) protobuf_c_message_pack(m, buf);
    return buf;
}

static void print_status(const Cuzk__V1__GetStatusResponse *s)
{
    static const char *const tiers[] = {"HOT", "WARM", "COLD"};
    printf("=== Daemon Status ===\n");
    printf("uptime:    %llu s\n", (unsigned long long)s->uptime_seconds);
    printf("proofs:    completed=%llu failed=%llu\n", (unsigned long long)s->total_proofs_completed,
           (unsigned long long)s->total_proofs_failed);
    if (s->pinned_memory_limit_bytes)
        printf("pinned:    %llu / %llu bytes\n", (unsigned long long)s->pinned_memory_bytes,
               (unsigned long long)s->pinned_memory_limit_bytes);
    else
        printf("pinned:    %llu bytes (no limit)\n", (unsigned long long)s->pinned_memory_bytes);
    for (size_t i = 0; i < s->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = s->gpus[i];
        printf("gpu %u:     %s (vram %llu / %llu MiB free)%s%s%s\n", g->ordinal, g->name,
               (unsigned long long)(g->vram_free_bytes >> 20),
               (unsigned long long)(g->vram_total_bytes >> 20),
               g->current_job_id[0] ? " running " : "", g->current_job_id,
               g->current_job_id[0] ? "" : " idle");
        printf("           state=%s partitions_held=%u busy=%.1f s partitions_proved=%llu%s%s\n",
               g->state[0] ? g->state : "-", g->queued_partitions, (double)g->busy_ms / 1e3,
               (unsigned long long)g->partitions_proved, g->error[0] ? " error: " : "", g->error);
        if (g->memory_plan && g->memory_plan[0]) printf("           plan: %s\n", g->memory_plan);
        if (g->small_lane)
            printf("           small-circuit lane: busy=%.1f s partitions_proved=%llu\n",
                   (double)g->lane_busy_ms / 1e3, (unsigned long long)g->lane_partitions_proved);
        else
            printf("           small-circuit lane: none\n");
    }
    for (size_t i = 0; i < s->n_queues; i++)
        printf("queue:     %-22s pending=%u in_progress=%u\n", s->queues[i]->proof_kind,
               s->queues[i]->pending, s->queues[i]->in_progress);
    for (size_t i = 0; i < s->n_loaded_srs; i++) {
        const Cuzk__V1__SRSStatus *r = s->loaded_srs[i];
        unsigned tier = r->tier;
        printf("srs:       %-16s %-4s %llu bytes refs=%u loads=%llu evictions=%llu "
               "abandoned=%llu (%llu bytes) loading=%.1f s priority=%u%s%s%s%s\n",
               r->circuit_id, tier < 3 ? tiers[tier] : "?", (unsigned long long)r->size_bytes,
               r->ref_count, (unsigned long long)r->loads, (unsigned long long)r->evictions,
               (unsigned long long)r->loads_abandoned, (unsigned long long)r->abandoned_bytes,
               r->load_seconds, r->priority, r->pinned ? " pinned" : "",
               r->preloaded ? " preloaded" : "", r->loading ? " loading" : "",
               r->draining ? " draining" : "");
        if (r->loading)
            printf("           read so far: %llu bytes\n", (unsigned long long)r->read_bytes);
    }
}

int bench_status(const char *addr)
{
    Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
    size_t len;
    uint8_t *buf = pack(&req.base, &len);
    rpc_reply reply;
    int rc = bench_call(addr, RPC_STATUS, buf, len, &reply);
    free(buf);
    if (rc) return rpc_reply_free(&reply), rc;
    Cuzk__V1__GetStatusResponse *s =
        cuzk__v1__get_status_response__unpack(NULL, reply.len, reply.data);
    rpc_reply_free(&reply);
    if (!s) return fprintf(stderr, "cuzk-bench: malformed GetStatusResponse\n"), BENCH_FAILED;
    print_status(s);
    cuzk__v1__get_status_response__free_unpacked(s, NULL);
    return BENCH_OK;
}

int bench_metrics(const char *addr)
{
    Cuzk__V1__GetMetricsRequest req = CUZK__V1__GET_METRICS_REQUEST__INIT;
    size_t len;
    uint8_t *buf = pack(&req.base, &len);
    rpc_reply reply;
    int rc = bench_call(addr, RPC_METRICS, buf, len, &reply);
    free(buf);
    if (rc) return rpc_reply_free(&reply), rc;
    Cuzk__V1__GetMetricsResponse *m =
        cuzk__v1__get_metrics_response__unpack(NULL, reply.len, reply.data);
    rpc_reply_free(&reply);
    if (!m) return fprintf(stderr, "cuzk-bench: malformed GetMetricsResponse\n"), BENCH_FAILED;
    fputs(m->prometheus_text, stdout);
    cuzk__v1__get_metrics_response__free_unpacked(m, NULL);
    return BENCH_OK;
}

static const char *circuit_arg(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--circuit-id")) return argv[i + 1];
    return NULL;
}

/* The value after `name` as a number (0 when absent); -1 when not one. */
static long number_arg(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) {
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            return *end || v < 0 ? -1 : v;
        }
    return 0;
}

static int print_srs_reply(int evict, const rpc_reply *reply, const char *id)
{
    if (evict) {
        Cuzk__V1__EvictSrsResponse *r =
            cuzk__v1__evict_srs_response__unpack(NULL, reply->len, reply->data);
        if (!r) return BENCH_FAILED;
        printf("evict %s: was_loaded=%s freed=%llu bytes\n", id, r->was_loaded ? "true" : "false",
               (unsigned long long)r->freed_bytes);
        cuzk__v1__evict_srs_response__free_unpacked(r, NULL);
        return BENCH_OK;
    }
    Cuzk__V1__PreloadSrsResponse *r =
        cuzk__v1__preload_srs_response__unpack(NULL, reply->len, reply->data);
    if (!r) return BENCH_FAILED;
    printf("preload %s: already_loaded=%s load_time=%llu ms\n", id,
           r->already_loaded ? "true" : "false", (unsigned long long)r->load_time_ms);
    cuzk__v1__preload_srs_response__free_unpacked(r, NULL);
    return BENCH_OK;
}

int bench_srs(const char *addr, int evict, int argc, char **argv)
{
    const char *id = circuit_arg(argc, argv);
    if (!id) return bench_usage("%s needs -c CIRCUIT_ID", argv[0]);
    Cuzk__V1__PreloadSrsRequest p = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    Cuzk__V1__EvictSrsRequest e = CUZK__V1__EVICT_SRS_REQUEST__INIT;
    p.circuit_id = e.circuit_id = (char *)id;
    long priority = number_arg(argc, argv, "--priority"), hold = number_arg(argc, argv, "--hold");
    if (priority < 0 || priority > 4 || hold < 0)
        return bench_usage("%s", "--priority takes 0..4, --hold seconds");
    p.priority = (uint32_t)priority, p.hold_seconds = (uint32_t)hold;
    size_t len;
    uint8_t *buf = pack(evict ? &e.base : &p.base, &len);
    rpc_reply reply;
    int rc = bench_call(addr, evict ? RPC_EVICT : RPC_PRELOAD, buf, len, &reply);
    free(buf);
    if (!rc) rc = print_srs_reply(evict, &reply, id);
    rpc_reply_free(&reply);
    return rc;
}

int bench_cancel(const char *addr, int argc, char **argv)
{
    if (argc != 2) return bench_usage("%s", "cancel needs one JOB_ID");
    Cuzk__V1__CancelProofRequest req = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    req.job_id = argv[1];
    size_t len;
    uint8_t *buf = pack(&req.base, &len);
    rpc_reply reply;
    int rc = bench_call(addr, RPC_CANCEL, buf, len, &reply);
    free(buf);
    Cuzk__V1__CancelProofResponse *r =
        rc ? NULL : cuzk__v1__cancel_proof_response__unpack(NULL, reply.len, reply.data);
    if (r) printf("cancel %s: was_running=%s\n", argv[1], r->was_running ? "true" : "false");
    if (r) cuzk__v1__cancel_proof_response__free_unpacked(r, NULL);
    rpc_reply_free(&reply);
    return rc ? rc : r ? BENCH_OK : BENCH_FAILED;
}
