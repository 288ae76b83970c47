/*
 * update_circuit_shape.c - the Empty Sector Update shapes
 * (storage-proofs-update constants.rs: partition_count, challenge_count,
 * hs, apex_leaf_count, validate_tree_r_shape), its public inputs
 * (circuit::PublicInputs::new), the checks made before synthesis (the
 * circuit's own asserts, plus geometry and canonical values), and the
 * native phi, rho and Challenges of vanilla.rs and challenges.rs.
 */
#include "cuzk/filecoin/update_circuit.h"

#include <string.h>

#include "cuzk/gadgets/multieq.h"
#include "cuzk/poseidon.h"

/* ALLOWED_SECTOR_SIZES in nodes, with validate_tree_r_shape's sub / top
 * arities (the base arity is always 8). */
static const struct {
    unsigned log2_nodes, sub, top;
} SIZES[] = {
    {5, 4, 0},  /* 1KiB */
    {6, 0, 0},  /* 2KiB */
    {7, 2, 0},  /* 4KiB */
    {8, 4, 0},  /* 8KiB */
    {9, 8, 0},  /* 16KiB */
    {10, 8, 2}, /* 32KiB */
    {18, 0, 0}, /* 8MiB */
    {19, 2, 0}, /* 16MiB */
    {24, 0, 0}, /* 512MiB */
    {30, 8, 0}, /* 32GiB */
    {31, 8, 2}, /* 64GiB */
};

static unsigned log2u(unsigned v)
{
    unsigned k = 0;
    while (v > 1) v >>= 1, k++;
    return k;
}

static void fill_shape(update_shape *s, unsigned bits, unsigned sub, unsigned top)
{
    uint64_t n = 1ull << bits;
    s->nodes = n;
    s->challenge_bits = bits;
    s->partitions = n <= 1u << 8 ? 1 : n <= 1u << 10 ? 2 : n <= 1u << 19 ? 4 : 16;
    s->partition_bits = log2u(s->partitions);
    s->challenges = n <= 1u << 19 ? 10 : 86;
    s->apex_leafs = n <= 1u << 8 ? 8 : 128;
    s->apex_bits = log2u(s->apex_leafs);
    for (unsigned i = 0; i < UPDATE_HS; i++) s->hs[i] = n <= 1u << 10 ? 1 : 7 + i;
    unsigned upper = (sub ? log2u(sub) : 0) + (top ? log2u(top) : 0);
    s->tree_r = (por_shape){8, sub, top, (bits - upper) / 3};
}

int update_shape_for_size(update_shape *s, uint64_t sector_size, cuzk_err *err)
{
    memset(s, 0, sizeof(*s));
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++)
        if (sector_size == 32ull << SIZES[i].log2_nodes) {
            fill_shape(s, SIZES[i].log2_nodes, SIZES[i].sub, SIZES[i].top);
            return 0;
        }
    return cuzk_errf(err, CUZK_EINVAL, "update shape: sector size %llu is not allowed",
                     (unsigned long long)sector_size);
}

int update_shape_for_size_poseidon(update_shape *s, uint64_t sector_size, cuzk_err *err)
{
    int rc = update_shape_for_size(s, sector_size, err);
    if (rc) return rc;
    s->challenges *= s->partitions; /* challenge_count_poseidon */
    s->partitions = 1;
    s->partition_bits = 0;
    s->apex_leafs = 0;
    s->apex_bits = 0;
    s->poseidon = true;
    return 0;
}

/* ---- public inputs ---- */

static int node_fr(fr_t *out, const vanilla_node *n, const char *what, cuzk_err *err)
{
    if (fr_from_bytes_le(out, n->b)) return 0;
    return cuzk_errf(err, CUZK_ENONCANONICAL, "update: %s is not below r", what);
}

int update_public_inputs(fr_t out[UPDATE_PUBLIC_INPUTS], const update_shape *s,
                         const update_public *pub, cuzk_err *err)
{
    if (pub->k >= s->partitions)
        return cuzk_errf(err, CUZK_EINVAL, "update inputs: partition %llu of %u",
                         (unsigned long long)pub->k, s->partitions);
    unsigned i = 0;
    while (i < UPDATE_HS && s->hs[i] != pub->h) i++;
    if (i == UPDATE_HS)
        return cuzk_errf(err, CUZK_EINVAL, "update inputs: h = %u is not allowed (hs %u..%u)",
                         pub->h, s->hs[0], s->hs[UPDATE_HS - 1]);
    fr_from_u64(&out[0], pub->k | (1ull << i) << s->partition_bits);
    if (node_fr(&out[1], &pub->comm_r_old, "comm_r_old", err) ||
        node_fr(&out[2], &pub->comm_d_new, "comm_d_new", err) ||
        node_fr(&out[3], &pub->comm_r_new, "comm_r_new", err))
        return err ? err->code : CUZK_ENONCANONICAL;
    return 0;
}

/* ---- checks ---- */

static bool tree_fits(const vanilla_tree *t, const por_shape *s)
{
    size_t levels = por_shape_levels(s);
    if (t->levels != levels) return false;
    for (size_t l = 0; l < levels; l++)
        if (t->arity[l] != por_shape_arity(s, l)) return false;
    return true;
}

static int check_merkle(const vanilla_merkle *m, const vanilla_tree *t, const char *what, size_t i,
                        cuzk_err *err)
{
    bool ok = vanilla_node_canonical(&m->leaf) && vanilla_node_canonical(&m->root);
    for (unsigned h = 0; ok && h < t->hashes; h++) ok = vanilla_node_canonical(&m->hashes[h]);
    if (ok) return 0;
    return cuzk_errf(err, CUZK_ENONCANONICAL, "update circuit: challenge %zu: %s has a node >= r",
                     i, what);
}

/* Every challenge's tree-D path above the apex roots equals challenge 0's. */
static int check_partition_path(const vanilla_update_partition *v, const update_shape *s,
                                cuzk_err *err)
{
    unsigned first = s->challenge_bits - s->partition_bits, idx;
    for (size_t i = 1; i < v->n_challenges; i++)
        for (unsigned l = first; l < s->challenge_bits; l++) {
            const vanilla_node *a =
                vanilla_merkle_level(&v->challenges[0].d_new, &v->tree_d, l, &idx);
            const vanilla_node *b =
                vanilla_merkle_level(&v->challenges[i].d_new, &v->tree_d, l, &idx);
            if (memcmp(a, b, sizeof(*a)))
                return cuzk_errf(
                    err, CUZK_EINVAL,
                    "update circuit: challenge %zu: partition path differs at level %u", i, l);
        }
    return 0;
}

static int check_vanilla(const vanilla_update_partition *v, const update_shape *s, cuzk_err *err)
{
    if (v->n_apex != s->apex_leafs || v->n_challenges != s->challenges)
        return cuzk_errf(err, CUZK_EINVAL,
                         "update circuit: %zu apex leaves and %zu challenges, want %u and %u",
                         v->n_apex, v->n_challenges, s->apex_leafs, s->challenges);
    por_shape tree_d = s->poseidon ? s->tree_r : (por_shape){2, 0, 0, s->challenge_bits};
    if (!tree_fits(&v->tree_r, &s->tree_r) || !tree_fits(&v->tree_d, &tree_d))
        return cuzk_errf(err, CUZK_EINVAL, "update circuit: tree paths do not fit the shape");
    bool ok = vanilla_node_canonical(&v->comm_c);
    for (size_t i = 0; ok && i < v->n_apex; i++) ok = vanilla_node_canonical(&v->apex_leafs[i]);
    if (!ok)
        return cuzk_errf(err, CUZK_ENONCANONICAL, "update circuit: comm_c or an apex leaf >= r");
    for (size_t i = 0; i < v->n_challenges; i++) {
        const vanilla_update_challenge *c = &v->challenges[i];
        if (check_merkle(&c->r_old, &v->tree_r, "proof_r_old", i, err) ||
            check_merkle(&c->d_new, &v->tree_d, "proof_d_new", i, err) ||
            check_merkle(&c->r_new, &v->tree_r, "proof_r_new", i, err))
            return err ? err->code : CUZK_ENONCANONICAL;
    }
    return check_partition_path(v, s, err);
}

int update_circuit_init(update_circuit *uc, const update_shape *s,
                        const vanilla_update_partition *vanilla, const update_public *pub,
                        cuzk_err *err)
{
    update_circuit_blank(uc, s);
    int rc = update_public_inputs(uc->inputs, s, pub, err);
    if (!rc) rc = check_vanilla(vanilla, s, err);
    if (!rc) uc->vanilla = vanilla;
    return rc;
}

void update_circuit_blank(update_circuit *uc, const update_shape *s)
{
    memset(uc, 0, sizeof(*uc));
    uc->shape = *s;
}

/* ---- native randomness ---- */

static const poseidon_constants *gen_randomness(void)
{
    /* HashType::Custom(CType::Arbitrary(1)) over arity 2: only ENOMEM can fail. */
    return poseidon_constants_get_custom(2, 1, NULL);
}

void update_phi(fr_t *phi, const fr_t *comm_d_new, const fr_t *comm_r_old)
{
    fr_t pre[2] = {*comm_d_new, *comm_r_old};
    poseidon_hash(phi, gen_randomness(), pre);
}

void update_rho(fr_t *rho, const fr_t *phi, uint64_t high)
{
    fr_t pre[2] = {*phi};
    fr_from_u64(&pre[1], high);
    poseidon_hash(rho, gen_randomness(), pre);
}

void update_challenges(uint32_t *out, const update_shape *s, const fr_t *comm_r_new, uint64_t k)
{
    unsigned rand_bits = s->challenge_bits - s->partition_bits;
    unsigned per = FR_CAPACITY / rand_bits;
    uint64_t digests = (s->challenges + per - 1) / per;
    uint64_t limbs[FR_LIMBS] = {0};
    for (unsigned i = 0; i < s->challenges; i++) {
        if (i % per == 0) {
            fr_t pre[2] = {*comm_r_new}, d;
            fr_from_u64(&pre[1], k * digests + i / per);
            poseidon_hash(&d, gen_randomness(), pre);
            fr_to_canonical(limbs, &d);
        }
        uint32_t c = 0;
        for (unsigned b = 0, at = i % per * rand_bits; b < rand_bits; b++, at++)
            c |= (uint32_t)(limbs[at / 64] >> (at % 64) & 1) << b;
        out[i] = c | (uint32_t)k << rand_bits;
    }
}
