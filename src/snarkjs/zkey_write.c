/*
 * zkey_write.c - a development snarkjs Groth16 zkey for a circom R1CS.
 *
 * NOT a trusted setup: the toxic values come from a seed (the same
 * development setup as groth16_setup_dev). It lets snarkjs and cuzk prove
 * the same circuit from the same key without snarkjs' powers of tau (whose
 * preparation takes 35 minutes at 2^16 on 2 cores), so the two provers can
 * be compared side by side.
 *
 * Everything is laid out as snarkjs would: constraint j at snarkjs' point
 * omega5^j (our omega7^(j K^-1), roots.h), the extra A rows nConstraints +
 * i for the public signals, per-variable A, B1, B2 with points at infinity
 * kept, C for the private signals, H_j = L_{2j+1}(tau) / delta over the odd
 * points of the 2m domain, coefficients stored as coef 2^512 mod r,
 * coordinates as 48-byte LE Montgomery limbs (our fp_t as it is).
 * Section 10 (contributions) holds a zero circuit hash and no
 * contributions: `snarkjs zkey verify` would refuse it, proving does not
 * read it.
 */
#include "cuzk/snarkjs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/file.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "groth16/setup_internal.h"
#include "snarkjs/roots.h"

typedef struct zkey_keys {
    size_t nv, ni, m;
    fr_t *u, *v, *w, *h; /* per variable; h per odd point */
} zkey_keys;

/* L_k(tau) for k < n (our order) by one inverse NTT of the powers of tau. */
static int lagrange(fr_t *out, const fr_t *powers, unsigned log_n, cuzk_err *err)
{
    ntt_domain d;
    int rc = ntt_domain_init(&d, log_n, err);
    if (rc) return rc;
    memcpy(out, powers, sizeof(fr_t) * d.n);
    rc = ntt_inverse(&d, out, NTT_NATURAL, NTT_NATURAL, err);
    ntt_domain_free(&d);
    return rc;
}

/* u, v, w per variable with snarkjs' point order, and the H scalars. */
static int compute_keys(zkey_keys *k, const cs_r1cs *r, const groth16_toxic *t, cuzk_err *err)
{
    unsigned log_m = snarkjs_log2(r->num_constraints);
    k->m = (size_t)1 << log_m;
    size_t m = k->m;
    fr_t *pw = malloc(sizeof(fr_t) * 2 * m), *lag = malloc(sizeof(fr_t) * 2 * m);
    fr_t *lag5 = malloc(sizeof(fr_t) * m);
    k->u = malloc(sizeof(fr_t) * k->nv), k->v = malloc(sizeof(fr_t) * k->nv);
    k->w = malloc(sizeof(fr_t) * k->nv), k->h = malloc(sizeof(fr_t) * m);
    int rc = pw && lag && lag5 && k->u && k->v && k->w && k->h
                 ? CUZK_OK
                 : cuzk_errf(err, CUZK_ENOMEM, "zkey: out of memory for a 2^%u domain", log_m);
    if (!rc) {
        pw[0] = FR_ONE;
        for (size_t i = 1; i < 2 * m; i++) fr_mul(&pw[i], &pw[i - 1], &t->tau);
        rc = lagrange(lag, pw, log_m, err);
    }
    if (!rc) {
        uint64_t kinv = snarkjs_root_map(log_m);
        for (size_t j = 0; j < m; j++) lag5[j] = lag[(j * kinv) & (m - 1)];
        groth16_qap_columns(r, lag5, k->u, k->v, k->w);
        rc = lagrange(lag, pw, log_m + 1, err);
    }
    if (!rc) {
        uint64_t kinv = snarkjs_root_map(log_m + 1), mask = 2 * (uint64_t)m - 1;
        fr_t dinv;
        fr_inv(&dinv, &t->delta);
        for (size_t j = 0; j < m; j++) fr_mul(&k->h[j], &lag[((2 * j + 1) * kinv) & mask], &dinv);
    }
    free(pw), free(lag), free(lag5);
    return rc;
}

static void put_u32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}

static void put_limbs(FILE *f, const uint64_t *l, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) fputc((int)(uint8_t)(l[i] >> (8 * k)), f);
}

static void put_g1(FILE *f, const g1_affine_t *p)
{
    put_limbs(f, p->x.l, FP_LIMBS);
    put_limbs(f, p->y.l, FP_LIMBS);
}

static void put_g2(FILE *f, const g2_affine_t *p)
{
    put_limbs(f, p->x.c0.l, FP_LIMBS), put_limbs(f, p->x.c1.l, FP_LIMBS);
    put_limbs(f, p->y.c0.l, FP_LIMBS), put_limbs(f, p->y.c1.l, FP_LIMBS);
}

/* A section: id, u64 length, payload (the stream of a memstream). */
static void put_section(FILE *f, uint32_t id, const char *data, size_t len)
{
    put_u32(f, id);
    put_u32(f, (uint32_t)len);
    put_u32(f, (uint32_t)((uint64_t)len >> 32));
    fwrite(data, 1, len, f);
}

typedef struct zkey_points {
    g1_affine_t vk1[3]; /* alpha, beta, delta */
    g2_affine_t vk2[3]; /* beta, gamma, delta */
    g1_affine_t *ic, *a, *b1, *c, *h;
    g2_affine_t *b2;
} zkey_points;

static void points_free(zkey_points *p)
{
    free(p->ic), free(p->a), free(p->b1), free(p->c), free(p->h), free(p->b2);
}

static int make_points(zkey_points *p, const zkey_keys *k, const groth16_toxic *t, cuzk_err *err)
{
    size_t nv = k->nv, ni = k->ni;
    fr_t *s = malloc(sizeof(fr_t) * nv), ginv, dinv;
    p->ic = malloc(sizeof(g1_affine_t) * ni), p->a = malloc(sizeof(g1_affine_t) * nv);
    p->b1 = malloc(sizeof(g1_affine_t) * nv), p->c = malloc(sizeof(g1_affine_t) * nv);
    p->h = malloc(sizeof(g1_affine_t) * k->m), p->b2 = malloc(sizeof(g2_affine_t) * nv);
    if (!s || !p->ic || !p->a || !p->b1 || !p->c || !p->h || !p->b2) {
        free(s);
        return cuzk_errf(err, CUZK_ENOMEM, "zkey: out of memory for %zu variables", nv);
    }
    fr_inv(&ginv, &t->gamma);
    fr_inv(&dinv, &t->delta);
    for (size_t i = 0; i < nv; i++) { /* (beta u + alpha v + w) / (gamma | delta) */
        fr_t x, y;
        fr_mul(&x, &t->beta, &k->u[i]);
        fr_mul(&y, &t->alpha, &k->v[i]);
        fr_add(&x, &x, &y);
        fr_add(&x, &x, &k->w[i]);
        fr_mul(&s[i], &x, i < ni ? &ginv : &dinv);
    }
    fr_t s1[3] = {t->alpha, t->beta, t->delta}, s2[3] = {t->beta, t->gamma, t->delta};
    const g1_affine_t *g1 = &g1_GENERATOR;
    int rc = g1_fixed_base_mul(p->vk1, g1, s1, 3, 0, err);
    if (!rc) rc = g2_fixed_base_mul(p->vk2, &g2_GENERATOR, s2, 3, 0, err);
    if (!rc) rc = g1_fixed_base_mul(p->ic, g1, s, ni, 0, err);
    if (!rc) rc = g1_fixed_base_mul(p->c + ni, g1, s + ni, nv - ni, 0, err);
    if (!rc) rc = g1_fixed_base_mul(p->a, g1, k->u, nv, 0, err);
    if (!rc) rc = g1_fixed_base_mul(p->b1, g1, k->v, nv, 0, err);
    if (!rc) rc = g2_fixed_base_mul(p->b2, &g2_GENERATOR, k->v, nv, 0, err);
    if (!rc) rc = g1_fixed_base_mul(p->h, g1, k->h, k->m, 0, err);
    free(s);
    return rc;
}

/* coef 2^512 mod r, canonical little-endian (snarkjs' storage). */
static void put_coef(FILE *f, uint32_t matrix, uint32_t row, uint32_t signal, const fr_t *coef)
{
    static const uint64_t r2[FR_LIMBS] = {0xc999e990f3f29c6d, 0x2b6cedcb87925c23,
                                          0x05d314967254398f, 0x0748d9d99f59ff11}; /* 2^512 mod r */
    fr_t r2e, x;
    fr_from_canonical(&r2e, r2);
    fr_mul(&x, coef, &r2e);
    uint8_t b[FR_BYTES];
    fr_to_bytes_le(b, &x);
    put_u32(f, matrix), put_u32(f, row), put_u32(f, signal);
    fwrite(b, 1, sizeof(b), f);
}

static size_t put_coefs(FILE *f, const snarkjs_r1cs *r, size_t ni)
{
    size_t n = 0;
    for (uint32_t j = 0; j < r->n_constraints; j++)
        for (uint32_t mat = 0; mat < 2; mat++)
            for (uint64_t t = r->off[3 * j + mat]; t < r->off[3 * j + mat + 1]; t++, n++)
                put_coef(f, mat, j, r->terms[t].wire, &r->terms[t].coef);
    for (uint32_t i = 0; i < ni; i++, n++) put_coef(f, 0, r->n_constraints + i, i, &FR_ONE);
    return n;
}

/* Builds each section in a memory stream, then the file. */
static int write_zkey(const char *path, const snarkjs_r1cs *r, const zkey_keys *k,
                      const zkey_points *p, cuzk_err *err)
{
    char *sec[10] = {0}, *out = NULL;
    size_t len[10] = {0}, out_len = 0;
    FILE *f[10];
    for (int i = 0; i < 10; i++) f[i] = open_memstream(&sec[i], &len[i]);
    put_u32(f[0], 1);
    put_u32(f[1], 48), put_limbs(f[1], FP_MODULUS, FP_LIMBS);
    put_u32(f[1], 32), put_limbs(f[1], FR_MODULUS, FR_LIMBS);
    put_u32(f[1], (uint32_t)k->nv), put_u32(f[1], (uint32_t)(k->ni - 1)),
        put_u32(f[1], (uint32_t)k->m);
    put_g1(f[1], &p->vk1[0]), put_g1(f[1], &p->vk1[1]), put_g2(f[1], &p->vk2[0]);
    put_g2(f[1], &p->vk2[1]), put_g1(f[1], &p->vk1[2]), put_g2(f[1], &p->vk2[2]);
    for (size_t i = 0; i < k->ni; i++) put_g1(f[2], &p->ic[i]);
    char *coefs = NULL;
    size_t coefs_len = 0;
    FILE *cf = open_memstream(&coefs, &coefs_len);
    put_u32(f[3], (uint32_t)put_coefs(cf, r, k->ni));
    fclose(cf);
    fwrite(coefs, 1, coefs_len, f[3]);
    free(coefs);
    for (size_t i = 0; i < k->nv; i++) put_g1(f[4], &p->a[i]), put_g1(f[5], &p->b1[i]);
    for (size_t i = 0; i < k->nv; i++) put_g2(f[6], &p->b2[i]);
    for (size_t i = k->ni; i < k->nv; i++) put_g1(f[7], &p->c[i]);
    for (size_t i = 0; i < k->m; i++) put_g1(f[8], &p->h[i]);
    for (int i = 0; i < 64; i++) fputc(0, f[9]); /* circuit hash, then no contributions */
    put_u32(f[9], 0);
    FILE *o = open_memstream(&out, &out_len);
    fwrite("zkey", 1, 4, o), put_u32(o, 1), put_u32(o, 10);
    for (int i = 0; i < 10; i++) {
        fclose(f[i]);
        put_section(o, (uint32_t)i + 1, sec[i], len[i]);
        free(sec[i]);
    }
    fclose(o);
    int rc = out ? cuzk_write_file(path, out, out_len, err)
                 : cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    free(out);
    return rc;
}

int snarkjs_zkey_write_dev(const char *path, const snarkjs_r1cs *r, uint64_t seed, cuzk_err *err)
{
    snarkjs_r1cs_ctx ctx;
    cs_r1cs kg;
    int rc = cs_keygen(&kg, snarkjs_r1cs_circuit(&ctx, r, NULL), err);
    if (rc) return rc;
    groth16_toxic t;
    groth16_dev_toxic(&t, seed);
    zkey_keys k = {.nv = kg.num_inputs + kg.num_aux, .ni = kg.num_inputs};
    zkey_points p = {0};
    rc = compute_keys(&k, &kg, &t, err);
    if (!rc) rc = make_points(&p, &k, &t, err);
    if (!rc) rc = write_zkey(path, r, &k, &p, err);
    points_free(&p);
    free(k.u), free(k.v), free(k.w), free(k.h);
    cs_r1cs_free(&kg);
    memset(&t, 0, sizeof(t));
    return rc;
}
