/*
 * yield_checks.cpp - src/gpu/util/yield.cu's rules on the stand-in
 * runtime: a thread of device 0's big prover waits at a launch while a
 * lane proof holds the device's yield and goes on once it is given (rule
 * 2); a lane's thread, a thread of no device and any thread under a pause
 * of 0 never wait; a yield never given ends the wait `pause` ms after it
 * was taken, counted as cut (rule 3), and the next launch right after
 * does not wait (rule 4). Every bound checked is causal (a wait returns
 * after the give or the deadline it waited for), none a timing guess.
 * And the kernel trace (ktrace.cuh) that cu_kstream marks: each site's
 * launches timed from one mark to the next on the same stream, a
 * stream's last mark uncounted, the sites longest first, nothing marked
 * once the trace is off (lower bounds only: a sleep lasts at least its
 * time). And rule 5's bail flag: up exactly while the yield is held
 * under a pause, none for a lane's thread, a thread of no device or a
 * device without a lane. And lane.cu's list of the big prover's live
 * device blocks.
 */
#include <stdio.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <string.h>

#include <string>

#include "gpu/util/capi.cuh" /* gpu_ktrace_begin / _end */
#include "gpu/util/yield.cuh"

static int fails;

static double now_ms(void)
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static void sleep_ms(int ms)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

/* A wait of a thread working for slot (-1: a thread of no device); when
 * it returned, and the device's waits and cut waits it added. */
struct waited {
    double at;
    uint64_t waits, cut;
};

static void counts(uint64_t *w, uint64_t *c)
{
    double ms;
    cu_yield_counts(0, w, &ms, c);
}

/* One wait on a thread of its own; `then`, if set, runs on this thread
 * once the other is about to wait (and `settle` ms more). */
template <class Fn> static waited wait_on(int slot, int settle, Fn then)
{
    uint64_t w0, c0, w1, c1;
    counts(&w0, &c0);
    std::atomic<bool> ready{false};
    waited r = {0, 0, 0};
    std::thread t([&] {
        if (slot >= 0 && cu_slot_enter(slot) != cudaSuccess) fails++;
        ready = true;
        cu_yield_wait();
        r.at = now_ms();
    });
    while (!ready) sleep_ms(1);
    sleep_ms(settle);
    then();
    t.join();
    counts(&w1, &c1);
    r.waits = w1 - w0, r.cut = c1 - c0;
    return r;
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fails++;                                                                               \
            printf("FAIL yield: " __VA_ARGS__);                                                    \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

/* A launch of site "yield_checks.cpp:<here_line>" on the calling thread's stream. */
static int here_line;
static void launch_here(void)
{
    here_line = __LINE__, (void)cu_kstream(); /* one line: one site */
}

static const gpu_ktrace_row *row_of(const gpu_ktrace_row *r, size_t n, const char *site)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].site, site)) return &r[i];
    return NULL;
}

/* Stream a: here (60 ms), x/b.cu:2 (5 ms), here (1 ms), x/b.cu:2 (last);
 * stream b beside: x/c.cu:3 alone. */
static void ktrace_checks(void)
{
    cudaSetDevice(0);
    cudaStream_t a, b;
    if (cudaStreamCreateWithFlags(&a, 0) != cudaSuccess ||
        cudaStreamCreateWithFlags(&b, 0) != cudaSuccess)
        return (void)(fails++, printf("FAIL ktrace: no streams\n"));
    cu_ctx saved = cu_context();
    cu_context_set({a, false, 0});
    gpu_ktrace_begin();
    launch_here();
    sleep_ms(60);
    cu_ktrace_mark(b, "x/c.cu", 3);
    cu_kstream_at("x/b.cu", 2);
    sleep_ms(5);
    launch_here();
    sleep_ms(1);
    cu_kstream_at("x/b.cu", 2);
    gpu_ktrace_row r[8];
    size_t n = gpu_ktrace_end(r, 8);
    char here[48];
    snprintf(here, sizeof here, "yield_checks.cpp:%d", here_line);
    const gpu_ktrace_row *h = row_of(r, n, here), *x = row_of(r, n, "b.cu:2");
    EXPECT(n == 2 && h && x && !row_of(r, n, "c.cu:3"),
           "ktrace: %zu sites (want %s and b.cu:2; c.cu:3's one mark uncounted)", n, here);
    if (n == 2 && h && x) {
        EXPECT(h->launches == 2 && h->max_ms >= 60 && h->total_ms >= 61 && x->launches == 1 &&
                   x->max_ms >= 5 && r[0].max_ms >= r[1].max_ms,
               "ktrace: %s %u launches, %.1f / %.1f ms; b.cu:2 %u, %.1f ms; not longest first",
               here, h->launches, h->total_ms, h->max_ms, x->launches, x->max_ms);
    }
    launch_here(); /* the trace is off: nothing marked */
    launch_here();
    EXPECT(gpu_ktrace_end(r, 8) == 0, "ktrace: marks after its end");
    cu_context_set(saved);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
}

/* lane.cu's list of the big prover's live blocks (the out-of-memory
 * retry's log): blocks of device 0 made and freed on a big prover's
 * thread are listed by size while they live, and gone once freed. */
static void mem_live_checks(void)
{
    char line[512];
    size_t base = cu_mem_live_format(0, line, sizeof line), got = 0;
    std::string after;
    std::thread t([&] {
        void *a = NULL, *b = NULL, *c = NULL;
        if (cu_slot_enter(0) != cudaSuccess || cu_malloc(&a, 3 << 20) != cudaSuccess ||
            cu_malloc(&b, 1 << 20) != cudaSuccess || cu_malloc(&c, 1 << 20) != cudaSuccess) {
            fails++;
            return;
        }
        got = cu_mem_live_format(0, line, sizeof line);
        after = line;
        cu_free(b), cu_free(a), cu_free(c);
    });
    t.join();
    EXPECT(got == base + (5 << 20) && strstr(after.c_str(), "3.0 MiB x1") &&
               strstr(after.c_str(), "1.0 MiB x2"),
           "live blocks: %zu bytes more, listed as '%s'", got - base, after.c_str());
    EXPECT(cu_mem_live_format(0, line, sizeof line) == base, "live blocks: %s after the frees",
           line);
    EXPECT(cu_mem_live_format(0, line, 8) == base && strlen(line) == 7,
           "live blocks: a short buffer not cut to its size");
}

/* cu_yield_bail on a thread working for slot (-1: of no device). */
static const int *bail_of(int slot)
{
    const int *f = NULL;
    std::thread t([&] {
        if (slot >= 0 && cu_slot_enter(slot) != cudaSuccess) fails++;
        f = cu_yield_bail();
    });
    t.join();
    return f;
}

/* Rule 5: device 0's bail flag, given only while the device has a lane
 * and the pause is not 0, is up exactly while a yield is held, through
 * takes that nest; a lane's thread and a thread of no device have none. */
static void bail_checks(unsigned pause)
{
    cu_yield_set_pause(pause);
    EXPECT(bail_of(0) == NULL, "a bail flag for device 0 without a lane");
    cuzk_err err = {0};
    if (cu_lane_setup(0, 1 << 20, &err)) {
        fails++, printf("FAIL yield: lane setup: %s\n", err.msg);
        return;
    }
    const int *f = bail_of(0);
    EXPECT(f != NULL, "no bail flag for device 0's big prover");
    if (!f) return cu_lane_teardown(0);
    EXPECT(bail_of(0) == f, "a second ask gave another flag");
    EXPECT(bail_of(CU_MAX_DEVICES) == NULL && bail_of(-1) == NULL,
           "a lane's thread or a thread of no device has a bail flag");
    const volatile int *v = f;
    EXPECT(*v == 0, "the flag is up with nothing held");
    cu_yield_take(0);
    EXPECT(*v == 1, "the flag is down while a lane proof holds the yield");
    cu_yield_take(0);
    cu_yield_give(0);
    EXPECT(*v == 1, "the flag fell with one of two lane proofs still holding the yield");
    cu_yield_set_pause(0);
    EXPECT(*v == 0 && bail_of(0) == NULL, "a flag up, or given, under a pause of 0");
    cu_yield_set_pause(pause);
    EXPECT(*v == 1, "the flag did not come back with the pause");
    cu_yield_give(0);
    EXPECT(*v == 0, "the flag stayed up once the yield was given");
    cu_lane_teardown(0);
}

extern "C" int yield_checks(void)
{
    const unsigned pause = 400;
    const int lane = CU_MAX_DEVICES; /* device 0's lane slot */
    fails = 0;
    cu_yield_set_pause(pause);

    /* rule 2: the big prover's launch waits for the give */
    cu_yield_take(0);
    double gave = 0;
    waited r = wait_on(0, 100, [&] {
        gave = now_ms();
        cu_yield_give(0);
    });
    EXPECT(r.at >= gave && r.waits == 1 && r.cut == 0,
           "the big prover's wait: returned %.1f ms after the give, %llu waits, %llu cut",
           r.at - gave, (unsigned long long)r.waits, (unsigned long long)r.cut);

    /* nothing held: no wait */
    r = wait_on(0, 0, [] {});
    EXPECT(r.waits == 0, "no lane proof, yet %llu waits", (unsigned long long)r.waits);

    /* a lane's thread and a thread of no device do not wait */
    double taken = now_ms();
    cu_yield_take(0);
    r = wait_on(lane, 0, [] {});
    EXPECT(r.waits == 0 && r.at < taken + pause, "a lane's thread waited (%llu waits)",
           (unsigned long long)r.waits);
    r = wait_on(-1, 0, [] {});
    EXPECT(r.waits == 0 && r.at < taken + pause, "a thread of no device waited (%llu waits)",
           (unsigned long long)r.waits);

    /* rule 3: never given, the wait ends `pause` after the take, cut */
    r = wait_on(0, 0, [] {});
    EXPECT(r.at >= taken + pause && r.waits == 1 && r.cut == 1,
           "a yield never given: the wait returned %.1f ms after the take (bound %u), %llu "
           "waits, %llu cut",
           r.at - taken, pause, (unsigned long long)r.waits, (unsigned long long)r.cut);

    /* rule 4: right after the cut, still held, no wait */
    r = wait_on(0, 0, [] {});
    EXPECT(r.waits == 0, "a launch right after a cut wait waited (%llu waits)",
           (unsigned long long)r.waits);
    cu_yield_give(0);

    /* a pause of 0: never a wait */
    cu_yield_set_pause(0);
    cu_yield_take(0);
    r = wait_on(0, 0, [] {});
    EXPECT(r.waits == 0, "pause 0, yet %llu waits", (unsigned long long)r.waits);
    cu_yield_give(0);

    bail_checks(pause);
    mem_live_checks();
    cu_yield_set_pause(GPU_LANE_PAUSE_MS);
    cudaSetDevice(0);
    ktrace_checks();
    printf("%s yield: rules 2-4 (a wait until the give or the pause, none for a lane, no device, "
           "pause 0 or right after a cut); rule 5's bail flag; the live blocks; the kernel trace "
           "by site\n",
           fails ? "FAIL" : "ok");
    return fails;
}
