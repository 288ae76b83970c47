/*
 * prove_internal.h - the parts of the CPU Groth16 prover (prove.c) that
 * the GPU prover (src/gpu/prove) reuses so that both make the same
 * decisions and give the same proof bytes: the scalar gathering and the
 * supraseal split of each MSM (prep_msm), the H domain, the CPU H scalars
 * (for what the device NTT does not cover), the per-MSM runner on the CPU
 * (B_G2) and the final assembly with r and s.
 *
 * Usable from C and from CUDA C++ (the GPU prover's host code).
 */
#ifndef CUZK_GROTH16_PROVE_INTERNAL_H
#define CUZK_GROTH16_PROVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scalars of one MSM, split as supraseal does. */
typedef struct groth16_msm_job {
    size_t n, n_tail;
    const fr_t *scalars;
    uint64_t *ones;   /* bitmap of scalars == 1, (n + 63) / 64 + 1 words */
    fr_t *tail;       /* compacted tail scalars (when split) */
    size_t *tail_idx; /* their positions */
    bool split;       /* msm_split_worthwhile(n_tail, n) */
} groth16_msm_job;

/* prep_msm for one circuit: the three jobs, and the gathered A and B
 * scalars (owned) of a job that does not split. l.scalars points into the
 * circuit's aux_assignment; a.scalars and b.scalars into sa and sb, or
 * NULL (with sa / sb) for a split job, which reads only its ones bitmap
 * and its tail: A's and B's classes come from L's, compressed by their
 * densities, so their scalars are never gathered whole. */
typedef struct groth16_jobs {
    fr_t *sa, *sb;
    groth16_msm_job l, a, b;
} groth16_jobs;

/* Frees one job's bitmap and tail (a finished MSM's memory) and empties it. */
void groth16_msm_job_free(groth16_msm_job *j);
int groth16_jobs_prepare(groth16_jobs *j, const groth16_params *pk, const cs_prover *w,
                         cuzk_err *err);
void groth16_jobs_free(groth16_jobs *j);
/* The sizes groth16_jobs_prepare (and the device prep) would give w's
 * jobs L, A, B (n[0..2]) and their tails, the scalars other than 0 and 1
 * (n_tail): one pass over the witness, nothing made; what the device
 * plan counts them at (residency.cu rule 2). The densities must cover
 * the inputs and aux. */
void groth16_jobs_count(const cs_prover *w, size_t n[3], size_t n_tail[3]);
/* Whether w's inputs and aux and its A and B jobs' sizes (na, nb) are
 * pk's (the CPU prep's check, and the device prep's). */
int groth16_check_counts(const groth16_params *pk, const cs_prover *w, size_t na, size_t nb,
                         cuzk_err *err);

/* The four G1 sums and the G2 sum the assembly combines. */
typedef struct groth16_msms {
    g1_jac_t h, l, a, b1;
    g2_jac_t b2;
} groth16_msms;

/* The H evaluation domain of pk: 2^log_m points; checks that w fits. */
int groth16_h_domain(unsigned *log_m, const groth16_params *pk, const cs_prover *w, cuzk_err *err);
/* w's a, b, c (num_constraints each): copied, or, on the witness-only
 * path (w->shape), evaluated from the recorded shape and checked
 * (cs_shape_eval: an unsatisfied constraint is an error naming it). */
int groth16_abc(const cs_prover *w, fr_t *a, fr_t *b, fr_t *c, cuzk_err *err);
/* Whether w's counts are those of its recorded shape (w->shape set). */
int groth16_shape_check(const cs_prover *w, cuzk_err *err);
/* The pk->n_h H scalars on the CPU (NTTs), in a malloc'ed array of 2^log_m
 * entries (*out; the caller frees it). */
int groth16_h_scalars(fr_t **out, const groth16_params *pk, const cs_prover *w, cuzk_err *err);

/* r = the job's MSM over bases on the CPU: the bitmap batch addition plus
 * the tail MSM when split, else a plain MSM (msm.h threads convention);
 * adds the batch-addition and tail times to t. */
int groth16_g1_run_job(g1_jac_t *r, const g1_affine_t *bases, const groth16_msm_job *j, int threads,
                       groth16_timings *t, cuzk_err *err);
int groth16_g2_run_job(g2_jac_t *r, const g2_affine_t *bases, const groth16_msm_job *j, int threads,
                       groth16_timings *t, cuzk_err *err);
/* r = the tail MSM alone of a split job (its bases gathered). */
int groth16_g1_run_tail(g1_jac_t *r, const g1_affine_t *bases, const groth16_msm_job *j,
                        int threads, cuzk_err *err);
int groth16_g2_run_tail(g2_jac_t *r, const g2_affine_t *bases, const groth16_msm_job *j,
                        int threads, cuzk_err *err);

/* The proof from the sums, r and s (prove.c's file comment). */
void groth16_assemble(groth16_proof *proof, const groth16_params *pk, const groth16_msms *m,
                      const fr_t *r, const fr_t *s);
/* r and s uniform in [1, r) from the OS CSPRNG. */
int groth16_draw_rs(fr_t rs[2], cuzk_err *err);

double groth16_now_ms(void);

#ifdef __cplusplus
}
#endif

#endif
