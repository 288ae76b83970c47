/*
 * subgroup_impl.h - whether every point of an array is in the prime-order
 * subgroup, for a small fraction of one exact test per point. Included by
 * g1.c and g2.c after ec_impl.h (G(name), G_AFF, G_JAC, G_XYZZ as there)
 * and after their exact G(affine_in_subgroup).
 *
 * Random subset sums. For k = 0..127, S_k is the sum of the points whose
 * bit k of a fresh 128-bit mask from the OS random source is set, and every
 * S_k gets the exact test. Let Q be the curve's group modulo the subgroup:
 * S_k is in the subgroup iff the masked sum of the points' images in Q is
 * zero. If some point's image is not zero then, whatever the other bits,
 * at most one of the two values of its bit k makes that sum zero, so each
 * S_k lets it through with probability at most 1/2 and all 128 with at most
 * 2^-128, whatever the points are. They must be on the curve (the test of
 * a sum is exact only there); the file's author cannot see the masks.
 *
 * The sums share their additions as Pippenger's buckets do: the mask is cut
 * into 16 bytes, each point is added to one of 255 buckets per byte (16
 * XYZZ mixed additions a point, against the ~126 doublings of the exact
 * test), and S_{8b+t} is the sum of byte b's buckets whose index has bit t
 * set. Every thread fills buckets of its own; they are merged at the end.
 * When no random bytes can be had, or memory, every point gets the exact
 * test instead.
 */
#include <omp.h>
#include <stdlib.h>

#include "cuzk/rng.h"

#define SUBGROUP_SUMS    128
#define SUBGROUP_BYTES   (SUBGROUP_SUMS / 8)
#define SUBGROUP_BUCKETS (SUBGROUP_BYTES * 256)
/* Points per task, each task drawing their masks at once (32 KiB). */
#define SUBGROUP_CHUNK 2048
/* Below this many points the ~16k additions of the sums and their 128
 * exact tests cost more than one exact test per point. */
#define SUBGROUP_BATCH_MIN 1024

static bool G(all_in_subgroup_exact)(const G_AFF *p, size_t n)
{
    size_t bad = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : bad)
    for (size_t i = 0; i < n; i++) bad += !G(affine_in_subgroup)(&p[i]);
    return bad == 0;
}

/* Adds the chunk p[0..m) into a thread's buckets under fresh masks;
 * false when the OS gave no random bytes. */
static bool G(subgroup_fill)(G_XYZZ *buckets, const G_AFF *p, size_t m)
{
    uint8_t mask[SUBGROUP_CHUNK][SUBGROUP_BYTES];
    if (cuzk_os_random(mask, m * SUBGROUP_BYTES)) return false;
    for (size_t i = 0; i < m; i++) {
        if (G(affine_is_inf)(&p[i])) continue;
        for (int y = 0; y < SUBGROUP_BYTES; y++) {
            G_XYZZ *b = &buckets[y * 256 + mask[i][y]];
            if (mask[i][y]) G(xyzz_add_affine)(b, b, &p[i]);
        }
    }
    return true;
}

/* Sum k of the merged buckets, as an affine point. */
static void G(subgroup_sum)(G_AFF *out, const G_XYZZ *buckets, int k)
{
    const G_XYZZ *b = buckets + (k / 8) * 256;
    G_XYZZ s;
    G(xyzz_set_inf)(&s);
    for (int v = 1; v < 256; v++)
        if (v >> (k % 8) & 1) G(xyzz_add)(&s, &s, &b[v]);
    G_JAC j;
    G(xyzz_to_jac)(&j, &s);
    G(jac_to_affine)(out, &j);
}

bool G(affine_all_in_subgroup)(const G_AFF *p, size_t n)
{
    if (n < SUBGROUP_BATCH_MIN) return G(all_in_subgroup_exact)(p, n);
    size_t chunks = (n + SUBGROUP_CHUNK - 1) / SUBGROUP_CHUNK;
    int nt = omp_get_max_threads();
    if ((size_t)nt > chunks) nt = (int)chunks; /* a bucket set per thread that has work */
    G_XYZZ *b = malloc((size_t)nt * SUBGROUP_BUCKETS * sizeof *b);
    if (!b) return G(all_in_subgroup_exact)(p, n);
    /* Every set starts empty, also those of threads the runtime does not
     * start (a nested call, a thread limit): the merge reads them all. */
    for (size_t j = 0; j < (size_t)nt * SUBGROUP_BUCKETS; j++) G(xyzz_set_inf)(&b[j]);
    size_t failed = 0;
#pragma omp parallel num_threads(nt) reduction(+ : failed)
    {
        G_XYZZ *mine = b + (size_t)omp_get_thread_num() * SUBGROUP_BUCKETS;
#pragma omp for schedule(dynamic, 1)
        for (size_t c = 0; c < n; c += SUBGROUP_CHUNK)
            failed +=
                !G(subgroup_fill)(mine, p + c, n - c < SUBGROUP_CHUNK ? n - c : SUBGROUP_CHUNK);
    }
    if (failed) {
        free(b);
        return G(all_in_subgroup_exact)(p, n);
    }
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < SUBGROUP_BUCKETS; j++)
        for (int t = 1; t < nt; t++)
            G(xyzz_add)(&b[j], &b[j], &b[(size_t)t * SUBGROUP_BUCKETS + j]);
    G_AFF sums[SUBGROUP_SUMS];
    size_t bad = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad)
    for (int k = 0; k < SUBGROUP_SUMS; k++) {
        G(subgroup_sum)(&sums[k], b, k);
        bad += !G(affine_in_subgroup)(&sums[k]);
    }
    free(b);
    return bad == 0;
}
