/*
 * span.h - how long a job spent in one phase, as wall-clock time: the
 * union of the intervals its partitions spent there (engine.h's timings).
 *
 * Partitions overlap: four synthesize at once, several wait for the same
 * parameter load, a device proves several in one start. Summing their
 * durations counts the same second once per partition (a 32 GiB PoRep
 * reported a 135 s parameter wait inside a 51 s job); the union counts it
 * once, so each phase's figure is at most the job's total and says how
 * much of the job's life that phase covered.
 *
 * A set keeps up to SPAN_MAX disjoint intervals, sorted, merging those
 * that overlap or touch. When one more would not fit, the two nearest are
 * joined across their gap: the figure then errs long by that gap, never
 * past the first start and the last end. Not thread-safe: the engine's
 * lock guards a job's sets.
 */
#ifndef CUZK_ENGINE_SPAN_H
#define CUZK_ENGINE_SPAN_H

#include <stddef.h>
#include <stdint.h>

#define SPAN_MAX 16

typedef struct span_set {
    uint64_t start[SPAN_MAX], end[SPAN_MAX]; /* ms; disjoint, ascending */
    size_t n;
} span_set;

/* Adds [start, end) (ms); an empty or reversed interval adds nothing. */
void span_add(span_set *s, uint64_t start, uint64_t end);
/* The total length of the set's intervals within [from, to). */
uint64_t span_total(const span_set *s, uint64_t from, uint64_t to);

#endif
