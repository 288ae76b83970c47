/*
 * post_circuit.c - the Fallback PoSt circuit (storage-proofs-post
 * fallback/circuit.rs) and its shapes; public inputs are in
 * post_circuit_inputs.c.
 *
 * Synthesis walks the sectors in order (bellperson's extendable path,
 * which synthesizes chunks of sectors apart and concatenates them, yields
 * the same R1CS). Per sector (Sector::synthesize): comm_r_last, comm_c,
 * comm_r allocated in that order, comm_r inputized, Poseidon-2(comm_c,
 * comm_r_last) and constraint::equal(comm_r, hash); then per challenge
 * PoRCircuit::synthesize with Root::Val(leaf), Root::from_allocated(
 * comm_r_last) and a private root. Values, when there are any, are read
 * from the vanilla proofs' little-endian node bytes just before use.
 *
 * The sectors are independent units of one size (r1cs.h cs_run_units):
 * the prover backend synthesizes them in parallel into the windows
 * sequential synthesis gives them; a sector's size is measured once per
 * shape on a blank sector.
 */
#include "cuzk/filecoin/post_circuit.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets/poseidon.h"
#include "cuzk/poseidon.h"

static unsigned log2_u64(uint64_t v)
{
    unsigned k = 0;
    while (v > 1) v >>= 1, k++;
    return k;
}

static bool pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

int post_shape_make(post_shape *s, uint64_t nodes, unsigned base_arity, unsigned sub_arity,
                    unsigned top_arity, size_t sectors, size_t challenges, cuzk_err *err)
{
    memset(s, 0, sizeof(*s));
    if (!pow2(nodes) || !pow2(base_arity) || base_arity < 2 || (sub_arity && !pow2(sub_arity)) ||
        (top_arity && (!pow2(top_arity) || !sub_arity)) || !sectors || !challenges)
        return cuzk_errf(err, CUZK_EINVAL,
                         "post shape: nodes %llu, arities %u-%u-%u, %zu sectors, %zu challenges",
                         (unsigned long long)nodes, base_arity, sub_arity, top_arity, sectors,
                         challenges);
    unsigned bits = log2_u64(nodes), base_bits = log2_u64(base_arity);
    unsigned upper = (sub_arity ? log2_u64(sub_arity) : 0) + (top_arity ? log2_u64(top_arity) : 0);
    if (bits <= upper || (bits - upper) % base_bits)
        return cuzk_errf(err, CUZK_EINVAL, "post shape: %llu nodes do not fit arities %u-%u-%u",
                         (unsigned long long)nodes, base_arity, sub_arity, top_arity);
    s->nodes = nodes;
    s->sectors = sectors;
    s->challenges = challenges;
    s->tree = (por_shape){base_arity, sub_arity, top_arity, (bits - upper) / base_bits};
    if (!por_shape_levels(&s->tree))
        return cuzk_errf(err, CUZK_EINVAL, "post shape: tree-R of %llu nodes too deep",
                         (unsigned long long)nodes);
    return 0;
}

int post_shape_for_size(post_shape *s, int kind, uint64_t sector_size, cuzk_err *err)
{
    const vanilla_shape *v = vanilla_shape_for_size(sector_size);
    if (!v)
        return cuzk_errf(err, CUZK_EINVAL, "post shape: unsupported sector size %llu",
                         (unsigned long long)sector_size);
    if (kind != VANILLA_POST_WINNING && kind != VANILLA_POST_WINDOW)
        return cuzk_errf(err, CUZK_EINVAL, "post shape: unknown PoSt kind %d", kind);
    bool win = kind == VANILLA_POST_WINNING;
    return post_shape_make(s, v->nodes, 8, v->sub_arity, v->top_arity,
                           win ? POST_WINNING_SECTORS : v->window_sectors,
                           win ? POST_WINNING_CHALLENGES : POST_WINDOW_CHALLENGES, err);
}

size_t post_num_public_inputs(const post_shape *s)
{
    return s->sectors * (1 + s->challenges);
}

/* ---- checking the vanilla proofs against the shape ---- */

static int check_node(const vanilla_node *n, const char *what, size_t i, cuzk_err *err)
{
    if (vanilla_node_canonical(n)) return 0;
    return cuzk_errf(err, CUZK_ENONCANONICAL, "post circuit: sector %zu: %s is not below r", i,
                     what);
}

static int check_tree(const vanilla_tree *t, const por_shape *s, size_t i, cuzk_err *err)
{
    size_t levels = por_shape_levels(s);
    bool ok = t->levels == levels;
    for (size_t l = 0; ok && l < levels; l++) ok = t->arity[l] == por_shape_arity(s, l);
    if (ok) return 0;
    return cuzk_errf(err, CUZK_EINVAL,
                     "post circuit: sector %zu: tree-R path of %u levels does not fit the shape "
                     "(%zu levels, arity %u-%u-%u)",
                     i, t->levels, levels, s->base_arity, s->sub_arity, s->top_arity);
}

/* A sector proof with lo..hi inclusion proofs fitting the shape. */
static int check_sector(const vanilla_post_sector *v, const post_shape *s, size_t i, size_t lo,
                        size_t hi, cuzk_err *err)
{
    if (v->n_proofs < lo || v->n_proofs > hi)
        return cuzk_errf(err, CUZK_EINVAL, "post circuit: sector %zu has %zu proofs, want %zu..%zu",
                         i, v->n_proofs, lo, hi);
    if (check_tree(&v->tree, &s->tree, i, err) || check_node(&v->comm_r, "comm_r", i, err) ||
        check_node(&v->comm_c, "comm_c", i, err) ||
        check_node(&v->comm_r_last, "comm_r_last", i, err))
        return err ? err->code : CUZK_EINVAL;
    for (size_t p = 0; p < v->n_proofs; p++) {
        const vanilla_merkle *m = &v->proofs[p];
        if (m->index >= s->nodes)
            return cuzk_errf(err, CUZK_EINVAL,
                             "post circuit: sector %zu proof %zu: leaf %llu >= %llu", i, p,
                             (unsigned long long)m->index, (unsigned long long)s->nodes);
        if (check_node(&m->leaf, "a leaf", i, err)) return err ? err->code : CUZK_EINVAL;
        for (unsigned h = 0; h < v->tree.hashes; h++)
            if (check_node(&m->hashes[h], "a path node", i, err))
                return err ? err->code : CUZK_EINVAL;
    }
    return 0;
}

int post_circuit_init(post_circuit *pc, int kind, const post_shape *s,
                      const vanilla_post_sector *vanilla, size_t n_vanilla, cuzk_err *err)
{
    post_circuit_blank(pc, s);
    bool win = kind == VANILLA_POST_WINNING;
    if (!win && kind != VANILLA_POST_WINDOW)
        return cuzk_errf(err, CUZK_EINVAL, "post circuit: unknown PoSt kind %d", kind);
    if (!vanilla || !n_vanilla || n_vanilla > s->sectors || (win && n_vanilla != 1))
        return cuzk_errf(err, CUZK_EINVAL, "post circuit: %zu sector proofs for %zu %s sectors",
                         n_vanilla, s->sectors, win ? "winning" : "window");
    if (win && s->challenges != 1)
        return cuzk_errf(
            err, CUZK_EINVAL,
            "post circuit: winning PoSt unrolls into sectors of one challenge, not %zu",
            s->challenges);
    /* Winning: one proof per circuit sector, the last repeated; Window:
     * every sector proof has all its challenges. */
    size_t lo = win ? 1 : s->challenges, hi = win ? s->sectors : s->challenges;
    for (size_t i = 0; i < n_vanilla; i++)
        if (check_sector(&vanilla[i], s, i, lo, hi, err)) return err ? err->code : CUZK_EINVAL;
    pc->kind = kind;
    pc->vanilla = vanilla;
    pc->n_vanilla = n_vanilla;
    return 0;
}

void post_circuit_blank(post_circuit *pc, const post_shape *s)
{
    memset(pc, 0, sizeof(*pc));
    pc->shape = *s;
    pc->kind = VANILLA_POST_WINDOW;
}

/* ---- synthesis ---- */

/* The values of one circuit sector: its vanilla sector and first proof. */
typedef struct sector_src {
    const vanilla_post_sector *v; /* NULL: no values */
    size_t first;
} sector_src;

static sector_src sector_source(const post_circuit *pc, size_t j)
{
    if (!pc->vanilla) return (sector_src){NULL, 0};
    if (pc->kind == VANILLA_POST_WINNING) {
        size_t n = pc->vanilla[0].n_proofs;
        return (sector_src){&pc->vanilla[0], j < n ? j : n - 1};
    }
    return (sector_src){&pc->vanilla[j < pc->n_vanilla ? j : pc->n_vanilla - 1], 0};
}

/* A node's value into *out; NULL when there are no values. */
static const fr_t *node_value(cs_t *cs, fr_t *out, const vanilla_node *n)
{
    if (!n) return NULL;
    if (!fr_from_bytes_le(out, n->b)) cs_fail(cs, CUZK_ENONCANONICAL, "post: node not below r");
    return out;
}

/* Proof p's path as its values: the leaf (NULL: blank) and the levels. */
typedef struct challenge_path {
    por_level path[POR_MAX_LEVELS];
    fr_t sib[VANILLA_MAX_LEVELS * (POR_MAX_ARITY - 1)], leaf_v;
    const fr_t *leaf;
} challenge_path;

static void challenge_values(cs_t *cs, challenge_path *cp, const post_shape *s,
                             const sector_src *src, size_t p)
{
    size_t levels = por_shape_levels(&s->tree);
    const vanilla_merkle *m = src->v ? &src->v->proofs[src->first + p] : NULL;
    for (size_t l = 0, off = 0; l < levels; l++) {
        cp->path[l] = (por_level){0, NULL};
        if (!m) continue;
        unsigned idx, arity = por_shape_arity(&s->tree, l);
        const vanilla_node *h = vanilla_merkle_level(m, &src->v->tree, (unsigned)l, &idx);
        for (unsigned k = 0; k + 1 < arity; k++) node_value(cs, &cp->sib[off + k], &h[k]);
        cp->path[l] = (por_level){idx, &cp->sib[off]};
        off += arity - 1;
    }
    cp->leaf = node_value(cs, &cp->leaf_v, m ? &m->leaf : NULL);
}

/* PoRCircuit for a proof's path (blank when it has no values). */
static int challenge_synthesize(cs_t *cs, const post_shape *s, const challenge_path *cp,
                                const num_var *comm_r_last)
{
    por_root leaf = {false, {{0, 0}, {{0}}}, cp->leaf};
    por_root root = {true, *comm_r_last, NULL};
    por_hasher h = por_poseidon_hasher();
    return por_circuit(cs, &h, &s->tree, &leaf, cp->path, &root, true);
}

/* The sector's proofs' paths, their hashes traced ahead where that pays
 * (por_ahead_paths: Window PoSt's ten paths level by level in the IFMA
 * lanes), then each proof's circuit. */
static int challenges_synthesize(cs_t *cs, const post_shape *s, const sector_src *src,
                                 const num_var *comm_r_last)
{
    size_t n = s->challenges;
    bool ahead = n > 1 && src->v && cs_needs_values(cs);
    challenge_path one, *cps = ahead ? malloc(n * sizeof *cps) : NULL;
    const fr_t **leaves = cps ? malloc(n * sizeof *leaves) : NULL;
    const por_level **paths = leaves ? malloc(n * sizeof *paths) : NULL;
    por_ahead pa = {NULL};
    if (paths) {
        for (size_t p = 0; p < n; p++) {
            challenge_values(cs, &cps[p], s, src, p);
            leaves[p] = cps[p].leaf, paths[p] = cps[p].path;
        }
        if (!cs_status(cs)) por_ahead_paths(&pa, &s->tree, leaves, paths, n);
    }
    for (size_t p = 0; p < n && !cs_status(cs); p++) {
        if (!paths) challenge_values(cs, &one, s, src, p); /* one at a time */
        challenge_synthesize(cs, s, paths ? &cps[p] : &one, comm_r_last);
    }
    por_ahead_end(&pa);
    free(paths), free(leaves), free(cps);
    return cs_status(cs);
}

static int sector_synthesize(cs_t *cs, const post_shape *s, const sector_src *src)
{
    const vanilla_post_sector *v = src->v;
    fr_t r_last, c, r;
    num_var nums[2];
    num_var comm_r_last = num_alloc(cs, node_value(cs, &r_last, v ? &v->comm_r_last : NULL));
    num_var comm_c = num_alloc(cs, node_value(cs, &c, v ? &v->comm_c : NULL));
    num_var comm_r = num_alloc(cs, node_value(cs, &r, v ? &v->comm_r : NULL));
    num_inputize(cs, &comm_r);
    nums[0] = comm_c;
    nums[1] = comm_r_last;
    num_var hash = poseidon_gadget_hash(cs, poseidon_std(2), nums);
    num_enforce_equal(cs, &comm_r, &hash);
    return challenges_synthesize(cs, s, src, &comm_r_last);
}

typedef struct sector_units {
    const post_circuit *pc;
    bool blank; /* measuring: no values */
} sector_units;

/* cs_unit_fn: sector j. */
static int sector_unit(cs_t *cs, size_t j, void *ctx)
{
    const sector_units *u = ctx;
    sector_src src = u->blank ? (sector_src){NULL, 0} : sector_source(u->pc, j);
    return sector_synthesize(cs, &u->pc->shape, &src);
}

static int post_synthesize(cs_t *cs, void *ctx)
{
    const post_circuit *pc = ctx;
    const post_shape *s = &pc->shape;
    /* the memo key: "post-sec", then what a sector's size depends on */
    uint64_t key[5] = {0x706f73742d736563, s->challenges,
                       (uint64_t)s->tree.base_arity << 32 | s->tree.sub_arity, s->tree.top_arity,
                       s->tree.base_levels};
    sector_units blank = {pc, true}, full = {pc, false};
    cs_run_units_auto(cs, s->sectors, key, sizeof(key), sector_unit, &blank, &full);
    return cs_status(cs);
}

cs_circuit post_circuit_get(post_circuit *pc)
{
    return (cs_circuit){post_synthesize, pc};
}
