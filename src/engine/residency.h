/*
 * residency.h - the residency policy: which parameter sets stay in host
 * memory, which are evicted and in which order, and what a load that does
 * not fit waits for. The SRS manager (srs.c) keeps the sets and asks these
 * functions; every rule lives here:
 *
 *  1. Pinned sets (srs.pinned) are loaded when the daemon starts and never
 *     evicted for memory, by pressure or by a drain (EvictSRS still frees
 *     one on request).
 *  2. Preloaded sets (srs.preload) are loaded when the daemon starts and
 *     are evicted like the others, but after every set that is not
 *     preloaded of the same rank.
 *  3. A set's rank is the highest priority of the jobs queued or running on
 *     it, and of the last job that ended on it within srs.keep_rank (5 s;
 *     0 when none): the sets a deadline depends on (CRITICAL, HIGH work
 *     queued) outrank the rest, and a stream's set between two requests
 *     keeps its rank (in the simulated mix the SnapDeals set, of rank 0 for
 *     the instant between two jobs, was evicted at once for the PoRep
 *     set's load). A read-ahead (PreloadSRS with a
 *     priority and a hold) counts as a job of its priority queued on the
 *     set until its hold ends: its load drains and abandons lower sets,
 *     and once loaded the set waits for its deadline undrained.
 *  4. Under memory pressure, idle sets (no partition holds them) idle for
 *     at least memory.eviction_min_idle are evicted, and for a reservation
 *     (a partition's or a load's) of a higher priority than an idle set's
 *     rank that set at once, whatever its idle time (a HIGH partition never
 *     waits out the idle time of a set only LOW work wants: the soak's
 *     tight budget held such partitions 5 minutes), and of an equal rank
 *     for one that has waited swap_after (two partitions of one priority
 *     on different sets, each waiting for the memory the other's set
 *     holds, end so: dispatch.h rule 8): sets being drained
 *     (rule 5) first, then lowest rank first, then not preloaded before
 *     preloaded, then least recently used first. While rule 5 drains a
 *     set, a reservation of a higher priority than the drained set's rank
 *     evicts no other set of that rank or above at once (only those idle
 *     min_idle): it waits for the drained set, or it would take the
 *     neighbour that happens to be idle between two partitions (the
 *     simulated mix's SnapDeals set, evicted at every deadline while the
 *     PoRep set drained for it).
 *  5. A load that does not fit waits; it never fails while it could fit.
 *     When the idle sets rule 4 may evict are not enough, it frees room by
 *     rules 5 and 7, in this order: sets of a lower rank than the loading
 *     set's, and of an equal rank once the load has waited swap_after (so
 *     two streams of one priority take turns instead of one starving);
 *     of one rank, the set whose load began first (a read under way began
 *     last of all: rule 7's loss is the smaller, but taking it first starved
 *     the set that had just come back: in the simulated 32 GiB mix each
 *     Window PoSt deadline abandoned or drained the SnapDeals set it had
 *     drained last time, 30 loads for 10 proofs in the hour), so that the
 *     sets of one rank take turns at being freed; then rule 4's order. A
 *     drained set frees its parameters and, as they end, the memory of its
 *     running partitions, which the waiting load (of a higher priority
 *     than any partition of the set) is served first: both count towards
 *     the room (counting the parameters alone abandoned a read under way
 *     too, whenever the partitions held more than the shortfall's
 *     remainder). A loaded set so chosen is drained: it starts no new
 *     partition until the load has its memory; its running partitions
 *     finish, and once idle it is evicted whatever its idle time.
 *     Pinned sets and sets of a higher rank are never drained.
 *  6. A load larger than the budget less the pinned sets of other circuits
 *     can never fit: it fails at once, naming them.
 *  7. A load under way (its memory had, being read) of a lower rank than
 *     the waiting load's is abandoned when rule 5 picks it: its read stops
 *     at its next chunk, what it read is freed and its memory released at
 *     once (a drained set's memory comes only when its running partitions
 *     end), and it loses at most the read that a drained set's next load
 *     repeats anyway. Its waiters never fail for it: they wait again, and
 *     its load starts again once its memory fits (rule 8). Loads of an
 *     equal or higher rank, and of pinned sets, are never abandoned.
 *  8. A load does not take memory while a load of a higher rank waits for
 *     memory: an abandoned load's new start would otherwise take back the
 *     memory it was abandoned for (and be abandoned again).
 */
#ifndef CUZK_ENGINE_RESIDENCY_H
#define CUZK_ENGINE_RESIDENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Priorities are the engine's (0 none, 1 LOW .. 4 CRITICAL). */
#define RESIDENCY_PRIOS 5

/* What the policy needs to know of one parameter set. */
typedef struct residency_set {
    bool loaded, loading, pinned, preload, draining;
    /* a load: waiting for its memory, or having it and reading (loading
     * either way), asked to stop (rule 7) */
    bool waiting, reading, abandoning;
    uint32_t refs;                    /* partitions holding it */
    uint32_t demand[RESIDENCY_PRIOS]; /* jobs queued or running, by priority */
    uint64_t bytes, last_used_ms;
    uint64_t load_began_ms; /* its last load's read began (rule 5) */
    uint64_t part_bytes;    /* the budget's bytes its partitions hold (rule 5) */
} residency_set;

typedef struct residency_rules {
    uint64_t min_idle_ms;   /* rule 4 */
    uint64_t swap_after_ms; /* rule 5: an equal rank drained after this wait */
    uint64_t keep_rank_ms;  /* rule 3: a set keeps its last job's rank this long */
} residency_rules;

/* Rule 3: the highest priority with work queued or running, 0 when none. */
int residency_rank(const residency_set *s);
/* Rule 4: whether s may be evicted for memory now, for a reservation of
 * priority `for_prio` (0: none) that has waited waited_ms. */
bool residency_evictable(const residency_set *s, uint64_t now_ms, const residency_rules *r,
                         int for_prio, uint64_t waited_ms);
/* Rule 4: whether a is evicted before b. */
bool residency_before(const residency_set *a, const residency_set *b);
/* Rule 4: the index of the set to evict next for a reservation of
 * priority `for_prio` (0: none) that has waited waited_ms, or -1 when
 * none may be. */
long residency_victim(const residency_set *const *sets, size_t n, uint64_t now_ms,
                      const residency_rules *r, int for_prio, uint64_t waited_ms);
/* Rules 5 and 7: marks (pick[i] = true) the sets to free so that
 * `shortfall` bytes free up for the load of sets[loader], which has waited
 * waited_ms: a loaded set marked is to be drained, a set reading to be
 * abandoned; sets already draining or abandoning count towards it.
 * Returns the bytes the marked sets hold (less than shortfall when no
 * more may be freed). */
uint64_t residency_plan_room(const residency_set *const *sets, size_t n, size_t loader,
                             uint64_t shortfall, uint64_t waited_ms, const residency_rules *r,
                             bool *pick);
/* Rule 8: whether the load of sets[loader] may take memory now. */
bool residency_may_load(const residency_set *const *sets, size_t n, size_t loader);
/* Rule 6: the bytes the pinned, loaded sets other than sets[except] hold. */
uint64_t residency_fixed_bytes(const residency_set *const *sets, size_t n, size_t except);

#endif
