/*
 * test_engine_backend.c - the engine's choice of prover backend
 * (engine_backend_choose, gpus.backend): "cpu" is the CPU prover; "auto"
 * is CUDA exactly when the build has it and a GPU is usable, else the CPU
 * prover; "cuda" without a usable GPU and an unknown name are errors that
 * say why; the key parses from TOML, and an engine created with a bad
 * name fails with that message.
 */
#include <stdbool.h>
#include <string.h>

#include "cuzk/config.h"
#include "cuzk/engine.h"
#include "cuzk/engine_backend.h"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu.h"
#endif
#include "testutil.h"

static bool gpu_usable(void)
{
#ifdef CUZK_HAVE_CUDA
    return gpu_available(NULL);
#else
    return false;
#endif
}

static void test_choose(void **state)
{
    (void)state;
    cuzk_config c;
    cuzk_err err = {0};
    cuzk_config_default(&c);
    assert_string_equal(c.backend, "auto");
    const engine_backend *b = engine_backend_choose(&c, &err);
    assert_non_null(b);
    assert_string_equal(b->name, gpu_usable() ? "cuda" : "cpu");
    strcpy(c.backend, "cpu");
    assert_ptr_equal(engine_backend_choose(&c, &err), &engine_cpu_backend);
    strcpy(c.backend, "cuda");
    b = engine_backend_choose(&c, &err);
    if (gpu_usable()) {
        assert_non_null(b);
        assert_string_equal(b->name, "cuda");
    } else {
        assert_null(b);
        assert_int_equal(err.code, CUZK_EDEVICE);
        assert_non_null(strstr(err.msg, "gpus.backend"));
    }
    strcpy(c.backend, "opencl");
    assert_null(engine_backend_choose(&c, &err));
    assert_int_equal(err.code, CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "opencl"));
}

static void test_config_and_engine(void **state)
{
    (void)state;
    cuzk_config c;
    cuzk_err err = {0};
    cuzk_config_default(&c);
    assert_int_equal(cuzk_config_parse(&c, "[gpus]\nbackend = \"cpu\"\n", "t.toml", &err), 0);
    assert_string_equal(c.backend, "cpu");
    assert_int_not_equal(cuzk_config_parse(&c, "[gpus]\nbackend = 3\n", "t.toml", &err), 0);
    strcpy(c.backend, "tpu");
    engine_t *e = (engine_t *)&c; /* must come back NULL */
    assert_int_equal(engine_create(&e, &c, NULL, &err), CUZK_EINVAL);
    assert_null(e);
    assert_non_null(strstr(err.msg, "tpu"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choose),
        cmocka_unit_test(test_config_and_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
