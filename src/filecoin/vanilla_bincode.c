/*
 * vanilla_bincode.c - Fallback PoSt and SnapDeals vanilla proofs as Curio
 * sends them: bincode 1.x blobs (bincode::serialize, the default config)
 * of filecoin-proofs' FallbackPoStSectorProof (one per sector) and
 * storage-proofs-update's PartitionProof (one per partition).
 *
 * bincode 1.x with serde: integers little-endian at fixed width (usize as
 * u64), a Vec as a u64 length then its elements, a [u8; 32] as its 32
 * bytes (a tuple: no length), a struct as its fields in declaration order,
 * an enum as its variant index (u32) then the variant's fields, unit
 * (PhantomData) as nothing. So:
 *
 *   FallbackPoStSectorProof { sector_id: u64, comm_r: [u8;32],
 *     vanilla_proof: fallback::Proof { sectors: Vec<SectorProof> } }, the
 *     Vec holding the one SectorProof { inclusion_proofs: Vec<MerkleProof>,
 *     comm_c: [u8;32], comm_r_last: [u8;32] } that
 *     generate_single_vanilla_proof makes (storage-proofs-post
 *     fallback::vanilla_proof)
 *   PartitionProof { comm_c: [u8;32], apex_leafs: Vec<[u8;32]>,
 *     challenge_proofs: Vec<{ proof_r_old, proof_d_new, proof_r_new }> }
 *   MerkleProof = ProofData: u32 0 Single { root, leaf, path } |
 *     1 Sub { base_proof, sub_proof, root, leaf } |
 *     2 Top { base_proof, sub_proof, top_proof, root, leaf }
 *   InclusionPath { path: Vec<PathElement { hashes: Vec<[u8;32]>, index: u64 }> }
 *
 * The readers are as strict as the C1 reader: exact lengths and variants
 * for the sector shape, canonical field elements, path digits below the
 * arity, non-zero commitments, comm_r = Poseidon(comm_c, comm_r_last) for
 * PoSt, consistent roots and positions, and no
 * bytes after the value. Errors name the field path and the byte offset.
 */
#include "vanilla_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ---- */

/* One step of a field path: a name ("comm_r", ".data") and/or an index ("[3]"). */
typedef struct seg {
    const char *name; /* NULL for a bare index */
    long idx;         /* -1 for none */
} seg;

typedef struct bin {
    const uint8_t *p;
    size_t n, off;
    const char *what; /* "PoSt sector proof", "SnapDeals partition proof" */
    cuzk_err *err;
    int failed;
    bool whole;   /* checks of the whole proof: no byte offset to name */
    seg path[16]; /* the field being read, rendered only for an error */
    int depth;
} bin;

/* Appends a step to the field path (cheap: nothing is formatted); returns the mark for pop(). */
static int push(bin *b, const char *name, long idx)
{
    int mark = b->depth;
    if (b->depth < 16) b->path[b->depth++] = (seg){name, idx};
    return mark;
}

static void pop(bin *b, int mark)
{
    b->depth = mark;
}

static void render_path(const bin *b, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < b->depth && n < cap; i++) {
        int k = snprintf(out + n, cap - n, "%s", b->path[i].name ? b->path[i].name : "");
        if (k > 0) n += (size_t)k;
        if (b->path[i].idx >= 0 && n < cap) {
            k = snprintf(out + n, cap - n, "[%ld]", b->path[i].idx);
            if (k > 0) n += (size_t)k;
        }
    }
}

/* Records the first error: "<what> <path>: <msg> (byte N)"; returns the status. */
static int binf(bin *b, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int binf(bin *b, int code, const char *fmt, ...)
{
    if (b->failed) return b->failed;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    char path[200];
    render_path(b, path, sizeof(path));
    if (b->whole)
        cuzk_errf(b->err, code, "%s %s: %s", b->what, path, msg);
    else
        cuzk_errf(b->err, code, "%s %s: %s (byte %zu)", b->what, path, msg, b->off);
    return b->failed = code;
}

static const uint8_t *take(bin *b, size_t n)
{
    if (b->failed) return NULL;
    if (b->n - b->off < n) {
        binf(b, CUZK_ELENGTH, "ends early (%zu bytes left, %zu needed)", b->n - b->off, n);
        return NULL;
    }
    const uint8_t *p = b->p + b->off;
    b->off += n;
    return p;
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static uint64_t rd_u64(bin *b)
{
    const uint8_t *p = take(b, 8);
    return p ? get_le(p, 8) : 0;
}

static void rd_node(bin *b, vanilla_node *v)
{
    size_t at = b->off;
    const uint8_t *p = take(b, 32);
    if (!p) return;
    memcpy(v->b, p, 32);
    if (!vanilla_node_canonical(v)) {
        b->off = at;
        binf(b, CUZK_ENONCANONICAL, "not a canonical field element (>= r)");
    }
}

static void rd_node_at(bin *b, vanilla_node *v, const char *field)
{
    int m = push(b, field, -1);
    rd_node(b, v);
    pop(b, m);
}

static void rd_len(bin *b, uint64_t want)
{
    size_t at = b->off;
    uint64_t n = rd_u64(b);
    if (!b->failed && n != want) {
        b->off = at;
        binf(b, CUZK_ELENGTH, "length %llu, expected %llu", (unsigned long long)n,
             (unsigned long long)want);
    }
}

static void rd_index(bin *b, vanilla_merkle *m, const vanilla_tree *t, unsigned l)
{
    size_t at = b->off;
    uint64_t idx = rd_u64(b);
    if (!b->failed && idx >= t->arity[l]) {
        b->off = at;
        binf(b, CUZK_EINVAL, "%llu is not below the level's arity %u", (unsigned long long)idx,
             t->arity[l]);
    }
    m->index += idx * vanilla_level_weight(t, l);
}

/* InclusionPath {path} over levels [from, from + count) of t, into m. */
static void rd_ipath(bin *b, vanilla_merkle *m, const vanilla_tree *t, unsigned from,
                     unsigned count, const char *field)
{
    int m0 = push(b, field, -1);
    push(b, ".path", -1);
    rd_len(b, count);
    for (unsigned l = from; l < from + count && !b->failed; l++) {
        int m1 = push(b, NULL, l - from);
        push(b, ".hashes", -1);
        unsigned a = t->arity[l];
        rd_len(b, a - 1u);
        vanilla_node *h = m->hashes + vanilla_level_offset(t, l);
        for (unsigned i = 0; i + 1 < a && !b->failed; i++) {
            int m2 = push(b, NULL, i);
            rd_node(b, &h[i]);
            pop(b, m2);
        }
        pop(b, m1);
        push(b, NULL, l - from);
        push(b, ".index", -1);
        rd_index(b, m, t, l);
        pop(b, m1);
    }
    pop(b, m0);
}

static void rd_merkle(bin *b, vanilla_merkle *m, const vanilla_tree *t, const char *tree_name)
{
    int m0 = push(b, ".data", -1);
    size_t at = b->off;
    const uint8_t *p = take(b, 4);
    if (!p) return;
    uint32_t v = (uint32_t)get_le(p, 4);
    int want = vanilla_tree_variant(t);
    if (v != (uint32_t)want) {
        b->off = at;
        binf(b, CUZK_EINVAL, "variant %u, expected %d (%s, %s)", v, want,
             vanilla_variant_names[want], tree_name);
        return;
    }
    m->index = 0;
    static const char *const dotted[3] = {".Single", ".Sub", ".Top"};
    push(b, dotted[want], -1);
    if (want == 0) {
        rd_node_at(b, &m->root, ".root");
        rd_node_at(b, &m->leaf, ".leaf");
        rd_ipath(b, m, t, 0, t->levels, ".path");
    } else {
        rd_ipath(b, m, t, 0, t->base_levels, ".base_proof");
        rd_ipath(b, m, t, t->base_levels, 1, ".sub_proof");
        if (want == 2) rd_ipath(b, m, t, t->base_levels + 1, 1, ".top_proof");
        rd_node_at(b, &m->root, ".root");
        rd_node_at(b, &m->leaf, ".leaf");
    }
    pop(b, m0);
}

static int rd_end(bin *b)
{
    pop(b, 0);
    if (!b->failed && b->off != b->n)
        binf(b, CUZK_ELENGTH, "%zu bytes after the proof", b->n - b->off);
    return b->failed;
}

static int nonzero(bin *b, const vanilla_node *v, const char *name)
{
    if (!b->failed && vanilla_node_is_zero(v)) {
        push(b, name, -1);
        binf(b, CUZK_EINVAL, "all zero");
    }
    return b->failed;
}

/* ---- writing ---- */

typedef struct bout {
    uint8_t *p;
    size_t n, cap;
    int failed;
} bout;

static void wr(bout *o, const void *data, size_t n)
{
    if (o->failed) return;
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 4096;
        while (cap < o->n + n) cap *= 2;
        uint8_t *p = realloc(o->p, cap);
        if (!p) {
            o->failed = 1;
            return;
        }
        o->p = p, o->cap = cap;
    }
    memcpy(o->p + o->n, data, n);
    o->n += n;
}

static void wr_uint(bout *o, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++) b[i] = (uint8_t)(v >> (8 * i));
    wr(o, b, (size_t)bytes);
}

static void wr_ipath(bout *o, const vanilla_merkle *m, const vanilla_tree *t, unsigned from,
                     unsigned count)
{
    wr_uint(o, count, 8);
    for (unsigned l = from; l < from + count; l++) {
        unsigned idx;
        const vanilla_node *h = vanilla_merkle_level(m, t, l, &idx);
        wr_uint(o, t->arity[l] - 1u, 8);
        wr(o, h, (t->arity[l] - 1u) * sizeof(vanilla_node));
        wr_uint(o, idx, 8);
    }
}

static void wr_merkle(bout *o, const vanilla_merkle *m, const vanilla_tree *t)
{
    int v = vanilla_tree_variant(t);
    wr_uint(o, (uint64_t)v, 4);
    if (v == 0) {
        wr(o, &m->root, 32);
        wr(o, &m->leaf, 32);
        wr_ipath(o, m, t, 0, t->levels);
        return;
    }
    wr_ipath(o, m, t, 0, t->base_levels);
    wr_ipath(o, m, t, t->base_levels, 1);
    if (v == 2) wr_ipath(o, m, t, t->base_levels + 1, 1);
    wr(o, &m->root, 32);
    wr(o, &m->leaf, 32);
}

static int wr_done(bout *o, void **blob, size_t *len, cuzk_err *err)
{
    if (o->failed) {
        free(o->p);
        return cuzk_errf(err, CUZK_ENOMEM, "vanilla proof encode: out of memory");
    }
    *blob = o->p;
    *len = o->n;
    return CUZK_OK;
}

/* ---- Fallback PoSt ---- */

int vanilla_post_sector_alloc(vanilla_post_sector *p, int kind, uint64_t sector_size, cuzk_err *err)
{
    memset(p, 0, sizeof(*p));
    const vanilla_shape *s = vanilla_shape_for_size(sector_size);
    if (!s)
        return cuzk_errf(err, CUZK_EINVAL, "PoSt: unsupported sector size %llu",
                         (unsigned long long)sector_size);
    vanilla_tree_r(&p->tree, s);
    p->n_proofs =
        kind == VANILLA_POST_WINNING ? VANILLA_WINNING_CHALLENGES : VANILLA_WINDOW_CHALLENGES;
    return vanilla_post_sector_layout(p, err);
}

int vanilla_post_sector_layout(vanilla_post_sector *p, cuzk_err *err)
{
    p->proofs = calloc(p->n_proofs, sizeof(*p->proofs));
    p->nodes = calloc(p->n_proofs * p->tree.hashes, sizeof(*p->nodes));
    if (!p->proofs || !p->nodes) {
        vanilla_post_sector_free(p);
        return cuzk_errf(err, CUZK_ENOMEM, "PoSt vanilla proof: out of memory");
    }
    for (size_t i = 0; i < p->n_proofs; i++) p->proofs[i].hashes = p->nodes + i * p->tree.hashes;
    return CUZK_OK;
}

void vanilla_post_sector_free(vanilla_post_sector *p)
{
    if (!p) return;
    free(p->proofs);
    free(p->nodes);
    memset(p, 0, sizeof(*p));
}

static int post_check(bin *b, const vanilla_post_sector *p)
{
    b->whole = true;
    if (nonzero(b, &p->comm_r, "comm_r") ||
        nonzero(b, &p->comm_c, "vanilla_proof.sectors[0].comm_c") ||
        nonzero(b, &p->comm_r_last, "vanilla_proof.sectors[0].comm_r_last"))
        return b->failed;
    if (!vanilla_comm_r_matches(&p->comm_r, &p->comm_c, &p->comm_r_last)) {
        push(b, "comm_r", -1);
        return binf(b, CUZK_EINVAL, "not Poseidon(comm_c, comm_r_last)");
    }
    for (size_t i = 0; i < p->n_proofs; i++) {
        if (memcmp(&p->proofs[i].root, &p->comm_r_last, sizeof(vanilla_node))) {
            push(b, "vanilla_proof.sectors[0].inclusion_proofs", (long)i);
            return binf(b, CUZK_EINVAL, "root is not comm_r_last");
        }
    }
    return CUZK_OK;
}

int vanilla_post_sector_parse(vanilla_post_sector *out, int kind, uint64_t sector_size,
                              const void *blob, size_t len, cuzk_err *err)
{
    bool unchecked = (kind & VANILLA_POST_UNCHECKED) != 0;
    int rc = vanilla_post_sector_alloc(out, kind & ~VANILLA_POST_UNCHECKED, sector_size, err);
    if (rc) return rc;
    bin b = {.p = blob, .n = len, .what = "PoSt sector proof", .err = err};
    char tree_name[48];
    snprintf(tree_name, sizeof(tree_name), "tree-R of %s sectors",
             vanilla_shape_for_size(sector_size)->name);
    push(&b, "sector_id", -1);
    out->sector_id = rd_u64(&b);
    pop(&b, 0);
    rd_node_at(&b, &out->comm_r, "comm_r");
    push(&b, "vanilla_proof.sectors", -1);
    rd_len(&b, 1);
    pop(&b, 0);
    push(&b, "vanilla_proof.sectors", 0);
    int s = push(&b, ".inclusion_proofs", -1);
    rd_len(&b, out->n_proofs);
    for (size_t i = 0; i < out->n_proofs && !b.failed; i++) {
        int m = push(&b, NULL, (long)i);
        rd_merkle(&b, &out->proofs[i], &out->tree, tree_name);
        pop(&b, m);
    }
    pop(&b, s);
    rd_node_at(&b, &out->comm_c, ".comm_c");
    rd_node_at(&b, &out->comm_r_last, ".comm_r_last");
    if (rd_end(&b) || (!unchecked && post_check(&b, out))) {
        vanilla_post_sector_free(out);
        return b.failed;
    }
    return CUZK_OK;
}

int vanilla_post_sector_encode(void **blob, size_t *len, const vanilla_post_sector *p,
                               cuzk_err *err)
{
    bout o = {0};
    wr_uint(&o, p->sector_id, 8);
    wr(&o, &p->comm_r, 32);
    wr_uint(&o, 1, 8); /* vanilla_proof.sectors: one SectorProof */
    wr_uint(&o, p->n_proofs, 8);
    for (size_t i = 0; i < p->n_proofs; i++) wr_merkle(&o, &p->proofs[i], &p->tree);
    wr(&o, &p->comm_c, 32);
    wr(&o, &p->comm_r_last, 32);
    return wr_done(&o, blob, len, err);
}

/* ---- SnapDeals ---- */

int vanilla_update_alloc(vanilla_update_partition *p, uint64_t sector_size, cuzk_err *err)
{
    memset(p, 0, sizeof(*p));
    const vanilla_shape *s = vanilla_shape_for_size(sector_size);
    if (!s)
        return cuzk_errf(err, CUZK_EINVAL, "SnapDeals: unsupported sector size %llu",
                         (unsigned long long)sector_size);
    vanilla_tree_r(&p->tree_r, s);
    vanilla_tree_d(&p->tree_d, s);
    p->n_apex = s->update_apex_leafs;
    p->n_challenges = s->update_challenges;
    return vanilla_update_layout(p, err);
}

int vanilla_update_layout(vanilla_update_partition *p, cuzk_err *err)
{
    size_t per = 2 * p->tree_r.hashes + p->tree_d.hashes;
    p->challenges = calloc(p->n_challenges, sizeof(*p->challenges));
    p->nodes = calloc(p->n_apex + p->n_challenges * per, sizeof(*p->nodes));
    if (!p->challenges || !p->nodes) {
        vanilla_update_free(p);
        return cuzk_errf(err, CUZK_ENOMEM, "SnapDeals vanilla proof: out of memory");
    }
    p->apex_leafs = p->nodes;
    vanilla_node *n = p->nodes + p->n_apex;
    for (size_t i = 0; i < p->n_challenges; i++, n += per) {
        p->challenges[i].r_old.hashes = n;
        p->challenges[i].d_new.hashes = n + p->tree_r.hashes;
        p->challenges[i].r_new.hashes = n + p->tree_r.hashes + p->tree_d.hashes;
    }
    return CUZK_OK;
}

void vanilla_update_free(vanilla_update_partition *p)
{
    if (!p) return;
    free(p->challenges);
    free(p->nodes);
    memset(p, 0, sizeof(*p));
}

/* Challenge i against challenge 0: same roots, and one position in all three trees. */
static int update_check(bin *b, const vanilla_update_partition *p)
{
    b->whole = true;
    if (nonzero(b, &p->comm_c, "comm_c")) return b->failed;
    const vanilla_update_challenge *c0 = &p->challenges[0];
    const char *names[3] = {".proof_r_old", ".proof_d_new", ".proof_r_new"};
    for (size_t i = 0; i < p->n_challenges; i++) {
        const vanilla_update_challenge *c = &p->challenges[i];
        const vanilla_merkle *m[3] = {&c->r_old, &c->d_new, &c->r_new};
        const vanilla_merkle *m0[3] = {&c0->r_old, &c0->d_new, &c0->r_new};
        for (int k = 0; k < 3; k++) {
            pop(b, 0);
            push(b, "challenge_proofs", (long)i);
            push(b, names[k], -1);
            if (vanilla_node_is_zero(&m[k]->root)) return binf(b, CUZK_EINVAL, "root is all zero");
            if (memcmp(&m[k]->root, &m0[k]->root, sizeof(vanilla_node)))
                return binf(b, CUZK_EINVAL, "root differs from challenge_proofs[0]'s");
            if (m[k]->index != c->d_new.index)
                return binf(b, CUZK_EINVAL, "leaf position %llu, proof_d_new's is %llu",
                            (unsigned long long)m[k]->index, (unsigned long long)c->d_new.index);
        }
    }
    return CUZK_OK;
}

static void rd_update_challenge(bin *b, vanilla_update_challenge *c,
                                const vanilla_update_partition *p, const char *size, size_t i)
{
    char r_name[48], d_name[48];
    snprintf(r_name, sizeof(r_name), "tree-R of %s sectors", size);
    snprintf(d_name, sizeof(d_name), "tree-D of %s sectors", size);
    int m = push(b, "challenge_proofs", (long)i);
    push(b, ".proof_r_old", -1);
    rd_merkle(b, &c->r_old, &p->tree_r, r_name);
    pop(b, m);
    push(b, "challenge_proofs", (long)i);
    push(b, ".proof_d_new", -1);
    rd_merkle(b, &c->d_new, &p->tree_d, d_name);
    pop(b, m);
    push(b, "challenge_proofs", (long)i);
    push(b, ".proof_r_new", -1);
    rd_merkle(b, &c->r_new, &p->tree_r, r_name);
    pop(b, m);
}

int vanilla_update_parse(vanilla_update_partition *out, uint64_t sector_size, const void *blob,
                         size_t len, cuzk_err *err)
{
    int rc = vanilla_update_alloc(out, sector_size, err);
    if (rc) return rc;
    bin b = {.p = blob, .n = len, .what = "SnapDeals partition proof", .err = err};
    const char *size = vanilla_shape_for_size(sector_size)->name;
    rd_node_at(&b, &out->comm_c, "comm_c");
    push(&b, "apex_leafs", -1);
    rd_len(&b, out->n_apex);
    for (size_t i = 0; i < out->n_apex && !b.failed; i++) {
        int m = push(&b, NULL, (long)i);
        rd_node(&b, &out->apex_leafs[i]);
        pop(&b, m);
    }
    pop(&b, 0);
    push(&b, "challenge_proofs", -1);
    rd_len(&b, out->n_challenges);
    pop(&b, 0);
    for (size_t i = 0; i < out->n_challenges && !b.failed; i++)
        rd_update_challenge(&b, &out->challenges[i], out, size, i);
    if (rd_end(&b) || update_check(&b, out)) {
        vanilla_update_free(out);
        return b.failed;
    }
    return CUZK_OK;
}

int vanilla_update_encode(void **blob, size_t *len, const vanilla_update_partition *p,
                          cuzk_err *err)
{
    bout o = {0};
    wr(&o, &p->comm_c, 32);
    wr_uint(&o, p->n_apex, 8);
    wr(&o, p->apex_leafs, p->n_apex * sizeof(vanilla_node));
    wr_uint(&o, p->n_challenges, 8);
    for (size_t i = 0; i < p->n_challenges; i++) {
        wr_merkle(&o, &p->challenges[i].r_old, &p->tree_r);
        wr_merkle(&o, &p->challenges[i].d_new, &p->tree_d);
        wr_merkle(&o, &p->challenges[i].r_new, &p->tree_r);
    }
    return wr_done(&o, blob, len, err);
}
