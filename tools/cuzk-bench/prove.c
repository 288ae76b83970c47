/*
 * prove.c - cuzk-bench single and batch: build a SubmitProofRequest from
 * the command line, call Prove, print cuzk-bench's result formats. batch
 * runs count proofs from `concurrency` threads sharing one channel, each
 * with a distinct request_id (the daemon is idempotent on it), then prints
 * the summary: total time, completed, failed, wall and prove times,
 * throughput in proofs per minute. single -o FILE also writes a completed
 * proof's bytes to FILE (for `cuzk verify porep --proof`); batch -o DIR
 * writes proof i of the batch to DIR/proof-i.bin. gen-vanilla test writes
 * test records.
 */
#include <grpc/grpc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cuzk/config.h"
#include "cuzk/engine_provider.h"
#include "cuzk/file.h"
#include "cuzk/filecoin/vanilla.h"
#include "cuzk/v1/proving.pb-c.h"

/* Inputs larger than Curio's message limit could never be sent. */
#define INPUT_MAX RPC_MAX_MESSAGE

typedef struct request {
    Cuzk__V1__SubmitProofRequest msg;
    uint8_t *input, *randomness, *comm[3];
    vanilla_blobs blobs;        /* a JSON array of base64 blobs, decoded */
    ProtobufCBinaryData *parts; /* vanilla_proofs over blobs */
    long count, concurrency;
    const char *output; /* -o: the proof's file (single) or folder (batch) */
} request;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int parse_kind(const char *s)
{
    static const char *const names[] = {"", "porep", "snap", "wpost", "winning"};
    for (int k = 1; k < 5; k++)
        if (!strcmp(s, names[k])) return k;
    return -1;
}

static int parse_priority(const char *s)
{
    static const char *const names[] = {"", "low", "normal", "high", "critical"};
    for (int p = 1; p < 5; p++)
        if (!strcmp(s, names[p])) return p;
    return -1;
}

/* Hex (optional 0x) into a malloc'd buffer. */
static int parse_hex(const char *s, ProtobufCBinaryData *out, uint8_t **owned)
{
    if (!strncmp(s, "0x", 2)) s += 2;
    size_t n = strlen(s);
    if (n % 2 || strspn(s, "0123456789abcdefABCDEF") != n) return -1; /* %2x takes signs, spaces */
    uint8_t *b = malloc(n / 2 + 1);
    for (size_t i = 0; b && i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return free(b), -1;
        b[i] = (uint8_t)v;
    }
    *owned = b;
    *out = (ProtobufCBinaryData){n / 2, b};
    return b ? 0 : -1;
}

static int parse_u64(const char *s, uint64_t *out)
{
    return cuzk_parse_size(s, out, NULL);
}

/* gen-vanilla's PoSt and Snap files: a JSON array (of base64 blobs). */
static bool is_blob_list(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i < len && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) i++;
    return i < len && p[i] == '[';
}

/* The blobs of r->input as the request's vanilla_proofs, one each. */
static int blobs_as_proofs(request *r, size_t len, cuzk_err *err)
{
    int rc = vanilla_blobs_parse(&r->blobs, r->input, len, err);
    if (rc) return rc;
    if (!(r->parts = calloc(r->blobs.n ? r->blobs.n : 1, sizeof(*r->parts))))
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->blobs.n; i++)
        r->parts[i] = (ProtobufCBinaryData){r->blobs.len[i], r->blobs.data[i]};
    r->msg.n_vanilla_proofs = r->blobs.n;
    r->msg.vanilla_proofs = r->parts;
    return CUZK_OK;
}

static int set_option(request *r, const char *opt, const char *val)
{
    Cuzk__V1__SubmitProofRequest *m = &r->msg;
    int v;
    if (!strcmp(opt, "-t") || !strcmp(opt, "--type")) {
        if ((v = parse_kind(val)) < 0) return bench_usage("unknown proof type '%s'", val);
        m->proof_kind = (Cuzk__V1__ProofKind)v;
        return 0;
    }
    if (!strcmp(opt, "--c1") || !strcmp(opt, "--vanilla")) {
        size_t len;
        cuzk_err err = {0};
        if (cuzk_read_file(val, &r->input, &len, INPUT_MAX, &err) ||
            (is_blob_list(r->input, len) && blobs_as_proofs(r, len, &err)))
            return fprintf(stderr, "cuzk-bench: %s: %s\n", val, err.msg), BENCH_FAILED;
        if (!m->n_vanilla_proofs) m->vanilla_proof = (ProtobufCBinaryData){len, r->input};
        return 0;
    }
    if (!strcmp(opt, "-o") || !strcmp(opt, "--output")) {
        r->output = val;
        return 0;
    }
    if (!strcmp(opt, "--priority")) {
        if ((v = parse_priority(val)) < 0) return bench_usage("unknown priority '%s'", val);
        m->priority = (Cuzk__V1__Priority)v;
        return 0;
    }
    if (!strcmp(opt, "--randomness"))
        return parse_hex(val, &m->randomness, &r->randomness) ? bench_usage("bad hex '%s'", val)
                                                              : 0;
    if (!strcmp(opt, "--comm-r-old"))
        return parse_hex(val, &m->comm_r_old, &r->comm[0]) ? bench_usage("bad hex '%s'", val) : 0;
    if (!strcmp(opt, "--comm-r-new"))
        return parse_hex(val, &m->comm_r_new, &r->comm[1]) ? bench_usage("bad hex '%s'", val) : 0;
    if (!strcmp(opt, "--comm-d-new"))
        return parse_hex(val, &m->comm_d_new, &r->comm[2]) ? bench_usage("bad hex '%s'", val) : 0;
    uint64_t u;
    if (parse_u64(val, &u)) return bench_usage("bad number '%s'", val);
    if (!strcmp(opt, "--sector-num"))
        m->sector_number = u;
    else if (!strcmp(opt, "--miner-id"))
        m->miner_id = u;
    else if (!strcmp(opt, "--partition"))
        m->partition_index = (uint32_t)u;
    else if (!strcmp(opt, "--registered-proof"))
        m->registered_proof = u;
    else if (!strcmp(opt, "--sector-size"))
        m->sector_size = u;
    else if (!strcmp(opt, "-c") || !strcmp(opt, "--count"))
        r->count = (long)u;
    else if (!strcmp(opt, "-j") || !strcmp(opt, "--concurrency"))
        r->concurrency = (long)u;
    else
        return bench_usage("unknown option '%s'", opt);
    return 0;
}

static void request_free(request *r)
{
    free(r->input);
    free(r->parts);
    vanilla_blobs_free(&r->blobs);
    free(r->randomness);
    for (int i = 0; i < 3; i++) free(r->comm[i]);
}

static int parse_request(request *r, int argc, char **argv)
{
    memset(r, 0, sizeof *r);
    cuzk__v1__submit_proof_request__init(&r->msg);
    r->msg.sector_number = 1;
    r->msg.miner_id = 1000;
    r->count = 1, r->concurrency = 1;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) return bench_usage("missing value after %s", argv[i]);
        int rc = set_option(r, argv[i], argv[i + 1]);
        if (rc) return rc;
    }
    if (!r->msg.proof_kind) return bench_usage("%s", "-t porep|snap|wpost|winning is required");
    if (!r->input) return bench_usage("%s", "--c1 FILE or --vanilla FILE is required");
    if (r->count < 1 || r->concurrency < 1) return bench_usage("%s", "-c and -j must be >= 1");
    return 0;
}

/* One Prove call; *result is unpacked (free with free_unpacked). */
static int prove(grpc_channel *ch, request *r, const char *request_id,
                 Cuzk__V1__ProveResponse **result, double *wall_ms)
{
    Cuzk__V1__SubmitProofRequest m = r->msg;
    m.request_id = (char *)request_id;
    Cuzk__V1__ProveRequest req = CUZK__V1__PROVE_REQUEST__INIT;
    req.submit = &m;
    size_t len = cuzk__v1__prove_request__get_packed_size(&req);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return BENCH_FAILED;
    cuzk__v1__prove_request__pack(&req, buf);
    rpc_reply reply;
    cuzk_err err = {0};
    double t0 = now_ms();
    int rc = rpc_call(ch, RPC_PROVE, buf, len, 0, &reply, &err);
    *wall_ms = now_ms() - t0;
    free(buf);
    *result = NULL;
    if (rc)
        fprintf(stderr, "cuzk-bench: %s\n", err.msg);
    else if (reply.status != GRPC_STATUS_OK)
        fprintf(stderr, "cuzk-bench: gRPC status %d: %s\n", reply.status,
                reply.details ? reply.details : "");
    else if (!(*result = cuzk__v1__prove_response__unpack(NULL, reply.len, reply.data)) ||
             !(*result)->result)
        fprintf(stderr, "cuzk-bench: malformed ProveResponse\n");
    rpc_reply_free(&reply);
    return *result && (*result)->result ? BENCH_OK : BENCH_FAILED;
}

static const char *status_name(int s)
{
    static const char *const names[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"};
    return s >= 0 && s < 5 ? names[s] : "UNKNOWN";
}

static void print_result(const Cuzk__V1__AwaitProofResponse *a, double wall_ms)
{
    printf("=== Proof Result ===\n");
    printf("status:    %s\n", status_name(a->status));
    printf("job_id:    %s\n", a->job_id);
    if (a->error_message[0]) printf("error:     %s\n", a->error_message);
    printf("timings:   total=%llu ms (queue=%llu ms, srs=%llu ms, synth=%llu ms, gpu=%llu ms)\n",
           (unsigned long long)a->total_ms, (unsigned long long)a->queue_wait_ms,
           (unsigned long long)a->srs_load_ms, (unsigned long long)a->synthesis_ms,
           (unsigned long long)a->gpu_compute_ms);
    printf("wall time: %.0f ms\n", wall_ms);
    printf("proof:     %zu bytes (hex: ", a->proof.len);
    for (size_t i = 0; i < a->proof.len && i < 32; i++) printf("%02x", a->proof.data[i]);
    printf("%s)\n", a->proof.len > 32 ? "..." : "");
}

/* -o: the proof bytes of a completed proof into the file (quiet: for
 * batch, whose lines say where each went). */
static int write_proof(const char *path, const Cuzk__V1__AwaitProofResponse *a, bool quiet)
{
    cuzk_err err = {0};
    if (cuzk_write_file(path, a->proof.data, a->proof.len, &err))
        return fprintf(stderr, "cuzk-bench: %s\n", err.msg), BENCH_FAILED;
    if (!quiet) printf("written:   %s\n", path);
    return BENCH_OK;
}

int bench_single(const char *addr, int argc, char **argv)
{
    request r;
    int rc = parse_request(&r, argc, argv);
    if (rc) return request_free(&r), rc;
    grpc_init();
    grpc_channel *ch = rpc_connect(addr);
    char id[64];
    snprintf(id, sizeof id, "bench-%ld-%ld", (long)getpid(), (long)time(NULL));
    Cuzk__V1__ProveResponse *res;
    double wall;
    rc = prove(ch, &r, id, &res, &wall);
    if (!rc) {
        print_result(res->result, wall);
        rc = res->result->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED
                 ? BENCH_OK
                 : BENCH_FAILED;
        if (!rc && r.output) rc = write_proof(r.output, res->result, false);
        cuzk__v1__prove_response__free_unpacked(res, NULL);
    }
    grpc_channel_destroy(ch);
    grpc_shutdown();
    request_free(&r);
    return rc;
}

/* ---- batch ---- */

typedef struct batch_run {
    request *r;
    grpc_channel *ch;
    pthread_mutex_t lock;
    long next, done, completed, failed;
    double *wall, *prove;
    char tag[32];
} batch_run;

static void record(batch_run *b, long i, int ok, const Cuzk__V1__AwaitProofResponse *a, double wall)
{
    char path[1024] = "";
    if (ok && b->r->output) {
        snprintf(path, sizeof path, "%s/proof-%ld.bin", b->r->output, i);
        if (write_proof(path, a, true)) ok = 0, path[0] = 0;
    }
    pthread_mutex_lock(&b->lock);
    b->done++;
    if (ok)
        b->completed++;
    else
        b->failed++;
    b->wall[i] = wall;
    b->prove[i] = a ? (double)a->total_ms - (double)a->queue_wait_ms : 0;
    printf("[%ld/%ld] %s \u2014 %.1fs (prove=%.0f ms, queue=%llu ms)%s%s%s%s\n", b->done,
           b->r->count, a ? status_name(a->status) : "ERROR", wall / 1e3, b->prove[i],
           a ? (unsigned long long)a->queue_wait_ms : 0ull, a && a->error_message[0] ? ": " : "",
           a ? a->error_message : "", path[0] ? " -> " : "", path);
    fflush(stdout);
    pthread_mutex_unlock(&b->lock);
}

static void *batch_worker(void *arg)
{
    batch_run *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        long i = b->next < b->r->count ? b->next++ : -1;
        pthread_mutex_unlock(&b->lock);
        if (i < 0) return NULL;
        char id[64];
        snprintf(id, sizeof id, "bench-%s-%ld", b->tag, i);
        Cuzk__V1__ProveResponse *res = NULL;
        double wall;
        int rc = prove(b->ch, b->r, id, &res, &wall);
        const Cuzk__V1__AwaitProofResponse *a = rc ? NULL : res->result;
        record(b, i, a && a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED, a, wall);
        if (res) cuzk__v1__prove_response__free_unpacked(res, NULL);
    }
}

static void stats(const double *v, long n, double *avg, double *min, double *max)
{
    *avg = 0, *min = n ? v[0] : 0, *max = n ? v[0] : 0;
    for (long i = 0; i < n; i++) {
        *avg += v[i] / (double)n;
        if (v[i] < *min) *min = v[i];
        if (v[i] > *max) *max = v[i];
    }
}

static void print_summary(const batch_run *b, double total_ms)
{
    double avg, min, max;
    printf("=== Batch Summary ===\n");
    printf("total time:  %.1fs\n", total_ms / 1e3);
    printf("completed:   %ld\n", b->completed);
    printf("failed:      %ld\n", b->failed);
    stats(b->wall, b->r->count, &avg, &min, &max);
    printf("wall:        avg=%.1fs min=%.1fs max=%.1fs\n", avg / 1e3, min / 1e3, max / 1e3);
    stats(b->prove, b->r->count, &avg, &min, &max);
    printf("prove:       avg=%.0f ms min=%.0f ms max=%.0f ms\n", avg, min, max);
    printf("throughput:  %.2f proofs/min\n",
           total_ms > 0 ? (double)b->completed * 60e3 / total_ms : 0);
}

int bench_batch(const char *addr, int argc, char **argv)
{
    request r;
    int rc = parse_request(&r, argc, argv);
    if (rc) return request_free(&r), rc;
    grpc_init();
    batch_run b = {.r = &r, .ch = rpc_connect(addr)};
    pthread_mutex_init(&b.lock, NULL);
    snprintf(b.tag, sizeof b.tag, "%ld-%ld", (long)getpid(), (long)time(NULL));
    b.wall = calloc((size_t)r.count, sizeof *b.wall);
    b.prove = calloc((size_t)r.count, sizeof *b.prove);
    pthread_t *threads = calloc((size_t)r.concurrency, sizeof *threads);
    double t0 = now_ms();
    long started = 0;
    for (; b.wall && b.prove && threads && started < r.concurrency; started++)
        if (pthread_create(&threads[started], NULL, batch_worker, &b)) break;
    for (long i = 0; i < started; i++) pthread_join(threads[i], NULL);
    if (started) print_summary(&b, now_ms() - t0);
    rc = started && !b.failed && b.completed == r.count ? BENCH_OK : BENCH_FAILED;
    free(threads), free(b.wall), free(b.prove);
    pthread_mutex_destroy(&b.lock);
    grpc_channel_destroy(b.ch);
    grpc_shutdown();
    request_free(&r);
    return rc;
}

/* ---- gen-vanilla test ---- */

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

int bench_gen_test(int argc, char **argv)
{
    uint64_t constraints = 0, parts = 1, seed = 1, bad = 0xffffffffu;
    const char *out = NULL;
    for (int i = 2; i < argc; i += 2) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t *slot = !strcmp(opt, "--constraints")     ? &constraints
                         : !strcmp(opt, "--partitions")    ? &parts
                         : !strcmp(opt, "--seed")          ? &seed
                         : !strcmp(opt, "--bad-partition") ? &bad
                                                           : NULL;
        if (!val) return bench_usage("missing value after %s", opt);
        if (!strcmp(opt, "-o"))
            out = val;
        else if (!slot || parse_u64(val, slot))
            return bench_usage("bad option %s", opt);
    }
    if (!constraints || !out)
        return bench_usage("%s", "gen-vanilla test needs --constraints N -o FILE");
    uint8_t rec[ENGINE_TEST_RECORD_BYTES] = {0};
    memcpy(rec, ENGINE_TEST_MAGIC, 8);
    put32(rec + 8, (uint32_t)constraints);
    put32(rec + 12, (uint32_t)parts);
    put32(rec + 16, (uint32_t)seed);
    put32(rec + 20, (uint32_t)(seed >> 32));
    put32(rec + 24, (uint32_t)bad);
    cuzk_err err = {0};
    if (cuzk_write_file(out, rec, sizeof rec, &err))
        return fprintf(stderr, "cuzk-bench: %s\n", err.msg), BENCH_FAILED;
    return BENCH_OK;
}
