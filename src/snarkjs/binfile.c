/*
 * binfile.c - the circom / snarkjs binary container (see binfile.h).
 */
#include "snarkjs/binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int map_file(binfile *f, const char *path, cuzk_err *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return cuzk_errf(err, CUZK_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return cuzk_errf(err, CUZK_EIO, "%s: cannot stat: %s", path, strerror(errno));
    }
    f->len = (size_t)st.st_size;
    f->data = NULL;
    if (f->len > 0) {
        void *m = mmap(NULL, f->len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            close(fd);
            return cuzk_errf(err, CUZK_EIO, "%s: cannot map: %s", path, strerror(errno));
        }
        f->data = m;
    }
    close(fd);
    return CUZK_OK;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int read_table(binfile *f, const uint32_t *known, int n_known, cuzk_err *err)
{
    uint32_t n = le32(f->data + 8);
    uint64_t pos = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (f->len - pos < 12)
            return cuzk_errf(err, CUZK_ELENGTH, "%s: truncated: section header %u at byte %llu",
                             f->path, i, (unsigned long long)pos);
        uint32_t id = le32(f->data + pos);
        uint64_t len = le64(f->data + pos + 4);
        pos += 12;
        if (len > f->len - pos)
            return cuzk_errf(err, CUZK_ELENGTH,
                             "%s: truncated: section %u claims %llu bytes, %llu left", f->path, id,
                             (unsigned long long)len, (unsigned long long)(f->len - pos));
        int ok = 0;
        for (int k = 0; k < n_known; k++) ok |= known[k] == id;
        if (!ok) return cuzk_errf(err, CUZK_EUNSUPPORTED, "%s: unknown section id %u", f->path, id);
        for (int k = 0; k < f->n_sec; k++)
            if (f->sec[k].id == id)
                return cuzk_errf(err, CUZK_EINVAL, "%s: section %u appears twice", f->path, id);
        if (f->n_sec == BINFILE_MAX_SECTIONS)
            return cuzk_errf(err, CUZK_EINVAL, "%s: too many sections", f->path);
        f->sec[f->n_sec].id = id;
        f->sec[f->n_sec].off = pos;
        f->sec[f->n_sec].len = len;
        f->n_sec++;
        pos += len;
    }
    if (pos != f->len)
        return cuzk_errf(err, CUZK_ELENGTH, "%s: %llu trailing bytes after the last section",
                         f->path, (unsigned long long)(f->len - pos));
    return CUZK_OK;
}

int binfile_open(binfile *f, const char *path, const char magic[4], uint32_t max_version,
                 const uint32_t *known, int n_known, cuzk_err *err)
{
    memset(f, 0, sizeof(*f));
    f->path = path;
    int rc = map_file(f, path, err);
    if (rc) return rc;
    if (f->len < 12)
        rc = cuzk_errf(err, CUZK_ELENGTH, "%s: too short (%zu bytes)", path, f->len);
    else if (memcmp(f->data, magic, 4) != 0)
        rc = cuzk_errf(err, CUZK_EINVAL, "%s: not a %.4s file (bad magic)", path, magic);
    else if ((f->version = le32(f->data + 4)) == 0 || f->version > max_version)
        rc = cuzk_errf(err, CUZK_EUNSUPPORTED, "%s: unsupported %.4s version %u", path, magic,
                       f->version);
    else
        rc = read_table(f, known, n_known, err);
    if (rc) binfile_close(f);
    return rc;
}

void binfile_close(binfile *f)
{
    if (f->data) munmap((void *)f->data, f->len);
    f->data = NULL;
}

int binfile_section(const binfile *f, uint32_t id, uint64_t want_len, bincursor *c, cuzk_err *err)
{
    for (int k = 0; k < f->n_sec; k++) {
        if (f->sec[k].id != id) continue;
        if (want_len && f->sec[k].len != want_len)
            return cuzk_errf(err, CUZK_ELENGTH, "%s: section %u has %llu bytes, expected %llu",
                             f->path, id, (unsigned long long)f->sec[k].len,
                             (unsigned long long)want_len);
        *c = (bincursor){f, id, f->data + f->sec[k].off, f->sec[k].len, 0};
        return CUZK_OK;
    }
    return cuzk_errf(err, CUZK_EINVAL, "%s: section %u is missing", f->path, id);
}

int bincursor_end(const bincursor *c, cuzk_err *err)
{
    if (c->pos == c->len) return CUZK_OK;
    return cuzk_errf(err, CUZK_ELENGTH, "%s: section %u has %llu unexpected trailing bytes",
                     c->f->path, c->section, (unsigned long long)(c->len - c->pos));
}

int bincursor_bytes(bincursor *c, const uint8_t **p, size_t n, const char *what, cuzk_err *err)
{
    if (c->len - c->pos < n)
        return cuzk_errf(err, CUZK_ELENGTH, "%s: section %u truncated reading %s at offset %llu",
                         c->f->path, c->section, what, (unsigned long long)c->pos);
    *p = c->p + c->pos;
    c->pos += n;
    return CUZK_OK;
}

int bincursor_u32(bincursor *c, uint32_t *v, const char *what, cuzk_err *err)
{
    const uint8_t *p = NULL;
    int rc = bincursor_bytes(c, &p, 4, what, err);
    if (!rc) *v = le32(p);
    return rc;
}

int bincursor_u64(bincursor *c, uint64_t *v, const char *what, cuzk_err *err)
{
    const uint8_t *p = NULL;
    int rc = bincursor_bytes(c, &p, 8, what, err);
    if (!rc) *v = le64(p);
    return rc;
}

int bincursor_fr(bincursor *c, fr_t *v, const char *what, cuzk_err *err)
{
    const uint8_t *p = NULL;
    int rc = bincursor_bytes(c, &p, 32, what, err);
    if (rc) return rc;
    if (!fr_from_bytes_le(v, p))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "%s: section %u: %s at offset %llu is not < r",
                         c->f->path, c->section, what, (unsigned long long)(c->pos - 32));
    return CUZK_OK;
}

int bincursor_prime(bincursor *c, const uint64_t *mod, int limbs, const char *name, cuzk_err *err)
{
    uint32_t n8;
    const uint8_t *p = NULL;
    int rc = bincursor_u32(c, &n8, "field size", err);
    if (rc) return rc;
    if (n8 != (uint32_t)limbs * 8)
        return cuzk_errf(
            err, CUZK_EUNSUPPORTED,
            "%s: %s is %u bytes, expected %d: the file is for another curve, not bls12381",
            c->f->path, name, n8, limbs * 8);
    if ((rc = bincursor_bytes(c, &p, n8, name, err))) return rc;
    for (int i = 0; i < limbs; i++)
        if (le64(p + 8 * i) != mod[i])
            return cuzk_errf(err, CUZK_EUNSUPPORTED,
                             "%s: %s is not BLS12-381's: the file is for another curve", c->f->path,
                             name);
    return CUZK_OK;
}

/* A 48-byte LE Montgomery coordinate: the limbs are our fp_t as they are. */
static int read_fp_mont(bincursor *c, fp_t *x, const char *what, uint64_t index, cuzk_err *err)
{
    const uint8_t *p = NULL;
    int rc = bincursor_bytes(c, &p, 48, what, err);
    if (rc) return rc;
    for (int i = 0; i < 6; i++) x->l[i] = le64(p + 8 * i);
    uint64_t canon[6];
    memcpy(canon, x->l, sizeof(canon));
    fp_t probe;
    if (!fp_from_canonical(&probe, canon))
        return cuzk_errf(err, CUZK_ENONCANONICAL,
                         "%s: section %u: %s point %llu has a coordinate >= p", c->f->path,
                         c->section, what, (unsigned long long)index);
    return CUZK_OK;
}

static int point_error(const bincursor *c, int code, const char *what, uint64_t index,
                       cuzk_err *err)
{
    return cuzk_errf(err, code, "%s: section %u: %s point %llu is %s", c->f->path, c->section, what,
                     (unsigned long long)index,
                     code == CUZK_ENOTONCURVE ? "not on the curve" : "not in the subgroup");
}

/* The same decoding and checking for G1 and G2: coordinates read in order,
 * then every point checked on the curve in parallel, then the subgroup
 * tested for all points at once (random subset sums, ec.h); only when
 * something fails is every point tested on its own, so that the lowest
 * failing index is named. */
#define POINT_ARRAY(G, read_coords)                                                                \
    static uint64_t G##_first_bad(const G##_affine_t *p, uint64_t n, int subgroup, int *code)      \
    {                                                                                              \
        uint64_t first_bad = n;                                                                    \
        _Pragma("omp parallel for schedule(dynamic, 256)") for (uint64_t i = 0; i < n; i++)        \
        {                                                                                          \
            int bad = !G##_affine_on_curve(&p[i])                  ? CUZK_ENOTONCURVE              \
                      : subgroup && !G##_affine_in_subgroup(&p[i]) ? CUZK_ENOTINSUBGROUP           \
                                                                   : CUZK_OK;                      \
            if (bad) {                                                                             \
                _Pragma("omp critical") if (i < first_bad) first_bad = i, *code = bad;             \
            }                                                                                      \
        }                                                                                          \
        return first_bad;                                                                          \
    }                                                                                              \
    int bincursor_##G##_array(bincursor *c, G##_affine_t *p, uint64_t n, const char *what,         \
                              int subgroup, cuzk_err *err)                                         \
    {                                                                                              \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            int rc = read_coords(c, &p[i], what, i, err);                                          \
            if (rc) return rc;                                                                     \
        }                                                                                          \
        int code = CUZK_OK;                                                                        \
        uint64_t first_bad = G##_first_bad(p, n, 0, &code);                                        \
        if (first_bad == n && subgroup && !G##_affine_all_in_subgroup(p, n))                       \
            first_bad = G##_first_bad(p, n, 1, &code);                                             \
        return code ? point_error(c, code, what, first_bad, err) : CUZK_OK;                        \
    }

static int g1_coords(bincursor *c, g1_affine_t *p, const char *what, uint64_t i, cuzk_err *err)
{
    int rc = read_fp_mont(c, &p->x, what, i, err);
    return rc ? rc : read_fp_mont(c, &p->y, what, i, err);
}

static int g2_coords(bincursor *c, g2_affine_t *p, const char *what, uint64_t i, cuzk_err *err)
{
    int rc = read_fp_mont(c, &p->x.c0, what, i, err);
    if (!rc) rc = read_fp_mont(c, &p->x.c1, what, i, err);
    if (!rc) rc = read_fp_mont(c, &p->y.c0, what, i, err);
    return rc ? rc : read_fp_mont(c, &p->y.c1, what, i, err);
}

POINT_ARRAY(g1, g1_coords)
POINT_ARRAY(g2, g2_coords)
