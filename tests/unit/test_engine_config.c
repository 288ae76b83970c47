/*
 * test_engine_config.c - the daemon config (include/cuzk/config.h): sizes,
 * every key of reference/cuzk-api.md, strictness (unknown keys, wrong
 * types, line numbers in errors), and the printed default file parsing
 * back to the defaults.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/config.h"
#include "cuzk/engine.h"
#include "cuzk/gpu_lane.h" /* GPU_LANE_PAUSE_MS */
#include "testutil.h"

static void test_sizes(void **state)
{
    (void)state;
    struct {
        const char *text;
        uint64_t bytes;
    } ok[] = {
        {"14GiB", 14ull << 30}, {"512 MiB", 512ull << 20}, {"2KiB", 2048}, {"4096", 4096},
        {"1GB", 1000000000ull}, {"3TiB", 3ull << 40},      {"7B", 7},      {"1_000", 1000},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t v = 0;
        assert_int_equal(cuzk_parse_size(ok[i].text, &v, NULL), 0);
        assert_int_equal(v, ok[i].bytes);
    }
    const char *bad[] = {"", "GiB", "12XB", "-1", "99999999999999999999", "20000000TiB", "1.5GiB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v;
        cuzk_err err;
        assert_int_equal(cuzk_parse_size(bad[i], &v, &err), CUZK_EINVAL);
        assert_non_null(strstr(err.msg, "size"));
    }
}

static const char full[] = "# every key\n"
                           "[daemon]\n"
                           "listen = \"unix:///run/cuzk.sock\"  # a comment\n"
                           "status_listen = \"0.0.0.0:9821\"\n"
                           "shutdown_grace = \"2m\"\n"
                           "[srs]\n"
                           "param_cache = \"/data/params # not a comment\"\n"
                           "preload = [\"porep-32g\", \"wpost-32g\" ]\n"
                           "pinned = [\"winning-32g\"]\n"
                           "swap_after = \"3m\"\n"
                           "keep_rank = 7\n"
                           "[memory]\n"
                           "total_budget = \"200GiB\"\n"
                           "safety_margin = \"8GiB\"\n"
                           "eviction_min_idle = 45\n"
                           "reuse_partitions = false\n"
                           "[gpus]\n"
                           "devices = [0, 2]\n"
                           "gpu_threads = 8\n"
                           "gpu_workers_per_device = 3\n"
                           "stream_chunk_log = 19\n"
                           "witness_kept = \"tight\"\n"
                           "small_lane_pause_ms = 40\n"
                           "[scheduler]\n"
                           "max_batch_size = 2\n"
                           "max_batch_wait_ms = 1_500\n"
                           "result_ttl = \"500ms\"\n"
                           "[synthesis]\n"
                           "threads = 40\n"
                           "[pipeline]\n"
                           "enabled = false\n"
                           "synthesis_concurrency = 4\n"
                           "max_parallel_synthesis = 3\n"
                           "max_gpu_queue_depth = 5\n"
                           "[logging]\n"
                           "level = \"debug\"\n";

static void test_every_key(void **state)
{
    (void)state;
    cuzk_config c;
    cuzk_err err;
    cuzk_config_default(&c);
    assert_int_equal(cuzk_config_parse(&c, full, "full.toml", &err), 0);
    assert_string_equal(c.listen, "unix:///run/cuzk.sock");
    assert_string_equal(c.status_listen, "0.0.0.0:9821");
    assert_int_equal(c.shutdown_grace_s, 120);
    assert_string_equal(c.param_cache, "/data/params # not a comment");
    assert_int_equal(c.n_preload, 2);
    assert_string_equal(c.preload[0], "porep-32g");
    assert_string_equal(c.preload[1], "wpost-32g");
    assert_int_equal(c.n_pinned, 1);
    assert_string_equal(c.pinned[0], "winning-32g");
    assert_int_equal(c.srs_swap_after_s, 180);
    assert_int_equal(c.srs_keep_rank_s, 7);
    assert_int_equal(c.total_budget, 200ull << 30);
    assert_int_equal(cuzk_config_budget(&c), 200ull << 30);
    assert_int_equal(c.safety_margin, 8ull << 30);
    assert_int_equal(c.eviction_min_idle_s, 45);
    assert_false(c.reuse_partitions);
    assert_int_equal(c.n_devices, 2);
    assert_int_equal(c.devices[1], 2);
    assert_int_equal(c.gpu_threads, 8);
    assert_int_equal(c.gpu_workers_per_device, 3);
    assert_int_equal(c.stream_chunk_log, 19);
    assert_string_equal(c.witness_kept, "tight");
    assert_int_equal(c.small_lane_pause_ms, 40);
    assert_int_equal(c.max_batch_size, 2);
    assert_int_equal(c.max_batch_wait_ms, 1500);
    assert_int_equal(c.result_ttl_s, 1);
    assert_int_equal(c.synthesis_threads, 40);
    assert_false(c.pipeline_enabled);
    assert_int_equal(c.synthesis_concurrency, 4);
    assert_int_equal(c.max_parallel_synthesis, 3);
    assert_int_equal(c.max_gpu_queue_depth, 5);
    assert_string_equal(c.log_level, "debug");
}

static void test_strict(void **state)
{
    (void)state;
    struct {
        const char *text, *message;
    } bad[] = {
        {"[daemon]\nlisten = 5\n", "t.toml:2: daemon.listen: expected a \"string\""},
        {"[nope]\n", "t.toml:1: unknown table [nope]"},
        {"[daemon]\n\nport = 1\n", "t.toml:3: unknown key 'port' in [daemon]"},
        {"listen = \"x\"\n", "t.toml:1: unknown key 'listen' in []"},
        {"[pipeline]\nenabled = yes\n", "expected true or false"},
        {"[scheduler]\nmax_batch_size = -1\n", "non-negative integer"},
        {"[scheduler]\nmax_batch_size = 99999999999\n", "too big"},
        {"[memory]\ntotal_budget = \"lots\"\n", "memory.total_budget"},
        {"[gpus]\ndevices = [0, x]\n", "device ordinal"},
        {"[srs]\npreload = [porep-32g]\n",
         "srs.preload: expected [\"circuit-id\", ...], got 'porep-32g'"},
        {"[srs]\npreload = \"porep-32g\"\n", "expected an array"},
        {"[srs]\npreload = [\"a b\"]\n", "got '\"a b\"'"},
        {"[daemon]\nlisten = \"open\n", "unterminated"},
        {"[daemon]\nlisten\n", "expected key = value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuzk_config c;
        cuzk_err err = {0};
        cuzk_config_default(&c);
        assert_int_equal(cuzk_config_parse(&c, bad[i].text, "t.toml", &err), CUZK_EINVAL);
        if (!strstr(err.msg, bad[i].message)) fail_msg("case %zu: '%s'", i, err.msg);
    }
}

/* gpus.stream_chunk_log outside 0, 10 .. 27: the engine refuses to start,
 * naming the key and the range. */
static void test_stream_chunk_log_range(void **state)
{
    (void)state;
    const uint32_t bad[] = {1, 9, 28, 64};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cuzk_config c;
        cuzk_config_default(&c);
        c.stream_chunk_log = bad[i];
        engine_t *e = (engine_t *)&c;
        cuzk_err err = {0};
        assert_int_equal(engine_create(&e, &c, NULL, &err), CUZK_EINVAL);
        assert_null(e);
        char want[64];
        snprintf(want, sizeof want, "gpus.stream_chunk_log = %u: 0 (the default) or 10 .. 27",
                 bad[i]);
        if (!strstr(err.msg, want)) fail_msg("%u: '%s'", bad[i], err.msg);
    }
}

/* gpus.witness_kept other than tight, first, off: refused at start, naming
 * the key, the value and the choices. */
static void test_witness_kept_values(void **state)
{
    (void)state;
    const char *bad[] = {"", "on", "TIGHT", "first "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cuzk_config c;
        cuzk_config_default(&c);
        assert_string_equal(c.witness_kept, "first");
        assert_int_equal(c.small_lane_pause_ms, GPU_LANE_PAUSE_MS);
        snprintf(c.witness_kept, sizeof c.witness_kept, "%s", bad[i]);
        engine_t *e = (engine_t *)&c;
        cuzk_err err = {0};
        assert_int_equal(engine_create(&e, &c, NULL, &err), CUZK_EINVAL);
        assert_null(e);
        char want[80];
        snprintf(want, sizeof want, "gpus.witness_kept = \"%s\": tight, first or off", bad[i]);
        if (!strstr(err.msg, want)) fail_msg("'%s': '%s'", bad[i], err.msg);
    }
}

static void test_default_round_trip(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cuzk_config_print_default(f);
    fclose(f);
    cuzk_config want, got;
    cuzk_config_default(&want);
    memset(&got, 0x5a, sizeof got);
    cuzk_config_default(&got);
    got.max_batch_size = 77; /* must be set back by the file */
    cuzk_err err;
    assert_int_equal(cuzk_config_parse(&got, text, "default", &err), 0);
    assert_memory_equal(&got, &want, sizeof want);
    assert_non_null(strstr(text, "total_budget = \"auto\""));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_every_key),
        cmocka_unit_test(test_strict),
        cmocka_unit_test(test_default_round_trip),
        cmocka_unit_test(test_stream_chunk_log_range),
        cmocka_unit_test(test_witness_kept_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
