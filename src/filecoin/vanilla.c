/*
 * vanilla.c - the shapes behind vanilla proofs and the blocks that hold
 * them: the sector-size table, Merkle path geometry, registered seal proof
 * names, C1 allocation (one block per partition: proof structs, labeling
 * proofs and every 32-byte node, wired once) and the whole-proof
 * consistency check the C1 reader runs at the end (one challenge node per
 * proof across all its paths, columns and labels; one root per tree;
 * comm_d the tree-D root; comm_r = Poseidon(comm_c, comm_r_last)).
 *
 * The sector table is our own copy of filecoin-proofs' constants (PoRep
 * layers, partitions and challenges; storage-proofs-update's partition,
 * challenge and apex-leaf counts; Window PoSt sectors per partition),
 * kept here so the readers do not depend on the circuits' headers.
 */
#include "vanilla_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/fr.h"
#include "cuzk/poseidon.h"

bool vanilla_node_canonical(const vanilla_node *n)
{
    for (int i = FR_LIMBS - 1; i >= 0; i--) {
        uint64_t v;
        memcpy(&v, n->b + 8 * i, 8); /* little-endian hosts only (x86-64, aarch64) */
        if (v != FR_MODULUS[i]) return v < FR_MODULUS[i];
    }
    return false; /* equal to r */
}

bool vanilla_node_is_zero(const vanilla_node *n)
{
    static const vanilla_node zero;
    return memcmp(n, &zero, sizeof(zero)) == 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool vanilla_node_from_hex(vanilla_node *n, const char *hex)
{
    for (int i = 0; i < 32; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hi < 0 ? -1 : hex_digit(hex[2 * i + 1]);
        if (lo < 0) return false; /* also stops at the NUL: nothing past it is read */
        n->b[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

void vanilla_comm_r(vanilla_node *comm_r, const vanilla_node *comm_c,
                    const vanilla_node *comm_r_last)
{
    fr_t in[2];
    fr_from_bytes_le(&in[0], comm_c->b); /* the callers pass canonical nodes */
    fr_from_bytes_le(&in[1], comm_r_last->b);
    poseidon_hash(&in[0], poseidon_std(2), in);
    fr_to_bytes_le(comm_r->b, &in[0]);
}

bool vanilla_comm_r_matches(const vanilla_node *comm_r, const vanilla_node *comm_c,
                            const vanilla_node *comm_r_last)
{
    vanilla_node want;
    vanilla_comm_r(&want, comm_c, comm_r_last);
    return memcmp(&want, comm_r, sizeof(want)) == 0;
}

/*
 * filecoin-proofs constants.rs: POREP_PARTITIONS, LAYERS, challenges per
 * partition = ceil(minimum challenges / partitions) (2 / 1 = 2; 176 / 10 ->
 * 18; NI 26 / 13 = 2, 2253 / 126 -> 18), WINDOW_POST_SECTOR_COUNT;
 * storage-proofs-update constants.rs: partition_count, challenge_count,
 * apex_leaf_count; tree-R/C arities from filecoin-proofs' SectorShape*.
 */
static const vanilla_shape SHAPES[] = {
    {"2KiB", 2048, 64, 2, 2, 1, 13, 0, 0, 1, 10, 8, 2},
    {"8MiB", 8ull << 20, 1ull << 18, 2, 2, 1, 13, 0, 0, 4, 10, 128, 2},
    {"512MiB", 512ull << 20, 1ull << 24, 2, 2, 1, 13, 0, 0, 16, 86, 128, 2},
    {"32GiB", 32ull << 30, 1ull << 30, 11, 18, 10, 126, 8, 0, 16, 86, 128, 2349},
    {"64GiB", 64ull << 30, 1ull << 31, 11, 18, 10, 126, 8, 2, 16, 86, 128, 2300},
};
#define N_SHAPES (sizeof(SHAPES) / sizeof(SHAPES[0]))

const vanilla_shape *vanilla_shape_for_size(uint64_t sector_size)
{
    for (size_t i = 0; i < N_SHAPES; i++)
        if (SHAPES[i].sector_size == sector_size) return &SHAPES[i];
    return NULL;
}

static unsigned log2u(uint64_t v)
{
    unsigned l = 0;
    while (v > 1) v >>= 1, l++;
    return l;
}

void vanilla_tree_d(vanilla_tree *t, const vanilla_shape *s)
{
    memset(t, 0, sizeof(*t));
    t->levels = t->base_levels = t->hashes = log2u(s->nodes);
    for (unsigned l = 0; l < t->levels; l++) t->arity[l] = 2;
}

void vanilla_tree_r(vanilla_tree *t, const vanilla_shape *s)
{
    memset(t, 0, sizeof(*t));
    uint64_t base_leaves = s->nodes;
    if (s->sub_arity) base_leaves /= s->sub_arity;
    if (s->top_arity) base_leaves /= s->top_arity;
    t->base_levels = log2u(base_leaves) / 3; /* 8-ary */
    t->sub_arity = s->sub_arity;
    t->top_arity = s->top_arity;
    unsigned l = 0;
    for (; l < t->base_levels; l++) t->arity[l] = 8;
    if (s->sub_arity) t->arity[l++] = (uint8_t)s->sub_arity;
    if (s->top_arity) t->arity[l++] = (uint8_t)s->top_arity;
    t->levels = l;
    for (unsigned i = 0; i < l; i++) t->hashes += t->arity[i] - 1u;
}

unsigned vanilla_level_offset(const vanilla_tree *t, unsigned level)
{
    unsigned off = 0;
    for (unsigned l = 0; l < level; l++) off += t->arity[l] - 1u;
    return off;
}

uint64_t vanilla_level_weight(const vanilla_tree *t, unsigned level)
{
    uint64_t w = 1;
    for (unsigned l = 0; l < level; l++) w *= t->arity[l];
    return w;
}

int vanilla_tree_variant(const vanilla_tree *t)
{
    return t->top_arity ? 2 : t->sub_arity ? 1 : 0;
}

const char *const vanilla_variant_names[3] = {"Single", "Sub", "Top"};

const vanilla_node *vanilla_merkle_level(const vanilla_merkle *m, const vanilla_tree *t,
                                         unsigned level, unsigned *index)
{
    *index = (unsigned)(m->index / vanilla_level_weight(t, level) % t->arity[level]);
    return m->hashes + vanilla_level_offset(t, level);
}

/* ---- registered seal proofs ---- */

static const char *const SEAL_NAMES[VANILLA_SEAL_COUNT] = {
#define SEAL_GROUP(suffix)                                                                         \
    "StackedDrg2KiB" suffix, "StackedDrg8MiB" suffix, "StackedDrg512MiB" suffix,                   \
        "StackedDrg32GiB" suffix, "StackedDrg64GiB" suffix
    SEAL_GROUP("V1"),
    SEAL_GROUP("V1_1"),
    SEAL_GROUP("V1_1_Feat_SyntheticPoRep"),
    SEAL_GROUP("V1_2_Feat_NonInteractivePoRep"),
#undef SEAL_GROUP
};

const char *vanilla_seal_proof_name(int id)
{
    return id >= 0 && id < VANILLA_SEAL_COUNT ? SEAL_NAMES[id] : NULL;
}

int vanilla_seal_proof_id(const char *name)
{
    for (int i = 0; i < VANILLA_SEAL_COUNT; i++)
        if (!strcmp(name, SEAL_NAMES[i])) return i;
    return -1;
}

uint64_t vanilla_seal_proof_sector_size(int id)
{
    return id >= 0 && id < VANILLA_SEAL_COUNT ? SHAPES[id % 5].sector_size : 0;
}

/* ---- C1 blocks ---- */

void vanilla_c1_set_shape(vanilla_c1 *c1, const vanilla_shape *s)
{
    c1->shape = s;
    c1->challenges = s->challenges;
    vanilla_tree_d(&c1->tree_d, s);
    vanilla_tree_r(&c1->tree_r, s);
}

size_t vanilla_porep_nodes_per_challenge(const vanilla_c1 *c1)
{
    size_t layers = c1->shape->layers, r = c1->tree_r.hashes;
    size_t columns = 1 + VANILLA_DRG_PARENTS + VANILLA_EXP_PARENTS;
    return c1->tree_d.hashes + r + columns * (layers + r) + (layers + 1) * VANILLA_TOTAL_PARENTS;
}

static vanilla_node *wire_column(vanilla_column *c, vanilla_node *n, const vanilla_c1 *c1)
{
    c->rows = n;
    n += c1->shape->layers;
    c->proof.hashes = n;
    return n + c1->tree_r.hashes;
}

/* Points every array of proof p at its place in the node block n; returns the end. */
static vanilla_node *wire_proof(vanilla_porep_proof *p, vanilla_label *labels, vanilla_node *n,
                                const vanilla_c1 *c1)
{
    p->comm_d.hashes = n;
    n += c1->tree_d.hashes;
    p->comm_r_last.hashes = n;
    n += c1->tree_r.hashes;
    n = wire_column(&p->c_x, n, c1);
    for (int j = 0; j < VANILLA_DRG_PARENTS; j++) n = wire_column(&p->drg[j], n, c1);
    for (int j = 0; j < VANILLA_EXP_PARENTS; j++) n = wire_column(&p->exp[j], n, c1);
    p->labels = labels;
    for (unsigned l = 0; l < c1->shape->layers; l++, n += VANILLA_TOTAL_PARENTS)
        labels[l].parents = n;
    p->encoding.parents = n;
    return n + VANILLA_TOTAL_PARENTS;
}

int vanilla_c1_add_partition(vanilla_c1 *c1, cuzk_err *err)
{
    size_t ch = c1->challenges, layers = c1->shape->layers;
    size_t bytes = ch * (sizeof(vanilla_porep_proof) + layers * sizeof(vanilla_label) +
                         vanilla_porep_nodes_per_challenge(c1) * sizeof(vanilla_node));
    vanilla_porep_proof **parts = realloc(c1->part, (c1->partitions + 1) * sizeof(*parts));
    if (!parts) return cuzk_errf(err, CUZK_ENOMEM, "C1: out of memory for a partition");
    c1->part = parts;
    vanilla_porep_proof *p = calloc(1, bytes);
    if (!p)
        return cuzk_errf(err, CUZK_ENOMEM, "C1: out of memory for a partition (%zu bytes)", bytes);
    vanilla_label *labels = (vanilla_label *)(p + ch);
    vanilla_node *n = (vanilla_node *)(labels + ch * layers);
    for (size_t i = 0; i < ch; i++) n = wire_proof(&p[i], labels + i * layers, n, c1);
    parts[c1->partitions++] = p;
    return CUZK_OK;
}

static unsigned expected_partitions(const vanilla_c1 *c1)
{
    return c1->registered_proof >= VANILLA_SEAL_NI ? c1->shape->ni_partitions
                                                   : c1->shape->partitions;
}

int vanilla_c1_alloc(vanilla_c1 *c1, int registered_proof, cuzk_err *err)
{
    memset(c1, 0, sizeof(*c1));
    const vanilla_shape *s =
        vanilla_shape_for_size(vanilla_seal_proof_sector_size(registered_proof));
    if (!s) return cuzk_errf(err, CUZK_EINVAL, "C1: unknown registered proof %d", registered_proof);
    c1->registered_proof = registered_proof;
    vanilla_c1_set_shape(c1, s);
    for (unsigned k = expected_partitions(c1); k > 0; k--) {
        int rc = vanilla_c1_add_partition(c1, err);
        if (rc) {
            vanilla_c1_free(c1);
            return rc;
        }
    }
    return CUZK_OK;
}

void vanilla_c1_free(vanilla_c1 *c1)
{
    if (!c1) return;
    for (size_t k = 0; k < c1->partitions; k++) free(c1->part[k]);
    free(c1->part);
    memset(c1, 0, sizeof(*c1));
}

/* ---- whole-proof consistency ---- */

typedef struct check_ctx {
    const vanilla_c1 *c1;
    char where[96]; /* "vanilla_proofs.StackedDrg2KiBV1[k][i]" */
    const vanilla_node *comm_r_last, *comm_c;
    cuzk_err *err;
} check_ctx;

static int bad(check_ctx *x, const char *field, const char *what, uint64_t got, uint64_t want)
{
    return cuzk_errf(x->err, CUZK_EINVAL, "C1 %s.%s: %s %llu, expected %llu", x->where, field, what,
                     (unsigned long long)got, (unsigned long long)want);
}

/* Every root of one tree must be the same node (the first one seen sets it). */
static int same_root(check_ctx *x, const vanilla_node **first, const vanilla_node *root,
                     const char *field, const char *name)
{
    if (!*first) {
        if (vanilla_node_is_zero(root))
            return cuzk_errf(x->err, CUZK_EINVAL, "C1 %s.%s: %s is all zero", x->where, field,
                             name);
        *first = root;
    } else if (memcmp(*first, root, sizeof(*root))) {
        return cuzk_errf(x->err, CUZK_EINVAL,
                         "C1 %s.%s: root differs from the %s of the other proofs", x->where, field,
                         name);
    }
    return CUZK_OK;
}

static int check_column(check_ctx *x, const vanilla_column *c, const char *field)
{
    if (c->proof.index != c->index)
        return bad(x, field, "inclusion_proof leaf position is", c->proof.index, c->index);
    return same_root(x, &x->comm_c, &c->proof.root, field, "comm_c");
}

static int check_labels(check_ctx *x, const vanilla_porep_proof *p, uint64_t node)
{
    unsigned layers = x->c1->shape->layers;
    char field[48];
    for (unsigned l = 0; l < layers; l++) {
        snprintf(field, sizeof(field), "labeling_proofs[%u]", l);
        if (p->labels[l].layer != l + 1)
            return bad(x, field, "layer_index is", p->labels[l].layer, l + 1);
        if (p->labels[l].node != node) return bad(x, field, "node is", p->labels[l].node, node);
    }
    if (p->encoding.layer != layers)
        return bad(x, "encoding_proof", "layer_index is", p->encoding.layer, layers);
    if (p->encoding.node != node)
        return bad(x, "encoding_proof", "node is", p->encoding.node, node);
    return CUZK_OK;
}

static int check_proof(check_ctx *x, const vanilla_porep_proof *p)
{
    uint64_t node = p->c_x.index;
    int rc;
    if (p->comm_d.index != node)
        return bad(x, "comm_d_proofs", "leaf position is", p->comm_d.index, node);
    if (memcmp(&p->comm_d.root, &x->c1->comm_d, sizeof(vanilla_node)))
        return cuzk_errf(x->err, CUZK_EINVAL, "C1 %s.comm_d_proofs: root is not comm_d", x->where);
    if (p->comm_r_last.index != node)
        return bad(x, "comm_r_last_proof", "leaf position is", p->comm_r_last.index, node);
    if ((rc = same_root(x, &x->comm_r_last, &p->comm_r_last.root, "comm_r_last_proof",
                        "comm_r_last")))
        return rc;
    if ((rc = check_column(x, &p->c_x, "replica_column_proofs.c_x"))) return rc;
    char field[48];
    for (int j = 0; j < VANILLA_DRG_PARENTS; j++) {
        snprintf(field, sizeof(field), "replica_column_proofs.drg_parents[%d]", j);
        if ((rc = check_column(x, &p->drg[j], field))) return rc;
    }
    for (int j = 0; j < VANILLA_EXP_PARENTS; j++) {
        snprintf(field, sizeof(field), "replica_column_proofs.exp_parents[%d]", j);
        if ((rc = check_column(x, &p->exp[j], field))) return rc;
    }
    return check_labels(x, p, node);
}

int vanilla_c1_check_shape(const vanilla_c1 *c1, cuzk_err *err)
{
    const char *name = vanilla_seal_proof_name(c1->registered_proof);
    if (!name || !c1->shape)
        return cuzk_errf(err, CUZK_EINVAL, "C1: unknown registered proof %d", c1->registered_proof);
    if (vanilla_seal_proof_sector_size(c1->registered_proof) != c1->shape->sector_size)
        return cuzk_errf(err, CUZK_EINVAL,
                         "C1 vanilla_proofs: proofs are for %s sectors, registered_proof is %s",
                         c1->shape->name, name);
    if (c1->partitions != expected_partitions(c1))
        return cuzk_errf(err, CUZK_EINVAL, "C1 vanilla_proofs: %zu partitions, %s has %u",
                         c1->partitions, name, expected_partitions(c1));
    const struct {
        const char *name;
        const vanilla_node *v;
    } comms[] = {{"comm_r", &c1->comm_r}, {"comm_d", &c1->comm_d}, {"replica_id", &c1->replica_id}};
    for (size_t i = 0; i < 3; i++) {
        if (vanilla_node_is_zero(comms[i].v))
            return cuzk_errf(err, CUZK_EINVAL, "C1 %s: all zero", comms[i].name);
        if (!vanilla_node_canonical(comms[i].v))
            return cuzk_errf(err, CUZK_ENONCANONICAL, "C1 %s: not a canonical field element (>= r)",
                             comms[i].name);
    }
    return CUZK_OK;
}

int vanilla_c1_check(const vanilla_c1 *c1, cuzk_err *err)
{
    int rc = vanilla_c1_check_shape(c1, err);
    if (rc) return rc;
    check_ctx x = {.c1 = c1, .err = err};
    for (size_t k = 0; k < c1->partitions; k++) {
        for (size_t i = 0; i < c1->challenges; i++) {
            snprintf(x.where, sizeof(x.where), "vanilla_proofs.StackedDrg%sV1[%zu][%zu]",
                     c1->shape->name, k, i);
            if ((rc = check_proof(&x, &c1->part[k][i]))) return rc;
        }
    }
    if (x.comm_c && !vanilla_comm_r_matches(&c1->comm_r, x.comm_c, x.comm_r_last))
        return cuzk_errf(err, CUZK_EINVAL,
                         "C1 comm_r: not Poseidon(comm_c, comm_r_last) of the proofs' roots");
    return CUZK_OK;
}
