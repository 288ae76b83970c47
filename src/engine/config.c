/*
 * config.c - the daemon's TOML configuration (config.h).
 *
 * One table of known keys drives parsing, defaults and the printed default
 * file: each key names its TOML table, its type and where it lands in
 * cuzk_config. A line is a comment, a [table] header or key = value; the
 * value is a "string", an integer (underscores allowed), true/false or an
 * array of integers or of strings. Sizes accept "14GiB" strings or plain integers,
 * durations integers (seconds) or "30s"/"500ms"/"5m"/"1h" strings. Nothing
 * else of TOML is needed, so nothing else is accepted.
 */
#include "cuzk/config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/file.h"
#include "cuzk/gpu_lane.h" /* GPU_LANE_PAUSE_MS */

enum key_type { T_STR, T_U32, T_U64, T_BOOL, T_SIZE, T_BUDGET, T_SECONDS, T_DEVICES, T_IDS };

typedef struct key_def {
    const char *table, *key;
    int type;
    size_t offset, size;
    const char *comment;
} key_def;

#define F(field) offsetof(cuzk_config, field), sizeof(((cuzk_config *)0)->field)

static const key_def keys[] = {
    {"daemon", "listen", T_STR, F(listen), "unix:///path or host:port"},
    {"daemon", "status_listen", T_STR, F(status_listen), "host:port of GET /status, /metrics"},
    {"daemon", "shutdown_grace", T_SECONDS, F(shutdown_grace_s), "SIGTERM: time to finish"},
    {"srs", "param_cache", T_STR, F(param_cache), "directory of .params / .vk files"},
    {"srs", "preload", T_IDS, F(preload),
     "circuit ids (cuzk-daemon --list-circuits) loaded when the daemon starts, in the background, "
     "with their recorded shapes, e.g. [\"porep-32g\", \"wpost-32g\"]"},
    {"srs", "pinned", T_IDS, F(pinned),
     "circuit ids loaded when the daemon starts and never evicted for memory (residency.h): "
     "[\"wpost-32g\", \"winning-32g\"]"},
    {"srs", "swap_after", T_SECONDS, F(srs_swap_after_s),
     "a load that waits this long drains a set whose jobs have its priority (residency.h)"},
    {"srs", "keep_rank", T_SECONDS, F(srs_keep_rank_s),
     "a set keeps the priority of its last job this long after it ended, so that a stream's "
     "next request finds it (residency.h rule 3)"},
    {"memory", "total_budget", T_BUDGET, F(total_budget), "\"auto\" or a size"},
    {"memory", "safety_margin", T_SIZE, F(safety_margin), "kept free under \"auto\""},
    {"memory", "eviction_min_idle", T_SECONDS, F(eviction_min_idle_s), "idle SRS evictable"},
    {"memory", "reuse_partitions", T_BOOL, F(reuse_partitions),
     "keep synthesized partitions' storage for the next (reserved, evicted first)"},
    {"gpus", "devices", T_DEVICES, F(devices), "ordinals; [] = all"},
    {"gpus", "gpu_threads", T_U32, F(gpu_threads), "prover threads, 0 = all cores"},
    {"gpus", "gpu_workers_per_device", T_U32, F(gpu_workers_per_device), "prover workers"},
    {"gpus", "backend", T_STR, F(backend), "auto (CUDA when usable), cuda or cpu"},
    {"gpus", "device_memory", T_SIZE, F(device_memory),
     "device memory the GPU prover uses per device, e.g. \"16GiB\"; 0 = what is free (parameters "
     "that do not fit stream from host memory)"},
    {"gpus", "small_lane_max_log", T_U32, F(small_lane_max_log),
     "log2 of the largest domain the small-circuit lane proves beside a running partition "
     "(HIGH and CRITICAL jobs), e.g. 19 (a Winning PoSt 32GiB's domain; its reservation 3.5 GiB, "
     "made only on a device with 8 times that free); 0 = no lane"},
    {"gpus", "stream_chunk_log", T_U32, F(stream_chunk_log),
     "log2 of the MSM calls (points) a streamed plan wants before it gives up a/b/c rows on the "
     "device for them (residency rule 4): smaller keeps more rows, parking less host memory, in "
     "more and smaller calls; 0 = 21, else 10 .. 27"},
    {"gpus", "witness_kept", T_STR, F(witness_kept),
     "when the GPU prover keeps a witness on the device in its packed form (residency rule 4): "
     "first (the default: wherever it is offered, before the witness as it is; the room it frees "
     "goes to larger MSM calls and kept points), tight (only where the witness as it is leaves "
     "the H step fewer rows or its shape streamed), off"},
    {"gpus", "small_lane_params", T_SIZE, F(small_lane_params),
     "device memory for the parameters of the circuits the lane proves, reserved with it"},
    {"gpus", "small_lane_pause_ms", T_U32, F(small_lane_pause_ms),
     "while a lane proof runs, the device's big prover launches no kernel for at most this long, "
     "so that the lane's kernels get the SMs (src/gpu/util/yield.cu); 0 = no pause"},
    {"scheduler", "max_batch_size", T_U32, F(max_batch_size), "sectors per batch"},
    {"scheduler", "max_batch_wait_ms", T_U64, F(max_batch_wait_ms), "flush a partial batch"},
    {"scheduler", "result_ttl", T_SECONDS, F(result_ttl_s), "finished results kept"},
    {"synthesis", "threads", T_U32, F(synthesis_threads),
     "per partition; 0 = all cores (witness-only: the cores / synthesis workers, a HIGH or "
     "CRITICAL partition the cores / such partitions in synthesis)"},
    {"synthesis", "nice", T_U32, F(synthesis_nice),
     "added to the nice value of the ordinary synthesis workers and their OpenMP teams (0 .. 19), "
     "so that on a host whose cores synthesis keeps busy the threads that feed the GPUs, the "
     "small-circuit lanes, the priority_synthesis workers and the gRPC server run first; 0 = "
     "the daemon's own"},
    {"synthesis", "witness_only", T_BOOL, F(witness_only),
     "synthesize only the witness; a, b, c from the circuit's recorded shape (on the GPU)"},
    {"pipeline", "enabled", T_BOOL, F(pipeline_enabled), "overlap synthesis and proving"},
    {"pipeline", "synthesis_concurrency", T_U32, F(synthesis_concurrency),
     "synthesis workers (0 = auto: 4 on a GPU backend, 1 on the CPU)"},
    {"pipeline", "max_parallel_synthesis", T_U32, F(max_parallel_synthesis), "0 = no cap"},
    {"pipeline", "max_gpu_queue_depth", T_U32, F(max_gpu_queue_depth),
     "synthesized, waiting, per device"},
    {"pipeline", "partitions_per_start", T_U32, F(partitions_per_start),
     "partitions of one circuit a device proves in one start, queued when it starts or, on the "
     "CUDA backend, while it proves (the next one's upload under this one's kernels); 1 = one at "
     "a time"},
    {"pipeline", "priority_synthesis", T_U32, F(priority_synthesis),
     "synthesis workers beside synthesis_concurrency that take only HIGH and CRITICAL partitions"},
    {"pipeline", "aging_ms", T_U64, F(aging_ms),
     "a LOW partition waiting this long counts as NORMAL (0 = never)"},
    {"logging", "level", T_STR, F(log_level), "error, warn, info, debug"},
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

void cuzk_config_default(cuzk_config *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->listen, "127.0.0.1:9820");
    c->shutdown_grace_s = 30;
    strcpy(c->param_cache, "/var/tmp/filecoin-proof-parameters");
    c->safety_margin = 4ull << 30;
    c->eviction_min_idle_s = 300;
    c->srs_swap_after_s = 120;
    c->srs_keep_rank_s = 5;
    c->reuse_partitions = true;
    c->witness_only = true;
    c->gpu_workers_per_device = 2;
    strcpy(c->backend, "auto");
    strcpy(c->witness_kept, "first");
    c->small_lane_max_log = 19; /* Winning PoSt 32 / 64 GiB: 2^19; a 3.5 GiB lane */
    c->small_lane_params = 512ull << 20;
    c->small_lane_pause_ms = GPU_LANE_PAUSE_MS;
    c->max_batch_size = 1;
    c->max_batch_wait_ms = 10000;
    c->result_ttl_s = 600;
    c->pipeline_enabled = true;
    c->synthesis_concurrency = 0; /* auto, pipeline.c */
    c->max_gpu_queue_depth = 2;
    c->partitions_per_start = 8;
    c->priority_synthesis = 1;
    c->aging_ms = 60000;
    strcpy(c->log_level, "info");
}

/* Unit multipliers: binary (1 << 10k) and decimal (10^3k). */
static const struct {
    const char *name;
    uint64_t mul;
} units[] = {
    {"", 1},
    {"B", 1},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
    {"KB", 1000ull},
    {"MB", 1000000ull},
    {"GB", 1000000000ull},
    {"TB", 1000000000000ull},
};

int cuzk_parse_size(const char *s, uint64_t *out, cuzk_err *err)
{
    const char *p = s;
    uint64_t v = 0;
    if (!isdigit((unsigned char)*p)) return cuzk_errf(err, CUZK_EINVAL, "size '%s': no number", s);
    for (; isdigit((unsigned char)*p) || *p == '_'; p++) {
        if (*p == '_') continue;
        if (v > (UINT64_MAX - 9) / 10) return cuzk_errf(err, CUZK_EINVAL, "size '%s': too big", s);
        v = 10 * v + (uint64_t)(*p - '0');
    }
    while (*p == ' ') p++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(p, units[i].name)) continue;
        if (v && units[i].mul > UINT64_MAX / v)
            return cuzk_errf(err, CUZK_EINVAL, "size '%s': too big", s);
        *out = v * units[i].mul;
        return CUZK_OK;
    }
    return cuzk_errf(err, CUZK_EINVAL,
                     "size '%s': unknown unit '%s' (B, KiB, MiB, GiB, TiB, KB..TB)", s, p);
}

/* "30s", "500ms", "5m", "1h" or a plain number of seconds. */
static int parse_seconds(const char *s, uint64_t *out, cuzk_err *err)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return cuzk_errf(err, CUZK_EINVAL, "duration '%s': no number", s);
    if (!*end || !strcmp(end, "s"))
        *out = v;
    else if (!strcmp(end, "ms"))
        *out = (v + 999) / 1000;
    else if (!strcmp(end, "m"))
        *out = v * 60;
    else if (!strcmp(end, "h"))
        *out = v * 3600;
    else
        return cuzk_errf(err, CUZK_EINVAL, "duration '%s': unit must be ms, s, m or h", s);
    return CUZK_OK;
}

/* A parsed value: a string (quotes removed), a bare word, or an array. */
typedef struct value {
    bool quoted, array;
    char text[512];
} value;

static int parse_value(value *v, char *p, cuzk_err *err)
{
    memset(v, 0, sizeof *v);
    size_t n = strlen(p);
    while (n && isspace((unsigned char)p[n - 1])) p[--n] = 0;
    if (*p == '"') {
        char *q = strchr(p + 1, '"');
        if (!q || q[1]) return cuzk_errf(err, CUZK_EINVAL, "unterminated string or trailing text");
        if (strchr(p + 1, '\\')) return cuzk_errf(err, CUZK_EINVAL, "escapes are not supported");
        v->quoted = true;
        n = (size_t)(q - p - 1);
        p++;
    } else if (*p == '[') {
        if (n < 2 || p[n - 1] != ']') return cuzk_errf(err, CUZK_EINVAL, "unterminated array");
        v->array = true;
        p[n - 1] = 0;
        p++, n -= 2;
    }
    if (n >= sizeof v->text) return cuzk_errf(err, CUZK_EINVAL, "value longer than 511 bytes");
    memcpy(v->text, p, n);
    return CUZK_OK;
}

static int parse_u64_word(const value *v, uint64_t *out, cuzk_err *err)
{
    if (v->quoted || v->array || !*v->text || v->text[0] == '-')
        return cuzk_errf(err, CUZK_EINVAL, "expected a non-negative integer, got '%s'", v->text);
    return cuzk_parse_size(v->text, out, err)
               ? cuzk_errf(err, CUZK_EINVAL, "expected an integer, got '%s'", v->text)
               : CUZK_OK;
}

static int parse_devices(cuzk_config *c, char *list, cuzk_err *err)
{
    c->n_devices = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        while (isspace((unsigned char)*tok)) tok++;
        char *end;
        long d = strtol(tok, &end, 10);
        while (isspace((unsigned char)*end)) end++;
        if (end == tok || *end || d < 0 || d > 255)
            return cuzk_errf(err, CUZK_EINVAL, "device ordinal '%s' is not 0..255", tok);
        if (c->n_devices == CONFIG_MAX_DEVICES)
            return cuzk_errf(err, CUZK_EINVAL, "more than %d devices", CONFIG_MAX_DEVICES);
        c->devices[c->n_devices++] = (int)d;
    }
    return CUZK_OK;
}

static char *trim(char *s);

/* An id list's count, stored right after its array. */
_Static_assert(offsetof(cuzk_config, n_preload) ==
                   offsetof(cuzk_config, preload) + sizeof(((cuzk_config *)0)->preload),
               "n_preload follows preload");
_Static_assert(offsetof(cuzk_config, n_pinned) ==
                   offsetof(cuzk_config, pinned) + sizeof(((cuzk_config *)0)->pinned),
               "n_pinned follows pinned");
static size_t *ids_count(const void *ids)
{
    return (size_t *)((const char *)ids + sizeof(((cuzk_config *)0)->preload));
}

/* A list of "circuit-id" strings (no quotes, commas or spaces inside) into
 * ids (srs.preload's or srs.pinned's array). */
static int parse_ids(char (*ids)[CONFIG_ID_MAX], char *list, cuzk_err *err)
{
    size_t *n_ids = ids_count(ids);
    *n_ids = 0;
    if (!*trim(list)) return CUZK_OK;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        tok = trim(tok);
        size_t n = strlen(tok);
        if (n < 3 || tok[0] != '"' || tok[n - 1] != '"' || strpbrk(tok + 1, " \t") ||
            memchr(tok + 1, '"', n - 2))
            return cuzk_errf(err, CUZK_EINVAL, "expected [\"circuit-id\", ...], got '%s'", tok);
        if (n - 2 >= CONFIG_ID_MAX)
            return cuzk_errf(err, CUZK_EINVAL, "circuit id %s longer than %d bytes", tok,
                             CONFIG_ID_MAX - 1);
        if (*n_ids == CONFIG_MAX_PRELOAD)
            return cuzk_errf(err, CUZK_EINVAL, "more than %d circuit ids", CONFIG_MAX_PRELOAD);
        memcpy(ids[*n_ids], tok + 1, n - 2);
        ids[(*n_ids)++][n - 2] = 0;
    }
    return CUZK_OK;
}

static int assign(cuzk_config *c, const key_def *k, value *v, cuzk_err *err)
{
    void *dst = (char *)c + k->offset;
    uint64_t u;
    switch (k->type) {
    case T_STR:
        if (!v->quoted) return cuzk_errf(err, CUZK_EINVAL, "expected a \"string\"");
        if (strlen(v->text) >= k->size) return cuzk_errf(err, CUZK_EINVAL, "string too long");
        strcpy(dst, v->text);
        return CUZK_OK;
    case T_BOOL:
        if (v->quoted || (strcmp(v->text, "true") && strcmp(v->text, "false")))
            return cuzk_errf(err, CUZK_EINVAL, "expected true or false, got '%s'", v->text);
        *(bool *)dst = !strcmp(v->text, "true");
        return CUZK_OK;
    case T_U32:
        if (parse_u64_word(v, &u, err)) return err ? err->code : CUZK_EINVAL;
        if (u > UINT32_MAX) return cuzk_errf(err, CUZK_EINVAL, "value %s too big", v->text);
        *(uint32_t *)dst = (uint32_t)u;
        return CUZK_OK;
    case T_U64:
        return parse_u64_word(v, dst, err);
    case T_BUDGET:
        if (v->quoted && !strcmp(v->text, "auto")) return *(uint64_t *)dst = 0, CUZK_OK;
        __attribute__((fallthrough)); /* "auto" aside, a size */
    case T_SIZE:
        if (v->array) return cuzk_errf(err, CUZK_EINVAL, "expected a size");
        return cuzk_parse_size(v->text, dst, err);
    case T_SECONDS:
        if (v->array) return cuzk_errf(err, CUZK_EINVAL, "expected a duration");
        return parse_seconds(v->text, dst, err);
    case T_DEVICES:
        if (!v->array) return cuzk_errf(err, CUZK_EINVAL, "expected an array [0, 1]");
        return parse_devices(c, v->text, err);
    case T_IDS:
        if (!v->array) return cuzk_errf(err, CUZK_EINVAL, "expected an array [\"porep-32g\"]");
        return parse_ids(dst, v->text, err);
    }
    return cuzk_errf(err, CUZK_EINVAL, "internal: key type %d", k->type);
}

static const key_def *find_key(const char *table, const char *key)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(keys[i].table, table) && !strcmp(keys[i].key, key)) return &keys[i];
    return NULL;
}

static bool known_table(const char *table)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(keys[i].table, table)) return true;
    return false;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

/* Cuts a # comment that is not inside a string. */
static void strip_comment(char *s)
{
    bool in_str = false;
    for (; *s; s++) {
        if (*s == '"') in_str = !in_str;
        if (*s == '#' && !in_str) {
            *s = 0;
            return;
        }
    }
}

static int parse_line(cuzk_config *c, char *line, char table[64], cuzk_err *err)
{
    strip_comment(line);
    char *s = trim(line);
    if (!*s) return CUZK_OK;
    if (*s == '[') {
        size_t n = strlen(s);
        if (s[n - 1] != ']' || n - 2 >= 64) return cuzk_errf(err, CUZK_EINVAL, "bad table header");
        s[n - 1] = 0;
        snprintf(table, 64, "%s", trim(s + 1));
        if (!known_table(table)) return cuzk_errf(err, CUZK_EINVAL, "unknown table [%s]", table);
        return CUZK_OK;
    }
    char *eq = strchr(s, '=');
    if (!eq) return cuzk_errf(err, CUZK_EINVAL, "expected key = value");
    *eq = 0;
    const char *key = trim(s);
    const key_def *k = find_key(table, key);
    if (!k) return cuzk_errf(err, CUZK_EINVAL, "unknown key '%s' in [%s]", key, table);
    value v;
    if (parse_value(&v, trim(eq + 1), err)) return err ? err->code : CUZK_EINVAL;
    if (assign(c, k, &v, err)) return cuzk_err_prefix(err, "%s.%s: ", table, key);
    return CUZK_OK;
}

int cuzk_config_parse(cuzk_config *c, const char *text, const char *name, cuzk_err *err)
{
    char table[64] = "", line[1024];
    size_t lineno = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        if (n >= sizeof line)
            return cuzk_errf(err, CUZK_EINVAL, "%s:%zu: line too long", name, lineno);
        memcpy(line, p, n);
        line[n] = 0;
        if (parse_line(c, line, table, err)) return cuzk_err_prefix(err, "%s:%zu: ", name, lineno);
        p += n + (nl != NULL);
    }
    return CUZK_OK;
}

int cuzk_config_load(cuzk_config *c, const char *path, cuzk_err *err)
{
    uint8_t *data;
    size_t len;
    if (cuzk_read_file(path, &data, &len, 1 << 20, err)) return err ? err->code : CUZK_EIO;
    int rc = memchr(data, 0, len) ? cuzk_errf(err, CUZK_EINVAL, "%s: NUL byte in text", path)
                                  : cuzk_config_parse(c, (const char *)data, path, err);
    free(data);
    return rc;
}

static void print_value(FILE *out, const cuzk_config *c, const key_def *k)
{
    const void *src = (const char *)c + k->offset;
    switch (k->type) {
    case T_STR:
        fprintf(out, "\"%s\"", (const char *)src);
        break;
    case T_BOOL:
        fprintf(out, "%s", *(const bool *)src ? "true" : "false");
        break;
    case T_U32:
        fprintf(out, "%u", *(const uint32_t *)src);
        break;
    case T_U64:
        fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)src);
        break;
    case T_BUDGET:
        if (!*(const uint64_t *)src) {
            fprintf(out, "\"auto\"");
            break;
        }
        __attribute__((fallthrough));
    case T_SIZE:
        fprintf(out, "\"%lluMiB\"", (unsigned long long)(*(const uint64_t *)src >> 20));
        break;
    case T_SECONDS:
        fprintf(out, "\"%llus\"", (unsigned long long)*(const uint64_t *)src);
        break;
    case T_DEVICES:
        fprintf(out, "[");
        for (size_t i = 0; i < c->n_devices; i++)
            fprintf(out, "%s%d", i ? ", " : "", c->devices[i]);
        fprintf(out, "]");
        break;
    case T_IDS:
        fprintf(out, "[");
        for (size_t i = 0; i < *ids_count(src); i++)
            fprintf(out, "%s\"%s\"", i ? ", " : "", ((const char(*)[CONFIG_ID_MAX])src)[i]);
        fprintf(out, "]");
        break;
    }
}

void cuzk_config_print_default(FILE *out)
{
    cuzk_config c;
    cuzk_config_default(&c);
    fprintf(out, "# cuzk-daemon configuration (defaults)\n");
    const char *table = "";
    for (size_t i = 0; i < N_KEYS; i++) {
        if (strcmp(table, keys[i].table)) fprintf(out, "\n[%s]\n", table = keys[i].table);
        fprintf(out, "%s = ", keys[i].key);
        print_value(out, &c, &keys[i]);
        fprintf(out, "  # %s\n", keys[i].comment);
    }
}

uint64_t cuzk_config_budget(const cuzk_config *c)
{
    if (c->total_budget) return c->total_budget;
    uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGE_SIZE);
    /* Keep at least 1/8 of the memory usable when the margin exceeds it. */
    return phys > c->safety_margin + phys / 8 ? phys - c->safety_margin : phys / 8;
}
