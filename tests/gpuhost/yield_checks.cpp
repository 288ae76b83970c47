/*
 * yield_checks.cpp - src/gpu/util/yield.cu's rules on the stand-in
 * runtime: a thread of device 0's big prover waits at a launch while a
 * lane proof holds the device's yield and goes on once it is given (rule
 * 2); a lane's thread, a thread of no device and any thread under a pause
 * of 0 never wait; a yield never given ends the wait `pause` ms after it
 * was taken, counted as cut (rule 3), and the next launch right after
 * does not wait (rule 4). Every bound checked is causal (a wait returns
 * after the give or the deadline it waited for), none a timing guess.
 */
#include <stdio.h>

#include <atomic>
#include <chrono>
#include <thread>

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

    cu_yield_set_pause(GPU_LANE_PAUSE_MS);
    cudaSetDevice(0);
    printf("%s yield: rules 2-4 (a wait until the give or the pause, none for a lane, no device, "
           "pause 0 or right after a cut)\n",
           fails ? "FAIL" : "ok");
    return fails;
}
