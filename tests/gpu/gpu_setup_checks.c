/*
 * gpu_setup_checks.c - the development setup on the device (gpu_setup.h)
 * against the CPU: the encoded points of gpu_fixed_base_encode against
 * g1_fixed_base_mul / g2_fixed_base_mul and the serializers, byte for
 * byte, for random scalars and edge values (0, 1, 2, -1, single bytes at
 * every window, a scalar repeated), over several chunks and a short last
 * one; refused arguments; and whole .params / .vk files of
 * groth16_setup_dev_write on the CUDA backend against the CPU backend,
 * byte for byte, for domains under 2^10 (the CPU's inverse NTT) and above
 * (the device's), with chunks of a few hundred points.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/ec.h"
#include "cuzk/gpu_setup.h"
#include "cuzk/msm.h"
#include "gpu_check.h"
#include "gpu_setup_checks.h"

/* Scalars for the checks: edge values first, then random ones. */
static void scalars(fr_t *s, size_t n, cuzk_rng *g)
{
    fr_t one = FR_ONE;
    size_t k = 0;
    if (k < n) s[k++] = FR_ZERO;
    if (k < n) s[k++] = one;
    if (k < n) fr_dbl(&s[k++], &one);
    if (k < n) fr_neg(&s[k++], &one);
    for (int j = 0; j < 32 && k + 2 <= n; j++) { /* 255 and 1 at byte j */
        uint64_t limbs[4] = {0, 0, 0, 0};
        limbs[j / 8] = (uint64_t)255 << (8 * (j % 8));
        if (!fr_from_canonical(&s[k], limbs)) s[k] = one;
        k++;
        limbs[j / 8] = (uint64_t)1 << (8 * (j % 8));
        if (!fr_from_canonical(&s[k], limbs)) s[k] = one;
        k++;
    }
    for (; k < n; k++) {
        if (k % 7 == 3)
            s[k] = s[k - 1]; /* the same point twice in a row */
        else
            fr_random(&s[k], g);
    }
}

/* The CPU's encoding of scalars[i] G. */
static int cpu_points(int group, uint8_t *out, const fr_t *s, size_t n, cuzk_err *err)
{
    return groth16_setup_cpu.encode(NULL, group, out, s, n, err);
}

static void check_points(gpu_fixed_base *f, size_t cap, int group, size_t n, cuzk_rng *g)
{
    size_t bytes = group == 1 ? G1_UNCOMPRESSED_BYTES : G2_UNCOMPRESSED_BYTES;
    fr_t *s = malloc(n * sizeof *s);
    uint8_t *want = malloc(n * bytes), *got = malloc(n * bytes);
    cuzk_err err = {0};
    if (!s || !want || !got) {
        CHECK(0, "fixed base: out of host memory");
        free(s), free(want), free(got);
        return;
    }
    scalars(s, n, g);
    int rc = cpu_points(group, want, s, n, &err);
    CHECK(!rc, "fixed base G%d: cpu: %s", group, err.msg);
    memset(got, 0x5a, n * bytes);
    for (size_t lo = 0; lo < n && !rc; lo += cap) {
        size_t c = n - lo < cap ? n - lo : cap;
        rc = gpu_fixed_base_encode(f, group, got + lo * bytes, s + lo, c, &err);
        CHECK(!rc, "fixed base G%d: %s", group, err.msg);
    }
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n && !rc; i++)
        if (memcmp(want + i * bytes, got + i * bytes, bytes)) bad = i;
    CHECK(bad == n, "fixed base G%d: point %zu of %zu differs from the CPU's", group, bad, n);
    free(s), free(want), free(got);
}

static void check_fixed_base(cuzk_rng *g, int quick)
{
    const size_t cap = 1000;
    gpu_fixed_base *f;
    cuzk_err err = {0};
    if (gpu_fixed_base_new(&f, cap, &err)) {
        CHECK(0, "gpu_fixed_base_new: %s", err.msg);
        return;
    }
    size_t n = quick ? 2500 : 20000;
    check_points(f, cap, 1, n, g);
    check_points(f, cap, 2, n / 4, g);
    fr_t s[2] = {FR_ONE, FR_ONE};
    uint8_t out[2 * G2_UNCOMPRESSED_BYTES];
    CHECK(gpu_fixed_base_encode(f, 3, out, s, 1, &err) == CUZK_EINVAL, "group 3 accepted");
    CHECK(gpu_fixed_base_encode(f, 1, NULL, NULL, cap + 1, &err) == CUZK_EINVAL,
          "%zu points accepted in chunks of %zu", cap + 1, cap);
    gpu_fixed_base_free(f);
    printf("gpu setup: fixed-base G1 (%zu) and G2 (%zu) points, edge and random scalars, in "
           "chunks of %zu: the CPU's bytes\n",
           n, n / 4, cap);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len ? *len : 1);
    if (b && fread(b, 1, *len, f) != *len) free(b), b = NULL;
    fclose(f);
    return b;
}

static bool same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    uint8_t *x = slurp(a, &la), *y = slurp(b, &lb);
    bool same = x && y && la == lb && !memcmp(x, y, la);
    free(x), free(y);
    return same;
}

/* The synthetic circuit's files on both backends. */
static void check_files(size_t constraints, uint64_t seed)
{
    char dir[] = "/tmp/cuzk_gpu_setup_XXXXXX", p[2][256], v[2][256];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp failed");
        return;
    }
    cs_synthetic syn = {constraints, seed};
    groth16_setup_backend be[2] = {groth16_setup_cpu};
    cuzk_err err = {0};
    int rc = gpu_setup_backend(&be[1], 300, &err);
    CHECK(!rc, "gpu_setup_backend: %s", err.msg);
    for (int k = 0; k < 2 && !rc; k++) {
        snprintf(p[k], sizeof p[k], "%s/%s.params", dir, be[k].name);
        snprintf(v[k], sizeof v[k], "%s/%s.vk", dir, be[k].name);
        rc = groth16_setup_dev_write(p[k], v[k], cs_synthetic_circuit(&syn), seed, &be[k], NULL,
                                     &err);
        CHECK(!rc, "setup %zu on %s: %s", constraints, be[k].name, err.msg);
    }
    if (!rc) {
        CHECK(same_file(p[0], p[1]), "setup %zu: the .params files differ", constraints);
        CHECK(same_file(v[0], v[1]), "setup %zu: the .vk files differ", constraints);
    }
    if (be[1].ctx) gpu_setup_backend_free(&be[1]);
    for (int k = 0; k < 2; k++) unlink(p[k]), unlink(v[k]);
    rmdir(dir);
}

int gpu_setup_checks(cuzk_rng *g, int quick)
{
    check_fixed_base(g, quick);
    check_files(400, cuzk_rng_u64(g));  /* 2^9: the CPU's inverse NTT */
    check_files(3000, cuzk_rng_u64(g)); /* 2^12: the device's */
    if (!quick) check_files(70000, cuzk_rng_u64(g));
    printf("gpu setup: .params and .vk of synthetic circuits (2^9, 2^12%s) on the CUDA backend "
           "equal the CPU's\n",
           quick ? "" : ", 2^17");
    return failures;
}
