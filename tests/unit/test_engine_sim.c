/*
 * test_engine_sim.c - the SIMULATED 32 GiB mix (sim.h) as a CI check:
 * Curio's day on a 128 GiB host with one 139 GiB device, through the
 * engine's scheduler, budget and residency code: 150 simulated seconds
 * at 10x, two deadlines, a Winning PoSt every 8 s.
 * Two replays: the recommended configuration (both PoSt sets pinned) and
 * one where every Window PoSt deadline has to load its 61 GB first. Each
 * holds: nothing failed, every partition proof verified again here, the
 * budget's peak within the budget, and the bounds the dispatch and
 * residency rules promise: a Winning PoSt (CRITICAL) goes to the
 * device's small-circuit lane (dispatch rule 7) and waits for none of the
 * PoRep partitions: its synthesis, its GPU time slowed by the lane's
 * modeled factor, its parameters' upload to the lane; a deadline completes
 * within 60 s when its set is resident, and when not, within its own
 * load's time plus the drain and its four partitions: a lower set's read
 * under way is abandoned for it (residency rule 7, src/engine/residency.h),
 * and the first deadline comes while both NORMAL sets are being read.
 * (The goal of 60 s for a deadline that loads is
 * beyond these rules: docs/performance.md has the simulated figures.)
 * The time bounds hold in the release build; under the sanitizers
 * (CUZK_TEST_QUICK) every step runs several times slower while the
 * simulated clock runs at 10x, so they are printed there, not asserted
 * (a 0.2 s stall of a loaded 2-core machine is 2 simulated seconds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine_log.h"
#include "cuzk/sim.h"
#include "testutil.h"

/* A time bound: fails the test in the release build, printed under the
 * sanitizers (see above). */
static void bound(bool held, const char *what, double got, double limit)
{
    if (held) return;
    if (!getenv("CUZK_TEST_QUICK")) fail_msg("%s %.2f s, over %.2f s", what, got, limit);
    printf("# not asserted under the sanitizers: %s %.2f s, over %.2f s\n", what, got, limit);
}

static void replay(sim_mix *m, const char *pinned, sim_report *r)
{
    sim_mix_default(m);
    m->speed = 10; /* a scheduling delay of 0.1 s on a busy CI machine is 1 s here */
    m->seconds = 150;
    m->deadline_first_s = 10, m->deadline_every_s = 100; /* two deadlines */
    m->pinned = pinned;
    m->winning_every_s = 8; /* 19 of them: p99 is not the one slowest */
    char dir[] = "/tmp/cuzk-test-sim.XXXXXX";
    assert_non_null(mkdtemp(dir));
    m->param_cache = dir;
    engine_log_set_level("error");
    cuzk_err err;
    assert_int_equal(sim_mix_run(m, r, &err), 0);
    sim_report_print(m, r, stdout);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* What every replay holds. */
static void check_common(const sim_mix *m, const sim_report *r)
{
    const sim_kind *k = sim_kinds_32g;
    uint32_t partitions = 0;
    for (int i = 0; i < SIM_KINDS; i++) {
        if (r->kinds[i].failed)
            fail_msg("%u %s request(s) failed: %s", r->kinds[i].failed, k[i].name, r->first_error);
        assert_true(r->kinds[i].requests > 0);
        partitions += r->kinds[i].requests * k[i].partitions;
    }
    assert_int_equal(r->rejected, 0);
    assert_int_equal(r->verified, partitions);
    assert_true(r->budget_peak <= r->budget);
    /* the parameters were charged at their real sizes */
    assert_true(r->budget_peak > k[SIM_POREP].param_bytes + k[SIM_WINNING].param_bytes);
    /* a CRITICAL request goes to the lane and waits for no PoRep
     * partition: its own time there and its parameters' upload (rule 7),
     * with less than one PoRep partition's device time of slack (the
     * scheduling jitter of a loaded CI machine under ASAN, 10x here:
     * 0.5 s was once exceeded by 0.02 s), so a wait behind a whole
     * partition still fails */
    double upload = (double)k[SIM_WINNING].param_bytes / (m->device.upload_gbs * 1e9);
    double limit = k[SIM_WINNING].synth_s + k[SIM_WINNING].gpu_s * m->device.lane_slowdown +
                   upload + 0.9 * k[SIM_POREP].gpu_s;
    bound(r->kinds[SIM_WINNING].p99_s <= limit, "Winning PoSt p99", r->kinds[SIM_WINNING].p99_s,
          limit);
    assert_int_equal(r->device.lane_partitions[SIM_WINNING], r->kinds[SIM_WINNING].requests);
    assert_true(r->deadlines >= 2);
    for (uint32_t d = 0; d < r->deadlines; d++) assert_true(r->deadline_s[d] >= 0);
}

/* Both PoSt sets pinned: every deadline within 60 s, no PoSt load after
 * the start. */
static void test_pinned(void **state)
{
    (void)state;
    sim_mix m;
    sim_report r;
    replay(&m, "winning,wpost", &r);
    check_common(&m, &r);
    bound(r.deadline_max_s <= 60, "a deadline took", r.deadline_max_s, 60);
    assert_int_equal(r.loads[SIM_WPOST], 1);
    assert_int_equal(r.evictions[SIM_WPOST], 0);
}

/* Window PoSt not pinned: its set is evicted for PoRep and SnapDeals
 * between deadlines and each deadline loads it again: its HIGH rank
 * drains the NORMAL sets at once and abandons a NORMAL read under way
 * (the first deadline, at 10 s, comes while PoRep's 38 s and SnapDeals'
 * 28 s reads run: before rule 7 it waited for SnapDeals' to end, 75 s in
 * all); then its own read, and its partitions right after (5.4 s each on
 * the device since the model took the H100's measured figure). */
static void test_deadline_loads(void **state)
{
    (void)state;
    sim_mix m;
    sim_report r;
    replay(&m, "winning", &r);
    check_common(&m, &r);
    assert_true(r.loads[SIM_WPOST] >= r.deadlines);
    assert_true(r.abandoned[SIM_POREP] + r.abandoned[SIM_SNAP] >= 1);
    assert_int_equal(r.abandoned[SIM_WPOST], 0);
    const sim_kind *w = &sim_kinds_32g[SIM_WPOST];
    double limit = w->load_s + m.deadline_parts * w->gpu_s + 20;
    bound(r.deadline_max_s <= limit,
          "a deadline took (its own read, its partitions' device time and 20 s)", r.deadline_max_s,
          limit);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pinned),
        cmocka_unit_test(test_deadline_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
