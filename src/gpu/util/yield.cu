/*
 * yield.cu - the big prover's yield to its device's lane (yield.cuh).
 *
 * The rules, for each device:
 *  1. A lane proof holds its device's yield from the moment it is asked
 *     (gpu_lane_start) until its start returns: its kernels are done then
 *     (what is left, the finish, is host work).
 *  2. While the yield is held, a thread working for that device's big
 *     prover waits before it launches a kernel (cu_kstream); its copies and
 *     waits go on, as they take no SM. The kernels it queued before run
 *     out, and the lane's blocks, of the greatest priority, take every SM
 *     those free.
 *  3. A wait ends at the latest `pause` ms (gpus.small_lane_pause_ms,
 *     250 by default; 0: the big prover never waits) after the later of
 *     the yield's taking (by the first of the lane proofs holding it) and
 *     the end of the last free run of rule 4: a lane proof that runs long
 *     (its parameters' first upload, a start of many circuits) holds the
 *     big prover up by at most that.
 *  4. After rule 3 cut a wait short, the big prover waits for no yield for
 *     `pause` ms: lane proofs back to back take at most about half the
 *     device's time from the big prover.
 *  5. Rule 2 acts at launches, and one launch of the MSM's bucket sweep
 *     runs for up to 342 ms (2^26 points on an H100, session 31's trace)
 *     in blocks of a few ms: a lane proof's every kernel waited for some
 *     of them to end. So while the yield is held the device's bail flag,
 *     in page-locked host memory its kernels read (cu_yield_bail), is 1:
 *     a resumable kernel's blocks that start then take no work and end at
 *     once, and its launcher, once the launch is done, launches it again
 *     without the flag through rule 2's wait for the work left. A lane
 *     proof then waits for the blocks already running, not for the whole
 *     launch. A device without a lane, or a pause of 0, has no flag: its
 *     kernels launch once and their launchers never wait.
 * The waits are counted per device (cu_yield_counts).
 */
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "gpu/util/yield.cuh"

struct yield_dev {
    std::mutex mu;
    std::condition_variable cv;
    std::atomic<int> held{0}; /* lane proofs holding it (rule 1), changed under mu */
    double since = 0;         /* when held last went from 0 to 1 */
    double free_until = 0;    /* rule 4: no wait before this */
    uint64_t waits = 0, cut = 0;
    double wait_ms = 0;
    volatile int *bail = NULL; /* rule 5's flag (page-locked, mapped), made on first ask */
    int *bail_dev = NULL;      /* its device address */
    bool bail_failed = false;  /* the page-locked allocation was refused: no flag */
};
static yield_dev ydev[CU_MAX_DEVICES];
static std::atomic<unsigned> pause_ms{GPU_LANE_PAUSE_MS};

static double now_ms(void)
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static yield_dev *dev_of(int dev)
{
    return dev >= 0 && dev < CU_MAX_DEVICES ? &ydev[dev] : NULL;
}

/* Rule 5's flag of y from its state (under y->mu). */
static void bail_set(yield_dev *y)
{
    if (y->bail) *y->bail = y->held.load() > 0 && pause_ms.load() > 0;
}

void cu_yield_take(int dev)
{
    yield_dev *y = dev_of(dev);
    if (!y) return;
    std::lock_guard<std::mutex> g(y->mu);
    if (y->held.fetch_add(1) == 0) y->since = now_ms();
    bail_set(y);
}

void cu_yield_give(int dev)
{
    yield_dev *y = dev_of(dev);
    if (!y) return;
    std::lock_guard<std::mutex> g(y->mu);
    if (y->held.load() > 0 && y->held.fetch_sub(1) == 1) y->cv.notify_all();
    bail_set(y);
}

void cu_yield_set_pause(unsigned ms)
{
    pause_ms.store(ms);
    for (yield_dev &y : ydev) {
        std::lock_guard<std::mutex> g(y.mu);
        bail_set(&y);
    }
}

const int *cu_yield_bail(void)
{
    cu_ctx c = cu_context();
    yield_dev *y = c.lane ? NULL : dev_of(c.dev);
    /* no lane or no pause: no flag, so no second launch to wait for */
    if (!y || !pause_ms.load() || !cu_lane_ready(c.dev, NULL, NULL)) return NULL;
    std::lock_guard<std::mutex> g(y->mu);
    if (!y->bail && !y->bail_failed) {
        void *h = NULL, *d = NULL;
        if (cudaHostAlloc(&h, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable) ==
                cudaSuccess &&
            cudaHostGetDevicePointer(&d, h, 0) == cudaSuccess) {
            y->bail = (volatile int *)h, y->bail_dev = (int *)d;
            bail_set(y);
        } else {
            if (h) cudaFreeHost(h);
            cudaGetLastError();
            y->bail_failed = true;
        }
    }
    return y->bail_dev;
}

void cu_yield_wait(void)
{
    cu_ctx c = cu_context();
    yield_dev *y = c.lane ? NULL : dev_of(c.dev);
    if (!y || !y->held.load(std::memory_order_acquire)) return; /* the launch's fast path */
    unsigned pause = pause_ms.load();
    if (!pause) return;
    std::unique_lock<std::mutex> lk(y->mu);
    double t0 = now_ms();
    if (!y->held.load() || t0 < y->free_until) return;                          /* rule 4 */
    double end = (y->since > y->free_until ? y->since : y->free_until) + pause; /* rule 3 */
    bool cut = false;
    while (y->held.load()) {
        double t = now_ms();
        if (t >= end) {
            cut = true;
            break;
        }
        y->cv.wait_for(lk, std::chrono::duration<double, std::milli>(end - t));
    }
    double t1 = now_ms();
    y->waits++, y->wait_ms += t1 - t0;
    if (cut) y->cut++, y->free_until = t1 + pause;
}

void cu_yield_counts(int dev, uint64_t *waits, double *wait_ms, uint64_t *cut)
{
    yield_dev *y = dev_of(dev);
    *waits = *cut = 0, *wait_ms = 0;
    if (!y) return;
    std::lock_guard<std::mutex> g(y->mu);
    *waits = y->waits, *cut = y->cut, *wait_ms = y->wait_ms;
}
