/*
 * host_runtime.cpp - the state of the stand-in CUDA runtime
 * (cuda_runtime.h): the devices listed, per device the bytes allocated on
 * it, the most it gives, its failure and an allocation to refuse, each
 * thread's current device, the delay of asynchronous copies, the bytes
 * copied each way, and the
 * registry of allocations by device. One definition for every test built
 * on the stand-in.
 */
#include <map>
#include <set>

std::atomic<int> host_device_count{1};
std::atomic<long long> host_device_used[HOST_MAX_DEVICES],
    host_device_limit[HOST_MAX_DEVICES] = {{1LL << 40}, {1LL << 40}, {1LL << 40}, {1LL << 40}};
std::atomic<long long> host_limit_refused[HOST_MAX_DEVICES];
std::atomic<int> host_device_error[HOST_MAX_DEVICES];
std::atomic<long long> host_device_calls_left[HOST_MAX_DEVICES];
std::atomic<long long> host_alloc_refuse_in[HOST_MAX_DEVICES];
std::atomic<bool> host_alloc_refuse_on[HOST_MAX_DEVICES];
thread_local int host_current_device;
std::atomic<int> host_dma_delay_us{0};
std::atomic<long long> host_copied[HOST_MAX_DEVICES][2];
std::atomic<long long> host_stream0_calls{0}, host_malloc_calls{0}, host_free_calls{0};
std::atomic<long long> host_spin_waits{0};

/* Every live allocation by its start: its size and device. */
struct host_alloc {
    size_t bytes;
    int dev;
};
static std::mutex host_reg_mu;
static std::map<uintptr_t, host_alloc> host_reg;

void host_register(const void *p, size_t bytes, int dev)
{
    std::lock_guard<std::mutex> g(host_reg_mu);
    host_reg[(uintptr_t)p] = {bytes, dev};
}

bool host_unregister(const void *p)
{
    std::lock_guard<std::mutex> g(host_reg_mu);
    auto it = host_reg.find((uintptr_t)p);
    if (it == host_reg.end()) return false;
    host_device_used[it->second.dev] -= (long long)it->second.bytes;
    host_reg.erase(it);
    return true;
}

int host_owner(const void *p, size_t bytes)
{
    std::lock_guard<std::mutex> g(host_reg_mu);
    auto it = host_reg.upper_bound((uintptr_t)p);
    if (it == host_reg.begin()) return -1;
    --it;
    uintptr_t a = (uintptr_t)p, lo = it->first;
    return a >= lo && a - lo + bytes <= (it->second.bytes ? it->second.bytes : 1) ? it->second.dev
                                                                                  : -1;
}

std::atomic<long long> host_pin_calls{0}, host_pins_live{0};
std::atomic<bool> host_pin_fail{false};
static std::set<uintptr_t> host_pins;

bool host_pin_add(const void *p)
{
    std::lock_guard<std::mutex> g(host_reg_mu);
    if (!host_pins.insert((uintptr_t)p).second) return false;
    host_pins_live++;
    return true;
}

bool host_pin_remove(const void *p)
{
    std::lock_guard<std::mutex> g(host_reg_mu);
    if (!host_pins.erase((uintptr_t)p)) return false;
    host_pins_live--;
    return true;
}
