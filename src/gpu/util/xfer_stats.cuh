/*
 * xfer_stats.cuh - the bytes a GPU proof moves between host and device,
 * counted per partition (circuit) at the copy sites, and the time the
 * copies and the kernels took (xfer_stats.cu).
 *
 * An account (xfer_acct) gathers one partition's copies and kernels. A
 * thread works for one account at a time (xfer_bind: the prover thread
 * for the circuit whose step it runs, the prep and loader threads for
 * theirs); every copy the prover makes goes through xfer_copy /
 * xfer_copy_async, which count the bytes under the kind of what they
 * carry (GROTH16_XFER_*, whose kind fixes the direction) in the calling
 * thread's account (or the one given: the staging pool's copy threads
 * work for their caller's) and bracket the copy with two CUDA events on
 * its stream; compute calls go through xfer_kernels, which brackets them
 * with two events on the compute stream (the calling thread's stream,
 * cu_stream() of lane.cuh, where the prover's kernels run: the default
 * stream for the big prover, the lane's stream for the small-circuit
 * lane). Nothing waits on those events when they are
 * recorded: xfer_settle reads them once the partition is done (each of
 * its steps returned with its work complete), relative to a base event of
 * the start, and turns them into groth16_xfer's times: copy_ms the union
 * of the copy spans, kernel_ms that of the kernel spans, hidden_ms the
 * part of the copies that ran under kernels of any partition settled so
 * far in the start (the loader of circuit i + 1 copies under circuit i's
 * kernels). A thread bound to no account counts nothing and records no
 * event. A failing event never fails a proof: the account's times are
 * marked untimed, its bytes stay exact. The small-circuit lane's
 * accounts (a thread working for a lane: lane.cuh) are untimed by design,
 * bytes only: a lane proof is latency, so nothing on its path records or
 * waits for timing events. (A lane start's step that waits for the base
 * event, among cheaper calls, held a Winning PoSt 150-580 ms now and then
 * on an H200 beside a PoRep stream, 2026-12-05; which call held it is
 * not yet measured: docs/performance.md, "Session 28".)
 *
 * What it does not do: it does not see copies made outside these calls
 * (every copy site of src/gpu/prove, the MSM's and batch addition's
 * result reads and the NTT's tables use them; the stand-in runtime's own
 * count cross-checks that in the tests), and a kernel span on the
 * default stream is the stream's time between its two events, which
 * includes launch gaps and kernels other host threads queued there
 * meanwhile. CUDA stamps an event when the device reaches it, and warns
 * that an event of a non-default stream may be stamped later than the
 * work before it ended: the spans are upper bounds, the rates lower ones.
 */
#ifndef CUZK_GPU_UTIL_XFER_STATS_CUH
#define CUZK_GPU_UTIL_XFER_STATS_CUH

#include <stddef.h>
#include <time.h>

#include <mutex>
#include <vector>

#include "gpu/util/check.cuh"

#include "gpu/util/capi.cuh"

struct xfer_span {
    cudaEvent_t from, to;
    bool copy; /* else kernels */
};

/* One partition's account: bytes by kind, the spans not yet settled. */
struct xfer_acct {
    std::mutex mu;
    uint64_t bytes[GROTH16_XFER_KINDS];
    uint64_t copies;
    std::vector<xfer_span> spans;
    double cpu_ms; /* helper threads' CPU (xfer_cpu) */
    bool untimed;
};

/* The kernel time settled so far in a start, for hidden_ms: the base
 * event every span is read against and the kernel intervals (ms from
 * base) of the partitions settled. */
struct xfer_run {
    cudaEvent_t base;
    std::vector<double> kernels; /* from, to pairs */
};

/* Empties a (its events back to the pool). */
void xfer_reset(xfer_acct *a);
/* The calling thread's copies and kernels count for a from now (NULL:
 * nowhere); the account it counted for before. */
xfer_acct *xfer_bind(xfer_acct *a);
xfer_acct *xfer_bound(void);

/* A copy on the calling thread's stream (cu_stream()) that returns once it
 * and the stream's earlier work are done, counted for the bound account
 * as `what` (its kind gives the direction), timed by events on that
 * stream around it. */
cudaError_t xfer_copy(void *dst, const void *src, size_t bytes, int what);
/* cudaMemcpyAsync on st counted for account a (NULL: the bound one). */
cudaError_t xfer_copy_async(void *dst, const void *src, size_t bytes, int what, cudaStream_t st,
                            xfer_acct *a);

/* The calling thread's CPU time so far (user + system), ms. */
double xfer_thread_cpu_ms(void);
/* ms of a helper thread's CPU counted for a (NULL: nowhere): the loader
 * and prep threads' own, and the staging pool's copy threads' for the
 * account of the thread they work for. */
void xfer_cpu(xfer_acct *a, double ms);

/* a's bytes of kind `what` so far. */
uint64_t xfer_bytes(xfer_acct *a, int what);
/* Bytes of kind `what` that `from` counted for a copy k other accounts
 * used as much as it did (a pass serving several partitions, residency.cu
 * rule 9): each of to[0 .. k - 1] takes bytes / (k + 1) of them, `from`
 * keeps the rest. The copies and their times stay with `from`. */
void xfer_share(xfer_acct *from, xfer_acct *const *to, size_t k, int what, uint64_t bytes);

/* The events around compute calls on the calling thread's stream. */
struct xfer_mark {
    xfer_acct *a;
    cudaEvent_t from;
};
xfer_mark xfer_kernels_begin(void);
void xfer_kernels_end(const xfer_mark *m);
/* f() (returning a status), its kernels timed for the bound account. */
template <class F> static inline int xfer_kernels(F f)
{
    xfer_mark m = xfer_kernels_begin();
    int rc = f();
    xfer_kernels_end(&m);
    return rc;
}

/* A start's base event, recorded on the calling thread's stream and waited for
 * (call it with the device idle: before the start's work). */
void xfer_run_begin(xfer_run *r);
void xfer_run_end(xfer_run *r);
/* a's spans read (their events waited for and given back) into *out:
 * bytes, directions, copy, kernel and hidden time, helper CPU; a emptied. */
void xfer_settle(xfer_run *r, xfer_acct *a, groth16_xfer *out);

#endif
