/*
 * ktrace.cu - the kernels' time per launch site (ktrace.cuh).
 */
#include <algorithm>
#include <map>
#include <mutex>
#include <stdio.h>
#include <string.h>
#include <string>
#include <vector>

#include "gpu/util/capi.cuh" /* gpu_ktrace_row */
#include "gpu/util/ktrace.cuh"
#include "gpu/util/lane.cuh"

std::atomic<bool> cu_ktrace_active{false};

namespace
{
struct mark {
    int dev; /* with the stream, the key: each device's default stream is NULL */
    cudaStream_t stream;
    const char *file;
    int line;
    cudaEvent_t ev;
};
std::mutex mu;
std::vector<mark> marks; /* in the order recorded: per stream, the stream's order */
} // namespace

void cu_ktrace_mark(cudaStream_t s, const char *file, int line)
{
    cudaEvent_t ev;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cu_event_new(&ev, true) != cudaSuccess)
        return; /* a diagnostic: that launch goes untimed */
    if (cudaEventRecord(ev, s) != cudaSuccess) {
        cudaEventDestroy(ev);
        return;
    }
    std::lock_guard<std::mutex> g(mu);
    marks.push_back({dev, s, file, line, ev});
}

extern "C" void gpu_ktrace_begin(void)
{
    std::lock_guard<std::mutex> g(mu);
    cu_ktrace_active.store(true);
}

static std::string site_of(const mark &m)
{
    const char *b = strrchr(m.file, '/');
    return std::string(b ? b + 1 : m.file) + ":" + std::to_string(m.line);
}

extern "C" size_t gpu_ktrace_end(gpu_ktrace_row *rows, size_t max)
{
    std::vector<mark> all;
    {
        std::lock_guard<std::mutex> g(mu);
        cu_ktrace_active.store(false);
        all.swap(marks);
    }
    std::map<std::string, gpu_ktrace_row> by;
    std::map<std::pair<int, cudaStream_t>, const mark *> last; /* each stream's mark before */
    for (const mark &m : all) {
        const mark *&prev = last[{m.dev, m.stream}], *p = prev;
        prev = &m;
        float ms;
        if (!p || cudaEventSynchronize(m.ev) != cudaSuccess ||
            cudaEventElapsedTime(&ms, p->ev, m.ev) != cudaSuccess)
            continue;
        gpu_ktrace_row &r = by[site_of(*p)];
        r.launches++, r.total_ms += ms;
        if (ms > r.max_ms) r.max_ms = ms;
    }
    for (const mark &m : all) cudaEventDestroy(m.ev);
    std::vector<gpu_ktrace_row> v;
    for (auto &kv : by) {
        gpu_ktrace_row r = kv.second;
        snprintf(r.site, sizeof r.site, "%s", kv.first.c_str());
        v.push_back(r);
    }
    std::sort(v.begin(), v.end(),
              [](const gpu_ktrace_row &a, const gpu_ktrace_row &b) { return a.max_ms > b.max_ms; });
    size_t n = std::min(max, v.size());
    std::copy(v.begin(), v.begin() + n, rows);
    return n;
}
