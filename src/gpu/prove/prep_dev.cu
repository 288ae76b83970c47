/*
 * prep_dev.cu - the host side of the device prep (prep_dev.cuh): the
 * densities up, the counts kernel, the offsets by prefix sums on the host
 * (a few MB for a 2^27 witness), the jobs' outputs carved from one device
 * buffer, the scatter kernel. The counts come back anyway: the host needs
 * each job's size and split to run the MSMs.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/prove/prep_dev.cuh"

extern "C" {
#include "cuzk/msm.h"
}

/* Bitmap m's first `bits` bits onto the device at d through pool `pool`. */
static int put_bits(int pool, void *d, const cs_bitmap *m, size_t bits, const char *what,
                    cuzk_err *err)
{
    if (m->nbits < bits)
        return cuzk_errf(err, CUZK_EINVAL, "gpu prep: the %s density has %zu bits of %zu", what,
                         m->nbits, bits);
    return prove_upload(pool, GROTH16_XFER_JOBS, d, m->words, (bits + 63) / 64 * sizeof(uint64_t),
                        err);
}

/* counts (nb blocks) into exclusive offsets in place; the totals into n
 * and nt per job. */
static void offsets(uint32_t *counts, size_t nb, size_t *n, size_t *nt)
{
    for (int q = 0; q < PREP_COUNTS; q++) {
        uint64_t sum = 0;
        for (size_t b = 0; b < nb; b++) {
            uint32_t c = counts[b * PREP_COUNTS + q];
            counts[b * PREP_COUNTS + q] = (uint32_t)sum;
            sum += c;
        }
        if (q % 2)
            nt[q / 2] = (size_t)sum;
        else
            n[q / 2] = (size_t)sum;
    }
}

size_t prep_job_layout(size_t from, size_t n, size_t n_tail, bool split, size_t at[3])
{
    at[0] = from, from += cu_align256(((n + 63) / 64 + 1) * sizeof(uint64_t));
    at[1] = from, from += cu_align256((split ? n_tail : n) * sizeof(fr_t));
    at[2] = from, from += cu_align256((split ? n_tail : 0) * sizeof(uint32_t));
    return from;
}

/* The scratch's parts: A's aux density, B's input and aux densities, the
 * counts, the offsets (off[4]: where each begins); returns its size. */
static size_t scratch_layout(size_t ni, size_t na, size_t off[4])
{
    size_t nb = (ni + na + PREP_VARS - 1) / PREP_VARS, cbytes = nb * PREP_COUNTS * sizeof(uint32_t);
    size_t wa = cu_align256((na + 63) / 64 * sizeof(uint64_t));
    size_t wi = cu_align256((ni + 63) / 64 * sizeof(uint64_t));
    off[0] = wa, off[1] = wa + wi, off[2] = off[1] + wa, off[3] = off[2] + cu_align256(cbytes);
    return off[3] + cbytes + 1;
}

size_t prep_scratch_bytes(size_t ni, size_t na)
{
    size_t off[4];
    return scratch_layout(ni, na, off);
}

int prep_on_device(prep_jobs *out, const cs_prover *w, const wit_view *wit,
                   const groth16_params *pk, prep_buffers *bufs, int pool, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    size_t ni = w->num_inputs, na = w->num_aux, vars = ni + na;
    if (vars >= ((size_t)1 << 31))
        return cuzk_errf(err, CUZK_EINVAL, "gpu prep: %zu variables (at most 2^31 - 1)", vars);
    size_t nb = (vars + PREP_VARS - 1) / PREP_VARS, cbytes = nb * PREP_COUNTS * sizeof(uint32_t);
    size_t off[4], sbytes = scratch_layout(ni, na, off);
    size_t o_bi = off[0], o_ba = off[1], o_cnt = off[2], o_off = off[3];
    if (sbytes > bufs->limit)
        return cuzk_errf(err, CUZK_ENOMEM,
                         "gpu prep: its scratch (%zu bytes) is beyond the "
                         "plan's room for jobs (%zu)",
                         sbytes, bufs->limit);
    int rc = prove_dev_grow_free(bufs->scratch, bufs->scratch_cap, sbytes, err);
    char *s = rc ? NULL : (char *)*bufs->scratch;
    if (!rc) rc = put_bits(pool, s, &w->a_aux_density, na, "A aux", err);
    if (!rc) rc = put_bits(pool, s + o_bi, &w->b_input_density, ni, "B input", err);
    if (!rc) rc = put_bits(pool, s + o_ba, &w->b_aux_density, na, "B aux", err);
    if (rc) return rc;
    prep_view v;
    memset(&v, 0, sizeof v);
    v.w = *wit, v.n_in = ni, v.n_aux = na;
    v.in_mode[PREP_L] = PREP_IN_NONE; /* L: the aux variables */
    v.in_mode[PREP_A] = PREP_IN_ALL;
    v.aux_bits[PREP_A] = (const uint64_t *)s;
    v.in_mode[PREP_B] = PREP_IN_BITS;
    v.in_bits[PREP_B] = (const uint64_t *)(s + o_bi);
    v.aux_bits[PREP_B] = (const uint64_t *)(s + o_ba);
    uint32_t *counts = (uint32_t *)malloc(cbytes + 1);
    if (!counts) return cuzk_errf(err, CUZK_ENOMEM, "gpu prep: out of memory (%zu blocks)", nb);
    rc = prep_launch_count(&v, (uint32_t *)(s + o_cnt), err);
    if (!rc) {
        CU_WAIT(err, "prep_count_kernel");
        cudaError_t e = xfer_copy(counts, s + o_cnt, cbytes, GROTH16_XFER_RESULTS);
        if (e != cudaSuccess) rc = cu_fail(e, err, "prep counts", __FILE__, __LINE__);
    }
    size_t n[PREP_JOBS], nt[PREP_JOBS], at[PREP_JOBS][3], total = 0;
    if (!rc) {
        offsets(counts, nb, n, nt);
        rc = groth16_check_counts(pk, w, n[PREP_A], n[PREP_B], err);
    }
    for (int j = 0; !rc && j < PREP_JOBS; j++) {
        bool split = msm_split_worthwhile(nt[j], n[j]);
        out->n[j] = n[j], out->n_tail[j] = nt[j], out->out[j].split = split;
        total = prep_job_layout(total, n[j], nt[j], split, at[j]);
    }
    if (!rc && total + 1 + *bufs->scratch_cap > bufs->limit)
        rc = cuzk_errf(err, CUZK_ENOMEM,
                       "gpu prep: jobs of %zu bytes beside its scratch are "
                       "beyond the plan's room for them (%zu)",
                       total + 1, bufs->limit);
    if (!rc) rc = prove_dev_grow_free(bufs->jobs, bufs->jobs_cap, total + 1, err);
    if (!rc) rc = prove_upload(pool, GROTH16_XFER_JOBS, s + o_off, counts, cbytes, err);
    free(counts);
    char *d = rc ? NULL : (char *)*bufs->jobs;
    for (int j = 0; !rc && j < PREP_JOBS; j++) {
        prep_out *o = &out->out[j];
        o->ones = (uint64_t *)(d + at[j][0]);
        o->vals = (fr_d *)(d + at[j][1]);
        o->idx = o->split ? (uint32_t *)(d + at[j][2]) : NULL;
        size_t words = (n[j] + 63) / 64 + 1;
        CU(cudaMemsetAsync(o->ones, 0, words * sizeof(uint64_t), cu_stream()), err,
           "prep bitmap zero");
    }
    if (!rc) rc = prep_launch_scatter(&v, (const uint32_t *)(s + o_off), out->out, err);
    if (!rc) CU_WAIT(err, "prep_scatter_kernel");
    return rc;
}
