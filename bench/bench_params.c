/*
 * bench_params.c - reading a .params file: points per second decoded by
 * groth16_params_read in checked mode (curve and subgroup checks) and
 * unchecked mode, over all threads, on a file of 2^16 G1 points in L and
 * 2^12 G2 points in B_G2 (2^12 and 2^8 with --quick). The file is written
 * once to /tmp with groth16_params_write (whose throughput is reported
 * too) and comes from the page cache, so the figures are decode speed,
 * not disk speed.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/params.h"

/* n distinct points P, P + G, P + 2G, ... (cheap to make in bulk). */
#define MAKE_POINTS(G, T)                                                                          \
    static T##_affine_t *G##_points(size_t n)                                                      \
    {                                                                                              \
        T##_jac_t *j = malloc(n * sizeof(*j));                                                     \
        T##_affine_t *a = malloc(n * sizeof(*a));                                                  \
        T##_jac_from_affine(&j[0], &G##_GENERATOR);                                                \
        for (size_t i = 1; i < n; i++) T##_jac_add_affine(&j[i], &j[i - 1], &G##_GENERATOR);       \
        T##_jac_batch_to_affine(a, j, n);                                                          \
        free(j);                                                                                   \
        return a;                                                                                  \
    }
MAKE_POINTS(g1, g1)
MAKE_POINTS(g2, g2)

static void make_params(groth16_params *p, size_t n1, size_t n2)
{
    memset(p, 0, sizeof(*p));
    p->vk.alpha_g1 = p->vk.beta_g1 = p->vk.delta_g1 = g1_GENERATOR;
    p->vk.beta_g2 = p->vk.gamma_g2 = p->vk.delta_g2 = g2_GENERATOR;
    p->vk.n_ic = 1;
    p->vk.ic = g1_points(1);
    p->n_l = n1;
    p->l = g1_points(n1);
    p->n_b_g2 = n2;
    p->b_g2 = g2_points(n2);
}

static double read_seconds(const char *path, int mode)
{
    groth16_params q;
    cuzk_err e;
    double t0 = bench_now();
    if (groth16_params_read(&q, path, mode, &e)) {
        fprintf(stderr, "bench_params: %s\n", e.msg);
        abort();
    }
    double t = bench_now() - t0;
    groth16_params_free(&q);
    return t;
}

BENCH(65, params_read)
{
    size_t n1 = ctx->quick ? 1 << 12 : 1 << 16, n2 = ctx->quick ? 1 << 8 : 1 << 12;
    char path[64];
    snprintf(path, sizeof(path), "/tmp/cuzk-bench-%d.params", (int)getpid());
    groth16_params p;
    make_params(&p, n1, n2);
    cuzk_err e;
    double t0 = bench_now();
    if (groth16_params_write(path, &p, &e)) {
        fprintf(stderr, "bench_params: %s\n", e.msg);
        abort();
    }
    double mib = (double)groth16_params_encoded_size(&p) / (1 << 20);
    bench_report("params write", mib / (bench_now() - t0), "MiB/s", 0, NULL, "");
    double points = (double)(n1 + n2 + 1), unchecked = 1e30, checked = 1e30;
    for (int rep = 0; rep < 2; rep++) { /* the first read also warms the page cache */
        double t = read_seconds(path, PARAMS_UNCHECKED);
        unchecked = t < unchecked ? t : unchecked;
        t = read_seconds(path, PARAMS_CHECKED);
        checked = t < checked ? t : checked;
    }
    bench_report("params read unchecked", mib / unchecked, "MiB/s", 0, NULL, "");
    bench_report("params read checked", points / checked / 1e3, "kpt/s", 0, NULL, "");
    unlink(path);
    groth16_params_free(&p);
}
