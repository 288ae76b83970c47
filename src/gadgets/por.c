/*
 * por.c - storage-proofs-core's Merkle inclusion circuits (gadgets/por.rs),
 * see gadgets/por.h.
 *
 * PoRCircuit order: leaf (Root::allocated), then for each level of the
 * base, sub and top sub-paths: the position bits, the siblings, insert,
 * hash (height counted within each sub-path); then all position bits
 * packed into public inputs, the root allocated, the equality, and the
 * root's input unless private. por_no_challenge_input takes everything
 * allocated, consumes the challenge bits level by level (height counted
 * over the whole path) and ends with the equality.
 */
#include "cuzk/gadgets/por.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets/multipack.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/gadgets/select.h"
#include "cuzk/poseidon.h"

/* ---- shapes ---- */

static bool pow2_arity(unsigned a)
{
    return a >= 2 && a <= POR_MAX_ARITY && (a & (a - 1)) == 0;
}

static unsigned log2u(unsigned a)
{
    return (unsigned)__builtin_ctz(a);
}

static bool shape_ok(const por_shape *s)
{
    if (!pow2_arity(s->base_arity)) return false;
    if (s->sub_arity && !pow2_arity(s->sub_arity)) return false;
    if (s->top_arity && (!pow2_arity(s->top_arity) || !s->sub_arity)) return false;
    size_t levels = s->base_levels + !!s->sub_arity + !!s->top_arity;
    return levels <= POR_MAX_LEVELS && levels > 0;
}

size_t por_shape_levels(const por_shape *s)
{
    return shape_ok(s) ? s->base_levels + !!s->sub_arity + !!s->top_arity : 0;
}

unsigned por_shape_arity(const por_shape *s, size_t level)
{
    if (level < s->base_levels) return s->base_arity;
    return level == s->base_levels && s->sub_arity ? s->sub_arity : s->top_arity;
}

size_t por_shape_bits(const por_shape *s)
{
    size_t levels = por_shape_levels(s), bits = 0;
    for (size_t i = 0; i < levels; i++) bits += log2u(por_shape_arity(s, i));
    return bits;
}

/* The height rust-fil-proofs' PoRCircuit passes: the index within the
 * base, sub or top sub-path. */
static size_t subpath_height(const por_shape *s, size_t level)
{
    return level < s->base_levels ? level : 0;
}

/* ---- Poseidon node hash ---- */

static num_var poseidon_node(cs_t *cs, void *ctx, const num_var *children, unsigned arity,
                             size_t height)
{
    (void)ctx, (void)height;
    cuzk_err err;
    const poseidon_constants *c = poseidon_constants_get(arity, POSEIDON_STANDARD, &err);
    if (!c) {
        cs_fail(cs, err.code, "%s", err.msg);
        return children[0];
    }
    return poseidon_gadget_hash(cs, c, children);
}

por_hasher por_poseidon_hasher(void)
{
    return (por_hasher){poseidon_node, NULL};
}

/* ---- one level ---- */

/* insert then hash: the parent of cur among siblings at position bits. */
static num_var insert_hash(cs_t *cs, const por_hasher *h, unsigned arity, const num_var *cur,
                           const bool_var *bits, const num_var *siblings, size_t height)
{
    num_var children[POR_MAX_ARITY];
    if (num_insert(cs, children, cur, bits, log2u(arity), siblings)) return *cur;
    return h->hash(cs, h->ctx, children, arity, height);
}

/* SubPath::synthesize for one path element; bits receives log2(arity) bits. */
static num_var level_alloc_hash(cs_t *cs, const por_hasher *h, unsigned arity, const num_var *cur,
                                const por_level *lvl, size_t height, bool_var *bits)
{
    unsigned nbits = log2u(arity);
    for (unsigned i = 0; i < nbits; i++) bits[i] = bit_alloc(cs, (lvl->index >> i) & 1);
    num_var siblings[POR_MAX_ARITY];
    for (unsigned i = 0; i + 1 < arity; i++)
        siblings[i] = num_alloc(cs, lvl->siblings ? &lvl->siblings[i] : NULL);
    return insert_hash(cs, h, arity, cur, bits, siblings, height);
}

static num_var root_allocated(cs_t *cs, const por_root *r)
{
    return r->allocated ? r->num : num_alloc(cs, r->value);
}

/* ---- traces ahead ---- */

bool por_ahead_paths(por_ahead *pa, const por_shape *s, const fr_t *const *leaves,
                     const por_level *const *paths, size_t n)
{
    pa->mem = NULL;
    size_t levels = por_shape_levels(s), vals = n, len[POR_MAX_LEVELS], at[POR_MAX_LEVELS];
    const poseidon_constants *c[POR_MAX_LEVELS];
    if (!levels || n < 2 || !poseidon_lanes_active()) return false;
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < levels; l++)
            if (!leaves[i] || !paths[i][l].siblings) return false;
    for (size_t l = 0; l < levels; l++) {
        cuzk_err err;
        if (!(c[l] = poseidon_constants_get(por_shape_arity(s, l), POSEIDON_STANDARD, &err)))
            return false;
        len[l] = poseidon_trace_len(c[l]);
        at[l] = vals; /* level l's preimages, then its traces, path by path */
        vals += n * (c[l]->arity + len[l]);
    }
    poseidon_ahead *a = malloc(n * levels * sizeof *a + vals * sizeof(fr_t));
    size_t *next = malloc(n * sizeof *next); /* each path's level to hash */
    if (!a || !next) {
        free(a), free(next);
        return false;
    }
    fr_t *cur = (fr_t *)(a + n * levels); /* then the levels' values, from at[] */
    for (size_t i = 0; i < n; i++) cur[i] = *leaves[i], next[i] = 0;
    /* Batches of up to eight hashes of one arity, from any paths and levels
     * whose node below is known, the lowest levels first: ten paths fill
     * 13 batches, not 20. */
    for (;;) {
        size_t low = levels; /* the lowest level a path has still to hash */
        for (size_t i = 0; i < n; i++)
            if (next[i] < low) low = next[i];
        if (low == levels) break;
        const poseidon_constants *bc = c[low];
        fr_t in[POSEIDON_LANES * POR_MAX_ARITY], *out[POSEIDON_LANES];
        size_t who[POSEIDON_LANES], k = 0;
        for (size_t l1 = low; l1 < levels && k < POSEIDON_LANES; l1++)
            for (size_t i = 0; i < n && k < POSEIDON_LANES; i++) {
                size_t l = next[i];
                if (l != l1 || c[l] != bc) continue;
                unsigned arity = bc->arity;
                fr_t *pre = cur + at[l] + i * arity;
                /* num_insert: cur at its position among the siblings */
                size_t pos = paths[i][l].index & (arity - 1);
                const fr_t *sib = paths[i][l].siblings;
                for (size_t j = 0; j < arity; j++)
                    pre[j] = j < pos ? sib[j] : j == pos ? cur[i] : sib[j - 1];
                memcpy(&in[k * arity], pre, arity * sizeof(fr_t));
                out[k] = cur + at[l] + n * arity + i * len[l];
                a[i * levels + l] = (poseidon_ahead){bc, pre, out[k]};
                who[k++] = i;
            }
        poseidon_trace_lanes(out, bc, in, k);
        for (size_t q = 0; q < k; q++) {
            size_t i = who[q], l = next[i]++;
            cur[i] = out[q][len[l] - 1];
        }
    }
    free(next);
    pa->mem = a;
    poseidon_gadget_ahead(a, n * levels);
    return true;
}

size_t por_ahead_end(por_ahead *pa)
{
    if (!pa->mem) return 0;
    size_t left = poseidon_gadget_ahead_left();
    poseidon_gadget_ahead(NULL, 0);
    free(pa->mem);
    pa->mem = NULL;
    return left;
}

/* ---- circuits ---- */

int por_circuit(cs_t *cs, const por_hasher *h, const por_shape *s, const por_root *leaf,
                const por_level *path, const por_root *root, bool private_root)
{
    size_t levels = por_shape_levels(s);
    if (!levels) return cs_fail(cs, CUZK_EINVAL, "por: invalid tree shape");
    bool_var bits[POR_MAX_LEVELS * 4];
    size_t nbits = 0;
    num_var cur = root_allocated(cs, leaf);
    for (size_t i = 0; i < levels && !cs_status(cs); i++) {
        unsigned arity = por_shape_arity(s, i);
        cur = level_alloc_hash(cs, h, arity, &cur, &path[i], subpath_height(s, i), &bits[nbits]);
        nbits += log2u(arity);
    }
    multipack_pack_into_inputs(cs, bits, nbits);
    num_var rt = root_allocated(cs, root);
    num_enforce_equal(cs, &cur, &rt);
    if (!private_root) num_inputize(cs, &rt);
    return cs_status(cs);
}

int por_no_challenge_input(cs_t *cs, const por_hasher *h, const por_shape *s,
                           const bool_var *challenge_bits, const num_var *leaf,
                           const num_var *siblings, const num_var *root)
{
    size_t levels = por_shape_levels(s);
    if (!levels) return cs_fail(cs, CUZK_EINVAL, "por: invalid tree shape");
    num_var cur = *leaf;
    for (size_t i = 0; i < levels && !cs_status(cs); i++) {
        unsigned arity = por_shape_arity(s, i);
        cur = insert_hash(cs, h, arity, &cur, challenge_bits, siblings, i);
        challenge_bits += log2u(arity);
        siblings += arity - 1;
    }
    num_enforce_equal(cs, &cur, root);
    return cs_status(cs);
}
