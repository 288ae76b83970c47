/*
 * vec.c - growable arrays and bitmaps for the constraint-system backends.
 * Capacity doubles (amortised O(1) appends; glibc moves large blocks with
 * mremap, so growing a multi-GiB vector does not copy it) and a failed
 * allocation is returned as CUZK_ENOMEM with the old block intact. Large
 * blocks are advised to use transparent huge pages.
 */
#include "r1cs/cs_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The first heap allocation of a vector: 1024 elements. */
#define VEC_MIN_CAP 1024
/*
 * Blocks from 4 MiB on ask for transparent huge pages: a 32 GiB partition
 * writes ~17 GiB of vectors, and 4 KiB pages cost one fault each (a fifth
 * of synthesis time before); 2 MiB pages cut the faults 512-fold. glibc
 * maps such blocks on their own, header included, so the advice covers
 * the whole mapping from its first 4 KiB page: advising only a part would
 * split it, and mremap (realloc's way to grow without copying) fails on a
 * split mapping.
 */
#define HUGE_MIN   ((size_t)4 << 20)
#define SMALL_PAGE ((uintptr_t)4096)

static void advise_huge(void *p, size_t bytes)
{
    if (bytes < HUGE_MIN) return;
    uintptr_t lo = (uintptr_t)p & ~(SMALL_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes + SMALL_PAGE - 1) & ~(SMALL_PAGE - 1);
    madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

int cs_vec_resize(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap) return 0;
    if (n > SIZE_MAX / elem) return CUZK_ENOMEM;
    void *q = realloc(*p, n * elem);
    if (!q) return CUZK_ENOMEM;
    advise_huge(q, n * elem);
    *p = q;
    *cap = n;
    return 0;
}

int cs_vec_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : VEC_MIN_CAP;
    while (n < need) {
        if (n > SIZE_MAX / 2) return CUZK_ENOMEM;
        n *= 2;
    }
    return cs_vec_resize(p, cap, n, elem);
}

int cs_bits_reserve(bit_vec *b, size_t nbits)
{
    size_t words = (nbits + 63) / 64, old = b->cap_words;
    if (words <= old) return 0;
    int rc = cs_vec_reserve((void **)&b->w, &b->cap_words, words, sizeof(uint64_t));
    if (rc) return rc;
    memset(b->w + old, 0, (b->cap_words - old) * sizeof(uint64_t));
    return 0;
}

size_t cs_bits_popcount(const uint64_t *w, size_t nbits)
{
    size_t n = 0, full = nbits / 64;
    for (size_t i = 0; i < full; i++) n += (size_t)__builtin_popcountll(w[i]);
    if (nbits % 64)
        n += (size_t)__builtin_popcountll(w[full] & (((uint64_t)1 << (nbits % 64)) - 1));
    return n;
}

size_t cs_bitmap_popcount(const cs_bitmap *m)
{
    return m->words ? cs_bits_popcount(m->words, m->nbits) : 0;
}
