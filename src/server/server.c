/*
 * server.c - cuzk.v1.ProvingEngine on the grpc core C API (server.h).
 *
 * One completion queue and one thread polling it. The eight methods are
 * registered with their payload read up front; for each method one
 * grpc_server_request_registered_call is always outstanding. When a call
 * arrives, the poller starts its RECV_CLOSE_ON_SERVER (which completes
 * when the client goes away or the call ends), asks for the next call of
 * that method, and hands the call to a handler thread of its own: handlers
 * may block for minutes in AwaitProof / Prove, which must not stall the
 * poller. The handler decodes (protobuf-c), calls the engine, encodes and
 * starts the send batch; the poller frees the call when the last of its
 * three references (handler, close, send) is dropped. A waiting handler
 * polls the call's `closed` flag, so a client that disconnects mid-call
 * frees its handler at once. Calls to other methods get UNIMPLEMENTED.
 */
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/engine_log.h"
#include "cuzk/server.h"
#include "cuzk/v1/proving.pb-c.h"
#include "rpc.h"

enum tag_kind { TAG_NEW, TAG_CLOSED, TAG_SENT, TAG_SHUTDOWN };

typedef struct tag {
    int kind;
    struct call *call;
} tag;

typedef struct call {
    tag new_tag, closed_tag, sent_tag;
    struct cuzk_server *server;
    int method; /* -1: an unregistered method */
    grpc_call *call;
    gpr_timespec deadline;
    grpc_call_details details; /* unregistered methods only */
    grpc_metadata_array metadata;
    grpc_byte_buffer *payload, *response;
    int cancelled, closed, refs;
    grpc_slice status_details;
} call;

struct cuzk_server {
    grpc_server *srv;
    grpc_completion_queue *cq;
    engine_t *engine;
    void *methods[RPC_METHODS];
    pthread_t poller;
    tag shutdown_tag;
    int accepting, handlers, shutdown_done;
    pthread_mutex_t lock;
    pthread_cond_t idle;
};

/* ---- call life cycle ---- */

static call *call_new(cuzk_server *s, int method)
{
    call *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->server = s;
    c->method = method;
    c->refs = 1; /* the pending request's, then the handler's */
    c->new_tag = (tag){TAG_NEW, c};
    c->closed_tag = (tag){TAG_CLOSED, c};
    c->sent_tag = (tag){TAG_SENT, c};
    grpc_metadata_array_init(&c->metadata);
    grpc_call_details_init(&c->details);
    c->status_details = grpc_empty_slice();
    return c;
}

static void call_unref(call *c)
{
    if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL)) return;
    if (c->call) grpc_call_unref(c->call);
    if (c->payload) grpc_byte_buffer_destroy(c->payload);
    if (c->response) grpc_byte_buffer_destroy(c->response);
    grpc_slice_unref(c->status_details);
    grpc_metadata_array_destroy(&c->metadata);
    grpc_call_details_destroy(&c->details);
    free(c);
}

static void request_next(cuzk_server *s, int method)
{
    if (!__atomic_load_n(&s->accepting, __ATOMIC_ACQUIRE)) return;
    call *c = call_new(s, method);
    if (!c) {
        engine_log(LOG_ERROR, "server: out of memory; method %d stops accepting calls", method);
        return;
    }
    grpc_call_error rc =
        method < 0 ? grpc_server_request_call(s->srv, &c->call, &c->details, &c->metadata, s->cq,
                                              s->cq, &c->new_tag)
                   : grpc_server_request_registered_call(s->srv, s->methods[method], &c->call,
                                                         &c->deadline, &c->metadata, &c->payload,
                                                         s->cq, s->cq, &c->new_tag);
    if (rc != GRPC_CALL_OK) {
        engine_log(LOG_ERROR, "server: request_call: %s", grpc_call_error_to_string(rc));
        call_unref(c);
    }
}

/* Sends the response (NULL unless OK) and the status. */
static void reply(call *c, grpc_status_code code, const char *message, grpc_byte_buffer *response)
{
    if (code == GRPC_STATUS_OK && !response)
        code = GRPC_STATUS_RESOURCE_EXHAUSTED, message = "out of memory encoding the response";
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (response) {
        c->response = response;
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = response;
    }
    c->status_details = grpc_slice_from_copied_string(message ? message : "");
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = code;
    ops[n++].data.send_status_from_server.status_details = &c->status_details;
    __atomic_add_fetch(&c->refs, 1, __ATOMIC_ACQ_REL);
    if (grpc_call_start_batch(c->call, ops, n, &c->sent_tag, NULL) != GRPC_CALL_OK) call_unref(c);
}

static bool call_abandoned(void *ctx)
{
    return __atomic_load_n(&((call *)ctx)->closed, __ATOMIC_ACQUIRE);
}

/* ---- messages ---- */

static grpc_byte_buffer *pack(const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return NULL;
    protobuf_c_message_pack(m, buf);
    grpc_byte_buffer *bb = rpc_make_buffer(buf, n);
    free(buf);
    return bb;
}

static grpc_status_code status_for(int code)
{
    switch (code) {
    case CUZK_EINVAL:
    case CUZK_ELENGTH:
        return GRPC_STATUS_INVALID_ARGUMENT;
    case ENGINE_ENOTFOUND:
        return GRPC_STATUS_NOT_FOUND;
    case ENGINE_EBUSY:
        return GRPC_STATUS_FAILED_PRECONDITION;
    case ENGINE_ESHUTDOWN:
        return GRPC_STATUS_UNAVAILABLE;
    case CUZK_ENOMEM:
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case CUZK_EIO:
        return GRPC_STATUS_FAILED_PRECONDITION;
    default:
        return GRPC_STATUS_INTERNAL;
    }
}

static engine_bytes bytes_of(ProtobufCBinaryData d)
{
    return (engine_bytes){d.data, d.len};
}

static int to_request(const Cuzk__V1__SubmitProofRequest *m, engine_request *r, engine_bytes **many)
{
    *r = (engine_request){
        .request_id = m->request_id,
        .kind = (int)m->proof_kind,
        .priority = (int)m->priority,
        .sector_size = m->sector_size,
        .registered_proof = m->registered_proof,
        .vanilla_proof = bytes_of(m->vanilla_proof),
        .n_vanilla_proofs = m->n_vanilla_proofs,
        .sector_number = m->sector_number,
        .miner_id = m->miner_id,
        .randomness = bytes_of(m->randomness),
        .partition_index = m->partition_index,
        .comm_r_old = bytes_of(m->comm_r_old),
        .comm_r_new = bytes_of(m->comm_r_new),
        .comm_d_new = bytes_of(m->comm_d_new),
    };
    *many = calloc(m->n_vanilla_proofs ? m->n_vanilla_proofs : 1, sizeof **many);
    if (!*many) return CUZK_ENOMEM;
    for (size_t i = 0; i < m->n_vanilla_proofs; i++) (*many)[i] = bytes_of(m->vanilla_proofs[i]);
    r->vanilla_proofs = *many;
    return CUZK_OK;
}

static void to_await_response(const engine_result *r, Cuzk__V1__AwaitProofResponse *m)
{
    cuzk__v1__await_proof_response__init(m);
    m->job_id = (char *)r->job_id;
    m->status = (Cuzk__V1__AwaitProofResponse__Status)r->status;
    m->proof = (ProtobufCBinaryData){r->proof_len, r->proof};
    m->error_message = (char *)r->error;
    m->queue_wait_ms = r->queue_ms;
    m->srs_load_ms = r->srs_ms;
    m->synthesis_ms = r->synthesis_ms;
    m->gpu_compute_ms = r->gpu_ms;
    m->total_ms = r->total_ms;
}

/* Each handler decodes its request, asks the engine and replies. */
typedef void (*handler_fn)(call *c, const uint8_t *data, size_t len);

#define DECODE(type, fn, var, name)                                                                \
    type *var = fn##__unpack(NULL, len, data);                                                     \
    if (!var) {                                                                                    \
        reply(c, GRPC_STATUS_INVALID_ARGUMENT, "malformed " name ": not a protobuf message",       \
              NULL);                                                                               \
        return;                                                                                    \
    }

static int submit(call *c, const Cuzk__V1__SubmitProofRequest *m, char job_id[ENGINE_ID_MAX],
                  uint32_t *pos, cuzk_err *err)
{
    engine_request r;
    engine_bytes *many;
    if (to_request(m, &r, &many)) return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    int rc = engine_submit(c->server->engine, &r, job_id, pos, err);
    free(many);
    return rc;
}

static void on_submit(call *c, const uint8_t *data, size_t len)
{
    DECODE(Cuzk__V1__SubmitProofRequest, cuzk__v1__submit_proof_request, m, "SubmitProofRequest");
    char job_id[ENGINE_ID_MAX];
    uint32_t pos = 0;
    cuzk_err err = {0};
    int rc = submit(c, m, job_id, &pos, &err);
    cuzk__v1__submit_proof_request__free_unpacked(m, NULL);
    if (rc) return reply(c, status_for(rc), err.msg, NULL);
    Cuzk__V1__SubmitProofResponse out = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    out.job_id = job_id;
    out.queue_position = pos;
    out.assigned_gpu = "";
    reply(c, GRPC_STATUS_OK, NULL, pack(&out.base));
}

static void await_and_reply(call *c, const char *job_id, uint64_t timeout_ms, bool wrap)
{
    engine_result r;
    cuzk_err err = {0};
    int rc = engine_await(c->server->engine, job_id, timeout_ms, &r, call_abandoned, c, &err);
    if (rc) return reply(c, status_for(rc), err.msg, NULL);
    if (r.status == ENGINE_UNKNOWN) {
        reply(c, GRPC_STATUS_CANCELLED, "the client went away", NULL);
        return engine_result_free(&r);
    }
    Cuzk__V1__AwaitProofResponse a;
    to_await_response(&r, &a);
    Cuzk__V1__ProveResponse p = CUZK__V1__PROVE_RESPONSE__INIT;
    p.result = &a;
    reply(c, GRPC_STATUS_OK, NULL, pack(wrap ? &p.base : &a.base));
    engine_result_free(&r);
}

static void on_await(call *c, const uint8_t *data, size_t len)
{
    DECODE(Cuzk__V1__AwaitProofRequest, cuzk__v1__await_proof_request, m, "AwaitProofRequest");
    char job_id[ENGINE_ID_MAX];
    snprintf(job_id, sizeof job_id, "%s", m->job_id);
    uint64_t timeout = m->timeout_ms;
    cuzk__v1__await_proof_request__free_unpacked(m, NULL);
    await_and_reply(c, job_id, timeout, false);
}

static void on_prove(call *c, const uint8_t *data, size_t len)
{
    DECODE(Cuzk__V1__ProveRequest, cuzk__v1__prove_request, m, "ProveRequest");
    char job_id[ENGINE_ID_MAX];
    cuzk_err err = {0};
    int rc = m->submit ? submit(c, m->submit, job_id, NULL, &err)
                       : cuzk_errf(&err, CUZK_EINVAL, "ProveRequest without submit");
    cuzk__v1__prove_request__free_unpacked(m, NULL);
    if (rc) return reply(c, status_for(rc), err.msg, NULL);
    await_and_reply(c, job_id, 0, true);
}

static void on_cancel(call *c, const uint8_t *data, size_t len)
{
    DECODE(Cuzk__V1__CancelProofRequest, cuzk__v1__cancel_proof_request, m, "CancelProofRequest");
    bool was_running = false;
    cuzk_err err = {0};
    int rc = engine_cancel(c->server->engine, m->job_id, &was_running, &err);
    cuzk__v1__cancel_proof_request__free_unpacked(m, NULL);
    if (rc) return reply(c, status_for(rc), err.msg, NULL);
    Cuzk__V1__CancelProofResponse out = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
    out.was_running = was_running;
    reply(c, GRPC_STATUS_OK, NULL, pack(&out.base));
}

static const char *const kind_names[ENGINE_KINDS] = {"", "POREP_SEAL_COMMIT", "SNAP_DEALS_UPDATE",
                                                     "WINDOW_POST_PARTITION", "WINNING_POST"};

static void status_reply(call *c, const engine_status_t *s)
{
    Cuzk__V1__GetStatusResponse out = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    Cuzk__V1__GPUStatus gpus[16], *gpu_ptrs[16];
    Cuzk__V1__SRSStatus *srs = calloc(s->n_srs + 1, sizeof *srs);
    Cuzk__V1__SRSStatus **srs_ptrs = calloc(s->n_srs + 1, sizeof *srs_ptrs);
    Cuzk__V1__QueueStatus queues[ENGINE_KINDS], *queue_ptrs[ENGINE_KINDS];
    if (!srs || !srs_ptrs) {
        free(srs), free(srs_ptrs);
        return reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
    }
    for (size_t i = 0; i < s->n_devices && i < 16; i++) {
        cuzk__v1__gpustatus__init(&gpus[i]);
        gpus[i].ordinal = s->devices[i].ordinal;
        gpus[i].name = (char *)s->devices[i].name;
        gpus[i].vram_total_bytes = s->devices[i].vram_total;
        gpus[i].vram_free_bytes = s->devices[i].vram_free;
        gpus[i].current_job_id = (char *)s->devices[i].current_job;
        gpus[i].current_proof_kind = (char *)s->devices[i].current_kind;
        gpus[i].state = (char *)s->devices[i].state;
        gpus[i].error = (char *)s->devices[i].error;
        gpus[i].queued_partitions = s->devices[i].queued;
        gpus[i].busy_ms = s->devices[i].busy_ms;
        gpus[i].partitions_proved = s->devices[i].partitions;
        gpus[i].memory_plan = (char *)s->devices[i].plan;
        gpus[i].small_lane = s->devices[i].lane;
        gpus[i].lane_busy_ms = s->devices[i].lane_busy_ms;
        gpus[i].lane_partitions_proved = s->devices[i].lane_partitions;
        gpu_ptrs[out.n_gpus++] = &gpus[i];
    }
    for (size_t i = 0; i < s->n_srs; i++) {
        cuzk__v1__srsstatus__init(&srs[i]);
        srs[i].circuit_id = (char *)s->srs[i].circuit_id;
        srs[i].tier = (Cuzk__V1__SRSStatus__Tier)s->srs[i].tier;
        srs[i].size_bytes = s->srs[i].size_bytes;
        srs[i].ref_count = s->srs[i].ref_count;
        srs[i].pinned = s->srs[i].pinned, srs[i].preloaded = s->srs[i].preload;
        srs[i].loading = s->srs[i].loading, srs[i].draining = s->srs[i].draining;
        srs[i].priority = (uint32_t)s->srs[i].rank;
        srs[i].loads = s->srs[i].loads, srs[i].evictions = s->srs[i].evictions;
        srs[i].load_seconds = s->srs[i].load_seconds;
        srs[i].loads_abandoned = s->srs[i].abandoned;
        srs[i].abandoned_bytes = s->srs[i].abandoned_bytes;
        srs[i].read_bytes = s->srs[i].read_bytes;
        srs_ptrs[i] = &srs[i];
    }
    for (int k = 1; k < ENGINE_KINDS; k++) {
        cuzk__v1__queue_status__init(&queues[k]);
        queues[k].proof_kind = (char *)kind_names[k];
        queues[k].pending = s->pending[k];
        queues[k].in_progress = s->in_progress[k];
        queue_ptrs[out.n_queues++] = &queues[k];
    }
    out.gpus = gpu_ptrs, out.loaded_srs = srs_ptrs, out.n_loaded_srs = s->n_srs;
    out.queues = queue_ptrs;
    out.total_proofs_completed = s->completed;
    out.total_proofs_failed = s->failed;
    out.uptime_seconds = s->uptime_s;
    out.pinned_memory_bytes = s->pinned_bytes;
    out.pinned_memory_limit_bytes = s->pinned_limit;
    reply(c, GRPC_STATUS_OK, NULL, pack(&out.base));
    free(srs), free(srs_ptrs);
}

static void on_status(call *c, const uint8_t *data, size_t len)
{
    DECODE(Cuzk__V1__GetStatusRequest, cuzk__v1__get_status_request, m, "GetStatusRequest");
    cuzk__v1__get_status_request__free_unpacked(m, NULL);
    engine_status_t s;
    cuzk_err err = {0};
    if (engine_status(c->server->engine, &s, &err))
        return reply(c, status_for(err.code), err.msg, NULL);
    status_reply(c, &s);
    engine_status_free(&s);
}

static void on_metrics(call *c, const uint8_t *data, size_t len)
{
    DECODE(Cuzk__V1__GetMetricsRequest, cuzk__v1__get_metrics_request, m, "GetMetricsRequest");
    cuzk__v1__get_metrics_request__free_unpacked(m, NULL);
    char *text = engine_metrics(c->server->engine);
    if (!text) return reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
    Cuzk__V1__GetMetricsResponse out = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    out.prometheus_text = text;
    reply(c, GRPC_STATUS_OK, NULL, pack(&out.base));
    free(text);
}

static void on_preload(call *c, const uint8_t *data, size_t len)
{
    DECODE(Cuzk__V1__PreloadSrsRequest, cuzk__v1__preload_srs_request, m, "PreloadSrsRequest");
    Cuzk__V1__PreloadSrsResponse out = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    cuzk_err err = {0};
    bool already = false;
    int rc = engine_preload_at(c->server->engine, m->circuit_id, (int)m->priority,
                               (uint64_t)m->hold_seconds * 1000, &already, &out.load_time_ms, &err);
    cuzk__v1__preload_srs_request__free_unpacked(m, NULL);
    if (rc) return reply(c, status_for(rc), err.msg, NULL);
    out.already_loaded = already;
    reply(c, GRPC_STATUS_OK, NULL, pack(&out.base));
}

static void on_evict(call *c, const uint8_t *data, size_t len)
{
    DECODE(Cuzk__V1__EvictSrsRequest, cuzk__v1__evict_srs_request, m, "EvictSrsRequest");
    Cuzk__V1__EvictSrsResponse out = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
    cuzk_err err = {0};
    bool was_loaded = false;
    int rc = engine_evict(c->server->engine, m->circuit_id, &was_loaded, &out.freed_bytes, &err);
    cuzk__v1__evict_srs_request__free_unpacked(m, NULL);
    if (rc) return reply(c, status_for(rc), err.msg, NULL);
    out.was_loaded = was_loaded;
    reply(c, GRPC_STATUS_OK, NULL, pack(&out.base));
}

static const handler_fn handlers[RPC_METHODS] = {on_submit, on_await,   on_prove,   on_cancel,
                                                 on_status, on_metrics, on_preload, on_evict};

/* The request is read as one slice and the byte buffer dropped at once, so
 * a 200 MB request is held twice at most (the slice, then the decoded
 * message) and only until the handler has decoded it. */
static void *handler_thread(void *arg)
{
    call *c = arg;
    cuzk_server *s = c->server;
    grpc_byte_buffer_reader reader;
    if (!c->payload || !grpc_byte_buffer_reader_init(&reader, c->payload)) {
        reply(c, GRPC_STATUS_INVALID_ARGUMENT, "no readable request message", NULL);
    } else {
        grpc_slice all = grpc_byte_buffer_reader_readall(&reader);
        grpc_byte_buffer_reader_destroy(&reader);
        grpc_byte_buffer_destroy(c->payload);
        c->payload = NULL;
        handlers[c->method](c, GRPC_SLICE_START_PTR(all), GRPC_SLICE_LENGTH(all));
        grpc_slice_unref(all);
    }
    call_unref(c);
    pthread_mutex_lock(&s->lock);
    if (!--s->handlers) pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- the poller ---- */

static void start_close_watch(call *c)
{
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->cancelled;
    __atomic_add_fetch(&c->refs, 1, __ATOMIC_ACQ_REL);
    if (grpc_call_start_batch(c->call, &op, 1, &c->closed_tag, NULL) != GRPC_CALL_OK) {
        __atomic_store_n(&c->closed, 1, __ATOMIC_RELEASE);
        call_unref(c);
    }
}

static void dispatch(cuzk_server *s, call *c)
{
    start_close_watch(c);
    if (c->method < 0) {
        reply(c, GRPC_STATUS_UNIMPLEMENTED, "no such method in cuzk.v1.ProvingEngine", NULL);
        call_unref(c);
        return;
    }
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&s->lock);
    s->handlers++;
    pthread_mutex_unlock(&s->lock);
    if (pthread_create(&t, &attr, handler_thread, c)) {
        reply(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "cannot start a handler thread", NULL);
        call_unref(c);
        pthread_mutex_lock(&s->lock);
        s->handlers--;
        pthread_mutex_unlock(&s->lock);
    }
    pthread_attr_destroy(&attr);
}

static void *poller(void *arg)
{
    cuzk_server *s = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        tag *t = ev.tag;
        if (t->kind == TAG_SHUTDOWN) {
            pthread_mutex_lock(&s->lock);
            s->shutdown_done = 1;
            pthread_cond_broadcast(&s->idle);
            pthread_mutex_unlock(&s->lock);
        } else if (t->kind == TAG_NEW) {
            int method = t->call->method;
            if (ev.success)
                dispatch(s, t->call);
            else
                call_unref(t->call);
            if (ev.success) request_next(s, method);
        } else if (t->kind == TAG_CLOSED) {
            __atomic_store_n(&t->call->closed, 1, __ATOMIC_RELEASE);
            call_unref(t->call);
        } else
            call_unref(t->call);
    }
    return NULL;
}

/* A stale unix socket file would make the bind fail. */
static void remove_stale_socket(const char *addr)
{
    struct stat st;
    if (strncmp(addr, "unix://", 7)) return;
    const char *path = addr + 7;
    if (!stat(path, &st) && S_ISSOCK(st.st_mode)) unlink(path);
}

int cuzk_server_start(cuzk_server **out, engine_t *e, const char *addr, cuzk_err *err)
{
    grpc_init();
    cuzk_server *s = calloc(1, sizeof *s);
    if (!s) return cuzk_errf(err, CUZK_ENOMEM, "server: out of memory");
    s->engine = e;
    s->shutdown_tag = (tag){TAG_SHUTDOWN, NULL};
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->idle, NULL);
    s->srv = grpc_server_create(rpc_channel_args(), NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->srv, s->cq, NULL);
    for (int m = 0; m < RPC_METHODS; m++)
        s->methods[m] = grpc_server_register_method(s->srv, rpc_method_paths[m], NULL,
                                                    GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
    remove_stale_socket(rpc_target(addr));
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    int port = grpc_server_add_http2_port(s->srv, rpc_target(addr), creds);
    grpc_server_credentials_release(creds);
    if (!port) {
        grpc_server_destroy(s->srv);
        grpc_completion_queue_shutdown(s->cq);
        grpc_completion_queue_destroy(s->cq);
        free(s);
        return cuzk_errf(err, CUZK_EIO, "cannot listen on %s", addr);
    }
    grpc_server_start(s->srv);
    s->accepting = 1;
    for (int m = -1; m < RPC_METHODS; m++) request_next(s, m);
    pthread_create(&s->poller, NULL, poller, s);
    engine_log(LOG_INFO, "server: listening on %s", addr);
    *out = s;
    return CUZK_OK;
}

void cuzk_server_stop_accepting(cuzk_server *s)
{
    if (!__atomic_exchange_n(&s->accepting, 0, __ATOMIC_ACQ_REL)) return;
    grpc_server_shutdown_and_notify(s->srv, s->cq, &s->shutdown_tag);
}

/* Waits (lock held) until *value == want or the deadline. */
static void wait_until(cuzk_server *s, int *value, int want, gpr_timespec deadline)
{
    bool forever = !gpr_time_cmp(deadline, gpr_inf_future(GPR_CLOCK_REALTIME));
    while (*value != want && (forever || gpr_time_cmp(gpr_now(GPR_CLOCK_REALTIME), deadline) < 0)) {
        struct timespec ts = {deadline.tv_sec, deadline.tv_nsec};
        if (forever)
            pthread_cond_wait(&s->idle, &s->lock);
        else
            pthread_cond_timedwait(&s->idle, &s->lock, &ts);
    }
}

void cuzk_server_destroy(cuzk_server *s, uint64_t grace_ms)
{
    cuzk_server_stop_accepting(s);
    gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                         gpr_time_from_millis((int64_t)grace_ms, GPR_TIMESPAN));
    pthread_mutex_lock(&s->lock);
    wait_until(s, &s->shutdown_done, 1, deadline);
    pthread_mutex_unlock(&s->lock);
    grpc_server_cancel_all_calls(s->srv);
    pthread_mutex_lock(&s->lock);
    gpr_timespec forever = gpr_inf_future(GPR_CLOCK_REALTIME);
    wait_until(s, &s->shutdown_done, 1, forever);
    wait_until(s, &s->handlers, 0, forever);
    pthread_mutex_unlock(&s->lock);
    grpc_completion_queue_shutdown(s->cq);
    pthread_join(s->poller, NULL);
    grpc_server_destroy(s->srv);
    grpc_completion_queue_destroy(s->cq);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->idle);
    free(s);
    grpc_shutdown();
}
