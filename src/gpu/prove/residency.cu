/*
 * residency.cu - the residency policy of the GPU prover: from the device
 * memory a start may use, what stays on the device and what streams.
 *
 * The rules, in order:
 *  1. The budget is the memory free on the device now plus what the
 *     prover already holds there (its parameter cache, buffers and MSM
 *     workspace, which it may reuse or give back), at most the configured
 *     cap (gpus.device_memory, gpu_prove_set_device_memory), less what
 *     earlier starts there found missing: a start that runs out of device
 *     memory under a plan that fit (memory the plan does not see: another
 *     process, fragmentation) lowers its device's budget by 1/8 and tries
 *     again, at most twice (prove_gpu.cu); gpu_prove_release forgets it.
 *  2. Working memory comes first: the rows of a, b, c the H step keeps on
 *     the device (three rows of the domain; fewer under rule 4), the
 *     witness and circuit shapes of the witness-only path (counted
 *     whether or not they are on the device yet: a cold start uploads its
 *     shape after planning), the NTT's tables at the domain's size (its
 *     twiddles are 2 GiB at 2^27; held ones count in the budget of rule 1
 *     too), and a headroom for the MSM jobs (their bitmaps and tails, or
 *     a dense job's scalars whole) and the device prep: 1/32 of the
 *     budget (at least PLAN_HEADROOM_PER bytes per domain position: 1 GiB
 *     at 2^27). The prover counts a circuit's jobs on the host (prove_jobs:
 *     a pass over the witness once per shape, prove_gpu.cu's run_jobs;
 *     a split job's tails a quarter more). Jobs within the headroom (a
 *     32 GiB PoRep partition's bitmaps and ~1.7M tails an array, ~0.2 GB)
 *     stay in it, as ever, their buffers growing into free memory, rule
 *     9's groups of four with them. Larger ones (a dense circuit's: 10.5
 *     GB for a 64 GiB Window PoSt partition, which the 1/32 did not cover:
 *     its first start on an H100 ran out of memory under a plan that fit,
 *     2026-12-06) get a room of their own (jobs_room) beside half the
 *     headroom (the other half for what no plan counts: CUDA's own, the
 *     prep's scratch; 130 MiB of a 16 GiB card's went so): one circuit's,
 *     or, for a start of several circuits, two (the next one's made while
 *     this one runs) or a group's and the next one's (rule 9), whichever
 *     plan moves least a partition (ties: the most circuits), the groups
 *     as large as the room holds the jobs of with the next one's
 *     (jobs_slots: the prover's jobs buffers taken in turn; a circuit's
 *     device prep waits for its buffer, and grows it only within the
 *     room). A start of one circuit (a Window PoSt partition: its proof's
 *     only one) plans for its own jobs alone: a fed start's groups would
 *     have kept the 64 GiB partition's second 10.5 GB room on an 80 GB
 *     card and streamed ~25 GB more a partition for groups that did not
 *     form. When the plan does not fit with those, it is made with the
 *     least the jobs take (the largest one uploaded on the spot after the
 *     CPU's prep). The prover makes everything else the plan counts (the
 *     NTT's tables, the MSM workspace, the gather buffer and the stream's
 *     ring) before a circuit's prep can grow into free memory, so that
 *     the jobs never take their room (each of the jobs' buffers falls
 *     back to the host or to uploads on the spot when short).
 *  3. Resident mode when everything fits beside three rows: the four G1
 *     arrays (H, L, A, B_G1) and their machinery at MSM calls of `chunk`
 *     points: the MSM workspace at chunk and the gather buffer of the
 *     split MSMs' tail bases (chunk points of 96 bytes, at most
 *     PLAN_TB_MAX: 2^24 G1 points, 1.5 GiB; a job with more tails, as a
 *     dense circuit's nearly fill the array, 12.9 GB at 2^27, sums them
 *     in slices of it, stream.cu). B_G2 then
 *     stays on the device too when its points fit with the machinery of
 *     its MSM calls: a gather buffer of chunk_g2 G2 points (at most
 *     PLAN_TB_MAX bytes) and what the
 *     G2 MSM's workspace at chunk_g2 adds to the G1 one (they share it).
 *     chunk_g2 is the largest power of two that fits, at most the array,
 *     at least PLAN_G2_MIN_CHUNK (or a quarter of a smaller array). B_G2
 *     outranks a batch's second a/b/c buffer: the CPU's B_G2 of a 2^27
 *     Window PoSt partition (92M points) took 130 s on the H200's 16-core
 *     host (2026-12-03), the second buffer saves an upload's overlap. So:
 *     both when B_G2 gets a chunk of at least PLAN_G2_GOOD_CHUNK beside
 *     the second buffer; else B_G2 alone, the second buffer only if room
 *     is left. chunk is the largest array first; when B_G2 does not fit
 *     beside it, the G1 MSM calls shrink by powers of two (down to
 *     1/PLAN_SHRINK_PART of the largest array, PLAN_MIN_CHUNK at least)
 *     until it does: each call costs ~2 ms fixed on the H200, nothing
 *     beside B_G2's 12-130 s on the CPU. For a batch the shrinking looks
 *     first for a chunk at which B_G2 and the second a/b/c buffer both
 *     fit (the full-memory 32 GiB PoRep: one call of 2^27 a G1 array with
 *     B_G2 and both buffers, as its steady 11.2 s a proof was measured
 *     with in session 9; while the gather buffer was planned at its
 *     worst case, 12.9 GB, the calls shrank to 2^26 to make room, and a
 *     partition took 1.24 s against 1.17), then for B_G2 alone. When it fits at none, the largest
 *     chunk at which the G1 arrays fit is taken and B_G2 streams from its
 *     page-locked host copy in calls of chunk_g2 points through the
 *     stream's ring (two halves of chunk_g2 G2 points, the gather buffer
 *     grown to chunk_g2 G2 points if smaller, the G2 workspace's excess),
 *     chunk_g2 the largest power of two that fits from PLAN_MIN_CHUNK / 2
 *     up (the second a/b/c buffer if room is left after). When not even
 *     that fits, streamed mode (rule 4) is planned instead if it streams
 *     B_G2; else (no room for B_G2 in either) the CPU does B_G2. And when
 *     B_G2's upload finds less free than planned (prove_srs_g2), it
 *     streams; only a shortage for the stream too leaves it to the CPU.
 *  4. Otherwise streamed mode. The MSMs run in calls of at most `chunk`
 *     points, the largest power of two (PLAN_MIN_CHUNK at least) whose
 *     MSM workspace plus the stream's two chunk buffers and the tail
 *     bases gathered from a chunk take at most half of what the working
 *     memory leaves (all of it when half holds not even PLAN_MIN_CHUNK),
 *     B_G2's stream included (rule 5);
 *     a streamed array's points cross in such chunks, double-buffered.
 *     The H step's rows, in order of the bytes a partition moves: 3; 2;
 *     2 with the witness kept packed; 2 with the circuit shape streamed;
 *     2 with both; 1 beside the witness; 1 with the shape streamed; 1
 *     that the witness shares (all but the first two and the sixth on
 *     the witness-only path). The witness kept packed (wit_view.cuh) stays
 *     on the device in the form it crosses in anyway (its pieces of
 *     zeros and ones as bits, staging.cu): the kernels that read it (the
 *     shape's evaluation, the device prep) decode each value in place, so
 *     it moves nothing more and takes the bytes the witnesses of its
 *     shape took so far and a quarter more (prove_gpu.cu's kept_bytes:
 *     0.14 GiB for a 32 GiB PoRep partition's 3.9 GiB, the same to the
 *     byte for every partition and sector, as which of its values are 0
 *     or 1 follows from the circuit; a pass over the witness for a shape
 *     not seen yet, so it is counted only when this rule first weighs
 *     such a mode: prove_kept). It is offered only with two rows
 *     and a witness no larger than a row, so that a circuit whose pieces
 *     need more than planned can go as it is into the second row, its H
 *     step then with one row beside it; and it comes after the mode with
 *     the same rows and shape but the witness as it is (whose kernels
 *     read a value with one load; gpus.witness_kept = "tight"), or
 *     before it ("first", the default: the room it frees then goes to
 *     larger MSM calls and kept points, rule 5; at 24 GiB on an H100 1.61
 *     s a partition against 1.81, session 29), or never ("off"). At
 *     16 GiB it gives a 32 GiB PoRep's H step its second row: nothing
 *     parked (16 GiB a partition less over PCIe). A
 *     streamed shape (shape_cache.cu) keeps only its escape table on the
 *     device and uploads each evaluation's slices through a ring
 *     (shape_ring_for: 1/64 of it, 1 to 64 MiB): 2 rows read A and B once
 *     and C twice (c's check, then its row), 1 row A, B, C twice (the
 *     check, then the rows), so at most twice the shape's bytes up a
 *     partition (4.5 GiB a pass for a 32 GiB PoRep), against a row's 4
 *     GiB parked each way that one row less costs, and 12 GiB more each
 *     way when the witness
 *     shares the row. The first mode with which the chunk reaches
 *     PLAN_GOOD_CHUNK (or the largest array) is taken, else the one that
 *     fits with the largest chunk (the earlier on a tie). With 2 rows
 *     the H step evaluates or uploads each row when its turn comes (c
 *     after the product a b, into b's row) and checks the witness's
 *     constraints by c's pieces against a and b in their rows; with 1
 *     (the check by pieces of a, b, c) it also parks c's and a's
 *     transformed rows in page-locked host memory (allocated once per
 *     device and kept) and brings them back a piece at a time; when the
 *     witness shares the row, the check's pieces of a, b, c go to the
 *     host too (3 rows parked) before the row is used, and the rows come
 *     back from there. A piece is `chunk` rows in the stream's ring (free
 *     while the H step runs: one prover thread does both). When even the
 *     mode that needs least does not fit with PLAN_MIN_CHUNK, the device
 *     is too small: CUZK_ENOMEM naming what was needed.
 *  5. In streamed mode the room left keeps G1 points on the device for
 *     the most transfer saved per partition: every partition reads every
 *     array once, so a byte kept saves its byte per partition, an L, A
 *     or B_G1 byte a k-th of it where a pass serves k partitions (rule 9:
 *     H's bytes weigh k times theirs then). Whole arrays, and the first
 *     points of one streamed array in whole chunks (H's when it streams,
 *     its bytes weighing most, else the one of most points: the pass
 *     reads those chunks on the device and streams the rest, stream.cu):
 *     each set of whole arrays that fits is scored with what it leaves
 *     (after a batch's second a/b/c buffer, rule 6) going to that prefix,
 *     and the best taken (ties: fewer arrays). So at 16 GiB a batch of
 *     32 GiB PoRep partitions keeps 3.6 GiB of H's points rather than
 *     B_G1's 3 GiB whole (which would save a quarter as much).
 *     B_G2 streams in chunks of at most
 *     chunk / 2 points (the ring and gather buffer's bytes: G2 points are
 *     192 bytes): rule 4 sizes the G1 chunk with B_G2's calls as large as
 *     their MSM workspace fits in the G1 chunk's (g2_stream_chunk). Then,
 *     before any points are kept (and after a batch's second a/b/c buffer
 *     when rule 6 gives it one), the calls grow: B_G2's to chunk / 2 (or
 *     its array) as far as what their workspace adds fits (g2_grow), then
 *     the G1 chunk, doubled while its ring, gather buffer and workspace
 *     growth fit (g1_grow, up to the largest array). Each call of a pass
 *     costs a fixed time beyond its points, a byte of room a byte
 *     streamed: a 32 GiB PoRep at 24 GiB free (H200, 2026-12-03) spent
 *     0.93 s a partition on B_G2 in calls of 2^18 points (80 ms resident
 *     in calls of 2^25), about 7 ms a call, and 0.55 s on L, A and B_G1's
 *     batch additions and tails in calls of 2^21 (0.12 s resident), about
 *     3 ms a call; the 1-3 GiB of kept points the growth takes there
 *     cost 20-120 ms a partition at 25-50 GB/s. Only
 *     when not even PLAN_MIN_CHUNK fits with it does the chunk go without
 *     B_G2, which the CPU then does. B_G2 is never kept in streamed mode.
 *  6. A batch gets a second a/b/c buffer when the H step keeps three rows
 *     and the room left holds three more, so the next circuit's upload
 *     overlaps this one's kernels; else the loader of circuit i + 1 waits
 *     for circuit i's H MSM.
 *  7. A device's small-circuit lane (gpu_lane.h) plans its starts in
 *     its own reservation, rules 2-6 applied to that budget alone (its
 *     memory is never cudaMalloc'ed after its setup: lane.cuh). The big
 *     starts never see it: the reservation is no longer free on the
 *     device (rule 1's free memory), and a configured cap
 *     (gpus.device_memory) covers the lane too, so theirs is the cap
 *     less the reservation. A lane is made only when its reservation is
 *     at most 1/PLAN_LANE_SHARE of what the big starts could use then
 *     (rule 1's budget, before the lane): with 16 GiB free a lane sized
 *     for 2^20 (5.8 GiB, most of it B_G2's MSM workspace) left the 32 GiB
 *     PoRep too small (H200, 2026-12-03). So a 16 or 24 GB card has no
 *     lane at the default 2^19 (3.5 GiB), and a CRITICAL partition waits
 *     there for the running start's partition (dispatch rule 5); a 32 GB
 *     card has one, its big starts then streaming B_G1 too (~3 GiB more a
 *     partition, `cuzk-bench plan`). gpu_lane_bytes_on is the arithmetic.
 *  8. What a partition moves over PCIe under the plan, for `cuzk-bench
 *     plan` and for the tests to hold against what the prover counts
 *     (groth16_xfer, xfer_stats.cuh): up, the points streamed (rules 4,
 *     5; L, A, B_G1 and B_G2 at a lab_group-th of their bytes under rule
 *     9, the share each of a group counts) and the witness (witness-only path: at most, its
 *     pieces of zeros and ones cross packed, staging.cu; kept packed, the bytes planned for
 *     it) or a, b, c (at most
 * three domain rows: the constraints' part of each); with one row of the H step on the device, c's
 * and a's transformed rows parked on the host and brought back (a domain row each, each way), and
 * when the witness shares the row, the check's pieces of a, b, c too (at most a domain row each,
 * each way); with the shape streamed, at most two passes of its bytes up. Not planned: the jobs'
 * bitmaps and tails (they depend on the witness's density) and the results read back (KiB); nor the
 * parameters a cold start makes resident, once.
 *  9. On the witness-only path a batch's circuits are proved in groups
 *     of up to four (lab_group, PROVE_PASS_JOBS) when any of L, A, B_G1,
 *     B_G2 streams: circuit i's H step, then the H steps of the circuits
 *     after it that are ready to join (prove_gpu.cu's member_ready:
 *     there, prep done, jobs on the device), then one L/A/B step for the
 *     group whose pass over each array serves every circuit's jobs, so
 *     each streamed chunk of those arrays crosses once for the group
 *     (stream.cu). For a 32 GiB PoRep at 16 GiB that is L, A, B_G1 and
 *     B_G2's 32 GiB once per four partitions instead of once each. The
 *     next H step waits for little: its loader starts as soon as the
 *     witness buffer is free (with the H step in pieces, once the H step
 *     before has read it: witness_read; with three rows, once the loader
 *     before is done) and uploads the witness and makes the jobs under
 *     the kernels before; only a, b, c's evaluation into the one a/b/c
 *     buffer waits for the H MSM before (abc_wait). H's pass is not
 *     shared: its scalars are a dense domain row per circuit, which a
 *     small device cannot hold twice. The jobs' data have lab_group + 1
 *     device buffers (jobs_slot, a few tens of MB each for a 32 GiB
 *     PoRep: inside rule 2's headroom), so a group's jobs are all there
 *     for its pass while the next group's first circuit prepares its own.
 *     Where the next circuit is not there yet, its prep failed or its jobs
 *     are not all on the device (the CPU's prep, when the device had no
 *     room for them), the group is smaller, moving more than the plan
 *     says. The CPU-prep path (no witness on the device) keeps 1: its jobs
 *     that do not split are not staged on the device, and its circuits are
 *     the tests' and snarkjs', not a streamed stream.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mutex>

#include "gpu/prove/prove_gpu.cuh"
#include "gpu/prove/residency.cuh"

extern "C" {
#include "cuzk/gpu.h"
#include "cuzk/gpu_lane.h"
}

#define PLAN_HEADROOM_PER 8                 /* bytes per domain position, at least */
#define PLAN_MIN_CHUNK    ((size_t)1 << 10) /* a multiple of 64: bitmap words */
/* The chunk the rows give way for (rule 4). Each MSM call has a fixed
 * cost of about 2 ms on the H200 (its window reduction, Horner and
 * waits): the 32 GiB PoRep at 24 GiB free with 32768-point chunks (three
 * rows kept) took 28 s per partition (about 13,000 calls), against
 * 6.5 ns a point in one call of 2^24 (108 ms) and 5.35 ns at 2^27 (718 ms,
 * docs/performance.md). A partition streams 427M points: in chunks of
 * 2^21 about 200 calls, ~0.4 s of fixed cost, ~0.2 s more than at 2^22;
 * one row less costs 8 GiB each way over PCIe per partition (~0.35 s on
 * the H200) and the host memory to park them, so rows are given up only
 * below 2^21 (an estimate from these figures, to be measured). */
#define PLAN_GOOD_CHUNK    ((size_t)1 << 21)
#define G1_POINT           sizeof(g1_affine_t)
#define MIB                1048576.0
#define G2_POINT           sizeof(g2_affine_t)
#define PLAN_G2_MIN_CHUNK  ((size_t)1 << 20) /* B_G2's MSM calls: at least */
#define PLAN_G2_GOOD_CHUNK ((size_t)1 << 22) /* enough to share room with a batch */
/* Rule 3 shrinks the G1 MSM calls of resident mode down to this part of
 * the largest array (2^24 points at 2^27: ~8 calls of ~2 ms fixed cost
 * each per array) before B_G2 leaves the device. */
#define PLAN_SHRINK_PART 8
/* Rule 3: the gathered tail bases' buffer holds at most this (2^24 G1
 * points, 2^23 of G2): a job's tails beyond it are gathered and summed in
 * slices of it (stream.cu), so a dense circuit's worst case (its tails
 * nearly the array: 12.9 GB at 2^27) need not be planned. A 32 GiB PoRep
 * partition's ~1.7M tails an array fit in one. */
#define PLAN_TB_MAX ((size_t)96 << 24)

/* Rule 3: the gather buffer for MSM calls of c points of `size` bytes. */
static size_t tb_for(size_t c, size_t size)
{
    return c * size < PLAN_TB_MAX ? c * size : PLAN_TB_MAX;
}

static std::mutex plan_mu;
static size_t plan_cap;                /* 0: none */
static size_t plan_goal;               /* 0: PLAN_GOOD_CHUNK */
static int plan_kept = GPU_KEPT_FIRST; /* rule 4's modes with the witness kept packed */

extern "C" void gpu_prove_set_witness_kept(int mode)
{
    std::lock_guard<std::mutex> g(plan_mu);
    plan_kept = mode;
}

extern "C" void gpu_prove_set_chunk_goal(size_t points)
{
    std::lock_guard<std::mutex> g(plan_mu);
    plan_goal = points;
}
static prove_plan plan_last[CU_MAX_SLOTS]; /* by slot (lane.cuh) */
static size_t plan_slack[CU_MAX_DEVICES];  /* rule 1: what starts found missing */

extern "C" void gpu_prove_set_device_memory(size_t bytes)
{
    std::lock_guard<std::mutex> g(plan_mu);
    plan_cap = bytes;
}

int prove_plan_budget(size_t *budget, int dev, size_t held, cuzk_err *err)
{
    size_t free_b = 0, total = 0, lane = 0;
    if (dev >= CU_MAX_DEVICES) { /* rule 7: a lane plans in its reservation */
        if (!cu_lane_ready(dev - CU_MAX_DEVICES, NULL, &lane))
            return cuzk_errf(err, CUZK_EINVAL, "gpu prove: device %d has no small-circuit lane",
                             dev - CU_MAX_DEVICES);
        *budget = lane;
        return CUZK_OK;
    }
    cu_lane_ready(dev, NULL, &lane);
    cudaError_t e = cudaMemGetInfo(&free_b, &total);
    if (e != cudaSuccess) return cu_fail(e, err, "cudaMemGetInfo", __FILE__, __LINE__);
    size_t b = free_b + held;
    std::lock_guard<std::mutex> g(plan_mu);
    /* a cap at most the lane's leaves the big starts no room (1 byte: too small) */
    size_t cap = plan_cap > lane ? plan_cap - lane : (plan_cap ? 1 : 0);
    b = cap && cap < b ? cap : b;
    size_t slack = dev >= 0 && dev < CU_MAX_DEVICES ? plan_slack[dev] : 0;
    *budget = b > slack ? b - slack : 0;
    return CUZK_OK;
}

/* Rule 7's share: the big starts keep at least 7/8 of the device. */
#define PLAN_LANE_SHARE 8

static bool lane_in_share(size_t bytes, size_t budget)
{
    return bytes <= budget / PLAN_LANE_SHARE;
}

extern "C" size_t gpu_lane_bytes_on(size_t budget, unsigned max_log, size_t params_bytes)
{
    size_t bytes = gpu_lane_bytes_for(max_log, params_bytes);
    return lane_in_share(bytes, budget) ? bytes : 0;
}

int prove_plan_lane_room(int dev, size_t bytes, cuzk_err *err)
{
    size_t budget = 0;
    cudaError_t e = cudaSetDevice(dev); /* rule 1 asks the current device */
    if (e != cudaSuccess) return cu_fail(e, err, "cudaSetDevice", __FILE__, __LINE__);
    int rc = prove_plan_budget(&budget, dev, 0, err);
    if (rc) return rc;
    if (!lane_in_share(bytes, budget))
        return cuzk_errf(err, CUZK_ENOMEM,
                         "gpu lane: device %d has no room for the small-circuit lane: its "
                         "reservation of %.1f MiB is more than 1/%d of the %.1f MiB the big "
                         "starts may use (residency rule 7); CRITICAL work waits for the running "
                         "partition instead",
                         dev, bytes / MIB, PLAN_LANE_SHARE, budget / MIB);
    return CUZK_OK;
}

void prove_plan_short(int dev, size_t budget)
{
    std::lock_guard<std::mutex> g(plan_mu);
    if (dev >= 0 && dev < CU_MAX_DEVICES) plan_slack[dev] += budget / 8;
}

void prove_plan_forget(int dev)
{
    std::lock_guard<std::mutex> g(plan_mu);
    if (dev >= 0 && dev < CU_MAX_DEVICES) plan_slack[dev] = 0;
}

void prove_plan_last(prove_plan *pl, int dev)
{
    std::lock_guard<std::mutex> g(plan_mu);
    *pl = plan_last[dev];
}

void prove_plan_remember(const prove_plan *pl, int dev)
{
    std::lock_guard<std::mutex> g(plan_mu);
    plan_last[dev] = *pl;
}

/* Rule 5: the points per B_G2 chunk beside G1 chunks of `chunk`: the
 * largest power of two up to chunk / 2 (the ring's and gather buffer's
 * bytes) whose G2 MSM workspace fits in the G1 one, PLAN_MIN_CHUNK / 2
 * at least (G2 buckets take twice the bytes: at the G1 chunk's half the
 * G2 workspace would outgrow the G1 one and shrink every G1 call). */
static size_t g2_stream_chunk(size_t chunk)
{
    size_t w1 = gpu_msm_workspace_for(chunk, 0), c2 = chunk / 2;
    while (c2 > PLAN_MIN_CHUNK / 2 && gpu_msm_workspace_for(c2, 1) > w1) c2 /= 2;
    return c2;
}

/* Rule 5: B_G2's stream chunk grown from c2 (g2_stream_chunk's) by powers
 * of two up to the ring's half (chunk / 2 G2 points) and the array while
 * what its MSM workspace adds beyond max(G1's at chunk, G2's at c2) fits
 * in room; *c2 the chunk, returns the bytes it adds. */
static size_t g2_grow(size_t *c2, size_t chunk, size_t n2, size_t room)
{
    size_t w1 = gpu_msm_workspace_for(chunk, 0), w = gpu_msm_workspace_for(*c2, 1), added = 0;
    size_t base = w1 > w ? w1 : w;
    while (2 * *c2 <= chunk / 2 && *c2 < n2) {
        size_t w2 = gpu_msm_workspace_for(2 * *c2, 1), more = w2 > base ? w2 - base : 0;
        if (w2 == SIZE_MAX || more > room) break;
        *c2 *= 2, added = more;
    }
    return added;
}

/* Rule 5: the G1 chunk doubled (up to the largest array, max_n) while
 * what a doubling adds to the machinery fits in room: the ring's halves
 * and the gather buffer (three chunks of G1 points) and the G1 MSM
 * workspace beyond B_G2's at c2 (0: B_G2 not streamed); returns the bytes
 * added. */
static size_t g1_grow(size_t *chunk, size_t c2, size_t max_n, size_t room)
{
    size_t w2 = c2 ? gpu_msm_workspace_for(c2, 1) : 0, added = 0;
    size_t w1 = gpu_msm_workspace_for(*chunk, 0),
           base = (w1 > w2 ? w1 : w2) + 3 * *chunk * G1_POINT;
    while (*chunk < max_n) {
        size_t c = 2 * *chunk, w = gpu_msm_workspace_for(c, 0);
        if (w == SIZE_MAX) break;
        size_t m = (w > w2 ? w : w2) + 3 * c * G1_POINT, more = m - base;
        if (more > room) break;
        *chunk = c, added = more;
    }
    return added;
}

/* The MSM workspace, the stream's two chunk buffers and the tail bases
 * gathered from a chunk (stream.cu), for chunk points; with g2, B_G2
 * streamed in chunks of g2_stream_chunk points too (within the same ring
 * and gather buffer; its MSM workspace if larger). */
static size_t machinery(size_t chunk, bool g2)
{
    size_t ws = gpu_msm_workspace_for(chunk, 0), ring = 3 * chunk * G1_POINT;
    if (g2 && ws != SIZE_MAX) {
        size_t w2 = gpu_msm_workspace_for(g2_stream_chunk(chunk), 1);
        if (w2 > ws) ws = w2;
    }
    return ws > SIZE_MAX - ring ? SIZE_MAX : ws + ring; /* SIZE_MAX: past the MSM's limits */
}

/* Rule 4: the largest power-of-two chunk whose machinery fits in room;
 * 0 when PLAN_MIN_CHUNK does not. */
static size_t chunk_for(size_t room, size_t max_n, bool g2)
{
    size_t c = PLAN_MIN_CHUNK;
    if (machinery(c, g2) > room) return 0;
    while (c < max_n && machinery(2 * c, g2) <= room) c *= 2;
    return c;
}

/* Rules 5 and 9: the weight of a byte of G1 array k kept on the device,
 * in partitions' transfer: H's is a pass's group (g), the others' 1. */
static size_t keep_weight(int k, unsigned g)
{
    return k == RES_H ? g : 1;
}

/* Rule 5's prefix beside the arrays of `set` kept whole (bit k: array
 * k): the streamed G1 array of most weight, then of most points (*which;
 * -1: none), and how many of its first points `room` keeps in whole
 * chunks, fewer than the array's (one that fits whole is in the set, or
 * gave way to rule 6). */
static size_t prefix_points(const prove_plan *pl, unsigned set, size_t room, const size_t *n,
                            unsigned g, int *which)
{
    int best = -1;
    for (int k = 0; k < RES_B_G2; k++) {
        if ((set >> k & 1) || !n[k]) continue;
        size_t w = keep_weight(k, g), bw = best < 0 ? 0 : keep_weight(best, g);
        if (best < 0 || w > bw || (w == bw && n[k] > n[best])) best = k;
    }
    *which = best;
    if (best < 0 || !pl->chunk) return 0;
    size_t p = room / G1_POINT / pl->chunk * pl->chunk;
    return p >= n[best] ? (n[best] - 1) / pl->chunk * pl->chunk : p;
}

/* Rules 5 and 6 in streamed mode: the G1 arrays kept whole (resident[]),
 * a batch's second a/b/c buffer (second: the mode allows one, of abc
 * bytes) and the prefix of a streamed array, for the most transfer saved
 * per partition (g: rule 9's group): each set of whole arrays that fits
 * in room tried with what it leaves going to the second buffer when that
 * fits (rule 6 first) and then to the prefix; ties: fewer arrays. Returns
 * the bytes they take. */
static size_t keep_most(prove_plan *pl, size_t room, const size_t *n, unsigned g, bool second,
                        size_t abc)
{
    size_t best = 0, best_p = 0;
    unsigned best_set = 0;
    int best_k = -1;
    bool found = false;
    for (unsigned set = 0; set < 1u << RES_B_G2; set++) {
        size_t b = 0, w = 0;
        for (int k = 0; k < RES_B_G2; k++)
            if (set >> k & 1) b += pl->bytes[k], w += keep_weight(k, g) * pl->bytes[k];
        if (b > room) continue;
        size_t left = room - b;
        if (second && left >= abc) left -= abc;
        int k;
        size_t p = prefix_points(pl, set, left, n, g, &k);
        if (k >= 0) w += keep_weight(k, g) * p * G1_POINT;
        if (!found || w > best ||
            (w == best && __builtin_popcount(set) < __builtin_popcount(best_set)))
            found = true, best = w, best_set = set, best_p = p, best_k = k;
    }
    size_t used = 0;
    for (int k = 0; k < RES_B_G2; k++) {
        pl->resident[k] = best_set >> k & 1;
        if (pl->resident[k]) used += pl->bytes[k];
    }
    if (second && room - used >= abc) pl->abc_buffers = 2, used += abc;
    if (best_k >= 0 && best_p) pl->prefix[best_k] = best_p, used += best_p * G1_POINT;
    return used;
}

/* Rule 3: B_G2's MSM calls of c points: the gather buffer and what their
 * workspace adds to the G1 MSMs' ws. */
static size_t g2_machinery(size_t c, size_t ws)
{
    size_t w = gpu_msm_workspace_for(c, 1);
    if (w == SIZE_MAX) return SIZE_MAX; /* past the MSM's limits */
    return tb_for(c, G2_POINT) + (w > ws ? w - ws : 0);
}

/* Rule 3: the largest power-of-two chunk of B_G2 (n points) whose points
 * and machinery fit in room, at least `least`; 0 when none does. */
static size_t g2_chunk_for(size_t room, size_t n, size_t ws, size_t least)
{
    size_t most = 1, bytes = n * G2_POINT;
    while (most < n) most *= 2;
    if (least > most) least = most;
    if (!n || bytes > room) return 0;
    size_t c = least;
    if (g2_machinery(c, ws) > room - bytes) return 0; /* SIZE_MAX included */
    while (c < most && g2_machinery(2 * c, ws) <= room - bytes) c *= 2;
    return c;
}

/* Rule 3: B_G2 kept in the room `left` beside G1 machinery of workspace
 * ws: its chunk_g2, and a batch's second a/b/c buffer (abc bytes) in the
 * order of the rule; false when B_G2 does not fit. */
static bool g2_kept(prove_plan *pl, size_t left, size_t ws, size_t abc, bool batch, size_t n2)
{
    size_t least = 1;
    while (least < PLAN_G2_MIN_CHUNK && 2 * least <= n2 / 4) least *= 2;
    size_t c2 = batch && left > abc ? g2_chunk_for(left - abc, n2, ws, PLAN_G2_GOOD_CHUNK) : 0;
    bool two = batch && c2;
    if (!c2) c2 = g2_chunk_for(left, n2, ws, least);
    if (!c2) return false;
    size_t g2 = pl->bytes[RES_B_G2] + g2_machinery(c2, ws);
    if (batch && !two && left >= g2 + abc) two = true;
    pl->resident[RES_B_G2] = true;
    pl->chunk_g2 = c2;
    pl->g2_room = g2_machinery(c2, ws);
    if (pl->tb_bytes < tb_for(c2, G2_POINT)) pl->tb_bytes = tb_for(c2, G2_POINT); /* its calls' */
    pl->abc_buffers = two ? 2 : 1;
    pl->use += g2 + (two ? abc : 0);
    return true;
}

/* Rule 3: B_G2 streamed in calls of c2 points beside G1 machinery of
 * workspace ws and a gather buffer of tb bytes: the ring's two halves,
 * what the gather buffer (shared) and the G2 workspace add. */
static size_t g2_stream_machinery(size_t c2, size_t ws, size_t tb)
{
    size_t w = gpu_msm_workspace_for(c2, 1), g = c2 * G2_POINT, t = tb_for(c2, G2_POINT);
    if (w == SIZE_MAX) return SIZE_MAX;
    return 2 * g + (t > tb ? t - tb : 0) + (w > ws ? w - ws : 0);
}

/* Rule 3: B_G2 streamed in the room `left`: the largest power-of-two
 * chunk from PLAN_MIN_CHUNK / 2 (or the array, if smaller) that fits,
 * then the second a/b/c buffer if room is left; false when none fits. */
static bool g2_streams(prove_plan *pl, size_t left, size_t ws, size_t abc, bool batch, size_t n2)
{
    size_t most = 64, least = PLAN_MIN_CHUNK / 2; /* multiples of 64: bitmap words */
    while (most < n2) most *= 2;
    if (least > most) least = most;
    size_t c2 = least;
    if (!n2 || g2_stream_machinery(c2, ws, pl->tb_bytes) > left) return false;
    while (c2 < most && g2_stream_machinery(2 * c2, ws, pl->tb_bytes) <= left) c2 *= 2;
    size_t m = g2_stream_machinery(c2, ws, pl->tb_bytes);
    pl->g2_streamed = true;
    pl->chunk_g2 = c2;
    pl->g2_room = m;
    pl->ring_bytes = 2 * c2 * G2_POINT;
    if (tb_for(c2, G2_POINT) > pl->tb_bytes) pl->tb_bytes = tb_for(c2, G2_POINT);
    pl->abc_buffers = batch && left - m >= abc ? 2 : 1;
    pl->use += m + (pl->abc_buffers - 1) * abc;
    return true;
}

/* Rule 3: the G1 machinery of resident mode at MSM calls of c points:
 * the workspace and the split MSMs' gathered tail bases (tb_for). */
static size_t resident_machinery(size_t c)
{
    size_t ws = gpu_msm_workspace_for(c, 0);
    return ws == SIZE_MAX ? SIZE_MAX : ws + tb_for(c, G1_POINT);
}

/* Rule 3: the next G1 chunk to try after c: the largest power of two
 * below it, down to PLAN_SHRINK_PART of the largest array (max_n; at
 * least PLAN_MIN_CHUNK); 0 past that. */
static size_t next_chunk(size_t c, size_t max_n)
{
    size_t p = PLAN_MIN_CHUNK, floor_c = PLAN_MIN_CHUNK;
    while (2 * floor_c <= max_n / PLAN_SHRINK_PART) floor_c *= 2;
    while (2 * p < c) p *= 2;
    return p < c && p >= floor_c ? p : 0;
}

/* Rule 3: all G1 arrays resident at the largest chunk (max_n, then
 * powers of two below it) with which B_G2 is kept too; else at the
 * largest chunk that fits, B_G2 streamed; else the CPU's. False when the
 * G1 arrays fit at no chunk. */
static bool plan_resident(prove_plan *pl, size_t g1, size_t max_n, size_t abc, bool batch,
                          const groth16_params *pk)
{
    size_t first = 0, n2 = pk->n_b_g2;
    for (int pass = batch ? 0 : 1; pass < 2; pass++) /* 0: a batch's both first */
        for (size_t c = max_n; c; c = next_chunk(c, max_n)) {
            size_t m = resident_machinery(c), used = pl->work + g1 + m;
            if (m == SIZE_MAX || m > pl->budget || used > pl->budget) continue;
            if (!first) first = c;
            for (int k = 0; k < RES_B_G2; k++) pl->resident[k] = true;
            pl->chunk = c;
            pl->machinery = m;
            pl->tb_bytes = tb_for(c, G1_POINT);
            pl->use = used;
            if (g2_kept(pl, pl->budget - used, m - pl->tb_bytes, abc, batch, n2) &&
                (pass || pl->abc_buffers == 2))
                return true;
            pl->resident[RES_B_G2] = false, pl->chunk_g2 = pl->g2_room = 0;
        }
    if (!first) return false;
    size_t m = resident_machinery(first), used = pl->work + g1 + m, left = pl->budget - used;
    pl->chunk = first;
    pl->machinery = m;
    pl->tb_bytes = tb_for(first, G1_POINT);
    pl->use = used;
    if (g2_streams(pl, left, m - pl->tb_bytes, abc, batch, n2)) return true;
    pl->abc_buffers = batch && left >= abc ? 2 : 1;
    pl->use += (pl->abc_buffers - 1) * abc;
    return true;
}

/* Rule 4's chunk and rows: the chunk for work's leftover; false when not
 * even PLAN_MIN_CHUNK fits. */
static bool plan_chunk(prove_plan *pl, size_t max_n)
{
    size_t avail = pl->budget > pl->work ? pl->budget - pl->work : 0;
    bool g2 = pl->bytes[RES_B_G2] != 0; /* B_G2 streamed if it can be, else the CPU's */
    pl->chunk = g2 ? chunk_for(avail / 2, max_n, true) : 0;
    if (!pl->chunk && g2) pl->chunk = chunk_for(avail, max_n, true);
    pl->g2_streamed = pl->chunk != 0 && g2;
    if (!pl->chunk) pl->chunk = chunk_for(avail / 2, max_n, false);
    if (!pl->chunk) pl->chunk = chunk_for(avail, max_n, false);
    return pl->chunk != 0;
}

/* Rule 4's modes of the H step: rows on the device, the witness sharing
 * the row's memory, the shape streamed, the witness kept packed; in the
 * order of the bytes moved (the packed witness crosses as it would
 * anyway: of two modes that differ in it alone, the witness as it is
 * first). */
static const struct {
    unsigned rows;
    bool shared, shape, kept;
} plan_modes[] = {{3, false, false, false}, {2, false, false, false}, {2, false, false, true},
                  {2, false, true, false},  {2, false, true, true},   {1, false, false, false},
                  {1, false, true, false},  {1, true, false, false}};
#define PLAN_MODES (sizeof plan_modes / sizeof *plan_modes)

/* The ring a streamed shape's slices go through: 1/64 of the shape, 1
 * MiB to 64 MiB (a slice is whole 32-row blocks; 64 MiB takes some 5M
 * rows of a 32 GiB PoRep matrix), at most the shape; a test may set it
 * (gpu_prove_set_shape_ring). */
#define PLAN_SHAPE_RING_MIN ((size_t)1 << 20)
#define PLAN_SHAPE_RING_MAX ((size_t)64 << 20)
static size_t plan_shape_ring_set; /* 0: the rule above */

extern "C" void gpu_prove_set_shape_ring(size_t bytes)
{
    std::lock_guard<std::mutex> g(plan_mu);
    plan_shape_ring_set = bytes;
}

static size_t shape_ring_for(size_t shapes)
{
    size_t r;
    {
        std::lock_guard<std::mutex> g(plan_mu);
        r = plan_shape_ring_set;
    }
    if (!r) {
        r = shapes / 64;
        r = r < PLAN_SHAPE_RING_MIN   ? PLAN_SHAPE_RING_MIN
            : r > PLAN_SHAPE_RING_MAX ? PLAN_SHAPE_RING_MAX
                                      : r;
    }
    return r < shapes ? r : shapes;
}

/* The witness's figures for rule 4: as it is, a domain row's bytes, and
 * kept packed (counted when first asked: wit_kept). */
typedef struct plan_wit {
    size_t bytes, row;
    prove_kept *kept;
} plan_wit;

static size_t wit_kept(const plan_wit *w)
{
    prove_kept *k = w->kept;
    if (k->count) k->bytes = k->count(k->ctx), k->count = NULL;
    return k->bytes;
}

/* Whether rule 4 may take mode m: the shared and streamed-shape modes
 * need the witness-only path (a witness and shapes), a streamed shape a
 * ring smaller than the shape, and a packed witness a figure below the
 * witness's own and a witness that fits a row (where a circuit whose
 * pieces need more than planned goes: prove_gpu.cu's load_witness). */
static bool mode_ok(size_t m, const plan_wit *w, size_t shapes)
{
    if ((plan_modes[m].shared || plan_modes[m].shape) && !w->bytes) return false;
    if (plan_modes[m].kept &&
        !(w->bytes && w->bytes <= w->row && wit_kept(w) && wit_kept(w) < w->bytes))
        return false;
    return !plan_modes[m].shape || (shapes && shape_ring_for(shapes) < shapes);
}

/* The working memory of mode m beside `fixed` (tables, headroom): its
 * rows and witness, and the shapes or, streamed, their ring. */
static size_t mode_work(size_t m, const plan_wit *w, size_t shapes, size_t fixed)
{
    size_t sh = plan_modes[m].shape ? shape_ring_for(shapes) : shapes, row = w->row;
    size_t wit = plan_modes[m].kept ? wit_kept(w) : w->bytes;
    if (plan_modes[m].shared) return (row > wit ? row : wit) + sh + fixed;
    return plan_modes[m].rows * row + wit + sh + fixed;
}

/* Rule 4 in mode m: pl's rows, work and chunk; false when it does not fit. */
static bool try_mode(prove_plan *pl, size_t m, const plan_wit *w, size_t shapes, size_t fixed,
                     size_t max_n)
{
    pl->abc_rows = plan_modes[m].rows;
    pl->witness_shared = plan_modes[m].shared;
    pl->witness_kept = plan_modes[m].kept;
    pl->shape_streamed = plan_modes[m].shape;
    pl->shape_ring = plan_modes[m].shape ? shape_ring_for(shapes) : 0;
    pl->work = mode_work(m, w, shapes, fixed);
    return plan_chunk(pl, max_n);
}

/* Whether modes a and b differ in keeping the witness packed alone. */
static bool kept_twins(size_t a, size_t b)
{
    return plan_modes[a].rows == plan_modes[b].rows &&
           plan_modes[a].shared == plan_modes[b].shared &&
           plan_modes[a].shape == plan_modes[b].shape && plan_modes[a].kept != plan_modes[b].kept;
}

/* The mode rule 4 tries t-th: the table's order, with GPU_KEPT_FIRST
 * (gpus.witness_kept = "first") each mode keeping the witness packed
 * before its twin with the witness as it is. */
static size_t mode_at(size_t t, bool first)
{
    if (first && t + 1 < PLAN_MODES && kept_twins(t, t + 1)) return t + 1;
    if (first && t > 0 && kept_twins(t - 1, t)) return t - 1;
    return t;
}

/* Rule 4: the first mode whose chunk reaches PLAN_GOOD_CHUNK (or max_n),
 * else the one that fits with the largest chunk (the first of equals);
 * pl's work, rows and chunk set for it. */
static bool plan_rows(prove_plan *pl, const plan_wit *w, size_t shapes, size_t fixed, size_t max_n)
{
    size_t good, best = PLAN_MODES, best_chunk = 0;
    bool first;
    {
        std::lock_guard<std::mutex> g(plan_mu);
        good = plan_goal ? plan_goal : PLAN_GOOD_CHUNK;
        first = plan_kept == GPU_KEPT_FIRST;
    }
    if (max_n < good) good = max_n;
    for (size_t t = 0; t < PLAN_MODES; t++) {
        size_t m = mode_at(t, first);
        if (!mode_ok(m, w, shapes) || !try_mode(pl, m, w, shapes, fixed, max_n)) continue;
        if (pl->chunk >= good) return true;
        if (pl->chunk > best_chunk) best = m, best_chunk = pl->chunk;
    }
    return best < PLAN_MODES && try_mode(pl, best, w, shapes, fixed, max_n);
}

/* What a start of 2^lg holds whatever the plan: the NTT's tables and the
 * passes' batch-addition accumulators (for arrays up to twice the
 * domain: 0.8 MB at most), beside the headroom. */
static size_t plan_fixed(unsigned lg, size_t headroom)
{
    return gpu_ntt_tables_for(lg) + PROVE_BA_ACC_BYTES((size_t)2 << lg) + headroom;
}

/* The least budget a proof of 2^lg runs in (the mode that needs least,
 * the least headroom, PLAN_MIN_CHUNK). A mode keeping the witness packed
 * is never that one (its 2 rows and packed witness are more than the
 * mode of 1 row beside the witness, which fits a row, and its shape
 * streamed or not), so its figure is not asked for. */
static size_t plan_need(unsigned lg, const plan_wit *wit, size_t shapes, size_t jobs)
{
    size_t head = PLAN_HEADROOM_PER << lg;
    size_t least = SIZE_MAX, fixed = plan_fixed(lg, jobs > head ? jobs : head);
    for (size_t m = 0; m < PLAN_MODES; m++) {
        if (plan_modes[m].kept || !mode_ok(m, wit, shapes)) continue;
        size_t w = mode_work(m, wit, shapes, fixed);
        if (w < least) least = w;
    }
    size_t m = machinery(PLAN_MIN_CHUNK, false);
    return m > SIZE_MAX - least ? SIZE_MAX : least + m;
}

/* Rule 9's group for a start (before the plan knows what streams): on
 * the witness-only path's batches PROVE_PASS_JOBS (four), else one. */
static unsigned lab_group_for(size_t witness, bool batch)
{
    return witness && batch ? PROVE_PASS_JOBS : 1;
}

/* Rules 8 and 9: the bytes a partition moves under pl (a streamed shape:
 * at most two passes of its bytes, with a slice's rebased block starts),
 * the points streamed per partition with a pass of L, A, B_G1, B_G2 for
 * each group when anything of those streams (lab_group, at most
 * group_most: as many circuits as rule 2's room holds the jobs of). */
static void plan_moved(prove_plan *pl, unsigned lg, size_t witness, const plan_wit *w,
                       size_t shapes, bool batch, unsigned group_most)
{
    size_t row = ((size_t)1 << lg) * sizeof(fr_t), h = 0, lab = 0;
    for (int k = 0; k < RES_B_G2; k++) {
        size_t b = pl->resident[k] ? 0 : pl->bytes[k] - pl->prefix[k] * G1_POINT;
        *(k == RES_H ? &h : &lab) += b;
    }
    if (pl->g2_streamed) lab += pl->bytes[RES_B_G2];
    pl->lab_group = lab ? lab_group_for(witness, batch) : 1;
    if (pl->lab_group > group_most) pl->lab_group = group_most; /* rule 2's room for the jobs */
    pl->streamed = h + lab / pl->lab_group;
    pl->parked = pl->abc_rows == 1 ? (pl->witness_shared ? 5 : 2) * row : 0;
    pl->input = witness ? (pl->witness_kept ? wit_kept(w) : witness) : 3 * row;
    pl->shape_up = pl->shape_streamed ? 2 * shapes : 0;
    pl->moved = pl->streamed + 2 * pl->parked + pl->input + pl->shape_up;
}

/* Rule 2's headroom: 1/32 of the budget, PLAN_HEADROOM_PER bytes per
 * domain position at least. */
static size_t plan_headroom(size_t budget, unsigned lg)
{
    size_t least = PLAN_HEADROOM_PER << lg;
    return budget / 32 > least ? budget / 32 : least;
}

/* The plan with `jobs` bytes for the MSM jobs (rule 2: the headroom at
 * least), a proof needing at least `least` for them. */
static int plan_make(prove_plan *pl, const groth16_params *pk, unsigned lg, size_t witness,
                     const plan_wit *w, size_t shapes, size_t jobs, size_t least_jobs, bool batch,
                     size_t budget, int dev, cuzk_err *err)
{
    memset(pl, 0, sizeof *pl);
    pl->budget = budget;
    size_t n[RES_ARRAYS] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2}, max_n = 1, g1 = 0;
    for (int k = 0; k < RES_B_G2; k++) {
        pl->bytes[k] = n[k] * G1_POINT;
        g1 += pl->bytes[k];
        if (n[k] > max_n) max_n = n[k];
    }
    pl->bytes[RES_B_G2] = n[RES_B_G2] * sizeof(g2_affine_t);
    size_t row = ((size_t)1 << lg) * sizeof(fr_t), abc = 3 * row, head = plan_headroom(budget, lg);
    pl->jobs_room = head; /* rule 2: the jobs in the headroom, or beside half of it */
    if (jobs > head / 2) pl->jobs_room = jobs, head += jobs - head / 2;
    size_t fixed = plan_fixed(lg, head);
    pl->abc_rows = 3;
    pl->work = mode_work(0, w, shapes, fixed);
    pl->need = plan_need(lg, w, shapes, least_jobs);
    prove_plan base = *pl, res;
    bool resident = plan_resident(pl, g1, max_n, abc, batch, pk);
    if (resident && (pl->resident[RES_B_G2] || pl->g2_streamed || !n[RES_B_G2])) return CUZK_OK;
    if (resident) res = *pl, *pl = base; /* B_G2 the CPU's: streamed mode, if it has B_G2 */
    pl->too_small = !plan_rows(pl, w, shapes, fixed, max_n);
    if (resident && (pl->too_small || !pl->g2_streamed)) {
        *pl = res;
        return CUZK_OK;
    }
    if (pl->too_small)
        return cuzk_errf(err, CUZK_ENOMEM,
                         "gpu prove: out of memory: device %d too small: a proof of 2^%u needs "
                         "%zu MiB of device memory even with every parameter streamed, %zu MiB "
                         "usable",
                         dev, lg, (pl->need + (1 << 20) - 1) >> 20, budget >> 20);
    pl->machinery = machinery(pl->chunk, pl->g2_streamed);
    size_t room = budget - pl->work - pl->machinery;
    /* the calls grow in what rule 6's second a/b/c buffer leaves */
    bool second = batch && pl->abc_rows == 3 && room >= abc;
    size_t grow = second ? room - abc : room, more;
    if (pl->g2_streamed) {
        pl->chunk_g2 = g2_stream_chunk(pl->chunk);
        more = g2_grow(&pl->chunk_g2, pl->chunk, n[RES_B_G2], grow);
        pl->machinery += more, room -= more, grow -= more;
    }
    more = g1_grow(&pl->chunk, pl->chunk_g2, max_n, grow);
    pl->machinery += more, room -= more;
    pl->tb_bytes = pl->chunk * G1_POINT;
    pl->ring_bytes = 2 * pl->chunk * G1_POINT;
    if (pl->abc_rows < 3) pl->piece = pl->chunk < ((size_t)1 << lg) ? pl->chunk : (size_t)1 << lg;
    if (pl->abc_rows == 1) pl->park = (pl->witness_shared ? 3 : 2) * row;
    pl->abc_buffers = 1;
    room -= keep_most(pl, room, n, lab_group_for(witness, batch), second, abc);
    pl->use = budget - room;
    return CUZK_OK;
}

int prove_plan_make(prove_plan *pl, const groth16_params *pk, unsigned lg, size_t witness,
                    prove_kept *kept, size_t shapes, const prove_jobs *jobs, bool batch,
                    size_t budget, int dev, cuzk_err *err)
{
    prove_kept none = {0, NULL, NULL};
    {
        std::lock_guard<std::mutex> g(plan_mu);
        if (plan_kept == GPU_KEPT_OFF) kept = &none;
    }
    plan_wit w = {witness, ((size_t)1 << lg) * sizeof(fr_t), kept};
    /* jobs in the headroom (or not known): rule 9's groups, as before rule 2 counted them */
    if (!jobs || jobs->each <= plan_headroom(budget, lg)) {
        int rc = plan_make(pl, pk, lg, witness, &w, shapes, 0, 0, batch, budget, dev, err);
        if (!rc) plan_moved(pl, lg, witness, &w, shapes, batch, PROVE_PASS_JOBS);
        pl->jobs_slots = pl->lab_group + 1;
        pl->jobs_room = SIZE_MAX; /* the jobs' buffers grow into free memory */
        return rc;
    }
    /* rule 2, jobs larger than the headroom: the room for one circuit's
     * jobs, or, for a start of several circuits, two or a group's and the
     * next one's, whichever moves least a partition (on a tie, the most
     * circuits' jobs); else the largest job alone */
    static const unsigned mult[] = {1, 2, PROVE_PASS_JOBS + 1};
    int rc = CUZK_ENOMEM;
    for (size_t k = 0; k < (jobs->circuits > 1 ? sizeof mult / sizeof *mult : 1); k++) {
        prove_plan c;
        if (plan_make(&c, pk, lg, witness, &w, shapes, jobs->each * mult[k], jobs->least, batch,
                      budget, dev, k ? NULL : err))
            continue;
        size_t fit = c.jobs_room / jobs->each;
        c.jobs_slots = (unsigned)(fit > PROVE_PASS_JOBS + 1 ? PROVE_PASS_JOBS + 1 : fit);
        plan_moved(&c, lg, witness, &w, shapes, batch, c.jobs_slots > 1 ? c.jobs_slots - 1 : 1);
        if (rc || c.moved < pl->moved || (c.moved == pl->moved && c.jobs_slots > pl->jobs_slots))
            *pl = c;
        rc = CUZK_OK;
    }
    if (rc) {
        rc = plan_make(pl, pk, lg, witness, &w, shapes, jobs->least, jobs->least, batch, budget,
                       dev, err);
        pl->jobs_slots = 1;
        if (!rc) plan_moved(pl, lg, witness, &w, shapes, batch, 1);
    }
    return rc;
}

static void plan_info(gpu_prove_plan_info *out, const prove_plan &pl)
{
    out->made = pl.budget != 0;
    out->too_small = pl.too_small;
    for (int k = 0; k < RES_ARRAYS; k++) out->resident[k] = pl.resident[k];
    out->budget = pl.budget, out->use = pl.use, out->need = pl.need;
    out->streamed = pl.streamed, out->chunk = pl.chunk, out->abc_buffers = pl.abc_buffers;
    out->lab_group = pl.lab_group;
    for (int k = 0; k < RES_B_G2; k++) out->prefix[k] = pl.prefix[k] * G1_POINT;
    out->abc_rows = pl.abc_rows, out->park = pl.park, out->witness_shared = pl.witness_shared;
    out->witness_kept = pl.witness_kept;
    out->chunk_g2 = pl.chunk_g2;
    out->b_g2_streamed = pl.g2_streamed;
    out->parked = pl.parked, out->input = pl.input, out->moved = pl.moved;
    out->shape_streamed = pl.shape_streamed, out->shape_up = pl.shape_up;
    out->jobs_room = pl.jobs_room, out->jobs_slots = pl.jobs_slots;
}

void prove_plan_format(char *out, size_t len, const prove_plan *pl)
{
    gpu_prove_plan_info p;
    memset(&p, 0, sizeof p);
    plan_info(&p, *pl);
    gpu_prove_format_plan(out, len, &p);
}

extern "C" void gpu_prove_device_plan(int device, gpu_prove_plan_info *out)
{
    memset(out, 0, sizeof *out);
    if (device < 0 || device >= CU_MAX_DEVICES) return;
    prove_plan pl;
    prove_plan_last(&pl, device);
    plan_info(out, pl);
}

extern "C" void gpu_lane_plan(int device, gpu_prove_plan_info *out)
{
    memset(out, 0, sizeof *out);
    if (device < 0 || device >= CU_MAX_DEVICES) return;
    prove_plan pl;
    prove_plan_last(&pl, device + CU_MAX_DEVICES);
    plan_info(out, pl);
}

extern "C" int gpu_prove_plan_for(gpu_prove_plan_info *out, const groth16_params *pk, unsigned lg,
                                  size_t witness_bytes, size_t kept_bytes, size_t shape_bytes,
                                  const gpu_prove_jobs *jobs, bool batch, size_t budget,
                                  cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    prove_plan pl;
    prove_kept kept = {kept_bytes, NULL, NULL};
    int rc = prove_plan_make(&pl, pk, lg, witness_bytes, &kept, shape_bytes, jobs, batch, budget,
                             -1, err);
    plan_info(out, pl);
    return rc;
}

extern "C" void gpu_prove_format_plan(char *out, size_t len, const gpu_prove_plan_info *p)
{
    static const char *names[RES_ARRAYS] = {"H", "L", "A", "B_G1", "B_G2"};
    char kept[64] = "", streamed[128] = "";
    for (int k = 0; k < RES_ARRAYS; k++) {
        char *to = p->resident[k] ? kept : streamed;
        size_t cap = p->resident[k] ? sizeof kept : sizeof streamed, n = strlen(to);
        if (!p->resident[k] && k == RES_B_G2 && !p->b_g2_streamed) continue; /* the CPU's */
        snprintf(to + n, cap - n, "%s%s", n ? "," : "", names[k]);
        n = strlen(to);
        if (!p->resident[k] && p->prefix[k]) /* rule 5: its first points kept */
            snprintf(to + n, cap - n, "(first_%.1f_mib_kept)", p->prefix[k] / MIB);
    }
    if (!p->made) {
        snprintf(out, len, "plan=none");
        return;
    }
    char jobs[48] = "=in_headroom"; /* rule 2: jobs within the headroom */
    if (p->jobs_room != SIZE_MAX) snprintf(jobs, sizeof jobs, "_mib=%.1f", p->jobs_room / MIB);
    if (p->too_small) {
        snprintf(out, len, "too_small: needs %.1f MiB, has %.1f MiB usable: proving on the CPU",
                 p->need / MIB, p->budget / MIB);
        return;
    }
    snprintf(out, len,
             "resident=%s streamed=%s b_g2=%s streamed_per_partition_mib=%.1f chunk_points=%zu "
             "b_g2_chunk_points=%zu lab_group=%u abc_buffers=%u abc_rows=%u%s%s host_park_mib=%.1f "
             "budget_mib=%.1f use_mib=%.1f need_mib=%.1f moved_per_partition_mib=%.1f "
             "(parked_each_way_mib=%.1f input_mib=%.1f shape=%s shape_up_mib=%.1f) "
             "jobs_room%s jobs_slots=%u",
             kept[0] ? kept : "-", streamed[0] ? streamed : "-",
             p->resident[RES_B_G2] ? "device"
             : p->b_g2_streamed    ? "streamed"
                                   : "cpu",
             p->streamed / MIB, p->chunk, p->chunk_g2, p->lab_group, p->abc_buffers, p->abc_rows,
             p->witness_shared ? "(witness_shared)" : "",
             p->witness_kept ? " witness=kept_packed" : "", p->park / MIB, p->budget / MIB,
             p->use / MIB, p->need / MIB, p->moved / MIB, p->parked / MIB, p->input / MIB,
             p->shape_streamed ? "streamed" : "device", p->shape_up / MIB, jobs, p->jobs_slots);
}

extern "C" size_t gpu_prove_min_device_memory(unsigned lg, size_t witness_bytes, size_t shape_bytes)
{
    prove_kept none = {0, NULL, NULL};
    plan_wit w = {witness_bytes, ((size_t)1 << lg) * sizeof(fr_t), &none};
    return plan_need(lg, &w, shape_bytes, 0);
}
