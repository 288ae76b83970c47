/*
 * params_write.c - writing .params and .vk files in bellperson's format.
 *
 * The file is streamed to PATH.tmp (points serialized in parallel, a chunk
 * at a time, so a 47 GiB file never needs a second copy in memory), synced,
 * and renamed over PATH: a reader never sees half a file. Points at
 * infinity in IC, H, L, A, B_G1, B_G2 are refused, since every reader
 * (ours and bellperson's) rejects them; so are parameters whose H is not in
 * bellperson's monomial basis (snarkjs' zkey basis has no place here).
 */
#include "groth16/params_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Points serialized per write: 16384 x 192 bytes = 3 MiB of buffer. */
#define WRITE_CHUNK 16384

typedef struct writer {
    FILE *f;
    const char *path;
    uint8_t *buf;
    cuzk_err *err;
} writer;

static int put(writer *w, const void *p, size_t n)
{
    if (fwrite(p, 1, n, w->f) == n) return 0;
    return cuzk_errf(w->err, CUZK_EIO, "%s: write failed: %s", w->path, strerror(errno));
}

/* count (u32 BE) then the points, refusing the point at infinity. */
static int put_section(writer *w, int section, const void *points, size_t n)
{
    const params_group *g = params_section_group(section);
    if (n > UINT32_MAX)
        return cuzk_errf(w->err, CUZK_EINVAL, "%s: %zu %s points do not fit a u32 count", w->path,
                         n, params_section_name(section));
    uint8_t be[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    int rc = put(w, be, 4);
    for (size_t start = 0; start < n && !rc; start += WRITE_CHUNK) {
        size_t m = n - start < WRITE_CHUNK ? n - start : WRITE_CHUNK, inf = m;
#pragma omp parallel for schedule(static) reduction(min : inf)
        for (size_t i = 0; i < m; i++) {
            const void *p = (const uint8_t *)points + (start + i) * g->mem;
            if (g->is_inf(p) && i < inf) inf = i;
            g->encode(w->buf + i * g->bytes, p);
        }
        if (inf < m)
            return cuzk_errf(w->err, CUZK_EIDENTITY, "%s: %s point %zu %s, which readers reject",
                             w->path, params_section_name(section), start + inf,
                             params_failure_phrase(CUZK_EIDENTITY));
        rc = put(w, w->buf, m * g->bytes);
    }
    return rc;
}

static int put_vk(writer *w, const groth16_vk *vk)
{
    uint8_t fixed[PARAMS_VK_FIXED_BYTES];
    for (int i = 0; i < PARAMS_VK_FIXED; i++) {
        const params_vk_point *pt = &PARAMS_VK_POINTS[i];
        pt->group->encode(fixed + pt->offset, params_vk_field((groth16_vk *)vk, i));
    }
    int rc = put(w, fixed, sizeof(fixed));
    return rc ? rc : put_section(w, PARAMS_IC, vk->ic, vk->n_ic);
}

static int put_params(writer *w, const groth16_params *p)
{
    const void *arrays[PARAMS_SECTIONS] = {NULL, p->h, p->l, p->a, p->b_g1, p->b_g2};
    size_t counts[PARAMS_SECTIONS] = {0, p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    int rc = put_vk(w, &p->vk);
    for (int s = PARAMS_H; s < PARAMS_SECTIONS && !rc; s++)
        rc = put_section(w, s, arrays[s], counts[s]);
    return rc;
}

/* Opens path.tmp, runs body, then syncs and renames (or removes the tmp). */
static int write_atomically(const char *path, int (*body)(writer *, const void *), const void *arg,
                            cuzk_err *err)
{
    size_t n = strlen(path) + 5;
    char *tmp = malloc(n);
    writer w = {.path = path, .err = err, .buf = malloc(WRITE_CHUNK * G2_UNCOMPRESSED_BYTES)};
    if (!tmp || !w.buf) {
        free(tmp), free(w.buf);
        return cuzk_errf(err, CUZK_ENOMEM, "%s: no memory for the write buffer", path);
    }
    snprintf(tmp, n, "%s.tmp", path);
    w.f = fopen(tmp, "wb");
    int rc = w.f ? body(&w, arg)
                 : cuzk_errf(err, CUZK_EIO, "%s: cannot create: %s", tmp, strerror(errno));
    if (w.f) {
        if (!rc && (fflush(w.f) != 0 || fsync(fileno(w.f)) != 0))
            rc = cuzk_errf(err, CUZK_EIO, "%s: cannot flush: %s", tmp, strerror(errno));
        if (fclose(w.f) != 0 && !rc)
            rc = cuzk_errf(err, CUZK_EIO, "%s: cannot close: %s", tmp, strerror(errno));
        if (!rc && rename(tmp, path) != 0)
            rc =
                cuzk_errf(err, CUZK_EIO, "%s: cannot rename into place: %s", path, strerror(errno));
        if (rc) unlink(tmp);
    }
    free(tmp), free(w.buf);
    return rc;
}

static int params_body(writer *w, const void *p)
{
    return put_params(w, p);
}
static int vk_body(writer *w, const void *vk)
{
    return put_vk(w, vk);
}

int groth16_params_write(const char *path, const groth16_params *p, cuzk_err *err)
{
    if (p->h_basis != GROTH16_H_MONOMIAL)
        return cuzk_errf(err, CUZK_EINVAL,
                         "%s: H is in snarkjs' Lagrange basis; .params files hold bellperson's "
                         "monomial H (convert it first)",
                         path);
    return write_atomically(path, params_body, p, err);
}

int groth16_vk_write(const char *path, const groth16_vk *vk, cuzk_err *err)
{
    return write_atomically(path, vk_body, vk, err);
}

uint64_t groth16_params_encoded_size(const groth16_params *p)
{
    uint64_t g1 = (uint64_t)p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1;
    return PARAMS_VK_FIXED_BYTES + 6 * 4 + g1 * G1_UNCOMPRESSED_BYTES +
           (uint64_t)p->n_b_g2 * G2_UNCOMPRESSED_BYTES;
}
