/*
 * prove_gpu.cu - the Groth16 prover on a CUDA device (gpu_prove.h).
 *
 * start proves the circuits one after another on the device it is given,
 * under that device's prover lock (its working buffers, parameter cache
 * and staging pools are its own, as are the kernels' NTT tables and MSM
 * workspace: device.cuh), so starts on different devices run at once,
 * while two host threads per circuit get the next one ready:
 *   prep    groth16_jobs_prepare on the CPU: ones bitmaps and compacted
 *           tails (the gathered A / B scalars of a job that does not
 *           split), the very decisions of the CPU prover
 *           (prove_internal.h)                              prep_msm_ms
 *           then the split jobs' bitmaps, tail scalars and indexes onto
 *           the device (stage_jobs, a buffer per circuit parity, through
 *           a staging pool of its own)
 *   loader  a, b, c through the background staging pool into one of two
 *           device buffers, zero-padded to the domain (for snarkjs' odd-
 *           Lagrange H basis or a domain under 2^10, outside the device
 *           NTT, it computes the H scalars on the CPU and uploads those)
 *                                                           upload_ms
 *           a circuit of the witness-only path: its assignment, a, b, c
 *           evaluated from the shape on the device, and then, in place
 *           of the prep thread, its jobs made on the device from that
 *           witness (prep_dev.cuh; by the CPU's prep when the device has
 *           no memory free for them)                        prep_msm_ms
 *           the assignment as it is, or, when the plan keeps it packed
 *           (residency.cu rule 4), as its pieces crossed (wit_view.cuh;
 *           load_witness: one that needs more than planned goes as it
 *           is into the a/b/c buffer's second row, its H step then with
 *           one row)
 * and the prover thread, per circuit i, two steps in the order in which
 * their helpers finish (whichever of prep(i) and loader(i) is done first;
 * the other goes on meanwhile):
 *   H     the six transforms (gpu_ntt_h_dev): while loader(i) is still
 *         busy, row by row as a, b, c land (gpu_ntt_h_row_dev,
 *         overlapping the next row's upload, then gpu_ntt_h_finish_dev);
 *         when it is already done, all at once. Then the H MSM
 *                                                           ntt_msm_h_ms
 *   L/A/B waits for prep(i), then per job of L, A, B_G1: the batch
 *         addition over the staged bitmap (uploaded now if prep could
 *         not stage it)                                     batch_add_ms
 *         the tail's bases gathered from the cached points by the staged
 *         indexes, the tail MSM (or the whole MSM, scalars uploaded now,
 *         when the job does not split)                      tail_msm_ms
 *         and B_G2 the same way over B_G1's bitmap, tail scalars and
 *         indexes (gpu_msm_g2_dev) when its points fit on the device
 *         (prove_srs_g2), else streamed from host memory like a G1 array
 *         when the plan has room for that               b_g2_msm_ms
 * Under residency.cu rule 9 (the plan's lab_group, up to 4 on the
 * witness-only path's batches when anything of L, A, B_G1, B_G2 streams)
 * circuit i's H step is followed by the H steps of the next circuits that
 * are ready to join its group (member_ready: their prep done, their jobs
 * on the device; member_h), then by one L/A/B step serving the group in
 * one pass over each array (lab_step: stream.cu's jobs of a pass).
 * prep(i+1) and loader(i+1) start as soon as loader(i) is done and the
 * a/b/c buffer they fill (the other one) is free, circuit i-1's H MSM
 * over (try_spawn, from whichever of the two finishes last), so the next
 * upload runs under everything from there to the next circuit's H step;
 * with the H step in pieces and the witness in its own buffer (the
 * loader then fills only that), as soon as circuit i's H step has read
 * the witness (witness_read), so the upload and the device prep of
 * circuit i + 1 run under the rest of circuit i's H step and its MSM;
 * with three rows at once, as soon as loader(i) is done, the witness
 * upload and the device prep going first and only the evaluation of a,
 * b, c waiting for its a/b/c buffer (abc_wait).
 * So a single circuit takes about max(upload, prep + L/A/B) + H when prep
 * is quick, upload + max(H, prep) + L/A/B when it is not, and in a batch
 * the next circuit's upload and prep hide behind this one's device work.
 * A fed start (gpu_prove_start_fed) asks its feed for more circuits when
 * the next slot would start and it has none (feed_more, from try_spawn),
 * proves them the same way, and tells the feed of each circuit done on the
 * device (consumed), whose host storage may then go: a circuit's host data
 * is read by its loader and prep only, and what finish needs is copied.
 * gpu_total_ms is both steps, waits included. The loader copies on a
 * non-blocking stream, so its DMA runs beside the default stream's
 * kernels.
 *
 * finish: B_G2 on the CPU for the circuits whose B_G2 the device did not
 * do (the same job: batch addition and tail MSM), in parallel (one host
 * thread per circuit, sharing the cores),
 * then groth16_assemble; b_g2_msm_ms. total_ms = gpu_total_ms +
 * b_g2_msm_ms, the circuit's share of start and finish. The sums are
 * group elements, so whatever order the device adds in, the affine proof
 * bytes are those of groth16_prove.
 *
 * The working buffers (a/b/c twice, scalars, indexes, gathered bases,
 * bitmap) grow to the largest proof seen on their device and stay
 * allocated. A start that runs out of device memory under a plan that
 * fit, before its feed consumed a circuit, releases what the prover holds
 * on the device and runs again with a budget 1/8 lower (residency.cu
 * rule 1), at most START_RETRIES times. With fewer than three rows of
 * a, b, c (the plan's), the H step runs in pieces (h_pieces). Every thread that calls CUDA for a
 * start (the prover thread, prep, loader, the staging pools' copy threads) first makes the start's
 * device current.
 *
 * What crosses PCIe is accounted per circuit (gpu/util/xfer_stats.cuh):
 * every copy goes through the accounting module, and each thread binds
 * the account of the circuit it works for (the prover thread circuit i's
 * during its steps, and circuit 0's while the start makes parameters and
 * shapes resident; prep and loader theirs), its compute calls bracketed
 * by events (xfer_kernels). As circuit i is done its account is settled
 * into its timings (t.xfer: bytes by kind, copy, kernel and hidden time).
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "gpu/prove/prep_dev.cuh"
#include "gpu/prove/prove_gpu.cuh"
#include "gpu/prove/residency.cuh"
#include "gpu/prove/wit_view.cuh"

extern "C" {
#include "cuzk/engine_log.h"
#include "cuzk/msm.h"
}

static std::mutex prove_mu[CU_MAX_SLOTS];
#define START_RETRIES 2 /* a start out of memory tries again with a smaller plan */

void prove_lock(int dev)
{
    prove_mu[dev].lock();
}

void prove_unlock(int dev)
{
    prove_mu[dev].unlock();
}

void prove_each_device(void (*fn)(int dev, const void *arg), const void *arg)
{
    int cur = 0;
    cu_ctx ctx = cu_context();
    if (cudaGetDevice(&cur) != cudaSuccess) cudaGetLastError();
    for (int slot = 0; slot < CU_MAX_SLOTS; slot++) {
        prove_lock(slot);
        fn(slot, arg);
        prove_unlock(slot);
    }
    cudaSetDevice(cur);
    cu_context_set(ctx);
}

/* Device working buffers, kept between proofs: a/b/c (two, for the
 * loader of the next circuit), the split jobs' data staged by prep (one
 * more than the plan's lab_group: jobs_slot), tail scalars, tail indexes,
 * gathered tail bases, ones bitmap; each with its capacity in bytes. */
#define PROVE_JOB_BUFS (PROVE_PASS_JOBS + 1)
struct prove_ws {
    void *abc[2], *jobs[PROVE_JOB_BUFS], *scal, *idx, *tb, *bits, *wit, *prep;
    size_t abc_cap[2], jobs_cap[PROVE_JOB_BUFS], scal_cap, idx_cap, tb_cap, bits_cap, wit_cap,
        prep_cap;
    char *park; /* host rows of the H step with one row on the device (h_pieces) */
    size_t park_cap;
    bool park_pinned; /* park page-locked (cudaHostAlloc), else malloc'ed */
};
static prove_ws prove_wss[CU_MAX_SLOTS]; /* one per device, under its prover lock */
/* Each slot's park_cap, for readers without its lock (the engine's
 * budget, gpu_prove_parked_host_bytes). */
static std::atomic<size_t> park_held[CU_MAX_SLOTS];

/* Where a job's data is on the device: a split job's ones bitmap, tail
 * scalars and tail indexes (bits NULL: not there yet); a job that does not
 * split, its scalars in scal (NULL: not there yet). */
struct job_dev {
    uint64_t *bits;
    fr_t *scal;
    uint32_t *idx;
};

/* One circuit of a start: its jobs, sums, r and s, timings, and the
 * state its helper threads report. */
struct prove_one {
    groth16_jobs jobs; /* only b (for B_G2) survives start */
    groth16_msms m;
    fr_t r, s;
    groth16_timings t;
    int prep_rc, load_rc; /* the helper threads' results */
    cuzk_err prep_err, load_err;
    bool prep_done, load_done; /* under prove_run.mu */
    bool spawned;              /* its helpers were started (under mu) */
    bool h_free;               /* its H MSM is done: its a/b/c buffer is free (under mu) */
    bool wit_free;             /* its H step in pieces has read the witness (under mu) */
    bool lab_free;             /* its L/A/B step is over: its ws->jobs buffer is free (under mu) */
    job_dev jd[3];             /* split job L, A, B's data on the device (prep's, or on the spot) */
    int loaded;                /* a, b, c rows on the device so far (under mu) */
    bool dev_prep;             /* the loader makes its jobs on the device (prep_dev.cuh) */
    double abc_wait_ms;        /* the loader's wait for its a/b/c buffer (abc_wait) */
    bool b2_done;              /* the device computed m.b2 */
    wit_view wv;               /* its witness on the device, as its loader left it */
    bool wit_row;              /* kept packed it needed more than planned: it is in the a/b/c
                                  buffer's second row, its H step with one row (load_witness) */
};

struct gpu_prove_pending {
    const groth16_params *pk;
    size_t n;
    prove_one *c;
};

/* Whether the device NTT computes H (else the CPU's H scalars go up). */
static bool h_on_device(const groth16_params *pk, unsigned lg)
{
    return pk->h_basis == GROTH16_H_MONOMIAL && lg >= 10 && lg <= 28;
}

struct prove_run;
/* The steps of a start before its first circuit, timed (setup_note):
 * the slot's lock; the slot's device made current and the start's arrays;
 * the timing base (an event on the slot's stream, waited for:
 * xfer_run_begin; none on a lane); the loader's staging scratch (made by
 * the big prover's first start) and the bytes the prover holds on the
 * device; the budget (the device's free memory asked); the plan; the
 * a/b/c and witness buffers; the parameters; the shapes; the first
 * circuit's helpers started. */
enum {
    SETUP_LOCK,
    SETUP_ENTER,
    SETUP_TIMING,
    SETUP_HELD,
    SETUP_BUDGET,
    SETUP_PLAN,
    SETUP_BUFFERS,
    SETUP_PARAMS,
    SETUP_SHAPES,
    SETUP_HELPERS,
    SETUP_STEPS
};
#define SETUP_NOTE_MS 20.0 /* a setup longer than this is logged step by step */
static void row_loaded(prove_run *r, prove_one *c);
static bool h_in_pieces(const prove_run *r);

/* Bytes of a circuit's witness on the device ([inputs || aux]) when it
 * takes the witness-only path, else 0. */
static size_t witness_bytes(const cs_prover *w)
{
    return w->shape ? (w->num_inputs + w->num_aux) * sizeof(fr_t) : 0;
}

/* The witness kept packed (wit_view.cuh, residency.cu rule 4): its inputs
 * as they are, then the table of its pieces, then the pieces. */
static size_t kept_inputs(size_t n_in)
{
    return (n_in * sizeof(fr_t) + 15) & ~(size_t)15;
}
static size_t kept_head(const cs_prover *w)
{
    return kept_inputs(w->num_inputs) + wit_table_bytes(w->num_aux);
}

/* What the witnesses of each shape took, the most seen (a few shapes,
 * the most recent first): the plan's figures for the next circuits of
 * that shape, whose values differ a little: the pieces' bytes of a
 * witness kept packed, and the device bytes of its MSM jobs (jobs_count).
 * Zero: not seen yet. */
#define KEPT_SHAPES 8
#define KEPT_MARGIN 4 /* a figure a quarter more than seen */
struct shape_seen {
    const cs_shape *s;
    size_t n_aux, kept;
    prove_jobs jobs;
};
static shape_seen kept_seen[KEPT_SHAPES];
static std::mutex kept_mu;

/* w's entry (under kept_mu), first now: made when new, the oldest dropped. */
static shape_seen *seen_entry(const cs_prover *w)
{
    size_t k = 0;
    while (k < KEPT_SHAPES - 1 && !(kept_seen[k].s == w->shape && kept_seen[k].n_aux == w->num_aux))
        k++;
    shape_seen e = kept_seen[k];
    if (e.s != w->shape || e.n_aux != w->num_aux) e = {w->shape, w->num_aux, 0, {0, 0, 1}};
    memmove(&kept_seen[1], &kept_seen[0], k * sizeof kept_seen[0]);
    kept_seen[0] = e;
    return &kept_seen[0];
}

/* w's entry's figures as they are (zeros when none). */
static shape_seen seen_of(const cs_prover *w)
{
    std::lock_guard<std::mutex> g(kept_mu);
    for (size_t k = 0; k < KEPT_SHAPES; k++)
        if (kept_seen[k].s == w->shape && kept_seen[k].n_aux == w->num_aux) return kept_seen[k];
    return {w->shape, w->num_aux, 0, {0, 0, 1}};
}

static void kept_note(const cs_prover *w, size_t bytes)
{
    std::lock_guard<std::mutex> g(kept_mu);
    shape_seen *e = seen_entry(w);
    if (bytes > e->kept) e->kept = bytes;
}

/* The device bytes of jobs of sizes n and tails nt (prove_jobs), a
 * split job's tails a quarter more (KEPT_MARGIN: the next circuits of the
 * shape, whose values differ a little): the device prep's buffer and
 * scratch; and the largest job alone beside the scratch and a bitmap more
 * (the buffers of the uploads on the spot, job_ready: the scalars of one
 * job, the bitmap of another). A dense job's bytes are its scalars whole,
 * whatever its values. */
static prove_jobs jobs_of(const cs_prover *w, const size_t n[3], const size_t nt[3])
{
    size_t scratch = prep_scratch_bytes(w->num_inputs, w->num_aux), most = 0, all = 1, at[3];
    for (int j = 0; j < 3; j++) {
        bool split = msm_split_worthwhile(nt[j], n[j]);
        size_t b = prep_job_layout(0, n[j], split ? nt[j] + nt[j] / KEPT_MARGIN : nt[j], split, at);
        all += b;
        if (b > most) most = b;
    }
    size_t bits = ((w->num_inputs + w->num_aux + 63) / 64 + 1) * sizeof(uint64_t);
    return {all + scratch, most + bits + scratch, 1};
}

/* The figures j of w's jobs (jobs_of): its shape's grown to them. */
static void jobs_note(const cs_prover *w, prove_jobs j)
{
    if (!w->shape) return;
    std::lock_guard<std::mutex> g(kept_mu);
    shape_seen *e = seen_entry(w);
    if (j.each > e->jobs.each) e->jobs.each = j.each;
    if (j.least > e->jobs.least) e->jobs.least = j.least;
}

/* The same from the CPU's prep's jobs. */
static void prep_note(const cs_prover *w, const groth16_jobs *j)
{
    size_t n[3] = {j->l.n, j->a.n, j->b.n}, nt[3] = {j->l.n_tail, j->a.n_tail, j->b.n_tail};
    jobs_note(w, jobs_of(w, n, nt));
}

/* The figures of w's MSM jobs for the plan (residency.cu rule 2),
 * counted (groth16_jobs_count: a pass over the witness) and noted for its
 * shape. */
static prove_jobs jobs_count(const cs_prover *w)
{
    prove_jobs j = gpu_prove_jobs_bytes(w);
    jobs_note(w, j);
    return j;
}

/* The device bytes the plan keeps for w's witness kept packed: its head,
 * and its pieces' bytes (seen for its shape, else counted now: a pass over
 * the witness, once per shape) and a quarter more (KEPT_MARGIN); 0 off the
 * witness-only path. A circuit that needs more goes to the a/b/c buffer's
 * second row as it is (load_witness). */
static size_t kept_bytes(const cs_prover *w)
{
    if (!w->shape) return 0;
    size_t bytes = seen_of(w).kept;
    if (!bytes) {
        bytes = prove_upload_fr_bytes(w->aux_assignment, w->num_aux);
        kept_note(w, bytes);
    }
    return kept_head(w) + bytes + bytes / KEPT_MARGIN;
}

extern "C" gpu_prove_jobs gpu_prove_jobs_bytes(const cs_prover *w)
{
    size_t n[3], nt[3];
    groth16_jobs_count(w, n, nt);
    return jobs_of(w, n, nt);
}

extern "C" size_t gpu_prove_witness_kept_bytes(const cs_prover *w)
{
    return kept_bytes(w);
}

void prove_kept_forget(const cs_shape *s)
{
    std::lock_guard<std::mutex> g(kept_mu);
    for (size_t k = 0; k < KEPT_SHAPES; k++)
        if (kept_seen[k].s == s) kept_seen[k] = {NULL, 0, 0, {0, 0, 1}};
}

/* Split job j's bitmap, tail scalars and tail indexes (idx: room for
 * n_tail 32-bit indexes) into d through staging pool `pool`. */
static int job_put(int pool, const job_dev *d, const groth16_msm_job *j, uint32_t *idx,
                   cuzk_err *err)
{
    size_t nt = j->n_tail;
    for (size_t k = 0; k < nt; k++) idx[k] = (uint32_t)j->tail_idx[k];
    const int J = GROTH16_XFER_JOBS;
    int rc = prove_upload(pool, J, d->bits, j->ones, (j->n + 63) / 64 * sizeof(uint64_t), err);
    if (!rc) rc = prove_upload(pool, J, d->scal, j->tail, nt * sizeof(fr_t), err);
    if (!rc) rc = prove_upload(pool, J, d->idx, idx, nt * sizeof(uint32_t), err);
    return rc;
}

static uint32_t *idx_buffer(size_t n, cuzk_err *err)
{
    uint32_t *idx = (uint32_t *)malloc(n * sizeof(uint32_t) + 1);
    if (!idx) cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory (indexes)");
    return idx;
}

/* A split job's data that prep did not stage, on the spot into ws->bits,
 * ws->scal and ws->idx. */
static int job_upload(prove_ws *ws, job_dev *d, const groth16_msm_job *j, const groth16_params *pk,
                      cuzk_err *err)
{
    size_t nt = j->n_tail;
    int rc = prove_dev_grow(&ws->bits, &ws->bits_cap, (j->n + 63) / 64 * sizeof(uint64_t), pk, err);
    if (!rc) rc = prove_dev_grow(&ws->scal, &ws->scal_cap, nt * sizeof(fr_t), pk, err);
    if (!rc) rc = prove_dev_grow(&ws->idx, &ws->idx_cap, nt * sizeof(uint32_t), pk, err);
    uint32_t *idx = rc ? NULL : idx_buffer(nt, err);
    if (!rc && !idx) rc = CUZK_ENOMEM;
    *d = {(uint64_t *)ws->bits, (fr_t *)ws->scal, (uint32_t *)ws->idx};
    if (!rc) rc = job_put(STAGE_FG, d, j, idx, err);
    free(idx);
    return rc;
}

/* Job j, its data on the device at *d, as a pass reads it. */
static prove_job job_view(const groth16_msm_job *j, const job_dev *d)
{
    return {j->split ? d->bits : NULL, d->scal, d->idx, j->n, j->split ? j->n_tail : 0};
}

/* A job's data on the device: where prep put it (*d), else uploaded now
 * into the on-the-spot buffers (ws->bits, scal, idx: one circuit's at a
 * time) and *d set; *pj: the job as a pass reads it. */
static int job_ready(prove_ws *ws, prove_job *pj, const groth16_msm_job *j, job_dev *d,
                     const groth16_params *pk, cuzk_err *err)
{
    if (j->n >= ((size_t)1 << 31))
        return cuzk_errf(err, CUZK_EINVAL, "gpu prove: an MSM of %zu points", j->n);
    int rc = CUZK_OK;
    if (j->split && !d->bits) {
        rc = job_upload(ws, d, j, pk, err);
    } else if (!j->split && !d->scal) { /* not gathered on the device: up now */
        rc = prove_dev_grow(&ws->scal, &ws->scal_cap, j->n * sizeof(fr_t), pk, err);
        if (!rc)
            rc = prove_upload(STAGE_FG, GROTH16_XFER_JOBS, ws->scal, j->scalars,
                              j->n * sizeof(fr_t), err);
        d->scal = (fr_t *)ws->scal;
    }
    *pj = job_view(j, d);
    return rc;
}

/* Whether a job's data is on the device already (job_ready uploads
 * nothing). */
static bool job_staged(const groth16_msm_job *j, const job_dev *d)
{
    return j->n == 0 || (j->split ? d->bits != NULL : d->scal != NULL);
}

/* The helpers of each circuit and what they share; mu and cv guard and
 * signal the helpers' done flags. */
struct prove_run {
    gpu_prove_pending *p;
    const cs_prover **circ; /* the start's circuits (n0), then those fed: cap slots */
    const cs_shape **ready; /* the start's circuits' shapes, made ready (n0: a consumed
                               circuit's storage may be gone) */
    size_t n0, cap;
    const gpu_prove_feed *feed; /* NULL: none */
    bool fed_out, feeding;      /* the feed gave none / is being asked (under mu) */
    int device;
    int slot;     /* of its state (lane.cuh): device, or its lane's */
    prove_ws *ws; /* the slot's */
    unsigned lg;
    prove_plan plan; /* residency.cu's, for this start */
    char *wit;       /* the witness buffer: ws->wit, or ws->abc[0] when the plan shares it */
    size_t wit_cap;
    size_t nabc; /* a/b/c buffers: circuit i loads into ws->abc[i % nabc] */
    prove_srs srs;
    size_t consumed; /* circuits reported consumed to the feed */
    std::thread *prep, *load;
    xfer_acct *xa; /* circuit i's copies and kernels (cap slots; xfer_stats.cuh) */
    xfer_run xr;
    bool stop; /* no more helpers start (under mu) */
    std::mutex mu;
    std::condition_variable cv;
    /* when the start was asked for, then the end of each of its setup's
     * steps (SETUP_STEPS): setup_note logs them when they took long */
    double setup_at[SETUP_STEPS + 1];
};

static void try_spawn(prove_run *r, size_t k);

/* The end of a setup step (SETUP_*) now. */
static void setup_mark(prove_run *r, int step)
{
    r->setup_at[step + 1] = groth16_now_ms();
}

/* The setup's steps logged when together they took more than
 * SETUP_NOTE_MS: where a start's time before its first circuit went
 * (the small-circuit lane's latency under load, issue 24). */
static void setup_note(const prove_run *r)
{
    static const char *names[SETUP_STEPS] = {"lock", "enter",   "timing",     "held",   "budget",
                                             "plan", "buffers", "parameters", "shapes", "helpers"};
    double total = r->setup_at[SETUP_STEPS] - r->setup_at[0];
    if (total <= SETUP_NOTE_MS) return;
    char steps[384];
    size_t off = 0;
    for (int k = 0; k < SETUP_STEPS && off < sizeof steps; k++)
        off += (size_t)snprintf(steps + off, sizeof steps - off, "%s%s %.1f", k ? ", " : "",
                                names[k], r->setup_at[k + 1] - r->setup_at[k]);
    engine_log(LOG_INFO, "gpu prove: %s %d: %.1f ms before its first circuit (%s ms)",
               r->slot >= CU_MAX_DEVICES ? "lane of device" : "device", r->device, total, steps);
}

static void row_loaded(prove_run *r, prove_one *c)
{
    {
        std::lock_guard<std::mutex> g(r->mu);
        c->loaded++;
    }
    r->cv.notify_all();
}

static void helper_done(prove_run *r, bool *flag)
{
    {
        std::lock_guard<std::mutex> g(r->mu);
        *flag = true;
    }
    r->cv.notify_all();
}

/* The jobs buffer of circuit i: one of the plan's jobs_slots (lab_group
 * + 1 where rule 2's room holds them) in turn, so a whole group's jobs are
 * on the device for its pass (rule 9) while the next group's first
 * circuit prepares its own. */
static size_t jobs_slot(const prove_run *r, size_t i)
{
    return i % r->plan.jobs_slots;
}

/* Waits until circuit i's jobs buffer is free (the L/A/B step of the
 * circuit jobs_slots before it is over); false when the start stops
 * instead. */
static bool jobs_buffer_free(prove_run *r, size_t i)
{
    size_t back = r->plan.jobs_slots;
    std::unique_lock<std::mutex> lk(r->mu);
    r->cv.wait(lk, [r, i, back] { return r->stop || i < back || r->p->c[i - back].lab_free; });
    return !r->stop;
}

/* Whether the loader makes w's jobs on the device (prep_dev.cuh): a
 * witness-only circuit whose witness goes to the device. */
static bool preps_on_device(const prove_run *r, const cs_prover *w)
{
    return w->shape && h_on_device(r->p->pk, r->lg);
}

/* Prep's second part: the split jobs' bitmaps, tail scalars and tail
 * indexes into circuit i's jobs buffer (jobs_slot, once free),
 * through a staging pool of its own, so that the L/A/B step uploads
 * nothing: on the spot its uploads shared the bus with the next circuit's
 * a, b, c and waited behind its chunks (batch_add and tail_msm took 10-30
 * ms longer while an upload ran). The buffer only grows here when no
 * device memory need be freed for it; a job left unstaged is uploaded on
 * the spot. */
static int stage_jobs(prove_run *r, size_t i, cuzk_err *err)
{
    prove_one *c = &r->p->c[i];
    const groth16_msm_job *jobs[3] = {&c->jobs.l, &c->jobs.a, &c->jobs.b};
    size_t off[3][3], total = 0, max_tail = 0;
    for (int k = 0; k < 3; k++) {
        const groth16_msm_job *j = jobs[k];
        if (!j->split) continue;
        off[k][0] = total, total += cu_align256((j->n + 63) / 64 * sizeof(uint64_t));
        off[k][1] = total, total += cu_align256(j->n_tail * sizeof(fr_t));
        off[k][2] = total, total += cu_align256(j->n_tail * sizeof(uint32_t));
        if (j->n_tail > max_tail) max_tail = j->n_tail;
    }
    if (total == 0) return CUZK_OK;
    if (!jobs_buffer_free(r, i)) return CUZK_OK;
    size_t b = jobs_slot(r, i);
    prove_ws *ws = r->ws;
    if (prove_dev_grow_free(&ws->jobs[b], &ws->jobs_cap[b], total, err)) {
        cudaGetLastError(); /* not staged: uploaded on the spot */
        return CUZK_OK;
    }
    uint32_t *idx = idx_buffer(max_tail, err);
    if (!idx) return CUZK_ENOMEM;
    char *d = (char *)ws->jobs[b];
    int rc = CUZK_OK;
    for (int k = 0; k < 3 && !rc; k++) {
        if (!jobs[k]->split) continue;
        c->jd[k] = {(uint64_t *)(d + off[k][0]), (fr_t *)(d + off[k][1]),
                    (uint32_t *)(d + off[k][2])};
        rc = job_put(STAGE_PREP, &c->jd[k], jobs[k], idx, err);
    }
    free(idx);
    return rc;
}

static void prep_thread(prove_run *r, size_t i)
{
    prove_one *c = &r->p->c[i];
    xfer_bind(&r->xa[i]);
    double t0 = groth16_now_ms(), cpu0 = xfer_thread_cpu_ms();
    c->prep_rc = groth16_jobs_prepare(&c->jobs, r->p->pk, r->circ[i], &c->prep_err);
    if (!c->prep_rc) prep_note(r->circ[i], &c->jobs);
    c->t.prep_msm_ms = groth16_now_ms() - t0;
    cudaError_t e = c->prep_rc ? cudaSuccess : cu_slot_enter(r->slot);
    if (e != cudaSuccess)
        c->prep_rc = cu_fail(e, &c->prep_err, "cudaSetDevice", __FILE__, __LINE__);
    if (!c->prep_rc) c->prep_rc = stage_jobs(r, i, &c->prep_err);
    xfer_cpu(&r->xa[i], xfer_thread_cpu_ms() - cpu0);
    xfer_bind(NULL);
    helper_done(r, &c->prep_done);
}

/* The loader's second part for a circuit of the witness-only path: its
 * jobs made on the device from the witness it just uploaded
 * (prep_on_device) into circuit i's jobs buffer (jobs_slot), once free; with no device memory free
 * for them, by the CPU's prep, their data then uploaded by the L/A/B step. */
static void device_prep(prove_run *r, size_t i)
{
    prove_one *c = &r->p->c[i];
    double t0 = groth16_now_ms();
    if (!jobs_buffer_free(r, i)) {
        c->prep_rc = cuzk_errf(&c->prep_err, CUZK_ECANCELLED, "gpu prove: stopped");
        return;
    }
    size_t b = jobs_slot(r, i);
    prove_ws *ws = r->ws;
    /* rule 2: with the other jobs buffers (the loaders', one at a time) in the plan's room */
    size_t others = 0;
    for (size_t k = 0; k < PROVE_JOB_BUFS; k++) others += k == b ? 0 : ws->jobs_cap[k];
    prep_buffers bufs = {&ws->prep, &ws->jobs[b], &ws->prep_cap, &ws->jobs_cap[b],
                         r->plan.jobs_room > others ? r->plan.jobs_room - others : 0};
    prep_jobs pj;
    const cs_prover *w = r->circ[i];
    c->prep_rc = prep_on_device(&pj, w, &c->wv, r->p->pk, &bufs, STAGE_BG, &c->prep_err);
    groth16_msm_job *jobs[3] = {&c->jobs.l, &c->jobs.a, &c->jobs.b};
    for (int k = 0; !c->prep_rc && k < 3; k++) {
        jobs[k]->n = pj.n[k], jobs[k]->n_tail = pj.n_tail[k], jobs[k]->split = pj.out[k].split;
        c->jd[k] = {pj.out[k].ones, (fr_t *)pj.out[k].vals, pj.out[k].idx};
    }
    if (!c->prep_rc) jobs_note(w, jobs_of(w, pj.n, pj.n_tail));
    if (c->prep_rc == CUZK_ENOMEM) {
        engine_log(LOG_INFO, "gpu prove: circuit %zu's jobs made on the CPU: %s", i,
                   c->prep_err.msg);
        c->dev_prep = false;
        c->prep_rc = groth16_jobs_prepare(&c->jobs, r->p->pk, w, &c->prep_err);
        if (!c->prep_rc) prep_note(w, &c->jobs);
    }
    c->t.prep_msm_ms = groth16_now_ms() - t0;
}

/* Whether fed circuit i fits what the start made ready: its shape (none,
 * or one of the start's own) and its witness (the witness buffer). */
static int fed_fits(prove_run *r, size_t i, cuzk_err *err)
{
    if (i < r->n0) return CUZK_OK;
    const cs_prover *w = r->circ[i];
    bool known = !w->shape;
    for (size_t k = 0; k < r->n0 && !known; k++) known = r->ready[k] == w->shape;
    /* kept packed, one that needs more than planned goes to the a/b/c buffer's second row */
    size_t room = r->plan.witness_kept ? ((size_t)1 << r->lg) * sizeof(fr_t) : r->wit_cap;
    if (!known || witness_bytes(w) > room)
        return cuzk_errf(err, CUZK_EINVAL, "gpu prove: a fed circuit of another shape");
    return CUZK_OK;
}

/* Waits until circuit i's a/b/c buffer (ws->abc[i % nabc]) is free, its
 * last user's H MSM over; the wait counted in abc_wait_ms, not in the
 * upload's time. CUZK_ECANCELLED when the start stops instead. */
static int abc_wait(prove_run *r, size_t i, cuzk_err *err)
{
    prove_one *c = &r->p->c[i];
    double t0 = groth16_now_ms();
    bool stop;
    {
        std::unique_lock<std::mutex> lk(r->mu);
        r->cv.wait(lk, [r, i] { return r->stop || i < r->nabc || r->p->c[i - r->nabc].h_free; });
        stop = r->stop;
    }
    c->abc_wait_ms = groth16_now_ms() - t0;
    return stop ? cuzk_errf(err, CUZK_ECANCELLED, "gpu prove: stopped") : CUZK_OK;
}

/* Circuit i's assignment into d as it is, packed where it is mostly
 * zeros and ones on the way (prove_upload_fr); c->wv its view. */
static int load_dense(prove_one *c, const cs_prover *w, char *d, cuzk_err *err)
{
    fr_t *x = (fr_t *)d;
    int rc =
        prove_upload_fr(STAGE_BG, GROTH16_XFER_INPUT, x, w->input_assignment, w->num_inputs, err);
    if (!rc)
        rc = prove_upload_fr(STAGE_BG, GROTH16_XFER_INPUT, x + w->num_inputs, w->aux_assignment,
                             w->num_aux, err);
    c->wv = wit_dense(d, w->num_inputs + w->num_aux);
    return rc;
}

static int abc_wait(prove_run *r, size_t i, cuzk_err *err);

/* The witness-only path's loader's assignment, checked against its
 * shape's counts: into d (ws->wit, or the a/b/c buffer that the plan
 * shares with it) as it is; or, when the plan keeps it packed
 * (residency.cu rule 4), into d as it crossed (prove_upload_fr_kept), and
 * when its pieces need more than the plan kept for them (another shape's
 * circuit fed to the start, or values far from its shape's usual), as it
 * is into the a/b/c buffer's second row once the circuit before is done
 * with it (abc_wait), its H step then running with one row beside it
 * (c->wit_row, h_pieces). */
static int load_witness(prove_run *r, size_t i, char *d, cuzk_err *err)
{
    prove_one *c = &r->p->c[i];
    const cs_prover *w = r->circ[i];
    int rc = groth16_shape_check(w, err);
    if (rc || !r->plan.witness_kept) return rc ? rc : load_dense(c, w, d, err);
    size_t head = kept_head(w), used;
    bool fits = r->wit_cap > head;
    rc = prove_upload_fr(STAGE_BG, GROTH16_XFER_INPUT, (fr_t *)d, w->input_assignment,
                         w->num_inputs, err);
    if (!rc && fits) {
        char *t = d + kept_inputs(w->num_inputs);
        rc = prove_upload_fr_kept(STAGE_BG, GROTH16_XFER_INPUT, t, r->wit_cap - head,
                                  w->aux_assignment, w->num_aux, &used, &fits, err);
        c->wv = {NULL,
                 (const fr_d *)d,
                 (const uint64_t *)t,
                 t + wit_table_bytes(w->num_aux),
                 w->num_inputs,
                 w->num_inputs + w->num_aux};
    }
    if (rc) return rc;
    if (fits) {
        kept_note(w, used);
        return CUZK_OK;
    }
    kept_note(w, prove_upload_fr_bytes(w->aux_assignment, w->num_aux));
    engine_log(LOG_WARN,
               "gpu prove: circuit %zu's witness kept packed needs more than the %zu bytes "
               "planned; it goes as it is into the a/b/c buffer's second row",
               i, r->wit_cap);
    rc = abc_wait(r, i, err);
    if (rc) return rc;
    {
        std::lock_guard<std::mutex> g(r->mu);
        c->wit_row = true;
    }
    return load_dense(c, w, (char *)r->ws->abc[0] + ((size_t)1 << r->lg) * sizeof(fr_t), err);
}

extern "C" size_t gpu_prove_witness_upload_bytes(const cs_prover *w)
{
    return prove_upload_fr_bytes(w->input_assignment, w->num_inputs) +
           prove_upload_fr_bytes(w->aux_assignment, w->num_aux);
}

/* The witness-only path's loader: the assignment into d (ws->wit), its
 * jobs made on the device from it (device_prep: before the wait, under
 * the kernels of the circuit before), then, once its a/b/c buffer is free
 * (abc_wait), a, b, c as rows of buf from the recorded shape on the
 * device (checked: an unsatisfied constraint is the circuit's error),
 * zero-padded to the domain; the three rows land together. */
static int load_by_shape(prove_run *r, size_t i, char *buf, char *d, const cs_prover *w, size_t row,
                         cuzk_err *err)
{
    prove_one *c = &r->p->c[i];
    size_t used = w->num_constraints * sizeof(fr_t);
    int rc = load_witness(r, i, d, err);
    if (!rc && c->dev_prep) device_prep(r, i);
    if (!rc) rc = abc_wait(r, i, err);
    if (!rc)
        rc = xfer_kernels([&] {
            return gpu_shape_eval_dev(w->shape, (const fr_t *)d, (fr_t *)buf, (fr_t *)(buf + row),
                                      (fr_t *)(buf + 2 * row), err);
        });
    for (int k = 0; !rc && k < 3; k++)
        rc = prove_zero(STAGE_BG, buf + k * row + used, row - used, err);
    for (int k = 0; !rc && k < 3; k++) row_loaded(r, c);
    return rc;
}

/* The loader: a, b, c (or the CPU's H scalars) into buf, 3 rows of 2^lg,
 * telling the prover thread as each row lands (row_loaded); a witness-only
 * circuit's assignment goes through wit, and from it its jobs are made on
 * the device (device_prep) when the loader makes them. */
static int load_abc(prove_run *r, size_t i, char *buf, char *wit, const groth16_params *pk,
                    const cs_prover *w, unsigned lg, cuzk_err *err)
{
    prove_one *c = &r->p->c[i];
    unsigned lw;
    int rc = groth16_h_domain(&lw, pk, w, err);
    if (!rc && lw != lg) rc = cuzk_errf(err, CUZK_EINVAL, "gpu prove: domains of the batch differ");
    size_t row = ((size_t)1 << lg) * sizeof(fr_t), used = w->num_constraints * sizeof(fr_t);
    if (!rc && h_in_pieces(r) && w->shape) {
        rc = load_witness(r, i, wit, err);
        if (!rc && c->dev_prep) device_prep(r, i);
        return rc;
    }
    if (!rc && h_in_pieces(r)) return CUZK_OK; /* the H step uploads each row in its turn */
    if (!rc && h_on_device(pk, lg) && w->shape) return load_by_shape(r, i, buf, wit, w, row, err);
    if (!rc) rc = abc_wait(r, i, err);
    if (!rc && h_on_device(pk, lg)) {
        const fr_t *src[3] = {w->a, w->b, w->c};
        for (int k = 0; !rc && k < 3; k++) {
            rc = prove_upload(STAGE_BG, GROTH16_XFER_INPUT, buf + k * row, src[k], used, err);
            if (!rc) rc = prove_zero(STAGE_BG, buf + k * row + used, row - used, err);
            if (!rc) row_loaded(r, c);
        }
        return rc;
    }
    fr_t *h = NULL;
    if (!rc) rc = groth16_h_scalars(&h, pk, w, err);
    if (!rc) rc = prove_upload(STAGE_BG, GROTH16_XFER_INPUT, buf, h, pk->n_h * sizeof(fr_t), err);
    free(h);
    return rc;
}

static void load_thread(prove_run *r, size_t i)
{
    prove_one *c = &r->p->c[i];
    xfer_bind(&r->xa[i]);
    double t0 = groth16_now_ms(), cpu0 = xfer_thread_cpu_ms();
    /* load_abc makes its jobs (device_prep, prep_msm_ms): on the device,
     * or, short of room there, on the CPU (dev_prep cleared then; no prep
     * thread was started, so this one's done is prep's) */
    bool preps = c->dev_prep;
    cudaError_t e = cu_slot_enter(r->slot);
    if (e != cudaSuccess)
        c->load_rc = cu_fail(e, &c->load_err, "cudaSetDevice", __FILE__, __LINE__);
    else if (!(c->load_rc = fed_fits(r, i, &c->load_err)))
        c->load_rc = load_abc(r, i, (char *)r->ws->abc[i % r->nabc], r->wit, r->p->pk, r->circ[i],
                              r->lg, &c->load_err);
    c->t.upload_ms = groth16_now_ms() - t0 - c->abc_wait_ms - (preps ? c->t.prep_msm_ms : 0);
    if (preps && c->load_rc) c->prep_rc = c->load_rc, c->prep_err = c->load_err;
    xfer_cpu(&r->xa[i], xfer_thread_cpu_ms() - cpu0);
    xfer_bind(NULL);
    {
        std::lock_guard<std::mutex> g(r->mu);
        c->load_done = true;
        c->prep_done |= preps; /* together: the H step goes first */
    }
    r->cv.notify_all();
    try_spawn(r, i + 1);
}

/* A helper thread's error as the call's. */
static int helper_rc(int rc, const cuzk_err *helper, cuzk_err *err)
{
    if (rc && err) *err = *helper;
    return rc;
}

/* Starts *t; false when the system refuses a thread. */
template <class Fn> static bool start_thread(std::thread *t, Fn fn, prove_run *r, size_t k)
{
    try {
        *t = std::thread(fn, r, k);
        return true;
    } catch (...) {
        return false;
    }
}

/* A helper that could not start: its circuit's error. */
static void start_failed(int *rc, cuzk_err *e, bool *done)
{
    *rc = cuzk_errf(e, CUZK_ENOMEM, "gpu prove: cannot start a host thread");
    *done = true;
}

/* More circuits from the feed into slot p->n on (mu held by lk, released
 * while the feed runs); false when none came or the start is stopping.
 * Their helpers start like the others'. */
static bool feed_more(prove_run *r, std::unique_lock<std::mutex> &lk)
{
    gpu_prove_pending *p = r->p;
    if (!r->feed || r->fed_out || r->feeding || p->n >= r->cap) return false;
    size_t k = p->n, m;
    const cs_prover *more = NULL;
    r->feeding = true;
    lk.unlock();
    m = r->feed->more(r->feed->ctx, &more, r->cap - k);
    lk.lock();
    r->feeding = false;
    if (m > r->cap - k) m = r->cap - k;
    for (size_t t = 0; t < m; t++) {
        r->circ[k + t] = &more[t];
        p->c[k + t].dev_prep = preps_on_device(r, &more[t]);
    }
    p->n = k + m;
    r->fed_out = m == 0;
    r->cv.notify_all(); /* the prover thread may be waiting for the verdict */
    return m > 0 && !r->stop;
}

/* Whether loader k may start (mu held; loader k - 1 is done, so the
 * witness buffer is free of its writes): with the H step in pieces and the
 * witness in a buffer of its own, the loader fills only that (or nothing:
 * a, b, c go up in the H step), free once circuit k - 1's H step has read
 * the witness (wit_free: its H MSM and more run on meanwhile); with the
 * witness sharing the one row, once circuit k - 1's H MSM is over; with
 * three rows at once, the loader waits for its a/b/c buffer itself after
 * what it can do before (abc_wait), so its witness and jobs go up under
 * the kernels of the circuit before. */
static bool load_buffer_free(const prove_run *r, size_t k)
{
    const prove_one *c = r->p->c;
    if (!h_in_pieces(r)) return true; /* it waits for its a/b/c buffer itself: abc_wait */
    if (!r->plan.witness_shared) return k == 0 || c[k - 1].wit_free;
    return k < r->nabc || c[k - r->nabc].h_free;
}

/* Starts circuit k's helpers as soon as the loader before it is done (one
 * staging pool) and the buffer it fills is free (load_buffer_free):
 * called by whichever of the two comes last, loader k - 1 as it ends or
 * the prover thread once that buffer is free, so the upload of the next
 * circuit runs under this one's kernels. A helper that cannot start is
 * that circuit's error. */
static void try_spawn(prove_run *r, size_t k)
{
    prove_one *c = r->p->c;
    {
        std::unique_lock<std::mutex> lk(r->mu);
        if (k >= r->cap || k > r->p->n || r->stop || c[k].spawned ||
            (k > 0 && !c[k - 1].load_done) || !load_buffer_free(r, k))
            return;
        if (k == r->p->n && (!feed_more(r, lk) || c[k].spawned)) return;
        c[k].spawned = true;
        if (!c[k].dev_prep && !start_thread(&r->prep[k], prep_thread, r, k))
            start_failed(&c[k].prep_rc, &c[k].prep_err, &c[k].prep_done);
        if (!start_thread(&r->load[k], load_thread, r, k))
            start_failed(&c[k].load_rc, &c[k].load_err, &c[k].load_done);
    }
    r->cv.notify_all();
}

static void join_thread(std::thread *t)
{
    if (t->joinable()) t->join();
}

/* The rows of a, b, c (gpu_ntt_h_row_dev: a, b to the coset, c to its
 * coefficients) as each lands; returns early, leaving the error to the
 * loader's status, when the loader stops short. */
static int h_transforms(prove_run *r, prove_one *c, char *d, cuzk_err *err)
{
    size_t row = ((size_t)1 << r->lg) * sizeof(fr_t);
    for (int k = 0; k < 3; k++) {
        {
            std::unique_lock<std::mutex> lk(r->mu);
            r->cv.wait(lk, [c, k] { return c->loaded > k || c->load_done; });
            if (c->loaded <= k) return CUZK_OK;
        }
        gpu_buf v = {d + k * row, row};
        int rc = xfer_kernels([&] { return gpu_ntt_h_row_dev(&v, r->lg, k, err); });
        if (rc) return rc;
    }
    return CUZK_OK;
}

/* Whether the H step keeps fewer than three rows on the device (the
 * plan's abc_rows, residency.cu rule 4) and so runs in pieces. */
static bool h_in_pieces(const prove_run *r)
{
    return r->plan.abc_rows < 3 && h_on_device(r->p->pk, r->lg);
}

/* Row k (0, 1, 2: a, b, c) of w into device row x, zero-padded to the
 * domain: from the host rows the H step parked (parked), else evaluated
 * from w's shape over its witness on the device (wv), or uploaded from w's
 * own rows. */
static int row_put(prove_run *r, const cs_prover *w, const wit_view *wv, int k, char *x,
                   const char *parked, cuzk_err *err)
{
    size_t row = ((size_t)1 << r->lg) * sizeof(fr_t), used = w->num_constraints * sizeof(fr_t);
    const fr_t *src[3] = {w->a, w->b, w->c};
    int rc = CUZK_OK;
    if (parked)
        CU(xfer_copy(x, parked, used, GROTH16_XFER_UNPARK), err, "h row upload");
    else if (w->shape)
        rc = xfer_kernels([&] {
            return prove_shape_rows(w->shape, wv, k, 0, w->num_constraints, (fr_t *)x, err);
        });
    else
        rc = prove_upload(STAGE_FG, GROTH16_XFER_INPUT, x, src[k], used, err);
    return rc ? rc : prove_zero(STAGE_FG, x + used, row - used, err);
}

/* row_put and the row's transform (gpu_ntt_h_row_dev). */
static int row_fill(prove_run *r, const cs_prover *w, const wit_view *wv, int k, char *x,
                    const char *parked, cuzk_err *err)
{
    gpu_buf v = {x, ((size_t)1 << r->lg) * sizeof(fr_t)};
    int rc = row_put(r, w, wv, k, x, parked, err);
    return rc ? rc : xfer_kernels([&] { return gpu_ntt_h_row_dev(&v, r->lg, k, err); });
}

/* Device row x := x op the host row h, a piece (the plan's) at a time
 * through the scratch: op the product a b / z with x holding b (mul), or
 * less c. */
static int row_combine(prove_run *r, char *x, const char *h, bool mul, cuzk_err *err)
{
    size_t n = (size_t)1 << r->lg, piece = r->plan.piece;
    void *tmp;
    int rc = prove_stream_scratch(&tmp, r->plan.chunk, r->p->pk, err);
    for (size_t lo = 0; !rc && lo < n; lo += piece) {
        size_t len = piece < n - lo ? piece : n - lo, bytes = len * sizeof(fr_t);
        CU(xfer_copy(tmp, h + lo * sizeof(fr_t), bytes, GROTH16_XFER_UNPARK), err,
           "h piece upload");
        gpu_buf vx = {x + lo * sizeof(fr_t), bytes}, vt = {tmp, bytes};
        rc = xfer_kernels([&] {
            return mul ? gpu_ntt_h_mul_dev(&vx, &vt, len, true, r->lg, err)
                       : gpu_ntt_h_sub_dev(&vx, &vt, len, err);
        });
    }
    return rc;
}

/* The host memory the H step parks rows in with one row on the device
 * (two rows, three when the witness shares it): page-locked once per
 * device and kept (grown when a plan asks more), plain memory if that
 * fails. */
static int park_ready(prove_ws *ws, size_t bytes, cuzk_err *err)
{
    if (ws->park_cap >= bytes) return CUZK_OK;
    std::atomic<size_t> *held = &park_held[ws - prove_wss];
    if (ws->park_pinned)
        cudaFreeHost(ws->park);
    else
        free(ws->park);
    ws->park = NULL, ws->park_cap = 0;
    held->store(0);
    ws->park_pinned = cudaHostAlloc((void **)&ws->park, bytes, cudaHostAllocDefault) == cudaSuccess;
    if (!ws->park_pinned) {
        cudaGetLastError();
        ws->park = (char *)malloc(bytes);
    }
    if (!ws->park)
        return cuzk_errf(err, CUZK_ENOMEM,
                         "gpu prove: out of host memory (%zu bytes for the H step)", bytes);
    ws->park_cap = bytes;
    held->store(bytes);
    return CUZK_OK;
}

extern "C" size_t gpu_prove_parked_host_bytes(int dev)
{
    if (dev < 0 || dev >= CU_MAX_DEVICES) return 0;
    return park_held[dev].load() + park_held[CU_MAX_DEVICES + dev].load();
}

/* Device row x to host h (the kernels before it done). */
static int park_row(char *h, const char *x, size_t bytes, cuzk_err *err)
{
    CU(xfer_copy(h, x, bytes, GROTH16_XFER_PARK), err, "h row park");
    return CUZK_OK;
}

/* Rows a (v0) and b (v1) transformed, their product a b / z into v0. */
static int h_product(prove_run *r, gpu_buf *v0, gpu_buf *v1, cuzk_err *err)
{
    int rc = gpu_ntt_h_row_dev(v0, r->lg, 0, err);
    if (!rc) rc = gpu_ntt_h_row_dev(v1, r->lg, 1, err);
    if (!rc) rc = gpu_ntt_h_mul_dev(v0, v1, (size_t)1 << r->lg, false, r->lg, err);
    return rc ? rc : gpu_ntt_h_product_dev(v0, r->lg, err);
}

/* Circuit i's H step in pieces has read the last of the witness (its
 * kernels waited for): unless the witness shares the row, the next
 * circuit's loader may fill the witness buffer now, under the rest of
 * this H step (load_buffer_free; a witness in the a/b/c buffer's second
 * row, c->wit_row, left the witness buffer free all along). */
static int witness_read(prove_run *r, size_t i, cuzk_err *err)
{
    if (r->plan.witness_shared) return CUZK_OK;
    CU_WAIT(err, "h step (witness read)");
    helper_done(r, &r->p->c[i].wit_free);
    try_spawn(r, i + 1);
    return CUZK_OK;
}

/* The H step with two rows on the device (d: a, then the product; d +
 * row: b, then c) or one (d; c's and a's transformed rows parked on the
 * host and combined with b's a piece at a time; when the witness shares
 * d, the pieces of a, b, c parked first and the rows brought back from
 * there; a circuit whose witness is in d + row, c->wit_row, runs so too,
 * its park made now): the same field elements as gpu_ntt_h_dev (ntt.h's
 * finish in parts). A witness-only circuit's constraints are checked
 * before any transform: with two rows c's pieces against a and b in their
 * rows, with one a, b, c in pieces. h lands in d. */
static int h_pieces(prove_run *r, size_t i, const cs_prover *w, char *d, cuzk_err *err)
{
    size_t row = ((size_t)1 << r->lg) * sizeof(fr_t);
    gpu_buf v0 = {d, row}, v1 = {d + row, row};
    prove_ws *ws = r->ws;
    const prove_one *c = &r->p->c[i];
    const wit_view *wv = &c->wv;
    bool one = r->plan.abc_rows < 2 || c->wit_row;
    bool shared = one && r->plan.witness_shared && w->shape;
    int rc = one ? park_ready(ws, c->wit_row ? 2 * row : r->plan.park, err) : CUZK_OK;
    void *tmp;
    if (!rc && w->shape) rc = prove_stream_scratch(&tmp, r->plan.chunk, r->p->pk, err);
    if (!rc && w->shape && one)
        rc = xfer_kernels([&] {
            return prove_shape_check(w->shape, wv, (fr_t *)tmp, r->plan.piece,
                                     shared ? ws->park : NULL, row, err);
        });
    if (!rc && !one) { /* a and b raw, checked against c's pieces, then transformed */
        rc = row_put(r, w, wv, 0, d, NULL, err);
        if (!rc) rc = row_put(r, w, wv, 1, d + row, NULL, err);
        if (!rc && w->shape)
            rc = xfer_kernels([&] {
                return prove_shape_check_c(w->shape, wv, (const fr_t *)d, (const fr_t *)(d + row),
                                           (fr_t *)tmp, r->plan.piece, err);
            });
        if (!rc) rc = xfer_kernels([&] { return h_product(r, &v0, &v1, err); });
        if (!rc) rc = row_fill(r, w, wv, 2, d + row, NULL, err);
        if (!rc) rc = witness_read(r, i, err);
        return rc ? rc : xfer_kernels([&] { return gpu_ntt_h_bitrev_dev(&v0, &v1, r->lg, err); });
    }
    char *pa = ws->park, *pc = ws->park + (shared ? 2 : 1) * row;
    const char *raw[3] = {shared ? pa : NULL, shared ? pa + row : NULL, shared ? pc : NULL};
    if (!rc) rc = row_fill(r, w, wv, 2, d, raw[2], err);
    if (!rc) rc = park_row(pc, d, row, err);
    if (!rc) rc = row_fill(r, w, wv, 0, d, raw[0], err);
    if (!rc) rc = park_row(pa, d, row, err);
    if (!rc) rc = row_fill(r, w, wv, 1, d, raw[1], err);
    if (!rc) rc = witness_read(r, i, err);
    if (!rc) rc = row_combine(r, d, pa, true, err);
    if (!rc) rc = xfer_kernels([&] { return gpu_ntt_h_product_dev(&v0, r->lg, err); });
    if (!rc) rc = row_combine(r, d, pc, false, err);
    return rc ? rc : xfer_kernels([&] { return gpu_ntt_h_bitrev_dev(&v0, NULL, r->lg, err); });
}

/* The H step of circuit i: when its loader is still busy, the rows that
 * have landed are transformed during the rest of the upload; when it is
 * done, all of gpu_ntt_h_dev at once. Then the H MSM, after which circuit
 * i + nabc's helpers may start (its a/b/c buffer is free). */
static int h_step(prove_run *r, size_t i, cuzk_err *err)
{
    prove_one *c = &r->p->c[i];
    const groth16_params *pk = r->p->pk;
    double t0 = groth16_now_ms();
    char *d = (char *)r->ws->abc[i % r->nabc];
    bool pieces = h_in_pieces(r), device = h_on_device(pk, r->lg) && !pieces, progressive;
    {
        std::lock_guard<std::mutex> g(r->mu);
        progressive = device && !c->load_done;
    }
    int rc = progressive ? h_transforms(r, c, d, err) : CUZK_OK;
    join_thread(&r->load[i]);
    if (!rc) rc = helper_rc(c->load_rc, &c->load_err, err);
    size_t row = ((size_t)1 << r->lg) * sizeof(fr_t);
    gpu_buf va = {d, row}, vb = {d + row, row}, vc = {d + 2 * row, row};
    if (!rc && pieces) rc = h_pieces(r, i, r->circ[i], d, err);
    if (!rc && progressive)
        rc = xfer_kernels([&] { return gpu_ntt_h_finish_dev(&va, &vb, &vc, r->lg, err); });
    if (!rc && device && !progressive)
        rc = xfer_kernels([&] { return gpu_ntt_h_dev(&va, &vb, &vc, r->lg, err); });
    if (!rc)
        rc = prove_stream_msm(&c->m.h, &r->srs.h, (const fr_t *)d, pk->n_h, r->plan.chunk, pk, err);
    c->t.ntt_msm_h_ms = groth16_now_ms() - t0;
    if (!rc) {
        helper_done(r, &c->h_free);
        try_spawn(r, i + r->nabc);
    }
    return rc;
}

/* Device bytes at d into host memory of `bytes` (malloc'ed, *out). */
static int fetch(void **out, const void *d, size_t bytes, cuzk_err *err)
{
    *out = malloc(bytes + 1);
    if (!*out) return cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory (%zu bytes)", bytes);
    CU(xfer_copy(*out, d, bytes, GROTH16_XFER_RESULTS), err, "job download");
    return CUZK_OK;
}

/* B's job made on the device (d) into jobs->b on the host, as the CPU's
 * prep makes it: the bitmap, and the tail with its positions or the
 * gathered scalars (jobs->sb). */
static int job_download(groth16_jobs *jobs, const job_dev *d, cuzk_err *err)
{
    groth16_msm_job *j = &jobs->b;
    size_t nv = j->split ? j->n_tail : j->n;
    void *ones = NULL, *vals = NULL, *idx = NULL; /* owned by *jobs once fetched */
    int rc = fetch(&ones, d->bits, ((j->n + 63) / 64 + 1) * sizeof(uint64_t), err);
    j->ones = (uint64_t *)ones;
    if (!rc) rc = fetch(&vals, d->scal, nv * sizeof(fr_t), err);
    if (j->split)
        j->tail = (fr_t *)vals;
    else
        jobs->sb = (fr_t *)vals, j->scalars = jobs->sb;
    if (!rc && j->split) rc = fetch(&idx, d->idx, nv * sizeof(uint32_t), err);
    if (!rc && j->split && !(j->tail_idx = (size_t *)malloc(nv * sizeof(size_t) + 1)))
        rc = cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory (indexes)");
    for (size_t k = 0; !rc && j->split && k < nv; k++) j->tail_idx[k] = ((uint32_t *)idx)[k];
    free(idx);
    return rc;
}

/* Circuit c's job x: 0 L, 1 A, 2 B (B_G1's and B_G2's). */
static const groth16_msm_job *lab_job(const prove_one *c, int x)
{
    return x == 0 ? &c->jobs.l : x == 1 ? &c->jobs.a : &c->jobs.b;
}

/* Job x (0 L, 1 A, 2 B_G1) of circuits i .. i + k - 1 in one pass over
 * its array (prove_stream_jobs), the points resident or streamed in
 * chunks of the plan's size; each circuit's batch addition and tail
 * times its own (a job uploaded on the spot: the upload in its tail's). */
static int lab_msm(prove_run *r, size_t i, size_t k, int x, cuzk_err *err)
{
    const prove_points *bases[3] = {&r->srs.l, &r->srs.a, &r->srs.b_g1};
    prove_job pj[PROVE_PASS_JOBS];
    g1_jac_t out[PROVE_PASS_JOBS];
    prove_pass_stat st[PROVE_PASS_JOBS] = {};
    int rc = CUZK_OK;
    for (size_t q = 0; !rc && q < k; q++) {
        prove_one *c = &r->p->c[i + q];
        double t0 = groth16_now_ms();
        rc = job_ready(r->ws, &pj[q], lab_job(c, x), &c->jd[x], r->p->pk, err);
        st[q].tail_ms = groth16_now_ms() - t0;
    }
    if (!rc)
        rc = prove_stream_jobs(out, bases[x], pj, k, r->plan.chunk, &r->ws->tb, &r->ws->tb_cap,
                               r->plan.tb_bytes, r->p->pk, st, err);
    for (size_t q = 0; !rc && q < k; q++) {
        prove_one *c = &r->p->c[i + q];
        *(x == 0 ? &c->m.l : x == 1 ? &c->m.a : &c->m.b1) = out[q];
        c->t.batch_add_ms += st[q].ba_ms, c->t.tail_msm_ms += st[q].tail_ms;
        c->t.msm_calls += st[q].calls;
    }
    return rc;
}

/* B_G2 of circuits i .. i + k - 1 in one pass (prove_stream_jobs_g2) in
 * calls of chunk_g2 points, over what their B_G1 jobs left on the device
 * (c->jd[2]): from dev, its points on the device, or else streamed from
 * its host copy (page-locked now if the plan meant to keep it but its
 * upload found no room); its tail bases gathered into the G1 tails'
 * buffer (ws->tb: the G1 MSMs are done by now). The pass's time is
 * shared evenly in their b_g2_msm_ms. */
static int b2_pass(prove_run *r, size_t i, size_t k, const prove_g2_aff *dev, cuzk_err *err)
{
    double t0 = groth16_now_ms();
    const groth16_params *pk = r->p->pk;
    const prove_points_g2 *src = &r->srs.b_g2;
    prove_points_g2 pts = {dev, src->host, dev || src->pinned || prove_srs_pin_g2(pk)};
    size_t chunk = r->plan.chunk_g2 < 64 ? 64 : r->plan.chunk_g2; /* bitmap words */
    prove_job pj[PROVE_PASS_JOBS];
    g2_jac_t out[PROVE_PASS_JOBS];
    prove_pass_stat st[PROVE_PASS_JOBS] = {};
    for (size_t q = 0; q < k; q++) pj[q] = job_view(&r->p->c[i + q].jobs.b, &r->p->c[i + q].jd[2]);
    int rc = prove_stream_jobs_g2(out, &pts, pj, k, chunk, &r->ws->tb, &r->ws->tb_cap,
                                  r->plan.tb_bytes, pk, st, err);
    double each = (groth16_now_ms() - t0) / (double)k;
    for (size_t q = 0; q < k; q++) {
        prove_one *c = &r->p->c[i + q];
        if (!rc) c->m.b2 = out[q];
        c->b2_done = !rc;
        c->t.b_g2_msm_ms = each;
        c->t.msm_calls += st[q].calls;
    }
    return rc;
}

/* B_G2 of circuits i .. i + k - 1 on the device (b2_pass): from its
 * points there when the plan keeps it and they fit (prove_srs_g2: its
 * machinery made already, plan_blocks); streamed when the plan
 * streams it, or keeps it but its points found no room after all (then a
 * shortage of device memory for the stream leaves it to the CPU too).
 * Else finish runs it on the CPU: a job made on the device comes back to
 * the host for it. */
static int b2_on_device(prove_run *r, size_t i, size_t k, cuzk_err *err)
{
    const prove_plan *pl = &r->plan;
    const prove_g2_aff *g2 = NULL;
    /* its MSM calls' machinery (the plan's g2_room) made already: plan_blocks */
    int rc = pl->resident[RES_B_G2] ? prove_srs_g2(&g2, r->p->pk, 0, err) : CUZK_OK;
    if (!rc && (g2 || pl->g2_streamed || pl->resident[RES_B_G2])) {
        rc = b2_pass(r, i, k, g2, err);
        if (!g2 && rc == CUZK_ENOMEM && !pl->g2_streamed) rc = CUZK_OK; /* the CPU's after all */
        if (rc) return rc;
    }
    for (size_t q = 0; !rc && q < k; q++) {
        prove_one *c = &r->p->c[i + q];
        if (!c->b2_done && c->dev_prep) rc = job_download(&c->jobs, &c->jd[2], err);
    }
    return rc;
}

/* Whether circuit j joins the group of the circuits before it, whose L/A/B
 * step serves them all in one pass over each array (residency.cu rule 9):
 * circuit j is there with its helpers started (the H step before it let
 * its loader start), and, once its prep is done (waited for), that ended
 * without error and left all its jobs' data on the device (the
 * on-the-spot buffers are the group's first circuit's). */
static bool member_ready(prove_run *r, size_t j)
{
    std::unique_lock<std::mutex> lk(r->mu);
    r->cv.wait(lk, [r] { return !r->feeding; });
    if (j >= r->p->n || !r->p->c[j].spawned) return false;
    prove_one *c = &r->p->c[j];
    r->cv.wait(lk, [c] { return c->prep_done; });
    bool staged = !c->prep_rc;
    for (int x = 0; x < 3 && staged; x++) staged = job_staged(lab_job(c, x), &c->jd[x]);
    return staged;
}

/* The L, A and B_G1 MSMs of circuits i .. i + k - 1 (a group: waits for
 * circuit i's prep, the others' is done) in one pass over each array,
 * and their B_G2 when the device does it. The points a pass streamed for
 * k circuits count a k-th for each (xfer_share), its copies and kernels
 * in circuit i's account; their jobs' buffers are free after. */
static int lab_step(prove_run *r, size_t i, size_t k, cuzk_err *err)
{
    prove_one *c = &r->p->c[i];
    join_thread(&r->prep[i]);
    int rc = helper_rc(c->prep_rc, &c->prep_err, err);
    static const int kinds[2] = {GROTH16_XFER_POINTS, GROTH16_XFER_POINTS_G2};
    uint64_t before[2];
    for (int t = 0; t < 2; t++) before[t] = xfer_bytes(&r->xa[i], kinds[t]);
    for (int x = 0; !rc && x < 3; x++) rc = lab_msm(r, i, k, x, err);
    if (!rc) rc = b2_on_device(r, i, k, err);
    xfer_acct *to[PROVE_PASS_JOBS];
    for (size_t q = 1; q < k; q++) to[q - 1] = &r->xa[i + q];
    for (int t = 0; t < 2 && k > 1; t++)
        xfer_share(&r->xa[i], to, k - 1, kinds[t], xfer_bytes(&r->xa[i], kinds[t]) - before[t]);
    for (size_t q = 0; q < k; q++) {
        prove_one *cq = &r->p->c[i + q];
        join_thread(&r->prep[i + q]);
        helper_done(r, &cq->lab_free);
        groth16_msm_job_free(&cq->jobs.l);
        groth16_msm_job_free(&cq->jobs.a);
        free(cq->jobs.sa);
        cq->jobs.sa = NULL;
    }
    return rc;
}

/* Circuit j's H step as a member of an earlier circuit's group: its
 * account bound, its time its own. */
static int member_h(prove_run *r, size_t j, cuzk_err *err)
{
    prove_one *c = &r->p->c[j];
    double t0 = groth16_now_ms();
    xfer_acct *was = xfer_bind(&r->xa[j]);
    int rc = h_step(r, j, err);
    xfer_bind(was);
    c->t.gpu_total_ms = c->t.total_ms = groth16_now_ms() - t0;
    return rc;
}

/* Circuit i: the step whose helper finished first, then the other. With
 * its H step first, the group of rule 9: the H steps of the circuits after
 * it that join (member_ready, at most the plan's lab_group in all), then
 * one L/A/B step for the group. Nothing for a circuit an earlier group
 * proved (lab_free: set by this thread only). *at: the circuit whose step
 * failed. Each circuit's gpu_total_ms its own steps' (the group's L/A/B
 * step in circuit i's), its account settled. */
static int prove_one_circuit(prove_run *r, size_t i, size_t *at, cuzk_err *err)
{
    prove_one *c = &r->p->c[i];
    *at = i;
    if (c->lab_free) return CUZK_OK;
    double t0 = groth16_now_ms(), members_ms = 0;
    bool lab_first;
    {
        std::unique_lock<std::mutex> lk(r->mu);
        r->cv.wait(lk, [c] { return c->prep_done || c->load_done; });
        lab_first = !c->load_done;
    }
    xfer_bind(&r->xa[i]);
    int rc = lab_first ? lab_step(r, i, 1, err) : h_step(r, i, err);
    size_t k = 1;
    if (!rc && lab_first) {
        rc = h_step(r, i, err);
    } else if (!rc) {
        for (; !rc && k < r->plan.lab_group && member_ready(r, i + k); k++) {
            rc = member_h(r, i + k, err);
            members_ms += r->p->c[i + k].t.gpu_total_ms;
            if (rc) *at = i + k;
        }
        if (!rc) rc = lab_step(r, i, k, err);
    }
    c->t.gpu_total_ms = c->t.total_ms = groth16_now_ms() - t0 - members_ms;
    xfer_bind(NULL);
    for (size_t q = 0; q < k; q++) xfer_settle(&r->xr, &r->xa[i + q], &r->p->c[i + q].t.xfer);
    return rc;
}

/* Whether circuit i is there to prove: one of the start's or fed ones,
 * or one the feed gives now (asked here, should the loaders not have:
 * both conditions of try_spawn hold once circuit i - 1 is done). */
static bool next_circuit(prove_run *r, size_t i)
{
    if (!r->feed) return i < r->p->n;
    try_spawn(r, i);
    std::unique_lock<std::mutex> lk(r->mu);
    r->cv.wait(lk, [r] { return !r->feeding; });
    return i < r->p->n;
}

/* Device bytes the jobs' buffers hold: those prep makes (the device
 * prep's scratch and each jobs buffer) and those of the uploads on the
 * spot. */
static size_t jobs_held(const prove_ws *ws)
{
    size_t b = ws->prep_cap + ws->bits_cap + ws->scal_cap + ws->idx_cap;
    for (size_t k = 0; k < PROVE_JOB_BUFS; k++) b += ws->jobs_cap[k];
    return b;
}

/* Frees the buffers jobs_held counts. */
static void jobs_release(prove_ws *ws)
{
    void **b[] = {&ws->prep, &ws->bits, &ws->scal, &ws->idx};
    size_t *c[] = {&ws->prep_cap, &ws->bits_cap, &ws->scal_cap, &ws->idx_cap};
    for (size_t k = 0; k < 4; k++) cu_free(*b[k]), *b[k] = NULL, *c[k] = 0;
    for (size_t k = 0; k < PROVE_JOB_BUFS; k++)
        cu_free(ws->jobs[k]), ws->jobs[k] = NULL, ws->jobs_cap[k] = 0;
}

/* Device memory the prover holds on device dev and may reuse. */
static size_t held_bytes(int dev)
{
    const prove_ws *ws = &prove_wss[dev];
    return prove_srs_bytes(dev) + prove_shape_bytes(dev) + prove_stream_bytes(dev) +
           gpu_msm_workspace_bytes() + gpu_ntt_tables_bytes() + ws->abc_cap[0] + ws->abc_cap[1] +
           ws->tb_cap + ws->wit_cap + jobs_held(ws);
}

/* Device bytes of an a/b/c buffer under the plan: its rows, or the
 * witness (wit bytes) when that shares the one row and is larger. */
static size_t abc_bytes(const prove_run *r, size_t wit)
{
    size_t rows = r->plan.abc_rows * ((size_t)1 << r->lg) * sizeof(fr_t);
    return r->plan.witness_shared && wit > rows ? wit : rows;
}

/* Device bytes of the start's circuit shapes (each once), whether or not
 * they are on the device yet: a cold start uploads them after planning. */
static size_t shapes_bytes(const prove_run *r)
{
    size_t b = 0;
    for (size_t i = 0; i < r->n0; i++) {
        bool seen = !r->ready[i];
        for (size_t k = 0; k < i && !seen; k++) seen = r->ready[k] == r->ready[i];
        if (!seen) b += prove_shape_bytes_for(r->ready[i]);
    }
    return b;
}

/* prove_kept's count for a start: the most its circuits' shapes plan for
 * a witness kept packed (kept_bytes). */
static size_t run_kept_bytes(void *ctx)
{
    const prove_run *r = (const prove_run *)ctx;
    size_t kept = 0;
    for (size_t i = 0; i < r->p->n; i++) {
        if (i > 0 && r->circ[i]->shape == r->circ[i - 1]->shape) continue;
        size_t k = kept_bytes(r->circ[i]);
        if (k > kept) kept = k;
    }
    return kept;
}

/* The plan's figures for the start's MSM jobs: the most of its
 * circuits' (jobs_count): each circuit of a shape not seen before
 * counted, so that the figure is the start's most, whatever its order. */
static prove_jobs run_jobs(const prove_run *r)
{
    prove_jobs most = {0, 0, r->p->n};
    /* each circuit's shape's figures before any count (each 0: none) */
    std::vector<prove_jobs> seen(r->p->n);
    for (size_t i = 0; i < r->p->n; i++)
        seen[i] = r->circ[i]->shape ? seen_of(r->circ[i]).jobs : prove_jobs{0, 0, 1};
    for (size_t i = 0; i < r->p->n; i++) {
        bool known = seen[i].each != 0;
        if (i > 0 && known && r->circ[i]->shape == r->circ[i - 1]->shape) continue;
        prove_jobs j = known ? seen[i] : jobs_count(r->circ[i]);
        if (j.each > most.each) most.each = j.each;
        if (j.least > most.least) most.least = j.least;
    }
    return most;
}

/* The MSM workspace of the plan's calls: G1 at chunk, B_G2's at chunk_g2
 * when on the device. */
static size_t plan_workspace(const prove_run *r)
{
    size_t w = gpu_msm_workspace_for(r->plan.chunk, 0), w2 = 0;
    if (r->plan.resident[RES_B_G2] || r->plan.g2_streamed)
        w2 = gpu_msm_workspace_for(r->plan.chunk_g2, 1);
    return w > w2 ? w : w2;
}

/* What the plan counts and the prover would make at first use, made now
 * (residency.cu rule 2): the NTT's twiddles, the MSM workspace, the
 * gather buffer and the stream's ring, so that the jobs' buffers, which
 * grow into free memory, cannot take their room. */
static int plan_blocks(prove_run *r, cuzk_err *err)
{
    const prove_plan *pl = &r->plan;
    const groth16_params *pk = r->p->pk;
    int rc = h_on_device(pk, r->lg) ? gpu_ntt_tables_make(r->lg, err) : CUZK_OK;
    size_t w = plan_workspace(r);
    if (!rc && w != SIZE_MAX) rc = gpu_msm_workspace_reserve(w, err);
    if (!rc && pl->tb_bytes) rc = prove_dev_grow(&r->ws->tb, &r->ws->tb_cap, pl->tb_bytes, pk, err);
    void *ring;
    if (!rc && pl->ring_bytes)
        rc = prove_stream_scratch(&ring, pl->ring_bytes / 2 / sizeof(g1_affine_t), pk, err);
    return rc;
}

/* The start's plan (residency.cu) from the device's budget, and what
 * the plan no longer wants given back: a second a/b/c buffer, an MSM
 * workspace larger than its chunk's, other parameter sets when their
 * room is needed; *kept_out: the figure planned for a witness kept
 * packed (0 where the plan never weighed it). */
static int plan_start(prove_run *r, size_t wit, size_t *kept_out, cuzk_err *err)
{
    prove_kept counted = {0, run_kept_bytes, r};
    int dev = r->slot;
    const groth16_params *pk = r->p->pk;
    size_t budget, other = prove_srs_bytes(dev) - prove_srs_bytes_of(dev, pk);
    if (wit) prove_stage_scratch(STAGE_BG); /* the loader's packed witness, before the budget */
    size_t held = held_bytes(dev);
    setup_mark(r, SETUP_HELD);
    int rc = prove_plan_budget(&budget, dev, held, err);
    setup_mark(r, SETUP_BUDGET);
    prove_jobs jobs = run_jobs(r);
    if (!rc) {
        rc = prove_plan_make(&r->plan, pk, r->lg, wit, &counted, shapes_bytes(r), &jobs,
                             r->p->n > 1 || r->feed, budget, r->device, err);
        prove_plan_remember(&r->plan, dev);
    }
    if (rc) return rc;
    size_t kept = *kept_out = counted.bytes;
    prove_shape_mode(dev, r->plan.shape_streamed, r->plan.shape_ring);
    r->nabc = r->plan.abc_buffers;
    prove_ws *ws = r->ws;
    if (r->nabc < 2 && ws->abc[1]) cu_free(ws->abc[1]), ws->abc[1] = NULL, ws->abc_cap[1] = 0;
    size_t rows = abc_bytes(r, wit);
    if (ws->abc_cap[0] > rows) cu_free(ws->abc[0]), ws->abc[0] = NULL, ws->abc_cap[0] = 0;
    size_t wb = r->plan.witness_shared ? 0 : r->plan.witness_kept ? kept : wit;
    if (ws->wit_cap > wb) cu_free(ws->wit), ws->wit = NULL, ws->wit_cap = 0;
    if (r->plan.streamed || r->plan.chunk < pk->n_h) gpu_msm_workspace_trim(plan_workspace(r));
    if (ws->tb_cap > r->plan.tb_bytes) cu_free(ws->tb), ws->tb = NULL, ws->tb_cap = 0;
    if (jobs_held(ws) > r->plan.jobs_room) jobs_release(ws); /* rule 2: in their room */
    if (prove_stream_bytes(dev) > r->plan.ring_bytes) prove_stream_release(dev);
    if (other && other + r->plan.use > budget) prove_srs_evict(dev, pk);
    return CUZK_OK;
}

/* The a/b/c buffers (two for a batch or a fed start), the parameters, the
 * helpers of circuit 0, then every circuit, those fed included, each
 * reported consumed to the feed once done; every helper is joined on
 * return. */
static int prove_all(prove_run *r, cuzk_err *err)
{
    gpu_prove_pending *p = r->p;
    size_t wit = 0, kept = 0; /* one buffer: loaders run one at a time */
    for (size_t i = 0; i < p->n; i++)
        if (witness_bytes(r->circ[i]) > wit) wit = witness_bytes(r->circ[i]);
    for (size_t i = 0; i < r->cap; i++) xfer_reset(&r->xa[i]);
    xfer_run_begin(&r->xr);
    setup_mark(r, SETUP_TIMING);
    xfer_bind(&r->xa[0]); /* what a cold start makes resident: its first circuit's */
    int rc = plan_start(r, wit, &kept, err);
    setup_mark(r, SETUP_PLAN);
    for (size_t k = 0; !rc && k < r->nabc; k++)
        rc = prove_dev_grow(&r->ws->abc[k], &r->ws->abc_cap[k], abc_bytes(r, wit), p->pk, err);
    bool shared = r->plan.witness_shared;
    size_t wb = r->plan.witness_kept ? kept : wit;
    if (!rc && wit && !shared) rc = prove_dev_grow(&r->ws->wit, &r->ws->wit_cap, wb, p->pk, err);
    r->wit = (char *)(shared ? r->ws->abc[0] : r->ws->wit);
    r->wit_cap = shared ? r->ws->abc_cap[0] : r->ws->wit_cap;
    if (!rc) rc = plan_blocks(r, err);
    setup_mark(r, SETUP_BUFFERS);
    if (!rc) rc = prove_srs_get(&r->srs, p->pk, &r->plan, err);
    setup_mark(r, SETUP_PARAMS);
    for (size_t i = 0; !rc && i < p->n; i++) { /* before the loaders need them */
        if (r->circ[i]->shape) rc = prove_shape_ready(r->circ[i]->shape, p->pk, err);
        p->c[i].dev_prep = preps_on_device(r, r->circ[i]);
    }
    setup_mark(r, SETUP_SHAPES);
    xfer_bind(NULL);
    if (!rc) try_spawn(r, 0);
    setup_mark(r, SETUP_HELPERS);
    if (!rc) setup_note(r);
    for (size_t i = 0, at; !rc && next_circuit(r, i); i++) {
        rc = prove_one_circuit(r, i, &at, err);
        if (rc && (p->n > 1 || r->feed)) cuzk_err_prefix(err, "circuit %zu: ", at);
        if (!rc && r->feed && r->feed->consumed) r->feed->consumed(r->feed->ctx, i), r->consumed++;
    }
    {
        std::lock_guard<std::mutex> g(r->mu);
        r->stop = true; /* helpers still running start no others */
    }
    r->cv.notify_all();                   /* and a prep waiting to stage stops waiting */
    for (size_t i = 0; i < r->cap; i++) { /* a feed in progress may still add */
        join_thread(&r->prep[i]);
        join_thread(&r->load[i]);
    }
    xfer_run_end(&r->xr);
    return rc;
}

static void release_device(int dev, const void *unused);

/* A start out of device memory under a plan that fit (residency.cu rule
 * 1): its device's budget lowered, everything the prover holds there
 * released and the circuits' device-side state cleared, so that
 * prove_all can run them again. Fed circuits not yet consumed stay. */
static void start_again(prove_run *r, const cuzk_err *why)
{
    /* what was planned and what the device had left: an allocation the
     * plan did not count, or another process's, told apart */
    char plan[768], held[512];
    size_t free_b = 0, total = 0;
    prove_plan_format(plan, sizeof plan, &r->plan);
    cu_mem_live_format(r->device, held, sizeof held);
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) free_b = total = 0;
    engine_log(LOG_WARN,
               "gpu prove: device %d: %s; device %.1f MiB free of %.1f under the plan %s; the "
               "prover held %s; trying again with a smaller plan",
               r->device, why ? why->msg : "out of memory", (double)free_b / (1 << 20),
               (double)total / (1 << 20), plan, held);
    prove_plan_short(r->slot, r->plan.budget);
    release_device(r->slot, NULL);
    for (size_t i = 0; i < r->p->n; i++) {
        groth16_jobs_free(&r->p->c[i].jobs);
        memset(&r->p->c[i], 0, sizeof r->p->c[i]);
    }
}

static int start_all(gpu_prove_pending *p, int device, int slot, const cs_prover *circuits,
                     size_t cap, const gpu_prove_feed *feed, double asked, cuzk_err *err)
{
    if (p->n == 0) return CUZK_OK;
    prove_run r;
    r.setup_at[0] = asked;
    setup_mark(&r, SETUP_LOCK);
    r.p = p;
    r.n0 = p->n, r.cap = cap;
    r.feed = feed;
    r.fed_out = r.feeding = false;
    r.device = device;
    r.slot = slot;
    r.ws = &prove_wss[slot];
    CU(cu_slot_enter(slot), err, "cudaSetDevice");
    int rc = groth16_h_domain(&r.lg, p->pk, &circuits[0], err);
    if (rc) return rc;
    r.circ = new (std::nothrow) const cs_prover *[cap];
    r.ready = new (std::nothrow) const cs_shape *[p->n];
    r.prep = new (std::nothrow) std::thread[cap];
    r.load = new (std::nothrow) std::thread[cap];
    r.xa = new (std::nothrow) xfer_acct[cap];
    if (r.circ && r.ready && r.prep && r.load && r.xa) {
        for (size_t i = 0; i < p->n; i++) r.circ[i] = &circuits[i], r.ready[i] = circuits[i].shape;
        r.consumed = 0;
        setup_mark(&r, SETUP_ENTER);
        for (int tries = 0;; tries++) {
            r.stop = false;
            rc = prove_all(&r, err);
            if (rc != CUZK_ENOMEM || r.plan.too_small || r.consumed || tries == START_RETRIES)
                break;
            start_again(&r, err);
        }
    } else {
        rc = cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory");
    }
    delete[] r.circ;
    delete[] r.ready;
    delete[] r.prep;
    delete[] r.load;
    if (r.xa)
        for (size_t i = 0; i < cap; i++) xfer_reset(&r.xa[i]);
    delete[] r.xa;
    return rc;
}

extern "C" void gpu_prove_discard(gpu_prove_pending *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n; i++) groth16_jobs_free(&p->c[i].jobs);
    free(p->c);
    free(p);
}

/* gpu_prove_start, with more circuits from feed (NULL: none), for the
 * device itself or its lane (prove_start_lane). */
static int start_slot(gpu_prove_pending **out, int device, bool lane, const groth16_params *pk,
                      const cs_prover *circuits, size_t n, const fr_t *rs,
                      const gpu_prove_feed *feed, cuzk_err *err)
{
    *out = NULL;
    size_t cap = feed && feed->max > n ? feed->max : n;
    gpu_prove_pending *p = (gpu_prove_pending *)calloc(1, sizeof *p);
    if (p) p->c = (prove_one *)calloc(cap ? cap : 1, sizeof *p->c);
    if (!p || !p->c) {
        free(p);
        return cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory");
    }
    p->pk = pk;
    p->n = n;
    if (device < 0 || device >= CU_MAX_DEVICES) {
        gpu_prove_discard(p);
        return cuzk_errf(err, CUZK_EINVAL, "gpu prove: device %d (0 .. %d allowed)", device,
                         CU_MAX_DEVICES - 1);
    }
    int slot = device + (lane ? CU_MAX_DEVICES : 0);
    cu_ctx ctx = cu_context();
    double asked = groth16_now_ms();
    if (lane) cu_yield_take(device); /* the big prover yields to it (yield.cu rule 1) */
    prove_lock(slot);
    int rc = start_all(p, device, slot, circuits, cap, feed, asked, err);
    prove_unlock(slot);
    if (lane) cu_yield_give(device);
    cu_context_set(ctx);
    for (size_t i = 0; !rc && i < p->n; i++) {
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

extern "C" int gpu_prove_start(gpu_prove_pending **out, int device, const groth16_params *pk,
                               const cs_prover *circuits, size_t n, const fr_t *rs, cuzk_err *err)
{
    return start_slot(out, device, false, pk, circuits, n, rs, NULL, err);
}

int prove_start_lane(gpu_prove_pending **out, int device, const groth16_params *pk,
                     const cs_prover *circuits, size_t n, const fr_t *rs, cuzk_err *err)
{
    return start_slot(out, device, true, pk, circuits, n, rs, NULL, err);
}

extern "C" int gpu_prove_start_fed(gpu_prove_pending **out, int device, const groth16_params *pk,
                                   const cs_prover *circuits, size_t n, const gpu_prove_feed *feed,
                                   cuzk_err *err)
{
    return start_slot(out, device, false, pk, circuits, n, NULL, feed, err);
}

extern "C" size_t gpu_prove_count(const gpu_prove_pending *p)
{
    return p->n;
}

/* B_G2 of circuits first, first + step, ... (those the device did not
 * do) with `threads` MSM threads. */
static void finish_some(gpu_prove_pending *p, size_t first, size_t step, int threads, int *rcs,
                        cuzk_err *errs)
{
    for (size_t i = first; i < p->n; i += step) {
        prove_one *c = &p->c[i];
        if (c->b2_done) continue;
        groth16_timings g2t = {0};
        double t0 = groth16_now_ms();
        rcs[i] = groth16_g2_run_job(&c->m.b2, p->pk->b_g2, &c->jobs.b, threads, &g2t, &errs[i]);
        c->t.b_g2_msm_ms = groth16_now_ms() - t0;
    }
}

/* finish_some on nt host threads of `per` MSM threads each. */
static int finish_parallel(gpu_prove_pending *p, size_t nt, int per, int *rcs, cuzk_err *errs,
                           cuzk_err *err)
{
    std::thread *th = new std::thread[nt];
    int rc = CUZK_OK;
    for (size_t k = 0; !rc && k < nt; k++) {
        try {
            th[k] = std::thread(finish_some, p, k, nt, per > 1 ? per : 1, rcs, errs);
        } catch (...) {
            rc = cuzk_errf(err, CUZK_ENOMEM, "gpu prove: cannot start a host thread");
        }
    }
    for (size_t k = 0; k < nt; k++)
        if (th[k].joinable()) th[k].join();
    delete[] th;
    return rc;
}

extern "C" int gpu_prove_finish(gpu_prove_pending *p, groth16_proof *proofs,
                                groth16_timings *timings, cuzk_err *err)
{
    size_t n = p->n, hw = (size_t)omp_get_max_threads(); /* gpus.gpu_threads, else the cores */
    size_t nt = n < hw ? n : (hw ? hw : 1);
    int *rcs = (int *)calloc(n + 1, sizeof(int));
    cuzk_err *errs = (cuzk_err *)calloc(n + 1, sizeof(cuzk_err));
    int rc = rcs && errs ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "gpu prove: out of memory");
    if (!rc && nt <= 1) finish_some(p, 0, 1, 0, rcs, errs);
    if (!rc && nt > 1) rc = finish_parallel(p, nt, (int)(hw / nt), rcs, errs, err);
    for (size_t i = 0; !rc && i < n; i++) {
        prove_one *c = &p->c[i];
        rc = rcs[i];
        if (rc) {
            if (err) *err = errs[i];
            if (n > 1) cuzk_err_prefix(err, "circuit %zu: ", i);
            break;
        }
        groth16_assemble(&proofs[i], p->pk, &c->m, &c->r, &c->s);
        if (!c->b2_done) c->t.total_ms += c->t.b_g2_msm_ms; /* else in gpu_total_ms */
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

/* Device dev's parameters and buffers, when it has any (its prover lock
 * held): a device never proved on is not touched (no context made). */
static void release_device(int dev, const void *unused)
{
    (void)unused;
    prove_ws *ws = &prove_wss[dev];
    void **bufs[] = {&ws->abc[0], &ws->abc[1], &ws->scal, &ws->idx,
                     &ws->tb,     &ws->bits,   &ws->wit,  &ws->prep};
    const size_t n = sizeof bufs / sizeof *bufs;
    if (cu_slot_enter(dev) != cudaSuccess) return;
    bool any = prove_srs_bytes(dev) > 0 || prove_shape_bytes(dev) > 0 ||
               prove_stream_bytes(dev) > 0 || prove_stage_scratch_bytes(dev) > 0 ||
               gpu_msm_workspace_bytes() > 0 || gpu_ntt_tables_bytes() > 0;
    for (size_t k = 0; k < n; k++) any |= *bufs[k] != NULL;
    for (size_t k = 0; k < PROVE_JOB_BUFS; k++) any |= ws->jobs[k] != NULL;
    if (!any) return;
    gpu_msm_workspace_trim(0); /* the slot's MSM workspace and NTT tables too */
    gpu_ntt_tables_free();
    prove_srs_evict(dev, NULL);
    prove_shape_evict(dev, NULL);
    prove_shape_ring_release(dev);
    prove_stream_release(dev);
    prove_stage_release(dev);
    for (size_t k = 0; k < n; k++) cu_free(*bufs[k]);
    for (size_t k = 0; k < PROVE_JOB_BUFS; k++) cu_free(ws->jobs[k]);
    if (ws->park_pinned)
        cudaFreeHost(ws->park);
    else
        free(ws->park);
    memset(ws, 0, sizeof *ws);
    park_held[dev].store(0);
    cudaGetLastError(); /* a lost device's frees fail: its memory went with it */
}

void prove_release_slot(int slot)
{
    release_device(slot, NULL);
}

/* release_device, and the budget lowered by starts that ran short there
 * forgotten. */
static void release_and_forget(int dev, const void *unused)
{
    release_device(dev, unused);
    prove_plan_forget(dev);
}

extern "C" void gpu_prove_release(void)
{
    prove_each_device(release_and_forget, NULL);
}

extern "C" void gpu_prove_format_timings(char *out, size_t len, const groth16_timings *t)
{
    const groth16_xfer *x = &t->xfer;
    const double mib = 1048576.0;
    static const char *names[GROTH16_XFER_KINDS] = {
        "points", "points_g2", "params", "input", "jobs", "unpark", "park", "results", "shape"};
    char kinds[256] = "";
    for (int k = 0, n = 0; k < GROTH16_XFER_KINDS; k++)
        n += snprintf(kinds + n, sizeof kinds - n, "%s%s:%.1f", k ? "," : "", names[k],
                      x->bytes[k] / mib);
    snprintf(out, len,
             "prep_msm_ms=%.1f ntt_msm_h_ms=%.1f batch_add_ms=%.1f tail_msm_ms=%.1f "
             "b_g2_msm_ms=%.1f gpu_total_ms=%.1f total_ms=%.1f upload_ms=%.1f "
             "h2d_mib=%.1f d2h_mib=%.1f copies=%llu copy_ms=%.1f link_gbps=%.2f kernel_ms=%.1f "
             "hidden_ms=%.1f timed=%d msm_calls=%llu helper_cpu_ms=%.1f xfer_mib=%s",
             t->prep_msm_ms, t->ntt_msm_h_ms, t->batch_add_ms, t->tail_msm_ms, t->b_g2_msm_ms,
             t->gpu_total_ms, t->total_ms, t->upload_ms, x->h2d / mib, x->d2h / mib,
             (unsigned long long)x->copies, x->copy_ms,
             x->copy_ms > 0 ? (x->h2d + x->d2h) / (x->copy_ms * 1e6) : 0.0, x->kernel_ms,
             x->hidden_ms, x->timed, (unsigned long long)t->msm_calls, x->cpu_ms, kinds);
}
