/*
 * test_params.c - .params and .vk files: write / read round trips in both
 * modes (through files and from memory), the exact byte size, every
 * truncation of a small file, and in every section a point that is off the
 * curve, outside the subgroup, at infinity, non-canonical or badly flagged,
 * each with its specific code and a message naming file, section, point
 * and byte offset; plus trailing bytes, absurd counts and write failures.
 */
#include "testutil.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/params.h"
#include "test_points.h"
#include "groth16/params_internal.h"

/* Section sizes of the test parameters: IC, H, L, A, B_G1, B_G2. */
static const size_t COUNTS[PARAMS_SECTIONS] = {3, 7, 5, 4, 3, 3};

/* The same on E2: x^3 + 4(u + 1). */
static void off_subgroup_g2(g2_affine_t *r, cuzk_rng *g)
{
    fp2_t rhs, b;
    fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    do {
        fp2_random(&r->x, g);
        fp2_sqr(&rhs, &r->x);
        fp2_mul(&rhs, &rhs, &r->x);
        fp2_add(&rhs, &rhs, &b);
    } while (!fp2_sqrt(&r->y, &rhs));
    assert_true(g2_affine_on_curve(r) && !g2_affine_in_subgroup(r));
}

static void make_params(groth16_params *p, cuzk_rng *g)
{
    memset(p, 0, sizeof(*p));
    random_g1(&p->vk.alpha_g1, g), random_g1(&p->vk.beta_g1, g), random_g1(&p->vk.delta_g1, g);
    random_g2(&p->vk.beta_g2, g), random_g2(&p->vk.gamma_g2, g), random_g2(&p->vk.delta_g2, g);
    p->vk.n_ic = COUNTS[PARAMS_IC];
    p->n_h = COUNTS[PARAMS_H], p->n_l = COUNTS[PARAMS_L], p->n_a = COUNTS[PARAMS_A];
    p->n_b_g1 = COUNTS[PARAMS_B_G1], p->n_b_g2 = COUNTS[PARAMS_B_G2];
    g1_affine_t **g1s[5] = {&p->vk.ic, &p->h, &p->l, &p->a, &p->b_g1};
    for (int s = 0; s < 5; s++) {
        *g1s[s] = malloc(COUNTS[s] * sizeof(g1_affine_t));
        for (size_t i = 0; i < COUNTS[s]; i++) random_g1(&(*g1s[s])[i], g);
    }
    p->b_g2 = malloc(p->n_b_g2 * sizeof(g2_affine_t));
    for (size_t i = 0; i < p->n_b_g2; i++) random_g2(&p->b_g2[i], g);
}

static void assert_same_vk(const groth16_vk *x, const groth16_vk *y)
{
    assert_true(g1_affine_eq(&x->alpha_g1, &y->alpha_g1) && g1_affine_eq(&x->beta_g1, &y->beta_g1));
    assert_true(g1_affine_eq(&x->delta_g1, &y->delta_g1));
    assert_true(g2_affine_eq(&x->beta_g2, &y->beta_g2) && g2_affine_eq(&x->gamma_g2, &y->gamma_g2));
    assert_true(g2_affine_eq(&x->delta_g2, &y->delta_g2));
    assert_int_equal(x->n_ic, y->n_ic);
    for (size_t i = 0; i < x->n_ic; i++) assert_true(g1_affine_eq(&x->ic[i], &y->ic[i]));
}

static void assert_same_params(const groth16_params *x, const groth16_params *y)
{
    assert_same_vk(&x->vk, &y->vk);
    assert_int_equal(y->h_basis, GROTH16_H_MONOMIAL);
    const g1_affine_t *xs[4] = {x->h, x->l, x->a, x->b_g1}, *ys[4] = {y->h, y->l, y->a, y->b_g1};
    size_t nx[4] = {x->n_h, x->n_l, x->n_a, x->n_b_g1}, ny[4] = {y->n_h, y->n_l, y->n_a, y->n_b_g1};
    for (int s = 0; s < 4; s++) {
        assert_int_equal(nx[s], ny[s]);
        for (size_t i = 0; i < nx[s]; i++) assert_true(g1_affine_eq(&xs[s][i], &ys[s][i]));
    }
    assert_int_equal(x->n_b_g2, y->n_b_g2);
    for (size_t i = 0; i < x->n_b_g2; i++) assert_true(g2_affine_eq(&x->b_g2[i], &y->b_g2[i]));
}

/* A fresh temporary path (the file itself is removed). */
static void temp_path(char *path, size_t n)
{
    snprintf(path, n, "/tmp/cuzk-test-params-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(*len);
    assert_int_equal(fread(d, 1, *len, f), *len);
    fclose(f);
    return d;
}

/* Fixture: random parameters and their file image. */
typedef struct fixture {
    groth16_params p;
    char path[64];
    uint8_t *image;
    size_t len;
    cuzk_rng g;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    test_rng(&f->g);
    make_params(&f->p, &f->g);
    temp_path(f->path, sizeof(f->path));
    cuzk_err e = {0};
    if (groth16_params_write(f->path, &f->p, &e)) fail_msg("%s", e.msg);
    f->image = slurp(f->path, &f->len);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    unlink(f->path);
    groth16_params_free(&f->p);
    free(f->image);
    free(f);
    return 0;
}

static void round_trip(void **state)
{
    fixture *f = *state;
    assert_int_equal(f->len, groth16_params_encoded_size(&f->p));
    assert_int_equal(f->len, 864 + 6 * 4 + (3 + 7 + 5 + 4 + 3) * 96 + 3 * 192);
    for (int mode = PARAMS_CHECKED; mode <= PARAMS_UNCHECKED; mode++) {
        groth16_params q;
        cuzk_err e = {0};
        if (groth16_params_read(&q, f->path, mode, &e)) fail_msg("%s", e.msg);
        assert_same_params(&f->p, &q);
        groth16_params_free(&q);
        assert_int_equal(groth16_params_decode(&q, f->image, f->len, "mem", mode, NULL), 0);
        assert_same_params(&f->p, &q);
        groth16_params_free(&q);
    }
    params_layout lay;
    assert_int_equal(params_scan(&lay, f->image, f->len, PARAMS_SECTIONS, "x", NULL), 0);
    assert_int_equal(lay.size, f->len);
    for (int s = 0; s < PARAMS_SECTIONS; s++) assert_int_equal(lay.count[s], COUNTS[s]);
    assert_int_equal(lay.offset[PARAMS_IC], 868);
    assert_int_equal(lay.offset[PARAMS_H], 868 + 3 * 96 + 4);
}

static void vk_files(void **state)
{
    fixture *f = *state;
    char path[64];
    temp_path(path, sizeof(path));
    groth16_vk vk, from_params;
    cuzk_err e = {0};
    assert_int_equal(groth16_vk_write(path, &f->p.vk, &e), 0);
    assert_int_equal(groth16_vk_read(&vk, path, PARAMS_CHECKED, &e), 0);
    assert_same_vk(&f->p.vk, &vk);
    assert_int_equal(groth16_vk_read_from_params(&from_params, f->path, PARAMS_CHECKED, &e), 0);
    assert_same_vk(&vk, &from_params);
    size_t len;
    uint8_t *image = slurp(path, &len);
    assert_int_equal(len, 864 + 4 + 3 * 96);
    assert_memory_equal(image, f->image, len); /* a .vk is the head of the .params */
    free(image);
    groth16_vk_free(&vk), groth16_vk_free(&from_params);
    assert_int_equal(groth16_vk_decode(&vk, f->image, f->len, "x.vk", PARAMS_CHECKED, &e),
                     CUZK_ELENGTH);
    assert_non_null(strstr(e.msg, "x.vk: "));
    assert_non_null(strstr(e.msg, "trailing bytes after the IC section (byte 1156)"));
    unlink(path);
}

static void every_truncation(void **state)
{
    fixture *f = *state;
    for (size_t cut = 0; cut < f->len; cut++) {
        groth16_params q;
        assert_int_equal(groth16_params_decode(&q, f->image, cut, "t", PARAMS_UNCHECKED, NULL),
                         CUZK_ELENGTH);
        assert_null(q.h);
    }
    cuzk_err e = {0};
    groth16_params q;
    groth16_params_decode(&q, f->image, 100, "x.params", PARAMS_CHECKED, &e);
    assert_string_equal(e.msg,
                        "x.params: truncated in the verifying key: 100 bytes, its six points need "
                        "864");
    params_layout lay;
    params_scan(&lay, f->image, f->len, PARAMS_SECTIONS, "x", NULL);
    groth16_params_decode(&q, f->image, lay.offset[PARAMS_H] - 2, "x.params", PARAMS_CHECKED, &e);
    assert_non_null(strstr(e.msg, "truncated at the H count"));
    groth16_params_decode(&q, f->image, lay.offset[PARAMS_L] + 150, "x.params", PARAMS_CHECKED, &e);
    assert_non_null(strstr(e.msg, "truncated in the L section: 5 points need 480 bytes"));
    groth16_params_decode(&q, f->image, f->len - 1, "x.params", PARAMS_CHECKED, &e);
    assert_non_null(strstr(e.msg, "truncated in the B_G2 section"));
}

static void trailing_and_absurd_counts(void **state)
{
    fixture *f = *state;
    uint8_t *big = calloc(1, f->len + 7);
    memcpy(big, f->image, f->len);
    cuzk_err e = {0};
    groth16_params q;
    assert_int_equal(groth16_params_decode(&q, big, f->len + 7, "x.params", PARAMS_CHECKED, &e),
                     CUZK_ELENGTH);
    assert_non_null(strstr(e.msg, "7 trailing bytes after the B_G2 section"));
    params_layout lay;
    params_scan(&lay, f->image, f->len, PARAMS_SECTIONS, "x", NULL);
    memset(big + lay.offset[PARAMS_A] - 4, 0xff, 4); /* A count 2^32 - 1 */
    assert_int_equal(groth16_params_decode(&q, big, f->len, "x.params", PARAMS_CHECKED, &e),
                     CUZK_ELENGTH);
    assert_non_null(strstr(e.msg, "truncated in the A section: 4294967295 points"));
    free(big);
}

enum corruption { OFF_CURVE, OFF_SUBGROUP, IDENTITY, NONCANONICAL, FLAGS, CORRUPTIONS };

/* Damages the point at image[off] (G2 when g2) in the given way. */
static void corrupt(uint8_t *image, size_t off, bool g2, int how, cuzk_rng *g)
{
    size_t bytes = g2 ? G2_UNCOMPRESSED_BYTES : G1_UNCOMPRESSED_BYTES;
    uint8_t p[48];
    if (how == OFF_CURVE) image[off + bytes - 1] ^= 1; /* y +- 1 */
    if (how == OFF_SUBGROUP && !g2) {
        g1_affine_t q;
        off_subgroup_g1(&q, g);
        g1_affine_serialize(image + off, &q);
    }
    if (how == OFF_SUBGROUP && g2) {
        g2_affine_t q;
        off_subgroup_g2(&q, g);
        g2_affine_serialize(image + off, &q);
    }
    if (how == IDENTITY) memset(image + off, 0, bytes), image[off] = 0x40;
    if (how == NONCANONICAL) {
        test_hex(p, sizeof(p),
                 "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffff"
                 "b9feffffffffaaab");
        memcpy(image + off, p, 48); /* the first coordinate := p */
    }
    if (how == FLAGS) image[off] |= 0x80;
}

static const int CHECKED_CODE[CORRUPTIONS] = {CUZK_ENOTONCURVE, CUZK_ENOTINSUBGROUP, CUZK_EIDENTITY,
                                              CUZK_ENONCANONICAL, CUZK_EFLAGS};
/* Unchecked reads trust curve and subgroup membership. */
static const int UNCHECKED_CODE[CORRUPTIONS] = {0, 0, CUZK_EIDENTITY, CUZK_ENONCANONICAL,
                                                CUZK_EFLAGS};

/* What the message says for each corruption (checked mode wording). */
static const char *const PHRASE[CORRUPTIONS] = {
    "is not on the curve", "is not in the prime-order subgroup", "is the point at infinity",
    "has a coordinate that is not below p", "has inconsistent flag bits"};

static void corrupted_points_in_every_section(void **state)
{
    fixture *f = *state;
    params_layout lay;
    params_scan(&lay, f->image, f->len, PARAMS_SECTIONS, "x", NULL);
    uint8_t *img = malloc(f->len);
    for (int s = 0; s < PARAMS_SECTIONS; s++) {
        bool g2 = s == PARAMS_B_G2;
        size_t k = COUNTS[s] - 1 - (size_t)s % 2; /* the last point or the one before */
        uint64_t off = lay.offset[s] + k * (g2 ? 192 : 96);
        for (int how = 0; how < CORRUPTIONS; how++) {
            memcpy(img, f->image, f->len);
            corrupt(img, off, g2, how, &f->g);
            for (int mode = PARAMS_CHECKED; mode <= PARAMS_UNCHECKED; mode++) {
                int want = mode == PARAMS_CHECKED ? CHECKED_CODE[how] : UNCHECKED_CODE[how];
                groth16_params q;
                cuzk_err e = {0};
                int rc = groth16_params_decode(&q, img, f->len, "x.params", mode, &e);
                assert_int_equal(rc, want);
                if (!rc) {
                    groth16_params_free(&q);
                    continue;
                }
                char expect[160];
                snprintf(expect, sizeof(expect), "x.params: %s point %zu %s (byte %llu)",
                         params_section_name(s), k, PHRASE[how], (unsigned long long)off);
                assert_string_equal(e.msg, expect);
                assert_null(q.h);
            }
        }
    }
    free(img);
}

static void corrupted_vk_point(void **state)
{
    fixture *f = *state;
    uint8_t *img = malloc(f->len);
    memcpy(img, f->image, f->len);
    corrupt(img, 672, true, OFF_CURVE, &f->g); /* delta_g2 */
    cuzk_err e = {0};
    groth16_params q;
    assert_int_equal(groth16_params_decode(&q, img, f->len, "x.params", PARAMS_CHECKED, &e),
                     CUZK_ENOTONCURVE);
    assert_string_equal(e.msg, "x.params: delta_g2 is not on the curve (byte 672)");
    assert_int_equal(groth16_params_decode(&q, img, f->len, "x.params", PARAMS_UNCHECKED, &e), 0);
    groth16_params_free(&q);
    free(img);
}

static void write_and_open_failures(void **state)
{
    fixture *f = *state;
    cuzk_err e = {0};
    groth16_params q;
    assert_int_equal(groth16_params_read(&q, "/nonexistent/x.params", PARAMS_CHECKED, &e),
                     CUZK_EIO);
    assert_non_null(strstr(e.msg, "/nonexistent/x.params: cannot open"));
    assert_int_equal(groth16_params_write("/nonexistent/x.params", &f->p, &e), CUZK_EIO);
    char path[64];
    temp_path(path, sizeof(path));
    g1_affine_t saved = f->p.l[2];
    memset(&f->p.l[2], 0, sizeof(g1_affine_t)); /* infinity */
    assert_int_equal(groth16_params_write(path, &f->p, &e), CUZK_EIDENTITY);
    assert_non_null(strstr(e.msg, "L point 2 is the point at infinity"));
    assert_int_not_equal(access(path, F_OK), 0);
    char tmp[80];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    assert_int_not_equal(access(tmp, F_OK), 0); /* the partial file is removed */
    f->p.l[2] = saved;
    f->p.h_basis = GROTH16_H_ODD_LAGRANGE;
    assert_int_equal(groth16_params_write(path, &f->p, &e), CUZK_EINVAL);
    f->p.h_basis = GROTH16_H_MONOMIAL;
    assert_int_equal(groth16_params_read(&q, "/dev/null", PARAMS_CHECKED, &e), CUZK_ELENGTH);
}

/* Makes the fixture's L the n points G, 2G, ..., nG; returns it. */
static g1_affine_t *long_l(fixture *f, size_t n)
{
    g1_jac_t *j = malloc(n * sizeof(*j));
    g1_affine_t *l = malloc(n * sizeof(*l));
    g1_jac_from_affine(&j[0], &g1_GENERATOR);
    for (size_t i = 1; i < n; i++) g1_jac_add_affine(&j[i], &j[i - 1], &g1_GENERATOR);
    g1_jac_batch_to_affine(l, j, n);
    free(j);
    free(f->p.l);
    f->p.l = l, f->p.n_l = n;
    return l;
}

/* A large L decoded by 4 threads in chunks: of two bad points, the error
 * names the first, whichever thread finds it. */
/* A section of 5000 points: decoded by 4 threads, checked by the batch
 * subgroup test; the first of two bad points is named. */
static void parallel_decode_reports_first_bad_point(void **state)
{
    fixture *f = *state;
    enum { N = 5000, BAD1 = 1500, BAD2 = 4000 };
    g1_affine_t *l = long_l(f, N);
    char path[64];
    temp_path(path, sizeof(path));
    assert_int_equal(groth16_params_write(path, &f->p, NULL), 0);
    size_t len;
    uint8_t *img = slurp(path, &len);
    unlink(path);
    params_layout lay;
    assert_int_equal(params_scan(&lay, img, len, PARAMS_SECTIONS, "x", NULL), 0);
    int saved = omp_get_max_threads();
    omp_set_num_threads(4);
    groth16_params q;
    assert_int_equal(groth16_params_decode(&q, img, len, "x", PARAMS_UNCHECKED, NULL), 0);
    assert_true(g1_affine_eq(&q.l[N - 1], &l[N - 1]));
    groth16_params_free(&q);
    /* Checked: the whole L section passes the batch subgroup test; with two
     * points outside the subgroup it fails, and the first one is named. */
    assert_int_equal(groth16_params_decode(&q, img, len, "x", PARAMS_CHECKED, NULL), 0);
    groth16_params_free(&q);
    uint8_t *off = malloc(len);
    memcpy(off, img, len);
    g1_affine_t bad;
    off_subgroup_g1(&bad, &f->g);
    g1_affine_serialize(off + lay.offset[PARAMS_L] + BAD2 * 96, &bad);
    off_subgroup_g1(&bad, &f->g);
    g1_affine_serialize(off + lay.offset[PARAMS_L] + BAD1 * 96, &bad);
    cuzk_err sub = {0};
    assert_int_equal(groth16_params_decode(&q, off, len, "x", PARAMS_CHECKED, &sub),
                     CUZK_ENOTINSUBGROUP);
    char want[112];
    snprintf(want, sizeof(want), "x: L point %d is not in the prime-order subgroup (byte %llu)",
             BAD1, (unsigned long long)(lay.offset[PARAMS_L] + BAD1 * 96));
    assert_string_equal(sub.msg, want);
    free(off);
    img[lay.offset[PARAMS_L] + BAD2 * 96] |= 0x80; /* compression flag */
    img[lay.offset[PARAMS_L] + BAD1 * 96] |= 0x80;
    cuzk_err e = {0};
    assert_int_equal(groth16_params_decode(&q, img, len, "x", PARAMS_UNCHECKED, &e), CUZK_EFLAGS);
    char expect[96];
    snprintf(expect, sizeof(expect), "x: L point %d has inconsistent flag bits (byte %llu)", BAD1,
             (unsigned long long)(lay.offset[PARAMS_L] + BAD1 * 96));
    assert_string_equal(e.msg, expect);
    omp_set_num_threads(saved);
    free(img);
}

typedef struct progress_log {
    uint64_t calls, last, total;
    bool monotone;
    uint64_t total_calls; /* stop_after's */
} progress_log;

static bool note_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_log *p = ctx;
    if (done < p->last || done > total) p->monotone = false;
    p->calls++, p->last = done, p->total = total;
    return true;
}

/* Goes on for `calls` windows, then abandons the read. */
static bool stop_after(void *ctx, uint64_t done, uint64_t total)
{
    progress_log *p = ctx;
    note_progress(ctx, done, total);
    return p->calls < p->total_calls;
}

/* f's parameters with n L points written to a temporary file (path), read
 * back in windows of 7 G1 points and a bit from now on. */
static void windowed_file(fixture *f, size_t n, char *path, size_t cap)
{
    long_l(f, n);
    temp_path(path, cap);
    assert_int_equal(groth16_params_write(path, &f->p, NULL), 0);
    params_set_decode_window(7 * 96 + 50);
}

/* A file read in windows of 7 G1 points and a bit: every window decoded
 * (and released) in order, progress rising to the file's size, and of two
 * bad points in different windows the first is named. */
static void windowed_read_with_progress(void **state)
{
    fixture *f = *state;
    enum { N = 3000, BAD1 = 1234, BAD2 = 2900 };
    char path[64];
    windowed_file(f, N, path, sizeof path);
    groth16_params q;
    progress_log pl;
    cuzk_err e = {0};
    for (int mode = PARAMS_CHECKED; mode <= PARAMS_UNCHECKED; mode++) {
        pl = (progress_log){.monotone = true};
        if (groth16_params_read_progress(&q, path, mode, note_progress, &pl, &e))
            fail_msg("%s", e.msg);
        assert_same_params(&f->p, &q);
        groth16_params_free(&q);
    }
    size_t len;
    uint8_t *img = slurp(path, &len);
    assert_true(pl.monotone);
    assert_true(pl.calls >= N / 7); /* L alone is N / 7 windows */
    assert_int_equal(pl.last, len);
    assert_int_equal(pl.total, len);
    params_layout lay;
    assert_int_equal(params_scan(&lay, img, len, PARAMS_SECTIONS, "x", NULL), 0);
    img[lay.offset[PARAMS_L] + BAD2 * 96] |= 0x80;
    img[lay.offset[PARAMS_L] + BAD1 * 96] |= 0x80;
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(img, 1, len, out), len);
    fclose(out);
    assert_int_equal(groth16_params_read_progress(&q, path, PARAMS_UNCHECKED, NULL, NULL, &e),
                     CUZK_EFLAGS);
    char expect[160];
    snprintf(expect, sizeof(expect), "%s: L point %d has inconsistent flag bits (byte %llu)", path,
             BAD1, (unsigned long long)(lay.offset[PARAMS_L] + BAD1 * 96));
    assert_string_equal(e.msg, expect);
    params_set_decode_window((uint64_t)1 << 30);
    unlink(path);
    free(img);
}

/* A read its progress function abandons stops at that window, fails with
 * CUZK_ECANCELLED saying how far it got, and keeps nothing (ASAN: the
 * arrays decoded so far are freed); the same file then reads whole. */
static void abandoned_read(void **state)
{
    fixture *f = *state;
    enum { N = 3000 };
    char path[64];
    windowed_file(f, N, path, sizeof path);
    groth16_params q;
    cuzk_err e = {0};
    progress_log pl = {.monotone = true, .total_calls = 5};
    assert_int_equal(groth16_params_read_progress(&q, path, PARAMS_UNCHECKED, stop_after, &pl, &e),
                     CUZK_ECANCELLED);
    assert_int_equal(pl.calls, 5);
    char expect[160];
    snprintf(expect, sizeof(expect), "%s: read abandoned after %llu of %llu bytes", path,
             (unsigned long long)pl.last, (unsigned long long)pl.total);
    assert_string_equal(e.msg, expect);
    assert_true(pl.last < pl.total);
    assert_null(q.l);
    assert_null(q.h);
    pl = (progress_log){.monotone = true, .total_calls = UINT64_MAX};
    assert_int_equal(groth16_params_read_progress(&q, path, PARAMS_UNCHECKED, stop_after, &pl, &e),
                     0);
    assert_same_params(&f->p, &q);
    groth16_params_free(&q);
    params_set_decode_window((uint64_t)1 << 30);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(vk_files, setup, teardown),
        cmocka_unit_test_setup_teardown(every_truncation, setup, teardown),
        cmocka_unit_test_setup_teardown(trailing_and_absurd_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupted_points_in_every_section, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupted_vk_point, setup, teardown),
        cmocka_unit_test_setup_teardown(write_and_open_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(parallel_decode_reports_first_bad_point, setup, teardown),
        cmocka_unit_test_setup_teardown(windowed_read_with_progress, setup, teardown),
        cmocka_unit_test_setup_teardown(abandoned_read, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
