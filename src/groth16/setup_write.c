/*
 * setup_write.c - the development setup written straight to its .params
 * and .vk files, for circuits of any size (groth16.h:
 * groth16_setup_dev_write).
 *
 * The same parameters as groth16_setup_dev (setup.c) followed by
 * groth16_params_write and groth16_vk_write, byte for byte, without the
 * matrices or the points in memory: the QAP columns come from the QAP
 * backend (r1cs.h, cs_qap: a count, then u, v, w accumulated while the
 * circuit is synthesized again), and each section's points are made a
 * chunk at a time by the backend's fixed-base multiplication, already in
 * the file's encoding, while a second thread writes the previous chunk.
 * Memory: u, v, w (3 x 32 bytes per variable), the powers of tau and the
 * Lagrange basis (2 x 32 bytes per domain element; the basis is freed
 * once the columns are done), and two chunks of encoded points.
 *
 * The backend (groth16_setup_backend) does the inverse NTT of the basis
 * and the fixed-base multiplications: groth16_setup_cpu here, the CUDA one
 * in src/gpu/setup. Its results must be the CPU's bit for bit, which is
 * what makes the files equal.
 */
#include "cuzk/groth16.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/params.h"
#include "groth16/params_internal.h"
#include "groth16/setup_internal.h"

/* ---- the CPU backend ---- */

static int cpu_ntt_inverse(void *ctx, fr_t *data, unsigned log_m, cuzk_err *err)
{
    (void)ctx;
    ntt_domain d;
    int rc = ntt_domain_init(&d, log_m, err);
    if (!rc) rc = ntt_inverse(&d, data, NTT_NATURAL, NTT_NATURAL, err);
    ntt_domain_free(&d);
    return rc;
}

static int cpu_encode(void *ctx, int group, uint8_t *out, const fr_t *s, size_t n, cuzk_err *err)
{
    (void)ctx;
    size_t mem = group == 1 ? sizeof(g1_affine_t) : sizeof(g2_affine_t);
    void *pts = malloc(mem * (n ? n : 1));
    if (!pts) return cuzk_errf(err, CUZK_ENOMEM, "setup: out of memory for %zu points", n);
    int rc = group == 1 ? g1_fixed_base_mul(pts, &g1_GENERATOR, s, n, 0, err)
                        : g2_fixed_base_mul(pts, &g2_GENERATOR, s, n, 0, err);
#pragma omp parallel for schedule(static) if (!rc)
    for (size_t i = 0; i < n; i++) {
        if (group == 1)
            g1_affine_serialize(out + i * G1_UNCOMPRESSED_BYTES, (g1_affine_t *)pts + i);
        else
            g2_affine_serialize(out + i * G2_UNCOMPRESSED_BYTES, (g2_affine_t *)pts + i);
    }
    free(pts);
    return rc;
}

const groth16_setup_backend groth16_setup_cpu = {"cpu", (size_t)1 << 20, cpu_ntt_inverse,
                                                 cpu_encode, NULL};

/* ---- output: a file written through a second thread ---- */

typedef struct out_file {
    FILE *f;
    const char *path;
    char *tmp;
    pthread_t writer;
    bool writing;
    const uint8_t *wbuf;
    size_t wlen;
    int wrc;
    int werrno;
} out_file;

static int out_open(out_file *o, const char *path, cuzk_err *err)
{
    memset(o, 0, sizeof(*o));
    o->path = path;
    size_t n = strlen(path) + 5;
    if (!(o->tmp = malloc(n))) return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    snprintf(o->tmp, n, "%s.tmp", path);
    if (!(o->f = fopen(o->tmp, "wb"))) {
        int rc = cuzk_errf(err, CUZK_EIO, "%s: cannot create: %s", o->tmp, strerror(errno));
        free(o->tmp);
        return rc;
    }
    return 0;
}

static void *write_thread(void *arg)
{
    out_file *o = arg;
    if (fwrite(o->wbuf, 1, o->wlen, o->f) != o->wlen) o->wrc = CUZK_EIO, o->werrno = errno;
    return NULL;
}

/* Waits for the write in flight; its error, if any. */
static int out_wait(out_file *o, cuzk_err *err)
{
    if (!o->writing) return 0;
    pthread_join(o->writer, NULL);
    o->writing = false;
    if (o->wrc)
        return cuzk_errf(err, CUZK_EIO, "%s: write failed: %s", o->path, strerror(o->werrno));
    return 0;
}

/* Starts writing buf (kept alive by the caller until the next out_wait). */
static int out_put_async(out_file *o, const void *buf, size_t len, cuzk_err *err)
{
    int rc = out_wait(o, err);
    if (rc) return rc;
    o->wbuf = buf, o->wlen = len, o->wrc = 0;
    if (pthread_create(&o->writer, NULL, write_thread, o))
        return cuzk_errf(err, CUZK_ENOMEM, "%s: cannot start the writer thread", o->path);
    o->writing = true;
    return 0;
}

static int out_put(out_file *o, const void *buf, size_t len, cuzk_err *err)
{
    int rc = out_put_async(o, buf, len, err);
    return rc ? rc : out_wait(o, err);
}

/* Syncs and renames into place when rc is 0, else removes the tmp file. */
static int out_close(out_file *o, int rc, cuzk_err *err)
{
    int wrc = out_wait(o, err);
    if (!rc) rc = wrc;
    if (!rc && (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0))
        rc = cuzk_errf(err, CUZK_EIO, "%s: cannot flush: %s", o->tmp, strerror(errno));
    if (fclose(o->f) != 0 && !rc)
        rc = cuzk_errf(err, CUZK_EIO, "%s: cannot close: %s", o->tmp, strerror(errno));
    if (!rc && rename(o->tmp, o->path) != 0)
        rc = cuzk_errf(err, CUZK_EIO, "%s: cannot rename into place: %s", o->path, strerror(errno));
    if (rc) unlink(o->tmp);
    free(o->tmp);
    return rc;
}

/* ---- the setup ---- */

typedef struct setup_run {
    const groth16_setup_backend *be;
    FILE *log;
    struct timespec t0;
    groth16_toxic t;
    cs_qap q;
    size_t m;
    fr_t *powers;         /* tau^i, i < m */
    fr_t ginv, dinv, h_k; /* 1/gamma, 1/delta, t(tau)/delta */
    fr_t *scalars;        /* one chunk */
    uint8_t *enc[2];      /* two chunks of encoded points */
} setup_run;

static void progress(setup_run *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(setup_run *s, const char *fmt, ...)
{
    if (!s->log) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double sec = (double)(now.tv_sec - s->t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - s->t0.tv_nsec);
    fprintf(s->log, "setup [%7.1f s, %s]: ", sec, s->be->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->log, fmt, ap);
    va_end(ap);
    fputc('\n', s->log);
    fflush(s->log);
}

/* The scalars of a section: scalar i of the section into out. */
typedef void (*scalar_fn)(const setup_run *s, size_t i, fr_t *out);

static void h_scalar(const setup_run *s, size_t i, fr_t *out)
{
    fr_mul(out, &s->powers[i], &s->h_k);
}

/* (beta u + alpha v + w) / gamma (inputs) or / delta (aux) of column c. */
static void ic_l_scalar(const setup_run *s, size_t c, fr_t *out)
{
    fr_t x, y;
    fr_mul(&x, &s->t.beta, &s->q.u[c]);
    fr_mul(&y, &s->t.alpha, &s->q.v[c]);
    fr_add(&x, &x, &y);
    fr_add(&x, &x, &s->q.w[c]);
    fr_mul(out, &x, c < s->q.num_inputs ? &s->ginv : &s->dinv);
}

static void l_scalar(const setup_run *s, size_t i, fr_t *out)
{
    ic_l_scalar(s, s->q.num_inputs + i, out);
}

static void u_scalar(const setup_run *s, size_t i, fr_t *out)
{
    *out = s->q.u[i];
}

static void v_scalar(const setup_run *s, size_t i, fr_t *out)
{
    *out = s->q.v[i];
}

/* One section: the u32 BE count, then n points of scalar(i) G in chunks,
 * each written while the next is computed. Points at infinity (a zero
 * scalar) are refused as groth16_params_write refuses them. */
static int put_section(setup_run *s, out_file *o, int section, scalar_fn scalar, size_t n,
                       cuzk_err *err)
{
    int group = section == PARAMS_B_G2 ? 2 : 1;
    size_t bytes = group == 1 ? G1_UNCOMPRESSED_BYTES : G2_UNCOMPRESSED_BYTES;
    const char *name = params_section_name(section);
    uint8_t be[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    int rc = n > UINT32_MAX
                 ? cuzk_errf(err, CUZK_EINVAL, "%s: %zu %s points do not fit a u32 count", o->path,
                             n, name)
                 : out_put(o, be, 4, err);
    progress(s, "%s: %zu points", name, n);
    for (size_t lo = 0, k = 0; lo < n && !rc; lo += s->be->chunk, k ^= 1) {
        size_t c = n - lo < s->be->chunk ? n - lo : s->be->chunk, zero = c;
#pragma omp parallel for schedule(static) reduction(min : zero)
        for (size_t i = 0; i < c; i++) {
            scalar(s, lo + i, &s->scalars[i]);
            if (fr_is_zero(&s->scalars[i]) && i < zero) zero = i;
        }
        if (zero < c)
            return cuzk_errf(err, CUZK_EIDENTITY, "%s: %s point %zu %s, which readers reject",
                             o->path, name, lo + zero, params_failure_phrase(CUZK_EIDENTITY));
        rc = s->be->encode(s->be->ctx, group, s->enc[k], s->scalars, c, err);
        if (!rc) rc = out_put_async(o, s->enc[k], c * bytes, err);
    }
    return rc ? rc : out_wait(o, err);
}

/* The verifying key's bytes: the six points, then the IC section. */
static int vk_bytes(setup_run *s, uint8_t **out, size_t *len, cuzk_err *err)
{
    groth16_vk vk = {0};
    size_t ni = s->q.num_inputs;
    *len = PARAMS_VK_FIXED_BYTES + 4 + ni * G1_UNCOMPRESSED_BYTES;
    fr_t *sc = malloc(sizeof(fr_t) * (ni ? ni : 1));
    vk.ic = malloc(sizeof(g1_affine_t) * (ni ? ni : 1));
    *out = malloc(*len);
    int rc = sc && vk.ic && *out ? groth16_dev_vk(&vk, &s->t, err)
                                 : cuzk_errf(err, CUZK_ENOMEM, "setup: out of memory for IC");
    for (size_t i = 0; i < ni && !rc; i++) {
        ic_l_scalar(s, i, &sc[i]);
        if (fr_is_zero(&sc[i]))
            rc = cuzk_errf(err, CUZK_EIDENTITY, "IC point %zu %s, which readers reject", i,
                           params_failure_phrase(CUZK_EIDENTITY));
    }
    if (!rc) rc = g1_fixed_base_mul(vk.ic, &g1_GENERATOR, sc, ni, 0, err);
    if (!rc) {
        vk.n_ic = ni;
        for (int i = 0; i < PARAMS_VK_FIXED; i++)
            PARAMS_VK_POINTS[i].group->encode(*out + PARAMS_VK_POINTS[i].offset,
                                              params_vk_field(&vk, i));
        uint8_t *p = *out + PARAMS_VK_FIXED_BYTES;
        p[0] = (uint8_t)(ni >> 24), p[1] = (uint8_t)(ni >> 16), p[2] = (uint8_t)(ni >> 8);
        p[3] = (uint8_t)ni;
        for (size_t i = 0; i < ni; i++)
            g1_affine_serialize(p + 4 + i * G1_UNCOMPRESSED_BYTES, &vk.ic[i]);
    }
    free(sc), free(vk.ic);
    if (rc) free(*out), *out = NULL;
    return rc;
}

/* Counts, the domain, the basis and the QAP columns. */
static int columns(setup_run *s, cs_circuit circuit, cuzk_err *err)
{
    int rc = cs_qap_count(&s->q, circuit, err);
    if (rc) return rc;
    unsigned log_m = 1;
    while (((size_t)1 << log_m) < s->q.num_constraints) log_m++;
    if (log_m > NTT_MAX_LOG)
        return cuzk_errf(err, CUZK_EUNSUPPORTED, "setup: %zu constraints exceed 2^%d",
                         s->q.num_constraints, NTT_MAX_LOG);
    s->m = (size_t)1 << log_m;
    progress(s, "%zu constraints, %zu inputs, %zu aux: domain 2^%u", s->q.num_constraints,
             s->q.num_inputs, s->q.num_aux, log_m);
    s->powers = malloc(sizeof(fr_t) * s->m);
    fr_t *lag = malloc(sizeof(fr_t) * s->m);
    if (!s->powers || !lag) {
        free(lag);
        return cuzk_errf(err, CUZK_ENOMEM, "setup: out of memory for a domain of 2^%u", log_m);
    }
    groth16_powers_of_tau(s->powers, &s->t.tau, s->m);
    memcpy(lag, s->powers, sizeof(fr_t) * s->m);
    rc = s->be->ntt_inverse(s->be->ctx, lag, log_m, err);
    progress(s, "Lagrange basis at tau");
    if (!rc) rc = cs_qap_eval(&s->q, circuit, lag, err);
    free(lag);
    progress(s, "QAP columns");
    return rc;
}

/* H, L, A, B_G1, B_G2 after the verifying key. Consumes u and v. */
static int put_points(setup_run *s, out_file *o, cuzk_err *err)
{
    fr_t t_tau;
    fr_mul(&t_tau, &s->powers[s->m - 1], &s->t.tau); /* tau^m */
    fr_sub(&t_tau, &t_tau, &FR_ONE);
    fr_mul(&s->h_k, &t_tau, &s->dinv);
    size_t nv = s->q.num_inputs + s->q.num_aux;
    int rc = put_section(s, o, PARAMS_H, h_scalar, s->m - 1, err);
    if (!rc) rc = put_section(s, o, PARAMS_L, l_scalar, s->q.num_aux, err);
    size_t na = groth16_compact_nonzero(s->q.u, nv), nb = groth16_compact_nonzero(s->q.v, nv);
    if (!rc) rc = put_section(s, o, PARAMS_A, u_scalar, na, err);
    if (!rc) rc = put_section(s, o, PARAMS_B_G1, v_scalar, nb, err);
    if (!rc) rc = put_section(s, o, PARAMS_B_G2, v_scalar, nb, err);
    return rc;
}

static int write_files(setup_run *s, const char *params_path, const char *vk_path, cuzk_err *err)
{
    uint8_t *vk = NULL;
    size_t vk_len = 0;
    out_file o;
    int rc = vk_bytes(s, &vk, &vk_len, err);
    if (!rc && !(rc = out_open(&o, params_path, err))) {
        rc = out_put(&o, vk, vk_len, err);
        if (!rc) rc = put_points(s, &o, err);
        rc = out_close(&o, rc, err);
    }
    progress(s, "%s written", params_path);
    if (!rc && vk_path && !(rc = out_open(&o, vk_path, err)))
        rc = out_close(&o, out_put(&o, vk, vk_len, err), err);
    free(vk);
    return rc;
}

int groth16_setup_dev_write(const char *params_path, const char *vk_path, cs_circuit circuit,
                            uint64_t seed, const groth16_setup_backend *be, FILE *log,
                            cuzk_err *err)
{
    setup_run s = {.be = be, .log = log};
    clock_gettime(CLOCK_MONOTONIC, &s.t0);
    groth16_dev_toxic(&s.t, seed);
    fr_inv(&s.ginv, &s.t.gamma);
    fr_inv(&s.dinv, &s.t.delta);
    s.scalars = malloc(sizeof(fr_t) * be->chunk);
    s.enc[0] = malloc(G2_UNCOMPRESSED_BYTES * be->chunk);
    s.enc[1] = malloc(G2_UNCOMPRESSED_BYTES * be->chunk);
    int rc = s.scalars && s.enc[0] && s.enc[1]
                 ? columns(&s, circuit, err)
                 : cuzk_errf(err, CUZK_ENOMEM, "setup: out of memory for the chunk buffers");
    if (!rc) rc = write_files(&s, params_path, vk_path, err);
    cs_qap_free(&s.q);
    free(s.powers), free(s.scalars), free(s.enc[0]), free(s.enc[1]);
    memset(&s.t, 0, sizeof(s.t));
    return rc;
}
