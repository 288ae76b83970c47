/*
 * span.c - the union of a job's intervals in one phase (span.h).
 *
 * Adding keeps the intervals sorted and disjoint: the new one absorbs
 * every interval it overlaps or touches, then takes its place in order.
 * A full set first joins its two nearest neighbours (the smallest gap).
 */
#include "span.h"

#include <string.h>

/* Joins the two intervals with the smallest gap between them. */
static void join_nearest(span_set *s)
{
    size_t at = 0;
    for (size_t i = 1; i + 1 < s->n; i++)
        if (s->start[i + 1] - s->end[i] < s->start[at + 1] - s->end[at]) at = i;
    s->end[at] = s->end[at + 1];
    size_t tail = s->n - at - 2;
    memmove(s->start + at + 1, s->start + at + 2, tail * sizeof *s->start);
    memmove(s->end + at + 1, s->end + at + 2, tail * sizeof *s->end);
    s->n--;
}

void span_add(span_set *s, uint64_t start, uint64_t end)
{
    if (end <= start) return;
    size_t lo = 0; /* first interval ending at or after start */
    while (lo < s->n && s->end[lo] < start) lo++;
    size_t hi = lo; /* first interval starting after end */
    while (hi < s->n && s->start[hi] <= end) hi++;
    if (hi > lo) { /* [lo, hi) overlap or touch it: one interval */
        if (s->start[lo] < start) start = s->start[lo];
        if (s->end[hi - 1] > end) end = s->end[hi - 1];
        size_t tail = s->n - hi;
        memmove(s->start + lo + 1, s->start + hi, tail * sizeof *s->start);
        memmove(s->end + lo + 1, s->end + hi, tail * sizeof *s->end);
        s->n = lo + 1 + tail;
    } else {
        if (s->n == SPAN_MAX) {
            join_nearest(s);
            span_add(s, start, end); /* the join may have moved lo */
            return;
        }
        memmove(s->start + lo + 1, s->start + lo, (s->n - lo) * sizeof *s->start);
        memmove(s->end + lo + 1, s->end + lo, (s->n - lo) * sizeof *s->end);
        s->n++;
    }
    s->start[lo] = start;
    s->end[lo] = end;
}

uint64_t span_total(const span_set *s, uint64_t from, uint64_t to)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < s->n; i++) {
        uint64_t a = s->start[i] > from ? s->start[i] : from;
        uint64_t b = s->end[i] < to ? s->end[i] : to;
        if (b > a) sum += b - a;
    }
    return sum;
}
