/*
 * zkey.c - reader of snarkjs Groth16 .zkey files (version 1) for
 * bls12381: protocol (1), header (2), IC (3), coefficients (4), A (5),
 * B1 (6), B2 (7), C (8), H (9), contributions (10, not read). Points are
 * checked on the curve, and in the subgroup unless the mode says the file
 * is trusted or the digest cache knows its bytes passed before (the
 * header's points are always checked).
 */
#include "cuzk/snarkjs.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/check_cache.h"
#include "snarkjs/binfile.h"

enum {
    ZK_PROTOCOL = 1,
    ZK_HEADER,
    ZK_IC,
    ZK_COEFS,
    ZK_A,
    ZK_B1,
    ZK_B2,
    ZK_C,
    ZK_H,
    ZK_CONTRIBUTIONS
};

static int read_header(snarkjs_zkey *z, const binfile *f, cuzk_err *err)
{
    bincursor c;
    uint32_t protocol;
    int rc = binfile_section(f, ZK_PROTOCOL, 4, &c, err);
    if (!rc) rc = bincursor_u32(&c, &protocol, "protocol", err);
    if (rc) return rc;
    if (protocol != 1)
        return cuzk_errf(err, CUZK_EUNSUPPORTED, "%s: protocol %u is not groth16 (1)", f->path,
                         protocol);
    rc = binfile_section(f, ZK_HEADER, 0, &c, err);
    if (!rc) rc = bincursor_prime(&c, FP_MODULUS, FP_LIMBS, "base field prime q", err);
    if (!rc) rc = bincursor_prime(&c, FR_MODULUS, FR_LIMBS, "scalar field prime r", err);
    if (!rc) rc = bincursor_u32(&c, &z->n_vars, "nVars", err);
    if (!rc) rc = bincursor_u32(&c, &z->n_public, "nPublic", err);
    if (!rc) rc = bincursor_u32(&c, &z->domain_size, "domainSize", err);
    if (!rc) rc = bincursor_g1_array(&c, &z->alpha1, 1, "alpha1", 1, err);
    if (!rc) rc = bincursor_g1_array(&c, &z->beta1, 1, "beta1", 1, err);
    if (!rc) rc = bincursor_g2_array(&c, &z->beta2, 1, "beta2", 1, err);
    if (!rc) rc = bincursor_g2_array(&c, &z->gamma2, 1, "gamma2", 1, err);
    if (!rc) rc = bincursor_g1_array(&c, &z->delta1, 1, "delta1", 1, err);
    if (!rc) rc = bincursor_g2_array(&c, &z->delta2, 1, "delta2", 1, err);
    if (!rc) rc = bincursor_end(&c, err);
    if (rc) return rc;
    uint32_t d = z->domain_size;
    if (z->n_public >= z->n_vars || d == 0 || (d & (d - 1)) != 0 || d > (1u << 28))
        return cuzk_errf(err, CUZK_EINVAL, "%s: header: nVars %u, nPublic %u, domainSize %u",
                         f->path, z->n_vars, z->n_public, d);
    return CUZK_OK;
}

/* Coefficients are stored as coef * 2^512 mod r: the Montgomery product
 * with the raw limb 1 (which stands for 2^-256) brings the stored value
 * v, read as a Montgomery limb vector (v 2^-256), down to v 2^-512. */
static int read_coefs(snarkjs_zkey *z, const binfile *f, cuzk_err *err)
{
    bincursor c;
    uint32_t n;
    int rc = binfile_section(f, ZK_COEFS, 0, &c, err);
    if (!rc) rc = bincursor_u32(&c, &n, "nCoefs", err);
    if (rc) return rc;
    if ((uint64_t)n * 44 != c.len - 4)
        return cuzk_errf(err, CUZK_ELENGTH, "%s: section 4 holds %llu bytes for %u coefficients",
                         f->path, (unsigned long long)c.len, n);
    z->n_coefs = n;
    if (!(z->coefs = malloc(sizeof(snarkjs_coef) * (n ? n : 1))))
        return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", f->path);
    static const fr_t raw_one = {{1}};
    for (uint32_t i = 0; i < n; i++) {
        snarkjs_coef *k = &z->coefs[i];
        fr_t v;
        if ((rc = bincursor_u32(&c, &k->matrix, "matrix", err)) ||
            (rc = bincursor_u32(&c, &k->constraint, "constraint", err)) ||
            (rc = bincursor_u32(&c, &k->signal, "signal", err)) ||
            (rc = bincursor_fr(&c, &v, "coefficient", err)))
            return rc;
        fr_to_canonical(v.l, &v);
        fr_mul(&k->value, &v, &raw_one);
        if (k->matrix > 1 || k->constraint >= z->domain_size || k->signal >= z->n_vars)
            return cuzk_errf(err, CUZK_EINVAL,
                             "%s: coefficient %u: matrix %u, constraint %u, signal %u out of range",
                             f->path, i, k->matrix, k->constraint, k->signal);
    }
    return CUZK_OK;
}

static int read_g1s(const binfile *f, uint32_t id, const char *what, uint64_t first, uint64_t count,
                    int subgroup, g1_affine_t **out, cuzk_err *err)
{
    bincursor c;
    int rc = binfile_section(f, id, count * 96, &c, err);
    if (rc) return rc;
    if (!(*out = calloc(first + count + 1, sizeof(g1_affine_t))))
        return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", f->path);
    return bincursor_g1_array(&c, *out + first, count, what, subgroup, err);
}

static int read_points(snarkjs_zkey *z, const binfile *f, int sub, cuzk_err *err)
{
    uint64_t nv = z->n_vars, np = z->n_public;
    int rc = read_g1s(f, ZK_IC, "IC", 0, np + 1, sub, &z->ic, err);
    if (!rc) rc = read_g1s(f, ZK_A, "A", 0, nv, sub, &z->a, err);
    if (!rc) rc = read_g1s(f, ZK_B1, "B1", 0, nv, sub, &z->b1, err);
    if (!rc) rc = read_g1s(f, ZK_C, "C", np + 1, nv - np - 1, sub, &z->c, err);
    if (!rc) rc = read_g1s(f, ZK_H, "H", 0, z->domain_size, sub, &z->h, err);
    if (rc) return rc;
    bincursor c;
    if ((rc = binfile_section(f, ZK_B2, nv * 192, &c, err))) return rc;
    if (!(z->b2 = calloc(nv + 1, sizeof(g2_affine_t))))
        return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", f->path);
    return bincursor_g2_array(&c, z->b2, nv, "B2", sub, err);
}

int snarkjs_zkey_read(snarkjs_zkey *z, const char *path, int mode, cuzk_err *err)
{
    static const uint32_t known[] = {ZK_PROTOCOL, ZK_HEADER, ZK_IC, ZK_COEFS, ZK_A,
                                     ZK_B1,       ZK_B2,     ZK_C,  ZK_H,     ZK_CONTRIBUTIONS};
    memset(z, 0, sizeof(*z));
    binfile f;
    int rc = binfile_open(&f, path, "zkey", 1, known, 10, err);
    if (rc) return rc;
    check_cache_use cache;
    bool full = mode == SNARKJS_CHECKED ||
                (mode == SNARKJS_CACHED && check_cache_begin(&cache, "zkey", f.data, f.len, true));
    rc = read_header(z, &f, err);
    if (!rc) rc = read_coefs(z, &f, err);
    if (!rc) rc = read_points(z, &f, full, err);
    if (!rc && full && mode == SNARKJS_CACHED) check_cache_passed(&cache);
    binfile_close(&f);
    if (rc) snarkjs_zkey_free(z);
    return rc;
}

void snarkjs_zkey_free(snarkjs_zkey *z)
{
    free(z->ic);
    free(z->coefs);
    free(z->a);
    free(z->b1);
    free(z->b2);
    free(z->c);
    free(z->h);
    memset(z, 0, sizeof(*z));
}
