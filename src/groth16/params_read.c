/*
 * params_read.c - decoding .params and .vk images, and reading the files
 * through a read-only mmap (a 32 GiB PoRep .params is about 47 GiB: no
 * read() copy, and the page cache is shared with other processes).
 *
 * The layout is scanned first (params_scan), so every size is known and
 * bounded by the file before anything is allocated; then each section is
 * decoded by all OpenMP threads at once; a checked section is tested in
 * the subgroup all at once (random subset sums, ec.h), which would
 * otherwise dominate the read. Threads only record the lowest failing
 * index; that point is decoded again afterwards to build the message, so
 * no error state is shared between threads. PARAMS_CACHED reads a .params
 * or .vk image that passed a full check before (same SHA-256,
 * check_cache.h) unchecked.
 *
 * A mapped file is decoded in windows of about 1 GiB, in order:
 * the kernel is asked to read the next two windows ahead (MADV_WILLNEED) while
 * the threads decode this one, a decoded window's pages leave the process
 * (MADV_DONTNEED: they stay in the page cache), so the read costs the
 * decoded arrays and three windows of resident memory, not the file's size
 * again, and the caller's progress function hears of each window and may
 * abandon the read there (the SRS manager's abandoned loads, residency.h
 * rule 7): the read stops within a window, its arrays freed.
 */
#include "groth16/params_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/check_cache.h"

/* Points per scheduling chunk: large enough to amortise, small enough to
 * balance (a checked G2 decode is ~100x a G1 unchecked one). */
#define DECODE_CHUNK 1024
/* Bytes decoded between read-ahead / release / progress steps of a mapped
 * file: ~1 s of a 1.5 GB/s disk, 10 million G1 points (tests shrink it). */
static uint64_t decode_window = (uint64_t)1 << 30;

void params_set_decode_window(uint64_t bytes)
{
    decode_window = bytes;
}

/* Where the image comes from: a mapping (windows released after use) or
 * the caller's memory (left alone), and who hears of progress. */
typedef struct decode_src {
    const uint8_t *data;
    size_t len;
    bool mapped;
    params_progress_fn progress;
    void *progress_ctx;
} decode_src;

/* Rounds a span of the mapping inward (down) to whole pages for madvise. */
static void advise(const decode_src *src, uint64_t from, uint64_t to, int advice)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    if (to > src->len) to = src->len;
    from = advice == MADV_DONTNEED ? (from + page - 1) / page * page : from / page * page;
    to = advice == MADV_DONTNEED ? to / page * page : (to + page - 1) / page * page;
    if (src->mapped && to > from) madvise((void *)(src->data + from), to - from, advice);
}

static int decode_one(void *dst, const uint8_t *in, const params_group *g, int mode, bool allow_inf)
{
    int rc = g->decode(dst, in, mode);
    if (!rc && !allow_inf && g->is_inf(dst)) rc = CUZK_EIDENTITY;
    return rc;
}

/* Decodes points [from, to) of a section in parallel; returns the lowest
 * failing index, or to. */
static size_t decode_span(void *dst, const uint8_t *data, uint64_t offset, size_t from, size_t to,
                          const params_group *g, int mode)
{
    size_t bad = to;
#pragma omp parallel for schedule(dynamic, DECODE_CHUNK) reduction(min : bad)
    for (size_t i = from; i < to; i++) {
        uint8_t *p = (uint8_t *)dst + i * g->mem;
        if (i < bad && decode_one(p, data + offset + i * g->bytes, g, mode, false)) bad = i;
    }
    return bad;
}

/* Decodes n points of a section, window by window (see the top); on
 * failure names the first bad point (section, index, byte offset). A
 * checked window is decoded unchecked, then tested on the curve and in the
 * subgroup all at once (params_group.all_valid); only when that fails is
 * every point of it decoded checked on its own, to find the first bad one. */
static int decode_section(void *dst, const decode_src *src, uint64_t offset, size_t n, int section,
                          int mode, const char *name, cuzk_err *err)
{
    const params_group *g = params_section_group(section);
    size_t step = decode_window > g->bytes ? (size_t)(decode_window / g->bytes) : 1, bad = n;
    for (size_t from = 0; from < n && bad == n; from += step) {
        size_t to = n - from < step ? n : from + step;
        uint64_t start = offset + from * g->bytes, end = offset + to * g->bytes;
        advise(src, end, end + 2 * decode_window, MADV_WILLNEED);
        size_t b = decode_span(dst, src->data, offset, from, to, g,
                               mode == PARAMS_CHECKED ? PARAMS_UNCHECKED : mode);
        if (mode == PARAMS_CHECKED &&
            !(b == to && g->all_valid((uint8_t *)dst + from * g->mem, to - from)))
            b = decode_span(dst, src->data, offset, from, to, g, PARAMS_CHECKED);
        if (b < to) bad = b;
        advise(src, start, end, MADV_DONTNEED);
        if (bad == n && src->progress && !src->progress(src->progress_ctx, end, src->len))
            return cuzk_errf(err, CUZK_ECANCELLED, "%s: read abandoned after %llu of %llu bytes",
                             name, (unsigned long long)end, (unsigned long long)src->len);
    }
    if (bad == n) return 0;
    uint64_t at = offset + bad * g->bytes;
    int rc = decode_one((uint8_t *)dst + bad * g->mem, src->data + at, g, mode, false);
    return cuzk_errf(err, rc, "%s: %s point %zu %s (byte %llu)", name, params_section_name(section),
                     bad, params_failure_phrase(rc), (unsigned long long)at);
}

static int decode_vk_image(groth16_vk *vk, const decode_src *src, const params_layout *lay,
                           const char *name, int mode, cuzk_err *err)
{
    const uint8_t *data = src->data;
    memset(vk, 0, sizeof(*vk));
    for (int i = 0; i < PARAMS_VK_FIXED; i++) {
        const params_vk_point *pt = &PARAMS_VK_POINTS[i];
        int rc = decode_one(params_vk_field(vk, i), data + pt->offset, pt->group, mode, true);
        if (rc)
            return cuzk_errf(err, rc, "%s: %s %s (byte %zu)", name, pt->name,
                             params_failure_phrase(rc), pt->offset);
    }
    vk->n_ic = lay->count[PARAMS_IC];
    vk->ic = malloc((vk->n_ic ? vk->n_ic : 1) * sizeof(g1_affine_t));
    if (!vk->ic)
        return cuzk_errf(err, CUZK_ENOMEM, "%s: no memory for %zu IC points", name, vk->n_ic);
    int rc =
        decode_section(vk->ic, src, lay->offset[PARAMS_IC], vk->n_ic, PARAMS_IC, mode, name, err);
    if (rc) groth16_vk_free(vk);
    return rc;
}

static int check_no_trailing(const params_layout *lay, size_t len, const char *what,
                             const char *name, cuzk_err *err)
{
    if (lay->size == len) return 0;
    return cuzk_errf(err, CUZK_ELENGTH, "%s: %llu trailing bytes after the %s section (byte %llu)",
                     name, (unsigned long long)(len - lay->size), what,
                     (unsigned long long)lay->size);
}

/* PARAMS_CACHED becomes CHECKED, or UNCHECKED when the digest cache knows
 * these bytes passed before; other modes stay. */
static int resolve_mode(check_cache_use *cache, const char *format, const uint8_t *data, size_t len,
                        int mode)
{
    if (mode != PARAMS_CACHED) return mode;
    return check_cache_begin(cache, format, data, len, true) ? PARAMS_CHECKED : PARAMS_UNCHECKED;
}

int groth16_vk_decode(groth16_vk *out, const uint8_t *data, size_t len, const char *name, int mode,
                      cuzk_err *err)
{
    params_layout lay;
    decode_src src = {.data = data, .len = len};
    memset(out, 0, sizeof(*out));
    check_cache_use cache;
    int m = resolve_mode(&cache, "vk", data, len, mode);
    int rc = params_scan(&lay, data, len, 1, name, err);
    if (!rc) rc = check_no_trailing(&lay, len, "IC", name, err);
    if (!rc) rc = decode_vk_image(out, &src, &lay, name, m, err);
    if (!rc && mode == PARAMS_CACHED && m == PARAMS_CHECKED) check_cache_passed(&cache);
    return rc;
}

/* The array of a section other than IC, allocated for count points. */
static void **section_array(groth16_params *p, int s, size_t **count)
{
    void **arrays[PARAMS_SECTIONS] = {NULL,           (void **)&p->h,    (void **)&p->l,
                                      (void **)&p->a, (void **)&p->b_g1, (void **)&p->b_g2};
    size_t *counts[PARAMS_SECTIONS] = {NULL, &p->n_h, &p->n_l, &p->n_a, &p->n_b_g1, &p->n_b_g2};
    *count = counts[s];
    return arrays[s];
}

static int decode_params(groth16_params *out, const decode_src *src, const char *name, int mode,
                         cuzk_err *err)
{
    params_layout lay;
    memset(out, 0, sizeof(*out));
    check_cache_use cache;
    int m = resolve_mode(&cache, "params", src->data, src->len, mode);
    int rc = params_scan(&lay, src->data, src->len, PARAMS_SECTIONS, name, err);
    if (!rc) rc = check_no_trailing(&lay, src->len, "B_G2", name, err);
    if (!rc) rc = decode_vk_image(&out->vk, src, &lay, name, m, err);
    out->h_basis = GROTH16_H_MONOMIAL;
    for (int s = PARAMS_H; s < PARAMS_SECTIONS && !rc; s++) {
        size_t *count, n = lay.count[s];
        void **array = section_array(out, s, &count);
        *array = malloc((n ? n : 1) * params_section_group(s)->mem);
        if (!*array) {
            rc = cuzk_errf(err, CUZK_ENOMEM, "%s: no memory for %zu %s points", name, n,
                           params_section_name(s));
            break;
        }
        *count = n;
        rc = decode_section(*array, src, lay.offset[s], n, s, m, name, err);
    }
    if (rc)
        groth16_params_free(out);
    else if (mode == PARAMS_CACHED && m == PARAMS_CHECKED)
        check_cache_passed(&cache);
    return rc;
}

int groth16_params_decode(groth16_params *out, const uint8_t *data, size_t len, const char *name,
                          int mode, cuzk_err *err)
{
    decode_src src = {.data = data, .len = len};
    return decode_params(out, &src, name, mode, err);
}

/* Maps path read-only; an empty file gives data = NULL, len = 0. */
static int map_file(const char *path, const uint8_t **data, size_t *len, cuzk_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cuzk_errf(err, CUZK_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cuzk_errf(err, CUZK_EIO, "%s: cannot stat: %s", path, strerror(e));
    }
    *data = NULL;
    *len = (size_t)st.st_size;
    if (*len) {
        void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            return cuzk_errf(err, CUZK_EIO, "%s: cannot mmap %zu bytes: %s", path, *len,
                             strerror(e));
        }
        *data = m;
    }
    close(fd);
    return 0;
}

static void unmap_file(const uint8_t *data, size_t len)
{
    if (data) munmap((void *)data, len);
}

int groth16_params_read_progress(groth16_params *out, const char *path, int mode,
                                 params_progress_fn progress, void *ctx, cuzk_err *err)
{
    decode_src src = {.mapped = true, .progress = progress, .progress_ctx = ctx};
    memset(out, 0, sizeof(*out));
    int rc = map_file(path, &src.data, &src.len, err);
    if (rc) return rc;
    rc = decode_params(out, &src, path, mode, err);
    unmap_file(src.data, src.len);
    return rc;
}

int groth16_params_read(groth16_params *out, const char *path, int mode, cuzk_err *err)
{
    return groth16_params_read_progress(out, path, mode, NULL, NULL, err);
}

int groth16_vk_read(groth16_vk *out, const char *path, int mode, cuzk_err *err)
{
    const uint8_t *data;
    size_t len;
    memset(out, 0, sizeof(*out));
    int rc = map_file(path, &data, &len, err);
    if (rc) return rc;
    rc = groth16_vk_decode(out, data, len, path, mode, err);
    unmap_file(data, len);
    return rc;
}

int groth16_vk_read_from_params(groth16_vk *out, const char *path, int mode, cuzk_err *err)
{
    const uint8_t *data;
    size_t len;
    params_layout lay;
    memset(out, 0, sizeof(*out));
    int rc = map_file(path, &data, &len, err);
    if (rc) return rc;
    decode_src src = {.data = data, .len = len, .mapped = true};
    rc = params_scan(&lay, data, len, 1, path, err);
    if (!rc)
        rc = decode_vk_image(out, &src, &lay, path, mode == PARAMS_CACHED ? PARAMS_CHECKED : mode,
                             err);
    unmap_file(data, len);
    return rc;
}
