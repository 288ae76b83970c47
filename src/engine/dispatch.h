/*
 * dispatch.h - the dispatch policy: which queued partition goes where
 * next. The pipeline (pipeline.c) asks it and keeps no priority rule of
 * its own. The rules:
 *
 * 1. Order. A partition's place is its effective priority (CRITICAL
 *    first), then its job's age (submission order), then its index: in
 *    the scheduler queue, in the GPU queue, and for a device that takes
 *    its next start.
 * 2. Aging. A partition below NORMAL (LOW) that has waited
 *    pipeline.aging_ms (60 s by default; 0: never) since its job was
 *    submitted counts as NORMAL from then on; being older than the NORMAL
 *    work sent after it, it goes first among NORMAL. Nothing ages above
 *    NORMAL: HIGH and CRITICAL work always goes before aged work. The
 *    rise is checked each time a queue is read (dispatch_age), and kept.
 * 3. Synthesis. pipeline.priority_synthesis workers (1 by default) beside
 *    the pipeline.synthesis_concurrency ones take only HIGH and CRITICAL
 *    partitions, so such a partition is synthesized at once even when
 *    every other worker is busy with a large PoRep partition or waits
 *    for room in the GPU queue; the other workers take any partition.
 *    (None with pipeline.enabled = false, where one worker does all.)
 *    The host's cores: the other workers (and the OpenMP teams they
 *    start, which inherit it) run synthesis.nice above the daemon's nice
 *    (0 by default: the same), so where synthesis keeps every core busy
 *    the priority workers, the provers that feed the GPUs, the lanes and
 *    the gRPC server are scheduled first (dispatch_synthesis_nice).
 *    A partition's OpenMP team on the witness-only path (synthesis.threads
 *    = 0, several workers): a NORMAL or LOW one takes the cores divided
 *    by the workers (a PoRep stream's teams share them); a HIGH or
 *    CRITICAL one the cores divided by the HIGH and CRITICAL partitions
 *    in synthesis, itself included, so a lone Window PoSt partition (125M
 *    constraints, about 10 CPU-s of witness) takes every core instead of
 *    a quarter of them (dispatch_synthesis_threads). Beside a stream, its
 *    team then competes with the others' for the cores (and wins them
 *    with synthesis.nice).
 * 4. GPU queue slots. The queue holds pipeline.max_gpu_queue_depth
 *    partitions per device in service, counted per priority: a partition
 *    waits for room only while that many of its own priority or higher
 *    are queued. Lower-priority partitions never hold a slot a higher one
 *    needs (the queue may then hold that many per priority level; their
 *    memory is reserved in the budget all the same). Synthesized
 *    partitions waiting for room enter in rule 1's order, not in the order
 *    their workers wake: with several proofs in flight a start otherwise
 *    mixed two jobs' partitions, and each job waited for the later start
 *    (the 16 GiB batch on the H200: completions 18 s apart, then 36 s).
 * 5. Starts. A device takes the queue's first partition, and more of the
 *    same parameters (pipeline.partitions_per_start; on a fed backend while
 *    it proves) only while no partition of higher priority waits anywhere
 *    (the scheduler queue, in synthesis, the GPU queue). So a start being
 *    fed stops at once when higher-priority work arrives, and that work
 *    runs next, after at most the partition whose kernels are running and
 *    the one already taken to upload under them (on a backend without a
 *    feed, after the start's partitions).
 * 6. Parameters. A synthesis worker takes the first partition (by rules 1
 *    and 3) whose parameter set is ready: loaded, not loading, not being
 *    drained. A partition whose set is not ready stays queued and its
 *    set's load runs on a thread of its own (loader.h), so no worker
 *    waits for a load, or for the memory a load waits for, while other
 *    work could be synthesized. It still counts as waiting for rule 5.
 *    The partition taken holds its set from the moment it is found
 *    ready (one step under the SRS manager's lock), so no load's eviction
 *    comes between the check and its worker: before, such an eviction
 *    sent the workers into srs_acquire to wait for the set's load again,
 *    and a higher partition queued meanwhile found no worker (the soak's
 *    tight budget stalled 5 minutes).
 * 7. The small-circuit lane. A synthesized HIGH or CRITICAL partition
 *    whose circuit fits a device's lane (gpus.small_lane_max_log: its
 *    domain; gpus.small_lane_params: its parameters; the backend's
 *    lane_fits) goes to the lanes' queue, not the GPU queue: it never
 *    waits for a GPU queue slot (rule 4) or for a device's running start
 *    (rule 5), and the first idle lane proves it beside that start, on a
 *    stream of the device's greatest priority (gpu_lane.h). Lanes take
 *    their queue in rule 1's order. A partition whose lane start fails
 *    (not the device: a device failure takes the device out of service)
 *    is proved by a device's start instead, in the GPU queue. Before it
 *    is synthesized it counts as waiting for rule 5 like any partition
 *    (its circuit is known to fit only then): a start being fed pauses
 *    for the few milliseconds a Winning PoSt's synthesis takes.
 * 8. Memory. A partition waiting for memory (its synthesis's reservation
 *    or its set's shape, holding its set) gives way when a reservation of
 *    a higher priority waits too (a partition's, or a load's at its set's
 *    rank): its wait ends, its set and storage are released and it goes
 *    back to the scheduler queue at its place, its jobs still running.
 *    And while a reservation waits, a synthesis worker takes no partition
 *    of a lower priority than it. So a lower partition never holds the
 *    set that the higher one's memory must come from (two partitions each
 *    holding a set and waiting for the memory the other's set holds waited
 *    for ever), and one that gave way is not taken again before the
 *    higher reservation has its memory (workers held back so look again
 *    every 100 ms: the budget wakes none when it serves that reservation).
 *    Of one priority, a partition waiting for memory gives way to a
 *    reservation for another set that waited before it and has waited
 *    srs.swap_after (120 s by default) for memory; from then until that
 *    reservation has its memory no partition of its priority is taken
 *    either, and its set idle may be evicted for it (residency.h rule 4):
 *    two partitions of one priority on different sets, each waiting for
 *    the memory the other's set holds, end so instead of waiting for ever.
 *
 * All functions are called with the engine lock held.
 */
#ifndef CUZK_ENGINE_DISPATCH_H
#define CUZK_ENGINE_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine_internal.h"

/* Rule 2: key's priority now (now: srs_now_ms). */
int dispatch_priority(const sched_key *key, uint64_t now, uint64_t aging_ms);
/* Rule 2 applied to every queued partition, in the scheduler queue and in
 * the GPU queue, keeping both in order. */
void dispatch_age(engine_t *e);
/* Rules 3 and 6: the partition a synthesis worker (priority_only: one of
 * the pipeline.priority_synthesis workers) takes now, out of the
 * scheduler queue, or NULL; ready(e, item) says whether the item's
 * parameters are ready (then holding them in item->srs, or letting it
 * through to fail) and starts their load when not. */
struct work_item *dispatch_synth_next(engine_t *e, bool priority_only,
                                      bool (*ready)(engine_t *e, struct work_item *it));
/* Rule 8: whether the scheduler queue's first partition is held back by a
 * reservation waiting for memory (the budget wakes no synthesis worker
 * when that reservation is served: they look again). */
bool dispatch_held_back(engine_t *e);
/* Rule 8: whether a partition of `priority` waiting for memory gives way
 * now (patience_ms: srs.swap_after); called by its wait's cancelled(),
 * with the budget's lock held, on the waiting thread. */
bool dispatch_gives_way_locked(const budget *b, int priority, uint64_t patience_ms);
/* Rule 3's bookkeeping: a partition leaves the scheduler queue for a
 * synthesis worker (taken) or leaves that worker (done: queued for a
 * device, failed or cancelled). */
void dispatch_synth_taken(engine_t *e, const work_item *it);
void dispatch_synth_done(engine_t *e, const work_item *it);
/* Rule 3's cores: called by each synthesis worker on its own thread at
 * its start; an ordinary worker (not priority_only) adds synthesis.nice
 * to its thread's nice (at most 19), before it starts any OpenMP team.
 * A failure is logged, never fatal. */
void dispatch_synthesis_nice(const engine_t *e, bool priority_only);
/* Rule 3's team: the OpenMP threads it synthesizes with (0: OpenMP's
 * default, all the cores: synthesis.threads unset and not the
 * witness-only path (shaped) or a single worker), for a host of `cores`
 * and `workers` ordinary synthesis workers; it is counted in synthesis
 * (dispatch_synth_taken). */
int dispatch_synthesis_threads(const engine_t *e, const work_item *it, bool shaped, int cores,
                               int workers);
/* Rule 4: whether the GPU queue has room for it now. */
bool dispatch_gpu_room(const engine_t *e, const work_item *it);
/* Rule 4: whether it enters the GPU queue now: there is room, and no
 * other synthesized partition waiting for room (e->room_waiters) comes
 * before it by rule 1. */
bool dispatch_gpu_turn(const engine_t *e, const work_item *it);
/* Rule 1: where it goes in a queue of n synthesized items in rule 1's
 * order, the GPU queue or the lanes' (after its equals). */
size_t dispatch_place(work_item *const *q, size_t n, const work_item *it);
/* Rule 5: whether a start holding partitions already may take next, the
 * GPU queue's first, too. */
bool dispatch_start_takes(const engine_t *e, const work_item *next);
/* Rule 7: whether the synthesized item goes to the lanes' queue. */
bool dispatch_lane_takes(const engine_t *e, const work_item *it);

#endif
