/*
 * test_check_cache.c - the digest cache of checked parameter files: where it
 * lives (XDG_CACHE_HOME, HOME), the SHA-256 against a known vector, and
 * PARAMS_CACHED reads of .params images whose L section may hold a point on
 * the curve but outside the subgroup, so that whether the points were
 * checked shows in the result: a miss is checked and recorded, a hit is not
 * checked, a changed image is a miss again, --check-params (PARAMS_CHECKED)
 * ignores the cache, and an unwritable cache only costs the check.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/check_cache.h"
#include "cuzk/params.h"
#include "test_points.h"

/* One point per section, two in L; L[1] outside the subgroup when bad. */
static void make_params(groth16_params *p, cuzk_rng *g, bool bad)
{
    memset(p, 0, sizeof(*p));
    random_g1(&p->vk.alpha_g1, g), random_g1(&p->vk.beta_g1, g), random_g1(&p->vk.delta_g1, g);
    random_g2(&p->vk.beta_g2, g), random_g2(&p->vk.gamma_g2, g), random_g2(&p->vk.delta_g2, g);
    p->vk.n_ic = p->n_h = p->n_a = p->n_b_g1 = p->n_b_g2 = 1;
    p->n_l = 2;
    g1_affine_t **g1s[5] = {&p->vk.ic, &p->h, &p->l, &p->a, &p->b_g1};
    for (int s = 0; s < 5; s++) {
        *g1s[s] = malloc(2 * sizeof(g1_affine_t));
        random_g1(&(*g1s[s])[0], g), random_g1(&(*g1s[s])[1], g);
    }
    if (bad) off_subgroup_g1(&p->l[1], g);
    p->b_g2 = malloc(sizeof(g2_affine_t));
    random_g2(p->b_g2, g);
}

typedef struct fixture {
    char cache[64];   /* XDG_CACHE_HOME for the test */
    char path[96];    /* a .params file */
    char blocker[96]; /* a regular file, to stand where a directory should be */
    cuzk_rng g;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    test_rng(&f->g);
    snprintf(f->cache, sizeof f->cache, "/tmp/cuzk-test-cache-XXXXXX");
    assert_non_null(mkdtemp(f->cache));
    snprintf(f->path, sizeof f->path, "%s/x.params", f->cache);
    snprintf(f->blocker, sizeof f->blocker, "%s/blocker", f->cache);
    assert_int_equal(setenv("XDG_CACHE_HOME", f->cache, 1), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->cache);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* Writes params (bad or not) to f->path and returns the file's digest. */
static void write_params(fixture *f, bool bad, uint8_t digest[CHECK_DIGEST_BYTES])
{
    groth16_params p;
    make_params(&p, &f->g, bad);
    cuzk_err e = {0};
    if (groth16_params_write(f->path, &p, &e)) fail_msg("%s", e.msg);
    groth16_params_free(&p);
    FILE *in = fopen(f->path, "rb");
    assert_non_null(in);
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, in);
    assert_true(n > 0 && n < sizeof buf && feof(in));
    fclose(in);
    check_cache_digest(digest, buf, n);
}

static int read_params(const fixture *f, int mode, cuzk_err *e)
{
    groth16_params q;
    int rc = groth16_params_read(&q, f->path, mode, e);
    if (!rc) groth16_params_free(&q);
    return rc;
}

static void directory_from_environment(void **state)
{
    fixture *f = *state;
    char dir[256], want[256];
    cuzk_err e = {0};
    assert_int_equal(check_cache_dir(dir, sizeof dir, &e), 0);
    snprintf(want, sizeof want, "%s/cuzk/checked", f->cache);
    assert_string_equal(dir, want);
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    /* A relative XDG_CACHE_HOME is ignored, as the XDG spec says. */
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", "/home/someone", 1);
    assert_int_equal(check_cache_dir(dir, sizeof dir, &e), 0);
    assert_string_equal(dir, "/home/someone/.cache/cuzk/checked");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    assert_int_equal(check_cache_dir(dir, sizeof dir, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "XDG_CACHE_HOME"));
    uint8_t d[CHECK_DIGEST_BYTES] = {0};
    assert_false(check_cache_has("params", d));
    assert_int_equal(check_cache_add("params", d, NULL), CUZK_EINVAL);
    if (home) setenv("HOME", home, 1);
    free(home);
}

static void digest_known_vector(void **state)
{
    (void)state;
    uint8_t d[CHECK_DIGEST_BYTES], want[CHECK_DIGEST_BYTES];
    check_cache_digest(d, "abc", 3);
    test_hex(want, sizeof want, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_memory_equal(d, want, sizeof d);
}

/* A good file: the first cached read checks it and records its digest as
 * an entry named after it; the entry is what later reads find. */
static void miss_is_checked_and_recorded(void **state)
{
    fixture *f = *state;
    uint8_t d[CHECK_DIGEST_BYTES];
    write_params(f, false, d);
    assert_false(check_cache_has("params", d));
    cuzk_err e = {0};
    assert_int_equal(read_params(f, PARAMS_CACHED, &e), 0);
    assert_true(check_cache_has("params", d));
    assert_false(check_cache_has("zkey", d)); /* the format is part of the entry */
    char entry[256], hex[2 * CHECK_DIGEST_BYTES + 1];
    for (int i = 0; i < CHECK_DIGEST_BYTES; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
    snprintf(entry, sizeof entry, "%s/cuzk/checked/params-%s", f->cache, hex);
    assert_int_equal(access(entry, F_OK), 0);
}

/* A file outside the subgroup fails a miss and is not recorded; once its
 * digest is in the cache (as if it had passed), a cached read does not
 * check its points, while PARAMS_CHECKED still does. */
static void hit_skips_the_check_and_checked_mode_ignores_it(void **state)
{
    fixture *f = *state;
    uint8_t d[CHECK_DIGEST_BYTES];
    write_params(f, true, d);
    cuzk_err e = {0};
    assert_int_equal(read_params(f, PARAMS_CACHED, &e), CUZK_ENOTINSUBGROUP);
    assert_non_null(strstr(e.msg, "L point 1"));
    assert_false(check_cache_has("params", d));
    assert_int_equal(check_cache_add("params", d, &e), 0);
    assert_int_equal(read_params(f, PARAMS_CACHED, &e), 0);
    assert_int_equal(read_params(f, PARAMS_CHECKED, &e), CUZK_ENOTINSUBGROUP);
}

/* A file that passed, then changed in place: its new bytes are a miss and
 * are checked again. */
static void changed_file_is_checked_again(void **state)
{
    fixture *f = *state;
    uint8_t good[CHECK_DIGEST_BYTES], bad[CHECK_DIGEST_BYTES];
    write_params(f, false, good);
    cuzk_err e = {0};
    assert_int_equal(read_params(f, PARAMS_CACHED, &e), 0);
    assert_true(check_cache_has("params", good));
    write_params(f, true, bad);
    assert_memory_not_equal(good, bad, CHECK_DIGEST_BYTES);
    assert_int_equal(read_params(f, PARAMS_CACHED, &e), CUZK_ENOTINSUBGROUP);
    assert_false(check_cache_has("params", bad));
}

/* The cache directory cannot be made (a regular file stands in its way):
 * reads still succeed, nothing is recorded, and every read checks. */
static void unwritable_cache_only_costs_the_check(void **state)
{
    fixture *f = *state;
    FILE *b = fopen(f->blocker, "w");
    assert_non_null(b);
    fclose(b);
    setenv("XDG_CACHE_HOME", f->blocker, 1);
    uint8_t d[CHECK_DIGEST_BYTES];
    write_params(f, false, d);
    cuzk_err e = {0};
    assert_int_equal(read_params(f, PARAMS_CACHED, &e), 0);
    assert_false(check_cache_has("params", d));
    assert_int_equal(check_cache_add("params", d, &e), CUZK_EIO);
    assert_non_null(strstr(e.msg, "check cache: cannot create"));
    assert_non_null(strstr(e.msg, f->blocker));
    write_params(f, true, d);
    assert_int_equal(read_params(f, PARAMS_CACHED, &e), CUZK_ENOTINSUBGROUP);
    setenv("XDG_CACHE_HOME", f->cache, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(directory_from_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(digest_known_vector, setup, teardown),
        cmocka_unit_test_setup_teardown(miss_is_checked_and_recorded, setup, teardown),
        cmocka_unit_test_setup_teardown(hit_skips_the_check_and_checked_mode_ignores_it, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(changed_file_is_checked_again, setup, teardown),
        cmocka_unit_test_setup_teardown(unwritable_cache_only_costs_the_check, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
