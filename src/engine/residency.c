/*
 * residency.c - the residency policy (residency.h states the rules): pure
 * functions over a snapshot of the parameter sets, taken by the SRS manager
 * under its lock; no state of their own.
 */
#include "residency.h"

int residency_rank(const residency_set *s)
{
    for (int p = RESIDENCY_PRIOS - 1; p > 0; p--)
        if (s->demand[p]) return p;
    return 0;
}

/* Rule 4: s unused for at least min_idle. */
static bool idle_long(const residency_set *s, uint64_t now_ms, const residency_rules *r)
{
    return now_ms - s->last_used_ms >= r->min_idle_ms;
}

bool residency_evictable(const residency_set *s, uint64_t now_ms, const residency_rules *r,
                         int for_prio, uint64_t waited_ms)
{
    if (!s->loaded || s->loading || s->refs || s->pinned) return false;
    int rank = residency_rank(s);
    return s->draining || rank < for_prio ||
           (rank == for_prio && for_prio > 0 && waited_ms >= r->swap_after_ms) ||
           idle_long(s, now_ms, r);
}

bool residency_before(const residency_set *a, const residency_set *b)
{
    if (a->draining != b->draining) return a->draining;
    int ra = residency_rank(a), rb = residency_rank(b);
    if (ra != rb) return ra < rb;
    if (a->preload != b->preload) return !a->preload;
    return a->last_used_ms < b->last_used_ms;
}

/* Rule 4's exception: the lowest rank of the loaded sets being drained,
 * RESIDENCY_PRIOS when none is. */
static int drain_rank(const residency_set *const *sets, size_t n)
{
    int low = RESIDENCY_PRIOS;
    for (size_t i = 0; i < n; i++)
        if (sets[i]->loaded && sets[i]->draining && residency_rank(sets[i]) < low)
            low = residency_rank(sets[i]);
    return low;
}

long residency_victim(const residency_set *const *sets, size_t n, uint64_t now_ms,
                      const residency_rules *r, int for_prio, uint64_t waited_ms)
{
    int drained = drain_rank(sets, n);
    long best = -1;
    for (size_t i = 0; i < n; i++) {
        const residency_set *s = sets[i];
        if (!residency_evictable(s, now_ms, r, for_prio, waited_ms)) continue;
        if (for_prio > drained && !s->draining && residency_rank(s) >= drained &&
            !idle_long(s, now_ms, r))
            continue; /* rule 5 chose the drained set of this rank: wait for it */
        if (best < 0 || residency_before(s, sets[best])) best = (long)i;
    }
    return best;
}

/* Rule 5: whether the load of `loader`, waiting waited_ms, may drain s. */
static bool drainable(const residency_set *s, const residency_set *loader, uint64_t waited_ms,
                      const residency_rules *r)
{
    if (s == loader || !s->loaded || s->loading || s->pinned) return false;
    int rs = residency_rank(s), rl = residency_rank(loader);
    return rs < rl || (rs == rl && waited_ms >= r->swap_after_ms);
}

/* Rule 7: whether the load of `loader` may abandon s's load. */
static bool abandonable(const residency_set *s, const residency_set *loader)
{
    return s != loader && s->reading && !s->pinned && residency_rank(s) < residency_rank(loader);
}

/* Rule 5's order of the sets it frees: lower rank first, of one rank the
 * load that began first, then rule 4's order. */
static bool freed_before(const residency_set *a, const residency_set *b)
{
    int ra = residency_rank(a), rb = residency_rank(b);
    if (ra != rb) return ra < rb;
    if (a->load_began_ms != b->load_began_ms) return a->load_began_ms < b->load_began_ms;
    return residency_before(a, b);
}

/* Rule 5: what freeing s gives: its parameters, and a drained set's
 * running partitions' memory as they end. */
static uint64_t freed_bytes(const residency_set *s)
{
    return s->bytes + (s->loaded ? s->part_bytes : 0);
}

uint64_t residency_plan_room(const residency_set *const *sets, size_t n, size_t loader,
                             uint64_t shortfall, uint64_t waited_ms, const residency_rules *r,
                             bool *pick)
{
    uint64_t held = 0;
    for (size_t i = 0; i < n; i++) {
        const residency_set *s = sets[i];
        pick[i] = (s->draining && s->loaded) || (s->abandoning && s->reading);
        if (pick[i]) held += freed_bytes(s);
    }
    while (held < shortfall) {
        long next = -1;
        for (size_t i = 0; i < n; i++)
            if (!pick[i] &&
                (drainable(sets[i], sets[loader], waited_ms, r) ||
                 abandonable(sets[i], sets[loader])) &&
                (next < 0 || freed_before(sets[i], sets[next])))
                next = (long)i;
        if (next < 0) break;
        pick[next] = true;
        held += freed_bytes(sets[next]);
    }
    return held;
}

bool residency_may_load(const residency_set *const *sets, size_t n, size_t loader)
{
    int rank = residency_rank(sets[loader]);
    for (size_t i = 0; i < n; i++)
        if (i != loader && sets[i]->waiting && residency_rank(sets[i]) > rank) return false;
    return true;
}

uint64_t residency_fixed_bytes(const residency_set *const *sets, size_t n, size_t except)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (i != except && sets[i]->pinned && (sets[i]->loaded || sets[i]->loading))
            bytes += sets[i]->bytes;
    return bytes;
}
