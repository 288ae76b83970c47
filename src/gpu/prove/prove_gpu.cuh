/*
 * prove_gpu.cuh - the host-side pieces of the GPU prover (src/gpu/prove)
 * that its files share: device allocation with eviction of the parameter
 * cache on shortage, the pinned staging pool, the parameter cache, and the
 * batch addition / gather kernels' launchers. Everything here runs under
 * the prover lock of the calling thread's current device (prove_gpu.cu)
 * and works on that device's own state (device.cuh): its parameter cache,
 * its staging pools, its buffers.
 */
#ifndef CUZK_GPU_PROVE_PROVE_GPU_CUH
#define CUZK_GPU_PROVE_PROVE_GPU_CUH

#include "gpu/ec/xyzz.cuh"
#include "gpu/util/buf.cuh"
#include "gpu/util/check.cuh"
#include "gpu/util/device.cuh"
#include "gpu/util/yield.cuh"
#include "gpu/util/xfer_stats.cuh"

#include "gpu/util/capi.cuh"

typedef affine_d<fp_d> prove_g1_aff;
typedef xyzz_d<fp_d> prove_g1_xyzz;
typedef affine_d<fp2_d> prove_g2_aff;
typedef xyzz_d<fp2_d> prove_g2_xyzz;

/* gpu_prove_start in device's lane (small_lane.cu checks that it fits). */
int prove_start_lane(gpu_prove_pending **out, int device, const groth16_params *pk,
                     const cs_prover *circuits, size_t n, const fr_t *rs, cuzk_err *err);
/* Frees what the prover holds in slot (its lock held). */
void prove_release_slot(int slot);

/* Device dev's prover lock (prove_gpu.cu). */
void prove_lock(int dev);
void prove_unlock(int dev);
/* fn(dev, arg) for every device slot, each under its prover lock; the
 * calling thread's current device is restored after. */
void prove_each_device(void (*fn)(int dev, const void *arg), const void *arg);

/* cudaMalloc on the current device; on out-of-memory, frees that device's
 * cached B_G2 points and tries again, then evicts its parameter cache (all
 * entries but `keep`, NULL for all) and tries once more. Out of memory in
 * the end is CUZK_ENOMEM (the device itself still works). */
int prove_dev_alloc(void **p, size_t bytes, const groth16_params *keep, cuzk_err *err);
/* Grows a device buffer kept between proofs to at least `bytes`. */
int prove_dev_grow(void **p, size_t *cap, size_t bytes, const groth16_params *keep, cuzk_err *err);
/* The same into free device memory only, evicting nothing (for helper
 * threads, while the prover thread may be using the cached points): a
 * shortage is CUZK_ENOMEM and leaves the buffer as it was. */
int prove_dev_grow_free(void **p, size_t *cap, size_t bytes, cuzk_err *err);

/* Copies host memory to the device through pinned staging pool `which`
 * (a few chunks, allocated on first use and kept): the host copies into
 * some chunks overlap the DMA of others. Returns when the data is on the
 * device. A pool serves one upload at a time (a mutex: the preps of two
 * circuits may overlap); the prover thread uses FG, the loaders BG, the
 * preps PREP. The bytes count as `what` (GROTH16_XFER_*) for the calling
 * thread's account (xfer_stats.cuh). */
enum { STAGE_FG, STAGE_BG, STAGE_PREP, STAGE_POOLS };
int prove_upload(int which, int what, void *dev, const void *host, size_t bytes, cuzk_err *err);
/* prove_upload of n field elements, a piece of them (STAGE_PIECE bytes)
 * packed (fr_pack.cuh) where that takes at most a quarter of its bytes
 * and expanded on the device by prove_unpack_fr, the others as they are:
 * the bytes crossing (and counted) are the packed ones. Only with the
 * pool's device memory for packed pieces (prove_stage_scratch, 32 MiB);
 * without it all go as they are. */
int prove_upload_fr(int which, int what, fr_t *dev, const fr_t *host, size_t n, cuzk_err *err);
/* prove_upload_fr of n field elements kept on the device as they cross
 * (wit_view.cuh): the table of where each piece went at dev
 * (wit_table_bytes(n)), the pieces from there on in at most cap bytes;
 * *used: the bytes the pieces took. *fits false (CUZK_OK): they need
 * more than cap, and dev holds nothing usable. */
int prove_upload_fr_kept(int which, int what, void *dev, size_t cap, const fr_t *host, size_t n,
                         size_t *used, bool *fits, cuzk_err *err);
/* Makes pool `which`'s device memory for packed pieces on the calling
 * thread's slot, once (not on a lane: its memory is its reservation's),
 * before a start plans, so that the plan sees it gone; a failure leaves
 * the pool without (its uploads as they are). prove_stage_release(slot)
 * frees it (release_device). */
void prove_stage_scratch(int which);
void prove_stage_release(int slot);
size_t prove_stage_scratch_bytes(int slot);
/* The bytes prove_upload_fr moves for n elements (the arithmetic alone). */
size_t prove_upload_fr_bytes(const fr_t *host, size_t n);
/* The nv elements of the packed run at `packed` (device memory) into out,
 * on stream st (fr_pack.cu). */
int prove_unpack_fr(fr_t *out, const void *packed, size_t nv, cudaStream_t st, cuzk_err *err);
/* Makes the calling thread's slot's pools now (pinned chunks, streams,
 * events), as a lane's setup does so that its proofs make none. */
int prove_stage_warm(cuzk_err *err);
/* Zeroes device memory on pool `which`'s stream (no default-stream wait). */
int prove_zero(int which, void *dev, size_t bytes, cuzk_err *err);

/* A parameter array of G1 points as the plan (residency.cuh) left it:
 * its first dev_n points on the device (dev; all of them when resident,
 * a prefix by rule 5, none: dev NULL), the rest streamed from its host
 * copy (host; pinned: page-locked, host_pin.cu). */
typedef struct prove_points {
    const prove_g1_aff *dev;
    const g1_affine_t *host;
    bool pinned;
    size_t dev_n;
} prove_points;
/* B_G2 the same way (dev NULL: streamed from host, or left to the CPU). */
typedef struct prove_points_g2 {
    const prove_g2_aff *dev;
    const g2_affine_t *host;
    bool pinned;
} prove_points_g2;
/* One params' arrays on the current device. */
typedef struct prove_srs {
    prove_points h, l, a, b_g1;
    prove_points_g2 b_g2; /* host pinned when the plan streams it */
} prove_srs;
struct prove_plan;
/* Finds pk's entry on the current device or makes it: the arrays the
 * plan keeps resident uploaded (those it streams freed from the device
 * and page-locked on the host, once per entry). */
int prove_srs_get(prove_srs *out, const groth16_params *pk, const prove_plan *plan, cuzk_err *err);
/* Device bytes held by pk's entry on device dev (0: none). */
size_t prove_srs_bytes_of(int dev, const groth16_params *pk);

/* Page-locks [p, p + bytes) for DMA unless it already is (counting its
 * holders); false when it cannot be (the caller stages instead; a
 * warning names `what` and the locked-memory limit). */
bool prove_pin(const void *p, size_t bytes, const char *what);
/* One holder of p lets go; the last unlocks it. */
void prove_unpin(const void *p);

/* One MSM job's data on the device, over the first n points of an
 * array: a split job (bits: its ones bitmap of n bits, then nt tail
 * scalars at their ascending indexes idx) or, bits NULL, a whole one
 * (scal: n scalars). */
typedef struct prove_job {
    const uint64_t *bits;
    const fr_t *scal;
    const uint32_t *idx;
    size_t n, nt;
} prove_job;
/* The most jobs one pass serves (residency.cu rule 9's largest group). */
#define PROVE_PASS_JOBS 4
/* What a pass's step did for one job: its batch additions' and tail (or
 * whole) MSMs' times, and its MSM calls. */
typedef struct prove_pass_stat {
    double ba_ms, tail_ms;
    uint64_t calls;
} prove_pass_stat;
/* out[q] = job q's sum, q < k (at most PROVE_PASS_JOBS, all over the
 * same n points), in one pass over the points (stream.cu): each chunk of
 * at most `chunk` points, resident or streamed from the host once, serves
 * every job before the next; a split job's batch addition over the
 * chunk's bitmap words and its tail bases gathered into *tb (grown to at
 * most a chunk's, or with several chunks to at most tb_limit bytes, the
 * plan's gather buffer, in which each job's tails of several chunks
 * gather before one MSM sums them), a whole job's MSM over the chunk. The times
 * and calls of each job added to st[q] (batch addition, tail or whole
 * MSM); a streamed chunk's wait for its copy in neither. */
int prove_stream_jobs(g1_jac_t *out, const prove_points *pts, const prove_job *jobs, size_t k,
                      size_t chunk, void **tb, size_t *tb_cap, size_t tb_limit,
                      const groth16_params *keep, prove_pass_stat *st, cuzk_err *err);
/* The same over B_G2 (its points in calls of chunk: ring halves and
 * gathered bases of chunk G2 points). */
int prove_stream_jobs_g2(g2_jac_t *out, const prove_points_g2 *pts, const prove_job *jobs, size_t k,
                         size_t chunk, void **tb, size_t *tb_cap, size_t tb_limit,
                         const groth16_params *keep, prove_pass_stat *st, cuzk_err *err);
/* *out = sum of scal[i] times point i, i < n: one whole job's pass. */
int prove_stream_msm(g1_jac_t *out, const prove_points *pts, const fr_t *scal, size_t n,
                     size_t chunk, const groth16_params *keep, cuzk_err *err);
/* *p = the current device's stream ring, grown to a chunk's two halves
 * (at least 3 chunk rows of fr_t): scratch for the H step in pieces,
 * which never runs beside a streamed MSM (one prover thread does both). */
int prove_stream_scratch(void **p, size_t chunk, const groth16_params *keep, cuzk_err *err);
/* Frees device dev's stream ring; its size. */
void prove_stream_release(int dev);
size_t prove_stream_bytes(int dev);
/* Frees every entry of device dev's cache but keep's (NULL: all); returns
 * the bytes freed. */
size_t prove_srs_evict(int dev, const groth16_params *keep);
/* *out = pk's B_G2 points on the device (pk's entry must exist), uploaded
 * now if free device memory leaves `room` bytes beside them (the plan's
 * g2_room: the machinery of B_G2's MSM calls); NULL when it does not
 * (B_G2 then stays on the CPU). Asked only when the plan keeps B_G2
 * resident. */
int prove_srs_g2(const prove_g2_aff **out, const groth16_params *pk, size_t room, cuzk_err *err);
/* pk's B_G2 host copy page-locked for streaming (once per entry of the
 * current device, held until the entry goes); false: staged instead. */
bool prove_srs_pin_g2(const groth16_params *pk);
/* Frees the B_G2 points of device dev's entries; returns the bytes freed. */
size_t prove_srs_drop_g2(int dev);
/* Device memory held by device dev's cache. */
size_t prove_srs_bytes(int dev);
/* Frees every shape cached on device dev but keep (NULL: all;
 * shape_cache.cu); returns the bytes freed. */
size_t prove_shape_evict(int dev, const cs_shape *keep);
/* s on the current device, uploaded when missing (room made by evicting
 * other shapes, then parameters but keep's): the prover thread calls it
 * before the loaders start, so that gpu_shape_eval_dev in a loader only
 * finds it and never allocates beside the prover's own work. */
int prove_shape_ready(const cs_shape *s, const groth16_params *keep, cuzk_err *err);
/* out := rows [lo, end) of matrix `which` (0, 1, 2: A, B, C) of s times
 * the device witness w, unchecked (lo a multiple of SHAPE_BLOCK, end one
 * too or the constraint count); returns with the kernel done. */
typedef struct wit_view wit_view; /* wit_view.cuh */
/* Forgets what the witnesses of shape s took kept packed (prove_gpu.cu's
 * figure for the plan), as s goes (gpu_shape_forget). */
void prove_kept_forget(const cs_shape *s);
int prove_shape_rows(const cs_shape *s, const wit_view *w, int which, size_t lo, size_t end,
                     fr_t *out, cuzk_err *err);
/* a_j b_j = c_j for every constraint of s over the device witness w,
 * evaluated `piece` rows at a time (a multiple of SHAPE_BLOCK) into tmp
 * (3 piece rows; 6 with host): the first that fails is the error, as in
 * gpu_shape_eval_dev. With host (else NULL) each piece of a, b, c is
 * also copied there, row k at host + k row_bytes, the copy of one piece
 * under the kernels of the next; all landed on return. */
int prove_shape_check(const cs_shape *s, const wit_view *w, fr_t *tmp, size_t piece, char *host,
                      size_t row_bytes, cuzk_err *err);
/* The same check with a and b already evaluated on the device (rows of
 * the constraint count at least): only c is, a piece at a time into tmp
 * (one piece row). */
int prove_shape_check_c(const cs_shape *s, const wit_view *w, const fr_t *a, const fr_t *b,
                        fr_t *tmp, size_t piece, cuzk_err *err);
/* The device bytes s takes when uploaded (one allocation). */
size_t prove_shape_bytes_for(const cs_shape *s);
/* Device dev's shapes from now on: on the device whole, or streamed in
 * slices through a ring of `ring` bytes (the start's plan, residency.cu
 * rule 4); an entry of the other kind is made again when next used. */
void prove_shape_mode(int dev, bool streamed, size_t ring);
/* Frees device dev's shape ring (its copies done first). */
void prove_shape_ring_release(int dev);
/* Device memory held by device dev's shapes (its prover lock held). */
size_t prove_shape_bytes(int dev);

/* gpu_prove_set_batch_add_per's words (0: one wave; kept in stream.cu). */
size_t prove_batch_add_per(void);
/* Frees the calling thread's slot's block sums (made again when needed). */
void prove_batch_add_release(void);
/* *out = sum of bases[i] over the bits set in the device bitmap (n bits). */
int prove_batch_add(g1_jac_t *out, const prove_g1_aff *bases, const uint64_t *bitmap, size_t n,
                    cuzk_err *err);
int prove_batch_add_g2(g2_jac_t *out, const prove_g2_aff *bases, const uint64_t *bitmap, size_t n,
                       cuzk_err *err);
/* The batch addition of several chunks summed on the device: an
 * accumulator of prove_ba_acc_entries(chunk) XYZZ sums (chunks of at
 * most `chunk` points) in device memory, cleared (g2: G2 sums), each
 * chunk's block sums added in (launched on the calling thread's stream,
 * not waited for), then read once and summed (its launches waited for).
 * PROVE_BA_ACC_BYTES(chunk): a pass's accumulators (one a job, G2's
 * size), which the plan counts. */
size_t prove_ba_acc_entries(size_t chunk);
#define PROVE_BA_ACC_BYTES(chunk)                                                                  \
    ((size_t)PROVE_PASS_JOBS * prove_ba_acc_entries(chunk) * sizeof(prove_g2_xyzz))
int prove_ba_acc_clear(void *acc, size_t entries, bool g2, cuzk_err *err);
int prove_batch_add_acc(void *acc, const prove_g1_aff *bases, const uint64_t *bitmap, size_t n,
                        cuzk_err *err);
int prove_batch_add_acc_g2(void *acc, const prove_g2_aff *bases, const uint64_t *bitmap, size_t n,
                           cuzk_err *err);
int prove_ba_acc_sum(g1_jac_t *out, const void *acc, size_t entries, cuzk_err *err);
int prove_ba_acc_sum_g2(g2_jac_t *out, const void *acc, size_t entries, cuzk_err *err);
/* out[k] = bases[idx[k] - lo] for k < n (all on the device; every idx[k]
 * at least lo). */
int prove_gather(prove_g1_aff *out, const prove_g1_aff *bases, const uint32_t *idx, size_t n,
                 size_t lo, cuzk_err *err);
int prove_gather_g2(prove_g2_aff *out, const prove_g2_aff *bases, const uint32_t *idx, size_t n,
                    size_t lo, cuzk_err *err);

#endif
