/*
 * prove.c - the CPU Groth16 prover for a batch of circuits sharing one set
 * of parameters (reference/groth16.md, "Prover").
 *
 * Per circuit: h from six NTTs (ntt_groth16_h); the H MSM over full
 * scalars; for L, A and B the split MSM of supraseal (prep_msm classifies
 * the scalars into zeros, ones and the tail; when msm_split_worthwhile, the
 * ones are summed by a bitmap batch addition and only the tail goes through
 * Pippenger); B_G2 likewise on G2; then the assembly with r and s:
 *   A = alpha_1 + A_msm + r delta_1
 *   B = beta_2 + B2 + s delta_2
 *   C = H + L + s A_msm + r B1 + rs delta_1 + s alpha_1 + r beta_1
 * Circuits run one after another, each using every thread.
 */
#include "cuzk/groth16.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "groth16/prove_internal.h"

double groth16_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

void groth16_msm_job_free(groth16_msm_job *j)
{
    free(j->ones);
    free(j->tail);
    free(j->tail_idx);
    memset(j, 0, sizeof *j);
}

/* prep_msm runs over every variable of the circuit (2^27 at 32 GiB), so
 * its compactions run in parallel: blocks of PREP_BLOCK indexes (1024
 * bitmap words, 2 MiB of scalars) are counted, the counts turned into
 * offsets, and each block copies its kept entries to its offset, which
 * keeps the order of the sequential loop. */
#define PREP_BLOCK ((size_t)1 << 16)

static size_t *block_offsets(size_t nb, cuzk_err *err)
{
    size_t *o = malloc(sizeof(size_t) * (nb + 1));
    if (!o) cuzk_errf(err, CUZK_ENOMEM, "prove: out of memory (block offsets)");
    return o;
}

/* counts -> exclusive offsets in place; returns the total. */
static size_t offsets_from_counts(size_t *o, size_t nb)
{
    size_t total = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t c = o[b];
        o[b] = total;
        total += c;
    }
    return total;
}

/* One generic runner for G1 and G2: batch addition + tail, or a plain MSM;
 * the tail alone for a caller that has the batch addition already. */
#define MSM_RUN(G)                                                                                 \
    int groth16_##G##_run_tail(G##_jac_t *r, const G##_affine_t *bases, const groth16_msm_job *j,  \
                               int threads, cuzk_err *err)                                         \
    {                                                                                              \
        G##_affine_t *tb = malloc(sizeof(G##_affine_t) * (j->n_tail + 1));                         \
        if (!tb) return cuzk_errf(err, CUZK_ENOMEM, "prove: out of memory (tail bases)");          \
        for (size_t k = 0; k < j->n_tail; k++) tb[k] = bases[j->tail_idx[k]];                      \
        int rc = G##_msm(r, tb, j->tail, j->n_tail, threads, err);                                 \
        free(tb);                                                                                  \
        return rc;                                                                                 \
    }                                                                                              \
    int groth16_##G##_run_job(G##_jac_t *r, const G##_affine_t *bases, const groth16_msm_job *j,   \
                              int threads, groth16_timings *t, cuzk_err *err)                      \
    {                                                                                              \
        double t0 = groth16_now_ms();                                                              \
        if (!j->split) {                                                                           \
            int rc = G##_msm(r, bases, j->scalars, j->n, threads, err);                            \
            t->tail_msm_ms += groth16_now_ms() - t0;                                               \
            return rc;                                                                             \
        }                                                                                          \
        G##_jac_t ones, tail;                                                                      \
        int rc = G##_batch_add_bitmap(&ones, bases, j->ones, j->n, threads, err);                  \
        double t1 = groth16_now_ms();                                                              \
        t->batch_add_ms += t1 - t0;                                                                \
        if (!rc) rc = groth16_##G##_run_tail(&tail, bases, j, threads, err);                       \
        if (!rc) G##_jac_add(r, &ones, &tail);                                                     \
        t->tail_msm_ms += groth16_now_ms() - t1;                                                   \
        return rc;                                                                                 \
    }

MSM_RUN(g1)
MSM_RUN(g2)

/* One past the last of block b's words (wpb a block, nw in all). */
static size_t block_end(size_t b, size_t wpb, size_t nw)
{
    return (b + 1) * wpb < nw ? (b + 1) * wpb : nw;
}

/* Whether input i is among the gathered variables (all inputs, or in_d's). */
static bool input_kept(const cs_bitmap *in_d, size_t i)
{
    return !in_d || cs_bitmap_get(in_d, i);
}

/* Bit i of m, for i < m->nbits. */
static uint64_t word_bits(const cs_bitmap *m, size_t w)
{
    uint64_t x = m->words[w];
    size_t rest = m->nbits - 64 * w;
    return rest < 64 ? x & (((uint64_t)1 << rest) - 1) : x;
}

/* out[k] = src[i] (and idx[k] = i when idx) for the bits i of m, k from
 * *k up, in parallel blocks; *k counts. */
static int gather_bits(fr_t *out, size_t *idx, size_t *k, const fr_t *src, const cs_bitmap *m,
                       cuzk_err *err)
{
    size_t n = m->nbits, nb = (n + PREP_BLOCK - 1) / PREP_BLOCK, *o = block_offsets(nb, err);
    if (!o) return CUZK_ENOMEM;
    const size_t wpb = PREP_BLOCK / 64;
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
    for (size_t b = 0; b < nb; b++) {
        size_t c = 0, end = block_end(b, wpb, (n + 63) / 64);
        for (size_t w = b * wpb; w < end; w++) c += (size_t)__builtin_popcountll(word_bits(m, w));
        o[b] = c;
    }
    size_t total = offsets_from_counts(o, nb);
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
    for (size_t b = 0; b < nb; b++) {
        size_t at = *k + o[b], end = block_end(b, wpb, (n + 63) / 64);
        for (size_t w = b * wpb; w < end; w++)
            for (uint64_t x = word_bits(m, w); x; x &= x - 1, at++) {
                size_t i = 64 * w + (size_t)__builtin_ctzll(x);
                out[at] = src[i];
                if (idx) idx[at] = i;
            }
    }
    free(o);
    *k += total;
    return CUZK_OK;
}

/* Room for the j->n_tail scalars and positions of a split job's tail. */
static int alloc_tail(groth16_msm_job *j, cuzk_err *err)
{
    j->tail = malloc(sizeof(fr_t) * (j->n_tail + 1));
    j->tail_idx = malloc(sizeof(size_t) * (j->n_tail + 1));
    return j->tail && j->tail_idx ? CUZK_OK
                                  : cuzk_errf(err, CUZK_ENOMEM, "prove: out of memory (tail)");
}

/* prep_msm: classify and, when splitting, compact the tail (the set bits
 * of the classification's tail bitmap: no second pass over the scalars).
 * *tail_out (may be NULL) takes the tail bitmap. */
static int msm_job_prepare(groth16_msm_job *j, const fr_t *scalars, size_t n, uint64_t **tail_out,
                           cuzk_err *err)
{
    memset(j, 0, sizeof(*j));
    j->n = n;
    j->scalars = scalars;
    size_t n_ones, words = (n + 63) / 64 + 1;
    j->ones = calloc(words, sizeof(uint64_t));
    uint64_t *tail = calloc(words, sizeof(uint64_t));
    int rc =
        j->ones && tail ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "prove: out of memory (bitmap)");
    if (!rc) {
        msm_classify_bits(scalars, n, j->ones, tail, &n_ones, &j->n_tail, 0);
        j->split = msm_split_worthwhile(j->n_tail, n);
    }
    if (!rc && j->split) {
        rc = alloc_tail(j, err);
        cs_bitmap m = {tail, n};
        size_t k = 0;
        if (!rc) rc = gather_bits(j->tail, j->tail_idx, &k, scalars, &m, err);
    }
    if (tail_out && !rc)
        *tail_out = tail;
    else
        free(tail);
    return rc;
}

/* Gathers the scalars of the dense variables: inputs (all, or those with
 * input_density) then aux with aux_density; *k gets their count. */
static int gather(fr_t *out, size_t *k, const cs_prover *w, const cs_bitmap *input_density,
                  const cs_bitmap *aux_density, cuzk_err *err)
{
    *k = 0;
    for (size_t i = 0; i < w->num_inputs; i++)
        if (input_kept(input_density, i)) out[(*k)++] = w->input_assignment[i];
    cs_bitmap m = *aux_density;
    m.nbits = w->num_aux;
    return gather_bits(out, NULL, k, w->aux_assignment, &m, err);
}

/* Sets bit p of m (blocks of a parallel loop may share a word). */
static void or_bit(uint64_t *m, size_t p)
{
    __atomic_fetch_or(&m[p / 64], (uint64_t)1 << (p % 64), __ATOMIC_RELAXED);
}

/* Gathered position of aux bit b (a single bit) of word w whose density
 * word is d, the word's first kept variable at pos. */
static size_t kept_at(size_t pos, uint64_t d, uint64_t b)
{
    return pos + (size_t)__builtin_popcountll(d & (b - 1));
}

static bool in_tail(const fr_t *v)
{
    return !fr_is_zero(v) && !fr_is_one(v);
}

/*
 * The job of A or B over their gathered scalars (inputs, all or by in_d,
 * then the aux variables of aux_d) without gathering them: an aux
 * variable's class is L's (ones_l, tail_l over all aux variables), so the
 * job's bitmaps are L's compressed by the density, in parallel blocks of
 * PREP_BLOCK aux variables whose kept and tail counts give each block its
 * offsets. The tail is compacted the same way. Only a job that does not
 * split reads its scalars whole: then they are gathered into *s (*s stays
 * NULL otherwise, and so does j->scalars).
 */
static int derived_job(groth16_msm_job *j, fr_t **s, const cs_prover *w, const cs_bitmap *in_d,
                       const cs_bitmap *aux_d, const uint64_t *ones_l, const uint64_t *tail_l,
                       cuzk_err *err)
{
    memset(j, 0, sizeof(*j));
    *s = NULL;
    size_t ni = 0, tail_in = 0;
    for (size_t i = 0; i < w->num_inputs; i++)
        if (input_kept(in_d, i)) ni++, tail_in += in_tail(&w->input_assignment[i]);
    cs_bitmap m = *aux_d;
    m.nbits = w->num_aux;
    const size_t nw = (w->num_aux + 63) / 64, wpb = PREP_BLOCK / 64, nb = (nw + wpb - 1) / wpb;
    size_t *o = block_offsets(2 * nb, err), *ot = o ? o + nb : NULL;
    if (!o) return CUZK_ENOMEM;
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
    for (size_t b = 0; b < nb; b++) {
        size_t c = 0, ct = 0;
        for (size_t x = b * wpb; x < block_end(b, wpb, nw); x++) {
            uint64_t d = word_bits(&m, x);
            c += (size_t)__builtin_popcountll(d);
            ct += (size_t)__builtin_popcountll(tail_l[x] & d);
        }
        o[b] = c, ot[b] = ct;
    }
    j->n = ni + offsets_from_counts(o, nb);
    j->n_tail = tail_in + offsets_from_counts(ot, nb);
    j->split = msm_split_worthwhile(j->n_tail, j->n);
    j->ones = calloc((j->n + 63) / 64 + 1, sizeof(uint64_t));
    int rc = j->ones ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "prove: out of memory (bitmap)");
    if (!rc && j->split) rc = alloc_tail(j, err);
    if (rc) {
        free(o);
        return rc;
    }
    for (size_t i = 0, k = 0, t = 0; i < w->num_inputs; i++) {
        if (!input_kept(in_d, i)) continue;
        const fr_t *v = &w->input_assignment[i];
        if (fr_is_one(v)) or_bit(j->ones, k);
        if (j->split && in_tail(v)) j->tail[t] = *v, j->tail_idx[t++] = k;
        k++;
    }
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
    for (size_t b = 0; b < nb; b++) {
        size_t pos = ni + o[b], at = tail_in + ot[b];
        for (size_t x = b * wpb; x < block_end(b, wpb, nw); x++) {
            uint64_t d = word_bits(&m, x);
            for (uint64_t y = ones_l[x] & d; y; y &= y - 1)
                or_bit(j->ones, kept_at(pos, d, y & -y));
            if (j->split)
                for (uint64_t y = tail_l[x] & d; y; y &= y - 1, at++) {
                    j->tail[at] = w->aux_assignment[64 * x + (size_t)__builtin_ctzll(y)];
                    j->tail_idx[at] = kept_at(pos, d, y & -y);
                }
            pos += (size_t)__builtin_popcountll(d);
        }
    }
    free(o);
    if (j->split) return CUZK_OK;
    size_t k = 0;
    *s = malloc(sizeof(fr_t) * (j->n + 1));
    rc = *s ? gather(*s, &k, w, in_d, aux_d, err)
            : cuzk_errf(err, CUZK_ENOMEM, "prove: out of memory (scalars)");
    j->scalars = *s;
    return rc;
}

/* snarkjs' convention: A B - C on the odd points w^(2k+1) of the 2m domain
 * (w = omega_2m), no division by t. */
static int h_odd_lagrange(const ntt_domain *d, fr_t *a, fr_t *b, fr_t *c, size_t n, cuzk_err *err)
{
    ntt_domain d2;
    int rc = ntt_domain_init(&d2, d->log_n + 1, err);
    if (rc) return rc;
    fr_t *v[3] = {a, b, c};
    for (int k = 0; !rc && k < 3; k++) {
        memset(v[k] + n, 0, sizeof(fr_t) * (d->n - n));
        rc = ntt_shift_evaluations(d, v[k], &d2.omega, err);
    }
    for (size_t i = 0; !rc && i < d->n; i++) {
        fr_mul(&a[i], &a[i], &b[i]);
        fr_sub(&a[i], &a[i], &c[i]);
    }
    ntt_domain_free(&d2);
    return rc;
}

int groth16_h_domain(unsigned *log_m, const groth16_params *pk, const cs_prover *w, cuzk_err *err)
{
    size_t m = pk->h_basis == GROTH16_H_ODD_LAGRANGE ? pk->n_h : pk->n_h + 1;
    unsigned lg = 0;
    while (((size_t)1 << lg) < m) lg++;
    if (((size_t)1 << lg) != m || w->num_constraints > m)
        return cuzk_errf(err, CUZK_EINVAL, "prove: %zu constraints do not fit %zu H points",
                         w->num_constraints, pk->n_h);
    *log_m = lg;
    return CUZK_OK;
}

int groth16_shape_check(const cs_prover *w, cuzk_err *err)
{
    const cs_shape *s = w->shape;
    if (cs_shape_num_constraints(s) != w->num_constraints ||
        cs_shape_num_inputs(s) != w->num_inputs || cs_shape_num_aux(s) != w->num_aux)
        return cuzk_errf(err, CUZK_EINVAL,
                         "prove: the witness (%zu constraints, %zu inputs, %zu aux) is not of the "
                         "recorded shape (%zu, %zu, %zu)",
                         w->num_constraints, w->num_inputs, w->num_aux, cs_shape_num_constraints(s),
                         cs_shape_num_inputs(s), cs_shape_num_aux(s));
    return CUZK_OK;
}

int groth16_abc(const cs_prover *w, fr_t *a, fr_t *b, fr_t *c, cuzk_err *err)
{
    if (w->shape) {
        int rc = groth16_shape_check(w, err);
        return rc ? rc
                  : cs_shape_eval(w->shape, w->input_assignment, w->aux_assignment, a, b, c, err);
    }
    size_t n = w->num_constraints;
    memcpy(a, w->a, sizeof(fr_t) * n);
    memcpy(b, w->b, sizeof(fr_t) * n);
    memcpy(c, w->c, sizeof(fr_t) * n);
    return CUZK_OK;
}

int groth16_h_scalars(fr_t **out, const groth16_params *pk, const cs_prover *w, cuzk_err *err)
{
    *out = NULL;
    unsigned log_m;
    int rc = groth16_h_domain(&log_m, pk, w, err);
    if (rc) return rc;
    size_t m = (size_t)1 << log_m;
    ntt_domain d;
    rc = ntt_domain_init(&d, log_m, err);
    if (rc) return rc;
    fr_t *abc = malloc(sizeof(fr_t) * m * 3);
    if (!abc) rc = cuzk_errf(err, CUZK_ENOMEM, "prove: out of memory for a, b, c (%zu)", m);
    if (!rc) rc = groth16_abc(w, abc, abc + m, abc + 2 * m, err);
    if (!rc) {
        size_t n = w->num_constraints;
        bool odd = pk->h_basis == GROTH16_H_ODD_LAGRANGE;
        rc = (odd ? h_odd_lagrange : ntt_groth16_h)(&d, abc, abc + m, abc + 2 * m, n, err);
    }
    ntt_domain_free(&d);
    if (rc) {
        free(abc);
        return rc;
    }
    *out = abc;
    return CUZK_OK;
}

static int compute_h(g1_jac_t *h, const groth16_params *pk, const cs_prover *w, cuzk_err *err)
{
    fr_t *s;
    int rc = groth16_h_scalars(&s, pk, w, err);
    if (!rc) rc = g1_msm(h, pk->h, s, pk->n_h, 0, err);
    free(s);
    return rc;
}

int groth16_check_counts(const groth16_params *pk, const cs_prover *w, size_t na, size_t nb,
                         cuzk_err *err)
{
    if (w->num_inputs != pk->vk.n_ic || w->num_aux != pk->n_l || na != pk->n_a ||
        nb != pk->n_b_g1 || nb != pk->n_b_g2)
        return cuzk_errf(err, CUZK_EINVAL,
                         "prove: circuit (%zu inputs, %zu aux, A %zu, B %zu) does not match the "
                         "parameters (%zu, %zu, %zu, %zu)",
                         w->num_inputs, w->num_aux, na, nb, pk->vk.n_ic, pk->n_l, pk->n_a,
                         pk->n_b_g1);
    return CUZK_OK;
}

void groth16_jobs_free(groth16_jobs *j)
{
    groth16_msm_job_free(&j->l), groth16_msm_job_free(&j->a), groth16_msm_job_free(&j->b);
    free(j->sa), free(j->sb);
    memset(j, 0, sizeof *j);
}

int groth16_jobs_prepare(groth16_jobs *j, const groth16_params *pk, const cs_prover *w,
                         cuzk_err *err)
{
    memset(j, 0, sizeof *j);
    uint64_t *tail_l = NULL;
    int rc = msm_job_prepare(&j->l, w->aux_assignment, w->num_aux, &tail_l, err);
    if (!rc) rc = derived_job(&j->a, &j->sa, w, NULL, &w->a_aux_density, j->l.ones, tail_l, err);
    if (!rc)
        rc = derived_job(&j->b, &j->sb, w, &w->b_input_density, &w->b_aux_density, j->l.ones,
                         tail_l, err);
    free(tail_l);
    if (!rc) rc = groth16_check_counts(pk, w, j->a.n, j->b.n, err);
    if (rc) groth16_jobs_free(j);
    return rc;
}

/* A word of tail bits: bit i set when v[i] is neither 0 nor 1 (count of
 * them at most 64). */
static uint64_t tail_word(const fr_t *v, size_t count)
{
    uint64_t t = 0;
    for (size_t i = 0; i < count; i++) t |= (uint64_t)in_tail(&v[i]) << i;
    return t;
}

void groth16_jobs_count(const cs_prover *w, size_t n[3], size_t n_tail[3])
{
    const cs_bitmap *in_d[3] = {NULL, NULL, &w->b_input_density};
    const cs_bitmap *aux_d[3] = {NULL, &w->a_aux_density, &w->b_aux_density};
    for (int k = 0; k < 3; k++) {
        n[k] = n_tail[k] = 0;
        for (size_t i = 0; k > 0 && i < w->num_inputs; i++) /* L has no inputs */
            if (!in_d[k] || (i < in_d[k]->nbits && cs_bitmap_get(in_d[k], i)))
                n[k]++, n_tail[k] += in_tail(&w->input_assignment[i]);
    }
    const size_t nw = (w->num_aux + 63) / 64;
    size_t c1 = 0, c2 = 0, t0 = 0, t1 = 0, t2 = 0;
    cs_bitmap ma = *aux_d[1], mb = *aux_d[2]; /* a density shorter than aux: the rest unset */
    if (ma.nbits > w->num_aux) ma.nbits = w->num_aux;
    if (mb.nbits > w->num_aux) mb.nbits = w->num_aux;
#pragma omp parallel for schedule(static, 4096) reduction(+ : c1, c2, t0, t1, t2) if (nw > 4096)
    for (size_t x = 0; x < nw; x++) {
        size_t count = w->num_aux - 64 * x < 64 ? w->num_aux - 64 * x : 64;
        uint64_t t = tail_word(&w->aux_assignment[64 * x], count);
        uint64_t da = 64 * x < ma.nbits ? word_bits(&ma, x) : 0;
        uint64_t db = 64 * x < mb.nbits ? word_bits(&mb, x) : 0;
        c1 += (size_t)__builtin_popcountll(da), c2 += (size_t)__builtin_popcountll(db);
        t0 += (size_t)__builtin_popcountll(t), t1 += (size_t)__builtin_popcountll(t & da);
        t2 += (size_t)__builtin_popcountll(t & db);
    }
    n[0] += w->num_aux, n[1] += c1, n[2] += c2;
    n_tail[0] += t0, n_tail[1] += t1, n_tail[2] += t2;
}

static int compute_msms(groth16_msms *out, const groth16_params *pk, const cs_prover *w,
                        groth16_timings *t, cuzk_err *err)
{
    double t0 = groth16_now_ms();
    groth16_jobs j;
    int rc = groth16_jobs_prepare(&j, pk, w, err);
    t->prep_msm_ms += groth16_now_ms() - t0;
    if (rc) return rc;
    double t1 = groth16_now_ms();
    rc = compute_h(&out->h, pk, w, err);
    t->ntt_msm_h_ms += groth16_now_ms() - t1;
    if (!rc) rc = groth16_g1_run_job(&out->l, pk->l, &j.l, 0, t, err);
    if (!rc) rc = groth16_g1_run_job(&out->a, pk->a, &j.a, 0, t, err);
    if (!rc) rc = groth16_g1_run_job(&out->b1, pk->b_g1, &j.b, 0, t, err);
    groth16_timings g2t = {0}; /* B_G2 is reported as b_g2_msm_ms alone */
    double t2 = groth16_now_ms();
    if (!rc) rc = groth16_g2_run_job(&out->b2, pk->b_g2, &j.b, 0, &g2t, err);
    t->b_g2_msm_ms += groth16_now_ms() - t2;
    groth16_jobs_free(&j);
    return rc;
}

void groth16_assemble(groth16_proof *proof, const groth16_params *pk, const groth16_msms *m,
                      const fr_t *r, const fr_t *s)
{
    const groth16_vk *vk = &pk->vk;
    g1_jac_t a, c, t, alpha, beta1, delta1;
    g2_jac_t b, t2, delta2;
    g1_jac_from_affine(&alpha, &vk->alpha_g1);
    g1_jac_from_affine(&beta1, &vk->beta_g1);
    g1_jac_from_affine(&delta1, &vk->delta_g1);
    g2_jac_from_affine(&delta2, &vk->delta_g2);

    g1_jac_mul(&t, &delta1, r); /* A = alpha + A_msm + r delta */
    g1_jac_add(&a, &alpha, &m->a);
    g1_jac_add(&a, &a, &t);

    g2_jac_mul(&t2, &delta2, s); /* B = beta_2 + B2 + s delta_2 */
    g2_jac_add_affine(&b, &m->b2, &vk->beta_g2);
    g2_jac_add(&b, &b, &t2);

    fr_t rs;
    fr_mul(&rs, r, s);
    g1_jac_add(&c, &m->h, &m->l); /* C = H + L + s A_msm + r B1 + rs delta + s alpha + r beta */
    g1_jac_t acc;
    g1_jac_add(&acc, &m->a, &alpha); /* s (A_msm + alpha) */
    g1_jac_mul(&t, &acc, s);
    g1_jac_add(&c, &c, &t);
    g1_jac_add(&acc, &m->b1, &beta1); /* r (B1 + beta_1) */
    g1_jac_mul(&t, &acc, r);
    g1_jac_add(&c, &c, &t);
    g1_jac_mul(&t, &delta1, &rs);
    g1_jac_add(&c, &c, &t);

    g1_jac_to_affine(&proof->a, &a);
    g2_jac_to_affine(&proof->b, &b);
    g1_jac_to_affine(&proof->c, &c);
}

int groth16_draw_rs(fr_t rs[2], cuzk_err *err)
{
    for (int i = 0; i < 2; i++) {
        uint8_t bytes[32];
        do { /* uniform by rejection: 2^255 < 2r, so most draws are kept */
            if (cuzk_os_random(bytes, sizeof(bytes)))
                return cuzk_errf(err, CUZK_EIO, "prove: the OS random source failed");
            bytes[31] &= 0x7f;
        } while (!fr_from_bytes_le(&rs[i], bytes) || fr_is_zero(&rs[i]));
    }
    return CUZK_OK;
}

int groth16_prove(groth16_proof *proofs, const groth16_params *pk, const cs_prover *circuits,
                  size_t n, const fr_t *rs, groth16_timings *timings, cuzk_err *err)
{
    for (size_t i = 0; i < n; i++) {
        groth16_timings t = {0};
        double t0 = groth16_now_ms();
        groth16_msms m;
        fr_t own[2];
        int rc = compute_msms(&m, pk, &circuits[i], &t, err);
        if (!rc && !rs) rc = groth16_draw_rs(own, err);
        if (rc) return n > 1 ? cuzk_err_prefix(err, "circuit %zu: ", i) : rc;
        groth16_assemble(&proofs[i], pk, &m, rs ? &rs[2 * i] : &own[0],
                         rs ? &rs[2 * i + 1] : &own[1]);
        t.total_ms = groth16_now_ms() - t0;
        if (timings) timings[i] = t;
    }
    return CUZK_OK;
}
