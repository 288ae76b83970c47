/*
 * xfer_stats.cu - the per-partition accounting of host-device copies and
 * kernel time (xfer_stats.cuh says how it works). Events come from a pool
 * per device (made on first use, kept: a start of ten 32 GiB partitions
 * records a few thousand), and go back to it when settled.
 */
#include <algorithm>

#include "gpu/util/device.cuh"
#include "gpu/util/lane.cuh"
#include "gpu/util/xfer_stats.cuh"

static std::mutex pool_mu;
static thread_local xfer_acct *bound;

/* Device dev's free events. The pool lives as long as the process, never
 * destroyed: a static vector's destructor at exit would drop the list
 * while the events it holds stay made. */
static std::vector<cudaEvent_t> &pool_of(int dev)
{
    static std::vector<cudaEvent_t> *pools = new std::vector<cudaEvent_t>[CU_MAX_DEVICES];
    return pools[dev];
}

/* An event of the current device (NULL when none can be made). */
static cudaEvent_t event_take(void)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= CU_MAX_DEVICES) return NULL;
    {
        std::lock_guard<std::mutex> g(pool_mu);
        std::vector<cudaEvent_t> &pool = pool_of(dev);
        if (!pool.empty()) {
            cudaEvent_t e = pool.back();
            pool.pop_back();
            return e;
        }
    }
    cudaEvent_t e = NULL;
    if (cu_event_new(&e, true) != cudaSuccess) {
        cudaGetLastError(); /* not the caller's error */
        return NULL;
    }
    return e;
}

static void event_give(cudaEvent_t e, int dev)
{
    if (!e) return;
    std::lock_guard<std::mutex> g(pool_mu);
    pool_of(dev).push_back(e);
}

static int current_device(void)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= CU_MAX_DEVICES) dev = 0;
    return dev;
}

/* Whether the calling thread's copies and kernels are timed: not for the
 * small-circuit lane, whose proofs are counted in bytes only (xfer_stats.cuh). */
static bool timed_here(void)
{
    return !cu_context().lane;
}

/* An event recorded on st (NULL: none could be). */
static cudaEvent_t event_mark(cudaStream_t st)
{
    cudaEvent_t e = event_take();
    if (e && cudaEventRecord(e, st) != cudaSuccess) {
        cudaGetLastError();
        event_give(e, current_device());
        return NULL;
    }
    return e;
}

/* The span [from, an event recorded on st now] into a's; untimed when
 * either end is missing. */
static void span_add(xfer_acct *a, cudaEvent_t from, cudaStream_t st, bool copy)
{
    cudaEvent_t to = from ? event_mark(st) : NULL;
    std::lock_guard<std::mutex> g(a->mu);
    if (from && to)
        a->spans.push_back({from, to, copy});
    else
        a->untimed = true, event_give(from, current_device());
}

void xfer_reset(xfer_acct *a)
{
    std::lock_guard<std::mutex> g(a->mu);
    int dev = current_device();
    for (const xfer_span &s : a->spans) event_give(s.from, dev), event_give(s.to, dev);
    a->spans.clear();
    std::fill(a->bytes, a->bytes + GROTH16_XFER_KINDS, 0);
    a->copies = 0;
    a->cpu_ms = 0;
    a->untimed = false;
}

xfer_acct *xfer_bind(xfer_acct *a)
{
    xfer_acct *was = bound;
    bound = a;
    return was;
}

xfer_acct *xfer_bound(void)
{
    return bound;
}

static void count_in(xfer_acct *a, int what, size_t bytes)
{
    std::lock_guard<std::mutex> g(a->mu);
    a->bytes[what] += bytes;
    a->copies++;
}

void xfer_share(xfer_acct *from, xfer_acct *const *to, size_t k, int what, uint64_t bytes)
{
    uint64_t each = bytes / (k + 1);
    for (size_t q = 0; q < k; q++) {
        {
            std::lock_guard<std::mutex> g(from->mu);
            from->bytes[what] -= each;
        }
        std::lock_guard<std::mutex> g(to[q]->mu);
        to[q]->bytes[what] += each;
    }
}

double xfer_thread_cpu_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)) return 0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void xfer_cpu(xfer_acct *a, double ms)
{
    if (!a) return;
    std::lock_guard<std::mutex> g(a->mu);
    a->cpu_ms += ms;
}

uint64_t xfer_bytes(xfer_acct *a, int what)
{
    std::lock_guard<std::mutex> g(a->mu);
    return a->bytes[what];
}

static bool to_host(int what)
{
    return what == GROTH16_XFER_PARK || what == GROTH16_XFER_RESULTS;
}

cudaError_t xfer_copy(void *dst, const void *src, size_t bytes, int what)
{
    xfer_acct *a = bound;
    cudaStream_t st = cu_stream();
    cudaEvent_t from = a && timed_here() ? event_mark(st) : NULL;
    cudaError_t e = cudaMemcpyAsync(
        dst, src, bytes, to_host(what) ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, st);
    if (a && e == cudaSuccess) count_in(a, what, bytes), span_add(a, from, st, true);
    if (a && e != cudaSuccess) event_give(from, current_device());
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    return e;
}

cudaError_t xfer_copy_async(void *dst, const void *src, size_t bytes, int what, cudaStream_t st,
                            xfer_acct *a)
{
    if (!a) a = bound;
    cudaEvent_t from = a && timed_here() ? event_mark(st) : NULL;
    cudaError_t e = cudaMemcpyAsync(
        dst, src, bytes, to_host(what) ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, st);
    if (a && e == cudaSuccess) count_in(a, what, bytes), span_add(a, from, st, true);
    if (a && e != cudaSuccess) event_give(from, current_device());
    return e;
}

xfer_mark xfer_kernels_begin(void)
{
    xfer_mark m = {bound, NULL};
    if (m.a && timed_here()) m.from = event_mark(cu_stream());
    return m;
}

void xfer_kernels_end(const xfer_mark *m)
{
    if (m->a) span_add(m->a, m->from, cu_stream(), false);
}

void xfer_run_begin(xfer_run *r)
{
    r->kernels.clear();
    r->base = timed_here() ? event_mark(cu_stream()) : NULL;
    if (r->base && cudaEventSynchronize(r->base) != cudaSuccess) {
        cudaGetLastError();
        event_give(r->base, current_device());
        r->base = NULL;
    }
}

void xfer_run_end(xfer_run *r)
{
    event_give(r->base, current_device());
    r->base = NULL;
    r->kernels.clear();
}

/* e's time in ms after base (false: not readable). */
static bool event_at(double *ms, cudaEvent_t base, cudaEvent_t e)
{
    float t = 0;
    if (cudaEventSynchronize(e) != cudaSuccess ||
        cudaEventElapsedTime(&t, base, e) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    *ms = t;
    return true;
}

/* Intervals (from, to pairs) merged into ascending disjoint ones. */
static void merge(std::vector<double> *v)
{
    size_t n = v->size() / 2;
    std::vector<std::pair<double, double>> s(n);
    for (size_t k = 0; k < n; k++) s[k] = {(*v)[2 * k], (*v)[2 * k + 1]};
    std::sort(s.begin(), s.end());
    v->clear();
    for (const auto &x : s) {
        if (!v->empty() && x.first <= v->back())
            v->back() = std::max(v->back(), x.second);
        else
            v->push_back(x.first), v->push_back(x.second);
    }
}

static double length(const std::vector<double> &v)
{
    double t = 0;
    for (size_t k = 0; k + 1 < v.size(); k += 2) t += v[k + 1] - v[k];
    return t;
}

/* The length of the intersection of two merged interval lists. */
static double overlap(const std::vector<double> &a, const std::vector<double> &b)
{
    double t = 0;
    for (size_t i = 0, j = 0; i + 1 < a.size() && j + 1 < b.size();) {
        double lo = std::max(a[i], b[j]), hi = std::min(a[i + 1], b[j + 1]);
        if (hi > lo) t += hi - lo;
        if (a[i + 1] < b[j + 1])
            i += 2;
        else
            j += 2;
    }
    return t;
}

void xfer_settle(xfer_run *r, xfer_acct *a, groth16_xfer *out)
{
    std::vector<double> copies, kernels;
    bool timed;
    {
        std::lock_guard<std::mutex> g(a->mu);
        timed = !a->untimed && r->base;
        for (const xfer_span &s : a->spans) {
            double t0 = 0, t1 = 0;
            bool ok = timed && event_at(&t0, r->base, s.from) && event_at(&t1, r->base, s.to);
            timed = ok;
            if (ok) (s.copy ? copies : kernels).insert((s.copy ? copies : kernels).end(), {t0, t1});
        }
        std::copy(a->bytes, a->bytes + GROTH16_XFER_KINDS, out->bytes);
        out->copies = a->copies;
        out->cpu_ms = a->cpu_ms;
    }
    out->h2d = out->d2h = 0;
    for (int k = 0; k < GROTH16_XFER_KINDS; k++)
        (to_host(k) ? out->d2h : out->h2d) += out->bytes[k];
    merge(&copies);
    merge(&kernels);
    r->kernels.insert(r->kernels.end(), kernels.begin(), kernels.end());
    merge(&r->kernels);
    out->timed = timed;
    out->copy_ms = timed ? length(copies) : 0;
    out->kernel_ms = timed ? length(kernels) : 0;
    out->hidden_ms = timed ? overlap(copies, r->kernels) : 0;
    xfer_reset(a);
}
