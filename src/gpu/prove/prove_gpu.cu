/*
 * prove_gpu.cu - the Groth16 prover on a CUDA device (gpu_prove.h).
 *
 * start, per circuit, under one process-wide lock (the kernels' working
 * memory and the parameter cache are shared):
 *   prep_msm_ms   groth16_jobs_prepare on the CPU: the gathered A / B
 *                 scalars, ones bitmaps and compacted tails, the very
 *                 decisions of the CPU prover (prove_internal.h); on a
 *                 host thread of its own, overlapping the H step (it
 *                 needs neither the device nor the H result)
 *   ntt_msm_h_ms  a, b, c through the staging pool into one device
 *                 buffer (zero-padded to the domain), gpu_ntt_h_dev, the
 *                 H MSM over the cached H points; for snarkjs' odd-
 *                 Lagrange H basis or a domain under 2^10 (outside the
 *                 device NTT) the CPU computes the H scalars instead
 *   batch_add_ms  per split job: its bitmap uploaded, the batch addition
 *   tail_msm_ms   the tail's scalars and indexes uploaded, its bases
 *                 gathered from the cached points, the tail MSM (or the
 *                 whole MSM for a job that does not split)
 *   gpu_total_ms  the device part, from the H step to the last MSM (it
 *                 includes whatever of prep the H step did not hide)
 * finish: B_G2 on the CPU with the same job (batch addition + tail MSM),
 * the circuits in parallel (one host thread each, sharing the cores),
 * then groth16_assemble; b_g2_msm_ms. total_ms = gpu_total_ms +
 * b_g2_msm_ms, the circuit's share of start and finish. The sums are
 * group elements, so whatever order the device adds in, the affine proof
 * bytes are those of groth16_prove.
 *
 * The working buffers (a/b/c, scalars, indexes, gathered bases, bitmap)
 * grow to the largest proof seen and stay allocated.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thread>

#include "gpu/prove/prove_gpu.cuh"

static pthread_mutex_t prove_mu = PTHREAD_MUTEX_INITIALIZER;

void prove_lock(void)
{
    pthread_mutex_lock(&prove_mu);
}

void prove_unlock(void)
{
    pthread_mutex_unlock(&prove_mu);
}

struct prove_ws {
    void *abc, *scal, *idx, *tb, *bits;
    size_t abc_cap, scal_cap, idx_cap, tb_cap, bits_cap;
};
static prove_ws ws;

struct prove_one {
    groth16_jobs jobs; /* only b (for B_G2) survives start */
    groth16_msms m;
    fr_t r, s;
    groth16_timings t;
};

struct gpu_prove_pending {
    const groth16_params *pk;
    size_t n;
    prove_one *c;
};

/* *out = sum scalars[i] bases[i] over n device points and scalars. */
static int dev_msm(g1_jac_t *out, const prove_g1_aff *bases, const void *scalars, size_t n,
                   cuzk_err *err)
{
    if (n == 0) {
        g1_jac_set_inf(out);
        return CUZK_OK;
    }
    gpu_buf vb = {(void *)bases, n * sizeof(g1_affine_t)}, vs = {(void *)scalars, n * sizeof(fr_t)};
    return gpu_msm_g1_dev(out, &vb, &vs, n, 0, err);
}

/* The H scalars into ws.abc (device NTT, or the CPU where it cannot). */
static int h_scalars(const groth16_params *pk, const cs_prover *w, cuzk_err *err)
{
    unsigned lg;
    int rc = groth16_h_domain(&lg, pk, w, err);
    size_t m = (size_t)1 << lg, n = w->num_constraints, row = m * sizeof(fr_t);
    if (!rc) rc = prove_dev_grow(&ws.abc, &ws.abc_cap, 3 * row, pk, err);
    if (rc) return rc;
    char *d = (char *)ws.abc;
    if (pk->h_basis == GROTH16_H_MONOMIAL && lg >= 10 && lg <= 28) {
        const fr_t *src[3] = {w->a, w->b, w->c};
        for (int k = 0; !rc && k < 3; k++) {
            rc = prove_upload(d + k * row, src[k], n * sizeof(fr_t), err);
            cudaError_t e = cudaMemset(d + k * row + n * sizeof(fr_t), 0, row - n * sizeof(fr_t));
            if (!rc && e != cudaSuccess) rc = cu_fail(e, err, "a/b/c padding", __FILE__, __LINE__);
        }
        gpu_buf va = {d, row}, vb = {d + row, row}, vc = {d + 2 * row, row};
        return rc ? rc : gpu_ntt_h_dev(&va, &vb, &vc, lg, err);
    }
    fr_t *h;
    rc = groth16_h_scalars(&h, pk, w, err);
    if (!rc) rc = prove_upload(d, h, pk->n_h * sizeof(fr_t), err);
    free(h);
    return rc;
}

/* The tail of a split job: scalars and indexes up, bases gathered, MSM. */
static int tail_msm(g1_jac_t *out, const prove_g1_aff *bases, const groth16_msm_job *j,
                    const groth16_params *pk, cuzk_err *err)
{
    size_t nt = j->n_tail;
    uint32_t *idx = (uint32_t *)malloc(nt * sizeof(uint32_t) + 1);
    int rc = idx ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory (indexes)");
    for (size_t k = 0; !rc && k < nt; k++) idx[k] = (uint32_t)j->tail_idx[k];
    if (!rc) rc = prove_dev_grow(&ws.scal, &ws.scal_cap, nt * sizeof(fr_t), pk, err);
    if (!rc) rc = prove_dev_grow(&ws.idx, &ws.idx_cap, nt * sizeof(uint32_t), pk, err);
    if (!rc) rc = prove_dev_grow(&ws.tb, &ws.tb_cap, nt * sizeof(g1_affine_t), pk, err);
    if (!rc) rc = prove_upload(ws.scal, j->tail, nt * sizeof(fr_t), err);
    if (!rc) rc = prove_upload(ws.idx, idx, nt * sizeof(uint32_t), err);
    free(idx);
    prove_g1_aff *tb = (prove_g1_aff *)ws.tb;
    if (!rc) rc = prove_gather(tb, bases, (const uint32_t *)ws.idx, nt, err);
    if (!rc) rc = dev_msm(out, tb, ws.scal, nt, err);
    return rc;
}

/* One G1 MSM of the CPU prover's job on the device. */
static int job_msm(g1_jac_t *out, const prove_g1_aff *bases, const groth16_msm_job *j,
                   const groth16_params *pk, groth16_timings *t, cuzk_err *err)
{
    if (j->n >= ((size_t)1 << 31))
        return cuzk_errf(err, CUZK_EINVAL, "gpu prove: an MSM of %zu points", j->n);
    double t0 = groth16_now_ms();
    if (!j->split) {
        int rc = prove_dev_grow(&ws.scal, &ws.scal_cap, j->n * sizeof(fr_t), pk, err);
        if (!rc) rc = prove_upload(ws.scal, j->scalars, j->n * sizeof(fr_t), err);
        if (!rc) rc = dev_msm(out, bases, ws.scal, j->n, err);
        t->tail_msm_ms += groth16_now_ms() - t0;
        return rc;
    }
    size_t words = (j->n + 63) / 64;
    g1_jac_t ones, tail;
    int rc = prove_dev_grow(&ws.bits, &ws.bits_cap, words * sizeof(uint64_t), pk, err);
    if (!rc) rc = prove_upload(ws.bits, j->ones, words * sizeof(uint64_t), err);
    if (!rc) rc = prove_batch_add(&ones, bases, (const uint64_t *)ws.bits, j->n, err);
    double t1 = groth16_now_ms();
    t->batch_add_ms += t1 - t0;
    if (!rc) rc = tail_msm(&tail, bases, j, pk, err);
    if (!rc) g1_jac_add(out, &ones, &tail);
    t->tail_msm_ms += groth16_now_ms() - t1;
    return rc;
}

/* prep_msm on its own host thread, so that it overlaps the H step. */
static void prep_thread(prove_one *c, const groth16_params *pk, const cs_prover *w, int *rc,
                        cuzk_err *err)
{
    double t0 = groth16_now_ms();
    *rc = groth16_jobs_prepare(&c->jobs, pk, w, err);
    c->t.prep_msm_ms = groth16_now_ms() - t0;
}

static int start_one(prove_one *c, const prove_srs *srs, const groth16_params *pk,
                     const cs_prover *w, cuzk_err *err)
{
    double t0 = groth16_now_ms();
    int prep_rc = CUZK_OK;
    cuzk_err prep_err = {0};
    std::thread prep(prep_thread, c, pk, w, &prep_rc, &prep_err);
    int rc = h_scalars(pk, w, err);
    if (!rc) rc = dev_msm(&c->m.h, srs->h, ws.abc, pk->n_h, err);
    c->t.ntt_msm_h_ms = groth16_now_ms() - t0;
    prep.join();
    if (!rc && prep_rc) {
        rc = prep_rc;
        if (err) *err = prep_err;
    }
    if (!rc) rc = job_msm(&c->m.l, srs->l, &c->jobs.l, pk, &c->t, err);
    if (!rc) rc = job_msm(&c->m.a, srs->a, &c->jobs.a, pk, &c->t, err);
    if (!rc) rc = job_msm(&c->m.b1, srs->b_g1, &c->jobs.b, pk, &c->t, err);
    groth16_msm_job_free(&c->jobs.l);
    groth16_msm_job_free(&c->jobs.a);
    free(c->jobs.sa);
    c->jobs.sa = NULL;
    c->t.gpu_total_ms = c->t.total_ms = groth16_now_ms() - t0;
    return rc;
}

extern "C" void gpu_prove_discard(gpu_prove_pending *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n; i++) groth16_jobs_free(&p->c[i].jobs);
    free(p->c);
    free(p);
}

static int start_all(gpu_prove_pending *p, int device, const cs_prover *circuits, cuzk_err *err)
{
    prove_srs srs;
    CU(cudaSetDevice(device), err, "cudaSetDevice");
    int rc = prove_srs_get(&srs, p->pk, err);
    for (size_t i = 0; !rc && i < p->n; i++) {
        rc = start_one(&p->c[i], &srs, p->pk, &circuits[i], err);
        if (rc && p->n > 1) cuzk_err_prefix(err, "circuit %zu: ", i);
    }
    return rc;
}

extern "C" int gpu_prove_start(gpu_prove_pending **out, int device, const groth16_params *pk,
                               const cs_prover *circuits, size_t n, const fr_t *rs, cuzk_err *err)
{
    *out = NULL;
    gpu_prove_pending *p = (gpu_prove_pending *)calloc(1, sizeof *p);
    if (p) p->c = (prove_one *)calloc(n ? n : 1, sizeof *p->c);
    if (!p || !p->c) {
        free(p);
        return cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory");
    }
    p->pk = pk;
    p->n = n;
    prove_lock();
    int rc = start_all(p, device, circuits, err);
    prove_unlock();
    for (size_t i = 0; !rc && i < n; i++) {
        fr_t own[2];
        if (!rs) rc = groth16_draw_rs(own, err);
        p->c[i].r = rs ? rs[2 * i] : own[0];
        p->c[i].s = rs ? rs[2 * i + 1] : own[1];
    }
    if (rc) {
        gpu_prove_discard(p);
        return rc;
    }
    *out = p;
    return CUZK_OK;
}

/* B_G2 of circuits first, first + step, ... with `threads` MSM threads. */
static void finish_some(gpu_prove_pending *p, size_t first, size_t step, int threads, int *rcs,
                        cuzk_err *errs)
{
    for (size_t i = first; i < p->n; i += step) {
        prove_one *c = &p->c[i];
        groth16_timings g2t = {0};
        double t0 = groth16_now_ms();
        rcs[i] = groth16_g2_run_job(&c->m.b2, p->pk->b_g2, &c->jobs.b, threads, &g2t, &errs[i]);
        c->t.b_g2_msm_ms = groth16_now_ms() - t0;
    }
}

extern "C" int gpu_prove_finish(gpu_prove_pending *p, groth16_proof *proofs,
                                groth16_timings *timings, cuzk_err *err)
{
    size_t n = p->n, hw = std::thread::hardware_concurrency();
    size_t nt = n < hw ? n : (hw ? hw : 1);
    int *rcs = (int *)calloc(n + 1, sizeof(int));
    cuzk_err *errs = (cuzk_err *)calloc(n + 1, sizeof(cuzk_err));
    int rc = rcs && errs ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory");
    if (!rc && nt <= 1) finish_some(p, 0, 1, 0, rcs, errs);
    if (!rc && nt > 1) {
        std::thread *th = new std::thread[nt];
        int per = (int)(hw / nt) > 1 ? (int)(hw / nt) : 1;
        for (size_t k = 0; k < nt; k++) th[k] = std::thread(finish_some, p, k, nt, per, rcs, errs);
        for (size_t k = 0; k < nt; k++) th[k].join();
        delete[] th;
    }
    for (size_t i = 0; !rc && i < n; i++) {
        prove_one *c = &p->c[i];
        rc = rcs[i];
        if (rc) {
            if (err) *err = errs[i];
            if (n > 1) cuzk_err_prefix(err, "circuit %zu: ", i);
            break;
        }
        groth16_assemble(&proofs[i], p->pk, &c->m, &c->r, &c->s);
        c->t.total_ms += c->t.b_g2_msm_ms;
        if (timings) timings[i] = c->t;
    }
    free(rcs);
    free(errs);
    gpu_prove_discard(p);
    return rc;
}

extern "C" int gpu_groth16_prove(groth16_proof *proofs, const groth16_params *pk,
                                 const cs_prover *circuits, size_t n, const fr_t *rs,
                                 groth16_timings *timings, cuzk_err *err)
{
    gpu_prove_pending *p;
    int rc = gpu_prove_start(&p, 0, pk, circuits, n, rs, err);
    return rc ? rc : gpu_prove_finish(p, proofs, timings, err);
}

extern "C" void gpu_prove_format_timings(char *out, size_t len, const groth16_timings *t)
{
    snprintf(out, len,
             "prep_msm_ms=%.1f ntt_msm_h_ms=%.1f batch_add_ms=%.1f tail_msm_ms=%.1f "
             "b_g2_msm_ms=%.1f gpu_total_ms=%.1f total_ms=%.1f",
             t->prep_msm_ms, t->ntt_msm_h_ms, t->batch_add_ms, t->tail_msm_ms, t->b_g2_msm_ms,
             t->gpu_total_ms, t->total_ms);
}
