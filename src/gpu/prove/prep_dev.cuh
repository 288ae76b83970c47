/*
 * prep_dev.cuh - the prover's prep on the device, for a witness already
 * there (the witness-only path): the jobs groth16_jobs_prepare makes on
 * the CPU (prove_internal.h), made from the device witness instead. Each
 * of the three G1 MSM jobs, L over the aux variables, A over the inputs and
 * the aux variables of A's density, B over the inputs of B's input density
 * and the aux variables of its aux density, gets its ones bitmap and
 * either its compacted tail (the scalars other than 0 and 1, with their
 * positions in the job) or, when it does not split (msm_split_worthwhile,
 * the CPU's rule), its scalars gathered whole.
 *
 * Two kernels over blocks of PREP_VARS variables of [inputs || aux], a
 * thread per variable: prep_launch_count writes each block's six counts
 * (kept and tail variables of each job); the host turns them into offsets
 * (prefix sums) and sizes the outputs; prep_launch_scatter places each
 * block's variables from its offsets (a warp's kept variables are
 * consecutive in the job, so its ones bits are or-ed into at most two
 * bitmap words at once). The per-variable classification is here,
 * host-compilable, so the host build of the prover's tests (tests/gpuhost)
 * runs the same code.
 */
#ifndef CUZK_GPU_PROVE_PREP_DEV_CUH
#define CUZK_GPU_PROVE_PREP_DEV_CUH

#include "gpu/prove/prove_gpu.cuh"
#include "gpu/prove/wit_view.cuh"

#define PREP_VARS 1024 /* variables per block: 32 warps */
enum { PREP_L, PREP_A, PREP_B, PREP_JOBS };
enum { PREP_IN_NONE, PREP_IN_ALL, PREP_IN_BITS };
#define PREP_COUNTS (2 * PREP_JOBS) /* per block: kept and tail of each job */

/* A device witness and which of its variables each job keeps. */
typedef struct prep_view {
    wit_view w; /* inputs then aux */
    size_t n_in, n_aux;
    int in_mode[PREP_JOBS];              /* which inputs (PREP_IN_*) */
    const uint64_t *in_bits[PREP_JOBS];  /* PREP_IN_BITS: over the inputs */
    const uint64_t *aux_bits[PREP_JOBS]; /* over the aux variables; NULL: all */
} prep_view;

/* Where the scatter writes one job: its ones bitmap (zeroed), and vals
 * (with idx, the positions) its tail when split, else its scalars. */
typedef struct prep_out {
    uint64_t *ones;
    fr_d *vals;
    uint32_t *idx;
    bool split;
} prep_out;

/* Variable v's class: kept by each job (bit j), and 1 or another nonzero
 * value; nothing for v past the witness. */
typedef struct prep_var {
    unsigned kept;
    bool one, tail;
} prep_var;

HD prep_var prep_classify(const prep_view &p, size_t v)
{
    prep_var c = {0, false, false};
    if (v >= p.n_in + p.n_aux) return c;
    for (int j = 0; j < PREP_JOBS; j++) {
        bool k;
        if (v < p.n_in)
            k = p.in_mode[j] == PREP_IN_ALL ||
                (p.in_mode[j] == PREP_IN_BITS && (p.in_bits[j][v / 64] >> (v % 64) & 1));
        else
            k = !p.aux_bits[j] || (p.aux_bits[j][(v - p.n_in) / 64] >> ((v - p.n_in) % 64) & 1);
        c.kept |= (unsigned)k << j;
    }
    if (c.kept) {
        fr_d x = wit_get(p.w, v);
        c.one = x == fr_d::one();
        c.tail = !c.one && !x.is_zero();
    }
    return c;
}

/* Queues counts[b * PREP_COUNTS + 2 j (+ 1)] := the kept (tail) variables
 * of job j in block b, for every block of p's variables, on the default
 * stream (counts: device memory). */
int prep_launch_count(const prep_view *p, uint32_t *counts, cuzk_err *err);
/* Queues the scatter of every block from off (device memory, the counts'
 * layout: each block's first position and first tail index per job) into
 * out[PREP_JOBS] on the default stream. */
int prep_launch_scatter(const prep_view *p, const uint32_t *off, const prep_out *out,
                        cuzk_err *err);

/* The caller's device buffers, kept between proofs and grown here:
 * scratch (the densities, counts and offsets) and jobs (the outputs),
 * together to at most `limit` bytes (the plan's room for them). */
typedef struct prep_buffers {
    void **scratch, **jobs;
    size_t *scratch_cap, *jobs_cap;
    size_t limit;
} prep_buffers;

/* The device prep's layout, for its own buffers and for the plan's count
 * of them (residency.cu rule 2). One job's outputs from offset `from`:
 * its ones bitmap, then its tail's scalars and positions when split, else
 * its scalars whole, each part 256-byte aligned (at: their offsets);
 * returns where the job ends. */
size_t prep_job_layout(size_t from, size_t n, size_t n_tail, bool split, size_t at[3]);
/* The scratch for a witness of ni inputs and na aux. */
size_t prep_scratch_bytes(size_t ni, size_t na);

/* The jobs made on the device: each one's size, tail size and data. */
typedef struct prep_jobs {
    size_t n[PREP_JOBS], n_tail[PREP_JOBS];
    prep_out out[PREP_JOBS];
} prep_jobs;

/* The jobs of circuit w (its densities on the host) from its witness wit
 ([inputs || aux], as it is or kept packed) on the current device, the densities uploaded through
 * staging pool `pool`; checked against pk's counts
 * (groth16_check_counts); done when it returns. The buffers only grow
 * into free device memory, within bufs->limit: CUZK_ENOMEM when they
 * cannot (the circuit can still be prepped on the CPU). */
int prep_on_device(prep_jobs *out, const cs_prover *w, const wit_view *wit,
                   const groth16_params *pk, prep_buffers *bufs, int pool, cuzk_err *err);

#endif
