/*
 * constants.c - everything Poseidon needs per (arity, strength), built once
 * and cached: neptune v11's PoseidonConstants::new_with_strength.
 *
 * - MDS: the Cauchy matrix m[i][j] = 1/(x_i + y_j) with x_i = i and
 *   y_j = t + j (symmetric), and its inverse.
 * - Sparse factorisation (mds.rs factor_to_sparse_matrices): starting from
 *   C = M, RP times: split C into M' (identity at [0][0], C's lower-right
 *   block) and M'' (first row of C, first column w_hat = C_hat^-1 w, identity
 *   elsewhere) with C = M' M'', keep M'' and continue with C = M M'. The
 *   last C is the pre-sparse matrix; the M'' are used in reverse order.
 * - Compressed round constants (preprocessing.rs): round keys pushed back
 *   through the linear layers so each S-box is followed by one addition;
 *   the partial rounds keep one constant each.
 */
#include "cuzk/poseidon.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poseidon/lanes.h"
#include "poseidon/matrix.h"

void poseidon_constants_free(poseidon_constants *c)
{
    if (!c) return;
    poseidon_lanes_free(c);
    free(c->round_constants);
    free(c->compressed_constants);
    free(c->mds);
    free(c->mds_inv);
    free(c->pre_sparse);
    free(c->sparse_w_hat);
    free(c->sparse_v_rest);
    free(c);
}

static int alloc_arrays(poseidon_constants *c)
{
    size_t t = c->width, rf = c->full_rounds, rp = c->partial_rounds;
    c->round_constants = malloc((rf + rp) * t * sizeof(fr_t));
    c->compressed_constants = malloc((rf * t + rp) * sizeof(fr_t));
    c->mds = malloc(t * t * sizeof(fr_t));
    c->mds_inv = malloc(t * t * sizeof(fr_t));
    c->pre_sparse = malloc(t * t * sizeof(fr_t));
    c->sparse_w_hat = malloc(rp * t * sizeof(fr_t));
    c->sparse_v_rest = malloc(rp * (t - 1) * sizeof(fr_t));
    bool ok = c->round_constants && c->compressed_constants && c->mds && c->mds_inv &&
              c->pre_sparse && c->sparse_w_hat && c->sparse_v_rest;
    return ok ? 0 : CUZK_ENOMEM;
}

static int build_mds(poseidon_constants *c)
{
    size_t t = c->width;
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) {
            fr_t d;
            fr_from_u64(&d, i + t + j);
            fr_inv(&c->mds[i * t + j], &d);
        }
    bool oom;
    if (!pmat_invert(c->mds_inv, c->mds, t, &oom)) return oom ? CUZK_ENOMEM : CUZK_EINVAL;
    return 0;
}

/*
 * One step of the factorisation: M'' of cur into sparse row `row`, and
 * next = M M' (make_prime keeps cur's lower-right block). scratch holds
 * 2 (t-1)^2 + t^2 elements.
 */
static int sparse_step(poseidon_constants *c, const fr_t *cur, fr_t *next, size_t row,
                       fr_t *scratch)
{
    size_t t = c->width, s = t - 1;
    fr_t *hat = scratch, *hat_inv = scratch + s * s, *prime = scratch + 2 * s * s;
    pmat_minor00(hat, cur, t);
    bool oom;
    if (!pmat_invert(hat_inv, hat, s, &oom)) return oom ? CUZK_ENOMEM : CUZK_EINVAL;
    fr_t w[POSEIDON_MAX_WIDTH];
    for (size_t i = 1; i < t; i++) w[i - 1] = cur[i * t];
    fr_t *w_hat = &c->sparse_w_hat[row * t];
    w_hat[0] = cur[0];
    pmat_apply(&w_hat[1], hat_inv, w, s);
    memcpy(&c->sparse_v_rest[row * s], &cur[1], s * sizeof(fr_t));
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++)
            prime[i * t + j] = (i == 0 || j == 0) ? (i == j ? FR_ONE : FR_ZERO) : cur[i * t + j];
    pmat_mul(next, c->mds, prime, t);
    return 0;
}

static int build_sparse(poseidon_constants *c)
{
    size_t t = c->width, s = t - 1, rp = c->partial_rounds;
    fr_t *buf = malloc((2 * t * t + 2 * s * s + t * t) * sizeof(fr_t));
    if (!buf) return CUZK_ENOMEM;
    fr_t *cur = buf, *next = buf + t * t, *scratch = buf + 2 * t * t;
    memcpy(cur, c->mds, t * t * sizeof(fr_t));
    int rc = 0;
    for (size_t r = 0; r < rp && !rc; r++) {
        rc = sparse_step(c, cur, next, rp - 1 - r, scratch);
        fr_t *tmp = cur;
        cur = next;
        next = tmp;
    }
    if (!rc) memcpy(c->pre_sparse, cur, t * t * sizeof(fr_t));
    free(buf);
    return rc;
}

/* out += M^-1 applied to round r's keys; returns the new end. */
static fr_t *push_inverted(const poseidon_constants *c, fr_t *out, size_t r)
{
    pmat_apply(out, c->mds_inv, &c->round_constants[r * c->width], c->width);
    return out + c->width;
}

/* preprocessing.rs compress_round_constants with every partial round
 * preprocessed (neptune's only use). */
static void compress_constants(poseidon_constants *c)
{
    size_t t = c->width, half = c->half_full_rounds, rp = c->partial_rounds;
    const fr_t *rk = c->round_constants;
    fr_t *out = c->compressed_constants;
    memcpy(out, rk, t * sizeof(fr_t)); /* first round keys, added before the S-boxes */
    out += t;
    for (size_t i = 0; i + 1 < half; i++) out = push_inverted(c, out, i + 1);
    /* Walk the partial rounds backwards: invert the accumulated keys, keep
     * component 0 as that round's single key, fold the rest into the round
     * before. */
    size_t final_round = half + rp;
    fr_t acc[POSEIDON_MAX_WIDTH], inv[POSEIDON_MAX_WIDTH];
    memcpy(acc, &rk[final_round * t], t * sizeof(fr_t));
    fr_t *partial_keys = out + t; /* filled last to first */
    for (size_t i = 0; i < rp; i++) {
        pmat_apply(inv, c->mds_inv, acc, t);
        partial_keys[rp - 1 - i] = inv[0];
        inv[0] = FR_ZERO;
        const fr_t *prev = &rk[(final_round - i - 1) * t];
        for (size_t j = 0; j < t; j++) fr_add(&acc[j], &prev[j], &inv[j]);
    }
    pmat_apply(out, c->mds_inv, acc, t);
    out += t + rp;
    for (size_t i = 1; i < half; i++) out = push_inverted(c, out, i + final_round);
}

int poseidon_constants_new(poseidon_constants **out, unsigned arity, int strength, cuzk_err *err)
{
    *out = NULL;
    if (arity < 1 || arity > POSEIDON_MAX_ARITY)
        return cuzk_errf(err, CUZK_EINVAL, "poseidon: arity %u is not in 1..%d", arity,
                         POSEIDON_MAX_ARITY);
    poseidon_constants *c = calloc(1, sizeof(*c));
    if (!c) return cuzk_errf(err, CUZK_ENOMEM, "poseidon constants: out of memory");
    c->arity = arity;
    c->width = arity + 1;
    c->strength = strength;
    int rc = poseidon_round_numbers(c->width, strength, &c->full_rounds, &c->partial_rounds);
    if (rc) {
        free(c);
        return cuzk_errf(err, rc, "poseidon: unknown strength %d", strength);
    }
    c->half_full_rounds = c->full_rounds / 2;
    fr_from_u64(&c->domain_tag, (UINT64_C(1) << arity) - 1);
    rc = alloc_arrays(c);
    if (!rc) {
        poseidon_grain_constants(c->round_constants,
                                 (size_t)(c->full_rounds + c->partial_rounds) * c->width, c->width,
                                 c->full_rounds, c->partial_rounds);
        rc = build_mds(c);
    }
    if (!rc) rc = build_sparse(c);
    if (rc) {
        poseidon_constants_free(c);
        return cuzk_errf(err, rc, "poseidon constants for arity %u: %s", arity,
                         rc == CUZK_ENOMEM ? "out of memory" : "singular matrix");
    }
    compress_constants(c);
    if (poseidon_lanes_build(c)) {
        poseidon_constants_free(c);
        return cuzk_errf(err, CUZK_ENOMEM, "poseidon constants for arity %u: out of memory", arity);
    }
    *out = c;
    return 0;
}

/* ---- the process-wide cache ---- */

static _Atomic(poseidon_constants *) cache[2][POSEIDON_MAX_ARITY + 1];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

const poseidon_constants *poseidon_constants_get(unsigned arity, int strength, cuzk_err *err)
{
    if (arity < 1 || arity > POSEIDON_MAX_ARITY ||
        (strength != POSEIDON_STANDARD && strength != POSEIDON_STRENGTHENED)) {
        cuzk_errf(err, CUZK_EINVAL, "poseidon: no constants for arity %u, strength %d", arity,
                  strength);
        return NULL;
    }
    _Atomic(poseidon_constants *) *slot = &cache[strength][arity];
    poseidon_constants *c = atomic_load_explicit(slot, memory_order_acquire);
    if (c) return c;
    pthread_mutex_lock(&cache_lock);
    c = atomic_load_explicit(slot, memory_order_relaxed);
    if (!c && !poseidon_constants_new(&c, arity, strength, err))
        atomic_store_explicit(slot, c, memory_order_release);
    pthread_mutex_unlock(&cache_lock);
    return c;
}

const poseidon_constants *poseidon_std(unsigned arity)
{
    cuzk_err err;
    const poseidon_constants *c = poseidon_constants_get(arity, POSEIDON_STANDARD, &err);
    if (!c) {
        fprintf(stderr, "cuzk: %s\n", err.msg);
        abort();
    }
    return c;
}

/* Custom-tag constants: few (one per arity and id in use), kept in a list. */
typedef struct custom_entry {
    struct custom_entry *next;
    unsigned arity, id;
    poseidon_constants *c;
} custom_entry;

static custom_entry *custom_list;

static poseidon_constants *custom_build(unsigned arity, unsigned id, cuzk_err *err)
{
    poseidon_constants *c;
    custom_entry *e = malloc(sizeof(*e));
    if (!e) {
        cuzk_errf(err, CUZK_ENOMEM, "poseidon constants: out of memory");
        return NULL;
    }
    if (poseidon_constants_new(&c, arity, POSEIDON_STANDARD, err)) {
        free(e);
        return NULL;
    }
    fr_t two40; /* id * 2^40 */
    fr_from_u64(&two40, UINT64_C(1) << 40);
    fr_from_u64(&c->domain_tag, id);
    fr_mul(&c->domain_tag, &c->domain_tag, &two40);
    *e = (custom_entry){custom_list, arity, id, c};
    custom_list = e;
    return c;
}

const poseidon_constants *poseidon_constants_get_custom(unsigned arity, unsigned id, cuzk_err *err)
{
    if (id < 1 || id > 256) {
        cuzk_errf(err, CUZK_EINVAL, "poseidon: custom domain tag id %u is not in 1..256", id);
        return NULL;
    }
    pthread_mutex_lock(&cache_lock);
    poseidon_constants *c = NULL;
    for (custom_entry *e = custom_list; e && !c; e = e->next)
        if (e->arity == arity && e->id == id) c = e->c;
    if (!c) c = custom_build(arity, id, err);
    pthread_mutex_unlock(&cache_lock);
    return c;
}
