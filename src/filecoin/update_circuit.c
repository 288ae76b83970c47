/*
 * update_circuit.c - EmptySectorUpdateCircuit::synthesize
 * (storage-proofs-update circuit.rs, gadgets.rs) in the same order of
 * allocations and constraints: the public inputs and the k / h_select
 * bits, phi, the private commitments and the apex tree (apex_por), the
 * challenge bits of every digest (gen_challenge_bits), then per challenge
 * rho, the new label and the three inclusion proofs. Shapes, public
 * inputs, checks and the native phi / rho / challenges are in
 * update_circuit_shape.c.
 *
 * The EmptySectorUpdate-Poseidon variant (poseidon/circuit.rs) is the same
 * walk without the packed partition, the apex tree and the apex selection:
 * an allocated zero stands for the partition in gen_challenge_bits, and
 * tree-D-new is proven with tree-R's Poseidon shape up to comm_d_new.
 *
 * Values are taken from the vanilla partition proof when there is one;
 * derived values (digest indexes, selected high bits, labels) follow the
 * tracked values of the gadgets, which are zero in a blank circuit.
 *
 * The challenges are independent units of one size (r1cs.h cs_run_units):
 * the prover backend synthesizes them in parallel into the windows
 * sequential synthesis gives them, each on its own copy of the upd; a
 * challenge's size is measured once per shape on a blank challenge.
 */
#include "cuzk/filecoin/update_circuit.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets/boolean.h"
#include "cuzk/gadgets/multipack.h"
#include "cuzk/gadgets/num.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/gadgets/select.h"
#include "cuzk/poseidon.h"

/* Everything the per-challenge part reads. */
typedef struct upd {
    cs_t *cs;
    const update_shape *s;
    const vanilla_update_partition *v; /* NULL: blank */
    const poseidon_constants *gen;     /* HashType::Custom(Arbitrary(1)), arity 2 */
    bool_var kh_bits[32];              /* k bits then h_select bits */
    num_var phi, comm_d, root_r_old, root_r_new;
    num_var *apex_leafs;
    bool_var *digest_bits; /* 255 per digest */
} upd;

static const fr_t *node_value(cs_t *cs, fr_t *out, const vanilla_node *n)
{
    if (!n) return NULL;
    if (!fr_from_bytes_le(out, n->b)) cs_fail(cs, CUZK_ENONCANONICAL, "update: node not below r");
    return out;
}

/* An aux number from a vanilla node (NULL node: no value). */
static num_var alloc_node(cs_t *cs, const vanilla_node *n)
{
    fr_t v;
    return num_alloc(cs, node_value(cs, &v, n));
}

/* (sum 2^i bits_i) * ONE = num, over allocated bits. */
static void enforce_decomp(cs_t *cs, const bool_var *bits, size_t n, const num_var *num)
{
    if (cs_skip_constraint(cs)) return;
    cs_lc a = {0}, b = {0}, c = {0};
    fr_t pow2 = FR_ONE;
    for (size_t i = 0; i < n; i++) {
        lc_add_term(&a, bool_cs_var(bits[i]), &pow2);
        fr_dbl(&pow2, &pow2);
    }
    lc_add_var(&b, cs_one());
    lc_add_var(&c, num->var);
    cs_enforce(cs, &a, &b, &c);
    lc_free(&a);
    lc_free(&b);
    lc_free(&c);
}

/* a * ONE = c for combinations given as variables summed. */
static void enforce_sum_is(cs_t *cs, const num_var *terms, size_t n, const num_var *result)
{
    if (cs_skip_constraint(cs)) return;
    cs_lc a = {0}, b = {0}, c = {0};
    for (size_t i = 0; i < n; i++) lc_add_var(&a, terms[i].var);
    lc_add_var(&b, cs_one());
    lc_add_var(&c, result->var);
    cs_enforce(cs, &a, &b, &c);
    lc_free(&a);
    lc_free(&b);
    lc_free(&c);
}

static num_var hash_gen(upd *u, const num_var *x, const num_var *y)
{
    num_var pre[2] = {*x, *y};
    return poseidon_gadget_hash(u->cs, u->gen, pre);
}

/* ---- the partition part ---- */

/* k_and_h_select (h_select in the Poseidon variant): alloc, inputize,
 * bits, decomposition. */
static void k_and_h_select(upd *u, const fr_t *value)
{
    cs_t *cs = u->cs;
    num_var kh = num_alloc(cs, value);
    num_inputize(cs, &kh);
    unsigned n = u->s->partition_bits + UPDATE_HS;
    uint64_t limbs[FR_LIMBS] = {0};
    fr_to_canonical(limbs, &kh.value);
    for (unsigned i = 0; i < n; i++) u->kh_bits[i] = bit_alloc(cs, (limbs[0] >> i) & 1);
    enforce_decomp(cs, u->kh_bits, n, &kh);
}

/* apex_por: the apex tree over the leaves, then its root under comm_d. */
static void apex_por(upd *u, const num_var *partition_path, const num_var *comm_d)
{
    cs_t *cs = u->cs;
    size_t n = u->s->apex_leafs;
    num_var *row = malloc(n * sizeof(num_var));
    if (!row) {
        cs_fail(cs, CUZK_ENOMEM, "update: apex tree of %zu leaves", n);
        return;
    }
    memcpy(row, u->apex_leafs, n * sizeof(num_var));
    por_hasher sha = por_sha256_hasher();
    for (; n > 1 && !cs_status(cs); n /= 2)
        for (size_t i = 0; i < n / 2; i++) row[i] = sha.hash(cs, sha.ctx, &row[2 * i], 2, 0);
    num_var root = row[0];
    free(row);
    if (u->s->partition_bits == 0) {
        num_enforce_equal(cs, &root, comm_d);
        return;
    }
    por_shape tree_d = {2, 0, 0, u->s->partition_bits};
    por_no_challenge_input(cs, &sha, &tree_d, u->kh_bits, &root, partition_path, comm_d);
}

/* gen_challenge_bits: per digest j, digest_index = k * digests + j, the
 * digest H(comm_r_new || digest_index) and its 255 bits. */
static size_t digests_per_partition(const update_shape *s)
{
    size_t per = FR_CAPACITY / (s->challenge_bits - s->partition_bits);
    return (s->challenges + per - 1) / per;
}

static void gen_challenge_bits(upd *u, const num_var *comm_r_new, const num_var *partition)
{
    cs_t *cs = u->cs;
    size_t digests = digests_per_partition(u->s);
    fr_t fd, fj;
    fr_from_u64(&fd, digests);
    for (size_t j = 0; j < digests && !cs_status(cs); j++) {
        fr_t idx;
        fr_from_u64(&fj, j);
        fr_mul(&idx, &partition->value, &fd);
        fr_add(&idx, &idx, &fj);
        num_var di = num_alloc(cs, &idx);
        if (!cs_skip_constraint(cs)) {
            cs_lc a = {0}, b = {0}, c = {0};
            lc_add_term(&a, partition->var, &fd);
            lc_add_term(&a, cs_one(), &fj);
            lc_add_var(&b, cs_one());
            lc_add_var(&c, di.var);
            cs_enforce(cs, &a, &b, &c);
            lc_free(&a);
            lc_free(&b);
            lc_free(&c);
        }
        num_var digest = hash_gen(u, comm_r_new, &di);
        bool_var *bits = &u->digest_bits[j * FR_NUM_BITS];
        bool_alloc_fr_le(cs, bits, cs_needs_values(cs) ? &digest.value : NULL);
        enforce_decomp(cs, bits, FR_NUM_BITS, &digest);
    }
}

/* ---- per challenge ---- */

/* get_challenge_high_bits: dot(hs-high values, h_select bits). */
static num_var challenge_high(upd *u, const bool_var *c_bits)
{
    cs_t *cs = u->cs;
    const bool_var *hsel = &u->kh_bits[u->s->partition_bits];
    num_var ors[UPDATE_HS];
    fr_t sum = FR_ZERO;
    for (unsigned k = 0; k < UPDATE_HS; k++) {
        unsigned h = u->s->hs[k];
        num_var high = multipack_pack_bits(cs, &c_bits[u->s->challenge_bits - h], h);
        ors[k] = num_alloc(cs, hsel[k].value ? &high.value : &FR_ZERO);
        if (!cs_skip_constraint(cs)) {
            cs_lc a = {0}, b = {0}, c = {0};
            lc_add_var(&a, high.var);
            lc_add_var(&b, bool_cs_var(hsel[k]));
            lc_add_var(&c, ors[k].var);
            cs_enforce(cs, &a, &b, &c);
            lc_free(&a);
            lc_free(&b);
            lc_free(&c);
        }
        fr_add(&sum, &sum, &ors[k].value);
    }
    num_var selected = num_alloc(cs, &sum);
    enforce_sum_is(cs, ors, UPDATE_HS, &selected);
    return selected;
}

/* label_r_new: label_d_new * rho, then (r_old + d_new_rho) * ONE = r_new. */
static num_var label_r_new(upd *u, const num_var *r_old, const num_var *d_new, const num_var *rho)
{
    num_var prod = num_mul(u->cs, d_new, rho);
    fr_t v;
    fr_add(&v, &r_old->value, &prod.value);
    num_var r_new = num_alloc(u->cs, &v);
    num_var terms[2] = {*r_old, prod};
    enforce_sum_is(u->cs, terms, 2, &r_new);
    return r_new;
}

/* Allocates the siblings of m's first `levels` levels (NULL m: blank). */
static void alloc_path(cs_t *cs, num_var *out, const vanilla_merkle *m, const vanilla_tree *t,
                       const por_shape *s, size_t levels)
{
    for (size_t l = 0; l < levels; l++) {
        unsigned idx, arity = por_shape_arity(s, l);
        const vanilla_node *h = m ? vanilla_merkle_level(m, t, (unsigned)l, &idx) : NULL;
        for (unsigned k = 0; k + 1 < arity; k++) *out++ = alloc_node(cs, h ? &h[k] : NULL);
    }
}

static void check_label(upd *u, const num_var *r_new, const vanilla_update_challenge *ch, size_t i)
{
    fr_t want;
    if (!ch || !cs_needs_values(u->cs) || !fr_from_bytes_le(&want, ch->r_new.leaf.b)) return;
    if (!fr_eq(&want, &r_new->value))
        cs_fail(u->cs, CUZK_EINVAL, "update: challenge %zu: leaf_r_new is not the encoding", i);
}

static void challenge(upd *u, size_t i, const bool_var *c_bits)
{
    cs_t *cs = u->cs;
    const update_shape *s = u->s;
    const vanilla_update_challenge *ch = u->v ? &u->v->challenges[i] : NULL;
    num_var high = challenge_high(u, c_bits);
    num_var rho = hash_gen(u, &u->phi, &high);
    num_var leaf_r_old = alloc_node(cs, ch ? &ch->r_old.leaf : NULL);
    num_var leaf_d_new = alloc_node(cs, ch ? &ch->d_new.leaf : NULL);
    num_var leaf_r_new = label_r_new(u, &leaf_r_old, &leaf_d_new, &rho);
    check_label(u, &leaf_r_new, ch, i);
    por_hasher poseidon = por_poseidon_hasher(), sha = por_sha256_hasher();
    size_t levels = por_shape_levels(&s->tree_r);
    num_var sib[POR_MAX_LEVELS * (POR_MAX_ARITY - 1)];
    alloc_path(cs, sib, ch ? &ch->r_old : NULL, u->v ? &u->v->tree_r : NULL, &s->tree_r, levels);
    por_no_challenge_input(cs, &poseidon, &s->tree_r, c_bits, &leaf_r_old, sib, &u->root_r_old);
    alloc_path(cs, sib, ch ? &ch->r_new : NULL, u->v ? &u->v->tree_r : NULL, &s->tree_r, levels);
    por_no_challenge_input(cs, &poseidon, &s->tree_r, c_bits, &leaf_r_new, sib, &u->root_r_new);
    size_t to_apex = s->challenge_bits - s->partition_bits - s->apex_bits;
    const vanilla_tree *td = u->v ? &u->v->tree_d : NULL;
    if (s->poseidon) { /* tree-D-new has tree-R's shape, up to comm_d_new */
        alloc_path(cs, sib, ch ? &ch->d_new : NULL, td, &s->tree_r, levels);
        por_no_challenge_input(cs, &poseidon, &s->tree_r, c_bits, &leaf_d_new, sib, &u->comm_d);
        return;
    }
    num_var apex = num_select(cs, u->apex_leafs, &c_bits[to_apex], s->apex_bits);
    por_shape tree_d = {2, 0, 0, to_apex};
    alloc_path(cs, sib, ch ? &ch->d_new : NULL, td, &tree_d, to_apex);
    por_no_challenge_input(cs, &sha, &tree_d, c_bits, &leaf_d_new, sib, &apex);
}

typedef struct challenge_units {
    const upd *u;
    bool blank; /* measuring: no values */
} challenge_units;

/* cs_unit_fn: challenge i on a copy of the upd. */
static int challenge_unit(cs_t *cs, size_t i, void *ctx)
{
    const challenge_units *x = ctx;
    upd u = *x->u;
    u.cs = cs;
    if (x->blank) u.v = NULL;
    const update_shape *s = u.s;
    size_t rand_bits = s->challenge_bits - s->partition_bits;
    size_t per = FR_CAPACITY / rand_bits;
    bool_var c_bits[64];
    memcpy(c_bits, &u.digest_bits[i / per * FR_NUM_BITS + i % per * rand_bits],
           rand_bits * sizeof(bool_var));
    memcpy(&c_bits[rand_bits], u.kh_bits, s->partition_bits * sizeof(bool_var));
    challenge(&u, i, c_bits);
    return cs_status(cs);
}

/* Every challenge, as units. */
static void challenges(upd *u)
{
    const update_shape *s = u->s;
    const por_shape *r = &s->tree_r;
    /* the memo key: "upd-chal", then what a challenge's size depends on */
    uint64_t key[8] = {0x7570642d6368616c,
                       (uint64_t)s->challenge_bits << 32 | s->partition_bits,
                       (uint64_t)s->apex_bits << 32 | s->poseidon,
                       0,
                       (uint64_t)r->base_arity << 32 | r->sub_arity,
                       r->top_arity,
                       r->base_levels,
                       s->challenges};
    for (unsigned k = 0; k < UPDATE_HS; k++) key[3] |= (uint64_t)(s->hs[k] & 0xff) << (8 * k);
    challenge_units blank = {u, true}, full = {u, false};
    cs_run_units_auto(u->cs, s->challenges, key, sizeof(key), challenge_unit, &blank, &full);
}

/* ---- the whole circuit ---- */

/* comm_c (returned), the roots, apex leaves and the partition path
 * (challenge 0's tree-D path above the apex roots). */
static num_var alloc_private(upd *u, num_var *partition_path)
{
    cs_t *cs = u->cs;
    const vanilla_update_partition *v = u->v;
    const vanilla_update_challenge *c0 = v ? &v->challenges[0] : NULL;
    num_var comm_c = alloc_node(cs, v ? &v->comm_c : NULL);
    u->root_r_old = alloc_node(cs, c0 ? &c0->r_old.root : NULL);
    u->root_r_new = alloc_node(cs, c0 ? &c0->r_new.root : NULL);
    for (size_t i = 0; i < u->s->apex_leafs; i++)
        u->apex_leafs[i] = alloc_node(cs, v ? &v->apex_leafs[i] : NULL);
    unsigned first = u->s->challenge_bits - u->s->partition_bits, idx;
    for (unsigned l = 0; l < u->s->partition_bits; l++) {
        const vanilla_node *h =
            c0 ? vanilla_merkle_level(&c0->d_new, &v->tree_d, first + l, &idx) : NULL;
        partition_path[l] = alloc_node(cs, h);
    }
    return comm_c;
}

static void commitments(upd *u, const num_var *comm_c, const num_var *comm_r_old,
                        const num_var *comm_r_new)
{
    num_var pre[2] = {*comm_c, u->root_r_old};
    num_var calc = poseidon_gadget_hash(u->cs, poseidon_std(2), pre);
    num_enforce_equal(u->cs, &calc, comm_r_old);
    pre[1] = u->root_r_new;
    calc = poseidon_gadget_hash(u->cs, poseidon_std(2), pre);
    num_enforce_equal(u->cs, &calc, comm_r_new);
}

static void synthesize_all(upd *u, const update_circuit *uc)
{
    cs_t *cs = u->cs;
    const update_shape *s = u->s;
    const fr_t *in = u->v ? uc->inputs : NULL;
    k_and_h_select(u, in ? &in[0] : NULL);
    num_var partition = {{0, 0}, {{0}}};
    if (!s->poseidon) partition = multipack_pack_bits(cs, u->kh_bits, s->partition_bits);
    num_var comm[3];
    for (int i = 0; i < 3; i++) {
        comm[i] = num_alloc(cs, in ? &in[1 + i] : NULL);
        num_inputize(cs, &comm[i]);
    }
    u->comm_d = comm[1];
    u->phi = hash_gen(u, &comm[1], &comm[0]);
    num_var path[32];
    num_var comm_c = alloc_private(u, path);
    commitments(u, &comm_c, &comm[0], &comm[2]);
    if (s->poseidon) /* gen_challenge_bits over an allocated zero partition */
        partition = num_alloc(cs, &FR_ZERO);
    else
        apex_por(u, path, &comm[1]);
    gen_challenge_bits(u, &comm[2], &partition);
    challenges(u);
}

static int update_synthesize(cs_t *cs, void *ctx)
{
    const update_circuit *uc = ctx;
    cuzk_err e;
    upd u = {.cs = cs, .s = &uc->shape, .v = uc->vanilla};
    u.gen = poseidon_constants_get_custom(2, 1, &e);
    if (!u.gen) return cs_fail(cs, e.code, "update: %s", e.msg);
    u.apex_leafs = malloc((uc->shape.apex_leafs + 1) * sizeof(num_var)); /* + 1: never 0 */
    u.digest_bits = malloc(digests_per_partition(&uc->shape) * FR_NUM_BITS * sizeof(bool_var));
    if (u.apex_leafs && u.digest_bits)
        synthesize_all(&u, uc);
    else
        cs_fail(cs, CUZK_ENOMEM, "update: circuit state");
    free(u.apex_leafs);
    free(u.digest_bits);
    return cs_status(cs);
}

cs_circuit update_circuit_get(update_circuit *uc)
{
    return (cs_circuit){update_synthesize, uc};
}
